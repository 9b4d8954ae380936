/* test_formats.c — COO -> CSR -> HLL conversions on random and named
 * awkward shapes, the format checks, statistics and the byte models. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs/gen.h"
#include "bench/inputs/rng.h"
#include "check.h"
#include "formats/bsr.h"
#include "formats/format_set.h"
#include "formats/order.h"

/* Random COO with duplicates and unsorted entries; some rows may be empty,
 * and row `dense_row` (if in range) is full. */
static void random_coo(spb_rng *rng, spb_index m, spb_index n, spb_index nnz, spb_index dense_row,
                       spb_coo *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index extra = (dense_row >= 0 && dense_row < m) ? n : 0;
    if (m == 0 || n == 0) nnz = 0;
    coo_alloc(A, m, n, nnz + extra, msg);
    for (spb_index k = 0; k < nnz; k++) {
        A->row[k] = (spb_index)spb_rng_below(rng, (uint64_t)m);
        A->col[k] = (spb_index)spb_rng_below(rng, (uint64_t)n);
        A->val[k] = spb_rng_value(rng);
    }
    for (spb_index j = 0; j < extra; j++) {
        A->row[nnz + j] = dense_row;
        A->col[nnz + j] = n - 1 - j; /* descending: forces a sort */
        A->val[nnz + j] = spb_rng_value(rng);
    }
}

/* Dense copy of a COO (duplicates summed) to compare conversions with. */
static double *coo_dense(const spb_coo *A)
{
    double *d = calloc((size_t)A->m * A->n + 1, sizeof *d);
    for (spb_index k = 0; k < A->nnz; k++) d[(size_t)A->row[k] * A->n + A->col[k]] += A->val[k];
    return d;
}

static int coo_distinct(const spb_coo *A)
{
    char *seen = calloc((size_t)A->m * A->n + 1, 1);
    int count = 0;
    for (spb_index k = 0; k < A->nnz; k++) {
        size_t at = (size_t)A->row[k] * A->n + A->col[k];
        count += !seen[at];
        seen[at] = 1;
    }
    free(seen);
    return count;
}

/* A's narrow columns against its column-major HLL B: hack h's step k at
 * step_base[hack_ptr[h] / hack_size + k] (as the kernel finds it), every
 * real entry's base + offset its column, every padding entry marked. */
static void check_hll_narrow(const char *label, const spb_csr *A, const spb_hll *B)
{
    char msg[SPB_MSG_LEN] = "";
    spb_hll_narrow N;
    spb_status st = hll_narrow_from_csr(A, B->hack_size, &N, msg);
    CHECK(st == SPB_OK, "%s H=%d: narrow columns: %s", label, (int)B->hack_size, msg);
    if (st != SPB_OK) return;
    int64_t steps = 0;
    int mismatches = 0;
    for (spb_index h = 0; h < B->nhacks; h++) {
        spb_index rows = hll_hack_rows(B, h);
        const spb_index *base = N.step_base + B->hack_ptr[h] / B->hack_size;
        steps += B->hack_width[h];
        for (spb_index r = 0; r < rows; r++) {
            spb_index i = h * B->hack_size + r, len = A->row_ptr[i + 1] - A->row_ptr[i];
            for (spb_index k = 0; k < B->hack_width[h]; k++) {
                int64_t slot = (int64_t)B->hack_ptr[h] + (int64_t)k * rows + r;
                if (k < len)
                    mismatches += base[k] + N.offset[slot] != B->col_idx[slot];
                else
                    mismatches += N.offset[slot] != HLL_NARROW_PADDING;
            }
        }
    }
    CHECK(mismatches == 0 && N.steps == steps && N.stored == hll_stored(B),
          "%s H=%d: %d narrow columns differ from HLL's; %lld steps (expected %lld), %lld "
          "entries (expected %d)",
          label, (int)B->hack_size, mismatches, (long long)N.steps, (long long)steps,
          (long long)N.stored, (int)hll_stored(B));
    hll_narrow_free(&N);
}

static void check_hll(const char *label, const spb_csr *A, spb_index H, spb_hll_layout layout)
{
    char msg[SPB_MSG_LEN] = "";
    spb_hll B;
    spb_status st = hll_from_csr(A, H, layout, &B, msg);
    CHECK(st == SPB_OK, "%s H=%d: %s", label, (int)H, msg);
    if (st != SPB_OK) return;
    CHECK(hll_check(&B, msg) == SPB_OK, "%s H=%d: %s", label, (int)H, msg);
    int64_t expect_stored = 0;
    int mismatches = 0;
    for (spb_index h = 0; h < B.nhacks; h++) {
        spb_index rows = hll_hack_rows(&B, h), width = 0;
        for (spb_index r = 0; r < rows; r++) {
            spb_index i = h * H + r, len = A->row_ptr[i + 1] - A->row_ptr[i];
            if (len > width) width = len;
        }
        CHECK(B.hack_width[h] == width, "%s: hack %d width %d, expected %d", label, (int)h,
              (int)B.hack_width[h], (int)width);
        expect_stored += (int64_t)rows * width;
        /* Every real entry at its place, every padding slot zero. */
        for (spb_index r = 0; r < rows; r++) {
            spb_index i = h * H + r, begin = A->row_ptr[i], len = A->row_ptr[i + 1] - begin;
            for (spb_index k = 0; k < B.hack_width[h]; k++) {
                int64_t slot = layout == HLL_ROW_MAJOR
                                   ? (int64_t)B.hack_ptr[h] + (int64_t)r * B.hack_width[h] + k
                                   : (int64_t)B.hack_ptr[h] + (int64_t)k * rows + r;
                if (k < len)
                    mismatches += B.col_idx[slot] != A->col_idx[begin + k] ||
                                  B.val[slot] != A->val[begin + k];
                else
                    mismatches +=
                        B.val[slot] != 0.0 || B.col_idx[slot] < 0 || B.col_idx[slot] >= B.n;
            }
        }
    }
    CHECK(mismatches == 0, "%s H=%d %s: %d slots differ from CSR", label, (int)H,
          layout == HLL_ROW_MAJOR ? "row" : "col", mismatches);
    CHECK(hll_stored(&B) == expect_stored, "%s: stored %d, expected %lld", label,
          (int)hll_stored(&B), (long long)expect_stored);
    if (layout == HLL_COL_MAJOR) check_hll_narrow(label, A, &B);
    hll_free(&B);
}

/* Block rows in slice sl of B cut in slices of `slice` (counted here, not
 * by bsr_slice_rows, the code under test). */
static spb_index rows_of_slice(const spb_bsr *B, spb_index slice, spb_index sl)
{
    spb_index left = B->brows - sl * slice;
    return left < slice ? left : slice;
}

/* B in slices of `slice` block rows: each slice's width the most blocks
 * of its block rows, and y = A*x read row by row through the slices' layout
 * (bsr.h: the indexing a device thread uses) equal to the dense product; a
 * slot the layout does not reach, or a padding block that is not column 0
 * with zeros, is counted as a mismatch. */
static void check_bsr_sliced(const char *label, const spb_csr *A, const double *dense,
                             const spb_bsr *B, spb_index slice)
{
    char msg[SPB_MSG_LEN] = "";
    spb_bsr_sliced S;
    spb_status st = bsr_slice(B, slice, &S, msg);
    CHECK(st == SPB_OK, "%s b=%d slice %d: %s", label, (int)B->block, (int)slice, msg);
    if (st != SPB_OK) return;
    const spb_index b = B->block;
    int mismatches = 0;
    int64_t padded = 0;
    for (spb_index sl = 0; sl < S.nslices; sl++) {
        spb_index rows = rows_of_slice(B, slice, sl), width = 0;
        for (spb_index r = sl * slice; r < sl * slice + rows; r++)
            if (B->row_ptr[r + 1] - B->row_ptr[r] > width)
                width = B->row_ptr[r + 1] - B->row_ptr[r];
        mismatches += S.width[sl] != width || S.ptr[sl] != padded;
        padded += (int64_t)rows * width;
    }
    CHECK(mismatches == 0 && S.ptr[S.nslices] == padded &&
              S.nslices == (B->brows + slice - 1) / slice,
          "%s b=%d slice %d: slice offsets or widths differ (%d)", label, (int)b, (int)slice,
          mismatches);
    double *x = malloc(sizeof *x * ((size_t)S.bcols * b + 1));
    for (spb_index j = 0; j < S.bcols * b; j++) x[j] = j < A->n ? 1.0 + 0.25 * (j % 7) : 0.0;
    for (spb_index row = 0; mismatches == 0 && row < A->m; row++) {
        spb_index brow = row / b, i = row % b, sl = brow / slice, r = brow % slice;
        spb_index rows = rows_of_slice(B, slice, sl);
        spb_index real = B->row_ptr[brow + 1] - B->row_ptr[brow];
        double sum = 0, want = 0;
        for (spb_index k = 0; k < S.width[sl]; k++) {
            spb_index c = S.col_idx[S.ptr[sl] + (int64_t)k * rows + r];
            for (spb_index j = 0; j < b; j++) {
                double v = S.val[(int64_t)S.ptr[sl] * b * b + ((int64_t)k * b + j) * rows * b +
                                 (int64_t)r * b + i];
                mismatches += k >= real && (c != 0 || v != 0.0);
                sum += v * x[(int64_t)c * b + j];
            }
        }
        for (spb_index j = 0; j < A->n; j++) want += dense[(size_t)row * A->n + j] * x[j];
        mismatches += fabs(sum - want) > 1e-12 * (1.0 + fabs(want));
    }
    CHECK(mismatches == 0, "%s b=%d slice %d: the product through the slices differs", label,
          (int)b, (int)slice);
    CHECK(bsr_sliced_stored(&S) == padded * b * b, "%s b=%d slice %d: %lld stored, expected %lld",
          label, (int)b, (int)slice, (long long)bsr_sliced_stored(&S), (long long)(padded * b * b));
    double want_bytes = 8.0 * padded * b * b + 4.0 * padded + 4.0 * (2.0 * S.nslices + 1) +
                        8.0 * b * ((double)B->brows + B->bcols);
    CHECK(bsr_sliced_spmv_bytes(&S, SPB_FP64) == want_bytes,
          "%s b=%d slice %d: %g bytes, expected %g", label, (int)b, (int)slice,
          bsr_sliced_spmv_bytes(&S, SPB_FP64), want_bytes);
    free(x);
    bsr_sliced_free(&S);
}

