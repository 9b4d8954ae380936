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
    for (spb_index i = 0; i < A->m; i++)
        for (spb_offset ka = csr_row_start(A, i); ka < csr_row_start(A, i + 1); ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_offset kb = csr_row_start(B, r); kb < csr_row_start(B, r + 1); kb++)
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

typedef struct {
    uint64_t key; /* row << 32 | column, or EMPTY */
    double val;
} hash_entry;

#define EMPTY UINT64_MAX

static uint64_t hash_slot(uint64_t key, uint64_t mask)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 32;
    return key & mask;
}

typedef struct {
    hash_entry *slots;
    uint64_t mask, used;
} hash_map;

/* Doubles the map; 0 with msg when it could not, or when the larger map
 * beside the old one would not fit in the memory the machine (or a cgroup,
 * ulimit or SPB_MEMORY_LIMIT) allows: an error row with the figure, never
 * a process killed for memory as the map grows with C. */
static int hash_grow(hash_map *h, char *msg)
{
    uint64_t old_size = h->mask + 1, size = old_size * 2;
    char detail[96];
    snprintf(detail, sizeof detail, "a hash map of %llu slots, the old one's %llu beside it",
             (unsigned long long)size, (unsigned long long)old_size);
    double bytes = ((double)size + (double)old_size) * sizeof(hash_entry);
    if (spb_memory_check(bytes, "spgemm.hash", detail, msg) != SPB_OK) return 0;
    hash_entry *slots = spb_malloc((size_t)size, sizeof *slots);
    if (!slots) return 0;
    for (uint64_t s = 0; s < size; s++) slots[s].key = EMPTY;
    for (uint64_t s = 0; h->slots && s <= h->mask; s++) {
        if (h->slots[s].key == EMPTY) continue;
        uint64_t t = hash_slot(h->slots[s].key, size - 1);
        while (slots[t].key != EMPTY) t = (t + 1) & (size - 1);
        slots[t] = h->slots[s];
    }
    spb_free(h->slots);
    h->slots = slots;
    h->mask = size - 1;
    return 1;
}

/* Adds v at key (in float when single: the sum held as a float, v one);
 * 0 when the map could not grow. */
static int hash_add(hash_map *h, uint64_t key, double v, int single, char *msg)
{
    if (2 * (h->used + 1) > h->mask + 1 && !hash_grow(h, msg)) return 0;
    uint64_t s = hash_slot(key, h->mask);
    while (h->slots[s].key != EMPTY && h->slots[s].key != key) s = (s + 1) & h->mask;
    if (h->slots[s].key == EMPTY) {
        h->slots[s].key = key;
        h->slots[s].val = 0.0;
        h->used++;
    }
    if (single) /* float + float, rounded once: float addition exactly */
        h->slots[s].val = (float)(h->slots[s].val + v);
    else
        h->slots[s].val += v;
    return 1;
}

static int entry_cmp(const void *a, const void *b)
{
    uint64_t x = ((const hash_entry *)a)->key, y = ((const hash_entry *)b)->key;
    return x < y ? -1 : x > y;
}

/* The map's entries, sorted by (row, column), into C. */
static spb_status hash_to_csr(hash_map *h, spb_index m, spb_index n, spb_csr *C, char *msg)
{
    if (h->used > (uint64_t)SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE, "C would hold %llu entries, beyond %d",
                        (unsigned long long)h->used, (int)SPB_INDEX_MAX);
    uint64_t kept = 0;
    for (uint64_t s = 0; s <= h->mask; s++)
        if (h->slots[s].key != EMPTY) h->slots[kept++] = h->slots[s];
    qsort(h->slots, (size_t)kept, sizeof *h->slots, entry_cmp);
    spb_status st = csr_alloc(C, m, n, (spb_index)kept, msg);
    if (st != SPB_OK) return st;
    for (uint64_t k = 0; k < kept; k++) {
        spb_index row = (spb_index)(h->slots[k].key >> 32);
        C->col_idx[k] = (spb_index)(h->slots[k].key & 0xffffffffu);
        C->val[k] = h->slots[k].val;
        C->row_ptr[row + 1]++;
    }
    for (spb_index i = 0; i < m; i++) C->row_ptr[i + 1] += C->row_ptr[i];
    return SPB_OK;
}

spb_status csr_spgemm_hash(const spb_csr *A, const spb_csr *B, const spgemm_values *v, spb_csr *C,
                           char *msg)
{
    memset(C, 0, sizeof *C);
    spb_status st = check_shapes(A, B, msg);
    if (st != SPB_OK) return st;
    hash_map h = {NULL, 63, 0};
    if (!hash_grow(&h, msg)) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
    for (spb_index i = 0; i < A->m && st == SPB_OK; i++)
        for (spb_index ka = A->row_ptr[i]; ka < A->row_ptr[i + 1] && st == SPB_OK; ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_index kb = B->row_ptr[r]; kb < B->row_ptr[r + 1]; kb++) {
                uint64_t key = (uint64_t)i << 32 | (uint32_t)B->col_idx[kb];
                double product =
                    v->a32 ? (double)(v->a32[ka] * v->b32[kb]) : A->val[ka] * B->val[kb];
                if (!hash_add(&h, key, product, v->a32 != NULL, msg)) {
                    st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
                    break;
                }
            }
        }
    if (st == SPB_OK) st = hash_to_csr(&h, A->m, B->n, C, msg);
    spb_free(h.slots);
    return st;
}
