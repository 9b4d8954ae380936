/* spmv_csr_balanced.cu — CSR SpMV on the GPU with the work balanced
 * across rows of any length: adaptive (threads per row from the mean,
 * a block per long row), binned (rows sorted by length class), stream
 * (tiles of entries) and stream on A renumbered by reverse Cuthill-McKee,
 * each also for a pattern matrix. Each kernel is a static __global__
 * function with its banner, a launch function that sizes the grid, a
 * variant and one entry of the device table. */
#include <stdio.h>
#include <string.h>

#include "reduce.cuh"

extern "C" {
#include "formats/order.h"
}

#define DEFAULT_BLOCK  256
#define LONG_ROW       512  /* csr.cuda.adaptive: longer rows get a block each */
#define LONG_BLOCK     256  /* threads of the block that takes one long row */
#define BIN_LONG_CLASS 12   /* csr.cuda.binned: rows longer than 2^12 get a block each */
#define BIN_LONG_ROW   4096 /* that length, for the descriptions */
#define STREAM_ITEMS   4    /* csr.cuda.stream: entries per thread in a tile */
#define LONG_ROW_LOADS 4    /* a row summed by a block: loads in flight per thread */
static_assert(1 << BIN_LONG_CLASS == BIN_LONG_ROW, "BIN_LONG_ROW is 2^BIN_LONG_CLASS");
/* csr.cuda.binned: the rows sorted by length class into segments, each
 * launched as `lanes` threads per row (more than a warp: a block per row);
 * segment s takes blocks [first_block[s], first_block[s+1]) and rows
 * [first_row[s], first_row[s] + rows[s]) of the sorted row list. */
#define BIN_SEGMENTS 16
struct bin_segments {
    int count;
    int first_block[BIN_SEGMENTS + 1];
    int first_row[BIN_SEGMENTS], rows[BIN_SEGMENTS], lanes[BIN_SEGMENTS];
};

/* What each family of this file prepares beyond the CSR arrays
 * (gpu_state.family). */
struct adaptive_data { /* csr.cuda.adaptive and .pattern */
    int lanes;         /* threads per short row */
    int *d_long_rows;  /* rows longer than LONG_ROW, a block each */
    int long_count;
};
struct binned_data { /* csr.cuda.binned and .pattern */
    bin_segments bins;
    int *d_bin_rows; /* rows in segment order */
};
struct stream_data {  /* csr.cuda.stream, .rcm and their .pattern */
    int tiles, alone; /* a tile of one row longer than alone: summed by the block */
    int *d_tile_row;  /* each tile's first row; tiles + 1 */
    int *d_order;     /* .rcm: the old index of each new row and column */
    void *d_x_new;    /* .rcm: x in the new numbering */
    int overlap;      /* .rcm: the tiles launched while x is renumbered (Hopper on) */
};

/* csr.cuda.adaptive (1/2) — rows of up to LONG_ROW entries, each by a
 * group of `lanes` threads (a power of two <= 32 chosen in prepare from the
 * mean row length): several short rows share a warp, each group reads its
 * row coalesced and reduces it with segmented shuffles. Longer rows are
 * left to csr_long_row_kernel, so one giant row cannot hold up its warp.
 * Every thread reaches the shuffles (no early exit): blockDim.x is a
 * multiple of 32. With PATTERN (csr.cuda.adaptive.pattern) val is not read and each
 * row's sum is multiplied by scale. */
template <typename T, bool PATTERN>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_adaptive_kernel(int m, int lanes, const int *__restrict__ row_ptr,
                        const int *__restrict__ col_idx, const T *__restrict__ val, T scale,
                        const T *__restrict__ x, T *__restrict__ y)
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
    T sum = 0;
    for (int k = begin + lane; k < end; k += lanes) sum += term<PATTERN>(val, k, x[col_idx[k]]);
    for (int offset = lanes / 2; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (valid && lane == 0) y[row] = row_value<PATTERN>(sum, scale);
}

