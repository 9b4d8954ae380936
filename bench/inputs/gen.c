/* gen.c — matrix generators (see gen.h). */
#include "bench/inputs/gen.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs/rng.h"
#include "core/memory.h"
#include "cpu/spgemm_sort.h"

#define GEN_SEED       20261122u
#define GEN_MAX_VALUES 5 /* the most values a spec takes (gen:lp) */
#define RMAT_A_DEFAULT 57
#define RMAT_A_MIN     30 /* below, b = c pass a: the skew turns away from the first rows */
#define RMAT_A_MAX     90

int gen_is_spec(const char *text) { return strncmp(text, GEN_PREFIX, strlen(GEN_PREFIX)) == 0; }

/* Parses "name:a[:b]" after the prefix; returns the number of values read. */
static int parse_spec(const char *spec, char *name, size_t name_size, long long *values, int max)
{
    const char *p = spec + strlen(GEN_PREFIX);
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len == 0 || len >= name_size) return -1;
    memcpy(name, p, len);
    name[len] = '\0';
    int count = 0;
    while (colon) {
        char *end;
        if (count == max) return -1;
        /* digits only: "+10", " 10" or a value past 64 bits would name the
         * same matrix differently, or another one */
        if (!isdigit((unsigned char)colon[1])) return -1;
        errno = 0;
        long long v = strtoll(colon + 1, &end, 10);
        if (errno || (*end != '\0' && *end != ':')) return -1;
        values[count++] = v;
        colon = *end == ':' ? end : NULL;
    }
    return count;
}

/* Sizes as doubles: the ones refused here may not fit in 64-bit integers. */
static spb_status too_large(const char *spec, double rows, double nnz, char *msg)
{
    return spb_fail(msg, SPB_ERR_TOO_LARGE,
                    "%s: %.0f rows and %.0f entries exceed the 32-bit index limit of %d", spec,
                    rows, nnz, SPB_INDEX_MAX);
}

/* Stencil Laplacian on a grid of `dims` dimensions, `side` points along
 * each but the slowest, `layers` along the slowest (the grid a weak-scaling
 * study grows: each rank's slab keeps its size): diagonal 2*dims, -1 for
 * each neighbour inside the grid; columns ascend. */
static spb_status gen_laplacian(const char *spec, long long side, long long layers, int dims,
                                spb_csr *A, char *msg)
{
    double rows_estimate = (double)layers * side * (dims == 3 ? side : 1);
    if (rows_estimate * (2 * dims + 1) > SPB_INDEX_MAX)
        return too_large(spec, rows_estimate, rows_estimate * (2 * dims + 1), msg);
    long long plane = dims == 3 ? side * side : side, rows = plane * layers;
    long long nnz_bound = rows * (2 * dims + 1);
    spb_status st = csr_alloc(A, (spb_index)rows, (spb_index)rows, (spb_index)nnz_bound, msg);
    if (st != SPB_OK) return st;
    long long strides[3] = {plane, dims == 3 ? side : 1, 1};
    long long extent[3] = {layers, side, side};
    int nstrides = dims == 3 ? 3 : 2;
    spb_index k = 0;
    for (long long r = 0; r < rows; r++) {
        long long coord[3] = {0, 0, 0};
        long long rest = r;
        for (int d = nstrides - 1; d >= 0; d--) {
            coord[d] = rest % extent[d];
            rest /= extent[d];
        }
        for (int d = 0; d < nstrides; d++)
            if (coord[d] > 0) {
                A->col_idx[k] = (spb_index)(r - strides[d]);
                A->val[k++] = -1.0;
            }
        A->col_idx[k] = (spb_index)r;
        A->val[k++] = 2.0 * dims;
        for (int d = nstrides - 1; d >= 0; d--)
            if (coord[d] < extent[d] - 1) {
                A->col_idx[k] = (spb_index)(r + strides[d]);
                A->val[k++] = -1.0;
            }
        A->row_ptr[r + 1] = k;
    }
    A->nnz = k;
    return SPB_OK;
}

