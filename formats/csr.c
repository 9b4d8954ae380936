/* csr.c — CSR storage, conversion from COO, invariant check, byte model and
 * row-length statistics. */
#include "csr.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

static spb_status alloc_field(spb_csr *A, spb_index m, spb_index n, spb_offset nnz,
                              int complex_values, int wide, char *msg)
{
    memset(A, 0, sizeof *A);
    if (m < 0 || n < 0 || nnz < 0)
        return spb_fail(msg, SPB_ERR_INVALID, "negative CSR size %d x %d, nnz %lld", (int)m, (int)n,
                        (long long)nnz);
    if (!wide && nnz > SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "a CSR matrix of %lld entries needs wide row offsets (more than %d)",
                        (long long)nnz, SPB_INDEX_MAX);
    A->complex_values = complex_values;
    if (wide)
        A->row_ptr64 = spb_calloc((size_t)m + 1, sizeof *A->row_ptr64);
    else
        A->row_ptr = spb_calloc((size_t)m + 1, sizeof *A->row_ptr);
    A->col_idx = spb_malloc((size_t)nnz, sizeof *A->col_idx);
    A->val = spb_malloc((size_t)nnz * csr_values_per_entry(A), sizeof *A->val);
    if ((!A->row_ptr && !A->row_ptr64) || !A->col_idx || !A->val) {
        csr_free(A);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a CSR matrix of %lld entries",
                        (long long)nnz);
    }
    A->m = m;
    A->n = n;
    A->nnz = nnz;
    return SPB_OK;
}

spb_status csr_real_only(const spb_csr *A, const char *what, char *msg)
{
    if (!A->complex_values) return SPB_OK;
    return spb_fail(msg, SPB_ERR_DECLINED, "%s keeps real values only: the matrix is complex",
                    what);
}

spb_status csr_alloc(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, char *msg)
{
    return alloc_field(A, m, n, nnz, 0, 0, msg);
}

spb_status csr_alloc_complex(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, char *msg)
{
    return alloc_field(A, m, n, nnz, 1, 0, msg);
}

spb_status csr_alloc_as(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, int complex_values,
                        int wide, char *msg)
{
    return alloc_field(A, m, n, nnz, complex_values, wide, msg);
}

void csr_free(spb_csr *A)
{
    if (!A) return;
    spb_free(A->row_ptr);
    spb_free(A->row_ptr64);
    spb_free(A->col_idx);
    spb_free(A->val);
    memset(A, 0, sizeof *A);
}

typedef struct {
    spb_index col, at; /* at: the entry's place in the row before sorting */
    spb_value val[2];  /* [1]: the imaginary part of a complex value */
} col_val;

/* By column, then by place: qsort need not be stable (C does not ask it,
 * and glibc's falls back to an unstable sort when short of memory), and
 * duplicates are summed in the order they are met, so the same input
 * gives the same sums with any C library. */
static int col_val_cmp(const void *a, const void *b)
{
    const col_val *x = a, *y = b;
    if (x->col != y->col) return (x->col > y->col) - (x->col < y->col);
    return (x->at > y->at) - (x->at < y->at);
}

/* Sorts one row by column, stably (short rows by insertion, long ones by
 * qsort on column and place); w values per entry (2: complex). */
static void sort_row(spb_index *SPB_RESTRICT col, spb_value *SPB_RESTRICT val, spb_index len, int w,
                     col_val *scratch)
{
    if (len <= 32) {
        for (spb_index a = 1; a < len; a++) {
            spb_index c = col[a];
            spb_value v0 = val[a * w], v1 = val[a * w + w - 1];
            spb_index b = a;
            for (; b > 0 && col[b - 1] > c; b--) {
                col[b] = col[b - 1];
                for (int q = 0; q < w; q++) val[b * w + q] = val[(b - 1) * w + q];
            }
            col[b] = c;
            val[b * w] = v0;
            val[b * w + w - 1] = v1;
        }
        return;
    }
    for (spb_index k = 0; k < len; k++)
        scratch[k] = (col_val){col[k], k, {val[k * w], val[k * w + w - 1]}};
    qsort(scratch, (size_t)len, sizeof *scratch, col_val_cmp);
    for (spb_index k = 0; k < len; k++) {
        col[k] = scratch[k].col;
        val[k * w] = scratch[k].val[0];
        val[k * w + w - 1] = scratch[k].val[1];
    }
}