/* csr.cuda.adaptive (2/2) — one block of LONG_BLOCK threads per long row
 * (the list made in prepare): strided partial sums, shuffles inside each
 * warp, then the warps' sums through shared memory. PATTERN as above. */
template <typename T, bool PATTERN>
static __global__ void __launch_bounds__(LONG_BLOCK)
    csr_long_row_kernel(const int *__restrict__ long_rows, const int *__restrict__ row_ptr,
                        const int *__restrict__ col_idx, const T *__restrict__ val, T scale,
                        const T *__restrict__ x, T *__restrict__ y)
{
    __shared__ T warp_sums[LONG_BLOCK / WARP];
    int row = long_rows[blockIdx.x];
    T sum = strided_row_sum<PATTERN, false, LONG_ROW_LOADS>(
        col_idx, val, x, row_ptr[row], row_ptr[row + 1], (int)threadIdx.x, LONG_BLOCK);
    sum = block_reduce(sum, warp_sums);
    if (threadIdx.x == 0) y[row] = row_value<PATTERN>(sum, scale);
}

/* csr.cuda.binned — the rows sorted in prepare by length class (a power
 * of two), each class a segment of the grid with its own shape: `lanes`
 * threads per row, half the class's length up to a warp, so every group's
 * lanes load one or two entries and the rows a warp holds are alike; rows
 * longer than 2^BIN_LONG_CLASS get a block each, and come first so they start
 * first. One launch; blocks find their segment from the plan (passed by
 * value). Rows keep their order inside a class. PATTERN as above. */
template <typename T, bool PATTERN>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_binned_kernel(bin_segments plan, const int *__restrict__ rows,
                      const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                      const T *__restrict__ val, T scale, const T *__restrict__ x,
                      T *__restrict__ y)
{
    __shared__ T warp_sums[MAX_BLOCK / WARP];
    int s = 0;
    while (s + 1 < plan.count && (int)blockIdx.x >= plan.first_block[s + 1]) s++;
    const int lanes = plan.lanes[s], block = (int)blockIdx.x - plan.first_block[s];
    if (lanes > WARP) { /* a block per row (uniform over the block) */
        const int row = rows[plan.first_row[s] + block];
        T sum = strided_row_sum<PATTERN, false, LONG_ROW_LOADS>(
            col_idx, val, x, row_ptr[row], row_ptr[row + 1], (int)threadIdx.x, (int)blockDim.x);
        sum = block_reduce(sum, warp_sums);
        if (threadIdx.x == 0) y[row] = row_value<PATTERN>(sum, scale);
        return;
    }
    const int i = block * ((int)blockDim.x / lanes) + (int)threadIdx.x / lanes;
    const int lane = threadIdx.x % lanes;
    int row = -1, begin = 0, end = 0;
    if (i < plan.rows[s]) {
        row = rows[plan.first_row[s] + i];
        begin = row_ptr[row];
        end = row_ptr[row + 1];
    }
    T sum = 0;
    for (int k = begin + lane; k < end; k += lanes) sum += term<PATTERN>(val, k, x[col_idx[k]]);
    for (int offset = lanes / 2; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (row >= 0 && lane == 0) y[row] = row_value<PATTERN>(sum, scale);
}

/* Hopper's programmatic dependent launch (csr.cuda.stream.rcm): the tiles'
 * grid starts while x is still being renumbered, reads its tile's rows and
 * columns, and waits for the renumbering to finish (and its writes to be
 * seen) before it gathers x. Compiled to nothing before compute 9.0, where
 * the launch does not ask for it. */
static __device__ __forceinline__ void wait_for_previous_grid()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaGridDependencySynchronize();
#endif
}
static __device__ __forceinline__ void let_next_grid_start()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    cudaTriggerProgrammaticLaunchCompletion();
#endif
}

