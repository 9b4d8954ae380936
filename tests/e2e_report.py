"""End-to-end tests of `spbench report`: a study's JSON as one HTML page.
Its figures are recomputed here from the JSON (each matrix's best kernel,
GFLOPS and statuses; a kernel's geometric mean); a matrix named like an
HTML tag shows as text; the page asks for nothing over the network; in a
headless Chromium it loads without a script error and its table sorts;
the kernels by the matrices' size.

usage: e2e_report.py SPBENCH SOURCE_DIR [TEST]
"""
import copy
import html.parser
import json
import math
import os
import random
import re
import shutil
import subprocess
import time

from spbtest import SOURCE, check, run_tests, skip, spbench

HOSTILE = "<img src=x onerror=alert(1)>"
QUICK = ["--kernels", "csr.serial,csr.omp.static,hll.serial.col,librsb", "--threads", "1",
         "--reps", "3", "--min-time", "0", "--bandwidth", "10", "--energy-s", "0", "--quiet"]


class Cells(html.parser.HTMLParser):
    """The cells of each table (text and data-value), and every tag seen."""

    def __init__(self):
        super().__init__()
        self.tables, self.tags, self.table, self.cell = {}, [], None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self.table = self.tables.setdefault(a.get("id"), {"head": [], "rows": []})
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag in ("td", "th") and self.table is not None:
            self.cell = {"text": "", "value": a.get("data-value"), "key": a.get("data-key")}

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.table is not None:
            kind = "head" if self.row and self.row[0]["key"] else "rows"
            self.table[kind].append(self.row)
        elif tag == "table":
            self.table = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell["text"] += data


def parsed(path):
    p = Cells()
    with open(path, encoding="utf-8") as f:
        p.feed(f.read())
    return p


def fixture_study(tmp):
    """A small study's JSON, a matrix among them named like an HTML tag."""
    folder = os.path.join(tmp, "matrices")
    os.mkdir(folder)
    for name in ("cage4", "west0479", "plskz362"):
        shutil.copy(os.path.join(SOURCE, "matrices", name + ".mtx.gz"), folder)
    shutil.copy(os.path.join(SOURCE, "matrices", "1138_bus.mtx.gz"),
                os.path.join(folder, HOSTILE + ".mtx.gz"))
    out = os.path.join(tmp, "study.json")
    r = spbench("run", *QUICK, "--json", out, folder)
    check(os.path.exists(out), "the study ran: %s" % r.stderr[-400:])
    return out


def column(table, key):
    keys = [c["key"] for c in table["head"][0]]
    return keys.index(key)


def test_figures(tmp, study):
    out = os.path.join(tmp, "study.html")
    r = spbench("report", study, "-o", out)
    check(r.returncode == 0 and os.path.exists(out), "report writes the page: %s" % r.stderr)
    if r.returncode != 0:
        return
    doc = json.load(open(study))
    page = parsed(out)
    matrices = page.tables.get("matrices")
    check(matrices is not None and len(matrices["rows"]) == 4, "a line per matrix")
    names = [row[0]["text"] for row in matrices["rows"]]
    check(HOSTILE in names, "the matrix named like a tag is shown as text: %s" % names)
    check(not any(tag == "img" and "onerror" in a for tag, a in page.tags),
          "no element comes from a matrix's name")
    for row in matrices["rows"]:
        name = row[0]["text"]
        mine = [r for r in doc["rows"] if r["matrix"] == name]
        ok = [r for r in mine if r["status"] == "ok"]
        best = min(ok, key=lambda r: r["time_ms_median"])
        check(row[column(matrices, "best")]["text"] == best["kernel"],
              "%s: the best kernel is the JSON's fastest ok row (%s)" % (name, best["kernel"]))
        shown = float(row[column(matrices, "best_gflops")]["value"])
        check(abs(shown - best["gflops"]) <= 1e-8 * best["gflops"],
              "%s: its GFLOPS is the JSON's (%g, %g)" % (name, shown, best["gflops"]))
        for status in ("ok", "skipped"):
            count = int(row[column(matrices, status)]["text"])
            check(count == sum(1 for r in mine if r["status"] == status),
                  "%s: its %s rows counted" % (name, status))
    means = page.tables.get("means")
    serial = [r for r in doc["rows"] if r["kernel"] == "csr.serial" and r["status"] == "ok"]
    expected = math.exp(sum(math.log(r["gflops"]) for r in serial) / len(serial))
    row = next(row for row in means["rows"] if row[0]["text"] == "csr.serial")
    shown = float(row[column(means, "gflops")]["value"])
    check(abs(shown - expected) <= 1e-5 * expected,
          "csr.serial's geometric mean GFLOPS is the JSON's (%g, %g)" % (shown, expected))
    against = {}
    for r in doc["rows"]:
        if r["status"] == "ok" and r["kernel"] in ("csr.serial", "hll.serial.col"):
            against.setdefault(r["matrix"], {})[r["kernel"]] = r["time_ms_median"]
    ratios = [t["csr.serial"] / t["hll.serial.col"] for t in against.values() if len(t) == 2]
    expected = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    row = next(row for row in means["rows"] if row[0]["text"] == "hll.serial.col")
    shown = float(row[column(means, "csr.serial")]["value"])
    check(abs(shown - expected) <= 1e-5 * expected,
          "hll.serial.col against csr.serial: %g, from the JSON %g" % (shown, expected))
    text = open(out, encoding="utf-8").read()
    check('src="http' not in text and "href=\"http" not in text and "@import" not in text,
          "the page asks for nothing over the network")
    if shutil.which("gnuplot"):
        check(text.count("data:image/svg+xml;base64,") >= 1, "the charts are inside the page")
    else:
        skip("no gnuplot: the report's charts (apt-get install gnuplot-nox)", "gnuplot")

    r = spbench("report", study, "-o", out)
    check(r.returncode == 2 and "--force" in r.stderr, "an existing page is kept without --force")
    r = spbench("report", study, "-o", study, "--force")
    check(r.returncode == 2 and "input" in r.stderr, "the input is never written over")
    r = spbench("report", os.path.join(SOURCE, "matrices", "README.md"), "-o", out, "--force")
    check(r.returncode == 2 and "JSON" in r.stderr, "a file that is not a study is refused")


