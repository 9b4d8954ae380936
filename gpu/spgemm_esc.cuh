/* spgemm_esc.cuh — what the stages of spgemm.cuda.esc share (spgemm_esc.cu
 * tells the whole algorithm): the tiers' constants, a row's arguments and
 * working arrays, the expand and compress steps of a group (a warp or a
 * block), and each stage's entry point: setup (spgemm_esc_setup.cu), the
 * sorted tiers and rows sorted in global memory (spgemm_esc_sort.cu), the
 * dense rows (spgemm_esc_dense.cu). Each stage is instantiated for fp64
 * and fp32 in its own file. */
#ifndef SPB_SPGEMM_ESC_CUH
#define SPB_SPGEMM_ESC_CUH

#include <limits.h>

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
 * the class-sorted rows (tier_first_class: spgemm_esc_setup.cu). */
#define TIERS 10

/* A product of at most SMALL_SETUP_ROWS rows is set up (and its C's row
 * pointers scanned) by one block: spgemm_esc_setup.cu says why. */
#ifndef SMALL_SETUP_ROWS /* a build may set another, to measure the paths against each other */
#define SMALL_SETUP_ROWS 4096
#endif
#define SMALL_SETUP_THREADS 1024

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

/* A dense row's accumulator and flags in dynamic shared memory: n values,
 * then a flag bit per column. */
template <class T> static __host__ __device__ size_t dense_shared_bytes(int n)
{
    return sizeof(T) * (size_t)n + sizeof(unsigned) * (size_t)((n + WARP - 1) / WARP);
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

/* ---- the stages ---------------------------------------------------------------------- */

/* Products per row, offsets, rows sorted by size class; the tier bounds,
 * m and the product's products (bounds[TIERS + 1]) read back to the host in
 * one copy. Nonzero on failure, recorded in s. */
template <class T> int esc_setup(gpu_spgemm_state *s, esc_work<T> *w, int *bounds);
/* C's row pointers, the exclusive sum of the rows' counts, into row_ptr. */
template <class T> int esc_row_pointers(gpu_spgemm_state *s, esc_work<T> *w, int *row_ptr);
/* The rows of up to 2048 products: the thread, warp and block tiers. */
template <class T>
int esc_sorted_tiers(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *bounds);
/* The rows of [from, to) of the work order expanded, sorted and compressed
 * in global memory. */
template <class T>
int esc_global_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, int from, int to);
/* Rows of 2049-8192 products, each dense in its block's shared memory. */
template <class T>
int esc_dense_rows(gpu_spgemm_state *s, const esc_args<T> &g, const int *rows, int count);
/* Rows past SLICE_PRODUCTS, dense in slices: accumulated on chip or in
 * global memory, then written out. */
template <class T>
int esc_sliced_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *rows,
                    int count, bool on_chip);
/* Once per row, before its products: the widest B a dense row keeps on
 * chip, and the dense kernels allowed the shared memory it takes. */
spb_status esc_device_setup(gpu_spgemm_state *s, char *msg);

/* Each stage's two instantiations, at the end of its file. */
#define ESC_INSTANTIATE(declaration)                                                               \
    template declaration(float);                                                                   \
    template declaration(double)

#endif
