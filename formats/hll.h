/* hll.h — hacked ELLPACK: rows are cut into hacks of hack_size consecutive
 * rows; each hack is stored as a dense ELLPACK block as wide as its longest
 * row. Short rows are padded with value 0 and a valid column index (the row's
 * last column, or 0 for an empty row), so kernels need no branch. */
#ifndef SPB_HLL_H
#define SPB_HLL_H

#include "csr.h"

typedef enum {
    HLL_ROW_MAJOR, /* entry (r, k) of hack h at hack_ptr[h] + r*width + k */
    HLL_COL_MAJOR  /* entry (r, k) of hack h at hack_ptr[h] + k*rows_h + r */
} spb_hll_layout;

#define HLL_DEFAULT_HACK_SIZE 32

typedef struct {
    spb_index m, n;      /* rows, columns */
    spb_index nnz;       /* real (unpadded) entries */
    spb_index hack_size; /* rows per hack (>= 1); the last hack may be shorter */
    spb_index nhacks;    /* ceil(m / hack_size) */
    spb_hll_layout layout;
    spb_index *hack_ptr;   /* size nhacks+1; [0]=0; [h+1]-[h] = rows_h*hack_width[h] */
    spb_index *hack_width; /* size nhacks; longest row of the hack */
    spb_index *col_idx;    /* size hack_ptr[nhacks]; < n (padding included) */
    spb_value *val;        /* size hack_ptr[nhacks]; padding holds 0 */
    float *val32;          /* an fp32 HLL keeps its values here instead (val NULL) */
} spb_hll;

/* Rows in hack h: hack_size except possibly for the last hack. */
static inline spb_index hll_hack_rows(const spb_hll *A, spb_index h)
{
    spb_index first = h * A->hack_size;
    spb_index left = A->m - first;
    return left < A->hack_size ? left : A->hack_size;
}

static inline spb_index hll_stored(const spb_hll *A) { return A->hack_ptr[A->nhacks]; }

spb_status hll_from_csr(const spb_csr *csr, spb_index hack_size, spb_hll_layout layout, spb_hll *A,
                        char *msg);
void hll_free(spb_hll *A); /* accepts a zeroed or freed struct */

/* Checks sizes, offsets, column range and that padding holds zeros. */
spb_status hll_check(const spb_hll *A, char *msg);

/* Bytes one y = A*x moves in the given precision, padding counted. */
double hll_spmv_bytes(const spb_hll *A, spb_precision precision);
/* The same by a kernel that reads no values (a pattern matrix): columns,
 * hack arrays, x and y. */
double hll_pattern_spmv_bytes(const spb_hll *A, spb_precision precision);
double hll_bytes(const spb_hll *A); /* storage footprint */

#endif