/* csr.cuda.stream — rows cut in prepare into tiles of consecutive rows
 * holding at most blockDim.x * STREAM_ITEMS entries and blockDim.x rows,
 * a block per tile: the block streams the tile's products into shared
 * memory (coalesced, every thread busy whatever the row lengths), then
 * each thread adds up one row's products there. A row longer than
 * `alone` entries is a tile alone, summed by the whole block (strided,
 * then warp and block reductions): one thread adding up a thousand
 * products kept its block, and the product's last wave, waiting
 * (formats/csr.h: the rule and what it gained). No search, scan or
 * atomics: few instructions per entry, and the same bits every call.
 * Dynamic shared memory: blockDim.x * STREAM_ITEMS values. PATTERN as
 * above; RENUMBERED (csr.cuda.stream.rcm): A and x in the new numbering,
 * row r's sum written to y[order[r]]. */
template <typename T, bool PATTERN, bool RENUMBERED>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_stream_kernel(int alone, const int *__restrict__ tile_row, const int *__restrict__ row_ptr,
                      const int *__restrict__ col_idx, const T *__restrict__ val, T scale,
                      const T *__restrict__ x, T *__restrict__ y, const int *__restrict__ order)
{
    /* the matrix read evict-first on the value rows, where it was measured
     * (reduce.cuh's load_matrix); the pattern and renumbered rows as before */
    constexpr bool ONCE = !PATTERN && !RENUMBERED;
    __shared__ T warp_sums[MAX_BLOCK / WARP];
    T *products = dynamic_shared<T>();
    const int r0 = tile_row[blockIdx.x], rows = tile_row[blockIdx.x + 1] - r0;
    const int k0 = row_ptr[r0], entries = row_ptr[r0 + rows] - k0, t = threadIdx.x;
    if (rows == 1 && entries > alone) { /* one long row (uniform over the block) */
        if (RENUMBERED) wait_for_previous_grid();
        T sum = strided_row_sum<PATTERN, ONCE, LONG_ROW_LOADS>(col_idx, val, x, k0, k0 + entries, t,
                                                               (int)blockDim.x);
        sum = block_reduce(sum, warp_sums);
        if (t == 0) y[RENUMBERED ? order[r0] : r0] = row_value<PATTERN>(sum, scale);
        return;
    }
    /* a thread's STREAM_ITEMS gathers of x issued together, not one after
     * another: on scattered columns each waits on the L2 (citationCiteseer:
     * 82% of warp cycles stalled on them, the L2 at 59% of its peak) */
    int cols[STREAM_ITEMS];
    T xs[STREAM_ITEMS];
#pragma unroll
    for (int i = 0; i < STREAM_ITEMS; i++) {
        const int j = t + i * (int)blockDim.x;
        cols[i] = j < entries ? load_matrix<ONCE>(col_idx + k0 + j) : -1;
    }
    if (RENUMBERED) wait_for_previous_grid();
#pragma unroll
    for (int i = 0; i < STREAM_ITEMS; i++) xs[i] = cols[i] >= 0 ? x[cols[i]] : (T)0;
#pragma unroll
    for (int i = 0; i < STREAM_ITEMS; i++) {
        const int j = t + i * (int)blockDim.x;
        if (j < entries) products[j] = term<PATTERN, ONCE>(val, k0 + j, xs[i]);
    }
    __syncthreads();
    /* a thread per row (tried: a group of threads per row where the tile's
     * rows are long: H100 cnr-2000 13.3 -> 17.4 us in fp32) */
    if (t < rows) {
        T sum = 0;
        for (int j = row_ptr[r0 + t] - k0; j < row_ptr[r0 + t + 1] - k0; j++) sum += products[j];
        y[RENUMBERED ? order[r0 + t] : r0 + t] = row_value<PATTERN>(sum, scale);
    }
}

/* csr.cuda.stream.rcm's first step: x in the new numbering,
 * x_new[i] = x[order[i]]. */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    renumber_x_kernel(int n, const int *__restrict__ order, const T *__restrict__ x,
                      T *__restrict__ x_new)
{
    let_next_grid_start();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x_new[i] = x[order[i]];
}

