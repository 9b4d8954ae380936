/* spgemm_tiled.cu — the classic CUDA SpGEMM progression, one idea per row:
 * a thread per row of A with a tile of accumulator columns swept over B's
 * width (1), the same with invariants hoisted and restrict pointers (2), a
 * block per row with the tile in shared memory and shared atomics (3), a
 * block-level reservation of the output (4), and warp-level aggregation
 * with ballots (5). Each tile visited is the next one holding a product:
 * every entry of A keeps a cursor into its row of B, so no empty tile is
 * swept. C's entries leave as unordered coordinates through a global
 * counter and are sorted into CSR afterwards (spgemm_cuda.cu). */
#include <limits.h>

#include "spgemm_state.cuh"

#define THREAD_TILE 32 /* columns per tile of a thread's own accumulator: a bit each in a mask */

enum { MODE_THREAD, MODE_THREAD_HOISTED, MODE_BLOCK, MODE_BLOCK_RESERVE, MODE_WARP };

template <class T> struct tiled_args {
    const int *a_rp, *a_ci;
    const T *a_v;
    const int *b_rp, *b_ci;
    const T *b_v;
    int m, col_bits, tile;
    int2 *cursor; /* per entry of A: its next entry of B, and that row of B's end */
    int *count;   /* entries of C written so far */
    unsigned long long *keys;
    T *vals;
};

__device__ static unsigned long long coordinate(int row, int col, int col_bits)
{
    return ((unsigned long long)row << col_bits) | (unsigned)col;
}

/* ---- 1. thread per row --------------------------------------------------------------- */

/* Written plainly: every bound re-read through the argument pointers. */
template <class T> __global__ void thread_row_kernel(tiled_args<T> g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= g.m) return;
    T acc[THREAD_TILE];
    int next = INT_MAX;
    for (int k = g.a_rp[i]; k < g.a_rp[i + 1]; k++) {
        g.cursor[k].x = g.b_rp[g.a_ci[k]];
        if (g.cursor[k].x < g.b_rp[g.a_ci[k] + 1]) next = min(next, g.b_ci[g.cursor[k].x]);
    }
    while (next != INT_MAX) {
        int base = next - next % THREAD_TILE;
        unsigned mask = 0;
        next = INT_MAX;
        for (int k = g.a_rp[i]; k < g.a_rp[i + 1]; k++) {
            while (g.cursor[k].x < g.b_rp[g.a_ci[k] + 1] &&
                   g.b_ci[g.cursor[k].x] - base < THREAD_TILE) {
                int slot = g.b_ci[g.cursor[k].x] - base;
                T p = g.a_v[k] * g.b_v[g.cursor[k].x];
                acc[slot] = mask >> slot & 1u ? acc[slot] + p : p;
                mask |= 1u << slot;
                g.cursor[k].x++;
            }
            if (g.cursor[k].x < g.b_rp[g.a_ci[k] + 1]) next = min(next, g.b_ci[g.cursor[k].x]);
        }
        for (; mask; mask &= mask - 1) {
            int slot = __ffs(mask) - 1;
            int at = atomicAdd(g.count, 1);
            g.keys[at] = coordinate(i, base + slot, g.col_bits);
            g.vals[at] = acc[slot];
        }
    }
}

/* ---- 2. thread per row, invariants hoisted ------------------------------------------ */

/* The row's bounds and each entry's B-row end read once (the end kept
 * beside the cursor), every input read-only through restrict pointers. */
