/* spgemm_cuda.cu — what every device SpGEMM row shares: prepare (A and B
 * uploaded once, the fit check), the whole product with C downloaded, the
 * timed device-resident products, the product kernels' own time, release;
 * the conversion of unordered coordinates to canonical CSR; and the device
 * SpGEMM table assembled from the family files' rows. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "core/memory.h"
#include "gpu.h"
#include "spgemm_state.cuh"

#define MIN_TILE 32
#define MAX_TILE 16384
/* Device bytes per intermediate product a whole product may hold at once
 * (the coordinates, C and a second array of keys: 36 in fp64; or the
 * expansion and its sort). */
#define BYTES_PER_PRODUCT 40.0

/* ---- allocation ------------------------------------------------------------------ */

int spgemm_alloc(gpu_spgemm_state *s, void **ptr, size_t bytes)
{
    return gpu_cuda_failed(&s->core, cudaMallocAsync(ptr, bytes > 0 ? bytes : 8, 0),
                           "cudaMallocAsync");
}

void spgemm_free(void *ptr)
{
    if (ptr) cudaFreeAsync(ptr, 0);
}

int spgemm_alloc_c(gpu_spgemm_state *s, int nnz)
{
    s->C.m = s->A.m;
    s->C.n = s->B.n;
    s->C.nnz = nnz;
    return spgemm_alloc(s, (void **)&s->C.row_ptr, sizeof(int) * ((size_t)s->C.m + 1)) ||
           spgemm_alloc(s, (void **)&s->C.col_idx, sizeof(int) * (size_t)nnz) ||
           spgemm_alloc(s, &s->C.val, s->value_bytes * (size_t)nnz);
}

void spgemm_free_c(gpu_spgemm_state *s)
{
    spgemm_free(s->C.row_ptr);
    spgemm_free(s->C.col_idx);
    spgemm_free(s->C.val);
    s->C.row_ptr = s->C.col_idx = NULL;
    s->C.val = NULL;
    s->C.nnz = 0;
}

__global__ void count_products_kernel(const int *a_ci, int a_nnz, const int *b_rp,
                                      unsigned long long *counter)
{
    unsigned long long p = 0;
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < a_nnz; k += gridDim.x * blockDim.x)
        p += (unsigned long long)(b_rp[a_ci[k] + 1] - b_rp[a_ci[k]]);
    for (int offset = WARP / 2; offset > 0; offset >>= 1)
        p += __shfl_down_sync(FULL_MASK, p, offset);
    if (threadIdx.x % WARP == 0 && p) atomicAdd(counter, p);
}

int spgemm_count_products(gpu_spgemm_state *s, unsigned long long *counter, int *products)
{
    unsigned long long total = 0;
    const unsigned grid = gpu_blocks_for(s->A.nnz, 256);
    const unsigned blocks = grid < 1024 ? grid : 1024; /* striding past that */
    if (s->A.nnz > 0)
        count_products_kernel<<<blocks, 256>>>(s->A.col_idx, s->A.nnz, s->B.row_ptr, counter);
    if (gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch") ||
        gpu_cuda_failed(&s->core, cudaMemcpy(&total, counter, sizeof total, cudaMemcpyDeviceToHost),
                        "kernel execution"))
        return 1;
    *products = (int)total; /* prepare declines a product beyond 32-bit counts */
    return 0;
}

int spgemm_bits(long long limit)
{
    int bits = 0;
    while (bits < 62 && (1ll << bits) < limit) bits++;
    return bits;
}

void spgemm_record_kernel_time(gpu_spgemm_state *s)
{
    float ms = 0;
    if (gpu_cuda_failed(&s->core, cudaEventSynchronize(s->kernel_stop), "kernel execution") ||
        gpu_cuda_failed(&s->core, cudaEventElapsedTime(&ms, s->kernel_start, s->kernel_stop),
                        "cudaEventElapsedTime"))
        return;
    if (s->kernel_count == s->kernel_cap) {
        int cap = s->kernel_cap ? 2 * s->kernel_cap : 64;
        float *grown = (float *)realloc(s->kernel_ms, sizeof(float) * (size_t)cap);
        if (!grown) return; /* the sample is lost, not the product */
        s->kernel_ms = grown;
        s->kernel_cap = cap;
    }
    s->kernel_ms[s->kernel_count++] = ms;
}

