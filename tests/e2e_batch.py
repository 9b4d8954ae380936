"""End-to-end tests of batch studies: a run over a directory with a broken
file in the middle is killed after some rows and resumed, ending with every
row present once; --json is valid and versioned; progress goes to stderr;
`spbench plot` draws every chart from a small CSV and refuses empty or
malformed ones.

usage: e2e_batch.py SPBENCH SOURCE_DIR
"""
import csv
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time

from spbtest import SOURCE, SPBENCH, check, read_rows, skip, spbench, run_tests
BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "2", "--min-time", "0", "--warmup", "0"]
# slow enough to be killed part-way: many samples per kernel (every run that
# resumes its file measures as it did: resume refuses other options)
SLOW = ["--reps", "50", "--min-time", "0.05", "--warmup", "0"]
KERNELS = ["--kernels", "csr.serial,hll.serial.*,csr.omp.nnz,csr.omp.guided,csr.omp.static",
           "--threads", "1,2"]





def make_batch(tmp):
    batch = os.path.join(tmp, "batch")
    os.mkdir(batch)
    names = ["a_cage4", "b_west0479", "c_plskz362", "e_jagmesh7", "f_lp_e226", "g_Journals"]
    for name in names:
        shutil.copy(os.path.join(BUNDLED, name.split("_", 1)[1] + ".mtx.gz"),
                    os.path.join(batch, name + ".mtx.gz"))
    with open(os.path.join(batch, "d_broken.mtx"), "w") as f:  # in the middle, sorted
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n")
    return batch, names


def expected_keys(names):
    serial = ["csr.serial", "hll.serial.row", "hll.serial.col"]
    omp = ["csr.omp.nnz", "csr.omp.guided", "csr.omp.static"]
    keys = {(n, k, "1") for n in names for k in serial}
    keys |= {(n, k, t) for n in names for k in omp for t in ("1", "2")}
    keys.add(("d_broken", "", "0"))
    return keys


