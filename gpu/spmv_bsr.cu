/* spmv_bsr.cu — bsr.cuda: spbench's own product on block compressed rows
 * (the cut cusparse.bsr takes: the block size of 2, 3, 4, 6 or 8 that
 * moves the fewest bytes), and its row of the device table. A matrix of
 * dense blocks (a FEM mesh's degrees of freedom) reads one column index a
 * block instead of one an entry: 8 + 4/b^2 bytes an fp64 entry for CSR's
 * 12. */
#include <stdio.h>

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

/* f.template operator()<B>() at the block size setup chose, one of
 * BSR_BLOCK_SIZES (setup declined every other). */
template <class F> static void at_block_size(int block, F &&f)
{
    switch (block) {
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 6: f.template operator()<6>(); break;
    case 8: f.template operator()<8>(); break;
    default: break;
    }
}

/* One product at the block size chosen in setup. */
template <typename T> static void launch_bsr(gpu_state *s)
{
    const bsr_data *d = gpu_family<bsr_data>(s);
    at_block_size(d->block, [&]<int B>() { launch_blocks<T, B>(s, d); });
}

/* A block's B entries of x (xb, B-aligned) as 16-byte loads where they
 * divide into them (8-byte for fp32 pairs), else one by one. */
template <typename T, int B> static __device__ void load_block_x(const T *xb, T (&xv)[B])
{
    if constexpr (sizeof(T) == 8 && B % 2 == 0) {
#pragma unroll
        for (int q = 0; q < B / 2; q++) {
            const double2 d = __ldg(reinterpret_cast<const double2 *>(xb) + q);
            xv[2 * q] = d.x, xv[2 * q + 1] = d.y;
        }
    } else if constexpr (sizeof(T) == 4 && B % 4 == 0) {
#pragma unroll
        for (int q = 0; q < B / 4; q++) {
            const float4 f = __ldg(reinterpret_cast<const float4 *>(xb) + q);
            xv[4 * q] = f.x, xv[4 * q + 1] = f.y, xv[4 * q + 2] = f.z, xv[4 * q + 3] = f.w;
        }
    } else if constexpr (sizeof(T) == 4 && B % 2 == 0) {
#pragma unroll
        for (int q = 0; q < B / 2; q++) {
            const float2 f = __ldg(reinterpret_cast<const float2 *>(xb) + q);
            xv[2 * q] = f.x, xv[2 * q + 1] = f.y;
        }
    } else {
#pragma unroll
        for (int j = 0; j < B; j++) xv[j] = xb[j];
    }
}

/* bsr.cuda.sliced — one thread per row on BSR's block rows in slices
 * (formats/bsr.h's spb_bsr_sliced): at each step a thread reads its row of
 * one block, B values each coalesced across the slice's rows, B entries of
 * x that the block row's B threads share, and one block column that they
 * share too: B*B values per column index, as BSR moves, on HLL's
 * coalesced one-row-a-thread walk. Rows past m are not run. */
template <typename T, int B>
static __device__ __forceinline__ void
bsr_sliced_rows(int m, int brows, int slice, const int *__restrict__ slice_ptr,
                const int *__restrict__ slice_width, const int *__restrict__ block_cols,
                const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    const long long row = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    const int brow = (int)(row / B), i = (int)(row - (long long)brow * B);
    const int sl = brow / slice, r = brow - sl * slice;
    const int rows = min(slice, brows - sl * slice), first = slice_ptr[sl], width = slice_width[sl];
    const int *cols = block_cols + first + r;
    const long long column = (long long)rows * B; /* from value (k, j) to (k, j + 1) */
    const T *v = val + (long long)first * (B * B) + r * B + i;
    T sum = 0;
#pragma unroll 4
    for (int k = 0; k < width; k++) {
        const T *xb = x + (long long)cols[(long long)k * rows] * B;
        const T *vk = v + k * B * column;
        /* blocks of 4 and more: x in vector loads, one per two or four
         * entries (H100: 4x4 fp32 ran 1.28x faster so, 6x6 fp32 1.15x, 8x8
         * fp32 2.4x, fp64 1.02-1.13x; one by one, 4x4 fp32 had 102
         * long-scoreboard stalls per issue); of 2, one by one (fp64 ran
         * 0.96x with pairs, fp32 1.01x) */
        if constexpr (B >= 4) {
            T xv[B];
            load_block_x<T, B>(xb, xv);
#pragma unroll
            for (int j = 0; j < B; j++) sum += vk[j * column] * xv[j];
        } else {
#pragma unroll
            for (int j = 0; j < B; j++) sum += vk[j * column] * xb[j];
        }
    }
    y[row] = sum;
}

/* bsr.cuda.sliced's kernels: blocks of up to 6 capped at 48 registers a
 * thread (6x6 fp64 took 54: four 256-thread blocks an SM, five so). On an
 * H100, A/B in one run: 1.02-1.14x faster on 13 of 14 FEM products (6x6
 * fp64 1.14x), 0.95x on 3x3 fp64 gen:fem:40:3 (52 us); blocks of 8 keep
 * the compiler's 52-56 (capped they ran 0.96x fp64, 0.72x fp32). */
