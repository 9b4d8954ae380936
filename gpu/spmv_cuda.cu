/* spmv_cuda.cu — what every device SpMV row shares: prepare (format from the
 * set, upload, vectors, the variant's setup), the whole product, the timed
 * device-resident products, the error check and release; and the device
 * table assembled from the family files' rows. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"
extern "C" {
#include "core/memory.h"
#include "formats/bsr.h"
}
#include "spmv_state.cuh"

/* ---- checked calls --------------------------------------------------------------- */

int gpu_cuda_failed(gpu_record *s, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return 0;
    cudaGetLastError(); /* a non-sticky error must not resurface at a later launch check */
    if (s->error == SPB_OK) {
        s->error = err == cudaErrorMemoryAllocation ? SPB_ERR_NOMEM : SPB_ERR_DEVICE;
        snprintf(s->error_msg, sizeof s->error_msg, "%s: %s%s", what, cudaGetErrorString(err),
                 err == cudaErrorMemoryAllocation ? " (device memory)" : "");
    }
    return 1;
}

int gpu_cusparse_failed(gpu_record *s, cusparseStatus_t err, const char *what)
{
    if (err == CUSPARSE_STATUS_SUCCESS) return 0;
    /* both say the library ran short of memory (its own, or what it was given) */
    int memory =
        err == CUSPARSE_STATUS_ALLOC_FAILED || err == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
    if (s->error == SPB_OK) {
        s->error = memory ? SPB_ERR_NOMEM : SPB_ERR_DEVICE;
        snprintf(s->error_msg, sizeof s->error_msg, "%s: %s%s", what, cusparseGetErrorString(err),
                 memory ? " (out of memory)" : "");
    }
    return 1;
}

spb_status gpu_state_fail(const gpu_record *s, char *msg)
{
    return spb_fail(msg, s->error, "%s", s->error_msg);
}

int gpu_upload(gpu_record *s, void **d_ptr, const void *host, size_t count, size_t size)
{
    if (gpu_cuda_failed(s, cudaMalloc(d_ptr, count * size > 0 ? count * size : size), "cudaMalloc"))
        return 1;
    if (count == 0) return 0;
    return gpu_cuda_failed(s, cudaMemcpy(*d_ptr, host, count * size, cudaMemcpyHostToDevice),
                           "cudaMemcpy to the device");
}

double gpu_l2_bytes(const spb_kernel_config *config)
{
    int l2 = 0;
    if (config->device_cache_bytes > 0) return config->device_cache_bytes;
    if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0) != cudaSuccess) {
        cudaGetLastError();
        return 0.0;
    }
    return l2;
}

unsigned gpu_grid(const gpu_state *s, long long per_row)
{
    return gpu_blocks_for((long long)s->m * per_row, s->block_size);
}

/* ---- prepare ------------------------------------------------------------------- */

/* spmv_state.cuh says what it refuses. */
spb_status gpu_check_fits(double bytes_needed, char *msg)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return SPB_OK;
    return spb_memory_check_device(bytes_needed, (double)free_bytes, (double)total_bytes,
                                   "the matrix", "its arrays, x and y on the device", msg);
}

/* spmv_state.cuh says what it uploads. */
int gpu_upload_values(gpu_state *s, const double *val, const float *val32, size_t count)
{
    count *= spb_precision_complex(s->precision) ? 2 : 1; /* (re, im) pairs */
    if (!spb_precision_single(s->precision))
        return gpu_upload(s, &s->d_val, val, count, sizeof(double));
    if (val32) return gpu_upload(s, &s->d_val, val32, count, sizeof(float));
    float *rounded = (float *)spb_malloc(count + 1, sizeof(float));
    if (!rounded) {
        s->error = SPB_ERR_NOMEM;
        snprintf(s->error_msg, sizeof s->error_msg, "out of memory for fp32 values");
        return 1;
    }
    values_round_fp32(val, rounded, count);
    int failed = gpu_upload(s, &s->d_val, rounded, count, sizeof(float));
    spb_free(rounded);
    return failed;
}

/* Takes the variant's format from the set, fills the plan's byte model and
 * uploads the arrays, values in the state's precision (a pattern kernel
 * gets none: the traffic saved is its point). The byte model counts every
 * device array once (matrix, x, y); a margin is kept for cuSPARSE's buffer
 * and the runtime. */
