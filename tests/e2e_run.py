"""End-to-end tests of the spbench command: `run` over real matrices and a
directory holding a broken file (CSV header, one row per kernel, statuses,
errors under tolerance; never timings), `spmv` against an independent
pure-Python reader and product, `gen`, `info`, `--list` and usage errors.

usage: e2e_run.py SPBENCH SOURCE_DIR
"""
import csv
import fcntl
import fnmatch
import importlib.util
import json
import math
import os
import pty
import random
import re
import select
import shutil
import struct
import subprocess
import sys
import termios

from spbtest import SOURCE, SPBENCH, check, read_mtx, read_rows, skip, spbench, run_tests
SHARED = os.path.normpath(os.path.join(SOURCE, "..", "shared", "matrices"))
BUNDLED = os.path.join(SOURCE, "matrices")
MATRICES = SHARED if os.path.isdir(SHARED) else BUNDLED

REQUIRED_COLUMNS = (
    "matrix,kernel,format,backend,threads,rows,cols,nnz,stored_entries,time_ms_median,"
    "time_ms_min,time_ms_max,reps,gflops,gbytes_per_s,roofline_frac,speedup,efficiency,"
    "abs_l2_err,rel_l2_err,status,message").split(",")
FAST = ["--reps", "2", "--min-time", "0", "--warmup", "1"]




def declines(kernel, message):
    """Whether a kernel turned a matrix down by design: a pattern kernel a
    matrix whose values differ, a column-blocked one an x that fits in cache."""
    return ((kernel.endswith(".pattern") and "not a pattern matrix" in message)
            or (kernel.endswith(".colblock") and "nothing to block" in message))


def kernel_lines():
    """--list rows of SpMV kernels: name, operation, format, backend, description
    (# lines are notes)."""
    out = spbench("--list").stdout
    return [line.split() for line in out.splitlines()
            if line.strip() and line[0] != "#" and line.split()[1] == "spmv"]


def kernel_names():
    """The kernels a run without --kernels measures: all but the distributed ones."""
    return [fields[0] for fields in kernel_lines() if fields[3] != "mpi"]


def runnable_kernels():
    return [fields[0] for fields in kernel_lines() if "[unavailable:" not in fields]


def openmp_kernels():
    return [fields[0] for fields in kernel_lines() if fields[3] == "openmp"]


def test_thread_lists():
    for good in ("1,2,4", "1-3", "max", "2,1-2,max"):
        r = spbench("run", *FAST, "--threads", good, "--kernels", "csr.omp.static", "gen:lap2d:8")
        check(r.returncode == 0, "--threads %s accepted: %s" % (good, r.stderr))
    r = spbench("run", *FAST, "--threads", "1-3", "--kernels", "csr.omp.static", "gen:lap2d:8")
    threads = [line.split()[2] for line in r.stdout.splitlines()
               if line.split()[:2] == ["gen:lap2d:8", "csr.omp.static"]]
    check(threads == ["1", "2", "3"], "1-3 gives rows at 1, 2, 3 threads: %s" % threads)
    check("best kernel per matrix" in r.stdout, "the summary table is printed")
    check("# OpenMP: " in r.stdout and "binding close" in r.stdout,
          "thread placement is reported as the runtime has it (close: spbench set it and "
          "started again for the runtime to see it)")
    procs = os.cpu_count() or 1
    r = spbench("run", *FAST, "--threads", "1-%d" % (procs + 1), "--kernels", "csr.omp.static",
                "gen:lap2d:8")
    check(r.returncode == 0 and "warning: --threads asks for up to %d threads" % (procs + 1)
          in r.stderr, "more threads than processors are warned about: %s" % r.stderr[-300:])
    r = spbench("run", *FAST, "--threads", "1", "--kernels", "csr.omp.static", "gen:lap2d:8")
    check("warning" not in r.stderr, "no warning within the processors")
    for bad in ("0", "3-1", "x", "1,,2", ""):
        r = spbench("run", "--threads", bad, "gen:lap2d:8")
        check(r.returncode == 2, "--threads '%s' refused" % bad)


# ---- an independent Matrix Market reader and product -----------------------------



def product(m, entries, x):
    """y = A*x, each row (each part of a complex one) summed exactly."""
    rows = [[] for _ in range(m)]
    for (i, j), v in entries.items():
        rows[i].append(v * x[j])
    if any(isinstance(v, complex) for v in entries.values()):
        return [complex(math.fsum(p.real for p in r), math.fsum(p.imag for p in r)) for r in rows]
    return [math.fsum(r) for r in rows]


def write_vector(path, x):
    field = "complex" if x and isinstance(x[0], complex) else "real"
    with open(path, "w") as f:
        f.write("%%%%MatrixMarket matrix array %s general\n%d 1\n" % (field, len(x)))
        for v in x:
            f.write("%r %r\n" % (v.real, v.imag) if field == "complex" else repr(v) + "\n")


def read_vector(path):
    with open(path) as f:
        banner = f.readline()
        lines = [ln.split() for ln in f if ln.strip() and not ln.startswith("%")]
    if "complex" in banner:
        return [complex(float(t[0]), float(t[1])) for t in lines[1:]]
    return [float(t[0]) for t in lines[1:]]


def rel_l2(y, ref):
    num = math.sqrt(math.fsum(abs(a - b) ** 2 for a, b in zip(y, ref)))
    den = math.sqrt(math.fsum(abs(b) ** 2 for b in ref))
    return num / den if den else num


# ---- the tests ----------------------------------------------------------------------

def test_list():
    names = kernel_names()
    for expected in ("csr.serial", "hll.serial.row", "hll.serial.col"):
        check(expected in names, "--list names %s" % expected)
    check(len(names) == len(set(names)), "kernel names are unique")


def test_kernel_reference():
    """docs/kernels.md's table is the kernel table: every row this build
    lists reads the same there, and a row there that this build does not
    list is one of a part not built here (CUDA, MPI)."""
    spec = importlib.util.spec_from_file_location(
        "kernel_reference", os.path.join(SOURCE, "scripts", "dev", "kernel_reference.py"))
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    listed = ref.listed(SPBENCH)
    written = ref.written(open(os.path.join(SOURCE, "docs", "kernels.md")).read())
    stale = [row[0] for row in listed if row not in written]
    check(written and not stale, "docs/kernels.md lists every kernel as --list does (run "
          "scripts/dev/kernel_reference.py): differs for %s" % stale[:5])
    version = spbench("--version").stdout
    built = {"cuda": "CUDA compiled in" in version, "mpi": "MPI compiled in" in version}
    names = {row[0] for row in listed}
    extra = [row[0] for row in written if row[0] not in names and built.get(row[3], True)]
    check(not extra, "docs/kernels.md names kernels the table does not have: %s" % extra[:5])


