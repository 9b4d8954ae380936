/* hll.c — CSR to hacked ELLPACK (row- or column-major hacks), check, bytes. */
#include "hll.h"

#include <stdio.h>
#include <string.h>

#include "core/memory.h"

void hll_free(spb_hll *A)
{
    if (!A) return;
    spb_free(A->hack_ptr);
    spb_free(A->hack_width);
    spb_free(A->col_idx);
    spb_free(A->val);
    spb_free(A->val32);
    memset(A, 0, sizeof *A);
}

/* The longest of A's rows first .. first + rows - 1: their hack's width. */
static spb_index rows_width(const spb_csr *A, spb_index first, spb_index rows)
{
    spb_index width = 0;
    for (spb_index r = 0; r < rows; r++) {
        spb_index len = A->row_ptr[first + r + 1] - A->row_ptr[first + r];
        if (len > width) width = len;
    }
    return width;
}

/* Position of entry k of row r (both within hack h) in the stored arrays. */
static inline int64_t hll_slot(const spb_hll *A, spb_index h, spb_index r, spb_index k)
{
    if (A->layout == HLL_ROW_MAJOR)
        return (int64_t)A->hack_ptr[h] + (int64_t)r * A->hack_width[h] + k;
    return (int64_t)A->hack_ptr[h] + (int64_t)k * hll_hack_rows(A, h) + r;
}

spb_status hll_from_csr(const spb_csr *csr, spb_index hack_size, spb_hll_layout layout, spb_hll *A,
                        char *msg)
{
    memset(A, 0, sizeof *A);
    if (hack_size < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "HLL hack size must be at least 1, not %d",
                        (int)hack_size);
    A->m = csr->m;
    A->n = csr->n;
    A->nnz = csr->nnz;
    A->hack_size = hack_size;
    A->layout = layout;
    A->nhacks = (spb_index)(((int64_t)csr->m + hack_size - 1) / hack_size);
    A->hack_ptr = spb_malloc((size_t)A->nhacks + 1, sizeof *A->hack_ptr);
    A->hack_width = spb_malloc((size_t)A->nhacks, sizeof *A->hack_width);
    if (!A->hack_ptr || !A->hack_width) goto nomem;
    int64_t stored = 0;
    A->hack_ptr[0] = 0;
    for (spb_index h = 0; h < A->nhacks; h++) {
        spb_index rows = hll_hack_rows(A, h), width = rows_width(csr, h * hack_size, rows);
        A->hack_width[h] = width;
        stored += (int64_t)rows * width;
        if (stored > SPB_INDEX_MAX) {
            hll_free(A);
            return spb_fail(msg, SPB_ERR_TOO_LARGE,
                            "HLL with hack size %d would store more than %d entries (32-bit limit)",
                            (int)hack_size, SPB_INDEX_MAX);
        }
        A->hack_ptr[h + 1] = (spb_index)stored;
    }
    char detail[96];
    snprintf(detail, sizeof detail, "%lld stored entries for %lld", (long long)stored,
             (long long)csr->nnz);
    spb_status fits = spb_memory_check(12.0 * (double)stored, "HLL", detail, msg);
    if (fits != SPB_OK) {
        hll_free(A);
        return fits;
    }
    A->col_idx = spb_malloc((size_t)stored, sizeof *A->col_idx);
    A->val = spb_malloc((size_t)stored, sizeof *A->val);
    if (!A->col_idx || !A->val) goto nomem;
#pragma omp parallel for schedule(dynamic, 64) /* hacks on the threads, each its own span */
    for (spb_index h = 0; h < A->nhacks; h++) {
        spb_index first = h * hack_size, rows = hll_hack_rows(A, h);
        for (spb_index r = 0; r < rows; r++) {
            spb_index begin = csr->row_ptr[first + r], len = csr->row_ptr[first + r + 1] - begin;
            spb_index pad_col = len > 0 ? csr->col_idx[begin + len - 1] : 0;
            for (spb_index k = 0; k < A->hack_width[h]; k++) {
                int64_t slot = hll_slot(A, h, r, k);
                A->col_idx[slot] = k < len ? csr->col_idx[begin + k] : pad_col;
                A->val[slot] = k < len ? csr->val[begin + k] : 0.0;
            }
        }
    }
    return SPB_OK;
nomem:
    hll_free(A);
    return spb_fail(msg, SPB_ERR_NOMEM, "out of memory converting CSR to HLL");
}