/* ---- launches ------------------------------------------------------------------ */

template <typename T, bool PATTERN> static void launch_adaptive(gpu_state *s)
{
    const adaptive_data *d = gpu_family<adaptive_data>(s);
    const T *val = (const T *)s->d_val, *x = (const T *)s->d_x, scale = (T)s->iso_value;
    T *y = (T *)s->d_y;
    csr_adaptive_kernel<T, PATTERN><<<gpu_grid(s, d->lanes), s->block_size, 0, s->stream>>>(
        s->m, d->lanes, s->d_row_ptr, s->d_col_idx, val, scale, x, y);
    if (d->long_count > 0)
        csr_long_row_kernel<T, PATTERN><<<d->long_count, LONG_BLOCK, 0, s->stream>>>(
            d->d_long_rows, s->d_row_ptr, s->d_col_idx, val, scale, x, y);
}

template <typename T, bool PATTERN> static void launch_binned(gpu_state *s)
{
    const binned_data *d = gpu_family<binned_data>(s);
    csr_binned_kernel<T, PATTERN>
        <<<d->bins.first_block[d->bins.count], s->block_size, 0, s->stream>>>(
            d->bins, d->d_bin_rows, s->d_row_ptr, s->d_col_idx, (const T *)s->d_val,
            (T)s->iso_value, (const T *)s->d_x, (T *)s->d_y);
}

/* The stream tiles' shared memory: a block's entries' products. */
template <typename T> static size_t stream_shared_bytes(const gpu_state *s)
{
    return (size_t)s->block_size * STREAM_ITEMS * sizeof(T);
}

template <typename T, bool PATTERN> static void launch_stream(gpu_state *s)
{
    const stream_data *d = gpu_family<stream_data>(s);
    csr_stream_kernel<T, PATTERN, false>
        <<<d->tiles, s->block_size, stream_shared_bytes<T>(s), s->stream>>>(
            d->alone, d->d_tile_row, s->d_row_ptr, s->d_col_idx, (const T *)s->d_val,
            (T)s->iso_value, (const T *)s->d_x, (T *)s->d_y, NULL);
}

/* x renumbered, then the tiles of the renumbered matrix, each row's sum
 * written to its old index. */
template <typename T, bool PATTERN> static void launch_stream_rcm(gpu_state *s)
{
    const stream_data *d = gpu_family<stream_data>(s);
    renumber_x_kernel<T><<<gpu_blocks_for(s->n, DEFAULT_BLOCK), DEFAULT_BLOCK, 0, s->stream>>>(
        s->n, d->d_order, (const T *)s->d_x, (T *)d->d_x_new);
    cudaLaunchAttribute overlap = {};
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((unsigned)d->tiles);
    config.blockDim = dim3((unsigned)s->block_size);
    config.dynamicSmemBytes = stream_shared_bytes<T>(s);
    config.stream = s->stream;
    config.attrs = &overlap;
    config.numAttrs = d->overlap ? 1 : 0;
    gpu_cuda_failed(s,
                    cudaLaunchKernelEx(&config, csr_stream_kernel<T, PATTERN, true>, d->alone,
                                       (const int *)d->d_tile_row, (const int *)s->d_row_ptr,
                                       (const int *)s->d_col_idx, (const T *)s->d_val,
                                       (T)s->iso_value, (const T *)d->d_x_new, (T *)s->d_y,
                                       (const int *)d->d_order),
                    "kernel launch");
}

/* ---- setup --------------------------------------------------------------------- */

/* csr.cuda.adaptive's plan: the rows longer than LONG_ROW go to a list
 * (one block each); the others get `lanes` threads each, half the mean
 * length of those rows rounded up to a power of two (1..32), so most lanes
 * load one or two entries. */
