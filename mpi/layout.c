/* layout.c — who owns which rows of A, entries of y and entries of x under
 * each layout, and the sending of each rank's rows from rank 0 (the one
 * rank that reads the matrix). */
#include <stdio.h>
#include <string.h>

#include "core/memory.h"
#include "dist_mpi.h"

#define TAG_PART 11

spb_index map_owned(const dist_map *map, int p)
{
    if (map->cyclic) return map->count > p ? (map->count - 1 - p) / map->ranks + 1 : 0;
    return map->end[p] - map->begin[p];
}

spb_index map_global(const dist_map *map, int p, spb_index l)
{
    return map->cyclic ? p + l * map->ranks : map->begin[p] + l;
}

int map_owner(const dist_map *map, spb_index i)
{
    if (map->cyclic) return (int)(i % map->ranks);
    int lo = 0, hi = map->ranks - 1; /* the last rank whose range starts at or before i */
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (map->begin[mid] <= i)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (lo > 0 && map->begin[lo] == map->end[lo]) lo--; /* empty ranges share a start */
    return lo;
}

spb_index map_local(const dist_map *map, spb_index i)
{
    return map->cyclic ? i / map->ranks : i - map->begin[map_owner(map, i)];
}

void map_free(dist_map *map)
{
    spb_free(map->begin);
    spb_free(map->end);
    memset(map, 0, sizeof *map);
}

static spb_status map_alloc(dist_map *map, int ranks, spb_index count, char *msg)
{
    memset(map, 0, sizeof *map);
    map->ranks = ranks;
    map->count = count;
    map->begin = spb_calloc((size_t)ranks, sizeof *map->begin);
    map->end = spb_calloc((size_t)ranks, sizeof *map->end);
    if (map->begin && map->end) return SPB_OK;
    map_free(map);
    return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for an ownership map");
}

/* Piece k of `pieces` equal pieces of [0, count). */
static spb_index piece_start(spb_index count, int pieces, int k)
{
    return (spb_index)((int64_t)count * k / pieces);
}

/* [0, count) in `ranks` contiguous ranges in rank order; `bounds` (rank 0's
 * nnz rule, NULL: equal pieces) has ranks + 1 entries. */
static spb_status map_blocks(dist_map *map, int ranks, spb_index count, const spb_index *bounds,
                             char *msg)
{
    spb_status st = map_alloc(map, ranks, count, msg);
    for (int p = 0; p < ranks && st == SPB_OK; p++) {
        map->begin[p] = bounds ? bounds[p] : piece_start(count, ranks, p);
        map->end[p] = bounds ? bounds[p + 1] : piece_start(count, ranks, p + 1);
    }
    return st;
}

/* The p x q grid: p the largest divisor of P not above its square root. */
static void grid_shape(int ranks, int *p, int *q)
{
    *p = 1;
    for (int d = 1; d * d <= ranks; d++)
        if (ranks % d == 0) *p = d;
    *q = ranks / *p;
}

/* 2-D: y's rows in p blocks, each split over the q ranks of its grid row;
 * x's columns in q blocks, each split over the p ranks of its grid column.
 * Rank r*q + c owns piece c of row block r and piece r of column block c. */
static spb_status map_grid(dist_state *s, spb_index m, spb_index n, char *msg)
{
    int p = s->grid.p, q = s->grid.q;
    spb_status st = map_alloc(&s->rows, s->size, m, msg);
    if (st == SPB_OK) st = map_alloc(&s->cols, s->size, n, msg);
    for (int r = 0; r < p && st == SPB_OK; r++)
        for (int c = 0; c < q; c++) {
            spb_index r0 = piece_start(m, p, r), rows = piece_start(m, p, r + 1) - r0;
            spb_index c0 = piece_start(n, q, c), cols = piece_start(n, q, c + 1) - c0;
            s->rows.begin[r * q + c] = r0 + piece_start(rows, q, c);
            s->rows.end[r * q + c] = r0 + piece_start(rows, q, c + 1);
            s->cols.begin[r * q + c] = c0 + piece_start(cols, p, r);
            s->cols.end[r * q + c] = c0 + piece_start(cols, p, r + 1);
        }
    return st;
}

/* The maps of s's layout; A's size and (for DIST_NNZ) its row bounds come
 * from rank 0. */
