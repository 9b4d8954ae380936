/* test_validation.c — the run's validation against planted wrong kernels:
 * on every bundled matrix and every generator shape, in fp64 and fp32, a
 * product that drops the last entry of every row, 0.1% of the entries, or
 * one nonzero entry of a single row of up to 1,000 entries (its largest;
 * in fp64 its first and last too) is `wrong`, and the
 * same product without the drop is `ok` (the bound passes honest
 * rounding, in any order of summation). SpGEMM: a C missing one product
 * of one entry (a row's largest entry times its partner's largest) is
 * `wrong`. Complex matrices (SpMV and SpGEMM) (the bundled complex files, and generated ones
 * given imaginary parts) likewise in complex128 and complex64, and a
 * product with A's values conjugated (a Hermitian reader's or kernel's
 * classic slip) is `wrong`. */
#include <complex.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs/gen.h"
#include "bench/inputs/rng.h"
#include "bench/inputs/sources.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/op_spmv.h"
#include "bench/validation/validate.h"
#include "check.h"
#include "cpu/spgemm_cpu.h"
#include "given_c.h"

/* A product made the plain way in the row's precision (forwards or
 * backwards through each row: both orders are honest), leaving out the
 * entries marked in drop. */
typedef struct {
    const spb_csr *A;
    const unsigned char *drop; /* NULL: none */
    spb_precision precision;
    int backwards;
    int conjugate; /* complex: A's values conjugated */
} planted;

/* The complex product the plain way, in complex128 or complex64. */
static void planted_complex(const planted *p, const void *x, void *y)
{
    const spb_csr *A = p->A;
    const int single = spb_precision_single(p->precision);
    for (spb_index i = 0; i < A->m; i++) {
        double complex sum64 = 0;
        float complex sum32 = 0;
        for (spb_index n = 0; n < A->row_ptr[i + 1] - A->row_ptr[i]; n++) {
            spb_index k = p->backwards ? A->row_ptr[i + 1] - 1 - n : A->row_ptr[i] + n;
            if (p->drop && p->drop[k]) continue;
            double complex a = CMPLX(A->val[2 * k], A->val[2 * k + 1]);
            if (p->conjugate) a = conj(a);
            if (single)
                sum32 += (float complex)a * ((const float complex *)x)[A->col_idx[k]];
            else
                sum64 += a * ((const double complex *)x)[A->col_idx[k]];
        }
        if (single)
            ((float complex *)y)[i] = sum32;
        else
            ((double complex *)y)[i] = sum64;
    }
}

static spb_status planted_spmv(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const planted *p = state;
    const spb_csr *A = p->A;
    if (A->complex_values) {
        planted_complex(p, x, y);
        return SPB_OK;
    }
    for (spb_index i = 0; i < A->m; i++) {
        double sum64 = 0;
        float sum32 = 0;
        for (spb_index n = 0; n < A->row_ptr[i + 1] - A->row_ptr[i]; n++) {
            spb_index k = p->backwards ? A->row_ptr[i + 1] - 1 - n : A->row_ptr[i] + n;
            if (p->drop && p->drop[k]) continue;
            if (p->precision == SPB_FP32)
                sum32 += (float)A->val[k] * ((const float *)x)[A->col_idx[k]];
            else
                sum64 += A->val[k] * ((const double *)x)[A->col_idx[k]];
        }
        if (p->precision == SPB_FP32)
            ((float *)y)[i] = sum32;
        else
            ((double *)y)[i] = sum64;
    }
    return SPB_OK;
}

static const spb_spmv_kernel planted_kernel = {.kernel = {.name = "planted"}, .spmv = planted_spmv};

static spb_row_status status_of(spb_case *c, const planted *p, char *msg)
{
    spb_validation v;
    msg[0] = '\0';
    return operation_spmv()->product(&planted_kernel.kernel, (void *)p, c, p->precision,
                                     SPB_DEFAULT_TOLERANCE, &v, msg);
}

/* |a_k|: a complex value's modulus. */
static double magnitude(const spb_csr *A, spb_index k)
{
    return A->complex_values ? hypot(A->val[2 * k], A->val[2 * k + 1]) : fabs(A->val[k]);
}

/* The entry of row i with the largest magnitude, or -1 when all are zero. */
static spb_index largest_in_row(const spb_csr *A, spb_index i)
{
    spb_index best = -1;
    for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
        if (magnitude(A, k) != 0 && (best < 0 || magnitude(A, k) > magnitude(A, best))) best = k;
    return best;
}

/* The row's precision: the width asked for, in the matrix's field. */
static spb_precision precision_of(const spb_csr *A, int single)
{
    return spb_precision_in_field(single ? SPB_FP32 : SPB_FP64, A->complex_values);
}

