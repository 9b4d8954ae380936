/* spgemm_esc.cu — expand, sort, compress. A setup phase counts each row's
 * products, orders the rows by size class (neighbouring threads, warps and
 * blocks get rows of similar work) and scans the counts into offsets. Each
 * row is then expanded, sorted by column and compressed (equal columns
 * summed) by a group sized to its work: one thread with a sorting network
 * in registers (up to 16 products), a warp with a merge sort of 1, 2, 4 or
 * 8 items per lane (up to 256), a block with a radix sort in shared memory
 * (up to 2048); longer rows accumulate into a dense row in shared memory
 * while B's row takes at most DENSE_ROW_BYTES, and past 8192 products
 * (shared out among blocks, their sums added in global memory) on chip
 * while B's row fits a block's shared memory, else in global memory while
 * B is not much wider than the rows are long; the others are expanded into
 * global memory and sorted there by segment, so no row is too long. Rows
 * compress into their own product range; a last pass packs them into C in
 * the original row order.
 * Every kernel is a template on the value type (fp64 and fp32). */
#include <limits.h>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/warp/warp_merge_sort.cuh>

#include "spgemm_state.cuh"

/* Rows go by size class: class c holds the rows of 2^(c-2) < p <= 2^(c-1)
 * products (class 0: none). Sorting rows by class is one radix pass and
 * keeps rows of one class in their original order (neighbours share rows
 * of B in cache). */
#define CLASS_BITS 6
#define THREAD_CAP 16  /* products a thread sorts in registers */
#define WARPS      4   /* warps per block of the warp tiers */
#define BLOCK      256 /* threads of the block and global tiers */
/* Rows of 2049-8192 products accumulate densely on chip while B's dense
 * row takes at most this much shared memory (about 8,000 columns in fp64,
 * 15,900 in fp32), else they are sorted in global memory. Against sorting,
 * on an H200 (rows of 2100-7700 products): 1.8-3.7x faster at 6000 columns
 * in either precision and 1.2-2.2x at 16000 in fp32; at 128 KiB (16000
 * columns in fp64) 0.55-1.2x, and worse wider, where fewer blocks fit an
 * SM. bcsstk16 and ex40 (B 4884 and 7740 wide) went 3.4x and 2.8x faster. */
#define DENSE_ROW_BYTES (64 * 1024)
/* The first class of each tier: thread; warp with 1, 2, 4, 8 items per
 * lane; block with 2, 4, 8; dense or global; and, past SLICE_PRODUCTS
 * (class 15: more than 8192), dense in slices or global. TIERS bounds in
 * the class-sorted rows. */
#define TIERS 10
__constant__ int tier_first_class[TIERS] = {1, 6, 7, 8, 9, 10, 11, 12, 13, 15};

template <class T> struct esc_args {
    const int *a_rp, *a_ci;
    const T *a_v;
    const int *b_rp, *b_ci;
    const T *b_v;
    const int *offset; /* each row's first product */
    int *out_col;      /* each row compressed at its offset */
    T *out_val;
    int *c_count; /* each row's entries of C */
};

/* ---- setup ------------------------------------------------------------------------ */

__device__ static int size_class(int p) { return p == 0 ? 0 : 33 - __clz(p - 1); }

/* Products per row: a thread per row, and a row of more than LONG_ENTRIES
 * entries of A by its whole block (a hub row of 84,852 entries walked by
 * one thread took 4.6 ms, three times the product kernels, Nsight Compute). */
#define LONG_ENTRIES 512
__global__ void __launch_bounds__(256)
    row_products_kernel(const int *a_rp, const int *a_ci, const int *b_rp, int m, int *products,
                        int *classes, int *rows, int *c_count)
{
    __shared__ int long_rows[256], long_count, warp_sums[256 / WARP];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) long_count = 0;
    __syncthreads();
    if (i == 0) { /* the scans' last terms */
        products[m] = 0;
        c_count[m] = 0;
    }
    if (i < m) {
        rows[i] = i;
        c_count[i] = 0; /* a row without products is in no tier */
        if (a_rp[i + 1] - a_rp[i] > LONG_ENTRIES) {
            long_rows[atomicAdd(&long_count, 1)] = i;
        } else {
            int p = 0;
            for (int k = a_rp[i]; k < a_rp[i + 1]; k++) p += b_rp[a_ci[k] + 1] - b_rp[a_ci[k]];
            products[i] = p;
            classes[i] = size_class(p);
        }
    }
    __syncthreads();
    for (int l = 0; l < long_count; l++) {
        const int row = long_rows[l];
        int p = 0, total;
        for (int k = a_rp[row] + threadIdx.x; k < a_rp[row + 1]; k += blockDim.x)
            p += b_rp[a_ci[k] + 1] - b_rp[a_ci[k]];
        block_exclusive_sum(p, warp_sums, &total);
        if (threadIdx.x == 0) {
            products[row] = total;
            classes[row] = size_class(total);
        }
    }
}

