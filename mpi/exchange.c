/* exchange.c — how a rank gets the entries of x its rows need, planned once
 * in prepare, and its product: the ghost exchange (neighbours' entries by
 * point-to-point messages while the local block is multiplied: PETSc's
 * MPIAIJ design), the all-gather of x (the naive reference) and the 2-D
 * grid's gather along grid columns and sum along grid rows. Local blocks
 * are multiplied by cpu/'s nnz-balanced OpenMP kernel. The GPU ranks'
 * exchanges: exchange_gpu.c. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/spmv_cpu.h"
#include "dist_mpi.h"
#include "gpu/gpu.h"

/* Chunks of the diagonal block while ghosts are in flight: Open MPI moves
 * a large message (its rendezvous) only inside MPI calls, so a rank that
 * multiplied its whole block at once would expose the transfer after it;
 * testing between chunks lets it travel meanwhile. */
#define DIAG_CHUNKS 8

/* Whether rank p owns index i (map_owner's answer, without its search). */
static int owns(const dist_map *map, int p, spb_index i)
{
    return map->cyclic ? i % map->ranks == p : i >= map->begin[p] && i < map->end[p];
}

/* Ghost numbers over the window [lo, lo + span) of the columns the part's
 * ghosts fall in: of[j - lo] is column j's number + 1 (0: not a ghost). A
 * window, not every column: a rank of a banded matrix reaches a few
 * columns past its own, and every rank of a node holds one. */
typedef struct {
    spb_index lo, span;
    spb_index *of;
} ghost_window;

static spb_index ghost_number(const ghost_window *w, spb_index j)
{
    return j >= w->lo && j - w->lo < w->span ? w->of[j - w->lo] : 0;
}

/* Columns p owns inside the window, in order: the first, and the step. */
static spb_index first_owned(const dist_map *cols, int p, const ghost_window *w, spb_index *step)
{
    *step = cols->cyclic ? cols->ranks : 1;
    if (!cols->cyclic) return w->lo > cols->begin[p] ? w->lo : cols->begin[p];
    spb_index r = w->lo % cols->ranks;
    return w->lo + (p - r + cols->ranks) % cols->ranks;
}

/* The ghosts: the part's columns owned by other ranks, numbered by owner
 * and then column (each neighbour's ghosts together, in column order), as
 * keys owner << 32 | column, and the window that numbers them. Passes over
 * the entries (on the OpenMP threads) and the window: a sort of the
 * entries' keys took most of a large matrix's setup. */
static spb_status ghost_numbering(const dist_state *s, int64_t **keys, ghost_window *w,
                                  spb_index *count, char *msg)
{
    const spb_csr *P = &s->part;
    const dist_map *cols = &s->cols;
    spb_index lo = cols->count, hi = -1;
#pragma omp parallel for schedule(static) reduction(min : lo) reduction(max : hi)
    for (spb_index k = 0; k < P->nnz; k++) {
        spb_index j = P->col_idx[k];
        if (!owns(cols, s->rank, j)) {
            lo = j < lo ? j : lo;
            hi = j > hi ? j : hi;
        }
    }
    *keys = NULL;
    *w = (ghost_window){hi < 0 ? 0 : lo, hi < 0 ? 0 : hi - lo + 1, NULL};
    w->of = spb_calloc((size_t)w->span + 1, sizeof *w->of);
    if (!w->of) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for ghost columns");
#pragma omp parallel for schedule(static)
    for (spb_index k = 0; k < P->nnz; k++) { /* marked: 1, by any thread that meets it */
        spb_index j = P->col_idx[k];
        if (!owns(cols, s->rank, j)) {
#pragma omp atomic write
            w->of[j - w->lo] = 1;
        }
    }
    spb_index n = 0;
#pragma omp parallel for schedule(static) reduction(+ : n)
    for (spb_index c = 0; c < w->span; c++) n += w->of[c];
    *keys = spb_malloc((size_t)n, sizeof **keys);
    if (!*keys) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for ghost columns");
    spb_index g = 0, step;
    for (int p = 0; p < cols->ranks && w->span > 0; p++) {
        spb_index end = cols->cyclic ? cols->count : cols->end[p];
        for (spb_index j = first_owned(cols, p, w, &step); j < end && j - w->lo < w->span;
             j += step) {
            if (p == s->rank || !w->of[j - w->lo]) continue;
            (*keys)[g] = (int64_t)p << 32 | (uint32_t)j;
            w->of[j - w->lo] = ++g;
        }
    }
    *count = g;
    return SPB_OK;
}