def test_kill_and_resume(tmp):
    batch, names = make_batch(tmp)
    out = os.path.join(tmp, "batch.csv")
    # slow enough to be killed in the middle: many samples per kernel
    proc = subprocess.Popen([SPBENCH, "run", *SLOW, *KERNELS,
                             "--csv", out, batch], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        time.sleep(0.05)
        if os.path.exists(out) and sum(1 for _ in open(out)) > 14:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_rows(out)
    check(0 < len(before) < len(expected_keys(names)),
          "the run was killed part-way (%d rows)" % len(before))
    resumed_json = os.path.join(tmp, "resumed.json")
    r = spbench("run", *SLOW, *KERNELS, "--csv", out, "--json", resumed_json, "--resume", batch)
    check(r.returncode == 1, "the resumed batch exits 1 (broken file): %s" % r.stderr[-300:])
    check("already in" in r.stdout, "the resumed run reports the rows it kept")
    full_csv, full_json = os.path.join(tmp, "full.csv"), os.path.join(tmp, "full.json")
    full = spbench("run", *FAST, *KERNELS, "--csv", full_csv, "--json", full_json, batch)
    same_as_uninterrupted(r, out, resumed_json, full, full_csv, full_json)
    rows = read_rows(out)
    keys = [(row["matrix"], row["kernel"], row["threads"]) for row in rows]
    check(len(keys) == len(set(keys)), "no row appears twice after resuming")
    check(set(keys) == expected_keys(names),
          "every row present after resuming (missing %s, extra %s)"
          % (sorted(expected_keys(names) - set(keys))[:5], sorted(set(keys) - expected_keys(names))[:5]))
    check(sum(1 for line in open(out) if line.startswith("matrix,")) == 1, "one header line")
    broken = [row for row in rows if row["matrix"] == "d_broken"]
    check(len(broken) == 1 and broken[0]["status"] == "error"
          and "too few entries" in broken[0]["message"], "one error row for the broken file")
    again = spbench("run", *SLOW, *KERNELS, "--csv", out, "--resume", batch)
    check(len(read_rows(out)) == len(rows) and "0 measured now" in again.stdout,
          "a second resume measures nothing")
    # a row cut in the middle (a kill during a write) is dropped, then redone
    with open(out, "a") as f:
        f.write("g_Journals,csr.omp.static,csr,openmp,2,124,124,120")
    data = open(out).read().splitlines()
    lost = data[-2]
    with open(out, "w") as f:
        f.write("\n".join(data[:-2]) + "\n" + data[-1])  # last full row removed, partial kept
    spbench("run", *SLOW, *KERNELS, "--csv", out, "--resume", batch)
    rows = read_rows(out)
    keys = [(row["matrix"], row["kernel"], row["threads"]) for row in rows]
    check(set(keys) == expected_keys(names) and len(keys) == len(set(keys)),
          "a partial last row is cut and its row measured again (%s)" % lost[:40])
    # other settings are other rows
    r = spbench("run", *SLOW, *KERNELS, "--seed", "7", "--csv", out, "--resume", batch)
    check("0 measured now" not in r.stdout, "a different seed is not taken as already measured")
    wrong = os.path.join(tmp, "other.csv")
    with open(wrong, "w") as f:
        f.write("a,b,c\n1,2,3\n")
    r = spbench("run", *FAST, "--csv", wrong, "--resume", batch)
    check(r.returncode == 2 and "header" in r.stderr, "resuming into a foreign CSV is refused")
    r = spbench("run", *FAST, "--resume", batch)
    check(r.returncode == 2 and "--csv" in r.stderr, "--resume without --csv is refused")


def summary_keys(stdout):
    """(matrix, threads) of the closing best-kernel table, and the totals line."""
    lines = stdout.splitlines()
    start = [i for i, ln in enumerate(lines) if ln.startswith("# best kernel")]
    table = lines[start[0] + 2:] if start else []
    keys = sorted((ln.split()[0], ln.split()[1]) for ln in table if ln and not ln.startswith("#"))
    totals = [ln.split(";")[0] for ln in lines if ln.startswith("# ") and " rows: " in ln]
    return keys, totals


def same_as_uninterrupted(resumed, out, resumed_json, full, full_csv, full_json):
    """A killed-and-resumed run reports what an uninterrupted one does: the
    same rows in CSV and JSON, speedups filled, the same summary and totals."""
    rows, whole = read_rows(out), read_rows(full_csv)
    key = lambda row: (row["matrix"], row["kernel"], row["threads"])
    check(sorted(map(key, rows)) == sorted(map(key, whole)), "the resumed CSV has every row")
    try:
        jr, jf = json.load(open(resumed_json)), json.load(open(full_json))
    except ValueError as e:
        jr, jf = {"rows": []}, {"rows": [1]}
        check(False, "the JSON parses: %s" % e)
    check([key(row) for row in jr["rows"]] == [key(row) for row in jf["rows"]],
          "the resumed JSON holds every row, in the uninterrupted order (%d vs %d rows)"
          % (len(jr["rows"]), len(jf["rows"])))
    for row in jr["rows"]:
        if row["status"] == "ok":
            check(row["speedup"] is not None and row["efficiency"] is not None,
                  "%s/%s/%s: speedup filled after resuming" % key(row))
    check(summary_keys(resumed.stdout) == summary_keys(full.stdout),
          "the same best-kernel table and totals: %s vs %s"
          % (summary_keys(resumed.stdout)[1], summary_keys(full.stdout)[1]))


def test_json_and_progress(tmp):
    out_csv, out_json = os.path.join(tmp, "j.csv"), os.path.join(tmp, "j.json")
    cache = os.path.join(tmp, "cache")
    args = [*FAST, *KERNELS, "--csv", out_csv, "--json", out_json, "--cache", cache,
            os.path.join(BUNDLED, "cage4.mtx.gz"), os.path.join(BUNDLED, "west0479.mtx.gz"),
            "gen:lap2d:30"]
    r = spbench("run", *args)
    check(r.returncode == 0, "run with --json and --cache: %s" % r.stderr[-300:])
    try:
        doc = json.load(open(out_json))
    except ValueError as e:
        doc = {}
        check(False, "the JSON parses: %s" % e)
    check(doc.get("format") == "spbench-results" and doc.get("format_version") == 1,
          "the JSON is versioned")
    machine = doc.get("machine", {})
    check("cpu_model" in machine and machine.get("cpu_cores", 0) >= 1
          and "1" in machine.get("cpu_bandwidth_gbs", {}) and "gpu" in machine,
          "the JSON header describes the machine")
    check(all(k in doc.get("spbench", {}) for k in ("version", "git_commit", "compiler")),
          "the JSON header describes the build")
    compiler = doc.get("spbench", {}).get("compiler", "")
    check(compiler.split(" ")[0] in ("gcc", "clang", "cc") and any(c.isdigit() for c in compiler),
          "the JSON names the compiler and its version: %r" % compiler)
    bandwidth = machine.get("bandwidth", {})
    one = bandwidth.get("cpu", {}).get("1", {})
    # at least SPB_BW_MIN_PASSES (5): passes stop after a second, fewer under a sanitizer
    check(bandwidth.get("measurements", 0) >= 1 and one.get("read", {}).get("trials", 0) >= 5
          and one["read"]["worst"] <= one["read"]["median"] <= one["read"]["best"]
          and one.get("roofline") == max(one["read"]["best"], one["triad"]["best"]),
          "the JSON header gives each bandwidth with its trials and spread: %s" % one)
    check("bandwidth" in doc and doc["bandwidth"].get("measurements", 0)
          >= bandwidth.get("measurements", 0), "the JSON trailer gives the final bandwidths")
    llc = machine.get("cpu_llc_bytes", 0)
    rows = read_rows(out_csv)
    for row in rows:
        if row["status"] != "ok" or row["backend"] == "cuda" or not llc:
            continue
        moved = float(row["gbytes_per_s"]) * 1e9 * float(row["time_ms_median"]) * 1e-3
        check(row["in_cache"] == ("1" if moved <= llc else "0"),
              "%s/%s: in_cache %s for %.0f bytes, LLC %.0f" % (row["matrix"], row["kernel"],
                                                                row["in_cache"], moved, llc))
        # the bound only rises as re-measurements add passes: header <= row <= trailer
        first = float(machine["cpu_bandwidth_gbs"].get(row["threads"], 0))
        final = doc.get("bandwidth", {}).get("cpu", {}).get(row["threads"], {}).get("roofline", 0)
        check(first * (1 - 1e-3) <= float(row["bandwidth_gbs"]) <= final * (1 + 1e-3),
              "%s/%s: the row's bound %s lies between the first %s and the final %s"
              % (row["matrix"], row["kernel"], row["bandwidth_gbs"], first, final))
    check(len(doc.get("rows", [])) == len(rows), "the JSON holds the same rows as the CSV")
    if doc.get("rows"):
        first = doc["rows"][0]
        check(first["matrix"] == rows[0]["matrix"] and first["kernel"] == rows[0]["kernel"]
              and isinstance(first["gflops"], (int, float)), "JSON rows carry typed values")
    check("[1/3]" in r.stderr and "[3/3]" in r.stderr and "left" in r.stderr,
          "progress lines on stderr (not a terminal)")
    check(len([f for f in os.listdir(cache) if f.endswith(".spbcsr")]) == 2,
          "two file matrices cached, the generated one not")
    r2 = spbench("run", "--quiet", "--force", *args)
    check(r2.returncode == 0 and r2.stderr == "", "--quiet prints no progress")
    rows2 = read_rows(out_csv)
    same = all(a["rel_l2_err"] == b["rel_l2_err"] and a["nnz"] == b["nnz"]
               for a, b in zip(rows, rows2))
    check(same and len(rows) == len(rows2), "a run from the cache gives the same matrices")


def test_overwrite_refused(tmp):
    """A results file that holds rows is not truncated by a plain rerun."""
    out = os.path.join(tmp, "kept.csv")
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", out, cage4)
    check(r.returncode == 0, "first run: %s" % r.stderr[-300:])
    before = open(out).read()
    for option in ("--csv", "--json"):
        target = out if option == "--csv" else os.path.join(tmp, "kept.json")
        if option == "--json":
            with open(target, "w") as f:
                f.write("{}")
        r = spbench("run", *FAST, "--kernels", "csr.serial", option, target, cage4)
        check(r.returncode == 2 and "already holds results" in r.stderr and "--force" in r.stderr,
              "%s onto a results file is refused: %s" % (option, r.stderr[-300:]))
    check(open(out).read() == before, "the refused run left the CSV as it was")
    r = spbench("run", *FAST, "--kernels", "csr.serial,hll.serial.row", "--force", "--csv", out,
                cage4)
    check(r.returncode == 0 and len(read_rows(out)) == 2, "--force overwrites: %s" % r.stderr)
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", os.path.join(tmp, "new.csv"),
                cage4)
    check(r.returncode == 0, "a new file needs no --force")