static spb_status setup_adaptive(gpu_state *s, const spb_csr *A, char *msg)
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
    adaptive_data *d = gpu_family_new<adaptive_data>(s);
    if (!d) {
        spb_free(long_rows);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    }
    d->lanes = 1;
    while (d->lanes < WARP && 2.0 * d->lanes < mean) d->lanes *= 2;
    d->long_count = (int)count;
    int failed = gpu_upload(s, (void **)&d->d_long_rows, long_rows, (size_t)count, sizeof(int));
    spb_free(long_rows);
    return failed ? gpu_state_fail(s, msg) : SPB_OK;
}

static void release_adaptive(gpu_state *s) { cudaFree(gpu_family<adaptive_data>(s)->d_long_rows); }

/* csr.cuda.binned's plan: each row's class is the bit length of len - 1
 * (len <= 1: class 0), classes above BIN_LONG_CLASS form the block-per-row
 * segment; segments ordered longest first, rows stably sorted into them. */
static spb_status setup_binned(gpu_state *s, const spb_csr *A, char *msg)
{
    enum { CLASSES = BIN_LONG_CLASS + 2 }; /* the last: rows longer than 2^BIN_LONG_CLASS */
    int64_t count[CLASSES] = {0}, at[CLASSES];
    int *cls = (int *)spb_malloc((size_t)A->m + 1, sizeof(int));
    int *rows = (int *)spb_malloc((size_t)A->m + 1, sizeof(int));
    if (!cls || !rows) {
        spb_free(cls);
        spb_free(rows);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the row classes");
    }
    for (spb_index i = 0; i < A->m; i++) {
        unsigned len = (unsigned)(A->row_ptr[i + 1] - A->row_ptr[i]);
        int c = 0;
        while (c <= BIN_LONG_CLASS && len > (1u << c)) c++;
        count[cls[i] = c]++;
    }
    bin_segments plan;
    memset(&plan, 0, sizeof plan);
    int64_t first_row = 0, first_block = 0;
    for (int c = CLASSES - 1; c >= 0; c--) { /* longest first */
        at[c] = first_row;
        if (count[c] == 0) continue;
        int lanes = c == CLASSES - 1 ? MAX_BLOCK + 1 /* a block */
                    : c <= 1         ? 1
                                     : 1 << (c - 1 < 5 ? c - 1 : 5); /* up to a warp */
        int per_block = lanes > WARP ? 1 : s->block_size / lanes;
        plan.first_block[plan.count] = (int)first_block;
        plan.first_row[plan.count] = (int)first_row;
        plan.rows[plan.count] = (int)count[c];
        plan.lanes[plan.count++] = lanes;
        first_row += count[c];
        first_block += (count[c] + per_block - 1) / per_block;
    }
    plan.first_block[plan.count] = (int)first_block;
    for (spb_index i = 0; i < A->m; i++) rows[at[cls[i]]++] = i;
    binned_data *d = gpu_family_new<binned_data>(s);
    int failed = !d;
    if (d) {
        d->bins = plan;
        failed = gpu_upload(s, (void **)&d->d_bin_rows, rows, (size_t)A->m, sizeof(int));
    }
    spb_free(cls);
    spb_free(rows);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    return failed ? gpu_state_fail(s, msg) : SPB_OK;
}

static void release_binned(gpu_state *s) { cudaFree(gpu_family<binned_data>(s)->d_bin_rows); }

/* csr.cuda.stream's tiles (csr_row_tiles: formats/csr.h says the rule):
 * within block_size * STREAM_ITEMS entries and block_size rows. */