def test_run_batch(tmp):
    picks = ["cage4", "plskz362", "jagmesh7", "lp_e226", "Journals", "adder_dcop_32"]
    batch = os.path.join(tmp, "batch")
    os.mkdir(batch)
    for name in picks:
        shutil.copy(os.path.join(MATRICES, name + ".mtx.gz"), batch)
    with open(os.path.join(batch, "m_broken.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n4 1 2.0\n")
    out_csv = os.path.join(tmp, "batch.csv")
    r = spbench("run", *FAST, "--threads", "1,3", "--csv", out_csv, batch)
    check(r.returncode == 1, "a batch with a broken file exits 1 (got %d: %s)"
          % (r.returncode, r.stderr))
    with open(out_csv, newline="") as f:
        reader = csv.DictReader(f)
        header = reader.fieldnames
        rows = list(reader)
    check(header[:len(REQUIRED_COLUMNS)] == REQUIRED_COLUMNS, "CSV header starts as specified")
    kernels = runnable_kernels()
    all_kernels = [k for k in kernel_names() if k in kernels]  # the others are left out
    left_out = [k for k in kernel_names() if k not in kernels]
    check(("# left out: " in r.stdout) == bool(left_out) and
          all(k not in {row["kernel"] for row in read_rows(out_csv)} for k in left_out),
          "without --kernels the kernels this machine cannot run are left out, and the header "
          "says so: %s" % [ln for ln in r.stdout.splitlines() if "left out" in ln])
    openmp = openmp_kernels()
    for name in picks:
        mine = [row for row in rows if row["matrix"] == name]
        expected = sorted((k, t) for k in all_kernels
                          for t in (("1", "3") if k in openmp else ("1",)))
        check(sorted((row["kernel"], row["threads"]) for row in mine) == expected,
              "%s: one row per serial kernel, one per OpenMP kernel and thread count" % name)
        for row in mine:
            if row["kernel"] not in kernels:
                check(row["status"] == "skipped" and row["message"],
                      "%s/%s: unavailable kernel reports skipped with a reason"
                      % (name, row["kernel"]))
                continue
            if row["status"] == "skipped" and declines(row["kernel"], row["message"]):
                continue
            check(row["status"] == "ok", "%s/%s: status %s (%s)"
                  % (name, row["kernel"], row["status"], row["message"]))
            if row["status"] == "ok":
                check(float(row["rel_l2_err"]) <= 1e-12, "%s/%s: rel error %s"
                      % (name, row["kernel"], row["rel_l2_err"]))
                check(int(row["reps"]) >= 2, "%s/%s: reps" % (name, row["kernel"]))
                check(float(row["gflops"]) > 0, "%s/%s: gflops filled" % (name, row["kernel"]))
                check(row["speedup"] != "" and row["efficiency"] != "", "speedup filled")
                if row["speedup"]:
                    check(abs(float(row["efficiency"]) * int(row["threads"])
                              - float(row["speedup"])) <= 1e-3 * float(row["speedup"]) + 1e-4,
                          "efficiency = speedup / threads")
    broken = [row for row in rows if row["matrix"] == "m_broken"]
    check(len(broken) == 1 and broken[0]["status"] == "error",
          "the broken file gives one error row")
    if broken:
        check("m_broken.mtx:4" in broken[0]["message"] and "row index 4" in broken[0]["message"],
              "the error names file, line and cause: %s" % broken[0]["message"])
    # sizes match the independent reader (symmetric expansion included)
    for name in ("plskz362", "jagmesh7", "lp_e226"):
        m, n, entries = read_mtx(os.path.join(MATRICES, name + ".mtx.gz"))
        row = next(row for row in rows if row["matrix"] == name)
        check((int(row["rows"]), int(row["cols"]), int(row["nnz"])) == (m, n, len(entries)),
              "%s: rows/cols/nnz agree with the independent reader" % name)

    good = spbench("run", *FAST, "--kernels", "csr.*",
                   os.path.join(MATRICES, "cage4.mtx.gz"), "gen:lap2d:20")
    check(good.returncode == 0, "a clean run exits 0: %s" % good.stderr)
    check("gen:lap2d:20" in good.stdout, "generator specs run")


def test_spmv_independent(tmp):
    names = ["cage4", "plskz362", "jagmesh7", "lp_e226", "Journals", "west0479"]
    rng = random.Random(12345)
    for name in names:
        path = name if os.path.isabs(name) else os.path.join(MATRICES, name + ".mtx.gz")
        m, n, entries = read_mtx(path)
        if name == "Journals":  # a pattern copy too: the pattern kernels take it
            pattern = os.path.join(tmp, "pattern.mtx")
            with open(pattern, "w") as f:
                f.write("%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n" %
                        (m, n, len(entries)))
                f.writelines("%d %d\n" % (i + 1, j + 1) for (i, j) in sorted(entries))
            names.append(pattern)
        x = [rng.choice((-1, 1)) * rng.uniform(0.1, 1.0) for _ in range(n)]
        name = os.path.basename(name)
        x_path = os.path.join(tmp, name + ".x.mtx")
        write_vector(x_path, x)
        ref = product(m, entries, x)
        iso = len({v for v in entries.values()}) <= 1
        for kernel in runnable_kernels():
            y_path = os.path.join(tmp, "%s.%s.y.mtx" % (name, kernel))
            r = spbench("spmv", path, "--kernel", kernel, "--x", x_path, "-o", y_path)
            if (kernel.endswith(".pattern") and not iso) or kernel.endswith(".colblock"):
                check(r.returncode != 0 and declines(kernel, r.stderr),
                      "spmv %s %s declines this matrix: %s" % (name, kernel, r.stderr.strip()))
                continue
            check(r.returncode == 0, "spmv %s %s: %s" % (name, kernel, r.stderr))
            if r.returncode == 0:
                y = read_vector(y_path)
                check(len(y) == m, "%s: y has %d entries" % (name, m))
                err = rel_l2(y, ref)
                check(err <= 1e-12, "%s/%s: rel L2 %.3e against the independent product"
                      % (name, kernel, err))


def complex_files(tmp):
    """Complex matrices of every symmetry, coordinate and array, some with
    duplicates (summed) and explicit zeros, and the shared set's complex ones."""
    rng = random.Random(2026)
    n = 60
    pick = [(rng.randrange(n), rng.randrange(n)) for _ in range(500)]

    def value():
        return complex(rng.uniform(-1, 1), rng.uniform(-1, 1))

    files = []
    for symmetry in ("general", "symmetric", "hermitian", "skew-symmetric"):
        lines = []
        for i, j in pick:
            if symmetry != "general" and i < j:
                i, j = j, i
            if symmetry == "skew-symmetric" and i == j:
                continue
            v = value()
            if symmetry == "hermitian" and i == j:
                v = complex(v.real, 0.0)
            lines.append("%d %d %r %r\n" % (i + 1, j + 1, v.real, v.imag))
        lines.append(lines[0])  # a duplicate, summed
        path = os.path.join(tmp, "c_%s.mtx" % symmetry)
        with open(path, "w") as f:
            f.write("%%%%MatrixMarket matrix coordinate complex %s\n%d %d %d\n" %
                    (symmetry, n, n, len(lines)))
            f.writelines(lines)
        files.append(path)
    path = os.path.join(tmp, "c_array_hermitian.mtx")
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix array complex hermitian\n20 20\n")
        for j in range(20):
            for i in range(j, 20):
                v = value() if rng.random() < 0.4 else 0j
                f.write("%r %r\n" % (v.real, 0.0 if i == j else v.imag))
    files.append(path)
    for name in ("qc324", "young1c"):
        if os.path.exists(os.path.join(SHARED, name + ".mtx.gz")):
            files.append(os.path.join(SHARED, name + ".mtx.gz"))
    return files


def test_spmv_independent_complex(tmp):
    """Complex matrices: y = A*x of every kernel that takes them against
    Python's complex arithmetic (the file read by the test's own reader:
    hermitian mirrors conjugated, skew ones negated); every other kernel
    declines the matrix, saying it is complex, never casting it; a real x
    for a complex matrix is refused."""
    rng = random.Random(77)
    complex_kernels = {f[0] for f in kernel_lines() if "[complex too]" in " ".join(f)}
    check({"csr.serial", "csr.omp.nnz", "csr.omp.guided", "csr.omp.static",
           "csr.omp.dynamic"} <= complex_kernels and "hll.serial.row" not in complex_kernels,
          "--list marks the rows that take complex matrices: %s" % sorted(complex_kernels))
    for path in complex_files(tmp):
        m, n, entries = read_mtx(path)
        x = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(n)]
        name = os.path.basename(path)
        x_path = os.path.join(tmp, name + ".x.mtx")
        write_vector(x_path, x)
        ref = product(m, entries, x)
        for kernel in runnable_kernels():
            y_path = os.path.join(tmp, "%s.%s.y.mtx" % (name, kernel))
            r = spbench("spmv", path, "--kernel", kernel, "--x", x_path, "--threads", "2",
                        "-o", y_path)
            if kernel not in complex_kernels:
                check(r.returncode != 0 and "complex" in r.stderr and not os.path.exists(y_path),
                      "spmv %s %s declines a complex matrix: %s" % (name, kernel, r.stderr))
                continue
            check(r.returncode == 0, "spmv %s %s: %s" % (name, kernel, r.stderr))
            if r.returncode == 0:
                y = read_vector(y_path)
                check(len(y) == m and all(isinstance(v, complex) for v in y),
                      "%s/%s: y is %d complex entries" % (name, kernel, len(y)))
                err = rel_l2(y, ref)
                check(err <= 1e-12, "%s/%s: rel L2 %.3e against Python's complex product"
                      % (name, kernel, err))
    real_x = os.path.join(tmp, "real.x.mtx")
    write_vector(real_x, [1.0] * 60)
    r = spbench("spmv", os.path.join(tmp, "c_general.mtx"), "--kernel", "csr.serial", "--x",
                real_x, "-o", os.path.join(tmp, "refused.mtx"))
    check(r.returncode == 2 and "x is real, the matrix complex" in r.stderr,
          "a real x for a complex matrix is refused: %s" % r.stderr)


def test_product_precision(tmp):
    """spbench spmv --precision fp32 (complex64 for a complex matrix): y in
    single precision, within its rounding of Python's product and not the
    double-precision answer; a precision it does not know is refused."""
    rng = random.Random(78)
    for path in [p for p in complex_files(tmp) if p.endswith("c_general.mtx")] + [
            os.path.join(BUNDLED, "cage4.mtx.gz")]:
        m, n, entries = read_mtx(path)
        x = [complex(rng.uniform(-1, 1), rng.uniform(-1, 1)) if "c_" in path
             else rng.uniform(-1, 1) for _ in range(n)]
        x_path = os.path.join(tmp, "p.x.mtx")
        write_vector(x_path, x)
        ref = product(m, entries, x)
        ys = {}
        for precision in ("fp64", "fp32"):
            y_path = os.path.join(tmp, "p.%s.y.mtx" % precision)
            r = spbench("spmv", path, "--kernel", "csr.omp.static", "--x", x_path, "--threads",
                        "2", "--precision", precision, "-o", y_path, "--force")
            check(r.returncode == 0, "spmv --precision %s: %s" % (precision, r.stderr))
            if r.returncode == 0:
                ys[precision] = read_vector(y_path)
                with open(y_path) as f:
                    f.readline()
                    comment = f.readline()
                field = ("complex128" if precision == "fp64" else "complex64") if "c_" in path \
                    else precision
                check(" in %s," % field in comment, "y's file says %s: %s" % (field, comment))
        if len(ys) == 2:
            err64, err32 = rel_l2(ys["fp64"], ref), rel_l2(ys["fp32"], ref)
            check(err64 <= 1e-12 and 1e-9 < err32 <= 1e-5,
                  "%s: fp64 rel L2 %.2e, fp32 %.2e (single precision's rounding)"
                  % (os.path.basename(path), err64, err32))
    r = spbench("spmv", os.path.join(BUNDLED, "cage4.mtx.gz"), "--kernel", "csr.serial",
                "--precision", "fp16", "-o", os.path.join(tmp, "no.mtx"))
    check(r.returncode == 2 and "--precision" in r.stderr and not os.path.exists(
        os.path.join(tmp, "no.mtx")), "an unknown precision refused: %s" % r.stderr)


