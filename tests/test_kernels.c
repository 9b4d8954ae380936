/* test_kernels.c — every kernel of the table against the reference on fresh
 * random matrices and the awkward shapes; the table is the loop, so a new
 * kernel needs no new test code (the run's rules around the kernels:
 * kernel_rules.c). Kernels that cannot run here (no device)
 * are counted as skipped; if none can run the test reports itself skipped. */
#include <math.h>
#include <string.h>

#include "bench/inputs/gen.h"
#include "bench/inputs/rng.h"
#include "bench/run/op_spmv.h"
#include "bench/run/run.h"
#include "bench/validation/validate.h"
#include "check.h"
#include "check_gpu.h"
#include "core/timing.h"
#include "cpu/spmv_cpu.h"
#include "formats/format_set.h"
#include "gpu/gpu.h"
#include "test_kernels.h"

static int ran, skipped;
static int *ran_by_kernel;   /* every kernel must run somewhere, declines aside */
static int *ran32_by_kernel; /* and every fp32 version (both sized from the table) */
static int want_cuda;        /* which half of the table this run checks */
static int fast;             /* the quick subset (ctest -L unit): fewer threads and shapes */
static int wide; /* every matrix on wide row offsets: the large matrices' path on small ones */

void random_csr(spb_rng *rng, spb_index m, spb_index n, spb_index nnz, spb_index long_row,
                spb_index long_len, spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    if (m == 0 || n == 0) nnz = long_len = 0;
    if (long_row < 0 || long_row >= m) long_len = 0;
    coo_alloc(&coo, m, n, nnz + long_len, msg);
    for (spb_index k = 0; k < nnz; k++) {
        coo.row[k] = (spb_index)spb_rng_below(rng, (uint64_t)m);
        coo.col[k] = (spb_index)spb_rng_below(rng, (uint64_t)n);
        coo.val[k] = spb_rng_value(rng);
    }
    for (spb_index k = 0; k < long_len; k++) {
        coo.row[nnz + k] = long_row;
        coo.col[nnz + k] = (spb_index)spb_rng_below(rng, (uint64_t)n);
        coo.val[nnz + k] = spb_rng_value(rng);
    }
    csr_from_coo(&coo, A, msg);
    coo_free(&coo);
}

/* Rows of two lengths, short and long in turn, on distinct random columns:
 * every hack of 32 rows pads its short rows to the long length, so HLL's
 * padding is 2 long / (short + long). */
void two_length_csr(spb_rng *rng, spb_index m, spb_index n, spb_index short_len, spb_index long_len,
                    spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    coo_alloc(&coo, m, n, (m / 2 + 1) * (short_len + long_len), msg);
    spb_index k = 0;
    for (spb_index i = 0; i < m; i++) {
        spb_index start = (spb_index)spb_rng_below(rng, (uint64_t)n);
        for (spb_index j = 0; j < (i % 2 ? long_len : short_len); j++, k++) {
            coo.row[k] = i;
            coo.col[k] = (start + 7 * j) % n; /* distinct while 7 * len < n */
            coo.val[k] = spb_rng_value(rng);
        }
    }
    coo.nnz = k;
    csr_from_coo(&coo, A, msg);
    coo_free(&coo);
}

static int kernel_index(const spb_kernel *kernel)
{
    const spb_operation *op = operation_spmv();
    for (int k = 0; k < op->kernel_count; k++)
        if (op->kernels[k] == kernel) return k;
    return 0;
}

/* The last product's y against the reference (status and the worst
 * entry named) and, for integer data in fp64, against the exact answer. */
