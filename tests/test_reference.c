/* test_reference.c — the reference product on hand-computed products, and
 * the validation it anchors. */
#include <math.h>
#include <omp.h>
#include <string.h>

#include "bench/validation/validate.h"
#include "check.h"
#include "cpu/spmv_cpu.h"

static void test_hand_computed(void)
{
    /* [2 0 1]   [ 1]   [ 2*1 + 1*3  ]   [ 5]
     * [0 0 0] * [-2] = [ 0          ] = [ 0]
     * [4 5 0]   [ 3]   [ 4*1 + 5*-2 ]   [-6]
     * [0 0 7]          [ 7*3        ]   [21] */
    spb_index row_ptr[] = {0, 2, 2, 4, 5}, col_idx[] = {0, 2, 0, 1, 2};
    spb_value val[] = {2, 1, 4, 5, 7}, x[] = {1, -2, 3}, y[4], expect[] = {5, 0, -6, 21};
    spb_csr A = {4, 3, 5, row_ptr, col_idx, val};
    spb_value y_abs[4], expect_abs[] = {5, 0, 14, 21};
    csr_reference_spmv(&A, x, y, y_abs);
    for (int i = 0; i < 4; i++)
        CHECK(y[i] == expect[i], "y[%d] = %g, expected %g", i, y[i], expect[i]);
    for (int i = 0; i < 4; i++)
        CHECK(y_abs[i] == expect_abs[i], "|A||x|[%d] = %g, expected %g", i, y_abs[i],
              expect_abs[i]);
}

/* Cancellation a plain loop gets wrong: 1e16 + 1 - 1e16 = 1 exactly, and
 * 0.1*3 - 0.3 with the product errors kept. */
static void test_compensation(void)
{
    spb_index row_ptr[] = {0, 3, 5}, col_idx[] = {0, 1, 2, 0, 1};
    spb_value val[] = {1e16, 1, -1e16, 0.1, -0.3}, x[] = {1, 1, 1}, y[2];
    spb_csr A = {2, 3, 5, row_ptr, col_idx, val};
    x[0] = 1;
    csr_reference_spmv(&A, x, y, NULL);
    CHECK(y[0] == 1.0, "1e16 + 1 - 1e16 gave %.17g", y[0]);
    spb_value naive[2];
    csr_serial_spmv(&A, x, naive);
    CHECK(naive[0] != 1.0, "the naive loop should lose the 1 (got %.17g)", naive[0]);
    /* row 1: 0.1*1 - 0.3*1 = -0.2 rounded from the exact sum of the stored
     * doubles: fl(0.1) - fl(0.3) computed exactly is -0.19999999999999998 */
    CHECK(y[1] == 0.1 - 0.3, "0.1 - 0.3 gave %.17g", y[1]);
    /* long alternating row: sum of (+-)(1 + k*2^-40) exactly representable */
    enum { LEN = 1001 };
    spb_index rp[] = {0, LEN}, ci[LEN];
    spb_value v[LEN], xs[LEN], one;
    double exact = 0;
    for (int k = 0; k < LEN; k++) {
        ci[k] = k;
        v[k] = (k % 2 ? -1.0 : 1.0) * (1e8 + k);
        xs[k] = 1.0 + ldexp(1.0, -30);
        exact += (k % 2 ? -1.0 : 1.0) * (1e8 + k);
    }
    /* exact = sum of +-(1e8+k) = 1e8 + 500 (pairs give -1 each: 500 pairs) */
    spb_csr L = {1, LEN, LEN, rp, ci, v};
    csr_reference_spmv(&L, xs, &one, NULL);
    double want = exact * (1.0 + ldexp(1.0, -30));
    CHECK(one == want, "alternating row gave %.17g, expected %.17g", one, want);
}

/* The scale made in the reference's pass: every row's |A||x| as a plain
 * loop sums it (the same order: equal to the bit), and y the same with and
 * without it, on rows of mixed signs, a zero and an empty row. */
