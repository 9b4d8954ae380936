/* spgemm_seq.c — sequential SpGEMM: the products count, the Gustavson
 * reference and the hash kernel (see spgemm_cpu.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"
#include "spgemm_rows.h"
#include "spgemm_sort.h"

int64_t csr_spgemm_nnz(const spb_csr *A, const spb_csr *B)
{
    spb_index *marker = spb_malloc((size_t)B->n, sizeof *marker);
    if (!marker) return -1;
    for (spb_index j = 0; j < B->n; j++) marker[j] = -1;
    int64_t count = 0;
    const spgemm_rows a_rows = spgemm_rows_of(A), b_rows = spgemm_rows_of(B);
    for (spb_index i = 0; i < A->m; i++)
        for (spb_offset ka = spgemm_row_start(a_rows, i), a_end = spgemm_row_start(a_rows, i + 1);
             ka < a_end; ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_offset kb = spgemm_row_start(b_rows, r), end = spgemm_row_start(b_rows, r + 1);
                 kb < end; kb++)
                if (marker[B->col_idx[kb]] != i) {
                    marker[B->col_idx[kb]] = i;
                    count++;
                }
        }
    spb_free(marker);
    return count;
}

static spb_status check_shapes(const spb_csr *A, const spb_csr *B, char *msg)
{
    if (A->n != B->m)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "A is %d x %d and B is %d x %d: A's columns must equal B's rows", (int)A->m,
                        (int)A->n, (int)B->m, (int)B->n);
    return SPB_OK;
}

/* Gustavson in the values' precision (a32 NULL: fp64 or complex128); with
 * scale (fp64 and complex128 only), |A|*|B| at C's entries too, allocated
 * here. nnz: C's entries, or -1 to count them. A complex A (and B: the
 * operation takes them alike) makes a complex C; C's row offsets are 64-bit
 * when its entries need them or an operand's are (csr_spgemm_wide). */
static spb_status gustavson(const spb_csr *A, const spb_csr *B, const spgemm_values *v, int64_t nnz,
                            spb_csr *C, double **scale, char *msg)
{
    memset(C, 0, sizeof *C);
    if (scale) *scale = NULL;
    spb_status st = check_shapes(A, B, msg);
    if (st != SPB_OK) return st;
    if (nnz < 0) nnz = csr_spgemm_nnz(A, B);
    if (nnz < 0) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the accumulator");
    if (A->complex_values != B->complex_values)
        return spb_fail(msg, SPB_ERR_INVALID, "A is %s and B %s: their fields must agree",
                        A->complex_values ? "complex" : "real",
                        B->complex_values ? "complex" : "real");
    int64_t *marker = spb_malloc((size_t)B->n, sizeof *marker);
    /* fp32: as floats; complex: (re, im) pairs */
    double *acc = spb_malloc((size_t)B->n * csr_values_per_entry(A), sizeof *acc);
    double *scale_acc = scale ? spb_malloc((size_t)B->n + 1, sizeof *scale_acc) : NULL;
    if (scale) *scale = spb_malloc((size_t)nnz + 1, sizeof **scale);
    int room = marker && acc && (!scale || (scale_acc && *scale));
    if (room)
        st = csr_alloc_as(C, A->m, B->n, nnz, A->complex_values, csr_spgemm_wide(A, B, nnz), msg);
    if (!room || st != SPB_OK) {
        spb_free(marker);
        spb_free(acc);
        spb_free(scale_acc);
        if (scale) {
            spb_free(*scale);
            *scale = NULL;
        }
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for C (%lld entries)", (long long)nnz);
    }
    for (spb_index j = 0; j < B->n; j++) marker[j] = -1;
    spb_offset len = 0;
    for (spb_index i = 0; i < A->m; i++) {
        spb_index *cols = C->col_idx + len;
        spb_index count = spgemm_dense_row_of(A, B, v, i, i, marker, acc, cols, scale_acc);
        sort_columns(cols, count);
        spgemm_gather_of(A, v, acc, cols, count, C->val + (size_t)len * csr_values_per_entry(C));
        if (scale) spgemm_gather64(scale_acc, cols, count, *scale + len);
        len += count;
        csr_set_row_start(C, i + 1, len);
    }
    spb_free(marker);
    spb_free(acc);
    spb_free(scale_acc);
    return SPB_OK;
}