/* ---- unordered coordinates to canonical CSR --------------------------------------- */

__global__ void count_rows_kernel(const unsigned long long *keys, int count, int col_bits,
                                  int *row_counts)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) atomicAdd(&row_counts[keys[e] >> col_bits], 1);
}

__global__ void columns_of_keys_kernel(const unsigned long long *keys, int count,
                                       unsigned long long col_mask, int *col_idx)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < count) col_idx[e] = (int)(keys[e] & col_mask);
}

/* The sort runs on double buffers (keys and the new sorted_keys; vals and
 * C's values), so cub's storage is a few kilobytes rather than another copy
 * of the pairs: the conversion's peak is C, the coordinates and one more
 * array of keys. */
template <class T>
void spgemm_coordinates_to_csr(gpu_spgemm_state *s, unsigned long long *keys, T *vals, int count,
                               int col_bits)
{
    T *c_val = NULL; /* C's values, once allocated */
    int m = s->A.m, key_bits = col_bits + spgemm_bits(m);
    int *row_counts = NULL;
    unsigned long long *sorted_keys = NULL;
    void *temp = NULL, *block = NULL;
    size_t scan_bytes = 0, sort_bytes = 0;
    if (spgemm_alloc_c(s, count)) goto fail;
    c_val = values_of<T>(s->C);
    {
        cub::DoubleBuffer<unsigned long long> key_buffers(keys, NULL);
        cub::DoubleBuffer<T> value_buffers(vals, c_val);
        /* cub's storage sizes first: one allocation for its storage and the arrays */
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, row_counts, s->C.row_ptr, m + 1),
                "cub::DeviceScan");
        GPU_TRY(&s->core,
                cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, key_buffers, value_buffers, count,
                                                0, key_bits),
                "cub::DeviceRadixSort");
        block = carve(s, NULL, [&](carving &c) {
            row_counts = c.take<int>((size_t)m + 1);
            sorted_keys = c.take<unsigned long long>((size_t)count);
            temp = c.take<char>(scan_bytes > sort_bytes ? scan_bytes : sort_bytes);
        });
        if (!block) goto fail;
        key_buffers.d_buffers[1] = sorted_keys;
        GPU_TRY(&s->core, cudaMemsetAsync(row_counts, 0, sizeof(int) * ((size_t)m + 1), 0),
                "cudaMemsetAsync");
        if (count > 0)
            count_rows_kernel<<<gpu_blocks_for(count, 256), 256>>>(keys, count, col_bits,
                                                                   row_counts);
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(temp, scan_bytes, row_counts, s->C.row_ptr, m + 1),
                "cub::DeviceScan");
        if (count > 0) {
            GPU_TRY(&s->core,
                    cub::DeviceRadixSort::SortPairs(temp, sort_bytes, key_buffers, value_buffers,
                                                    count, 0, key_bits),
                    "cub::DeviceRadixSort");
            if (value_buffers.Current() != c_val) /* an even number of passes */
                GPU_TRY(&s->core,
                        cudaMemcpyAsync(c_val, value_buffers.Current(), sizeof(T) * (size_t)count,
                                        cudaMemcpyDeviceToDevice, 0),
                        "cudaMemcpyAsync");
            columns_of_keys_kernel<<<gpu_blocks_for(count, 256), 256>>>(
                key_buffers.Current(), count, (1ull << col_bits) - 1, s->C.col_idx);
        }
        GPU_TRY(&s->core, cudaGetLastError(), "kernel launch");
    }
fail:
    spgemm_free(block);
}

