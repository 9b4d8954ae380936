/* spgemm_esc_setup.cu — spgemm.cuda.esc's setup: products per row, the
 * rows ordered by size class, their offsets and the tiers' bounds; and C's
 * row pointers from the rows' counts. */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "spgemm_esc.cuh"

static __constant__ int tier_first_class[TIERS] = {1, 6, 7, 8, 9, 10, 11, 12, 13, 15};

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

/* One block after the products kernel: the offsets' scan, the rows' stable
 * order by class and the tier bounds in one launch where cub's scan and
 * sort take five or six (a launch costs the host about 4 us on an H200,
 * scripts/dev/api_costs.cu, and a small product is mostly launches); C's
 * row pointers likewise. The block's work grows with the rows: against
 * cub's on gen:random:M:8 (H200, whole products, in turns) it saved 22 us
 * at 2048 rows and 4-6 us at 4096-6144, and cost 11-25 us from 8192 to
 * 16384 (SMALL_SETUP_ROWS). */
#define CLASSES (1 << CLASS_BITS)

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

template <class T> int esc_setup(gpu_spgemm_state *s, esc_work<T> *w, int *bounds)
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

template <class T> int esc_row_pointers(gpu_spgemm_state *s, esc_work<T> *w, int *row_ptr)
{
    const int m = s->A.m;
    size_t bytes = 0;
    if (m <= SMALL_SETUP_ROWS) {
        small_scan_kernel<<<1, SMALL_SETUP_THREADS>>>(w->c_count, m, row_ptr);
        return gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
    }
    GPU_TRY(&s->core, cub::DeviceScan::ExclusiveSum(NULL, bytes, w->c_count, row_ptr, m + 1),
            "cub::DeviceScan");
    if (ensure_temp(s, w, bytes)) return 1;
    GPU_TRY(&s->core, cub::DeviceScan::ExclusiveSum(w->temp, bytes, w->c_count, row_ptr, m + 1),
            "cub::DeviceScan");
    return 0;
fail:
    return 1;
}

#define ESC_SETUP(T)        int esc_setup<T>(gpu_spgemm_state *, esc_work<T> *, int *)
#define ESC_ROW_POINTERS(T) int esc_row_pointers<T>(gpu_spgemm_state *, esc_work<T> *, int *)
ESC_INSTANTIATE(ESC_SETUP);
ESC_INSTANTIATE(ESC_ROW_POINTERS);
