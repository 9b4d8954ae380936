"""End-to-end tests of `spbench fetch` against a mirror of the SuiteSparse
collection served on the loopback address: the bundled matrices packed as
the collection packs them (Group/Name.tar.gz holding Name/Name.mtx) with
an index (ssstats.csv). A selection by criteria, checked against the
index; a fetched study run from its list; the cache reused; a connection
dropped mid-file and resumed; a corrupt archive; an unreachable
collection; a full disk (as root: a small tmpfs); a Group/Name list.

usage: e2e_fetch.py SPBENCH SOURCE_DIR [TEST]
"""
import gzip
import html
import http.server
import io
import json
import math
import os
import random
import re
import shutil
import subprocess
import tarfile
import threading

from spbtest import SOURCE, check, read_rows, run_tests, skip, spbench

BUNDLED = os.path.join(SOURCE, "matrices")
# the collection's kind for each bundled matrix, and the group it is served in
KINDS = {"1138_bus": ("HB", "power network problem"), "Journals": ("Pajek", "undirected graph"),
         "adder_dcop_32": ("Sandia", "circuit simulation problem"),
         "cage4": ("vanHeukelum", "directed weighted graph"),
         "jagmesh7": ("HB", "2D/3D problem"), "lp_e226": ("LPnetlib", "linear programming problem"),
         "mhda416": ("Bai", "electromagnetics problem"), "olm1000": ("Bai", "computational fluid "
                                                                     "dynamics problem"),
         "plskz362": ("Bai", "2D/3D problem"), "west0479": ("HB", "chemical process simulation "
                                                          "problem")}
DROPPED = ("HB", "west0479")  # its first download stops half way
CORRUPT = ("Broken", "garbled")  # an archive that is not one


def tar_of(name, text):
    """The tar the collection packs one matrix in (Name/Name.mtx)."""
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w") as t:
        info = tarfile.TarInfo("%s/%s.mtx" % (name, name))
        info.size = len(text)
        t.addfile(info, io.BytesIO(text))
    return data.getvalue()


def packed(name, text):
    """The collection's archive of one matrix."""
    return gzip.compress(tar_of(name, text))


