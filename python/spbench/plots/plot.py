"""Charts from a spbench results CSV, drawn by gnuplot as PNG and SVG.

usage: spbench plot RESULTS.csv OUTDIR   (runs this module)

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
  profile      performance profile (Dolan and More): for each kernel, the share
               of the cases (matrix and precision) on which it is within a
               factor tau of the fastest kernel, against tau on a log axis
  gflops_by_size  GFLOPS against the matrix's entries, log axes, one point a
               matrix and kernel
The charts of one group of bars per matrix are left out, saying why, past
16000 pixels (a few hundred matrices); profile and gflops_by_size show every
matrix at any count.
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
noisy column) is marked * and the title says how many such rows there are.
Exit status 2 with a message for a usage error or a missing, empty or
malformed CSV (as for every spbench command), 1 when gnuplot is missing or
fails.
"""
import os
import shutil
import sys
import tempfile

from spbench import results  # the one reader of a results file
from spbench.stats import geomean, median
from spbench.plots.drawing import (MAX_WIDTH, Chart, best_by, by_backend, chart_family, draw,
                                   histogram, impossible_note, line_style, marked, number_kernels,
                                   ordered, quote)
from spbench.plots.rank_charts import (MACHINE, chart_comm_split, chart_strong_scaling,
                                       chart_weak_scaling, machine_beside)

REQUIRED = ("matrix", "kernel", "format", "backend", "threads", "gflops", "roofline_frac",
            "speedup", "efficiency", "status")
CHARTS = ("gflops", "energy", "cpu_vs_gpu", "scaling", "roofline", "csr_vs_hll", "profile",
          "gflops_by_size",
          "strong_scaling", "weak_scaling", "comm_split", "spgemm_gflops", "spgemm_time")


class CsvError(Exception):
    pass


def load_rows(path):
    try:
        study = results.read(path, kinds=("csv",))
    except results.ResultsError as e:
        raise CsvError(str(e))
    missing = [c for c in REQUIRED if c not in study.columns]
    if missing:
        raise CsvError("%s is not a spbench results CSV: missing column(s) %s"
                       % (path, ", ".join(missing)))
    rows = []
    for number, row in enumerate(study.rows, start=2):
        if None in row or any(row[c] is None for c in REQUIRED):
            raise CsvError("%s:%d: malformed row (wrong number of fields)" % (path, number))
        if row.get("precision") not in (None, "", "fp64"):  # its own series in every chart
            row["kernel"] += "/" + row["precision"]
        rows.append(row)
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


def gflops_label(rows, unit):
    """The GFLOPS axis: 2 flops a multiply-add (of `unit`, nnz or
    products), 8 a complex one, said when complex rows are drawn."""
    complex_rows = any(r.get("precision", "").startswith("complex") for r in rows)
    return "GFLOPS (2 %s / median time%s)" % (unit, "; complex: 8 %s" % unit if complex_rows else "")


def gflops_histogram(rows, workdir, name, title, unit):
    """Every kernel's GFLOPS per matrix, each at its best thread count and
    setting (the SpMV and SpGEMM charts)."""
    matrices = ordered(r["matrix"] for r in rows)
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    values = {k: r["gflops_v"] for k, r in best.items()}
    chart = Chart(name, title, max(1000, 60 + len(matrices) * (14 + 5 * len(kernels))))
    histogram(chart, workdir, matrices, kernels, values, gflops_label(rows, unit), best)
    return chart


def chart_gflops(rows, workdir):
    return gflops_histogram(rows, workdir, "gflops", "GFLOPS of every kernel per matrix (each at "
                            "its best thread count and setting)", "nnz")


def case_times(rows):
    """{(matrix, precision): {kernel: its fastest median time (ms)}} over the
    ok rows' thread counts (a row of another precision than fp64 carries it:
    /fp32, /complex128)."""
    cases = {}
    for r in rows:
        try:
            t = float(r["time_ms_median"])
        except (KeyError, ValueError):
            continue
        if not t > 0:
            continue
        mine = cases.setdefault((r["matrix"], r.get("precision") or "fp64"), {})
        mine[r["kernel"]] = min(t, mine.get(r["kernel"], t))
    return cases


