/* test_spgemm.c — every SpGEMM kernel of the table (all thread counts
 * 1-4) against an independent dense product on hand-made and random
 * operands: the pattern (an entry wherever some stored a_ik meets a stored
 * b_kj, zeros included) must match exactly, values within tolerance of
 * |A||B|. The Gustavson reference itself is checked the same way, and the
 * size refusals by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auto_message.h"
#include "bench/inputs/gen.h"
#include "bench/inputs/rng.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/run.h"
#include "bench/validation/validate.h"
#include "check.h"
#include "check_gpu.h"
#include "cpu/spgemm_cpu.h"
#include "formats/mm.h"
#include "given_c.h"
#include "gpu/auto_rules.h"
#include "gpu/gpu.h"

/* A CSR matrix from a dense array in which NAN means "not stored" (so
 * stored zeros can be written as 0). */
static void csr_from_dense(spb_index m, spb_index n, const double *d, spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index nnz = 0;
    for (spb_index k = 0; k < m * n; k++) nnz += !isnan(d[k]);
    csr_alloc(A, m, n, nnz, msg);
    nnz = 0;
    for (spb_index i = 0; i < m; i++) {
        for (spb_index j = 0; j < n; j++)
            if (!isnan(d[i * n + j])) {
                A->col_idx[nnz] = j;
                A->val[nnz++] = d[i * n + j];
            }
        A->row_ptr[i + 1] = nnz;
    }
}

/* The dense product and its pattern, computed from the stored entries;
 * stored counts each entry's products. */
static void dense_product(const spb_csr *A, const spb_csr *B, double *val, double *scale,
                          int *stored)
{
    memset(val, 0, sizeof *val * (size_t)A->m * B->n);
    memset(scale, 0, sizeof *scale * (size_t)A->m * B->n);
    memset(stored, 0, sizeof *stored * (size_t)A->m * B->n);
    for (spb_index i = 0; i < A->m; i++)
        for (spb_index ka = A->row_ptr[i]; ka < A->row_ptr[i + 1]; ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_index kb = B->row_ptr[r]; kb < B->row_ptr[r + 1]; kb++) {
                size_t at = (size_t)i * B->n + B->col_idx[kb];
                val[at] += A->val[ka] * B->val[kb];
                scale[at] += fabs(A->val[ka] * B->val[kb]);
                stored[at]++;
            }
        }
}

/* C against the dense product: pattern exact, values within 1e-12 * scale
 * in fp64. In fp32 every value must be a float (a kernel that summed in
 * double would not give one) within fp32's rounding bound: the operands
 * rounded (2u) and k products summed (k u), u = 2^-24. */
static void check_against_dense(const char *label, const char *kernel, int threads,
                                spb_precision precision, const spb_csr *A, const spb_csr *B,
                                const spb_csr *C)
{
    size_t size = (size_t)A->m * B->n + 1;
    double *val = malloc(sizeof *val * size), *scale = malloc(sizeof *scale * size);
    int *stored = malloc(sizeof *stored * size);
    const char *in = precision == SPB_FP32 ? "/fp32" : "";
    dense_product(A, B, val, scale, stored);
    int ok = C->m == A->m && C->n == B->n && csr_check(C, NULL) == SPB_OK;
    for (spb_index i = 0; ok && i < A->m; i++) {
        spb_index k = C->row_ptr[i];
        for (spb_index j = 0; ok && j < B->n; j++) {
            size_t at = (size_t)i * B->n + j;
            if (!stored[at]) continue;
            int here = k < C->row_ptr[i + 1] && C->col_idx[k] == j;
            CHECK(here, "%s, %s%s at %d threads: (%d, %d) missing", label, kernel, in, threads,
                  (int)i, (int)j);
            ok = here;
            if (!here) break;
            double bound =
                precision == SPB_FP32 ? (stored[at] + 3) * 0x1p-24 * scale[at] : 1e-12 * scale[at];
            CHECK(fabs(C->val[k] - val[at]) <= bound,
                  "%s, %s%s at %d threads: (%d, %d) = %.17g, expected %.17g", label, kernel, in,
                  threads, (int)i, (int)j, C->val[k], val[at]);
            if (precision == SPB_FP32)
                CHECK((double)(float)C->val[k] == C->val[k],
                      "%s, %s/fp32: (%d, %d) = %.17g is not a float: not summed in fp32", label,
                      kernel, (int)i, (int)j, C->val[k]);
            k++;
        }
        if (ok) {
            CHECK(k == C->row_ptr[i + 1], "%s, %s%s at %d threads: row %d has extra entries", label,
                  kernel, in, threads, (int)i);
            ok = k == C->row_ptr[i + 1];
        }
    }
    CHECK(ok, "%s, %s%s at %d threads: C does not match the dense product", label, kernel, in,
          threads);
    free(val);
    free(scale);
    free(stored);
}

static int kernels_run;
static int want_cuda; /* which half of the table this run checks */

/* Launch shapes each device kernel runs with: its defaults, the smallest
 * block and tile (many tiles per row), and large ones. */
static const int cuda_shapes[][2] = {{0, 0}, {32, 32}, {256, 4096}};
#define CUDA_SHAPES ((int)(sizeof cuda_shapes / sizeof cuda_shapes[0]))

/* A row of one library algorithm (a name ending ".algN") says in its
 * message that it ran ALGN, not the library's default. */
static void check_algorithm_named(const char *label, const char *name, const char *msg)
{
    const char *alg = strrchr(name, '.');
    if (!alg || strncmp(alg, ".alg", 4) != 0) return;
    char expected[16];
    snprintf(expected, sizeof expected, "ALG%s", alg + 4);
    CHECK(strstr(msg, expected) && !strstr(msg, "default"), "%s, %s: its message \"%s\" lacks %s",
          label, name, msg, expected);
}

static int peaks_counted; /* device rows whose product's memory was counted */

/* A device product's memory: at least C's arrays on the device (it holds
 * them), NAN only for a row that allocates outside the counted pool. */
