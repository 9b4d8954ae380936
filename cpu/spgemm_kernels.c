/* spgemm_kernels.c — the host kernels of the SpGEMM table: sequential
 * Gustavson (the speedup baseline) and hash, OpenMP, and GraphBLAS's
 * GrB_mxm, each in fp64 and fp32. A is the format set's CSR, B its second
 * operand. */
#include "baselines.h"
#include "spgemm_cpu.h"

spb_status spgemm_values_of(spb_format_set *F, spb_precision precision, spgemm_values *v, char *msg)
{
    v->a32 = v->b32 = NULL;
    if (!spb_precision_single(precision)) return SPB_OK;
    spb_status st = format_set_csr_values32(F, &v->a32, msg);
    return st == SPB_OK ? format_set_b_values32(F, &v->b32, msg) : st;
}

/* The sequential kernels' state: the operands and the values multiplied. */
typedef struct {
    const spb_format_set *F;
    spgemm_values values;
} operands;

static spb_status operands_prepare(const spb_kernel *self, spb_format_set *F,
                                   const spb_kernel_config *config, spb_kernel_plan *plan,
                                   char *msg)
{
    (void)self;
    operands *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->F = F;
    spb_status st = spgemm_values_of(F, config->precision, &s->values, msg);
    if (st != SPB_OK) {
        spb_free(s);
        return st;
    }
    plan->state = s;
    plan->stored_entries = F->csr->nnz;
    return SPB_OK;
}

static void operands_release(void *state) { spb_free(state); }

static spb_status gustavson_run(const void *state, spb_csr *C, char *msg)
{
    const operands *s = state;
    return csr_spgemm_gustavson_values(s->F->csr, s->F->b, &s->values, C, msg);
}

static spb_status hash_run(const void *state, spb_csr *C, char *msg)
{
    const operands *s = state;
    return csr_spgemm_hash(s->F->csr, s->F->b, &s->values, C, msg);
}

static spb_status omp_prepare(const spb_kernel *self, spb_format_set *F,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    plan->stored_entries = F->csr->nnz;
    spgemm_values values;
    spb_status st = spgemm_values_of(F, config->precision, &values, msg);
    if (st != SPB_OK) return st;
    return spgemm_omp_plan_new(F->csr, F->b, &values, config->threads,
                               (spgemm_omp_plan **)&plan->state, msg);
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
    spgemm_values values;
    spb_status st = spgemm_values_of(F, config->precision, &values, msg);
    if (st != SPB_OK) return st;
    return graphblas_spgemm_prepare(F->csr, F->b, values.a32, values.b32, config->threads,
                                    &plan->state, msg);
}

/* ---- working memory, estimated before a row runs -------------------------- */

/* C as the kernel hands it back (csr_spgemm_c_bytes). */
static double c_bytes(const spb_work_size *size, const spb_kernel_config *config)
{
    return csr_spgemm_c_bytes(size->m, size->nnz_c, spb_precision_complex(config->precision));
}

/* The parts of one value as the host kernels sum it: a double each (fp32
 * sums are held as floats in them), two complex. */
static double value_parts_bytes(const spb_kernel_config *config)
{
    return sizeof(double) * (spb_precision_complex(config->precision) ? 2.0 : 1.0);
}

/* A dense accumulator as wide as B (a 64-bit stamp and a value per column)
 * and C, after a pass that counts C's entries with a 32-bit stamp per
 * column (freed by then; counted too, as a margin). */
static double gustavson_bytes(const spb_kernel *self, const spb_work_size *size,
                              const spb_kernel_config *config)
{
    (void)self;
    return (sizeof(spb_index) + sizeof(int64_t) + value_parts_bytes(config)) * size->n +
           c_bytes(size, config);
}

/* One map of C's entries (a key and its value a slot, two values
 * complex; at most half full): at its last doubling, the new map beside the
 * old one; then C. */
static double hash_bytes(const spb_kernel *self, const spb_work_size *size,
                         const spb_kernel_config *config)
{
    (void)self;
    double slots = 64, slot = sizeof(uint64_t) + value_parts_bytes(config);
    while (slots < 2.0 * size->nnz_c + 2) slots *= 2;
    return 1.5 * slots * slot + c_bytes(size, config);
}

/* Per thread a dense accumulator as wide as B (the widest it uses) and a
 * hash map of at most four times the longest row's products (a power of
 * two at least twice them: a 32-bit key and a value a slot); the rows'
 * products and counts; C. */
static double omp_bytes(const spb_kernel *self, const spb_work_size *size,
                        const spb_kernel_config *config)
{
    (void)self;
    double dense = (sizeof(int64_t) + value_parts_bytes(config)) * size->n;
    double map = (sizeof(spb_index) + value_parts_bytes(config)) *
                 (4.0 * size->row_products_max > 16 ? 4.0 * size->row_products_max : 16);
    return (config->threads > 0 ? config->threads : 1) * (dense + map) +
           2.0 * sizeof(int64_t) * (size->m + 1) + c_bytes(size, config);
}

/* GraphBLAS's own copies of A and B, its C, and C copied out. */
static double graphblas_bytes(const spb_kernel *self, const spb_work_size *size,
                              const spb_kernel_config *config)
{
    (void)self;
    return 16.0 * (size->nnz_a + size->nnz_b) + 2.0 * c_bytes(size, config);
}

const spb_spgemm_kernel cpu_spgemm_kernels[] = {
    {.kernel = {.name = "spgemm.gustavson",
                .format = "csr",
                .backend = SPB_BACKEND_SERIAL,
                .description =
                    "C = A*B row by row, a dense accumulator as wide as B and the touched "
                    "columns sorted (the speedup baseline and the reference)",
                .prepare = operands_prepare,
                .release = operands_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1,
                .host_bytes = gustavson_bytes},
     .spgemm = gustavson_run},
    {.kernel = {.name = "spgemm.hash",
                .format = "csr",
                .backend = SPB_BACKEND_SERIAL,
                .description =
                    "C = A*B, every product into one hash map keyed by (row, column), then "
                    "sorted into CSR",
                .prepare = operands_prepare,
                .release = operands_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1,
                .host_bytes = hash_bytes},
     .spgemm = hash_run},
    {.kernel = {.name = "spgemm.omp",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "C = A*B, rows split by products, symbolic then numeric pass, dense or "
                    "hash accumulator per row",
                .prepare = omp_prepare,
                .release = omp_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1,
                .host_bytes = omp_bytes},
     .spgemm = omp_run},
    {.kernel = {.name = "graphblas.mxm",
                .format = "grb.row",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "SuiteSparse:GraphBLAS GrB_mxm, plus-times, row-major; C copied out as CSR",
                .supports = graphblas_row_supports,
                .prepare = graphblas_prepare,
                .release = graphblas_spgemm_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1, /* GraphBLAS indexes in 64 bits */
                .library = 1,
                .host_bytes = graphblas_bytes},
     .spgemm = graphblas_spgemm_run},
};

const int cpu_spgemm_kernel_count = (int)(sizeof cpu_spgemm_kernels / sizeof cpu_spgemm_kernels[0]);
