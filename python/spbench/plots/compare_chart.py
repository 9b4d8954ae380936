"""spbench compare's chart: NEW's time over BASE's per matrix, one panel
per kernel (spbench.compare draws it through this module)."""
from spbench.plots.drawing import PALETTE, Chart, ordered, quote

def compare_label(p):
    """A pair's x label: the matrix, its thread and rank counts when they are
    not 1 (rows of one matrix told apart), * when either side was noisy."""
    label = p["matrix"]
    if str(p.get("threads", "1")) not in ("1", ""):
        label += " t%s" % p["threads"]
    if str(p.get("ranks", "1")) not in ("1", ""):
        label += " r%s" % p["ranks"]
    if str(p.get("precision", "")) not in ("", "fp64"):
        label += " " + str(p["precision"])
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
                  p["high"] if p["high"] is not None else "NaN", compare_label(p)]
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
