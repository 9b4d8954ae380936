/* reference.c — the accurate reference product and the error scale. */
#include "spmv_cpu.h"

#include <math.h>

/* y = A*x with compensated dot products: s + c carries the exact running sum
 * of the rounded products plus their rounding errors (TwoProduct via fma,
 * TwoSum for the additions). */
void csr_reference_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                        spb_value *SPB_RESTRICT y)
{
    for (spb_index i = 0; i < A->m; i++) {
        double s = 0.0, c = 0.0;
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            double p = A->val[k] * x[A->col_idx[k]];
            double p_err = fma(A->val[k], x[A->col_idx[k]], -p);
            double t = s + p;
            double z = t - s;
            double t_err = (s - (t - z)) + (p - z);
            s = t;
            c += p_err + t_err;
        }
        y[i] = s + c;
    }
}

void csr_abs_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y)
{
    for (spb_index i = 0; i < A->m; i++) {
        double s = 0.0;
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            s += fabs(A->val[k]) * fabs(x[A->col_idx[k]]);
        y[i] = s;
    }
}