/* A finite-element matrix's shape: the 27-point stencil of hexahedral
 * elements on an N^3 grid of nodes, DOF unknowns a node (elasticity: 3), so
 * every neighbour pair is a dense DOF x DOF block and a row has up to
 * 27 * DOF entries; numbered node by node, the matrix is banded. Values
 * random, the diagonal blocks' diagonal the row's absolute sum. */
static spb_status gen_fem(const char *spec, long long side, long long dof, spb_csr *A, char *msg)
{
    double nodes = (double)side * side * side, per_row = 27.0 * dof;
    if (nodes * dof > SPB_INDEX_MAX || nodes * dof * per_row > SPB_INDEX_MAX)
        return too_large(spec, nodes * dof, nodes * dof * per_row, msg);
    long long rows = side * side * side * dof;
    spb_status st =
        csr_alloc(A, (spb_index)rows, (spb_index)rows, (spb_index)(rows * 27 * dof), msg);
    if (st != SPB_OK) return st;
    spb_rng rng;
    spb_rng_seed(&rng, GEN_SEED);
    spb_index k = 0;
    for (long long r = 0; r < rows; r++) {
        long long node = r / dof, x = node % side, y = node / side % side, z = node / side / side;
        spb_index diagonal = -1;
        double sum = 0.0;
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    long long nx = x + dx, ny = y + dy, nz = z + dz;
                    if (nx < 0 || ny < 0 || nz < 0 || nx >= side || ny >= side || nz >= side)
                        continue;
                    long long first = ((nz * side + ny) * side + nx) * dof;
                    for (long long c = first; c < first + dof; c++) {
                        if (c == r) diagonal = k;
                        A->col_idx[k] = (spb_index)c;
                        A->val[k] = spb_rng_value(&rng);
                        sum += fabs(A->val[k++]);
                    }
                }
        A->val[diagonal] = sum;
        A->row_ptr[r + 1] = k;
    }
    A->nnz = k;
    return SPB_OK;
}

/* Whether the triplets and CSR of about `entries` fit in memory. */
static spb_status memory_fits(const char *spec, double entries, char *msg)
{
    char detail[64];
    snprintf(detail, sizeof detail, "about %.0f entries as triplets and CSR", entries);
    return spb_memory_check(28.0 * entries, spec, detail, msg);
}

/* PER_ROW distinct uniformly random columns in every row, sorted. */
static spb_status gen_random(const char *spec, long long rows, long long per_row, spb_csr *A,
                             char *msg)
{
    if (per_row > rows)
        return spb_fail(msg, SPB_ERR_INVALID, "%s: %lld entries per row do not fit in %lld columns",
                        spec, per_row, rows);
    if (rows > SPB_INDEX_MAX) /* more than 2^31 - 1 entries: on 64-bit row offsets */
        return too_large(spec, (double)rows, (double)rows * per_row, msg);
    if (rows * per_row > SPB_INDEX_MAX) { /* gen_matrix left it to the generator */
        spb_status fits = memory_fits(spec, (double)rows * per_row, msg);
        if (fits != SPB_OK) return fits;
    }
    spb_status st = csr_alloc_as(A, (spb_index)rows, (spb_index)rows, rows * per_row, 0,
                                 rows * per_row > SPB_INDEX_MAX, msg);
    if (st != SPB_OK) return st;
    spb_rng rng;
    spb_rng_seed(&rng, GEN_SEED);
    for (long long r = 0; r < rows; r++) {
        spb_index *cols = A->col_idx + r * per_row;
        spb_index have = 0;
        while (have < per_row) {
            for (spb_index k = have; k < per_row; k++)
                cols[k] = (spb_index)spb_rng_below(&rng, (uint64_t)rows);
            sort_columns(cols, per_row); /* a row of a few: qsort's calls cost most */
            have = 1;
            for (spb_index k = 1; k < per_row; k++)
                if (cols[k] != cols[have - 1]) cols[have++] = cols[k];
        }
        for (spb_index k = 0; k < per_row; k++) A->val[r * per_row + k] = spb_rng_value(&rng);
        csr_set_row_start(A, (spb_index)(r + 1), (r + 1) * per_row);
    }
    return SPB_OK;
}