/* The part split into the block of owned columns (local numbering) and the
 * ghost block (ghost numbering), the latter keeping only rows with ghosts. */
static spb_status split_part(dist_state *s, const ghost_window *w, spb_index ghosts, char *msg)
{
    spb_csr *P = &s->part;
    spb_index off_nnz = 0, off_rows = 0;
#pragma omp parallel for schedule(dynamic, 4096) reduction(+ : off_nnz, off_rows)
    for (spb_index i = 0; i < P->m; i++) {
        spb_index in_row = 0;
        for (spb_index k = P->row_ptr[i]; k < P->row_ptr[i + 1]; k++)
            in_row += ghost_number(w, P->col_idx[k]) != 0;
        off_nnz += in_row;
        off_rows += in_row > 0;
    }
    /* The diagonal block is compacted over the part's own arrays (an entry
     * moves to a place no later than its own, after it is read), which it
     * then takes: a copy of the matrix less per rank, and none at one rank
     * (making a rank's part and its blocks took most of an H200 study's 17 s
     * prepare a row, issue 61). PETSc builds its matrix from the part
     * afterwards: its part stays, and the block is a copy. */
    const int in_place = s->variant->exchange != DIST_PETSC;
    spb_index owned = map_owned(&s->cols, s->rank);
    spb_status st =
        in_place ? SPB_OK : csr_alloc(&s->ghost.diag, P->m, owned, P->nnz - off_nnz, msg);
    if (st == SPB_OK) st = csr_alloc(&s->ghost.off, off_rows, ghosts, off_nnz, msg);
    s->ghost.off_rows = spb_malloc((size_t)off_rows, sizeof *s->ghost.off_rows);
    if (st != SPB_OK || !s->ghost.off_rows)
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a rank's blocks");
    spb_csr *D = in_place ? P : &s->ghost.diag;
    spb_index d = 0, o = 0, r = 0, start = P->row_ptr[0];
    const int unmoved = in_place && off_nnz == 0; /* no ghosts: every entry stays */
    if (unmoved) {                                /* only the columns renumbered, on the threads */
#pragma omp parallel for schedule(static)
        for (spb_index k = 0; k < P->nnz; k++) P->col_idx[k] = map_local(&s->cols, P->col_idx[k]);
        d = P->nnz;
    }
    for (spb_index i = 0; i < P->m && !unmoved; i++) {
        spb_index before = o, end = P->row_ptr[i + 1];
        for (spb_index k = start; k < end; k++) {
            spb_index j = P->col_idx[k], ghost = ghost_number(w, j);
            if (!ghost) {
                D->col_idx[d] = map_local(&s->cols, j);
                D->val[d++] = P->val[k];
            } else {
                s->ghost.off.col_idx[o] = ghost - 1;
                s->ghost.off.val[o++] = P->val[k];
            }
        }
        D->row_ptr[i + 1] = d;
        start = end;
        if (o > before) {
            s->ghost.off_rows[r] = i;
            s->ghost.off.row_ptr[++r] = o;
        }
    }
    if (in_place) {
        s->ghost.diag = *P;
        s->ghost.diag.n = owned;
        s->ghost.diag.nnz = d;
        memset(P, 0, sizeof *P);
    }
    return SPB_OK;
}

