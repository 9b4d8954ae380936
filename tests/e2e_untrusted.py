"""End-to-end tests of the third hostile trial (issue 74): inputs spbench
did not make (file names, an index, a cache, results handed over) never
run a command, write or delete outside their place, or crash a study;
each test fails on the code before its fix.

usage: e2e_untrusted.py SPBENCH SOURCE_DIR
"""
import bz2
import fcntl
import gzip
import lzma
import html.parser
import http.server
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

from e2e_fetch import Mirror, tar_of
from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "1", "--min-time", "0", "--warmup", "0", "--quiet", "--threads", "1"]
CAGE4 = os.path.join(BUNDLED, "cage4.mtx.gz")

# names a file, an index or a results file may hold: each would run a
# command, end a string or open markup if it reached a sink unquoted
HOSTILE = ["c`touch${IFS}PWNED`", "d$(touch PWNED)", "q'; system('touch PWNED') #",
           'dq"x', "a<b>&c", "rtl\u202edcba", "at@x", "back\\slash"]


class Attributes(html.parser.HTMLParser):
    """Every attribute name of every element, and the page's title."""

    def __init__(self):
        super().__init__()
        self.names, self.title, self._in_title = set(), "", False

    def handle_starttag(self, tag, attrs):
        self.names.update(name for name, _ in attrs)
        self._in_title = tag == "title"

    def handle_data(self, data):
        if self._in_title:
            self.title += data

    def handle_endtag(self, tag):
        self._in_title = False


def test_names_reach_gnuplot_and_html_as_text(tmp):
    """Item 1 and 4: matrix names (from file names) and kernel names (from a
    results JSON) that would run a command in gnuplot or add attributes to
    the report's markup are drawn and shown as text: no file is made, the
    charts hold the names, and the page has only its own attributes."""
    folder = os.path.join(tmp, "names")
    os.mkdir(folder)
    for name in HOSTILE:
        shutil.copy(CAGE4, os.path.join(folder, name + ".mtx.gz"))
    # a newline and bytes that are not UTF-8: cleaned to '?' where read (spb_clean_name)
    shutil.copy(CAGE4, os.path.join(folder, "new\nline.mtx.gz"))
    shutil.copy(CAGE4, os.path.join(folder.encode(), b"bad\xffbyte.mtx.gz"))
    csv_path, json_path = os.path.join(tmp, "h.csv"), os.path.join(tmp, "h.json")
    r = spbench("run", *FAST, "--op", "spgemm", "--kernels", "spgemm.gustavson", "--csv",
                csv_path, "--json", json_path, folder, cwd=tmp)
    check(r.returncode == 0, "the study of hostile names runs: %s" % r.stderr[-300:])
    charts = os.path.join(tmp, "charts")
    r = subprocess.run([SPBENCH, "plot", csv_path, charts], capture_output=True, text=True,
                       cwd=tmp)
    if shutil.which("gnuplot") is None:
        skip("no gnuplot: the charts of hostile names (apt-get install gnuplot-nox)", "gnuplot")
    else:
        check(r.returncode == 0, "plot draws the hostile names: %s" % r.stderr[-300:])
        with open(os.path.join(charts, "spgemm_time.svg"), encoding="utf-8") as f:
            svg = html.unescape(f.read())
        missing = [n for n in HOSTILE + ["new?line", "bad?byte"] if n not in svg]
        check(not missing, "every name is in the chart as it is: missing %s" % missing)
    # the report: a kernel name that would add attributes, from a JSON handed over
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    evil = "spgemm.serial.x tabindex=1 autofocus onfocus=document.title=/PWNED/.source"
    for row in doc["rows"]:
        row["kernel"] = evil if row is doc["rows"][0] else row["kernel"]
    handed = os.path.join(tmp, "handed.json")
    with open(handed, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    page = os.path.join(tmp, "handed.html")
    r = spbench("report", handed, "-o", page, cwd=tmp)
    check(r.returncode == 0, "report takes the study: %s" % r.stderr[-300:])
    parsed = Attributes()
    with open(page, encoding="utf-8") as f:
        parsed.feed(f.read())
    foreign = parsed.names - {"lang", "charset", "name", "content", "class", "id", "data-key",
                              "data-value", "data-table", "title", "alt", "src", "placeholder"}
    check(not foreign, "the page holds only its own attributes: %s" % sorted(foreign))
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        skip("no Chromium: the hostile page in a browser (apt-get install chromium)", "chromium")
    else:
        r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                            "--dump-dom", "file://" + page], capture_output=True, text=True,
                           timeout=120)
        dom = Attributes()
        dom.feed(r.stdout)
        check(r.returncode == 0 and dom.title == "spbench: handed.json",
              "in a browser the page keeps its title: %r" % dom.title)
    made = [n for n in os.listdir(tmp) if n.startswith("PWNED")]
    check(not made, "no name ran a command: %s" % made)


