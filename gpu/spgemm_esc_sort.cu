/* spgemm_esc_sort.cu — spgemm.cuda.esc's sorted rows: up to 16 products
 * by a thread (a sorting network in registers), up to 256 by a warp (merge
 * sort), up to 2048 by a block (radix sort in shared memory), and rows
 * expanded, sorted by segment and compressed in global memory. */
#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/warp/warp_merge_sort.cuh>

#include "spgemm_esc.cuh"

/* ---- one thread per row --------------------------------------------------------------- */

/* Steps (k, pos, end) to the next product of the row, if any. */
template <class T>
__device__ static void next_product(const esc_args<T> &g, int a_end, int &k, int &pos, int &end,
                                    T &a)
{
    while (pos == end && k < a_end) {
        const int j = g.a_ci[k];
        pos = g.b_rp[j];
        end = g.b_rp[j + 1];
        a = g.a_v[k];
        k++;
    }
}

/* Expanded into N registers (INT_MAX pads), a bitonic network, compressed. */
template <int N, class T> __device__ static void thread_row(const esc_args<T> &g, int row)
{
    int key[N];
    T val[N];
    int k = g.a_rp[row], a_end = g.a_rp[row + 1], pos = 0, end = 0;
    T a = 0;
    next_product(g, a_end, k, pos, end, a);
#pragma unroll
    for (int e = 0; e < N; e++) {
        key[e] = INT_MAX;
        val[e] = 0;
        if (pos < end) {
            key[e] = g.b_ci[pos];
            val[e] = a * g.b_v[pos];
            pos++;
            next_product(g, a_end, k, pos, end, a);
        }
    }
#pragma unroll
    for (int size = 2; size <= N; size <<= 1)
#pragma unroll
        for (int stride = size / 2; stride > 0; stride >>= 1)
#pragma unroll
            for (int e = 0; e < N; e++) {
                const int partner = e ^ stride;
                if (partner > e && (key[e] > key[partner]) == ((e & size) == 0)) {
                    const int tk = key[e];
                    key[e] = key[partner];
                    key[partner] = tk;
                    const T tv = val[e];
                    val[e] = val[partner];
                    val[partner] = tv;
                }
            }
    const int out = g.offset[row];
    int written = 0;
#pragma unroll
    for (int e = 0; e < N; e++) {
        if (key[e] == INT_MAX) continue;
        if (e > 0 && key[e] == key[e - 1]) {
            g.out_val[out + written - 1] += val[e];
        } else {
            g.out_col[out + written] = key[e];
            g.out_val[out + written] = val[e];
            written++;
        }
    }
    g.c_count[row] = written;
}

template <class T> __global__ void thread_rows_kernel(esc_args<T> g, const int *rows, int count)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= count) return;
    const int row = rows[r];
    const int p = g.offset[row + 1] - g.offset[row];
    if (p <= 8)
        thread_row<8, T>(g, row);
    else
        thread_row<THREAD_CAP, T>(g, row);
}
/* ---- one warp per row ------------------------------------------------------------------- */

struct less_int {
    __device__ bool operator()(int x, int y) const { return x < y; }
};

/* ITEMS products per lane: a tier for each of 32, 64, 128, 256. */
template <int ITEMS, class T>
__global__ void warp_rows_kernel(esc_args<T> g, const int *rows, int count)
{
    typedef cub::WarpMergeSort<int, ITEMS, WARP, T> sort_t;
    __shared__ typename sort_t::TempStorage temp[WARPS];
    __shared__ int s_key[WARPS][WARP * ITEMS], prefix[WARPS][WARP + 1];
    __shared__ T s_val[WARPS][WARP * ITEMS];
    const int warp = threadIdx.x / WARP, lane = threadIdx.x % WARP;
    const int r = blockIdx.x * WARPS + warp;
    if (r >= count) return; /* the whole warp: no block-wide barrier follows */
    const int row = rows[r], p = g.offset[row + 1] - g.offset[row];
    expand_row(g, row, lane, WARP, NULL, prefix[warp], store_products<T>{s_key[warp], s_val[warp]});
    int key[ITEMS];
    T val[ITEMS];
    for (int j = 0; j < ITEMS; j++) {
        const int e = lane * ITEMS + j;
        key[j] = e < p ? s_key[warp][e] : INT_MAX;
        val[j] = e < p ? s_val[warp][e] : T(0);
    }
    __syncwarp();
    sort_t(temp[warp]).Sort(key, val, less_int());
    for (int j = 0; j < ITEMS; j++) {
        s_key[warp][lane * ITEMS + j] = key[j];
        s_val[warp][lane * ITEMS + j] = val[j];
    }
    __syncwarp();
    compress_row(g, row, p, lane, WARP, NULL, s_key[warp], s_val[warp]);
}

