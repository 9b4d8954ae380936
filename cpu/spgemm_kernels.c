/* spgemm_kernels.c — the host kernels of the SpGEMM table: sequential
 * Gustavson (the speedup baseline) and hash, OpenMP, and GraphBLAS's
 * GrB_mxm. A is the format set's CSR, B its second operand. */
#include "baselines.h"
#include "spgemm_cpu.h"

static void no_release(void *state) { (void)state; }

/* The sequential kernels need only the operands: the state is the set. */
static spb_status operands_prepare(const spb_kernel *self, spb_format_set *F,
                                   const spb_kernel_config *config, spb_kernel_plan *plan,
                                   char *msg)
{
    (void)self;
    (void)config;
    (void)msg;
    plan->state = F;
    plan->stored_entries = F->csr->nnz;
    return SPB_OK;
}

static spb_status gustavson_run(const void *state, spb_csr *C, char *msg)
{
    const spb_format_set *F = state;
    return csr_spgemm_gustavson(F->csr, F->b, 0, C, msg);
}

static spb_status hash_run(const void *state, spb_csr *C, char *msg)
{
    const spb_format_set *F = state;
    return csr_spgemm_hash(F->csr, F->b, C, msg);
}

static spb_status omp_prepare(const spb_kernel *self, spb_format_set *F,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    plan->stored_entries = F->csr->nnz;
    return spgemm_omp_plan_new(F->csr, F->b, config->threads, (spgemm_omp_plan **)&plan->state,
                               msg);
}

/* The plan's workspaces and call count change with every product. */
static spb_status omp_run(const void *state, spb_csr *C, char *msg)
{
    return csr_spgemm_omp((spgemm_omp_plan *)state, C, msg);
}

static void omp_release(void *state) { spgemm_omp_plan_free(state); }

static spb_status graphblas_prepare(const spb_kernel *self, spb_format_set *F,
                                    const spb_kernel_config *config, spb_kernel_plan *plan,
                                    char *msg)
{
    (void)self;
    plan->stored_entries = F->csr->nnz;
    return graphblas_spgemm_prepare(F->csr, F->b, config->threads, &plan->state, msg);
}

const spb_spgemm_kernel cpu_spgemm_kernels[] = {
    {.kernel = {.name = "spgemm.gustavson",
                .format = "csr",
                .backend = SPB_BACKEND_SERIAL,
                .description =
                    "C = A*B row by row, a dense accumulator as wide as B and the touched "
                    "columns sorted (the speedup baseline and the reference)",
                .prepare = operands_prepare,
                .release = no_release},
     .spgemm = gustavson_run},
    {.kernel = {.name = "spgemm.hash",
                .format = "csr",
                .backend = SPB_BACKEND_SERIAL,
                .description =
                    "C = A*B, every product into one hash map keyed by (row, column), then "
                    "sorted into CSR",
                .prepare = operands_prepare,
                .release = no_release},
     .spgemm = hash_run},
    {.kernel = {.name = "spgemm.omp",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "C = A*B, rows split by products, symbolic then numeric pass, dense or "
                    "hash accumulator per row",
                .prepare = omp_prepare,
                .release = omp_release},
     .spgemm = omp_run},
    {.kernel = {.name = "graphblas.mxm",
                .format = "grb.row",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "SuiteSparse:GraphBLAS GrB_mxm, plus-times, row-major; C copied out as CSR",
                .supports = graphblas_row_supports,
                .prepare = graphblas_prepare,
                .release = graphblas_spgemm_release},
     .spgemm = graphblas_spgemm_run},
};

const int cpu_spgemm_kernel_count = (int)(sizeof cpu_spgemm_kernels / sizeof cpu_spgemm_kernels[0]);
