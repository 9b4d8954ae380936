/* spmv_csr.cu — CSR SpMV on the GPU, the progression: a thread per row,
 * a warp per row and its reductions, read-only loads and a texture for x
 * (the load-balanced CSR kernels are in spmv_csr_balanced.cu). Each kernel
 * is a static __global__ function with its banner, a launch function that
 * sizes the grid, a variant and one entry of the device table. */
#include <stdio.h>
#include <string.h>

#include "reduce.cuh"

#define DEFAULT_BLOCK 256

/* What the texture kernel prepares beyond the CSR arrays (gpu_state.family). */
struct texture_data { /* csr.cuda.texture */
    cudaTextureObject_t x_tex;
    int made;
};

/* csr.cuda.thread — one thread per row; neighbouring threads read distant
 * entries (uncoalesced), fine for short rows, poor for long ones. The
 * simplest mapping and the reference point for the others. */
template <typename T, typename O>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_thread_kernel(int m, const O *__restrict__ row_ptr, const int *__restrict__ col_idx,
                      const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    y[row] = csr_lane_sum(row_ptr, col_idx, val, x, row, 0, 1);
}

/* csr.cuda.warp — one warp per row: lanes stride through the row
 * (coalesced), then a shuffle reduction. Precondition: blockDim.x is a
 * multiple of 32 (a warp never straddles two rows). */
