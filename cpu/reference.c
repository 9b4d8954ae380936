/* reference.c — the accurate reference product and the error scale. */
#include "spmv_cpu.h"

#include <math.h>

/* y = A*x with compensated dot products: s + c carries the exact running sum
 * of the rounded products plus their rounding errors (TwoProduct via fma,
 * TwoSum for the additions); |A||x| summed plainly beside it, in the same
 * pass over A and x (they were two: the larger share of a large matrix's
 * loading). Each row is summed by one thread, so y is the same at any
 * thread count. */
/* s + c += p, p's rounding error carried in c (TwoSum). */
static inline void compensated_add(double *s, double *c, double p)
{
    double t = *s + p, z = t - *s;
    *c += (*s - (t - z)) + (p - z);
    *s = t;
}

/* s + c += a * b exactly up to the final rounding (TwoProduct via fma). */
static inline void compensated_madd(double *s, double *c, double a, double b)
{
    double p = a * b;
    *c += fma(a, b, -p);
    compensated_add(s, c, p);
}

/* A complex matrix: x and y (re, im) pairs; each part a compensated sum of
 * its real products (re: ar xr - ai xi, im: ar xi + ai xr), y_abs the sum
 * of |a||x| (moduli). */
static void reference_complex(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                              spb_value *SPB_RESTRICT y, spb_value *SPB_RESTRICT y_abs)
{
#pragma omp parallel for schedule(dynamic, 1024)
    for (spb_index i = 0; i < A->m; i++) {
        double re = 0.0, re_c = 0.0, im = 0.0, im_c = 0.0, scale = 0.0;
        for (spb_offset k = csr_row_start(A, i), end = csr_row_start(A, i + 1); k < end; k++) {
            const double ar = A->val[2 * (size_t)k], ai = A->val[2 * (size_t)k + 1];
            const double xr = x[2 * (size_t)A->col_idx[k]], xi = x[2 * (size_t)A->col_idx[k] + 1];
            compensated_madd(&re, &re_c, ar, xr);
            compensated_madd(&re, &re_c, -ai, xi);
            compensated_madd(&im, &im_c, ar, xi);
            compensated_madd(&im, &im_c, ai, xr);
            scale += hypot(ar, ai) * hypot(xr, xi);
        }
        y[2 * (size_t)i] = re + re_c;
        y[2 * (size_t)i + 1] = im + im_c;
        if (y_abs) y_abs[i] = scale;
    }
}

void csr_reference_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                        spb_value *SPB_RESTRICT y, spb_value *SPB_RESTRICT y_abs)
{
    if (A->complex_values) {
        reference_complex(A, x, y, y_abs);
        return;
    }
#pragma omp parallel for schedule(dynamic, 1024)
    for (spb_index i = 0; i < A->m; i++) {
        double s = 0.0, c = 0.0, scale = 0.0;
        for (spb_offset k = csr_row_start(A, i), end = csr_row_start(A, i + 1); k < end; k++) {
            const double a = A->val[k], xj = x[A->col_idx[k]];
            double p = a * xj;
            double p_err = fma(a, xj, -p);
            double t = s + p;
            double z = t - s;
            double t_err = (s - (t - z)) + (p - z);
            s = t;
            c += p_err + t_err;
            scale += fabs(a) * fabs(xj);
        }
        y[i] = s + c;
        if (y_abs) y_abs[i] = scale;
    }
}
