/* reference.c — the accurate reference product and the error scale. */
#include "spmv_cpu.h"

#include <math.h>

/* y = A*x with compensated dot products: s + c carries the exact running sum
 * of the rounded products plus their rounding errors (TwoProduct via fma,
 * TwoSum for the additions); |A||x| summed plainly beside it, in the same
 * pass over A and x (they were two: the larger share of a large matrix's
 * loading). Each row is summed by one thread, so y is the same at any
 * thread count. */
void csr_reference_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                        spb_value *SPB_RESTRICT y, spb_value *SPB_RESTRICT y_abs)
{
#pragma omp parallel for schedule(dynamic, 1024)
    for (spb_index i = 0; i < A->m; i++) {
        double s = 0.0, c = 0.0, scale = 0.0;
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
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
