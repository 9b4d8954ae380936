/* bsr.h — block compressed rows as cuSPARSE takes them: the matrix cut into
 * b x b blocks (the last block row and column padded past m and n); a block
 * is stored, row-major and whole, when any of its entries is. */
#ifndef SPB_BSR_H
#define SPB_BSR_H

#include "csr.h"

typedef struct {
    spb_index m, n;         /* rows, columns of the matrix */
    spb_index block;        /* b */
    spb_index brows, bcols; /* ceil(m / b), ceil(n / b) */
    spb_index nblocks;      /* stored blocks */
    spb_index *row_ptr;     /* size brows+1 */
    spb_index *col_idx;     /* size nblocks; block columns, ascending in each block row */
    spb_value *val;         /* size nblocks * b * b; entries not in A hold 0 */
} spb_bsr;

/* The block sizes bsr_best_block chooses among. */
#define BSR_BLOCK_SIZES                                                                            \
    {                                                                                              \
        2, 3, 4, 6, 8                                                                              \
    }

/* Stored blocks of A cut at `block` (-1 when more than 32-bit offsets hold). */
int64_t bsr_count_blocks(const spb_csr *A, spb_index block);

/* Bytes one y = A*x moves in BSR at `block` with `blocks` stored. */
double bsr_spmv_bytes(const spb_csr *A, spb_index block, int64_t blocks, spb_precision precision);

#define BSR_BLOCK_SIZE_COUNT 5

/* Stored blocks of A at each of BSR_BLOCK_SIZES, in that order (-1 where
 * more than 32-bit offsets hold): what the choice below needs in any
 * precision, counted once. */
void bsr_count_sizes(const spb_csr *A, int64_t counts[BSR_BLOCK_SIZE_COUNT]);

/* The block size of BSR_BLOCK_SIZES whose product in `precision` moves the
 * fewest bytes, given bsr_count_sizes' counts (0 when none fits 32-bit
 * offsets); its stored blocks in *blocks. */
spb_index bsr_best_of_counts(const spb_csr *A, spb_precision precision,
                             const int64_t counts[BSR_BLOCK_SIZE_COUNT], int64_t *blocks);

/* bsr_best_of_counts on counts made now. */
spb_index bsr_best_block(const spb_csr *A, spb_precision precision, int64_t *blocks);

/* CSR -> BSR at `block` (>= 1), block rows on the OpenMP threads (the
 * same BSR at any thread count); SPB_ERR_TOO_LARGE past 32-bit offsets. */
spb_status bsr_from_csr(const spb_csr *A, spb_index block, spb_bsr *B, char *msg);
void bsr_free(spb_bsr *B); /* accepts a zeroed or freed struct */

static inline int64_t bsr_stored(const spb_bsr *B)
{
    return (int64_t)B->nblocks * B->block * B->block;
}

/* BSR's block rows in slices of `slice` block rows, each slice an ELL of
 * blocks laid out column-major (as HLL's column-major hacks): slice s has
 * `width[s]` steps, the most blocks of any of its block rows. At step k,
 * block row r of the slice (`rows` of them: `slice`, fewer in the last)
 * has its k-th block column at col_idx[ptr[s] + k*rows + r], and entry
 * (i, j) of that block at val[ptr[s]*b*b + (k*b + j)*rows*b + r*b + i].
 * So at each (k, j) the slice's rows*b rows read consecutive values: one
 * thread a row reads them coalesced, and the b rows of a block row share
 * one block column. A block row with fewer blocks is padded with block
 * column 0 and zero values. */
typedef struct {
    spb_index block, brows, bcols; /* as the BSR's */
    spb_index slice, nslices;      /* block rows per slice, ceil(brows / slice) */
    spb_index *ptr;                /* size nslices+1: each slice's first block, padding counted */
    spb_index *width;              /* size nslices: each slice's steps */
    spb_index *col_idx;            /* size ptr[nslices] */
    spb_value *val;                /* size ptr[nslices] * b * b */
} spb_bsr_sliced;

/* B in slices of `slice` (>= 1) block rows; SPB_ERR_TOO_LARGE where the
 * padded values pass 32-bit offsets. */
spb_status bsr_slice(const spb_bsr *B, spb_index slice, spb_bsr_sliced *S, char *msg);
void bsr_sliced_free(spb_bsr_sliced *S); /* accepts a zeroed or freed struct */

/* Block rows in slice s: `slice`, fewer in the last. */
static inline spb_index bsr_slice_rows(const spb_bsr_sliced *S, spb_index s)
{
    return S->brows - s * S->slice < S->slice ? S->brows - s * S->slice : S->slice;
}

static inline int64_t bsr_sliced_stored(const spb_bsr_sliced *S)
{
    return (int64_t)S->ptr[S->nslices] * S->block * S->block;
}

/* Bytes one y = A*x moves on the slices: bsr_spmv_bytes with the padding's
 * blocks counted and the slices' offsets and widths for the block rows'. */
double bsr_sliced_spmv_bytes(const spb_bsr_sliced *S, spb_precision precision);

#endif
