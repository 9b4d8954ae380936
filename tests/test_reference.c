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
    spb_csr A = {4, 3, 5, row_ptr, col_idx, val, 0, NULL};
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
    spb_csr A = {2, 3, 5, row_ptr, col_idx, val, 0, NULL};
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
    spb_csr L = {1, LEN, LEN, rp, ci, v, 0, NULL};
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
    spb_csr A = {M, N, row_ptr[M], row_ptr, col_idx, val, 0, NULL};
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

/* Each row judged against its own rounding bound: its length and |A||x|. */
static void test_validation(void)
{
    /* rows of 1, 2 and 3 entries (and an empty one) of a 4 x 3 matrix */
    static spb_index row_ptr[] = {0, 1, 3, 3, 6}, col_idx[] = {0, 0, 1, 0, 1, 2};
    static spb_value val[] = {1, 1, 1, 1, 1, 1};
    spb_csr A = {4, 3, 6, row_ptr, col_idx, val, 0, NULL};
    spb_value ref[] = {1, -2, 0, 3}, y_abs[] = {1, 2, 0, 3};
    spb_value good[] = {1, -2, 0, 3}, nan_y[] = {1, NAN, 0, 3};
    spb_validation v;
    validate_vector(&A, good, ref, y_abs, SPB_FP64, 0, 1.0, &v);
    CHECK(v.passed && v.abs_l2 == 0 && v.rel_l2 == 0 && v.max_abs == 0 && v.failed_row < 0,
          "identical vectors");
    /* the bound of row 3 (3 terms, |A||x| 3) in fp64: about 7 u * 3 */
    double bound = rounding_bound(3, 3.0, SPB_FP64, 0);
    CHECK(bound > 6 * 0x1p-53 * 3 && bound < 8 * 0x1p-53 * 3, "fp64 bound of 3 terms: %g", bound);
    spb_value within[] = {1, -2, 0, 3 + 4 * 0x1p-52}, past[] = {1, -2, 0, 3 + 16 * 0x1p-52};
    validate_vector(&A, within, ref, y_abs, SPB_FP64, 0, 1.0, &v);
    CHECK(v.passed, "an error of 4 ulps on a row of 3 passes (bound %g)", bound);
    validate_vector(&A, past, ref, y_abs, SPB_FP64, 0, 1.0, &v);
    CHECK(!v.passed && v.failed_row == 3, "an error of 16 ulps on a row of 3 fails: row %d",
          (int)v.failed_row);
    CHECK(fabs(v.rel_l2 - 16 * 0x1p-52 / sqrt(14.0)) < 1e-20, "rel %g", v.rel_l2);
    validate_vector(&A, past, ref, y_abs, SPB_FP64, 0, 10.0, &v);
    CHECK(v.passed, "--tol 10 widens every row's bound tenfold");
    validate_vector(&A, nan_y, ref, y_abs, SPB_FP64, 0, 1.0, &v);
    CHECK(!v.passed, "a NaN passed");
    /* fp32: the row's length times 2^-24, and A's and x's rounding when the
     * reference is of the fp64 inputs */
    spb_value f32[] = {1, -2, 0, 3 + 3 * 0x1p-23};
    validate_vector(&A, f32, ref, y_abs, SPB_FP32, 0, 1.0, &v);
    CHECK(v.passed, "fp32: 3 fp32 ulps on a row of 3 pass");
    spb_value dropped[] = {1, -2, 0, 2}; /* row 3 lost one of its three entries */
    validate_vector(&A, dropped, ref, y_abs, SPB_FP32, 1, 1.0, &v);
    CHECK(!v.passed && v.failed_row == 3, "fp32: a dropped entry fails");
    CHECK(rounding_bound(3, 3.0, SPB_FP32, 1) > rounding_bound(3, 3.0, SPB_FP32, 0),
          "the inputs' rounding widens the bound");
    CHECK(isinf(rounding_bound(1e8, 1.0, SPB_FP32, 0)), "no bound past 1/u terms");
    spb_value zero[] = {0, 0, 0, 0};
    validate_vector(&A, zero, zero, zero, SPB_FP64, 0, 1.0, &v);
    CHECK(v.passed && v.rel_l2 == 0, "zero vectors");
    spb_csr empty = {0, 0, 0, row_ptr, col_idx, val, 0, NULL};
    validate_vector(&empty, zero, zero, zero, SPB_FP64, 0, 1.0, &v);
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
    spb_csr A = {M, N, row_ptr[M], row_ptr, col_idx, val, 0, NULL};
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
    csr_reference_spmv(&A, x, one, NULL);
    omp_set_num_threads(3);
    csr_reference_spmv(&A, x, three, NULL);
    omp_set_num_threads(before);
    CHECK(!memcmp(one, three, sizeof one), "the reference differs between 1 and 3 threads");
    static spb_offset wide_ptr[M + 1]; /* a matrix past 2^31 entries is stored so */
    for (int i = 0; i <= M; i++) wide_ptr[i] = row_ptr[i];
    spb_csr W = {M, N, row_ptr[M], NULL, col_idx, val, 0, wide_ptr};
    csr_reference_spmv(&W, x, three, NULL);
    CHECK(!memcmp(one, three, sizeof one), "the reference differs on wide row offsets");
}