static spb_status setup_stream(gpu_state *s, const spb_csr *A, char *msg)
{
    const int64_t items = (int64_t)s->block_size * STREAM_ITEMS;
    const int64_t alone = csr_tile_alone(A, items);
    int *tile_row = (int *)spb_malloc((size_t)A->m + 2, sizeof(int));
    if (!tile_row) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the row tiles");
    const int tiles = csr_row_tiles(A, items, s->block_size, alone, tile_row);
    stream_data *d = s->family ? gpu_family<stream_data>(s) : gpu_family_new<stream_data>(s);
    int failed =
        !d || gpu_upload(s, (void **)&d->d_tile_row, tile_row, (size_t)tiles + 1, sizeof(int));
    spb_free(tile_row);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    d->tiles = tiles;
    d->alone = (int)alone;
    return failed ? gpu_state_fail(s, msg) : SPB_OK;
}

/* csr.cuda.stream.rcm: A renumbered by reverse Cuthill-McKee (B = P A P^T,
 * the format set's SPB_FORMAT_RCM, made once per matrix) is uploaded in
 * A's place, and B's tiles are cut as csr.cuda.stream's. Graphs numbered
 * without regard to their neighbours gather x from a new 32-byte sector
 * almost every entry; renumbered, a warp's gathers share sectors and a
 * tile's share lines in L1. Each product renumbers x first and writes y in
 * the old order; the byte model counts both. */
static spb_status setup_stream_rcm(gpu_state *s, const spb_csr *A, char *msg)
{
    const spb_csr *B = &s->rcm->csr;
    stream_data *d = gpu_family_new<stream_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    if (gpu_upload_csr(s, B, NULL) ||
        gpu_upload(s, (void **)&d->d_order, s->rcm->order, (size_t)A->m, sizeof(int)) ||
        gpu_cuda_failed(s, cudaMalloc(&d->d_x_new, s->value_bytes * ((size_t)A->n + 1)),
                        "cudaMalloc"))
        return gpu_state_fail(s, msg);
    spb_status st = setup_stream(s, B, msg);
    /* the overlap where the device has it and the kernel waits (compiled for 9.0 on) */
    int device = 0, major = 0;
    cudaFuncAttributes compiled = {};
    if (st == SPB_OK)
        d->overlap =
            cudaGetDevice(&device) == cudaSuccess &&
            cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) ==
                cudaSuccess &&
            major >= 9 &&
            cudaFuncGetAttributes(&compiled, csr_stream_kernel<float, true, true>) == cudaSuccess &&
            compiled.ptxVersion >= 90;
    if (st == SPB_OK)
        s->plan_bytes =
            (s->variant->pattern ? csr_pattern_spmv_bytes : csr_spmv_bytes)(A, s->precision) +
            (double)A->n * (sizeof(int) + 2.0 * s->value_bytes) + (double)A->m * sizeof(int);
    return st;
}

static void release_stream(gpu_state *s)
{
    stream_data *d = gpu_family<stream_data>(s);
    cudaFree(d->d_tile_row);
    cudaFree(d->d_order);
    cudaFree(d->d_x_new);
}

/* ---- the kernels of the device table ---------------------------------------------- */

/* A CSR variant of this file: default block, warps, no library parameter. */
#define CSR_VARIANT(...) GPU_CSR_VARIANT(DEFAULT_BLOCK, __VA_ARGS__)

static const gpu_variant adaptive_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_adaptive,
                .launch = GPU_LAUNCH_VALUES_COMPLEX(launch_adaptive), .release = release_adaptive);
static const gpu_variant adaptive_pattern_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_adaptive,
                .launch = GPU_LAUNCH_PATTERN(launch_adaptive, true), .pattern = 1,
                .release = release_adaptive);
static const gpu_variant binned_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_binned,
                .launch = GPU_LAUNCH_VALUES_COMPLEX(launch_binned), .release = release_binned);
static const gpu_variant binned_pattern_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_binned,
                .launch = GPU_LAUNCH_PATTERN(launch_binned, true), .pattern = 1,
                .release = release_binned);
static const gpu_variant stream_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_stream,
                .launch = GPU_LAUNCH_VALUES_COMPLEX(launch_stream), .release = release_stream);
