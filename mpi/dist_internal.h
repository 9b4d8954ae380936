/* dist_internal.h — what the distributed rows share inside mpi/: the
 * layouts and exchanges a row combines (kernels.c names them), and the
 * operations kernels.c calls, made by the MPI files (runtime.c, layout.c,
 * exchange.c, exchange_gpu.c, petsc.c) or, without MPI, by stub.c. */
#ifndef SPB_DIST_INTERNAL_H
#define SPB_DIST_INTERNAL_H

#include "dist.h"

/* Who owns which rows of A (and entries of y): */
typedef enum {
    DIST_ROWS,   /* contiguous blocks of equal row counts */
    DIST_NNZ,    /* contiguous blocks of equal stored entries (the CPU partition rule) */
    DIST_CYCLIC, /* row i on rank i mod P */
    DIST_GRID    /* 2-D blocks on a p x q grid of ranks */
} dist_layout;

/* How a rank gets the entries of x its rows need: */
typedef enum {
    DIST_GHOST,     /* only the ghost entries, from their owners, overlapped with the local block */
    DIST_ALLGATHER, /* all of x on every rank */
    DIST_GRID_COMM, /* 2-D: x's column block along the grid column, y summed along the grid row */
    DIST_PETSC,     /* PETSc's MatMult on an MPIAIJ matrix */
    DIST_GPU_STAGED, /* a GPU per rank: ghosts through host memory by MPI */
    DIST_GPU_NCCL,   /* a GPU per rank: ghosts by NCCL between the GPUs */
    DIST_GPU_PEER    /* a GPU per rank: ghosts copied out of the neighbours' GPUs (CUDA IPC) */
} dist_exchange;

/* The exchanges of the GPU rows (a GPU per rank). */
static inline int dist_exchange_on_gpu(dist_exchange e)
{
    return e == DIST_GPU_STAGED || e == DIST_GPU_NCCL || e == DIST_GPU_PEER;
}

typedef struct {
    dist_layout layout;
    dist_exchange exchange;
} dist_variant;

/* The row's operations on rank 0 (the other ranks follow its commands). */
spb_status dist_prepare(const dist_variant *variant, int kernel_index,
                        const spb_format_set *formats, const spb_kernel_config *config,
                        spb_kernel_plan *plan, char *msg);
spb_status dist_product(const void *state, const spb_value *x, spb_value *y, char *msg);
double dist_time_calls(void *state, int calls);
spb_status dist_check(const void *state, char *msg);
void dist_release(void *state);

/* The variant of table row k (kernels.c), for the ranks that serve rank 0. */
const dist_variant *dist_variant_of(int kernel_index);
const char *dist_row_name(int kernel_index); /* its name, NULL outside the table */

#endif
