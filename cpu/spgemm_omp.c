/* spgemm_omp.c — OpenMP SpGEMM (see spgemm_cpu.h): rows split into chunks
 * of equal intermediate products (not equal rows), scheduled dynamically;
 * a symbolic pass counts each row of C exactly, C is allocated once, and a
 * numeric pass fills it. Each row uses the thread's dense accumulator when
 * B is narrow for it (B's width at most DENSE_RATIO times the row's
 * products), else the thread's hash table. */
#include <omp.h>
#include <string.h>

#include "spgemm_rows.h"
#include "spgemm_sort.h"

#define CHUNKS_PER_THREAD 8
#define DENSE_RATIO       16        /* dense when B.n <= 16 * the row's products */
#define DENSE_MAX_COLS    (1 << 22) /* never a dense accumulator wider than this */
#define SCAN_RATIO        4         /* emit by scanning the dense array when B.n <= 4 * products */

typedef struct {
    int64_t *marker; /* dense: the stamp of the (call, row, pass) that last touched column j */
    double *acc;     /* dense: its sum (fp32: as floats) */
    spb_index *keys; /* hash: columns, -1 empty */
    double *vals;    /* hash: sums (fp32: as floats) */
} workspace;

struct spgemm_omp_plan {
    const spb_csr *A, *B;
    spgemm_values values;
    int threads, chunks;
    int64_t *row_products;  /* size A.m + 1: prefix sums of products per row */
    spb_index *chunk_start; /* size chunks + 1: the first row of each chunk */
    uint64_t hash_size;     /* power of two >= 2 * the longest row's products */
    int dense;              /* dense accumulators allocated */
    int64_t calls;          /* products made: stamps differ from call to call */
    workspace *ws;          /* one per thread */
};

/* The hash table a row of `products` products uses: a power of two at
 * least twice that (at least 16), as a mask. */
static uint64_t hash_mask(int64_t products)
{
    uint64_t size = 16;
    while (size < 2 * (uint64_t)products) size *= 2;
    return size - 1;
}

void spgemm_omp_plan_free(spgemm_omp_plan *p)
{
    if (!p) return;
    for (int t = 0; p->ws && t < p->threads; t++) {
        spb_free(p->ws[t].marker);
        spb_free(p->ws[t].acc);
        spb_free(p->ws[t].keys);
        spb_free(p->ws[t].vals);
    }
    spb_free(p->ws);
    spb_free(p->row_products);
    spb_free(p->chunk_start);
    spb_free(p);
}

/* Products per row (prefix sums) and the chunk boundaries. */
static void split_rows(spgemm_omp_plan *p, int64_t *longest)
{
    const spb_csr *A = p->A, *B = p->B;
    *longest = 0;
    p->row_products[0] = 0;
    for (spb_index i = 0; i < A->m; i++) {
        int64_t row = 0;
        for (spb_offset k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++)
            row += csr_row_start(B, A->col_idx[k] + 1) - csr_row_start(B, A->col_idx[k]);
        if (row > *longest) *longest = row;
        p->row_products[i + 1] = p->row_products[i] + row;
    }
    int64_t total = p->row_products[A->m];
    spb_index row = 0;
    for (int c = 0; c <= p->chunks; c++) { /* first row whose prefix reaches c/chunks of total */
        int64_t target = total * c / p->chunks;
        while (row < A->m && p->row_products[row] < target) row++;
        p->chunk_start[c] = c == p->chunks ? A->m : row;
    }
}

static spb_status alloc_workspaces(spgemm_omp_plan *p, char *msg)
{
    for (int t = 0; t < p->threads; t++) {
        workspace *w = &p->ws[t];
        if (p->dense) {
            w->marker = spb_malloc((size_t)p->B->n, sizeof *w->marker);
            /* complex: (re, im) pairs */
            w->acc = spb_malloc((size_t)p->B->n * csr_values_per_entry(p->A), sizeof *w->acc);
            if (!w->marker || !w->acc) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
            for (spb_index j = 0; j < p->B->n; j++) w->marker[j] = -1;
        }
        w->keys = spb_malloc((size_t)p->hash_size, sizeof *w->keys);
        w->vals = spb_malloc((size_t)p->hash_size * csr_values_per_entry(p->A), sizeof *w->vals);
        if (!w->keys || !w->vals) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
        for (uint64_t s = 0; s < p->hash_size; s++) w->keys[s] = -1;
    }
    return SPB_OK;
}