static void check_answer(const spb_kernel *kernel, const spb_case *c,
                         const spb_kernel_config *config, spb_row_status status,
                         const spb_validation *v, const char *msg, const spb_value *y_ref,
                         const spb_value *exact)
{
    const spb_value *y = spmv_case_y(c);
    spb_index worst = 0;
    for (spb_index i = 0; i < c->A->m; i++)
        if (!(fabs(y[i] - y_ref[i]) <= fabs(y[worst] - y_ref[worst]))) worst = i;
    CHECK(status == SPB_ROW_OK,
          "%s/%s on %s (H=%d, %d threads): %s, rel_l2 %.3e; y[%d] = %.17g, expected %.17g",
          kernel->name, spb_precision_str(config->precision), c->name, (int)config->hack_size,
          config->threads, msg, v->rel_l2, (int)worst, c->A->m ? y[worst] : 0.0,
          c->A->m ? y_ref[worst] : 0.0);
    spb_index inexact = -1;
    for (spb_index i = 0; exact && config->precision == SPB_FP64 && i < c->A->m && inexact < 0; i++)
        if (y[i] != exact[i]) inexact = i;
    CHECK(inexact < 0, "%s on %s (H=%d, %d threads): integer data, y[%d] = %.17g, exactly %.17g",
          kernel->name, c->name, (int)config->hack_size, config->threads, (int)inexact,
          inexact >= 0 ? y[inexact] : 0.0, inexact >= 0 ? exact[inexact] : 0.0);
}

/* One kernel at every hack size (and thread count 1-4 for OpenMP), in fp64
 * and, where it has one, its fp32 version, on the case; each product starts
 * from a NaN-poisoned y (device rows: at three block sizes). exact, when given, is the
 * integer-valued answer every fp64 kernel must reproduce bit for bit. */
static void check_kernel(const spb_kernel *kernel, spb_case *c, const spb_value *y_ref,
                         const spb_value *exact)
{
    const spb_operation *op = operation_spmv();
    static const spb_index hack_sizes[] = {1, 7, 32};
    int max_threads = kernel->backend == SPB_BACKEND_OPENMP ? (fast ? 2 : 4) : 1;
    int precisions = kernel->fp32 ? 2 : 1;
    /* the quick tier runs the rows that time a trial (most of its time) and
     * the libraries, which take no hack size, at the default hack size only */
    int one_hack =
        fast && (strncmp(kernel->name, "auto.", 5) == 0 || strcmp(kernel->name, "librsb") == 0 ||
                 strcmp(kernel->name, "graphblas") == 0);
    for (int run = 0; run < 3 * max_threads * precisions; run++) {
        int h = run % 3, threads = 1 + run / 3 % max_threads;
        if (one_hack && h != 2) continue;
        spb_precision precision = run / (3 * max_threads) ? SPB_FP32 : SPB_FP64;
        double tolerance = SPB_DEFAULT_TOLERANCE; /* each row's own rounding bound */
        /* device rows: the default block, the largest and the smallest */
        static const int device_blocks[] = {0, 1024, 32};
        int block = kernel->backend == SPB_BACKEND_CUDA ? device_blocks[h] : 0;
        spb_kernel_config config = {.hack_size = hack_sizes[h],
                                    .threads = threads,
                                    .block_size = block,
                                    .precision = precision,
                                    .cache_bytes = TEST_CACHE_BYTES,
                                    .device_cache_bytes = TEST_CACHE_BYTES};
        spb_kernel_plan plan = {0};
        char msg[SPB_MSG_LEN] = "";
        if (run_kernel_declines(kernel, c->A, NULL, NAN, &config, msg) != SPB_OK) { /* the gate */
            CHECK(csr_wide(c->A) && !kernel->wide_offsets, "%s on %s declined: %s", kernel->name,
                  c->name, msg);
            skipped++;
            continue;
        }
        spb_status st = kernel->prepare(kernel, &c->formats, &config, &plan, msg);
        if (st == SPB_ERR_DECLINED) { /* declined by design (e.g. not a pattern matrix) */
            skipped++;
            continue;
        }
        CHECK(st == SPB_OK, "%s on %s (block %d): prepare failed: %s", kernel->name, c->name, block,
              msg);
        if (st != SPB_OK) continue;
        const int chose_library = strncmp(msg, "cusparse", 8) == 0; /* auto.cuda's choice */
        spb_validation v;
        spb_row_status status = op->product(kernel, plan.state, c, precision, tolerance, &v, msg);
        /* spbench's device kernels use no float atomics: the same bits every
         * call (the libraries' may differ: cuSPARSE's, also where auto.cuda's
         * message says it chose one, and CUSP's HYB, whose COO part on a row
         * of 100k entries was measured to) */
        spb_value *first = NULL;
        if (status == SPB_ROW_OK && kernel->backend == SPB_BACKEND_CUDA &&
            strncmp(kernel->name, "cusparse", 8) != 0 && strncmp(kernel->name, "cusp.", 5) != 0 &&
            !chose_library && (first = malloc(sizeof *first * (size_t)(c->A->m + 1))))
            memcpy(first, spmv_case_y(c), sizeof *first * (size_t)c->A->m);
        if (kernel->time_calls) /* a few device-resident products, then a whole one */
            CHECK(kernel->time_calls(plan.state, 3) >= 0, "%s: timed calls failed", kernel->name);
        else
            CHECK(op->host_calls(kernel, plan.state, c, precision, 2, msg) == SPB_OK,
                  "%s: calls: %s", kernel->name, msg);
        if (status == SPB_ROW_OK) /* re-poisoned: y must be written again, not accumulated */
            status = op->product(kernel, plan.state, c, precision, tolerance, &v, msg);
        const spb_value *y = spmv_case_y(c);
        if (first && status == SPB_ROW_OK)
            CHECK(memcmp(first, y, sizeof *y * (size_t)c->A->m) == 0,
                  "%s on %s (H=%d): two products differ in their bits", kernel->name, c->name,
                  (int)hack_sizes[h]);
        free(first);
        check_answer(kernel, c, &config, status, &v, msg, y_ref, exact);
        kernel->release(plan.state);
        ran++;
        ran_by_kernel[kernel_index(kernel)]++;
        if (precision == SPB_FP32) ran32_by_kernel[kernel_index(kernel)]++;
    }
}

