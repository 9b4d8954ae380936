/* reduce.cuh — the per-lane sums and warp reductions the SpMV kernels
 * share, for either value type T (double or float: the sums are in T). */
#ifndef SPB_REDUCE_CUH
#define SPB_REDUCE_CUH

#include "spmv_state.cuh"

/* An element of the matrix's arrays, which a product reads once: with
 * ONCE cached evict-first (ld.global.cs), so that the matrix's stream does
 * not push out of the L2 the lines of x, which the gathers read again.
 * csr.cuda.stream and csr.cuda.merge on H100, one run: 1.00-1.13x on the
 * irregular shapes of 12-24 million entries, 0.99-1.00x on lap3d:170
 * (MEASUREMENTS.md); marking x's gathers evict-last besides gained at
 * most 2% more there and lost 3-6% on lap3d. */
template <bool ONCE, typename T> static __device__ __forceinline__ T load_matrix(const T *p)
{
    return ONCE ? __ldcs(p) : *p;
}

/* One term of a row's sum, its value v already loaded: v times x, or x
 * alone for a pattern matrix (the …pattern kernels: no value loaded, the
 * common value applied once per row). */
template <bool PATTERN, typename T> static __device__ __forceinline__ T scaled(T v, T xv)
{
    return PATTERN ? xv : v * xv;
}

/* A row's sum as y's value: for a pattern matrix, whose terms were x
 * alone, times the common value. */
template <bool PATTERN, typename T> static __device__ __forceinline__ T row_value(T sum, T scale)
{
    return PATTERN ? scale * sum : sum;
}

/* One term, its value loaded from val[k] (where the matrix has values). */
template <bool PATTERN, bool ONCE = false, typename T>
static __device__ __forceinline__ T term(const T *__restrict__ val, int k, T xv)
{
    return scaled<PATTERN>(PATTERN ? T(0) : load_matrix<ONCE>(val + k), xv);
}

/* Sum over the 32 lanes of a warp; lane 0 ends with the total. */
template <typename T> static __device__ __forceinline__ T warp_reduce(T v)
{
    for (int offset = WARP / 2; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

/* Sum over the block (blockDim.x a multiple of 32, every thread calling);
 * thread 0 ends with the total. warp_sums: shared memory for a value per
 * warp. */
template <typename T> static __device__ __forceinline__ T block_reduce(T v, T *warp_sums)
{
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP;
    v = warp_reduce(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_reduce(lane < (int)blockDim.x / WARP ? warp_sums[lane] : T(0));
    return v;
}

/* One thread's share of a long row: its terms k = begin + t, + stride, ...
 * in that order, LOADS of them loaded before any is added, so that a
 * thread has LOADS gathers of x in flight instead of one after another
 * (the block-per-row paths: a row of thousands of entries is a few terms
 * per thread, each waiting on the L2). The sum's order is the plain loop's. */
template <bool PATTERN, bool ONCE, int LOADS, typename T, typename O>
static __device__ __forceinline__ T strided_row_sum(const int *__restrict__ col_idx,
                                                    const T *__restrict__ val,
                                                    const T *__restrict__ x, O begin, O end, int t,
                                                    int stride)
{
    T sum = 0;
    O k = begin + t;
    for (; k < end - (O)(LOADS - 1) * stride; k += (O)LOADS * stride) {
        int cols[LOADS];
        T vals[LOADS], xs[LOADS];
#pragma unroll
        for (int i = 0; i < LOADS; i++) {
            cols[i] = load_matrix<ONCE>(col_idx + k + i * stride);
            vals[i] = PATTERN ? T(0) : load_matrix<ONCE>(val + k + i * stride);
        }
#pragma unroll
        for (int i = 0; i < LOADS; i++) xs[i] = x[cols[i]];
#pragma unroll
        for (int i = 0; i < LOADS; i++) sum += scaled<PATTERN>(vals[i], xs[i]);
    }
    for (; k < end; k += stride)
        sum += term<PATTERN, ONCE>(val, k, x[load_matrix<ONCE>(col_idx + k)]);
    return sum;
}

/* One lane's share of a CSR row: entries lane, lane+stride, ... (row
 * offsets O: int, or int64_t past 2^31 - 1 entries). */
template <typename T, typename O>
static __device__ __forceinline__ T csr_lane_sum(const O *__restrict__ row_ptr,
                                                 const int *__restrict__ col_idx,
                                                 const T *__restrict__ val, const T *__restrict__ x,
                                                 long long row, int lane, int stride)
{
    T sum = 0;
    for (O k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += stride)
        sum += val[k] * x[col_idx[k]];
    return sum;
}

/* One lane's share of a row of row-major HLL hacks (padding included). */
template <typename T>
static __device__ __forceinline__ T hll_row_lane_sum(
    int hack_size, const int *__restrict__ hack_ptr, const int *__restrict__ hack_width,
    const int *__restrict__ col_idx, const T *__restrict__ val, const T *__restrict__ x,
    long long row, int lane, int stride)
{
    int h = (int)(row / hack_size), r = (int)(row - (long long)h * hack_size);
    int width = hack_width[h], start = hack_ptr[h] + r * width;
    T sum = 0;
    for (int k = lane; k < width; k += stride) sum += val[start + k] * x[col_idx[start + k]];
    return sum;
}

/* Tree reduction of a warp's 32 partials in shared memory, ordered by
 * __syncwarp; returns the total (meaningful in lane 0). */
template <typename T>
static __device__ __forceinline__ T shared_warp_reduce(T *partial, int lane, T v)
{
    partial[lane] = v;
    __syncwarp();
    for (int offset = WARP / 2; offset > 0; offset >>= 1) {
        if (lane < offset) partial[lane] += partial[lane + offset];
        __syncwarp();
    }
    return partial[0];
}

/* The block's dynamic shared memory as an array of T (one extern array for
 * every instantiation: extern arrays of different types may not share a name). */
template <typename T> static __device__ __forceinline__ T *dynamic_shared()
{
    extern __shared__ __align__(16) unsigned char dynamic_shared_bytes[];
    return reinterpret_cast<T *>(dynamic_shared_bytes);
}

#endif