def test_operations_apart(tmp):
    """A study file holding SpMV and SpGEMM rows (the main job's stages)
    gets a section per operation, each weighed against its own baseline:
    no SpMV kernel against spgemm.gustavson, no SpGEMM kernel against
    csr.serial."""
    two = [os.path.join(SOURCE, "matrices", n + ".mtx.gz") for n in ("cage4", "west0479")]
    timing = ["--threads", "1", "--reps", "3", "--min-time", "0", "--energy-s", "0", "--quiet"]
    spmv_json, both = os.path.join(tmp, "spmv.json"), os.path.join(tmp, "both.json")
    csv_path = os.path.join(tmp, "both.csv")
    r = spbench("run", "--kernels", "csr.serial,hll.serial.col", *timing, "--csv", csv_path,
                "--json", spmv_json, *two)
    check(r.returncode == 0, "the SpMV stage: %s" % r.stderr[-300:])
    r = spbench("run", "--op", "spgemm", "--kernels", "spgemm.gustavson,spgemm.hash", *timing,
                "--resume", "--csv", csv_path, "--json", both, *two)
    check(r.returncode == 0, "the SpGEMM stage: %s" % r.stderr[-300:])
    out = os.path.join(tmp, "both.html")
    r = spbench("report", both, "-o", out, env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    check(r.returncode == 0, "report: %s" % r.stderr[-300:])
    if r.returncode != 0:
        return
    page = parsed(out)
    spmv, spgemm = page.tables.get("means"), page.tables.get("means-2")
    check(spmv is not None and spgemm is not None, "a means table per operation: %s"
          % sorted(k for k in page.tables if k))
    if spmv is None or spgemm is None:
        return
    kernels = [sorted(row[0]["text"] for row in t["rows"]) for t in (spmv, spgemm)]
    check(kernels == [["csr.serial", "hll.serial.col"], ["spgemm.gustavson", "spgemm.hash"]],
          "each operation's kernels in its own table: %s" % kernels)
    heads = [[c["key"] for c in t["head"][0]] for t in (spmv, spgemm)]
    check("csr.serial" in heads[0] and "spgemm.gustavson" not in heads[0],
          "SpMV weighed against csr.serial only: %s" % heads[0])
    check("spgemm.gustavson" in heads[1] and "csr.serial" not in heads[1],
          "SpGEMM weighed against spgemm.gustavson only: %s" % heads[1])
    matrices = [page.tables.get(k) for k in ("matrices", "matrices-2")]
    check(all(t is not None and len(t["rows"]) == 2 for t in matrices),
          "a matrices table per operation, a line per matrix")
    text = open(out, encoding="utf-8").read()
    check("SpMV: Kernels" in text and "SpGEMM: Kernels" in text and "By operation: SpMV 4 rows"
          in text, "the sections and the totals are named by operation")


def test_sweep_named(tmp):
    """A study that swept a setting (--hack-size 16,64): the means table
    says each swept kernel's figures are its best setting's, and the
    matrices table names the best row with its setting, as the run's table
    labels it (hll.serial.row:h64); an unswept kernel is named plainly."""
    two = [os.path.join(SOURCE, "matrices", n + ".mtx.gz") for n in ("jagmesh7", "west0479")]
    out, page_path = os.path.join(tmp, "swept.json"), os.path.join(tmp, "swept.html")
    r = spbench("run", "--kernels", "hll.serial.row,csr.serial", "--hack-size", "16,64",
                "--reps", "3", "--min-time", "0", "--energy-s", "0", "--quiet", "--json", out, *two)
    check(r.returncode == 0, "the sweep runs: %s" % r.stderr[-300:])
    r = spbench("report", out, "-o", page_path, env=dict(os.environ,
                                                           SPB_PLOT_SCRIPT="/nonexistent"))
    check(r.returncode == 0, "report: %s" % r.stderr[-300:])
    if r.returncode != 0:
        return
    page = parsed(page_path)
    means = {row[0]["text"].split(" ")[0]: row[0]["text"] for row in page.tables["means"]["rows"]}
    check("best of hack_size 16, 64" in means.get("hll.serial.row", "") and
          "best of" not in means.get("csr.serial", "x best of"),
          "the swept kernel's figures are said to be its best setting's: %s" % means)
    rows = json.load(open(out))["rows"]
    matrices = page.tables["matrices"]
    at, best_at = column(matrices, "matrix"), column(matrices, "best")
    for line in matrices["rows"]:
        mine = [x for x in rows if x["matrix"] == line[at]["text"] and x["status"] == "ok"]
        fastest = min(mine, key=lambda x: x["time_ms_median"])
        hack = dict(w.split("=") for w in fastest["settings"].split())["hack_size"]
        want = fastest["kernel"] + (":h" + hack if fastest["kernel"] == "hll.serial.row" else "")
        check(line[best_at]["text"] == want, "%s: the best row named %r, want %r" % (
            line[at]["text"], line[best_at]["text"], want))
    # a B named like a setting (SpGEMM's " b=SPEC" ends the text) is not read as one
    study = json.load(open(out))
    for x in study["rows"]:
        x["settings"] += " b=my hack_size=9 file.mtx"
    with open(out, "w") as f:
        json.dump(study, f)
    r = spbench("report", out, "-o", page_path, "--force",
                env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    page = parsed(page_path) if r.returncode == 0 else None
    cell = [row[0]["text"] for row in page.tables["means"]["rows"]
            if row[0]["text"].startswith("hll.serial.row")] if page else []
    check(cell == ["hll.serial.row (best of hack_size 16, 64)"],
          "B's name is not read as a setting: %s %s" % (cell, r.stderr[-200:]))


def test_browser(tmp, study):
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        skip("no Chromium: the page in a browser (apt-get install chromium)", "chromium")
        return
    out = os.path.join(tmp, "browser.html")
    check(spbench("report", study, "-o", out).returncode == 0, "report for the browser")
    # the page's own #sort=COLUMN: sorted as it loads, then the DOM as the browser holds it
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                        "--enable-logging=stderr", "--v=0", "--dump-dom",
                        "file://%s#sort=best_gflops:down" % out],
                       capture_output=True, text=True, timeout=120)
    check(r.returncode == 0 and "</html>" in r.stdout, "Chromium loads the page: %s"
          % r.stderr[-400:])
    errors = [l for l in r.stderr.splitlines() if "Uncaught" in l or "SyntaxError" in l]
    check(not errors, "no script error: %s" % errors)
    dom = Cells()
    dom.feed(r.stdout)
    table = dom.tables.get("matrices")
    if table is None:
        check(False, "the matrices table in the browser's DOM")
        return
    at = column(table, "best_gflops")
    values = [float(row[at]["value"]) for row in table["rows"] if row[at]["value"]]
    check(len(values) == 4 and values == sorted(values, reverse=True),
          "the table sorted in the browser, highest GFLOPS first: %s" % values)
    heads = [c for c in table["head"][0] if c["key"] == "best_gflops"]
    check(heads and "sorted-down" in r.stdout, "the sorted heading is marked")


