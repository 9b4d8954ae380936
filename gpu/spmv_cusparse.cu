/* spmv_cusparse.cu — cuSPARSE's cusparseSpMV beside spbench's kernels, as
 * rows of the device table: CSR with ALG1 (the reference to beat) and ALG2,
 * and sliced ELL. Descriptors, the work buffer and preprocess are set up in
 * prepare; the timed part is one cusparseSpMV. */
#include "spmv_state.cuh"

static const double one = 1.0, zero = 0.0;
static const float one32 = 1.0f, zero32 = 0.0f;

/* The state's precision as cuSPARSE's data (and compute) type, with its
 * alpha = 1 and beta = 0 of that type. */
static cudaDataType value_type(const gpu_state *s)
{
    return s->precision == SPB_FP32 ? CUDA_R_32F : CUDA_R_64F;
}
static const void *alpha(const gpu_state *s)
{
    return s->precision == SPB_FP32 ? (const void *)&one32 : &one;
}
static const void *beta(const gpu_state *s)
{
    return s->precision == SPB_FP32 ? (const void *)&zero32 : &zero;
}

/* What a cuSPARSE row prepares (gpu_state.family): the handle, the
 * descriptors of the uploaded matrix and of x and y, the work buffer. */
struct cusparse_data {
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *d_buffer;
    cudaStream_t bound; /* the handle's stream: the default until a state's stream is set */
};

static spb_status create_descriptors(gpu_state *s, cusparse_data *d)
{
    cusparseStatus_t err;
    if (s->variant->format == SPB_FORMAT_SELL)
        err = cusparseCreateSlicedEll(&d->mat, s->m, s->n, s->nnz, s->stored, s->hack_size,
                                      s->d_hack_ptr, s->d_col_idx, s->d_val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type(s));
    else
        err = cusparseCreateCsr(&d->mat, s->m, s->n, s->nnz, s->d_row_ptr, s->d_col_idx, s->d_val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                value_type(s));
    GPU_SPARSE_TRY(s, err, "cusparseCreate matrix descriptor");
    GPU_SPARSE_TRY(s, cusparseCreateDnVec(&d->vec_x, s->n, s->d_x, value_type(s)),
                   "cusparseCreateDnVec");
    GPU_SPARSE_TRY(s, cusparseCreateDnVec(&d->vec_y, s->m, s->d_y, value_type(s)),
                   "cusparseCreateDnVec");
    return SPB_OK;
fail:
    return s->error;
}

static spb_status setup_cusparse(gpu_state *s, const spb_csr *A, char *msg)
{
    (void)A;
    cusparseSpMVAlg_t alg = (cusparseSpMVAlg_t)s->variant->param;
    size_t buffer_size = 0;
    cusparse_data *d = gpu_family_new<cusparse_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    GPU_SPARSE_TRY(s, cusparseCreate(&d->handle), "cusparseCreate");
    if (create_descriptors(s, d) != SPB_OK) goto fail;
    GPU_SPARSE_TRY(s,
                   cusparseSpMV_bufferSize(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(s),
                                           d->mat, d->vec_x, beta(s), d->vec_y, value_type(s), alg,
                                           &buffer_size),
                   "cusparseSpMV_bufferSize");
    if (buffer_size > 0) GPU_TRY(s, cudaMalloc(&d->d_buffer, buffer_size), "cudaMalloc");
    if (s->m > 0)
        GPU_SPARSE_TRY(s,
                       cusparseSpMV_preprocess(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               alpha(s), d->mat, d->vec_x, beta(s), d->vec_y,
                                               value_type(s), alg, d->d_buffer),
                       "cusparseSpMV_preprocess");
    return SPB_OK;
fail:
    return gpu_state_fail(s, msg);
}

static void release_cusparse(gpu_state *s)
{
    cusparse_data *d = gpu_family<cusparse_data>(s);
    if (d->vec_x) cusparseDestroyDnVec(d->vec_x);
    if (d->vec_y) cusparseDestroyDnVec(d->vec_y);
    if (d->mat) cusparseDestroySpMat(d->mat);
    if (d->handle) cusparseDestroy(d->handle);
    cudaFree(d->d_buffer);
}

static void launch_cusparse(gpu_state *s)
{
    cusparse_data *d = gpu_family<cusparse_data>(s);
    if (d->bound != s->stream) { /* once, not in every timed call */
        if (gpu_cusparse_failed(s, cusparseSetStream(d->handle, s->stream), "cusparseSetStream"))
            return;
        d->bound = s->stream;
    }
    gpu_cusparse_failed(s,
                        cusparseSpMV(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(s), d->mat,
                                     d->vec_x, beta(s), d->vec_y, value_type(s),
                                     (cusparseSpMVAlg_t)s->variant->param, d->d_buffer),
                        "cusparseSpMV");
}

/* One launch for both precisions: the type travels in the descriptors. */
#define CUSPARSE_LAUNCH                                                                            \
    {                                                                                              \
        launch_cusparse, launch_cusparse                                                           \
    }
/* A cuSPARSE variant: the library picks its own launch; `param` is the
 * algorithm. */
#define CUSPARSE_VARIANT(kind, algorithm)                                                          \
    {                                                                                              \
        .format = kind, .param = algorithm, .setup = setup_cusparse, .launch = CUSPARSE_LAUNCH,    \
        .release = release_cusparse                                                                \
    }
static const gpu_variant csr_alg1_v = CUSPARSE_VARIANT(SPB_FORMAT_CSR, CUSPARSE_SPMV_CSR_ALG1);
static const gpu_variant csr_alg2_v = CUSPARSE_VARIANT(SPB_FORMAT_CSR, CUSPARSE_SPMV_CSR_ALG2);
static const gpu_variant csr_default_v =
    CUSPARSE_VARIANT(SPB_FORMAT_CSR, CUSPARSE_SPMV_ALG_DEFAULT);
static const gpu_variant sell_v = CUSPARSE_VARIANT(SPB_FORMAT_SELL, CUSPARSE_SPMV_SELL_ALG1);

extern const spb_spmv_kernel gpu_cusparse_kernels[] = {
    GPU_SPMV_LIBRARY_IF(
        "cusparse.csr", "csr",
        "cuSPARSE cusparseSpMV on CSR, CUSPARSE_SPMV_CSR_ALG1 (the reference to beat)", &csr_alg1_v,
        gpu_kernel_supports),
    GPU_SPMV_LIBRARY_IF("cusparse.csr.alg2", "csr",
                        "cuSPARSE cusparseSpMV on CSR, CUSPARSE_SPMV_CSR_ALG2 (deterministic)",
                        &csr_alg2_v, gpu_kernel_supports),
    GPU_SPMV_LIBRARY_IF(
        "cusparse.csr.default", "csr",
        "cuSPARSE cusparseSpMV on CSR, CUSPARSE_SPMV_ALG_DEFAULT (what a plain call gets)",
        &csr_default_v, gpu_kernel_supports),
    GPU_SPMV_LIBRARY_IF("cusparse.sell", "sell",
                        "cuSPARSE cusparseSpMV on sliced ELL (slice = hack size), SELL_ALG1",
                        &sell_v, gpu_kernel_supports),
};
extern const int gpu_cusparse_kernel_count =
    (int)(sizeof gpu_cusparse_kernels / sizeof gpu_cusparse_kernels[0]);