def test_markdown_table(tmp):
    """run --md FILE: the run's rows as one Markdown table, a row per row of
    the CSV, a name from an input escaped for Markdown and HTML, the totals
    below; put in place only whole (a failed run leaves the file it had);
    refused as the CSV, an input, or with --processes."""
    folder = os.path.join(tmp, "md")
    os.mkdir(folder)
    hostile = os.path.join(folder, "a|b<i>_c.mtx.gz")
    shutil.copy(os.path.join(BUNDLED, "cage4.mtx.gz"), hostile)
    md, out = os.path.join(tmp, "study.md"), os.path.join(tmp, "study.csv")
    r = spbench("run", *FAST, "--energy-s", "0", "--bandwidth", "none", "--threads", "1",
                "--kernels", "csr.serial,hll.serial.row,csr.omp.pattern", "--csv", out,
                "--md", md, hostile, "gen:lap2d:10")
    rows = read_rows(out)
    text = open(md).read() if os.path.exists(md) else ""
    lines = [ln for ln in text.splitlines() if ln.startswith("| ") and not ln.startswith("| matrix")]
    check(r.returncode == 0 and len(rows) == 6 and len(lines) == 6,
          "a table row per CSV row: %d and %d\n%s" % (len(rows), len(lines), text))
    check(any(ln.startswith("| a\\|b&lt;i&gt;\\_c | ") for ln in lines)
          and "<i>" not in text and "a|b" not in text,
          "the matrix's name escaped for Markdown and HTML: %s" % lines[:1])
    check(all(ln.count(" | ") == 10 for ln in lines), "every row has eleven cells: %s" % lines)
    check("\n6 rows: 4 ok, 0 wrong, 2 skipped, 0 error" in text and "hack\\_size=32" in text,
          "the totals below, the settings above: %s" % text[-200:])
    with open(md, "w") as f:
        f.write("kept\n")
    r = spbench("run", *FAST, "--energy-s", "0", "--kernels", "csr.serial", "--md", md,
                "--force", "--json", "/dev/full", "gen:lap2d:10")
    check(r.returncode != 0 and open(md).read() == "kept\n" and
          not [f for f in os.listdir(tmp) if f.startswith("study.md.tmp")],
          "a failed run leaves the file it had, and no temporary file: %s" % r.stderr[-200:])
    for args, what in ((["--md", out, "--csv", out, "--force"], "also --csv"),
                       (["--md", hostile, "--force"], "one of the input matrices"),
                       (["--md", md, "--processes", "2", "--csv", out, "--force"], "--processes")):
        r = spbench("run", *FAST, "--kernels", "csr.serial", *args, hostile)
        check(r.returncode == 2 and what in r.stderr, "--md %s refused: %s" % (what, r.stderr))


def test_wide_offsets(tmp):
    """A matrix of more than 2^31 - 1 entries keeps 64-bit row offsets; with
    SPB_WIDE_OFFSETS=1 every matrix is stored so: the rows that take them
    ([64-bit offsets too]) run and validate, every other row is skipped
    saying why, SpGEMM's host rows that take them make C on them, and the cache
    stores the matrices (narrow: no entry grows) and gives them back on
    64-bit offsets again."""
    env = dict(os.environ, SPB_WIDE_OFFSETS="1")
    files = [os.path.join(BUNDLED, name) for name in ("cage4.mtx.gz", "west0479.mtx.gz")]
    out = os.path.join(tmp, "wide.csv")
    cache = os.path.join(tmp, "wide-cache")
    r = spbench("run", *FAST, "--precision", "both", "--threads", "1,2", "--csv", out,
                "--cache", cache, *files, "gen:random:300:7", env=env)
    check(r.returncode == 0, "a study on 64-bit offsets exits 0: %s" % r.stderr[-400:])
    rows = read_rows(out)
    wide = {f[0] for f in kernel_lines() if "[64-bit offsets too]" in " ".join(f)}
    check({"csr.serial", "csr.omp.nnz"} <= wide, "--list marks the rows that take them: %s"
          % sorted(wide))
    ok = {row["kernel"] for row in rows if row["status"] == "ok"}
    check(ok == wide & set(runnable_kernels()), "exactly those rows ok: %s" % sorted(ok))
    bad = [(row["matrix"], row["kernel"], row["message"]) for row in rows
           if row["status"] in ("wrong", "error")]
    check(not bad, "no wrong or error row: %s" % bad[:3])
    skipped = [row for row in rows if row["status"] == "skipped"]
    check(skipped and all("row offsets are 64-bit" in row["message"] for row in skipped),
          "the others skipped saying why: %s" % [row["message"] for row in skipped
                                                 if "64-bit" not in row["message"]][:3])
    check(all(float(row["rel_l2_err"]) < (1e-13 if row["precision"] == "fp64" else 1e-5)
              for row in rows if row["status"] == "ok"), "the ok rows validated")
    entries = sorted(os.listdir(cache))
    stamps = [os.stat(os.path.join(cache, e)).st_mtime_ns for e in entries]
    check(len(entries) == 2 and "not stored" not in r.stderr, "both files cached: %s %s"
          % (entries, r.stderr[-300:]))
    again = os.path.join(tmp, "wide-again.csv")
    r = spbench("run", *FAST, "--csv", again, "--cache", cache, *files, env=env)
    rows = read_rows(again)
    check(r.returncode == 0 and stamps == [os.stat(os.path.join(cache, e)).st_mtime_ns
                                           for e in entries],
          "the second run reads the entries as they are")
    check({row["kernel"] for row in rows if row["status"] == "ok"} == wide & set(runnable_kernels())
          and all("row offsets are 64-bit" in row["message"] for row in rows
                  if row["status"] == "skipped"),
          "a cached matrix comes back on 64-bit offsets")
    # SpGEMM: A, B and C on 64-bit offsets, the host rows that take them validated
    out = os.path.join(tmp, "wide-spgemm.csv")
    r = spbench("run", "--op", "spgemm", *FAST, "--precision", "both", "--threads", "1,2",
                "--csv", out, *files, env=env)
    rows = read_rows(out)
    listed = [line.split() for line in spbench("--list").stdout.splitlines()
              if line.strip() and line[0] != "#" and line.split()[1] == "spgemm"]
    takes = {f[0] for f in listed if "[64-bit offsets too]" in " ".join(f)}
    check({"spgemm.gustavson", "spgemm.omp"} <= takes, "SpGEMM rows that take them: %s" % takes)
    ok = {row["kernel"] for row in rows if row["status"] == "ok"}
    check(r.returncode == 0 and ok == takes and
          all(float(row["rel_l2_err"]) < (1e-13 if row["precision"] == "fp64" else 1e-5)
              for row in rows if row["status"] == "ok"),
          "SpGEMM on 64-bit offsets: %s ok, %s" % (sorted(ok), r.stderr[-300:]))
    check(all("row offsets are 64-bit" in row["message"] for row in rows
              if row["status"] != "ok"),
          "the other SpGEMM rows skipped saying why: %s"
          % [(row["kernel"], row["status"], row["message"]) for row in rows
             if row["status"] != "ok"][:3])
    # --dry-run counts the rows each matrix's offsets decline as the run does
    dry = os.path.join(tmp, "wide-dry.csv")
    args = [*FAST, "--kernels", "csr.serial,hll.serial.row", "--csv", dry, files[0]]
    said = re.search(r"^# rows: (\d+) \((\d+) timed, (\d+) skipped here\)",
                     spbench("run", "--dry-run", *args, env=env).stdout, re.M)
    spbench("run", *args, env=env)
    rows = read_rows(dry)
    check(said and tuple(int(g) for g in said.groups()) ==
          (len(rows), sum(x["status"] == "ok" for x in rows),
           sum(x["status"] == "skipped" for x in rows)),
          "--dry-run's rows are the run's: %s against %s" % (said and said.groups(),
                                                             [x["status"] for x in rows]))
    # one product (spbench spmv): a row that takes them answers, another declines
    for kernel, code in (("csr.serial", 0), ("hll.serial.row", 1)):
        y = os.path.join(tmp, "wide-%s.mtx" % kernel)
        r = spbench("spmv", files[0], "--kernel", kernel, "-o", y, env=env)
        check(r.returncode == code and os.path.exists(y) == (code == 0) and
              (code == 0 or "row offsets are 64-bit" in r.stderr),
              "spbench spmv --kernel %s on 64-bit offsets: %d %s" % (kernel, r.returncode,
                                                                     r.stderr[-200:]))


def test_complex_rows(tmp):
    """A study over complex matrices: the rows are complex128 and complex64
    (the field from the file, the width from --precision), validated, their
    GFLOPS counted as 8 flops a complex multiply-add; the real rows are
    skipped saying why; the console names the precision."""
    files = complex_files(tmp)[:2] + complex_files(tmp)[5:]
    out = os.path.join(tmp, "complex.csv")
    r = spbench("run", *FAST, "--precision", "both", "--threads", "1,2", "--csv", out, *files)
    check(r.returncode == 0, "a complex study exits 0: %s" % r.stderr[-400:])
    rows = read_rows(out)
    ok = [row for row in rows if row["status"] == "ok"]
    check({row["precision"] for row in ok} == {"complex128", "complex64"},
          "ok rows in complex128 and complex64: %s" % sorted({row["precision"] for row in ok}))
    complex_kernels = {f[0] for f in kernel_lines() if "[complex too]" in " ".join(f)}
    check({row["kernel"] for row in ok} == complex_kernels & set(runnable_kernels()),
          "the complex kernels' rows ok: %s" % sorted({row["kernel"] for row in ok}))
    check(not [row for row in rows if row["status"] in ("wrong", "error")],
          "no wrong or error row: %s" % [(row["matrix"], row["kernel"], row["message"])
                                         for row in rows if row["status"] in ("wrong", "error")])
    skipped = [row for row in rows if row["status"] == "skipped"]
    check(skipped and all("complex" in row["message"] for row in skipped
                          if row["kernel"] not in complex_kernels),
          "real kernels skipped, saying the matrix is complex: %s" %
          [row["message"] for row in skipped if "complex" not in row["message"]][:3])
    for row in ok:
        flops = 8.0 * int(row["nnz"]) / (float(row["time_ms_median"]) * 1e-3) / 1e9
        check(abs(float(row["gflops"]) - flops) <= 2e-3 * flops + 1e-3,
              "%s/%s: GFLOPS %s is 8 nnz / time (%.4g)" % (row["matrix"], row["kernel"],
                                                           row["gflops"], flops))
        bound = 1e-13 if row["precision"] == "complex128" else 1e-5
        check(float(row["rel_l2_err"]) < bound, "%s/%s/%s: rel_l2_err %s" %
              (row["matrix"], row["kernel"], row["precision"], row["rel_l2_err"]))
    check("csr.serial/complex64" in r.stdout and "csr.serial/complex128" in r.stdout,
          "the console names the complex precisions")
    from spbench.plots import plot as plot_module
    drawn = plot_module.load_rows(out)
    plot_module.number_kernels(drawn)
    for chart in (plot_module.chart_gflops(drawn, tmp), plot_module.chart_gflops_by_size(drawn, tmp)):
        check(any("complex: 8 nnz" in line for line in chart.lines),
              "%s's GFLOPS axis says a complex row counts 8 flops an entry" % chart.name)
    # --precision complex64 names the single width: complex64 rows on a
    # complex matrix, fp32 on a real one
    mixed = os.path.join(tmp, "mixed.csv")
    r = spbench("run", *FAST, "--precision", "complex64", "--kernels", "csr.serial", "--csv",
                mixed, files[0], os.path.join(BUNDLED, "cage4.mtx.gz"))
    got = sorted((row["matrix"], row["precision"], row["status"]) for row in read_rows(mixed))
    check(r.returncode == 0 and got == [("c_general", "complex64", "ok"),
                                        ("cage4", "fp32", "ok")],
          "--precision complex64: %s %s" % (got, r.stderr[-300:]))
    spgemm = os.path.join(tmp, "spgemm.csv")
    r = spbench("run", *FAST, "--op", "spgemm", "--kernels", "spgemm.gustavson", "--b", "thin:8",
                "--csv", spgemm, files[0])
    rows = read_rows(spgemm)
    check(r.returncode == 1 and len(rows) == 1 and rows[0]["status"] == "error" and
          "A is complex and B real: C = A*B takes two operands of one field" in rows[0]["message"],
          "a complex A with a real B is refused with the reason: %s" % [x["message"] for x in rows])