spb_status csr_spgemm_gustavson(const spb_csr *A, const spb_csr *B, spb_csr *C, char *msg)
{
    const spgemm_values fp64 = {NULL, NULL};
    return gustavson(A, B, &fp64, -1, C, NULL, msg);
}

spb_status csr_spgemm_reference(const spb_csr *A, const spb_csr *B, int64_t nnz_c, spb_csr *C,
                                double **scale, char *msg)
{
    const spgemm_values fp64 = {NULL, NULL};
    return gustavson(A, B, &fp64, nnz_c, C, scale, msg);
}

spb_status csr_spgemm_gustavson_values(const spb_csr *A, const spb_csr *B, const spgemm_values *v,
                                       spb_csr *C, char *msg)
{
    return gustavson(A, B, v, -1, C, NULL, msg);
}

/* ---- the hash kernel --------------------------------------------------------------- */

#define EMPTY UINT64_MAX

static uint64_t hash_slot(uint64_t key, uint64_t mask)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 32;
    return key & mask;
}

/* One map of every product of C, keyed by row << 32 | column: a slot is a
 * key and its sum's `parts` values (2: a complex sum's (re, im)) side by
 * side, so a product touches one place in memory. */
typedef union {
    uint64_t key;
    double val;
} hash_cell;

typedef struct {
    hash_cell *cells; /* (mask + 1) slots of 1 + parts cells */
    size_t parts;
    uint64_t mask, used;
} hash_map;

static hash_cell *hash_at(const hash_map *h, uint64_t slot)
{
    return h->cells + slot * (1 + h->parts);
}

/* Doubles the map; 0 with msg when it could not, or when the larger map
 * beside the old one would not fit in the memory the machine (or a cgroup,
 * ulimit or SPB_MEMORY_LIMIT) allows: an error row with the figure, never
 * a process killed for memory as the map grows with C. */
static int hash_grow(hash_map *h, char *msg)
{
    uint64_t old_size = h->mask + 1, size = old_size * 2;
    const size_t stride = 1 + h->parts;
    char detail[96];
    snprintf(detail, sizeof detail, "a hash map of %llu slots, the old one's %llu beside it",
             (unsigned long long)size, (unsigned long long)old_size);
    if (spb_memory_check(((double)size + (double)old_size) * stride * sizeof(hash_cell),
                         "spgemm.hash", detail, msg) != SPB_OK)
        return 0;
    hash_cell *cells = spb_malloc((size_t)size * stride, sizeof *cells);
    if (!cells) return 0;
    for (uint64_t s = 0; s < size; s++) cells[s * stride].key = EMPTY;
    for (uint64_t s = 0; h->cells && s <= h->mask; s++) {
        const hash_cell *from = hash_at(h, s);
        if (from->key == EMPTY) continue;
        uint64_t t = hash_slot(from->key, size - 1);
        while (cells[t * stride].key != EMPTY) t = (t + 1) & (size - 1);
        memcpy(cells + t * stride, from, stride * sizeof *cells);
    }
    spb_free(h->cells);
    h->cells = cells;
    h->mask = size - 1;
    return 1;
}

/* Adds the product's parts v at key (in float when single: each sum held
 * as a float, v's parts floats); 0 when the map could not grow. parts is
 * the map's, a constant where hash_products is inlined. */
static inline int hash_add(hash_map *h, uint64_t key, const double *v, const size_t parts,
                           const int single, char *msg)
{
    if (2 * (h->used + 1) > h->mask + 1 && !hash_grow(h, msg)) return 0;
    uint64_t s = hash_slot(key, h->mask);
    hash_cell *slot = h->cells + s * (1 + parts);
    while (slot->key != EMPTY && slot->key != key) {
        s = (s + 1) & h->mask;
        slot = h->cells + s * (1 + parts);
    }
    if (slot->key == EMPTY) {
        slot->key = key;
        for (size_t q = 1; q <= parts; q++) slot[q].val = 0.0;
        h->used++;
    }
    for (size_t q = 1; q <= parts; q++) /* float + float, rounded once, when single */
        slot[q].val = single ? (float)(slot[q].val + v[q - 1]) : slot[q].val + v[q - 1];
    return 1;
}

static int slot_cmp(const void *a, const void *b)
{
    uint64_t x = ((const hash_cell *)a)->key, y = ((const hash_cell *)b)->key;
    return x < y ? -1 : x > y;
}

