/* dist_mpi.h — the MPI side of the distributed rows (built only with MPI):
 * rank 0's commands to the others, index ownership, a rank's part of the
 * matrix and its exchange plan. */
#ifndef SPB_DIST_MPI_H
#define SPB_DIST_MPI_H

#include <mpi.h>

#include "cpu/partition.h"
#include "dist_internal.h"

/* ---- commands (runtime.c) ---- */

typedef enum { CMD_QUIT, CMD_PREPARE, CMD_PRODUCT, CMD_TIME, CMD_RELEASE } dist_op;

typedef struct {
    int op;
    int kernel; /* the row's index in dist_spmv_kernels */
    int ranks;  /* the first `ranks` ranks of the world take part */
    int threads;
    int calls;                 /* CMD_TIME: products to time */
    unsigned long long matrix; /* CMD_PREPARE: rank 0's format set's serial (which matrix) */
} dist_command;

/* Rank 0: the command to every rank of the world. */
void dist_send_command(const dist_command *cmd);

/* The world rank of this process. */
int dist_world_rank(void);

/* ---- agreeing on a failure (agree.c) ---- */

/* Every rank of comm learns whether all succeeded; the first rank that
 * failed passes its status and message to rank 0, which prefixes "rank R
 * of P: ". Returns that status on every rank (SPB_OK when none failed). */
spb_status dist_agree(MPI_Comm comm, spb_status st, char *msg);

/* comm's ranks on this rank's node (collective): how many, and this rank's
 * place among them (local, when not NULL). */
int dist_node_ranks(MPI_Comm comm, int *local);

/* ---- who owns which index (layout.c) ---- */

/* An index space of `count` entries over `ranks` ranks: rank p owns the
 * range [begin[p], end[p]) (ranges may come in any rank order), or under
 * `cyclic` every index i with i mod ranks == p. */
typedef struct {
    int ranks, cyclic;
    spb_index count;
    spb_index *begin, *end; /* size ranks (NULL when cyclic) */
} dist_map;

spb_index map_owned(const dist_map *map, int p);               /* how many p owns */
spb_index map_global(const dist_map *map, int p, spb_index l); /* p's l-th index */
int map_owner(const dist_map *map, spb_index i);               /* ranges in rank order */
spb_index map_local(const dist_map *map, spb_index i);         /* i's place at its owner */
void map_free(dist_map *map);

/* ---- a rank's part (layout.c, exchange.c) ---- */

/* The ghost exchange (mpi.rows, mpi.nnz, mpi.cyclic; the GPU rows' plan):
 * the columns this rank owns (diag) and the ghosts, in compressed rows
 * (off rows listed in off_rows); ghosts from each neighbour by messages. */
typedef struct {
    spb_csr diag, off;
    spb_index *off_rows;
    /* the diagonal block in row chunks (rows chunk_first[c] ..
     * chunk_first[c+1]), each with its rows per thread: between chunks the
     * rank lets MPI progress the exchange in flight */
    int chunks;
    spb_index *chunk_first;
    spb_row_partition *chunk_part;
    /* neighbour k receives send_idx[send_start[k] .. send_start[k+1]) of
     * x_own; ghosts of neighbour k arrive at x_other[recv_start[k]] */
    int sends, recvs, links; /* links: ranks sent to or received from */
    int *send_rank, *send_start, *recv_rank, *recv_start;
    spb_index *send_idx;
    spb_value *send_buf;
    MPI_Request *requests;
} dist_ghost;

/* The all-gather (mpi.rows.allgather) and the 2-D grid's gather: the
 * rank's block multiplied whole, its columns in the gathered x's order. */
typedef struct {
    spb_csr whole;
    spb_row_partition whole_part; /* rows per thread */
    int *counts, *displs;         /* the gather's, per rank of its communicator */
} dist_gather;

/* The 2-D grid (mpi.grid2d): x gathered along the rank's grid column
 * (dist_gather), the block's y summed along its grid row. */
typedef struct {
    MPI_Comm row, col; /* the ranks of this rank's grid row and column */
    int p, q;
    int *rs_counts;     /* y's pieces along the grid row */
    spb_value *y_block; /* the block's partial y */
} dist_grid;

/* The GPU rows (mpi.cuda.*): this rank's blocks on its GPU, beside the
 * ghost plan; the first failure of its products; whether the peer
 * exchange exported its buffer (then every rank of the row closes what it
 * opened, and waits for the others, before freeing its own). */
typedef struct {
    struct gpu_block *block;
    spb_status status;
    char msg[SPB_MSG_LEN];
    int peer_exported;
} dist_gpu;

/* A rank's state in a distributed row: what every exchange shares, then
 * each exchange's own (only the row's exchange fills its part). */
typedef struct {
    const dist_variant *variant;
    const char *row; /* the row's name */
    MPI_Comm comm;   /* the first `size` ranks of the world */
    int rank, size, threads;
    unsigned long long matrix; /* which matrix (dist_command) */
    dist_map rows, cols;       /* ownership of y (and A's rows) and of x */
    spb_csr part; /* this rank's rows, global columns as received (freed once planned) */
    spb_value *x_own, *x_other, *y_own; /* x_other: ghosts, or the gathered x or column block */
    dist_ghost ghost;
    dist_gather gather;
    dist_grid grid;
    dist_gpu gpu;
    void *petsc; /* petsc.c's objects */
    /* rank 0: per timed sample, the most compute, exposed communication
     * and (GPU rows) exchange time of any rank, per product (medians
     * reported) */
    double *sample[DIST_SERIES];
    int samples, sample_cap;
    /* this rank, over the current TIME command: compute, the exchange, and
     * the staged exchange's legs */
    double local_compute, local_exchange, local_to_host, local_mpi, local_to_device;
    spb_dist_stats stats;
    spb_value *scatter_buf; /* rank 0: x and y in rank order for scatter and gather */
    int *scatter_counts, *scatter_displs;
} dist_state;

/* Makes the ownership maps and sends each rank its rows (rank 0 reads A);
 * every rank ends with s->part. Collective over s->comm. */
spb_status layout_distribute(dist_state *s, const spb_csr *A, char *msg);
void layout_free(dist_state *s);

/* The plan of the row's exchange from s->part (collective), its
 * statistics into s->stats (on rank 0), and one product on distributed
 * data (x in s->x_own, y into s->y_own). */
spb_status exchange_plan(dist_state *s, char *msg);
void exchange_product(dist_state *s);
void exchange_free(dist_state *s);

/* The GPU rows' part (exchange_gpu.c): the blocks on the rank's GPU and
 * the row's exchange over the ghost plan; a product; the first failure of
 * a rank's device calls kept for the row's check. The ghost messages
 * (ghost_messages.c): receives into s->x_other, sends of the packed
 * send_buf. */
spb_status exchange_gpu_plan(dist_state *s, char *msg);
void exchange_gpu_product(dist_state *s);
void exchange_keep_gpu_failure(dist_state *s, spb_status st, const char *msg);
void exchange_post_receives(dist_state *s);
void exchange_post_sends(dist_state *s);

/* x from rank 0 to its owners, y from its owners to rank 0 (collective). */
void exchange_scatter_x(dist_state *s, const spb_value *x);
void exchange_gather_y(dist_state *s, spb_value *y);

/* PETSc's MPIAIJ (petsc.c; without PETSc these say so). */
spb_status petsc_prepare(dist_state *s, char *msg);
void petsc_product(dist_state *s);
void petsc_free(dist_state *s);
void petsc_finish(void); /* PetscFinalize where it was initialised */

#endif