spb_status spgemm_omp_plan_new(const spb_csr *A, const spb_csr *B, const spgemm_values *v,
                               int threads, spgemm_omp_plan **plan, char *msg)
{
    *plan = NULL;
    if (A->n != B->m)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "A is %d x %d and B is %d x %d: A's columns must equal B's rows", (int)A->m,
                        (int)A->n, (int)B->m, (int)B->n);
    spgemm_omp_plan *p = spb_calloc(1, sizeof *p);
    if (!p) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    p->A = A;
    p->B = B;
    p->values = *v;
    p->threads = threads > 0 ? threads : 1;
    p->chunks = p->threads * CHUNKS_PER_THREAD;
    p->row_products = spb_malloc((size_t)A->m + 1, sizeof *p->row_products);
    p->chunk_start = spb_malloc((size_t)p->chunks + 1, sizeof *p->chunk_start);
    p->ws = spb_calloc((size_t)p->threads, sizeof *p->ws);
    spb_status st = SPB_OK;
    if (!p->row_products || !p->chunk_start || !p->ws)
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    if (st == SPB_OK) {
        int64_t longest;
        split_rows(p, &longest);
        p->hash_size = hash_mask(longest) + 1;
        p->dense = B->n <= DENSE_MAX_COLS;
        st = alloc_workspaces(p, msg);
    }
    if (st != SPB_OK) {
        spgemm_omp_plan_free(p);
        return st;
    }
    *plan = p;
    return SPB_OK;
}

static int use_dense(const spgemm_omp_plan *p, int64_t products)
{
    return p->dense && (int64_t)p->B->n <= DENSE_RATIO * products;
}

/* A dense accumulator's stamp for row i: unique per call, row and pass
 * (symbolic 0, numeric 1), so the marker is never cleared. */
static int64_t stamp(const spgemm_omp_plan *p, spb_index i, int pass)
{
    return (p->calls * ((int64_t)p->A->m + 1) + i) * 2 + pass;
}

/* Symbolic: C's row i has how many columns. */
static spb_index row_count(const spgemm_omp_plan *p, workspace *w, spb_index i)
{
    const spb_csr *A = p->A, *B = p->B;
    int64_t products = p->row_products[i + 1] - p->row_products[i];
    const spgemm_rows a_rows = spgemm_rows_of(A), b_rows = spgemm_rows_of(B);
    spb_index count = 0;
    if (use_dense(p, products)) {
        int64_t mark = stamp(p, i, 0);
        for (spb_offset ka = spgemm_row_start(a_rows, i), a_end = spgemm_row_start(a_rows, i + 1);
             ka < a_end; ka++)
            for (spb_offset kb = spgemm_row_start(b_rows, A->col_idx[ka]),
                            end = spgemm_row_start(b_rows, A->col_idx[ka] + 1);
                 kb < end; kb++)
                if (w->marker[B->col_idx[kb]] != mark) {
                    w->marker[B->col_idx[kb]] = mark;
                    count++;
                }
        return count;
    }
    uint64_t mask = hash_mask(products);
    for (spb_offset ka = spgemm_row_start(a_rows, i), a_end = spgemm_row_start(a_rows, i + 1);
         ka < a_end; ka++)
        for (spb_offset kb = spgemm_row_start(b_rows, A->col_idx[ka]),
                        end = spgemm_row_start(b_rows, A->col_idx[ka] + 1);
             kb < end; kb++) {
            spb_index j = B->col_idx[kb];
            uint64_t s = spgemm_hash_slot(w->keys, mask, j);
            if (w->keys[s] == -1) {
                w->keys[s] = j;
                count++;
            }
        }
    for (uint64_t s = 0; s <= mask; s++) w->keys[s] = -1;
    return count;
}

/* Numeric, dense accumulator, in the plan's precision (vals: C's row, of
 * doubles or complex doubles). */
static spb_index row_fill_dense(const spgemm_omp_plan *p, workspace *w, spb_index i,
                                int64_t products, spb_index *cols, double *vals)
{
    const spb_csr *A = p->A, *B = p->B;
    int64_t mark = stamp(p, i, 1);
    spb_index len = spgemm_dense_row_of(A, B, &p->values, i, mark, w->marker, w->acc, cols, NULL);
    if ((int64_t)B->n <= SCAN_RATIO * products) { /* in column order by one scan */
        len = 0;
        for (spb_index j = 0; j < B->n; j++)
            if (w->marker[j] == mark) cols[len++] = j;
    } else {
        sort_columns(cols, len);
    }
    spgemm_gather_of(A, &p->values, w->acc, cols, len, vals);
    return len;
}