/* Row i sorted by column and its duplicates summed, kept at the front of
 * its own entries; returns how many it keeps, or -1 - k when the
 * duplicates of its k-th kept entry sum beyond the double range. */
static spb_index sort_and_sum_row(spb_csr *A, spb_index i, col_val *scratch)
{
    spb_offset begin = A->row_ptr64[i];
    spb_index len = (spb_index)(A->row_ptr64[i + 1] - begin), kept = 0;
    const int w = (int)csr_values_per_entry(A);
    spb_index *col = A->col_idx + begin;
    spb_value *val = A->val + (size_t)begin * w;
    for (spb_index k = 1; k < len; k++)
        if (col[k - 1] >= col[k]) {
            sort_row(col, val, len, w, scratch);
            break;
        }
    for (spb_index k = 0; k < len; k++) {
        if (kept > 0 && col[kept - 1] == col[k]) {
            for (int q = 0; q < w; q++) {
                val[(kept - 1) * w + q] += val[k * w + q];
                if (!isfinite(val[(kept - 1) * w + q])) return -kept;
            }
        } else {
            col[kept] = col[k];
            for (int q = 0; q < w; q++) val[kept * w + q] = val[k * w + q];
            kept++;
        }
    }
    return kept;
}

/* Per-thread scratch for rows up to `longest` entries in *scratch, the
 * thread count in *threads: no more threads than make all of them together
 * as large as the matrix; checked, with `extra` bytes besides, against the
 * room first ("WHAT needs about ..."). */
static spb_status row_scratch(const spb_csr *A, spb_index longest, double extra, const char *what,
                              int *threads, col_val **scratch, char *msg)
{
    *threads = omp_get_max_threads();
    if (longest > 0 && (double)*threads * longest > (double)A->nnz)
        *threads = A->nnz / longest > 1 ? (int)(A->nnz / longest) : 1;
    char detail[96];
    snprintf(detail, sizeof detail, "%d rows of scratch for %lld rows", *threads, (long long)A->m);
    spb_status fits = spb_memory_check(extra + sizeof(col_val) * (double)*threads * (double)longest,
                                       what, detail, msg);
    if (fits != SPB_OK) return fits;
    *scratch = spb_malloc((size_t)*threads * (size_t)longest + 1, sizeof **scratch);
    return *scratch ? SPB_OK : spb_fail(msg, SPB_ERR_NOMEM, "out of memory %s", what);
}

/* Rows sorted by column and duplicates summed, each row by one thread (so
 * the sums are the same at any thread count), then compacted in order (on
 * wide offsets: csr_from_coo_offsets narrows them after);
 * SPB_ERR_PARSE when finite duplicates sum beyond the double range (the
 * first such row reported, as a serial pass would). */
static spb_status sort_and_sum_rows(spb_csr *A, spb_index longest, char *msg)
{
    /* checked here, where the longest row is known: the reader's estimate
     * covers the triplets, the CSR and one row array at a time */
    int threads;
    col_val *scratch;
    spb_status st = row_scratch(A, longest, sizeof(spb_index) * (A->m + 1.0), "sorting its rows",
                                &threads, &scratch, msg);
    if (st != SPB_OK) return st;
    spb_index *kept = spb_malloc((size_t)A->m + 1, sizeof *kept);
    if (!kept) {
        spb_free(scratch);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory converting COO to CSR");
    }
    spb_index bad_row = A->m;
#pragma omp parallel num_threads(threads) reduction(min : bad_row)
    {
        col_val *mine = scratch + (size_t)omp_get_thread_num() * (size_t)longest;
#pragma omp for schedule(dynamic, 1024)
        for (spb_index i = 0; i < A->m; i++) {
            kept[i] = sort_and_sum_row(A, i, mine);
            if (kept[i] < 0 && i < bad_row) bad_row = i;
        }
    }
    spb_free(scratch);
    if (bad_row < A->m) {
        spb_offset at = A->row_ptr64[bad_row] - kept[bad_row] - 1; /* the k-th kept entry */
        spb_free(kept);
        return spb_fail(msg, SPB_ERR_PARSE,
                        "duplicate entries at (%d, %d) sum beyond the double range",
                        (int)bad_row + 1, (int)A->col_idx[at] + 1);
    }
    spb_offset out = 0;
    for (spb_index i = 0; i < A->m; i++) { /* each row moves no later than where it is */
        spb_offset begin = A->row_ptr64[i];
        if (out != begin) {
            memmove(A->col_idx + out, A->col_idx + begin, sizeof *A->col_idx * (size_t)kept[i]);
            size_t w = csr_values_per_entry(A);
            memmove(A->val + out * w, A->val + begin * w, sizeof *A->val * w * (size_t)kept[i]);
        }
        A->row_ptr64[i] = out;
        out += kept[i];
    }
    A->row_ptr64[A->m] = out;
    A->nnz = out;
    spb_free(kept);
    return SPB_OK;
}

