"""Charts from a spbench results CSV, drawn by gnuplot as PNG and SVG.

usage: python3 plots/plot.py RESULTS.csv OUTDIR   (what `spbench plot` runs)

Charts (each OUTDIR/NAME.png and OUTDIR/NAME.svg):
  gflops       GFLOPS of every kernel per matrix (grouped bars; log axis when
               the values span more than two decades)
  energy       GFLOPS per watt of every kernel per matrix (the energy pass's
               products), CPU and GPU rows side by side
  cpu_vs_gpu   best CPU kernel against best GPU kernel per matrix
  scaling      speedup and efficiency against threads for each OpenMP kernel
               (geometric mean over the matrices)
  roofline     fraction of the bandwidth roofline per kernel (median over the
               out-of-cache matrices, bars from the lowest to the highest;
               in-cache rows drawn apart)
  csr_vs_hll   best CSR, HLL row-major and HLL column-major kernel per matrix
SpMV rows of one process feed those; distributed rows (backend mpi: spbench
run --ranks), when there are any:
  strong_scaling  speedup over one rank and parallel efficiency against ranks
                  per distributed kernel, PETSc beside (geometric mean over the
                  matrices)
  weak_scaling    weak-scaling efficiency t1/tP against ranks (--weak rows)
  comm_split      exposed communication's share of the product's time against
                  ranks per kernel (median over the matrices)
SpGEMM rows (operation spgemm), when there are any:
  spgemm_gflops  GFLOPS (2 products / time) of every SpGEMM kernel per matrix
  spgemm_time    median time per kernel and matrix on a log axis (the
                 progression from the sequential kernels to the parallel ones)
A chart without the data it needs is not drawn (a CPU machine's study has no
cpu_vs_gpu chart), and the list printed says which and why. Only rows with
status ok are drawn. A matrix or kernel drawn from a noisy row (the CSV's
noisy column) is marked * and the title says how many such rows there are. Exit status 1 with a message for a missing, empty or
malformed CSV, or when gnuplot fails.
"""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

REQUIRED = ("matrix", "kernel", "format", "backend", "threads", "gflops", "roofline_frac",
            "speedup", "efficiency", "status")
CHARTS = ("gflops", "energy", "cpu_vs_gpu", "scaling", "roofline", "csr_vs_hll",
          "strong_scaling", "weak_scaling", "comm_split", "spgemm_gflops", "spgemm_time")


class CsvError(Exception):
    pass


