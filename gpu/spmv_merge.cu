/* spmv_merge.cu — the load-balanced CSR kernel (merge path) and its entries
 * of the device table.
 *
 * The product is a merge of two lists: the rows' ends (row_ptr[1..m]) and
 * the non-zeros (0..nnz-1). Every block takes an equal share of the m + nnz
 * merge items, whatever the row lengths, so one row of a million entries
 * and a million empty rows cost the same per item. The blocks' starting
 * points are found once, in prepare. A row spread over several blocks is
 * finished by the block where it ends, which adds the partial sums the
 * earlier blocks published, in block order: no float atomics, so the result
 * is the same bits on every call. A product of many tiles has them added by
 * a second, small kernel instead (merge_fixup_kernel): no block waits for
 * another. */
#include <stdio.h>
#include <string.h>

#include "reduce.cuh"

/* Threads per block (default), and merge items per thread: odd, so that a
 * warp's shared-memory reads spread over the banks. */
#define MERGE_BLOCK 256
#define MERGE_ITEMS 7
/* Passes of a tile's loads issued together (their gathers of x in flight
 * at once) before their products are stored. */
#define MERGE_STAGE 4
/* From this many tiles the carries are added by a second kernel. Its speed
 * over the acquire polls' (its launch costs about 1.5 us on an H100):
 * 0.77-0.90x on products of 1-250 tiles (5-10 us), 0.92-0.98x on two of
 * three of 1,440-1,975 tiles (17-30 us; 1.01-1.03x on the third), and
 * 0.995-1.21x on every product of 2,346 tiles and more (38-330 us; H100,
 * fp64 and fp32, real and pattern, 2026-12-06). */
#define MERGE_FIXUP_TILES 2048

/* The tile's shared memory: the products of its non-zeros then the sums of
 * its rows (together exactly the tile's items), each thread's inclusive
 * carry, and the row ends. */
static size_t merge_shared_bytes(int block, size_t value_bytes)
{
    size_t items = (size_t)block * MERGE_ITEMS;
    return items * value_bytes + (size_t)block * value_bytes + items * sizeof(int);
}

/* Where diagonal `diag` of the merge of row ends (row_end[0..rows)) with
 * non-zero indices (first, first+1, ...) crosses: the number of row ends
 * before it. Row ends go first on ties (an end equal to the next index
 * means the row is complete). Index: long long on the host (the whole
 * matrix: m + nnz may pass 2^31), int on the device (inside one tile, where
 * row_end - first and diag are small: fewer instructions). */