template <class T>
__global__ void
thread_row_hoisted_kernel(const int *__restrict__ a_rp, const int *__restrict__ a_ci,
                          const T *__restrict__ a_v, const int *__restrict__ b_rp,
                          const int *__restrict__ b_ci, const T *__restrict__ b_v, int m,
                          int col_bits, int2 *__restrict__ cursor, int *__restrict__ count,
                          unsigned long long *__restrict__ keys, T *__restrict__ vals)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m) return;
    const int start = __ldg(&a_rp[i]), end = __ldg(&a_rp[i + 1]);
    T acc[THREAD_TILE];
    int next = INT_MAX;
    for (int k = start; k < end; k++) {
        const int j = __ldg(&a_ci[k]);
        const int2 c = make_int2(__ldg(&b_rp[j]), __ldg(&b_rp[j + 1]));
        cursor[k] = c;
        if (c.x < c.y) next = min(next, __ldg(&b_ci[c.x]));
    }
    while (next != INT_MAX) {
        const int base = next - next % THREAD_TILE;
        unsigned mask = 0;
        next = INT_MAX;
        for (int k = start; k < end; k++) {
            int2 c = cursor[k];
            if (c.x == c.y) continue;
            const T a = __ldg(&a_v[k]);
            int col = __ldg(&b_ci[c.x]);
            while (col - base < THREAD_TILE) {
                const int slot = col - base;
                const T p = a * __ldg(&b_v[c.x]);
                acc[slot] = mask >> slot & 1u ? acc[slot] + p : p;
                mask |= 1u << slot;
                if (++c.x == c.y) break;
                col = __ldg(&b_ci[c.x]);
            }
            if (c.x < c.y) next = min(next, col);
            cursor[k] = c;
        }
        for (; mask; mask &= mask - 1) {
            const int slot = __ffs(mask) - 1;
            const int at = atomicAdd(count, 1);
            keys[at] = coordinate(i, base + slot, col_bits);
            vals[at] = acc[slot];
        }
    }
}

/* ---- 3-5. block per row, the tile in shared memory ------------------------------------ */

/* Writes the tile's flagged entries out and clears them (acc to 0, flags
 * to none). Warp w takes flag words w, w + warps, ...; lane l the slot
 * 32 * word + l of each. */
template <int MODE, class T>
__device__ static void emit_tile(const tiled_args<T> &g, int row, int base, T *acc, unsigned *flags,
                                 int *block_base, int *warp_sums)
{
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
    const int words = g.tile / WARP;
    int at = 0;
    if (MODE == MODE_BLOCK_RESERVE) { /* count, one reservation for the block, then write */
        int mine = 0, total = 0;
        for (int w = warp; w < words; w += warps) mine += flags[w] >> lane & 1u;
        const int offset = block_exclusive_sum(mine, warp_sums, &total);
        if (threadIdx.x == 0 && total > 0) *block_base = atomicAdd(g.count, total);
        __syncthreads();
        at = *block_base + offset;
    }
    for (int w = warp; w < words; w += warps) {
        const int slot = w * WARP + lane;
        const int has = flags[w] >> lane & 1u;
        if (MODE == MODE_WARP) { /* one reservation per warp and word */
            const unsigned mask = __ballot_sync(FULL_MASK, has);
            if (mask == 0) continue; /* the same for the whole warp: no flag to clear */
            int first = 0;
            if (lane == 0) first = atomicAdd(g.count, __popc(mask));
            first = __shfl_sync(FULL_MASK, first, 0);
            at = first + __popc(mask & ((1u << lane) - 1u));
        } else if (MODE == MODE_BLOCK && has) {
            at = atomicAdd(g.count, 1);
        }
        if (has) {
            g.keys[at] = coordinate(row, base + slot, g.col_bits);
            g.vals[at] = acc[slot];
            acc[slot] = 0;
            if (MODE == MODE_BLOCK_RESERVE) at++;
        }
        __syncwarp();
        if (lane == 0) flags[w] = 0;
    }
}

/* One block per row of A. The next tile is the smallest column any cursor
 * points at, agreed through a shared atomicMin; two slots alternate so that
 * one round's minimum is read while the next one's is reset. */