spb_status hll_check(const spb_hll *A, char *msg)
{
    if (A->m < 0 || A->n < 0 || A->hack_size < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "HLL: bad size %d x %d or hack size %d", (int)A->m,
                        (int)A->n, (int)A->hack_size);
    if ((int64_t)A->nhacks != ((int64_t)A->m + A->hack_size - 1) / A->hack_size)
        return spb_fail(msg, SPB_ERR_INVALID, "HLL: %d hacks for %d rows of hack size %d",
                        (int)A->nhacks, (int)A->m, (int)A->hack_size);
    if (A->hack_ptr[0] != 0) return spb_fail(msg, SPB_ERR_INVALID, "HLL: hack_ptr[0] != 0");
    int64_t real = 0;
    for (spb_index h = 0; h < A->nhacks; h++) {
        spb_index rows = hll_hack_rows(A, h);
        if (A->hack_width[h] < 0 ||
            (int64_t)A->hack_ptr[h + 1] - A->hack_ptr[h] != (int64_t)rows * A->hack_width[h])
            return spb_fail(msg, SPB_ERR_INVALID, "HLL: hack %d: size does not match %d rows x %d",
                            (int)h, (int)rows, (int)A->hack_width[h]);
        for (spb_index r = 0; r < rows; r++) {
            int padding = 0;
            for (spb_index k = 0; k < A->hack_width[h]; k++) {
                int64_t slot = hll_slot(A, h, r, k);
                if (A->col_idx[slot] < 0 || A->col_idx[slot] >= A->n)
                    return spb_fail(msg, SPB_ERR_INVALID,
                                    "HLL: hack %d row %d: column %d outside 0..%d", (int)h, (int)r,
                                    (int)A->col_idx[slot], (int)A->n - 1);
                /* Real entries come first, strictly increasing; after the
                 * first repeated column everything is padding and zero. */
                if (k > 0 && !padding && A->col_idx[slot] <= A->col_idx[hll_slot(A, h, r, k - 1)])
                    padding = 1;
                if (padding && A->val[slot] != 0.0)
                    return spb_fail(msg, SPB_ERR_INVALID,
                                    "HLL: hack %d row %d: padding entry %d holds a nonzero", (int)h,
                                    (int)r, (int)k);
                real += !padding;
            }
        }
    }
    if (real < A->nnz)
        return spb_fail(msg, SPB_ERR_INVALID, "HLL: %lld entries found, nnz says %d",
                        (long long)real, (int)A->nnz);
    return SPB_OK;
}

double hll_spmv_bytes(const spb_hll *A, spb_precision precision)
{
    double stored = hll_stored(A);
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return value * stored              /* val, padding included */
           + index * stored            /* col_idx, padding included */
           + index * (A->nhacks + 1.0) /* hack_ptr */
           + index * A->nhacks         /* hack_width */
           + value * A->n              /* x, each entry read once */
           + value * A->m;             /* y written */
}

double hll_pattern_spmv_bytes(const spb_hll *A, spb_precision precision)
{
    return hll_spmv_bytes(A, precision) - (double)spb_precision_bytes(precision) * hll_stored(A);
}

double hll_bytes(const spb_hll *A)
{
    return (double)(sizeof(spb_value) + sizeof(spb_index)) * hll_stored(A) +
           (double)sizeof(spb_index) * (2.0 * A->nhacks + 1.0);
}

void hll_narrow_free(spb_hll_narrow *N)
{
    if (!N) return;
    spb_free(N->step_base);
    spb_free(N->offset);
    memset(N, 0, sizeof *N);
}

/* Hack h of N (rows first.., `rows` of them, `width` steps, its steps from
 * step and its entries from slot): each step's base and the entries'
 * offsets from it. 0 when a step spans more than HLL_NARROW_SPAN columns:
 * that step in *bad, its columns in *lo and *hi. */
static int narrow_hack(const spb_csr *A, spb_hll_narrow *N, spb_index first, spb_index rows,
                       spb_index width, int64_t step, int64_t slot, spb_index *bad, spb_index *lo,
                       spb_index *hi)
{
    for (spb_index k = 0; k < width; k++) {
        *lo = SPB_INDEX_MAX, *hi = -1;
        for (spb_index r = 0; r < rows; r++) {
            spb_index begin = A->row_ptr[first + r];
            if (k >= A->row_ptr[first + r + 1] - begin) continue;
            spb_index col = A->col_idx[begin + k];
            *lo = col < *lo ? col : *lo;
            *hi = col > *hi ? col : *hi;
        }
        if ((int64_t)*hi - *lo >= HLL_NARROW_SPAN) {
            *bad = k;
            return 0;
        }
        N->step_base[step + k] = *lo;
        for (spb_index r = 0; r < rows; r++) {
            spb_index begin = A->row_ptr[first + r];
            int real = k < A->row_ptr[first + r + 1] - begin;
            N->offset[slot + (int64_t)k * rows + r] =
                (uint16_t)(real ? A->col_idx[begin + k] - *lo : HLL_NARROW_PADDING);
        }
    }
    return 1;
}

/* N's hacks laid out: each hack's first step and first entry (step_at,
 * slot_at: nhacks + 1), the totals, and the arrays allocated. */