/* Every kernel of this run's half of the table on A with x; the format set
 * is shared, so each (format, hack size) must be converted once. */
static double started; /* when main began: the progress lines' clock */

static void check_all_kernels_x(const char *label, const spb_csr *narrow, const spb_value *x,
                                const spb_value *exact)
{
    const spb_operation *op = operation_spmv();
    char msg[SPB_MSG_LEN] = "";
    spb_csr widened = *narrow; /* in wide mode: the same matrix on 64-bit row offsets */
    if (wide) {
        widened.row_ptr = spb_malloc((size_t)narrow->m + 1, sizeof *narrow->row_ptr);
        memcpy(widened.row_ptr, narrow->row_ptr, sizeof *narrow->row_ptr * ((size_t)narrow->m + 1));
        CHECK(csr_widen(&widened, msg) == SPB_OK && csr_check(&widened, msg) == SPB_OK, "%s: %s",
              label, msg);
    }
    const spb_csr *A = &widened;
    spb_case c = {.name = label, .A = A};
    CHECK(op->case_setup(&c, 1, msg) == SPB_OK, "%s: setup: %s", label, msg);
    spmv_case_set_x(&c, x);
    format_set_init(&c.formats, A);
    spb_value *y_ref = malloc(sizeof *y_ref * (size_t)(A->m + 1));
    csr_reference_spmv(A, x, y_ref, NULL);
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        if ((kernel->backend == SPB_BACKEND_CUDA) != want_cuda) continue;
        char why[SPB_MSG_LEN] = "";
        if (kernel->supports && !kernel->supports(kernel, A, why)) {
            skipped++;
            continue;
        }
        check_kernel(kernel, &c, y_ref, exact);
    }
    int formats = c.formats.used + (c.formats.csr_val32 != NULL); /* fp32 values: one more */
    CHECK(c.formats.conversions == formats, "%s: %d conversions for %d formats", label,
          c.formats.conversions, formats);
    format_set_free(&c.formats);
    op->case_free(&c);
    free(y_ref);
    if (wide) spb_free(widened.row_ptr64);
    /* progress, so a slow (busy) machine shows where the test is */
    printf("%-36s done: %d kernel runs so far, %.1f s\n", label, ran, timing_now() - started);
    fflush(stdout);
}

static void check_all_kernels(const char *label, const spb_csr *A, uint64_t seed)
{
    spb_value *x = malloc(sizeof *x * (size_t)(A->n + 1));
    spmv_random_vector(seed, A->n, x);
    check_all_kernels_x(label, A, x, NULL);
    free(x);
}

/* Small integers in A and x: every partial sum is exact in fp64, whatever
 * the order, so every kernel must return the exact product. */