/* The generator of `draws_each` draws per item, split among the threads:
 * thread t's items [*first, *last), its generator where the serial one
 * would be at *first, so the matrix is the same at any thread count. */
static void thread_share(long long items, long long draws_each, long long *first, long long *last,
                         spb_rng *rng)
{
    int t = omp_get_thread_num(), threads = omp_get_num_threads();
    *first = items * t / threads;
    *last = items * (t + 1) / threads;
    spb_rng_seed(rng, GEN_SEED);
    spb_rng_advance(rng, (uint64_t)*first * (uint64_t)draws_each);
}

/* R-MAT (Chakrabarti et al.): each edge descends SCALE levels of quadrants,
 * top-left with probability a = A_PERCENT / 100 (0.57 unless given, the
 * Graph500 skew), bottom-right with d = 0.05, the other two (1 - a - d) / 2
 * each: the larger a, the more edges gather on the first rows and columns
 * (longer hub rows, more duplicates). Duplicates are summed. */
static spb_status gen_rmat(const char *spec, long long scale, long long edge_factor,
                           long long a_percent, spb_csr *A, char *msg)
{
    double rows = ldexp(1.0, (int)(scale < 1000 ? scale : 1000)), estimate = rows * edge_factor;
    if (a_percent < RMAT_A_MIN || a_percent > RMAT_A_MAX)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "%s: A_PERCENT %lld: the top-left quadrant's chance must be %d..%d %%",
                        spec, a_percent, RMAT_A_MIN, RMAT_A_MAX);
    if (rows > SPB_INDEX_MAX || estimate > SPB_INDEX_MAX)
        return too_large(spec, rows, estimate, msg);
    const double a = a_percent / 100.0, d = 0.05, b = (1.0 - a - d) / 2;
    long long n = 1ll << scale, edges = edge_factor * n;
    spb_coo coo;
    spb_status st = coo_alloc(&coo, (spb_index)n, (spb_index)n, (spb_index)edges, msg);
    if (st != SPB_OK) return st;
#pragma omp parallel
    {
        long long first, last;
        spb_rng rng;
        thread_share(edges, scale + 2, &first, &last, &rng); /* a draw a level, two a value */
        for (long long e = first; e < last; e++) {
            spb_index row = 0, col = 0;
            for (long long level = 0; level < scale; level++) {
                double u = spb_rng_uniform(&rng);
                int down = u >= a + b, right = (u >= a && u < a + b) || u >= 1.0 - d;
                row = row * 2 + down;
                col = col * 2 + right;
            }
            coo.row[e] = row;
            coo.col[e] = col;
            coo.val[e] = spb_rng_value(&rng);
        }
    }
    st = csr_from_coo(&coo, A, msg);
    coo_free(&coo);
    return st;
}

/* Symmetric: PER_ROW / 2 random entries per row mirrored (about PER_ROW a
 * row), and HUBS rows, spread evenly, of HUB_LEN random columns each,
 * mirrored too (so HUB_LEN-long columns): the shape of meshes and circuits
 * with a few rows thousands of times the mean, where one thread or warp per
 * row waits on the longest row, and of low compression in A*A (a product
 * row meeting a hub column gets HUB_LEN products). Duplicates are summed. */
static spb_status gen_hubs(const char *spec, const long long *v, spb_csr *A, char *msg)
{
    long long rows = v[0], per_row = v[1], hubs = v[2], hub_len = v[3];
    long long half = (per_row + 1) / 2, entries = 2 * (rows * half + hubs * hub_len);
    if (hubs > rows || hub_len > rows)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "%s: %lld hubs of %lld entries do not fit in %lld rows", spec, hubs,
                        hub_len, rows);
    if (rows > SPB_INDEX_MAX || entries > SPB_INDEX_MAX)
        return too_large(spec, (double)rows, (double)entries, msg);
    spb_coo coo;
    spb_status st = coo_alloc(&coo, (spb_index)rows, (spb_index)rows, (spb_index)entries, msg);
    if (st != SPB_OK) return st;
