/* spmv_omp.c — OpenMP CSR and HLL products and first-touch copies. */
#include <omp.h>
#include <string.h>

#include "spmv_cpu.h"

/* The products, one body (spmv_omp_template.h) made for each precision:
 * fp64 (no suffix, double values) and fp32 (suffix 32, float values, x, y
 * and sums). */
#define SPB_FN(name)           name
#define SPB_VALUE              spb_value
#define SPB_ROW_DOT            csr_row_dot
#define SPB_ROWS               csr_rows
#define SPB_HACK_SPMV          hll_hack_spmv
#define SPB_PANEL_VALUES(P, q) ((P)->panel[q].val)
#include "spmv_omp_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_ROW_DOT
#undef SPB_ROWS
#undef SPB_HACK_SPMV
#undef SPB_PANEL_VALUES

#define SPB_FN(name)           name##32
#define SPB_VALUE              float
#define SPB_ROW_DOT            csr_row_dot32
#define SPB_ROWS               csr_rows32
#define SPB_HACK_SPMV          hll_hack_spmv32
#define SPB_PANEL_VALUES(P, q) ((P)->val32[q])
#include "spmv_omp_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_ROW_DOT
#undef SPB_ROWS
#undef SPB_HACK_SPMV
#undef SPB_PANEL_VALUES

/* complex128 and complex64: the CSR products only */
#define SPB_CSR_ONLY
#define SPB_FN(name) name##_c128
#define SPB_VALUE    spb_c128
#define SPB_ROW_DOT  csr_row_dot_c128
#define SPB_ROWS     csr_rows_c128
#include "spmv_omp_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_ROW_DOT
#undef SPB_ROWS
#define SPB_FN(name) name##_c64
#define SPB_VALUE    spb_c64
#define SPB_ROW_DOT  csr_row_dot_c64
#define SPB_ROWS     csr_rows_c64
#include "spmv_omp_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_ROW_DOT
#undef SPB_ROWS
#undef SPB_CSR_ONLY

/* Rows [lo, hi) of range p of `parts`: the partition's, else equal ones. */
static void first_touch_rows(const spb_csr *A, const spb_row_partition *part, int p, int parts,
                             spb_index *lo, spb_index *hi)
{
    *lo = part ? part->first[p] : (spb_index)((int64_t)A->m * p / parts);
    *hi = part ? part->first[p + 1] : (spb_index)((int64_t)A->m * (p + 1) / parts);
}

float *csr_first_touch_values32(const spb_csr *A, const float *val, const spb_row_partition *part,
                                int threads)
{
    const size_t w = csr_values_per_entry(A); /* complex64: (re, im) pairs */
    float *copy = spb_malloc((size_t)A->nnz * w, sizeof *copy);
    if (!copy) return NULL;
    int parts = part ? part->parts : threads;
#pragma omp parallel num_threads(parts > 0 ? parts : 1)
    for (int p = omp_get_thread_num(); p < parts; p += omp_get_num_threads()) {
        spb_index lo, hi;
        first_touch_rows(A, part, p, parts, &lo, &hi);
        if (hi <= lo) continue;
        spb_offset begin = csr_row_start(A, lo), end = csr_row_start(A, hi);
        memcpy(copy + (size_t)begin * w, val + (size_t)begin * w,
               sizeof *copy * w * (size_t)(end - begin));
    }
    return copy;
}

spb_status csr_first_touch_copy(const spb_csr *src, const spb_row_partition *part, int threads,
                                spb_csr *dst, char *msg)
{
    memset(dst, 0, sizeof *dst);
    const size_t w = csr_values_per_entry(src);
    dst->complex_values = src->complex_values;
    /* the row offsets in src's width: both pointers' bytes per row */
    const size_t offset = csr_wide(src) ? sizeof *src->row_ptr64 : sizeof *src->row_ptr;
    char *dst_offsets = spb_malloc((size_t)src->m + 1, offset);
    const char *src_offsets =
        csr_wide(src) ? (const char *)src->row_ptr64 : (const char *)src->row_ptr;
    if (csr_wide(src))
        dst->row_ptr64 = (spb_offset *)dst_offsets;
    else
        dst->row_ptr = (spb_index *)dst_offsets;
    dst->col_idx = spb_malloc((size_t)src->nnz, sizeof *dst->col_idx);
    if (src->val) dst->val = spb_malloc((size_t)src->nnz * w, sizeof *dst->val);
    if (!dst_offsets || !dst->col_idx || (src->val && !dst->val)) {
        csr_free(dst);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a first-touch CSR copy");
    }
    dst->m = src->m;
    dst->n = src->n;
    dst->nnz = src->nnz;
    memcpy(dst_offsets + offset * (size_t)src->m, src_offsets + offset * (size_t)src->m, offset);
    int parts = part ? part->parts : threads;
#pragma omp parallel num_threads(parts > 0 ? parts : 1)
    {
        int t = omp_get_thread_num(), team = omp_get_num_threads();
        for (int p = t; p < parts; p += team) {
            spb_index lo, hi;
            first_touch_rows(src, part, p, parts, &lo, &hi);
            if (hi <= lo) continue;
            spb_offset begin = csr_row_start(src, lo), end = csr_row_start(src, hi);
            memcpy(dst_offsets + offset * (size_t)lo, src_offsets + offset * (size_t)lo,
                   offset * (size_t)(hi - lo));
            memcpy(dst->col_idx + begin, src->col_idx + begin,
                   sizeof *dst->col_idx * (size_t)(end - begin));
            if (src->val)
                memcpy(dst->val + (size_t)begin * w, src->val + (size_t)begin * w,
                       sizeof *dst->val * w * (size_t)(end - begin));
        }
    }
    return SPB_OK;
}

