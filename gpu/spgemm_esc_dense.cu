/* spgemm_esc_dense.cu — spgemm.cuda.esc's dense rows: a row too long to
 * sort on chip summed into an accumulator per column of B, in its block's
 * shared memory, or past SLICE_PRODUCTS shared out among blocks (on chip
 * or in global memory) and gathered in column order. */
#include "spgemm_esc.cuh"

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

spb_status esc_device_setup(gpu_spgemm_state *s, char *msg)
{
    return s->precision == SPB_FP32 ? esc_device_setup_in<float>(s, msg)
                                    : esc_device_setup_in<double>(s, msg);
}

template <class T>
int esc_dense_rows(gpu_spgemm_state *s, const esc_args<T> &g, const int *rows, int count)
{
    const int n = s->B.n;
    if (count > 0) dense_rows_kernel<T><<<count, BLOCK, dense_shared_bytes<T>(n)>>>(g, rows, n);
    return gpu_cuda_failed(&s->core, cudaGetLastError(), "kernel launch");
}

template <class T>
int esc_sliced_rows(gpu_spgemm_state *s, esc_work<T> *w, const esc_args<T> &g, const int *rows,
                    int count, bool on_chip)
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

#define ESC_DENSE_ROWS(T)                                                                          \
    int esc_dense_rows<T>(gpu_spgemm_state *, const esc_args<T> &, const int *, int)
#define ESC_SLICED_ROWS(T)                                                                         \
    int esc_sliced_rows<T>(gpu_spgemm_state *, esc_work<T> *, const esc_args<T> &, const int *,    \
                           int, bool)
ESC_INSTANTIATE(ESC_DENSE_ROWS);
ESC_INSTANTIATE(ESC_SLICED_ROWS);