spb_status csr_sort_rows(spb_csr *A, char *msg)
{
    spb_index longest = 0;
    for (spb_index i = 0; i < A->m; i++) {
        const spb_offset len = csr_row_start(A, i + 1) - csr_row_start(A, i);
        if (len > longest) longest = (spb_index)len;
    }
    int threads;
    col_val *scratch;
    spb_status st = row_scratch(A, longest, 0.0, "sorting its rows", &threads, &scratch, msg);
    if (st != SPB_OK) return st;
    const int w = (int)csr_values_per_entry(A);
#pragma omp parallel num_threads(threads)
    {
        col_val *mine = scratch + (size_t)omp_get_thread_num() * (size_t)longest;
#pragma omp for schedule(dynamic, 1024)
        for (spb_index i = 0; i < A->m; i++) {
            const spb_offset begin = csr_row_start(A, i);
            sort_row(A->col_idx + begin, A->val + (size_t)begin * w,
                     (spb_index)(csr_row_start(A, i + 1) - begin), w, mine);
        }
    }
    spb_free(scratch);
    return SPB_OK;
}

spb_status csr_from_coo(const spb_coo *coo, spb_csr *A, char *msg)
{
    return csr_from_coo_offsets(coo, 0, A, msg);
}

/* Wide offsets made narrow, when every offset fits. */
static spb_status narrow_offsets(spb_csr *A, char *msg)
{
    A->row_ptr = spb_malloc((size_t)A->m + 1, sizeof *A->row_ptr);
    if (!A->row_ptr) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory converting COO to CSR");
    for (spb_index i = 0; i <= A->m; i++) A->row_ptr[i] = (spb_index)A->row_ptr64[i];
    spb_free(A->row_ptr64);
    A->row_ptr64 = NULL;
    return SPB_OK;
}

/* The first COO entry outside its m x n, or nnz when none (as a pass in
 * order would find it). */
static spb_offset first_outside(const spb_coo *coo)
{
    spb_offset first = coo->nnz;
#pragma omp parallel for schedule(static) reduction(min : first) if (coo->nnz > 65536)
    for (spb_offset k = 0; k < coo->nnz; k++)
        if ((coo->row[k] < 0 || coo->row[k] >= coo->m || coo->col[k] < 0 ||
             coo->col[k] >= coo->n) &&
            k < first)
            first = k;
    return first;
}

/* COO's entries into A's rows in file order (a counting sort by row,
 * stable: the file's order within a row, which is already column order for
 * most files, so the per-row sort is usually skipped, and which orders the
 * sums of duplicates). The entries in `chunks` spans on the threads: each
 * span's count of every row (at[c * m + r]), A's offsets from their sums,
 * then each span's entries of a row placed after the earlier spans'. The
 * row holding the most entries in *longest_row, its count returned. */
static spb_offset scatter_rows(const spb_coo *coo, spb_csr *A, int chunks, spb_offset *at,
                               spb_index *longest_row)
{
    const spb_index m = coo->m;
    const size_t w = csr_values_per_entry(A);
    const spb_offset span = (coo->nnz + chunks - 1) / chunks;
    spb_offset *rp = A->row_ptr64;
#pragma omp parallel num_threads(chunks)
    {
#pragma omp for schedule(static)
        for (int c = 0; c < chunks; c++) {
            spb_offset *mine = at + (size_t)c * m;
            memset(mine, 0, sizeof *mine * (size_t)m);
            const spb_offset end = span * (c + 1) < coo->nnz ? span * (c + 1) : coo->nnz;
            for (spb_offset k = span * c; k < end; k++) mine[coo->row[k]]++;
        }
#pragma omp for schedule(static)
        for (spb_index r = 0; r < m; r++) {
            spb_offset total = 0;
            for (int c = 0; c < chunks; c++) total += at[(size_t)c * m + r];
            rp[r + 1] = total;
        }
    }
    spb_offset longest = 0;
    *longest_row = 0;
    for (spb_index i = 0; i < m; i++) {
        if (rp[i + 1] > longest) {
            longest = rp[i + 1];
            *longest_row = i;
        }
        rp[i + 1] += rp[i];
    }
    if (longest > SPB_INDEX_MAX) return longest;
#pragma omp parallel num_threads(chunks)
    {
#pragma omp for schedule(static)
        for (spb_index r = 0; r < m; r++) { /* span c's first slot in row r */
            spb_offset next = rp[r];
            for (int c = 0; c < chunks; c++) {
                const spb_offset count = at[(size_t)c * m + r];
                at[(size_t)c * m + r] = next;
                next += count;
            }
        }
#pragma omp for schedule(static)
        for (int c = 0; c < chunks; c++) {
            spb_offset *next = at + (size_t)c * m;
            const spb_offset end = span * (c + 1) < coo->nnz ? span * (c + 1) : coo->nnz;
            for (spb_offset k = span * c; k < end; k++) {
                const spb_offset slot = next[coo->row[k]]++;
                A->col_idx[slot] = coo->col[k];
                for (size_t q = 0; q < w; q++) A->val[slot * w + q] = coo->val[k * w + q];
            }
        }
    }
    return longest;
}

