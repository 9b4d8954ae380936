"""End-to-end tests of SpGEMM: `run --op spgemm` over the bundled matrices
(every row ok, products/nnz_c/compression filled, speedup over the
Gustavson kernel), `--b thin:K`, a B of the wrong size as an error row
that does not stop the batch, `--b transpose`, usage errors, and `spbench spgemm -o` against
an independent pure-Python product.

usage: e2e_spgemm.py SPBENCH SOURCE_DIR
"""
import math
import os
import random

from spbtest import SOURCE, check, read_mtx, read_rows, spbench, run_tests

BUNDLED = os.path.join(SOURCE, "matrices")
FAST = ["--reps", "2", "--min-time", "0", "--warmup", "1", "--quiet"]


def test_run_bundled(tmp):
    out = os.path.join(tmp, "spgemm.csv")
    r = spbench("run", "--op", "spgemm", *FAST, "--threads", "1,2", "--csv", out, BUNDLED)
    check(r.returncode == 0, "spgemm over the bundled matrices exits 0: %s" % r.stderr[-300:])
    rows = read_rows(out)
    kernels = {row["kernel"] for row in rows}
    check({"spgemm.gustavson", "spgemm.hash", "spgemm.omp"} <= kernels, "kernels: %s" % kernels)
    for row in rows:
        where = "%s/%s/%s" % (row["matrix"], row["kernel"], row["threads"])
        if row["status"] == "skipped":
            check(row["message"] != "", "%s: skipped with a reason" % where)
            continue
        check(row["status"] == "ok", "%s: %s %s" % (where, row["status"], row["message"]))
        check(row["operation"] == "spgemm" and "b=self" in row["settings"], "%s: keyed" % where)
        products, nnz_c = float(row["products"]), float(row["nnz_c"])
        check(products >= nnz_c > 0 and abs(float(row["compression"]) - products / nnz_c)
              <= 1e-3 * products / nnz_c, "%s: products %s, nnz_c %s" % (where, products, nnz_c))
        check(row["speedup"] != "", "%s: speedup over spgemm.gustavson" % where)
        check(float(row["rel_l2_err"]) <= 1e-13, "%s: error %s" % (where, row["rel_l2_err"]))


def test_thin_and_mismatch(tmp):
    cage4 = os.path.join(BUNDLED, "cage4.mtx.gz")
    out = os.path.join(tmp, "thin.csv")
    r = spbench("run", "--op", "spgemm", *FAST, "--b", "thin:8:3", "--kernels", "spgemm.*",
                "--csv", out, cage4)
    rows = read_rows(out)
    # device rows run where there is a device, else say why they are skipped
    check(r.returncode == 0 and rows and
          all(row["status"] == "ok" or (row["backend"] == "cuda" and row["status"] == "skipped"
                                        and row["message"]) for row in rows),
          "a thin B: %s" % r.stderr[-300:])
    check(all(row["cols"] == "9" and "b=thin:8:3" in row["settings"] for row in rows),
          "thin rows are keyed by their B")
    # gen:lap2d:4 is 16 x 16; cage4 has 9 columns: an error row naming both sizes
    r = spbench("run", "--op", "spgemm", *FAST, "--b", "gen:lap2d:4", "--kernels",
                "spgemm.gustavson", cage4, os.path.join(BUNDLED, "west0479.mtx.gz"))
    check(r.returncode == 1 and "9 x 9" in r.stdout and "16 x 16" in r.stdout,
          "mismatched B is an error with both sizes: %s" % r.stdout[-400:])
    r = spbench("run", "--b", "thin:8", cage4)
    check(r.returncode == 2 and "--op spgemm" in r.stderr, "--b without --op spgemm is refused")
    r = spbench("run", "--op", "spgemm", "--b", "thin:3:5", cage4)
    check(r.returncode == 2 and "PER_ROW" in r.stderr, "thin:3:5 is refused: %s" % r.stderr)
    r = spbench("run", "--op", "gemm", cage4)
    check(r.returncode == 2 and "spgemm" in r.stderr, "an unknown --op is refused")


def product(a, b):
    """C = A*B of {(i, j): value} matrices, each entry's products summed
    exactly (each part of complex ones)."""
    rows_of_b = {}
    for (i, j), v in b.items():
        rows_of_b.setdefault(i, []).append((j, v))
    terms = {}
    for (i, k), v in a.items():
        for j, w in rows_of_b.get(k, []):
            terms.setdefault((i, j), []).append(v * w)
    return {key: complex(math.fsum(p.real for p in ps), math.fsum(p.imag for p in ps))
            if any(isinstance(p, complex) for p in ps) else math.fsum(ps)
            for key, ps in terms.items()}