template <int MODE, class T> __global__ void block_row_kernel(tiled_args<T> g)
{
    extern __shared__ __align__(16) unsigned char tile_shared[];
    T *acc = (T *)tile_shared; /* tile accumulators, then one flag bit per column */
    unsigned *flags = (unsigned *)(acc + g.tile);
    __shared__ int next_tile[2], block_base, warp_sums[MAX_BLOCK / WARP];
    const int i = blockIdx.x, tid = threadIdx.x, threads = blockDim.x;
    const int start = g.a_rp[i], end = g.a_rp[i + 1];
    for (int t = tid; t < g.tile; t += threads) acc[t] = 0;
    for (int w = tid; w < g.tile / WARP; w += threads) flags[w] = 0;
    if (tid == 0) next_tile[0] = next_tile[1] = INT_MAX;
    __syncthreads();
    int lowest = INT_MAX;
    for (int k = start + tid; k < end; k += threads) {
        const int j = g.a_ci[k];
        const int2 c = make_int2(g.b_rp[j], g.b_rp[j + 1]);
        g.cursor[k] = c;
        if (c.x < c.y) lowest = min(lowest, g.b_ci[c.x]);
    }
    if (lowest != INT_MAX) atomicMin(&next_tile[0], lowest);
    __syncthreads();
    int next = next_tile[0], parity = 1;
    while (next != INT_MAX) {
        const int base = next - next % g.tile;
        lowest = INT_MAX;
        for (int k = start + tid; k < end; k += threads) {
            int2 c = g.cursor[k];
            if (c.x == c.y) continue;
            const T a = g.a_v[k];
            int col = g.b_ci[c.x];
            while (col - base < g.tile) {
                const int slot = col - base;
                atomicAdd(&acc[slot], a * g.b_v[c.x]);
                atomicOr(&flags[slot / WARP], 1u << (slot % WARP));
                if (++c.x == c.y) break;
                col = g.b_ci[c.x];
            }
            if (c.x < c.y) lowest = min(lowest, col);
            g.cursor[k] = c;
        }
        if (lowest != INT_MAX) atomicMin(&next_tile[parity], lowest);
        __syncthreads();
        next = next_tile[parity];
        emit_tile<MODE>(g, i, base, acc, flags, &block_base, warp_sums);
        if (tid == 0) next_tile[parity ^ 1] = INT_MAX;
        __syncthreads();
        parity ^= 1;
    }
}

/* ---- the whole product -------------------------------------------------------------- */

template <int MODE, class T>
static void launch_block_rows(gpu_spgemm_state *s, const tiled_args<T> &g)
{
    size_t shared = sizeof(T) * (size_t)s->tile + sizeof(unsigned) * (size_t)(s->tile / WARP);
    if (shared > 48 * 1024 &&
        gpu_cuda_failed(&s->core,
                        cudaFuncSetAttribute(block_row_kernel<MODE, T>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)shared),
                        "cudaFuncSetAttribute"))
        return;
    block_row_kernel<MODE, T><<<s->A.m, s->block_size, shared>>>(g);
}

template <class T> static void launch(gpu_spgemm_state *s, const tiled_args<T> &g)
{
    const unsigned grid = (unsigned)((s->A.m + s->block_size - 1) / s->block_size);
    switch (s->variant->mode) {
    case MODE_THREAD: thread_row_kernel<T><<<grid, s->block_size>>>(g); break;
    case MODE_THREAD_HOISTED:
        thread_row_hoisted_kernel<T><<<grid, s->block_size>>>(g.a_rp, g.a_ci, g.a_v, g.b_rp, g.b_ci,
                                                              g.b_v, g.m, g.col_bits, g.cursor,
                                                              g.count, g.keys, g.vals);
        break;
    case MODE_BLOCK: launch_block_rows<MODE_BLOCK>(s, g); break;
    case MODE_BLOCK_RESERVE: launch_block_rows<MODE_BLOCK_RESERVE>(s, g); break;
    default: launch_block_rows<MODE_WARP>(s, g); break;
    }
    gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
}

/* Coordinates for at most one entry per product, the kernel, then the
 * conversion to sorted CSR. */
