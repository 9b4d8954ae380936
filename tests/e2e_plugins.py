"""End-to-end tests of plug-in kernels (include/spbench/plugin.h): a kernel
built outside the tree joins the table as a row like any other (listed
with its library, validated, timed, written with its library's checksum
in measured_under); a wrong one is `wrong`; a library that is not a
plug-in, of another ABI, or whose kernel takes a name already held is
refused with exit 2 and one line before anything is measured; --resume
refuses rows of a changed library; a kernel that crashes, hangs, or writes
past y, before y or into x ends its own row as an error, in its own
process, and the study goes on.

usage: e2e_plugins.py SPBENCH SOURCE_DIR [TEST]
"""
import os
import re
import shutil
import signal
import subprocess
import time

from spbtest import SOURCE, SPBENCH, check, check_results_json, read_rows, run_tests, skip, spbench

FAST = ["--reps", "3", "--min-time", "0", "--warmup", "0", "--quiet", "--bandwidth", "10",
        "--energy-s", "0"]
CAGE4 = os.path.join(SOURCE, "matrices", "cage4.mtx.gz")
EXAMPLE = os.path.join(SOURCE, "examples", "plugins", "csr_rows", "csr_rows.c")

# a plug-in of one kernel, its product's loop and its library's fields
# filled in by the test: a wrong product, another ABI, a taken name
ONE_KERNEL = r"""
#include <spbench/plugin.h>
static int prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m, size_t n)
{ (void)c; (void)m; (void)n; *s = (void *)A; return SPB_PLUGIN_OK; }
static int spmv(void *state, const void *x, void *y, char *m, size_t n)
{
    (void)m; (void)n;
    const spb_plugin_csr *A = state;
    const double *v = A->values, *xd = x; double *yd = y;
    for (int i = 0; i < A->rows; i++) {
        double sum = 0;
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1] - (DROP); k++)
            sum += v[k] * xd[A->col_idx[k]];
        yd[i] = sum;
    }
    return SPB_PLUGIN_OK;
}
static const spb_plugin_kernel k[] = {{.name = NAME, .description = "a test's kernel",
    .operation = SPB_PLUGIN_SPMV, .backend = SPB_PLUGIN_SERIAL, .prepare = prep, .spmv = spmv}};
const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {ABI, 1, k}; return &l; }
"""


# kernels that misbehave on their third product (the first two pass:
# validation, then the cap's), each a row of one library; and an OpenMP
# one, which must run in the kernel's process (a forked process would hang
# in the OpenMP runtime)
MISBEHAVING = r"""
#include <spbench/plugin.h>
#include <stddef.h>
static int calls;
static int prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m, size_t n)
{ (void)c; (void)m; (void)n; *s = (void *)A; calls = 0; return SPB_PLUGIN_OK; }
static void product(const spb_plugin_csr *A, const double *x, double *y)
{
    const double *v = A->values;
    #pragma omp parallel for
    for (int i = 0; i < A->rows; i++) {
        double sum = 0;
        for (int k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += v[k] * x[A->col_idx[k]];
        y[i] = sum;
    }
}
#define KERNEL(fn, misdeed) \
static int fn(void *state, const void *x, void *y, char *m, size_t n) \
{ (void)m; (void)n; const spb_plugin_csr *A = state; product(A, x, y); \
  if (++calls >= 3) { misdeed; } return SPB_PLUGIN_OK; }
KERNEL(crash, *(volatile int *)(size_t)8 = 1)
KERNEL(hang, for (volatile int spin = 1; spin;) {})
KERNEL(past_y, ((double *)y)[A->rows] = 1)
KERNEL(before_y, ((double *)y)[-1] = 1)
KERNEL(into_x, ((double *)(size_t)x)[0] = 1)
KERNEL(fine, (void)0)
#define ROW(label, fn, where) {.name = label, .description = "a test's kernel", \
    .operation = SPB_PLUGIN_SPMV, .backend = where, .prepare = prep, .spmv = fn}
static const spb_plugin_kernel k[] = {
    ROW("bad.crash", crash, SPB_PLUGIN_SERIAL), ROW("bad.hang", hang, SPB_PLUGIN_SERIAL),
    ROW("bad.past_y", past_y, SPB_PLUGIN_SERIAL), ROW("bad.before_y", before_y, SPB_PLUGIN_SERIAL),
    ROW("bad.into_x", into_x, SPB_PLUGIN_SERIAL), ROW("good.omp", fine, SPB_PLUGIN_OPENMP)};
const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {SPB_PLUGIN_ABI, 6, k}; return &l; }
"""


def compiler():
    return shutil.which("cc") or shutil.which("gcc")


def build(tmp, name, source, *flags):
    """source (a path, or C text) built as tmp/name.so; its path, or None."""
    if not source.endswith(".c"):
        path = os.path.join(tmp, name + ".c")
        with open(path, "w") as f:
            f.write(source)
        source = path
    out = os.path.join(tmp, name + ".so")
    r = subprocess.run([compiler(), "-O2", "-fPIC", "-shared", "-fopenmp", "-I",
                        os.path.join(SOURCE, "include"), *flags, source, "-o", out],
                       capture_output=True, text=True)
    check(r.returncode == 0, "the plug-in %s builds: %s" % (name, r.stderr[-500:]))
    return out if r.returncode == 0 else None