static void check_integer_exact(spb_rng *rng)
{
    spb_csr A;
    random_csr(rng, 1000, 700, 20000, 3, 5000, &A);
    for (spb_index k = 0; k < A.nnz; k++) {
        int v = (int)spb_rng_below(rng, 7) - 3;
        A.val[k] = v ? v : 4;
    }
    spb_value *x = malloc(sizeof *x * (size_t)A.n), *exact = malloc(sizeof *exact * (size_t)A.m);
    for (spb_index j = 0; j < A.n; j++) {
        int v = (int)spb_rng_below(rng, 9) - 4;
        x[j] = v ? v : 5;
    }
    for (spb_index i = 0; i < A.m; i++) { /* an independent integer product */
        int64_t sum = 0;
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
            sum += (int64_t)A.val[k] * (int64_t)x[A.col_idx[k]];
        exact[i] = (double)sum;
    }
    check_all_kernels_x("integer-valued", &A, x, exact);
    free(x);
    free(exact);
    csr_free(&A);
}

/* In fp32 every kernel of this half declines a matrix holding a value
 * beyond fp32's range (pattern kernels too: their one value is that one),
 * naming it, rather than computing with an infinity. */
static void check_fp32_overflow_declined(void)
{
    spb_index row_ptr[] = {0, 1, 2}, col_idx[] = {0, 4999}; /* x past the test cache: panels */
    spb_value val[] = {1e39, 1e39};
    spb_csr A = {2, 5000, 2, row_ptr, col_idx, val, 0, NULL};
    spb_format_set formats;
    format_set_init(&formats, &A);
    const spb_operation *op = operation_spmv();
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char msg[SPB_MSG_LEN] = "";
        if ((kernel->backend == SPB_BACKEND_CUDA) != want_cuda || !kernel->fp32) continue;
        if (kernel->supports && !kernel->supports(kernel, &A, msg)) continue;
        spb_kernel_config config = {.hack_size = 32,
                                    .threads = 1,
                                    .precision = SPB_FP32,
                                    .cache_bytes = TEST_CACHE_BYTES,
                                    .device_cache_bytes = TEST_CACHE_BYTES};
        spb_kernel_plan plan = {0};
        spb_status st = kernel->prepare(kernel, &formats, &config, &plan, msg);
        CHECK(st == SPB_ERR_DECLINED && strstr(msg, "overflows fp32"),
              "%s: an fp32 overflow gives status %d: %s", kernel->name, (int)st, msg);
        if (st == SPB_OK) kernel->release(plan.state);
    }
    format_set_free(&formats);
}

/* A random matrix whose stored values are all `value`: a pattern matrix,
 * which the pattern kernels take instead of declining. */
static void check_iso(const char *label, spb_rng *rng, spb_index m, spb_index n, spb_index nnz,
                      spb_value value)
{
    spb_csr A;
    random_csr(rng, m, n, nnz, m / 2, n / 3, &A);
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = value;
    check_all_kernels(label, &A, spb_rng_next(rng));
    csr_free(&A);
}

static void check_random(const char *label, spb_rng *rng, spb_index m, spb_index n, spb_index nnz,
                         spb_index long_row, spb_index long_len)
{
    spb_csr A;
    random_csr(rng, m, n, nnz, long_row, long_len, &A);
    check_all_kernels(label, &A, spb_rng_next(rng));
    csr_free(&A);
}

/* usage: test_kernels [MATRIX_DIR] [host|cuda] [fast|wide] — host kernels by
 * default; "cuda" checks the device kernels (check_gpu.h: skipped, 77,
 * only where no device is listed and SPB_REQUIRE_GPU is not 1); "fast" runs OpenMP kernels at 1-2
 * threads and two random shapes instead of ten (every kernel still runs);
 * "wide" runs every shape on 64-bit row offsets, as a matrix of more than
 * 2^31 - 1 entries is stored: the kernels that take them must pass, the
 * others be declined by the run's gate. */
