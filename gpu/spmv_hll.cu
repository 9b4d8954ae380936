/* spmv_hll.cu — HLL SpMV kernels on the GPU (row- and column-major hacks)
 * and their rows of the device table. */
#include "reduce.cuh"

#define DEFAULT_BLOCK 256

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

/* ---- launches ------------------------------------------------------------------ */

static void launch_row(gpu_state *s)
{
    hll_row_kernel<<<gpu_grid(s, 1), s->block_size>>>(
        s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, s->d_col_idx, s->d_val, s->d_x, s->d_y);
}

static void launch_col(gpu_state *s)
{
    hll_col_kernel<<<gpu_grid(s, 1), s->block_size>>>(
        s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, s->d_col_idx, s->d_val, s->d_x, s->d_y);
}

static void launch_warp(gpu_state *s)
{
    hll_warp_kernel<<<gpu_grid(s, WARP), s->block_size>>>(
        s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, s->d_col_idx, s->d_val, s->d_x, s->d_y);
}

static void launch_warp_shared(gpu_state *s)
{
    size_t shared = (size_t)s->block_size * sizeof(double);
    hll_warp_shared_kernel<<<gpu_grid(s, WARP), s->block_size, shared>>>(
        s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, s->d_col_idx, s->d_val, s->d_x, s->d_y);
}

/* ---- rows ---------------------------------------------------------------------- */

static const gpu_variant row_v = {SPB_FORMAT_HLL_ROW, DEFAULT_BLOCK, 0, 0, NULL, launch_row, 0};
static const gpu_variant warp_v = {SPB_FORMAT_HLL_ROW, DEFAULT_BLOCK, 1, 0, NULL, launch_warp, 0};
static const gpu_variant warp_shared_v = {
    SPB_FORMAT_HLL_ROW, DEFAULT_BLOCK, 1, 0, NULL, launch_warp_shared, 0};
static const gpu_variant col_v = {SPB_FORMAT_HLL_COL, DEFAULT_BLOCK, 0, 0, NULL, launch_col, 0};

extern const spb_kernel gpu_hll_rows[] = {
    GPU_ROW("hll.cuda.row", "hll.row", "HLL row-major hacks on the GPU, one thread per row",
            &row_v),
    GPU_ROW("hll.cuda.warp", "hll.row",
            "HLL row-major hacks on the GPU, one warp per row, shuffle reduction", &warp_v),
    GPU_ROW("hll.cuda.warp_shared", "hll.row",
            "HLL row-major hacks on the GPU, one warp per row, shared-memory reduction",
            &warp_shared_v),
    GPU_ROW("hll.cuda.col", "hll.col",
            "HLL column-major hacks on the GPU, one thread per row (coalesced)", &col_v),
};
extern const int gpu_hll_row_count = (int)(sizeof gpu_hll_rows / sizeof gpu_hll_rows[0]);