def one_kernel(tmp, name, drop=0, abi="SPB_PLUGIN_ABI", kernel='"test.one"'):
    return build(tmp, name, ONE_KERNEL, "-DDROP=%d" % drop, "-DABI=%s" % abi,
                 "-DNAME=%s" % kernel)


def test_rows_like_any_other(tmp):
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = build(tmp, "csr_rows", EXAMPLE)
    if not lib:
        return
    r = spbench("--list", "--plugin", lib)
    listed = [x for x in r.stdout.splitlines() if x.startswith("mine.")]
    check(r.returncode == 0 and len(listed) == 3 and
          all("[plug-in: %s (crc32 " % lib in x for x in listed),
          "--list shows the plug-in's kernels with their library: %s" % listed)
    csv_path, json_path = os.path.join(tmp, "p.csv"), os.path.join(tmp, "p.json")
    r = spbench("run", *FAST, "--plugin", lib, "--kernels", "mine.*,csr.serial", "--threads",
                "1,2", "--precision", "both", "--csv", csv_path, "--json", json_path, CAGE4,
                "gen:rmat:8:4")
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    mine = [x for x in rows if x["kernel"].startswith("mine.")]
    check(r.returncode == 0 and len(mine) == 2 * 2 * (1 + 2) and
          all(x["status"] == "ok" for x in mine),
          "the plug-in's rows are validated ok, fp64 and fp32, at 1 and 2 threads: %s %s"
          % ([(x["kernel"], x["precision"], x["threads"], x["status"]) for x in mine],
             r.stderr[-300:]))
    check(all(re.search(r"plugin=csr_rows\.so:crc32=[0-9a-f]{8}:bytes=\d+", x["measured_under"])
              for x in rows), "every row names the library's checksum: %s"
          % rows[0]["measured_under"] if rows else None)
    check(all(float(x["speedup"]) > 0 for x in mine if x["precision"] == "fp64"),
          "a speedup over csr.serial, as for spbench's own rows")
    check_results_json(json_path)
    # a changed library: --resume refuses the rows of the old one
    changed = build(tmp, "csr_rows", EXAMPLE, "-DCHANGED=1", "-O3")
    r = spbench("run", *FAST, "--plugin", changed, "--kernels", "mine.*", "--resume", "--csv",
                csv_path, CAGE4)
    check(r.returncode != 0 and "measured" in r.stderr,
          "--resume refuses rows of another build of the library: %d %s"
          % (r.returncode, r.stderr[-300:]))


def test_two_libraries(tmp):
    """A library of one kernel, then one of two: all three rows (the
    table grows past its first size)."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    one, two = one_kernel(tmp, "first"), build(tmp, "csr_rows", EXAMPLE)
    csv_path = os.path.join(tmp, "two.csv")
    r = spbench("run", *FAST, "--plugin", one, "--plugin", two, "--kernels", "test.one,mine.*",
                "--csv", csv_path, CAGE4)
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    check(r.returncode == 0 and sorted(x["kernel"] for x in rows) ==
          ["mine.csr.omp", "mine.csr.serial", "test.one"] and
          all(x["status"] == "ok" for x in rows),
          "both libraries' kernels: %s %s" % ([(x["kernel"], x["status"]) for x in rows],
                                              r.stderr[-300:]))


# a kernel wrong in the first process that runs it, declined in the others
# (each process is told apart by its parent, the run that hosts the kernel)
FIRST_PROCESS_WRONG = r"""
#include <spbench/plugin.h>
#include <stdio.h>
#include <unistd.h>
static int prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m, size_t n)
{
    (void)c;
    long first = -1;
    FILE *f = fopen(MARK, "r");
    if (f) { if (fscanf(f, "%ld", &first) != 1) first = -1; fclose(f); }
    if (first < 0 && (f = fopen(MARK, "w"))) { fprintf(f, "%ld", (long)getppid()); fclose(f); first = getppid(); }
    if (first != (long)getppid()) { snprintf(m, n, "declined in a later process"); return SPB_PLUGIN_DECLINED; }
    *s = (void *)A;
    return SPB_PLUGIN_OK;
}
static int spmv(void *state, const void *x, void *y, char *m, size_t n)
{
    (void)state; (void)x; (void)m; (void)n;
    ((double *)y)[0] = 12345.0; /* wrong, whatever the matrix */
    for (int i = 1; i < ((const spb_plugin_csr *)state)->rows; i++) ((double *)y)[i] = 0;
    return SPB_PLUGIN_OK;
}
static const spb_plugin_kernel k[] = {{.name = "test.first_wrong", .description = "a test's kernel",
    .operation = SPB_PLUGIN_SPMV, .backend = SPB_PLUGIN_SERIAL, .prepare = prep, .spmv = spmv}};
