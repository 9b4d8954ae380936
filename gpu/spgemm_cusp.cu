/* spgemm_cusp.cu — CUSP's cusp::multiply as a SpGEMM baseline row: its
 * expand-sort-compress product on A and B (COO views of the device CSR,
 * their row indices expanded in the product; see cusp/adapter.cu for why
 * COO), the product the suite's seed paper compared against. CUSP
 * allocates its C itself (not
 * from the stream-ordered pool); the whole product includes that, and the
 * device copy of C into the row's arrays (12 bytes an entry and the row
 * offsets), which the kernel time leaves out. The call into CUSP is in
 * cusp/adapter.cu; without CUSP the row says it was not built with it. */
#include <cstdio>

#include "cusp/adapter.h"
#include "spgemm_state.cuh"

#ifdef SPB_HAVE_CUSP

static cusp_device_csr device_csr(const gpu_csr &M)
{
    return cusp_device_csr{M.m, M.n, M.nnz, M.row_ptr, M.col_idx, values_of<double>(M)};
}

/* CUSP's C into the row's arrays; nonzero on failure (recorded in s). */
static int take_c(gpu_spgemm_state *s, const cusp_device_csr &C)
{
    if (spgemm_alloc_c(s, C.nnz)) return 1;
    GPU_TRY(&s->core,
            cudaMemcpyAsync(s->C.row_ptr, C.row_ptr, sizeof(int) * ((size_t)s->C.m + 1),
                            cudaMemcpyDeviceToDevice),
            "cudaMemcpyAsync C");
    GPU_TRY(&s->core,
            cudaMemcpyAsync(s->C.col_idx, C.col_idx, sizeof(int) * (size_t)C.nnz,
                            cudaMemcpyDeviceToDevice),
            "cudaMemcpyAsync C");
    GPU_TRY(
        &s->core,
        cudaMemcpyAsync(s->C.val, C.val, sizeof(double) * (size_t)C.nnz, cudaMemcpyDeviceToDevice),
        "cudaMemcpyAsync C");
    GPU_TRY(&s->core, cudaStreamSynchronize(0), "cudaStreamSynchronize"); /* before C is freed */
    return 0;
fail:
    return 1;
}

/* CUSP's failure as the row's. Where CUSP did not give back the memory it
 * took before failing (seen on gen:hubs:45000:8:1:17663: about 72 GiB of
 * 79 stayed taken), the message says how little is left: every row after
 * it in this process has that much less. */
static void cusp_failed(gpu_spgemm_state *s, spb_status st, const char *msg)
{
    s->core.error = st; /* out of memory stays SPB_ERR_NOMEM: the run tries the row alone */
    size_t free = 0, total = 0;
    cudaDeviceSynchronize();
    cudaMemPool_t pool;
    if (cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess) cudaMemPoolTrimTo(pool, 0);
    if (cudaMemGetInfo(&free, &total) == cudaSuccess && free < total / 2)
        snprintf(s->core.error_msg, sizeof s->core.error_msg,
                 "%.300s; after it failed, %.1f GiB of %.1f are free: CUSP kept what it took, "
                 "and the rows after it in this process have that much less",
                 msg, free / 1073741824.0, total / 1073741824.0);
    else
        snprintf(s->core.error_msg, sizeof s->core.error_msg, "%s", msg);
}

static void cusp_product(gpu_spgemm_state *s)
{
    cusp_device_csr A = device_csr(s->A), B = device_csr(s->B), C = {};
    void *held = NULL;
    char msg[SPB_MSG_LEN] = "";
    spb_status st;
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_start), "cudaEventRecord");
    st = cusp_spgemm(&A, &B, &held, &C, msg);
    if (st != SPB_OK) {
        cusp_failed(s, st, msg);
        return;
    }
    GPU_TRY(&s->core, cudaEventRecord(s->kernel_stop), "cudaEventRecord");
    if (take_c(s, C) == 0) spgemm_record_kernel_time(s);
fail:
    cusp_free_product(held);
}

static spb_status cusp_setup(gpu_spgemm_state *s, char *msg)
{
    (void)s;
    (void)msg;
    return SPB_OK;
}

#else

static void cusp_product(gpu_spgemm_state *s) { (void)s; }

static spb_status cusp_setup(gpu_spgemm_state *s, char *msg)
{
    (void)s;
    return spb_fail(msg, SPB_ERR_DECLINED, SPB_CUSP_NOT_BUILT);
}

#endif

static const gpu_spgemm_variant cusp_spgemm_v = {0, 0, cusp_product, 0, cusp_setup, 1};

const spb_spgemm_kernel gpu_spgemm_cusp_kernels[] = {
    /* timed alone: where CUSP fails it keeps the device memory it took */
    GPU_SPGEMM_KERNEL_FULL("cusp.spgemm",
                           "CUSP cusp::multiply on COO views of the device CSR: expand, sort and "
                           "compress the products (the seed paper's comparison)",
                           &cusp_spgemm_v, gpu_cusp_supports, 1, 0, 1, 0),
};
const int gpu_spgemm_cusp_kernel_count =
    (int)(sizeof gpu_spgemm_cusp_kernels / sizeof gpu_spgemm_cusp_kernels[0]);