/* Neighbours from counts per rank: ranks[k] and start[k] for the ranks
 * with a nonzero count (arrays of size + 1 made before). */
static int neighbours_of(const int *counts, int size, int *ranks, int *start)
{
    int found = 0;
    start[0] = 0;
    for (int p = 0; p < size; p++)
        if (counts[p] > 0) {
            ranks[found] = p;
            start[found + 1] = start[found] + counts[p];
            found++;
        }
    return found;
}

/* Which ghosts each neighbour sends: every rank tells each owner the
 * columns it needs (setup only; the products send values alone). Every
 * allocation a rank may fail is agreed on before the collective after it. */
static spb_status plan_messages(dist_state *s, const int64_t *keys, spb_index ghosts, char *msg)
{
    int size = s->size, *want = spb_calloc((size_t)size * 4, sizeof *want);
    spb_index *asked = spb_malloc((size_t)ghosts, sizeof *asked);
    s->ghost.recv_rank = spb_malloc((size_t)size, sizeof *s->ghost.recv_rank);
    s->ghost.send_rank = spb_malloc((size_t)size, sizeof *s->ghost.send_rank);
    s->ghost.recv_start = spb_malloc((size_t)size + 1, sizeof *s->ghost.recv_start);
    s->ghost.send_start = spb_malloc((size_t)size + 1, sizeof *s->ghost.send_start);
    spb_status st = want && asked && s->ghost.recv_rank && s->ghost.send_rank &&
                            s->ghost.recv_start && s->ghost.send_start
                        ? SPB_OK
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the exchange plan");
    if ((st = dist_agree(s->comm, st, msg)) != SPB_OK) {
        spb_free(want);
        spb_free(asked);
        return st;
    }
    int *give = want + size, *want_at = want + 2 * size, *give_at = want + 3 * size;
    for (spb_index g = 0; g < ghosts; g++) want[keys[g] >> 32]++;
    MPI_Alltoall(want, 1, MPI_INT, give, 1, MPI_INT, s->comm);
    s->ghost.recvs = neighbours_of(want, size, s->ghost.recv_rank, s->ghost.recv_start);
    s->ghost.sends = neighbours_of(give, size, s->ghost.send_rank, s->ghost.send_start);
    s->ghost.links = 0;
    for (int p = 0; p < size; p++) s->ghost.links += want[p] > 0 || give[p] > 0;
    int total = s->ghost.send_start[s->ghost.sends];
    s->ghost.send_idx = spb_malloc((size_t)total, sizeof *s->ghost.send_idx);
    s->ghost.send_buf = spb_malloc((size_t)total, sizeof *s->ghost.send_buf);
    size_t pending = (size_t)s->ghost.sends + (size_t)s->ghost.recvs;
    s->ghost.requests = spb_malloc(pending, sizeof(MPI_Request));
    if (!s->ghost.send_idx || !s->ghost.send_buf || !s->ghost.requests)
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the exchange plan");
    st = dist_agree(s->comm, st, msg);
    if (st == SPB_OK) {
        for (int p = 1; p < size; p++) {
            want_at[p] = want_at[p - 1] + want[p - 1];
            give_at[p] = give_at[p - 1] + give[p - 1];
        }
        for (spb_index g = 0; g < ghosts; g++) asked[g] = (spb_index)(uint32_t)keys[g];
        MPI_Alltoallv(asked, want, want_at, MPI_INT, s->ghost.send_idx, give, give_at, MPI_INT,
                      s->comm);
        for (int t = 0; t < total; t++)
            s->ghost.send_idx[t] = map_local(&s->cols, s->ghost.send_idx[t]);
    }
    spb_free(asked);
    spb_free(want);
    return st;
}

/* Rank 0's figures: bytes each rank sends per product, neighbours, and
 * the entries each rank stores (`stored`: its part's; max over mean). */
