/* order.c — reverse Cuthill-McKee and the symmetric permutation of a CSR
 * matrix (order.h). */
#include "order.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/memory.h"

/* The pattern of A + A^T without its diagonal: each vertex's neighbours. */
typedef struct {
    spb_index m;
    spb_index *ptr, *adj;
} graph;

static void graph_free(graph *g)
{
    spb_free(g->ptr);
    spb_free(g->adj);
}

/* Row i of A and row i of A^T merged (both ascend), i itself left out; with
 * `out` NULL only counted. */
static spb_index merged_row(const spb_csr *A, const spb_csr *T, spb_index i, spb_index *out)
{
    spb_index a = A->row_ptr[i], a_end = A->row_ptr[i + 1];
    spb_index t = T->row_ptr[i], t_end = T->row_ptr[i + 1], count = 0;
    while (a < a_end || t < t_end) {
        spb_index j;
        if (t == t_end || (a < a_end && A->col_idx[a] < T->col_idx[t]))
            j = A->col_idx[a++];
        else if (a == a_end || T->col_idx[t] < A->col_idx[a])
            j = T->col_idx[t++];
        else
            j = A->col_idx[a++], t++;
        if (j == i) continue;
        if (out) out[count] = j;
        count++;
    }
    return count;
}

static spb_status graph_of(const spb_csr *A, graph *g, char *msg)
{
    memset(g, 0, sizeof *g);
    spb_csr T;
    spb_status st = csr_transpose(A, &T, msg);
    if (st != SPB_OK) return st;
    g->m = A->m;
    g->ptr = spb_malloc((size_t)A->m + 1, sizeof *g->ptr);
    int64_t edges = 0;
    if (g->ptr) { /* each vertex's degree on the threads, then their sums in order */
        g->ptr[0] = 0;
#pragma omp parallel for schedule(dynamic, 1024)
        for (spb_index i = 0; i < A->m; i++) g->ptr[i + 1] = merged_row(A, &T, i, NULL);
        for (spb_index i = 0; i < A->m; i++) {
            edges += g->ptr[i + 1];
            g->ptr[i + 1] = (spb_index)(edges < SPB_INDEX_MAX ? edges : SPB_INDEX_MAX);
        }
    }
    if (g->ptr && edges < SPB_INDEX_MAX) g->adj = spb_malloc((size_t)edges + 1, sizeof *g->adj);
    if (g->adj) {
#pragma omp parallel for schedule(dynamic, 1024)
        for (spb_index i = 0; i < A->m; i++) merged_row(A, &T, i, g->adj + g->ptr[i]);
    }
    csr_free(&T);
    if (g->adj) return SPB_OK;
    graph_free(g);
    if (edges >= SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE, "the graph of A + A^T has %lld edges, past %d",
                        (long long)edges, SPB_INDEX_MAX);
    return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the graph of A + A^T (%lld edges)",
                    (long long)edges);
}

/* The graph and the renumbering walk 32-bit row offsets. */
static spb_status wide_declined(char *msg)
{
    return spb_fail(msg, SPB_ERR_DECLINED, "the renumbering takes 32-bit row offsets");
}

/* `status`: SPB_ERR_INVALID from the functions that take a square A,
 * SPB_ERR_DECLINED from a row's renumbering (the matrix is not wrong). */
static spb_status not_square(const spb_csr *A, spb_status status, char *msg)
{
    return spb_fail(msg, status,
                    "a %d x %d matrix: rows and columns are renumbered together only in a square "
                    "one",
                    (int)A->m, (int)A->n);
}

static spb_index degree(const graph *g, spb_index v) { return g->ptr[v + 1] - g->ptr[v]; }

/* A level of this many vertices or more is expanded on the threads. */
#define LEVEL_ON_THREADS 1024
/* Vertices a thread gathers before it takes room for them in the queue. */
#define LEVEL_BATCH 256

/* The level after queue[head, tail) on the threads: each neighbour not
 * stamped `mark` is claimed by the first thread to stamp it and appended;
 * the new end returned. The order within the level is any (levels_from's
 * callers depend on none). */
