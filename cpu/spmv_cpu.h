/* spmv_cpu.h — CPU sparse matrix-vector products, y = A*x. Callers pass x of
 * size A->n and y of size A->m; y is overwritten, never accumulated into. */
#ifndef SPB_SPMV_CPU_H
#define SPB_SPMV_CPU_H

#include "../formats/hll.h"

/* Reference product: each row summed with error-free transformations (Dot2,
 * Ogita-Rump-Oishi), as accurate as if computed in twice the precision and
 * then rounded. Slow on purpose; the yardstick for every kernel. */
void csr_reference_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                        spb_value *SPB_RESTRICT y);

/* y = |A|*|x|: the scale against which rounding errors are judged. */
void csr_abs_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);

void csr_serial_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void hll_serial_spmv(const spb_hll *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);

#endif
