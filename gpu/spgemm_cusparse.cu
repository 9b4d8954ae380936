/* spgemm_cusparse.cu — cuSPARSE's cusparseSpGEMM as rows: work
 * estimation, compute and copy, each with the buffer it asks for, C's
 * arrays allocated once its size is known. `cusparse.spgemm` chooses its
 * algorithm in prepare, by one product outside the clock: the default
 * (ALG1), or ALG3 (which works in chunks of the products and needs less
 * memory) when a buffer of the default does not fit; only that one is
 * timed, and the row's message names it. `cusparse.spgemm.alg2` and
 * `.alg3` run their algorithm alone (skipped, saying so, where it does not
 * fit), so the fastest vendor row is the fastest of them. The whole
 * product counts the buffers, as it counts the other rows' allocations.
 * Real and complex matrices alike (complex128, complex64). */
#include "spgemm_state.cuh"

#define CHUNK_FRACTION 0.2f /* ALG3: share of the products handled at once */

/* The state's value type (matrices and compute), and alpha = 1 and
 * beta = 0 in it: a real scalar is the real part of the complex one. */
static cudaDataType value_type(const gpu_spgemm_state *s)
{
    switch (s->precision) {
    case SPB_FP32: return CUDA_R_32F;
    case SPB_C128: return CUDA_C_64F;
    case SPB_C64: return CUDA_C_32F;
    default: return CUDA_R_64F;
    }
}

static const void *scalar(const gpu_spgemm_state *s, int value)
{
    static const double wide[2][2] = {{0.0, 0.0}, {1.0, 0.0}};
    static const float narrow[2][2] = {{0.0f, 0.0f}, {1.0f, 0.0f}};
    return spb_precision_single(s->precision) ? (const void *)narrow[value]
                                              : (const void *)wide[value];
}

static spb_status choose_algorithm(gpu_spgemm_state *s, char *msg);

static spb_status cusparse_setup(gpu_spgemm_state *s, char *msg)
{
    GPU_SPARSE_TRY(&s->core, cusparseCreate(&s->handle), "cusparseCreate");
    GPU_SPARSE_TRY(&s->core,
                   cusparseCreateCsr(&s->mat_a, s->A.m, s->A.n, s->A.nnz, s->A.row_ptr,
                                     s->A.col_idx, s->A.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, value_type(s)),
                   "cusparseCreateCsr");
    GPU_SPARSE_TRY(&s->core,
                   cusparseCreateCsr(&s->mat_b, s->B.m, s->B.n, s->B.nnz, s->B.row_ptr,
                                     s->B.col_idx, s->B.val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, value_type(s)),
                   "cusparseCreateCsr");
    return choose_algorithm(s, msg);
fail:
    return gpu_state_fail(&s->core, msg);
}

struct cusparse_call {
    cusparseSpGEMMDescr_t spgemm;
    cusparseSpMatDescr_t mat_c;
    void *buffer1, *buffer2, *buffer3;
};

/* ALG2's and ALG3's second buffer size, from a third buffer used only to
 * estimate it (the chunk share is ALG3's alone). */
static int estimate_memory(gpu_spgemm_state *s, cusparseSpGEMMAlg_t alg, cusparse_call *c,
                           size_t *size2)
{
    const void *one = scalar(s, 1), *zero = scalar(s, 0);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t size3 = 0;
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_estimateMemory(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                                 c->mat_c, value_type(s), alg, c->spgemm,
                                                 CHUNK_FRACTION, &size3, NULL, NULL),
                   "cusparseSpGEMM_estimateMemory");
    if (spgemm_alloc(s, &c->buffer3, size3)) return 1;
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_estimateMemory(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                                 c->mat_c, value_type(s), alg, c->spgemm,
                                                 CHUNK_FRACTION, &size3, c->buffer3, size2),
                   "cusparseSpGEMM_estimateMemory");
    spgemm_free(c->buffer3);
    c->buffer3 = NULL;
    return 0;