#pragma omp parallel
    {
        long long first, last;
        spb_rng rng;
        thread_share(rows * half + hubs * hub_len, 3, &first, &last, &rng); /* column, value */
        for (long long k = first; k < last; k++) {
            long long r = k < rows * half ? k / half : (k - rows * half) / hub_len * (rows / hubs);
            spb_index c = (spb_index)spb_rng_below(&rng, (uint64_t)rows);
            double value = spb_rng_value(&rng);
            coo.row[2 * k] = (spb_index)r, coo.col[2 * k] = c, coo.val[2 * k] = value;
            coo.row[2 * k + 1] = c, coo.col[2 * k + 1] = (spb_index)r, coo.val[2 * k + 1] = value;
        }
    }
    st = csr_from_coo(&coo, A, msg);
    coo_free(&coo);
    return st;
}

/* A road network's shape: an N x N grid graph whose edges (to the right and
 * down) are each kept with probability KEEP_PERCENT %, symmetric, every
 * value 1 (a pattern matrix): short rows alike (mean 4 * KEEP / 100, at
 * most 4, a few empty), numbered along the grid, as road graphs come
 * numbered by their geography. */
static spb_status gen_road(const char *spec, long long side, long long keep_percent, spb_csr *A,
                           char *msg)
{
    double nodes = (double)side * side;
    if (keep_percent > 100)
        return spb_fail(msg, SPB_ERR_INVALID, "%s: keeps %lld%% of the edges (at most 100)", spec,
                        keep_percent);
    if (nodes * 4 > SPB_INDEX_MAX) return too_large(spec, nodes, nodes * 4, msg);
    spb_coo coo;
    spb_status st =
        coo_alloc(&coo, (spb_index)nodes, (spb_index)nodes, (spb_index)(nodes * 4), msg);
    if (st != SPB_OK) return st;
    spb_rng rng;
    spb_rng_seed(&rng, GEN_SEED);
    spb_index e = 0;
    for (long long r = 0; r < side; r++)
        for (long long c = 0; c < side; c++)
            for (int down = 0; down < 2; down++) {
                if ((down ? r : c) + 1 >= side ||
                    spb_rng_below(&rng, 100) >= (uint64_t)keep_percent)
                    continue;
                spb_index a = (spb_index)(r * side + c), b = a + (spb_index)(down ? side : 1);
                coo.row[e] = a, coo.col[e] = b, coo.val[e++] = 1.0;
                coo.row[e] = b, coo.col[e] = a, coo.val[e++] = 1.0;
            }
    coo.nnz = e;
    st = csr_from_coo(&coo, A, msg);
    coo_free(&coo);
    return st;
}

/* gen:lp's DENSE rows after its columns' entries (coo->nnz of them): each
 * cell a dense row could hold drawn with probability PERCENT %. The draws
 * are counted first on a copy of the generator, so the arrays grow to hold
 * them exactly (room for every column of every dense row once passed the
 * index's range). */