const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {SPB_PLUGIN_ABI, 1, k}; return &l; }
"""


def test_processes_keep_wrong_rows(tmp):
    """run --processes 2 where the first process finds a wrong row and the
    second measures nothing (its only row declined): the study exits 1
    (wrong rows), not 3 (nothing measured)."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    mark = os.path.join(tmp, "first-process")
    lib = build(tmp, "first_wrong", FIRST_PROCESS_WRONG, '-DMARK="%s"' % mark)
    csv_path = os.path.join(tmp, "p.csv")
    r = spbench("run", *FAST, "--processes", "2", "--plugin", lib, "--kernels",
                "test.first_wrong", "--csv", csv_path, CAGE4)
    statuses = sorted(x["status"] for x in read_rows(csv_path)) if os.path.exists(csv_path) \
        else []
    check(os.path.exists(mark) and r.returncode == 1,
          "a wrong row in one process is the study's exit status 1: rc %d, rows %s, %s"
          % (r.returncode, statuses, r.stderr[-300:]))


def test_wrong_plugin_is_wrong(tmp):
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = one_kernel(tmp, "drops", drop=1)
    csv_path = os.path.join(tmp, "w.csv")
    r = spbench("run", *FAST, "--plugin", lib, "--kernels", "test.one,csr.serial", "--csv",
                csv_path, CAGE4)
    rows = {x["kernel"]: x for x in read_rows(csv_path)} if os.path.exists(csv_path) else {}
    check(r.returncode == 1 and rows.get("test.one", {}).get("status") == "wrong" and
          rows.get("csr.serial", {}).get("status") == "ok",
          "a plug-in that drops each row's last entry is wrong, the others ok: %s"
          % {k: x["status"] for k, x in rows.items()})
    right = one_kernel(tmp, "keeps", drop=0)
    r = spbench("run", *FAST, "--plugin", right, "--kernels", "test.one", "--csv",
                os.path.join(tmp, "k.csv"), CAGE4)
    check(r.returncode == 0, "the same loop without the drop is ok: %s" % r.stderr[-300:])


def test_misbehaving_kernels(tmp):
    """Each misdeed is its own row's error, saying what happened; every
    other row of the study is measured and written; the OpenMP kernel runs
    at 2 threads in its process."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = build(tmp, "bad", MISBEHAVING)
    if not lib:
        return
    csv_path = os.path.join(tmp, "bad.csv")
    r = spbench("run", *FAST, "--plugin", lib, "--kernels", "bad.*,good.omp,csr.serial",
                "--threads", "2", "--csv", csv_path, CAGE4, "gen:rmat:8:4",
                env=dict(os.environ, SPB_PLUGIN_HANG_S="2"), timeout=300)
    rows = {(x["matrix"], x["kernel"]): x for x in read_rows(csv_path)} \
        if os.path.exists(csv_path) else {}
    said = {"bad.crash": r"crashed: it touched an address outside the data.*Segmentation",
            # 2 s, and for a timed request 20x its products at the slowest pace
            # seen (a sanitizer build on a busy machine: 3 s)
            "bad.hang": r"no answer within [2-9] s: the kernel hung",
            "bad.past_y": r"crashed: it touched past the end of y",
            "bad.before_y": r"wrote before the start of y",
            "bad.into_x": r"crashed: it touched x, which is read-only to it"}
    for matrix in ("cage4", "gen:rmat:8:4"):
        for kernel, message in said.items():
            row = rows.get((matrix, kernel), {})
            check(row.get("status") == "error" and re.search(message, row.get("message", "")),
                  "%s on %s: an error saying what it did: %s %r" % (
                      kernel, matrix, row.get("status"), row.get("message")))
        for kernel in ("good.omp", "csr.serial"):
            check(rows.get((matrix, kernel), {}).get("status") == "ok",
                  "%s on %s measured beside them: %s" % (kernel, matrix,
                                                         rows.get((matrix, kernel))))
    check(r.returncode == 1, "error rows: exit 1 (%d) %s" % (r.returncode, r.stderr[-300:]))
    leftover = subprocess.run(["pgrep", "-f", "plugin-host " + lib], capture_output=True,
                              text=True)
    check(leftover.stdout.strip() == "", "no kernel process outlives the run: %s"
          % leftover.stdout)


# the example's SpGEMM kernel, then C spoilt after it in one way per kernel
SPGEMM_MISDEEDS = r"""
#include <string.h>
#define spb_plugin_kernels example_kernels
#include EXAMPLE
#undef spb_plugin_kernels
#define KERNEL(fn, misdeed) \
static int fn(void *state, spb_plugin_csr *C, char *m, size_t n) \
{ int rc = product_spgemm(state, C, m, n); product_state *s = state; (void)s; \
  if (rc == SPB_PLUGIN_OK && C->nnz > 2 && C->rows > 1) { misdeed; } return rc; }
static int32_t first_pair(const spb_plugin_csr *C) /* a row's first of two entries */
{ for (int32_t i = 0; i < C->rows; i++) if (C->row_ptr[i + 1] - C->row_ptr[i] >= 2) return C->row_ptr[i];
  return -1; }
KERNEL(wrong_value, if (s->fp32) ((float *)s->values)[C->nnz / 2] += 1; else ((double *)s->values)[C->nnz / 2] += 1)
KERNEL(unsorted, int32_t k = first_pair(C); if (k >= 0) { int32_t t = s->col_idx[k];
       s->col_idx[k] = s->col_idx[k + 1]; s->col_idx[k + 1] = t; })