static void check_peak_bytes(const char *label, const spb_kernel *kernel, const void *state,
                             const spb_csr *C, spb_precision precision)
{
    double peak = spgemm_kernel_of(kernel)->device_peak_bytes(state);
    double c_bytes = sizeof(int) * ((double)C->m + 1) +
                     ((double)sizeof(int) + spb_precision_bytes(precision)) * (double)C->nnz;
    CHECK(isnan(peak) || peak >= c_bytes,
          "%s, %s: a product's device memory %.0f bytes, below C's %.0f", label, kernel->name, peak,
          c_bytes);
    peaks_counted += !isnan(peak);
}

/* Every kernel of this run's half that can run here, in fp64 and (where it
 * has one) fp32: OpenMP ones at 1-4 threads, device ones at each launch
 * shape. */
static void check_all(const char *label, const spb_csr *A, const spb_csr *B)
{
    const spb_operation *op = operation_spgemm();
    spb_format_set F;
    format_set_init(&F, A);
    F.b = B;
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if ((kernel->backend == SPB_BACKEND_CUDA) != want_cuda) continue;
        if (kernel->supports && !kernel->supports(kernel, A, why)) continue;
        int shapes = kernel->backend == SPB_BACKEND_OPENMP ? 4 : want_cuda ? CUDA_SHAPES : 1;
        int variants = shapes * (kernel->fp32 ? 2 : 1);
        for (int v = 0; v < variants; v++) {
            int threads = kernel->backend == SPB_BACKEND_OPENMP ? v % shapes + 1 : 1;
            spb_precision precision = v < shapes ? SPB_FP64 : SPB_FP32;
            spb_kernel_config config = {
                .hack_size = 32, .threads = threads, .precision = precision};
            if (want_cuda) {
                config.block_size = cuda_shapes[v % shapes][0];
                config.tile = cuda_shapes[v % shapes][1];
            }
            spb_kernel_plan plan = {0};
            char msg[SPB_MSG_LEN] = "";
            spb_status st = kernel->prepare(kernel, &F, &config, &plan, msg);
            CHECK(st == SPB_OK, "%s, %s (block %d, tile %d): prepare: %s", label, kernel->name,
                  config.block_size, config.tile, msg);
            if (st != SPB_OK) continue;
            check_algorithm_named(label, kernel->name, msg);
            for (int call = 0; call < 2; call++) { /* a second call reuses the state */
                spb_csr C;
                st = spgemm_kernel_of(kernel)->spgemm(plan.state, &C, msg);
                CHECK(st == SPB_OK, "%s, %s: %s", label, kernel->name, msg);
                if (st == SPB_OK)
                    check_against_dense(label, kernel->name, threads, precision, A, B, &C);
                if (st == SPB_OK && spgemm_kernel_of(kernel)->device_peak_bytes)
                    check_peak_bytes(label, kernel, plan.state, &C, precision);
                csr_free(&C);
            }
            if (kernel->time_calls) /* timed products leave the state usable */
                CHECK(kernel->time_calls(plan.state, 3) > 0, "%s, %s: timed calls failed", label,
                      kernel->name);
            kernel->release(plan.state);
            kernels_run++;
        }
    }
    format_set_free(&F);
}

#define X NAN /* not stored */

static void check_hand_made(void)
{
    spb_csr A, B;
    static const double a1[] = {1, 2, X, 3}, b1[] = {4, X, 5, 6}; /* C = [14 12; 15 18] */
    csr_from_dense(2, 2, a1, &A);
    csr_from_dense(2, 2, b1, &B);
    spb_csr C;
    char msg[SPB_MSG_LEN] = "";
    CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK, "%s", msg);
    CHECK(C.nnz == 4 && C.val[0] == 14 && C.val[1] == 12 && C.val[2] == 15 && C.val[3] == 18,
          "2x2 by hand: %g %g %g %g", C.val[0], C.val[1], C.val[2], C.val[3]);
    csr_free(&C);
    check_all("2x2 by hand", &A, &B);
    csr_free(&A);
    csr_free(&B);

    static const double row[] = {1, 2, 3}, column[] = {4, 5, 6}; /* 1x3 * 3x1 = [32] */
    csr_from_dense(1, 3, row, &A);
    csr_from_dense(3, 1, column, &B);
    CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK && C.nnz == 1 && C.val[0] == 32,
          "1 x n * n x 1 by hand");
    csr_free(&C);
    check_all("1 x n * n x 1", &A, &B);
    check_all("n x 1 * 1 x n", &B, &A);
    csr_free(&A);
    csr_free(&B);

    /* an explicit zero times a value and a value times an explicit zero:
     * the entry is structural, its value 0, and it is kept */
    static const double az[] = {0, 1}, bz[] = {5, 0};
    csr_from_dense(1, 2, az, &A);
    csr_from_dense(2, 1, bz, &B);
    CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK && C.nnz == 1 && C.val[0] == 0.0,
          "explicit zeros keep their entry");
    csr_free(&C);
    check_all("explicit zeros", &A, &B);
    csr_free(&A);
    csr_free(&B);

    /* empty rows and columns of A, a row of A that only meets empty rows of B */
    static const double ae[] = {1, X, 2, X, X, X,
                                X, X, X, 3, X, 4}; /* row 2 meets B's empty rows */
    static const double be[] = {X, X, 7, X, X, X, X, X, 8, 9, X, X, X, X, X, X};
    csr_from_dense(3, 4, ae, &A);
    csr_from_dense(4, 4, be, &B);
    CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK, "%s", msg);
    CHECK(C.nnz == 3 && C.row_ptr[1] == 3 && C.row_ptr[2] == 3 && C.row_ptr[3] == 3,
          "empty rows by hand: nnz %d", (int)C.nnz);
    csr_free(&C);
    check_all("empty rows and columns", &A, &B);
    csr_free(&A);
    csr_free(&B);
}

