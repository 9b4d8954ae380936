/* bsr.c — CSR -> block compressed rows and its byte model (see bsr.h). */
#include "bsr.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

void bsr_free(spb_bsr *B)
{
    spb_free(B->row_ptr);
    spb_free(B->col_idx);
    spb_free(B->val);
    memset(B, 0, sizeof *B);
}

static spb_index blocks_of(spb_index size, spb_index block)
{
    return (spb_index)(((int64_t)size + block - 1) / block);
}

/* The block columns of block row br, ascending, each once: the merge of
 * its rows' columns divided by block (a row's columns ascend, so do
 * theirs), into out when given; their count returned. at and bc: a cursor
 * per row of the block row and the block column under it (-1: the row is
 * done). Inlined (count_blocks_of, fill_of). */
static inline __attribute__((always_inline)) spb_index
block_row_columns(const spb_csr *A, spb_index block, spb_index br, spb_index *at, spb_index *bc,
                  spb_index *out)
{
    const spb_index first = br * block, rows = A->m - first < block ? A->m - first : block;
    for (spb_index r = 0; r < rows; r++) {
        at[r] = A->row_ptr[first + r];
        bc[r] = at[r] < A->row_ptr[first + r + 1] ? A->col_idx[at[r]] / block : -1;
    }
    for (spb_index count = 0;; count++) {
        spb_index next = -1; /* the least block column under a cursor */
        for (spb_index r = 0; r < rows; r++)
            if (bc[r] >= 0 && (next < 0 || bc[r] < next)) next = bc[r];
        if (next < 0) return count;
        if (out) out[count] = next;
        for (spb_index r = 0; r < rows; r++) {
            if (bc[r] != next) continue;
            const spb_index end = A->row_ptr[first + r + 1];
            while (at[r] < end && A->col_idx[at[r]] / block == next) at[r]++;
            bc[r] = at[r] < end ? A->col_idx[at[r]] / block : -1;
        }
    }
}

/* The blocks of A at `block` counted alone (bsr_count_sizes: every size of
 * BSR_BLOCK_SIZES on each matrix): block rows walked in order, each block
 * column marked in `seen` (bcols entries) with the block row that last met
 * it, and no mark array per thread. The merge of block_row_columns took
 * 7-9x its CPU time counting every size on two graphs of 16 million
 * entries (gen:rmat:20:16, gen:random:2000000:8). Returns the blocks, or
 * -1 past 32-bit offsets. Inlined (bsr_count_blocks). */
static inline __attribute__((always_inline)) int64_t
walk_blocks_of(const spb_csr *A, spb_index block, spb_index *seen)
{
    spb_index brows = blocks_of(A->m, block), bcols = blocks_of(A->n, block);
    for (spb_index bc = 0; bc < bcols; bc++) seen[bc] = -1;
    int64_t total = 0;
    for (spb_index br = 0; br < brows; br++) {
        spb_index last = br * block + block < A->m ? br * block + block : A->m;
        for (spb_index i = br * block; i < last; i++)
            for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                spb_index bc = A->col_idx[k] / block;
                if (seen[bc] == br) continue;
                seen[bc] = br;
                total++;
            }
        if (total * block * block > SPB_INDEX_MAX) return -1;
    }
    return total;
}

/* Block row cursors for `block` rows: on the stack up to this many. */
#define CURSORS_ON_STACK 64

/* The cursors of `threads` threads for blocks past CURSORS_ON_STACK, 2 *
 * block each, taken before the threads start (spb_malloc counts its calls
 * for the tests' injected failures: not from a parallel region); NULL
 * where the stack holds them. *failed when the heap had none. */
static spb_index *heap_cursors(spb_index block, int threads, int *failed)
{
    spb_index *heap = block > CURSORS_ON_STACK
                          ? spb_malloc((size_t)threads * 2 * (size_t)block, sizeof *heap)
                          : NULL;
    *failed = block > CURSORS_ON_STACK && !heap;
    return heap;
}

/* This thread's cursors: its span of heap, else its stack's. */
#define THREAD_CURSORS(heap, block, stack)                                                         \
    ((heap) ? (heap) + (size_t)omp_get_thread_num() * 2 * (size_t)(block) : (stack))