static spb_status upload_format(gpu_state *s, spb_format_set *F, const spb_kernel_config *config,
                                const float *csr_val32, spb_kernel_plan *plan, char *msg)
{
    const spb_csr *A = F->csr;
    const int values = !s->variant->pattern;
    const spb_hll *H = NULL;
    const spb_sell *S = NULL;
    const spb_bsr *B = NULL;
    spb_format_kind kind = s->variant->format;
    spb_status st = SPB_OK;
    if (kind == SPB_FORMAT_HLL_ROW || kind == SPB_FORMAT_HLL_COL)
        st = format_set_hll(F, kind == SPB_FORMAT_HLL_ROW ? HLL_ROW_MAJOR : HLL_COL_MAJOR,
                            config->hack_size, config->precision, &H, msg);
    else if (kind == SPB_FORMAT_SELL)
        st = format_set_sell(F, config->hack_size, &S, msg);
    else if (kind == SPB_FORMAT_BSR)
        st = format_set_bsr(F, config->precision, &B, msg);
    else if (kind == SPB_FORMAT_RCM)
        st = format_set_rcm(F, &s->rcm, msg);
    if (st != SPB_OK) return st;
    s->bsr = B;
    s->stored = H ? hll_stored(H) : S ? sell_stored(S) : B ? bsr_stored(B) : A->nnz;
    plan->stored_entries = s->stored;
    plan->bytes = H   ? (values ? hll_spmv_bytes : hll_pattern_spmv_bytes)(H, config->precision)
                  : S ? sell_spmv_bytes(S, config->precision)
                  : B ? bsr_spmv_bytes(A, B->block, B->nblocks, config->precision)
                      : (values ? csr_spmv_bytes : csr_pattern_spmv_bytes)(A, config->precision);
    st = gpu_check_fits(plan->bytes + GPU_FIT_SLACK, msg);
    if (st != SPB_OK || s->variant->own_upload) return st;
    int failed;
    if (H)
        failed =
            gpu_upload(s, (void **)&s->d_hack_ptr, H->hack_ptr, (size_t)H->nhacks + 1,
                       sizeof(int)) ||
            gpu_upload(s, (void **)&s->d_hack_width, H->hack_width, (size_t)H->nhacks,
                       sizeof(int)) ||
            gpu_upload(s, (void **)&s->d_col_idx, H->col_idx, (size_t)s->stored, sizeof(int)) ||
            (values && gpu_upload_values(s, H->val, H->val32, (size_t)s->stored));
    else if (S)
        failed =
            gpu_upload(s, (void **)&s->d_hack_ptr, S->slice_ptr, (size_t)S->nslices + 1,
                       sizeof(int)) ||
            gpu_upload(s, (void **)&s->d_col_idx, S->col_idx, (size_t)s->stored, sizeof(int)) ||
            (values && gpu_upload_values(s, S->val, NULL, (size_t)s->stored));
    else
        failed = gpu_upload_csr(s, A, csr_val32);
    return failed ? gpu_state_fail(s, msg) : SPB_OK;
}

int gpu_upload_csr(gpu_state *s, const spb_csr *A, const float *val32)
{
    int failed = csr_wide(A) ? gpu_upload(s, (void **)&s->d_row_ptr64, A->row_ptr64,
                                          (size_t)A->m + 1, sizeof(int64_t))
                             : gpu_upload(s, (void **)&s->d_row_ptr, A->row_ptr, (size_t)A->m + 1,
                                          sizeof(int));
    return failed ||
           gpu_upload(s, (void **)&s->d_col_idx, A->col_idx, (size_t)A->nnz, sizeof(int)) ||
           (!s->variant->pattern && gpu_upload_values(s, A->val, val32, (size_t)A->nnz));
}

spb_status gpu_upload_bsr(gpu_state *s, const spb_csr *A, int **d_block_ptr, int **d_block_cols,
                          int *block_size, char *msg)
{
    const spb_bsr *B = s->bsr;
    if (gpu_upload(s, (void **)d_block_ptr, B->row_ptr, (size_t)B->brows + 1, sizeof(int)) ||
        gpu_upload(s, (void **)d_block_cols, B->col_idx, (size_t)B->nblocks, sizeof(int)) ||
        gpu_upload_values(s, B->val, NULL, (size_t)bsr_stored(B)))
        return gpu_state_fail(s, msg);
    *block_size = (int)B->block;
    /* the row's message: which cut, and the zeros it stores */
    snprintf(msg, SPB_MSG_LEN, "BSR %dx%d blocks: %.2f stored entries per entry", (int)B->block,
             (int)B->block, A->nnz ? (double)s->stored / A->nnz : 0.0);
    return SPB_OK;
}

/* The x buffers of config.shared_x, one per device and size, each freed
 * when its last row lets it go. Where x lands moves a skewed matrix's
 * product by up to 8% on an H100 (the hot entries it keeps in L2 are
 * placed by address; where A lands moved nothing): rows gathering
 * from one buffer are compared on equal terms. Prepare and release run on
 * one thread. */
struct shared_x_buffer {
    int device;
    size_t bytes;
    void *d_x;
    int holders; /* 0: the slot is free */
};
static shared_x_buffer shared_x[4];