#define BSR_SLICED_REGS 48
template <typename T, int B>
static __global__ void __launch_bounds__(MAX_BLOCK)
    bsr_sliced_kernel(int m, int brows, int slice, const int *__restrict__ slice_ptr,
                      const int *__restrict__ slice_width, const int *__restrict__ block_cols,
                      const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    bsr_sliced_rows<T, B>(m, brows, slice, slice_ptr, slice_width, block_cols, val, x, y);
}
template <typename T, int B>
static __global__ void __maxnreg__(BSR_SLICED_REGS)
    bsr_sliced_kernel_capped(int m, int brows, int slice, const int *__restrict__ slice_ptr,
                             const int *__restrict__ slice_width,
                             const int *__restrict__ block_cols, const T *__restrict__ val,
                             const T *__restrict__ x, T *__restrict__ y)
{
    bsr_sliced_rows<T, B>(m, brows, slice, slice_ptr, slice_width, block_cols, val, x, y);
}

/* Block rows per slice: a slice's rows are B times as many (a warp and
 * more for every block size), and a slice pads to its longest block row. */
#define BSR_SLICE_BROWS 32

/* What bsr.cuda.sliced prepares: the block size chosen; the slices'
 * offsets and widths sit in the state's hack arrays. */
struct bsr_sliced_data {
    int block;
};

template <typename T, int B> static void launch_sliced_blocks(gpu_state *s)
{
    (B <= 6 ? bsr_sliced_kernel_capped<T, B>
            : bsr_sliced_kernel<T, B>)<<<gpu_grid(s, 1), s->block_size, 0, s->stream>>>(
        s->m, (s->m + B - 1) / B, BSR_SLICE_BROWS, s->d_hack_ptr, s->d_hack_width, s->d_col_idx,
        (const T *)s->d_val, (const T *)s->d_x, (T *)s->d_y);
}

template <typename T> static void launch_sliced(gpu_state *s)
{
    const bsr_sliced_data *d = gpu_family<bsr_sliced_data>(s);
    at_block_size(d->block, [&]<int B>() { launch_sliced_blocks<T, B>(s); });
}

/* The format set's BSR (s->bsr: the cut bsr.cuda and cusparse.bsr take),
 * sliced on the host and uploaded: slice offsets and
 * widths to the hack arrays, block columns and values to the state's. */
static spb_status setup_sliced(gpu_state *s, const spb_csr *A, char *msg)
{
    bsr_sliced_data *d = gpu_family_new<bsr_sliced_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    const spb_index block = s->bsr->block;
    spb_bsr_sliced S;
    spb_status st = bsr_slice(s->bsr, BSR_SLICE_BROWS, &S, msg);
    if (st == SPB_OK) /* the slices' padding: up to 33x the BSR on a graph */
        st = gpu_check_fits(bsr_sliced_spmv_bytes(&S, s->precision) + GPU_FIT_SLACK, msg);
    if (st != SPB_OK) {
        bsr_sliced_free(&S);
        return st;
    }
    if (gpu_upload(s, (void **)&s->d_hack_ptr, S.ptr, (size_t)S.nslices + 1, sizeof(int)) ||
        gpu_upload(s, (void **)&s->d_hack_width, S.width, (size_t)S.nslices, sizeof(int)) ||
        gpu_upload(s, (void **)&s->d_col_idx, S.col_idx, (size_t)S.ptr[S.nslices], sizeof(int)) ||
        gpu_upload_values(s, S.val, NULL, (size_t)bsr_sliced_stored(&S)))
        st = gpu_state_fail(s, msg);
    d->block = (int)block;
    s->stored = bsr_sliced_stored(&S);
    s->plan_bytes = bsr_sliced_spmv_bytes(&S, s->precision);
    if (st == SPB_OK) /* the row's message: which cut, and the zeros it stores */
        snprintf(msg, SPB_MSG_LEN,
                 "BSR %dx%d blocks in slices of %d block rows: %.2f stored entries per entry",
                 (int)block, (int)block, BSR_SLICE_BROWS,
                 A->nnz ? (double)s->stored / A->nnz : 0.0);
    bsr_sliced_free(&S);
    return st;
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

static const gpu_variant bsr_v = {.format = SPB_FORMAT_BSR,
                                  .default_block = BSR_BLOCK,
                                  .warp_multiple = 1,
                                  .setup = setup_bsr,
                                  .launch = GPU_LAUNCH(launch_bsr),
                                  .own_upload = 1};

static const gpu_variant sliced_v = {.format = SPB_FORMAT_BSR,
                                     .default_block = BSR_BLOCK,
                                     .setup = setup_sliced,
                                     .launch = GPU_LAUNCH(launch_sliced),
                                     .own_upload = 1};

extern const spb_spmv_kernel gpu_bsr_kernels[] = {
    GPU_SPMV_KERNEL("bsr.cuda", "bsr",
                    "BSR at the block size of 2, 3, 4, 6 or 8 that moves the fewest bytes (as "
                    "cusparse.bsr), a thread group per block row reading its values in order, "
                    "a sum per row of the block",
                    &bsr_v),
    GPU_SPMV_KERNEL("bsr.cuda.sliced", "bsr",
                    "BSR as bsr.cuda cuts it, block rows in slices of 32 laid out column-major "
                    "(HLL's coalesced walk over blocks): one thread per row, one block column "
                    "read per block, x in vector loads for blocks of 4 and more",
                    &sliced_v),
};
extern const int gpu_bsr_kernel_count = (int)(sizeof gpu_bsr_kernels / sizeof gpu_bsr_kernels[0]);