/* BSR at `block` against the dense copy: every block of the cut that holds
 * an entry stored once, ascending, each of its b*b slots the dense value (0
 * where A has none), and the count and byte model agreeing. */
static void check_bsr(const char *label, const spb_csr *A, const double *dense, spb_index block)
{
    char msg[SPB_MSG_LEN] = "";
    spb_bsr B;
    spb_status st = bsr_from_csr(A, block, &B, msg);
    CHECK(st == SPB_OK, "%s b=%d: %s", label, (int)block, msg);
    if (st != SPB_OK) return;
    spb_index brows = (A->m + block - 1) / block, bcols = (A->n + block - 1) / block;
    CHECK(B.brows == brows && B.bcols == bcols, "%s b=%d: %dx%d blocks, expected %dx%d", label,
          (int)block, (int)B.brows, (int)B.bcols, (int)brows, (int)bcols);
    char *occupied = calloc((size_t)brows * bcols + 1, 1);
    int expect_blocks = 0, mismatches = 0;
    for (spb_index i = 0; i < A->m; i++)
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            size_t at = (size_t)(i / block) * bcols + A->col_idx[k] / block;
            expect_blocks += !occupied[at];
            occupied[at] = 1;
        }
    CHECK(B.nblocks == expect_blocks && bsr_count_blocks(A, block) == expect_blocks,
          "%s b=%d: %d blocks stored, %lld counted, %d expected", label, (int)block, (int)B.nblocks,
          (long long)bsr_count_blocks(A, block), expect_blocks);
    for (spb_index br = 0; br < B.brows; br++)
        for (spb_index s = B.row_ptr[br]; s < B.row_ptr[br + 1]; s++) {
            spb_index bc = B.col_idx[s];
            mismatches +=
                !occupied[(size_t)br * bcols + bc] || (s > B.row_ptr[br] && B.col_idx[s - 1] >= bc);
            for (spb_index r = 0; r < block; r++)
                for (spb_index c = 0; c < block; c++) {
                    spb_index i = br * block + r, j = bc * block + c;
                    double want = i < A->m && j < A->n ? dense[(size_t)i * A->n + j] : 0.0;
                    mismatches += B.val[(int64_t)s * block * block + r * block + c] != want;
                }
        }
    CHECK(mismatches == 0, "%s b=%d: %d blocks or slots differ from CSR", label, (int)block,
          mismatches);
    double bytes = bsr_spmv_bytes(A, block, B.nblocks, SPB_FP64);
    double want_bytes = 8.0 * bsr_stored(&B) + 4.0 * B.nblocks + 4.0 * (brows + 1) +
                        8.0 * block * ((double)brows + bcols);
    CHECK(bytes == want_bytes, "%s b=%d: %g bytes, expected %g", label, (int)block, bytes,
          want_bytes);
    free(occupied);
    static const spb_index slices[] = {1, 3, 32};
    for (int k = 0; k < 3; k++) check_bsr_sliced(label, A, dense, &B, slices[k]);
    bsr_free(&B);
}

static void check_shape(const char *label, spb_rng *rng, spb_index m, spb_index n, spb_index nnz,
                        spb_index dense_row)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    random_coo(rng, m, n, nnz, dense_row, &coo);
    spb_csr A;
    spb_status st = csr_from_coo(&coo, &A, msg);
    CHECK(st == SPB_OK, "%s: %s", label, msg);
    if (st != SPB_OK) {
        coo_free(&coo);
        return;
    }
    CHECK(csr_check(&A, msg) == SPB_OK, "%s: %s", label, msg);
    CHECK(A.nnz == coo_distinct(&coo), "%s: nnz %d, distinct coordinates %d", label, (int)A.nnz,
          coo_distinct(&coo));
    double *dense = coo_dense(&coo);
    int mismatches = 0;
    for (spb_index i = 0; i < A.m; i++)
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
            mismatches += A.val[k] != dense[(size_t)i * A.n + A.col_idx[k]];
    CHECK(mismatches == 0, "%s: %d CSR values differ from the summed COO", label, mismatches);
    static const spb_index bsr_blocks[] = {1, 2, 3, 8};
    for (int b = 0; b < 4; b++) check_bsr(label, &A, dense, bsr_blocks[b]);
    free(dense);
    static const spb_index hack_sizes[] = {1, 7, 32};
    for (int h = 0; h < 3; h++) {
        check_hll(label, &A, hack_sizes[h], HLL_ROW_MAJOR);
        check_hll(label, &A, hack_sizes[h], HLL_COL_MAJOR);
    }
    csr_free(&A);
    coo_free(&coo);
}

static void test_shapes(unsigned long long seed)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    check_shape("0x0", &rng, 0, 0, 0, -1);
    check_shape("1x0", &rng, 1, 0, 0, -1);
    check_shape("0x1", &rng, 0, 1, 0, -1);
    check_shape("1x1", &rng, 1, 1, 3, -1);
    check_shape("all rows empty", &rng, 50, 40, 0, -1);
    check_shape("mostly empty rows", &rng, 200, 100, 20, -1);
    check_shape("one dense row", &rng, 64, 300, 10, 17);
    check_shape("wide", &rng, 5, 1000, 200, -1);
    check_shape("tall", &rng, 1000, 3, 500, -1);
    check_shape("rows not a multiple of 32 or 7", &rng, 32 * 3 + 5, 97, 900, 96);
    check_shape("column vector", &rng, 129, 1, 60, -1);
    for (int round = 0; round < 20; round++) {
        spb_index m = (spb_index)spb_rng_below(&rng, 300),
                  n = 1 + (spb_index)spb_rng_below(&rng, 300);
        spb_index nnz = (spb_index)spb_rng_below(&rng, 3000);
        check_shape("random", &rng, m, n, nnz, (spb_index)spb_rng_below(&rng, 400));
    }
}

static void test_checks_catch_breakage(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index row_ptr[] = {0, 2, 3}, col_idx[] = {1, 0, 2};
    spb_value val[] = {1, 2, 3};
    spb_csr A = {2, 3, 3, row_ptr, col_idx, val, 0, NULL};
    CHECK(csr_check(&A, msg) != SPB_OK, "unsorted row accepted");
    CHECK(strstr(msg, "row 0") != NULL, "message '%s' does not name row 0", msg);
    col_idx[0] = 0;
    col_idx[1] = 1;
    msg[0] = '\0';
    CHECK(csr_check(&A, msg) == SPB_OK, "valid CSR rejected: %s", msg);
    col_idx[2] = 3;
    msg[0] = '\0';
    CHECK(csr_check(&A, msg) != SPB_OK, "column beyond n accepted");
    col_idx[2] = 2;
    row_ptr[2] = 2;
    msg[0] = '\0';
    CHECK(csr_check(&A, msg) != SPB_OK, "row_ptr[m] != nnz accepted");
    row_ptr[2] = 3;

    spb_hll H;
    CHECK(hll_from_csr(&A, 0, HLL_ROW_MAJOR, &H, msg) == SPB_ERR_INVALID, "hack size 0 accepted");
    msg[0] = '\0';
    CHECK(hll_from_csr(&A, 4, HLL_ROW_MAJOR, &H, msg) == SPB_OK, "%s", msg);
    H.val[H.hack_ptr[1] - 1] = 5.0; /* row 1's padding slot */
    CHECK(hll_check(&H, msg) != SPB_OK, "nonzero padding accepted");
    hll_free(&H);
}

/* Byte models pinned on a hand-counted 3x4 matrix:
 *   [1 0 2 0]
 *   [0 0 0 0]
 *   [0 3 0 4]   nnz 4, longest row 2. */
