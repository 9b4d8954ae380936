/* csr.h — compressed sparse row. */
#ifndef SPB_CSR_H
#define SPB_CSR_H

#include "coo.h"

typedef struct spb_csr {
    spb_index m, n;     /* rows, columns (>= 0) */
    spb_offset nnz;     /* stored entries (duplicates summed; explicit zeros kept) */
    spb_index *row_ptr; /* size m+1; [0]=0; nondecreasing; [m]=nnz; NULL when wide */
    spb_index *col_idx; /* size nnz; strictly increasing inside each row; < n */
    spb_value *val;     /* size nnz; complex: 2 * nnz, (re, im) pairs */
    /* 1 when the values are complex (the file's field): only code that says
     * it takes complex values reads them (csr_values_per_entry) */
    int complex_values;
    /* The row offsets of a wide matrix, one of more than SPB_INDEX_MAX
     * entries (csr_from_coo and csr_widen make them; NULL otherwise): the
     * same invariants as row_ptr, which is then NULL. Only a kernel that
     * says so (spb_kernel.wide_offsets) is handed a wide matrix; the others
     * decline it, and code outside the kernels reads offsets through
     * csr_row_start. */
    spb_offset *row_ptr64;
} spb_csr;

/* Whether A's row offsets are 64-bit (row_ptr64). */
static inline int csr_wide(const spb_csr *A) { return A->row_ptr64 != NULL; }

/* Where row i starts in col_idx and val (i = m: nnz), narrow or wide. */
static inline spb_offset csr_row_start(const spb_csr *A, spb_index i)
{
    return A->row_ptr64 ? A->row_ptr64[i] : (spb_offset)A->row_ptr[i];
}

/* Sets where row i starts (i = m: nnz), narrow or wide. */
static inline void csr_set_row_start(spb_csr *A, spb_index i, spb_offset start)
{
    if (A->row_ptr64)
        A->row_ptr64[i] = start;
    else
        A->row_ptr[i] = (spb_index)start;
}

/* Doubles per entry in val: 1, or 2 for complex values. */
static inline size_t csr_values_per_entry(const spb_csr *A) { return A->complex_values ? 2 : 1; }

/* For the conversions that carry one real value an entry (HLL, SELL, BSR,
 * column panels, the renumbering): SPB_OK for a real matrix, else
 * SPB_ERR_DECLINED saying `what` keeps real values, so that a complex
 * matrix is never cast by a path its kernel gate missed. */
spb_status csr_real_only(const spb_csr *A, const char *what, char *msg);

spb_status csr_alloc(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, char *msg);
/* The same with complex values (val of 2 * nnz doubles). */
spb_status csr_alloc_complex(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, char *msg);
/* Either field, on wide row offsets when `wide` (the caller then writes them
 * with csr_set_row_start or into row_ptr64). */
spb_status csr_alloc_as(spb_csr *A, spb_index m, spb_index n, spb_offset nnz, int complex_values,
                        int wide, char *msg);
void csr_free(spb_csr *A); /* accepts a zeroed or freed struct */

/* COO -> CSR: columns sorted inside each row, duplicate coordinates summed;
 * wide row offsets when the entries pass SPB_INDEX_MAX (or when `wide`). */
spb_status csr_from_coo(const spb_coo *coo, spb_csr *A, char *msg);
spb_status csr_from_coo_offsets(const spb_coo *coo, int wide, spb_csr *A, char *msg);

/* Each row of A sorted by column, its values along (columns distinct in a
 * row, as after a renumbering); rows on the OpenMP threads. */
spb_status csr_sort_rows(spb_csr *A, char *msg);

/* A's row offsets made wide in place (the kernel test's wide mode runs
 * every kernel on small matrices stored as the large ones are). */
spb_status csr_widen(spb_csr *A, char *msg);

/* Checks every invariant above; names the first row that breaks one. */
spb_status csr_check(const spb_csr *A, char *msg);

/* Bytes one y = A*x moves in the given precision: each array read once, y
 * written once. */
double csr_spmv_bytes(const spb_csr *A, spb_precision precision);

/* Bytes of y = A*x by a kernel that reads no values (A a pattern matrix,
 * or all its values equal): row_ptr and col_idx read, x once, y written. */
double csr_pattern_spmv_bytes(const spb_csr *A, spb_precision precision);

/* Bytes of y = A*x (m x n, nnz entries) split into `panels` column panels,
 * each a CSR over all m rows: every panel's row_ptr, the entries once, x
 * once, y written by the first panel and read and written by each further
 * one (the column-blocked kernels). */
double csr_col_panels_spmv_bytes(spb_index m, spb_index n, int64_t nnz, int panels,
                                 spb_precision precision);

/* A in column panels of `width` columns joined in one CSR's arrays
 * (csr.cuda.colblock's layout; the CPU's, one CSR a panel, is
 * cpu/spmv_cpu.h's csr_col_panels): panel p's row pointers at p * (m + 1)
 * of row_ptr (offsets into the panels' entries, stored panel after panel),
 * its entries keeping A's row order, values in `precision` (fp32: rounded).
 * Made on the OpenMP threads, the same at any count; the caller frees the
 * three arrays. */
spb_status csr_col_panels_joined(const spb_csr *A, int panels, spb_index width,
                                 spb_precision precision, int **row_ptr, int **col_idx, void **val,
                                 char *msg);

