/* spmv_serial.c — single-thread CSR and HLL products. */
#include "spmv_cpu.h"

/* y = A*x, one row at a time. */
void csr_serial_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y)
{
    csr_rows(A, A->val, 0, A->m, x, y);
}

void csr_serial_spmv32(const spb_csr *A, const float *SPB_RESTRICT val, const float *SPB_RESTRICT x,
                       float *SPB_RESTRICT y)
{
    csr_rows32(A, val, 0, A->m, x, y);
}

void csr_serial_spmv_c128(const spb_csr *A, const spb_c128 *SPB_RESTRICT val,
                          const spb_c128 *SPB_RESTRICT x, spb_c128 *SPB_RESTRICT y)
{
    csr_rows_c128(A, val, 0, A->m, x, y);
}

void csr_serial_spmv_c64(const spb_csr *A, const spb_c64 *SPB_RESTRICT val,
                         const spb_c64 *SPB_RESTRICT x, spb_c64 *SPB_RESTRICT y)
{
    csr_rows_c64(A, val, 0, A->m, x, y);
}

/* y = A*x, one hack after another. */
void hll_serial_spmv(const spb_hll *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y)
{
    for (spb_index h = 0; h < A->nhacks; h++) hll_hack_spmv(A, h, x, y);
}

void hll_serial_spmv32(const spb_hll *A, const float *SPB_RESTRICT x, float *SPB_RESTRICT y)
{
    for (spb_index h = 0; h < A->nhacks; h++) hll_hack_spmv32(A, h, x, y);
}