def collection(study, count):
    """The study's rows copied under `count` matrices' names, times scattered."""
    doc = json.load(open(study))
    big = copy.deepcopy(doc)
    rng = random.Random(count)
    big["rows"] = []
    for i in range(count):
        for r in doc["rows"]:
            row = dict(r, matrix="m%05d" % i)
            if isinstance(row.get("time_ms_median"), (int, float)):
                row["time_ms_median"] *= rng.uniform(0.5, 2.0)
            if isinstance(row.get("gflops"), (int, float)):
                row["gflops"] *= rng.uniform(0.5, 2.0)
            big["rows"].append(row)
    return big


def test_browser_collection(tmp, study):
    """A 3,000-matrix study's page in a headless Chromium, sorted on load:
    the sort in under 1 s (times the load per CPU on a busy machine) and
    the page read and sorted in under 3 s by the page's own clock (the
    latter where the machine is not busy: the browser's parsing is its
    CPU's), every line in order."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        skip("no Chromium: the page in a browser (apt-get install chromium)", "chromium")
        return
    source, out = os.path.join(tmp, "3000.json"), os.path.join(tmp, "3000.html")
    with open(source, "w") as f:
        json.dump(collection(study, 3000), f)
    r = spbench("report", source, "-o", out, env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    check(r.returncode == 0, "report of 3,000 matrices: %s" % r.stderr[-300:])
    r = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom",
                        "file://%s#sort=best_gflops:down" % out],
                       capture_output=True, text=True, timeout=300)
    sort = re.search(r'<html[^>]*data-sort-ms="(\d+)"', r.stdout)
    ready = re.search(r'<html[^>]*data-ready-ms="(\d+)"', r.stdout)
    # on a busy machine the browser has a share of a CPU: the bound widens by
    # the load per CPU (a quadratic sort of 3,000 lines takes tens of seconds)
    load = os.getloadavg()[0]
    share = max(1.0, load / (os.cpu_count() or 1))
    check(r.returncode == 0 and sort and ready and int(sort.group(1)) < 1000 * share,
          "3,000 matrices sorted in under %.1f s (1 s at load %.1f on %d CPUs): %s ms"
          % (share, load, os.cpu_count() or 1, sort and sort.group(1)))
    busy = load > (os.cpu_count() or 1)
    if ready and int(ready.group(1)) >= 3000 and busy:
        skip("the page took %s ms to be read and sorted on a busy machine (load %.1f)"
             % (ready.group(1), os.getloadavg()[0]), "quiet")
    else:
        check(ready and int(ready.group(1)) < 3000, "3,000 matrices read and sorted in under "
              "3 s: %s ms" % (ready and ready.group(1)))
    dom = Cells()
    dom.feed(r.stdout)
    table = dom.tables.get("matrices")
    values = [] if table is None else \
        [float(row[column(table, "best_gflops")]["value"]) for row in table["rows"]
         if row[column(table, "best_gflops")]["value"]]
    check(len(values) == 3000 and values == sorted(values, reverse=True),
          "every line, highest GFLOPS first: %d lines" % len(values))


def test_csv_given(tmp, study):
    """A results CSV given to report (which reads the study's JSON) is a
    usage error that says so and names run --json."""
    csv_path = os.path.join(tmp, "given.csv")
    r = spbench("run", *QUICK, "--csv", csv_path,
                os.path.join(SOURCE, "matrices", "cage4.mtx.gz"))
    check(r.returncode == 0, "a CSV to give: %s" % r.stderr[-300:])
    r = spbench("report", csv_path, "-o", os.path.join(tmp, "given.html"))
    check(r.returncode == 2 and "results CSV" in r.stderr and "--json" in r.stderr,
          "report on a CSV: exit 2, naming --json: %s" % r.stderr.strip())


def test_by_size(tmp, study):
    """The kernels against the baseline by the matrices' size (a decade of
    entries a column): the study's four matrices given sizes in four
    decades, each cell recomputed here from the JSON (the geometric mean
    of the baseline's best time over the kernel's, and the count)."""
    doc = json.load(open(study))
    sizes = dict(zip(sorted({r["matrix"] for r in doc["rows"]}), (500, 5e4, 5e6, 5e7)))
    for r in doc["rows"]:
        r["nnz"] = sizes[r["matrix"]]
    source, out = os.path.join(tmp, "sized.json"), os.path.join(tmp, "sized.html")
    with open(source, "w") as f:
        json.dump(doc, f)
    r = spbench("report", source, "-o", out, env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    check(r.returncode == 0, "report of the sized study: %s" % r.stderr[-300:])
    table = parsed(out).tables.get("sizes")
    baseline = doc["roles"]["baseline"]
    check(table is not None and "By the matrices' size: vs %s" % baseline in open(out).read(),
          "a table by size, against the study's baseline %s" % baseline)
    if table is None:
        return
    best = {}
    for row in doc["rows"]:
        t = row.get("time_ms_median")
        if row["status"] == "ok" and isinstance(t, (int, float)) and t > 0:
            key = (row["kernel"], row["matrix"], row.get("precision"))
            best[key] = min(best.get(key, t), t)
    labels = [c["text"] for c in table["head"][0][1:]]
    check(labels == ["under 10^4 entries", "10^4-10^5", "10^6-10^7", "10^7 and more"],
          "a column for each size that has matrices: %s" % labels)
    seen = 0
    for line in table["rows"]:
        kernel = line[0]["text"]
        for label, cell in zip(labels, line[1:]):
            group = {"under 10^4 entries": 500, "10^4-10^5": 5e4, "10^6-10^7": 5e6,
                     "10^7 and more": 5e7}[label]
            ratios = [best[(baseline, m, p)] / t for (k, m, p), t in best.items()
                      if k == kernel and sizes[m] == group and (baseline, m, p) in best]
            expected = math.exp(sum(map(math.log, ratios)) / len(ratios)) if ratios else None
            got = float(cell["value"]) if cell["value"] else None
            check((got is None and expected is None) or
                  (got and expected and abs(got - expected) <= 1e-4 * expected and
                   "(%d)" % len(ratios) in cell["text"]),
                  "%s, %s: %s on the page, %s recomputed over %d" % (kernel, label, cell["text"],
                                                                     expected, len(ratios)))
            seen += expected is not None
    check(seen >= 8 and baseline not in [line[0]["text"] for line in table["rows"]],
          "cells for the kernels, not the baseline itself: %d" % seen)


def test_by_kind(tmp, study):
    """report --kinds LIST: a column per kind the list names (as text, a
    hostile kind included), each cell over that kind's matrices."""
    doc = json.load(open(study))
    matrices = sorted({r["matrix"] for r in doc["rows"]})
    hostile = '<script>alert(1)</script>"&'
    kinds = {m: ("graph" if i % 2 else hostile) for i, m in enumerate(matrices)}
    listing = os.path.join(tmp, "kinds.txt")
    with open(listing, "w") as f:
        f.write("# spbench fetch --kind ...\n")
        f.writelines("# kind: %s\t%s\n" % (m, k) for m, k in kinds.items())
        f.write("# kind: not-in-the-study\tunused kind\n")
    out = os.path.join(tmp, "kinds.html")
    r = spbench("report", study, "-o", out, "--kinds", listing,
                env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    check(r.returncode == 0, "report --kinds: %s" % r.stderr[-300:])
    text = open(out).read() if os.path.exists(out) else ""
    table = parsed(out).tables.get("kinds") if text else None
    labels = [c["text"] for c in table["head"][0][1:]] if table else []
    check(labels == sorted({hostile, "graph"}),
          "a column per kind of the study's matrices, named as text: %s" % labels)
    check("<script>alert" not in text, "a kind's text never becomes markup")
    counts = {k: sum(1 for m in matrices if kinds[m] == k) for k in set(kinds.values())}
    for line in (table["rows"] if table else []):
        for label, cell in zip(labels, line[1:]):
            check(not cell["text"] or "(%d)" % counts[label] in cell["text"],
                  "%s, %s: over the kind's %d matrices: %s" % (line[0]["text"], label,
                                                               counts[label], cell["text"]))


def test_collection_sized(tmp, study):
    """A study of 6,000 matrices (the small study's rows copied under new
    names, times scattered) is reported in well under a minute: the page is
    built in time linear in the rows (it took 148 s when each matrix's line
    scanned every row), one line per matrix."""
    big = collection(study, 6000)
    source, out = os.path.join(tmp, "big.json"), os.path.join(tmp, "big.html")
    with open(source, "w") as f:
        json.dump(big, f)
    start = time.time()
    r = spbench("report", source, "-o", out, env=dict(os.environ, SPB_PLOT_SCRIPT="/nonexistent"))
    took = time.time() - start
    check(r.returncode == 0 and took < 60, "6,000 matrices reported in %.1f s: %s"
          % (took, r.stderr[-300:]))
    if r.returncode == 0:
        matrices = parsed(out).tables.get("matrices")
        check(matrices is not None and len(matrices["rows"]) == 6000, "a line per matrix")


if __name__ == "__main__":
    run_tests([test_figures, test_browser, test_browser_collection, test_csv_given,
               test_by_size, test_by_kind, test_collection_sized,
               test_operations_apart, test_sweep_named],
              "spb_e2e_report_", globals())