static spb_status lp_dense_rows(const char *spec, spb_coo *coo, spb_rng *rng, long long dense,
                                long long percent, char *msg)
{
    long long rows = coo->m, cols = coo->n, e = coo->nnz;
    spb_rng counter = *rng;
    long long total = e;
    for (long long d = 0; d < dense; d++)
        for (long long c = 0; c < cols; c++)
            if (spb_rng_below(&counter, 100) < (uint64_t)percent) {
                total++;
                (void)spb_rng_value(&counter);
            }
    if (total > SPB_INDEX_MAX) return too_large(spec, (double)rows, (double)total, msg);
    spb_index *grown_row = spb_realloc(coo->row, (size_t)total + 1, sizeof *coo->row);
    if (grown_row) coo->row = grown_row;
    spb_index *grown_col =
        grown_row ? spb_realloc(coo->col, (size_t)total + 1, sizeof *coo->col) : NULL;
    if (grown_col) coo->col = grown_col;
    spb_value *grown_val =
        grown_col ? spb_realloc(coo->val, (size_t)total + 1, sizeof *coo->val) : NULL;
    if (grown_val) coo->val = grown_val;
    if (!grown_val)
        return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory for %lld entries", spec, total);
    for (long long d = 0; d < dense; d++) /* duplicates with the columns' entries: summed */
        for (long long c = 0; c < cols; c++)
            if (spb_rng_below(rng, 100) < (uint64_t)percent) {
                coo->row[e] = (spb_index)(d * (rows / dense));
                coo->col[e] = (spb_index)c, coo->val[e++] = spb_rng_value(rng);
            }
    coo->nnz = (spb_index)e;
    return SPB_OK;
}

/* An LP constraint matrix's shape: ROWS x COLS (wide: many more columns
 * than rows), each column PER_COL entries in distinct random rows, and
 * DENSE_ROWS rows (1 when not given), spread evenly, each holding about
 * DENSE_PERCENT % of the columns (a linking constraint): a handful of rows
 * tens of thousands of entries long among rows of a few dozen, where a
 * product A*A^T meets one row of C as long as the matrix is wide. */
/* PER_COL distinct rows below `rows` into out, in linear time whatever
 * their share of the rows (Floyd's sampling, its members in an open-address
 * set of `slots` entries, a power of two at least twice per_col). */
static void distinct_rows_floyd(spb_rng *rng, long long rows, long long per_col, spb_index *out,
                                spb_index *set, long long slots)
{
    for (long long k = 0; k < slots; k++) set[k] = -1;
    for (long long j = rows - per_col, n = 0; j < rows; j++, n++) {
        spb_index t = (spb_index)spb_rng_below(rng, (uint64_t)j + 1), pick = t;
        for (int pass = 0; pass < 2; pass++) { /* t if new, else j (never in the set) */
            long long h = ((uint64_t)pick * 0x9e3779b97f4a7c15ull) >> 20 & (uint64_t)(slots - 1);
            while (set[h] >= 0 && set[h] != pick) h = (h + 1) & (slots - 1);
            if (set[h] < 0) {
                set[h] = pick;
                break;
            }
            pick = (spb_index)j;
        }
        out[n] = pick;
    }
}

/* An LP constraint matrix's shape: ROWS x COLS (wide: many more columns
 * than rows), each column PER_COL entries in distinct random rows, and
 * DENSE_ROWS rows (1 when not given), spread evenly, each holding about
 * DENSE_PERCENT % of the columns (a linking constraint): a handful of rows
 * tens of thousands of entries long among rows of a few dozen, where a
 * product A*A^T meets one row of C as long as the matrix is wide. */