static void check_matrix(const char *label, const spb_csr *A)
{
    const spb_operation *op = operation_spmv();
    char msg[SPB_MSG_LEN] = "";
    spb_case c = {.name = label, .A = A};
    CHECK(op->case_setup(&c, 1, msg) == SPB_OK, "%s: setup: %s", label, msg);
    unsigned char *drop = calloc((size_t)A->nnz + 1, 1);
    /* the row of up to 1,000 entries the single drop is made in: the longest
     * with a nonzero value (an explicit zero dropped changes nothing) */
    spb_index single = -1;
    for (spb_index i = 0; i < A->m; i++) {
        spb_index len = A->row_ptr[i + 1] - A->row_ptr[i];
        if (len > 0 && len <= 1000 && largest_in_row(A, i) >= 0 &&
            (single < 0 || len > A->row_ptr[single + 1] - A->row_ptr[single]))
            single = i;
    }
    for (int precision = 0; precision < 2; precision++)
        for (int backwards = 0; backwards < 2; backwards++) {
            planted p = {A, NULL, precision_of(A, precision), backwards, 0};
            spb_row_status st = status_of(&c, &p, msg);
            CHECK(st == SPB_ROW_OK, "%s/%s: an honest product (%s) is not ok: %d %s", label,
                  spb_precision_str(p.precision), backwards ? "backwards" : "forwards", (int)st,
                  msg);
        }
    for (int precision = 0; precision < 2; precision++) {
        planted p = {A, drop, precision_of(A, precision), 0, 0};
        const char *name = spb_precision_str(p.precision);
        if (A->complex_values) { /* every value conjugated */
            planted conjugated = {A, NULL, p.precision, 0, 1};
            spb_row_status st = status_of(&c, &conjugated, msg);
            CHECK(st == SPB_ROW_WRONG, "%s/%s: A's values conjugated: %d", label, name, (int)st);
        }
        /* the last entry of every row */
        memset(drop, 0, (size_t)A->nnz);
        for (spb_index i = 0; i < A->m; i++)
            if (A->row_ptr[i + 1] > A->row_ptr[i]) drop[A->row_ptr[i + 1] - 1] = 1;
        spb_row_status st = status_of(&c, &p, msg);
        CHECK(st == SPB_ROW_WRONG, "%s/%s: the last entry of every row dropped: %d", label, name,
              (int)st);
        /* 0.1% of the entries (at least one), at random */
        memset(drop, 0, (size_t)A->nnz);
        spb_rng rng;
        spb_rng_seed(&rng, 74);
        spb_index count = A->nnz / 1000 > 1 ? A->nnz / 1000 : 1;
        for (spb_index k = 0; k < count; k++) drop[spb_rng_below(&rng, (uint64_t)A->nnz)] = 1;
        st = status_of(&c, &p, msg);
        CHECK(st == SPB_ROW_WRONG, "%s/%s: %d entries (0.1%%) dropped: %d", label, name, (int)count,
              (int)st);
        /* one entry of one row: its largest, and in fp64 its first and last
         * too (an entry 1e-13 of its row's largest is below fp32's rounding:
         * 1 + 1e-13 is 1 in fp32, so no fp32 product can show it missing) */
        spb_index first = -1, last = -1; /* the row's first and last nonzero entries */
        for (spb_index k = single >= 0 ? A->row_ptr[single] : 0;
             single >= 0 && k < A->row_ptr[single + 1]; k++)
            if (magnitude(A, k) != 0) {
                if (first < 0) first = k;
                last = k;
            }
        spb_index which[] = {single >= 0 ? largest_in_row(A, single) : 0, first, last};
        static const char *const what[] = {"largest", "first", "last"};
        for (int w = 0; w < (precision ? 1 : 3) && single >= 0; w++) {
            memset(drop, 0, (size_t)A->nnz);
            drop[which[w]] = 1;
            st = status_of(&c, &p, msg);
            CHECK(st == SPB_ROW_WRONG, "%s/%s: the %s entry of row %d (%d entries) dropped: %d",
                  label, name, what[w], (int)single,
                  (int)(A->row_ptr[single + 1] - A->row_ptr[single]), (int)st);
        }
    }
    free(drop);
    op->case_free(&c);
}