static spb_status make_maps(dist_state *s, const spb_csr *A, char *msg)
{
    spb_index size[2] = {A ? A->m : 0, A ? A->n : 0};
    MPI_Bcast(size, 2, MPI_INT, 0, s->comm);
    spb_index m = size[0], n = size[1];
    dist_layout layout = s->variant->layout;
    if (layout == DIST_GRID) {
        grid_shape(s->size, &s->grid.p, &s->grid.q);
        return map_grid(s, m, n, msg);
    }
    if (layout == DIST_CYCLIC) {
        s->rows = (dist_map){.ranks = s->size, .cyclic = 1, .count = m};
        s->cols = (dist_map){.ranks = s->size, .cyclic = 1, .count = n};
        return SPB_OK;
    }
    spb_index *bounds = spb_calloc((size_t)s->size + 1, sizeof *bounds);
    if (!bounds) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for row bounds");
    for (int p = 0; A && layout == DIST_NNZ && p <= s->size; p++) { /* CPU partition rule */
        bounds[p] =
            p == s->size ? m : spb_lower_bound(A->row_ptr, 0, m, (int64_t)A->nnz * p / s->size);
    }
    MPI_Bcast(bounds, s->size + 1, MPI_INT, 0, s->comm);
    spb_status st = map_blocks(&s->rows, s->size, m, layout == DIST_NNZ ? bounds : NULL, msg);
    if (st == SPB_OK && m == n && layout == DIST_NNZ)
        st = map_blocks(&s->cols, s->size, n, bounds, msg); /* x follows y when square */
    else if (st == SPB_OK)
        st = map_blocks(&s->cols, s->size, n, NULL, msg);
    spb_free(bounds);
    return st;
}

/* The rows of A rank p holds and the columns it keeps of them: 1-D, its
 * own rows and every column; 2-D, its grid row's rows and grid column's
 * columns (renumbered from 0). */
typedef struct {
    spb_index first, stride, count; /* rows first, first + stride, ... */
    spb_index col_lo, col_hi;       /* columns kept: [col_lo, col_hi), shifted by -col_lo */
} part_shape;

static part_shape shape_of(const dist_state *s, int p, spb_index m, spb_index n)
{
    part_shape shape = {0, 1, 0, 0, n};
    if (s->variant->layout == DIST_GRID) {
        int r = p / s->grid.q, c = p % s->grid.q;
        shape.first = piece_start(m, s->grid.p, r);
        shape.count = piece_start(m, s->grid.p, r + 1) - shape.first;
        shape.col_lo = piece_start(n, s->grid.q, c);
        shape.col_hi = piece_start(n, s->grid.q, c + 1);
    } else {
        shape.first = map_global(&s->rows, p, 0);
        shape.stride = s->rows.cyclic ? s->size : 1;
        shape.count = map_owned(&s->rows, p);
    }
    return shape;
}

static spb_index shape_row(const part_shape *shape, spb_index l)
{
    return shape->first + l * shape->stride;
}

static spb_index shape_nnz(const spb_csr *A, const part_shape *shape)
{
    spb_index nnz = 0;
    for (spb_index l = 0; l < shape->count; l++) {
        spb_index i = shape_row(shape, l);
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            nnz += A->col_idx[k] >= shape->col_lo && A->col_idx[k] < shape->col_hi;
    }
    return nnz;
}

/* Rank 0: rank p's rows of A into out (allocated by the caller). The
 * entries are copied by the OpenMP threads: a part is most of a large
 * matrix, and its first touch of fresh pages (the kernel clearing them)
 * took most of a GPU rank's setup on one thread. */
static void extract(const spb_csr *A, const part_shape *shape, spb_csr *out)
{
    const int all_columns = shape->col_lo == 0 && shape->col_hi >= A->n;
    out->row_ptr[0] = 0;
    for (spb_index l = 0; l < shape->count; l++) {
        spb_index i = shape_row(shape, l), kept = A->row_ptr[i + 1] - A->row_ptr[i];
        if (!all_columns) {
            kept = 0;
            for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
                kept += A->col_idx[k] >= shape->col_lo && A->col_idx[k] < shape->col_hi;
        }
        out->row_ptr[l + 1] = out->row_ptr[l] + kept;
    }
#pragma omp parallel for schedule(dynamic, 1024)
    for (spb_index l = 0; l < shape->count; l++) {
        spb_index i = shape_row(shape, l), at = out->row_ptr[l];
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            if (A->col_idx[k] >= shape->col_lo && A->col_idx[k] < shape->col_hi) {
                out->col_idx[at] = A->col_idx[k] - shape->col_lo;
                out->val[at++] = A->val[k];
            }
    }
}

/* The room a rank's part and its vectors take, checked before allocating:
 * the rows as received, their diagonal/ghost copies, x and y. */