/* Duplicates in the file are summed on read, before the product. */
static void check_duplicates_on_read(void)
{
    char path[] = "/tmp/spb_test_spgemm_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fdopen(fd, "w");
    fputs("%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 1\n1 1 2\n2 2 5\n1 2 1\n", f);
    fclose(f);
    spb_csr A, C;
    char msg[SPB_MSG_LEN] = "";
    CHECK(mm_read_csr(path, &A, NULL, msg) == SPB_OK, "%s", msg);
    remove(path);
    CHECK(csr_spgemm_gustavson(&A, &A, &C, msg) == SPB_OK, "%s", msg);
    /* A = [3 1; 0 5]: A*A = [9 8; 0 25] */
    CHECK(C.nnz == 3 && C.val[0] == 9 && C.val[1] == 8 && C.val[2] == 25,
          "duplicates summed: %g %g %g", C.val[0], C.val[1], C.val[2]);
    csr_free(&C);
    check_all("duplicates summed", &A, &A);
    csr_free(&A);
}

static void random_csr(spb_rng *rng, spb_index m, spb_index n, double density, spb_csr *A)
{
    double *d = malloc(sizeof *d * ((size_t)m * n + 1));
    for (size_t k = 0; k < (size_t)m * n; k++)
        d[k] = spb_rng_uniform(rng) < density ? spb_rng_value(rng) : NAN;
    csr_from_dense(m, n, d, A);
    free(d);
}

static void check_random(spb_rng *rng)
{
    for (int round = 0; round < 12; round++) {
        spb_index m = 1 + (spb_index)spb_rng_below(rng, 60);
        spb_index n = 1 + (spb_index)spb_rng_below(rng, 60);
        spb_index p = round % 3 == 0 ? 1 + (spb_index)spb_rng_below(rng, 4) /* thin B */
                                     : 1 + (spb_index)spb_rng_below(rng, 300);
        double density = 0.02 + 0.3 * spb_rng_uniform(rng);
        spb_csr A, B;
        random_csr(rng, m, n, density, &A);
        random_csr(rng, n, p, density, &B);
        char label[64];
        snprintf(label, sizeof label, "random %dx%d * %dx%d", (int)m, (int)n, (int)n, (int)p);
        check_all(label, &A, &B);
        csr_free(&A);
        csr_free(&B);
    }
}

/* A's values made complex: each value v becomes v - v/2 i. */
static void make_complex(spb_csr *A)
{
    double *parts = malloc(sizeof *parts * (2 * (size_t)A->nnz + 1));
    for (spb_index k = 0; k < A->nnz; k++) {
        parts[2 * k] = A->val[k];
        parts[2 * k + 1] = -A->val[k] / 2;
    }
    free(A->val);
    A->val = parts;
    A->complex_values = 1;
}

/* Each host row's working-memory estimate (host_bytes: what a run checks
 * the machine's room against before the row) covers what its prepare and
 * its product allocate, real and complex, on a B wide beside its entries
 * (the dense rows' share) and on one with a long row (the maps' share).
 * The libraries' rows allocate outside spbench: not counted. spgemm.hash
 * checks the room itself at each doubling of its map, and its allocations
 * summed overstate its peak (each old map is freed): left out. */
static void check_working_memory(spb_rng *rng)
{
    const spb_operation *op = operation_spgemm();
    for (int shape = 0; shape < 2; shape++) {
        for (int complex = 0; complex < 2; complex++) {
            spb_csr A, B;
            random_csr(rng, 40, 30, shape ? 0.9 : 0.2, &A);
            random_csr(rng, 30, shape ? 3000 : 40000, shape ? 0.3 : 0.002, &B);
            if (complex) {
                make_complex(&A);
                make_complex(&B);
            }
            spb_format_set F;
            format_set_init(&F, &A);
            F.b = &B;
            for (int k = 0; k < op->kernel_count; k++) {
                const spb_kernel *kernel = op->kernels[k];
                if (kernel->backend == SPB_BACKEND_CUDA || !kernel->host_bytes || kernel->library ||
                    strcmp(kernel->name, "spgemm.hash") == 0 ||
                    (complex && !kernel->complex_values))
                    continue;
                spb_kernel_config config = {.hack_size = 32,
                                            .threads =
                                                kernel->backend == SPB_BACKEND_OPENMP ? 3 : 1,
                                            .precision = complex ? SPB_C128 : SPB_FP64};
                spb_kernel_plan plan = {0};
                char msg[SPB_MSG_LEN] = "";
                spb_alloc_fail_at(-1); /* counts from here */
                spb_status st = kernel->prepare(kernel, &F, &config, &plan, msg);
                CHECK(st == SPB_OK, "%s: prepare: %s", kernel->name, msg);
                if (st != SPB_OK) continue;
                spb_csr C;
                st = spgemm_kernel_of(kernel)->spgemm(plan.state, &C, msg);
                double allocated = spb_alloc_bytes();
                CHECK(st == SPB_OK, "%s: %s", kernel->name, msg);
                spb_work_size size = {.m = A.m,
                                      .n = B.n,
                                      .nnz_a = A.nnz,
                                      .nnz_b = B.nnz,
                                      .products = (double)csr_spgemm_products(&A, &B),
                                      .nnz_c = st == SPB_OK ? C.nnz : 0,
                                      .row_products_max =
                                          (double)csr_spgemm_row_products_max(&A, &B)};
                double estimate = kernel->host_bytes(kernel, &size, &config);
                CHECK(estimate >= allocated,
                      "%s, %s, B %d wide: estimated %.0f bytes, allocated %.0f", kernel->name,
                      complex ? "complex" : "real", (int)B.n, estimate, allocated);
                if (st == SPB_OK) csr_free(&C);
                kernel->release(plan.state);
            }
            format_set_free(&F);
            csr_free(&A);
            csr_free(&B);
        }
    }
}

/* The reference and its scale in one pass: C as csr_spgemm_gustavson makes
 * it, and each entry's |A|*|B| as the dense product sums it (in the same
 * order: equal to the bit), with C's entries counted or given. */