static void plan_stats(dist_state *s, double bytes_sent, int neighbours, double stored)
{
    double mine[3] = {bytes_sent, neighbours, stored}, most[3], sum[3];
    MPI_Reduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, 0, s->comm);
    MPI_Reduce(mine, sum, 3, MPI_DOUBLE, MPI_SUM, 0, s->comm);
    if (s->rank != 0) return;
    s->stats.bytes_max = most[0];
    s->stats.bytes_mean = sum[0] / s->size;
    s->stats.neighbours = most[1];
    s->stats.imbalance = sum[2] > 0 ? most[2] / (sum[2] / s->size) : 1.0;
}

/* x's owned entries and y's, for every exchange, and `other` entries of x
 * from other ranks; on rank 0 also x and y in rank order (whole products
 * scatter x from it and gather y to it). */
static spb_status own_vectors(dist_state *s, spb_index other, char *msg)
{
    s->x_own = spb_calloc((size_t)map_owned(&s->cols, s->rank), sizeof *s->x_own);
    s->y_own = spb_calloc((size_t)map_owned(&s->rows, s->rank), sizeof *s->y_own);
    s->x_other = spb_calloc((size_t)other, sizeof *s->x_other);
    int ok = s->x_own && s->y_own && s->x_other;
    if (s->rank == 0) {
        spb_index most = s->rows.count > s->cols.count ? s->rows.count : s->cols.count;
        s->scatter_buf = spb_malloc((size_t)most, sizeof *s->scatter_buf);
        s->scatter_counts = spb_malloc((size_t)s->size, sizeof *s->scatter_counts);
        s->scatter_displs = spb_malloc((size_t)s->size, sizeof *s->scatter_displs);
        ok = ok && s->scatter_buf && s->scatter_counts && s->scatter_displs;
    }
    return ok ? SPB_OK : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a rank's vectors");
}

/* The diagonal block's row view over rows [first, last) (row_ptr offsets
 * stay absolute, so entries are shared). */
static spb_csr diag_rows(const dist_state *s, spb_index first, spb_index last)
{
    spb_csr view = s->ghost.diag;
    view.row_ptr = s->ghost.diag.row_ptr + first;
    view.m = last - first;
    return view;
}

/* DIAG_CHUNKS nnz-balanced row chunks of the diagonal block when messages
 * travel during it (one chunk otherwise), each partitioned over the threads. */
static spb_status chunk_diag(dist_state *s, char *msg)
{
    int chunks =
        s->ghost.sends + s->ghost.recvs > 0 && s->ghost.diag.m >= DIAG_CHUNKS ? DIAG_CHUNKS : 1;
    spb_row_partition bounds = {0};
    spb_status st = partition_rows_by_nnz(&s->ghost.diag, chunks, &bounds, msg);
    s->ghost.chunk_first = spb_malloc((size_t)chunks + 1, sizeof *s->ghost.chunk_first);
    s->ghost.chunk_part = spb_calloc((size_t)chunks, sizeof *s->ghost.chunk_part);
    if (st == SPB_OK && (!s->ghost.chunk_first || !s->ghost.chunk_part))
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the block's chunks");
    s->ghost.chunks = st == SPB_OK ? bounds.parts : 0;
    for (int c = 0; c <= s->ghost.chunks && st == SPB_OK; c++)
        s->ghost.chunk_first[c] = bounds.first[c];
    for (int c = 0; c < s->ghost.chunks && st == SPB_OK; c++) {
        spb_csr view = diag_rows(s, s->ghost.chunk_first[c], s->ghost.chunk_first[c + 1]);
        st = partition_rows_by_nnz(&view, s->threads, &s->ghost.chunk_part[c], msg);
    }
    partition_free(&bounds);
    return st;
}