def png_ok(path):
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 1000


def svg_ok(path):
    text = open(path, errors="replace").read()
    return "<svg" in text and "</svg>" in text


def test_plot(tmp):
    if shutil.which("gnuplot") is None:
        skip("gnuplot not installed: the chart tests", "gnuplot")
        return
    out_csv = os.path.join(tmp, "p.csv")
    spbench("run", *FAST, *KERNELS, "--csv", out_csv, os.path.join(BUNDLED, "cage4.mtx.gz"),
            os.path.join(BUNDLED, "mhda416.mtx.gz"))
    charts = os.path.join(tmp, "charts")
    r = r_first = spbench("plot", out_csv, charts)
    check(r.returncode == 0, "spbench plot: %s" % r.stderr)
    # on a busy machine (or under a sanitizer) one-thread times can be so slow that every
    # 2-thread speedup passes 2: left out as impossible, which can leave no scaling to draw
    scaling_out = not os.path.exists(os.path.join(charts, "scaling.svg"))
    check(not scaling_out or "plot: scaling:" in r.stderr and "left out" in r.stderr,
          "the scaling chart is drawn, or every row was left out and plot said why: %s"
          % r.stderr[-300:])
    drawn = ("gflops", "roofline", "csr_vs_hll") + (("scaling",) if not scaling_out else ()) + (
        ("cpu_vs_gpu",) if gpu_rows(out_csv) else ())
    for name in drawn:
        check(os.path.exists(os.path.join(charts, name + ".png"))
              and png_ok(os.path.join(charts, name + ".png")), "%s.png is a PNG" % name)
        check(os.path.exists(os.path.join(charts, name + ".svg"))
              and svg_ok(os.path.join(charts, name + ".svg")), "%s.svg is an SVG" % name)
    if all(row["in_cache"] == "1" for row in read_rows(out_csv) if row["status"] == "ok"):
        check("fits in the last-level cache" in open(os.path.join(charts, "roofline.svg")).read(),
              "the roofline chart says that every row was served by the cache")
    colours, apart, palest = palette_min_distance()
    check(colours >= 18 and apart >= 28, "18 series colours before any repeats, every two "
          "apart (delta E %.1f over %d colours)" % (apart, colours))
    check(palest <= 75, "no pale colour (L* above 75 reads as a pair with another on white): "
          "the palest is L* %.1f" % palest)
    scaling = "" if scaling_out else open(os.path.join(charts, "scaling.svg")).read()
    rows = read_rows(out_csv)
    for kernel in {row["kernel"] for row in rows if row["backend"] == "openmp" and
                   row["status"] == "ok" and scaling}:
        matrices = len({row["matrix"] for row in rows if row["kernel"] == kernel and
                        row["status"] == "ok" and row["threads"] == "1"})
        check(re.search(r"%s\*? \(%d\)" % (re.escape(kernel), matrices), scaling),
              "the scaling chart says how many matrices %s averages (%d)" % (kernel, matrices))
    # thread scaling is each kernel against itself: no csr.serial needed
    omp_csv = os.path.join(tmp, "omp.csv")
    spbench("run", *FAST, "--kernels", "csr.omp.static,csr.omp.nnz", "--threads", "1,2",
            "--csv", omp_csv, os.path.join(BUNDLED, "cage4.mtx.gz"))
    r = spbench("plot", omp_csv, os.path.join(tmp, "omp-charts"))
    omp_svg = os.path.join(tmp, "omp-charts", "scaling.svg")
    omp_scaling = open(omp_svg).read() if os.path.exists(omp_svg) else ""
    check(r.returncode == 0 and ("csr.omp.nnz" in omp_scaling and "over one thread" in omp_scaling
                                 or not omp_scaling and "left out" in r.stderr),
          "an OpenMP-only study gets its scaling chart, against one thread (or every row was "
          "left out as impossible, said): %s" % r.stderr[-300:])
    if gpu_rows(out_csv) == 0:
        check(not os.path.exists(os.path.join(charts, "cpu_vs_gpu.svg")) and
              "not drawn: cpu_vs_gpu (No GPU results" in r_first.stdout,
              "without GPU rows the CPU/GPU chart is left out, and the list says why: %s"
              % r_first.stdout)
    empty = os.path.join(tmp, "empty.csv")
    open(empty, "w").close()
    r = spbench("plot", empty, charts)
    check(r.returncode == 2 and "empty" in r.stderr, "an empty CSV is refused: %s" % r.stderr)
    header_only = os.path.join(tmp, "header.csv")
    with open(header_only, "w") as f:
        f.write(open(out_csv).readline())
    r = spbench("plot", header_only, charts)
    check(r.returncode == 2 and "no result rows" in r.stderr, "a CSV without rows is refused")
    bad = os.path.join(tmp, "bad.csv")
    with open(bad, "w") as f:
        f.write("name,value\nx,1\n")
    r = spbench("plot", bad, charts)
    check(r.returncode == 2 and "not a spbench results CSV" in r.stderr,
          "a foreign CSV is refused: %s" % r.stderr)
    r = spbench("plot", os.path.join(tmp, "nope.csv"), charts)
    check(r.returncode == 2 and "nope.csv" in r.stderr, "a missing CSV is named")


