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

/* The block size of BSR_BLOCK_SIZES whose product moves the fewest bytes
 * (0 when none fits 32-bit offsets); its stored blocks in *blocks. */
spb_index bsr_best_block(const spb_csr *A, spb_precision precision, int64_t *blocks);

/* CSR -> BSR at `block` (>= 1); SPB_ERR_TOO_LARGE past 32-bit offsets. */
spb_status bsr_from_csr(const spb_csr *A, spb_index block, spb_bsr *B, char *msg);
void bsr_free(spb_bsr *B); /* accepts a zeroed or freed struct */

static inline int64_t bsr_stored(const spb_bsr *B)
{
    return (int64_t)B->nblocks * B->block * B->block;
}

#endif