/* Built on wide offsets, whatever the size (one way for both), then made
 * narrow unless the summed entries pass SPB_INDEX_MAX or `wide` asks. */
spb_status csr_from_coo_offsets(const spb_coo *coo, int wide, spb_csr *A, char *msg)
{
    spb_index m = coo->m;
    spb_status st = alloc_field(A, m, coo->n, coo->nnz, coo->complex_values, 1, msg);
    if (st != SPB_OK) return st;
    const spb_offset bad = first_outside(coo);
    if (bad < coo->nnz) {
        csr_free(A);
        return spb_fail(msg, SPB_ERR_INVALID, "COO entry %lld at (%d, %d) outside %d x %d",
                        (long long)bad, (int)coo->row[bad], (int)coo->col[bad], (int)m,
                        (int)coo->n);
    }
    /* a span's row counts take m offsets: together no more than the
     * values take, and half the memory left, else fewer spans */
    int chunks = omp_get_max_threads();
    if ((double)chunks * m > (double)coo->nnz)
        chunks = coo->nnz / (m > 0 ? m : 1) > 1 ? (int)(coo->nnz / (m > 0 ? m : 1)) : 1;
    const spb_memory_room room = spb_memory_room_now();
    while (chunks > 1 && room.bytes >= 0 && 2.0 * sizeof(spb_offset) * chunks * m > room.bytes)
        chunks /= 2;
    spb_offset *at = spb_malloc((size_t)chunks * (size_t)m + 1, sizeof *at);
    if (!at) {
        csr_free(A);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory converting COO to CSR");
    }
    spb_index longest_row;
    const spb_offset longest = scatter_rows(coo, A, chunks, at, &longest_row);
    spb_free(at);                  /* before the sort's own row array: one at a time */
    if (longest > SPB_INDEX_MAX) { /* a row's entries are counted in 32 bits while sorted */
        csr_free(A);
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "row %d holds %lld entries before its duplicates are summed: more "
                        "than %d",
                        (int)longest_row + 1, (long long)longest, SPB_INDEX_MAX);
    }
    st = sort_and_sum_rows(A, (spb_index)longest, msg);
    if (st == SPB_OK && !wide && A->nnz <= SPB_INDEX_MAX) st = narrow_offsets(A, msg);
    if (st != SPB_OK) csr_free(A);
    return st;
}

spb_status csr_widen(spb_csr *A, char *msg)
{
    if (csr_wide(A)) return SPB_OK;
    spb_offset *wide = spb_malloc((size_t)A->m + 1, sizeof *wide);
    if (!wide) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for wide row offsets");
    for (spb_index i = 0; i <= A->m; i++) wide[i] = A->row_ptr[i];
    spb_free(A->row_ptr);
    A->row_ptr = NULL;
    A->row_ptr64 = wide;
    return SPB_OK;
}