def chart_profile(rows, workdir):
    """Dolan and More's performance profile: per kernel, the share of its
    precision's cases on which its time is within tau times the fastest
    kernel's; a case it has no ok row on counts as never within."""
    cases = case_times(rows)
    chart = Chart("profile", "Performance profile: the share of the cases (matrix and precision) "
                  "on which each kernel is within a factor tau of the fastest kernel of the case",
                  1100, 650)
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    noisy = {r["kernel"] for r in rows if r["noisy_v"]}
    precision = {r["kernel"]: r.get("precision") or "fp64" for r in rows}
    profiles = {}
    for k in kernels:
        mine = [c for c in cases if c[1] == precision[k]]
        ratios = sorted(cases[c][k] / min(cases[c].values()) for c in mine if k in cases[c])
        if ratios:
            profiles[k] = (ratios, len(mine))
    right = min(max([r[-1] for r, _ in profiles.values()] + [1.0]), 1e4) * 1.1
    plots = []
    for i, k in enumerate(kernels):
        if k not in profiles:
            continue
        ratios, count = profiles[k]
        steps = [(1.0, 0.0)] + [(t, (j + 1) / count) for j, t in enumerate(ratios)]
        steps.append((right, len(ratios) / count))  # flat to the edge: no case further
        path = chart.datafile(workdir, steps)
        plots.append("%s using 1:2 with steps title %s lw 2 %s"
                     % (quote(path), quote(marked(k, k in noisy)), line_style(k, i, False)))
    if not plots:
        chart.no_data("no case has a timed row")
        return chart
    chart.mark_noisy(sum(r["noisy_v"] for r in rows))
    chart.key_right = [marked(k, k in noisy) for k in kernels]
    chart.width += chart.key_width()
    chart.lines += [
        "set logscale x", "set xrange [1:%g]" % right, "set yrange [0:1.02]",
        "set xtics (%s)" % ", ".join("%g" % t for t in (1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50,
                                                         100, 1000, 1e4) if t <= right),
        "set grid", "set xlabel %s" % quote("tau: time over the fastest kernel's time on the case"),
        "set ylabel 'share of the cases within tau'", "set key outside right top vertical",
        "plot " + ", ".join(plots),
    ]
    return chart


def chart_gflops_by_size(rows, workdir):
    """GFLOPS against the matrix's entries: one point a matrix and kernel
    (its best thread count and setting), one colour a kernel."""
    kernels = by_backend(ordered(r["kernel"] for r in rows))
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    chart = Chart("gflops_by_size", "GFLOPS against the matrix's stored entries (one point a "
                  "matrix and kernel, each at its best thread count and setting)", 1100, 650)
    noisy = {k for (_, k), r in best.items() if r["noisy_v"]}
    plots = []
    for i, k in enumerate(kernels):
        points = []
        for (m, kk), r in best.items():
            try:
                nnz = float(r["nnz"])
            except (KeyError, ValueError):
                continue
            if kk == k and nnz > 0 and r["gflops_v"] > 0:
                points.append((nnz, r["gflops_v"]))
        if points:
            plots.append("%s using 1:2 with points title %s %s"
                         % (quote(chart.datafile(workdir, points)), quote(marked(k, k in noisy)),
                            line_style(k, i)))
    if not plots:
        chart.no_data("no row has both entries and GFLOPS")
        return chart
    chart.mark_noisy(sum(r["noisy_v"] for r in best.values()))
    chart.key_right = [marked(k, k in noisy) for k in kernels]
    chart.width += chart.key_width()
    chart.lines += [
        "set logscale xy", "set grid", "set xlabel 'stored entries of the matrix (nnz)'",
        "set ylabel %s" % quote(gflops_label(rows, "nnz")), "set key outside right top vertical",
        "plot " + ", ".join(plots),
    ]
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
    return gflops_histogram(rows, workdir, "spgemm_gflops", "SpGEMM: GFLOPS of every kernel per "
                            "matrix (each at its best thread count and setting)", "products")


def chart_spgemm_time(rows, workdir):
    """The progression view: each kernel's time per matrix on a log axis, one
    line per matrix across the kernels in table order."""
    matrices = ordered(r["matrix"] for r in rows)
    kernels = ordered(r["kernel"] for r in rows)
    best = best_by(rows, lambda r: (r["matrix"], r["kernel"]))
    chart = Chart("spgemm_time", "SpGEMM: median time per kernel and matrix (each at its best "
                  "thread count and setting)", max(900, 200 + 90 * len(kernels)), 650)
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
        label = marked(k, k in noisy) + count
        if v:
            table.append([i, median(v), v[0], v[-1], label])
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
    # value rows only: a pattern row's name ends in .pattern (its format too,
    # but files written before 2026-12-07 named the HLL pattern rows' "hll.col")
    usable = [r for r in rows if r["format"] in family and not r["kernel"].endswith(".pattern")]
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
        return 2
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        print("spbench plot: %s: cannot make the folder: %s" % (outdir, e.strerror or e),
              file=sys.stderr)
        return 1
    spgemm = [r for r in rows if chart_family(r) == "spgemm"]
    for r in spgemm:  # a matrix times a B other than itself is its own case
        b = r.get("settings", "").partition(" b=")[2]
        if b and b != "self":
            r["matrix"] = "%s*%s" % (r["matrix"], b)  # no spaces: gnuplot splits on them
    dist = [r for r in rows if chart_family(r) == "mpi"]  # their own charts: ranks, not threads
    spmv = [r for r in rows if chart_family(r) == "spmv"]
    builders = []
    if spmv or not (spgemm or dist):
        builders += [(build, spmv) for build in (chart_gflops, chart_cpu_vs_gpu, chart_scaling,
                                                 chart_roofline, chart_csr_vs_hll, chart_profile,
                                                 chart_gflops_by_size)]
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
            if not chart.empty and chart.width > MAX_WIDTH:
                chart.empty = ("it would be %d pixels wide, one group a matrix, past the %d a "
                               "chart is drawn at: profile and gflops_by_size show every matrix"
                               % (chart.width, MAX_WIDTH))
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
            print("%s, %s" % (os.path.join(outdir, chart.name + ".png"),
                              os.path.join(outdir, chart.name + ".svg")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
