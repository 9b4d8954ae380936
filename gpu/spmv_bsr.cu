/* spmv_bsr.cu — bsr.cuda: spbench's own product on block compressed rows
 * (the cut cusparse.bsr takes: the block size of 2, 3, 4, 6 or 8 that
 * moves the fewest bytes), and its row of the device table. A matrix of
 * dense blocks (a FEM mesh's degrees of freedom) reads one column index a
 * block instead of one an entry: 8 + 4/b^2 bytes an fp64 entry for CSR's
 * 12. */
#include "spmv_state.cuh"

#define BSR_BLOCK 256 /* threads per block (default) */

/* What bsr.cuda prepares beyond the uploaded blocks: their size and the
 * threads that share a block row. */
struct bsr_data {
    int block;
    int lanes;
};

/* A group of `lanes` threads per block row walks the row's values in
 * storage order, so consecutive threads read consecutive values (blocks
 * whole, row-major: value o of the block row lies in block o / B^2, at row
 * (o % B^2) / B and column o % B of it). Each thread keeps B sums, one per
 * row of the block, and adds its product to the one its value belongs to;
 * the group's sums are then reduced per row. blockDim.x is a multiple of
 * 32: every lane reaches the shuffles. Rows past m (the last block row's
 * padding) are not written. */
template <typename T, int B>
static __global__ void __launch_bounds__(MAX_BLOCK)
    bsr_rows_kernel(int brows, int m, int lanes, const int *__restrict__ block_ptr,
                    const int *__restrict__ block_cols, const T *__restrict__ val,
                    const T *__restrict__ x, T *__restrict__ y)
{
    constexpr int BB = B * B;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long brow = tid / lanes;
    const int lane = (int)(tid % lanes);
    long long first = 0, count = 0;
    if (brow < brows) {
        first = block_ptr[brow];
        count = ((long long)block_ptr[brow + 1] - first) * BB;
    }
    const T *row_val = val + first * BB;
    const int *row_cols = block_cols + first;
    T sum[B];
#pragma unroll
    for (int r = 0; r < B; r++) sum[r] = T(0);
#pragma unroll 4
    for (long long o = lane; o < count; o += lanes) {
        const long long k = o / BB;
        const int within = (int)(o - k * BB), r = within / B, c = within - r * B;
        const T p = row_val[o] * x[(long long)row_cols[k] * B + c];
#pragma unroll
        for (int i = 0; i < B; i++) sum[i] += i == r ? p : T(0);
    }
#pragma unroll
    for (int i = 0; i < B; i++)
        for (int offset = lanes / 2; offset > 0; offset >>= 1)
            sum[i] += __shfl_down_sync(0xffffffffu, sum[i], offset, lanes);
    if (brow < brows && lane == 0) {
#pragma unroll
        for (int i = 0; i < B; i++)
            if (brow * B + i < m) y[brow * B + i] = sum[i];
    }
}

template <typename T, int B> static void launch_blocks(gpu_state *s, const bsr_data *d)
{
    const int brows = (s->m + B - 1) / B;
    bsr_rows_kernel<T, B><<<gpu_blocks_for((long long)brows * d->lanes, s->block_size),
                            s->block_size, 0, s->stream>>>(brows, s->m, d->lanes, s->d_row_ptr,
                                                           s->d_col_idx, (const T *)s->d_val,
                                                           (const T *)s->d_x, (T *)s->d_y);
}

/* One product at the block size chosen in setup (BSR_BLOCK_SIZES). */
template <typename T> static void launch_bsr(gpu_state *s)
{
    const bsr_data *d = gpu_family<bsr_data>(s);
    switch (d->block) {
    case 2: launch_blocks<T, 2>(s, d); break;
    case 3: launch_blocks<T, 3>(s, d); break;
    case 4: launch_blocks<T, 4>(s, d); break;
    case 6: launch_blocks<T, 6>(s, d); break;
    case 8: launch_blocks<T, 8>(s, d); break;
    default: break; /* setup declined every other size */
    }
}

/* The blocks uploaded in place of the CSR; the threads a block row gets: a
 * power of two up to a warp, about a quarter of the row's mean stored
 * values (each thread then walks about four of them). */
static spb_status setup_bsr(gpu_state *s, const spb_csr *A, char *msg)
{
    bsr_data *d = gpu_family_new<bsr_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    spb_status st = gpu_upload_bsr(s, A, &s->d_row_ptr, &s->d_col_idx, &d->block, msg);
    if (st != SPB_OK) return st;
    if (d->block != 2 && d->block != 3 && d->block != 4 && d->block != 6 && d->block != 8)
        return spb_fail(msg, SPB_ERR_DECLINED, "no kernel for %dx%d blocks", d->block, d->block);
    const long long brows = ((long long)A->m + d->block - 1) / d->block;
    const double mean = brows > 0 ? (double)s->stored / (double)brows : 1.0;
    d->lanes = 1;
    while (d->lanes < WARP && 4.0 * d->lanes < mean) d->lanes *= 2;
    return SPB_OK;
}

static const gpu_variant bsr_v = {.format = SPB_FORMAT_CSR,
                                  .default_block = BSR_BLOCK,
                                  .warp_multiple = 1,
                                  .setup = setup_bsr,
                                  .launch = GPU_LAUNCH(launch_bsr),
                                  .own_upload = 1};

extern const spb_spmv_kernel gpu_bsr_kernels[] = {
    GPU_SPMV_KERNEL("bsr.cuda", "bsr",
                    "BSR at the block size of 2, 3, 4, 6 or 8 that moves the fewest bytes (as "
                    "cusparse.bsr), a thread group per block row reading its values in order, "
                    "a sum per row of the block",
                    &bsr_v),
};
extern const int gpu_bsr_kernel_count = (int)(sizeof gpu_bsr_kernels / sizeof gpu_bsr_kernels[0]);