/* Where each tier starts in the class-sorted rows; then m, and the
 * products of the whole product (the host sizes their buffers by it). */
__global__ void tier_bounds_kernel(const int *sorted_classes, const int *offset, int m, int *bounds)
{
    int t = threadIdx.x;
    if (t == TIERS) bounds[TIERS] = m;
    if (t == TIERS + 1) bounds[TIERS + 1] = offset[m];
    if (t >= TIERS) return;
    int lo = 0, hi = m;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (sorted_classes[mid] < tier_first_class[t])
            lo = mid + 1;
        else
            hi = mid;
    }
    bounds[t] = lo;
}

/* A product of at most SMALL_SETUP_ROWS rows is set up by one block after
 * the products kernel: the offsets' scan, the rows' stable order by class
 * and the tier bounds in one launch where cub's scan and sort take five or
 * six (a launch costs the host about 4 us on an H200, scripts/dev/
 * api_costs.cu, and a small product is mostly launches); C's row pointers
 * likewise. The block's work grows with the rows: against cub's on
 * gen:random:M:8 (H200, whole products, in turns) it saved 22 us at 2048
 * rows and 4-6 us at 4096-6144, and cost 11-25 us from 8192 to 16384. */
#ifndef SMALL_SETUP_ROWS /* a build may set another, to measure the paths against each other */
#define SMALL_SETUP_ROWS 4096
#endif
#define SMALL_SETUP_THREADS 1024
#define CLASSES             (1 << CLASS_BITS)

/* The exclusive sum of in[0, n) into out[0, n), by one block in chunks of
 * its size; returns the total (every thread). */
static __device__ int block_scan_into(const int *in, int n, int *out, int *warp_sums)
{
    int carry = 0;
    for (int base = 0; base < n; base += blockDim.x) {
        const int i = base + threadIdx.x;
        int total;
        const int before = block_exclusive_sum(i < n ? in[i] : 0, warp_sums, &total);
        if (i < n) out[i] = carry + before;
        carry += total;
    }
    return carry;
}

__global__ void __launch_bounds__(SMALL_SETUP_THREADS)
    small_setup_kernel(const int *products, const int *classes, int m, int *offset, int *order,
                       int *bounds)
{
    __shared__ int warp_sums[SMALL_SETUP_THREADS / WARP];
    __shared__ int class_start[CLASSES], chunk_total[CLASSES];
    __shared__ int warp_count[SMALL_SETUP_THREADS / WARP][CLASSES];
    const int t = threadIdx.x, lane = t % WARP, warp = t / WARP;
    if (t < CLASSES) class_start[t] = 0;
    __syncthreads();
    for (int i = t; i < m; i += blockDim.x) atomicAdd(&class_start[classes[i]], 1);
    __syncthreads();
    if (t == 0) { /* counts to starts */
        int start = 0;
        for (int c = 0; c < CLASSES; c++) {
            const int count = class_start[c];
            class_start[c] = start;
            start += count;
        }
    }
    __syncthreads();
    if (t < TIERS) bounds[t] = class_start[tier_first_class[t]];
    if (t == TIERS) bounds[TIERS] = m;
    const int total = block_scan_into(products, m + 1, offset, warp_sums); /* products[m] = 0 */
    if (t == 0) bounds[TIERS + 1] = total;
    /* rows in their order within a class: ranked in the lane's warp, then
     * among the warps, then after the chunks before */
    for (int base = 0; base < m; base += blockDim.x) {
        const int i = base + t, c = i < m ? classes[i] : -1;
        for (int k = t; k < CLASSES * (SMALL_SETUP_THREADS / WARP); k += blockDim.x)
            (&warp_count[0][0])[k] = 0;
        __syncthreads();
        const unsigned peers = __match_any_sync(FULL_MASK, c);
        const int rank = __popc(peers & ((1u << lane) - 1));
        if (c >= 0 && rank == 0) warp_count[warp][c] = __popc(peers);
        __syncthreads();
        if (t < CLASSES) { /* per class: the warps' counts to their starts */
            int before = 0;
            for (int w = 0; w < SMALL_SETUP_THREADS / WARP; w++) {
                const int count = warp_count[w][t];
                warp_count[w][t] = before;
                before += count;
            }
            chunk_total[t] = before;
        }
        __syncthreads();
        if (c >= 0) order[class_start[c] + warp_count[warp][c] + rank] = i;
        __syncthreads();
        if (t < CLASSES) class_start[t] += chunk_total[t];
        __syncthreads();
    }
}