static void check_reference(spb_rng *rng)
{
    for (int round = 0; round < 8; round++) {
        spb_index m = 1 + (spb_index)spb_rng_below(rng, 40);
        spb_index n = 1 + (spb_index)spb_rng_below(rng, 40);
        spb_index p = 1 + (spb_index)spb_rng_below(rng, 120);
        double density = 0.05 + 0.3 * spb_rng_uniform(rng);
        spb_csr A, B, C, R;
        random_csr(rng, m, n, density, &A);
        random_csr(rng, n, p, density, &B);
        char msg[SPB_MSG_LEN] = "";
        double *scale = NULL;
        int64_t given = round % 2 ? csr_spgemm_nnz(&A, &B) : -1;
        CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK, "%s", msg);
        CHECK(csr_spgemm_reference(&A, &B, given, &R, &scale, msg) == SPB_OK, "%s", msg);
        int same = R.nnz == C.nnz &&
                   !memcmp(R.row_ptr, C.row_ptr, sizeof *C.row_ptr * ((size_t)C.m + 1)) &&
                   !memcmp(R.col_idx, C.col_idx, sizeof *C.col_idx * (size_t)C.nnz) &&
                   !memcmp(R.val, C.val, sizeof *C.val * (size_t)C.nnz);
        double *val = malloc(sizeof *val * ((size_t)m * p + 1));
        double *dense_scale = malloc(sizeof *dense_scale * ((size_t)m * p + 1));
        int *stored = malloc(sizeof *stored * ((size_t)m * p + 1));
        dense_product(&A, &B, val, dense_scale, stored);
        spb_index wrong = -1, positive = 0;
        for (spb_index i = 0; i < R.m && same; i++)
            for (spb_index k = R.row_ptr[i]; k < R.row_ptr[i + 1]; k++) {
                if (scale[k] != dense_scale[(size_t)i * p + R.col_idx[k]] && wrong < 0) wrong = k;
                positive += scale[k] > 0;
            }
        CHECK(same && wrong < 0 && (positive > 0) == (R.nnz > 0),
              "reference %dx%d * %dx%d (C's entries %s): C as Gustavson's %d, scale as the dense "
              "product's (first miss at entry %d)",
              (int)m, (int)n, (int)n, (int)p, given < 0 ? "counted" : "given", same, (int)wrong);
        free(val);
        free(dense_scale);
        free(stored);
        spb_free(scale);
        csr_free(&C);
        csr_free(&R);
        csr_free(&A);
        csr_free(&B);
    }
}

/* Rows whose products fill every size class of the device kernels (up to
 * 16, 256, 2048 products and beyond, with B narrow and wide) and span many
 * accumulator tiles. */
static void check_long_rows(spb_rng *rng)
{
    static const struct {
        spb_index m, n, p;
        double density;
    } shapes[] = {{40, 300, 300, 0.1},    {20, 200, 3000, 0.15}, {12, 400, 2000, 0.5},
                  {6, 300, 5000, 0.2},    /* B past 4096 columns, long rows: sliced on chip */
                  {8, 100, 6000, 0.1},    /* about 6000 products a row, B past 4096: on chip */
                  {8, 100, 12000, 0.05},  /* about 3000, on chip in fp32, sorted in fp64 */
                  {8, 200, 70000, 0.02},  /* about 5600, B wider than shared memory: sorted */
                  {3, 300, 60000, 0.05},  /* B wider than shared memory: dense in global */
                  {3, 300, 100003, 0.05}, /* dense in global, the last flag word in part */
                  {2, 100, 140000, 0.05}, /* wider than a global dense row: sorted */
                  {4, 3000, 300, 0.5}};   /* 10^5 products a row, B narrow: sliced */
    for (int s = 0; s < (int)(sizeof shapes / sizeof shapes[0]); s++) {
        spb_csr A, B;
        random_csr(rng, shapes[s].m, shapes[s].n, shapes[s].density, &A);
        random_csr(rng, shapes[s].n, shapes[s].p, shapes[s].density, &B);
        char label[64];
        snprintf(label, sizeof label, "long rows %dx%d * %dx%d", (int)shapes[s].m, (int)shapes[s].n,
                 (int)shapes[s].n, (int)shapes[s].p);
        check_all(label, &A, &B);
        csr_free(&A);
        csr_free(&B);
    }
}

/* A random sparse matrix whose row i has lengths[i % count] entries (at
 * most n), at distinct columns in order. */
static void cycled_csr(spb_rng *rng, spb_index m, spb_index n, const int *lengths, int count,
                       spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index nnz = 0;
    for (spb_index i = 0; i < m; i++) nnz += lengths[i % count];
    CHECK(csr_alloc(A, m, n, nnz, msg) == SPB_OK, "%s", msg);
    char *taken = calloc((size_t)n, 1);
    spb_index at = 0;
    for (spb_index i = 0; i < m; i++) {
        for (int drawn = 0; drawn < lengths[i % count];) {
            spb_index j = (spb_index)spb_rng_below(rng, (uint64_t)n);
            if (!taken[j]) taken[j] = 1, drawn++;
        }
        for (spb_index j = 0; j < n; j++)
            if (taken[j]) {
                A->col_idx[at] = j;
                A->val[at++] = spb_rng_value(rng);
                taken[j] = 0;
            }
        A->row_ptr[i + 1] = at;
    }
    free(taken);
}

/* C against the reference R by the suite's own validate_csr: pattern
 * exact, each value within its rounding bound (its row of A's length, the
 * operands' rounding in fp32). */
static void check_against_reference(const char *label, const char *kernel, spb_precision precision,
                                    const spb_csr *A, const spb_csr *B, const spb_csr *R,
                                    const double *scale, const spb_csr *C)
{
    (void)B;
    char where[SPB_MSG_LEN] = "";
    spb_validation v;
    validate_csr(C, R, scale, A, precision, precision == SPB_FP32, SPB_DEFAULT_TOLERANCE, &v, where,
                 sizeof where);
    CHECK(v.passed, "%s, %s%s: %s", label, kernel, precision == SPB_FP32 ? "/fp32" : "", where);
}

/* Many rows: both sides of ESC's one-block setup (4096 rows) and, past
 * 262,144 entries of A, the tiled rows' product count striding. Rows of A
 * cycle through 0-40 entries and B's through 2 or 30, so that rows fall
 * in most of ESC's tiers and some are empty; and with B 140,000 wide and
 * some of its rows 3000 long, rows sorted in global memory among rows of
 * every other tier. Every device row, default launch shape, fp64 and
 * fp32, against the sparse reference (a dense product this size would
 * cost more than the kernels). */
