/* spmv_cusparse.cu — cuSPARSE's cusparseSpMV beside spbench's kernels, as
 * rows of the device table: every format and algorithm cusparseSpMV has for
 * a general matrix (CSR with ALG1, ALG2 and the default; COO with ALG1 and
 * ALG2; sliced ELL; BSR at the block size that moves the fewest bytes), so
 * the fastest vendor row is the best cuSPARSE can do. Descriptors, the
 * conversions, the work buffer and preprocess are set up in prepare; the
 * timed part is one cusparseSpMV. */
#include <cstdio>

#include "spmv_state.cuh"

/* alpha = 1 and beta = 0 in each precision, in spb_precision order. */
static const double one = 1.0, zero = 0.0;
static const float one32 = 1.0f, zero32 = 0.0f;
static const gpu_c128 one_c128(1.0), zero_c128(0.0);
static const gpu_c64 one_c64(1.0f), zero_c64(0.0f);
static const void *const ones[SPB_PRECISIONS] = {&one, &one32, &one_c128, &one_c64};
static const void *const zeros[SPB_PRECISIONS] = {&zero, &zero32, &zero_c128, &zero_c64};

/* The state's precision as cuSPARSE's data (and compute) type, with its
 * alpha = 1 and beta = 0 of that type. */
static cudaDataType value_type(const gpu_state *s)
{
    static const cudaDataType types[SPB_PRECISIONS] = {CUDA_R_64F, CUDA_R_32F, CUDA_C_64F,
                                                       CUDA_C_32F};
    return types[s->precision];
}
static const void *alpha(const gpu_state *s) { return ones[s->precision]; }
static const void *beta(const gpu_state *s) { return zeros[s->precision]; }

/* What a cuSPARSE row prepares (gpu_state.family): the handle, the
 * descriptors of the uploaded matrix and of x and y, the work buffer. */
struct cusparse_data {
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *d_buffer;
    cudaStream_t bound; /* the handle's stream: the default until a state's stream is set */
    int *d_coo_rows;    /* COO: each entry's row, from the uploaded row_ptr */
    int *d_bsr_ptr, *d_bsr_cols; /* BSR: block row offsets and block columns; values in d_val */
    int bsr_block;
    /* On 64-bit row offsets: the columns widened too (cuSPARSE takes
     * CUSPARSE_INDEX_64I offsets only beside 64-bit columns), and COO's
     * rows 64-bit (cusparseXcsr2coo makes 32-bit ones only) */
    int64_t *d_col_idx64, *d_coo_rows64;
};

/* Each 32-bit column widened to 64 bits. */
static __global__ void widen_columns(int64_t count, const int *__restrict__ narrow,
                                     int64_t *__restrict__ wide)
{
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < count;
         k += (int64_t)gridDim.x * blockDim.x)
        wide[k] = narrow[k];
}

/* Each entry's row from 64-bit row offsets: a warp a row, its lanes
 * striding through the row. */
static __global__ void rows_from_offsets(int m, const int64_t *__restrict__ row_ptr,
                                         int64_t *__restrict__ rows)
{
    const int64_t warps = (int64_t)gridDim.x * blockDim.x / WARP;
    for (int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / WARP; i < m; i += warps)
        for (int64_t k = row_ptr[i] + threadIdx.x % WARP; k < row_ptr[i + 1]; k += WARP)
            rows[k] = i;
}

static int is_coo(const gpu_state *s)
{
    return s->variant->param == CUSPARSE_SPMV_COO_ALG1 ||
           s->variant->param == CUSPARSE_SPMV_COO_ALG2;
}

/* A matrix on 64-bit row offsets: its columns widened on the device into
 * d->d_col_idx64, the 32-bit ones freed (the device holds one copy), and
 * for COO each entry's 64-bit row; the traffic counts the wider indices
 * (CSR: 4 more bytes an entry; COO: 16 bytes of indices an entry). */
static spb_status widen_indices(gpu_state *s, const spb_csr *A, cusparse_data *d, char *msg)
{
    const size_t count = (size_t)s->nnz + 1;
    GPU_TRY(s, cudaMalloc(&d->d_col_idx64, sizeof(int64_t) * count), "cudaMalloc");
    if (s->nnz > 0) widen_columns<<<1024, 256>>>(s->nnz, s->d_col_idx, d->d_col_idx64);
    GPU_TRY(s, cudaGetLastError(), "kernel launch");
    GPU_TRY(s, cudaDeviceSynchronize(), "widening the columns");
    cudaFree(s->d_col_idx);
    s->d_col_idx = NULL;
    s->plan_bytes = csr_spmv_bytes(A, s->precision) + 4.0 * (double)A->nnz;
    if (is_coo(s)) {
        GPU_TRY(s, cudaMalloc(&d->d_coo_rows64, sizeof(int64_t) * count), "cudaMalloc");
        if (s->m > 0) rows_from_offsets<<<1024, 256>>>(s->m, s->d_row_ptr64, d->d_coo_rows64);
        GPU_TRY(s, cudaGetLastError(), "kernel launch");
        GPU_TRY(s, cudaDeviceSynchronize(), "the entries' rows");
        s->plan_bytes = (double)s->nnz * (2 * sizeof(int64_t) + s->value_bytes) +
                        (double)s->value_bytes * ((double)s->m + s->n);
    }
    return SPB_OK;
fail:
    return gpu_state_fail(s, msg);
}

