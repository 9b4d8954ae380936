/* spmv_colblock.cu — column blocking on the GPU and its row of the device
 * table: A split in prepare into column panels, each a CSR over all rows
 * whose slice of x fits in half the L2, so x's gathers hit the cache; the
 * first panel writes y, each further one adds to it. */
#include <stdio.h>
#include <string.h>

#include "reduce.cuh"

#define COLBLOCK_BLOCK 256 /* threads per block (default) */

/* What csr.cuda.colblock prepares beyond the panels' CSR (uploaded in
 * gpu_state in place of A's): the panels' count and each one's
 * threads per row (host side: the launches read them). */
struct colblock_data {
    int panels;
    int *panel_lanes;
};

/* csr.cuda.colblock's kernel: one column panel, `lanes` threads per row
 * (a power of two from the panel's mean row length), each row's panel sum
 * written to y (the first panel) or added to it. blockDim.x is a multiple
 * of 32: every lane reaches the shuffles. */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    panel_rows_kernel(int m, int lanes, const int *__restrict__ row_ptr,
                      const int *__restrict__ col_idx, const T *__restrict__ val,
                      const T *__restrict__ x, T *__restrict__ y, int accumulate)
{
    long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long row = tid / lanes;
    int lane = (int)(tid % lanes), begin = 0, end = 0;
    if (row < m) {
        begin = row_ptr[row];
        end = row_ptr[row + 1];
    }
    T sum = 0;
    for (int k = begin + lane; k < end; k += lanes) sum += val[k] * x[col_idx[k]];
    for (int offset = lanes / 2; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
    if (row < m && lane == 0) y[row] = accumulate ? y[row] + sum : sum;
}

/* One product: a launch per panel, in panel order. */
template <typename T> static void launch_colblock(gpu_state *s)
{
    const colblock_data *d = gpu_family<colblock_data>(s);
    for (int p = 0; p < d->panels; p++) {
        const int lanes = d->panel_lanes[p];
        panel_rows_kernel<T><<<gpu_grid(s, lanes), s->block_size, 0, s->stream>>>(
            s->m, lanes, s->d_row_ptr + (size_t)p * ((size_t)s->m + 1), s->d_col_idx,
            (const T *)s->d_val, (const T *)s->d_x, (T *)s->d_y, p > 0);
    }
}

/* csr.cuda.colblock: panels as wide as half the L2 holds of x; declined
 * when x fits there already. The panels are uploaded in place of the CSR;
 * each panel's group size is half its mean row length rounded up to a
 * power of two (1..32). */
static spb_status setup_colblock(gpu_state *s, const spb_csr *A, char *msg)
{
    const double l2 = s->cache_bytes;
    double width = l2 / 2 / s->value_bytes;
    if (!(width >= 1)) return spb_fail(msg, SPB_ERR_DECLINED, "the size of the L2 is unknown");
    if (A->n <= width)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "x (%.1f MiB) fits in half the L2 (%.1f MiB): nothing to block",
                        (double)A->n * s->value_bytes / 1048576.0, l2 / 1048576.0);
    colblock_data *d = gpu_family_new<colblock_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    d->panels = (int)((A->n + (int64_t)width - 1) / (int64_t)width);
    d->panel_lanes = (int *)spb_calloc((size_t)d->panels, sizeof(int));
    if (!d->panel_lanes) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the panels");
    int *row_ptr = NULL, *col_idx = NULL;
    void *val = NULL;
    spb_status st = csr_col_panels_joined(A, d->panels, (spb_index)width, s->precision, &row_ptr,
                                          &col_idx, &val, msg);
    for (int p = 0; st == SPB_OK && p < d->panels; p++) {
        const int *rp = row_ptr + (size_t)p * ((size_t)A->m + 1);
        double mean = A->m > 0 ? (double)(rp[A->m] - rp[0]) / A->m : 1.0;
        int lanes = 1;
        while (lanes < WARP && 2.0 * lanes < mean) lanes *= 2;
        d->panel_lanes[p] = lanes;
    }
    if (st == SPB_OK) {
        if (gpu_upload(s, (void **)&s->d_row_ptr, row_ptr, (size_t)d->panels * (A->m + 1),
                       sizeof(int)) ||
            gpu_upload(s, (void **)&s->d_col_idx, col_idx, (size_t)A->nnz, sizeof(int)) ||
            gpu_upload(s, &s->d_val, val, (size_t)A->nnz, s->value_bytes))
            st = gpu_state_fail(s, msg);
    }
    if (st == SPB_OK)
        s->plan_bytes = csr_col_panels_spmv_bytes(A->m, A->n, A->nnz, d->panels, s->precision);
    spb_free(row_ptr);
    spb_free(col_idx);
    spb_free(val);
    return st;
}

static void release_colblock(gpu_state *s) { spb_free(gpu_family<colblock_data>(s)->panel_lanes); }

static const gpu_variant colblock_v = {.format = SPB_FORMAT_CSR,
                                       .default_block = COLBLOCK_BLOCK,
                                       .warp_multiple = 1,
                                       .setup = setup_colblock,
                                       .launch = GPU_LAUNCH(launch_colblock),
                                       .own_upload = 1,
                                       .release = release_colblock};

extern const spb_spmv_kernel gpu_colblock_kernels[] = {
    GPU_SPMV_KERNEL(
        "csr.cuda.colblock", "csr",
        "CSR in column panels whose x fits in half the L2, a thread group per row sized to "
        "each panel, y accumulated panel by panel (declines a matrix whose x fits already)",
        &colblock_v),
};
extern const int gpu_colblock_kernel_count =
    (int)(sizeof gpu_colblock_kernels / sizeof gpu_colblock_kernels[0]);