template void spgemm_coordinates_to_csr<double>(gpu_spgemm_state *, unsigned long long *, double *,
                                                int, int);
template void spgemm_coordinates_to_csr<float>(gpu_spgemm_state *, unsigned long long *, float *,
                                               int, int);

/* ---- prepare ------------------------------------------------------------------- */

/* H with its values in the state's precision (val32: H's rounded to fp32;
 * a complex value is one (re, im) pair of value_bytes). */
static int upload_csr(gpu_spgemm_state *s, const spb_csr *H, const float *val32, gpu_csr *D)
{
    D->m = H->m;
    D->n = H->n;
    D->nnz = H->nnz;
    const void *val =
        spb_precision_single(s->precision) ? (const void *)val32 : (const void *)H->val;
    return gpu_upload(&s->core, (void **)&D->row_ptr, H->row_ptr, (size_t)H->m + 1, sizeof(int)) ||
           gpu_upload(&s->core, (void **)&D->col_idx, H->col_idx, (size_t)H->nnz, sizeof(int)) ||
           gpu_upload(&s->core, &D->val, val, (size_t)H->nnz, s->value_bytes);
}

/* Refuses, with the estimate, a product whose operands and working set
 * cannot fit in device memory: skipped past the device's whole memory, an
 * error (tried again alone) past what the other rows leave free. */
static spb_status check_fits(const spb_csr *A, const spb_csr *B, int64_t products,
                             spb_precision precision, char *msg)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return SPB_OK;
    const double entry = sizeof(int) + (double)spb_precision_bytes(precision);
    double operands = entry * ((double)A->nnz + B->nnz) + 4.0 * ((double)A->m + B->m + 2);
    double need = operands + BYTES_PER_PRODUCT * (double)products + (64 << 20);
    char detail[160];
    snprintf(detail, sizeof detail,
             "the operands %.2f GiB and %.0f bytes for each of %lld intermediate products",
             operands / 1073741824.0, BYTES_PER_PRODUCT, (long long)products);
    return spb_memory_check_device(need, (double)free_bytes, (double)total_bytes, "A*B", detail,
                                   msg);
}

/* Block and tile from the config or the row's defaults; declines others. */
static spb_status launch_shape(const gpu_spgemm_variant *v, const spb_kernel_config *config,
                               int *block, int *tile, char *msg)
{
    *block = v->default_block ? (config->block_size ? config->block_size : v->default_block) : 0;
    *tile = v->default_tile ? (config->tile ? config->tile : v->default_tile) : 0;
    if (v->default_block && (*block < WARP || *block > MAX_BLOCK || *block % WARP))
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "block size %d: this kernel needs a multiple of 32 in 32..%d", *block,
                        MAX_BLOCK);
    if (v->default_tile && (*tile < MIN_TILE || *tile > MAX_TILE || *tile % WARP))
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "tile %d: this kernel needs a multiple of 32 in %d..%d", *tile, MIN_TILE,
                        MAX_TILE);
    return SPB_OK;
}