/* `call` with `size` the block size `given`: a constant for each size of
 * BSR_BLOCK_SIZES, so the functions inlined into it divide by a constant
 * (bsr_best_block ran 2.2-2.8x faster so, and bsr_from_csr's earlier walk
 * with a slot lookup 1.4-1.9x, on FEM shapes and a Laplacian of 11-17
 * million entries); the variable else. */
#define AT_BLOCK_SIZE(given, size, call)                                                           \
    switch (given) {                                                                               \
    case 2: {                                                                                      \
        const spb_index size = 2;                                                                  \
        call;                                                                                      \
    } break;                                                                                       \
    case 3: {                                                                                      \
        const spb_index size = 3;                                                                  \
        call;                                                                                      \
    } break;                                                                                       \
    case 4: {                                                                                      \
        const spb_index size = 4;                                                                  \
        call;                                                                                      \
    } break;                                                                                       \
    case 6: {                                                                                      \
        const spb_index size = 6;                                                                  \
        call;                                                                                      \
    } break;                                                                                       \
    case 8: {                                                                                      \
        const spb_index size = 8;                                                                  \
        call;                                                                                      \
    } break;                                                                                       \
    default: {                                                                                     \
        const spb_index size = (given);                                                            \
        call;                                                                                      \
    } break;                                                                                       \
    }

/* Each block row's block count into counts[br + 1] (when given) on the
 * OpenMP threads; their total returned, -1 past 32-bit offsets, -2 when
 * cursors could not be had. Inlined (count_blocks). */
static inline __attribute__((always_inline)) int64_t
count_blocks_of(const spb_csr *A, spb_index block, spb_index *counts)
{
    const spb_index brows = blocks_of(A->m, block);
    const int threads = omp_get_max_threads();
    int failed;
    spb_index *heap = heap_cursors(block, threads, &failed);
    if (failed) return -2;
    int64_t total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        spb_index stack[2 * CURSORS_ON_STACK];
        spb_index *at = THREAD_CURSORS(heap, block, stack);
#pragma omp for schedule(dynamic, 256)
        for (spb_index br = 0; br < brows; br++) {
            const spb_index c = block_row_columns(A, block, br, at, at + block, NULL);
            if (counts) counts[br + 1] = c;
            total += c;
        }
    }
    spb_free(heap);
    return total * block * block > SPB_INDEX_MAX ? -1 : total;
}

static int64_t count_blocks(const spb_csr *A, spb_index block, spb_index *counts)
{
    int64_t blocks = 0;
    AT_BLOCK_SIZE(block, b, blocks = count_blocks_of(A, b, counts));
    return blocks;
}

int64_t bsr_count_blocks(const spb_csr *A, spb_index block)
{
    spb_index *seen = spb_malloc((size_t)blocks_of(A->n, block) + 1, sizeof *seen);
    if (!seen) return -1;
    int64_t blocks = 0;
    AT_BLOCK_SIZE(block, b, blocks = walk_blocks_of(A, b, seen));
    spb_free(seen);
    return blocks;
}

double bsr_spmv_bytes(const spb_csr *A, spb_index block, int64_t blocks, spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    double brows = blocks_of(A->m, block), bcols = blocks_of(A->n, block);
    return value * (double)blocks * block * block /* val, zeros of the blocks included */
           + index * (double)blocks               /* block columns */
           + index * (brows + 1.0)                /* block row offsets */
           + value * bcols * block                /* x, padded */
           + value * brows * block;               /* y written, padded */
}

void bsr_count_sizes(const spb_csr *A, int64_t counts[BSR_BLOCK_SIZE_COUNT])
{
    static const spb_index sizes[BSR_BLOCK_SIZE_COUNT] = BSR_BLOCK_SIZES;
    for (int s = 0; s < BSR_BLOCK_SIZE_COUNT; s++) counts[s] = bsr_count_blocks(A, sizes[s]);
}

spb_index bsr_best_of_counts(const spb_csr *A, spb_precision precision,
                             const int64_t counts[BSR_BLOCK_SIZE_COUNT], int64_t *blocks)
{
    static const spb_index sizes[BSR_BLOCK_SIZE_COUNT] = BSR_BLOCK_SIZES;
    spb_index best = 0;
    double best_bytes = 0;
    for (int s = 0; s < BSR_BLOCK_SIZE_COUNT; s++) {
        if (counts[s] < 0) continue;
        double bytes = bsr_spmv_bytes(A, sizes[s], counts[s], precision);
        if (!best || bytes < best_bytes) best = sizes[s], best_bytes = bytes, *blocks = counts[s];
    }
    return best;
}