static void check_many_rows(spb_rng *rng)
{
    static const int a_lengths[] = {0, 1, 3, 8, 20, 40, 2}, narrow[] = {2, 30, 30, 30},
                     wide[] = {2, 30, 3000, 5};
    static const struct {
        spb_index rows, b_cols;
        const int *b_lengths;
    } shapes[] = {
        {4096, 300, narrow}, {4097, 300, narrow}, {40000, 300, narrow}, {300, 140000, wide}};
    const spb_operation *op = operation_spgemm();
    for (int r = 0; r < (int)(sizeof shapes / sizeof shapes[0]); r++) {
        spb_csr A, B, R;
        double *scale = NULL;
        char msg[SPB_MSG_LEN] = "", label[64];
        cycled_csr(rng, 200, shapes[r].b_cols, shapes[r].b_lengths, 4, &B);
        cycled_csr(rng, shapes[r].rows, 200, a_lengths, 7, &A);
        snprintf(label, sizeof label, "many rows %dx200 * 200x%d", (int)shapes[r].rows,
                 (int)shapes[r].b_cols);
        CHECK(csr_spgemm_reference(&A, &B, -1, &R, &scale, msg) == SPB_OK, "%s", msg);
        spb_format_set F;
        format_set_init(&F, &A);
        F.b = &B;
        for (int k = 0; k < op->kernel_count; k++) {
            const spb_kernel *kernel = op->kernels[k];
            if (kernel->backend != SPB_BACKEND_CUDA) continue;
            if (kernel->supports && !kernel->supports(kernel, &A, msg)) continue;
            for (int v = 0; v < (kernel->fp32 ? 2 : 1); v++) {
                spb_precision precision = v ? SPB_FP32 : SPB_FP64;
                spb_kernel_config config = {.hack_size = 32, .threads = 1, .precision = precision};
                spb_kernel_plan plan = {0};
                spb_status st = kernel->prepare(kernel, &F, &config, &plan, msg);
                CHECK(st == SPB_OK, "%s, %s: prepare: %s", label, kernel->name, msg);
                if (st != SPB_OK) continue;
                spb_csr C;
                st = spgemm_kernel_of(kernel)->spgemm(plan.state, &C, msg);
                CHECK(st == SPB_OK, "%s, %s: %s", label, kernel->name, msg);
                if (st == SPB_OK)
                    check_against_reference(label, kernel->name, precision, &A, &B, &R, scale, &C);
                csr_free(&C);
                kernel->release(plan.state);
                kernels_run++;
            }
        }
        format_set_free(&F);
        free(scale);
        csr_free(&R);
        csr_free(&A);
        csr_free(&B);
    }
}

/* A band of `width` entries per row (columns i..i+width-1, wrapped): A*A
 * makes width^2 products per row into about 2*width entries. */
static void band_csr(spb_index m, spb_index width, spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    csr_alloc(A, m, m, m * width, msg);
    for (spb_index i = 0; i < m; i++) {
        A->row_ptr[i + 1] = (i + 1) * width;
        spb_index wrapped = i + width > m ? i + width - m : 0; /* columns 0.. come first */
        for (spb_index w = 0; w < width; w++) {
            A->col_idx[i * width + w] = w < wrapped ? w : i + (w - wrapped);
            A->val[i * width + w] = 1.0 + (double)(w % 3);
        }
    }
}

/* csr_spgemm_shape against the product itself: products, the most in a
 * row and, on every row, the exact compression; on a sample, near it. */
static void check_spgemm_shape(spb_rng *rng)
{
    spb_csr A, B, C;
    char msg[SPB_MSG_LEN] = "";
    random_csr(rng, 50, 40, 0.2, &A);
    random_csr(rng, 40, 70, 0.2, &B);
    CHECK(csr_spgemm_gustavson(&A, &B, &C, msg) == SPB_OK, "%s", msg);
    int64_t most = 0;
    spb_index longest = 0;
    for (spb_index i = 0; i < A.m; i++) {
        if (A.row_ptr[i + 1] - A.row_ptr[i] > longest) longest = A.row_ptr[i + 1] - A.row_ptr[i];
        int64_t row = 0;
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
            row += B.row_ptr[A.col_idx[k] + 1] - B.row_ptr[A.col_idx[k]];
        if (row > most) most = row;
    }
    spb_spgemm_shape shape;
    CHECK(csr_spgemm_shape(&A, &B, A.m, &shape, msg) == SPB_OK, "%s", msg);
    double exact = C.nnz ? (double)csr_spgemm_products(&A, &B) / C.nnz : 1.0;
    CHECK(shape.products == csr_spgemm_products(&A, &B) && shape.row_products_max == most &&
              shape.a_row_max == longest && fabs(shape.compression - exact) < 1e-12 * exact,
          "shape: %lld products (%lld), row max %lld (%lld), A's longest row %d (%d), "
          "compression %g (%g)",
          (long long)shape.products, (long long)csr_spgemm_products(&A, &B),
          (long long)shape.row_products_max, (long long)most, (int)shape.a_row_max, (int)longest,
          shape.compression, exact);
    csr_free(&A);
    csr_free(&B);
    csr_free(&C);
    band_csr(5000, 30, &A);
    CHECK(csr_spgemm_gustavson(&A, &A, &C, msg) == SPB_OK, "%s", msg);
    exact = (double)csr_spgemm_products(&A, &A) / C.nnz;
    CHECK(csr_spgemm_shape(&A, &A, 100, &shape, msg) == SPB_OK &&
              fabs(shape.compression - exact) < 0.05 * exact,
          "band: sampled compression %g, exact %g", shape.compression, exact);
    csr_free(&A);
    csr_free(&C);
}

/* spgemm.cuda.auto's rule on shapes given, on a device of `sms`
 * multiprocessors (no device, no matrix): the candidates it names. */
static void check_rule_names(const char *label, spb_spgemm_shape f, int sms, const char *expected)
{
    spb_trial_names list = {{NULL}, 0};
    guarded_reason out;
    guarded_reason_init(&out);
    char names[512] = "";
    gpu_spgemm_auto_candidates(&f, sms, &list, out.why);
    trial_names_join(&list, names, sizeof names);
    check_guarded_reason("spgemm.cuda.auto", label, &out);
    CHECK(strcmp(names, expected) == 0, "spgemm.cuda.auto's rule on %s named %s, expected %s (%s)",
          label, names, expected, out.why);
}

