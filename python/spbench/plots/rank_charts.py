"""The charts of distributed rows (backend mpi: spbench run --ranks):
strong and weak scaling against ranks, and exposed communication's share.
Rank counts past the machine's cores (from the JSON beside the CSV) are
marked."""
import json
import os

from spbench.plots.drawing import PALETTE, POINTS, Chart, impossible_note, marked, ordered, quote
from spbench.stats import geomean, median

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