spb_status csr_check(const spb_csr *A, char *msg)
{
    if (A->m < 0 || A->n < 0 || A->nnz < 0)
        return spb_fail(msg, SPB_ERR_INVALID, "CSR: negative size %d x %d, nnz %lld", (int)A->m,
                        (int)A->n, (long long)A->nnz);
    if (!A->row_ptr == !A->row_ptr64 || (A->nnz > 0 && (!A->col_idx || !A->val)))
        return spb_fail(msg, SPB_ERR_INVALID, "CSR: missing arrays");
    if (!csr_wide(A) && A->nnz > SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_INVALID, "CSR: %lld entries on 32-bit row offsets",
                        (long long)A->nnz);
    if (csr_row_start(A, 0) != 0)
        return spb_fail(msg, SPB_ERR_INVALID, "CSR: row_ptr[0] = %lld, not 0",
                        (long long)csr_row_start(A, 0));
    if (csr_row_start(A, A->m) != A->nnz)
        return spb_fail(msg, SPB_ERR_INVALID, "CSR: row_ptr[m] = %lld, nnz = %lld",
                        (long long)csr_row_start(A, A->m), (long long)A->nnz);
    for (spb_index i = 0; i < A->m; i++) {
        spb_offset begin = csr_row_start(A, i), end = csr_row_start(A, i + 1);
        if (end < begin)
            return spb_fail(msg, SPB_ERR_INVALID, "CSR: row_ptr decreases at row %d", (int)i);
        for (spb_offset k = begin; k < end; k++) {
            if (A->col_idx[k] < 0 || A->col_idx[k] >= A->n)
                return spb_fail(msg, SPB_ERR_INVALID, "CSR: row %d: column %d outside 0..%d",
                                (int)i, (int)A->col_idx[k], (int)A->n - 1);
            if (k > begin && A->col_idx[k] <= A->col_idx[k - 1])
                return spb_fail(msg, SPB_ERR_INVALID,
                                "CSR: row %d: columns not strictly increasing at entry %lld",
                                (int)i, (long long)k);
        }
    }
    return SPB_OK;
}

/* Bytes of one row offset: 4, or 8 for a wide matrix. */
static double offset_bytes(const spb_csr *A)
{
    return csr_wide(A) ? sizeof(spb_offset) : sizeof(spb_index);
}

double csr_spmv_bytes(const spb_csr *A, spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return value * (double)A->nnz           /* val */
           + index * (double)A->nnz         /* col_idx */
           + offset_bytes(A) * (A->m + 1.0) /* row_ptr */
           + value * A->n                   /* x, each entry read once */
           + value * A->m;                  /* y written */
}

double csr_pattern_spmv_bytes(const spb_csr *A, spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return index * (double)A->nnz           /* col_idx: no values */
           + offset_bytes(A) * (A->m + 1.0) /* row_ptr */
           + value * A->n                   /* x, each entry read once */
           + value * A->m;                  /* y written */
}

double csr_col_panels_spmv_bytes(spb_index m, spb_index n, int64_t nnz, int panels,
                                 spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return (value + index) * (double)nnz       /* values and columns */
           + index * (m + 1.0) * panels        /* each panel's row_ptr */
           + value * n                         /* x, each entry read once */
           + value * m * (2.0 * panels - 1.0); /* y written, then read and written again */
}

spb_status csr_col_panels_joined(const spb_csr *A, int panels, spb_index width,
                                 spb_precision precision, int **row_ptr, int **col_idx, void **val,
                                 char *msg)
{
    if (csr_real_only(A, "column panels", msg) != SPB_OK) return SPB_ERR_DECLINED;
    const size_t stride = (size_t)A->m + 1;
    *row_ptr = spb_calloc((size_t)panels * stride, sizeof(int));
    *col_idx = spb_malloc((size_t)A->nnz + 1, sizeof(int));
    *val = spb_malloc((size_t)A->nnz + 1, spb_precision_bytes(precision));
    int64_t *panel_start = spb_calloc((size_t)panels + 1, sizeof *panel_start);
    if (!*row_ptr || !*col_idx || !*val || !panel_start) {
        spb_free(panel_start);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the column panels");
    }
    int *rp = *row_ptr;
#pragma omp parallel for schedule(dynamic, 4096)
    for (spb_index i = 0; i < A->m; i++) /* counts, at i + 1 of each panel: a row its own */
        for (spb_index k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++)
            rp[(size_t)(A->col_idx[k] / width) * stride + i + 1]++;
#pragma omp parallel for schedule(static)
    for (int p = 0; p < panels; p++) { /* each panel's entries, then where it starts */
        int64_t sum = 0;
        for (spb_index i = 0; i < A->m; i++) sum += rp[(size_t)p * stride + i + 1];
        panel_start[p + 1] = sum;
    }
    for (int p = 0; p < panels; p++) panel_start[p + 1] += panel_start[p];
#pragma omp parallel for schedule(static)
    for (int p = 0; p < panels; p++) {
        int *prow = rp + (size_t)p * stride;
        int64_t at = panel_start[p];
        prow[0] = (int)at;
        for (spb_index i = 0; i < A->m; i++) prow[i + 1] = (int)(at += prow[i + 1]);
    }
    spb_free(panel_start);
#pragma omp parallel for schedule(dynamic, 4096)
    for (spb_index i = 0; i < A->m; i++) { /* a row's entries of one panel are consecutive */
        int current = -1, next = 0;
        for (spb_index k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++) {
            int p = (int)(A->col_idx[k] / width);
            if (p != current) next = rp[(size_t)(current = p) * stride + i];
            (*col_idx)[next] = A->col_idx[k];
            if (precision == SPB_FP32)
                ((float *)*val)[next++] = (float)A->val[k];
            else
                ((double *)*val)[next++] = A->val[k];
        }
    }
    return SPB_OK;
}