template <typename T, typename O>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_kernel(int m, const O *__restrict__ row_ptr, const int *__restrict__ col_idx,
                    const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return; /* the whole warp leaves together */
    T sum = warp_reduce(csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.warp_shared — one warp per row; the lanes' partial sums are
 * reduced in shared memory (a tree ordered by __syncwarp) instead of by
 * shuffles: the classic pre-shuffle formulation, kept to compare. Dynamic
 * shared memory: blockDim.x values. */
template <typename T, typename O>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_shared_kernel(int m, const O *__restrict__ row_ptr, const int *__restrict__ col_idx,
                           const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    T *partial = dynamic_shared<T>();
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    T sum = shared_warp_reduce(partial + threadIdx.x - lane, lane,
                               csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* csr.cuda.warp_shared2d — 2-D blocks (32 lanes x rows per block): each row
 * is a warp, its partials go to a 2-D shared array [row][lane], the first
 * halving step is done in shared memory and the last 16 partials by
 * shuffles. Dynamic shared memory: blockDim.y * 32 values. */
template <typename T, typename O>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_warp_shared2d_kernel(int m, const O *__restrict__ row_ptr, const int *__restrict__ col_idx,
                             const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    T *partial2d = dynamic_shared<T>(); /* [blockDim.y][WARP] */
    long long row = (long long)blockIdx.x * blockDim.y + threadIdx.y;
    int lane = threadIdx.x;
    if (row >= m) return;
    T *mine = partial2d + threadIdx.y * WARP;
    mine[lane] = csr_lane_sum(row_ptr, col_idx, val, x, row, lane, WARP);
    __syncwarp();
    if (lane < WARP / 2) mine[lane] += mine[lane + WARP / 2];
    __syncwarp();
    T v = mine[lane]; /* lanes >= 16 hold values lane 0 never adds */
    for (int offset = WARP / 4; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) y[row] = v;
}

/* csr.cuda.ldg — csr.cuda.warp with every read through __ldg (the
 * read-only data cache path), stated explicitly rather than left to the
 * compiler's reading of const __restrict__. */
template <typename T, typename O>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_ldg_kernel(int m, const O *__restrict__ row_ptr, const int *__restrict__ col_idx,
                   const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    O end = __ldg(row_ptr + row + 1);
    T sum = 0;
    for (O k = __ldg(row_ptr + row) + lane; k < end; k += WARP)
        sum += __ldg(val + k) * __ldg(x + __ldg(col_idx + k));
    sum = warp_reduce(sum);
    if (lane == 0) y[row] = sum;
}

/* x[i] through the texture: a double as an int2 pair (textures hold no
 * doubles), a float as itself. */
template <typename T> static __device__ __forceinline__ T texture_x(cudaTextureObject_t tex, int i);
template <> __device__ __forceinline__ double texture_x<double>(cudaTextureObject_t tex, int i)
{
    int2 bits = tex1Dfetch<int2>(tex, i);
    return __hiloint2double(bits.y, bits.x);
}
template <> __device__ __forceinline__ float texture_x<float>(cudaTextureObject_t tex, int i)
{
    return tex1Dfetch<float>(tex, i);
}

/* csr.cuda.texture — csr.cuda.warp with x read through a texture object
 * (texture_x): the texture cache path for the irregular gathers.
 * Precondition: n within the device's linear-texture limit (checked in
 * prepare). */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_texture_kernel(int m, const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                       const T *__restrict__ val, cudaTextureObject_t x_tex, T *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    T sum = 0;
    for (int k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += WARP)
        sum += val[k] * texture_x<T>(x_tex, col_idx[k]);
    sum = warp_reduce(sum);
    if (lane == 0) y[row] = sum;
}

/* ---- launches ------------------------------------------------------------------ */

/* The state's arrays as the launch's value type. */
#define VALUES(T) (const T *)s->d_val, (const T *)s->d_x, (T *)s->d_y

template <typename T, typename O = int> static void launch_thread(gpu_state *s)
{
    csr_thread_kernel<T, O><<<gpu_grid(s, 1), s->block_size, 0, s->stream>>>(
        s->m, gpu_row_offsets<O>(s), s->d_col_idx, VALUES(T));
}

template <typename T, typename O = int> static void launch_warp(gpu_state *s)
{
    csr_warp_kernel<T, O><<<gpu_grid(s, WARP), s->block_size, 0, s->stream>>>(
        s->m, gpu_row_offsets<O>(s), s->d_col_idx, VALUES(T));
}

template <typename T, typename O = int> static void launch_warp_shared(gpu_state *s)
{
    size_t shared = (size_t)s->block_size * sizeof(T);
    csr_warp_shared_kernel<T, O><<<gpu_grid(s, WARP), s->block_size, shared, s->stream>>>(
        s->m, gpu_row_offsets<O>(s), s->d_col_idx, VALUES(T));
}

template <typename T, typename O = int> static void launch_warp_shared2d(gpu_state *s)
{
    size_t shared = (size_t)s->block_size * sizeof(T);
    dim3 block(WARP, s->block_size / WARP);
    csr_warp_shared2d_kernel<T, O><<<gpu_grid(s, WARP), block, shared, s->stream>>>(
        s->m, gpu_row_offsets<O>(s), s->d_col_idx, VALUES(T));
}

template <typename T, typename O = int> static void launch_ldg(gpu_state *s)
{
    csr_ldg_kernel<T, O><<<gpu_grid(s, WARP), s->block_size, 0, s->stream>>>(
        s->m, gpu_row_offsets<O>(s), s->d_col_idx, VALUES(T));
}

template <typename T> static void launch_texture(gpu_state *s)
{
    csr_texture_kernel<T><<<gpu_grid(s, WARP), s->block_size, 0, s->stream>>>(
        s->m, s->d_row_ptr, s->d_col_idx, (const T *)s->d_val, gpu_family<texture_data>(s)->x_tex,
        (T *)s->d_y);
}

/* ---- setup --------------------------------------------------------------------- */

/* csr.cuda.texture: x (allocated by prepare) bound to a texture object of
 * int2 pairs (fp64) or floats; declined when x exceeds the linear-texture limit. */
static spb_status setup_texture(gpu_state *s, const spb_csr *A, char *msg)
{
    size_t max_width = 0;
    cudaChannelFormatDesc format =
        s->precision == SPB_FP32 ? cudaCreateChannelDesc<float>() : cudaCreateChannelDesc<int2>();
    if (cudaDeviceGetTexture1DLinearMaxWidth(&max_width, &format, 0) == cudaSuccess &&
        (size_t)A->n + 1 > max_width)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "x has %d entries, beyond the linear texture limit of %zu", (int)A->n,
                        max_width);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = s->d_x;
    res.res.linear.desc = format;
    res.res.linear.sizeInBytes = s->value_bytes * ((size_t)A->n + 1);
    cudaTextureDesc tex;
    memset(&tex, 0, sizeof tex);
    tex.readMode = cudaReadModeElementType;
    texture_data *d = gpu_family_new<texture_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    if (gpu_cuda_failed(s, cudaCreateTextureObject(&d->x_tex, &res, &tex, NULL),
                        "cudaCreateTextureObject"))
        return gpu_state_fail(s, msg);
    d->made = 1;
    return SPB_OK;
}

static void release_texture(gpu_state *s)
{
    texture_data *d = gpu_family<texture_data>(s);
    if (d->made) cudaDestroyTextureObject(d->x_tex);
}

/* ---- the kernels of the device table ---------------------------------------------- */

/* A CSR variant of this file: default block, warps, no library parameter. */
#define CSR_VARIANT(...) GPU_CSR_VARIANT(DEFAULT_BLOCK, __VA_ARGS__)

static const gpu_variant thread_v = CSR_VARIANT(.launch = GPU_LAUNCH_COMPLEX(launch_thread),
                                                .launch_wide = GPU_LAUNCH_WIDE(launch_thread));
static const gpu_variant warp_v =
    CSR_VARIANT(.warp_multiple = 1, .launch = GPU_LAUNCH_COMPLEX(launch_warp),
                .launch_wide = GPU_LAUNCH_WIDE(launch_warp));
static const gpu_variant warp_shared_v =
    CSR_VARIANT(.warp_multiple = 1, .launch = GPU_LAUNCH_COMPLEX(launch_warp_shared),
                .launch_wide = GPU_LAUNCH_WIDE(launch_warp_shared));
static const gpu_variant warp_shared2d_v =
    CSR_VARIANT(.warp_multiple = 1, .launch = GPU_LAUNCH_COMPLEX(launch_warp_shared2d),
                .launch_wide = GPU_LAUNCH_WIDE(launch_warp_shared2d));
static const gpu_variant ldg_v =
    CSR_VARIANT(.warp_multiple = 1, .launch = GPU_LAUNCH_COMPLEX(launch_ldg),
                .launch_wide = GPU_LAUNCH_WIDE(launch_ldg));
static const gpu_variant texture_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_texture, .launch = GPU_LAUNCH(launch_texture),
                .release = release_texture);

extern const spb_spmv_kernel gpu_csr_kernels[] = {
    GPU_SPMV_KERNEL("csr.cuda.thread", "csr", "CSR on the GPU, one thread per row", &thread_v),
    GPU_SPMV_KERNEL("csr.cuda.warp", "csr",
                    "CSR on the GPU, one warp per row, __shfl_down_sync reduction", &warp_v),
    GPU_SPMV_KERNEL("csr.cuda.warp_shared", "csr",
                    "CSR on the GPU, one warp per row, partial sums reduced in shared memory",
                    &warp_shared_v),
    GPU_SPMV_KERNEL("csr.cuda.warp_shared2d", "csr",
                    "CSR on the GPU, 2-D blocks, a 2-D shared array of partials, then shuffles",
                    &warp_shared2d_v),
    GPU_SPMV_KERNEL("csr.cuda.ldg", "csr",
                    "CSR on the GPU, one warp per row, read-only loads through __ldg", &ldg_v),
    GPU_SPMV_KERNEL("csr.cuda.texture", "csr",
                    "CSR on the GPU, one warp per row, x read through a texture object",
                    &texture_v),
};
extern const int gpu_csr_kernel_count = (int)(sizeof gpu_csr_kernels / sizeof gpu_csr_kernels[0]);