spb_index bsr_best_block(const spb_csr *A, spb_precision precision, int64_t *blocks)
{
    int64_t counts[BSR_BLOCK_SIZE_COUNT];
    bsr_count_sizes(A, counts);
    return bsr_best_of_counts(A, precision, counts, blocks);
}

/* B's block columns placed (B->row_ptr made) and A's values put in their
 * blocks, a block row at a time on the OpenMP threads: a row's entries
 * meet its block row's block columns in order, so each finds its block by
 * walking them once. 1 when cursors could not be had. Inlined (fill). */
static inline __attribute__((always_inline)) int fill_of(const spb_csr *A, spb_bsr *B,
                                                         spb_index block)
{
    const int threads = omp_get_max_threads();
    int failed;
    spb_index *heap = heap_cursors(block, threads, &failed);
    if (failed) return 1;
#pragma omp parallel num_threads(threads)
    {
        spb_index stack[2 * CURSORS_ON_STACK];
        spb_index *at = THREAD_CURSORS(heap, block, stack);
#pragma omp for schedule(dynamic, 256)
        for (spb_index br = 0; br < B->brows; br++) {
            const spb_index s0 = B->row_ptr[br];
            block_row_columns(A, block, br, at, at + block, B->col_idx + s0);
            const spb_index last = br * block + block < A->m ? br * block + block : A->m;
            for (spb_index i = br * block; i < last; i++) {
                spb_index s = s0;
                for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                    const spb_index col = A->col_idx[k];
                    while (B->col_idx[s] < col / block) s++;
                    B->val[(int64_t)s * block * block + (i - br * block) * block + col % block] =
                        A->val[k];
                }
            }
        }
    }
    spb_free(heap);
    return 0;
}

static int fill(const spb_csr *A, spb_bsr *B)
{
    int failed = 0;
    AT_BLOCK_SIZE(B->block, b, failed = fill_of(A, B, b));
    return failed;
}

spb_status bsr_from_csr(const spb_csr *A, spb_index block, spb_bsr *B, char *msg)
{
    memset(B, 0, sizeof *B);
    if (csr_real_only(A, "BSR", msg) != SPB_OK) return SPB_ERR_DECLINED;
    if (block < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "BSR block size %d: must be >= 1", (int)block);
    B->m = A->m, B->n = A->n, B->block = block;
    B->brows = blocks_of(A->m, block), B->bcols = blocks_of(A->n, block);
    B->row_ptr = spb_calloc((size_t)B->brows + 1, sizeof *B->row_ptr);
    const int64_t blocks = B->row_ptr ? count_blocks(A, block, B->row_ptr) : -2;
    spb_status st = SPB_OK;
    if (blocks == -1) {
        st = spb_fail(msg, SPB_ERR_TOO_LARGE,
                      "BSR at block %d would store more than %d entries (32-bit offsets)",
                      (int)block, (int)SPB_INDEX_MAX);
        goto done;
    }
    if (blocks < 0) goto nomem;
    B->nblocks = (spb_index)blocks;
    char detail[96];
    snprintf(detail, sizeof detail, "%lld stored entries in %dx%d blocks for %lld",
             (long long)bsr_stored(B), (int)block, (int)block, (long long)A->nnz);
    st = spb_memory_check(8.0 * (double)bsr_stored(B) + 4.0 * (double)blocks, "BSR", detail, msg);
    if (st != SPB_OK) goto done;
    for (spb_index br = 0; br < B->brows; br++) B->row_ptr[br + 1] += B->row_ptr[br];
    B->col_idx = spb_malloc((size_t)B->nblocks + 1, sizeof *B->col_idx);
    B->val = spb_calloc((size_t)bsr_stored(B) + 1, sizeof *B->val);
    if (!B->col_idx || !B->val || fill(A, B)) goto nomem;
    return SPB_OK;
nomem:
    st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory building BSR");
done:
    bsr_free(B);
    return st;
}

void bsr_sliced_free(spb_bsr_sliced *S)
{
    spb_free(S->ptr);
    spb_free(S->width);
    spb_free(S->col_idx);
    spb_free(S->val);
    memset(S, 0, sizeof *S);
}