static spb_index next_level_threads(const graph *g, spb_index *queue, spb_index head,
                                    spb_index tail, int *stamp, int mark)
{
    spb_index end = tail;
#pragma omp parallel
    {
        spb_index batch[LEVEL_BATCH];
        int count = 0;
#pragma omp for schedule(dynamic, 64) nowait
        for (spb_index q = head; q < tail; q++) {
            const spb_index v = queue[q];
            for (spb_index k = g->ptr[v]; k < g->ptr[v + 1]; k++) {
                const spb_index u = g->adj[k];
                if (__atomic_load_n(&stamp[u], __ATOMIC_RELAXED) == mark ||
                    __atomic_exchange_n(&stamp[u], mark, __ATOMIC_RELAXED) == mark)
                    continue;
                batch[count++] = u;
                if (count == LEVEL_BATCH) {
                    const spb_index at = __atomic_fetch_add(&end, count, __ATOMIC_RELAXED);
                    memcpy(queue + at, batch, sizeof batch);
                    count = 0;
                }
            }
        }
        const spb_index at = __atomic_fetch_add(&end, count, __ATOMIC_RELAXED);
        memcpy(queue + at, batch, sizeof *batch * (size_t)count);
    }
    return end;
}

/* Breadth first from `start` over the vertices whose stamp differs from
 * `mark` (stamped as reached): the part's vertices into queue, the number of
 * levels returned, where the last level starts at *last. */
static spb_index levels_from(const graph *g, spb_index start, int *stamp, int mark,
                             spb_index *queue, spb_index *size, spb_index *last)
{
    spb_index head = 0, tail = 0, levels = 0;
    queue[tail++] = start;
    stamp[start] = mark;
    while (head < tail) {
        const spb_index level_end = tail;
        *last = head;
        levels++;
        if (level_end - head >= LEVEL_ON_THREADS) {
            tail = next_level_threads(g, queue, head, level_end, stamp, mark);
            head = level_end;
            continue;
        }
        for (; head < level_end; head++) {
            const spb_index v = queue[head];
            for (spb_index k = g->ptr[v]; k < g->ptr[v + 1]; k++)
                if (stamp[g->adj[k]] != mark) {
                    stamp[g->adj[k]] = mark;
                    queue[tail++] = g->adj[k];
                }
        }
    }
    *size = tail;
    return levels;
}