/* C's row pointers: the exclusive sum of the rows' counts (count[m] = 0),
 * by one block. */
__global__ void __launch_bounds__(SMALL_SETUP_THREADS)
    small_scan_kernel(const int *count, int m, int *row_ptr)
{
    __shared__ int warp_sums[SMALL_SETUP_THREADS / WARP];
    block_scan_into(count, m + 1, row_ptr, warp_sums);
}

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

/* ---- groups: a warp or a block ------------------------------------------------------------ */

/* Exclusive prefix sum of v over the group (a warp when warp_sums is NULL,
 * else the block) and the group's total. */
__device__ static int group_exclusive_sum(int v, int *warp_sums, int *total)
{
    if (warp_sums) return block_exclusive_sum(v, warp_sums, total);
    const int lane = threadIdx.x % WARP;
    int inclusive = v;
    for (int offset = 1; offset < WARP; offset <<= 1) {
        int before = __shfl_up_sync(FULL_MASK, inclusive, offset);
        if (lane >= offset) inclusive += before;
    }
    *total = __shfl_sync(FULL_MASK, inclusive, WARP - 1);
    return inclusive - v;
}

__device__ static void group_sync(int *warp_sums)
{
    if (warp_sums)
        __syncthreads();
    else
        __syncwarp();
}

/* Where expanded products go: the row's key/val arrays, in product order. */
template <class T> struct store_products {
    int *key;
    T *val;
    __device__ void operator()(int e, int col, T v) const
    {
        key[e] = col;
        val[e] = v;
    }
};

/* Every product of the row handed to sink(e, column, value), e numbering
 * the row's products. The group takes the row's entries of A `width` at a
 * time; a prefix sum of their B-row lengths (in `prefix`, width + 1 slots)
 * numbers the chunk's products, and thread t makes products t, t + width,
 * ...: neighbouring threads read neighbouring entries of B, and one long
 * row of B is shared out, not left to one thread. */