/* Each branch on both sides of its line, the device's SMs fixed (the
 * device check below depends on the SMs of the device it finds). */
static void check_auto_rule_host(void)
{
    static const char tiled[] = "spgemm.cuda.esc,spgemm.cuda.warp,spgemm.cuda.block,"
                                "spgemm.cuda.block.reserve";
    char hoisted[256], library[256];
    snprintf(hoisted, sizeof hoisted, "%s,spgemm.cuda.thread.hoisted", tiled);
    snprintf(library, sizeof library, "%s,cusparse.spgemm", tiled);
    spb_spgemm_shape f = {
        .products = 32000, .row_products_max = 32, .a_row_max = 4, .compression = 2.0};
    check_rule_names("32 products a row at most", f, 132, hoisted);
    f.row_products_max = 33;
    check_rule_names("33 products in a row", f, 132, tiled);
    f.a_row_max = 128; /* a long row of A: cuSPARSE too */
    check_rule_names("a row of 128 in A", f, 132, library);
    f.a_row_max = 127;
    check_rule_names("a row of 127 in A", f, 132, tiled);
    f = (spb_spgemm_shape){
        .products = 2000000, .row_products_max = 400, .a_row_max = 20, .compression = 3.0};
    check_rule_names("2 million products, compression 3", f, 132, library);
    f.compression = 2.9; /* low compression: no tiled kernel */
    check_rule_names("2 million products, compression 2.9", f, 132,
                     "spgemm.cuda.esc,cusparse.spgemm");
    f.products = 1999999;
    check_rule_names("1999999 products, compression 2.9", f, 132, tiled);
    /* C's longest row: more than 8192 products and more than 8 SMs' share */
    f = (spb_spgemm_shape){
        .products = 1000000, .row_products_max = 60000, .a_row_max = 20, .compression = 5.0};
    check_rule_names("a row of 7.9 SMs' share", f, 132, tiled);
    check_rule_names("a row of 8.4 SMs' share", f, 140, "spgemm.cuda.esc");
    check_rule_names("SMs unknown", f, 0, tiled);
    f = (spb_spgemm_shape){
        .products = 100000, .row_products_max = 8192, .a_row_max = 20, .compression = 5.0};
    check_rule_names("a row of 8192 products, 10.8 SMs' share", f, 132, tiled);
    f.row_products_max = 8193;
    check_rule_names("a row of 8193 products, 10.8 SMs' share", f, 132, "spgemm.cuda.esc");
    f.compression = 1e300; /* printed in full: a reason longer than its buffer, cut */
    check_rule_names("a reason longer than its buffer", f, 132, "spgemm.cuda.esc");
}

/* spgemm.cuda.auto's rule, branch by branch (on the device only): A*B's
 * candidates must be `expected`. */
static void check_auto_choice(const char *label, const spb_csr *A, const spb_csr *B,
                              const char *expected)
{
    const spb_operation *op = operation_spgemm();
    const spb_kernel *kernel = NULL;
    for (int k = 0; k < op->kernel_count; k++)
        if (strcmp(op->kernels[k]->name, "spgemm.cuda.auto") == 0) kernel = op->kernels[k];
    CHECK(kernel != NULL, "spgemm.cuda.auto is not in the table");
    if (!kernel) return;
    spb_format_set F;
    format_set_init(&F, A);
    F.b = B;
    spb_kernel_config config = {.hack_size = 32, .threads = 1, .precision = SPB_FP64};
    spb_kernel_plan plan = {0};
    char msg[SPB_MSG_LEN] = "";
    spb_status st = kernel->prepare(kernel, &F, &config, &plan, msg);
    CHECK(st == SPB_OK, "spgemm.cuda.auto on %s: %s", label, msg);
    if (st == SPB_OK) {
        kernel->release(plan.state);
        check_trial_message("spgemm.cuda.auto", label, msg, expected);
    }
    format_set_free(&F);
}

static void check_auto_rule(void)
{
    static const char tiled[] = "spgemm.cuda.esc,spgemm.cuda.warp,spgemm.cuda.block,"
                                "spgemm.cuda.block.reserve";
    char expected[256];
    spb_csr A;
    band_csr(2000, 4, &A); /* 16 products per row */
    snprintf(expected, sizeof expected, "%s,spgemm.cuda.thread.hoisted", tiled);
    check_auto_choice("few products per row", &A, &A, expected);
    csr_free(&A);
    band_csr(600, 130, &A); /* rows of 130: long */
    snprintf(expected, sizeof expected, "%s,cusparse.spgemm", tiled);
    check_auto_choice("a long row", &A, &A, expected);
    csr_free(&A);
    band_csr(3000, 40, &A); /* 4.8 million products, compression about 20 */
    check_auto_choice("many products, high compression", &A, &A, expected);
    csr_free(&A);
    char gen_msg[SPB_MSG_LEN] = "";
    CHECK(gen_matrix("gen:random:100000:5", &A, gen_msg) == SPB_OK, "%s", gen_msg);
    check_auto_choice("many products, low compression", &A, &A, "spgemm.cuda.esc,cusparse.spgemm");
    csr_free(&A);
    /* An LP shape's A*A^T: its dense row makes a fifth of the products, more
     * than 8 SMs' share on a device of 37 or more; the tiled kernels would
     * wait on that one row. */
    spb_csr T;
    spb_spgemm_shape shape;
    spb_gpu_info gpu;
    CHECK(gen_matrix("gen:lp:2000:50000:4:90", &A, gen_msg) == SPB_OK, "%s", gen_msg);
    CHECK(csr_transpose(&A, &T, gen_msg) == SPB_OK, "%s", gen_msg);
    CHECK(csr_spgemm_shape(&A, &T, 1024, &shape, gen_msg) == SPB_OK, "%s", gen_msg);
    CHECK(gpu_query(&gpu, gen_msg) == SPB_OK, "%s", gen_msg);
    const double shares = (double)shape.row_products_max * gpu.sm_count / (double)shape.products;
    snprintf(expected, sizeof expected, "%s,cusparse.spgemm", tiled);
    const int one_row = shape.row_products_max > 8192 && shares > 8;
    check_auto_choice("one long row of C", &A, &T,
                      one_row ? "spgemm.cuda.esc,cusparse.spgemm" : expected);
    printf("one long row of C: %.1f SMs' share of the products (%d SMs)\n", shares, gpu.sm_count);
    csr_free(&A);
    csr_free(&T);
    /* A product of 160: each row more than 8 SMs' share, but short, so the
     * tiled kernels stay candidates. */
    band_csr(10, 4, &A);
    CHECK(csr_spgemm_shape(&A, &A, 1024, &shape, gen_msg) == SPB_OK, "%s", gen_msg);
    CHECK(shape.row_products_max * gpu.sm_count > 8 * shape.products,
          "band 10x4: a row should hold more than 8 SMs' share on %d SMs", gpu.sm_count);
    snprintf(expected, sizeof expected, "%s,spgemm.cuda.thread.hoisted", tiled);
    check_auto_choice("a small product", &A, &A, expected);
    csr_free(&A);
}