/* A new x buffer of `bytes`, zeroed (the spare entries past n stay 0). */
static cudaError_t new_x(gpu_state *s, size_t bytes)
{
    cudaError_t err = cudaMalloc(&s->d_x, bytes);
    return err == cudaSuccess ? cudaMemset(s->d_x, 0, bytes) : err;
}

/* s->d_x from the shared buffer of its device and size, made when there is
 * none; a state's own buffer when every slot is taken. */
static cudaError_t take_shared_x(gpu_state *s, size_t bytes)
{
    int device = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess) return err;
    shared_x_buffer *free_slot = NULL;
    for (shared_x_buffer &b : shared_x) {
        if (b.holders > 0 && b.device == device && b.bytes == bytes) {
            b.holders++;
            s->d_x = b.d_x;
            s->x_shared = 1;
            return cudaSuccess;
        }
        if (b.holders == 0 && !free_slot) free_slot = &b;
    }
    err = new_x(s, bytes);
    if (err == cudaSuccess && free_slot) {
        *free_slot = shared_x_buffer{device, bytes, s->d_x, 1};
        s->x_shared = 1;
    }
    return err;
}

/* s's x let go: its own buffer freed, a shared one when it was the last. */
static void drop_x(gpu_state *s)
{
    if (!s->x_shared) {
        cudaFree(s->d_x);
    } else {
        for (shared_x_buffer &b : shared_x)
            if (b.holders > 0 && b.d_x == s->d_x && --b.holders == 0) {
                cudaFree(b.d_x);
                b = shared_x_buffer{};
            }
    }
    s->d_x = NULL;
    s->x_shared = 0;
}

const void *gpu_spmv_x_address(const void *state) { return ((const gpu_state *)state)->d_x; }

spb_status gpu_spmv_x_download(const void *state, void *x, char *msg)
{
    gpu_state *s = (gpu_state *)state;
    GPU_TRY(s, cudaMemcpy(x, s->d_x, s->value_bytes * ((size_t)s->n + 1), cudaMemcpyDeviceToHost),
            "cudaMemcpy x");
    return SPB_OK;
fail:
    return gpu_state_fail(s, msg);
}

/* x (shared when the config asks) and y, GPU_VECTOR_SLACK spare entries
 * each (so empty vectors still get a buffer; x's zero), and the timing
 * events. */
static spb_status alloc_vectors(gpu_state *s, const spb_kernel_config *config, char *msg)
{
    size_t x_bytes = s->value_bytes * ((size_t)s->n + GPU_VECTOR_SLACK);
    GPU_TRY(s, config->shared_x ? take_shared_x(s, x_bytes) : new_x(s, x_bytes), "cudaMalloc x");
    GPU_TRY(s, cudaMalloc(&s->d_y, s->value_bytes * ((size_t)s->m + GPU_VECTOR_SLACK)),
            "cudaMalloc");
    GPU_TRY(s, cudaEventCreate(&s->start), "cudaEventCreate");
    GPU_TRY(s, cudaEventCreate(&s->stop), "cudaEventCreate");
    return SPB_OK;
fail:
    return gpu_state_fail(s, msg);
}

int gpu_kernel_supports(const spb_kernel *self, const spb_csr *A, char *why)
{
    (void)self;
    (void)A;
    return gpu_available(why);
}

spb_status gpu_spmv_prepare(const spb_kernel *self, spb_format_set *formats,
                            const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const gpu_variant *v = (const gpu_variant *)self->variant;
    const spb_csr *A = formats->csr;
    int block = config->block_size ? config->block_size : v->default_block;
    if (v->default_block && (block < 1 || block > MAX_BLOCK || (v->warp_multiple && block % WARP)))
        return spb_fail(msg, SPB_ERR_DECLINED, "block size %d: this kernel needs 1..%d%s", block,
                        MAX_BLOCK, v->warp_multiple ? ", a multiple of 32" : "");
    spb_value iso = 0.0;
    if (v->pattern && csr_pattern_value(A, &iso, msg) != SPB_OK) return SPB_ERR_DECLINED;
    if (!(csr_wide(A) ? v->launch_wide : v->launch)[config->precision])
        return spb_fail(msg, SPB_ERR_DECLINED, "this kernel has no %s version%s",
                        spb_precision_str(config->precision),
                        csr_wide(A) ? " on 64-bit row offsets" : "");
    const float *csr_val32 = NULL; /* fp32: the values rounded, declined when out of range */
    if (spb_precision_single(config->precision)) {
        spb_status st = format_set_csr_values32(formats, &csr_val32, msg);
        if (st != SPB_OK) return st;
    }
    gpu_state *s = (gpu_state *)spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->variant = v;
    s->iso_value = iso;
    s->m = A->m;
    s->n = A->n;
    s->nnz = A->nnz;
    s->precision = config->precision;
    s->value_bytes = spb_precision_bytes(config->precision);
    s->block_size = v->default_block ? block : 0;
    s->hack_size = config->hack_size;
    s->cache_bytes = gpu_l2_bytes(config);
    spb_status st = upload_format(s, formats, config, csr_val32, plan, msg);
    if (st == SPB_OK) st = alloc_vectors(s, config, msg);
    if (st == SPB_OK && v->setup) st = v->setup(s, A, msg);
    s->bsr = NULL; /* the format set's, which may drop them */
    s->rcm = NULL;
    if (st == SPB_OK && s->plan_bytes > 0) plan->bytes = s->plan_bytes;
    plan->stored_entries = s->stored; /* a setup with its own arrangement counts its own */
    if (st != SPB_OK) {
        gpu_spmv_release(s);
        return st;
    }
    plan->state = s;
    plan->block_size = s->block_size;
    return SPB_OK;
}