static spb_status gen_lp(const char *spec, const long long *v, int count, spb_csr *A, char *msg)
{
    long long rows = v[0], cols = v[1], per_col = v[2], percent = v[3];
    long long dense = count == 5 ? v[4] : 1;
    if (per_col > rows || dense > rows || percent > 100)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "%s: %lld entries a column and %lld dense rows must fit in %lld rows, "
                        "and a dense row holds at most 100%% of the columns",
                        spec, per_col, dense, rows);
    double entries = (double)cols * per_col + (double)dense * cols * percent / 100.0;
    if (rows > SPB_INDEX_MAX || cols > SPB_INDEX_MAX || entries * 1.01 > SPB_INDEX_MAX)
        return too_large(spec, (double)rows, entries, msg);
    /* a few rows a column, far fewer than the rows: draws retried on a
     * repeat (the stream every earlier matrix of this name was made with);
     * else Floyd's sampling, linear however many of the rows a column holds */
    int retry = per_col <= 64 && 2 * per_col <= rows;
    long long slots = 1;
    while (!retry && slots < 2 * per_col) slots *= 2;
    spb_coo coo;
    spb_status st =
        coo_alloc(&coo, (spb_index)rows, (spb_index)cols, (spb_index)(cols * per_col), msg);
    spb_index *set = retry ? NULL : spb_malloc((size_t)slots, sizeof *set);
    if (st == SPB_OK && !retry && !set)
        st = spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory", spec);
    if (st != SPB_OK) {
        coo_free(&coo);
        return st;
    }
    spb_rng rng;
    spb_rng_seed(&rng, GEN_SEED);
    long long e = 0;
    for (long long c = 0; c < cols; c++) {
        if (!retry) {
            distinct_rows_floyd(&rng, rows, per_col, coo.row + e, set, slots);
            for (long long k = 0; k < per_col; k++, e++)
                coo.col[e] = (spb_index)c, coo.val[e] = spb_rng_value(&rng);
            continue;
        }
        for (long long k = 0; k < per_col; k++) { /* distinct rows: retry a repeat */
            spb_index r = (spb_index)spb_rng_below(&rng, (uint64_t)rows);
            int seen = 0;
            for (long long j = e - k; j < e; j++) seen |= coo.row[j] == r;
            if (seen) {
                k--;
                continue;
            }
            coo.row[e] = r, coo.col[e] = (spb_index)c, coo.val[e++] = spb_rng_value(&rng);
        }
    }
    spb_free(set);
    coo.nnz = (spb_index)e;
    st = lp_dense_rows(spec, &coo, &rng, dense, percent, msg);
    if (st == SPB_OK) st = csr_from_coo(&coo, A, msg);
    coo_free(&coo);
    return st;
}

/* A circuit matrix's shape: N x N, unsymmetric, the diagonal and PER_ROW - 1
 * more entries a row (half near the diagonal, half anywhere), and DENSE
 * nets, spread evenly, each a row and a column of DENSE_LEN random entries
 * (power and ground: a few rows and columns thousands of times the mean,
 * which meet in A*A). Duplicates are summed. */
static spb_status gen_circuit(const char *spec, const long long *v, spb_csr *A, char *msg)
{
    long long n = v[0], per_row = v[1], dense = v[2], dense_len = v[3];
    if (per_row > n || dense > n || dense_len > n)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "%s: %lld entries a row, %lld nets of %lld entries must fit in %lld rows",
                        spec, per_row, dense, dense_len, n);
    double entries = (double)n * per_row + 2.0 * dense * dense_len;
    if (n > SPB_INDEX_MAX || entries > SPB_INDEX_MAX)
        return too_large(spec, (double)n, entries, msg);
    spb_coo coo;
    spb_status st = coo_alloc(&coo, (spb_index)n, (spb_index)n, (spb_index)entries, msg);
    if (st != SPB_OK) return st;
    spb_rng rng;
    spb_rng_seed(&rng, GEN_SEED);
    long long near = n / 100 + 8, e = 0;
    if (near > n - 1) near = n - 1; /* a reflection then stays inside a small matrix */
    for (long long r = 0; r < n; r++) {
        coo.row[e] = (spb_index)r, coo.col[e] = (spb_index)r, coo.val[e++] = spb_rng_value(&rng);
        for (long long k = 1; k < per_row; k++) {
            long long c = k % 2
                              ? r - near + (long long)spb_rng_below(&rng, (uint64_t)(2 * near + 1))
                              : (long long)spb_rng_below(&rng, (uint64_t)n);
            c = c < 0 ? -c : c >= n ? 2 * (n - 1) - c : c; /* reflected into the matrix */
            coo.row[e] = (spb_index)r, coo.col[e] = (spb_index)c,
            coo.val[e++] = spb_rng_value(&rng);
        }
    }
    for (long long d = 0; d < dense; d++) {
        spb_index net = (spb_index)(d * (n / dense) + n / dense / 2);
        for (long long k = 0; k < dense_len; k++) {
            spb_index other = (spb_index)spb_rng_below(&rng, (uint64_t)n);
            coo.row[e] = net, coo.col[e] = other, coo.val[e++] = spb_rng_value(&rng);
            coo.row[e] = other, coo.col[e] = net, coo.val[e++] = spb_rng_value(&rng);
        }
    }
    st = csr_from_coo(&coo, A, msg);
    coo_free(&coo);
    return st;
}