static void test_scale_beside(void)
{
    enum { M = 40, N = 30, PER_ROW = 7 };
    spb_index row_ptr[M + 1], col_idx[M * PER_ROW];
    spb_value val[M * PER_ROW], x[N], y[M], y_alone[M], y_abs[M];
    unsigned state = 12345;
    for (int j = 0; j < N; j++) {
        state = state * 1103515245u + 12345u;
        x[j] = ((double)(state >> 8) / (1 << 24) - 0.5) * (j % 7 ? 1.0 : 1e6);
    }
    row_ptr[0] = 0;
    for (int i = 0; i < M; i++) {
        int len = i == 3 ? 0 : PER_ROW; /* row 3 empty */
        for (int k = 0; k < len; k++) {
            state = state * 1103515245u + 12345u;
            col_idx[row_ptr[i] + k] = (spb_index)((state >> 8) % N);
            val[row_ptr[i] + k] = k == 2 ? 0.0 : ((double)(state >> 4 & 1023) - 511.5) / 64;
        }
        row_ptr[i + 1] = row_ptr[i] + len;
    }
    spb_csr A = {M, N, row_ptr[M], row_ptr, col_idx, val};
    csr_reference_spmv(&A, x, y, y_abs);
    csr_reference_spmv(&A, x, y_alone, NULL);
    int nonzero = 0;
    for (int i = 0; i < M; i++) {
        double plain = 0;
        for (spb_index k = row_ptr[i]; k < row_ptr[i + 1]; k++)
            plain += fabs(val[k]) * fabs(x[col_idx[k]]);
        CHECK(y_abs[i] == plain && y[i] == y_alone[i],
              "row %d: |A||x| %.17g, plain %.17g; y %.17g, alone %.17g", i, y_abs[i], plain, y[i],
              y_alone[i]);
        nonzero += y_abs[i] > 0;
    }
    CHECK(nonzero == M - 1, "every row but the empty one has a positive scale: %d", nonzero);
}

static void test_validation(void)
{
    spb_value ref[] = {1, -2, 3}, good[] = {1, -2, 3}, bad[] = {1, -2, 3.5}, nan_y[] = {1, NAN, 3};
    spb_validation v;
    validate_vector(3, good, ref, 6.0, 1e-10, &v);
    CHECK(v.passed && v.abs_l2 == 0 && v.rel_l2 == 0 && v.max_abs == 0, "identical vectors");
    validate_vector(3, bad, ref, 6.0, 1e-10, &v);
    CHECK(!v.passed, "an error of 0.5 passed");
    CHECK(v.abs_l2 == 0.5 && v.max_abs == 0.5, "abs %g max %g", v.abs_l2, v.max_abs);
    CHECK(fabs(v.rel_l2 - 0.5 / sqrt(14.0)) < 1e-15, "rel %g", v.rel_l2);
    validate_vector(3, nan_y, ref, 6.0, 1e-10, &v);
    CHECK(!v.passed, "a NaN passed");
    validate_vector(3, bad, ref, 6.0, 1.0, &v);
    CHECK(v.passed, "tolerance 1 should accept an error of 0.5 at scale 6");
    spb_value zero[] = {0, 0};
    validate_vector(2, zero, zero, 0.0, 1e-10, &v);
    CHECK(v.passed && v.rel_l2 == 0, "zero vectors");
    validate_vector(0, zero, zero, 0.0, 1e-10, &v);
    CHECK(v.passed, "empty vectors");
}

/* Each row is summed on one thread: y bit for bit the same at 1 and 3
 * threads, over rows of 0-60 entries, more than a thread's share. */
static void test_threads_agree(void)
{
    enum { M = 5000, N = 3000 };
    static spb_index row_ptr[M + 1], col_idx[M * 60];
    static spb_value val[M * 60], x[N], one[M], three[M];
    unsigned state = 777;
    for (int j = 0; j < N; j++) {
        state = state * 1103515245u + 12345u;
        x[j] = (double)(state >> 8) / (1 << 24) - 0.5;
    }
    for (int i = 0; i < M; i++) {
        int len = (int)((state = state * 1103515245u + 12345u) >> 8) % 61;
        row_ptr[i + 1] = row_ptr[i] + len;
        for (int k = row_ptr[i]; k < row_ptr[i + 1]; k++) {
            state = state * 1103515245u + 12345u;
            col_idx[k] = (spb_index)((state >> 8) % N);
            val[k] = (double)(state >> 3 & 4095) / 512 - 4;
        }
    }
    spb_csr A = {M, N, row_ptr[M], row_ptr, col_idx, val};
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
    csr_reference_spmv(&A, x, one, NULL);
    omp_set_num_threads(3);
    csr_reference_spmv(&A, x, three, NULL);
    omp_set_num_threads(before);
    CHECK(!memcmp(one, three, sizeof one), "the reference differs between 1 and 3 threads");
}

int main(void)
{
    test_hand_computed();
    test_compensation();
    test_scale_beside();
    test_validation();
    test_threads_agree();
    return check_done();
}