template <class T, class Sink>
__device__ static void expand_entries(const esc_args<T> &g, int a_begin, int a_end, int t,
                                      int width, int *warp_sums, int *prefix, const Sink &sink)
{
    int placed = 0;
    for (int first = a_begin; first < a_end; first += width) {
        const int k = first + t;
        int length = 0;
        if (k < a_end) length = g.b_rp[g.a_ci[k] + 1] - g.b_rp[g.a_ci[k]];
        int total;
        prefix[t] = group_exclusive_sum(length, warp_sums, &total);
        if (t == 0) prefix[width] = total;
        group_sync(warp_sums);
        for (int e = t; e < total; e += width) {
            int lo = 0, hi = width - 1; /* the last q with prefix[q] <= e */
            while (lo < hi) {
                const int mid = (lo + hi + 1) / 2;
                if (prefix[mid] <= e)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            const int entry = first + lo, pos = g.b_rp[g.a_ci[entry]] + e - prefix[lo];
            sink(placed + e, g.b_ci[pos], g.a_v[entry] * g.b_v[pos]);
        }
        placed += total;
        group_sync(warp_sums); /* prefix is rewritten by the next chunk */
    }
}

/* The products of a whole row (see expand_entries). */
template <class T, class Sink>
__device__ static void expand_row(const esc_args<T> &g, int row, int t, int width, int *warp_sums,
                                  int *prefix, const Sink &sink)
{
    expand_entries(g, g.a_rp[row], g.a_rp[row + 1], t, width, warp_sums, prefix, sink);
}

/* Sorted key/val[0..p) of the row compressed into its range of the output,
 * `width` items at a time. Runs of equal columns are summed by a segmented
 * scan in each warp (so a long run costs no thread more than its share);
 * the warp-piece holding a run's first item stores the run, and pieces that
 * continue a run begun in an earlier warp or chunk add to it after a
 * barrier. */
template <class T>
__device__ static void compress_row(const esc_args<T> &g, int row, int p, int t, int width,
                                    int *warp_sums, const int *key, const T *val)
{
    const int lane = threadIdx.x % WARP, out = g.offset[row];
    int written = 0; /* runs begun before this chunk */
    for (int first = 0; first < p; first += width) {
        const int e = first + t, in = e < p;
        const int head = in && (e == 0 || key[e] != key[e - 1]);
        int heads;
        const int slot = out + written + group_exclusive_sum(head, warp_sums, &heads) + head - 1;
        T sum = in ? val[e] : T(0);
        int begun = head || lane == 0, from = lane; /* the piece's first lane */
        for (int offset = 1; offset < WARP; offset <<= 1) {
            const T up = __shfl_up_sync(FULL_MASK, sum, offset);
            const int up_begun = __shfl_up_sync(FULL_MASK, begun, offset);
            const int up_from = __shfl_up_sync(FULL_MASK, from, offset);
            if (lane >= offset && !begun) {
                sum += up;
                begun = up_begun;
                from = up_from;
            }
        }
        /* every lane shuffles: none of them inside a condition */
        const int next_head = __shfl_down_sync(FULL_MASK, head, 1);
        const int first_head = __shfl_sync(FULL_MASK, head, 0);
        const int last = in && (lane == WARP - 1 || e + 1 >= p || next_head);
        const int continues = from == 0 && !first_head;
        if (last && !continues) {
            g.out_col[slot] = key[e];
            g.out_val[slot] = sum;
        }
        group_sync(warp_sums);
        if (last && continues) atomicAdd(&g.out_val[slot], sum);
        written += heads;
    }
    if (t == 0) g.c_count[row] = written;
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

/* ---- long rows of a narrow B: a dense accumulator in shared memory ------------------------ */

/* Products summed where they fall, into one accumulator per column of B. */
template <class T> struct accumulate_products {
    T *acc;
    unsigned *flags;
    __device__ void operator()(int, int col, T v) const
    {
        atomicAdd(&acc[col], v);
        atomicOr(&flags[col / WARP], 1u << (col % WARP));
    }
};

/* A dense row's accumulator and flags in dynamic shared memory: n values,
 * then a flag bit per column (dense_shared_bytes). */
template <class T> static __host__ __device__ size_t dense_shared_bytes(int n)
{
    return sizeof(T) * (size_t)n + sizeof(unsigned) * (size_t)((n + WARP - 1) / WARP);
}

/* The touched columns of flag words [w0, w1) of a dense row (acc and
 * flags in shared or global memory) written out in column order from out:
 * a word per thread, its set bits in order, placed by one block scan per
 * BLOCK words (8192 columns) rather than per BLOCK columns. Returns how
 * many were written (to every thread). */
template <class T>
__device__ static int write_dense_words(const esc_args<T> &g, int out, int w0, int w1, const T *acc,
                                        const unsigned *flags, int *warp_sums)
{
    int written = 0;
    for (int first = w0; first < w1; first += BLOCK) {
        const int w = first + threadIdx.x;
        unsigned bits = w < w1 ? flags[w] : 0u;
        int total;
        int at = out + written + block_exclusive_sum(__popc(bits), warp_sums, &total);
        for (; bits; bits &= bits - 1) {
            const int c = w * WARP + __ffs(bits) - 1;
            g.out_col[at] = c;
            g.out_val[at++] = acc[c];
        }
        written += total;
    }
    return written;
}

/* A whole dense row written out by its block. */
template <class T>
__device__ static void write_dense_row(const esc_args<T> &g, int row, int n, const T *acc,
                                       const unsigned *flags, int *warp_sums)
{
    const int written =
        write_dense_words(g, g.offset[row], 0, (n + WARP - 1) / WARP, acc, flags, warp_sums);
    if (threadIdx.x == 0) g.c_count[row] = written;
}

/* A row too long to sort on chip, when B's row fits in shared memory
 * (DENSE_ROW_BYTES): accumulated by column, then written out in column
 * order (sorted as it stands). */
template <class T>
__global__ void __launch_bounds__(BLOCK) dense_rows_kernel(esc_args<T> g, const int *rows, int n)
{
    extern __shared__ __align__(16) unsigned char dense_shared[];
    T *acc = (T *)dense_shared;
    unsigned *flags = (unsigned *)(acc + n);
    __shared__ int warp_sums[BLOCK / WARP], prefix[BLOCK + 1];
    const int row = rows[blockIdx.x], t = threadIdx.x;
    for (int c = t; c < n; c += BLOCK) acc[c] = 0;
    for (int w = t; w * WARP < n; w += BLOCK) flags[w] = 0;
    __syncthreads();
    expand_row(g, row, t, BLOCK, warp_sums, prefix, accumulate_products<T>{acc, flags});
    write_dense_row(g, row, n, acc, flags, warp_sums);
}

/* Past SLICE_PRODUCTS a dense row is shared out among blocks, one per
 * SLICE_PRODUCTS of its products (at most MAX_SLICES), each taking a slice
 * of its entries of A: one block over a hub row of 3x10^6 products kept
 * one SM of 132 busy for 1.7 ms (0.08% of the GPU's issue, Nsight
 * Compute). Such a row has over 8192 products, so a width of B up to a few
 * times that is worth a dense row: on chip while B's row fits a block's
 * shared memory (dense_cols: about 28,000 columns in fp64 on an H100),
 * else in global memory, up to GLOBAL_DENSE_COLS columns and while the
 * rows' accumulators take at most GLOBAL_DENSE_SHARE values per product.
 * Sorting these rows in global memory instead cost the LP shape 8.6x
 * cuSPARSE (issue 62). */
#define SLICE_PRODUCTS     8192
#define MAX_SLICES         64
#define GLOBAL_DENSE_COLS  131072 /* 16 times a sliced row's fewest products */
#define GLOBAL_DENSE_SHARE 2

/* Slice blockIdx.y of the dense row blockIdx.x, added into the row's
 * accumulator in global memory (zeroed before): ON_CHIP, accumulated in
 * shared memory first and added once per column; else each product added
 * there directly. */
template <class T, bool ON_CHIP>
__global__ void __launch_bounds__(BLOCK)
    dense_slices_kernel(esc_args<T> g, const int *rows, int n, T *acc_all, unsigned *flags_all)
{
    extern __shared__ __align__(16) unsigned char dense_shared[];
    __shared__ int warp_sums[BLOCK / WARP], prefix[BLOCK + 1];
    const int row = rows[blockIdx.x], slice = blockIdx.y, t = threadIdx.x;
    const int words = (n + WARP - 1) / WARP, p = g.offset[row + 1] - g.offset[row];
    const int slices = min(MAX_SLICES, (p + SLICE_PRODUCTS - 1) / SLICE_PRODUCTS);
    if (slice >= slices) return;
    const int a0 = g.a_rp[row], entries = g.a_rp[row + 1] - a0;
    const int begin = a0 + (int)((long long)entries * slice / slices);
    const int end = a0 + (int)((long long)entries * (slice + 1) / slices);
    T *acc_row = acc_all + (size_t)blockIdx.x * n;
    unsigned *flags_row = flags_all + (size_t)blockIdx.x * words;
    T *acc = ON_CHIP ? (T *)dense_shared : acc_row;
    unsigned *flags = ON_CHIP ? (unsigned *)(acc + n) : flags_row;
    if (ON_CHIP) {
        for (int c = t; c < n; c += BLOCK) acc[c] = 0;
        for (int w = t; w < words; w += BLOCK) flags[w] = 0;
        __syncthreads();
    }
    expand_entries(g, begin, end, t, BLOCK, warp_sums, prefix, accumulate_products<T>{acc, flags});
    if (!ON_CHIP) return;
    __syncthreads();
    for (int c = t; c < n; c += BLOCK)
        if (flags[c / WARP] >> (c % WARP) & 1u) atomicAdd(&acc_row[c], acc[c]);
    for (int w = t; w < words; w += BLOCK)
        if (flags[w]) atomicOr(&flags_row[w], flags[w]);
}

/* A sliced dense row, its slices summed: written out in column order,
 * BLOCK flag words (8192 columns) per block along blockIdx.y, each block
 * counting the touched columns ahead of its words itself (a row read by
 * one block took 97 us of ca-CondMat's 736, Nsight Compute). */
template <class T>
__global__ void __launch_bounds__(BLOCK)
    dense_gather_kernel(esc_args<T> g, const int *rows, int n, const T *acc_all,
                        const unsigned *flags_all)
{
    __shared__ int warp_sums[BLOCK / WARP];
    const int row = rows[blockIdx.x], words = (n + WARP - 1) / WARP;
    const int w0 = blockIdx.y * BLOCK, w1 = min(words, w0 + BLOCK);
    const unsigned *flags = flags_all + (size_t)blockIdx.x * words;
    int ahead = 0, before;
    for (int w = threadIdx.x; w < w0; w += BLOCK) ahead += __popc(flags[w]);
    block_exclusive_sum(ahead, warp_sums, &before);
    const int written = write_dense_words(g, g.offset[row] + before, w0, w1,
                                          acc_all + (size_t)blockIdx.x * n, flags, warp_sums);
    if (threadIdx.x == 0 && w1 == words) g.c_count[row] = before + written;
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

/* ---- packing C ------------------------------------------------------------------------- */

template <class T>
__global__ void pack_rows_kernel(esc_args<T> g, int m, const int *c_row_ptr, int *c_col, T *c_val)
{
    const int row = (blockIdx.x * blockDim.x + threadIdx.x) / WARP, lane = threadIdx.x % WARP;
    if (row >= m) return;
    const int from = g.offset[row], to = c_row_ptr[row], count = g.c_count[row];
    for (int e = lane; e < count; e += WARP) {
        c_col[to + e] = g.out_col[from + e];
        c_val[to + e] = g.out_val[from + e];
    }
}

/* ---- the whole product ------------------------------------------------------------------- */

/* The widest B whose dense row fits a block's shared memory beside the
 * kernels' own arrays (a multiple of WARP columns); 0 when it cannot be
 * read. */
template <class T> static int dense_cols()
{
    int device = 0, optin = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) !=
            cudaSuccess)
        return 0;
    const size_t static_bytes = sizeof(int) * (BLOCK / WARP + BLOCK + 1) + 1024; /* and a margin */
    if ((size_t)optin <= static_bytes) return 0;
    const size_t per_word = sizeof(T) * WARP + sizeof(unsigned); /* 32 columns and their flags */
    return (int)(((size_t)optin - static_bytes) / per_word * WARP);
}

/* Lets kernel take `bytes` of dynamic shared memory; nonzero on failure. */
template <class Kernel>
static int dense_shared_fits(gpu_spgemm_state *s, Kernel kernel, size_t bytes)
{
    if (bytes <= 48 * 1024) return 0;
    return gpu_cuda_failed(
        &s->core,
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes),
        "cudaFuncSetAttribute");
}