/* ---- one block per row ------------------------------------------------------------------- */

/* ITEMS products per thread: a tier for each of 512, 1024, 2048. */
template <int ITEMS, class T>
__global__ void __launch_bounds__(BLOCK)
    block_rows_kernel(esc_args<T> g, const int *rows, int key_bits)
{
    typedef cub::BlockRadixSort<int, BLOCK, ITEMS, T> sort_t;
    __shared__ union {
        typename sort_t::TempStorage sort;
        struct {
            int key[BLOCK * ITEMS];
            T val[BLOCK * ITEMS];
        } items;
    } sh;
    __shared__ int warp_sums[BLOCK / WARP], prefix[BLOCK + 1];
    const int row = rows[blockIdx.x], p = g.offset[row + 1] - g.offset[row], t = threadIdx.x;
    const int pad = (int)((1u << key_bits) - 1u); /* above every column, inside the sorted bits */
    expand_row(g, row, t, BLOCK, warp_sums, prefix, store_products<T>{sh.items.key, sh.items.val});
    int key[ITEMS];
    T val[ITEMS];
    for (int j = 0; j < ITEMS; j++) {
        const int e = t * ITEMS + j;
        key[j] = e < p ? sh.items.key[e] : pad;
        val[j] = e < p ? sh.items.val[e] : T(0);
    }
    __syncthreads();
    sort_t(sh.sort).Sort(key, val, 0, key_bits);
    __syncthreads();
    for (int j = 0; j < ITEMS; j++) {
        sh.items.key[t * ITEMS + j] = key[j];
        sh.items.val[t * ITEMS + j] = val[j];
    }
    __syncthreads();
    compress_row(g, row, p, t, BLOCK, warp_sums, sh.items.key, sh.items.val);
}
/* ---- rows beyond shared memory: expanded, sorted and compressed in global memory ---------- */

/* Each of these rows' products (the last entry 0), scanned into where
 * each row's products begin in arrays of theirs alone. */
__global__ void global_sizes_kernel(const int *offset, const int *rows, int count, int *sizes)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) sizes[i] = offset[rows[i] + 1] - offset[rows[i]];
    if (i == count) sizes[i] = 0;
}

template <class T>
__global__ void global_expand_kernel(esc_args<T> g, const int *rows, const int *begin, int *key,
                                     T *val)
{
    __shared__ int warp_sums[BLOCK / WARP], prefix[BLOCK + 1];
    const int row = rows[blockIdx.x], at = begin[blockIdx.x];
    expand_row(g, row, threadIdx.x, BLOCK, warp_sums, prefix,
               store_products<T>{key + at, val + at});
}

template <class T>
__global__ void global_compress_kernel(esc_args<T> g, const int *rows, const int *begin,
                                       const int *key, const T *val)
{
    __shared__ int warp_sums[BLOCK / WARP];
    const int row = rows[blockIdx.x], at = begin[blockIdx.x];
    compress_row(g, row, g.offset[row + 1] - g.offset[row], threadIdx.x, BLOCK, warp_sums, key + at,
                 val + at);
}
template <int ITEMS, class T>
static void launch_warp_rows(const esc_args<T> &g, const int *rows, int count)
{
    if (count > 0)
        warp_rows_kernel<ITEMS, T><<<gpu_blocks_for(count, WARPS), WARPS * WARP>>>(g, rows, count);
}

template <int ITEMS, class T>
static void launch_block_rows(const esc_args<T> &g, const int *rows, int count, int key_bits)
{
    if (count > 0) block_rows_kernel<ITEMS, T><<<count, BLOCK>>>(g, rows, key_bits);
}