/* The fp32 status of a C made as `made` (2x2, diagonal) for A*A. */
static spb_row_status fp32_status(const spb_csr *A, double made, char *msg)
{
    const spb_operation *op = operation_spgemm();
    spb_case c = {.name = "fp32 range", .A = A};
    CHECK(op->case_setup(&c, 1, msg) == SPB_OK, "setup: %s", msg);
    const double d[] = {made, 0, 0, made};
    spb_csr C;
    csr_from_dense(2, 2, d, &C);
    spb_validation v;
    msg[0] = '\0';
    spb_row_status status =
        op->product(&given_kernel.kernel, &C, &c, SPB_FP32, SPB_DEFAULT_TOLERANCE, &v, msg);
    op->case_free(&c);
    csr_free(&C);
    return status;
}

/* An fp32 row that misses the reference because fp32 cannot hold the
 * products (1e-25 squared underflows) is skipped with the reason; one whose
 * C differs from what fp32 makes stays wrong, as does a plain wrong value. */
static void check_fp32_range(void)
{
    char msg[SPB_MSG_LEN];
    const double tiny[] = {1e-25, 0, 0, 1e-25}, plain[] = {2, 0, 0, 3};
    spb_csr A;
    csr_from_dense(2, 2, tiny, &A);
    spb_row_status st = fp32_status(&A, 0.0, msg);
    CHECK(st == SPB_ROW_SKIPPED && strstr(msg, "range"), "underflow to 0: status %d, %s", (int)st,
          msg);
    st = fp32_status(&A, 1e-30, msg);
    CHECK(st == SPB_ROW_WRONG, "a C that fp32 does not make: status %d, %s", (int)st, msg);
    csr_free(&A);
    csr_from_dense(2, 2, plain, &A);
    st = fp32_status(&A, 4.0, msg);
    CHECK(st == SPB_ROW_WRONG && !strstr(msg, "range"), "a wrong value: status %d, %s", (int)st,
          msg);
    csr_free(&A);
}

/* Mismatched shapes and the thin: spec are refused by name. */
static void check_refusals(void)
{
    char why[SPB_MSG_LEN] = "";
    CHECK(!spgemm_operand_valid("thin:4:5", why) && strstr(why, "PER_ROW"), "thin:4:5: %s", why);
    why[0] = '\0';
    CHECK(!spgemm_operand_valid("thin:x", why), "thin:x is refused");
    CHECK(spgemm_operand_valid("thin:64", why) && spgemm_operand_valid("thin:8:3", why),
          "thin:64 and thin:8:3 are accepted");
    static const double a[] = {1, 2, 3};
    spb_csr A, C;
    csr_from_dense(1, 3, a, &A);
    char msg[SPB_MSG_LEN] = "";
    CHECK(csr_spgemm_gustavson(&A, &A, &C, msg) == SPB_ERR_INVALID && strstr(msg, "1 x 3"),
          "1x3 * 1x3 is refused: %s", msg);
    csr_free(&A);
}

/* A copy of A on 64-bit row offsets (the entries shared with A). */
static spb_csr widened(const spb_csr *A)
{
    spb_csr W = *A;
    char msg[SPB_MSG_LEN] = "";
    W.row_ptr = spb_malloc((size_t)A->m + 1, sizeof *W.row_ptr);
    memcpy(W.row_ptr, A->row_ptr, sizeof *W.row_ptr * ((size_t)A->m + 1));
    CHECK(csr_widen(&W, msg) == SPB_OK && csr_wide(&W), "widening: %s", msg);
    return W;
}

/* Whether C and D hold the same matrix to the bit, whatever their offsets. */
static int same_csr(const spb_csr *C, const spb_csr *D)
{
    if (C->m != D->m || C->n != D->n || C->nnz != D->nnz) return 0;
    for (spb_index i = 0; i <= C->m; i++)
        if (csr_row_start(C, i) != csr_row_start(D, i)) return 0;
    return !memcmp(C->col_idx, D->col_idx, sizeof *C->col_idx * (size_t)C->nnz) &&
           !memcmp(C->val, D->val, sizeof *C->val * (size_t)C->nnz * csr_values_per_entry(C));
}

/* One product of a host kernel (prepare, product, release) on A and B. */
static spb_status host_product(const char *name, const spb_csr *A, const spb_csr *B,
                               spb_precision precision, spb_csr *C, char *msg)
{
    const spb_operation *op = operation_spgemm();
    const spb_kernel *kernel = NULL;
    for (int k = 0; k < op->kernel_count; k++)
        if (strcmp(op->kernels[k]->name, name) == 0) kernel = op->kernels[k];
    spb_format_set F;
    format_set_init(&F, A);
    F.b = B;
    spb_kernel_config config = {.threads = 2, .precision = precision};
    spb_kernel_plan plan = {0};
    spb_status st = kernel->prepare(kernel, &F, &config, &plan, msg);
    if (st == SPB_OK) st = spgemm_kernel_of(kernel)->spgemm(plan.state, C, msg);
    if (plan.state) kernel->release(plan.state);
    format_set_free(&F);
    return st;
}