/* Once per row, before its products: the widest B a dense row keeps on
 * chip, and the dense kernels allowed the shared memory it takes. */
template <class T> static spb_status esc_device_setup_in(gpu_spgemm_state *s, char *msg)
{
    s->dense_cols = dense_cols<T>();
    const size_t bytes = dense_shared_bytes<T>(s->dense_cols);
    if (dense_shared_fits(s, dense_rows_kernel<T>, bytes) ||
        dense_shared_fits(s, dense_slices_kernel<T, true>, bytes))
        return gpu_state_fail(&s->core, msg);
    return SPB_OK;
}

static spb_status esc_device_setup(gpu_spgemm_state *s, char *msg)
{
    return s->precision == SPB_FP32 ? esc_device_setup_in<float>(s, msg)
                                    : esc_device_setup_in<double>(s, msg);
}

/* A product's working arrays. Each phase takes its arrays in one
 * allocation (a small product's time is mostly calls, not kernels). */
template <class T> struct esc_work {
    void *setup_block; /* products .. bounds and cub's storage */
    void *out_block;   /* out_col, out_val */
    void *global_block, *global_sort_block, *sliced_block;
    void *temp_grown; /* cub's storage, when a call asks for more than the setup's */
    int *products, *classes, *rows, *sorted_classes, *order, *bounds;
    int *offset, *c_count, *out_col, *segments;
    T *out_val, *dense_acc;
    unsigned *dense_flags;
    void *temp;
    size_t temp_bytes;
    int total; /* the product's products, read back with the tier bounds */
};