def test_gen_and_info(tmp):
    out = os.path.join(tmp, "lap.mtx.gz")
    r = spbench("gen", "gen:lap2d:30", "-o", out)
    check(r.returncode == 0 and os.path.getsize(out) > 0 and "900 x 900" in r.stdout,
          "gen writes a file and says what: %s" % r.stdout)
    r = spbench("gen", "gen:lap2d:20", "-o", out)
    check(r.returncode == 2 and "--force" in r.stderr, "gen refuses to replace a file: %s" %
          r.stderr)
    r = spbench("gen", "gen:lap2d:30", "-o", out, "--force")
    check(r.returncode == 0, "gen --force replaces it: %s" % r.stderr)
    m, n, entries = read_mtx(out)
    check((m, n, len(entries)) == (900, 900, 5 * 900 - 4 * 30), "generated lap2d:30 sizes")
    r = spbench("info", out)
    check(r.returncode == 0 and "nnz 4380" in r.stdout and "MB/s" in r.stdout,
          "info prints sizes and parse speed")
    bad = os.path.join(tmp, "bad.mtx")
    with open(bad, "w") as f:
        f.write("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n")
    r = spbench("info", bad)
    check(r.returncode == 2 and "bad.mtx:3: entry has 3 items, expected 4" in r.stderr,
          "info refuses a complex entry without its imaginary part: %s" % r.stderr)
    with open(bad, "w") as f:
        f.write("%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 1 0\n2 1 1 1\n")
    r = spbench("info", bad)
    check(r.returncode == 0 and "coordinate complex hermitian, 2 entry lines" in r.stdout
          and "nnz 3" in r.stdout, "info reads a hermitian file: %s" % r.stdout)


