/* reduce.cuh — the per-lane sums and warp reductions the SpMV kernels share. */
#ifndef SPB_REDUCE_CUH
#define SPB_REDUCE_CUH

#include "spmv_state.cuh"

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

#endif