/* The map's entries, sorted by (row, column), into C (wide as
 * csr_spgemm_wide says): its slots moved to its front and sorted there,
 * whole (a key and its sum), so C is written in one pass. */
static spb_status hash_to_csr(hash_map *h, const spb_csr *A, const spb_csr *B, spb_csr *C,
                              char *msg)
{
    const size_t stride = 1 + h->parts;
    uint64_t kept = 0;
    for (uint64_t s = 0; s <= h->mask; s++)
        if (hash_at(h, s)->key != EMPTY)
            memmove(h->cells + kept++ * stride, hash_at(h, s), stride * sizeof *h->cells);
    qsort(h->cells, (size_t)kept, stride * sizeof *h->cells, slot_cmp);
    spb_status st = csr_alloc_as(C, A->m, B->n, (spb_offset)kept, h->parts == 2,
                                 csr_spgemm_wide(A, B, (int64_t)kept), msg);
    if (st != SPB_OK) return st;
    for (uint64_t k = 0; k < kept; k++) { /* each row's count at its end, summed below */
        const hash_cell *slot = h->cells + k * stride;
        const spb_index row = (spb_index)(slot->key >> 32);
        C->col_idx[k] = (spb_index)(slot->key & 0xffffffffu);
        for (size_t q = 0; q < h->parts; q++) C->val[k * h->parts + q] = slot[1 + q].val;
        csr_set_row_start(C, row + 1, csr_row_start(C, row + 1) + 1);
    }
    for (spb_index i = 0; i < A->m; i++)
        csr_set_row_start(C, i + 1, csr_row_start(C, i + 1) + csr_row_start(C, i));
    return SPB_OK;
}

/* Every product of A*B into the map, in the values' precision (complex64:
 * a float complex product, as the other rows make it). parts (the map's:
 * 2 for complex) and single are constants at each call, so that each of
 * the four inlined copies has no branch on the value type per product. */
static inline spb_status hash_products(hash_map *h, const spb_csr *A, const spb_csr *B,
                                       const spgemm_values *v, const size_t parts, const int single,
                                       char *msg)
{
    const spgemm_rows a_rows = spgemm_rows_of(A), b_rows = spgemm_rows_of(B);
    double product[2];
    for (spb_index i = 0; i < A->m; i++)
        for (spb_offset ka = spgemm_row_start(a_rows, i), a_end = spgemm_row_start(a_rows, i + 1);
             ka < a_end; ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_offset kb = spgemm_row_start(b_rows, r), end = spgemm_row_start(b_rows, r + 1);
                 kb < end; kb++) {
                if (parts == 2 && single) {
                    spgemm_c64 p = spgemm_values_c64(v->a32)[ka] * spgemm_values_c64(v->b32)[kb];
                    product[0] = crealf(p), product[1] = cimagf(p);
                } else if (parts == 2) {
                    spgemm_c128 p = spgemm_values_c128(A->val)[ka] * spgemm_values_c128(B->val)[kb];
                    product[0] = creal(p), product[1] = cimag(p);
                } else {
                    product[0] =
                        single ? (double)(v->a32[ka] * v->b32[kb]) : A->val[ka] * B->val[kb];
                }
                uint64_t key = (uint64_t)i << 32 | (uint32_t)B->col_idx[kb];
                if (!hash_add(h, key, product, parts, single, msg))
                    return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
            }
        }
    return SPB_OK;
}

spb_status csr_spgemm_hash(const spb_csr *A, const spb_csr *B, const spgemm_values *v, spb_csr *C,
                           char *msg)
{
    memset(C, 0, sizeof *C);
    spb_status st = check_shapes(A, B, msg);
    if (st != SPB_OK) return st;
    hash_map h = {NULL, csr_values_per_entry(A), 63, 0};
    if (!hash_grow(&h, msg)) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
    const int single = v->a32 != NULL;
    if (A->complex_values)
        st = single ? hash_products(&h, A, B, v, 2, 1, msg) : hash_products(&h, A, B, v, 2, 0, msg);
    else
        st = single ? hash_products(&h, A, B, v, 1, 1, msg) : hash_products(&h, A, B, v, 1, 0, msg);
    if (st == SPB_OK) st = hash_to_csr(&h, A, B, C, msg);
    spb_free(h.cells);
    return st;
}