/* csr.cuda.stream's row tiles (gpu/spmv_csr.cu), here so that the rule is
 * tested without a device. A row longer than CSR_TILE_ALONE entries and
 * CSR_TILE_ALONE_MEANS mean rows is a tile alone, summed by a whole block:
 * rows that long among short ones left one thread summing them while the
 * product's last wave waited; where every row is long, tiles of several
 * serve better (H100, fp64: citationCiteseer 1.11x, cnr-2000 1.26x; with
 * the mean left out, gen:random:200000:200's rows of 200 ran 0.82x). */
#define CSR_TILE_ALONE       128
#define CSR_TILE_ALONE_MEANS 4

/* The length beyond which a row of A is a tile alone, at most `items`. */
int64_t csr_tile_alone(const spb_csr *A, int64_t items);

/* Consecutive rows taken while a tile stays within `items` entries and
 * `max_rows` rows; a row longer than `alone` entries is a tile alone.
 * tile_row (m + 1 entries) gets each tile's first row, then m; returns the
 * number of tiles. */
spb_index csr_row_tiles(const spb_csr *A, int64_t items, spb_index max_rows, int64_t alone,
                        spb_index *tile_row);

/* For the kernels that read no values: SPB_OK with *value the value every
 * entry holds (a pattern or "iso" matrix; 0 when empty), else
 * SPB_ERR_DECLINED saying why, so that the row is a decline. */
spb_status csr_pattern_value(const spb_csr *A, spb_value *value, char *msg);

/* A^T (columns sorted, as CSR always is). */
spb_status csr_transpose(const spb_csr *A, spb_csr *T, char *msg);

/* Intermediate products of C = A*B: the sum over A's entries of the length
 * of B's matching row (the multiply-adds a product does). */
int64_t csr_spgemm_products(const spb_csr *A, const spb_csr *B);
/* The most of them in one row of C: a row's accumulator is sized by it. */
int64_t csr_spgemm_row_products_max(const spb_csr *A, const spb_csr *B);
/* Bytes of a product's C of nnz_c entries and m rows as the host keeps it:
 * its values (two parts complex), 32-bit columns and row offsets (counted
 * at 64 bits: C takes them past 2^31 - 1 entries or where an operand has
 * them). */
static inline double csr_spgemm_c_bytes(double m, double nnz_c, int complex_values)
{
    return (sizeof(spb_value) * (complex_values ? 2.0 : 1.0) + sizeof(spb_index)) * nnz_c +
           sizeof(int64_t) * (m + 1.0);
}
/* Whether C = A*B, of nnz_c entries, is kept on 64-bit row offsets: when
 * its entries need them, or when an operand's are 64-bit (so the wide path
 * also runs on small matrices: SPB_WIDE_OFFSETS). */
static inline int csr_spgemm_wide(const spb_csr *A, const spb_csr *B, int64_t nnz_c)
{
    return nnz_c > SPB_INDEX_MAX || csr_wide(A) || csr_wide(B);
}

/* What the SpGEMM auto kernel reads before the product: the products of A*B,
 * the most in one row of A, A's longest row (entries), and the compression (products over entries
 * of C) counted exactly on `sample` rows of A spread evenly (all rows when sample >= m; 1 when
 * those rows make no product). SPB_ERR_NOMEM when B's column markers cannot be had. */
typedef struct {
    int64_t products, row_products_max;
    spb_index a_row_max;
    double compression;
} spb_spgemm_shape;
spb_status csr_spgemm_shape(const spb_csr *A, const spb_csr *B, spb_index sample,
                            spb_spgemm_shape *shape, char *msg);

/* Bytes one C = A*B moves: A read once, for each entry of A its row of B
 * (row_ptr pair, then column and value per product), C written once. */
double csr_spgemm_bytes(const spb_csr *A, double products, double nnz_c, spb_precision precision);

/* Row-length statistics and sizes used by `spbench info` and result rows. */
typedef struct {
    spb_index rows, cols;
    spb_offset nnz;
    spb_index row_min, row_max, empty_rows;
    double row_mean, row_std;
} spb_csr_stats;

void csr_stats(const spb_csr *A, spb_csr_stats *stats);

/* What the `auto` rows choose a kernel by: the statistics, HLL's padding
 * (stored entries over nnz at hack size `hack`), the mean column span of
 * the non-empty rows (last column - first + 1: how far a row's gathers
 * spread over x), whether every stored value is equal, cv (row lengths'
 * standard deviation over their mean; 0 when empty) and scatter: over
 * runs of 32 consecutive entries (a warp's gathers of x), the distinct
 * 32-byte sectors of fp64 x they touch per entry (1: no two share one;
 * measured on at most CSR_SCATTER_RUNS runs spread evenly; 0 below 32
 * entries). */
typedef struct {
    spb_csr_stats stats;
    double padding, span, cv, scatter;
    int pattern;
} spb_csr_shape;
#define CSR_SCATTER_RUNS 65536

void csr_shape(const spb_csr *A, spb_index hack, spb_csr_shape *shape);

/* The lines both auto rules (auto.omp, auto.cuda) draw on a shape: rows
 * alike enough for HLL pad at most 15%; rows whose cv passes 1 are skewed
 * (graphs), where column panels only add traffic. */
#define SPB_SHAPE_HLL_PADDING 1.15
#define SPB_SHAPE_SKEWED_CV   1.0
double csr_bytes(const spb_csr *A); /* storage footprint */

#endif