def test_spgemm_command(tmp):
    # square (A * A), rectangular (A * A^T) and square with --b transpose (A * A^T)
    for name, b_spec in (("west0479", None), ("lp_e226", None), ("west0479", "transpose")):
        source = os.path.join(BUNDLED, name + ".mtx.gz")
        out = os.path.join(tmp, "%s_%s_c.mtx" % (name, b_spec))
        r = spbench("spgemm", source, *(["--b", b_spec] if b_spec else []), "--kernel",
                    "spgemm.omp", "--threads", "2", "-o", out)
        check(r.returncode == 0, "spbench spgemm on %s: %s" % (name, r.stderr))
        if r.returncode != 0:
            continue
        m, n, a = read_mtx(source)
        transposed = m != n or b_spec == "transpose"
        b = {(j, i): v for (i, j), v in a.items()} if transposed else dict(a)
        expected = product(a, b)
        cm, cn, c = read_mtx(out)
        check((cm, cn) == (m, m if m != n else n), "%s: C is %d x %d" % (name, cm, cn))
        check(set(c) == set(expected), "%s: C's pattern is the product's (%d vs %d entries)"
              % (name, len(c), len(expected)))
        worst = max((abs(c[k] - expected[k]) / max(1e-300, abs(expected[k]))
                     for k in expected if k in c and expected[k] != 0), default=0.0)
        check(worst <= 1e-12, "%s: C's values, worst relative difference %g" % (name, worst))
    r = spbench("spgemm", os.path.join(BUNDLED, "cage4.mtx.gz"), "--kernel", "csr.serial", "-o",
                os.path.join(tmp, "x.mtx"))
    check(r.returncode == 2 and "SpGEMM kernel" in r.stderr, "an SpMV kernel is refused")


def test_complex_product(tmp):
    """C = A*B of complex matrices (a hermitian file's mirror conjugated, a
    skew one's negated) by the rows that take them, in complex128 against
    Python's complex arithmetic and in complex64 within its rounding (the
    device's real rows decline them by the run's one gate: test_kernels)."""
    rng = random.Random(31)
    n = 40
    listed = [line.split() for line in spbench("--list").stdout.splitlines()
              if line.strip() and line[0] != "#" and line.split()[1] == "spgemm"]
    complex_rows = {f[0] for f in listed if "[complex too]" in " ".join(f)
                    and "[unavailable:" not in f}
    host = {f[0] for f in listed if f[3] in ("serial", "openmp")}
    check({"spgemm.gustavson", "spgemm.omp", "spgemm.hash"} <= complex_rows and host <= complex_rows,
          "--list marks every host SpGEMM row as taking complex matrices: %s"
          % sorted(complex_rows))
    for symmetry in ("general", "hermitian", "skew-symmetric"):
        path = os.path.join(tmp, "c_%s.mtx" % symmetry)
        lines = []
        for _ in range(160):
            i, j = rng.randrange(n), rng.randrange(n)
            if symmetry != "general" and i < j:
                i, j = j, i
            if symmetry == "skew-symmetric" and i == j:
                continue
            v = complex(rng.uniform(-1, 1), 0.0 if symmetry == "hermitian" and i == j
                        else rng.uniform(-1, 1))
            lines.append("%d %d %r %r\n" % (i + 1, j + 1, v.real, v.imag))
        with open(path, "w") as f:
            f.write("%%%%MatrixMarket matrix coordinate complex %s\n%d %d %d\n"
                    % (symmetry, n, n, len(lines)))
            f.writelines(lines)
        m, _, a = read_mtx(path)
        expected = product(a, a)
        for kernel in complex_rows:
            out = os.path.join(tmp, "%s_%s.mtx" % (symmetry, kernel))
            r = spbench("spgemm", path, "--kernel", kernel, "--threads", "2", "-o", out)
            check(r.returncode == 0, "%s on %s: %s" % (kernel, symmetry, r.stderr))
            if r.returncode != 0:
                continue
            with open(out) as f:
                banner = f.readline()
            cm, _, c = read_mtx(out)
            check("complex" in banner and cm == m and set(c) == set(expected),
                  "%s/%s: a complex C of the product's pattern (%d vs %d entries)"
                  % (symmetry, kernel, len(c), len(expected)))
            worst = max((abs(c[k] - expected[k]) / max(1e-300, abs(expected[k]))
                         for k in expected if k in c and expected[k] != 0), default=0.0)
            check(worst <= 1e-12, "%s/%s: C's values, worst relative difference %g"
                  % (symmetry, kernel, worst))
    rows_csv = os.path.join(tmp, "complex_spgemm.csv")
    r = spbench("run", "--op", "spgemm", "--precision", "both", *FAST[:-1], "--csv", rows_csv,
                os.path.join(tmp, "c_general.mtx"), os.path.join(tmp, "c_hermitian.mtx"))
    rows = read_rows(rows_csv)
    ok = [row for row in rows if row["status"] == "ok"]
    check(r.returncode == 0 and {row["precision"] for row in ok} == {"complex128", "complex64"}
          and {row["kernel"] for row in ok} == complex_rows
          and not [row for row in rows if row["status"] in ("wrong", "error")],
          "a complex SpGEMM study: ok rows in both complex precisions, none wrong: %s"
          % sorted({(row["kernel"], row["precision"], row["status"]) for row in rows}))
    for row in ok:
        flops = 8.0 * float(row["products"]) / (float(row["time_ms_median"]) * 1e-3) / 1e9
        check(abs(float(row["gflops"]) - flops) <= 2e-3 * flops + 1e-3,
              "%s/%s: GFLOPS is 8 x products / time" % (row["matrix"], row["kernel"]))