static void test_bytes_and_stats(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index row_ptr[] = {0, 2, 2, 4}, col_idx[] = {0, 2, 1, 3};
    spb_value val[] = {1, 2, 3, 4};
    spb_csr A = {3, 4, 4, row_ptr, col_idx, val, 0, NULL};
    /* 12*nnz + 4*(m+1) + 8*n + 8*m = 48 + 16 + 32 + 24 */
    CHECK(csr_spmv_bytes(&A, SPB_FP64) == 120.0, "CSR bytes %g, expected 120",
          csr_spmv_bytes(&A, SPB_FP64));
    spb_hll H;
    CHECK(hll_from_csr(&A, 2, HLL_COL_MAJOR, &H, msg) == SPB_OK, "%s", msg);
    /* hacks: rows {0,1} width 2 -> 4 slots; row {2} width 2 -> 2 slots;
     * 12*6 + 4*(2+1) + 4*2 + 8*4 + 8*3 = 72 + 12 + 8 + 32 + 24 */
    CHECK(hll_stored(&H) == 6, "HLL stored %d, expected 6", (int)hll_stored(&H));
    CHECK(hll_spmv_bytes(&H, SPB_FP64) == 148.0, "HLL bytes %g, expected 148",
          hll_spmv_bytes(&H, SPB_FP64));
    /* no values: 148 - 8*6; fp32: 4*6 + 12 + 8 + 4*4 + 4*3 */
    CHECK(hll_pattern_spmv_bytes(&H, SPB_FP64) == 100.0, "HLL pattern bytes %g, expected 100",
          hll_pattern_spmv_bytes(&H, SPB_FP64));
    CHECK(hll_pattern_spmv_bytes(&H, SPB_FP32) == 72.0, "HLL pattern fp32 bytes %g, expected 72",
          hll_pattern_spmv_bytes(&H, SPB_FP32));
    /* 16-bit columns: steps {2, 2}, a base each: 10*6 + 4*4 + 4*(2*2+1) + 8*4 + 8*3; no
     * values: 152 - 8*6; fp32 without values: 2*6 + 16 + 20 + 4*4 + 4*3 */
    spb_hll_narrow N;
    CHECK(hll_narrow_from_csr(&A, 2, &N, msg) == SPB_OK, "%s", msg);
    CHECK(hll_narrow_spmv_bytes(&N, A.m, A.n, SPB_FP64) == 152.0 &&
              hll_narrow_pattern_spmv_bytes(&N, A.m, A.n, SPB_FP64) == 104.0 &&
              hll_narrow_pattern_spmv_bytes(&N, A.m, A.n, SPB_FP32) == 76.0,
          "narrow HLL bytes %g, pattern %g, pattern fp32 %g; expected 152, 104, 76",
          hll_narrow_spmv_bytes(&N, A.m, A.n, SPB_FP64),
          hll_narrow_pattern_spmv_bytes(&N, A.m, A.n, SPB_FP64),
          hll_narrow_pattern_spmv_bytes(&N, A.m, A.n, SPB_FP32));
    hll_narrow_free(&N);
    hll_free(&H);
    spb_sell S;
    CHECK(sell_from_csr(&A, 2, &S, msg) == SPB_OK, "%s", msg);
    CHECK(sell_check(&S, msg) == SPB_OK, "%s", msg);
    /* slices: rows {0,1} width 2 -> 4 slots; rows {2, padding} width 2 -> 4;
     * 12*8 + 4*(2+1) + 8*4 + 8*3 = 96 + 12 + 32 + 24 */
    CHECK(sell_stored(&S) == 8, "SELL stored %d, expected 8", (int)sell_stored(&S));
    CHECK(sell_spmv_bytes(&S, SPB_FP64) == 164.0, "SELL bytes %g, expected 164",
          sell_spmv_bytes(&S, SPB_FP64));
    /* slice 1 column-major: row 2's entries (1, 3), then the padding row */
    CHECK(S.col_idx[4] == 1 && S.col_idx[5] == -1 && S.col_idx[6] == 3 && S.col_idx[7] == -1,
          "SELL slice 1 columns %d %d %d %d", (int)S.col_idx[4], (int)S.col_idx[5],
          (int)S.col_idx[6], (int)S.col_idx[7]);
    S.val[5] = 1.0; /* a nonzero in padding must be caught */
    msg[0] = '\0';
    CHECK(sell_check(&S, msg) == SPB_ERR_INVALID && strstr(msg, "padding"), "SELL check: %s", msg);
    sell_free(&S);
    spb_csr_stats s;
    csr_stats(&A, &s);
    CHECK(s.rows == 3 && s.cols == 4 && s.nnz == 4, "stats sizes");
    CHECK(s.row_min == 0 && s.row_max == 2 && s.empty_rows == 1, "stats min %d max %d empty %d",
          (int)s.row_min, (int)s.row_max, (int)s.empty_rows);
    CHECK(fabs(s.row_mean - 4.0 / 3) < 1e-15, "row mean %g", s.row_mean);
    CHECK(fabs(s.row_std - sqrt(8.0 / 9)) < 1e-15, "row std %g, expected %g", s.row_std,
          sqrt(8.0 / 9));
    /* what the auto kernels read: hack 2 stores 6 slots for 4 entries; the
     * non-empty rows span columns 0..2 and 1..3 */
    spb_csr_shape f;
    csr_shape(&A, 2, &f);
    CHECK(f.padding == 1.5 && f.span == 3.0 && !f.pattern, "shape: padding %g span %g pattern %d",
          f.padding, f.span, f.pattern);
    CHECK(fabs(f.cv - sqrt(8.0 / 9) / (4.0 / 3)) < 1e-15, "shape: cv %g", f.cv);
    for (int k = 0; k < 4; k++) val[k] = -2.0;
    csr_shape(&A, 3, &f);
    CHECK(f.pattern && f.padding == 1.5, "shape, all values equal: pattern %d padding %g",
          f.pattern, f.padding);
    /* two column panels: 12*nnz + 4*(m+1)*2 + 8*n + 8*m*3 = 48 + 32 + 32 + 72 */
    CHECK(csr_col_panels_spmv_bytes(3, 4, 4, 2, SPB_FP64) == 184.0, "panel bytes %g, expected 184",
          csr_col_panels_spmv_bytes(3, 4, 4, 2, SPB_FP64));
}

/* A CSR matrix with the given row lengths, columns 0.. in each row. */
static void rows_of(spb_csr *A, spb_index m, const spb_index *lengths)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index nnz = 0, n = 1;
    for (spb_index i = 0; i < m; i++) {
        nnz += lengths[i];
        if (lengths[i] > n) n = lengths[i];
    }
    CHECK(csr_alloc(A, m, n, nnz, msg) == SPB_OK, "%s", msg);
    A->row_ptr[0] = 0;
    for (spb_index i = 0; i < m; i++) {
        A->row_ptr[i + 1] = A->row_ptr[i] + lengths[i];
        for (spb_index j = 0; j < lengths[i]; j++) {
            A->col_idx[A->row_ptr[i] + j] = j;
            A->val[A->row_ptr[i] + j] = 1.0;
        }
    }
}

/* The scatter auto.cuda reads: rows of 64 consecutive columns share a
 * sector every 4 entries; the same rows spread 4 columns apart share none;
 * fewer than 32 entries measure nothing. */
static void test_scatter(void)
{
    spb_index lengths[100];
    spb_csr A;
    spb_csr_shape f;
    for (int i = 0; i < 100; i++) lengths[i] = 64;
    rows_of(&A, 100, lengths);
    csr_shape(&A, 32, &f);
    CHECK(f.scatter == 0.25, "consecutive columns: scatter %g, expected 0.25", f.scatter);
    for (spb_index k = 0; k < A.nnz; k++) A.col_idx[k] *= 4;
    A.n = 4 * 64;
    csr_shape(&A, 32, &f);
    CHECK(f.scatter == 1.0, "columns 4 apart: scatter %g, expected 1", f.scatter);
    csr_free(&A);
    rows_of(&A, 1, lengths);
    A.row_ptr[1] = A.nnz = 31;
    csr_shape(&A, 32, &f);
    CHECK(f.scatter == 0.0, "31 entries: scatter %g, expected 0", f.scatter);
    csr_free(&A);
}

/* The tiles cover the rows in order, each within `items` entries and
 * `max_rows` rows unless it is one row, and no row longer than `alone`
 * shares a tile. */
static void check_tiles(const char *label, const spb_csr *A, int64_t items, spb_index max_rows,
                        int64_t alone, const spb_index *tile_row, spb_index tiles)
{
    CHECK(tile_row[0] == 0 && tile_row[tiles] == A->m, "%s: tiles cover rows %d..%d of %d", label,
          (int)tile_row[0], (int)tile_row[tiles], (int)A->m);
    for (spb_index t = 0; t < tiles; t++) {
        const spb_index r0 = tile_row[t], rows = tile_row[t + 1] - r0;
        const int64_t entries = A->row_ptr[r0 + rows] - A->row_ptr[r0];
        CHECK(rows >= 1, "%s: tile %d is empty", label, (int)t);
        if (rows == 1) continue;
        CHECK(rows <= max_rows && entries <= items, "%s: tile %d holds %d rows, %lld entries",
              label, (int)t, (int)rows, (long long)entries);
        for (spb_index i = r0; i < r0 + rows; i++)
            CHECK(A->row_ptr[i + 1] - A->row_ptr[i] <= alone,
                  "%s: row %d of %d entries shares tile %d", label, (int)i,
                  (int)(A->row_ptr[i + 1] - A->row_ptr[i]), (int)t);
    }
}

/* csr.cuda.stream's tiles: a long row among short ones is a tile alone;
 * rows all long keep tiles of several; the invariants on random shapes. */
static void test_row_tiles(unsigned long long seed)
{
    spb_index lengths[300], tile_row[301] = {0};
    spb_csr A;
    for (int i = 0; i < 300; i++) lengths[i] = i == 7 ? 300 : 4; /* mean 5 */
    rows_of(&A, 300, lengths);
    int64_t alone = csr_tile_alone(&A, 1024);
    spb_index tiles = csr_row_tiles(&A, 1024, 256, alone, tile_row);
    CHECK(alone == CSR_TILE_ALONE, "one long row among short ones: alone at %lld",
          (long long)alone);
    CHECK(tiles == 4 && tile_row[1] == 7 && tile_row[2] == 8 && tile_row[3] == 264,
          "one long row among short ones: %d tiles, from rows %d %d %d", (int)tiles,
          (int)tile_row[1], (int)tile_row[2], (int)tile_row[3]);
    check_tiles("one long row", &A, 1024, 256, alone, tile_row, tiles);
    csr_free(&A);
    for (int i = 0; i < 50; i++) lengths[i] = 200;
    rows_of(&A, 50, lengths);
    alone = csr_tile_alone(&A, 1024);
    tiles = csr_row_tiles(&A, 1024, 256, alone, tile_row);
    CHECK(alone == 4 * 200 && tiles == 10, "rows all of 200: alone at %lld, %d tiles",
          (long long)alone, (int)tiles);
    CHECK(csr_tile_alone(&A, 512) == 512, "alone beyond a tile: %lld",
          (long long)csr_tile_alone(&A, 512));
    csr_free(&A);
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    for (int round = 0; round < 20; round++) {
        const spb_index m = 1 + (spb_index)spb_rng_below(&rng, 300);
        for (spb_index i = 0; i < m; i++)
            lengths[i] = (spb_index)(spb_rng_below(&rng, 4) ? spb_rng_below(&rng, 20)
                                                            : spb_rng_below(&rng, 3000));
        rows_of(&A, m, lengths);
        const int64_t items = 32 << spb_rng_below(&rng, 6);
        const spb_index max_rows = 1 + (spb_index)spb_rng_below(&rng, 256);
        alone = csr_tile_alone(&A, items);
        tiles = csr_row_tiles(&A, items, max_rows, alone, tile_row);
        check_tiles("random lengths", &A, items, max_rows, alone, tile_row, tiles);
        csr_free(&A);
    }
}