KERNEL(short_of_rows, C->rows -= 1)
KERNEL(miscounted, C->nnz -= 1)
KERNEL(bad_pointer, C->col_idx = (const int32_t *)(size_t)64)
KERNEL(says_failed, snprintf(m, n, "no room for C"); return SPB_PLUGIN_FAILED)
KERNEL(says_bytes, memset(m, 0xfc, n); memcpy(m, "bad\n\x01", 5); return SPB_PLUGIN_FAILED)
KERNEL(fine, (void)0)
#define ROW(label, fn) {.name = label, .description = "a test's kernel", .fp32 = 1, \
    .operation = SPB_PLUGIN_SPGEMM, .backend = SPB_PLUGIN_SERIAL, .prepare = product_prepare, \
    .spgemm = fn, .release = product_release}
static const spb_plugin_kernel k[] = {
    ROW("sp.wrong_value", wrong_value), ROW("sp.unsorted", unsorted),
    ROW("sp.short_of_rows", short_of_rows), ROW("sp.miscounted", miscounted),
    ROW("sp.bad_pointer", bad_pointer), ROW("sp.says_failed", says_failed),
    ROW("sp.says_bytes", says_bytes), ROW("sp.fine", fine)};
const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {SPB_PLUGIN_ABI, 8, k}; return &l; }
"""


def test_spgemm_rows(tmp):
    """SpGEMM plug-in rows: the example's kernel ok in fp64 and fp32 beside
    spgemm.gustavson; a C with a wrong value is wrong; a C that is not a
    canonical CSR of A*B's shape, a bad pointer and a failure said are each
    their own row's error, naming it, and the rows beside them are ok."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = build(tmp, "spgemm_bad", SPGEMM_MISDEEDS, '-DEXAMPLE="%s"' % EXAMPLE)
    if not lib:
        return
    csv_path, json_path = os.path.join(tmp, "g.csv"), os.path.join(tmp, "g.json")
    r = spbench("run", *FAST, "--op", "spgemm", "--plugin", lib, "--kernels",
                "sp.*,spgemm.gustavson", "--precision", "both", "--csv",
                csv_path, "--json", json_path, CAGE4, "gen:rmat:9:6", timeout=300)
    rows = {(x["matrix"], x["kernel"], x["precision"]): x for x in read_rows(csv_path)} \
        if os.path.exists(csv_path) else {}
    said = {"sp.wrong_value": ("wrong", r""),
            "sp.unsorted": ("error", r"not a canonical CSR"),
            "sp.short_of_rows": ("error", r"its C is \d+ x \d+ .*A\*B is"),
            "sp.miscounted": ("error", r"row_ptr\[rows\] is \d+, its nnz"),
            "sp.bad_pointer": ("error", r"crashed: it touched an address outside"),
            "sp.says_failed": ("error", r"no room for C"),
            # bytes that are no text (no end either) arrive as one line of text
            "sp.says_bytes": ("error", r"^bad\?\?\?+$")}
    for matrix in ("cage4", "gen:rmat:9:6"):
        for precision in ("fp64", "fp32"):
            for kernel, (status, message) in said.items():
                row = rows.get((matrix, kernel, precision), {})
                check(row.get("status") == status and re.search(message, row.get("message", "")),
                      "%s on %s in %s: %s saying what: %s %r" % (
                          kernel, matrix, precision, status, row.get("status"),
                          row.get("message")))
            for kernel in ("sp.fine", "spgemm.gustavson"):
                row = rows.get((matrix, kernel, precision), {})
                check(row.get("status") == "ok" and float(row.get("gflops") or 0) > 0,
                      "%s on %s in %s measured beside them: %s" % (kernel, matrix, precision,
                                                                    row.get("status")))
    check(r.returncode == 1, "wrong and error rows: exit 1 (%d) %s" % (r.returncode,
                                                                     r.stderr[-300:]))
    check_results_json(json_path)


