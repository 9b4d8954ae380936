"""The drawing kit of spbench's charts: a chart as a gnuplot script with
its data files, the palette and styles that keep a kernel's colour from
chart to chart, the statistics the charts share, and the drawing itself
(gnuplot, then each file checked whole and renamed into place). Used by
plot.py, rank_charts.py and compare_chart.py."""
import os
import re
import subprocess
import sys


def ordered(values):
    """The distinct values in order of first appearance (linear: a study of
    thousands of matrices has hundreds of thousands of rows)."""
    return list(dict.fromkeys(values))

# The widest a chart is drawn: cairo draws nothing past 32,767 pixels, and
# a chart of one group of bars per matrix is unreadable long before. Past
# it the chart is left out, saying why (the profile and size charts show
# every matrix at any count).
MAX_WIDTH = 16000

# Kernel styles: colour x fill pattern (bars) or colour x dash and point
# (lines); the kernels of each family of charts (SpMV, SpMV over MPI ranks,
# SpGEMM) are numbered by backend, then by name, so a kernel has the same
# style in every chart of any file that holds the same kernels of its
# operation, whatever the rows' order or the other operation's rows (the
# report's charts and `spbench plot`'s PNGs of one study agree).
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

def chart_family(row):
    """Which charts a row is drawn in: SpGEMM's, the MPI ranks', or SpMV's
    (rows of CSVs from before the operation column are SpMV rows)."""
    if row.get("operation") == "spgemm":
        return "spgemm"
    return "mpi" if row.get("backend") == "mpi" else "spmv"


def number_kernels(rows):
    """Numbers the kernels of each chart family: by backend, then by name."""
    KERNEL_INDEX.clear()
    rank = lambda b: BACKENDS.index(b) if b in BACKENDS else len(BACKENDS)
    families = {}
    for r in rows:
        families.setdefault(chart_family(r), {}).setdefault(r["kernel"], r["backend"])
    for kernels in families.values():
        for i, kernel in enumerate(sorted(kernels, key=lambda k: (rank(kernels[k]), k))):
            KERNEL_INDEX.setdefault(kernel, i)

def by_backend(kernels):
    """Kernels in their numbers' order: by backend, then by name."""
    return sorted(kernels, key=lambda k: (KERNEL_INDEX.get(k, len(KERNEL_INDEX)), k))

def bar_style(series, position):
    """A kernel's own bar style; other series (CPU/GPU, formats) by position."""
    i = KERNEL_INDEX.get(series, position)
    return "fs %s border -1 lc rgb '%s'" % (FILLS[(i // len(PALETTE)) % len(FILLS)],
                                           PALETTE[i % len(PALETTE)])

def line_style(series, position, points=True):
    """A kernel's own colour and dash (and point, where the plot has
    points: gnuplot warns of one on steps)."""
    i = KERNEL_INDEX.get(series, position)
    style = "lc rgb '%s' dt %d" % (PALETTE[i % len(PALETTE)],
                                   DASHES[(i // len(PALETTE)) % len(DASHES)])
    return style + (" pt %d" % POINTS[i % len(POINTS)] if points else "")

CONTROL = re.compile("[\x00-\x1f\x7f]")


def quote(text):
    """text as a gnuplot string in a script: single-quoted, where gnuplot
    expands nothing (no `command`, no @macro, no escapes), a quote doubled;
    a newline joins gnuplot's "\\n" on, other control characters are '?'."""
    return '."\\n".'.join("'" + CONTROL.sub("?", part).replace("'", "''") + "'"
                           for part in str(text).split("\n"))


def data_field(value):
    """A value as one field of a data file: a number as it is, text in the
    double quotes gnuplot groups a field by (it has no escape for a double
    quote inside, so that becomes ', and a tab or control character ?)."""
    if not isinstance(value, str) or value == "NaN":
        return str(value)
    return '"%s"' % CONTROL.sub("?", value).replace('"', "'")

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
        return quote(text)

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
                f.write("\t".join(data_field(v) for v in r) + "\n")
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
        self.lines += ["unset key", "unset xtics", "unset ytics", "unset border",
                       "set label 1 %s at graph 0.5, graph 0.5 center font ',14'"
                       % quote("\n".join(lines)),
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
    return name + "*" if noisy else name

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

def impossible_note(chart, left_out, unit):
    """The chart says which rows it left out for a speedup above their
    thread or rank count: a figure that cannot be true is not plotted."""
    if not left_out:
        return
    chart.note = ((chart.note + "; ") if chart.note else "") + (
        "%d row(s) left out: a speedup above their %s count, which cannot be true (its one-%s "
        "time is suspect), e.g. %s" % (len(left_out), unit, unit, ", ".join(left_out[:3])))
    print("plot: %s: %s" % (chart.name, chart.note), file=sys.stderr)
