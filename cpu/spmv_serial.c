/* spmv_serial.c — single-thread CSR and HLL products. */
#include "spmv_cpu.h"

/* y = A*x, one row at a time. */
void csr_serial_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y)
{
    const spb_index *SPB_RESTRICT row_ptr = A->row_ptr;
    const spb_index *SPB_RESTRICT col_idx = A->col_idx;
    const spb_value *SPB_RESTRICT val = A->val;
    for (spb_index i = 0; i < A->m; i++) {
        double sum = 0.0;
        for (spb_index k = row_ptr[i]; k < row_ptr[i + 1]; k++) sum += val[k] * x[col_idx[k]];
        y[i] = sum;
    }
}

/* y = A*x over hacks; padding holds zeros, so every row of a hack runs the
 * same width without a branch. Row-major walks each row contiguously;
 * column-major walks the hack column by column, updating all its rows. */
void hll_serial_spmv(const spb_hll *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y)
{
    const spb_index *SPB_RESTRICT col_idx = A->col_idx;
    const spb_value *SPB_RESTRICT val = A->val;
    for (spb_index h = 0; h < A->nhacks; h++) {
        spb_index rows = hll_hack_rows(A, h), width = A->hack_width[h];
        spb_index base = A->hack_ptr[h];
        spb_value *SPB_RESTRICT yh = y + (int64_t)h * A->hack_size;
        if (A->layout == HLL_ROW_MAJOR) {
            for (spb_index r = 0; r < rows; r++) {
                double sum = 0.0;
                spb_index start = base + r * width;
                for (spb_index k = 0; k < width; k++) sum += val[start + k] * x[col_idx[start + k]];
                yh[r] = sum;
            }
        } else {
            for (spb_index r = 0; r < rows; r++) yh[r] = 0.0;
            for (spb_index k = 0; k < width; k++) {
                spb_index start = base + k * rows;
                for (spb_index r = 0; r < rows; r++)
                    yh[r] += val[start + r] * x[col_idx[start + r]];
            }
        }
    }
}