class Mirror(http.server.BaseHTTPRequestHandler):
    """The served files, HTTP ranges, and the faults; every request logged."""

    def log_message(self, *args):
        pass

    def reply(self, body_wanted):
        files, log = self.server.files, self.server.log
        log.append((self.command, self.path, self.headers.get("Range")))
        data = files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        start = 0
        wanted = self.headers.get("Range")
        if wanted and wanted.startswith("bytes=") and wanted.endswith("-"):
            start = int(wanted[6:-1])
            if start >= len(data):
                self.send_error(416)
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        else:
            self.send_response(200)
        self.send_header("Content-Length", str(len(data) - start))
        self.end_headers()
        if not body_wanted:
            return
        drop = self.path in self.server.drop_once and not wanted
        if drop:  # half the bytes, then the connection closes
            self.server.drop_once.discard(self.path)
            self.wfile.write(data[:len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(data[start:])

    def do_GET(self):
        self.reply(True)

    def do_HEAD(self):
        self.reply(False)


def fixture_mirror(tmp):
    """The mirror's base URL, its server (files, log, drop_once) and the
    index as the test reads it (an independent parse)."""
    files, index = {}, []
    for entry in sorted(os.listdir(BUNDLED)):
        if not entry.endswith(".mtx.gz"):
            continue
        name = entry[:-len(".mtx.gz")]
        group, kind = KINDS[name]
        text = gzip.open(os.path.join(BUNDLED, entry)).read()
        banner = text.split(b"\n", 1)[0].decode().split()
        size = next(l for l in text.decode().splitlines() if not l.startswith("%")).split()
        rows, cols, stored = int(size[0]), int(size[1]), int(size[2])
        real = banner[3] == "real"
        files["/MM/%s/%s.tar.gz" % (group, name)] = packed(name, text)
        index.append({"group": group, "name": name, "rows": rows, "cols": cols, "nnz": stored,
                      "real": real, "binary": banner[3] == "pattern", "kind": kind, "text": text})
    files["/MM/%s/%s.tar.gz" % CORRUPT] = b"\x1f\x8b not an archive at all" * 40
    index.append({"group": CORRUPT[0], "name": CORRUPT[1], "rows": 10, "cols": 10, "nnz": 30,
                  "real": True, "binary": False, "kind": "garbled problem", "text": None})
    lines = ["%d" % len(index), "28-Nov-2026 00:00:00"]
    for m in index:
        lines.append("%s,%s,%d,%d,%d,%d,%d,0,0,1,1,%s,%d" % (
            m["group"], m["name"], m["rows"], m["cols"], m["nnz"], m["real"], m["binary"],
            m["kind"], m["nnz"]))
    files["/files/ssstats.csv"] = ("\n".join(lines) + "\n").encode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Mirror)
    server.files, server.log, server.drop_once = files, [], {"/MM/%s/%s.tar.gz" % DROPPED}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d" % server.server_address[1], server, index


def fetch(base, cache, *args):
    return spbench("fetch", "--base", base, "--cache", cache, *args, timeout=300)


def archives_fetched(server):
    return [p for method, p, _ in server.log if method == "GET" and p.startswith("/MM/")]


COLLECTION = 3000  # about the SuiteSparse collection's count
SMALL = 2000        # entries: the matrices served whole; larger ones are in the index only


def small_matrix(rng, rows, cols, nnz):
    """A real general Matrix Market text of about nnz distinct entries."""
    cells = {(rng.randrange(rows), rng.randrange(cols)) for _ in range(nnz)}
    body = ["%d %d %.6g" % (i + 1, j + 1, rng.uniform(-1, 1) or 0.5) for i, j in sorted(cells)]
    return ("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n%s\n" % (
        rows, cols, len(body), "\n".join(body))).encode()


def test_collection_sized(tmp):
    """A collection-sized mirror: an index of 3,000 matrices whose sizes run,
    as the collection's do, from a handful of entries to billions (log-
    uniform), the small ones served. fetch chooses from the whole index by
    criteria and fetches a few hundred (one download dropped half way and
    resumed), a study runs over them, and plot and report draw it."""
    rng = random.Random(20261205)
    files, index = {}, []
    kinds = ("undirected graph", "directed graph", "2D/3D problem", "circuit simulation problem",
             "linear programming problem", "optimization problem")
    for k in range(COLLECTION):
        nnz = int(10 ** rng.uniform(1, 9.7))
        rows = max(1, int(nnz / 10 ** rng.uniform(0, 2)))
        cols = rows if rng.random() < 0.8 else max(1, int(rows * 10 ** rng.uniform(-1, 1)))
        nnz = min(nnz, rows * cols)
        group, name = "G%02d" % (k % 40), "m%04d" % k
        real = rng.random() < 0.85
        m = {"group": group, "name": name, "rows": rows, "cols": cols, "nnz": nnz, "real": real,
             "kind": kinds[k % len(kinds)]}
        if nnz <= SMALL and real:
            text = small_matrix(rng, rows, cols, nnz)
            m["nnz"] = int(text.split(b"\n")[1].split()[2])
            files["/MM/%s/%s.tar.gz" % (group, name)] = packed(name, text)
        index.append(m)
    lines = ["%d" % len(index), "05-Dec-2026 00:00:00"]
    for m in index:
        lines.append("%s,%s,%d,%d,%d,%d,0,0,0,1,1,%s,%d" % (
            m["group"], m["name"], m["rows"], m["cols"], m["nnz"], m["real"], m["kind"], m["nnz"]))
    files["/files/ssstats.csv"] = ("\n".join(lines) + "\n").encode()
    chosen = sorted((m for m in index if m["real"] and m["nnz"] <= SMALL and m["nnz"] >= 10),
                    key=lambda m: (m["nnz"], m["group"], m["name"]))[:250]
    dropped = "/MM/%s/%s.tar.gz" % (chosen[100]["group"], chosen[100]["name"])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Mirror)
    server.files, server.log, server.drop_once = files, [], {dropped}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = "http://127.0.0.1:%d" % server.server_address[1]
    cache, listing = os.path.join(tmp, "cache-collection"), os.path.join(tmp, "collection.txt")
    try:
        r = fetch(base, cache, "--real", "--min-nnz", "10", "--max-nnz", str(SMALL), "--max",
                  "250", "-o", listing)
        lines = [l for l in open(listing).read().splitlines() if not l.startswith("#")] \
            if os.path.exists(listing) else []
        check(r.returncode == 0 and sorted(lines) == sorted(
            os.path.join(os.path.abspath(cache), m["group"], m["name"] + ".mtx.gz")
            for m in chosen), "fetch chooses from the 3,000-entry index what it says, smallest "
              "first (%d listed): %s" % (len(lines), r.stderr[-300:]))
        ranges = [rng_ for method, p, rng_ in server.log if p == dropped and rng_]
        check(ranges and ranges[0] != "bytes=0-",
              "the dropped download resumed where it stopped: %s" % ranges)
        r = fetch(base, cache, "--min-nnz", "1e9", "--dry-run")
        huge = [m for m in index if m["nnz"] >= 1e9]
        check(r.returncode == 0 and "%d matri" % len(huge) in r.stdout,
              "a dry run over the billion-entry end names them (%d): %s"
              % (len(huge), r.stdout[:200]))
    finally:
        server.shutdown()
    study = os.path.join(tmp, "collection")
    r = spbench("run", "--kernels", "csr.serial,hll.serial.row", "--reps", "1", "--min-time", "0",
                "--warmup", "0", "--bandwidth", "10", "--energy-s", "0", "--quiet", "--csv",
                study + ".csv", "--json", study + ".json", "@" + listing, timeout=1200)
    rows = read_rows(study + ".csv") if os.path.exists(study + ".csv") else []
    check(r.returncode == 0 and len({x["matrix"] for x in rows}) == len(chosen),
          "a study over the %d fetched matrices: %d matrices in its rows, %s"
          % (len(chosen), len({x["matrix"] for x in rows}), r.stderr[-300:]))
    if shutil.which("gnuplot"):
        r = spbench("plot", study + ".csv", study + "-charts", timeout=600)
        check(r.returncode == 0 and os.path.exists(os.path.join(study + "-charts", "profile.png")),
              "plot draws the study, its performance profile among the charts: %s"
              % r.stderr[-300:])
    else:
        skip("no gnuplot: the collection study's charts (apt-get install gnuplot-nox)", "gnuplot")
    r = spbench("report", study + ".json", "-o", study + ".html", timeout=600)
    check(r.returncode == 0 and open(study + ".html", encoding="utf-8").read().count(
        "<tr>") > len(chosen), "report makes the study a page, a line per matrix: %s"
          % r.stderr[-300:])