static void check_spgemm(const char *label, const spb_csr *A)
{
    const spb_operation *op = operation_spgemm();
    char msg[SPB_MSG_LEN] = "";
    spb_case c = {.name = label, .A = A};
    CHECK(op->case_setup(&c, 1, msg) == SPB_OK, "%s: setup: %s", label, msg);
    spb_csr C;
    CHECK(csr_spgemm_gustavson(A, A, &C, msg) == SPB_OK, "%s: %s", label, msg);
    /* in the longest row with a nonzero value, its largest entry a_(row, r)
     * times row r's largest, a_(r, j): that product left out of c_(row, j) */
    spb_index row = -1, ka = -1, kb = -1;
    for (spb_index i = 0; i < A->m; i++) {
        spb_index a = largest_in_row(A, i), b = a >= 0 ? largest_in_row(A, A->col_idx[a]) : -1;
        if (b >= 0 && (row < 0 ||
                       A->row_ptr[i + 1] - A->row_ptr[i] > A->row_ptr[row + 1] - A->row_ptr[row])) {
            row = i;
            ka = a;
            kb = b;
        }
    }
    for (int precision = 0; precision < 2 && row >= 0; precision++) {
        spb_csr mine;
        CHECK(csr_spgemm_gustavson(A, A, &mine, msg) == SPB_OK, "%s", msg);
        const spb_precision p = precision_of(A, precision);
        spb_validation v;
        msg[0] = '\0';
        spb_row_status st =
            op->product(&given_kernel.kernel, &mine, &c, p, SPB_DEFAULT_TOLERANCE, &v, msg);
        CHECK(st == SPB_ROW_OK, "%s/%s: C as made is ok: %d %s", label, spb_precision_str(p),
              (int)st, msg);
        spb_index j = A->col_idx[kb];
        for (spb_index k = mine.row_ptr[row]; k < mine.row_ptr[row + 1]; k++) {
            if (mine.col_idx[k] != j) continue;
            if (A->complex_values) {
                double complex product = CMPLX(A->val[2 * ka], A->val[2 * ka + 1]) *
                                         CMPLX(A->val[2 * kb], A->val[2 * kb + 1]);
                mine.val[2 * k] -= creal(product);
                mine.val[2 * k + 1] -= cimag(product);
            } else {
                mine.val[k] -= A->val[ka] * A->val[kb];
            }
        }
        msg[0] = '\0';
        st = op->product(&given_kernel.kernel, &mine, &c, p, SPB_DEFAULT_TOLERANCE, &v, msg);
        CHECK(st == SPB_ROW_WRONG, "%s/%s: one product of c(%d, %d) left out: %d %s", label,
              spb_precision_str(p), (int)row, (int)j, (int)st, msg);
        csr_free(&mine);
    }
    csr_free(&C);
    op->case_free(&c);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "matrices";
    DIR *d = opendir(dir);
    struct dirent *e;
    int matrices = 0, complex_files = 0;
    while (d && (e = readdir(d)) != NULL) {
        if (!strstr(e->d_name, ".mtx")) continue;
        char path[1024], msg[SPB_MSG_LEN] = "";
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        spb_csr A;
        CHECK(source_load(path, &A, NULL, msg) == SPB_OK, "%s: %s", e->d_name, msg);
        check_matrix(e->d_name, &A);
        complex_files += A.complex_values;
        if (A.m == A.n && A.nnz < 200000) check_spgemm(e->d_name, &A);
        csr_free(&A);
        matrices++;
    }
    if (d) closedir(d);
    CHECK(matrices >= 10, "the bundled matrices were read: %d", matrices);
    const int want_complex = argc > 2 ? atoi(argv[2]) : 0; /* what the folder is known to hold */
    CHECK(complex_files >= want_complex, "%s: %d complex matrices read, %d expected", dir,
          complex_files, want_complex);
    static const char *const shapes[] = {"gen:lap2d:40",           "gen:lap3d:12",
                                         "gen:random:3000:9",      "gen:rmat:12:8",
                                         "gen:hubs:4000:6:2:900",  "gen:road:60:70",
                                         "gen:lp:400:8000:3:20:2", "gen:circuit:3000:5:2:800"};
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; k++) {
        char msg[SPB_MSG_LEN] = "";
        spb_csr A;
        CHECK(gen_matrix(shapes[k], &A, msg) == SPB_OK, "%s: %s", shapes[k], msg);
        check_matrix(shapes[k], &A);
        if (A.m == A.n) check_spgemm(shapes[k], &A);
        /* the same pattern with complex values: imaginary parts drawn */
        spb_csr Z;
        CHECK(csr_alloc_complex(&Z, A.m, A.n, A.nnz, msg) == SPB_OK, "%s", msg);
        memcpy(Z.row_ptr, A.row_ptr, sizeof *Z.row_ptr * ((size_t)A.m + 1));
        memcpy(Z.col_idx, A.col_idx, sizeof *Z.col_idx * (size_t)A.nnz);
        spb_rng rng;
        spb_rng_seed(&rng, 11 + k);
        for (spb_index q = 0; q < A.nnz; q++) {
            Z.val[2 * q] = A.val[q];
            Z.val[2 * q + 1] = spb_rng_value(&rng);
        }
        char label[64];
        snprintf(label, sizeof label, "%s, complex", shapes[k]);
        check_matrix(label, &Z);
        if (Z.m == Z.n) check_spgemm(label, &Z);
        csr_free(&Z);
        csr_free(&A);
    }
    return check_done();
}