static spb_status ghost_plan(dist_state *s, char *msg)
{
    int64_t *keys = NULL;
    spb_index ghosts = 0;
    ghost_window window = {0, 0, NULL};
    spb_status st = ghost_numbering(s, &keys, &window, &ghosts, msg);
    if (st == SPB_OK) st = split_part(s, &window, ghosts, msg);
    spb_free(window.of);
    if (st == SPB_OK) st = own_vectors(s, ghosts, msg);
    if ((st = dist_agree(s->comm, st, msg)) == SPB_OK) st = plan_messages(s, keys, ghosts, msg);
    if (st == SPB_OK) st = dist_agree(s->comm, chunk_diag(s, msg), msg);
    spb_free(keys);
    if (st != SPB_OK) return st;
    plan_stats(s, 8.0 * s->ghost.send_start[s->ghost.sends], s->ghost.links,
               (double)s->ghost.diag.nnz + s->ghost.off.nnz);
    return SPB_OK;
}

/* Counts and displacements of a collective over a communicator of `size`
 * ranks: made before the ranks agree, filled (collectively) after. */
static int *alloc_counts(int size, int **displs)
{
    int *counts = spb_malloc((size_t)size, sizeof *counts);
    *displs = spb_malloc((size_t)size, sizeof **displs);
    return counts;
}

static void fill_counts(MPI_Comm comm, int count, int *counts, int *displs)
{
    int size;
    MPI_Comm_size(comm, &size);
    MPI_Allgather(&count, 1, MPI_INT, counts, 1, MPI_INT, comm);
    displs[0] = 0;
    for (int p = 1; p < size; p++) displs[p] = displs[p - 1] + counts[p - 1];
}

/* The row-per-thread partition of the block a rank multiplies whole (the
 * all-gather and 2-D exchanges): s->part becomes s->gather.whole. */
static spb_status whole_block(dist_state *s, char *msg)
{
    spb_status st = partition_rows_by_nnz(&s->part, s->threads, &s->gather.whole_part, msg);
    if (st != SPB_OK) return st;
    s->gather.whole = s->part;
    memset(&s->part, 0, sizeof s->part);
    return SPB_OK;
}

/* All of x on every rank, in rank order: the block's columns renumbered to
 * their place in the gathered x. */
static spb_status allgather_plan(dist_state *s, char *msg)
{
    spb_index owned = map_owned(&s->cols, s->rank);
    s->gather.counts = alloc_counts(s->size, &s->gather.displs);
    spb_status st = s->gather.counts && s->gather.displs
                        ? SPB_OK
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for counts");
    if (st == SPB_OK) st = own_vectors(s, s->cols.count, msg);
    if (st == SPB_OK) st = whole_block(s, msg);
    if ((st = dist_agree(s->comm, st, msg)) != SPB_OK) return st;
    fill_counts(s->comm, owned, s->gather.counts, s->gather.displs);
    spb_csr *W = &s->gather.whole;
    for (spb_index k = 0; k < W->nnz; k++) {
        spb_index j = W->col_idx[k];
        W->col_idx[k] = s->gather.displs[map_owner(&s->cols, j)] + map_local(&s->cols, j);
    }
    plan_stats(s, 8.0 * owned * (s->size - 1), s->size - 1, W->nnz);
    return SPB_OK;
}

/* 2-D: x's column block gathered along the grid column, the block's
 * partial y summed along the grid row into each rank's piece. */