def test_kernel_styles_stable():
    """A kernel's colour and fill (bars) or dash (lines) depends on the
    kernels of its operation alone: the same in a file whose rows come in
    another order, and in one that also holds the other operation's rows
    (the report's charts of a study's JSON and `spbench plot`'s PNGs of its
    CSV then agree)."""
    from spbench.plots import drawing

    spmv = [("csr.serial", "serial"), ("csr.omp.static", "openmp"), ("hll.omp.row", "openmp"),
            ("cusparse.csr", "cuda"), ("auto.cuda", "cuda"), ("csr.cuda.vector", "cuda")]
    spgemm = [("spgemm.gustavson", "serial"), ("spgemm.omp", "openmp"),
              ("spgemm.cuda.esc", "cuda")]
    rows = [{"kernel": k, "backend": b, "operation": "spmv"} for k, b in spmv]
    other = [{"kernel": k, "backend": b, "operation": "spgemm"} for k, b in spgemm]

    def styles(file_rows):
        drawing.number_kernels(file_rows)
        return {k: (drawing.bar_style(k, 0), drawing.line_style(k, 0)) for k, _ in spmv}

    alone = styles(rows)
    check(len({style for style in alone.values()}) == len(spmv),
          "every kernel of a chart has a style of its own: %s" % alone)
    check(styles(list(reversed(rows))) == alone,
          "the same kernels in another order: the same styles")
    check(styles(other + rows) == alone and styles(rows[:2] + other + rows[2:]) == alone,
          "SpGEMM rows beside them change no SpMV kernel's style")