/* A random permutation of 0..m-1 (Fisher-Yates). */
static void shuffled(spb_rng *rng, spb_index m, spb_index *perm)
{
    for (spb_index i = 0; i < m; i++) perm[i] = i;
    for (spb_index i = m - 1; i > 0; i--) {
        spb_index j = (spb_index)spb_rng_below(rng, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

/* The CSR of `count` entries (row[k], col[k]), values 1..count. */
static void csr_of_entries(spb_index m, spb_index count, const spb_index *row, const spb_index *col,
                           spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    coo_alloc(&coo, m, m, count, msg);
    for (spb_index k = 0; k < count; k++) {
        coo.row[k] = row[k];
        coo.col[k] = col[k];
        coo.val[k] = k + 1;
    }
    CHECK(csr_from_coo(&coo, A, msg) == SPB_OK, "%s", msg);
    coo_free(&coo);
}

/* order is a permutation of 0..m-1. */
static int is_permutation(spb_index m, const spb_index *order)
{
    char *seen = calloc((size_t)m + 1, 1);
    int ok = 1;
    for (spb_index i = 0; i < m && ok; i++) {
        ok = order[i] >= 0 && order[i] < m && !seen[order[i]];
        if (ok) seen[order[i]] = 1;
    }
    free(seen);
    return ok;
}

/* How many vertices break Cuthill-McKee's rule in `order` (reversed: the
 * Cuthill-McKee order) for the graph A + A^T without its diagonal, held
 * dense in `adj` (m x m): each vertex but a part's first is placed by its
 * first-placed neighbour, the children of a vertex in a run after those of
 * the vertices placed before it, by rising degree and then index. */
static int cuthill_mckee_breaks(spb_index m, const char *adj, const spb_index *order)
{
    spb_index *pos = malloc(sizeof *pos * (size_t)m), *degree = calloc((size_t)m, sizeof *degree);
    int64_t *key = malloc(sizeof *key * (size_t)m * 3);
    for (spb_index p = 0; p < m; p++) pos[order[m - 1 - p]] = p;
    for (spb_index v = 0; v < m; v++)
        for (spb_index u = 0; u < m; u++) degree[v] += adj[(size_t)v * m + u];
    spb_index children = 0;
    for (spb_index u = 0; u < m; u++) {
        spb_index parent = -1;
        for (spb_index w = 0; w < m; w++)
            if (adj[(size_t)u * m + w] && pos[w] < pos[u] && (parent < 0 || pos[w] < pos[parent]))
                parent = w;
        if (parent < 0) continue; /* a part's first vertex */
        key[3 * children] = pos[parent];
        key[3 * children + 1] = ((int64_t)degree[u] << 32) | u;
        key[3 * children++ + 2] = pos[u];
    }
    /* the children by (parent's place, degree, index): their places must rise */
    for (spb_index a = 1; a < children; a++)
        for (spb_index b = a;
             b > 0 && (key[3 * (b - 1)] > key[3 * b] ||
                       (key[3 * (b - 1)] == key[3 * b] && key[3 * (b - 1) + 1] > key[3 * b + 1]));
             b--)
            for (int f = 0; f < 3; f++) {
                const int64_t t = key[3 * b + f];
                key[3 * b + f] = key[3 * (b - 1) + f];
                key[3 * (b - 1) + f] = t;
            }
    int breaks = 0;
    for (spb_index a = 1; a < children; a++) breaks += key[3 * a + 2] < key[3 * (a - 1) + 2];
    free(pos);
    free(degree);
    free(key);
    return breaks;
}

/* Cuthill-McKee's rule holds on random graphs with hubs: a hub's many new
 * neighbours and a plain vertex's few are each placed by rising degree. */
static void test_rcm_children(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    enum { M = 600 };
    char *adj = calloc((size_t)M * M, 1);
    spb_index row[4000], col[4000], order[M];
    for (int round = 0; round < 3; round++) {
        spb_index count = 0;
        memset(adj, 0, (size_t)M * M);
        for (; count < 1200; count++) /* random edges, then three hubs */
            row[count] = (spb_index)spb_rng_below(&rng, M),
            col[count] = (spb_index)spb_rng_below(&rng, M);
        for (spb_index hub = 0; hub < 3; hub++)
            for (spb_index k = 0; k < 150; k++)
                row[count] = hub * 200, col[count++] = (spb_index)spb_rng_below(&rng, M);
        for (spb_index k = 0; k < count; k++)
            if (row[k] != col[k])
                adj[(size_t)row[k] * M + col[k]] = adj[(size_t)col[k] * M + row[k]] = 1;
        spb_csr A;
        csr_of_entries(M, count, row, col, &A);
        CHECK(csr_rcm_order(&A, order, msg) == SPB_OK, "%s", msg);
        CHECK(is_permutation(M, order), "round %d: not a permutation", round);
        const int breaks = cuthill_mckee_breaks(M, adj, order);
        CHECK(breaks == 0, "round %d: %d vertices out of Cuthill-McKee's order", round, breaks);
        csr_free(&A);
    }
    free(adj);
}

/* A's reverse Cuthill-McKee order at 1 thread into one and at 3 into
 * three (m entries each); whether they agree. */
static int rcm_same_at_1_and_3(const spb_csr *A, spb_index *one, spb_index *three)
{
    char msg[SPB_MSG_LEN] = "";
    const int before = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK(csr_rcm_order(A, one, msg) == SPB_OK, "%s", msg);
    omp_set_num_threads(3);
    CHECK(csr_rcm_order(A, three, msg) == SPB_OK, "%s", msg);
    omp_set_num_threads(before);
    return !memcmp(one, three, sizeof *one * (size_t)A->m);
}

/* George-Liu's start on levels wide enough for the threads: vertex 0 joined
 * to 2,000 middle vertices, each with a leaf of its own (numbers shuffled):
 * the leaves are the last level, all of degree 1, and the search moves to
 * the lowest numbered of them, which the order (reversed) ends with, the
 * same at 1 and 3 threads whatever order the threads reach the leaves in. */
static void test_rcm_wide_levels(unsigned long long seed)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    enum { ARMS = 2000, M = 1 + 2 * ARMS };
    spb_index *label = malloc(sizeof *label * M), *row = malloc(sizeof *row * 2 * ARMS),
              *col = malloc(sizeof *col * 2 * ARMS), *one = malloc(sizeof *one * M),
              *three = malloc(sizeof *three * M);
    shuffled(&rng, M - 1, label);
    spb_index count = 0, lowest_leaf = M;
    for (spb_index a = 0; a < ARMS; a++) {
        const spb_index middle = 1 + label[a], leaf = 1 + label[ARMS + a];
        row[count] = 0, col[count++] = middle;
        row[count] = middle, col[count++] = leaf;
        if (leaf < lowest_leaf) lowest_leaf = leaf;
    }
    spb_csr A;
    csr_of_entries(M, count, row, col, &A);
    const int same = rcm_same_at_1_and_3(&A, one, three);
    CHECK(one[M - 1] == lowest_leaf, "the walk starts at %d, not at the lowest leaf %d",
          (int)one[M - 1], (int)lowest_leaf);
    CHECK(same, "wide levels: the order differs at 3 threads");
    csr_free(&A);
    free(label);
    free(row);
    free(col);
    free(one);
    free(three);
}

/* csr.cuda.stream.rcm's ordering: reverse Cuthill-McKee gives a grid whose
 * numbering was shuffled back a narrow band, and two paths numbered in
 * turns (entries one way only: A + A^T is the graph) a band of 1, parts
 * and lone vertices included; csr_permute is B(i, j) = A(order[i], order[j]). */
static void test_rcm(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    enum { K = 30, GRID = K * K };
    spb_index label[GRID], row[4 * GRID], col[4 * GRID], order[GRID], count = 0;
    shuffled(&rng, GRID, label);
    for (int i = 0; i < K; i++)
        for (int j = 0; j < K; j++) {
            const spb_index v = label[i * K + j];
            row[count] = v, col[count++] = v;
            if (i + 1 < K) row[count] = v, col[count++] = label[(i + 1) * K + j];
            if (j + 1 < K) row[count] = v, col[count++] = label[i * K + j + 1];
        }
    spb_csr A, B;
    csr_of_entries(GRID, count, row, col, &A);
    CHECK(csr_rcm_order(&A, order, msg) == SPB_OK, "%s", msg);
    CHECK(is_permutation(GRID, order), "the grid's order is not a permutation");
    CHECK(csr_permute(&A, order, &B, msg) == SPB_OK, "%s", msg);
    CHECK(csr_bandwidth(&A) > 8 * K && csr_bandwidth(&B) <= 2 * K,
          "a shuffled %dx%d grid: band %d, after the ordering %d (at most %d)", K, K,
          (int)csr_bandwidth(&A), (int)csr_bandwidth(&B), 2 * K);
    csr_free(&A);
    csr_free(&B);

    /* two paths of 40 in turns (0-2-4-..., 1-3-5-...), then 5 lone vertices */
    count = 0;
    for (spb_index v = 0; v + 2 < 80; v++) row[count] = v + 2, col[count++] = v;
    csr_of_entries(85, count, row, col, &A);
    CHECK(csr_rcm_order(&A, order, msg) == SPB_OK, "%s", msg);
    CHECK(is_permutation(85, order), "the paths' order is not a permutation");
    CHECK(csr_permute(&A, order, &B, msg) == SPB_OK, "%s", msg);
    CHECK(csr_bandwidth(&A) == 2 && csr_bandwidth(&B) == 1,
          "two paths in turns: band %d, after the ordering %d", (int)csr_bandwidth(&A),
          (int)csr_bandwidth(&B));
    csr_free(&A);
    csr_free(&B);

    for (int round = 0; round < 20; round++) {
        const spb_index m = 1 + (spb_index)spb_rng_below(&rng, 200);
        spb_coo coo;
        random_coo(&rng, m, m, (spb_index)spb_rng_below(&rng, 2000),
                   (spb_index)spb_rng_below(&rng, 400), &coo);
        CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
        if (round % 2)
            shuffled(&rng, m, order);
        else
            CHECK(csr_rcm_order(&A, order, msg) == SPB_OK, "%s", msg);
        CHECK(is_permutation(m, order), "random %d: the order is not a permutation", (int)m);
        CHECK(csr_permute(&A, order, &B, msg) == SPB_OK && csr_check(&B, msg) == SPB_OK,
              "random %d: %s", (int)m, msg);
        double *dense = coo_dense(&coo);
        int wrong = B.nnz != A.nnz;
        for (spb_index i = 0; i < m; i++)
            for (spb_index k = B.row_ptr[i]; k < B.row_ptr[i + 1]; k++)
                wrong += B.val[k] != dense[(size_t)order[i] * m + order[B.col_idx[k]]];
        CHECK(wrong == 0, "random %d: %d entries of P A P^T differ", (int)m, wrong);
        free(dense);
        csr_free(&B);
        csr_free(&A);
        coo_free(&coo);
    }
    spb_index rect_ptr[] = {0, 0, 0};
    spb_csr wide = {2, 3, 0, rect_ptr, NULL, NULL, 0, NULL};
    CHECK(csr_rcm_order(&wide, order, msg) == SPB_ERR_INVALID, "a 2 x 3 matrix is refused");

    /* the graph is built on the OpenMP threads: the same order at 1 and 3 */
    spb_coo coo;
    random_coo(&rng, 40000, 40000, 400000, 20000, &coo);
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    spb_index *one = malloc(sizeof *one * 40000), *three = malloc(sizeof *three * 40000);
    const int same = rcm_same_at_1_and_3(&A, one, three);
    CHECK(is_permutation(40000, three) && same, "the order differs at 3 threads");
    free(one);
    free(three);
    csr_free(&A);
    coo_free(&coo);
}

/* csr_sort_rows: each row by column with its values along (a complex
 * entry's two parts together), short rows (insertion) and long ones
 * (qsort) alike, at 1 and 3 threads. */
static void test_sort_rows(void)
{
    char msg[SPB_MSG_LEN] = "";
    enum { LONG = 70 }; /* past sort_row's insertion length */
    for (int threads = 1; threads <= 3; threads += 2) {
        int before = omp_get_max_threads();
        omp_set_num_threads(threads);
        spb_csr Z;
        CHECK(csr_alloc_complex(&Z, 3, LONG, 3 + LONG, msg) == SPB_OK, "%s", msg);
        Z.row_ptr[1] = 3, Z.row_ptr[2] = 3, Z.row_ptr[3] = 3 + LONG; /* rows of 3, 0, LONG */
        const spb_index first[] = {4, 0, 2};
        for (int k = 0; k < 3; k++) Z.col_idx[k] = first[k];
        for (int k = 0; k < LONG; k++) Z.col_idx[3 + k] = (spb_index)((k * 37) % LONG);
        for (int k = 0; k < 3 + LONG; k++) {
            Z.val[2 * k] = 10.0 * Z.col_idx[k] + (k < 3 ? 0 : 1); /* re: its column */
            Z.val[2 * k + 1] = -Z.val[2 * k];                     /* im: re negated */
        }
        CHECK(csr_sort_rows(&Z, msg) == SPB_OK, "%s", msg);
        int wrong = 0;
        for (spb_index i = 0; i < 3; i++)
            for (spb_index k = Z.row_ptr[i]; k < Z.row_ptr[i + 1]; k++)
                wrong += (k > Z.row_ptr[i] && Z.col_idx[k - 1] >= Z.col_idx[k]) ||
                         Z.val[2 * k] != 10.0 * Z.col_idx[k] + (i == 0 ? 0 : 1) ||
                         Z.val[2 * k + 1] != -Z.val[2 * k];
        CHECK(wrong == 0 && Z.col_idx[0] == 0 && Z.col_idx[2] == 4 && Z.col_idx[3] == 0 &&
                  Z.col_idx[2 + LONG] == LONG - 1,
              "%d threads: %d entries out of place or parted from their values", threads, wrong);
        csr_free(&Z);
        omp_set_num_threads(before);
    }
}

/* The format set builds each (format, hack size) once and hands back the
 * same object; dropping a kind frees it and the next request rebuilds. */
static void test_format_set(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index row_ptr[] = {0, 2, 2, 4}, col_idx[] = {0, 2, 1, 3};
    spb_value val[] = {1, 2, 3, 4};
    spb_csr A = {3, 4, 4, row_ptr, col_idx, val, 0, NULL};
    spb_format_set F;
    format_set_init(&F, &A);
    const spb_hll *h1, *h2, *h3;
    const spb_sell *s1, *s2;
    CHECK(format_set_hll(&F, HLL_ROW_MAJOR, 2, SPB_FP64, &h1, msg) == SPB_OK, "%s", msg);
    CHECK(format_set_hll(&F, HLL_ROW_MAJOR, 2, SPB_FP64, &h2, msg) == SPB_OK, "%s", msg);
    CHECK(h1 == h2 && F.conversions == 1, "the same HLL twice: %d conversions", F.conversions);
    CHECK(format_set_hll(&F, HLL_COL_MAJOR, 2, SPB_FP64, &h3, msg) == SPB_OK, "%s", msg);
    CHECK(h3 != h1 && h3->layout == HLL_COL_MAJOR, "column-major is its own format");
    CHECK(format_set_hll(&F, HLL_ROW_MAJOR, 3, SPB_FP64, &h2, msg) == SPB_OK, "%s", msg);
    CHECK(h2->hack_size == 3 && F.conversions == 3, "another hack size is another format");
    CHECK(format_set_sell(&F, 2, &s1, msg) == SPB_OK, "%s", msg);
    CHECK(format_set_sell(&F, 2, &s2, msg) == SPB_OK && s1 == s2, "SELL once");
    CHECK(F.conversions == 4 && F.used == 4, "4 formats built, %d", F.conversions);
    format_set_keep(&F, 1u << SPB_FORMAT_SELL);
    CHECK(F.used == 1 && F.slots[0].kind == SPB_FORMAT_SELL, "only SELL kept");
    CHECK(format_set_hll(&F, HLL_ROW_MAJOR, 2, SPB_FP64, &h1, msg) == SPB_OK, "%s", msg);
    CHECK(F.conversions == 5, "a dropped format is rebuilt on request");
    CHECK(format_kind_of("hll.col") == SPB_FORMAT_HLL_COL && format_kind_of("rsb") == -1 &&
              format_kind_of("bsr") == SPB_FORMAT_BSR &&
              format_kind_of("csr.rcm") == SPB_FORMAT_RCM &&
              format_kind_of("csr.rcm.pattern") == SPB_FORMAT_RCM &&
              format_kind_of("csr.pattern") == SPB_FORMAT_CSR && format_kind_of(".pattern") == -1 &&
              format_kind_of("csr.rcm.") == -1 && format_kind_of("csr.rcm.patterns") == -1,
          "format names");
    format_set_free(&F);
    CHECK(F.used == 0, "freed");
}

/* The fp32 copy of a large matrix's values, made on the threads: each
 * value rounded, and where two are past fp32's range the first in row
 * order named, at 1 and 3 threads (a complex matrix: by its entry). */
static void test_values32_threads(void)
{
    enum { M = 200003 };
    char msg[SPB_MSG_LEN] = "";
    for (int cx = 0; cx <= 1; cx++) {
        spb_csr A;
        CHECK((cx ? csr_alloc_complex(&A, M, M, M, msg) : csr_alloc(&A, M, M, M, msg)) == SPB_OK,
              "%s", msg);
        const size_t w = cx ? 2 : 1;
        for (spb_index i = 0; i < M; i++) {
            A.row_ptr[i + 1] = i + 1;
            A.col_idx[i] = M - 1 - i;
            for (size_t q = 0; q < w; q++) A.val[(size_t)i * w + q] = 1.0 / 3.0 + i + 0.25 * q;
        }
        spb_format_set F;
        format_set_init(&F, &A);
        const float *v32 = NULL;
        CHECK(format_set_csr_values32(&F, &v32, msg) == SPB_OK, "%s", msg);
        int same = v32 != NULL;
        for (size_t k = 0; same && k < (size_t)M * w; k++) same = v32[k] == (float)A.val[k];
        CHECK(same, "complex %d: every value rounded to fp32", cx);
        format_set_free(&F);
        A.val[(size_t)170000 * w] = 1e39;
        A.val[(size_t)150001 * w + w - 1] = -1e39;
        for (int threads = 1; threads <= 3; threads += 2) {
            int before = omp_get_max_threads();
            omp_set_num_threads(threads);
            format_set_init(&F, &A);
            msg[0] = '\0';
            spb_status st = format_set_csr_values32(&F, &v32, msg);
            format_set_free(&F);
            omp_set_num_threads(before);
            char expect[64];
            snprintf(expect, sizeof expect, "at (150002, %d) overflows fp32", M - 150001);
            CHECK(st == SPB_ERR_DECLINED && strstr(msg, expect) && strstr(msg, "value -9.99999"),
                  "complex %d, %d threads: the first overflow named: %s", cx, threads, msg);
        }
        csr_free(&A);
    }
}

/* The rows on BSR share one cut per block size: the block size chosen once
 * per value width (bsr_best_block's), the BSR converted once and handed to
 * both precisions where they choose the same size, dropped with its kind. */
static void test_format_set_bsr(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    /* 3 unknowns a node: both widths choose 3x3 blocks */
    CHECK(gen_matrix("gen:fem:5:3", &A, msg) == SPB_OK, "%s", msg);
    spb_format_set F;
    format_set_init(&F, &A);
    int64_t blocks64, blocks32, expect;
    const spb_index b64 = format_set_bsr_block(&F, SPB_FP64, &blocks64);
    const spb_index b32 = format_set_bsr_block(&F, SPB_FP32, &blocks32);
    const spb_index best = bsr_best_block(&A, SPB_FP64, &expect);
    CHECK(b64 == best && blocks64 == expect && b64 == 3, "fp64 chooses %d (%d expected, 3)",
          (int)b64, (int)best);
    CHECK(b32 == bsr_best_block(&A, SPB_FP32, &expect) && blocks32 == expect, "fp32 chooses %d",
          (int)b32);
    const spb_bsr *p64, *p32, *again;
    CHECK(format_set_bsr(&F, SPB_FP64, &p64, msg) == SPB_OK, "%s", msg);
    CHECK(format_set_bsr(&F, SPB_FP32, &p32, msg) == SPB_OK, "%s", msg);
    CHECK(format_set_bsr(&F, SPB_FP64, &again, msg) == SPB_OK, "%s", msg);
    CHECK(p64 == p32 && p64 == again && F.conversions == 1 && F.used == 1,
          "one BSR for three requests: %d conversions", F.conversions);
    CHECK(p64->block == b64 && p64->nblocks == blocks64, "the BSR at the chosen size");
    spb_bsr own;
    CHECK(bsr_from_csr(&A, b64, &own, msg) == SPB_OK, "%s", msg);
    CHECK(own.nblocks == p64->nblocks &&
              !memcmp(own.row_ptr, p64->row_ptr, sizeof *own.row_ptr * ((size_t)own.brows + 1)) &&
              !memcmp(own.col_idx, p64->col_idx, sizeof *own.col_idx * (size_t)own.nblocks) &&
              !memcmp(own.val, p64->val, sizeof *own.val * (size_t)bsr_stored(&own)),
          "the set's BSR is bsr_from_csr's");
    bsr_free(&own);
    format_set_keep(&F, 1u << SPB_FORMAT_CSR);
    CHECK(F.used == 0, "BSR dropped with its kind");
    CHECK(format_set_bsr(&F, SPB_FP64, &p64, msg) == SPB_OK && F.conversions == 2,
          "a dropped BSR is rebuilt on request: %d conversions", F.conversions);
    format_set_free(&F);
    csr_free(&A);
}

/* Whether two CSR matrices are the same, bit for bit (real or complex). */
static int csr_same(const spb_csr *A, const spb_csr *B)
{
    const size_t w = csr_values_per_entry(A);
    return A->m == B->m && A->n == B->n && A->nnz == B->nnz &&
           A->complex_values == B->complex_values &&
           !memcmp(A->row_ptr, B->row_ptr, sizeof *A->row_ptr * ((size_t)A->m + 1)) &&
           !memcmp(A->col_idx, B->col_idx, sizeof *A->col_idx * (size_t)A->nnz) &&
           !memcmp(A->val, B->val, sizeof *A->val * w * (size_t)A->nnz);
}

/* The rows on the renumbered CSR share one ordering per matrix: made on
 * the first request, the same object for the next (either precision),
 * csr_renumber_rcm's, dropped with its kind; a rectangular matrix is
 * declined, not refused as invalid; the copy asks for its room first. */
static void test_format_set_rcm(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    CHECK(gen_matrix("gen:rmat:9:8", &A, msg) == SPB_OK, "%s", msg);
    spb_format_set F;
    format_set_init(&F, &A);
    const spb_renumbered *first, *again;
    CHECK(format_set_rcm(&F, &first, msg) == SPB_OK, "%s", msg);
    CHECK(format_set_rcm(&F, &again, msg) == SPB_OK, "%s", msg);
    CHECK(first == again && F.conversions == 1 && F.used == 1,
          "one renumbering for two requests: %d conversions", F.conversions);
    spb_renumbered own;
    CHECK(csr_renumber_rcm(&A, &own, msg) == SPB_OK, "%s", msg);
    CHECK(is_permutation(A.m, first->order) &&
              !memcmp(own.order, first->order, sizeof *own.order * (size_t)A.m) &&
              first->csr.nnz == A.nnz && csr_same(&own.csr, &first->csr),
          "the set's renumbering is csr_renumber_rcm's");
    int moved = 0; /* B(i, j) = A(order[i], order[j]): row i's length is A's row order[i]'s */
    for (spb_index i = 0; i < A.m; i++)
        moved += first->csr.row_ptr[i + 1] - first->csr.row_ptr[i] !=
                 A.row_ptr[first->order[i] + 1] - A.row_ptr[first->order[i]];
    CHECK(moved == 0, "%d rows of the renumbered matrix have another row's length", moved);
    renumbered_free(&own);
    format_set_keep(&F, 1u << SPB_FORMAT_BSR);
    CHECK(F.used == 0, "the renumbering dropped with its kind");
    CHECK(format_set_rcm(&F, &first, msg) == SPB_OK && F.conversions == 2,
          "a dropped renumbering is made again on request: %d conversions", F.conversions);
    setenv("SPB_MEMORY_LIMIT", "1000", 1);
    msg[0] = '\0';
    spb_csr B = {0};
    spb_status st = csr_permute(&A, first->order, &B, msg);
    unsetenv("SPB_MEMORY_LIMIT");
    CHECK(st == SPB_ERR_TOO_LARGE && strstr(msg, "the renumbered matrix needs about") && !B.row_ptr,
          "the renumbered copy past the room: %s (%s)", spb_status_str(st), msg);
    format_set_free(&F);
    csr_free(&A);

    spb_index rect_ptr[] = {0, 0, 0};
    spb_csr wide = {2, 3, 0, rect_ptr, NULL, NULL, 0, NULL};
    format_set_init(&F, &wide);
    msg[0] = '\0';
    st = format_set_rcm(&F, &first, msg);
    CHECK(st == SPB_ERR_DECLINED && strstr(msg, "2 x 3") && F.used == 0,
          "a rectangular matrix: %s (%s)", spb_status_str(st), msg);
    format_set_free(&F);
    /* the ordering walks 32-bit row offsets: a wide matrix is declined, not read */
    spb_offset wide_ptr[] = {0, 1, 2};
    spb_index wide_col[] = {1, 0};
    spb_value wide_val[] = {1.0, 2.0};
    spb_csr offsets64 = {2, 2, 2, NULL, wide_col, wide_val, 0, wide_ptr};
    format_set_init(&F, &offsets64);
    msg[0] = '\0';
    st = format_set_rcm(&F, &first, msg);
    CHECK(st == SPB_ERR_DECLINED && strstr(msg, "32-bit row offsets") && F.used == 0,
          "64-bit row offsets: %s (%s)", spb_status_str(st), msg);
    format_set_free(&F);
}

/* BSR and its slices ask for the room they will fill before allocating (a
 * graph's slices pad 20-33 times its entries): past SPB_MEMORY_LIMIT each
 * refuses, naming its estimate, and holds nothing. */
static void test_bsr_memory_room(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    CHECK(gen_matrix("gen:fem:5:3", &A, msg) == SPB_OK, "%s", msg);
    spb_bsr B;
    spb_bsr_sliced S;
    setenv("SPB_MEMORY_LIMIT", "100000", 1); /* the 3x3 cut needs about 270 kB */
    spb_status st = bsr_from_csr(&A, 3, &B, msg);
    CHECK(st == SPB_ERR_TOO_LARGE && strstr(msg, "BSR needs about") && !B.val && !B.row_ptr,
          "BSR past the room: %s (%s)", spb_status_str(st), msg);
    unsetenv("SPB_MEMORY_LIMIT");
    CHECK(bsr_from_csr(&A, 3, &B, msg) == SPB_OK, "%s", msg);
    setenv("SPB_MEMORY_LIMIT", "100000", 1);
    msg[0] = '\0'; /* spb_fail keeps a message already written */
    st = bsr_slice(&B, 32, &S, msg);
    CHECK(st == SPB_ERR_TOO_LARGE && strstr(msg, "BSR in slices needs about") && !S.val && !S.ptr,
          "slices past the room: %s (%s)", spb_status_str(st), msg);
    unsetenv("SPB_MEMORY_LIMIT");
    CHECK(bsr_slice(&B, 32, &S, msg) == SPB_OK, "%s", msg);
    bsr_sliced_free(&S);
    bsr_free(&B);
    csr_free(&A);
}

/* BSR cut on the threads: the same blocks, columns and values at 1 and 3
 * threads, each as the dense copy says (check_bsr), on a matrix of 1,500
 * block rows with long rows among them; 70x70 blocks take cursors from the
 * heap. */
static void test_bsr_threads(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0xb5aull);
    spb_coo coo;
    random_coo(&rng, 3000, 700, 90000, 1500, &coo);
    spb_csr A;
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    double *dense = coo_dense(&coo);
    static const spb_index blocks[] = {2, 3, 8, 70};
    const int before = omp_get_max_threads();
    for (int b = 0; b < 4; b++) {
        spb_bsr one, three;
        omp_set_num_threads(1);
        CHECK(bsr_from_csr(&A, blocks[b], &one, msg) == SPB_OK, "1 thread: %s", msg);
        omp_set_num_threads(3);
        CHECK(bsr_from_csr(&A, blocks[b], &three, msg) == SPB_OK, "3 threads: %s", msg);
        CHECK(one.nblocks == three.nblocks &&
                  !memcmp(one.row_ptr, three.row_ptr, sizeof *one.row_ptr * (one.brows + 1)) &&
                  !memcmp(one.col_idx, three.col_idx, sizeof *one.col_idx * one.nblocks) &&
                  !memcmp(one.val, three.val, sizeof *one.val * bsr_stored(&one)),
              "b=%d: BSR differs at 3 threads", (int)blocks[b]);
        check_bsr("3 threads", &A, dense, blocks[b]);
        bsr_free(&one);
        bsr_free(&three);
    }
    omp_set_num_threads(before);
    free(dense);
    csr_free(&A);
    coo_free(&coo);
}

/* csr_transpose scatters chunks of rows on the OpenMP threads: the same
 * transpose, bit for bit, at 1 and 3 threads (a full row crossing the
 * chunks, empty rows and columns, complex values), and it is A^T. */
static void test_transpose_threads(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0x7a05ull);
    spb_coo coo;
    random_coo(&rng, 3000, 700, 90000, 1500, &coo);
    spb_csr A, Z, one, three;
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    CHECK(csr_alloc_complex(&Z, A.m, A.n, A.nnz, msg) == SPB_OK, "%s", msg);
    memcpy(Z.row_ptr, A.row_ptr, sizeof *A.row_ptr * ((size_t)A.m + 1));
    memcpy(Z.col_idx, A.col_idx, sizeof *A.col_idx * (size_t)A.nnz);
    for (spb_offset k = 0; k < A.nnz; k++) Z.val[2 * k] = A.val[k], Z.val[2 * k + 1] = -2.0 * k;
    const int before = omp_get_max_threads();
    for (int complex_values = 0; complex_values < 2; complex_values++) {
        const spb_csr *M = complex_values ? &Z : &A;
        omp_set_num_threads(1);
        CHECK(csr_transpose(M, &one, msg) == SPB_OK, "1 thread: %s", msg);
        omp_set_num_threads(3);
        CHECK(csr_transpose(M, &three, msg) == SPB_OK, "3 threads: %s", msg);
        CHECK(csr_same(&one, &three) && csr_check(&three, msg) == SPB_OK,
              "%s transpose differs at 3 threads (%s)", complex_values ? "complex" : "real", msg);
        int wrong = 0; /* T(j, i) = A(i, j): each of A's entries found in T */
        for (spb_index i = 0; i < M->m; i++)
            for (spb_index k = M->row_ptr[i]; k < M->row_ptr[i + 1]; k++) {
                const spb_index j = M->col_idx[k];
                spb_index at = three.row_ptr[j];
                while (at < three.row_ptr[j + 1] && three.col_idx[at] != i) at++;
                wrong += at == three.row_ptr[j + 1] ||
                         three.val[at * (1 + complex_values)] != M->val[k * (1 + complex_values)];
            }
        CHECK(wrong == 0 && three.nnz == M->nnz, "%d entries of A missing from A^T", wrong);
        csr_free(&one);
        csr_free(&three);
    }
    omp_set_num_threads(before);
    csr_free(&Z);
    csr_free(&A);
    coo_free(&coo);
}