# CUDA kernels: the example's warp per row, then misdeeds from the third
# product on (the first two pass: validation, then the cap's); and an
# SpGEMM kernel whose C is made on the host by the C example's kernel
# (linked in) and uploaded, one with a C on the device that is no pointer
CUDA_KERNELS = r"""
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
#include <spbench/plugin.h>
extern "C" const spb_plugin_library *example_kernels(void);
static int calls;
__global__ void rows(int32_t n, const int32_t *rp, const int32_t *ci, const double *v,
                     const double *x, double *y, int drop, int misdeed, volatile int *spin)
{
    int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= n) return;
    double sum = 0;
    for (int32_t k = rp[row] + lane; k < rp[row + 1] - drop; k += 32) sum += v[k] * x[ci[k]];
    for (int o = 16; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o);
    if (lane) return;
    y[row] = sum;
    if (misdeed == 1 && row == 0) ((double *)(size_t)64)[0] = 1; /* no memory at all */
    if (misdeed == 2 && row == n - 1) y[n + 3] = 1;              /* just past y */
    if (misdeed == 3 && row == 0) while (*spin) {}               /* forever */
}
typedef struct { spb_plugin_csr A; int *spin; } state_t;
static int prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m, size_t n)
{
    (void)c; (void)m; (void)n;
    state_t *t = (state_t *)malloc(sizeof *t);
    t->A = *A;
    int one = 1;
    cudaMalloc(&t->spin, sizeof one);
    cudaMemcpy(t->spin, &one, sizeof one, cudaMemcpyHostToDevice);
    *s = t; calls = 0;
    return SPB_PLUGIN_OK;
}
static void release(void *s) { if (s) cudaFree(((state_t *)s)->spin); free(s); }
static int product(void *s, const void *x, void *y, int drop, int misdeed)
{
    state_t *t = (state_t *)s;
    rows<<<(unsigned)((t->A.rows * 32 + 255) / 256), 256>>>(t->A.rows, t->A.row_ptr,
        t->A.col_idx, (const double *)t->A.values, (const double *)x, (double *)y, drop,
        ++calls >= 3 ? misdeed : 0, t->spin);
    return SPB_PLUGIN_OK;
}
#define KERNEL(fn, drop, misdeed) static int fn(void *s, const void *x, void *y, char *m, \
    size_t n) { (void)m; (void)n; return product(s, x, y, drop, misdeed); }
KERNEL(fine, 0, 0) KERNEL(wrong, 1, 0) KERNEL(fault, 0, 1) KERNEL(past_y, 0, 2)
KERNEL(hang, 0, 3)

/* SpGEMM: the operands brought to the host, C made there by the C
 * example's kernel, then uploaded into buffers of this kernel's own */
typedef struct { spb_plugin_csr A, B; void *host; const spb_plugin_kernel *k;
                 void *c[3]; int bad; size_t vb; } gemm_t;
static void *down(const void *d, size_t bytes)
{ void *h = malloc(bytes + 1); cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost); return h; }
static spb_plugin_csr on_host(const spb_plugin_csr *M, size_t vb)
{ spb_plugin_csr h = *M;
  h.row_ptr = (const int32_t *)down(M->row_ptr, 4 * ((size_t)M->rows + 1));
  h.col_idx = (const int32_t *)down(M->col_idx, 4 * (size_t)M->nnz);
  h.values = down(M->values, vb * (size_t)M->nnz); return h; }
static int gemm_prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m,
                     size_t n, int bad)
{
    gemm_t *g = (gemm_t *)calloc(1, sizeof *g);
    size_t vb = c->precision == SPB_PLUGIN_FP32 ? 4 : 8;
    g->A = on_host(A, vb); g->B = on_host(c->B, vb); g->bad = bad; g->vb = vb;
    const spb_plugin_library *ex = example_kernels();
    for (int k = 0; k < ex->count; k++)
        if (ex->kernels[k].operation == SPB_PLUGIN_SPGEMM) g->k = &ex->kernels[k];
    spb_plugin_config hc = *c; hc.B = &g->B;
    *s = g;
    return g->k->prepare(&g->A, &hc, &g->host, m, n);
}
static int gemm(void *s, spb_plugin_csr *C, char *m, size_t n)
{
    gemm_t *g = (gemm_t *)s;
    spb_plugin_csr H;
    int rc = g->k->spgemm(g->host, &H, m, n);
    if (rc != SPB_PLUGIN_OK) return rc;
    for (int a = 0; a < 3; a++) cudaFree(g->c[a]);
    size_t bytes[3] = {4 * ((size_t)H.rows + 1), 4 * (size_t)H.nnz, g->vb * (size_t)H.nnz};
    const void *from[3] = {H.row_ptr, H.col_idx, H.values};
    for (int a = 0; a < 3; a++) {
        cudaMalloc(&g->c[a], bytes[a] + 1);
        cudaMemcpy(g->c[a], from[a], bytes[a], cudaMemcpyHostToDevice);
    }
    *C = H;
    C->row_ptr = (const int32_t *)g->c[0]; C->col_idx = (const int32_t *)g->c[1];
    C->values = g->c[2];
    if (g->bad) C->col_idx = (const int32_t *)(size_t)64;
    return SPB_PLUGIN_OK;
}
static void gemm_release(void *s)
{
    gemm_t *g = (gemm_t *)s;
    if (!g) return;
    if (g->k) g->k->release(g->host);
    for (int a = 0; a < 3; a++) cudaFree(g->c[a]);
    free(g);
}
static int gemm_prep_fine(const spb_plugin_csr *A, const spb_plugin_config *c, void **s,
                          char *m, size_t n) { return gemm_prep(A, c, s, m, n, 0); }
static int gemm_prep_bad(const spb_plugin_csr *A, const spb_plugin_config *c, void **s,
                         char *m, size_t n) { return gemm_prep(A, c, s, m, n, 1); }
#define ROW(label, fn) {label, "a test's kernel", SPB_PLUGIN_SPMV, SPB_PLUGIN_CUDA, 0, prep, \
    fn, NULL, release}
#define GEMM(label, pr) {label, "a test's kernel", SPB_PLUGIN_SPGEMM, SPB_PLUGIN_CUDA, 0, pr, \
    NULL, gemm, gemm_release}
static const spb_plugin_kernel k[] = {ROW("cu.fine", fine), ROW("cu.wrong", wrong),
    ROW("cu.fault", fault), ROW("cu.past_y", past_y), ROW("cu.hang", hang),
    GEMM("cu.gemm", gemm_prep_fine), GEMM("cu.gemm_bad_pointer", gemm_prep_bad)};
extern "C" const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {SPB_PLUGIN_ABI, 7, k}; return &l; }
"""


