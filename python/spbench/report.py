#!/usr/bin/env python3
"""A study as one HTML page: what `spbench report` runs.

usage: report.py STUDY.json [-o OUT.html] [--force] [--kinds LIST]

One self-contained file (no network when it is opened: styles, the
sorting script and the charts are inside it): the machine and build, the
study's settings and totals, the verdict on noise, each kernel's geometric
mean over the matrices against every baseline the study holds (its JSON's
roles: the speedup baseline, the host library rows, and per matrix the
fastest device library row, split by its time per product) with a 95%
interval, a table of the
matrices to sort (click a heading) and filter (the box above it) with each
matrix's best kernel, its speedups and the statuses of its rows (noisy,
capped and skipped rows counted), and the charts of `spbench plot` inline
(where gnuplot is installed). With --kinds LIST (the list `spbench fetch -o`
writes, which names each matrix's kind in the collection's index), a table
of the kernels by kind of matrix too. Every name in it is shown as text. The
default OUT is STUDY.html beside the JSON; an existing OUT is replaced
only with --force, and never when it is the input. Exit status 2 with a
message for a usage error or an input that cannot be used (a missing or
foreign file, an existing OUT without --force), as for every spbench
command; 1 when the page could not be written.
"""
import base64
import csv
import html
import io
import math
import os
import subprocess
import sys
import tempfile

from spbench.compare import CompareError, check_rows  # one check of a results file's rows
from spbench.merge import (BUCKETS, first_seen, roles_of,  # one reading of roles, product times
                           row_label, swept_settings)
from spbench import results  # the one reader of a results file
from spbench.stats import geomean_interval  # one interval over matrices, compare's t

VENDOR_BEST = "vendor's best"  # per case, the fastest device library row of the study


class ReportError(Exception):
    pass


def load(path):
    try:
        study = results.read(path, kinds=("json",)).doc
    except results.ResultsError as e:
        raise ReportError(str(e))
    if study.get("merged"):  # shards merged: the first shard's header speaks for the study
        shards = study.get("shards")
        if not isinstance(shards, list) or not all(isinstance(h, dict) for h in shards):
            raise ReportError("%s: its shards are not a list of headers" % path)
        header = dict(shards[0]) if shards else {}
        header.update(rows=study.get("rows", []), totals=study.get("totals", {}),
                      partial=study.get("partial"))
        header["shards"] = len(shards)
        study = header
    for part in ("spbench", "machine", "settings", "totals", "noise"):
        if study.get(part) is not None and not isinstance(study[part], dict):
            raise ReportError("%s: its %s is not an object" % (path, part))
    gpu = (study.get("machine") or {}).get("gpu")
    if gpu is not None and not isinstance(gpu, dict):
        raise ReportError("%s: its machine's gpu is not an object" % path)
    if study.get("columns") is not None and not isinstance(study["columns"], str):
        raise ReportError("%s: its columns are not text" % path)
    try:
        check_rows(path, study.get("rows", []))
    except CompareError as e:
        raise ReportError(str(e))
    for k, row in enumerate(study["rows"] if "rows" in study else []):
        for name in ("gflops", "time_ms_median", "rows", "nnz"):
            v = row.get(name)
            if v not in (None, "") and not finite_number(v):
                raise ReportError("%s: row %d: %s is %.40r, not a finite number" % (
                    path, k + 1, name, v))
    return study


