/* cuda_rows.cu — a CUDA plug-in for spbench: y = A*x with one warp per
 * row of A (CSR), in fp64 and fp32. A starting point for your own GPU
 * kernel: change warp_per_row(), keep the rest.
 *
 * spbench hands the kernel device arrays (A, x and y already on the GPU)
 * and times its launches with events on the default stream; the kernel
 * launches there and returns.
 *
 * Build against an installed spbench (see CMakeLists.txt here) and
 * measure it beside spbench's rows and cuSPARSE's:
 *   spbench run --plugin build/libcuda_rows.so --kernels 'mine.*,cusparse.csr' matrices/ */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include <spbench/plugin.h>

#define BLOCK 256 /* threads per block: 8 warps, 8 rows */

/* Each warp sums one row: its 32 lanes stride over the row's entries,
 * then add their partial sums with shuffles. */
template <typename T>
__global__ void warp_per_row(int32_t rows, const int32_t *__restrict__ row_ptr,
                             const int32_t *__restrict__ col_idx, const T *__restrict__ values,
                             const T *__restrict__ x, T *__restrict__ y)
{
    int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    T sum = 0;
    for (int32_t k = row_ptr[row] + lane; k < row_ptr[row + 1]; k += 32)
        sum += values[k] * x[col_idx[k]];
    for (int offset = 16; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = sum;
}

/* What prepare keeps: the matrix spbench uploaded (valid until release)
 * and the precision. */
typedef struct {
    spb_plugin_csr A;
    int fp32;
} rows_state;

static int rows_prepare(const spb_plugin_csr *A, const spb_plugin_config *config, void **state,
                        char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    rows_state *s = (rows_state *)malloc(sizeof *s);
    if (!s) return SPB_PLUGIN_FAILED;
    s->A = *A;
    s->fp32 = config->precision == SPB_PLUGIN_FP32;
    *state = s;
    return SPB_PLUGIN_OK;
}

static int rows_spmv(void *state, const void *x, void *y, char *msg, size_t msg_size)
{
    const rows_state *s = (const rows_state *)state;
    const spb_plugin_csr *A = &s->A;
    if (A->rows == 0) return SPB_PLUGIN_OK;
    unsigned blocks = (unsigned)(((int64_t)A->rows * 32 + BLOCK - 1) / BLOCK);
    if (s->fp32)
        warp_per_row<float><<<blocks, BLOCK>>>(A->rows, A->row_ptr, A->col_idx,
                                               (const float *)A->values, (const float *)x,
                                               (float *)y);
    else
        warp_per_row<double><<<blocks, BLOCK>>>(A->rows, A->row_ptr, A->col_idx,
                                                (const double *)A->values, (const double *)x,
                                                (double *)y);
    cudaError_t err = cudaGetLastError(); /* a launch that did not start */
    if (err == cudaSuccess) return SPB_PLUGIN_OK;
    snprintf(msg, msg_size, "the launch failed: %s", cudaGetErrorString(err));
    return SPB_PLUGIN_FAILED;
}

static void rows_release(void *state) { free(state); }

static const spb_plugin_kernel kernels[] = {
    {"mine.csr.cuda.warp", "CSR, one warp per row (a plug-in's example)", SPB_PLUGIN_SPMV,
     SPB_PLUGIN_CUDA, 1, rows_prepare, rows_spmv, NULL, rows_release},
};

const spb_plugin_library *spb_plugin_kernels(void)
{
    static const spb_plugin_library library = {SPB_PLUGIN_ABI, sizeof kernels / sizeof kernels[0],
                                               kernels};
    return &library;
}