template <class T>
int esc_sorted_tiers(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *bounds)
{
    const int key_bits = spgemm_bits((long long)s->B.n + 1);
    const int *order = w->order;
    const int count = bounds[1] - bounds[0];
    if (count > 0)
        thread_rows_kernel<T><<<gpu_blocks_for(count, 128), 128>>>(g, order + bounds[0], count);
    launch_warp_rows<1, T>(g, order + bounds[1], bounds[2] - bounds[1]);
    launch_warp_rows<2, T>(g, order + bounds[2], bounds[3] - bounds[2]);
    launch_warp_rows<4, T>(g, order + bounds[3], bounds[4] - bounds[3]);
    launch_warp_rows<8, T>(g, order + bounds[4], bounds[5] - bounds[4]);
    launch_block_rows<2, T>(g, order + bounds[5], bounds[6] - bounds[5], key_bits);
    launch_block_rows<4, T>(g, order + bounds[6], bounds[7] - bounds[6], key_bits);
    launch_block_rows<8, T>(g, order + bounds[7], bounds[8] - bounds[7], key_bits);
    return gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
}

/* The rows of [from, to) of the work order that are longer than a block's
 * shared memory: expanded into arrays of their own products alone (two of
 * each, which the sort alternates between: cub's sort into separate
 * output takes a third copy), sorted by segment, compressed into their
 * product ranges. */
template <class T>
int esc_global_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, int from, int to)
{
    const int count = to - from, *rows = w->order + from;
    size_t bytes = 0;
    int products = 0, *key[2];
    T *val[2];
    cub::DoubleBuffer<int> keys;
    cub::DoubleBuffer<T> vals;
    if (count == 0) return 0;
    w->global_block =
        carve(s, NULL, [&](carving &c) { w->segments = c.take<int>(2 * (size_t)count + 2); });
    if (!w->global_block) return 1;
    int *sizes = w->segments, *begin = w->segments + count + 1;
    global_sizes_kernel<<<gpu_blocks_for(count + 1, 256), 256>>>(g.offset, rows, count, sizes);
    GPU_TRY(&s->core, cub::DeviceScan::ExclusiveSum(NULL, bytes, sizes, begin, count + 1),
            "cub::DeviceScan");
    if (ensure_temp(s, w, bytes)) return 1;
    GPU_TRY(&s->core, cub::DeviceScan::ExclusiveSum(w->temp, bytes, sizes, begin, count + 1),
            "cub::DeviceScan");
    GPU_TRY(&s->core, cudaMemcpy(&products, begin + count, sizeof(int), cudaMemcpyDeviceToHost),
            "kernel execution");
    w->global_sort_block = carve(s, NULL, [&](carving &c) {
        for (int b = 0; b < 2; b++) {
            key[b] = c.take<int>((size_t)products);
            val[b] = c.take<T>((size_t)products);
        }
    });
    if (!w->global_sort_block) return 1;
    global_expand_kernel<T><<<count, BLOCK>>>(g, rows, begin, key[0], val[0]);
    keys = cub::DoubleBuffer<int>(key[0], key[1]);
    vals = cub::DoubleBuffer<T>(val[0], val[1]);
    GPU_TRY(&s->core,
            cub::DeviceSegmentedSort::SortPairs(NULL, bytes, keys, vals, products, count, begin,
                                                begin + 1),
            "cub::DeviceSegmentedSort");
    if (ensure_temp(s, w, bytes)) return 1;
    GPU_TRY(&s->core,
            cub::DeviceSegmentedSort::SortPairs(w->temp, bytes, keys, vals, products, count, begin,
                                                begin + 1),
            "cub::DeviceSegmentedSort");
    global_compress_kernel<T><<<count, BLOCK>>>(g, rows, begin, keys.Current(), vals.Current());
    return gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
fail:
    return 1;
}

#define ESC_SORTED_TIERS(T)                                                                        \
    int esc_sorted_tiers<T>(gpu_spgemm_state *, esc_work<T> *, const esc_args<T> &, const int *)
#define ESC_GLOBAL_ROWS(T)                                                                         \
    int esc_global_rows<T>(gpu_spgemm_state *, esc_work<T> *, const esc_args<T> &, int, int)
ESC_INSTANTIATE(ESC_SORTED_TIERS);
ESC_INSTANTIATE(ESC_GLOBAL_ROWS);
