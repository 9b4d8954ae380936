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

/* The column-major layout's columns in 16-bit offsets: a step is one k of
 * one hack (its rows' k-th entries), holding its smallest column as a
 * 32-bit base; each real entry stores its column minus its step's base. A
 * banded matrix's steps span a few columns, so 4 bytes of column per entry
 * become 2 plus a base per step. Padding stores HLL_NARROW_PADDING, which
 * a kernel reads as column n (where the device keeps a zero of x): a
 * kernel that reads no values needs no branch for it. */
#define HLL_NARROW_SPAN    65535 /* columns a step may span: offsets 0..65534 */
#define HLL_NARROW_PADDING 65535
typedef struct {
    int64_t steps;  /* the hacks' widths summed; step s of hack h: hack_ptr[h] / hack_size + k */
    int64_t stored; /* entries, padding included (as hll_stored) */
    spb_index nhacks;
    spb_index *step_base; /* size steps */
    uint16_t *offset;     /* size stored, in the column-major layout */
} spb_hll_narrow;

/* A's column-major hacks of hack_size rows as narrow columns;
 * SPB_ERR_DECLINED, naming the step, where a step's columns span more than
 * HLL_NARROW_SPAN (or A has 64-bit row offsets). */
spb_status hll_narrow_from_csr(const spb_csr *A, spb_index hack_size, spb_hll_narrow *N, char *msg);
void hll_narrow_free(spb_hll_narrow *N); /* accepts a zeroed or freed struct */
/* Bytes one y = A*x moves on narrow columns: hll_spmv_bytes with 2 bytes of
 * column per entry and a base per step. */
double hll_narrow_spmv_bytes(const spb_hll_narrow *N, spb_index m, spb_index n,
                             spb_precision precision);
/* The same by a kernel that reads no values (a pattern matrix). */
double hll_narrow_pattern_spmv_bytes(const spb_hll_narrow *N, spb_index m, spb_index n,
                                     spb_precision precision);

#endif