def palette_min_distance():
    """How many colours the charts' palette has before it repeats, the
    least CIE76 distance between two of them, and the palest one's L*."""
    from spbench.plots import drawing

    def lab(colour):
        rgb = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [((c + 0.055) / 1.055) ** 2.4 if c > 0.04045 else c / 12.92 for c in rgb]
        xyz = (sum(w * c for w, c in zip(row, lin)) / n for row, n in (
            ((0.4124, 0.3576, 0.1805), 0.95047), ((0.2126, 0.7152, 0.0722), 1.0),
            ((0.0193, 0.1192, 0.9505), 1.08883)))
        fx, fy, fz = (v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116 for v in xyz)
        return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)

    colours = [lab(c) for c in drawing.PALETTE]
    return (len(colours),
            min(math.dist(a, b) for i, a in enumerate(colours) for b in colours[i + 1:]),
            max(c[0] for c in colours))


def gpu_rows(path):
    return sum(1 for row in read_rows(path) if row["backend"] == "cuda" and row["status"] == "ok")


def test_plot_collection_sized(tmp):
    """A study of 600 matrices (a small study's rows copied under new names,
    sizes and times scattered): the charts of one bar group per matrix are
    left out saying why, plot still exits 0, and the performance profile
    and GFLOPS-by-size charts are drawn; the profile's curves are each
    kernel's share of cases within tau, recomputed here from the CSV."""
    if shutil.which("gnuplot") is None:
        skip("gnuplot not installed: the chart tests", "gnuplot")
        return
    small = os.path.join(tmp, "small.csv")
    spbench("run", *FAST, *KERNELS, "--threads", "1", "--csv", small,
            os.path.join(BUNDLED, "cage4.mtx.gz"))
    rows = read_rows(small)
    rng = __import__("random").Random(600)
    big = os.path.join(tmp, "big.csv")
    with open(big, "w", newline="") as f:
        out = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        out.writeheader()
        for i in range(600):
            nnz = int(10 ** rng.uniform(2, 7))
            for r in rows:
                r = dict(r, matrix="m%03d" % i, nnz=str(nnz))
                if r["status"] == "ok":
                    f_ = rng.uniform(0.5, 2.0)
                    r["time_ms_median"] = "%.6g" % (float(r["time_ms_median"]) * f_)
                    r["gflops"] = "%.6g" % (float(r["gflops"]) / f_)
                out.writerow(r)
    charts = os.path.join(tmp, "big-charts")
    r = spbench("plot", big, charts + "/")  # a trailing slash: the paths printed have one /
    check("//" not in r.stdout, "no doubled slash in the paths printed: %s" % r.stdout[-300:])
    check(r.returncode == 0 and re.search(r"not drawn: gflops \(it would be \d+ pixels wide",
                                          r.stdout),
          "the per-matrix bars are left out with the reason, plot exits 0: %d %s %s"
          % (r.returncode, r.stdout[-600:], r.stderr[-300:]))
    for name in ("profile", "gflops_by_size"):
        check(os.path.exists(os.path.join(charts, name + ".svg")) and
              svg_ok(os.path.join(charts, name + ".svg")), "%s drawn for 600 matrices" % name)
    # the curves, recomputed: per kernel the sorted ratios to each case's fastest
    from spbench.plots import plot as plot_module
    times = {}
    for row in read_rows(big):
        if row["status"] == "ok":
            times.setdefault(row["matrix"], {})[row["kernel"]] = float(row["time_ms_median"])
    ok = plot_module.load_rows(big)
    plot_module.number_kernels(ok)
    chart = plot_module.chart_profile(ok, tmp)
    kernels = plot_module.by_backend(plot_module.ordered(x["kernel"] for x in ok))
    for kernel, data in zip(kernels, chart.data):
        ratios = sorted(t[kernel] / min(t.values()) for t in times.values() if kernel in t)
        steps = [tuple(map(float, line.split("\t"))) for line in open(data)]
        want = [(1.0, 0.0)] + [(x, (j + 1) / len(times)) for j, x in enumerate(ratios)]
        check(len(steps) == len(want) + 1 and
              all(math.isclose(a, c, rel_tol=1e-5) and math.isclose(b, d, rel_tol=1e-5)
                  for (a, b), (c, d) in zip(steps, want)),
              "%s's profile is its share of the 600 cases within tau" % kernel)