def test_fp32_bound_in_header(tmp):
    """The header states the bound each precision's rows are held to."""
    out = os.path.join(tmp, "fp32.csv")
    r = spbench("run", "--op", "spgemm", "--kernels", "spgemm.gustavson", "--precision", "both",
                *FAST[:-1], "--csv", out, os.path.join(BUNDLED, "cage4.mtx.gz"))
    check(r.returncode == 0, "fp32 SpGEMM exits 0: %s" % r.stderr[-300:])
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("# validation:")]
    check(len(line) == 1 and "within 1 x its rounding bound" in line[0] and
          "2^-24 in fp32" in line[0] and "(|A||B|)_ij" in line[0],
          "header names each precision's bound: %s" % line)
    tolerance = {row["precision"]: float(row["tolerance"]) for row in read_rows(out)}
    check(tolerance == {"fp64": 1.0, "fp32": 1.0},
          "both precisions held to the stated factor on their bound: %s" % tolerance)


def test_products_past_32_bits(tmp):
    """A product of more than 2^31 - 1 intermediate products on 32-bit
    operands runs and validates (it was refused as past the 32-bit limit):
    1,400 rows of 1,300 columns each, squared, make 1,300 products an
    entry of A."""
    out = os.path.join(tmp, "wide.csv")
    r = spbench("run", "--op", "spgemm", "--kernels", "spgemm.omp", "--threads", "2", "--reps",
                "1", "--warmup", "0", "--min-time", "0", "--quiet", "--csv", out,
                "gen:random:1400:1300")
    rows = read_rows(out)
    check(r.returncode == 0 and len(rows) == 1 and rows[0]["status"] == "ok",
          "past 2^31 - 1 products: %s %s" % ([(x["status"], x["message"]) for x in rows],
                                             r.stderr[-300:]))
    if not rows or rows[0]["status"] != "ok":
        return
    products = 1300 * 1400 * 1300
    check(products > 2**31 - 1 and float(rows[0]["products"]) == products,
          "products %s, expected %d" % (rows[0]["products"], products))
    check(0 < float(rows[0]["nnz_c"]) <= 1400 * 1400 and float(rows[0]["rel_l2_err"]) <= 1e-13,
          "C's size and error: %s %s" % (rows[0]["nnz_c"], rows[0]["rel_l2_err"]))


def test_list():
    out = spbench("--list").stdout
    lines = [ln.split() for ln in out.splitlines() if ln.strip() and ln[0] != "#"]
    ops = {fields[0]: fields[1] for fields in lines}
    check(ops.get("spgemm.omp") == "spgemm" and ops.get("csr.serial") == "spmv",
          "--list names each kernel's operation")


def main():
    run_tests([test_run_bundled, test_thin_and_mismatch, test_spgemm_command, test_complex_product,
               test_fp32_bound_in_header, test_products_past_32_bits,
               test_list],
              "spb_e2e_spgemm_", globals())


main()