def nvcc():
    found = shutil.which("nvcc")
    return found or ("/usr/local/cuda/bin/nvcc" if os.access("/usr/local/cuda/bin/nvcc", os.X_OK)
                     else None)


def build_cuda(tmp, name, source_path, *objects):
    out = os.path.join(tmp, name + ".so")
    r = subprocess.run([nvcc(), "-O2", "-arch=sm_90", "-Xcompiler", "-fPIC", "-shared",
                        "-cudart", "shared", "-I", os.path.join(SOURCE, "include"), source_path,
                        *objects, "-o", out, "-lgomp"], capture_output=True, text=True)
    check(r.returncode == 0, "the CUDA plug-in %s builds: %s" % (name, r.stderr[-800:]))
    return out if r.returncode == 0 else None


def test_cuda_rows(tmp):
    """CUDA plug-in kernels, built with nvcc: where a device is, the example
    and a right kernel are ok, a wrong one wrong; a fault on the device, a
    write just past y, a hang and an SpGEMM C that is no device pointer are
    each their own row's error saying what, the rows beside them ok; an
    SpGEMM kernel's C on the device comes back validated. Where none is,
    every such row is skipped, saying why."""
    if not compiler() or not nvcc():
        skip("no nvcc: the CUDA plug-in tests", "nvcc")
        return
    example = build_cuda(tmp, "cuda_rows", os.path.join(SOURCE, "examples", "plugins",
                                                        "cuda_rows", "cuda_rows.cu"))
    host = os.path.join(tmp, "example.o")
    r = subprocess.run([compiler(), "-O2", "-fPIC", "-fopenmp", "-c", "-I",
                        os.path.join(SOURCE, "include"), "-Dspb_plugin_kernels=example_kernels",
                        EXAMPLE, "-o", host], capture_output=True, text=True)
    check(r.returncode == 0, "the C example builds as an object: %s" % r.stderr[-300:])
    source = os.path.join(tmp, "cuda_bad.cu")
    with open(source, "w") as f:
        f.write(CUDA_KERNELS)
    bad = build_cuda(tmp, "cuda_bad", source, host)
    if not example or not bad:
        return
    listed = spbench("--list", "--plugin", example).stdout
    here = "mine.csr.cuda.warp" in listed and "[unavailable" not in \
        [x for x in listed.splitlines() if x.startswith("mine.")][0]
    env = dict(os.environ, SPB_PLUGIN_HANG_S="3")
    csv_path, json_path = os.path.join(tmp, "cu.csv"), os.path.join(tmp, "cu.json")
    r = spbench("run", *FAST, "--plugin", example, "--plugin", bad, "--kernels",
                "mine.csr.cuda.warp,cu.fine,cu.wrong,cu.fault,cu.past_y,cu.hang,csr.serial", "--csv",
                csv_path, "--json", json_path, CAGE4, "gen:rmat:10:8", env=env, timeout=300)
    rows = {(x["matrix"], x["kernel"]): x for x in read_rows(csv_path)} \
        if os.path.exists(csv_path) else {}
    g = spbench("run", *FAST, "--op", "spgemm", "--plugin", bad, "--kernels",
                "cu.gemm,cu.gemm_bad_pointer,spgemm.gustavson", "--csv", csv_path + ".g", CAGE4,
                "gen:rmat:9:6", env=env, timeout=300)
    gemm_rows = {(x["matrix"], x["kernel"]): x for x in read_rows(csv_path + ".g")} \
        if os.path.exists(csv_path + ".g") else {}
    said = {"mine.csr.cuda.warp": ("ok", ""), "cu.fine": ("ok", ""), "cu.wrong": ("wrong", ""),
            "cu.fault": ("error", r"failed on the device: an illegal memory access"),
            "cu.past_y": ("error", r"it wrote just outside y"),
            "cu.hang": ("error", r"no answer within \d+ s: the kernel hung"),
            "csr.serial": ("ok", "")}
    gemm_said = {"cu.gemm": ("ok", ""), "cu.gemm_bad_pointer": ("error", r"a copy: "),
                 "spgemm.gustavson": ("ok", "")}
    if not here:
        skip("no CUDA device: the CUDA plug-in rows measured", "gpu")
        said = {k: ("skipped", "CUDA") if k.startswith(("mine.", "cu.")) else v
                for k, v in said.items()}
        gemm_said = {k: ("skipped", "CUDA") if k.startswith("cu.") else v
                     for k, v in gemm_said.items()}
    for table, found in ((said, rows), (gemm_said, gemm_rows)):
        for matrix in ("cage4", "gen:rmat:10:8" if table is said else "gen:rmat:9:6"):
            for kernel, (status, message) in table.items():
                row = found.get((matrix, kernel), {})
                check(row.get("status") == status and re.search(message, row.get("message", "")),
                      "%s on %s: %s %s: %s %r" % (kernel, matrix, status, message,
                                                  row.get("status"), row.get("message")))
    check(r.returncode == (1 if here else 0) and g.returncode == (1 if here else 0),
          "exit %d and %d: %s %s" % (r.returncode, g.returncode, r.stderr[-300:],
                                     g.stderr[-300:]))
    check_results_json(json_path)