static int by_key(const void *a, const void *b)
{
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* keys ascending (no two equal: each holds its vertex). A vertex has few new
 * neighbours: they are sorted by insertion, without qsort's call per
 * comparison (a fifth to a quarter of the Cuthill-McKee pass). */
static void sort_keys(int64_t *keys, spb_index count)
{
    if (count > 32) {
        qsort(keys, (size_t)count, sizeof *keys, by_key);
        return;
    }
    for (spb_index a = 1; a < count; a++) {
        const int64_t key = keys[a];
        spb_index b = a;
        for (; b > 0 && keys[b - 1] > key; b--) keys[b] = keys[b - 1];
        keys[b] = key;
    }
}

/* George-Liu: from the part's lowest vertex `first`, move to a least-degree
 * vertex of the last level (the lowest such) while that adds levels; the start returned.
 * Stamps 2, 3, ... mark the searches (the part's vertices are all placed,
 * stamped 1, before the next part is searched). */
static spb_index part_start(const graph *g, spb_index first, int *stamp, spb_index *queue)
{
    int mark = 2;
    spb_index root = first, size = 0, last = 0;
    spb_index levels = levels_from(g, root, stamp, mark, queue, &size, &last);
    for (int tries = 0; tries < 8; tries++) {
        spb_index pick = queue[last]; /* least degree, then lowest index: any level order */
        for (spb_index q = last; q < size; q++)
            if (degree(g, queue[q]) < degree(g, pick) ||
                (degree(g, queue[q]) == degree(g, pick) && queue[q] < pick))
                pick = queue[q];
        spb_index size2 = 0, last2 = 0;
        spb_index levels2 = levels_from(g, pick, stamp, ++mark, queue, &size2, &last2);
        if (levels2 <= levels) break;
        root = pick, levels = levels2, size = size2, last = last2;
    }
    return root;
}

/* Cuthill-McKee from root: each placed vertex's unplaced neighbours, by
 * rising degree, appended at order[placed..]; the new count returned. */
static spb_index cuthill_mckee(const graph *g, spb_index root, int *stamp, int64_t *keys,
                               spb_index *order, spb_index placed)
{
    spb_index head = placed;
    order[placed++] = root;
    stamp[root] = 1;
    while (head < placed) {
        const spb_index v = order[head++];
        spb_index count = 0;
        for (spb_index k = g->ptr[v]; k < g->ptr[v + 1]; k++) {
            const spb_index w = g->adj[k];
            if (stamp[w] == 1) continue;
            stamp[w] = 1;
            keys[count++] = ((int64_t)degree(g, w) << 32) | (int64_t)w;
        }
        sort_keys(keys, count);
        for (spb_index c = 0; c < count; c++) order[placed++] = (spb_index)(keys[c] & 0xffffffff);
    }
    return placed;
}

spb_status csr_rcm_order(const spb_csr *A, spb_index *order, char *msg)
{
    if (A->m != A->n) return not_square(A, SPB_ERR_INVALID, msg);
    if (csr_wide(A)) return wide_declined(msg);
    graph g;
    spb_status st = graph_of(A, &g, msg);
    if (st != SPB_OK) return st;
    const spb_index m = A->m;
    spb_index max_degree = 0;
    for (spb_index v = 0; v < m; v++)
        if (degree(&g, v) > max_degree) max_degree = degree(&g, v);
    int *stamp = spb_calloc((size_t)m + 1, sizeof *stamp); /* 0: not yet in the order */
    spb_index *queue = spb_malloc((size_t)m + 1, sizeof *queue);
    int64_t *keys = spb_malloc((size_t)max_degree + 1, sizeof *keys);
    if (stamp && queue && keys) {
        spb_index placed = 0;
        for (spb_index first = 0; first < m; first++)
            if (stamp[first] != 1)
                placed = cuthill_mckee(&g, part_start(&g, first, stamp, queue), stamp, keys, order,
                                       placed);
        for (spb_index i = 0; i < m / 2; i++) { /* reversed: Cuthill-McKee's profile is worse */
            const spb_index t = order[i];
            order[i] = order[m - 1 - i];
            order[m - 1 - i] = t;
        }
    } else
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the ordering of %d rows", (int)m);
    spb_free(stamp);
    spb_free(queue);
    spb_free(keys);
    graph_free(&g);
    return st;
}

spb_status csr_permute(const spb_csr *A, const spb_index *order, spb_csr *B, char *msg)
{
    if (A->m != A->n) return not_square(A, SPB_ERR_INVALID, msg);
    if (csr_wide(A)) return wide_declined(msg);
    spb_status st = csr_real_only(A, "the renumbering", msg);
    char detail[64];
    snprintf(detail, sizeof detail, "a copy of %lld entries", (long long)A->nnz);
    if (st == SPB_OK)
        st = spb_memory_check(12.0 * (double)A->nnz + 8.0 * ((double)A->m + 1.0),
                              "the renumbered matrix", detail, msg);
    if (st == SPB_OK) st = csr_alloc(B, A->m, A->n, A->nnz, msg);
    if (st != SPB_OK) return st;
    for (spb_index i = 0; i < A->m; i++)
        B->row_ptr[i + 1] = B->row_ptr[i] + (A->row_ptr[order[i] + 1] - A->row_ptr[order[i]]);
    spb_index *new_of = spb_malloc((size_t)A->m + 1, sizeof *new_of);
    if (!new_of) {
        csr_free(B);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the renumbering of %d rows",
                        (int)A->m);
    }
    /* rows renumbered on the OpenMP threads, then sorted (csr_sort_rows) */
    for (spb_index i = 0; i < A->m; i++) new_of[order[i]] = i;
#pragma omp parallel for schedule(dynamic, 1024)
    for (spb_index i = 0; i < A->m; i++) {
        const spb_index from = A->row_ptr[order[i]], to = B->row_ptr[i];
        for (spb_index k = 0; k < B->row_ptr[i + 1] - to; k++) {
            B->col_idx[to + k] = new_of[A->col_idx[from + k]];
            B->val[to + k] = A->val[from + k];
        }
    }
    spb_free(new_of);
    st = csr_sort_rows(B, msg);
    if (st != SPB_OK) csr_free(B);
    return st;
}

spb_status csr_renumber_rcm(const spb_csr *A, spb_renumbered *R, char *msg)
{
    memset(R, 0, sizeof *R);
    if (A->m != A->n) return not_square(A, SPB_ERR_DECLINED, msg);
    spb_status st = csr_real_only(A, "the renumbering", msg);
    if (st != SPB_OK) return st;
    R->order = spb_malloc((size_t)A->m + 1, sizeof *R->order);
    st = R->order
             ? csr_rcm_order(A, R->order, msg)
             : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the ordering of %d rows", (int)A->m);
    if (st == SPB_OK) st = csr_permute(A, R->order, &R->csr, msg);
    if (st != SPB_OK) renumbered_free(R);
    return st;
}

void renumbered_free(spb_renumbered *R)
{
    csr_free(&R->csr);
    spb_free(R->order);
    memset(R, 0, sizeof *R);
}

spb_index csr_bandwidth(const spb_csr *A)
{
    spb_index widest = 0;
    for (spb_index i = 0; i < A->m; i++)
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            const spb_index d = A->col_idx[k] > i ? A->col_idx[k] - i : i - A->col_idx[k];
            if (d > widest) widest = d;
        }
    return widest;
}