def load_rows(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames is None:
                raise CsvError("%s is empty: no header and no rows" % path)
            missing = [c for c in REQUIRED if c not in reader.fieldnames]
            if missing:
                raise CsvError("%s is not a spbench results CSV: missing column(s) %s"
                               % (path, ", ".join(missing)))
            rows = []
            for number, row in enumerate(reader, start=2):
                if None in row or any(row[c] is None for c in REQUIRED):
                    raise CsvError("%s:%d: malformed row (wrong number of fields)" % (path, number))
                if row.get("precision") == "fp32":  # its own series in every chart
                    row["kernel"] += "/fp32"
                rows.append(row)
    except OSError as e:
        raise CsvError("%s: %s" % (path, e.strerror))
    except csv.Error as e:
        raise CsvError("%s: malformed CSV: %s" % (path, e))
    if not rows:
        raise CsvError("%s has a header but no result rows" % path)
    ok = []
    for row in rows:
        if row["status"] != "ok":
            continue
        try:
            row["gflops_v"] = float(row["gflops"])
            row["threads_v"] = int(row["threads"])
            row["noisy_v"] = row.get("noisy") == "1"
        except ValueError:
            raise CsvError("%s: row of %s/%s: gflops or threads is not a number"
                           % (path, row["matrix"], row["kernel"]))
        ok.append(row)
    if not ok:
        raise CsvError("%s has no row with status ok to draw" % path)
    return ok


def ordered(values):
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


# Kernel styles: colour x fill pattern (bars) or colour x dash and point
# (lines); kernels are numbered once per CSV, grouped by backend, so a
# kernel has the same style in every chart drawn from that CSV.
# 18 colours, any two at least 28 apart in CIE L*a*b* (delta E 1976), none
# paler than L* 75 (a pale colour beside another reads as a pair on white),
# each as far as it can be from those before it (picked greedily from
# Tableau's, Kelly's and Okabe-Ito's sets), so neighbouring series stay
# apart; past 18 the fills and dashes tell series apart.
PALETTE = ("#1f77b4", "#f6a600", "#2ca02c", "#be0032", "#000080", "#000000", "#e377c2",
           "#c2b280", "#654522", "#17becf", "#f99379", "#bcbd22", "#009e73", "#d55e00",
           "#7f7f7f", "#604e97", "#882d17", "#b3446c")
FILLS = ("solid 0.85", "pattern 4", "pattern 5", "pattern 2")
DASHES = (1, 2, 4, 5)
POINTS = (7, 5, 9, 11, 13, 3)
BACKENDS = ("serial", "openmp", "cuda", "mpi")
KERNEL_INDEX = {}


def number_kernels(rows):
    """Numbers every kernel of the CSV: by backend, then in order of appearance."""
    KERNEL_INDEX.clear()
    rank = lambda r: BACKENDS.index(r["backend"]) if r["backend"] in BACKENDS else len(BACKENDS)
    for r in sorted(rows, key=rank):  # stable: keeps the table order within a backend
        KERNEL_INDEX.setdefault(r["kernel"], len(KERNEL_INDEX))


def by_backend(kernels):
    return sorted(kernels, key=lambda k: KERNEL_INDEX.get(k, len(KERNEL_INDEX)))


def bar_style(series, position):
    """A kernel's own bar style; other series (CPU/GPU, formats) by position."""
    i = KERNEL_INDEX.get(series, position)
    return "fs %s border -1 lc rgb '%s'" % (FILLS[(i // len(PALETTE)) % len(FILLS)],
                                           PALETTE[i % len(PALETTE)])


def line_style(series, position):
    i = KERNEL_INDEX.get(series, position)
    return "lc rgb '%s' dt %d pt %d" % (PALETTE[i % len(PALETTE)],
                                        DASHES[(i // len(PALETTE)) % len(DASHES)],
                                        POINTS[i % len(POINTS)])


def quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


class Chart:
    """One gnuplot script drawing one chart twice (PNG and SVG)."""

    def __init__(self, name, title, width, height=600):
        self.name, self.title, self.width, self.height = name, title, width, height
        self.lines = []
        self.data = []
        self.note = ""  # a second title line
        self.empty = None  # why there is nothing to draw (then it is not drawn)
        self.key_right = []  # the labels of a key outside on the right, which narrows the plot

    def quoted_title(self):
        """The title and the note, wrapped, as one quoted string (gnuplot's \\n)."""
        text = self.wrapped(self.title) + ("\n" + self.wrapped(self.note) if self.note else "")
        return quote(text).replace("\n", "\\n")

    def key_width(self):
        """About the pixels a key on the right takes: columns of its longest
        label (7 pixels a character, 60 for the sample), as many columns as
        the rows that fit in the height need."""
        if not self.key_right:
            return 0
        rows = max(1, (self.height - 160) // 17)
        columns = -(-len(self.key_right) // rows)
        return columns * (7 * max(len(str(label)) for label in self.key_right) + 60)

    def wrapped(self, text):
        """Text in lines that fit over the plot (a 10-point character is up to
        9 pixels wide, with room to spare at the edges; gnuplot centres the
        title over the plot, not the canvas)."""
        width = max(40, (self.width - self.key_width()) // 9 - 4)
        lines = []
        for paragraph in text.split("\n"):
            line = ""
            for word in paragraph.split():
                if line and len(line) + 1 + len(word) > width:
                    lines.append(line)
                    line = word
                else:
                    line = (line + " " + word).strip()
            lines.append(line)
        return "\n".join(lines)

    def mark_noisy(self, count):
        """Says under the title that names marked * had noisy rows."""
        if count:
            self.note = ("* %d noisy row(s) among the data (samples spread beyond 10%% of the "
                         "median, or one beyond 2x): the order may not hold" % count) + (
                             "; " + self.note if self.note else "")

    def datafile(self, workdir, rows):
        path = os.path.join(workdir, "%s_%d.dat" % (self.name, len(self.data)))
        with open(path, "w") as f:
            for r in rows:
                f.write("\t".join(str(v) for v in r) + "\n")
        self.data.append(path)
        return path

    def no_data(self, why):
        """The reason, centred and wrapped so that it fits the canvas (drawn
        where a chart must be, as compare's; plot leaves the chart out and
        lists why)."""
        self.empty = why
        words, lines = why.split(), [""]
        for w in words:
            if len(lines[-1]) + len(w) + 1 > 60:
                lines.append("")
            lines[-1] = (lines[-1] + " " + w).strip()
        text = "\\n".join(lines).replace('"', "'")
        self.lines += ["unset key", "unset xtics", "unset ytics", "unset border",
                       'set label 1 "%s" at graph 0.5, graph 0.5 center font \',14\'' % text,
                       "plot [0:1][0:1] NaN notitle"]

    def script(self, outdir):
        body = []
        for term, ext in (("pngcairo noenhanced font 'sans,10'", "png"),
                          ("svg noenhanced font 'sans,10' dynamic", "svg")):
            body.append("set terminal %s size %d,%d" % (term, self.width, self.height))
            body.append("set output %s" % quote(os.path.join(outdir, "%s.%s" % (self.name, ext))))
            body.append("set title %s" % self.quoted_title())
            body += self.lines
            body.append("unset output")
            body.append("reset")
        return "\n".join(body) + "\n"


def best_by(rows, key):
    """Highest-GFLOPS row per key(row)."""
    best = {}
    for r in rows:
        k = key(r)
        if k not in best or r["gflops_v"] > best[k]["gflops_v"]:
            best[k] = r
    return best


def marked(name, noisy):
    return name + "*" if noisy else name  # no space: data files split on blanks


def histogram(chart, workdir, matrices, series, values, ylabel, drawn=None):
    """Grouped bars: one group per matrix, one bar per series; a matrix whose
    drawn rows (drawn: {(matrix, series): row}) include a noisy one is
    marked *."""
    drawn = drawn or {}
    noisy = {m for (m, _), r in drawn.items() if r["noisy_v"]}
    chart.mark_noisy(sum(r["noisy_v"] for r in drawn.values()))
    table = [[marked(m, m in noisy)] + [values.get((m, s), "NaN") for s in series]
             for m in matrices]
    path = chart.datafile(workdir, table)
    finite = [v for row in table for v in row[1:] if v != "NaN" and v > 0]
    chart.lines += [
        "set style data histograms", "set style histogram clustered gap 1",
        "set style fill solid 0.85 border -1", "set boxwidth 0.9",
        "set xtics rotate by -45 scale 0", "set grid ytics", "set ylabel %s" % quote(ylabel),
        "set xlabel 'matrix'",
        "set key outside right top vertical", "set datafile missing 'NaN'",
    ]
    chart.key_right = list(series)
    chart.width += chart.key_width()  # the plot keeps the width its bars were sized for
    if finite and max(finite) / min(finite) > 100:
        chart.lines.append("set logscale y")
    else:
        chart.lines.append("set yrange [0:*]")
    plots = ["%s using %d:xtic(1) title %s %s"
             % (quote(path) if i == 0 else "''", i + 2, quote(s), bar_style(s, i))
             for i, s in enumerate(series)]
    chart.lines.append("plot " + ", ".join(plots))


def chart_gflops(rows, workdir):
    matrices = ordered(r["matrix"] for r in rows)
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    values = {k: r["gflops_v"] for k, r in best.items()}
    chart = Chart("gflops", "GFLOPS of every kernel per matrix (OpenMP kernels at their best "
                  "thread count)", max(1000, 60 + len(matrices) * (14 + 5 * len(kernels))))
    histogram(chart, workdir, matrices, kernels, values, "GFLOPS (2 nnz / median time)", best)
    return chart


def energy_rows(rows):
    """The rows with an energy figure (a machine with NVML or RAPL counters)."""
    measured = []
    for r in rows:
        try:
            r["gflops_per_watt_v"] = float(r.get("gflops_per_watt") or "nan")
        except ValueError:
            continue
        if r["gflops_per_watt_v"] > 0:
            measured.append(r)
    return measured


def chart_energy(rows, workdir):
    """GFLOPS per watt of every kernel per matrix, CPU and GPU rows side by
    side (each at the thread count of its best GFLOPS, as in gflops)."""
    title = "%sGFLOPS per watt of every kernel per matrix (the energy pass's products)" % (
        "SpGEMM: " if rows and rows[0].get("operation") == "spgemm" else "")
    matrices = ordered(r["matrix"] for r in rows)
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    values = {k: r["gflops_per_watt_v"] for k, r in best.items()}
    chart = Chart("energy", title, max(1000, 60 + len(matrices) * (14 + 5 * len(kernels))))
    histogram(chart, workdir, matrices, kernels, values, "GFLOPS per watt (flops / joules)", best)
    return chart


def chart_spgemm_gflops(rows, workdir):
    matrices = ordered(r["matrix"] for r in rows)
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    values = {k: r["gflops_v"] for k, r in best.items()}
    chart = Chart("spgemm_gflops", "SpGEMM: GFLOPS of every kernel per matrix (OpenMP kernels at "
                  "their best thread count)", max(1000, 60 + len(matrices) * (14 + 5 * len(kernels))))
    histogram(chart, workdir, matrices, kernels, values, "GFLOPS (2 products / median time)",
              best)
    return chart


def chart_spgemm_time(rows, workdir):
    """The progression view: each kernel's time per matrix on a log axis, one
    line per matrix across the kernels in table order."""
    matrices = ordered(r["matrix"] for r in rows)
    kernels = ordered(r["kernel"] for r in rows)
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    chart = Chart("spgemm_time", "SpGEMM: median time per kernel and matrix (OpenMP kernels at "
                  "their best thread count)", max(900, 200 + 90 * len(kernels)), 650)
    table = [[i] + [float(best[(m, k)]["time_ms_median"]) if (m, k) in best else "NaN"
                    for m in matrices] + [k] for i, k in enumerate(kernels)]
    path = chart.datafile(workdir, table)
    noisy = {m for (m, _), r in best.items() if r["noisy_v"]}
    chart.mark_noisy(sum(r["noisy_v"] for r in best.values()))
    plots = ["%s using 1:%d:xtic(%d) with linespoints title %s %s"
             % (quote(path) if j == 0 else "''", j + 2, len(matrices) + 2,
                quote(marked(m, m in noisy)), line_style(m, j))
             for j, m in enumerate(matrices)]
    chart.key_right = [marked(m, m in noisy) for m in matrices]
    chart.width += chart.key_width()  # the plot keeps the width its kernels were sized for
    chart.lines += [
        "set logscale y", "set grid ytics", "set ylabel 'median time per product (ms)'",
        "set xtics rotate by -30 scale 0", "set key outside right top vertical",
        "set datafile missing 'NaN'", "set xrange [-0.3:%f]" % (len(kernels) - 0.7),
        "plot " + ", ".join(plots),
    ]
    return chart


def chart_cpu_vs_gpu(rows, workdir):
    matrices = ordered(r["matrix"] for r in rows)
    side = lambda r: "GPU" if r["backend"] == "cuda" else "CPU"
    best = best_by(rows, lambda r: (r["matrix"], side(r)))
    chart = Chart("cpu_vs_gpu", "Best CPU kernel vs best GPU kernel per matrix",
                  max(900, 80 + 40 * len(matrices)))
    if not any(side(r) == "GPU" for r in rows):
        chart.no_data("No GPU results in this CSV (no CUDA device, or GPU kernels not selected)")
        return chart
    if not any(side(r) == "CPU" for r in rows):
        chart.no_data("No CPU results in this CSV")
        return chart
    values = {k: r["gflops_v"] for k, r in best.items()}
    histogram(chart, workdir, matrices, ["CPU", "GPU"], values, "GFLOPS of the best kernel", best)
    return chart


def geomean(values):
    values = [v for v in values if v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def impossible_note(chart, left_out, unit):
    """The chart says which rows it left out for a speedup above their
    thread or rank count: a figure that cannot be true is not plotted."""
    if not left_out:
        return
    chart.note = ((chart.note + "; ") if chart.note else "") + (
        "%d row(s) left out: a speedup above their %s count, which cannot be true (its one-%s "
        "time is suspect), e.g. %s" % (len(left_out), unit, unit, ", ".join(left_out[:3])))
    print("plot: %s: %s" % (chart.name, chart.note), file=sys.stderr)


def own_speedups(omp, left_out=None):
    """Each OpenMP row's speedup over the same kernel's row at one thread
    (same matrix, precision and settings): thread scaling is a kernel
    against itself. Rows without that one-thread row are left out, and so
    are rows faster than their thread count allows (named in left_out)."""
    key = lambda r: (r["matrix"], r["kernel"], r.get("precision", ""), r.get("settings", ""))
    one = {key(r): float(r["time_ms_median"]) for r in omp if r["threads_v"] == 1}
    out = []
    for r in omp:
        t1 = one.get(key(r))
        if t1 and float(r["time_ms_median"]) > 0:
            speedup = t1 / float(r["time_ms_median"])
            if speedup > r["threads_v"]:
                if left_out is not None:
                    left_out.append("%s %s %.1fx at %d" % (r["kernel"], r["matrix"], speedup,
                                                            r["threads_v"]))
                continue
            out.append(dict(r, own_speedup=speedup, own_efficiency=speedup / r["threads_v"]))
    return out


def chart_scaling(rows, workdir):
    left_out = []
    omp = own_speedups([r for r in rows if r["backend"] == "openmp" and r["status"] == "ok" and
                        r["time_ms_median"] != ""], left_out)
    threads = sorted({r["threads_v"] for r in omp})
    chart = Chart("scaling", "Thread scaling of the OpenMP kernels, each against itself at one "
                  "thread (geometric mean over the matrices each ran on: their count in brackets)",
                  1100, 620)
    impossible_note(chart, left_out, "thread")
    if len(threads) < 2:
        chart.no_data("No scaling data: needs OpenMP rows at one thread and at least one more "
                      "thread count (spbench run --threads 1,2,4)")
        return chart
    kernels = ordered(r["kernel"] for r in omp)
    counts = {k: len({r["matrix"] for r in omp if r["kernel"] == k}) for k in kernels}
    label = {k: "%s (%d)" % (marked(k, any(r["noisy_v"] for r in omp if r["kernel"] == k)),
                             counts[k]) for k in kernels}
    noisy = {r["kernel"] for r in omp if r["noisy_v"]}
    chart.mark_noisy(sum(r["noisy_v"] for r in omp))
    table = []
    for t in threads:
        row = [t]
        for k in kernels:
            mine = [r for r in omp if r["kernel"] == k and r["threads_v"] == t]
            row.append(geomean([r["own_speedup"] for r in mine]) if mine else "NaN")
        for k in kernels:
            mine = [r for r in omp if r["kernel"] == k and r["threads_v"] == t]
            row.append(geomean([r["own_efficiency"] for r in mine]) if mine else "NaN")
        table.append(row)
    path = chart.datafile(workdir, table)
    n = len(kernels)
    speed = ", ".join("%s using 1:%d with linespoints title %s %s"
                      % (quote(path) if i == 0 else "''", i + 2, quote(label[k]),
                         line_style(k, i))
                      for i, k in enumerate(kernels))
    eff = ", ".join("%s using 1:%d with linespoints notitle %s"
                    % (quote(path) if i == 0 else "''", n + i + 2, line_style(k, i))
                    for i, k in enumerate(kernels))
    chart.lines += [
        "set datafile missing 'NaN'", "set grid", "set xtics (%s)" % ", ".join(str(t) for t in threads),
        "set multiplot layout 1,2 title %s" % chart.quoted_title(), "set xlabel 'threads'", "set ylabel 'speedup over one thread'",
        "set key outside below horizontal maxcols 3", "set title 'speedup'",
        "plot %s, x title 'ideal' with lines dashtype 2 lc 'gray'" % speed,
        "set ylabel 'efficiency (speedup / threads)'", "set title 'efficiency'", "set yrange [0:*]",
        "plot %s" % eff, "unset multiplot",
    ]
    return chart


def rank_series(r):
    """A distributed row's series: its kernel, and its threads per rank when more than one."""
    return r["kernel"] if r["threads_v"] == 1 else "%s_x%dt" % (r["kernel"], r["threads_v"])


# The machine the rows ran on, from the results JSON beside the CSV (its
# "machine"): cores, when known, mark the rank counts that shared them.
MACHINE = {"cores": None}


def machine_beside(csv_path):
    """The cores of the machine in the JSON beside csv_path (X.json for
    X.csv), or None when there is none or it does not say."""
    base, ext = os.path.splitext(csv_path)
    try:
        with open(base + ".json") as f:
            cores = json.load(f).get("machine", {}).get("cpu_cores")
    except (OSError, ValueError, AttributeError):
        return None
    return cores if isinstance(cores, int) and cores > 0 and ext == ".csv" else None


def oversubscribed(rows, ranks):
    """The rank counts whose ranks x threads passed the machine's cores."""
    cores = MACHINE["cores"]
    if not cores:
        return set()
    return {p for p in ranks
            if p * max(r["threads_v"] for r in rows if int(r["ranks"]) == p) > cores}


def rank_lines(chart, workdir, rows, panels, summary, spread_x=False):
    """Lines against the rank count, one per series, in one panel per
    (column, ylabel, title, ideal) of panels; summary: geomean or median
    of the column over the matrices. Solid lines, each series its own
    colour and marker; spread_x shifts each series a little sideways so
    that markers at one rank count do not hide each other."""
    ranks = sorted({int(r["ranks"]) for r in rows})
    series = ordered(rank_series(r) for r in rows)
    noisy = {rank_series(r) for r in rows if r["noisy_v"]}
    chart.mark_noisy(sum(r["noisy_v"] for r in rows))
    table = []
    for p in ranks:
        line = [p]
        for column, _, _, _ in panels:
            for s in series:
                mine = [float(r[column]) for r in rows if rank_series(r) == s and
                        int(r["ranks"]) == p and r.get(column, "") != ""]
                line.append(summary(mine) if mine else "NaN")
        table.append(line)
    path = chart.datafile(workdir, table)
    shared = oversubscribed(rows, ranks)
    if shared:
        chart.note = ((chart.note + "; ") if chart.note else "") + (
            "*: more ranks x threads than the machine's %d cores: they time the sharing"
            % MACHINE["cores"])
    chart.lines += ["set datafile missing 'NaN'", "set grid", "set xlabel 'ranks'",
                    "set xtics (%s)" % ", ".join('"%d%s" %d' % (p, "*" if p in shared else "", p)
                                                 for p in ranks),
                    "set key outside below horizontal maxcols 3"]
    if len(panels) > 1:
        chart.lines.append("set multiplot layout 1,%d title %s" % (len(panels),
                                                                   chart.quoted_title()))
    width = 0.04 * (max(ranks) - min(ranks)) / max(1, len(series) - 1) if spread_x else 0
    if width:  # the shifted markers inside the frame
        pad = width * len(series)
        chart.lines.append("set xrange [%g:%g]" % (min(ranks) - pad, max(ranks) + pad))
    for k, (_column, ylabel, title, ideal) in enumerate(panels):
        plots = ["%s using ($1%+g):%d with linespoints %s lw 2 dt 1 lc rgb '%s' pt %d ps 1.2"
                 % (quote(path) if i == 0 else "''", (i - (len(series) - 1) / 2.0) * width,
                    2 + k * len(series) + i,
                    "title " + quote(marked(s, s in noisy)) if k == 0 else "notitle",
                    PALETTE[i % len(PALETTE)], POINTS[i % len(POINTS)])
                 for i, s in enumerate(series)]
        values = [v for line in table for v in line[1 + k * len(series):1 + (k + 1) * len(series)]
                  if v != "NaN"]
        top = max(values + [max(ranks) if ideal == "x" else float(ideal or 0)] or [1])
        if ideal:
            plots.append("%s title 'ideal' with lines dashtype 2 lw 2 lc 'gray'" % ideal)
        # room above the highest line, the ideal included (at the frame it hid); a
        # log axis where the values span more than 20x (slowdowns of shared cores
        # would sit on the floor of a linear one)
        low = min([v for v in values if v > 0] or [top])
        if top > 20 * low:
            chart.lines += ["set logscale y", "set yrange [%g:%g]" % (low / 1.5, 1.5 * top)]
        else:
            chart.lines += ["unset logscale y", "set yrange [0:%g]" % (1.12 * top)]
        chart.lines += ["set ylabel %s" % quote(ylabel)]
        if len(panels) > 1:  # one panel keeps the chart's title
            chart.lines.append("set title %s" % quote(title))
        chart.lines.append("plot " + ", ".join(plots))
    if len(panels) > 1:
        chart.lines.append("unset multiplot")


def median(values):
    values = sorted(values)
    half = len(values) // 2
    return values[half] if len(values) % 2 else (values[half - 1] + values[half]) / 2


def chart_strong_scaling(rows, workdir):
    strong = [r for r in rows if not r["matrix"].endswith("/rank")]
    hybrid = any(r["threads_v"] > 1 for r in strong)
    chart = Chart("strong_scaling", "Strong scaling of the distributed rows (geometric mean over "
                  "the matrices%s)" % ("; _xNt: N threads per rank" if hybrid else ""), 1100, 620)
    if len({r["ranks"] for r in strong}) < 2:
        chart.no_data("No strong-scaling data: needs distributed rows at two or more rank "
                      "counts, 1 among them (spbench run --ranks 1,2,4 MATRIX)")
        return chart
    left_out = ["%s %s %.1fx at %s" % (r["kernel"], r["matrix"], float(r["rank_speedup"]),
                                        r["ranks"]) for r in strong
                if r.get("rank_speedup", "") != "" and float(r["rank_speedup"]) > int(r["ranks"])]
    strong = [r for r in strong if r.get("rank_speedup", "") == "" or
              float(r["rank_speedup"]) <= int(r["ranks"])]
    impossible_note(chart, left_out, "rank")
    rank_lines(chart, workdir, strong,
               [("rank_speedup", "speedup over one rank", "speedup", "x"),
                ("rank_efficiency", "efficiency (speedup / ranks)", "efficiency", None)], geomean)
    return chart


def chart_weak_scaling(rows, workdir):
    weak = [r for r in rows if r["matrix"].endswith("/rank")]
    chart = Chart("weak_scaling", "Weak scaling: each rank keeps its share of a matrix that "
                  "grows with the ranks (efficiency t1/tP, geometric mean over the specs)", 900)
    if len({r["ranks"] for r in weak}) < 2:
        chart.no_data("No weak-scaling data: needs rows of spbench run --ranks 1,2,4 --weak "
                      "gen:SPEC")
        return chart
    rank_lines(chart, workdir, weak,
               [("rank_efficiency", "efficiency t1 / tP", "weak-scaling efficiency", "1")],
               geomean)
    return chart


def chart_comm_split(rows, workdir):
    split = [dict(r, comm_share=float(r["comm_ms"]) / float(r["time_ms_median"]))
             for r in rows if r.get("comm_ms", "") != "" and int(r["ranks"]) > 1]
    chart = Chart("comm_split", "Exposed communication: its share of the product's time (the "
                  "slowest rank's, median over the matrices)", 900)
    if not split:
        chart.no_data("No communication data: needs distributed rows (other than PETSc's, "
                      "which does not split its time) at two or more ranks")
        return chart
    rank_lines(chart, workdir, split,
               [("comm_share", "exposed communication / time", "communication share", None)],
               median, spread_x=True)
    return chart


def chart_roofline(rows, workdir):
    """Boxes: median and range of the roofline fraction over the matrices whose
    working set does not fit in the last-level cache; crosses: the rows that
    do (in_cache = 1), drawn but kept out of the boxes, since a cache can
    serve them faster than memory."""
    top = {}
    for r in rows:
        top[r["kernel"]] = max(top.get(r["kernel"], 0), r["threads_v"])
    usable = [r for r in rows if r["roofline_frac"] != "" and r["threads_v"] == top[r["kernel"]]]
    cached = [r for r in usable if r.get("in_cache") == "1"]
    memory = [r for r in usable if r.get("in_cache") != "1"]
    chart = Chart("roofline", "Fraction of the measured bandwidth roofline per kernel, at its "
                  "highest thread count", 1100, 600)
    if not usable:
        chart.no_data("No roofline data in this CSV")
        return chart
    kernels = ordered(r["kernel"] for r in usable)
    noisy = {r["kernel"] for r in usable if r["noisy_v"]}
    chart.mark_noisy(sum(r["noisy_v"] for r in usable))
    table, points = [], []
    for i, k in enumerate(kernels):
        v = sorted(float(r["roofline_frac"]) for r in memory if r["kernel"] == k)
        count = " (%d)" % len(v) if memory else ""  # the matrices behind the bar
        label = quote(marked(k, k in noisy) + count)  # one column: quoted
        if v:
            median = v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])
            table.append([i, median, v[0], v[-1], label])
        else:
            table.append([i, "NaN", "NaN", "NaN", label])
        points += [[i, float(r["roofline_frac"])] for r in cached if r["kernel"] == k]
    path = chart.datafile(workdir, table)
    if memory:
        plots = ["%s using 1:2:xtic(5) with boxes title 'matrices out of cache (their "
                 "count in brackets): median, bar lowest to highest'" % quote(path),
                 "'' using 1:2:3:4 with yerrorbars lc 'black' pt 0 notitle"]
    else:  # no bars to explain: the kernels still name the axis
        plots = ["%s using 1:2:xtic(5) with boxes notitle" % quote(path)]
        chart.note = (chart.note + "\n" if chart.note else "") + (
            "Every row's data fits in the last-level cache: the cache, not memory, served it, "
            "so a fraction above 1 is expected; add a larger matrix for bars")
    if points:
        cache_path = chart.datafile(workdir, points)
        plots.append("%s using 1:2 with points pt 2 ps 0.8 lc 'dark-red' title 'rows in cache (not in the median)'"
                     % quote(cache_path))
    plots.append("1 with lines dashtype 2 lc 'gray' title 'roofline'")
    chart.lines += [
        "set style fill solid 0.6 border -1", "set boxwidth 0.7", "set grid ytics",
        "set ylabel 'achieved bandwidth / measured bandwidth'", "set yrange [0:*]",
        "set key top right", "set xtics rotate by -45 scale 0",
        "set xrange [-0.7:%f]" % (len(kernels) - 0.3), "plot " + ", ".join(plots),
    ]
    return chart


def chart_csr_vs_hll(rows, workdir):
    family = {"csr": "CSR", "hll.row": "HLL row-major", "hll.col": "HLL column-major"}
    usable = [r for r in rows if r["format"] in family]
    matrices = ordered(r["matrix"] for r in usable)
    chart = Chart("csr_vs_hll", "Best CSR vs HLL (row- and column-major) kernel per matrix",
                  max(900, 80 + 50 * len(matrices)))
    present = {family[r["format"]] for r in usable}
    if "CSR" not in present or len(present) < 2:
        chart.no_data("Needs CSR and HLL results (kernels csr.* and hll.*) to compare")
        return chart
    best = best_by(usable, lambda r: (r["matrix"], family[r["format"]]))
    values = {k: r["gflops_v"] for k, r in best.items()}
    histogram(chart, workdir, matrices, list(family.values()), values,
              "GFLOPS of the best kernel of the format", best)
    return chart


def main():
    if len(sys.argv) != 3:
        print("usage: spbench plot RESULTS.csv OUTDIR", file=sys.stderr)
        return 2
    csv_path, outdir = sys.argv[1], sys.argv[2]
    if shutil.which("gnuplot") is None:
        print("spbench plot: gnuplot is not installed; on Debian or Ubuntu: "
              "sudo apt-get install gnuplot-nox", file=sys.stderr)
        return 1
    try:
        rows = load_rows(csv_path)
    except CsvError as e:
        print("spbench plot: %s" % e, file=sys.stderr)
        return 1
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        print("spbench plot: %s: cannot make the folder: %s" % (outdir, e.strerror or e),
              file=sys.stderr)
        return 1
    # rows of CSVs from before the operation column are SpMV rows
    spgemm = [r for r in rows if r.get("operation") == "spgemm"]
    for r in spgemm:  # a matrix times a B other than itself is its own case
        b = r.get("settings", "").partition(" b=")[2]
        if b and b != "self":
            r["matrix"] = "%s*%s" % (r["matrix"], b)  # no spaces: gnuplot splits on them
    spmv = [r for r in rows if r.get("operation", "spmv") in ("spmv", "")]
    dist = [r for r in spmv if r["backend"] == "mpi"]  # their own charts: ranks, not threads
    spmv = [r for r in spmv if r["backend"] != "mpi"]
    builders = []
    if spmv or not (spgemm or dist):
        builders += [(build, spmv) for build in (chart_gflops, chart_cpu_vs_gpu, chart_scaling,
                                                 chart_roofline, chart_csr_vs_hll)]
    if dist:
        builders += [(build, dist) for build in (chart_strong_scaling, chart_weak_scaling,
                                                 chart_comm_split)]
    if spgemm:
        builders += [(chart_spgemm_gflops, spgemm), (chart_spgemm_time, spgemm)]
    measured = energy_rows(spmv) or energy_rows(spgemm)  # drawn where counters were read
    if measured:
        builders.insert(1, (chart_energy, measured))
    number_kernels(rows)
    MACHINE["cores"] = machine_beside(csv_path)
    with tempfile.TemporaryDirectory(prefix="spbench_plot_") as workdir:
        for build, chosen in builders:
            chart = build(chosen, workdir)
            if chart.empty:  # not drawn; an older drawing of it would mislead
                for ext in ("png", "svg"):
                    stale = os.path.join(outdir, "%s.%s" % (chart.name, ext))
                    if os.path.exists(stale):
                        os.remove(stale)
                print("not drawn: %s (%s)" % (chart.name, chart.empty))
                continue
            failed = draw(chart, workdir, outdir)
            if failed:
                print("spbench plot: %s" % failed, file=sys.stderr)
                return 1
            print("%s/%s.png, %s/%s.svg" % (outdir, chart.name, outdir, chart.name))
    return 0


def compare_label(p):
    """A pair's x label: the matrix, its thread and rank counts when they are
    not 1 (rows of one matrix told apart), * when either side was noisy."""
    label = p["matrix"]
    if str(p.get("threads", "1")) not in ("1", ""):
        label += " t%s" % p["threads"]
    if str(p.get("ranks", "1")) not in ("1", ""):
        label += " r%s" % p["ranks"]
    if str(p.get("precision", "")) == "fp32":
        label += " fp32"
    return label + (" *" if p.get("noisy") else "")


def chart_compare(pairs, workdir):
    """spbench compare's pairs: NEW's time over BASE's per matrix with its
    95% interval, one panel per kernel (every kernel, two panels a row), on
    a log axis (one wide interval cannot flatten the rest), a line at 1 (no
    change); a label says threads and ranks where they are not 1, and * marks
    a noisy pair."""
    kernels = ordered(p["kernel"] for p in pairs)
    rows = (len(kernels) + 1) // 2
    chart = Chart("compare", "NEW's time over BASE's per matrix (95% interval; below 1: NEW "
                  "faster; * noisy)", 1100, 320 * rows + 80)
    if not pairs:
        chart.no_data("No pairs to draw")
        return chart
    chart.lines += ["set datafile missing 'NaN'", "set grid ytics", "set xtics rotate by -45",
                    "set logscale y", "set format y '%g'",
                    "set multiplot layout %d,%d title %s" % (rows, min(2, len(kernels)),
                                                             chart.quoted_title())]
    for k in kernels:
        mine = [p for p in pairs if p["kernel"] == k]
        table = [[i, p["ratio"], p["low"] if p["low"] is not None else "NaN",
                  p["high"] if p["high"] is not None else "NaN", quote(compare_label(p))]
                 for i, p in enumerate(mine)]
        path = chart.datafile(workdir, table)
        values = [v for p in mine for v in (p["ratio"], p["low"], p["high"]) if v]
        low, high = min(values + [0.8]) / 1.15, max(values + [1.25]) * 1.15  # 1 inside, centred
        chart.lines += ["set title %s" % quote(k), "set ylabel 'new / base (log)'",
                        "set xrange [-0.7:%f]" % (len(mine) - 0.3),
                        "set yrange [%g:%g]" % (low, high),
                        # under a decade a log axis shows one tic: name the ratios between
                        "set ytics (0.5, 0.67, 0.8, 0.9, 1, 1.1, 1.25, 1.5, 2)" if high / low < 10
                        else "set ytics auto",
                        "plot %s using 1:2:3:4:xtic(5) with yerrorbars pt 7 lc rgb '%s' notitle, "
                        "1 with lines dashtype 2 lc 'gray' notitle" % (quote(path), PALETTE[0])]
    chart.lines.append("unset multiplot")
    return chart


def draw(chart, workdir, outdir):
    """Runs gnuplot on the chart and moves it into outdir; the reason as
    text when it could not, else None."""
    done = subprocess.run(["gnuplot"], input=chart.script(workdir), text=True,
                          capture_output=True)
    if done.returncode != 0:
        return "gnuplot failed on %s:\n%s" % (chart.name, done.stderr)
    return publish(chart.name, workdir, outdir)


def publish(name, workdir, outdir):
    """Moves a chart's PNG and SVG from workdir into outdir, each through a
    temporary file renamed into place, after checking gnuplot wrote it
    whole (on a full disk it once left 0-byte files and reported success);
    the reason as text when it could not, else None."""
    for ext, ending in (("png", b"IEND\xaeB`\x82"), ("svg", b"</svg>\n")):
        drawn = os.path.join(workdir, "%s.%s" % (name, ext))
        final = os.path.join(outdir, "%s.%s" % (name, ext))
        partial = "%s.tmp.%d" % (final, os.getpid())
        try:
            with open(drawn, "rb") as f:
                whole = f.read()
            if not whole.rstrip().endswith(ending.rstrip()):
                return "gnuplot wrote %s.%s incompletely (is %s full?)" % (name, ext, workdir)
            with open(partial, "wb") as f:
                f.write(whole)
                f.flush()
                os.fsync(f.fileno())
            os.replace(partial, final)
        except OSError as e:
            if os.path.exists(partial):
                os.unlink(partial)
            return "%s: cannot write the chart: %s" % (final, e.strerror or e)
    return None


if __name__ == "__main__":
    sys.exit(main())