/* cub's storage, grown (apart from the setup's block) to what a call asks for. */
template <class T> static int ensure_temp(gpu_spgemm_state *s, esc_work<T> *w, size_t bytes)
{
    if (bytes <= w->temp_bytes) return 0;
    spgemm_free(w->temp_grown);
    w->temp_grown = NULL;
    if (spgemm_alloc(s, &w->temp_grown, bytes)) return 1;
    w->temp = w->temp_grown;
    w->temp_bytes = bytes;
    return 0;
}

/* Products per row, offsets, rows sorted by size class; the tier bounds,
 * m and the product's products (bounds[TIERS + 1]) read back to the host in
 * one copy. */
template <class T> static int esc_setup(gpu_spgemm_state *s, esc_work<T> *w, int *bounds)
{
    const int m = s->A.m, small = m <= SMALL_SETUP_ROWS;
    size_t scan_bytes = 0, sort_bytes = 0;
    /* cub's storage depends on m alone: asked for before the allocation */
    if (!small) {
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(NULL, scan_bytes, w->products, w->offset, m + 1),
                "cub::DeviceScan");
        GPU_TRY(&s->core,
                cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, w->classes, w->sorted_classes,
                                                w->rows, w->order, m, 0, CLASS_BITS),
                "cub::DeviceRadixSort");
    }
    w->temp_bytes = scan_bytes > sort_bytes ? scan_bytes : sort_bytes;
    w->setup_block = carve(s, NULL, [&](carving &c) {
        w->products = c.take<int>((size_t)m + 1);
        w->classes = c.take<int>((size_t)m);
        w->rows = c.take<int>((size_t)m);
        w->sorted_classes = c.take<int>((size_t)m);
        w->order = c.take<int>((size_t)m);
        w->offset = c.take<int>((size_t)m + 1);
        w->c_count = c.take<int>((size_t)m + 1);
        w->bounds = c.take<int>(TIERS + 2);
        w->temp = c.take<char>(w->temp_bytes);
    });
    if (!w->setup_block) return 1;
    row_products_kernel<<<gpu_blocks_for(m, 256), 256>>>(
        s->A.row_ptr, s->A.col_idx, s->B.row_ptr, m, w->products, w->classes, w->rows, w->c_count);
    if (small) {
        small_setup_kernel<<<1, SMALL_SETUP_THREADS>>>(w->products, w->classes, m, w->offset,
                                                       w->order, w->bounds);
    } else {
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(w->temp, scan_bytes, w->products, w->offset, m + 1),
                "cub::DeviceScan");
        GPU_TRY(&s->core,
                cub::DeviceRadixSort::SortPairs(w->temp, sort_bytes, w->classes, w->sorted_classes,
                                                w->rows, w->order, m, 0, CLASS_BITS),
                "cub::DeviceRadixSort");
        tier_bounds_kernel<<<1, WARP>>>(w->sorted_classes, w->offset, m, w->bounds);
    }
    GPU_TRY(&s->core, cudaGetLastError(), "kernel launch");
    GPU_TRY(&s->core,
            cudaMemcpy(bounds, w->bounds, sizeof(int) * (TIERS + 2), cudaMemcpyDeviceToHost),
            "kernel execution");
    w->total = bounds[TIERS + 1];
    return 0;