/* A and B on 64-bit row offsets (a product past 2^31 - 1 entries' path, on
 * small ones): the products and C's entries counted alike, and the
 * reference, its scale and each host row that takes them
 * (spb_kernel.wide_offsets) make C on 64-bit offsets, equal to the bit to
 * what they make on 32-bit ones, in both precisions. */
static void check_wide_offsets(spb_rng *rng)
{
    const spb_operation *op = operation_spgemm();
    for (int round = 0; round < 5; round++) {
        spb_csr A, B, R, R64;
        random_csr(rng, 30 + round * 17, 45, 0.15, &A);
        if (round < 4)
            random_csr(rng, 45, 25 + round * 9, 0.2, &B);
        else /* B wide and sparse: spgemm.omp's rows take its hash accumulator */
            random_csr(rng, 45, 4000, 0.002, &B);
        spb_csr A64 = widened(&A), B64 = widened(&B);
        char msg[SPB_MSG_LEN] = "";
        double *scale = NULL, *scale64 = NULL;
        CHECK(csr_spgemm_products(&A64, &B64) == csr_spgemm_products(&A, &B) &&
                  csr_spgemm_nnz(&A64, &B) == csr_spgemm_nnz(&A, &B),
              "round %d: counts on 64-bit offsets", round);
        CHECK(csr_spgemm_reference(&A, &B, -1, &R, &scale, msg) == SPB_OK, "%s", msg);
        CHECK(csr_spgemm_reference(&A64, &B64, -1, &R64, &scale64, msg) == SPB_OK, "%s", msg);
        CHECK(csr_wide(&R64) && !csr_wide(&R) && same_csr(&R, &R64) &&
                  !memcmp(scale, scale64, sizeof *scale * (size_t)R.nnz),
              "round %d: the reference and its scale on 64-bit offsets", round);
        int taken = 0;
        for (int k = 0; k < op->kernel_count; k++) {
            const spb_kernel *kernel = op->kernels[k];
            if (!kernel->wide_offsets) continue;
            for (int v = 0; v < 2; v++) {
                spb_precision precision = v ? SPB_FP32 : SPB_FP64;
                spb_csr C, C64;
                CHECK(host_product(kernel->name, &A, &B, precision, &C, msg) == SPB_OK, "%s: %s",
                      kernel->name, msg);
                /* one wide operand is enough to make C wide */
                CHECK(host_product(kernel->name, v ? &A : &A64, v ? &B64 : &B, precision, &C64,
                                   msg) == SPB_OK,
                      "%s on 64-bit offsets: %s", kernel->name, msg);
                CHECK(csr_wide(&C64) && same_csr(&C, &C64),
                      "round %d, %s (%s): C on 64-bit offsets as on 32-bit ones", round,
                      kernel->name, spb_precision_str(precision));
                csr_free(&C);
                csr_free(&C64);
                taken++;
            }
        }
        CHECK(taken >= 4, "the host rows that take 64-bit offsets ran: %d", taken);
        free(scale);
        free(scale64);
        spb_free(A64.row_ptr64);
        spb_free(B64.row_ptr64);
        csr_free(&R);
        csr_free(&R64);
        csr_free(&A);
        csr_free(&B);
    }
}

/* The run's gate before prepare: a product that reads B or makes C on
 * 64-bit row offsets runs only on the rows that take them, the others
 * declined naming which operand. */
static void check_wide_gate(spb_rng *rng)
{
    spb_csr A, B;
    random_csr(rng, 20, 20, 0.2, &A);
    random_csr(rng, 20, 20, 0.2, &B);
    spb_csr B64 = widened(&B);
    const spb_operation *op = operation_spgemm();
    spb_kernel_config config = {.threads = 1, .precision = SPB_FP64};
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char msg[SPB_MSG_LEN] = "";
        const spb_status takes = kernel->wide_offsets ? SPB_OK : SPB_ERR_DECLINED;
        CHECK(run_kernel_declines(kernel, &A, &B, 3e9, &config, msg) == takes &&
                  (takes == SPB_OK || strstr(msg, "C = A*B holds 3000000000 entries")),
              "%s with C past 2^31 - 1 entries: %s", kernel->name, msg);
        msg[0] = '\0'; /* spb_fail keeps a message's first words */
        CHECK(run_kernel_declines(kernel, &A, &B64, 100, &config, msg) == takes &&
                  (takes == SPB_OK || strstr(msg, "B's row offsets are 64-bit")),
              "%s with B on 64-bit offsets: %s", kernel->name, msg);
        CHECK(run_kernel_declines(kernel, &A, &B, 100, &config, msg) == SPB_OK &&
                  run_kernel_declines(kernel, &A, &B, NAN, &config, msg) == SPB_OK,
              "%s on 32-bit offsets: %s", kernel->name, msg);
    }
    spb_free(B64.row_ptr64);
    csr_free(&A);
    csr_free(&B);
}

/* usage: test_spgemm [MATRIX_DIR] [host|cuda] — host kernels by default;
 * "cuda" checks the device kernels (check_gpu.h: skipped, 77, only where
 * no device is listed and SPB_REQUIRE_GPU is not 1). */
int main(int argc, char **argv)
{
    want_cuda = argc > 2 && strcmp(argv[2], "cuda") == 0;
    unsigned long long seed = check_seed();
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    check_hand_made();
    check_duplicates_on_read();
    check_random(&rng);
    if (!want_cuda) check_reference(&rng);
    if (!want_cuda) check_working_memory(&rng);
    if (!want_cuda) check_wide_offsets(&rng);
    if (!want_cuda) check_wide_gate(&rng);
    check_long_rows(&rng);
    check_refusals();
    if (!want_cuda) check_fp32_range();
    if (!want_cuda) check_auto_rule_host();
    check_spgemm_shape(&rng);
    if (want_cuda && kernels_run > 0) {
        CHECK(peaks_counted > 0, "no device product's memory was counted");
        check_auto_rule();
        check_many_rows(&rng);
    }
    printf("%d kernel runs\n", kernels_run);
    return want_cuda ? check_gpu_done(kernels_run) : check_done();
}