def test_messages(tmp):
    """Messages say what is wrong, with the true figures, once."""
    r = spbench("info", "gen:rmat:40:8")
    check(r.returncode == 2 and "1099511627776 rows" in r.stderr and "8796093022208 entries"
          in r.stderr, "gen:rmat:40:8 names 2^40 rows and 2^43 entries: %s" % r.stderr.strip())
    r = spbench("info", "gen:lap2d:0")
    check("positive" in r.stderr and "unknown" not in r.stderr,
          "gen:lap2d:0 is a known generator with a bad size: %s" % r.stderr.strip())
    r = spbench("run", "--threads", "0", "gen:lap2d:4")
    check(r.returncode == 2 and "processors" in r.stderr and "1 to 4096" in r.stderr,
          "--threads 0 says what counts are allowed: %s" % r.stderr.strip())
    big = os.path.join(tmp, "big.mtx")
    with open(big, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1e999\n")
    r = spbench("info", big)
    check("big.mtx:3" in r.stderr and "overflows" in r.stderr, "1e999 overflows: %s" % r.stderr)
    cut = os.path.join(tmp, "cut.mtx.gz")
    with open(os.path.join(BUNDLED, "cage4.mtx.gz"), "rb") as f, open(cut, "wb") as g:
        g.write(f.read()[:100])
    r = spbench("info", cut)
    check(r.returncode == 2 and r.stderr.count("cut.mtx.gz") == 1,
          "a truncated .gz names the file once: %s" % r.stderr.strip())
    out_json = os.path.join(tmp, "gpu.json")
    device_rows = [f[0] for f in kernel_lines() if f[0].startswith(("csr.cuda.", "cusparse."))]
    r = spbench("run", *FAST, "--kernels", ",".join(["csr.serial"] + device_rows), "--json",
                out_json, os.path.join(BUNDLED, "cage4.mtx.gz"))  # named: a build without CUDA has none
    doc = json.load(open(out_json))
    skipped = [row for row in doc["rows"] if row["backend"] == "cuda" and row["status"] == "skipped"]
    for row in skipped:
        check(row["message"] == "no CUDA device on this machine",
              "a GPU row without a device says so plainly: %s" % row["message"])
    if skipped:
        reason = doc["machine"]["gpu"].get("reason") or ""
        check(reason and reason != "no CUDA device on this machine",
              "the JSON keeps the runtime's own words: %s" % reason)
        folded = [line for line in r.stdout.splitlines()
                  if ("%d kernels skipped" % len(skipped)) in line and
                  line.endswith(": no CUDA device on this machine")]
        check(len(folded) == 1, "the table folds the skipped GPU rows into one line")


def test_usage_errors(tmp):
    r = spbench("run", "--kernels", "no.such.*", os.path.join(MATRICES, "cage4.mtx.gz"))
    check(r.returncode == 2 and "matches no kernel" in r.stderr, "unknown kernel pattern")
    r = spbench("run", "--csv", os.path.join(tmp, "missing-dir", "x.csv"),
                os.path.join(MATRICES, "cage4.mtx.gz"))
    check(r.returncode == 2 and "cannot write" in r.stderr and "csr.serial" not in r.stdout,
          "an unwritable CSV is refused before any work")
    r = spbench("run", "--reps", "zero", "gen:lap2d:4")
    check(r.returncode == 2, "a bad option value is a usage error")
    r = spbench("run", "gen:lap2d:0")
    check(r.returncode == 2 and "gen:lap2d:0" in r.stderr and "# CPU bandwidth" not in r.stdout,
          "a bad spec is refused before anything is measured: %s" % r.stderr.strip())
    r = spbench("frobnicate")
    check(r.returncode == 2, "unknown command")
    empty = os.path.join(tmp, "empty-folder")
    os.mkdir(empty)
    r = spbench("run", empty)
    check(r.returncode == 2 and empty in r.stderr, "an empty folder is named: %s" % r.stderr)
    r = spbench("run", "--csv", os.path.join(MATRICES, "cage4.mtx.gz"))
    check(r.returncode == 2 and "--csv took" in r.stderr,
          "a matrix taken by --csv is said so: %s" % r.stderr)
    r = spbench("run", "--csv", "--json", os.path.join(tmp, "x.json"),
                os.path.join(MATRICES, "cage4.mtx.gz"), cwd=tmp)
    check(r.returncode == 2 and "--csv needs a value, not the option --json" in r.stderr and
          not os.path.exists(os.path.join(tmp, "--json")),
          "an option where a value goes is refused, no file named after it: %s" % r.stderr)
    r = spbench("plot", "--help")
    check(all(c in r.stdout + r.stderr for c in ("strong_scaling", "weak_scaling", "comm_split")),
          "plot --help names every chart")
    r = spbench("spmv", os.path.join(MATRICES, "cage4.mtx.gz"), "--kernel", "nope", "-o",
                os.path.join(tmp, "y.mtx"))
    check(r.returncode == 2 and "no kernel named" in r.stderr, "spmv with an unknown kernel")


def test_precision(tmp):
    """--precision both: each kernel in fp64 and fp32, rows keyed apart; the
    fp32 rows (SpMV and SpGEMM) validated against the same reference; a
    matrix whose values overflow fp32 is declined by name. (A kernel without
    an fp32 version: e2e_mpi.test_usage.)"""
    out = os.path.join(tmp, "precision.csv")
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    r = spbench("run", *FAST, "--precision", "both", "--threads", "1", "--kernels",
                "csr.serial,csr.omp.nnz,hll.omp.row", "--csv", out, cage4)
    rows = {(row["kernel"], row["precision"]): row for row in read_rows(out)}
    check(r.returncode == 0 and len(rows) == 6, "--precision both: 6 rows (%s)" % sorted(rows))
    for kernel in ("csr.serial", "csr.omp.nnz", "hll.omp.row"):
        fp32 = rows.get((kernel, "fp32"), {})
        check(fp32.get("status") == "ok" and 1e-9 < float(fp32.get("rel_l2_err") or 1) < 1e-5,
              "%s in fp32: ok with an fp32-sized error (%s)" % (kernel, fp32.get("rel_l2_err")))
        check(rows.get((kernel, "fp64"), {}).get("status") == "ok", "%s in fp64 ok" % kernel)
    spgemm = os.path.join(tmp, "spgemm32.csv")
    r = spbench("run", *FAST, "--op", "spgemm", "--precision", "fp32", "--threads", "1",
                "--kernels", "spgemm.gustavson,spgemm.hash,spgemm.omp", "--csv", spgemm, cage4)
    rows = read_rows(spgemm)
    check(r.returncode == 0 and len(rows) == 3 and
          all(x["status"] == "ok" and x["precision"] == "fp32" and
              1e-9 < float(x["rel_l2_err"] or 1) < 1e-5 for x in rows),
          "SpGEMM in fp32: ok with an fp32-sized error: %s" %
          [(x["kernel"], x["status"], x["rel_l2_err"]) for x in rows])
    big = os.path.join(tmp, "big.mtx")
    with open(big, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1e300\n2 2 1\n")
    r = spbench("run", *FAST, "--precision", "fp32", "--kernels", "csr.serial", "--csv",
                os.path.join(tmp, "big.csv"), big)
    row = read_rows(os.path.join(tmp, "big.csv"))[0]
    check(row["status"] == "skipped" and "overflows fp32" in row["message"]
          and "(1, 1)" in row["message"], "an fp32 overflow is named: %s" % row["message"])
    r = spbench("run", "--precision", "fp16", "gen:lap2d:4")
    check(r.returncode == 2 and "--precision" in r.stderr, "--precision fp16 is a usage error")


def run_on_terminal(args, columns):
    """spbench's output as a terminal `columns` wide shows it (a pty)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    p = subprocess.Popen([SPBENCH, *args], stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    out = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        try:
            data = os.read(master, 65536) if ready else b""
        except OSError:  # the other side closed
            data = b""
        if not data:
            break
        out += data
    p.wait(timeout=120)
    os.close(master)
    return out.decode(errors="replace").replace("\r\n", "\n")


def test_help_and_labels(tmp):
    """Every command the overview lists answers --help with its options
    and exit 0; --version names the commit; the best-kernel table names the
    baseline it divides by; the header says plainly when there is no GPU;
    submit.sh --help exits 0."""
    overview = spbench("--help").stdout
    commands = [c for c in re.findall(r"^  spbench ([a-z-]+|--list) ", overview, re.M)
                if c != "--version"]
    check(len(commands) >= 12 and {"run", "compare", "report", "--list"} <= set(commands),
          "the overview lists the commands: %s" % commands)
    for command in commands:
        r = spbench(command, "--help")
        check(r.returncode == 0 and "usage: spbench" in r.stdout,
              "spbench %s --help: exit %d, %s" % (command, r.returncode, r.stderr.strip()))
    r = spbench("run", "--help")
    check("--min-time S" in r.stdout and "(default 0.1)" in r.stdout, "run --help lists defaults")
    # run's options are one table (bench/cli/run_options.c) that parses them and
    # writes their help: each one the help lists is taken, none is left out
    # (and the files a reporter owns whole, bench/report/file_outputs.c)
    table = open(os.path.join(SOURCE, "bench", "cli", "run_options.c")).read() + \
        open(os.path.join(SOURCE, "bench", "report", "file_outputs.c")).read()
    in_table = re.findall(r'^\s*\{"(--[a-z-]+)",', table, re.M)
    listed = re.findall(r"^  (--[a-z-]+)", r.stdout, re.M)
    check(len(in_table) > 25 and sorted(in_table) == sorted(listed),
          "run --help lists the option table: %s" % sorted(set(in_table) ^ set(listed)))
    unknown = []
    for option in listed:
        t = spbench("run", option, "--dry-run", "gen:lap2d:4")
        if "unknown option" in t.stderr:
            unknown.append(option)
    t = spbench("run", "--no-such-option", "gen:lap2d:4")
    check(not unknown and t.returncode == 2 and "unknown option" in t.stderr,
          "every listed option is taken, an unlisted one refused: %s" % unknown)
    # the table's keyed options write each row's measured_under, in the order
    # of the files written before it (rows measured under other values never mix)
    keyed = os.path.join(tmp, "keyed.csv")
    spbench("run", "--quiet", "--tol", "20", "--warmup", "3", "--reps", "2", "--min-time", "0",
            "--kernels", "csr.serial", "--csv", keyed, "gen:lap2d:8")
    under = [row["measured_under"] for row in csv.DictReader(open(keyed))]
    check(len(under) == 1 and under[0].startswith("tol=20 warmup=3 reps=2 min_time=0 build="),
          "measured_under keeps its keys and their order: %s" % under)
    r = spbench("--version")
    check(r.returncode == 0 and "commit " in r.stdout, "--version: %s" % r.stdout.strip())
    cage4 = os.path.join(SOURCE, "matrices", "cage4.mtx.gz")
    r = spbench("run", "--op", "spgemm", "--quiet", "--reps", "1", "--min-time", "0",
                "--kernels", "spgemm.gustavson", cage4)
    check("(speedup over spgemm.gustavson)" in r.stdout,
          "the SpGEMM table names its baseline: %s" % r.stdout[-300:])
    r = spbench("run", "--quiet", "--reps", "1", "--min-time", "0", "--kernels", "csr.serial",
                cage4)
    row = [line for line in r.stdout.splitlines() if line.startswith("cage4 ") and "csr.serial" in
           line]
    check(row and re.search(r" [0-9.]+c ", row[0]) and "# roof%: " in r.stdout,
          "an in-cache row's roof%% is marked c and the header says why: %s" % row)
    gpu = [line for line in r.stdout.splitlines() if line.startswith("# GPU")]
    check(gpu and "insufficient" not in gpu[0], "the GPU line reads plainly: %s" % gpu)
    r = spbench("run", "--reps", "1", "--min-time", "0", "--threads", "1,2", "--kernels",
                "csr.omp.*,hll.omp.*", cage4)
    check("csr.omp.nnz at 2 threads" in r.stderr, "progress names the thread count")
    order = [line.split()[1] + "@" + line.split()[2] for line in r.stdout.splitlines()
             if line.startswith("cage4 ") and re.search(r"  (ok|noisy: ok, .*)$", line)]
    turns = re.findall(r"cage4: timing (\d+) rows at (\d+) threads? in turns", r.stderr)
    check(turns == [("6", "1"), ("6", "2")] and len(order) == 12,
          "a matrix's rows at one thread count are timed together, in turns: %s for %d ok rows"
          % (turns, len(order)))
    check(order[:4] == ["csr.omp.nnz@1", "csr.omp.nnz@2", "csr.omp.guided@1", "csr.omp.guided@2"],
          "and written in the table's order: %s" % order[:4])
    # room for the matrix and one row's copies, not two: the rows are timed one at a time
    tight = dict(os.environ, SPB_MEMORY_LIMIT="6000000")
    short = spbench("run", "--reps", "1", "--min-time", "0", "--threads", "1", "--kernels",
                    "csr.omp.*,hll.omp.*", "gen:lap2d:200", env=tight)
    ok = [line for line in short.stdout.splitlines() if line.startswith("gen:lap2d:200 ") and
          line.endswith(" ok")]
    check(short.returncode == 0 and len(ok) == 6 and "in turns" not in short.stderr,
          "short of memory, no row is held beside another: %d ok, %s" %
          (len(ok), re.findall(r"timing \d+ rows[^(]*", short.stderr)))
    skips = [line for line in r.stdout.splitlines() if "skipped" in line and "cage4" in line]
    check(len(skips) == 2 and "4 kernels skipped (csr.omp.pattern, hll.omp.col.pattern)" in
          r.stdout, "a matrix's skips fold into a line per reason: %s" % skips)
    r = spbench("--list")
    starts = {line.index(" spmv ") if " spmv " in line else line.index(" spgemm ")
              for line in r.stdout.splitlines() if not line.startswith("#")}
    check(len(starts) == 1, "--list's name column fits the longest name: %s" % starts)
    wide = run_on_terminal(["run", "--quiet", "--reps", "1", "--min-time", "0", "--threads", "1",
                            "--kernels", "csr.*,auto.omp", cage4], columns=120)
    rows = [line for line in wide.splitlines() if line.startswith("cage4 ")]
    check(rows and max(len(line) for line in rows) <= 120 and
          any(line.endswith("...") and " ok: " in line for line in rows),
          "on a 120-column terminal long rows are cut to fit, their status kept: %s" % rows[-3:])
    noisy = run_on_terminal(["run", "--quiet", "--reps", "4", "--min-time", "0", "--threads", "1",
                             "--max-noise", "0.0001", "--kernels", "csr.serial,csr.omp.*,hll.*",
                             cage4], columns=120)
    rows = [line for line in noisy.splitlines() if line.startswith("cage4 ")]
    check(any(" noisy: ok, spread" in line or line.endswith(" noisy...") for line in rows) and
          max(len(line) for line in rows) <= 120,
          "noisy rows fit a 120-column terminal too (their status was kept whole past it): %s"
          % [line for line in rows if len(line) > 120][:2])
    submit = os.path.join(SOURCE, "scripts", "slurm", "submit.sh")
    r = subprocess.run(["bash", submit, "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and "usage: submit.sh" in r.stdout,
          "submit.sh --help: exit %d" % r.returncode)
    if shutil.which("sbatch") and not os.environ.get("SLURM_CONF"):
        env = dict(os.environ, SLURM_CONF=os.path.join(tmp, "no-such-slurm.conf"))
        r = subprocess.run(["bash", submit, "--spbench", SPBENCH, os.path.join(tmp, "study"),
                            cage4], capture_output=True, text=True, env=env, timeout=120)
        check(r.returncode == 2 and "no Slurm controller is reachable" in r.stderr and
              "no-such-slurm.conf, which cannot be read" in r.stderr and "merge" in r.stderr,
              "submit.sh without a cluster says so, naming the unreadable SLURM_CONF: %s" %
              r.stderr.strip())


def test_time_cap(tmp):
    """--max-kernel-ms: a kernel whose first validated call is slower is
    timed from that call alone, marked capped, and the run goes on; a cap it
    stays under changes nothing but the settings."""
    capped_csv, free_csv = os.path.join(tmp, "capped.csv"), os.path.join(tmp, "free.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial,csr.omp.static", "--threads", "1",
                "--max-kernel-ms", "0.000001", "--csv", capped_csv, "gen:lap2d:200")
    rows = read_rows(capped_csv)
    check(r.returncode == 0 and len(rows) == 2 and
          all(x["status"] == "ok" and x["capped"] == "1" and x["reps"] == "1" and
              "capped: its first call took" in x["message"] and
              "max_kernel_ms=1e-06" in x["settings"] for x in rows),
          "a first call over the cap: the row is that call, capped: %s" %
          [(x["capped"], x["reps"], x["message"]) for x in rows])
    check(all(x["spread"] == "" and x["noisy"] == "" for x in rows),
          "a capped row's spread and noise are unknown (empty), not 0: %s" %
          [(x["spread"], x["noisy"]) for x in rows])
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--threads", "1", "--max-kernel-ms",
                "60000", "--csv", free_csv, "gen:lap2d:200")
    rows = read_rows(free_csv)
    check(r.returncode == 0 and len(rows) == 1 and rows[0]["capped"] == "0" and
          int(rows[0]["reps"]) > 1, "under the cap the row is timed as always")
    # SpGEMM's default cap, which 0 lifts; SpMV has none unless asked
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    for args, cap in (([], " max_kernel_ms=1000"), (["--max-kernel-ms", "0"], "")):
        out = os.path.join(tmp, "spgemm%d.csv" % len(args))
        r = spbench("run", *FAST, "--op", "spgemm", "--kernels", "spgemm.gustavson", *args,
                    "--csv", out, cage4)
        rows = read_rows(out)
        check(r.returncode == 0 and len(rows) == 1 and
              rows[0]["settings"] == "hack_size=32 block_size=auto seed=1%s b=self" % cap,
              "spgemm %s: settings %s" % (args, [x["settings"] for x in rows]))
    out = os.path.join(tmp, "spmv.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--threads", "1", "--csv", out, cage4)
    rows = read_rows(out)
    check(r.returncode == 0 and rows and "max_kernel_ms" not in rows[0]["settings"],
          "SpMV: no cap unless asked: %s" % [x["settings"] for x in rows])


def test_matrix_time_bound(tmp):
    """--max-matrix-s S bounds a matrix's time in a long study: the rows not
    yet started or timed when it passes are skipped, saying so, and the
    next matrix gets its own S; a negative bound is a usage error."""
    out = os.path.join(tmp, "bound.csv")
    two = [os.path.join(BUNDLED, n) for n in ("cage4.mtx.gz", "west0479.mtx.gz")]
    r = spbench("run", "--kernels", "csr.serial,csr.omp.static,hll.serial.row", "--threads",
                "1,2", "--reps", "3", "--min-time", "0.3", "--warmup", "0", "--energy-s", "0",
                "--max-matrix-s", "0.5", "--csv", out, *two)
    rows = read_rows(out) if os.path.exists(out) else []
    late = [x for x in rows if x["threads"] == "2"]
    check(r.returncode == 0 and len(rows) == 8 and late and
          all(x["status"] == "skipped" and "--max-matrix-s 0.5" in x["message"] for x in late) and
          all(x["status"] == "ok" for x in rows if x["threads"] == "1"),
          "each matrix's 1-thread group (0.3 s a row, timed in turns) passes 0.5 s: its 2-thread "
          "row is skipped, saying so: %d %s" % (r.returncode, [(x["matrix"], x["kernel"],
                                                                 x["threads"], x["status"])
                                                                for x in rows]))
    r = spbench("run", "--max-matrix-s", "-1", two[0])
    check(r.returncode == 2 and "--max-matrix-s" in r.stderr, "--max-matrix-s -1: %s" % r.stderr)
    times = []
    for bound in ([], ["--max-matrix-s", "0.5"]):
        r = spbench("run", "--dry-run", *bound, "--kernels", "csr.serial,csr.omp.*,hll.*",
                    "--threads", "1,2", "gen:lap3d:60", two[0])
        said = re.search(r"# time: about ([0-9.e+]+) s", r.stdout)
        times.append(float(said.group(1)) if said else float("nan"))
    check(times[1] < times[0] and "bounded by --max-matrix-s 0.5" in r.stdout,
          "the dry run's estimate counts the bound: %s s against %s s unbounded" % (times[1],
                                                                                    times[0]))


def test_kernel_typo(tmp):
    """A pattern of --kernels that matches nothing is an error naming it and
    the nearest names, also among good patterns (it was dropped in silence
    and the run went on with '1 kernels selected')."""
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    r = spbench("run", *FAST, "--kernels", "csr.omp.nzz,csr.serial", "--csv",
                os.path.join(tmp, "typo.csv"), cage4)
    check(r.returncode == 2 and "'csr.omp.nzz' matches no kernel" in r.stderr and
          "csr.omp.nnz" in r.stderr, "a typo among good patterns is refused, naming the nearest: %s"
          % r.stderr.strip())
    r = spbench("run", *FAST, "--kernels", "csrr.*", cage4)
    near = r.stderr.split("nearest names: ")[-1]
    check(r.returncode == 2 and near.startswith("csr."),
          "a pattern's nearest names share its first part (csr.*, not librsb): %s" % near)
    r = spbench("spmv", cage4, "--kernel", "csr.seral", "-o", os.path.join(tmp, "y.mtx"))
    check(r.returncode == 2 and "nearest names: csr.serial" in r.stderr,
          "spmv --kernel with a typo names the nearest: %s" % r.stderr.strip())


def test_globs_leave_out_what_cannot_run(tmp):
    """A wildcard of --kernels means the matching kernels this machine runs:
    the others are left out with a line, not written as rows "skipped"
    (63 of 96 rows of 'csr.*' on a machine without a device); a kernel named
    whole still gets its skipped row; a run that measured nothing exits 3,
    not 0, saying so."""
    listing = [line.split() for line in spbench("--list").stdout.splitlines() if line.strip()]
    spmv = {f[0]: "[unavailable:" in " ".join(f) for f in listing
            if len(f) > 3 and f[1] == "spmv" and f[3] != "mpi"}  # not the distributed rows
    # a family of kernels (e.g. csr.cuda.*) none of which runs here
    families = sorted({k.rsplit(".", 1)[0] + ".*" for k in spmv if "." in k})
    family = next((f for f in families if all(spmv[k] for k in spmv if fnmatch.fnmatch(k, f))),
                  None)
    if not family:
        skip("every SpMV kernel family runs here: none to leave out", "an unavailable kernel")
        return
    cannot = [k for k in spmv if fnmatch.fnmatch(k, family)]
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    out = os.path.join(tmp, "glob.csv")
    r = spbench("run", *FAST, "--kernels", "csr.serial," + family, "--csv", out, cage4)
    kernels = {row["kernel"] for row in read_rows(out)} if os.path.exists(out) else set()
    check(r.returncode == 0 and cannot[0] not in kernels and "csr.serial" in kernels,
          "%s's kernels this machine cannot run are no rows: %d %s" % (family, r.returncode,
                                                                      sorted(kernels)[:6]))
    check("# left out:" in r.stdout and cannot[0] in r.stdout,
          "a line says what was left out and why: %s" % r.stdout[-500:])
    r = spbench("run", *FAST, "--kernels", cannot[0], "--csv", os.path.join(tmp, "named.csv"),
                cage4)
    rows = read_rows(os.path.join(tmp, "named.csv"))
    check(r.returncode == 3 and [x["status"] for x in rows] == ["skipped"] and
          "no row was measured" in r.stderr,
          "a kernel named whole gets its skipped row, and the run that measured nothing exits 3: "
          "%d %s %s" % (r.returncode, [x["status"] for x in rows], r.stderr[-200:]))
    r = spbench("run", *FAST, "--kernels", family, cage4)
    check(r.returncode == 3 and "no row to measure" in r.stderr and cannot[0].split(".")[0]
          in r.stderr, "a wildcard of only what cannot run here exits 3 saying why: %d %s"
          % (r.returncode, r.stderr[-300:]))


def test_dry_run(tmp):
    """--dry-run lists the study and its least time, measures and writes
    nothing, and its row counts are those the study then makes (timed:
    ok; skipped here: skipped); a bad input is still refused first."""
    csv_path = os.path.join(tmp, "dry.csv")
    # a device kernel where the build has one (skipped here without a GPU)
    listed = [line.split()[0] for line in spbench("--list").stdout.splitlines() if line.strip()]
    kernels = "csr.serial,csr.omp.static" + (",csr.cuda.warp" if "csr.cuda.warp" in listed else "")
    args = [*FAST, "--energy-s", "0", "--threads", "1,2", "--kernels", kernels, "--csv", csv_path,
            os.path.join(BUNDLED, "cage4.mtx.gz"), "gen:lap2d:20"]
    r = spbench("run", "--dry-run", *args)
    said = re.search(r"^# rows: (\d+) \((\d+) timed, (\d+) skipped here\)", r.stdout, re.M)
    check(r.returncode == 0 and said and not os.path.exists(csv_path) and
          "# matrices (2): cage4 gen:lap2d:20" in r.stdout and
          re.search(r"^# time: about [\d.e+]+ s: reading the matrices", r.stdout, re.M),
          "--dry-run: matrices, rows and time, nothing written: %s" % r.stdout)
    real = spbench("run", *args)
    rows = read_rows(csv_path)
    count = lambda status: sum(x["status"] == status for x in rows)
    check(said and real.returncode == 0 and
          (len(rows), count("ok"), count("skipped")) == tuple(int(g) for g in said.groups()),
          "the study makes the rows the dry run listed: %s against %s" %
          ((len(rows), count("ok"), count("skipped")), said.groups() if said else None))
    # more settings than the kernel's line holds: the line ends saying the rest is left out
    threads = ",".join(str(t) for t in range(1, 31))
    r = spbench("run", "--dry-run", "--kernels", "csr.omp.static", "--threads", threads,
                "--precision", "both", "gen:lap2d:20")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("#   csr.omp.static")]
    check(r.returncode == 0 and len(line) == 1 and line[0].endswith(" ...") and
          "fp64 t1," in line[0], "60 settings on one line, cut with ' ...': %s" % line)
    r = spbench("run", "--dry-run", "--kernels", "csr.serial", "gen:lapd:10")
    check(r.returncode == 2 and "gen:lapd:10" in r.stderr,
          "--dry-run refuses a bad input as a run does: %s" % r.stderr.strip())


def test_kernel_means(tmp):
    """The end of run: per kernel and setting, the geometric mean over the
    matrices of its GFLOPS and speedup, as the CSV's rows give them; and
    each row's spread beside its median in the table."""
    csv_path = os.path.join(tmp, "means.csv")
    r = spbench("run", *FAST, "--energy-s", "0", "--threads", "1,2", "--kernels",
                "csr.serial,csr.omp.static", "--csv", csv_path,
                os.path.join(BUNDLED, "cage4.mtx.gz"), "gen:lap2d:60")
    rows = [x for x in read_rows(csv_path) if x["status"] == "ok"]
    lines = r.stdout.split("# per kernel: geometric mean", 1)[-1].splitlines()[2:]
    printed = {}
    for line in lines:
        parts = line.split()
        if len(parts) != 7 or not parts[1].isdigit():
            break
        printed[(parts[0], parts[1])] = (int(parts[3]), float(parts[4]), float(parts[5]))
    expected = {}
    for x in rows:
        expected.setdefault((x["kernel"], x["threads"]), []).append(x)
    check(r.returncode == 0 and set(printed) == set(expected),
          "a line per kernel and thread count: %s against %s" % (sorted(printed),
                                                                  sorted(expected)))
    # the table gives each row's spread beside its median, as the CSV has it
    table = {tuple(l.split()[:3]): l.split()[5] for l in r.stdout.splitlines()
             if len(l.split()) > 6 and l.split()[1] in ("csr.serial", "csr.omp.static")}
    def agrees(text, pct):
        """The table's spread (one decimal under 10%, none above) is the
        CSV's, within the table's rounding and the CSV's 4 digits (a
        spread of 10.496% is 11% in the table and 0.105 in the CSV)."""
        if not text or not text.endswith("%"):
            return False
        step = 0.05 if "." in text else 0.5
        return abs(float(text[:-1]) - pct) <= step + 1e-3 * pct
    check(all(agrees(table.get((x["matrix"], x["kernel"], x["threads"])),
                     100 * float(x["spread"])) for x in rows) and len(table) == len(rows),
          "the table's spread column is the CSV's: %s against %s" %
          (table, [x["spread"] for x in rows]))
    for key, mine in expected.items():
        geo = lambda c: math.exp(sum(math.log(float(x[c])) for x in mine) / len(mine))
        got = printed.get(key, (0, 0, 0))
        check(got[0] == len(mine) and abs(got[1] - geo("gflops")) <= 1e-3 * geo("gflops") and
              abs(got[2] - geo("speedup")) <= 0.006 + 1e-3 * geo("speedup"),
              "%s at %s threads: %s printed, %d matrices, %.4g GFLOPS, %.2f speedup from the "
              "CSV" % (key[0], key[1], got, len(mine), geo("gflops"), geo("speedup")))


def test_max_noise(tmp):
    """--max-noise PCT sets the noise rule's spread: at 0.0001% every row
    whose samples differ at all is noisy; at 1000% only an outlier (a
    sample beyond twice the median) makes one; the header and the JSON say
    which; a limit of 0 or below is a usage error."""
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    common = ["--reps", "12", "--min-time", "0", "--warmup", "1", "--energy-s", "0",
              "--kernels", "csr.serial,csr.omp.static,hll.serial.row"]
    rows = {}
    for pct in ("0.0001", "1000"):
        out = os.path.join(tmp, "noise-%s" % pct)
        r = spbench("run", *common, "--max-noise", pct, "--csv", out + ".csv", "--json",
                    out + ".json", cage4)
        rows[pct] = [x for x in read_rows(out + ".csv") if x["status"] == "ok"]
        with open(out + ".json") as f:
            said = json.load(f)["settings"].get("max_noise")
        check(r.returncode == 0 and rows[pct] and said == float(pct) / 100 and
              "noisy beyond %g%% spread" % float(pct) in r.stdout,
              "--max-noise %s: in the header and the JSON (%s): %s" % (pct, said, r.stderr))
    check(all(x["noisy"] == "1" for x in rows["0.0001"] if float(x["spread"]) > 1e-6),
          "at 0.0001%% every row with any spread is noisy: %s" %
          [(x["kernel"], x["spread"], x["noisy"]) for x in rows["0.0001"]])
    check(all(x["noisy"] == "0" or float(x["time_ms_max"]) > 2 * float(x["time_ms_median"])
              for x in rows["1000"]),
          "at 1000%% only an outlier makes a row noisy: %s" %
          [(x["kernel"], x["spread"], x["noisy"]) for x in rows["1000"]])
    for bad in ("0", "-5", "abc"):
        r = spbench("run", "--max-noise", bad, cage4)
        check(r.returncode == 2 and "--max-noise" in r.stderr,
              "--max-noise %s is a usage error: %s" % (bad, r.stderr.strip()))


def check_device_energy(tmp, gpu, cage4):
    """Three matrices' device rows: with --energy-rows all every row has
    its energy, above 0 and within the power limit times its time (twice,
    for the pass's own timing), its clocks, and its window's bound under
    50%; by default only the fastest spbench row and cusparse.csr (the one
    vendor row) of each matrix, with a bound under 10% (ten steps)."""
    kernels = "auto.cuda,cusparse.csr,csr.cuda.stream"
    matrices = (cage4, "gen:lap3d:60", "gen:rmat:14:8")
    bound = lambda x: gpu["power_limit_w"] * float(x["time_ms_median"]) * 1e-3
    for rows_arg in ("all", "best"):
        device_csv = os.path.join(tmp, "energy-gpu-%s.csv" % rows_arg)
        d = spbench("run", *FAST, "--kernels", kernels, "--energy-rows", rows_arg, "--csv",
                    device_csv, *matrices)
        device = [x for x in read_rows(device_csv) if x["status"] == "ok"]
        measured = [x for x in device if x["joules_per_product"] != ""]
        if rows_arg == "best":
            fastest = set()
            for name in {x["matrix"] for x in device}:
                own = [x for x in device if x["matrix"] == name and x["kernel"] != "cusparse.csr"]
                fastest.add((name, min(own, key=lambda x: float(x["time_ms_median"]))["kernel"]))
                fastest.add((name, "cusparse.csr"))
            check(d.returncode == 0 and {(x["matrix"], x["kernel"]) for x in measured} == fastest
                  and all(float(x["energy_err"]) < 0.1 for x in measured),
                  "by default the fastest spbench row and the vendor row of each matrix: %s" %
                  [(x["matrix"], x["kernel"], x["energy_err"]) for x in measured])
        check(d.returncode == 0 and len(device) == 9 and
              (rows_arg == "best" or len(measured) == 9) and
              all(0 < float(x["joules_per_product"]) <= 2 * bound(x) and
                  float(x["sm_clock_mhz"]) > 0 and float(x["mem_clock_mhz"]) > 0 and
                  0 < float(x["energy_err"]) < 0.5 and
                  x["throttled"] in ("0", "1") for x in measured),
              "--energy-rows %s: each measured row's energy within its bounds: %s" %
              (rows_arg, [(x["kernel"], x["joules_per_product"], x["time_ms_median"],
                           x["sm_clock_mhz"], x["energy_err"]) for x in device]))


def test_energy_columns(tmp):
    """The energy columns: empty where the machine has no counter, with the
    reason in the header and the JSON (a CPU without RAPL, no GPU here);
    filled for the CPU rows where RAPL reads, and for the device rows where
    NVML does (three matrices: energy within the power limit times the
    time, clocks read): by default only the fastest spbench row and the
    fastest vendor row of each matrix, every row with --energy-rows all.
    A CSV begun by an older spbench, without them, is refused by --resume,
    naming what it lacks."""
    csv_path, json_path = os.path.join(tmp, "energy.csv"), os.path.join(tmp, "energy.json")
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, "--json", json_path,
                cage4)
    rows = read_rows(csv_path)
    with open(json_path) as f:
        doc = json.load(f)
    energy = doc.get("energy", {})
    have_rapl = energy.get("cpu", {}).get("available")
    names = ("joules_per_product", "watts", "gflops_per_watt", "sm_clock_mhz", "mem_clock_mhz",
             "gpu_temp_c", "throttled", "throttle_reasons", "energy_err")
    check(r.returncode == 0 and len(rows) == 1 and all(n in rows[0] for n in names),
          "the CSV has the energy columns: %s" % (list(rows[0]) if rows else r.stderr))
    if have_rapl:
        check(float(rows[0]["joules_per_product"]) > 0 and float(rows[0]["watts"]) > 0,
              "RAPL reads here: the CPU row has its energy: %s" % rows[0])
    else:
        check(re.search(r"^# energy, CPU: not available: .+", r.stdout, re.M) and
              energy["cpu"].get("why") and rows[0]["joules_per_product"] == "" and
              rows[0]["watts"] == "" and rows[0]["throttled"] == "",
              "no RAPL: the columns empty, the header and the JSON say why: %s" %
              [l for l in r.stdout.splitlines() if "energy" in l])
    check(energy.get("rows") == "best" and energy.get("periods", 0) >= 10,
          "the JSON says which rows get energy windows, and how many steps each: %s" % energy)
    r = spbench("run", "--energy-rows", "fastest", cage4)
    check(r.returncode == 2 and "--energy-rows" in r.stderr,
          "--energy-rows takes best or all: %s" % r.stderr.strip())
    gpu = energy.get("gpu", {})
    if gpu.get("available"):  # the device machine: three matrices' device rows
        check_device_energy(tmp, gpu, cage4)
    # the energy chart is drawn where the figures are (made up here: no counters)
    if rows and shutil.which("gnuplot"):
        rows[0]["gflops_per_watt"], plotted = "1.5", os.path.join(tmp, "energy_plot")
        with open(os.path.join(tmp, "measured.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            w.writerow(rows[0])
        p = spbench("plot", os.path.join(tmp, "measured.csv"), plotted)
        check(p.returncode == 0 and os.path.exists(os.path.join(plotted, "energy.png")),
              "rows with GFLOPS per watt get the energy chart: %s" % p.stderr.strip())
        p = spbench("plot", csv_path, os.path.join(tmp, "unmeasured_plot"))
        check(p.returncode == 0 and
              not os.path.exists(os.path.join(tmp, "unmeasured_plot", "energy.png")),
              "rows without energy figures draw no energy chart")
    elif rows:
        skip("no gnuplot: the energy chart (apt-get install gnuplot-nox)", "gnuplot")
    with open(csv_path) as f:
        header, *lines = f.read().splitlines()
    old = header.split(",joules_per_product")[0]
    cut = len(old.split(","))
    with open(csv_path, "w") as f:
        f.write(old + "\n" + "".join(",".join(l.split(",")[:cut]) + "\n" for l in lines))
    r = spbench("run", *FAST, "--kernels", "csr.serial", "--csv", csv_path, "--resume", cage4)
    check(r.returncode != 0 and "an older spbench's" in r.stderr and
          "joules_per_product" in r.stderr,
          "--resume of an older CSV says which columns it lacks: %s" % r.stderr.strip())


def test_break_even(tmp):
    """break_even_products: empty on host rows; on the device, a row faster
    than cusparse.csr has the products after which its costlier prepare has
    paid, from its own prepare_ms and time against cusparse.csr's (rounded
    up; 0 where it costs no more), a slower row and cusparse.csr's own none;
    the summary counts them per kernel."""
    csv_path = os.path.join(tmp, "break_even.csv")
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    listed = [line.split()[0] for line in spbench("--list").stdout.splitlines() if line.strip()]
    # a build without CUDA has no device kernels to name
    kernels = [k for k in ("csr.serial", "auto.cuda", "cusparse.csr", "csr.cuda.stream")
               if k in listed]
    r = spbench("run", *FAST, "--energy-s", "0", "--kernels", ",".join(kernels), "--csv",
                csv_path, cage4, "gen:lap3d:40", "gen:rmat:14:8")
    rows = read_rows(csv_path)
    check(r.returncode == 0 and rows and
          all(x["break_even_products"] == "" for x in rows if x["backend"] != "cuda"),
          "host rows have no break-even count: %s" % r.stderr.strip())
    faster = 0
    for x in rows:
        vendor = [v for v in rows if v["matrix"] == x["matrix"] and v["status"] == "ok" and
                  v["kernel"] == "cusparse.csr"]
        if x["backend"] != "cuda" or x["status"] != "ok" or not vendor:
            continue
        t, tv = float(x["time_ms_median"]), float(vendor[0]["time_ms_median"])
        p, pv = float(x["prepare_ms"]), float(vendor[0]["prepare_ms"])
        if x["kernel"] == "cusparse.csr" or t >= tv:
            check(x["break_even_products"] == "",
                  "%s %s: not faster than cusparse.csr, no count: %s" %
                  (x["matrix"], x["kernel"], x["break_even_products"]))
            continue
        faster += 1
        if (tv - t) / tv < 1e-3:  # the CSV's rounding would decide it
            continue
        expected = 0 if p <= pv else math.ceil((p - pv) / (tv - t))
        got = float(x["break_even_products"] or "nan")
        check(abs(got - expected) <= 1 + 1e-2 * expected,
              "%s %s: pays after %s products; its prepare and time against cusparse.csr's say "
              "%d" % (x["matrix"], x["kernel"], x["break_even_products"], expected))
    if faster:
        check("device rows faster than cusparse.csr" in r.stdout,
              "the summary counts the rows faster than cusparse.csr: %s" % r.stdout[-800:])
    if not any(x["backend"] == "cuda" and x["status"] == "ok" for x in rows):
        skip("no device row ran: the device half of the break-even counts", "gpu")


def test_long_names(tmp):
    """A matrix name of 200 characters (names run to 255): the summary's best
    kernel per matrix matches its rows by the whole name (a copy cut at 127
    characters never matched, and every row of the matrix got a line)."""
    folder = os.path.join(tmp, "long")
    os.mkdir(folder)
    name = "m" * 200
    shutil.copy(os.path.join(BUNDLED, "cage4.mtx.gz"), os.path.join(folder, name + ".mtx.gz"))
    r = spbench("run", *FAST, "--energy-s", "0", "--bandwidth", "10", "--kernels",
                "csr.serial,hll.serial.row", folder)
    table = r.stdout.split("# best kernel per matrix", 1)[-1].split("\n\n")[0].splitlines()
    lines = [x for x in table[2:] if x.startswith("m")]
    check(r.returncode == 0 and len(lines) == 1,
          "one best-kernel line for the long-named matrix: %s" % lines)


def test_setting_sweeps(tmp):
    """--hack-size, --block-size and --tile lists: each value a row of the
    kernels that take the setting, with its own settings in the CSV and
    its name in the table; the other rows run once at the first value; a
    resumed sweep measures nothing again; bad lists are refused."""
    out = os.path.join(tmp, "sweep.csv")
    args = ["run", *FAST, "--energy-s", "0", "--bandwidth", "none", "--threads", "1",
            "--kernels", "csr.serial,hll.serial.row,hll.omp.col", "--hack-size", "64,16",
            "--csv", out, "gen:lap2d:30"]
    r = spbench(*args)
    rows = read_rows(out)
    got = sorted((row["kernel"], row["settings"].split()[0]) for row in rows)
    check(r.returncode == 0 and got == [("csr.serial", "hack_size=16"),
                                        ("hll.omp.col", "hack_size=16"),
                                        ("hll.omp.col", "hack_size=64"),
                                        ("hll.serial.row", "hack_size=16"),
                                        ("hll.serial.row", "hack_size=64")],
          "an HLL row per hack size, csr.serial once at the first: %s" % got)
    check(all(row["status"] == "ok" for row in rows), "every swept row ok: %s"
          % [(row["kernel"], row["status"], row["message"]) for row in rows])
    stored = {(row["kernel"], row["settings"]): row["stored_entries"] for row in rows}
    check(len(set(stored.values())) > 1, "the hack sizes pad differently: %s" % stored)
    labels = re.findall(r"^gen:lap2d:30\s+(\S+)", r.stdout, re.M)
    check({"hll.serial.row:h16", "hll.serial.row:h64", "hll.omp.col:h16", "hll.omp.col:h64",
           "csr.serial"} <= set(labels), "the table names each setting: %s" % labels)
    header = [ln for ln in r.stdout.splitlines() if ln.startswith("# settings:")]
    check(header and "hack_size=16,64" in header[0], "the header gives the list: %s" % header)
    again = spbench(*args, "--resume")
    check(again.returncode == 0 and len(read_rows(out)) == len(rows) and
          "row 1 of" not in again.stderr,
          "a resumed sweep measures nothing again: %s" % again.stderr[-300:])
    # a build with the CUDA rows, a device or not (the sanitizer builds have none; CI's
    # test build has them, nvcc being required there)
    if "csr.cuda.warp " in spbench("--list").stdout:
        dry = spbench("run", "--dry-run", "--threads", "1", "--kernels",
                      "csr.cuda.warp,cusparse.csr", "--block-size", "128,256", "gen:lap2d:30")
        lines = {ln.split()[1]: ln for ln in dry.stdout.splitlines()
                 if ln.startswith("#   ") and len(ln.split()) > 1}
        check(dry.returncode == 0 and "b128" in lines.get("csr.cuda.warp", "")
              and "b256" in lines.get("csr.cuda.warp", "")
              and "b128" not in lines.get("cusparse.csr", "-b128"),
              "a device row per block size, cuSPARSE's once: %s" % lines)
    for bad in ("16,,32", "0", "16,", "abc", ",", ",".join(str(v) for v in range(1, 18))):
        r = spbench("run", "--hack-size", bad, "gen:lap2d:8")
        check(r.returncode == 2 and "--hack-size" in r.stderr,
              "--hack-size %r refused: %s" % (bad, r.stderr.strip()))


def test_table_columns_line_up(tmp):
    """Labels longer than the narrow table's kernel column (complex
    precisions, a swept setting) widen the column: every row's figures
    stay under the headings printed last above it (a complex matrix's
    longer labels get a header of their own); a run of real matrices keeps
    the narrow column."""
    path = os.path.join(tmp, "c.mtx")
    rng = random.Random(3)
    with open(path, "w") as f:
        f.write("%%MatrixMarket matrix coordinate complex general\n30 30 90\n")
        for i in range(30):
            for j in rng.sample(range(30), 3):
                f.write("%d %d %r %r\n" % (i + 1, j + 1, rng.uniform(-1, 1), rng.uniform(-1, 1)))
    r = spbench("run", *FAST, "--energy-s", "0", "--bandwidth", "none", "--threads", "1",
                "--precision", "both", "--kernels", "csr.serial,csr.omp.static",
                "gen:lap2d:10", path)
    head, placed = None, []
    for ln in r.stdout.splitlines():
        if ln.startswith("matrix ") and " kernel " in ln:
            head = ln
        elif head and ln.split()[:1] in (["c"], ["gen:lap2d:10"]) and " ok" in ln:
            placed.append((head, ln))
    misplaced = [ln for h, ln in placed
                 if ln[h.index(" nnz") + 4 - 3:h.index(" nnz") + 5] not in (" 90 ", "460 ")]
    check(r.returncode == 0 and len(placed) == 8 and not misplaced,
          "each row's entry count ends under the nnz heading above it: %s" % misplaced)
    check(sum("csr.omp.static/complex128" in ln.split() for _, ln in placed) == 1,
          "the complex label is whole: %s" % placed)
    narrow = [h for h, ln in placed if ln.startswith("gen:")]
    check(narrow and narrow[0].index(" thr") == 24 + 1 + 22,
          "the real matrix's rows under the narrow kernel column: %s" % narrow[:1])


def main():
    if not os.path.isdir(MATRICES):
        print("no matrices found at %s or %s" % (SHARED, BUNDLED))
        sys.exit(77)
    run_tests([test_list, test_kernel_reference, test_thread_lists, test_run_batch,
               test_spmv_independent, test_spmv_independent_complex, test_complex_rows,
               test_wide_offsets,
               test_gen_and_info, test_messages, test_usage_errors,
               test_precision, test_help_and_labels, test_time_cap, test_kernel_typo,
               test_dry_run, test_kernel_means, test_max_noise, test_energy_columns, test_break_even,
               test_long_names, test_globs_leave_out_what_cannot_run, test_matrix_time_bound,
               test_setting_sweeps, test_table_columns_line_up, test_product_precision,
               test_markdown_table],
              "spb_e2e_", globals())


main()
