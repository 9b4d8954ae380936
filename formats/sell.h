/* sell.h — sliced ELLPACK as cuSPARSE takes it: rows cut into slices of
 * slice_size rows; every slice, the last one included, holds slice_size
 * rows (missing rows are empty) stored column-major and as wide as its
 * longest row. Padding is marked by column -1 and value 0. */
#ifndef SPB_SELL_H
#define SPB_SELL_H

#include "csr.h"

typedef struct {
    spb_index m, n;       /* rows, columns */
    spb_index nnz;        /* real (unpadded) entries */
    spb_index slice_size; /* rows per slice (>= 1) */
    spb_index nslices;    /* ceil(m / slice_size) */
    spb_index *slice_ptr; /* size nslices+1; [0]=0; [s+1]-[s] = slice_size * width of s */
    spb_index *col_idx;   /* size slice_ptr[nslices]; < n, or -1 for padding */
    spb_value *val;       /* size slice_ptr[nslices]; padding holds 0 */
} spb_sell;

static inline spb_index sell_stored(const spb_sell *S) { return S->slice_ptr[S->nslices]; }

/* CSR -> SELL; SPB_ERR_TOO_LARGE when the padded size exceeds 32-bit offsets. */
spb_status sell_from_csr(const spb_csr *csr, spb_index slice_size, spb_sell *S, char *msg);
void sell_free(spb_sell *S); /* accepts a zeroed or freed struct */

/* Checks sizes, offsets, column range, increasing columns and zero padding. */
spb_status sell_check(const spb_sell *S, char *msg);

/* Bytes one y = A*x moves in the given precision, padding counted. */
double sell_spmv_bytes(const spb_sell *S, spb_precision precision);

#endif
