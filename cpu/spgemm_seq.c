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

#define EMPTY UINT64_MAX

static uint64_t hash_slot(uint64_t key, uint64_t mask)
{
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 32;
    return key & mask;
}

/* One map of every product of C, keyed by row << 32 | column: the keys and,
 * apart, `parts` values a slot (2: a complex sum's (re, im)). */
typedef struct {
    uint64_t *keys;
    double *vals;
    size_t parts;
    uint64_t mask, used;
} hash_map;

/* Doubles the map; 0 with msg when it could not, or when the larger map
 * beside the old one would not fit in the memory the machine (or a cgroup,
 * ulimit or SPB_MEMORY_LIMIT) allows: an error row with the figure, never
 * a process killed for memory as the map grows with C. */
static int hash_grow(hash_map *h, char *msg)
{
    uint64_t old_size = h->mask + 1, size = old_size * 2;
    const double slot_bytes = sizeof *h->keys + (double)h->parts * sizeof *h->vals;
    char detail[96];
    snprintf(detail, sizeof detail, "a hash map of %llu slots, the old one's %llu beside it",
             (unsigned long long)size, (unsigned long long)old_size);
    if (spb_memory_check(((double)size + (double)old_size) * slot_bytes, "spgemm.hash", detail,
                         msg) != SPB_OK)
        return 0;
    uint64_t *keys = spb_malloc((size_t)size, sizeof *keys);
    double *vals = spb_malloc((size_t)size * h->parts, sizeof *vals);
    if (!keys || !vals) {
        spb_free(keys);
        spb_free(vals);
        return 0;
    }
    for (uint64_t s = 0; s < size; s++) keys[s] = EMPTY;
    for (uint64_t s = 0; h->keys && s <= h->mask; s++) {
        if (h->keys[s] == EMPTY) continue;
        uint64_t t = hash_slot(h->keys[s], size - 1);
        while (keys[t] != EMPTY) t = (t + 1) & (size - 1);
        keys[t] = h->keys[s];
        memcpy(vals + t * h->parts, h->vals + s * h->parts, h->parts * sizeof *vals);
    }
    spb_free(h->keys);
    spb_free(h->vals);
    h->keys = keys;
    h->vals = vals;
    h->mask = size - 1;
    return 1;
}

/* Adds the product's parts v at key (in float when single: each sum held
 * as a float, v's parts floats); 0 when the map could not grow. */
static int hash_add(hash_map *h, uint64_t key, const double *v, int single, char *msg)
{
    if (2 * (h->used + 1) > h->mask + 1 && !hash_grow(h, msg)) return 0;
    uint64_t s = hash_slot(key, h->mask);
    while (h->keys[s] != EMPTY && h->keys[s] != key) s = (s + 1) & h->mask;
    double *sum = h->vals + s * h->parts;
    if (h->keys[s] == EMPTY) {
        h->keys[s] = key;
        for (size_t q = 0; q < h->parts; q++) sum[q] = 0.0;
        h->used++;
    }
    for (size_t q = 0; q < h->parts; q++)
        sum[q] = single ? (float)(sum[q] + v[q]) /* float + float, rounded once */ : sum[q] + v[q];
    return 1;
}

/* A key and the slot its sum is in, to sort C's entries by. */
typedef struct {
    uint64_t key, slot;
} keyed_slot;

static int keyed_cmp(const void *a, const void *b)
{
    uint64_t x = ((const keyed_slot *)a)->key, y = ((const keyed_slot *)b)->key;
    return x < y ? -1 : x > y;
}

/* The map's entries, sorted by (row, column), into C (wide as
 * csr_spgemm_wide says). */
static spb_status hash_to_csr(const hash_map *h, const spb_csr *A, const spb_csr *B, spb_csr *C,
                              char *msg)
{
    keyed_slot *order = spb_malloc((size_t)h->used + 1, sizeof *order);
    if (!order) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory sorting C's entries");
    uint64_t kept = 0;
    for (uint64_t s = 0; s <= h->mask; s++)
        if (h->keys[s] != EMPTY) order[kept++] = (keyed_slot){h->keys[s], s};
    qsort(order, (size_t)kept, sizeof *order, keyed_cmp);
    spb_status st = csr_alloc_as(C, A->m, B->n, (spb_offset)kept, h->parts == 2,
                                 csr_spgemm_wide(A, B, (int64_t)kept), msg);
    if (st == SPB_OK) {
        spb_offset *counts = spb_calloc((size_t)A->m + 1, sizeof *counts);
        if (!counts) st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for C's row sizes");
        for (uint64_t k = 0; st == SPB_OK && k < kept; k++) {
            C->col_idx[k] = (spb_index)(order[k].key & 0xffffffffu);
            memcpy(C->val + k * h->parts, h->vals + order[k].slot * h->parts,
                   h->parts * sizeof *C->val);
            counts[(order[k].key >> 32) + 1]++;
        }
        for (spb_index i = 0; st == SPB_OK && i < A->m; i++) {
            counts[i + 1] += counts[i];
            csr_set_row_start(C, i + 1, counts[i + 1]);
        }
        spb_free(counts);
    }
    spb_free(order);
    if (st != SPB_OK) csr_free(C);
    return st;
}

/* Product k of the products a*b, in the values' precision, into its parts
 * (complex64: a float complex product, as the other rows make it). */
static void hash_product(const spb_csr *A, const spb_csr *B, const spgemm_values *v, spb_offset ka,
                         spb_offset kb, double *out)
{
    if (A->complex_values && v->a32) {
        spgemm_c64 p = spgemm_values_c64(v->a32)[ka] * spgemm_values_c64(v->b32)[kb];
        out[0] = crealf(p), out[1] = cimagf(p);
    } else if (A->complex_values) {
        spgemm_c128 p = spgemm_values_c128(A->val)[ka] * spgemm_values_c128(B->val)[kb];
        out[0] = creal(p), out[1] = cimag(p);
    } else {
        out[0] = v->a32 ? (double)(v->a32[ka] * v->b32[kb]) : A->val[ka] * B->val[kb];
    }
}

spb_status csr_spgemm_hash(const spb_csr *A, const spb_csr *B, const spgemm_values *v, spb_csr *C,
                           char *msg)
{
    memset(C, 0, sizeof *C);
    spb_status st = check_shapes(A, B, msg);
    if (st != SPB_OK) return st;
    hash_map h = {NULL, NULL, csr_values_per_entry(A), 63, 0};
    if (!hash_grow(&h, msg)) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
    double product[2];
    for (spb_index i = 0; i < A->m && st == SPB_OK; i++)
        for (spb_offset ka = csr_row_start(A, i); ka < csr_row_start(A, i + 1) && st == SPB_OK;
             ka++) {
            spb_index r = A->col_idx[ka];
            for (spb_offset kb = csr_row_start(B, r); kb < csr_row_start(B, r + 1); kb++) {
                uint64_t key = (uint64_t)i << 32 | (uint32_t)B->col_idx[kb];
                hash_product(A, B, v, ka, kb, product);
                if (!hash_add(&h, key, product, v->a32 != NULL, msg)) {
                    st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the hash map");
                    break;
                }
            }
        }
    if (st == SPB_OK) st = hash_to_csr(&h, A, B, C, msg);
    spb_free(h.keys);
    spb_free(h.vals);
    return st;
}