static spb_status grid_plan(dist_state *s, char *msg)
{
    spb_index owned_x = map_owned(&s->cols, s->rank), owned_y = map_owned(&s->rows, s->rank);
    int *row_displs = NULL;
    s->gather.counts = alloc_counts(s->grid.p, &s->gather.displs);
    s->grid.rs_counts = alloc_counts(s->grid.q, &row_displs);
    s->grid.y_block = spb_calloc((size_t)s->part.m, sizeof *s->grid.y_block);
    spb_status st =
        s->gather.counts && s->gather.displs && s->grid.rs_counts && row_displs && s->grid.y_block
            ? SPB_OK
            : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the grid's vectors");
    if (st == SPB_OK) st = own_vectors(s, s->part.n, msg);
    if (st == SPB_OK) st = whole_block(s, msg);
    if ((st = dist_agree(s->comm, st, msg)) == SPB_OK) {
        fill_counts(s->grid.col, owned_x, s->gather.counts, s->gather.displs);
        fill_counts(s->grid.row, owned_y, s->grid.rs_counts, row_displs);
        double sent = 8.0 * owned_x * (s->grid.p - 1) + 8.0 * (s->gather.whole.m - owned_y);
        plan_stats(s, sent, (s->grid.p - 1) + (s->grid.q - 1), s->gather.whole.nnz);
    }
    spb_free(row_displs);
    return st;
}

spb_status exchange_plan(dist_state *s, char *msg)
{
    spb_status st;
    switch (s->variant->exchange) {
    case DIST_ALLGATHER: st = allgather_plan(s, msg); break;
    case DIST_GRID_COMM: st = grid_plan(s, msg); break;
    case DIST_GPU_STAGED:
    case DIST_GPU_NCCL:
    case DIST_GPU_PEER:
        st = ghost_plan(s, msg);
        if (st == SPB_OK) st = exchange_gpu_plan(s, msg);
        break;
    default: st = ghost_plan(s, msg); break;
    }
    if (st == SPB_OK && s->variant->exchange != DIST_PETSC) csr_free(&s->part);
    return st;
}

/* y += O * ghosts over the rows that have ghosts. */
static void off_block_add(const dist_state *s)
{
    const spb_csr *O = &s->ghost.off;
#pragma omp parallel for num_threads(s->threads) schedule(static)
    for (spb_index r = 0; r < O->m; r++)
        s->y_own[s->ghost.off_rows[r]] +=
            csr_row_dot(O->col_idx, O->val, O->row_ptr[r], O->row_ptr[r + 1], s->x_other);
}

static void ghost_product(dist_state *s)
{
    exchange_post_receives(s);
    for (int t = 0; t < s->ghost.send_start[s->ghost.sends]; t++)
        s->ghost.send_buf[t] = s->x_own[s->ghost.send_idx[t]];
    exchange_post_sends(s);
    int pending = s->ghost.recvs + s->ghost.sends;
    for (int c = 0; c < s->ghost.chunks; c++) {
        double start = MPI_Wtime();
        spb_csr view = diag_rows(s, s->ghost.chunk_first[c], s->ghost.chunk_first[c + 1]);
        csr_omp_nnz_spmv(&view, view.val, &s->ghost.chunk_part[c], s->x_own,
                         s->y_own + s->ghost.chunk_first[c]);
        s->local_compute += MPI_Wtime() - start;
        int done = 0; /* completes none unless all are: the waits below still see them */
        if (pending) MPI_Testall(pending, s->ghost.requests, &done, MPI_STATUSES_IGNORE);
        if (done) pending = 0;
    }
    MPI_Waitall(s->ghost.recvs, s->ghost.requests, MPI_STATUSES_IGNORE);
    double start = MPI_Wtime();
    off_block_add(s);
    s->local_compute += MPI_Wtime() - start;
    MPI_Waitall(s->ghost.sends, s->ghost.requests + s->ghost.recvs, MPI_STATUSES_IGNORE);
}

void exchange_product(dist_state *s)
{
    if (s->variant->exchange == DIST_GHOST) {
        ghost_product(s);
        return;
    }
    if (s->gpu.block) {
        exchange_gpu_product(s);
        return;
    }
    int grid = s->variant->exchange == DIST_GRID_COMM;
    MPI_Allgatherv(s->x_own, map_owned(&s->cols, s->rank), MPI_DOUBLE, s->x_other, s->gather.counts,
                   s->gather.displs, MPI_DOUBLE, grid ? s->grid.col : s->comm);
    double start = MPI_Wtime();
    csr_omp_nnz_spmv(&s->gather.whole, s->gather.whole.val, &s->gather.whole_part, s->x_other,
                     grid ? s->grid.y_block : s->y_own);
    s->local_compute += MPI_Wtime() - start;
    if (grid)
        MPI_Reduce_scatter(s->grid.y_block, s->y_own, s->grid.rs_counts, MPI_DOUBLE, MPI_SUM,
                           s->grid.row);
}