fail:
    return 1;
}

/* One attempt with the algorithm; nonzero on failure (recorded in s). */
static int cusparse_attempt(gpu_spgemm_state *s, cusparseSpGEMMAlg_t alg, cusparse_call *c)
{
    const void *one = scalar(s, 1), *zero = scalar(s, 0);
    const cusparseOperation_t op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t size1 = 0, size2 = 0;
    int64_t rows = 0, cols = 0, nnz = 0;
    GPU_SPARSE_TRY(&s->core, cusparseSpGEMM_createDescr(&c->spgemm), "cusparseSpGEMM_createDescr");
    GPU_SPARSE_TRY(&s->core,
                   cusparseCreateCsr(&c->mat_c, s->A.m, s->B.n, 0, NULL, NULL, NULL,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_BASE_ZERO, value_type(s)),
                   "cusparseCreateCsr");
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_workEstimation(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                                 c->mat_c, value_type(s), alg, c->spgemm, &size1,
                                                 NULL),
                   "cusparseSpGEMM_workEstimation");
    if (spgemm_alloc(s, &c->buffer1, size1)) return 1;
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_workEstimation(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                                 c->mat_c, value_type(s), alg, c->spgemm, &size1,
                                                 c->buffer1),
                   "cusparseSpGEMM_workEstimation");
    if (alg == CUSPARSE_SPGEMM_ALG2 || alg == CUSPARSE_SPGEMM_ALG3) {
        if (estimate_memory(s, alg, c, &size2)) return 1;
    } else {
        GPU_SPARSE_TRY(&s->core,
                       cusparseSpGEMM_compute(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                              c->mat_c, value_type(s), alg, c->spgemm, &size2,
                                              NULL),
                       "cusparseSpGEMM_compute");
    }
    if (spgemm_alloc(s, &c->buffer2, size2)) return 1;
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_start), "cudaEventRecord");
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_compute(s->handle, op, op, one, s->mat_a, s->mat_b, zero,
                                          c->mat_c, value_type(s), alg, c->spgemm, &size2,
                                          c->buffer2),
                   "cusparseSpGEMM_compute");
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_stop), "cudaEventRecord");
    GPU_SPARSE_TRY(&s->core, cusparseSpMatGetSize(c->mat_c, &rows, &cols, &nnz),
                   "cusparseSpMatGetSize");
    if (spgemm_alloc_c(s, (int)nnz)) return 1;
    GPU_SPARSE_TRY(&s->core, cusparseCsrSetPointers(c->mat_c, s->C.row_ptr, s->C.col_idx, s->C.val),
                   "cusparseCsrSetPointers");
    GPU_SPARSE_TRY(&s->core,
                   cusparseSpGEMM_copy(s->handle, op, op, one, s->mat_a, s->mat_b, zero, c->mat_c,
                                       value_type(s), alg, c->spgemm),
                   "cusparseSpGEMM_copy");
    spgemm_record_kernel_time(s);
    return 0;
fail:
    return 1;
}

static void release_call(cusparse_call *c)
{
    if (c->spgemm) cusparseSpGEMM_destroyDescr(c->spgemm);
    if (c->mat_c) cusparseDestroySpMat(c->mat_c);
    spgemm_free(c->buffer1);
    spgemm_free(c->buffer2);
    spgemm_free(c->buffer3);
    *c = cusparse_call{};
}

/* ALG2's or ALG3's number, for the row's message. */
static int alg_number(cusparseSpGEMMAlg_t alg) { return alg == CUSPARSE_SPGEMM_ALG2 ? 2 : 3; }

/* One product with the row's algorithm, outside the clock. The default's
 * row: where one of its buffers does not fit, ALG3 is the row's algorithm
 * (a failed attempt inside every timed product once counted against
 * cuSPARSE). A row of one algorithm: where it does not fit, the row is
 * skipped saying so. */