spb_status hll_first_touch_copy(const spb_hll *src, int threads, spb_hll *dst, char *msg)
{
    *dst = *src;
    size_t stored = (size_t)hll_stored(src);
    dst->hack_ptr = spb_malloc((size_t)src->nhacks + 1, sizeof *dst->hack_ptr);
    dst->hack_width = spb_malloc((size_t)src->nhacks, sizeof *dst->hack_width);
    dst->col_idx = spb_malloc(stored, sizeof *dst->col_idx);
    dst->val = src->val ? spb_malloc(stored, sizeof *dst->val) : NULL;
    dst->val32 = src->val32 ? spb_malloc(stored, sizeof *dst->val32) : NULL;
    if (!dst->hack_ptr || !dst->hack_width || !dst->col_idx || (src->val && !dst->val) ||
        (src->val32 && !dst->val32)) {
        hll_free(dst);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a first-touch HLL copy");
    }
    memcpy(dst->hack_ptr, src->hack_ptr, sizeof *dst->hack_ptr * ((size_t)src->nhacks + 1));
    memcpy(dst->hack_width, src->hack_width, sizeof *dst->hack_width * (size_t)src->nhacks);
#pragma omp parallel for num_threads(threads) schedule(static)
    for (spb_index h = 0; h < src->nhacks; h++) {
        size_t begin = (size_t)src->hack_ptr[h], len = (size_t)src->hack_ptr[h + 1] - begin;
        memcpy(dst->col_idx + begin, src->col_idx + begin, sizeof *dst->col_idx * len);
        if (src->val) memcpy(dst->val + begin, src->val + begin, sizeof *dst->val * len);
        if (src->val32) memcpy(dst->val32 + begin, src->val32 + begin, sizeof *dst->val32 * len);
    }
    return SPB_OK;
}

/* ---- column panels (cache blocking) ---------------------------------------------- */

void col_panels_free(spb_col_panels *P)
{
    for (int q = 0; P->panel && q < P->panels; q++) csr_free(&P->panel[q]);
    for (int q = 0; P->val32 && q < P->panels; q++) spb_free(P->val32[q]);
    spb_free(P->val32);
    spb_free(P->panel);
    partition_free(&P->part);
    memset(P, 0, sizeof *P);
}

/* Row lengths of every panel (counted in one pass over A) into row_ptr. */
static spb_status alloc_panels(const spb_csr *A, spb_col_panels *P, char *msg)
{
    for (int q = 0; q < P->panels; q++) {
        P->panel[q].row_ptr = spb_calloc((size_t)A->m + 1, sizeof *P->panel[q].row_ptr);
        if (!P->panel[q].row_ptr) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for panels");
        P->panel[q].m = A->m;
        P->panel[q].n = A->n;
    }
    for (spb_index i = 0; i < A->m; i++)
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            P->panel[A->col_idx[k] / P->width].row_ptr[i + 1]++;
    for (int q = 0; q < P->panels; q++) {
        spb_csr *C = &P->panel[q];
        for (spb_index i = 0; i < A->m; i++) C->row_ptr[i + 1] += C->row_ptr[i];
        C->nnz = C->row_ptr[A->m];
        C->col_idx = spb_malloc((size_t)C->nnz, sizeof *C->col_idx);
        if (P->val32)
            P->val32[q] = spb_malloc((size_t)C->nnz, sizeof *P->val32[q]);
        else
            C->val = spb_malloc((size_t)C->nnz, sizeof *C->val);
        if (!C->col_idx || !(P->val32 ? (void *)P->val32[q] : (void *)C->val))
            return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for panels");
    }
    return SPB_OK;
}

spb_status csr_col_panels(const spb_csr *A, const float *val32, spb_index width, int threads,
                          spb_col_panels *P, char *msg)
{
    memset(P, 0, sizeof *P);
    if (csr_real_only(A, "column panels", msg) != SPB_OK) return SPB_ERR_DECLINED;
    P->width = width > 0 ? width : 1;
    P->panels = A->n > 0 ? (int)((A->n + (int64_t)P->width - 1) / P->width) : 1;
    P->panel = spb_calloc((size_t)P->panels, sizeof *P->panel);
    if (val32) P->val32 = spb_calloc((size_t)P->panels, sizeof *P->val32);
    spb_status st = P->panel && (!val32 || P->val32)
                        ? partition_rows_by_nnz(A, threads, &P->part, msg)
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for panels");
    if (st == SPB_OK) st = alloc_panels(A, P, msg);
    if (st != SPB_OK) {
        col_panels_free(P);
        return st;
    }
    /* filled by the threads that will stream the rows (first touch); a row's
     * columns ascend, so its entries of one panel are consecutive */
#pragma omp parallel num_threads(P->part.parts > 0 ? P->part.parts : 1)
    for (int p = omp_get_thread_num(); p < P->part.parts; p += omp_get_num_threads())
        for (spb_index i = P->part.first[p]; i < P->part.first[p + 1]; i++) {
            int current = -1;
            spb_index at = 0;
            for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
                int q = (int)(A->col_idx[k] / P->width);
                if (q != current) at = P->panel[current = q].row_ptr[i];
                P->panel[q].col_idx[at] = A->col_idx[k];
                if (val32)
                    P->val32[q][at++] = val32[k];
                else
                    P->panel[q].val[at++] = A->val[k];
            }
        }
    return SPB_OK;
}

double col_panels_spmv_bytes(const spb_col_panels *P, spb_precision precision)
{
    int64_t nnz = 0;
    for (int q = 0; q < P->panels; q++) nnz += P->panel[q].nnz;
    return csr_col_panels_spmv_bytes(P->panel[0].m, P->panel[0].n, nnz, P->panels, precision);
}