void exchange_free(dist_state *s)
{
    if (s->gpu.peer_exported) { /* nothing a neighbour opened is freed before it closed it */
        gpu_block_peer_close(s->gpu.block);
        MPI_Barrier(s->comm);
        s->gpu.peer_exported = 0;
    }
    gpu_block_free(s->gpu.block);
    s->gpu.block = NULL;
    csr_free(&s->ghost.diag);
    csr_free(&s->ghost.off);
    csr_free(&s->gather.whole);
    for (int c = 0; c < s->ghost.chunks; c++) partition_free(&s->ghost.chunk_part[c]);
    s->ghost.chunks = 0;
    partition_free(&s->gather.whole_part);
    void *arrays[] = {s->ghost.chunk_first, s->ghost.chunk_part,
                      s->ghost.off_rows,    s->x_own,
                      s->x_other,           s->y_own,
                      s->grid.y_block,      s->ghost.send_rank,
                      s->ghost.send_start,  s->ghost.recv_rank,
                      s->ghost.recv_start,  s->ghost.send_idx,
                      s->ghost.send_buf,    s->ghost.requests,
                      s->gather.counts,     s->gather.displs,
                      s->grid.rs_counts,    s->scatter_buf,
                      s->scatter_counts,    s->scatter_displs};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++) spb_free(arrays[k]);
}

/* Rank 0's counts and displacements of a map in rank order. */
static void scatter_layout(dist_state *s, const dist_map *map)
{
    for (int p = 0; p < s->size; p++) {
        s->scatter_counts[p] = map_owned(map, p);
        s->scatter_displs[p] = p ? s->scatter_displs[p - 1] + s->scatter_counts[p - 1] : 0;
    }
}

void exchange_scatter_x(dist_state *s, const spb_value *x)
{
    if (s->rank == 0) {
        scatter_layout(s, &s->cols);
        for (int p = 0; p < s->size; p++)
            for (spb_index l = 0; l < s->scatter_counts[p]; l++)
                s->scatter_buf[s->scatter_displs[p] + l] = x[map_global(&s->cols, p, l)];
    }
    MPI_Scatterv(s->scatter_buf, s->scatter_counts, s->scatter_displs, MPI_DOUBLE, s->x_own,
                 map_owned(&s->cols, s->rank), MPI_DOUBLE, 0, s->comm);
    char msg[SPB_MSG_LEN] = "";
    if (s->gpu.block)
        exchange_keep_gpu_failure(s, gpu_block_set_x(s->gpu.block, s->x_own, msg), msg);
}

void exchange_gather_y(dist_state *s, spb_value *y)
{
    char msg[SPB_MSG_LEN] = "";
    if (s->gpu.block)
        exchange_keep_gpu_failure(s, gpu_block_get_y(s->gpu.block, s->y_own, msg), msg);
    if (s->rank == 0) scatter_layout(s, &s->rows);
    MPI_Gatherv(s->y_own, map_owned(&s->rows, s->rank), MPI_DOUBLE, s->scatter_buf,
                s->scatter_counts, s->scatter_displs, MPI_DOUBLE, 0, s->comm);
    if (s->rank != 0) return;
    for (int p = 0; p < s->size; p++)
        for (spb_index l = 0; l < s->scatter_counts[p]; l++)
            y[map_global(&s->rows, p, l)] = s->scatter_buf[s->scatter_displs[p] + l];
}