/* csr_from_coo sorts and sums each row on one thread: the same CSR, bit for
 * bit, at 1 and 3 threads (duplicates, unsorted rows, a long row, rows past
 * one thread's share); and the first row whose duplicates overflow is the
 * one named, at any thread count. */
static void test_coo_threads(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0x5eedull);
    spb_coo coo;
    random_coo(&rng, 5000, 700, 60000, 4321, &coo);
    spb_csr one, three;
    int before = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK(csr_from_coo(&coo, &one, msg) == SPB_OK, "1 thread: %s", msg);
    omp_set_num_threads(3);
    CHECK(csr_from_coo(&coo, &three, msg) == SPB_OK, "3 threads: %s", msg);
    CHECK(one.nnz == three.nnz && one.nnz < coo.nnz &&
              !memcmp(one.row_ptr, three.row_ptr, sizeof *one.row_ptr * (5000 + 1)) &&
              !memcmp(one.col_idx, three.col_idx, sizeof *one.col_idx * (size_t)one.nnz) &&
              !memcmp(one.val, three.val, sizeof *one.val * (size_t)one.nnz),
          "csr_from_coo differs between 1 and 3 threads (nnz %d, %d)", (int)one.nnz,
          (int)three.nnz);
    csr_free(&one);
    csr_free(&three);
    /* rows 4001 and 11 (1-based) overflow; 11 is the first */
    for (int pass = 0; pass < 2; pass++) {
        spb_index at = pass ? 4000 : 10;
        for (int k = 0; k < 2; k++) {
            coo.row[2 * pass + k] = at;
            coo.col[2 * pass + k] = 42 + pass;
            coo.val[2 * pass + k] = 1.5e308;
        }
    }
    for (int threads = 1; threads <= 3; threads += 2) {
        omp_set_num_threads(threads);
        msg[0] = '\0';
        spb_csr bad;
        CHECK(csr_from_coo(&coo, &bad, msg) == SPB_ERR_PARSE &&
                  strstr(msg, "at (11, 43) sum beyond the double range"),
              "%d threads: overflow reported as '%s'", threads, msg);
    }
    omp_set_num_threads(before);
    coo_free(&coo);
}