def finite_number(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    try:
        return math.isfinite(float(v))
    except OverflowError:  # an integer past a double's range
        return False


# ---- the figures ------------------------------------------------------------------------

def add_vendor_best(best, vendors):
    """Each case's fastest vendor row as the pseudo-kernel VENDOR_BEST in
    best; {case: the vendor row that was fastest}."""
    which = {}
    for (k, c), t in list(best.items()):
        if k in vendors and ((VENDOR_BEST, c) not in best or t < best[(VENDOR_BEST, c)]):
            best[(VENDOR_BEST, c)] = t
            which[c] = k
    return which


def case(r):
    """What rows are compared within: the matrix and the precision."""
    return (r["matrix"], r.get("precision") or "fp64")


def best_times(rows):
    """Each kernel's best median time per case, over its thread and rank
    counts (ok rows only)."""
    best = {}
    for r in rows:
        t = r.get("time_ms_median")
        if r.get("status") != "ok" or not isinstance(t, (int, float)) or t <= 0:
            continue
        key = (r["kernel"], case(r))
        if key not in best or t < best[key]:
            best[key] = t
    return best


def kernel_means(rows, best, baselines):
    """Per kernel: its matrices, the geometric mean of its best GFLOPS per
    case, and against each baseline the geometric mean of the baseline's
    best time over the kernel's (a speedup) with its interval; against the
    vendor's best, that split by the vendor's time (BUCKETS)."""
    gflops = {}
    for r in rows:
        g = r.get("gflops")
        if r.get("status") == "ok" and isinstance(g, (int, float)) and g > 0:
            key = (r["kernel"], case(r))
            gflops[key] = max(gflops.get(key, 0), g)
    kernels = first_seen(r["kernel"] for r in rows)
    means = []
    for k in kernels:
        cases = sorted(c for kk, c in best if kk == k)
        if not cases:
            continue
        entry = {"kernel": k, "cases": len(cases),
                 "gflops": geomean_interval([gflops[(k, c)] for c in cases if (k, c) in gflops]),
                 "against": {}}
        for b in baselines:
            if b == k:
                continue
            ratios = [best[(b, c)] / best[(k, c)] for c in cases if (b, c) in best]
            if ratios:
                entry["against"][b] = geomean_interval(ratios) + (len(ratios),)
        entry["buckets"] = []
        for low, high, label in BUCKETS:
            ratios = [best[(VENDOR_BEST, c)] / best[(k, c)] for c in cases
                      if (VENDOR_BEST, c) in best and low <= best[(VENDOR_BEST, c)] < high]
            if ratios:
                entry["buckets"].append((label, geomean_interval(ratios)[0], len(ratios)))
        means.append(entry)
    return means


# the matrices by their entries, a decade a group (a collection's study spans seven)
SIZES = ((0, 1e4, "under 10^4 entries"), (1e4, 1e5, "10^4-10^5"), (1e5, 1e6, "10^5-10^6"),
         (1e6, 1e7, "10^6-10^7"), (1e7, math.inf, "10^7 and more"))


def size_groups(rows):
    """Each case's group of SIZES by its matrix's entries; the labels in order."""
    groups = {}
    for r in rows:
        if isinstance(r.get("nnz"), (int, float)):
            groups.setdefault(case(r), next(label for low, high, label in SIZES
                                            if low <= r["nnz"] < high))
    return groups, [label for _, _, label in SIZES]


def kind_groups(rows, kinds):
    """Each case's kind of matrix, as the collection's index names it
    (`kinds`: {matrix: kind}, from fetch's list); the kinds by name."""
    groups = {case(r): kinds[r["matrix"]] for r in rows if r["matrix"] in kinds}
    return groups, sorted(set(groups.values()))


def group_means(best, against, groups):
    """Per kernel and group (`groups`: {case: label}): the geometric mean of
    `against`'s best time over the kernel's on the matrices of that group
    both ran, and their count. {kernel: {label: (mean, count)}}."""
    ratios = {}
    for (k, c), t in best.items():
        if k in (against, VENDOR_BEST) or (against, c) not in best or c not in groups:
            continue
        ratios.setdefault(k, {}).setdefault(groups[c], []).append(best[(against, c)] / t)
    return {k: {label: (geomean_interval(v)[0], len(v)) for label, v in by_label.items()}
            for k, by_label in ratios.items()}


def group_section(rows, means, order, against, table_id, what):
    """Each kernel against `against`, a column per group of matrices (in
    `order`), under the heading "By the matrices' WHAT"."""
    labels = [label for label in order if any(label in g for g in means.values())]
    if not means or not labels:
        return ""
    head = "<tr>%s</tr>" % "".join([heading("kernel", "kernel")] +
                                    [heading("%s%d" % (what, i), label) for i, label in
                                     enumerate(labels)])
    body = []
    for k in first_seen(r["kernel"] for r in rows):
        if k not in means:
            continue
        cells = ["<td>%s</td>" % esc(k)]
        for label in labels:
            mean, count = means[k].get(label, (None, 0))
            cells.append('<td data-value="%s" title="over %d matrices">%s</td>'
                         % (num(mean, 6), count, "%sx (%d)" % (num(mean, 3), count)
                            if mean else ""))
        body.append("<tr>%s</tr>" % "".join(cells))
    return ("<h3>By the matrices' %s: vs %s</h3>\n"
            '<table class="sortable" id="%s"><thead>%s</thead><tbody>%s</tbody></table>\n'
            % (what, esc(against), table_id, head, "".join(body)))


def matrix_table(rows, baselines, best, vendor_which, swept):
    """One line per case: its size, the best kernel (shortest time, named
    with its setting where a sweep gave it several), its GFLOPS, its
    speedup over each baseline, and its rows' statuses."""
    lines, by_case, times = [], {}, {}
    for r in rows:  # each case's rows and times gathered once: linear in the rows
        by_case.setdefault(case(r), []).append(r)
    for (k, c), t in best.items():
        if k != VENDOR_BEST:
            times.setdefault(c, []).append((t, k))
    for c, mine in by_case.items():
        timed = times.get(c, [])
        fastest = min(timed) if timed else None
        won = [r for r in mine if fastest and r["kernel"] == fastest[1] and
               r.get("time_ms_median") == fastest[0]]
        first = mine[0]
        lines.append({
            "matrix": c[0], "precision": c[1], "rows": first.get("rows"), "nnz": first.get("nnz"),
            "best": row_label(won[0], swept) if won else None, "time_ms": fastest[0] if fastest else None,
            "gflops": won[0].get("gflops") if won else None, "vendor": vendor_which.get(c),
            "speedups": {b: (best[(b, c)] / fastest[0]) if fastest and (b, c) in best else None
                         for b in baselines},
            "statuses": {s: sum(1 for r in mine if r.get("status") == s)
                         for s in ("ok", "wrong", "skipped", "error")},
            "noisy": sum(1 for r in mine if r.get("noisy") == 1),
            "capped": sum(1 for r in mine if r.get("capped") == 1)})
    return lines


# ---- the charts --------------------------------------------------------------------------

def charts(study, helpers):
    """spbench plot's charts of the study as (name, SVG bytes); and why none
    were drawn, when none were."""
    rows = study.get("rows", [])
    columns = (study.get("columns") or "").split(",")
    if not rows or not columns[0]:
        return [], "the study has no rows"
    plot = os.environ.get("SPB_PLOT_SCRIPT") or os.path.join(helpers, "plots", "plot.py")
    if not os.path.exists(plot):
        return [], "plots/plot.py not found beside report.py"
    with tempfile.TemporaryDirectory(prefix="spbench_report_") as work:
        path = os.path.join(work, "study.csv")
        with open(path, "w", newline="", encoding="utf-8") as f:
            out = csv.writer(f)
            out.writerow(columns)
            for r in rows:
                out.writerow([csv_value(r.get(c)) for c in columns])
        done = subprocess.run([sys.executable, plot, path, os.path.join(work, "charts")],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return [], "spbench plot failed: %s" % (done.stderr.strip().splitlines() or ["?"])[-1]
        drawn = []
        for line in done.stdout.splitlines():
            if line.endswith(".svg"):
                svg = line.split(", ")[-1]
                with open(svg, "rb") as f:
                    drawn.append((os.path.basename(svg)[:-4], f.read()))
        return drawn, None if drawn else "no chart had the data it needs"


def csv_value(v):
    if v is None:
        return ""
    if isinstance(v, list):
        return " ".join("%g" % x for x in v)
    if isinstance(v, float):
        return "%.17g" % v
    return str(v)


# ---- the page -----------------------------------------------------------------------------

def esc(value):
    return html.escape("" if value is None else str(value), quote=True)


def heading(key, label):
    """A sortable column's heading: its key (#sort=KEY) in a quoted attribute."""
    return '<th data-key="%s">%s</th>' % (esc(key), esc(label))


def num(value, digits=3):
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return ""
    if isinstance(value, int):
        return str(value)
    return "%.*g" % (digits, value)


def interval(mean, low, high, unit="x"):
    """A geometric mean with its interval, as text."""
    if mean is None:
        return ""
    return "%.3g%s" % (mean, unit) + (" [%.3g, %.3g]" % (low, high) if low is not None else "")


STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0}td,th{padding:.2em .6em;border-bottom:1px solid #eee;
text-align:right;white-space:nowrap}td:first-child,th:first-child{text-align:left}
th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}th.sorted-up:after{content:" \\25b2"}
th.sorted-down:after{content:" \\25bc"}.warn{background:#fff3cd;padding:.5em;border-left:4px solid #e0a800}
.ok{color:#1a7f37}.bad{color:#b00020;font-weight:bold}.muted{color:#777}
dl{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}dt{font-weight:bold}
img{max-width:100%;border:1px solid #eee;margin:.5em 0}.wide{overflow-x:auto;max-height:80vh}
figure.chart{margin:0;overflow-x:auto}figure.chart img{cursor:zoom-in}
figure.full img{max-width:none;cursor:zoom-out}figcaption{color:#777}input{margin:.3em 0;padding:.2em;width:20em}
"""

# sorts a table by a heading's column (numbers as numbers, empty last) and
# filters its rows by the text of the box before it; #sort=COLUMN sorts on
# load (a column's data-key)
SCRIPT = """
function cellValue(row, i) {
  var text = row.cells[i].getAttribute('data-value');
  if (text === null) text = row.cells[i].textContent;
  var n = parseFloat(text);
  return {empty: text === '', number: isNaN(n) ? null : n, text: text.toLowerCase()};
}
function sortTable(table, i, down) {
  var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
  rows.sort(function (a, b) {
    var x = cellValue(a, i), y = cellValue(b, i);
    if (x.empty !== y.empty) return x.empty ? 1 : -1;
    var c = (x.number !== null && y.number !== null) ? x.number - y.number
            : x.text < y.text ? -1 : x.text > y.text ? 1 : 0;
    return down ? -c : c;
  });
  rows.forEach(function (r) { body.appendChild(r); });
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, k) {
    th.className = k === i ? (down ? 'sorted-down' : 'sorted-up') : '';
  });
}
document.querySelectorAll('table.sortable').forEach(function (table) {
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
    th.addEventListener('click', function () {
      sortTable(table, i, th.className === 'sorted-up');
    });
  });
});
document.querySelectorAll('input.filter').forEach(function (box) {
  var table = document.getElementById(box.getAttribute('data-table'));
  box.addEventListener('input', function () {
    var want = box.value.toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      row.style.display = row.textContent.toLowerCase().indexOf(want) >= 0 ? '' : 'none';
    });
  });
});
// a chart at its full size (many matrices), and back
document.querySelectorAll('figure.chart img').forEach(function (img) {
  img.addEventListener('click', function () { img.parentNode.classList.toggle('full'); });
});
var wanted = /#sort=([a-z_.0-9-]+)(:down)?/.exec(location.hash), sortStart = performance.now();
if (wanted) {
  document.querySelectorAll('table.sortable').forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (th.getAttribute('data-key') === wanted[1]) sortTable(table, i, !!wanted[2]);
    });
  });
}
// how long the sort on load took, and the page to be read and sorted from
// the start of its loading (a test reads them)
document.documentElement.setAttribute('data-sort-ms', Math.round(performance.now() - sortStart));
document.documentElement.setAttribute('data-ready-ms', Math.round(performance.now()));
"""


def header_section(study):
    s, m, st = study.get("spbench", {}), study.get("machine", {}), study.get("settings", {})
    gpu = m.get("gpu") or {}
    items = [("spbench", "%s (commit %s; %s)" % (s.get("version"), s.get("git_commit"),
                                                  s.get("build"))),
             ("measured", study.get("date")),
             ("CPU", "%s, %s cores, last-level cache %s bytes" % (
                 m.get("cpu_model"), m.get("cpu_cores"), m.get("cpu_llc_bytes"))),
             ("GPU", gpu.get("name") or gpu.get("reason") or "none"),
             ("operation", "%s (precision %s)" % (
                 ", ".join(operations_of(study.get("rows", [])))
                 or st.get("operation"), st.get("precision"))),
             ("kernels", st.get("kernels")),
             ("timing", "%s warm-up calls, at least %s samples and %s s per row" % (
                 st.get("warmup"), st.get("min_samples"), st.get("min_time_s")))]
    if study.get("shards"):
        items.append(("shards", "%d merged" % study["shards"]))
    return "<dl>%s</dl>" % "".join("<dt>%s</dt><dd>%s</dd>" % (esc(k), esc(v)) for k, v in items)


def totals_section(study):
    t, noise = study.get("totals", {}), study.get("noise") or {}
    ok = t.get("ok", 0)
    parts = ["<p>%d rows: %d ok, %s wrong, %d skipped, %s in error.</p>" % (
        t.get("rows", 0), ok, bad_count(t.get("wrong", 0)), t.get("skipped", 0),
        bad_count(t.get("error", 0)))]
    operations = operations_of(study.get("rows", []))
    if len(operations) > 1:
        parts.append("<p>By operation: %s.</p>" % "; ".join(
            "%s %s" % (esc(OPERATION_NAMES.get(op, op)), esc(status_counts(
                [r for r in study["rows"] if operation_of(r) == op]))) for op in operations))
    if study.get("interrupted"):
        parts.append('<p class="warn">The study was interrupted: rows are missing.</p>')
    partial = study.get("partial")
    if isinstance(partial, dict):
        parts.append('<p class="warn">A partial merge: of %s shards, %s missing and %s '
                     'interrupted; rows are missing.</p>' % (
                         esc(partial.get("count")), esc(partial.get("missing") or "none"),
                         esc(partial.get("interrupted") or "none")))
    noisy = noise.get("noisy_rows", sum(1 for r in study.get("rows", []) if r.get("noisy") == 1))
    verdict = ("%d of %d ok rows are noisy (their samples spread more than the noise rule "
               "allows, after re-measurement): treat their times as rough." % (noisy, ok)
               if noisy else "No ok row is noisy.")
    if noise.get("busy"):
        verdict += " The machine was busy: %s." % noise.get("why", "")
    parts.append('<p class="%s">%s</p>' % ("warn" if noisy or noise.get("busy") else "ok",
                                           esc(verdict)))
    return "".join(parts)


def status_counts(rows):
    """'N rows: a ok, b wrong, ...' of rows, noisy ones counted."""
    n = {s: sum(1 for r in rows if r.get("status") == s) for s in ("ok", "wrong", "skipped",
                                                                   "error")}
    return "%d rows: %d ok (%d noisy), %d wrong, %d skipped, %d in error" % (
        len(rows), n["ok"], sum(1 for r in rows if r.get("noisy") == 1), n["wrong"],
        n["skipped"], n["error"])


def bad_count(n):
    return '<span class="bad">%d</span>' % n if n else "0"


def kernel_cell(kernel, swept):
    """A kernel's name, and the settings it was swept over: its figures are
    its best setting's per case, as they are its best thread count's."""
    over = "; ".join("best of %s %s" % (name, ", ".join(values))
                     for name, _, values in swept.get(kernel, []))
    return esc(kernel) + (' <small>(%s)</small>' % esc(over) if over else "")


def means_section(baselines, means, table_id, swept):
    head = "<tr>%s</tr>" % "".join(
        [heading("kernel", "kernel"), heading("cases", "matrices"),
         heading("gflops", "GFLOPS (geo. mean)")] + [heading(b, "vs " + b) for b in baselines] +
        ([heading("vendor_buckets", "vs %s, by its time per product" % VENDOR_BEST)]
         if VENDOR_BEST in baselines else []))
    body = []
    for e in means:
        g = e["gflops"]
        cells = ["<td>%s</td>" % kernel_cell(e["kernel"], swept), "<td>%d</td>" % e["cases"],
                 '<td data-value="%s">%s</td>' % (num(g[0], 6), esc(interval(*g, unit="")))]
        for b in baselines:
            a = e["against"].get(b)
            cells.append('<td data-value="%s" title="over %s matrices">%s</td>' % (
                num(a[0], 6), a[3], esc(interval(*a[:3]))) if a else "<td></td>")
        if VENDOR_BEST in baselines:
            cells.append("<td>%s</td>" % esc("; ".join("%s %.3gx (%d)" % bucket
                                                        for bucket in e["buckets"])))
        body.append("<tr>%s</tr>" % "".join(cells))
    return ('<table class="sortable" id="%s"><thead>%s</thead><tbody>%s</tbody></table>'
            % (table_id, head, "".join(body)))


def matrix_section(lines, baselines, table_id):
    head = "<tr>%s</tr>" % "".join(
        [heading("matrix", "matrix"), heading("precision", "precision"), heading("rows", "rows"),
         heading("nnz", "entries"), heading("best", "best kernel"), heading("time_ms", "time (ms)"),
         heading("best_gflops", "GFLOPS")] + [heading(b, "best vs " + b) for b in baselines] +
        ([heading("vendor", "fastest vendor row")] if VENDOR_BEST in baselines else []) +
        [heading(s, s) for s in ("ok", "wrong", "skipped", "error", "noisy", "capped")])
    body = []
    for l in lines:
        st = l["statuses"]
        cells = ["<td>%s</td>" % esc(l["matrix"]), "<td>%s</td>" % esc(l["precision"]),
                 "<td>%s</td>" % num(l["rows"]), "<td>%s</td>" % num(l["nnz"]),
                 "<td>%s</td>" % esc(l["best"] or ""),
                 '<td data-value="%s">%s</td>' % (num(l["time_ms"], 9), num(l["time_ms"], 4)),
                 '<td data-value="%s">%s</td>' % (num(l["gflops"], 9), num(l["gflops"], 4))]
        cells += ['<td data-value="%s">%s</td>' % (num(l["speedups"][b], 9),
                                                   num(l["speedups"][b], 3) + "x"
                                                   if l["speedups"][b] else "")
                  for b in baselines]
        if VENDOR_BEST in baselines:
            cells.append("<td>%s</td>" % esc(l["vendor"] or ""))
        cells += ["<td>%d</td>" % st["ok"], "<td>%s</td>" % bad_count(st["wrong"]),
                  "<td>%d</td>" % st["skipped"], "<td>%s</td>" % bad_count(st["error"]),
                  "<td>%d</td>" % l["noisy"], "<td>%d</td>" % l["capped"]]
        body.append("<tr>%s</tr>" % "".join(cells))
    return ('<input class="filter" data-table="%s" placeholder="filter: a matrix, a '
            'kernel, ..."><div class="wide">'
            '<table class="sortable" id="%s"><thead>%s</thead><tbody>%s</tbody></table></div>'
            % (table_id, table_id, head, "".join(body)))


def operation_of(r):
    return r.get("operation") or "spmv"  # files from before the column hold SpMV rows


OPERATION_NAMES = {"spmv": "SpMV", "spgemm": "SpGEMM"}


def operations_of(rows):
    """The operations of the rows, SpMV before SpGEMM, others after."""
    seen = first_seen(operation_of(r) for r in rows)
    order = list(OPERATION_NAMES)
    return sorted(seen, key=lambda op: (order.index(op) if op in order else len(order),
                                        seen.index(op)))


def table_id(name, index):
    return name if index == 1 else "%s-%d" % (name, index)


def operation_sections(study, kinds=None):
    """The kernels' means and the matrices' table of each operation the
    study's rows hold, each weighed against its own operation's baselines
    and vendor rows (a SpGEMM row is never a SpMV row's baseline)."""
    rows = study.get("rows", [])
    operations = operations_of(rows) or ["spmv"]
    parts = []
    for index, op in enumerate(operations, 1):
        mine = [r for r in rows if operation_of(r) == op]
        best = best_times(mine)  # each kernel's best time per case, for both tables
        baselines, vendors = roles_of(study, mine, op)
        vendor_which = add_vendor_best(best, vendors)
        if vendor_which:
            baselines.append(VENDOR_BEST)
        means = kernel_means(mine, best, baselines)
        swept = swept_settings(mine)
        lines = matrix_table(mine, baselines, best, vendor_which, swept)
        against = VENDOR_BEST if vendor_which else (baselines[0] if baselines else None)
        sizes = ""
        for what, (groups, order) in (("size", size_groups(mine)),
                                      ("kind", kind_groups(mine, kinds or {}))):
            if against:
                sizes += group_section(mine, group_means(best, against, groups), order,
                                       against, table_id(what + "s", index), what)
        title = "%s: " % esc(OPERATION_NAMES.get(op, op)) if len(operations) > 1 else ""
        parts.append("""<h2>%sKernels: geometric means over the matrices</h2>
<p>Each kernel's best row per matrix and precision (over thread and rank counts, and
over the settings a sweep gave it: --block-size, --hack-size, --tile lists);
"vs B" is B's time over the kernel's (above 1: faster than B), with its 95%% interval
over the matrices both ran (Student's t on the logarithms). The baselines are the
study's own (its JSON's roles for this operation): the speedup baseline and the host
library rows; and "vendor's best", per matrix the fastest device library row of the
study (each cuSPARSE mode, CUSP), split by that row's time per product, since a light
launch wins short products and says nothing of long ones (the count in brackets).
By size: each kernel against the vendor's best (or, without device library rows, the
first baseline) over the matrices of each decade of entries (their count in brackets);
by kind (with --kinds, fetch's list): likewise over the matrices of each kind the
collection's index names.</p>
%s
%s
<h2>%sMatrices</h2>
<p>Click a heading to sort; type to filter.</p>
%s
""" % (title, means_section(baselines, means, table_id("means", index), swept), sizes, title,
            matrix_section(lines, baselines, table_id("matrices", index))))
    return "".join(parts)


def page(study, source, drawn, why_none, kinds=None):
    figures = "".join('<figure class="chart"><img alt="%s" title="click: full size" '
                      'src="data:image/svg+xml;base64,%s"><figcaption>%s</figcaption></figure>'
                      % (esc(name), base64.b64encode(svg).decode("ascii"), esc(name))
                      for name, svg in drawn)
    return """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>spbench: %s</title><style>%s</style></head><body>
<h1>spbench study: %s</h1>
%s
<h2>Rows and noise</h2>
%s
%s<h2>Charts</h2>
<p>Click a chart for its full size.</p>
%s
<p class="muted">Made by spbench report from %s.</p>
<script>%s</script>
</body></html>
""" % (esc(os.path.basename(source)), STYLE, esc(os.path.basename(source)), header_section(study),
       totals_section(study), operation_sections(study, kinds), figures or "<p>No charts: %s.</p>" % esc(why_none), esc(source), SCRIPT)


def write_whole(path, text):
    """text into path through a temporary file renamed into place."""
    temp = "%s.tmp.%d" % (path, os.getpid())
    try:
        with io.open(temp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temp, path)
    finally:
        if os.path.exists(temp):
            os.remove(temp)


def read_kinds(path):
    """{matrix: kind} from a list `spbench fetch -o` wrote ("# kind: NAME<tab>KIND"
    lines); a list that names no kind is a usage error, saying so."""
    kinds = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith("# kind: ") and "\t" in line:
                    name, _, kind = line[len("# kind: "):].rstrip("\r\n").partition("\t")
                    kinds[name] = kind
    except OSError as e:
        raise ReportError("--kinds %s: %s" % (path, e.strerror or e))
    if not kinds:
        raise ReportError("--kinds %s: names no matrix's kind (a list `spbench fetch -o` "
                          "writes does)" % path)
    return kinds


def main(argv):
    if argv and argv[0] in ("-h", "--help"):
        print(__doc__.split("\n", 2)[2])
        return 0
    args, out, force, kinds_path = [], None, False, None
    i = 0
    while i < len(argv):
        if argv[i] == "-o" and i + 1 < len(argv):
            out, i = argv[i + 1], i + 2
            continue
        if argv[i] == "--kinds" and i + 1 < len(argv):
            kinds_path, i = argv[i + 1], i + 2
            continue
        if argv[i] == "--force":
            force = True
        elif argv[i].startswith("-"):
            print("spbench report: unknown option %r (see spbench report --help)" % argv[i],
                  file=sys.stderr)
            return 2
        else:
            args.append(argv[i])
        i += 1
    if len(args) != 1:
        print("spbench report: usage: spbench report STUDY.json [-o OUT.html] [--force] "
              "[--kinds LIST]", file=sys.stderr)
        return 2
    source = args[0]
    out = out or os.path.splitext(source)[0] + ".html"
    # an input or output that cannot be used: 2, as for every spbench command
    if os.path.exists(out) and os.path.exists(source) and os.path.samefile(out, source):
        print("spbench report: %s is the input; give another -o" % out, file=sys.stderr)
        return 2
    if os.path.exists(out) and not force:
        print("spbench report: %s exists; --force replaces it" % out, file=sys.stderr)
        return 2
    try:
        study = load(source)
        kinds = read_kinds(kinds_path) if kinds_path else None
        drawn, why_none = charts(study, os.path.dirname(os.path.abspath(__file__)))
        text = page(study, source, drawn, why_none, kinds)
    except ReportError as e:
        print("spbench report: %s" % e, file=sys.stderr)
        return 2
    except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
        # a shape the checks above did not foresee: still one line, never a traceback
        print("spbench report: %s: a field has an unexpected type or value (%s)" % (source, e),
              file=sys.stderr)
        return 2
    try:
        write_whole(out, text)
    except OSError as e:
        print("spbench report: cannot write %s: %s" % (out, e.strerror or e), file=sys.stderr)
        return 1
    print("%s: %d rows, %d charts" % (out, len(study.get("rows", [])), len(drawn)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