int64_t csr_tile_alone(const spb_csr *A, int64_t items)
{
    const int64_t means = A->m ? CSR_TILE_ALONE_MEANS * (int64_t)A->nnz / A->m : 0;
    const int64_t alone = means > CSR_TILE_ALONE ? means : CSR_TILE_ALONE;
    return alone < items ? alone : items;
}

spb_index csr_row_tiles(const spb_csr *A, int64_t items, spb_index max_rows, int64_t alone,
                        spb_index *tile_row)
{
    spb_index tiles = 0;
    for (spb_index i = 0; i < A->m;) {
        tile_row[tiles++] = i;
        spb_index end = i + 1;
        if (csr_row_start(A, i + 1) - csr_row_start(A, i) <= alone)
            while (end < A->m && end - i < max_rows &&
                   csr_row_start(A, end + 1) - csr_row_start(A, end) <= alone &&
                   (int64_t)csr_row_start(A, end + 1) - csr_row_start(A, i) <= items)
                end++;
        i = end;
    }
    tile_row[tiles] = A->m;
    return tiles;
}

spb_status csr_pattern_value(const spb_csr *A, spb_value *value, char *msg)
{
    *value = 0.0;
    if (A->complex_values)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "its values are complex, and this kernel reads none (real only)");
    *value = A->nnz ? A->val[0] : 0.0;
    for (spb_index k = 1; k < A->nnz; k++)
        if (A->val[k] != *value)
            return spb_fail(msg, SPB_ERR_DECLINED,
                            "not a pattern matrix: its values differ, and this kernel reads none");
    return SPB_OK;
}

int64_t csr_spgemm_products(const spb_csr *A, const spb_csr *B)
{
    int64_t products = 0;
    for (spb_offset k = 0; k < A->nnz; k++) {
        spb_index j = A->col_idx[k];
        products += csr_row_start(B, j + 1) - csr_row_start(B, j);
    }
    return products;
}

int64_t csr_spgemm_row_products_max(const spb_csr *A, const spb_csr *B)
{
    int64_t most = 0;
    for (spb_index i = 0; i < A->m; i++) {
        int64_t row = 0;
        for (spb_offset k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++)
            row += csr_row_start(B, A->col_idx[k] + 1) - csr_row_start(B, A->col_idx[k]);
        most = row > most ? row : most;
    }
    return most;
}

/* Products and distinct columns of row i of A*B (marker: B->n entries,
 * stamped with the row). */
static void row_products(const spb_csr *A, const spb_csr *B, spb_index i, spb_index *marker,
                         int64_t *products, int64_t *distinct)
{
    for (spb_offset ka = csr_row_start(A, i); ka < csr_row_start(A, i + 1); ka++) {
        spb_index r = A->col_idx[ka];
        *products += csr_row_start(B, r + 1) - csr_row_start(B, r);
        for (spb_offset kb = csr_row_start(B, r); kb < csr_row_start(B, r + 1); kb++)
            if (marker[B->col_idx[kb]] != i) {
                marker[B->col_idx[kb]] = i;
                ++*distinct;
            }
    }
}