static spb_status create_descriptors(gpu_state *s, cusparse_data *d)
{
    cusparseStatus_t err;
    int64_t x_size = s->n, y_size = s->m;
    if (d->bsr_block) {
        int64_t b = d->bsr_block, brows = (s->m + b - 1) / b, bcols = (s->n + b - 1) / b;
        x_size = bcols * b, y_size = brows * b;
        err = cusparseCreateBsr(&d->mat, brows, bcols, s->stored / (b * b), b, b, d->d_bsr_ptr,
                                d->d_bsr_cols, s->d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                CUSPARSE_INDEX_BASE_ZERO, value_type(s), CUSPARSE_ORDER_ROW);
    } else if (is_coo(s) && d->d_coo_rows64)
        err = cusparseCreateCoo(&d->mat, s->m, s->n, s->nnz, d->d_coo_rows64, d->d_col_idx64,
                                s->d_val, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_BASE_ZERO,
                                value_type(s));
    else if (is_coo(s))
        err = cusparseCreateCoo(&d->mat, s->m, s->n, s->nnz, d->d_coo_rows, s->d_col_idx, s->d_val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type(s));
    else if (s->variant->format == SPB_FORMAT_SELL)
        err = cusparseCreateSlicedEll(&d->mat, s->m, s->n, s->nnz, s->stored, s->hack_size,
                                      s->d_hack_ptr, s->d_col_idx, s->d_val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, value_type(s));
    else if (s->d_row_ptr64)
        err = cusparseCreateCsr(&d->mat, s->m, s->n, s->nnz, s->d_row_ptr64, d->d_col_idx64,
                                s->d_val, CUSPARSE_INDEX_64I, CUSPARSE_INDEX_64I,
                                CUSPARSE_INDEX_BASE_ZERO, value_type(s));
    else
        err = cusparseCreateCsr(&d->mat, s->m, s->n, s->nnz, s->d_row_ptr, s->d_col_idx, s->d_val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                value_type(s));
    GPU_SPARSE_TRY(s, err, "cusparseCreate matrix descriptor");
    GPU_SPARSE_TRY(s, cusparseCreateDnVec(&d->vec_x, x_size, s->d_x, value_type(s)),
                   "cusparseCreateDnVec");
    GPU_SPARSE_TRY(s, cusparseCreateDnVec(&d->vec_y, y_size, s->d_y, value_type(s)),
                   "cusparseCreateDnVec");
    return SPB_OK;
fail:
    return s->error;
}

