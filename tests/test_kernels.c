/* test_kernels.c — every kernel of the table against the reference on fresh
 * random matrices and the awkward shapes; the table is the loop, so a new
 * kernel needs no new test code. Kernels that cannot run here (no device)
 * are counted as skipped; if none can run the test reports itself skipped. */
#include <math.h>
#include <string.h>

#include "../bench/gen.h"
#include "../bench/kernels.h"
#include "../bench/rng.h"
#include "../bench/run.h"
#include "../bench/validate.h"
#include "../cpu/spmv_cpu.h"
#include "check.h"

static int ran, skipped;
static int want_cuda; /* which half of the table this run checks */

static void random_csr(spb_rng *rng, spb_index m, spb_index n, spb_index nnz, spb_index long_row,
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

static void check_all_kernels(const char *label, const spb_csr *A, uint64_t seed)
{
    spb_value *x = malloc(sizeof *x * (size_t)(A->n + 1));
    spb_value *y = malloc(sizeof *y * (size_t)(A->m + 1));
    spb_value *y_ref = malloc(sizeof *y * (size_t)(A->m + 1));
    spb_value *y_abs = malloc(sizeof *y * (size_t)(A->m + 1));
    run_random_vector(seed, A->n, x);
    csr_reference_spmv(A, x, y_ref);
    csr_abs_spmv(A, x, y_abs);
    double scale = vector_norm2(A->m, y_abs);
    static const spb_index hack_sizes[] = {1, 7, 32};
    for (int k = 0; k < spb_kernel_count; k++) {
        const spb_kernel *kernel = &spb_kernels[k];
        if ((kernel->backend == SPB_BACKEND_CUDA) != want_cuda) continue;
        char why[SPB_MSG_LEN] = "";
        if (kernel->supports && !kernel->supports(A, why)) {
            skipped++;
            continue;
        }
        /* OpenMP kernels at 1-4 threads (more threads than rows included). */
        int max_threads = kernel->backend == SPB_BACKEND_OPENMP ? 4 : 1;
        for (int run = 0; run < 3 * max_threads; run++) {
            int h = run % 3, threads = 1 + run / 3;
            spb_kernel_config config = {hack_sizes[h], threads, 0};
            spb_kernel_plan plan = {0};
            char msg[SPB_MSG_LEN] = "";
            spb_status st = kernel->prepare(A, &config, &plan, msg);
            CHECK(st == SPB_OK, "%s on %s: prepare failed: %s", kernel->name, label, msg);
            if (st != SPB_OK) continue;
            for (spb_index i = 0; i < A->m; i++) y[i] = NAN;
            kernel->run(plan.state, x, y);
            if (kernel->time_calls) /* a few device-resident products, then a whole one */
                CHECK(kernel->time_calls(plan.state, 3) >= 0, "%s: timed calls failed",
                      kernel->name);
            kernel->run(plan.state, x, y); /* y is overwritten, not accumulated */
            if (kernel->check) {
                char err[SPB_MSG_LEN] = "";
                CHECK(kernel->check(plan.state, err) == SPB_OK, "%s on %s: %s", kernel->name, label,
                      err);
            }
            spb_validation v;
            validate_vector(A->m, y, y_ref, scale, SPB_DEFAULT_TOLERANCE, &v);
            spb_index worst = 0;
            for (spb_index i = 0; i < A->m; i++)
                if (!(fabs(y[i] - y_ref[i]) <= fabs(y[worst] - y_ref[worst]))) worst = i;
            CHECK(v.passed,
                  "%s on %s (H=%d, %d threads): rel_l2 %.3e; y[%d] = %.17g, expected %.17g",
                  kernel->name, label, (int)hack_sizes[h], threads, v.rel_l2, (int)worst,
                  A->m ? y[worst] : 0.0, A->m ? y_ref[worst] : 0.0);
            kernel->release(plan.state);
            ran++;
        }
    }
    free(x);
    free(y);
    free(y_ref);
    free(y_abs);
}

static void check_random(const char *label, spb_rng *rng, spb_index m, spb_index n, spb_index nnz,
                         spb_index long_row, spb_index long_len)
{
    spb_csr A;
    random_csr(rng, m, n, nnz, long_row, long_len, &A);
    check_all_kernels(label, &A, spb_rng_next(rng));
    csr_free(&A);
}

/* usage: test_kernels [MATRIX_DIR] [host|cuda] — host kernels by default;
 * "cuda" checks the device kernels and reports itself skipped (CTest code
 * 77) when none can run. */
int main(int argc, char **argv)
{
    want_cuda = argc > 2 && strcmp(argv[2], "cuda") == 0;
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
    for (int round = 0; round < 10; round++) {
        spb_index m = 1 + (spb_index)spb_rng_below(&rng, 2000);
        spb_index n = 1 + (spb_index)spb_rng_below(&rng, 2000);
        check_random("random", &rng, m, n, (spb_index)spb_rng_below(&rng, 20000),
                     (spb_index)spb_rng_below(&rng, 4000), (spb_index)spb_rng_below(&rng, 3000));
    }
    static const char *const generated[] = {"gen:lap2d:37", "gen:lap3d:11", "gen:random:999:9",
                                            "gen:rmat:10:8"};
    for (int g = 0; g < 4; g++) {
        spb_csr A;
        char msg[SPB_MSG_LEN] = "";
        CHECK(gen_matrix(generated[g], &A, msg) == SPB_OK, "%s", msg);
        check_all_kernels(generated[g], &A, seed + (unsigned long long)g);
        csr_free(&A);
    }
    printf("%d kernel runs, %d skipped (cannot run here)\n", ran, skipped);
    if (ran == 0) return CHECK_SKIP_CODE;
    return check_done();
}