def test_csr_vs_hll_like_with_like(tmp):
    """A pattern row (no values read) says so in its format, on every row of
    the table, so that csr_vs_hll compares the best value row of each
    format: with hll.omp.col.pattern once labelled "hll.col", the HLL bar
    took the pattern row and the CSR bar never did."""
    listed = spbench("--list").stdout.splitlines()
    for line in listed:
        name, _, fmt = line.split()[:3]
        check(name.endswith(".pattern") == fmt.endswith(".pattern"),
              "%s: its format (%s) says whether it reads values" % (name, fmt))
    small = os.path.join(tmp, "road.csv")
    spbench("run", *FAST, "--kernels", "csr.omp.nnz,csr.omp.pattern,hll.omp.col,"
            "hll.omp.col.pattern", "--threads", "1", "--csv", small, "gen:road:30:80")
    rows = read_rows(small)
    check(sorted(r["status"] for r in rows) == ["ok"] * 4, "the four rows ran")
    from spbench.plots import plot as plot_module
    gflops = {r["kernel"]: float(r["gflops"]) for r in rows}
    # the pattern rows made the fastest by far; then also as files written before named them
    for old_names in (False, True):
        crafted = os.path.join(tmp, "crafted%d.csv" % old_names)
        with open(crafted, "w", newline="") as f:
            out = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            out.writeheader()
            for r in rows:
                if r["kernel"].endswith(".pattern"):
                    r = dict(r, gflops="1000000")
                    if old_names:
                        r["format"] = r["format"].replace(".pattern", "")
                out.writerow(r)
        chart = plot_module.chart_csr_vs_hll(plot_module.load_rows(crafted), tmp)
        bars = [line.rstrip("\n").split("\t") for line in open(chart.data[0])]
        check(len(bars) == 1 and
              math.isclose(float(bars[0][1]), gflops["csr.omp.nnz"], rel_tol=1e-4) and
              math.isclose(float(bars[0][3]), gflops["hll.omp.col"], rel_tol=1e-4),
              "CSR and HLL column-major bars are the value rows' (%s; old names %s): %s"
              % (gflops, old_names, bars))