fail:
    return 1;
}

/* The rows of [from, to) of the work order that are longer than a block's
 * shared memory: expanded into arrays of their own products alone (two of
 * each, which the sort alternates between: cub's sort into separate
 * output takes a third copy), sorted by segment, compressed into their
 * product ranges. */
template <class T>
static int esc_global_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, int from,
                           int to)
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

/* The dense rows past SLICE_PRODUCTS: their slices (on chip or not), then
 * each row written out from its accumulator (one per such row, so the
 * memory is theirs). */
template <class T>
static int esc_sliced_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g,
                           const int *rows, int count, bool on_chip)
{
    const int n = s->B.n, words = (n + WARP - 1) / WARP;
    size_t bytes = 0;
    if (count == 0) return 0;
    w->sliced_block = carve(s, &bytes, [&](carving &c) {
        w->dense_acc = c.take<T>((size_t)count * n);
        w->dense_flags = c.take<unsigned>((size_t)count * words);
    });
    if (!w->sliced_block) return 1;
    GPU_TRY(&s->core, cudaMemsetAsync(w->sliced_block, 0, bytes, 0), "cudaMemsetAsync");
    if (on_chip)
        dense_slices_kernel<T, true><<<dim3(count, MAX_SLICES), BLOCK, dense_shared_bytes<T>(n)>>>(
            g, rows, n, w->dense_acc, w->dense_flags);
    else
        dense_slices_kernel<T, false>
            <<<dim3(count, MAX_SLICES), BLOCK>>>(g, rows, n, w->dense_acc, w->dense_flags);
    dense_gather_kernel<T><<<dim3(count, (words + BLOCK - 1) / BLOCK), BLOCK>>>(
        g, rows, n, w->dense_acc, w->dense_flags);
    return gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
fail:
    return 1;
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

/* Each tier's rows, the product kernels proper (timed apart). Rows past
 * 2048 products are dense on chip while B's row takes at most
 * DENSE_ROW_BYTES, and past SLICE_PRODUCTS as dense_slices_kernel says;
 * the others are sorted in global memory. */
template <class T>
static int esc_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *bounds)
{
    const int key_bits = spgemm_bits((long long)s->B.n + 1);
    const int *order = w->order;
    int count = bounds[1] - bounds[0];
    if (count > 0)
        thread_rows_kernel<T><<<gpu_blocks_for(count, 128), 128>>>(g, order + bounds[0], count);
    launch_warp_rows<1, T>(g, order + bounds[1], bounds[2] - bounds[1]);
    launch_warp_rows<2, T>(g, order + bounds[2], bounds[3] - bounds[2]);
    launch_warp_rows<4, T>(g, order + bounds[3], bounds[4] - bounds[3]);
    launch_warp_rows<8, T>(g, order + bounds[4], bounds[5] - bounds[4]);
    launch_block_rows<2, T>(g, order + bounds[5], bounds[6] - bounds[5], key_bits);
    launch_block_rows<4, T>(g, order + bounds[6], bounds[7] - bounds[6], key_bits);
    launch_block_rows<8, T>(g, order + bounds[7], bounds[8] - bounds[7], key_bits);
    if (gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch")) return 1;
    const int n = s->B.n, sliced = bounds[10] - bounds[9], on_chip = n <= s->dense_cols;
    const int sliced_dense =
        on_chip ||
        (n <= GLOBAL_DENSE_COLS && (double)sliced * n <= GLOBAL_DENSE_SHARE * (double)w->total);
    if (n > s->dense_cols || dense_shared_bytes<T>(n) > DENSE_ROW_BYTES) {
        if (esc_global_rows(s, w, g, bounds[8], sliced_dense ? bounds[9] : bounds[10])) return 1;
    } else {
        count = bounds[9] - bounds[8];
        if (count > 0)
            dense_rows_kernel<T>
                <<<count, BLOCK, dense_shared_bytes<T>(n)>>>(g, order + bounds[8], n);
        if (gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch")) return 1;
    }
    return sliced_dense ? esc_sliced_rows(s, w, g, order + bounds[9], sliced, on_chip) : 0;
}

/* C's row pointers from the counts, then its arrays, packed in row order. */
template <class T> static void esc_pack(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g)
{
    const int m = s->A.m;
    int nnz = 0;
    size_t bytes = 0;
    s->C.m = m;
    s->C.n = s->B.n;
    if (spgemm_alloc(s, (void **)&s->C.row_ptr, sizeof(int) * ((size_t)m + 1))) return;
    if (m <= SMALL_SETUP_ROWS) {
        small_scan_kernel<<<1, SMALL_SETUP_THREADS>>>(w->c_count, m, s->C.row_ptr);
    } else {
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(NULL, bytes, w->c_count, s->C.row_ptr, m + 1),
                "cub::DeviceScan");
        if (ensure_temp(s, w, bytes)) return;
        GPU_TRY(&s->core,
                cub::DeviceScan::ExclusiveSum(w->temp, bytes, w->c_count, s->C.row_ptr, m + 1),
                "cub::DeviceScan");
    }
    GPU_TRY(&s->core, cudaMemcpy(&nnz, s->C.row_ptr + m, sizeof(int), cudaMemcpyDeviceToHost),
            "kernel execution");
    s->C.nnz = nnz;
    if (spgemm_alloc(s, (void **)&s->C.col_idx, sizeof(int) * (size_t)nnz) ||
        spgemm_alloc(s, &s->C.val, sizeof(T) * (size_t)nnz))
        return;
    if (m > 0)
        pack_rows_kernel<T><<<gpu_blocks_for((long long)m * WARP, 256), 256>>>(
            g, m, s->C.row_ptr, s->C.col_idx, values_of<T>(s->C));
    gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
fail:
    return;
}

template <class T> static void esc_product_in(gpu_spgemm_state *s)
{
    esc_work<T> w = {};
    int bounds[TIERS + 2] = {0};
    esc_args<T> g = {s->A.row_ptr, s->A.col_idx, values_of<T>(s->A),
                     s->B.row_ptr, s->B.col_idx, values_of<T>(s->B),
                     NULL,         NULL,         NULL,
                     NULL};
    if (s->A.m > 0 && esc_setup(s, &w, bounds)) goto done;
    w.out_block = carve(s, NULL, [&](carving &c) {
        w.out_col = c.take<int>((size_t)w.total);
        w.out_val = c.take<T>((size_t)w.total);
    });
    if (!w.out_block) goto done;
    g.offset = w.offset;
    g.out_col = w.out_col;
    g.out_val = w.out_val;
    g.c_count = w.c_count;
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_start), "cudaEventRecord");
    if (s->A.m > 0 && esc_rows(s, &w, g, bounds)) goto done;
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_stop), "cudaEventRecord");
    if (s->A.m > 0)
        esc_pack(s, &w, g);
    else if (spgemm_alloc_c(s, 0) == 0)
        GPU_TRY(&s->core, cudaMemsetAsync(s->C.row_ptr, 0, sizeof(int), 0), "cudaMemsetAsync");
    spgemm_record_kernel_time(s);
fail:
done:
    spgemm_free(w.setup_block);
    spgemm_free(w.out_block);
    spgemm_free(w.global_block);
    spgemm_free(w.global_sort_block);
    spgemm_free(w.sliced_block);
    spgemm_free(w.temp_grown);
}

static void esc_product(gpu_spgemm_state *s) { SPGEMM_BY_PRECISION(s, esc_product_in); }

static const gpu_spgemm_variant esc = {0, 0, esc_product, 0, esc_device_setup};

const spb_spgemm_kernel gpu_spgemm_esc_kernels[] = {
    GPU_SPGEMM_KERNEL(
        "spgemm.cuda.esc",
        "expand-sort-compress: rows grouped by products, each sorted by a thread "
        "(network, <= 16), a warp (merge sort, <= 256) or a block (radix sort, "
        "<= 2048) on chip; longer rows dense (on chip while B's row takes at most 64 KiB; "
        "past 8192 products shared among blocks, on chip or in global memory) or sorted in "
        "global memory; C packed in row order",
        &esc),
};

const int gpu_spgemm_esc_kernel_count =
    (int)(sizeof gpu_spgemm_esc_kernels / sizeof gpu_spgemm_esc_kernels[0]);