# a kernel that declines, saying the CPUs its process may run on and its
# OpenMP places
CPUS = r"""
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <spbench/plugin.h>
static int prep(const spb_plugin_csr *A, const spb_plugin_config *c, void **s, char *m, size_t n)
{
    (void)A; (void)c; (void)s;
    cpu_set_t set;
    sched_getaffinity(0, sizeof set, &set);
    snprintf(m, n, "cpus=%d places=%d", CPU_COUNT(&set), omp_get_num_places());
    return SPB_PLUGIN_DECLINED;
}
static int spmv(void *s, const void *x, void *y, char *m, size_t n)
{ (void)s; (void)x; (void)y; (void)m; (void)n; return SPB_PLUGIN_FAILED; }
static const spb_plugin_kernel k[] = {{.name = "where.cpus", .description = "a test's kernel",
    .operation = SPB_PLUGIN_SPMV, .backend = SPB_PLUGIN_OPENMP, .prepare = prep, .spmv = spmv}};
const spb_plugin_library *spb_plugin_kernels(void)
{ static const spb_plugin_library l = {SPB_PLUGIN_ABI, 1, k}; return &l; }
"""


def test_kernel_process_has_every_cpu(tmp):
    """The kernel's process runs on all of spbench's CPUs (its OpenMP
    places span them), not on the one
    spbench's OpenMP runtime bound its first thread to (an OpenMP kernel
    at 2 threads ran both on one CPU, 2.2x slower than spbench's own)."""
    cpus = len(os.sched_getaffinity(0))
    if cpus < 2:
        skip("one CPU: a process on every CPU looks as one on the first", "cpus")
        return
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = build(tmp, "cpus", CPUS)
    csv_path = os.path.join(tmp, "cpus.csv")
    spbench("run", *FAST, "--plugin", lib, "--kernels", "where.cpus,csr.omp.static",
            "--threads", "2", "--csv", csv_path, CAGE4)
    rows = {x["kernel"]: x for x in read_rows(csv_path)} if os.path.exists(csv_path) else {}
    said = re.search(r"cpus=(\d+) places=(\d+)", rows.get("where.cpus", {}).get("message", ""))
    # its first thread is bound to one place by then: the places tell
    check(said and int(said.group(2)) >= 2,
          "the kernel's process has OpenMP places on more than one of the %d CPUs: %s"
          % (cpus, rows.get("where.cpus", {}).get("message")))


def test_interrupted_while_a_kernel_hangs(tmp):
    """Ctrl-C while a plug-in's product hangs: spbench stops it and ends
    at once (not at the hang limit), writes no row the stop cut short
    (they are left to --resume), and leaves no process behind."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    lib = build(tmp, "stopped", MISBEHAVING)
    if not lib:
        return
    csv_path = os.path.join(tmp, "stop.csv")
    p = subprocess.Popen([SPBENCH, "run", *FAST, "--plugin", lib, "--kernels", "bad.hang",
                          "--csv", csv_path, CAGE4], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, SPB_PLUGIN_HANG_S="120"))
    deadline = time.time() + 60
    while time.time() < deadline and not subprocess.run(
            ["pgrep", "-f", "plugin-host " + lib], capture_output=True).stdout:
        time.sleep(0.1)
    time.sleep(1.5)  # in the hanging product by now (its third call)
    p.send_signal(signal.SIGINT)
    start = time.time()
    try:
        _, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        _, err = p.communicate()
    waited = time.time() - start
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    check(waited < 10 and p.returncode == 128 + signal.SIGINT,
          "the run ends soon after Ctrl-C (%.1f s, exit %s) %s" % (waited, p.returncode, err[-300:]))
    check(rows == [], "no row written from the cut-short product: %s"
          % [(x["kernel"], x["status"], x["message"]) for x in rows])
    leftover = subprocess.run(["pgrep", "-f", "plugin-host " + lib], capture_output=True,
                              text=True)
    check(leftover.stdout.strip() == "", "no kernel process left: %s" % leftover.stdout)


def test_new_kernel(tmp):
    """spbench new-kernel writes the example under a new name, a folder of
    two files that builds and runs as the example does; a name that could
    reach another path, a file or a build script is refused, and an
    existing folder is never touched."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    for bad in ("../x", "x/y", "A", "a b", "1x", "x;rm", "$(id)", "x" * 33, ""):
        r = spbench("new-kernel", bad, "-o", os.path.join(tmp, "never"))
        check(r.returncode == 2 and not os.path.exists(os.path.join(tmp, "never")),
              "new-kernel %r refused, nothing made: %d %s" % (bad, r.returncode, r.stderr))
    folder = os.path.join(tmp, "made")
    r = spbench("new-kernel", "fast_rows", "-o", folder)
    check(r.returncode == 0 and sorted(os.listdir(folder)) == ["CMakeLists.txt", "fast_rows.c"],
          "new-kernel wrote the folder: %s %s" % (r.stdout, r.stderr))
    example = open(EXAMPLE).read().replace("csr_rows", "fast_rows").replace("mine.", "fast_rows.")
    check(open(os.path.join(folder, "fast_rows.c")).read() == example,
          "the source is the example under the new name")
    lib = build(tmp, "fast_rows", os.path.join(folder, "fast_rows.c"))
    csv_path = os.path.join(tmp, "n.csv")
    r = spbench("run", *FAST, "--plugin", lib, "--kernels", "fast_rows.*", "--csv", csv_path,
                CAGE4)
    rows = read_rows(csv_path) if os.path.exists(csv_path) else []
    check(r.returncode == 0 and [x["kernel"] for x in rows] ==
          ["fast_rows.csr.serial", "fast_rows.csr.omp"] and
          all(x["status"] == "ok" for x in rows),
          "its kernels run and validate: %s %s" % ([(x["kernel"], x["status"]) for x in rows],
                                                  r.stderr[-300:]))
    cuda_folder = os.path.join(tmp, "made_cuda")
    r = spbench("new-kernel", "warp_rows", "--cuda", "-o", cuda_folder)
    cuda_example = os.path.join(SOURCE, "examples", "plugins", "cuda_rows", "cuda_rows.cu")
    check(r.returncode == 0 and sorted(os.listdir(cuda_folder)) ==
          ["CMakeLists.txt", "warp_rows.cu"] and
          open(os.path.join(cuda_folder, "warp_rows.cu")).read() ==
          open(cuda_example).read().replace("cuda_rows", "warp_rows").replace("mine.",
                                                                            "warp_rows.") and
          "project(warp_rows CUDA)" in open(os.path.join(cuda_folder, "CMakeLists.txt")).read(),
          "new-kernel --cuda writes the CUDA example under the new name: %s %s"
          % (r.stdout, r.stderr))
    before = {f: open(os.path.join(folder, f)).read() for f in os.listdir(folder)}
    r = spbench("new-kernel", "other", "-o", folder)
    check(r.returncode == 2 and "exists" in r.stderr and
          {f: open(os.path.join(folder, f)).read() for f in os.listdir(folder)} == before,
          "an existing folder is refused and left as it was: %s" % r.stderr)


