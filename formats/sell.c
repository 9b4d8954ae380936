/* sell.c — CSR -> sliced ELLPACK, its check and byte model (see sell.h). */
#include "sell.h"

#include <string.h>

void sell_free(spb_sell *S)
{
    spb_free(S->slice_ptr);
    spb_free(S->col_idx);
    spb_free(S->val);
    memset(S, 0, sizeof *S);
}

/* Slice offsets from the longest row of each slice. */
static spb_status sell_offsets(const spb_csr *A, spb_sell *S, char *msg)
{
    S->slice_ptr = spb_malloc((size_t)S->nslices + 1, sizeof *S->slice_ptr);
    if (!S->slice_ptr) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory building SELL");
    int64_t total = 0;
    S->slice_ptr[0] = 0;
    for (spb_index s = 0; s < S->nslices; s++) {
        spb_index width = 0, first = s * S->slice_size;
        for (spb_index i = first; i < A->m && i - first < S->slice_size; i++) {
            spb_index len = A->row_ptr[i + 1] - A->row_ptr[i];
            if (len > width) width = len;
        }
        total += (int64_t)S->slice_size * width;
        if (total > SPB_INDEX_MAX)
            return spb_fail(msg, SPB_ERR_TOO_LARGE,
                            "SELL would store more than %d entries (32-bit offsets)",
                            (int)SPB_INDEX_MAX);
        S->slice_ptr[s + 1] = (spb_index)total;
    }
    return SPB_OK;
}

spb_status sell_from_csr(const spb_csr *A, spb_index slice_size, spb_sell *S, char *msg)
{
    memset(S, 0, sizeof *S);
    if (slice_size < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "SELL slice size %d: must be >= 1", (int)slice_size);
    S->m = A->m;
    S->n = A->n;
    S->nnz = A->nnz;
    S->slice_size = slice_size;
    S->nslices = (spb_index)(((int64_t)A->m + slice_size - 1) / slice_size);
    spb_status st = sell_offsets(A, S, msg);
    if (st == SPB_OK) {
        S->col_idx = spb_malloc((size_t)sell_stored(S), sizeof *S->col_idx);
        S->val = spb_malloc((size_t)sell_stored(S), sizeof *S->val);
        if (!S->col_idx || !S->val)
            st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory building SELL");
    }
    if (st != SPB_OK) {
        sell_free(S);
        return st;
    }
    /* slices on the OpenMP threads: each fills its own span */
#pragma omp parallel for schedule(dynamic, 64)
    for (spb_index s = 0; s < S->nslices; s++) {
        spb_index width = (S->slice_ptr[s + 1] - S->slice_ptr[s]) / slice_size;
        for (spb_index r = 0; r < slice_size; r++) {
            int64_t i = (int64_t)s * slice_size + r;
            spb_index begin = i < A->m ? A->row_ptr[i] : 0,
                      len = i < A->m ? A->row_ptr[i + 1] - begin : 0;
            for (spb_index k = 0; k < width; k++) {
                int64_t to = S->slice_ptr[s] + (int64_t)k * slice_size + r;
                S->col_idx[to] = k < len ? A->col_idx[begin + k] : -1;
                S->val[to] = k < len ? A->val[begin + k] : 0.0;
            }
        }
    }
    return SPB_OK;
}

spb_status sell_check(const spb_sell *S, char *msg)
{
    if (S->slice_size < 1 || S->nslices != (S->m + S->slice_size - 1) / S->slice_size)
        return spb_fail(msg, SPB_ERR_INVALID, "SELL: %d slices of %d rows for %d rows",
                        (int)S->nslices, (int)S->slice_size, (int)S->m);
    if (S->slice_ptr[0] != 0)
        return spb_fail(msg, SPB_ERR_INVALID, "SELL: slice_ptr[0] = %d", (int)S->slice_ptr[0]);
    int64_t real = 0;
    for (spb_index s = 0; s < S->nslices; s++) {
        spb_index size = S->slice_ptr[s + 1] - S->slice_ptr[s];
        if (size < 0 || size % S->slice_size != 0)
            return spb_fail(msg, SPB_ERR_INVALID, "SELL: slice %d holds %d entries", (int)s,
                            (int)size);
        spb_index width = size / S->slice_size;
        for (spb_index r = 0; r < S->slice_size; r++) {
            int padding = 0;
            for (spb_index k = 0; k < width; k++) {
                int64_t at = S->slice_ptr[s] + (int64_t)k * S->slice_size + r;
                spb_index col = S->col_idx[at];
                if (col == -1) {
                    padding = 1;
                    if (S->val[at] != 0.0)
                        return spb_fail(msg, SPB_ERR_INVALID,
                                        "SELL: slice %d row %d: padding entry %d holds a nonzero",
                                        (int)s, (int)r, (int)k);
                    continue;
                }
                if (padding || col < 0 || col >= S->n ||
                    (k > 0 && col <= S->col_idx[at - S->slice_size]))
                    return spb_fail(msg, SPB_ERR_INVALID,
                                    "SELL: slice %d row %d: entry %d has column %d out of order "
                                    "or range",
                                    (int)s, (int)r, (int)k, (int)col);
                real++;
            }
        }
    }
    if (real != S->nnz)
        return spb_fail(msg, SPB_ERR_INVALID, "SELL: %lld entries found, nnz says %d",
                        (long long)real, (int)S->nnz);
    return SPB_OK;
}

double sell_spmv_bytes(const spb_sell *S, spb_precision precision)
{
    double stored = sell_stored(S);
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return value * stored               /* val, padding included */
           + index * stored             /* col_idx, padding included */
           + index * (S->nslices + 1.0) /* slice_ptr */
           + value * S->n               /* x, each entry read once */
           + value * S->m;              /* y written */
}