def test_temp_files_of_others(tmp):
    """Item 3: a run removes only its own output's leftovers that no process
    holds: a user's file that looks like a temporary one stays, and so does
    another writer's locked temporary file whose process id is not alive
    here (another host, another PID namespace)."""
    folder = os.path.join(tmp, "d")
    os.mkdir(folder)
    thesis = os.path.join(folder, "thesis.tmp.20261201")
    with open(thesis, "w") as f:
        f.write("draft\n")
    # a writer on another host: its id means nothing here, its lock does
    other = os.path.join(folder, "r2.json.tmp.99999999")
    held = open(other, "w")
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    # a writer of r.json killed with -9: its file is unlocked, and it is r.json's own leftover
    dead = os.path.join(folder, "r.json.tmp.99999998")
    with open(dead, "w") as f:
        f.write("{")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--json",
                os.path.join(folder, "r.json"), CAGE4)
    check(r.returncode == 0 and os.path.exists(os.path.join(folder, "r.json")),
          "the run writes its JSON: %s" % r.stderr[-300:])
    check(os.path.exists(thesis), "a file that only looks temporary is left alone")
    check(os.path.exists(other), "another writer's locked temporary file is left alone")
    check(not os.path.exists(dead), "the output's own dead leftover is removed")
    # writing r2.json while its locked temporary file is held: refused, the file kept
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--json",
                os.path.join(folder, "r2.json"), CAGE4)
    check(r.returncode != 0 and "r2.json" in r.stderr and os.path.exists(other),
          "a run onto a file another host is writing is refused, its file kept: %d %s"
          % (r.returncode, r.stderr.strip()[-300:]))
    held.close()