spb_status gpu_spgemm_prepare(const spb_kernel *self, spb_format_set *formats,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const gpu_spgemm_variant *v = (const gpu_spgemm_variant *)self->variant;
    const spb_csr *A = formats->csr, *B = formats->b;
    int block, tile;
    spb_status st = launch_shape(v, config, &block, &tile, msg);
    if (st != SPB_OK) return st;
    if (!v->sizes_itself) {
        int64_t products = csr_spgemm_products(A, B);
        if (products > INT32_MAX)
            return spb_fail(msg, SPB_ERR_DECLINED,
                            "A*B makes %lld intermediate products: this row counts them in 32 bits",
                            (long long)products);
        st = check_fits(A, B, products, config->precision, msg);
        if (st != SPB_OK) return st;
    }
    const float *a32 = NULL, *b32 = NULL; /* fp32: declined when a value is out of range */
    if (spb_precision_single(config->precision) &&
        ((st = format_set_csr_values32(formats, &a32, msg)) != SPB_OK ||
         (st = format_set_b_values32(formats, &b32, msg)) != SPB_OK))
        return st;
    gpu_spgemm_state *s = (gpu_spgemm_state *)spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->variant = v;
    s->precision = config->precision;
    s->value_bytes = spb_precision_bytes(config->precision);
    s->block_size = block;
    s->tile = tile;
    s->peak_bytes = NAN; /* until a product counts it */
    /* Freed memory stays in the pool between products instead of going back
     * to the driver at every synchronisation. */
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    GPU_TRY(&s->core, cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
    GPU_TRY(&s->core, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep),
            "cudaMemPoolSetAttribute");
    if (upload_csr(s, A, a32, &s->A) || upload_csr(s, B, b32, &s->B)) goto fail;
    GPU_TRY(&s->core, cudaEventCreate(&s->core.start), "cudaEventCreate");
    GPU_TRY(&s->core, cudaEventCreate(&s->core.stop), "cudaEventCreate");
    GPU_TRY(&s->core, cudaEventCreate(&s->kernel_start), "cudaEventCreate");
    GPU_TRY(&s->core, cudaEventCreate(&s->kernel_stop), "cudaEventCreate");
    if (v->setup && (st = v->setup(s, msg)) != SPB_OK) {
        gpu_spgemm_release(s);
        return st;
    }
    plan->state = s;
    plan->stored_entries = A->nnz;
    plan->block_size = block;
    return SPB_OK;
fail:
    st = gpu_state_fail(&s->core, msg);
    gpu_spgemm_release(s);
    return st;
}

/* ---- run, time, check, release ------------------------------------------------- */

/* One whole product from the device-resident operands to s->C. */
static void whole_product(gpu_spgemm_state *s)
{
    spgemm_free_c(s);
    if (s->core.error != SPB_OK) return;
    s->variant->product(s);
    gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
}

/* One whole product, and the most pool memory it held beyond what was
 * held before it (the operands are not in the pool) into s->peak_bytes. */
static void counted_product(gpu_spgemm_state *s)
{
    cudaMemPool_t pool;
    uint64_t held = 0, high = 0, reset = 0; /* the runtime reads them as 64-bit */
    if (s->variant->outside_pool) {
        whole_product(s);
        return;
    }
    spgemm_free_c(s);
    GPU_TRY(&s->core, cudaDeviceSynchronize(), "kernel execution");
    GPU_TRY(&s->core, cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
    GPU_TRY(&s->core, cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &held),
            "cudaMemPoolGetAttribute");
    GPU_TRY(&s->core, cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &reset),
            "cudaMemPoolSetAttribute");
    whole_product(s);
    GPU_TRY(&s->core, cudaDeviceSynchronize(), "kernel execution");
    GPU_TRY(&s->core, cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high),
            "cudaMemPoolGetAttribute");
    if (high >= held && !(s->peak_bytes >= (double)(high - held)))
        s->peak_bytes = (double)(high - held);
fail:
    return;
}

double gpu_spgemm_peak_bytes(const void *state)
{
    return ((const gpu_spgemm_state *)state)->peak_bytes;
}