spb_status csr_spgemm_shape(const spb_csr *A, const spb_csr *B, spb_index sample,
                            spb_spgemm_shape *shape, char *msg)
{
    shape->products = shape->row_products_max = 0;
    shape->a_row_max = 0;
    for (spb_index i = 0; i < A->m; i++) {
        if (csr_row_start(A, i + 1) - csr_row_start(A, i) > shape->a_row_max)
            shape->a_row_max = csr_row_start(A, i + 1) - csr_row_start(A, i);
        int64_t row = 0;
        for (spb_offset ka = csr_row_start(A, i); ka < csr_row_start(A, i + 1); ka++)
            row += csr_row_start(B, A->col_idx[ka] + 1) - csr_row_start(B, A->col_idx[ka]);
        shape->products += row;
        if (row > shape->row_products_max) shape->row_products_max = row;
    }
    shape->compression = 1.0;
    if (A->m == 0 || B->n == 0) return SPB_OK;
    spb_index *marker = spb_malloc((size_t)B->n, sizeof *marker);
    if (!marker) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    for (spb_index j = 0; j < B->n; j++) marker[j] = -1;
    if (sample > A->m) sample = A->m;
    int64_t products = 0, distinct = 0;
    for (spb_index s = 0; s < sample; s++)
        row_products(A, B, (spb_index)((int64_t)s * A->m / sample), marker, &products, &distinct);
    spb_free(marker);
    if (distinct > 0) shape->compression = (double)products / (double)distinct;
    return SPB_OK;
}

double csr_spgemm_bytes(const spb_csr *A, double products, double nnz_c, spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return (value + index) * A->nnz     /* A's values and columns */
           + index * (A->m + 1.0)       /* A's row_ptr */
           + 2.0 * index * A->nnz       /* B's row_ptr pair per entry of A */
           + (value + index) * products /* B's column and value per product */
           + (value + index) * nnz_c    /* C's columns and values written */
           + index * (A->m + 1.0);      /* C's row_ptr written */
}

/* The row chunks a transpose scatters at once, one a thread: each counts
 * its columns (n + 1 offsets), so fewer where those would pass A's column
 * indices in size, and one for a small matrix (the same pass, alone). */
static int transpose_chunks(const spb_csr *A)
{
    int chunks = A->nnz >= 65536 ? omp_get_max_threads() : 1;
    while (chunks > 1 && (double)chunks * (A->n + 1.0) > (double)A->nnz) chunks--;
    return chunks;
}

/* Rows [row[c], row[c + 1]) of A scattered into T by chunk c, chunks of
 * about equal entries; start[c * (n + 1) + j]: where chunk c's entries of
 * column j begin in T's row j (counted here). A's rows ascend inside a
 * chunk and the chunks follow in order in each row of T, so T is the one
 * a single pass over A's rows makes, on any number of threads. */
static void transpose_chunked(const spb_csr *A, spb_csr *T, int chunks, spb_index *row,
                              spb_index *start)
{
    const size_t w = csr_values_per_entry(A), stride = (size_t)A->n + 1;
    for (int c = 0; c <= chunks; c++) { /* the first row whose start reaches c's share */
        const double share = (double)A->nnz * c / chunks;
        spb_index lo = c ? row[c - 1] : 0, hi = A->m;
        while (lo < hi) {
            const spb_index mid = lo + (hi - lo) / 2;
            if ((double)csr_row_start(A, mid) < share)
                lo = mid + 1;
            else
                hi = mid;
        }
        row[c] = c == chunks ? A->m : lo;
    }
#pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c++) {
        spb_index *mine = start + (size_t)c * stride;
        memset(mine, 0, stride * sizeof *mine);
        for (spb_offset k = csr_row_start(A, row[c]); k < csr_row_start(A, row[c + 1]); k++)
            mine[A->col_idx[k]]++;
    }
#pragma omp parallel for schedule(static)
    for (spb_index j = 0; j < A->n; j++) { /* each chunk's place inside row j of T */
        spb_index before = 0;
        for (int c = 0; c < chunks; c++) {
            const spb_index count = start[(size_t)c * stride + j];
            start[(size_t)c * stride + j] = before;
            before += count;
        }
        T->row_ptr[j + 1] = before;
    }
    for (spb_index j = 0; j < A->n; j++) T->row_ptr[j + 1] += T->row_ptr[j];
#pragma omp parallel for schedule(static, 1)
    for (int c = 0; c < chunks; c++) {
        spb_index *mine = start + (size_t)c * stride;
        for (spb_index i = row[c]; i < row[c + 1]; i++)
            for (spb_offset k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++) {
                const spb_index j = A->col_idx[k], at = T->row_ptr[j] + mine[j]++;
                T->col_idx[at] = i;
                for (size_t q = 0; q < w; q++) T->val[(size_t)at * w + q] = A->val[k * w + q];
            }
    }
}