static spb_status part_check_memory(const dist_state *s, spb_index rows, spb_index nnz, char *msg)
{
    double need = 2.0 * (12.0 * nnz + 4.0 * rows) + 8.0 * (3.0 * rows + s->cols.count);
    char what[64], detail[128];
    snprintf(what, sizeof what, "its part of the matrix");
    snprintf(detail, sizeof detail, "%d rows, %d entries, with x and y", (int)rows, (int)nnz);
    return spb_memory_check(need, what, detail, msg);
}

/* Rank 0: every rank's part size (rows, entries), and a buffer for the
 * largest part of another rank, made before the ranks agree to go on (a
 * failure after that would leave a rank waiting for its part). */
static spb_status part_sizes(dist_state *s, const spb_csr *A, int **all, spb_csr *buffer, char *msg)
{
    *all = spb_malloc((size_t)s->size * 2, sizeof **all);
    if (!*all) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for part sizes");
    spb_index most_rows = 0, most_nnz = 0;
    for (int p = 0; p < s->size; p++) {
        part_shape shape = shape_of(s, p, A->m, A->n);
        (*all)[2 * p] = shape.count;
        (*all)[2 * p + 1] = shape_nnz(A, &shape);
        if (p > 0 && shape.count > most_rows) most_rows = shape.count;
        if (p > 0 && (*all)[2 * p + 1] > most_nnz) most_nnz = (*all)[2 * p + 1];
    }
    return s->size > 1 ? csr_alloc(buffer, most_rows, A->n, most_nnz, msg) : SPB_OK;
}

/* Rank 0 sends each rank its part's size, every rank checks and allocates,
 * all agree, then rank 0 sends the parts. */
static spb_status send_parts(dist_state *s, const spb_csr *A, char *msg)
{
    int sizes[2], *all = NULL;
    spb_csr buffer = {0};
    spb_status st = s->rank == 0 ? part_sizes(s, A, &all, &buffer, msg) : SPB_OK;
    st = dist_agree(s->comm, st, msg);
    if (st != SPB_OK) {
        spb_free(all);
        return st;
    }
    MPI_Scatter(all, 2, MPI_INT, sizes, 2, MPI_INT, 0, s->comm);
    part_shape mine = shape_of(s, s->rank, s->rows.count, s->cols.count);
    st = part_check_memory(s, sizes[0], sizes[1], msg);
    if (st == SPB_OK) st = csr_alloc(&s->part, sizes[0], mine.col_hi - mine.col_lo, sizes[1], msg);
    st = dist_agree(s->comm, st, msg);
    for (int p = 0; p < s->size && st == SPB_OK && s->rank == 0; p++) {
        part_shape shape = shape_of(s, p, A->m, A->n);
        extract(A, &shape, p == 0 ? &s->part : &buffer);
        if (p == 0) continue;
        MPI_Send(buffer.row_ptr, all[2 * p] + 1, MPI_INT, p, TAG_PART, s->comm);
        MPI_Send(buffer.col_idx, all[2 * p + 1], MPI_INT, p, TAG_PART, s->comm);
        MPI_Send(buffer.val, all[2 * p + 1], MPI_DOUBLE, p, TAG_PART, s->comm);
    }
    if (st == SPB_OK && s->rank > 0) {
        MPI_Recv(s->part.row_ptr, s->part.m + 1, MPI_INT, 0, TAG_PART, s->comm, MPI_STATUS_IGNORE);
        MPI_Recv(s->part.col_idx, s->part.nnz, MPI_INT, 0, TAG_PART, s->comm, MPI_STATUS_IGNORE);
        MPI_Recv(s->part.val, s->part.nnz, MPI_DOUBLE, 0, TAG_PART, s->comm, MPI_STATUS_IGNORE);
    }
    csr_free(&buffer);
    spb_free(all);
    return st;
}

spb_status layout_distribute(dist_state *s, const spb_csr *A, char *msg)
{
    spb_status st = dist_agree(s->comm, make_maps(s, A, msg), msg);
    if (st == SPB_OK && s->variant->layout == DIST_GRID) {
        MPI_Comm_split(s->comm, s->rank / s->grid.q, s->rank % s->grid.q, &s->grid.row);
        MPI_Comm_split(s->comm, s->rank % s->grid.q, s->rank / s->grid.q, &s->grid.col);
    }
    return st == SPB_OK ? send_parts(s, A, msg) : st;
}

void layout_free(dist_state *s)
{
    map_free(&s->rows);
    map_free(&s->cols);
    csr_free(&s->part);
}