/* COO to CSR in spans of the entries on the threads: a row's entries keep
 * the file's order across the spans, so its duplicates 1, 1e16, -1e16
 * (first, middle and last of 200,000 entries) sum to 0 in that order (1
 * with the spans reversed), at 1 and 3 threads; the first entry outside
 * the matrix named. */
static void test_coo_spans_in_order(void)
{
    enum { M = 5000, NNZ = 200000 };
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    CHECK(coo_alloc(&coo, M, M, NNZ, msg) == SPB_OK, "%s", msg);
    for (spb_offset k = 0; k < NNZ; k++) {
        coo.row[k] = (spb_index)(k % (M - 1)) + 1; /* row 0 holds only the three */
        coo.col[k] = (spb_index)((k * 7) % M);
        coo.val[k] = 1;
    }
    const spb_offset at[3] = {0, NNZ / 2, NNZ - 1};
    const double dup[3] = {1, 1e16, -1e16};
    for (int q = 0; q < 3; q++) coo.row[at[q]] = 0, coo.col[at[q]] = 9, coo.val[at[q]] = dup[q];
    const int before = omp_get_max_threads();
    for (int threads = 1; threads <= 3; threads += 2) {
        omp_set_num_threads(threads);
        spb_csr A;
        CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
        CHECK(A.row_ptr[1] == 1 && A.col_idx[0] == 9 && A.val[0] == 0.0,
              "%d threads: row 0's duplicates summed in file order to %g (0 expected)", threads,
              A.val[0]);
        csr_free(&A);
    }
    coo.col[150000] = M; /* outside, and a later one */
    coo.row[180000] = -1;
    for (int threads = 1; threads <= 3; threads += 2) {
        omp_set_num_threads(threads);
        spb_csr A;
        msg[0] = '\0';
        CHECK(csr_from_coo(&coo, &A, msg) == SPB_ERR_INVALID && strstr(msg, "entry 150000 at"),
              "%d threads: the first entry outside named: %s", threads, msg);
    }
    omp_set_num_threads(before);
    coo_free(&coo);
}