/* A vector of many rows is checked in runs across threads: the norms, the
 * worst entry and the first failing row as one pass in row order gives
 * them (norms within rounding of a long double sum), bit for bit the same
 * at 1 and 3 threads, a failure or a NaN in a late run found. */
static void validate_at(const spb_csr *A, const spb_value *y, const spb_value *ref,
                        const spb_value *y_abs, int threads, spb_validation *v)
{
    int before = omp_get_max_threads();
    omp_set_num_threads(threads);
    validate_vector(A, y, ref, y_abs, SPB_FP64, 0, 1.0, v);
    omp_set_num_threads(before);
}

static void test_validation_runs(void)
{
    enum { M = 300007 }; /* past a pass of runs (64 x 4096 rows) */
    spb_index *row_ptr = malloc((M + 1) * sizeof *row_ptr), *col_idx = malloc(M * sizeof *col_idx);
    spb_value *val = malloc(M * sizeof *val), *ref = malloc(M * sizeof *ref),
              *y_abs = malloc(M * sizeof *y_abs), *y = malloc(M * sizeof *y);
    CHECK(row_ptr && col_idx && val && ref && y_abs && y, "out of memory");
    if (!row_ptr || !col_idx || !val || !ref || !y_abs || !y) return;
    /* a diagonal with every seventh row empty; y one ulp off on two rows in three */
    spb_offset nnz = 0;
    unsigned seed = 7;
    long double err2 = 0, ref2 = 0;
    double worst = 0;
    for (spb_index i = 0; i < M; i++) {
        row_ptr[i] = (spb_index)nnz;
        seed = seed * 1103515245u + 12345u;
        double a = ((seed >> 8) % 2000001) / 1000.0 - 1000.0 + 0.5;
        ref[i] = y_abs[i] = 0;
        if (i % 7 != 3) {
            col_idx[nnz] = i;
            val[nnz++] = a;
            ref[i] = a;
            y_abs[i] = fabs(a);
        }
        y[i] = i % 3 == 0 || ref[i] == 0 ? ref[i]
                                         : nextafter(ref[i], i % 3 == 1 ? INFINITY : -INFINITY);
        double d = y[i] - ref[i];
        err2 += (long double)d * d;
        ref2 += (long double)ref[i] * ref[i];
        if (fabs(d) > worst) worst = fabs(d);
    }
    row_ptr[M] = (spb_index)nnz;
    spb_csr A = {M, M, nnz, row_ptr, col_idx, val, 0, NULL};
    spb_validation one, three;
    validate_at(&A, y, ref, y_abs, 1, &one);
    validate_at(&A, y, ref, y_abs, 3, &three);
    const double abs_l2 = (double)sqrtl(err2), rel_l2 = (double)(sqrtl(err2) / sqrtl(ref2));
    CHECK(one.passed && one.failed_row < 0, "ulps within the bound pass");
    CHECK(fabs(one.abs_l2 - abs_l2) <= 1e-13 * abs_l2 &&
              fabs(one.rel_l2 - rel_l2) <= 1e-13 * rel_l2,
          "norms %.17g %.17g, expected %.17g %.17g", one.abs_l2, one.rel_l2, abs_l2, rel_l2);
    CHECK(one.max_abs == worst, "worst entry %g, expected %g", one.max_abs, worst);
    CHECK(one.abs_l2 == three.abs_l2 && one.rel_l2 == three.rel_l2 &&
              one.max_abs == three.max_abs && three.passed,
          "1 and 3 threads differ: %.17g %.17g", one.abs_l2, three.abs_l2);
    /* failures in two runs of two passes: the first in row order is named */
    const spb_index late = M - 5, early = 150001;
    y[late] = ref[late] + 1;
    validate_at(&A, y, ref, y_abs, 3, &three);
    CHECK(!three.passed && three.failed_row == late, "a failure in the last run: row %d",
          (int)three.failed_row);
    y[early] = ref[early] - 1;
    for (int threads = 1; threads <= 3; threads += 2) {
        validate_at(&A, y, ref, y_abs, threads, &three);
        CHECK(!three.passed && three.failed_row == early && three.max_abs == 1,
              "%d threads: the first failure is row %d, named %d", threads, (int)early,
              (int)three.failed_row);
    }
    y[early] = ref[early];
    y[late] = NAN;
    validate_at(&A, y, ref, y_abs, 3, &three);
    CHECK(!three.passed && isnan(three.abs_l2), "a NaN in the last run fails");
    y[late] = ref[late];
    ref[late] = y_abs[late] = INFINITY;
    validate_at(&A, y, ref, y_abs, 3, &three);
    CHECK(!three.passed && three.reference_overflow, "an infinite reference in the last run");
    free(row_ptr);
    free(col_idx);
    free(val);
    free(ref);
    free(y_abs);
    free(y);
}

int main(void)
{
    test_hand_computed();
    test_compensation();
    test_scale_beside();
    test_validation();
    test_threads_agree();
    test_validation_runs();
    return check_done();
}