spb_status csr_transpose(const spb_csr *A, spb_csr *T, char *msg)
{
    char detail[96]; /* a wide matrix's transpose has a row pointer per column */
    snprintf(detail, sizeof detail, "%d x %d, %lld entries", (int)A->n, (int)A->m,
             (long long)A->nnz);
    const int chunks = transpose_chunks(A);
    spb_status st = spb_memory_check(12.0 * A->nnz + 4.0 * (A->n + 1.0) * (chunks + 1.0),
                                     "the transpose", detail, msg);
    if (st == SPB_OK) st = alloc_field(T, A->n, A->m, A->nnz, A->complex_values, 0, msg);
    if (st != SPB_OK) return st;
    spb_index *row = spb_malloc((size_t)chunks + 1, sizeof *row);
    spb_index *start = spb_malloc((size_t)chunks * ((size_t)A->n + 1), sizeof *start);
    if (row && start)
        transpose_chunked(A, T, chunks, row, start);
    else {
        csr_free(T);
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the transpose's column counts");
    }
    spb_free(row);
    spb_free(start);
    return st;
}

double csr_bytes(const spb_csr *A)
{
    return (double)(sizeof(spb_value) * csr_values_per_entry(A) + sizeof(spb_index)) * A->nnz +
           (double)sizeof(spb_index) * (A->m + 1.0);
}

void csr_stats(const spb_csr *A, spb_csr_stats *s)
{
    memset(s, 0, sizeof *s);
    s->rows = A->m;
    s->cols = A->n;
    s->nnz = A->nnz;
    if (A->m == 0) return;
    s->row_min = SPB_INDEX_MAX;
    double sum = 0, sum_sq = 0;
    for (spb_index i = 0; i < A->m; i++) {
        spb_index len = csr_row_start(A, i + 1) - csr_row_start(A, i);
        if (len < s->row_min) s->row_min = len;
        if (len > s->row_max) s->row_max = len;
        s->empty_rows += len == 0;
        sum += len;
        sum_sq += (double)len * len;
    }
    s->row_mean = sum / A->m;
    double var = sum_sq / A->m - s->row_mean * s->row_mean;
    s->row_std = var > 0 ? sqrt(var) : 0;
}

/* Distinct sectors of fp64 x (4 columns each) among entries [k, k + 32). */
static int run_sectors(const spb_csr *A, int64_t k)
{
    spb_index sector[32];
    int distinct = 0;
    for (int e = 0; e < 32; e++) {
        const spb_index v = A->col_idx[k + e] / 4;
        int seen = 0;
        for (int d = 0; d < distinct && !seen; d++) seen = sector[d] == v;
        if (!seen) sector[distinct++] = v;
    }
    return distinct;
}

static double scatter_of(const spb_csr *A)
{
    const int64_t runs = A->nnz / 32;
    if (runs == 0) return 0.0;
    const int64_t step = runs > CSR_SCATTER_RUNS ? runs / CSR_SCATTER_RUNS : 1;
    int64_t sectors = 0, entries = 0;
    for (int64_t r = 0; r < runs; r += step, entries += 32) sectors += run_sectors(A, r * 32);
    return (double)sectors / (double)entries;
}

void csr_shape(const spb_csr *A, spb_index hack, spb_csr_shape *f)
{
    char ignored[SPB_MSG_LEN];
    spb_value value;
    csr_stats(A, &f->stats);
    if (hack < 1) hack = 1;
    double stored = 0.0, spans = 0.0;
    for (spb_index first = 0; first < A->m; first += hack) {
        spb_index last = A->m - first > hack ? first + hack : A->m, width = 0;
        for (spb_index i = first; i < last; i++)
            if (csr_row_start(A, i + 1) - csr_row_start(A, i) > width)
                width = csr_row_start(A, i + 1) - csr_row_start(A, i);
        stored += (double)width * (last - first);
    }
    for (spb_index i = 0; i < A->m; i++)
        if (csr_row_start(A, i + 1) > csr_row_start(A, i))
            spans +=
                A->col_idx[csr_row_start(A, i + 1) - 1] - A->col_idx[csr_row_start(A, i)] + 1.0;
    spb_index filled = A->m - f->stats.empty_rows;
    f->padding = A->nnz > 0 ? stored / A->nnz : 1.0;
    f->span = filled > 0 ? spans / filled : 0.0;
    f->cv = f->stats.row_mean > 0 ? f->stats.row_std / f->stats.row_mean : 0.0;
    f->pattern = A->nnz > 0 && csr_pattern_value(A, &value, ignored) == SPB_OK;
    f->scatter = scatter_of(A);
}