/* Duplicates are summed in the order the entries come, also in a row long
 * enough to be sorted by qsort (which need not be stable): 1e16, -1e16, 1
 * at one column sum to 1 in that order, to 0 in most others (1 + 1e16
 * rounds to 1e16). */
static void test_duplicates_in_order(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    spb_csr A;
    const double dup[3] = {1e16, -1e16, 1};
    coo_alloc(&coo, 1, 64, 43, msg);
    for (int k = 0; k < 40; k++) { /* descending: the row must be sorted */
        coo.row[k] = 0;
        coo.col[k] = 63 - k;
        coo.val[k] = 1;
    }
    for (int k = 0; k < 3; k++) {
        coo.row[40 + k] = 0;
        coo.col[40 + k] = 5;
        coo.val[40 + k] = dup[k];
    }
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    double at5 = NAN;
    for (spb_index k = 0; k < A.nnz; k++)
        if (A.col_idx[k] == 5) at5 = A.val[k];
    CHECK(A.nnz == 41 && at5 == 1.0, "duplicates at column 5 summed to %g (1 in their order)", at5);
    csr_free(&A);
    coo_free(&coo);
}

/* csr_col_panels_joined: panel p holds each row's entries of columns [p w, (p+1) w)
 * in order, the panels stored one after another; the same at 1 and 3
 * threads; fp32 values rounded. */
static void test_col_panels(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0xc01b10cull);
    spb_coo coo;
    random_coo(&rng, 9000, 1000, 70000, 17, &coo);
    spb_csr A;
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    coo_free(&coo);
    const int panels = 7;
    const spb_index width = 143, stride = A.m + 1; /* 7 * 143 = 1001 columns */
    int *rp[2], *ci[2];
    void *v[2];
    int before = omp_get_max_threads();
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t ? 3 : 1);
        CHECK(csr_col_panels_joined(&A, panels, width, SPB_FP64, &rp[t], &ci[t], &v[t], msg) ==
                  SPB_OK,
              "%s", msg);
    }
    omp_set_num_threads(before);
    int wrong = 0;
    spb_index at = 0;
    for (int p = 0; p < panels; p++)
        for (spb_index i = 0; i < A.m; i++) {
            wrong += rp[0][p * stride + i] != at;
            for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
                if (A.col_idx[k] / width == p) {
                    wrong += ci[0][at] != A.col_idx[k] || ((double *)v[0])[at] != A.val[k];
                    at++;
                }
        }
    CHECK(wrong == 0 && at == A.nnz && rp[0][(panels - 1) * stride + A.m] == A.nnz,
          "column panels: %d misplaced of %d entries", wrong, (int)A.nnz);
    CHECK(!memcmp(rp[0], rp[1], sizeof(int) * (size_t)panels * stride) &&
              !memcmp(ci[0], ci[1], sizeof(int) * (size_t)A.nnz) &&
              !memcmp(v[0], v[1], sizeof(double) * (size_t)A.nnz),
          "column panels differ between 1 and 3 threads");
    int *rp32, *ci32;
    void *v32;
    CHECK(csr_col_panels_joined(&A, panels, width, SPB_FP32, &rp32, &ci32, &v32, msg) == SPB_OK,
          "%s", msg);
    int rounded = 0;
    for (spb_index k = 0; k < A.nnz; k++)
        rounded += ((float *)v32)[k] == (float)((double *)v[0])[k];
    CHECK(rounded == A.nnz, "fp32 panels: %d of %d values rounded", rounded, (int)A.nnz);
    for (int t = 0; t < 2; t++) {
        spb_free(rp[t]);
        spb_free(ci[t]);
        spb_free(v[t]);
    }
    spb_free(rp32);
    spb_free(ci32);
    spb_free(v32);
    csr_free(&A);
}

/* A complex matrix through the conversions that carry real values: each
 * declines it, saying so, and none casts it (HLL, SELL, BSR, the
 * renumbering, column panels); the transpose keeps its (re, im) pairs. */