spb_status gpu_spgemm_run(const void *state, spb_csr *C, char *msg)
{
    gpu_spgemm_state *s = (gpu_spgemm_state *)state;
    const int complex_values = spb_precision_complex(s->precision);
    memset(C, 0, sizeof *C);
    counted_product(s);
    GPU_TRY(&s->core, cudaDeviceSynchronize(), "kernel execution");
    if (s->core.error != SPB_OK) goto fail;
    if ((complex_values ? csr_alloc_complex : csr_alloc)(C, s->C.m, s->C.n, s->C.nnz, msg) !=
        SPB_OK)
        return SPB_ERR_NOMEM;
    GPU_TRY(&s->core,
            cudaMemcpy(C->row_ptr, s->C.row_ptr, sizeof(int) * ((size_t)C->m + 1),
                       cudaMemcpyDeviceToHost),
            "cudaMemcpy C");
    if (C->nnz > 0) {
        GPU_TRY(&s->core,
                cudaMemcpy(C->col_idx, s->C.col_idx, sizeof(int) * (size_t)C->nnz,
                           cudaMemcpyDeviceToHost),
                "cudaMemcpy C");
        /* fp32: the floats (each part of complex ones) into the front half
         * of C's values, then widened from the last down, so that none is
         * overwritten before it is read */
        GPU_TRY(
            &s->core,
            cudaMemcpy(C->val, s->C.val, s->value_bytes * (size_t)C->nnz, cudaMemcpyDeviceToHost),
            "cudaMemcpy C");
        if (spb_precision_single(s->precision)) {
            float widened;
            for (int64_t k = (int64_t)C->nnz * (complex_values ? 2 : 1) - 1; k >= 0; k--) {
                memcpy(&widened, (const char *)C->val + sizeof(float) * (size_t)k, sizeof widened);
                C->val[k] = widened;
            }
        }
    }
    return SPB_OK;
fail:
    csr_free(C);
    return gpu_state_fail(&s->core, msg);
}

double gpu_spgemm_time_calls(void *state, int calls)
{
    gpu_spgemm_state *s = (gpu_spgemm_state *)state;
    float ms = 0;
    if (s->core.error != SPB_OK) return -1.0;
    GPU_TRY(&s->core, cudaEventRecord(s->core.start), "cudaEventRecord");
    for (int k = 0; k < calls && s->core.error == SPB_OK; k++) whole_product(s);
    GPU_TRY(&s->core, cudaEventRecord(s->core.stop), "cudaEventRecord");
    GPU_TRY(&s->core, cudaEventSynchronize(s->core.stop), "kernel execution");
    GPU_TRY(&s->core, cudaEventElapsedTime(&ms, s->core.start, s->core.stop),
            "cudaEventElapsedTime");
    return s->core.error == SPB_OK ? ms * 1e-3 : -1.0;
fail:
    return -1.0;
}

spb_status gpu_spgemm_check(const void *state, char *msg)
{
    const gpu_spgemm_state *s = (const gpu_spgemm_state *)state;
    return s->core.error == SPB_OK ? SPB_OK : gpu_state_fail(&s->core, msg);
}

static int compare_float(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

double gpu_spgemm_kernel_seconds(const void *state)
{
    const gpu_spgemm_state *s = (const gpu_spgemm_state *)state;
    if (s->kernel_count == 0) return NAN;
    qsort(s->kernel_ms, (size_t)s->kernel_count, sizeof(float), compare_float);
    int h = s->kernel_count / 2;
    double median =
        s->kernel_count % 2 ? s->kernel_ms[h] : 0.5 * (s->kernel_ms[h - 1] + s->kernel_ms[h]);
    return median * 1e-3;
}

static void free_csr(gpu_csr *D)
{
    cudaFree(D->row_ptr);
    cudaFree(D->col_idx);
    cudaFree(D->val);
}

void gpu_spgemm_release(void *state)
{
    gpu_spgemm_state *s = (gpu_spgemm_state *)state;
    if (!s) return;
    spgemm_free_c(s);
    cudaDeviceSynchronize();
    /* What the pool kept for this row goes back: the next matrix's fit check
     * reads the driver's free memory, and CUSP allocates outside the pool. */
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
    free_csr(&s->A);
    free_csr(&s->B);
    if (s->mat_a) cusparseDestroySpMat(s->mat_a);
    if (s->mat_b) cusparseDestroySpMat(s->mat_b);
    if (s->handle) cusparseDestroy(s->handle);
    if (s->core.start) cudaEventDestroy(s->core.start);
    if (s->core.stop) cudaEventDestroy(s->core.stop);
    if (s->kernel_start) cudaEventDestroy(s->kernel_start);
    if (s->kernel_stop) cudaEventDestroy(s->kernel_stop);
    free(s->kernel_ms);
    spb_free(s);
}