def test_dry_run(tmp, mirror):
    base, server, index = mirror
    cache = os.path.join(tmp, "cache-dry")
    r = fetch(base, cache, "--real", "--square", "--min-nnz", "1e3", "--max", "3", "--dry-run")
    expected = sorted((m for m in index if m["real"] and m["rows"] == m["cols"] and
                       m["nnz"] >= 1000), key=lambda m: (m["nnz"], m["group"], m["name"]))[:3]
    shown = [l.split()[0] for l in r.stdout.splitlines() if l.startswith("  ")]
    check(r.returncode == 0 and shown == ["%s/%s" % (m["group"], m["name"]) for m in expected],
          "the criteria choose what the index says, smallest first: %s (expected %s) %s"
          % (shown, [m["name"] for m in expected], r.stderr))
    size = sum(len(server.files["/MM/%s/%s.tar.gz" % (m["group"], m["name"])]) for m in expected)
    check("3 to fetch, %.1f KB" % (size / 1000.0) in r.stdout,
          "the bytes to fetch are said first (%d): %s" % (size, r.stdout.splitlines()[0]))
    check(not archives_fetched(server) and not os.path.exists(os.path.join(cache, "HB")),
          "--dry-run downloads nothing")
    r = fetch(base, cache, "--kind", "*graph*", "--largest", "--max", "1", "--dry-run")
    check(r.returncode == 0 and "Pajek/Journals" in r.stdout and "cage4" not in r.stdout,
          "--kind with --largest: the largest graph: %s" % r.stdout)
    for bad in (["--min-nnz", "lots"], ["--max", "0"], ["--bogus"], []):
        r = fetch(base, cache, *bad)
        check(r.returncode == 2 and r.stderr.startswith("spbench fetch:"),
              "a usage error exits 2 with a message (%s): %s" % (bad, r.stderr))