static void test_complex_declined(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr Z, T, P;
    CHECK(csr_alloc_complex(&Z, 2, 2, 3, msg) == SPB_OK, "%s", msg);
    const spb_index rp[] = {0, 2, 3}, ci[] = {0, 1, 1};
    const double v[] = {1, 2, 3, 4, 5, 6};
    memcpy(Z.row_ptr, rp, sizeof rp);
    memcpy(Z.col_idx, ci, sizeof ci);
    memcpy(Z.val, v, sizeof v);
    spb_format_set F;
    format_set_init(&F, &Z);
    const spb_hll *H;
    const spb_sell *S;
    msg[0] = '\0';
    CHECK(format_set_hll(&F, HLL_ROW_MAJOR, 32, SPB_C128, &H, msg) == SPB_ERR_DECLINED &&
              strstr(msg, "HLL keeps real values only"),
          "HLL declines a complex matrix: '%s'", msg);
    msg[0] = '\0';
    CHECK(format_set_sell(&F, 32, &S, msg) == SPB_ERR_DECLINED && strstr(msg, "SELL"),
          "SELL declines a complex matrix: '%s'", msg);
    format_set_free(&F);
    spb_bsr B;
    msg[0] = '\0';
    CHECK(bsr_from_csr(&Z, 2, &B, msg) == SPB_ERR_DECLINED && strstr(msg, "BSR"),
          "BSR declines a complex matrix: '%s'", msg);
    const spb_index order[] = {1, 0};
    msg[0] = '\0';
    CHECK(csr_permute(&Z, order, &P, msg) == SPB_ERR_DECLINED && strstr(msg, "renumbering"),
          "the renumbering declines a complex matrix: '%s'", msg);
    CHECK(csr_transpose(&Z, &T, msg) == SPB_OK && T.complex_values && T.val[0] == 1 &&
              T.val[1] == 2 && T.val[2] == 3 && T.val[3] == 4 && T.val[4] == 5 && T.val[5] == 6,
          "the transpose keeps (re, im) pairs: %s", msg);
    csr_free(&T);
    csr_free(&Z);
}

/* Wide row offsets (a matrix of more than 2^31 - 1 entries) made small:
 * the same matrix as the narrow build, checked, counted in the byte model,
 * transposed alike; 32-bit offsets refused past their range. */
static void test_wide_offsets(unsigned long long seed)
{
    char msg[SPB_MSG_LEN] = "";
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0x71de);
    spb_coo coo;
    random_coo(&rng, 300, 200, 4000, 7, &coo);
    spb_csr N, W, V, TN, TW;
    CHECK(csr_from_coo(&coo, &N, msg) == SPB_OK, "%s", msg);
    CHECK(csr_from_coo_offsets(&coo, 1, &W, msg) == SPB_OK, "%s", msg);
    coo_free(&coo);
    CHECK(!csr_wide(&N) && csr_wide(&W) && !W.row_ptr, "narrow by default, wide when asked");
    CHECK(csr_check(&W, msg) == SPB_OK, "the wide build checks: %s", msg);
    int same = N.nnz == W.nnz && N.m == W.m;
    for (spb_index i = 0; same && i <= N.m; i++) same = N.row_ptr[i] == W.row_ptr64[i];
    same = same && memcmp(N.col_idx, W.col_idx, sizeof *N.col_idx * (size_t)N.nnz) == 0 &&
           memcmp(N.val, W.val, sizeof *N.val * (size_t)N.nnz) == 0;
    CHECK(same, "the wide build is the narrow one on other offsets");
    CHECK(csr_spmv_bytes(&W, SPB_FP64) - csr_spmv_bytes(&N, SPB_FP64) == 4.0 * (N.m + 1),
          "the byte model counts 8-byte offsets");
    W.row_ptr64[5] = W.row_ptr64[4] - 1;
    CHECK(csr_check(&W, msg) != SPB_OK && strstr(msg, "decreases at row"),
          "a broken wide offset is caught: '%s'", msg);
    W.row_ptr64[5] = N.row_ptr[5];
    CHECK(csr_transpose(&N, &TN, msg) == SPB_OK && csr_transpose(&W, &TW, msg) == SPB_OK &&
              TN.nnz == TW.nnz &&
              memcmp(TN.row_ptr, TW.row_ptr, sizeof *TN.row_ptr * ((size_t)TN.m + 1)) == 0 &&
              memcmp(TN.col_idx, TW.col_idx, sizeof *TN.col_idx * (size_t)TN.nnz) == 0,
          "a wide matrix transposes as the narrow one: %s", msg);
    V = N;
    V.row_ptr = spb_malloc((size_t)N.m + 1, sizeof *V.row_ptr);
    memcpy(V.row_ptr, N.row_ptr, sizeof *V.row_ptr * ((size_t)N.m + 1));
    CHECK(csr_widen(&V, msg) == SPB_OK && csr_wide(&V) &&
              memcmp(V.row_ptr64, W.row_ptr64, sizeof *W.row_ptr64 * ((size_t)W.m + 1)) == 0,
          "csr_widen gives the wide build's offsets: %s", msg);
    spb_free(V.row_ptr64);
    csr_free(&TN);
    csr_free(&TW);
    csr_free(&W);
    csr_free(&N);
    spb_csr X;
    msg[0] = '\0';
    CHECK(csr_alloc(&X, 1, 1, (spb_offset)SPB_INDEX_MAX + 1, msg) == SPB_ERR_TOO_LARGE &&
              strstr(msg, "wide row offsets"),
          "32-bit offsets refused past their range: '%s'", msg);
}

/* 16-bit offsets reach a step spanning HLL_NARROW_SPAN columns (offsets
 * 0..65534; 65535 marks padding), not one more: declined, naming the rows;
 * rows in hacks of their own never span. */
static void test_narrow_span(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index row_ptr[] = {0, 2, 3}, col_idx[] = {3, 4, 3 + HLL_NARROW_SPAN - 1};
    spb_value val[] = {1, 2, 3};
    spb_csr A = {2, HLL_NARROW_SPAN + 3, 3, row_ptr, col_idx, val, 0, NULL};
    spb_hll_narrow N;
    CHECK(hll_narrow_from_csr(&A, 2, &N, msg) == SPB_OK, "a span of 65,535 columns: %s", msg);
    CHECK(N.steps == 2 && N.step_base[0] == 3 && N.offset[0] == 0 &&
              N.offset[1] == HLL_NARROW_SPAN - 1 && N.step_base[1] == 4 && N.offset[2] == 0 &&
              N.offset[3] == HLL_NARROW_PADDING,
          "a span of 65,535 columns: %lld steps, bases %d %d, offsets %d %d %d %d",
          (long long)N.steps, (int)N.step_base[0], (int)N.step_base[1], N.offset[0], N.offset[1],
          N.offset[2], N.offset[3]);
    hll_narrow_free(&N);
    col_idx[2] = 3 + HLL_NARROW_SPAN; /* one column further */
    CHECK(hll_narrow_from_csr(&A, 2, &N, msg) == SPB_ERR_DECLINED && strstr(msg, "rows 0-1") &&
              strstr(msg, "columns 3-65538"),
          "a span of 65,536 columns not declined: %s", msg);
    CHECK(N.step_base == NULL && N.offset == NULL, "a declined matrix keeps its arrays");
    CHECK(hll_narrow_from_csr(&A, 1, &N, msg) == SPB_OK, "hacks of one row: %s", msg);
    hll_narrow_free(&N);
    /* a banded matrix wider than 16 bits: steps span the band, not n */
    spb_csr L;
    CHECK(gen_matrix("gen:lap3d:41", &L, msg) == SPB_OK, "%s", msg);
    CHECK(L.n > HLL_NARROW_SPAN && hll_narrow_from_csr(&L, 32, &N, msg) == SPB_OK,
          "gen:lap3d:41 (n %d): %s", (int)L.n, msg);
    hll_narrow_free(&N);
    /* its 2,154 hacks made on the threads: each as the HLL says, at 1 and 3 */
    spb_hll H;
    CHECK(hll_from_csr(&L, 32, HLL_COL_MAJOR, &H, msg) == SPB_OK, "%s", msg);
    const int before = omp_get_max_threads();
    for (int threads = 1; threads <= 3; threads += 2) {
        omp_set_num_threads(threads);
        check_hll_narrow(threads == 1 ? "gen:lap3d:41, 1 thread" : "gen:lap3d:41, 3 threads", &L,
                         &H);
    }
    hll_free(&H);
    csr_free(&L);
    /* 4,000 hacks of a diagonal, two of them spanning too wide: the first
     * named at 1 and 3 threads */
    enum { ROWS = 32 * 4000 };
    spb_csr D;
    CHECK(csr_alloc(&D, ROWS, ROWS + HLL_NARROW_SPAN, ROWS, msg) == SPB_OK, "%s", msg);
    for (spb_index i = 0; i < ROWS; i++) D.row_ptr[i + 1] = i + 1, D.col_idx[i] = i, D.val[i] = 1;
    D.col_idx[80001] = 80000 + HLL_NARROW_SPAN; /* hack 2500: rows 80000-80031 */
    D.col_idx[96000] = 0;                       /* hack 3000 */
    for (int threads = 1; threads <= 3; threads += 2) {
        omp_set_num_threads(threads);
        msg[0] = '\0';
        CHECK(hll_narrow_from_csr(&D, 32, &N, msg) == SPB_ERR_DECLINED &&
                  strstr(msg, "rows 80000-80031") && strstr(msg, "columns 80000-145535"),
              "%d threads: the first hack too wide is named: %s", threads, msg);
        CHECK(N.step_base == NULL && N.offset == NULL, "a declined matrix keeps its arrays");
    }
    omp_set_num_threads(before);
    csr_free(&D);
}

int main(void)
{
    unsigned long long seed = check_seed();
    test_shapes(seed);
    test_checks_catch_breakage();
    test_bytes_and_stats();
    test_row_tiles(seed);
    test_rcm(seed);
    test_rcm_children(seed);
    test_rcm_wide_levels(seed);
    test_scatter();
    test_sort_rows();
    test_format_set();
    test_values32_threads();
    test_format_set_bsr();
    test_format_set_rcm();
    test_transpose_threads(seed);
    test_bsr_threads(seed);
    test_bsr_memory_room();
    test_coo_threads(seed);
    test_coo_spans_in_order();
    test_duplicates_in_order();
    test_col_panels(seed);
    test_complex_declined();
    test_wide_offsets(seed);
    test_narrow_span();
    return check_done();
}