def test_two_pid_namespaces(tmp):
    """Item 3: two shards in separate PID namespaces (as on two nodes)
    write their JSON into one folder at once: both JSONs are whole (one
    once removed the other's temporary file, whose id was not alive in its
    namespace)."""
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "--pid", "--fork", "true"],
                           capture_output=True) if unshare else None
    if os.geteuid() != 0:
        skip("no PID namespaces here (unshare --pid needs root)", "root")
        return
    if probe is None or probe.returncode != 0:  # a container without the capability
        skip("unshare --pid is refused here, root as we are: %s" %
             (probe.stderr.decode(errors="replace").strip() if probe else "no unshare"))
        return
    folder = os.path.join(tmp, "shared")
    os.mkdir(folder)
    slow = ["run", "--reps", "1", "--warmup", "0", "--quiet", "--threads", "1", "--min-time",
            "3", "--kernels", "csr.serial", "--json", os.path.join(folder, "a.json"), CAGE4]
    # a few processes first, so this shard's id in its namespace is not the other's
    first = subprocess.Popen([unshare, "--pid", "--fork", "sh", "-c",
                              '/bin/true; /bin/true; "$@"; exit $?', "sh", SPBENCH] + slow,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not any(n.startswith("a.json.tmp.")
                                             for n in os.listdir(folder)):
        time.sleep(0.05)
    second = subprocess.run([unshare, "--pid", "--fork", "sh", "-c", '"$@"; exit $?', "sh",
                             SPBENCH, "run", *FAST, "--kernels", "csr.serial", "--json",
                             os.path.join(folder, "b.json"), CAGE4],
                            capture_output=True, text=True, timeout=300)
    _, err = first.communicate(timeout=300)
    check(second.returncode == 0, "the second shard ends well: %s" % second.stderr[-300:])
    check(first.returncode == 0 and os.path.exists(os.path.join(folder, "a.json")),
          "the first shard keeps its JSON: %d %s" % (first.returncode, err[-300:]))


class SlowMirror(Mirror):
    """The test mirror, sending the archives of server.slow a piece at a
    time (server.slow[path] seconds between pieces of a tenth)."""

    def do_GET(self):
        pause = self.server.slow.get(self.path)
        if pause is None:
            return self.reply(True)
        self.server.log.append((self.command, self.path, self.headers.get("Range")))
        data = self.server.files[self.path]
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        step = max(1, len(data) // 10)
        try:
            for at in range(0, len(data), step):
                self.wfile.write(data[at:at + step])
                self.wfile.flush()
                time.sleep(pause)
        except OSError:  # the client gave up
            pass


def fixture_hostile_mirror(tmp):
    """A mirror whose index holds names that would leave the cache or break
    a URL, beside good matrices, and archives that are corrupt only where
    gzip's CRC and length tell (stored blocks: the tar inside still reads)."""
    cage4 = gzip.open(CAGE4).read()
    files, lines = {}, []

    def add(group, name, archive, rows=9, cols=9, nnz=49):
        files["/MM/%s/%s.tar.gz" % (group, name)] = archive
        lines.append('"%s","%s",%d,%d,%d,1,0,0,0,1,1,graph,%d' % (group, name, rows, cols, nnz,
                                                                  nnz))

    good = gzip.compress(tar_of("cage4", cage4), compresslevel=0)
    add("Good", "cage4", good)
    add("Slow", "cage4", good)
    for group, name in (("../../victim", "owned"), ("G", "/../keep"), ("/abs", "x"),
                        ("Sp", "a b"), ("Hash", "a#b"), ("Ctl", "a\x01b"), ("..", "up")):
        add(group, name, good)
    # one digit of an entry changed: the tar reads, the CRC does not match
    at = good.index(b"\n1 1 ") + 5
    flipped = good[:at] + (b"9" if good[at:at + 1] != b"9" else b"8") + good[at + 1:]
    add("Crc", "cage4", flipped)
    add("Cut", "cage4", good[:-40])  # its trailer and the tar's last zeros cut
    files["/files/ssstats.csv"] = ("%d\n28-Nov-2026 00:00:00\n%s\n" % (
        len(lines), "\n".join(lines))).encode()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SlowMirror)
    server.files, server.log, server.drop_once, server.slow = files, [], set(), {}
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return "http://127.0.0.1:%d" % server.server_address[1], server


def fetch(base, cache, *args, **kw):
    return spbench("fetch", "--base", base, "--cache", cache, *args, timeout=300, **kw)


def test_fetch_stays_in_its_cache(tmp, hostile_mirror):
    """Item 2 and 11: index lines whose group or name would leave the cache
    (../, absolute, /../) or break a URL (a blank, '#', a control
    character) are left out and said; nothing is written or removed outside
    the cache; a --list entry of that kind is refused; never a traceback."""
    base, server = hostile_mirror
    work = os.path.join(tmp, "fetch2")
    cache = os.path.join(work, "a", "b", "cache")
    os.makedirs(os.path.join(cache, ".downloads"))
    keep = os.path.join(cache, ".downloads", "keep.tar.gz")
    with open(keep, "wb") as f:
        f.write(b"mine")
    r = fetch(base, cache, "--group", "*", "--name", "*", cwd=work)
    check("Traceback" not in r.stderr, "no traceback: %s" % r.stderr[-400:])
    check("7 line(s) of the index left out" in r.stderr,
          "the hostile lines are left out and said: %s" % r.stderr[-400:])
    check(os.path.exists(os.path.join(cache, "Good", "cage4.mtx.gz")),
          "the good matrix is fetched: %s" % r.stderr[-400:])
    outside = [os.path.join(d, n) for d, _, names in os.walk(work) for n in names
               if not os.path.join(d, n).startswith(cache + os.sep)]
    check(not outside and not os.path.exists(os.path.join(work, "victim")),
          "nothing written outside the cache: %s" % outside)
    with open(keep, "rb") as f:
        check(f.read() == b"mine", "a file in the cache that fetch did not make is untouched")
    requested = [p for _, p, _ in server.log if p.startswith("/MM/")]
    check(all(".." not in p and " " not in p for p in requested),
          "no request leaves the mirror's MM folder: %s" % requested)
    listing = os.path.join(work, "list.txt")
    for entry in ("../../victim/owned", "G//../keep", "/abs/x", "Sp/a b"):
        with open(listing, "w") as f:
            f.write(entry + "\n")
        r = fetch(base, cache, "--list", listing, cwd=work)
        check(r.returncode == 2 and "is not Group/Name" in r.stderr and
              "Traceback" not in r.stderr, "--list refuses %r: %d %s" % (
                  entry, r.returncode, r.stderr[-200:]))


def test_fetch_checks_the_whole_stream(tmp, hostile_mirror):
    """Item 7: an archive whose gzip CRC does not match (one digit changed,
    the tar still readable) and one cut short by 40 bytes are refused as
    corrupt, and nothing of them is cached."""
    base, _ = hostile_mirror
    cache = os.path.join(tmp, "cache7")
    for group in ("Crc", "Cut"):
        r = fetch(base, cache, "--group", group)
        check(r.returncode == 1 and "a corrupt archive" in r.stderr,
              "%s/cage4 is refused as corrupt: %d %s" % (group, r.returncode, r.stderr[-300:]))
        check(not os.path.exists(os.path.join(cache, group, "cage4.mtx.gz")),
              "%s/cage4 is not cached" % group)
    r = fetch(base, cache, "--group", "Good")
    with gzip.open(os.path.join(cache, "Good", "cage4.mtx.gz")) as f:
        check(r.returncode == 0 and f.read() == gzip.open(CAGE4).read(),
              "the same archive whole is fetched as it is")


def test_fetch_output_and_deadline(tmp, hostile_mirror):
    """Items 10 and 11: -o does not replace a file without --force; a
    mirror that crawls ends the fetch at --timeout; two fetches of one
    matrix at once download it once, and both find it cached."""
    base, server = hostile_mirror
    cache = os.path.join(tmp, "cache10")
    precious = os.path.join(tmp, "precious.csv")
    with open(precious, "w") as f:
        f.write("matrix,kernel\n")
    r = fetch(base, cache, "--group", "Good", "-o", precious)
    with open(precious) as f:
        check(r.returncode == 2 and "--force" in r.stderr and f.read() == "matrix,kernel\n",
              "-o refuses to replace a file: %d %s" % (r.returncode, r.stderr[-200:]))
    r = fetch(base, cache, "--group", "Good", "-o", precious, "--force")
    with open(precious) as f:
        check(r.returncode == 0 and "Good/cage4.mtx.gz" in f.read(), "--force replaces it")
    server.slow["/MM/Slow/cage4.tar.gz"] = 5.0
    started = time.monotonic()
    r = fetch(base, os.path.join(tmp, "cache11"), "--group", "Slow", "--timeout", "3")
    took = time.monotonic() - started
    check(r.returncode == 1 and "--timeout" in r.stderr and took < 20,
          "a crawling mirror ends at --timeout: %d after %.1f s %s" % (r.returncode, took,
                                                                        r.stderr[-300:]))
    server.slow["/MM/Slow/cage4.tar.gz"] = 0.2
    del server.log[:]
    both = os.path.join(tmp, "cache12")
    jobs = [subprocess.Popen([SPBENCH, "fetch", "--base", base, "--cache", both, "--group",
                              "Slow"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [j.communicate(timeout=120) for j in jobs]
    gets = [p for m, p, _ in server.log if m == "GET" and p == "/MM/Slow/cage4.tar.gz"]
    check(all(j.returncode == 0 for j in jobs) and len(gets) == 1,
          "two fetches at once: both end well, one download (%d): %s" % (
              len(gets), [o[1][-200:] for o in outs]))


def peak_rss(*args):
    """(return code, peak resident bytes) of one spbench command, in a
    process of its own (so no other child's peak is counted)."""
    probe = ("import resource, subprocess, sys\n"
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)\n"
             "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    out = subprocess.run([sys.executable, "-c", probe, SPBENCH, *args], capture_output=True,
                         text=True, timeout=600).stdout.split()
    return int(out[0]), int(out[1]) * 1024


def test_compressed_matrices(tmp):
    """.mtx.bz2 and .mtx.xz read as .mtx.gz does (the same product to the
    bit; a folder finds them, their names without the ending; bzip2 in two
    streams, as pbzip2 writes, read on); a truncated or corrupt stream, data
    after the last stream, or a compression spbench does not read is
    refused naming the file and what is wrong with it, never as a file
    without a Matrix Market banner."""
    text = gzip.open(CAGE4).read()
    folder = os.path.join(tmp, "packed")
    os.mkdir(folder)
    half = len(text) // 2
    written = {"cage4b.mtx.bz2": bz2.compress(text),
               "cage4x.mtx.xz": lzma.compress(text),
               "cage4s.mtx.bz2": bz2.compress(text[:half]) + bz2.compress(text[half:])}
    for name, data in written.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    shutil.copy(CAGE4, os.path.join(folder, "cage4g.mtx.gz"))
    csv_path = os.path.join(tmp, "packed.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, folder)
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    check(r.returncode == 0 and sorted(x["matrix"] for x in rows) ==
          ["cage4b", "cage4g", "cage4s", "cage4x"] and all(x["status"] == "ok" for x in rows),
          "every compression read from a folder: %s %s" % ([(x["matrix"], x["status"])
                                                            for x in rows], r.stderr[-300:]))
    products = {}
    for name in ("cage4g.mtx.gz", "cage4b.mtx.bz2", "cage4x.mtx.xz", "cage4s.mtx.bz2"):
        out = os.path.join(tmp, name + ".y.mtx")
        spbench("spmv", os.path.join(folder, name), "--kernel", "csr.serial", "-o", out)
        products[name] = (b"".join(line for line in open(out, "rb") if not line.startswith(b"%"))
                          if os.path.exists(out) else None)  # the comments name the file
    check(len(set(products.values())) == 1 and None not in products.values(),
          "the same product from each compression")
    whole_bz2, whole_xz = bz2.compress(text), lzma.compress(text)
    broken = {
        "cut.mtx.bz2": (whole_bz2[:len(whole_bz2) // 2], "bzip2 stream ends early"),
        "cut.mtx.xz": (whole_xz[:len(whole_xz) // 2], "xz stream ends early"),
        "tail.mtx.bz2": (whole_bz2 + b"trailing bytes", "data after the end of the bzip2"),
        "tail.mtx.xz": (whole_xz + b"trailing bytes", "xz"),
        "bent.mtx.bz2": (whole_bz2[:40] + bytes(b ^ 0x5a for b in whole_bz2[40:80]) +
                         whole_bz2[80:], "bzip2"),
        "zstd.mtx": (bytes([0x28, 0xb5, 0x2f, 0xfd]) + b"\0" * 40, "zstd"),
    }
    for name, (data, said) in broken.items():
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        r = spbench("info", path)
        check(r.returncode != 0 and path in r.stderr and said in r.stderr and
              "banner" not in r.stderr and "Traceback" not in r.stderr,
              "%s refused for what it is: %d %s" % (name, r.returncode, r.stderr[-300:]))


def test_paths_past_the_limit(tmp):
    """A list line longer than any path is refused naming the list and the
    line (it was cut in two items, each tried as a path); a folder's file
    whose path passes the system's limit is counted among those left out
    with the reason (it was skipped without a word)."""
    listed = os.path.join(tmp, "long.txt")
    with open(listed, "w") as f:
        f.write(CAGE4 + "\n/" + "x" * 5000 + "/a.mtx\n")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "@" + listed)
    check(r.returncode == 2 and "%s:2: a line longer than 4095 characters" % listed in r.stderr and
          len(r.stderr.splitlines()) == 1,
          "the long line refused in one line naming it: %s" % r.stderr[-300:])
    # a folder 3,840 to 4,080 characters deep (made one level at a time): a
    # matrix in it of a 255-character name passes the 4,095 a path may
    # hold, one of a short name does not
    fd = os.open(tmp, os.O_RDONLY)
    depth = 0
    while len(tmp) + depth * 241 < 3840:
        os.mkdir("d" * 240, dir_fd=fd)
        inner = os.open("d" * 240, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd, depth = inner, depth + 1
    data = open(CAGE4, "rb").read()
    for name in ("n" * 248 + ".mtx.gz", "short.mtx.gz"):
        out = os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(out, data)
        os.close(out)
    os.close(fd)
    deep = os.path.join(tmp, *(["d" * 240] * depth))
    r = spbench("run", *FAST, "--kernels", "csr.serial", deep)
    check(r.returncode == 0 and "1 entry named like matrices left out" in r.stderr and
          "a path too long to open" in r.stderr,
          "the file past the limit counted, the other run: %d %s" % (r.returncode,
                                                                   r.stderr[-400:]))


def test_impossible_size_line(tmp):
    """Item 8: a 67-byte file announcing a 2^31-1 square matrix is an error
    under a memory cap, and an error row in a batch that goes on, never a
    process killed; and a load whose estimate passes stays within it (the
    conversion once held three row arrays where the estimate counted two:
    1.5x its estimate, an OOM kill on a 24 GB machine)."""
    huge = os.path.join(tmp, "huge.mtx")
    with open(huge, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2147483647 2147483647 1\n"
                "1 1 1.0\n")
    # the cap as a user sets it (RLIMIT_AS cannot hold a sanitizer build's shadow)
    capped = dict(os.environ, SPB_MEMORY_LIMIT=str(4 << 30))
    r = subprocess.run([SPBENCH, "info", huge], capture_output=True, text=True, timeout=300,
                       env=capped)
    check(r.returncode == 2 and "needs about" in r.stderr,
          "info refuses it with the estimate: %d %s" % (r.returncode, r.stderr[-300:]))
    csv_path = os.path.join(tmp, "huge.csv")
    r = subprocess.run([SPBENCH, "run", *FAST, "--kernels", "csr.serial", "--bandwidth", "10",
                        "--csv", csv_path, huge, CAGE4], capture_output=True, text=True,
                       timeout=300, env=capped)
    rows = [(x["matrix"], x["status"]) for x in read_rows(csv_path)] \
        if os.path.exists(csv_path) else []
    check(r.returncode == 1 and rows == [("huge", "error"), ("cage4", "ok")],
          "in a batch it is an error row and the batch goes on: %d %s %s"
          % (r.returncode, rows, r.stderr[-300:]))
    rows_count = 100000000
    wide = os.path.join(tmp, "wide.mtx")
    with open(wide, "w") as f:
        f.write("%%%%MatrixMarket matrix coordinate real general\n%d %d 1\n1 1 1.0\n"
                % (rows_count, rows_count))
    code, peak = peak_rss("info", wide)
    # the reader's, for one entry: the row offsets are built 64-bit (then
    # narrowed), beside one 64-bit row array of the conversion
    estimate = 28.0 + 16.0 * (rows_count + 1)
    check(code == 0 and peak < 1.25 * estimate,
          "the load's peak stays near its estimate: %.2f GB for an estimate of %.2f GB"
          % (peak / 1e9, estimate / 1e9))


def children_of(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def state_of(pid):
    """The process's state letter (R, S, t, Z...), or "" when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0]
    except OSError:
        return ""


def alive(pid):
    return state_of(pid) not in ("", "Z")


def test_processes_child_ends_with_parent(tmp):
    """Item 12: a --processes run whose parent is killed with -9 does not
    leave its child running (it once went on alone, holding its files'
    locks, with nothing left to merge its rows)."""
    csv_path = os.path.join(tmp, "p.csv")
    parent = subprocess.Popen([SPBENCH, "run", "--processes", "2", "--kernels", "csr.serial",
                               "--threads", "1", "--min-time", "120", "--bandwidth", "10",
                               "--quiet", "--csv", csv_path, CAGE4],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 60
    while time.time() < deadline and not children_of(parent.pid):
        time.sleep(0.05)
    children = children_of(parent.pid)
    check(children, "the run started a child")
    parent.kill()
    parent.wait()
    deadline = time.time() + 20  # the child's own row lasts 120 s
    while time.time() < deadline and any(alive(c) for c in children):
        time.sleep(0.1)
    left = [c for c in children if alive(c)]
    check(not left, "the child ends with its parent: %s still running" % left)
    for c in left:
        os.kill(c, 9)


def test_processes_child_ends_before_its_exec(tmp):
    """Item 12: the parent killed while its child is between fork and exec
    (held there by strace, 4 s at getppid's return): the child ends too. It
    once kept the parent's SIGTERM handler until its exec, which swallowed
    the parent's death signal and let the run go on alone."""
    strace = shutil.which("strace")
    if strace is None:
        skip("no strace: the child held before its exec (apt-get install strace)", "strace")
        return
    csv_path = os.path.join(tmp, "held.csv")
    traced = subprocess.Popen([strace, "-f", "-qq", "-o", os.devnull, "-e", "trace=getppid",
                               "-e", "inject=getppid:delay_exit=4000000",
                               SPBENCH, "run", "--processes", "2", "--kernels", "csr.serial",
                               "--threads", "1", "--min-time", "120", "--bandwidth", "10",
                               "--quiet", "--csv", csv_path, CAGE4],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    parent = []
    while time.time() < deadline and traced.poll() is None and \
            not (parent and children_of(parent[0])):
        parent = children_of(traced.pid)
        time.sleep(0.05)
    children = children_of(parent[0]) if parent else []
    check(children, "the run started a child under strace: %s" %
          (traced.stderr.read().decode(errors="replace")[-300:] if traced.poll() else "none yet"))
    if not children:
        traced.kill()
        return
    # strace stops the child at each of its calls; a stop of 0.3 s is the 4 s
    # at getppid's return, before its exec
    held_since, held = None, False
    while time.time() < deadline and not held:
        now = time.time()
        held_since = (held_since or now) if state_of(children[0]) == "t" else None
        held = held_since is not None and now - held_since > 0.3
        time.sleep(0.02)
    check(held, "strace held the child before its exec")
    os.kill(parent[0], signal.SIGKILL)
    deadline = time.time() + 20
    while time.time() < deadline and any(alive(c) for c in children):
        time.sleep(0.1)
    left = [c for c in children if alive(c)]
    check(not left, "the child held before its exec ends with its parent: %s still running" % left)
    for c in left:
        os.kill(c, signal.SIGKILL)
    traced.wait(timeout=30)


def test_report_malformed_fields(tmp):
    """Item 12: report answers a results file with a malformed field in one
    line, exit 1, as compare does (it once raised a traceback on 12 of 14)."""
    json_path = os.path.join(tmp, "r12.json")
    r = spbench("run", *FAST, "--kernels", "csr.serial,csr.omp.nnz", "--json", json_path, CAGE4)
    check(r.returncode == 0, "the study to spoil: %s" % r.stderr[-300:])
    with open(json_path, encoding="utf-8") as f:
        good = f.read()

    def spoiled(change):
        doc = json.loads(good)
        change(doc)
        return doc

    cases = {
        "rows null": lambda d: d.update(rows=None),
        "a row not an object": lambda d: d["rows"].__setitem__(0, "x"),
        "kernel null": lambda d: d["rows"][0].update(kernel=None),
        "matrix a number": lambda d: d["rows"][0].update(matrix=7),
        "gflops 10**400": lambda d: d["rows"][0].update(gflops=10 ** 400),
        "nnz text": lambda d: d["rows"][0].update(nnz="many"),
        "time a list": lambda d: d["rows"][0].update(time_ms_median=[1]),
        "settings a list": lambda d: d.update(settings=[1]),
        "machine text": lambda d: d.update(machine="x"),
        "gpu text": lambda d: d["machine"].update(gpu="x"),
        "totals a list": lambda d: d.update(totals=[]),
        "noise a number": lambda d: d.update(noise=3),
        "columns a number": lambda d: d.update(columns=3),
        "shards not a list": lambda d: d.update(merged=True, shards=3),
        "a total as text": lambda d: d["totals"].update(ok="x"),
    }
    for what, change in cases.items():
        path = os.path.join(tmp, "bad.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(spoiled(change), f)
        r = spbench("report", path, "-o", os.path.join(tmp, "bad.html"), "--force")
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and lines[0].startswith("spbench report:")
              and "Traceback" not in r.stderr,
              "report on %s: one line, exit 2: %d %s" % (what, r.returncode, r.stderr[-300:]))


def own_memory_cgroup():
    """(the folder of this process's memory cgroup, v2 or not), or None."""
    with open("/proc/self/cgroup") as f:
        lines = [l.rstrip("\n").split(":", 2) for l in f]
    for number, controllers, path in lines:
        if "memory" in controllers.split(","):
            return "/sys/fs/cgroup/memory" + path, False
    for number, controllers, path in lines:
        if number == "0" and not controllers:
            for base in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                if os.path.exists(base + "/cgroup.controllers"):
                    return base + path, True
    return None


def test_cgroup_limit_seen(tmp):
    """A limit on this process's own memory cgroup (a container's, a Slurm
    job's) is the room an estimate is judged against: only the hierarchy's
    root was read, so a file announcing a 1e9-row matrix (8 GB to load)
    passed the estimate inside a 2 GB cgroup and was killed there."""
    found = own_memory_cgroup() if os.geteuid() == 0 else None
    child = None
    if found:
        child = os.path.join(found[0], "spbench-test-%d" % os.getpid())
        try:
            os.mkdir(child)
            with open(os.path.join(child, "memory.max" if found[1] else
                                   "memory.limit_in_bytes"), "w") as f:
                f.write(str(2 << 30))
        except OSError:
            child = None
    if child is None:
        skip("no memory cgroup to make here (root and a writable cgroup tree)")
        return
    wide = os.path.join(tmp, "wide1e9.mtx")
    with open(wide, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n1000000000 1000000000 1\n"
                "1 1 1.0\n")

    def enter():
        with open(os.path.join(child, "cgroup.procs"), "w") as f:
            f.write(str(os.getpid()))

    try:
        r = subprocess.run([SPBENCH, "info", wide], capture_output=True, text=True, timeout=300,
                           preexec_fn=enter)
    finally:
        for _ in range(50):  # the cgroup goes once its process has
            try:
                os.rmdir(child)
                break
            except OSError:
                time.sleep(0.1)
    check(r.returncode == 2 and "needs about" in r.stderr and "cgroup" in r.stderr,
          "the own cgroup's limit is the room: %d %s" % (r.returncode, r.stderr[-300:]))


if __name__ == "__main__":
    run_tests([test_names_reach_gnuplot_and_html_as_text, test_temp_files_of_others,
               test_two_pid_namespaces, test_fetch_stays_in_its_cache,
               test_fetch_checks_the_whole_stream, test_fetch_output_and_deadline,
               test_compressed_matrices, test_paths_past_the_limit, test_impossible_size_line,
               test_processes_child_ends_with_parent, test_processes_child_ends_before_its_exec,
               test_report_malformed_fields, test_cgroup_limit_seen],
              "spb_e2e_untrusted_", globals())
