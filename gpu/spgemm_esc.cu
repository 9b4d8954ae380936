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
 * Every kernel is a template on the value type (fp64 and fp32). The stages
 * live in spgemm_esc_setup.cu, spgemm_esc_sort.cu and spgemm_esc_dense.cu
 * (what they share: spgemm_esc.cuh); this file runs them in order and
 * packs C. */
#include "spgemm_esc.cuh"

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

/* Each tier's rows, the product kernels proper (timed apart). Rows past
 * 2048 products are dense on chip while B's row takes at most
 * DENSE_ROW_BYTES, and past SLICE_PRODUCTS as dense_slices_kernel says;
 * the others are sorted in global memory. */
template <class T>
static int esc_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *bounds)
{
    if (esc_sorted_tiers(s, w, g, bounds)) return 1;
    const int n = s->B.n, sliced = bounds[10] - bounds[9], on_chip = n <= s->dense_cols;
    const int sliced_dense =
        on_chip ||
        (n <= GLOBAL_DENSE_COLS && (double)sliced * n <= GLOBAL_DENSE_SHARE * (double)w->total);
    if (n > s->dense_cols || dense_shared_bytes<T>(n) > DENSE_ROW_BYTES) {
        if (esc_global_rows(s, w, g, bounds[8], sliced_dense ? bounds[9] : bounds[10])) return 1;
    } else if (esc_dense_rows(s, g, w->order + bounds[8], bounds[9] - bounds[8])) {
        return 1;
    }
    return sliced_dense ? esc_sliced_rows(s, w, g, w->order + bounds[9], sliced, on_chip) : 0;
}

/* C's row pointers from the counts, then its arrays, packed in row order. */
template <class T> static void esc_pack(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g)
{
    const int m = s->A.m;
    int nnz = 0;
    s->C.m = m;
    s->C.n = s->B.n;
    if (spgemm_alloc(s, (void **)&s->C.row_ptr, sizeof(int) * ((size_t)m + 1))) return;
    if (esc_row_pointers(s, w, s->C.row_ptr)) return;
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
    /* the long rows' working arrays let go (in stream order) before C takes
     * its memory: the product's peak is then the larger of the two, not
     * their sum (cnr-2000 A*A: C alone is 0.41 GB in fp64) */
    spgemm_free(w.global_block);
    spgemm_free(w.global_sort_block);
    spgemm_free(w.sliced_block);
    w.global_block = w.global_sort_block = w.sliced_block = NULL;
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
