/* kernels.c — the distributed SpMV kernels of the table: a layout of the
 * matrix rows over the ranks and an exchange of x, each rank's block multiplied by
 * the OpenMP kernels of cpu/ at the row's thread count. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dist_internal.h"
#include "gpu/gpu.h"

static const dist_variant rows_allgather = {DIST_ROWS, DIST_ALLGATHER};
static const dist_variant rows_ghost = {DIST_ROWS, DIST_GHOST};
static const dist_variant nnz_ghost = {DIST_NNZ, DIST_GHOST};
static const dist_variant nnz_allgather = {DIST_NNZ, DIST_ALLGATHER};
static const dist_variant cyclic_ghost = {DIST_CYCLIC, DIST_GHOST};
static const dist_variant grid = {DIST_GRID, DIST_GRID_COMM};
static const dist_variant petsc = {DIST_ROWS, DIST_PETSC};
static const dist_variant gpu_staged = {DIST_NNZ, DIST_GPU_STAGED};
static const dist_variant gpu_nccl = {DIST_NNZ, DIST_GPU_NCCL};
static const dist_variant gpu_peer = {DIST_NNZ, DIST_GPU_PEER};

int dist_kernel_unavailable(const spb_kernel *self, char *why)
{
    const dist_variant *v = self->variant;
    const char *reason = "";
    if (v->exchange == DIST_PETSC && !dist_petsc_compiled())
        reason = "spbench was built without PETSc (pkg-config found no PETSc)";
    if (!*reason && dist_exchange_on_gpu(v->exchange) && !gpu_available(why)) return 1;
    if (!*reason && v->exchange == DIST_GPU_NCCL && !gpu_nccl_compiled())
        reason = "spbench was built without NCCL (CMake found no nccl.h; -DSPB_NCCL_DIR=...)";
    if (!*reason) return 0;
    snprintf(why, SPB_MSG_LEN, "%s", reason);
    return 1;
}

static int dist_supports(const spb_kernel *self, const spb_csr *A, char *why)
{
    (void)A;
    const char *reason = dist_unavailable();
    if (*reason) {
        snprintf(why, SPB_MSG_LEN, "%s", reason);
        return 0;
    }
    return !dist_kernel_unavailable(self, why);
}

static int kernel_index_of(const spb_kernel *self)
{
    for (int k = 0; k < dist_spmv_kernel_count; k++)
        if (&dist_spmv_kernels[k].kernel == self) return k;
    return -1;
}

static spb_status dist_row_prepare(const spb_kernel *self, spb_format_set *formats,
                                   const spb_kernel_config *config, spb_kernel_plan *plan,
                                   char *msg)
{
    return dist_prepare(self->variant, kernel_index_of(self), formats, config, plan, msg);
}

static spb_status dist_row_spmv(const void *state, const void *x, void *y, char *msg)
{
    return dist_product(state, x, y, msg);
}

const dist_variant *dist_variant_of(int kernel_index)
{
    if (kernel_index < 0 || kernel_index >= dist_spmv_kernel_count) return NULL;
    return dist_spmv_kernels[kernel_index].kernel.variant;
}

int dist_kernel_on_gpus(const spb_kernel *kernel)
{
    for (int k = 0; k < dist_spmv_kernel_count; k++)
        if (kernel == &dist_spmv_kernels[k].kernel)
            return dist_exchange_on_gpu(((const dist_variant *)kernel->variant)->exchange);
    return 0;
}

const char *dist_row_name(int kernel_index)
{
    if (kernel_index < 0 || kernel_index >= dist_spmv_kernel_count) return NULL;
    return dist_spmv_kernels[kernel_index].kernel.name;
}

#define DIST_KERNEL(row_name, row_variant, text) DIST_ROW(row_name, row_variant, text, 0)
/* A library's distributed row (spb_kernel.library). */
#define DIST_LIBRARY(row_name, row_variant, text) DIST_ROW(row_name, row_variant, text, 1)
#define DIST_ROW(row_name, row_variant, text, lib)                                                 \
    {                                                                                              \
        .kernel = {.name = (row_name),                                                             \
                   .format = "csr",                                                                \
                   .backend = SPB_BACKEND_MPI,                                                     \
                   .description = (text),                                                          \
                   .variant = &(row_variant),                                                      \
                   .supports = dist_supports,                                                      \
                   .prepare = dist_row_prepare,                                                    \
                   .release = dist_release,                                                        \
                   .time_calls = dist_time_calls,                                                  \
                   .check = dist_check,                                                            \
                   .timed_alone = 1,                                                               \
                   .library = (lib)},                                                              \
        .spmv = dist_row_spmv                                                                      \
    }

const spb_spmv_kernel dist_spmv_kernels[] = {
    DIST_KERNEL("mpi.rows.allgather", rows_allgather,
                "MPI: equal row blocks, all of x gathered on every rank (the naive reference)"),
    DIST_KERNEL("mpi.rows", rows_ghost,
                "MPI: equal row blocks, ghost entries of x from their owners, local block "
                "overlapped (PETSc's MPIAIJ design)"),
    DIST_KERNEL("mpi.nnz", nnz_ghost, "MPI: nnz-balanced row blocks, ghost exchange as mpi.rows"),
    DIST_KERNEL("mpi.nnz.allgather", nnz_allgather,
                "MPI: nnz-balanced row blocks as mpi.nnz, all of x gathered on every rank as "
                "mpi.rows.allgather (the exchange's share apart from the balance's)"),
    DIST_KERNEL("mpi.cyclic", cyclic_ghost,
                "MPI: row i on rank i mod P, ghost exchange as mpi.rows (no locality)"),
    DIST_KERNEL("mpi.grid2d", grid,
                "MPI: 2-D blocks on a p x q grid, x gathered along grid columns, y summed "
                "along grid rows"),
    DIST_LIBRARY(
        "petsc.mpiaij", petsc,
        "PETSc MatMult on an MPIAIJ matrix, rows owned as in mpi.rows (one thread per rank)"),
    DIST_KERNEL(
        "mpi.cuda.staged", gpu_staged,
        "MPI, a GPU per rank: nnz-balanced rows as mpi.nnz, auto.cuda on the diagonal block "
        "while the ghosts travel through page-locked host memory by MPI, auto.cuda on the "
        "ghost block"),
    DIST_KERNEL(
        "mpi.cuda.nccl", gpu_nccl,
        "MPI, a GPU per rank: nnz-balanced rows as mpi.nnz, auto.cuda on the diagonal block "
        "while NCCL sends the ghosts GPU to GPU on a stream beside it, auto.cuda on the "
        "ghost block"),
    DIST_KERNEL(
        "mpi.cuda.peer", gpu_peer,
        "MPI, a GPU per rank: nnz-balanced rows as mpi.nnz, auto.cuda on the diagonal block "
        "while each rank's copy engines copy its ghosts out of its neighbours' GPUs (CUDA "
        "IPC, MPI telling when they are packed), auto.cuda on the ghost block"),
};
const int dist_spmv_kernel_count = (int)(sizeof dist_spmv_kernels / sizeof dist_spmv_kernels[0]);

void dist_stats_init(spb_dist_stats *s)
{
    memset(s, 0, sizeof *s);
    s->compute_s = s->comm_s = s->bytes_max = s->bytes_mean = s->neighbours = s->imbalance = NAN;
    s->exchange_s = s->exchange_gbs = NAN;
    s->to_host_s = s->mpi_s = s->to_device_s = NAN;
}