static spb_status choose_algorithm(gpu_spgemm_state *s, char *msg)
{
    const cusparseSpGEMMAlg_t alg =
        s->variant->mode ? (cusparseSpGEMMAlg_t)s->variant->mode : CUSPARSE_SPGEMM_DEFAULT;
    cusparse_call c = {};
    int failed = cusparse_attempt(s, alg, &c);
    release_call(&c);
    spgemm_free_c(s);
    s->kernel_count = 0; /* the trial's kernels are no product's */
    s->spgemm_alg = alg;
    if (failed && s->variant->mode) {
        if (s->core.error != SPB_ERR_NOMEM) return gpu_state_fail(&s->core, msg);
        s->core.error = SPB_OK;
        return spb_fail(msg, SPB_ERR_DECLINED, /* a skip: the matrix is too large for it */
                        "cusparseSpGEMM ALG%d: a buffer does not fit in device memory",
                        alg_number(alg));
    }
    if (failed && s->core.error != SPB_ERR_NOMEM) return gpu_state_fail(&s->core, msg);
    if (failed) {
        s->core.error = SPB_OK;
        s->spgemm_alg = CUSPARSE_SPGEMM_ALG3;
    }
    if (msg && !msg[0] && s->variant->mode)
        snprintf(msg, SPB_MSG_LEN, "cusparseSpGEMM ALG%d", alg_number(alg));
    else if (msg && !msg[0])
        snprintf(msg, SPB_MSG_LEN, "%s",
                 failed ? "cusparseSpGEMM ALG3: a buffer of the default algorithm does not fit"
                        : "cusparseSpGEMM default algorithm");
    return SPB_OK;
}

static void cusparse_product(gpu_spgemm_state *s)
{
    cusparse_call c = {};
    cusparse_attempt(s, s->spgemm_alg, &c);
    release_call(&c);
}

static const gpu_spgemm_variant cusparse_spgemm = {0, 0, cusparse_product, 0, cusparse_setup, 0, 1};
static const gpu_spgemm_variant cusparse_spgemm_alg2 = {
    0, 0, cusparse_product, CUSPARSE_SPGEMM_ALG2, cusparse_setup, 0, 1};
static const gpu_spgemm_variant cusparse_spgemm_alg3 = {
    0, 0, cusparse_product, CUSPARSE_SPGEMM_ALG3, cusparse_setup, 0, 1};

const spb_spgemm_kernel gpu_spgemm_cusparse_kernels[] = {
    GPU_SPGEMM_KERNEL_FULL("cusparse.spgemm",
                           "cuSPARSE cusparseSpGEMM (default algorithm, ALG1; ALG3 when a buffer "
                           "does not fit, chosen in prepare): work estimation, compute, copy, "
                           "buffers included",
                           &cusparse_spgemm, gpu_kernel_supports, 0, 1, 1, 1),
    GPU_SPGEMM_KERNEL_FULL("cusparse.spgemm.alg2",
                           "cuSPARSE cusparseSpGEMM ALG2 (memory estimated first; skipped where "
                           "it does not fit): work estimation, memory estimate, compute, copy, "
                           "buffers included",
                           &cusparse_spgemm_alg2, gpu_kernel_supports, 0, 1, 1, 1),
    GPU_SPGEMM_KERNEL_FULL("cusparse.spgemm.alg3",
                           "cuSPARSE cusparseSpGEMM ALG3 (the products in chunks of a fifth; "
                           "skipped where it does not fit): work estimation, memory estimate, "
                           "compute, copy, buffers included",
                           &cusparse_spgemm_alg3, gpu_kernel_supports, 0, 1, 1, 1),
};

const int gpu_spgemm_cusparse_kernel_count =
    (int)(sizeof gpu_spgemm_cusparse_kernels / sizeof gpu_spgemm_cusparse_kernels[0]);