/* Numeric, hash accumulator: columns collected, sorted, values looked up. */
static spb_index row_fill_hash(const spgemm_omp_plan *p, workspace *w, spb_index i,
                               int64_t products, spb_index *cols, double *vals)
{
    const spb_csr *A = p->A, *B = p->B;
    const float *a32 = p->values.a32, *b32 = p->values.b32;
    uint64_t mask = hash_mask(products);
    float *vals32 = (float *)(void *)w->vals;
    spgemm_c128 *c128 = (spgemm_c128 *)(void *)w->vals;
    spgemm_c64 *c64 = (spgemm_c64 *)(void *)w->vals;
    spb_index len;
    const int offsets64 = csr_wide(A) || csr_wide(B);
    if (A->complex_values && a32)
        len = (offsets64 ? spgemm_hash_row_wide_c64 : spgemm_hash_row_c64)(
            A, spgemm_values_c64(a32), B, spgemm_values_c64(b32), i, mask, w->keys, c64, cols);
    else if (A->complex_values)
        len = (offsets64 ? spgemm_hash_row_wide_c128 : spgemm_hash_row_c128)(
            A, spgemm_values_c128(A->val), B, spgemm_values_c128(B->val), i, mask, w->keys, c128,
            cols);
    else if (a32)
        len = (offsets64 ? spgemm_hash_row_wide32 : spgemm_hash_row32)(A, a32, B, b32, i, mask,
                                                                       w->keys, vals32, cols);
    else
        len = (offsets64 ? spgemm_hash_row_wide64 : spgemm_hash_row64)(
            A, A->val, B, B->val, i, mask, w->keys, w->vals, cols);
    sort_columns(cols, len);
    spgemm_c128 *wide = (spgemm_c128 *)(void *)vals;
    for (spb_index k = 0; k < len; k++) {
        uint64_t s = spgemm_hash_slot(w->keys, mask, cols[k]);
        if (A->complex_values)
            wide[k] = a32 ? (spgemm_c128)c64[s] : c128[s];
        else
            vals[k] = a32 ? vals32[s] : w->vals[s];
    }
    for (uint64_t s = 0; s <= mask; s++) w->keys[s] = -1;
    return len;
}

static void row_fill(const spgemm_omp_plan *p, workspace *w, spb_index i, spb_csr *C)
{
    int64_t products = p->row_products[i + 1] - p->row_products[i];
    spb_index *cols = C->col_idx + csr_row_start(C, i);
    double *vals = C->val + (size_t)csr_row_start(C, i) * csr_values_per_entry(C);
    if (use_dense(p, products))
        row_fill_dense(p, w, i, products, cols, vals);
    else
        row_fill_hash(p, w, i, products, cols, vals);
}

spb_status csr_spgemm_omp(spgemm_omp_plan *p, spb_csr *C, char *msg)
{
    memset(C, 0, sizeof *C);
    p->calls++;
    const spb_csr *A = p->A;
    int64_t *counts = spb_malloc((size_t)A->m + 1, sizeof *counts);
    if (!counts) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for C's row sizes");
    counts[0] = 0;
#pragma omp parallel for num_threads(p->threads) schedule(dynamic, 1)
    for (int c = 0; c < p->chunks; c++) {
        workspace *w = &p->ws[omp_get_thread_num()];
        for (spb_index i = p->chunk_start[c]; i < p->chunk_start[c + 1]; i++)
            counts[i + 1] = row_count(p, w, i);
    }
    for (spb_index i = 0; i < A->m; i++) counts[i + 1] += counts[i];
    spb_status st = csr_alloc_as(C, A->m, p->B->n, counts[A->m], A->complex_values,
                                 csr_spgemm_wide(A, p->B, counts[A->m]), msg);
    if (st != SPB_OK) {
        spb_free(counts);
        return st;
    }
    for (spb_index i = 0; i <= A->m; i++) csr_set_row_start(C, i, counts[i]);
    spb_free(counts);
#pragma omp parallel for num_threads(p->threads) schedule(dynamic, 1)
    for (int c = 0; c < p->chunks; c++) {
        workspace *w = &p->ws[omp_get_thread_num()];
        for (spb_index i = p->chunk_start[c]; i < p->chunk_start[c + 1]; i++) row_fill(p, w, i, C);
    }
    return SPB_OK;
}