template <class T> static void tiled_product_in(gpu_spgemm_state *s)
{
    tiled_args<T> g = {s->A.row_ptr,
                       s->A.col_idx,
                       values_of<T>(s->A),
                       s->B.row_ptr,
                       s->B.col_idx,
                       values_of<T>(s->B),
                       s->A.m,
                       spgemm_bits(s->B.n),
                       s->tile,
                       NULL,
                       NULL,
                       NULL,
                       NULL};
    int count = 0, products = 0;
    unsigned long long *counter = NULL;
    void *counted = NULL, *coordinates = NULL;
    counted = carve(s, NULL, [&](carving &c) {
        counter = c.take<unsigned long long>(1);
        g.count = c.take<int>(1);
        g.cursor = c.take<int2>((size_t)s->A.nnz);
    });
    if (!counted) goto done;
    GPU_TRY(&s->core, cudaMemsetAsync(counted, 0, (char *)g.cursor - (char *)counted, 0),
            "cudaMemsetAsync"); /* the two counters before the cursors */
    /* a coordinate per product at most: the products counted first */
    if (spgemm_count_products(s, counter, &products)) goto done;
    coordinates = carve(s, NULL, [&](carving &c) {
        g.keys = c.take<unsigned long long>((size_t)products);
        g.vals = c.take<T>((size_t)products);
    });
    if (!coordinates) goto done;
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_start), "cudaEventRecord");
    if (s->A.m > 0) launch(s, g);
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_stop), "cudaEventRecord");
    GPU_TRY(&s->core, cudaMemcpy(&count, g.count, sizeof(int), cudaMemcpyDeviceToHost),
            "kernel execution");
    spgemm_record_kernel_time(s);
    if (s->core.error == SPB_OK) spgemm_coordinates_to_csr(s, g.keys, g.vals, count, g.col_bits);
fail:
done:
    spgemm_free(counted);
    spgemm_free(coordinates);
}

static void tiled_product(gpu_spgemm_state *s) { SPGEMM_BY_PRECISION(s, tiled_product_in); }

static const gpu_spgemm_variant thread_row = {128, 0, tiled_product, MODE_THREAD, NULL};
static const gpu_spgemm_variant thread_row_hoisted = {128, 0, tiled_product, MODE_THREAD_HOISTED,
                                                      NULL};
static const gpu_spgemm_variant block_row = {128, 1024, tiled_product, MODE_BLOCK, NULL};
static const gpu_spgemm_variant block_row_reserve = {128, 1024, tiled_product, MODE_BLOCK_RESERVE,
                                                     NULL};
static const gpu_spgemm_variant block_row_warp = {128, 1024, tiled_product, MODE_WARP, NULL};

const spb_spgemm_kernel gpu_spgemm_tiled_kernels[] = {
    GPU_SPGEMM_KERNEL("spgemm.cuda.thread",
                      "thread per row of A, a 32-column accumulator swept tile by tile over B's "
                      "width, one global atomic per entry of C (the baseline)",
                      &thread_row),
    GPU_SPGEMM_KERNEL("spgemm.cuda.thread.hoisted",
                      "spgemm.cuda.thread with invariants hoisted (row bounds, B-row ends kept by "
                      "the cursors) and restrict read-only pointers",
                      &thread_row_hoisted),
    GPU_SPGEMM_KERNEL("spgemm.cuda.block",
                      "block per row of A, the tile's accumulator in shared memory with shared "
                      "atomics, threads striding over the row's entries (--tile)",
                      &block_row),
    GPU_SPGEMM_KERNEL("spgemm.cuda.block.reserve",
                      "spgemm.cuda.block with the tile's entries counted in the block and one "
                      "global atomic per block and tile reserving their range",
                      &block_row_reserve),
    GPU_SPGEMM_KERNEL("spgemm.cuda.warp",
                      "spgemm.cuda.block with warp aggregation: ballot, popc and shuffle give "
                      "each warp one global atomic per 32 columns, every warp writing",
                      &block_row_warp),
};

const int gpu_spgemm_tiled_kernel_count =
    (int)(sizeof gpu_spgemm_tiled_kernels / sizeof gpu_spgemm_tiled_kernels[0]);