/* ---- run, time, check, release ------------------------------------------------- */

/* Launches one product of the state's kernel (no synchronisation). */
void gpu_spmv_launch(gpu_state *s)
{
    if (s->m == 0) return;
    (s->d_row_ptr64 ? s->variant->launch_wide : s->variant->launch)[s->precision](s);
    gpu_cuda_failed(s, cudaGetLastError(), "kernel launch");
}

/* y's m entries (each part of complex ones) set to NaN on the host, in the
 * state's precision. */
static void poison(const gpu_state *s, void *y)
{
    const size_t values = (size_t)s->m * (spb_precision_complex(s->precision) ? 2 : 1);
    for (size_t i = 0; i < values; i++)
        if (spb_precision_single(s->precision))
            ((float *)y)[i] = NAN;
        else
            ((double *)y)[i] = NAN;
}

/* One whole product: upload x, poison the device y with NaN, compute,
 * download y (x and y in the state's precision). On failure y is left NaN
 * and the error kept for the check. */
spb_status gpu_spmv_run(const void *state, const void *x, void *y, char *msg)
{
    gpu_state *s = (gpu_state *)state;
    poison(s, y);
    if (s->error != SPB_OK) return gpu_state_fail(s, msg);
    if (s->n > 0)
        GPU_TRY(s, cudaMemcpy(s->d_x, x, s->value_bytes * (size_t)s->n, cudaMemcpyHostToDevice),
                "cudaMemcpy x");
    /* all bits set: a NaN in every y entry the kernel fails to write (either type) */
    GPU_TRY(s, cudaMemset(s->d_y, 0xff, s->value_bytes * ((size_t)s->m + GPU_VECTOR_SLACK)),
            "cudaMemset y");
    gpu_spmv_launch(s);
    GPU_TRY(s, cudaDeviceSynchronize(), "kernel execution");
    if (s->error != SPB_OK) goto fail;
    if (s->m > 0)
        GPU_TRY(s, cudaMemcpy(y, s->d_y, s->value_bytes * (size_t)s->m, cudaMemcpyDeviceToHost),
                "cudaMemcpy y");
    return SPB_OK;
fail:
    poison(s, y);
    return gpu_state_fail(s, msg);
}

/* Times `calls` back-to-back products on the device-resident x and y with
 * CUDA events; seconds, or a negative value on failure. */
double gpu_spmv_time_calls(void *state, int calls)
{
    gpu_state *s = (gpu_state *)state;
    float ms = 0;
    if (s->error != SPB_OK) return -1.0;
    GPU_TRY(s, cudaEventRecord(s->start), "cudaEventRecord");
    for (int k = 0; k < calls && s->error == SPB_OK; k++) gpu_spmv_launch(s);
    GPU_TRY(s, cudaEventRecord(s->stop), "cudaEventRecord");
    GPU_TRY(s, cudaEventSynchronize(s->stop), "kernel execution");
    GPU_TRY(s, cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime");
    return s->error == SPB_OK ? ms * 1e-3 : -1.0;
fail:
    return -1.0;
}

spb_status gpu_spmv_check(const void *state, char *msg)
{
    const gpu_state *s = (const gpu_state *)state;
    return s->error == SPB_OK ? SPB_OK : gpu_state_fail(s, msg);
}

void gpu_spmv_release(void *state)
{
    gpu_state *s = (gpu_state *)state;
    if (!s) return;
    if (s->family && s->variant->release) s->variant->release(s);
    spb_free(s->family);
    if (s->start) cudaEventDestroy(s->start);
    if (s->stop) cudaEventDestroy(s->stop);
    cudaFree(s->d_row_ptr);
    cudaFree(s->d_row_ptr64);
    cudaFree(s->d_hack_ptr);
    cudaFree(s->d_hack_width);
    cudaFree(s->d_col_idx);
    cudaFree(s->d_val);
    drop_x(s);
    cudaFree(s->d_y);
    spb_free(s);
}
