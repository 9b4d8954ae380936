/* spmv_cuda.cu — fp64 SpMV kernels for CSR and HLL on the GPU, and cuSPARSE
 * beside them. Each kernel is a static __global__ function with its banner;
 * one launch function per family sizes the grid and checks the launch. The
 * state owns every device allocation; its first CUDA error is kept and
 * reported by gpu_check. */
#include <cuda_runtime.h>
#include <cusparse.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern "C" {
#include "../formats/hll.h"
}
#include "gpu.h"

#define WARP                         32
#define MAX_BLOCK                    1024
#define DEFAULT_BLOCK_THREAD_PER_ROW 256
#define DEFAULT_BLOCK_WARP_PER_ROW   256
#define LONG_ROW                     512 /* csr.cuda.adaptive: longer rows get a block each */
#define LONG_BLOCK                   256 /* threads of the block that takes one long row */

/* ---- kernels ------------------------------------------------------------------- */

/* Sum over the 32 lanes of a warp; lane 0 ends with the total. */
static __device__ __forceinline__ double warp_reduce(double v)
{
    for (int offset = WARP / 2; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* One lane's share of a CSR row: entries lane, lane+stride, ... */
static __device__ __forceinline__ double csr_lane_sum(const int *__restrict__ row_ptr,
                                                      const int *__restrict__ col_idx,
                                                      const double *__restrict__ val,
                                                      const double *__restrict__ x, long long row,
                                                      int lane, int stride)
{
    double sum = 0.0;
    for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += stride)
        sum += val[k] * x[col_idx[k]];
    return sum;
}

/* One lane's share of a row of row-major HLL hacks (padding included). */
static __device__ __forceinline__ double
hll_row_lane_sum(int hack_size, const int *__restrict__ hack_ptr,
                 const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                 const double *__restrict__ val, const double *__restrict__ x, long long row,
                 int lane, int stride)
{
    int h = (int)(row / hack_size), r = (int)(row - (long long)h * hack_size);
    int width = hack_width[h], start = hack_ptr[h] + r * width;
    double sum = 0.0;
    for (int k = lane; k < width; k += stride) sum += val[start + k] * x[col_idx[start + k]];
    return sum;
}

/* Tree reduction of a warp's 32 partials in shared memory, ordered by
 * __syncwarp; returns the total (meaningful in lane 0). */
static __device__ __forceinline__ double shared_warp_reduce(double *partial, int lane, double v)
{
    partial[lane] = v;
    __syncwarp();
    for (int offset = WARP / 2; offset > 0; offset >>= 1) {
        if (lane < offset) partial[lane] += partial[lane + offset];
        __syncwarp();
    }
    return partial[0];
}

/* csr.cuda.thread — one thread per row; neighbouring threads read distant
 * entries (uncoalesced), fine for short rows, poor for long ones. The
 * simplest mapping and the reference point for the others. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_thread_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                      const double *__restrict__ val, const double *__restrict__ x,
                      double *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    y[row] = csr_lane_sum(row_ptr, col_idx, val, x, row, 0, 1);
}

/* csr.cuda.warp — one warp per row: lanes stride through the row
 * (coalesced), then a shuffle reduction. Precondition: blockDim.x is a
 * multiple of 32 (a warp never straddles two rows). */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                    const double *__restrict__ val, const double *__restrict__ x,
                    double *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return; /* the whole warp leaves together */
    double sum = warp_reduce(csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.warp_shared — one warp per row; the lanes' partial sums are
 * reduced in shared memory (a tree ordered by __syncwarp) instead of by
 * shuffles: the classic pre-shuffle formulation, kept to compare. Dynamic
 * shared memory: blockDim.x doubles. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_shared_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                           const double *__restrict__ val, const double *__restrict__ x,
                           double *__restrict__ y)
{
    extern __shared__ double partial[];
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    double sum = shared_warp_reduce(partial + threadIdx.x - lane, lane,
                                    csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.warp_shared2d — 2-D blocks (32 lanes x rows per block): each row
 * is a warp, its partials go to a 2-D shared array [row][lane], the first
 * halving step is done in shared memory and the last 16 partials by
 * shuffles. Dynamic shared memory: blockDim.y * 32 doubles. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_shared2d_kernel(int m, const int *__restrict__ row_ptr,
                             const int *__restrict__ col_idx, const double *__restrict__ val,
                             const double *__restrict__ x, double *__restrict__ y)
{
    extern __shared__ double partial2d[]; /* [blockDim.y][WARP] */
    long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    int lane = threadIdx.x;
    if (row >= m) return;
    double *mine = partial2d + threadIdx.y * WARP;
    mine[lane] = csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP);
    __syncwarp();
    if (lane < WARP / 2) mine[lane] += mine[lane + WARP / 2];
    __syncwarp();
    double v = mine[lane]; /* lanes >= 16 hold values lane 0 never adds */
    for (int offset = WARP / 4; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) y[row] = v;
}

/* csr.cuda.ldg — csr.cuda.warp with every read through __ldg (the
 * read-only data cache path), stated explicitly rather than left to the
 * compiler's reading of const __restrict__. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_ldg_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                   const double *__restrict__ val, const double *__restrict__ x,
                   double *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    int end = __ldg(row_ptr + row + 1);
    double sum = 0.0;
    for (int k = __ldg(row_ptr + row) + lane; k < end; k += WARP)
        sum += __ldg(val + k) * __ldg(x + __ldg(col_idx + k));
    sum = warp_reduce(sum);
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.texture — csr.cuda.warp with x read through a texture object
 * (tex1Dfetch of int2 pairs, reassembled into doubles): the texture cache
 * path for the irregular gathers. Precondition: n within the device's
 * linear-texture limit (checked in prepare). */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_texture_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                       const double *__restrict__ val, cudaTextureObject_t x_tex,
                       double *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    double sum = 0.0;
    for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += WARP) {
        int2 bits = tex1Dfetch<int2>(x_tex, col_idx[k]);
        sum += val[k] * __hiloint2double(bits.y, bits.x);
    }
    sum = warp_reduce(sum);
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.adaptive (1/2) — rows of up to LONG_ROW entries, each by a
 * group of `lanes` threads (a power of two <= 32 chosen in prepare from the
 * mean row length): several short rows share a warp, each group reads its
 * row coalesced and reduces it with segmented shuffles. Longer rows are
 * left to csr_long_row_kernel, so one giant row cannot hold up its warp.
 * Every thread reaches the shuffles (no early exit): blockDim.x is a
 * multiple of 32. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_vector_kernel(int m, int lanes, const int *__restrict__ row_ptr,
                      const int *__restrict__ col_idx, const double *__restrict__ val,
                      const double *__restrict__ x, double *__restrict__ y)
{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = tid / lanes;
    int lane = (int)(tid % lanes);
    int valid = row < m, begin = 0, end = 0;
    if (valid) {
        begin = row_ptr[row];
        end = row_ptr[row + 1];
        if (end - begin > LONG_ROW) valid = 0, end = begin;
    }
    double sum = 0.0;
    for (int k = begin + lane; k < end; k += lanes) sum += val[k] * x[col_idx[k]];
    for (int offset = lanes / 2; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (valid && lane == 0) y[row] = sum;
}

/* csr.cuda.adaptive (2/2) — one block of LONG_BLOCK threads per long row
 * (the list made in prepare): strided partial sums, shuffles inside each
 * warp, then the warps' sums through shared memory. */
static __global__ void __launch_bounds__(LONG_BLOCK)
    csr_long_row_kernel(const int *__restrict__ long_rows, const int *__restrict__ row_ptr,
                        const int *__restrict__ col_idx, const double *__restrict__ val,
                        const double *__restrict__ x, double *__restrict__ y)
{
    __shared__ double warp_sums[LONG_BLOCK / WARP];
    int row = long_rows[blockIdx.x];
    int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    double sum = warp_reduce(csr_lane_sum(row_ptr, col_idx, val, x, row, threadIdx.x, LONG_BLOCK));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        sum = warp_reduce(lane < LONG_BLOCK / WARP ? warp_sums[lane] : 0.0);
        if (lane == 0) y[row] = sum;
    }
}

/* HLL entry (r, k) of hack h: row-major base + r*width + k,
 * column-major base + k*rows_h + r. */

/* hll.cuda.row — one thread per row on row-major hacks: each thread walks
 * its own contiguous row (uncoalesced across the warp); no branch for
 * padding. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_row_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                   const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                   const double *__restrict__ val, const double *__restrict__ x,
                   double *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    y[row] = hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, 0, 1);
}

/* hll.cuda.col — one thread per row on column-major hacks: at step k the
 * threads of a hack read consecutive entries (coalesced), the layout HLL
 * exists for. Best with hack_size a multiple of 32. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_col_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                   const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                   const double *__restrict__ val, const double *__restrict__ x,
                   double *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    int h = row / hack_size, r = row - h * hack_size, width = hack_width[h];
    int rows_h = min(hack_size, m - h * hack_size);
    int start = hack_ptr[h] + r;
    double sum = 0.0;
    for (int k = 0; k < width; k++) sum += val[start + k * rows_h] * x[col_idx[start + k * rows_h]];
    y[row] = sum;
}

/* hll.cuda.warp — one warp per row on row-major hacks: the lanes stride
 * through the (padded) row, coalesced; shuffle reduction. Precondition:
 * blockDim.x a multiple of 32. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_warp_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                    const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                    const double *__restrict__ val, const double *__restrict__ x,
                    double *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    double sum = warp_reduce(
        hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* hll.cuda.warp_shared — hll.cuda.warp with the partials reduced in shared
 * memory. Dynamic shared memory: blockDim.x doubles. */
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_warp_shared_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                           const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                           const double *__restrict__ val, const double *__restrict__ x,
                           double *__restrict__ y)
{
    extern __shared__ double partial_hll[];
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    double sum = shared_warp_reduce(
        partial_hll + threadIdx.x - lane, lane,
        hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* ---- state --------------------------------------------------------------------- */

typedef struct {
    spb_gpu_kernel kernel;
    int m, n, block_size, hack_size;
    /* CSR or HLL arrays on the device */
    int *d_row_ptr, *d_hack_ptr, *d_hack_width, *d_col_idx;
    double *d_val, *d_x, *d_y;
    cudaTextureObject_t x_tex;
    int has_tex;
    /* csr.cuda.adaptive */
    int lanes;        /* threads per short row */
    int *d_long_rows; /* rows longer than LONG_ROW */
    int long_count;
    /* cuSPARSE */
    cusparseHandle_t handle;
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *d_buffer;
    cudaEvent_t start, stop;
    spb_status error; /* first failure met after prepare */
    char error_msg[SPB_MSG_LEN];
} gpu_state;

/* Records the first failure of a CUDA runtime call; returns nonzero on error. */
static int cuda_failed(gpu_state *s, cudaError_t err, const char *what)
{
    if (err == cudaSuccess) return 0;
    if (s->error == SPB_OK) {
        s->error = SPB_ERR_DEVICE;
        snprintf(s->error_msg, sizeof s->error_msg, "%s: %s", what, cudaGetErrorString(err));
    }
    return 1;
}

static int cusparse_failed(gpu_state *s, cusparseStatus_t err, const char *what)
{
    if (err == CUSPARSE_STATUS_SUCCESS) return 0;
    if (s->error == SPB_OK) {
        s->error = SPB_ERR_DEVICE;
        snprintf(s->error_msg, sizeof s->error_msg, "%s: %s", what, cusparseGetErrorString(err));
    }
    return 1;
}

static int is_warp_kernel(spb_gpu_kernel k)
{
    return k == GPU_CSR_ADAPTIVE || k == GPU_CSR_WARP || k == GPU_CSR_WARP_SHARED ||
           k == GPU_CSR_WARP_SHARED2D || k == GPU_CSR_LDG || k == GPU_CSR_TEXTURE ||
           k == GPU_HLL_WARP || k == GPU_HLL_WARP_SHARED;
}

static int is_hll_kernel(spb_gpu_kernel k)
{
    return k == GPU_HLL_ROW || k == GPU_HLL_WARP || k == GPU_HLL_WARP_SHARED || k == GPU_HLL_COL;
}

static int is_cusparse(spb_gpu_kernel k)
{
    return k == GPU_CUSPARSE_CSR || k == GPU_CUSPARSE_CSR_ALG2 || k == GPU_CUSPARSE_SELL;
}

/* Grid size for one thread (or one warp) per row; 0 when m is 0. */
static unsigned grid_for(const gpu_state *s)
{
    long long per_row = s->kernel == GPU_CSR_ADAPTIVE ? s->lanes
                        : is_warp_kernel(s->kernel)   ? WARP
                                                      : 1;
    long long threads = (long long)s->m * per_row;
    return (unsigned)((threads + s->block_size - 1) / s->block_size);
}

/* Launches one product of the state's kernel (no synchronisation). */
static void launch(gpu_state *s)
{
    if (s->m == 0) return;
    if (is_cusparse(s->kernel)) {
        const double alpha = 1.0, beta = 0.0;
        cusparseSpMVAlg_t alg = s->kernel == GPU_CUSPARSE_CSR        ? CUSPARSE_SPMV_CSR_ALG1
                                : s->kernel == GPU_CUSPARSE_CSR_ALG2 ? CUSPARSE_SPMV_CSR_ALG2
                                                                     : CUSPARSE_SPMV_SELL_ALG1;
        cusparse_failed(s,
                        cusparseSpMV(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s->mat,
                                     s->vec_x, &beta, s->vec_y, CUDA_R_64F, alg, s->d_buffer),
                        "cusparseSpMV");
        return;
    }
    unsigned grid = grid_for(s);
    int b = s->block_size;
    size_t shared = (size_t)b * sizeof(double);
    switch (s->kernel) {
    case GPU_CSR_THREAD:
        csr_thread_kernel<<<grid, b>>>(s->m, s->d_row_ptr, s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_CSR_WARP:
        csr_warp_kernel<<<grid, b>>>(s->m, s->d_row_ptr, s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_CSR_WARP_SHARED:
        csr_warp_shared_kernel<<<grid, b, shared>>>(s->m, s->d_row_ptr, s->d_col_idx, s->d_val,
                                                    s->d_x, s->d_y);
        break;
    case GPU_CSR_WARP_SHARED2D: {
        dim3 block(WARP, b / WARP);
        csr_warp_shared2d_kernel<<<grid, block, shared>>>(s->m, s->d_row_ptr, s->d_col_idx,
                                                          s->d_val, s->d_x, s->d_y);
        break;
    }
    case GPU_CSR_LDG:
        csr_ldg_kernel<<<grid, b>>>(s->m, s->d_row_ptr, s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_CSR_TEXTURE:
        csr_texture_kernel<<<grid, b>>>(s->m, s->d_row_ptr, s->d_col_idx, s->d_val, s->x_tex,
                                        s->d_y);
        break;
    case GPU_CSR_ADAPTIVE:
        csr_vector_kernel<<<grid, b>>>(s->m, s->lanes, s->d_row_ptr, s->d_col_idx, s->d_val, s->d_x,
                                       s->d_y);
        if (s->long_count > 0)
            csr_long_row_kernel<<<s->long_count, LONG_BLOCK>>>(
                s->d_long_rows, s->d_row_ptr, s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_HLL_ROW:
        hll_row_kernel<<<grid, b>>>(s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width,
                                    s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_HLL_COL:
        hll_col_kernel<<<grid, b>>>(s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width,
                                    s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_HLL_WARP:
        hll_warp_kernel<<<grid, b>>>(s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width,
                                     s->d_col_idx, s->d_val, s->d_x, s->d_y);
        break;
    case GPU_HLL_WARP_SHARED:
        hll_warp_shared_kernel<<<grid, b, shared>>>(s->m, s->hack_size, s->d_hack_ptr,
                                                    s->d_hack_width, s->d_col_idx, s->d_val, s->d_x,
                                                    s->d_y);
        break;
    default: break;
    }
    cuda_failed(s, cudaGetLastError(), "kernel launch");
}

/* ---- prepare: conversion, upload, descriptors -------------------------------- */

/* cudaMalloc + cudaMemcpy of `count` elements of `size` bytes. */
static int upload(gpu_state *s, void **d_ptr, const void *host, size_t count, size_t size)
{
    if (cuda_failed(s, cudaMalloc(d_ptr, count * size > 0 ? count * size : size), "cudaMalloc"))
        return 1;
    if (count == 0) return 0;
    return cuda_failed(s, cudaMemcpy(*d_ptr, host, count * size, cudaMemcpyHostToDevice),
                       "cudaMemcpy to the device");
}

/* cuSPARSE's sliced ELL: every slice holds slice_size rows (the last one
 * padded with empty rows), column-major inside the slice, padding marked by
 * column -1 and value 0. Built from spbench's column-major HLL. */
static spb_status sell_from_hll(const spb_hll *H, int **offsets, int **cols, double **vals,
                                int64_t *size, char *msg)
{
    *offsets = (int *)spb_malloc((size_t)H->nhacks + 1, sizeof **offsets);
    int64_t total = 0;
    if (*offsets) {
        (*offsets)[0] = 0;
        for (spb_index h = 0; h < H->nhacks; h++) {
            total += (int64_t)H->hack_size * H->hack_width[h];
            if (total > SPB_INDEX_MAX) {
                spb_free(*offsets);
                *offsets = NULL;
                return spb_fail(msg, SPB_ERR_TOO_LARGE, "SELL would exceed 32-bit offsets");
            }
            (*offsets)[h + 1] = (int)total;
        }
    }
    *cols = (int *)spb_malloc((size_t)total, sizeof **cols);
    *vals = (double *)spb_malloc((size_t)total, sizeof **vals);
    if (!*offsets || !*cols || !*vals) {
        spb_free(*offsets);
        spb_free(*cols);
        spb_free(*vals);
        *offsets = *cols = NULL;
        *vals = NULL;
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory building SELL");
    }
    for (spb_index h = 0; h < H->nhacks; h++) {
        spb_index rows = hll_hack_rows(H, h), width = H->hack_width[h];
        for (spb_index k = 0; k < width; k++)
            for (spb_index r = 0; r < H->hack_size; r++) {
                int64_t to = (*offsets)[h] + (int64_t)k * H->hack_size + r;
                if (r < rows) {
                    int64_t from = (int64_t)H->hack_ptr[h] + (int64_t)k * rows + r;
                    /* HLL pads with the row's last column and 0: SELL wants -1 */
                    int padding =
                        H->val[from] == 0.0 && k > 0 && H->col_idx[from] <= H->col_idx[from - rows];
                    (*cols)[to] = padding ? -1 : H->col_idx[from];
                    (*vals)[to] = padding ? 0.0 : H->val[from];
                } else {
                    (*cols)[to] = -1;
                    (*vals)[to] = 0.0;
                }
            }
    }
    *size = total;
    return SPB_OK;
}

/* csr.cuda.adaptive's plan: the rows longer than LONG_ROW go to a list
 * (one block each); the others get `lanes` threads each, half the mean
 * length of those rows rounded up to a power of two (1..32), so most lanes
 * load one or two entries. */
static spb_status plan_adaptive(gpu_state *s, const spb_csr *A, char *msg)
{
    int *long_rows = NULL;
    int64_t short_entries = 0, short_rows = 0, count = 0;
    for (spb_index i = 0; i < A->m; i++) {
        spb_index len = A->row_ptr[i + 1] - A->row_ptr[i];
        if (len > LONG_ROW)
            count++;
        else
            short_entries += len, short_rows++;
    }
    if (count > 0 && !(long_rows = (int *)spb_malloc((size_t)count, sizeof *long_rows)))
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the long-row list");
    count = 0;
    for (spb_index i = 0; i < A->m; i++)
        if (A->row_ptr[i + 1] - A->row_ptr[i] > LONG_ROW) long_rows[count++] = i;
    double mean = short_rows ? (double)short_entries / short_rows : 1.0;
    s->lanes = 1;
    while (s->lanes < WARP && 2.0 * s->lanes < mean) s->lanes *= 2;
    s->long_count = (int)count;
    upload(s, (void **)&s->d_long_rows, long_rows, (size_t)count, sizeof(int));
    spb_free(long_rows);
    return SPB_OK;
}

static int default_block(spb_gpu_kernel k)
{
    return is_warp_kernel(k) ? DEFAULT_BLOCK_WARP_PER_ROW : DEFAULT_BLOCK_THREAD_PER_ROW;
}

/* Refuses early, with sizes, a matrix that cannot fit in device memory. */
static spb_status check_fits(double bytes_needed, char *msg)
{
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return SPB_OK;
    if (bytes_needed > (double)free_bytes)
        return spb_fail(msg, SPB_ERR_DEVICE,
                        "does not fit in device memory: needs %.2f GiB, %.2f GiB free of %.2f",
                        bytes_needed / 1073741824.0, free_bytes / 1073741824.0,
                        total_bytes / 1073741824.0);
    return SPB_OK;
}

static spb_status prepare_cusparse(gpu_state *s, const spb_hll *H, int64_t sell_size,
                                   int *d_sell_offsets, int nnz)
{
    if (cusparse_failed(s, cusparseCreate(&s->handle), "cusparseCreate")) return s->error;
    cusparseStatus_t err;
    if (s->kernel == GPU_CUSPARSE_SELL)
        err = cusparseCreateSlicedEll(&s->mat, s->m, s->n, nnz, sell_size, H->hack_size,
                                      d_sell_offsets, s->d_col_idx, s->d_val, CUSPARSE_INDEX_32I,
                                      CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F);
    else
        err = cusparseCreateCsr(&s->mat, s->m, s->n, nnz, s->d_row_ptr, s->d_col_idx, s->d_val,
                                CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                CUDA_R_64F);
    if (cusparse_failed(s, err, "cusparseCreate matrix descriptor")) return s->error;
    if (cusparse_failed(s, cusparseCreateDnVec(&s->vec_x, s->n, s->d_x, CUDA_R_64F),
                        "cusparseCreateDnVec") ||
        cusparse_failed(s, cusparseCreateDnVec(&s->vec_y, s->m, s->d_y, CUDA_R_64F),
                        "cusparseCreateDnVec"))
        return s->error;
    const double alpha = 1.0, beta = 0.0;
    cusparseSpMVAlg_t alg = s->kernel == GPU_CUSPARSE_CSR        ? CUSPARSE_SPMV_CSR_ALG1
                            : s->kernel == GPU_CUSPARSE_CSR_ALG2 ? CUSPARSE_SPMV_CSR_ALG2
                                                                 : CUSPARSE_SPMV_SELL_ALG1;
    size_t buffer_size = 0;
    if (cusparse_failed(s,
                        cusparseSpMV_bufferSize(s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                                s->mat, s->vec_x, &beta, s->vec_y, CUDA_R_64F, alg,
                                                &buffer_size),
                        "cusparseSpMV_bufferSize"))
        return s->error;
    if (buffer_size > 0 && cuda_failed(s, cudaMalloc(&s->d_buffer, buffer_size), "cudaMalloc"))
        return s->error;
    if (s->m > 0 && cusparse_failed(s,
                                    cusparseSpMV_preprocess(
                                        s->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s->mat,
                                        s->vec_x, &beta, s->vec_y, CUDA_R_64F, alg, s->d_buffer),
                                    "cusparseSpMV_preprocess"))
        return s->error;
    return SPB_OK;
}

extern "C" spb_status gpu_prepare(spb_gpu_kernel kernel, const spb_csr *A, spb_index hack_size,
                                  int block_size, void **state, int64_t *stored_entries,
                                  double *bytes, char *msg)
{
    *state = NULL;
    if (block_size == 0) block_size = default_block(kernel);
    if (!is_cusparse(kernel) && (block_size < 1 || block_size > MAX_BLOCK ||
                                 (is_warp_kernel(kernel) && block_size % WARP != 0)))
        return spb_fail(msg, SPB_ERR_UNSUPPORTED, "block size %d: this kernel needs 1..%d%s",
                        block_size, MAX_BLOCK, is_warp_kernel(kernel) ? ", a multiple of 32" : "");
    if (kernel == GPU_CSR_TEXTURE) {
        size_t max_width = 0;
        cudaChannelFormatDesc format = cudaCreateChannelDesc<int2>();
        if (cudaDeviceGetTexture1DLinearMaxWidth(&max_width, &format, 0) == cudaSuccess &&
            (size_t)A->n + 1 > max_width)
            return spb_fail(msg, SPB_ERR_UNSUPPORTED,
                            "x has %d entries, beyond the linear texture limit of %zu", (int)A->n,
                            max_width);
    }
    gpu_state *s = (gpu_state *)spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->kernel = kernel;
    s->m = A->m;
    s->n = A->n;
    s->block_size = block_size;
    s->hack_size = hack_size;
    spb_hll H;
    memset(&H, 0, sizeof H);
    int *sell_offsets = NULL, *sell_cols = NULL, *d_sell_offsets = NULL;
    double *sell_vals = NULL;
    int64_t sell_size = 0;
    spb_status st = SPB_OK;
    if (is_hll_kernel(kernel) || kernel == GPU_CUSPARSE_SELL) {
        spb_hll_layout layout =
            kernel == GPU_HLL_ROW || kernel == GPU_HLL_WARP || kernel == GPU_HLL_WARP_SHARED
                ? HLL_ROW_MAJOR
                : HLL_COL_MAJOR;
        st = hll_from_csr(A, hack_size, layout, &H, msg);
        if (st == SPB_OK && kernel == GPU_CUSPARSE_SELL)
            st = sell_from_hll(&H, &sell_offsets, &sell_cols, &sell_vals, &sell_size, msg);
    }
    if (st != SPB_OK) goto fail;
    if (is_hll_kernel(kernel)) {
        *stored_entries = hll_stored(&H);
        *bytes = hll_spmv_bytes(&H);
    } else if (kernel == GPU_CUSPARSE_SELL) {
        *stored_entries = sell_size;
        *bytes = 12.0 * sell_size + 4.0 * (H.nhacks + 1.0) + 8.0 * A->n + 8.0 * A->m;
    } else {
        *stored_entries = A->nnz;
        *bytes = csr_spmv_bytes(A);
    }
    /* the byte model counts every device array once (matrix, x, y); keep a
     * margin for cuSPARSE's buffer and the runtime */
    st = check_fits(*bytes + (64 << 20), msg);
    if (st != SPB_OK) goto fail;
    if (kernel == GPU_CUSPARSE_SELL) {
        if (upload(s, (void **)&d_sell_offsets, sell_offsets, (size_t)H.nhacks + 1, sizeof(int)) ||
            upload(s, (void **)&s->d_col_idx, sell_cols, (size_t)sell_size, sizeof(int)) ||
            upload(s, (void **)&s->d_val, sell_vals, (size_t)sell_size, sizeof(double)))
            goto device_fail;
        s->d_hack_ptr = d_sell_offsets; /* owned by the state from here on */
    } else if (is_hll_kernel(kernel)) {
        if (upload(s, (void **)&s->d_hack_ptr, H.hack_ptr, (size_t)H.nhacks + 1, sizeof(int)) ||
            upload(s, (void **)&s->d_hack_width, H.hack_width, (size_t)H.nhacks, sizeof(int)) ||
            upload(s, (void **)&s->d_col_idx, H.col_idx, (size_t)hll_stored(&H), sizeof(int)) ||
            upload(s, (void **)&s->d_val, H.val, (size_t)hll_stored(&H), sizeof(double)))
            goto device_fail;
    } else {
        if (upload(s, (void **)&s->d_row_ptr, A->row_ptr, (size_t)A->m + 1, sizeof(int)) ||
            upload(s, (void **)&s->d_col_idx, A->col_idx, (size_t)A->nnz, sizeof(int)) ||
            upload(s, (void **)&s->d_val, A->val, (size_t)A->nnz, sizeof(double)))
            goto device_fail;
    }
    if (kernel == GPU_CSR_ADAPTIVE) {
        st = plan_adaptive(s, A, msg);
        if (st != SPB_OK) goto fail;
        if (s->error != SPB_OK) goto device_fail;
    }
    if (cuda_failed(s, cudaMalloc((void **)&s->d_x, sizeof(double) * ((size_t)A->n + 1)),
                    "cudaMalloc") ||
        cuda_failed(s, cudaMalloc((void **)&s->d_y, sizeof(double) * ((size_t)A->m + 1)),
                    "cudaMalloc") ||
        cuda_failed(s, cudaEventCreate(&s->start), "cudaEventCreate") ||
        cuda_failed(s, cudaEventCreate(&s->stop), "cudaEventCreate"))
        goto device_fail;
    if (kernel == GPU_CSR_TEXTURE) {
        cudaResourceDesc res;
        memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeLinear;
        res.res.linear.devPtr = s->d_x;
        res.res.linear.desc = cudaCreateChannelDesc<int2>();
        res.res.linear.sizeInBytes = sizeof(double) * ((size_t)A->n + 1);
        cudaTextureDesc tex;
        memset(&tex, 0, sizeof tex);
        tex.readMode = cudaReadModeElementType;
        if (cuda_failed(s, cudaCreateTextureObject(&s->x_tex, &res, &tex, NULL),
                        "cudaCreateTextureObject"))
            goto device_fail;
        s->has_tex = 1;
    }
    if (is_cusparse(kernel) &&
        prepare_cusparse(s, &H, sell_size, d_sell_offsets, (int)A->nnz) != SPB_OK)
        goto device_fail;
    hll_free(&H);
    spb_free(sell_offsets);
    spb_free(sell_cols);
    spb_free(sell_vals);
    *state = s;
    return SPB_OK;
device_fail:
    st = spb_fail(msg, s->error, "%s", s->error_msg);
fail:
    hll_free(&H);
    spb_free(sell_offsets);
    spb_free(sell_cols);
    spb_free(sell_vals);
    if (d_sell_offsets && s->d_hack_ptr != d_sell_offsets) cudaFree(d_sell_offsets);
    gpu_release(s);
    return st;
}

/* ---- run, time, check, release ------------------------------------------------- */

extern "C" void gpu_run(const void *state, const spb_value *x, spb_value *y)
{
    gpu_state *s = (gpu_state *)state;
    for (int i = 0; i < s->m; i++) y[i] = NAN;
    if (s->error != SPB_OK) return;
    if (s->n > 0 &&
        cuda_failed(s, cudaMemcpy(s->d_x, x, sizeof(double) * (size_t)s->n, cudaMemcpyHostToDevice),
                    "cudaMemcpy x"))
        return;
    /* all bits set: a NaN in every y entry the kernel fails to write */
    if (cuda_failed(s, cudaMemset(s->d_y, 0xff, sizeof(double) * ((size_t)s->m + 1)),
                    "cudaMemset y"))
        return;
    launch(s);
    if (cuda_failed(s, cudaDeviceSynchronize(), "kernel execution")) return;
    if (s->m > 0)
        cuda_failed(s, cudaMemcpy(y, s->d_y, sizeof(double) * (size_t)s->m, cudaMemcpyDeviceToHost),
                    "cudaMemcpy y");
}

extern "C" double gpu_time_calls(void *state, int calls)
{
    gpu_state *s = (gpu_state *)state;
    if (s->error != SPB_OK) return -1.0;
    if (cuda_failed(s, cudaEventRecord(s->start), "cudaEventRecord")) return -1.0;
    for (int k = 0; k < calls && s->error == SPB_OK; k++) launch(s);
    float ms = 0;
    if (cuda_failed(s, cudaEventRecord(s->stop), "cudaEventRecord") ||
        cuda_failed(s, cudaEventSynchronize(s->stop), "kernel execution") ||
        cuda_failed(s, cudaEventElapsedTime(&ms, s->start, s->stop), "cudaEventElapsedTime") ||
        s->error != SPB_OK)
        return -1.0;
    return ms * 1e-3;
}

extern "C" spb_status gpu_check(const void *state, char *msg)
{
    const gpu_state *s = (const gpu_state *)state;
    if (s->error == SPB_OK) return SPB_OK;
    return spb_fail(msg, s->error, "%s", s->error_msg);
}

extern "C" int gpu_block_size(const void *state)
{
    const gpu_state *s = (const gpu_state *)state;
    return is_cusparse(s->kernel) ? 0 : s->block_size;
}

extern "C" void gpu_release(void *state)
{
    gpu_state *s = (gpu_state *)state;
    if (!s) return;
    if (s->vec_x) cusparseDestroyDnVec(s->vec_x);
    if (s->vec_y) cusparseDestroyDnVec(s->vec_y);
    if (s->mat) cusparseDestroySpMat(s->mat);
    if (s->handle) cusparseDestroy(s->handle);
    if (s->has_tex) cudaDestroyTextureObject(s->x_tex);
    if (s->start) cudaEventDestroy(s->start);
    if (s->stop) cudaEventDestroy(s->stop);
    cudaFree(s->d_row_ptr);
    cudaFree(s->d_hack_ptr);
    cudaFree(s->d_hack_width);
    cudaFree(s->d_col_idx);
    cudaFree(s->d_val);
    cudaFree(s->d_x);
    cudaFree(s->d_y);
    cudaFree(s->d_buffer);
    cudaFree(s->d_long_rows);
    spb_free(s);
}