def test_results_schema(tmp):
    """A run's and a merge's JSON meet docs/results.schema.json (spbench()
    checks every one the tests write); a row missing a column, a status
    that is none of the four, a field no column names, a merged file
    without its shards: each is caught."""
    from spbtest import results_validator, schema_error
    validator = results_validator()
    if validator is None:
        return
    out = os.path.join(tmp, "schema.json")
    r = spbench("run", *FAST, "--kernels", "csr.serial,csr.omp.pattern", "--bandwidth", "10",
                "--quiet", "--json", out, "gen:lap2d:20")
    statuses = sorted(row["status"] for row in json.load(open(out))["rows"])
    check(r.returncode == 0 and statuses == ["ok", "skipped"] and
          schema_error(validator, json.load(open(out))) is None,
          "a run's JSON, a timed row and a skipped one (no samples), meets the schema: %s %s"
          % (statuses, r.stderr))
    good = json.load(open(out))
    for what, spoil in (("a row without gflops", lambda d: d["rows"][0].pop("gflops")),
                        ("a status of 'fine'", lambda d: d["rows"][0].update(status="fine")),
                        ("a field no column names", lambda d: d["rows"][0].update(speed=1)),
                        ("samples that are text", lambda d: d["rows"][0].update(
                            samples_ms="1 2")),
                        ("no format_version", lambda d: d.pop("format_version")),
                        ("a merged file without its shards",
                         lambda d: d.update(merged=True) or d.pop("machine"))):
        bad = json.loads(json.dumps(good))
        spoil(bad)
        check(schema_error(validator, bad) is not None, "the schema catches %s" % what)


def main():
    run_tests([test_kill_and_resume, test_json_and_progress, test_overwrite_refused, test_plot,
               test_csr_vs_hll_like_with_like,
               test_plot_collection_sized, test_kernel_styles_stable,
               test_results_schema],
              "spb_e2e_batch_", globals())


main()