/* B's blocks placed in S's slices (offsets and widths made, arrays
 * zeroed). */
static void fill_slices(const spb_bsr *B, spb_bsr_sliced *S)
{
    const spb_index b = B->block, slice = S->slice;
    /* slices on the OpenMP threads: each fills its own span (and takes its
     * pages' first faults, which dominate where a graph's slices pad) */
#pragma omp parallel for schedule(dynamic, 64)
    for (spb_index s = 0; s < S->nslices; s++) {
        spb_index first = s * slice, rows = bsr_slice_rows(S, s);
        const int64_t base = (int64_t)S->ptr[s] * b * b, column = (int64_t)rows * b;
        for (spb_index r = 0; r < rows; r++)
            for (spb_index k = 0; k < B->row_ptr[first + r + 1] - B->row_ptr[first + r]; k++) {
                const spb_index from = B->row_ptr[first + r] + k;
                S->col_idx[S->ptr[s] + (int64_t)k * rows + r] = B->col_idx[from];
                for (spb_index i = 0; i < b; i++)
                    for (spb_index j = 0; j < b; j++)
                        S->val[base + ((int64_t)k * b + j) * column + (int64_t)r * b + i] =
                            B->val[(int64_t)from * b * b + i * b + j];
            }
    }
}

spb_status bsr_slice(const spb_bsr *B, spb_index slice, spb_bsr_sliced *S, char *msg)
{
    memset(S, 0, sizeof *S);
    if (slice < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "BSR slice of %d block rows: must be >= 1",
                        (int)slice);
    const spb_index b = B->block;
    S->block = b, S->brows = B->brows, S->bcols = B->bcols, S->slice = slice;
    S->nslices = blocks_of(B->brows, slice);
    S->ptr = spb_calloc((size_t)S->nslices + 1, sizeof *S->ptr);
    S->width = spb_calloc((size_t)S->nslices + 1, sizeof *S->width);
    if (!S->ptr || !S->width) goto nomem;
    int64_t blocks = 0;
    for (spb_index s = 0; s < S->nslices; s++) {
        spb_index first = s * slice, rows = bsr_slice_rows(S, s), width = 0;
        for (spb_index r = first; r < first + rows; r++)
            if (B->row_ptr[r + 1] - B->row_ptr[r] > width)
                width = B->row_ptr[r + 1] - B->row_ptr[r];
        S->width[s] = width;
        blocks += (int64_t)rows * width;
        if (blocks * b * b > SPB_INDEX_MAX) {
            bsr_sliced_free(S);
            return spb_fail(msg, SPB_ERR_TOO_LARGE,
                            "BSR in slices of %d block rows would store more than %d entries "
                            "(32-bit offsets)",
                            (int)slice, (int)SPB_INDEX_MAX);
        }
        S->ptr[s + 1] = (spb_index)blocks;
    }
    /* a skewed matrix's slices pad to their longest block row: 20-33 times
     * the entries on R-MAT graphs, so the room is asked first */
    const int64_t stored = blocks * b * b;
    char detail[96];
    snprintf(detail, sizeof detail, "%lld stored entries in slices of %d block rows",
             (long long)stored, (int)slice);
    spb_status fits =
        spb_memory_check(8.0 * (double)stored + 4.0 * (double)blocks, "BSR in slices", detail, msg);
    if (fits != SPB_OK) {
        bsr_sliced_free(S);
        return fits;
    }
    S->col_idx = spb_calloc((size_t)blocks + 1, sizeof *S->col_idx);
    S->val = spb_calloc((size_t)stored + 1, sizeof *S->val);
    if (!S->col_idx || !S->val) goto nomem;
    fill_slices(B, S);
    return SPB_OK;
nomem:
    bsr_sliced_free(S);
    return spb_fail(msg, SPB_ERR_NOMEM, "out of memory slicing BSR");
}

double bsr_sliced_spmv_bytes(const spb_bsr_sliced *S, spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    double blocks = S->ptr[S->nslices];
    return value * blocks * S->block * S->block /* val, the blocks' and the padding's zeros */
           + index * blocks                     /* block columns, padding included */
           + index * (2.0 * S->nslices + 1.0)   /* slice offsets and widths */
           + value * S->bcols * S->block        /* x, padded */
           + value * S->brows * S->block;       /* y written, padded */
}