template <typename Index>
static __host__ __device__ __forceinline__ Index merge_search(const int *row_end, Index rows,
                                                              Index nz, Index first, Index diag)
{
    Index lo = diag - nz > 0 ? diag - nz : 0, hi = diag < rows ? diag : rows;
    while (lo < hi) {
        Index mid = (lo + hi) / 2;
        if (row_end[mid] - first <= diag - mid - 1)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Step 1: the tile's products (x gathered; PATTERN: x alone) and its rows'
 * ends into shared memory; the matrix's entries read evict-first but by
 * the pattern row (reduce.cuh's load_matrix: measured on the value rows).
 * On the value rows a warp's loads of the entries start on a multiple of
 * 32 entries (one more pass for the tile's last ones): a tile begins
 * anywhere, and a warp reading 32 entries across two cache lines sent the
 * L2 a request more (4% more requests, 1.02-1.06x slower; MEASUREMENTS.md;
 * the pattern row as before: not measured). */
template <typename T, bool PATTERN>
static __device__ __forceinline__ void
merge_load(const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
           const T *__restrict__ val, const T *__restrict__ x, int r0, int rows, int k0, int nz,
           T *data, int *row_end)
{
    constexpr int PASSES = PATTERN ? MERGE_ITEMS : MERGE_ITEMS + 1;
    const int threads = blockDim.x, t = threadIdx.x, shift = PATTERN ? 0 : k0 & (WARP - 1);
#pragma unroll
    for (int u0 = 0; u0 < PASSES; u0 += MERGE_STAGE) {
        int cols[MERGE_STAGE];
        T vals[MERGE_STAGE], xs[MERGE_STAGE];
#pragma unroll
        for (int v = 0; v < MERGE_STAGE; v++) {
            const int u = u0 + v, j = t + u * threads - shift;
            const bool in = u < PASSES && j >= 0 && j < nz;
            cols[v] = in ? load_matrix<!PATTERN>(col_idx + k0 + j) : -1;
            vals[v] = in && !PATTERN ? load_matrix<true>(val + k0 + j) : T(0);
        }
#pragma unroll
        for (int v = 0; v < MERGE_STAGE; v++) xs[v] = cols[v] >= 0 ? x[cols[v]] : T(0);
#pragma unroll
        for (int v = 0; v < MERGE_STAGE; v++) {
            const int u = u0 + v, j = t + u * threads - shift, r = j + shift;
            if (u < PASSES && j >= 0 && j < nz) data[j] = scaled<PATTERN>(vals[v], xs[v]);
            if (u < MERGE_ITEMS && r < rows) row_end[r] = row_ptr[r0 + r + 1];
        }
    }
    __syncthreads();
}

/* Step 2: this thread's MERGE_ITEMS items along the merge path: each row
 * it finishes has its sum written (row sums after the nz products); the
 * sum of the row still open at its end is returned, that row in *open_row
 * and the first row it finished in *first_done (-1: none). */
template <typename T>
static __device__ __forceinline__ T merge_walk(const int *row_end, int rows, int nz, int k0,
                                               T *data, int *open_row, int *first_done)
{
    const int diag = min((int)threadIdx.x * MERGE_ITEMS, rows + nz);
    const int stop = min(diag + MERGE_ITEMS, rows + nz);
    int i = merge_search<int>(row_end, rows, nz, k0, diag), j = diag - i;
    T sum = 0;
    *first_done = -1;
    for (int d = diag; d < stop; d++) {
        if (i < rows && row_end[i] <= k0 + j) {
            data[nz + i] = sum;
            if (*first_done < 0) *first_done = i;
            sum = 0;
            i++;
        } else {
            sum += data[j++];
        }
    }
    *open_row = i;
    return sum;
}

/* Step 3: segmented inclusive scan of (open row, open sum) over the block,
 * in thread order: the rows are non-decreasing, so equal keys are runs. */
template <typename T>
static __device__ __forceinline__ T merge_scan(T sum, int key, T *warp_sum, int *warp_row)
{
    const int threads = blockDim.x, t = threadIdx.x, lane = t % WARP, warp = t / WARP;
    for (int offset = 1; offset < WARP; offset <<= 1) {
        T other = __shfl_up_sync(0xffffffffu, sum, offset);
        int other_key = __shfl_up_sync(0xffffffffu, key, offset);
        if (lane >= offset && other_key == key) sum += other;
    }
    if (lane == WARP - 1) {
        warp_sum[warp] = sum;
        warp_row[warp] = key;
    }
    __syncthreads();
    if (t == 0)
        for (int w = 1; w < threads / WARP; w++)
            if (warp_row[w] == warp_row[w - 1]) warp_sum[w] += warp_sum[w - 1];
    __syncthreads();
    if (warp > 0 && key == warp_row[warp - 1]) sum += warp_sum[warp - 1];
    return sum;
}

/* A stamp read with acquire order: the carry published before it is seen
 * (a plain load, not an atomic: the waits' polls cost the L2 no atomics). */
static __device__ __forceinline__ int load_acquire(const int *p)
{
    int v;
    asm volatile("ld.acquire.gpu.global.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* The sum of the carries of blocks from..b-1, in block order: a warp's
 * lanes take 32 blocks at a time (the same order in both ways of adding
 * them, so the same bits). WAIT: each carry's stamp polled until it is this
 * call's. */
template <typename T, bool WAIT>
static __device__ __forceinline__ T merge_carries(int from, int b, const T *carry,
                                                  const int *carry_epoch, int epoch)
{
    const int lane = threadIdx.x % WARP;
    T total = 0;
    for (int base = from; base < b; base += WARP) {
        int q = base + lane;
        T v = 0;
        if (q < b) {
            if (WAIT)
                while (load_acquire(carry_epoch + q) != epoch) __nanosleep(32);
            v = WAIT ? volatile_load(carry + q) : carry[q];
        }
        total += warp_reduce(v);
    }
    return total;
}

/* csr.cuda.merge — block b takes the merge items of its tile: rows
 * [tile_row[b], tile_row[b+1]) end in it, non-zeros [tile_k[b],
 * tile_k[b+1]) are in it. (1) The block loads the tile's row ends and
 * computes its products into shared memory, coalesced. (2) Each thread
 * walks MERGE_ITEMS items of the tile's merge path, summing products and
 * storing a row's sum when its end comes. (3) A segmented scan of the
 * threads' open sums (keyed by row) gives each thread what the threads
 * before it added to the row it finishes first. (4) The block publishes the
 * sum of the row still open at its end, then, when its first row began in
 * earlier blocks (blocks lookback_from[b]..b-1), waits for their published
 * sums and adds them in block order (FIXUP: it waits for none, and keeps
 * that row's own sum in first_partial[b] for merge_fixup_kernel). (5) The
 * rows' sums are written out, coalesced. With PATTERN val is not read and
 * each sum is scaled once. */
template <typename T, bool PATTERN, bool FIXUP>
static __global__ void __launch_bounds__(MAX_BLOCK)
    csr_merge_kernel(const int *__restrict__ row_ptr, const int *__restrict__ col_idx,
                     const T *__restrict__ val, T scale, const T *__restrict__ x, T *__restrict__ y,
                     const int *__restrict__ tile_row, const int *__restrict__ tile_k,
                     const int *__restrict__ lookback_from, T *carry, int *carry_epoch, int epoch,
                     T *__restrict__ first_partial)
{
    __shared__ T warp_sum[MAX_BLOCK / WARP];
    __shared__ int warp_row[MAX_BLOCK / WARP];
    const int threads = blockDim.x, t = threadIdx.x, warp = t / WARP;
    T *data = dynamic_shared<T>();               /* [0, nz): products; [nz, nz + rows): row sums */
    T *inclusive = data + threads * MERGE_ITEMS; /* each thread's open sum, scanned */
    int *row_end = (int *)(inclusive + threads);
    const int b = blockIdx.x, r0 = tile_row[b], rows = tile_row[b + 1] - r0;
    const int k0 = tile_k[b], nz = tile_k[b + 1] - k0;

    merge_load<T, PATTERN>(row_ptr, col_idx, val, x, r0, rows, k0, nz, data, row_end);
    int open_row, first_done;
    T sum = merge_walk<T>(row_end, rows, nz, k0, data, &open_row, &first_done);
    sum = merge_scan<T>(sum, r0 + open_row, warp_sum, warp_row);
    inclusive[t] = sum;
    if (t == threads - 1) { /* the open row's sum, for the block where it ends */
        carry[b] = sum;
        if (!FIXUP) {
            __threadfence();
            atomicExch(carry_epoch + b, epoch);
        }
    }
    __syncthreads();
    /* the thread before this one ended inside the row this one finishes first */
    if (first_done >= 0 && t > 0) data[nz + first_done] += inclusive[t - 1];
    __syncthreads();
    const int from = lookback_from[b];
    if (FIXUP && t == 0 && rows > 0 && from < b) first_partial[b] = data[nz];
    if (!FIXUP && warp == 0 && rows > 0 && from < b) {
        T total = merge_carries<T, true>(from, b, carry, carry_epoch, epoch);
        if (t == 0) data[nz] += total;
    }
    __syncthreads();
    for (int r = t; r < rows; r += threads) /* (5) */
        y[r0 + r] = row_value<PATTERN>(data[nz + r], scale);
}

/* After csr_merge_kernel<FIXUP>: a warp per tile whose first row began in
 * earlier tiles adds their carries to that row's own sum, in block order
 * (as the waiting kernel does: the same bits), and writes it. */
template <typename T, bool PATTERN>
static __global__ void __launch_bounds__(MAX_BLOCK)
    merge_fixup_kernel(int tiles, const int *__restrict__ tile_row,
                       const int *__restrict__ lookback_from, const T *__restrict__ carry,
                       const T *__restrict__ first_partial, T scale, T *__restrict__ y)
{
    const long long b = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    if (b >= tiles) return;
    const int from = lookback_from[b], r0 = tile_row[b];
    if (from >= b || tile_row[b + 1] == r0) return;
    T total = merge_carries<T, false>(from, (int)b, carry, NULL, 0);
    if (threadIdx.x % WARP == 0) {
        T v = first_partial[b] + total;
        y[r0] = row_value<PATTERN>(v, scale);
    }
}

/* What csr.cuda.merge prepares beyond the CSR arrays (gpu_state.family). */
struct merge_data {
    int tiles, epoch;      /* blocks; calls so far (the carries' stamp) */
    int *d_tile_row;       /* each tile's first row; tiles + 1 */
    int *d_tile_k;         /* each tile's first entry; tiles + 1 */
    int *d_lookback_from;  /* the first block holding entries of a tile's first row */
    void *d_carry;         /* each block's sum of the row open at its end */
    int *d_carry_epoch;    /* the call that published each carry */
    void *d_first_partial; /* fixup: each tile's first row's own sum */
    int fixup;             /* tiles >= MERGE_FIXUP_TILES: carries added by a second kernel */
};

/* One product: one launch, stamped with this call's epoch; with fixup,
 * the merge kernel and then the carries' fix-up. */
template <typename T, bool PATTERN, bool FIXUP> static void launch_merge_as(gpu_state *s)
{
    merge_data *d = gpu_family<merge_data>(s);
    d->epoch++;
    csr_merge_kernel<T, PATTERN, FIXUP>
        <<<d->tiles, s->block_size, merge_shared_bytes(s->block_size, sizeof(T)), s->stream>>>(
            s->d_row_ptr, s->d_col_idx, (const T *)s->d_val, (T)s->iso_value, (const T *)s->d_x,
            (T *)s->d_y, d->d_tile_row, d->d_tile_k, d->d_lookback_from, (T *)d->d_carry,
            d->d_carry_epoch, d->epoch, (T *)d->d_first_partial);
    if (FIXUP)
        merge_fixup_kernel<T, PATTERN>
            <<<gpu_blocks_for((long long)d->tiles * WARP, MERGE_BLOCK), MERGE_BLOCK, 0,
               s->stream>>>(d->tiles, d->d_tile_row, d->d_lookback_from, (const T *)d->d_carry,
                            (const T *)d->d_first_partial, (T)s->iso_value, (T *)s->d_y);
}

template <typename T, bool PATTERN> static void launch_merge(gpu_state *s)
{
    if (gpu_family<merge_data>(s)->fixup)
        launch_merge_as<T, PATTERN, true>(s);
    else
        launch_merge_as<T, PATTERN, false>(s);
}

/* Tiles of `items` merge items: each tile's start on the merge path and
 * the blocks before it holding entries of its first row (from[b]..b-1),
 * planned on the host (prepare_ms counts it) and uploaded; the carry stamps
 * zeroed. */
static spb_status plan_tiles(gpu_state *s, merge_data *d, const spb_csr *A, char *msg)
{
    const long long items = (long long)s->block_size * MERGE_ITEMS;
    const long long total = (long long)A->m + A->nnz, tiles = (total + items - 1) / items;
    if (tiles > 0x7fffffff - 1)
        return spb_fail(msg, SPB_ERR_DECLINED, "%lld tiles: beyond a grid's reach", tiles);
    d->tiles = (int)tiles;
    d->fixup = tiles >= MERGE_FIXUP_TILES;
    int *tile_row = (int *)spb_malloc((size_t)tiles + 1, sizeof *tile_row);
    int *tile_k = (int *)spb_malloc((size_t)tiles + 1, sizeof *tile_k);
    int *from = (int *)spb_malloc((size_t)tiles + 1, sizeof *from);
    int failed = !tile_row || !tile_k || !from;
    for (long long b = 0; !failed && b <= tiles; b++) {
        long long diag = b * items < total ? b * items : total;
        tile_row[b] = (int)merge_search<long long>(A->row_ptr + 1, A->m, A->nnz, 0, diag);
        tile_k[b] = (int)(diag - tile_row[b]);
        if (b == tiles) break;
        /* b-1 holds entries of b's first row when it ended inside it; then
         * so do the blocks before b-1 that began inside it */
        int r0 = tile_row[b];
        int holds = b > 0 && r0 < A->m && tile_k[b] > A->row_ptr[r0];
        from[b] = !holds ? (int)b : tile_row[b - 1] == r0 ? from[b - 1] : (int)b - 1;
    }
    spb_status st = SPB_OK;
    if (failed)
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the merge-path tiles");
    else if (gpu_upload(s, (void **)&d->d_tile_row, tile_row, (size_t)tiles + 1, sizeof(int)) ||
             gpu_upload(s, (void **)&d->d_tile_k, tile_k, (size_t)tiles + 1, sizeof(int)) ||
             gpu_upload(s, (void **)&d->d_lookback_from, from, (size_t)tiles, sizeof(int)) ||
             gpu_cuda_failed(s, cudaMalloc(&d->d_carry, s->value_bytes * (tiles + 1)),
                             "cudaMalloc") ||
             gpu_cuda_failed(s, cudaMalloc((void **)&d->d_carry_epoch, sizeof(int) * (tiles + 1)),
                             "cudaMalloc") ||
             gpu_cuda_failed(s, cudaMemset(d->d_carry_epoch, 0, sizeof(int) * (tiles + 1)),
                             "cudaMemset") ||
             gpu_cuda_failed(s, cudaMalloc(&d->d_first_partial, s->value_bytes * (tiles + 1)),
                             "cudaMalloc"))
        st = gpu_state_fail(s, msg);
    spb_free(tile_row);
    spb_free(tile_k);
    spb_free(from);
    return st;
}

/* A block of more than 48 KiB of shared memory must be allowed it. */
template <typename T, bool PATTERN> static cudaError_t allow_shared_for(int shared)
{
    cudaError_t err = cudaFuncSetAttribute(csr_merge_kernel<T, PATTERN, false>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
    return err != cudaSuccess
               ? err
               : cudaFuncSetAttribute(csr_merge_kernel<T, PATTERN, true>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, shared);
}

static spb_status allow_shared(gpu_state *s, char *msg)
{
    size_t shared = merge_shared_bytes(s->block_size, s->value_bytes);
    const int pattern = s->variant->pattern;
    cudaError_t err = cudaSuccess;
    if (shared > 48 * 1024) { /* a 1024-thread block needs 92 KiB in fp64 */
        switch (s->precision) {
        case SPB_FP32:
            err = pattern ? allow_shared_for<float, true>((int)shared)
                          : allow_shared_for<float, false>((int)shared);
            break;
        case SPB_FP64:
            err = pattern ? allow_shared_for<double, true>((int)shared)
                          : allow_shared_for<double, false>((int)shared);
            break;
        case SPB_C128: err = allow_shared_for<gpu_c128, false>((int)shared); break;
        case SPB_C64: err = allow_shared_for<gpu_c64, false>((int)shared); break;
        }
    }
    return gpu_cuda_failed(s, err, "cudaFuncSetAttribute") ? gpu_state_fail(s, msg) : SPB_OK;
}

static spb_status setup_merge(gpu_state *s, const spb_csr *A, char *msg)
{
    spb_status st = allow_shared(s, msg);
    if (st != SPB_OK) return st;
    merge_data *d = gpu_family_new<merge_data>(s);
    return d ? plan_tiles(s, d, A, msg) : spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
}

static void release_merge(gpu_state *s)
{
    merge_data *d = gpu_family<merge_data>(s);
    cudaFree(d->d_tile_row);
    cudaFree(d->d_tile_k);
    cudaFree(d->d_lookback_from);
    cudaFree(d->d_carry);
    cudaFree(d->d_carry_epoch);
    cudaFree(d->d_first_partial);
}

static const gpu_variant merge_v = {.format = SPB_FORMAT_CSR,
                                    .default_block = MERGE_BLOCK,
                                    .warp_multiple = 1,
                                    .setup = setup_merge,
                                    .launch = GPU_LAUNCH_VALUES_COMPLEX(launch_merge),
                                    .release = release_merge};
static const gpu_variant merge_pattern_v = {.format = SPB_FORMAT_CSR,
                                            .default_block = MERGE_BLOCK,
                                            .warp_multiple = 1,
                                            .setup = setup_merge,
                                            .launch = GPU_LAUNCH_PATTERN(launch_merge, true),
                                            .pattern = 1,
                                            .release = release_merge};

extern const spb_spmv_kernel gpu_merge_kernels[] = {
    GPU_SPMV_KERNEL(
        "csr.cuda.merge", "csr",
        "CSR on the GPU, load-balanced: each block an equal share of rows + non-zeros (merge "
        "path, split in prepare); rows across blocks finished in block order (deterministic): "
        "by the block where they end, or from 2048 tiles by a second kernel",
        &merge_v),
    GPU_SPMV_KERNEL(
        "csr.cuda.merge.pattern", "csr.pattern",
        "csr.cuda.merge for a pattern matrix (all values equal): no values read (declines "
        "other matrices)",
        &merge_pattern_v),
};
extern const int gpu_merge_kernel_count =
    (int)(sizeof gpu_merge_kernels / sizeof gpu_merge_kernels[0]);