/* on the format set's renumbered CSR (SPB_FORMAT_RCM) */
static const gpu_variant stream_rcm_v = {.format = SPB_FORMAT_RCM,
                                         .default_block = DEFAULT_BLOCK,
                                         .warp_multiple = 1,
                                         .setup = setup_stream_rcm,
                                         .launch = GPU_LAUNCH_PATTERN(launch_stream_rcm, false),
                                         .own_upload = 1,
                                         .release = release_stream};
static const gpu_variant stream_rcm_pattern_v = {.format = SPB_FORMAT_RCM,
                                                 .default_block = DEFAULT_BLOCK,
                                                 .warp_multiple = 1,
                                                 .setup = setup_stream_rcm,
                                                 .launch =
                                                     GPU_LAUNCH_PATTERN(launch_stream_rcm, true),
                                                 .pattern = 1,
                                                 .own_upload = 1,
                                                 .release = release_stream};
static const gpu_variant stream_pattern_v =
    CSR_VARIANT(.warp_multiple = 1, .setup = setup_stream,
                .launch = GPU_LAUNCH_PATTERN(launch_stream, true), .pattern = 1,
                .release = release_stream);

extern const spb_spmv_kernel gpu_csr_balanced_kernels[] = {
    GPU_SPMV_KERNEL(
        "csr.cuda.adaptive", "csr",
        "CSR on the GPU, a power-of-two group of threads per short row (sized from the mean "
        "row length), a block per row longer than " SPB_TEXT(LONG_ROW),
        &adaptive_v),
    GPU_SPMV_KERNEL(
        "csr.cuda.binned", "csr",
        "CSR on the GPU, rows sorted by length class in prepare, each class with its own "
        "threads per row (half its length, up to a warp; a block per row beyond " SPB_TEXT(
            BIN_LONG_ROW) "), "
                          "one launch",
        &binned_v),
    GPU_SPMV_KERNEL(
        "csr.cuda.binned.pattern", "csr.pattern",
        "csr.cuda.binned for a pattern matrix (all values equal): no values read (declines "
        "other matrices)",
        &binned_pattern_v),
    GPU_SPMV_KERNEL(
        "csr.cuda.stream", "csr",
        "CSR on the GPU, rows cut in prepare into tiles of at most " SPB_TEXT(
            STREAM_ITEMS) " entries per thread: each block streams its tile's products into "
                          "shared memory, then a thread sums each row there (a row longer "
                          "than " SPB_TEXT(CSR_TILE_ALONE) " entries and " SPB_TEXT(
                              CSR_TILE_ALONE_MEANS) " mean rows: a block alone)",
        &stream_v),
    GPU_SPMV_KERNEL(
        "csr.cuda.stream.pattern", "csr.pattern",
        "csr.cuda.stream for a pattern matrix (all values equal): no values read (declines "
        "other matrices)",
        &stream_pattern_v),
    GPU_SPMV_KERNEL("csr.cuda.stream.rcm", "csr.rcm",
                    "csr.cuda.stream on A renumbered in prepare by reverse Cuthill-McKee (rows "
                    "and columns together: graph neighbours get near numbers, so gathers of x "
                    "share cache lines); each product renumbers x first and writes y in A's "
                    "order (declines a rectangular matrix)",
                    &stream_rcm_v),
    GPU_SPMV_KERNEL("csr.cuda.stream.rcm.pattern", "csr.rcm.pattern",
                    "csr.cuda.stream.rcm for a pattern matrix (all values equal): no values "
                    "read (declines other matrices)",
                    &stream_rcm_pattern_v),
    GPU_SPMV_KERNEL("csr.cuda.adaptive.pattern", "csr.pattern",
                    "csr.cuda.adaptive for a pattern matrix (all values equal): no values read "
                    "(declines other matrices)",
                    &adaptive_pattern_v),
};
extern const int gpu_csr_balanced_kernel_count =
    (int)(sizeof gpu_csr_balanced_kernels / sizeof gpu_csr_balanced_kernels[0]);