static spb_status setup_cusparse(gpu_state *s, const spb_csr *A, char *msg)
{
    cusparseSpMVAlg_t alg = (cusparseSpMVAlg_t)s->variant->param;
    size_t buffer_size = 0;
    cusparse_data *d = gpu_family_new<cusparse_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    GPU_SPARSE_TRY(s, cusparseCreate(&d->handle), "cusparseCreate");
    if (alg == CUSPARSE_SPMV_BSR_ALG1) {
        spb_status st = gpu_upload_bsr(s, A, &d->d_bsr_ptr, &d->d_bsr_cols, &d->bsr_block, msg);
        if (st != SPB_OK) return st;
    } else if (s->d_row_ptr64) {
        if (widen_indices(s, A, d, msg) != SPB_OK) return s->error;
    } else if (is_coo(s)) {
        GPU_TRY(s, cudaMalloc(&d->d_coo_rows, sizeof(int) * ((size_t)s->nnz + 1)), "cudaMalloc");
        if (s->nnz > 0)
            GPU_SPARSE_TRY(s,
                           cusparseXcsr2coo(d->handle, s->d_row_ptr, s->nnz, s->m, d->d_coo_rows,
                                            CUSPARSE_INDEX_BASE_ZERO),
                           "cusparseXcsr2coo");
        s->plan_bytes = (double)s->nnz * (2 * sizeof(int) + s->value_bytes) +
                        (double)s->value_bytes * ((double)s->m + s->n);
    }
    if (create_descriptors(s, d) != SPB_OK) goto fail;
    GPU_SPARSE_TRY(s,
                   cusparseSpMV_bufferSize(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(s),
                                           d->mat, d->vec_x, beta(s), d->vec_y, value_type(s), alg,
                                           &buffer_size),
                   "cusparseSpMV_bufferSize");
    if (buffer_size > 0) GPU_TRY(s, cudaMalloc(&d->d_buffer, buffer_size), "cudaMalloc");
    if (s->m > 0) {
        cusparseStatus_t err =
            cusparseSpMV_preprocess(d->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, alpha(s), d->mat,
                                    d->vec_x, beta(s), d->vec_y, value_type(s), alg, d->d_buffer);
        /* cuSPARSE 12.6's CSR algorithms fail so past 2^31 - 1 entries
         * (its COO ones do not): the library's limit, not a failed row */
        if (err == CUSPARSE_STATUS_INTERNAL_ERROR && s->nnz > INT32_MAX && !is_coo(s)) {
            int version = 0;
            cusparseGetVersion(d->handle, &version);
            return spb_fail(msg, SPB_ERR_DECLINED,
                            "cuSPARSE %d.%d's CSR SpMV fails on more than 2^31 - 1 entries "
                            "(cusparseSpMV_preprocess: internal error); its COO rows take them",
                            version / 1000, version % 1000 / 100);
        }
        GPU_SPARSE_TRY(s, err, "cusparseSpMV_preprocess");
    }
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
    cudaFree(d->d_coo_rows);
    cudaFree(d->d_bsr_ptr);
    cudaFree(d->d_bsr_cols);
    cudaFree(d->d_col_idx64);
    cudaFree(d->d_coo_rows64);
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

/* One launch for every precision: the type travels in the descriptors.
 * The CSR and COO rows take complex matrices (cuSPARSE's CUDA_C_64F and
 * CUDA_C_32F); SELL and BSR convert through real formats: real only. */
#define CUSPARSE_LAUNCH                                                                            \
    {                                                                                              \
        launch_cusparse, launch_cusparse, launch_cusparse, launch_cusparse                         \
    }
#define CUSPARSE_LAUNCH_REAL                                                                       \
    {                                                                                              \
        launch_cusparse, launch_cusparse                                                           \
    }
/* A cuSPARSE variant: the library picks its own launch; `param` is the
 * algorithm. */
#define CUSPARSE_VARIANT(kind, algorithm, launches)                                                \
    {                                                                                              \
        .format = kind, .param = algorithm, .setup = setup_cusparse, .launch = launches,           \
        .release = release_cusparse                                                                \
    }
/* The CSR and COO algorithms, also on 64-bit offsets (indices widened:
 * widen_indices). */
#define CUSPARSE_CSR_VARIANT(algorithm)                                                            \
    {                                                                                              \
        .format = SPB_FORMAT_CSR, .param = algorithm, .setup = setup_cusparse,                     \
        .launch = CUSPARSE_LAUNCH, .launch_wide = CUSPARSE_LAUNCH, .release = release_cusparse     \
    }
static const gpu_variant csr_alg1_v = CUSPARSE_CSR_VARIANT(CUSPARSE_SPMV_CSR_ALG1);
static const gpu_variant csr_alg2_v = CUSPARSE_CSR_VARIANT(CUSPARSE_SPMV_CSR_ALG2);
static const gpu_variant csr_default_v = CUSPARSE_CSR_VARIANT(CUSPARSE_SPMV_ALG_DEFAULT);
static const gpu_variant sell_v =
    CUSPARSE_VARIANT(SPB_FORMAT_SELL, CUSPARSE_SPMV_SELL_ALG1, CUSPARSE_LAUNCH_REAL);
static const gpu_variant coo_alg1_v = CUSPARSE_CSR_VARIANT(CUSPARSE_SPMV_COO_ALG1);
static const gpu_variant coo_alg2_v = CUSPARSE_CSR_VARIANT(CUSPARSE_SPMV_COO_ALG2);
/* BSR's setup uploads its own arrays: prepare uploads no CSR */
static const gpu_variant bsr_v = {.format = SPB_FORMAT_BSR,
                                  .param = CUSPARSE_SPMV_BSR_ALG1,
                                  .setup = setup_cusparse,
                                  .launch = CUSPARSE_LAUNCH_REAL,
                                  .own_upload = 1,
                                  .release = release_cusparse};

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
    GPU_SPMV_LIBRARY_IF("cusparse.coo", "coo",
                        "cuSPARSE cusparseSpMV on COO (row indices from CSR), COO_ALG1",
                        &coo_alg1_v, gpu_kernel_supports),
    GPU_SPMV_LIBRARY_IF("cusparse.coo.alg2", "coo",
                        "cuSPARSE cusparseSpMV on COO, COO_ALG2 (deterministic)", &coo_alg2_v,
                        gpu_kernel_supports),
    GPU_SPMV_LIBRARY_IF("cusparse.bsr", "bsr",
                        "cuSPARSE cusparseSpMV on BSR, BSR_ALG1, at the block size of 2, 3, 4, 6 "
                        "or 8 that moves the fewest bytes (its zeros included)",
                        &bsr_v, gpu_kernel_supports),
};
extern const int gpu_cusparse_kernel_count =
    (int)(sizeof gpu_cusparse_kernels / sizeof gpu_cusparse_kernels[0]);