def test_refused_libraries(tmp):
    """Each refused with exit 2 and one line naming the library, before
    anything is measured (no results file made)."""
    if not compiler():
        skip("no C compiler: the plug-in tests", "cc")
        return
    cases = {
        "another ABI": (one_kernel(tmp, "abi", abi="999"), "ABI 999"),
        "not a plug-in": (build(tmp, "plain", "int plain(void) { return 1; }\n"),
                          "not a plug-in"),
        "a name spbench holds": (one_kernel(tmp, "taken", kernel='"csr.serial"'),
                                 "already holds"),
        "a name no file can carry": (one_kernel(tmp, "odd", kernel='"a b"'), "letters"),
        "a missing file": (os.path.join(tmp, "missing.so"), "cannot read"),
    }
    for what, (lib, said) in cases.items():
        out = os.path.join(tmp, "never.csv")
        r = spbench("run", *FAST, "--plugin", lib or "", "--csv", out, CAGE4)
        lines = r.stderr.strip().splitlines()
        check(r.returncode == 2 and len(lines) == 1 and said in lines[0] and
              (lib or "") in lines[0] and not os.path.exists(out),
              "%s is refused in one line before measuring: %d %s" % (what, r.returncode,
                                                                     r.stderr[-300:]))
    # a description of bytes that are no text is listed as one line of text
    said = build(tmp, "said", ONE_KERNEL.replace('"a test\'s kernel"',
                                                 '"red\\x1b[31m\\nline\\xfc end"'),
                 "-DDROP=0", "-DABI=SPB_PLUGIN_ABI", '-DNAME="test.said"')
    r = subprocess.run([SPBENCH, "--list", "--plugin", said], capture_output=True)
    listed = [x for x in r.stdout.split(b"\n") if x.startswith(b"test.said")]
    check(r.returncode == 0 and len(listed) == 1 and b"red?[31m?line? end" in listed[0],
          "a plug-in's description is listed as one line of text: %r" % listed)
    # SPB_PLUGIN_PATH: a folder's libraries, as --plugin loads one
    folder = os.path.join(tmp, "folder")
    os.mkdir(folder)
    shutil.copy(one_kernel(tmp, "in_path"), os.path.join(folder, "one.so"))
    r = spbench("--list", env=dict(os.environ, SPB_PLUGIN_PATH=folder))
    check(r.returncode == 0 and re.search(r"^test\.one .*\[plug-in: %s/one\.so" % re.escape(folder),
                                          r.stdout, re.M),
          "SPB_PLUGIN_PATH's folder is loaded: %s" % r.stderr[-300:])


if __name__ == "__main__":
    run_tests([test_rows_like_any_other, test_two_libraries, test_wrong_plugin_is_wrong,
               test_spgemm_rows, test_cuda_rows,
               test_processes_keep_wrong_rows, test_misbehaving_kernels,
               test_kernel_process_has_every_cpu, test_interrupted_while_a_kernel_hangs,
               test_new_kernel, test_refused_libraries],
              "spb_e2e_plugins_", globals())