int main(int argc, char **argv)
{
    want_cuda = argc > 2 && strcmp(argv[2], "cuda") == 0;
    fast = argc > 3 && strcmp(argv[3], "fast") == 0;
    wide = argc > 3 && strcmp(argv[3], "wide") == 0;
    int kernels = operation_spmv()->kernel_count;
    ran_by_kernel = calloc((size_t)kernels, sizeof *ran_by_kernel);
    ran32_by_kernel = calloc((size_t)kernels, sizeof *ran32_by_kernel);
    if (!ran_by_kernel || !ran32_by_kernel) return 1;
    started = timing_now();
    unsigned long long seed = check_seed();
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    check_random("0x0", &rng, 0, 0, 0, -1, 0);
    check_random("1x0", &rng, 1, 0, 0, -1, 0);
    check_random("0x1", &rng, 0, 1, 0, -1, 0);
    check_random("nnz = 0", &rng, 77, 50, 0, -1, 0);
    check_random("empty rows", &rng, 500, 500, 100, -1, 0);
    check_random("one row holding most entries", &rng, 200, 5000, 300, 13, 4000);
    check_random("wide", &rng, 3, 2000, 500, -1, 0);
    check_random("tall", &rng, 3000, 2, 1000, -1, 0);
    check_random("fewer rows than threads", &rng, 3, 50, 40, -1, 0);
    check_random("one row", &rng, 1, 70, 30, -1, 0);
    check_random("rows not a multiple of 32", &rng, 32 * 5 + 13, 211, 3000, -1, 0);
    check_random("a row of 100k entries", &rng, 40, 200000, 100, 39, 100000);
    check_random("every row longer than a GPU tile", &rng, 300, 5000, 200000, -1, 0);
    for (int round = 0; round < (fast ? 2 : 10); round++) {
        spb_index m = 1 + (spb_index)spb_rng_below(&rng, 2000);
        spb_index n = 1 + (spb_index)spb_rng_below(&rng, 2000);
        check_random("random", &rng, m, n, (spb_index)spb_rng_below(&rng, 20000),
                     (spb_index)spb_rng_below(&rng, 4000), (spb_index)spb_rng_below(&rng, 3000));
    }
    /* gen:fem: dense 3x3 blocks on 3993 rows (BSR without zeros, a last
     * block row cut short at other sizes) */
    static const char *const generated[] = {"gen:lap2d:37",  "gen:lap3d:11", "gen:random:999:9",
                                            "gen:rmat:10:8", "gen:fem:11:3", "gen:rmat:10:8:80"};
    for (int g = 0; g < (int)(sizeof generated / sizeof generated[0]); g++) {
        spb_csr A;
        char msg[SPB_MSG_LEN] = "";
        CHECK(gen_matrix(generated[g], &A, msg) == SPB_OK, "%s", msg);
        check_all_kernels(generated[g], &A, seed + (unsigned long long)g);
        csr_free(&A);
    }
    check_integer_exact(&rng);
    check_iso("pattern, all ones", &rng, 700, 900, 6000, 1.0);
    check_iso("all values -2.5", &rng, 321, 77, 2000, -2.5);
    check_iso("pattern, empty", &rng, 40, 40, 0, 1.0);
    const spb_operation *op = operation_spmv();
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if ((kernel->backend == SPB_BACKEND_CUDA) != want_cuda) continue;
        if (kernel->supports && !kernel->supports(kernel, NULL, why)) continue;
        if (wide && !kernel->wide_offsets) { /* declined by the run's gate, before prepare */
            CHECK(ran_by_kernel[k] == 0, "%s ran on wide row offsets", kernel->name);
            continue;
        }
        CHECK(ran_by_kernel[k] > 0, "%s never ran: it declined every test matrix", kernel->name);
        CHECK(!kernel->fp32 || ran32_by_kernel[k] > 0, "%s never ran in fp32", kernel->name);
    }
    if (wide) { /* the rest is the narrow run's */
        printf("%d kernel runs on wide row offsets, %d declined\n", ran, skipped);
        /* on a device too: its CSR rows and cuSPARSE's CSR and COO take them */
        CHECK(ran > 0, "no %s row took wide row offsets", want_cuda ? "device" : "host");
        free(ran_by_kernel);
        free(ran32_by_kernel);
        return check_done();
    }
    check_fp32_overflow_declined();
    if (want_cuda && ran > 0) check_auto_cuda_rule(&rng);
    if (want_cuda && ran > 0) check_shared_x(&rng);
    if (!want_cuda) {
        check_trial();
        check_auto_rule(&rng);
        check_auto_cuda_rule_host();
        check_run_converts_once();
        check_failure_is_error();
        check_cap_judges_the_product();
        check_break_even();
        check_superlinear_marked();
    }
    printf("%d kernel runs, %d skipped (cannot run here)\n", ran, skipped);
    free(ran_by_kernel);
    free(ran32_by_kernel);
    return want_cuda ? check_gpu_done(ran) : check_done();
}