int gen_spec_well_formed(const char *spec, char *msg)
{
    char name[32] = "";
    long long v[GEN_MAX_VALUES];
    int count = parse_spec(spec, name, sizeof name, v, GEN_MAX_VALUES);
    static const char *const names[] = {"lap2d", "lap3d", "random",  "rmat", "hubs",
                                        "road",  "lp",    "circuit", "fem"};
    /* the Laplacians take an optional layer count, gen:rmat a skew, gen:lp
     * a dense row count */
    static const int least[] = {1, 1, 2, 2, 4, 2, 4, 4, 2};
    static const int most[] = {2, 2, 2, 3, 4, 2, 5, 4, 2};
    for (int k = 0; k < (int)(sizeof names / sizeof names[0]); k++) {
        if (strcmp(name, names[k]) != 0 || count < least[k] || count > most[k]) continue;
        for (int i = 0; i < count; i++) {
            if (v[i] <= 0) {
                spb_fail(msg, SPB_ERR_INVALID, "%s: the sizes of gen:%s must be positive integers",
                         spec, name);
                return 0;
            }
            /* every size counts rows, columns or entries of a row: past the
             * index's range none can be; bounded here, their products fit in
             * 64 bits */
            if (v[i] > SPB_INDEX_MAX) {
                spb_fail(msg, SPB_ERR_TOO_LARGE,
                         "%s: %lld is past the 32-bit index limit of %d (each size of gen:%s "
                         "counts rows, columns or entries)",
                         spec, v[i], SPB_INDEX_MAX, name);
                return 0;
            }
        }
        return 1;
    }
    spb_fail(msg, SPB_ERR_INVALID,
             "%s: unknown generator spec (expected gen:lap2d:N[:LAYERS], "
             "gen:lap3d:N[:LAYERS], gen:random:ROWS:PER_ROW, "
             "gen:rmat:SCALE:EDGE_FACTOR[:A_PERCENT], gen:hubs:ROWS:PER_ROW:HUBS:HUB_LEN, "
             "gen:road:N:KEEP_PERCENT, gen:lp:ROWS:COLS:PER_COL:DENSE_PERCENT[:DENSE_ROWS], "
             "gen:circuit:N:PER_ROW:NETS:NET_LEN or gen:fem:N:DOF, positive integers)",
             spec);
    return 0;
}

spb_status gen_matrix(const char *spec, spb_csr *A, char *msg)
{
    memset(A, 0, sizeof *A);
    char name[32];
    long long v[GEN_MAX_VALUES];
    int count = parse_spec(spec, name, sizeof name, v, GEN_MAX_VALUES);
    if (!gen_spec_well_formed(spec, msg)) return SPB_ERR_INVALID;
    double entries = gen_estimate_nnz(spec);
    if (entries > 0 && entries <= SPB_INDEX_MAX) { /* beyond it, each generator says so */
        spb_status fits = memory_fits(spec, entries, msg);
        if (fits != SPB_OK) return fits;
    }
    int dims = strcmp(name, "lap2d") == 0 ? 2 : strcmp(name, "lap3d") == 0 ? 3 : 0;
    if (dims && (count == 1 || count == 2))
        return gen_laplacian(spec, v[0], v[count - 1], dims, A, msg);
    if (count == 2 && strcmp(name, "random") == 0) return gen_random(spec, v[0], v[1], A, msg);
    if (strcmp(name, "rmat") == 0)
        return gen_rmat(spec, v[0], v[1], count == 3 ? v[2] : RMAT_A_DEFAULT, A, msg);
    if (strcmp(name, "fem") == 0) return gen_fem(spec, v[0], v[1], A, msg);
    if (count == 4 && strcmp(name, "hubs") == 0) return gen_hubs(spec, v, A, msg);
    if (strcmp(name, "lp") == 0) return gen_lp(spec, v, count, A, msg);
    if (strcmp(name, "circuit") == 0) return gen_circuit(spec, v, A, msg);
    return gen_road(spec, v[0], v[1], A, msg); /* the one left */
}