static spb_status narrow_plan(const spb_csr *A, const spb_hll *shape, spb_hll_narrow *N,
                              int64_t *step_at, int64_t *slot_at, char *msg)
{
    for (spb_index h = 0; h < N->nhacks; h++) {
        spb_index rows = hll_hack_rows(shape, h), width = rows_width(A, h * shape->hack_size, rows);
        step_at[h] = N->steps, slot_at[h] = N->stored;
        N->steps += width;
        N->stored += (int64_t)rows * width;
    }
    step_at[N->nhacks] = N->steps, slot_at[N->nhacks] = N->stored;
    if (N->stored > SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "HLL with hack size %d would store more than %d entries (32-bit limit)",
                        (int)shape->hack_size, SPB_INDEX_MAX);
    N->step_base = spb_malloc((size_t)N->steps + 1, sizeof *N->step_base);
    N->offset = spb_malloc((size_t)N->stored + 1, sizeof *N->offset);
    if (!N->step_base || !N->offset)
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for 16-bit column offsets");
    return SPB_OK;
}

spb_status hll_narrow_from_csr(const spb_csr *A, spb_index hack_size, spb_hll_narrow *N, char *msg)
{
    memset(N, 0, sizeof *N);
    if (csr_wide(A))
        return spb_fail(msg, SPB_ERR_DECLINED, "64-bit row offsets: no HLL of 32-bit offsets");
    spb_hll shape = {.m = A->m, .hack_size = hack_size, .layout = HLL_COL_MAJOR};
    if (hack_size < 1)
        return spb_fail(msg, SPB_ERR_INVALID, "HLL hack size must be at least 1, not %d",
                        (int)hack_size);
    N->nhacks = (spb_index)(((int64_t)A->m + hack_size - 1) / hack_size);
    int64_t *step_at = spb_malloc((size_t)N->nhacks + 1, sizeof *step_at);
    int64_t *slot_at = spb_malloc((size_t)N->nhacks + 1, sizeof *slot_at);
    spb_status st = step_at && slot_at
                        ? narrow_plan(A, &shape, N, step_at, slot_at, msg)
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for 16-bit column offsets");
    /* hacks on the threads; past a hack that spans too wide, only the
     * hacks before it go on, so the first such hack is the one named */
    spb_index first_bad = N->nhacks;
#pragma omp parallel for schedule(dynamic, 256) if (st == SPB_OK && N->nhacks > 1024)
    for (spb_index h = 0; h < N->nhacks; h++) {
        if (st != SPB_OK || h > __atomic_load_n(&first_bad, __ATOMIC_RELAXED)) continue;
        spb_index bad, lo, hi;
        if (narrow_hack(A, N, h * hack_size, hll_hack_rows(&shape, h),
                        (spb_index)(step_at[h + 1] - step_at[h]), step_at[h], slot_at[h], &bad, &lo,
                        &hi))
            continue;
        spb_index seen = __atomic_load_n(&first_bad, __ATOMIC_RELAXED);
        while (h < seen && !__atomic_compare_exchange_n(&first_bad, &seen, h, 1, __ATOMIC_RELAXED,
                                                        __ATOMIC_RELAXED)) {
        }
    }
    if (st == SPB_OK && first_bad < N->nhacks) {
        const spb_index h = first_bad, first = h * hack_size, rows = hll_hack_rows(&shape, h);
        spb_index bad = 0, lo = 0, hi = 0;
        narrow_hack(A, N, first, rows, (spb_index)(step_at[h + 1] - step_at[h]), step_at[h],
                    slot_at[h], &bad, &lo, &hi);
        st = spb_fail(msg, SPB_ERR_DECLINED,
                      "rows %d-%d: their entries at position %d span columns %d-%d, more than "
                      "the %d 16-bit offsets reach",
                      (int)first, (int)(first + rows - 1), (int)bad + 1, (int)lo, (int)hi,
                      HLL_NARROW_SPAN);
    }
    spb_free(step_at);
    spb_free(slot_at);
    if (st != SPB_OK) hll_narrow_free(N);
    return st;
}

double hll_narrow_spmv_bytes(const spb_hll_narrow *N, spb_index m, spb_index n,
                             spb_precision precision)
{
    double value = (double)spb_precision_bytes(precision), index = sizeof(spb_index);
    return (value + sizeof(uint16_t)) * (double)N->stored /* val and offsets, padding included */
           + index * (double)N->steps                     /* step_base */
           + index * (2.0 * N->nhacks + 1.0)              /* hack_ptr, hack_width */
           + value * n + value * m;                       /* x read once, y written */
}

double hll_narrow_pattern_spmv_bytes(const spb_hll_narrow *N, spb_index m, spb_index n,
                                     spb_precision precision)
{
    return hll_narrow_spmv_bytes(N, m, n, precision) -
           (double)spb_precision_bytes(precision) * (double)N->stored;
}