def test_study(tmp, mirror):
    """Fetched by criteria (the dropped archive among them), run from the
    list, then fetched again from the cache."""
    base, server, index = mirror
    cache, listing = os.path.join(tmp, "cache"), os.path.join(tmp, "study.txt")
    del server.log[:]
    r = fetch(base, cache, "--group", "HB", "--real", "-o", listing)
    chosen = [m for m in index if m["group"] == "HB" and m["real"] and not m["binary"]]
    check(r.returncode == 0, "fetch by criteria: %s %s" % (r.stdout, r.stderr))
    for m in chosen:
        path = os.path.join(cache, m["group"], m["name"] + ".mtx.gz")
        check(os.path.exists(path) and gzip.open(path).read() == m["text"],
              "%s/%s arrives whole" % (m["group"], m["name"]))
    ranges = [rng for method, p, rng in server.log if p == "/MM/%s/%s.tar.gz" % DROPPED and rng]
    check(ranges and ranges[0] != "bytes=0-",
          "the dropped download resumed from where it stopped: %s" % ranges)
    lines = [l for l in open(listing).read().splitlines() if not l.startswith("#")]
    check(sorted(lines) == sorted(os.path.join(os.path.abspath(cache), m["group"],
                                               m["name"] + ".mtx.gz") for m in chosen),
          "the list names the chosen matrices: %s" % lines)
    said = [l for l in open(listing).read().splitlines() if l.startswith("# kind: ")]
    check(sorted(said) == sorted("# kind: %s\t%s" % (m["name"], m["kind"]) for m in chosen),
          "the list names each matrix's kind as the index does: %s" % said)
    csv, doc = os.path.join(tmp, "study.csv"), os.path.join(tmp, "study.json")
    r = spbench("run", "--kernels", "csr.serial,csr.omp.static", "--threads", "1", "--reps", "1",
                "--min-time", "0", "--bandwidth", "10", "--energy-s", "0", "--quiet", "--csv",
                csv, "--json", doc, "@" + listing)
    rows = read_rows(csv) if os.path.exists(csv) else []
    check(r.returncode == 0 and len(rows) == 2 * len(chosen) and
          all(row["status"] == "ok" for row in rows),
          "spbench run @LIST measures each: %s" % r.stderr[-500:])
    # the report by the kinds the list names: a column per kind, each kind's count
    page = os.path.join(tmp, "study.html")
    r = spbench("report", doc, "-o", page, "--kinds", listing,
                env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    text = open(page).read() if os.path.exists(page) else ""
    table = text[text.find('id="kinds"'):]
    table = table[:table.find("</table>")]
    counts = {}
    for m in chosen:
        counts[m["kind"]] = counts.get(m["kind"], 0) + 1
    check(r.returncode == 0 and "By the matrices' kind: vs csr.serial" in text and
          all(html.escape(kind) in table for kind in counts) and
          re.search(r"csr\.omp\.static.*\(%d\)" % max(counts.values()), table),
          "report --kinds: the kernels by kind of matrix, each kind's count: %s %s"
          % (r.stderr[-300:], table[:600]))
    r = spbench("report", doc, "-o", page + "2", "--kinds", csv)
    check(r.returncode == 2 and "names no matrix's kind" in r.stderr,
          "a list that names no kind is refused, saying so: %s" % r.stderr)
    del server.log[:]
    r = fetch(base, cache, "--group", "HB", "--real", "-o", listing, "--force")
    check(r.returncode == 0 and "%d in the cache" % len(chosen) in r.stdout and
          not archives_fetched(server), "a later fetch takes them from the cache: %s" % r.stdout)


def test_corrupt_archive(tmp, mirror):
    base, server, index = mirror
    cache, listing = os.path.join(tmp, "cache-corrupt"), os.path.join(tmp, "corrupt.txt")
    r = fetch(base, cache, "--min-rows", "9", "--max-rows", "10", "-o", listing)
    check(r.returncode == 1 and "Broken/garbled: a corrupt archive" in r.stderr and
          "not written" in r.stderr, "a corrupt archive is named, the list not written: %s"
          % r.stderr)
    check(not os.path.exists(listing), "no list with a matrix missing")
    check(os.path.exists(os.path.join(cache, "vanHeukelum", "cage4.mtx.gz")),
          "the good matrix of the same fetch is kept in the cache")
    leftovers = [f for _, _, names in os.walk(cache) for f in names if ".part" in f]
    check(not leftovers and not os.path.exists(os.path.join(cache, "Broken", "garbled.mtx.gz")),
          "nothing half-made is left: %s" % leftovers)


def test_list(tmp, mirror):
    base, server, index = mirror
    cache, lst = os.path.join(tmp, "cache-list"), os.path.join(tmp, "names.txt")
    with open(lst, "w") as f:
        f.write("# a study's list\nHB/1138_bus\nBai/olm1000  # a comment\nHB/missing\n")
    r = fetch(base, cache, "--list", lst, "-o", os.path.join(tmp, "names-out.txt"))
    check(r.returncode == 1 and "HB/missing: " in r.stderr and "404" in r.stderr,
          "a matrix the collection lacks is named: %s" % r.stderr)
    check(os.path.exists(os.path.join(cache, "Bai", "olm1000.mtx.gz")),
          "the listed matrices arrive")
    with open(lst, "w") as f:
        f.write("HB/1138_bus\njust_a_name\n")
    r = fetch(base, cache, "--list", lst)
    check(r.returncode == 2 and "not Group/Name" in r.stderr and "names.txt:2" in r.stderr,
          "a line that is not Group/Name is refused, named by its line: %s" % r.stderr)


def test_offline(tmp):
    r = spbench("fetch", "--base", "http://127.0.0.1:9", "--cache", os.path.join(tmp, "off"),
                "--kind", "*graph*")
    check(r.returncode == 1 and "offline" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
          "an unreachable collection is one line: %s" % r.stderr)
    r = spbench("fetch", "--base", "http://127.0.0.1:9", "--cache", os.path.join(tmp, "off"),
                "--list", os.path.join(tmp, "missing.txt"))
    check(r.returncode == 2 and "cannot read the list" in r.stderr and "offline" not in r.stderr,
          "a list that is not there is said first, offline or not: %s" % r.stderr)


def test_full_disk(tmp, mirror):
    if os.geteuid() != 0:
        skip("a full disk needs a small tmpfs (root)")
        return
    base, server, index = mirror
    cache = os.path.join(tmp, "small")
    os.mkdir(cache)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48k", "none", cache],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        skip("cannot mount a tmpfs: %s" % mounted.stderr.strip())
        return
    try:
        r = fetch(base, cache, "--min-nnz", "1", "-o", os.path.join(tmp, "full.txt"))
        check(r.returncode == 1 and "disk is full" in r.stderr,
              "a full disk is said: %s" % r.stderr[-600:])
        leftovers = [f for _, _, names in os.walk(cache) for f in names if ".part" in f]
        check(not leftovers, "nothing half-written is left on the full disk: %s" % leftovers)
        check(not os.path.exists(os.path.join(tmp, "full.txt")), "no list")
    finally:
        subprocess.run(["umount", cache])


if __name__ == "__main__":
    run_tests([test_dry_run, test_study, test_corrupt_archive, test_list, test_offline,
               test_full_disk, test_collection_sized], "spb_e2e_fetch_", globals())