double gen_estimate_nnz(const char *spec)
{
    char name[32];
    long long v[GEN_MAX_VALUES];
    int count = parse_spec(spec, name, sizeof name, v, GEN_MAX_VALUES);
    if (count < 1 || v[0] <= 0 || v[count - 1] <= 0) return 0;
    double a = (double)v[0];
    double layers = (double)v[count - 1];
    if (count <= 2 && strcmp(name, "lap2d") == 0) return 5.0 * a * layers;
    if (count <= 2 && strcmp(name, "lap3d") == 0) return 7.0 * a * a * layers;
    if (count == 2 && strcmp(name, "random") == 0) return a * (double)v[1];
    if ((count == 2 || count == 3) && strcmp(name, "rmat") == 0)
        return ldexp((double)v[1], (int)(a < 1000 ? a : 1000));
    if (count == 2 && strcmp(name, "fem") == 0) /* interior rows; the faces hold fewer */
        return 27.0 * a * a * a * (double)v[1] * (double)v[1];
    if (count == 2 && strcmp(name, "road") == 0) return 4.0 * a * a * (double)v[1] / 100.0;
    if (count == 4 && strcmp(name, "hubs") == 0) {
        long long half_row = (v[1] + 1) / 2; /* gen:hubs mirrors half a row */
        return 2.0 * (a * (double)half_row + (double)v[2] * (double)v[3]);
    }
    if ((count == 4 || count == 5) && strcmp(name, "lp") == 0)
        return (double)v[1] * ((double)v[2] + (count == 5 ? (double)v[4] : 1.0) * v[3] / 100.0);
    if (count == 4 && strcmp(name, "circuit") == 0)
        return a * (double)v[1] + 2.0 * (double)v[2] * (double)v[3];
    return 0;
}

spb_status gen_spec_for_ranks(const char *spec, int ranks, char *out, size_t size, char *msg)
{
    char name[32];
    long long v[GEN_MAX_VALUES];
    int count = gen_is_spec(spec) ? parse_spec(spec, name, sizeof name, v, GEN_MAX_VALUES) : -1;
    if (count < 1 || v[0] <= 0 || v[count - 1] <= 0)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "--weak: %s is not a generator spec (a weak-scaling study grows gen: "
                        "matrices with the rank count)",
                        spec);
    int power = 0;
    while ((1 << power) < ranks) power++;
    if (strcmp(name, "lap2d") == 0 || strcmp(name, "lap3d") == 0)
        snprintf(out, size, "gen:%s:%lld:%lld", name, v[0], v[count - 1] * ranks);
    else if (strcmp(name, "random") == 0 && count == 2)
        snprintf(out, size, "gen:random:%lld:%lld", v[0] * ranks, v[1]);
    else if (strcmp(name, "rmat") == 0 && count == 2 && (1 << power) == ranks)
        snprintf(out, size, "gen:rmat:%lld:%lld", v[0] + power, v[1]);
    else if (strcmp(name, "rmat") == 0 && count == 3 && (1 << power) == ranks)
        snprintf(out, size, "gen:rmat:%lld:%lld:%lld", v[0] + power, v[1], v[2]);
    else
        return spb_fail(msg, SPB_ERR_INVALID,
                        "--weak: %s cannot grow to %d ranks (gen:rmat doubles its rows per "
                        "scale step: give rank counts that are powers of 2)",
                        spec, ranks);
    return SPB_OK;
}
