/* spmv_cusp.cu — CUSP's SpMV kernels as baseline rows: Bell & Garland's CSR
 * vector kernel on the uploaded CSR, and their ELL and HYB kernels on CUSP's
 * own containers, converted from it on the device in prepare (a matrix
 * whose ELL would pad too much is declined, as CUSP declines it). The calls
 * into CUSP are in cusp/adapter.cu; without CUSP (SPB_HAVE_CUSP unset) the
 * rows say they were not built with it. CUSP launches on the default
 * stream: its execution policies do not compile with Thrust 3. */
#include <cstdio>

#include "cusp/adapter.h"
#include "spmv_state.cuh"

extern "C" const char *gpu_cusp_version(void)
{
#ifdef SPB_HAVE_CUSP
    return cusp_version();
#else
    return NULL;
#endif
}

int gpu_cusp_supports(const spb_kernel *self, const spb_csr *A, char *why)
{
#ifdef SPB_HAVE_CUSP
    return gpu_kernel_supports(self, A, why);
#else
    (void)self;
    (void)A;
    spb_fail(why, SPB_ERR_DECLINED, SPB_CUSP_NOT_BUILT);
    return 0;
#endif
}

/* What an ELL or HYB row prepares (gpu_state.family): CUSP's matrix. */
struct cusp_data {
    void *matrix;
};

#ifdef SPB_HAVE_CUSP
static cusp_device_csr device_csr(const gpu_state *s)
{
    return cusp_device_csr{s->m, s->n, (int)s->nnz, s->d_row_ptr, s->d_col_idx, s->d_val};
}
#endif

static spb_status setup_cusp(gpu_state *s, const spb_csr *A, char *msg)
{
    (void)A;
#ifdef SPB_HAVE_CUSP
    cusp_format format = (cusp_format)s->variant->param;
    if (format == CUSP_CSR) return SPB_OK;
    cusp_data *d = gpu_family_new<cusp_data>(s);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    cusp_device_csr csr = device_csr(s);
    double bytes = 0;
    spb_status st = cusp_convert(&csr, s->precision == SPB_FP32, format, &d->matrix, &bytes, msg);
    if (st == SPB_OK) s->plan_bytes = bytes + (double)s->value_bytes * ((double)s->m + s->n);
    return st;
#else
    (void)s;
    return spb_fail(msg, SPB_ERR_DECLINED, SPB_CUSP_NOT_BUILT);
#endif
}

static void launch_cusp(gpu_state *s)
{
#ifdef SPB_HAVE_CUSP
    cusp_device_csr csr = device_csr(s);
    void *matrix = s->family ? gpu_family<cusp_data>(s)->matrix : NULL;
    char msg[SPB_MSG_LEN] = "";
    spb_status st = cusp_spmv(&csr, s->precision == SPB_FP32, (cusp_format)s->variant->param,
                              matrix, s->d_x, s->d_y, msg);
    if (st != SPB_OK && s->error == SPB_OK) {
        s->error = st;
        snprintf(s->error_msg, sizeof s->error_msg, "%s", msg);
    }
#else
    (void)s;
#endif
}

static void release_cusp(gpu_state *s)
{
#ifdef SPB_HAVE_CUSP
    cusp_data *d = gpu_family<cusp_data>(s);
    if (d->matrix)
        cusp_free_matrix(d->matrix, s->precision == SPB_FP32, (cusp_format)s->variant->param);
#else
    (void)s;
#endif
}

/* One launch for both precisions: the adapter takes the type from the state. */
#define CUSP_VARIANT(kind)                                                                         \
    {                                                                                              \
        .format = SPB_FORMAT_CSR, .param = kind, .setup = setup_cusp,                              \
        .launch = {launch_cusp, launch_cusp}, .release = release_cusp                              \
    }
static const gpu_variant csr_v = CUSP_VARIANT(CUSP_CSR);
static const gpu_variant ell_v = CUSP_VARIANT(CUSP_ELL);
static const gpu_variant hyb_v = CUSP_VARIANT(CUSP_HYB);

extern const spb_spmv_kernel gpu_cusp_kernels[] = {
    GPU_SPMV_LIBRARY_IF("cusp.csr", "csr",
                        "CUSP cusp::multiply on CSR: Bell & Garland's vector kernel (a share of a "
                        "warp per row)",
                        &csr_v, gpu_cusp_supports),
    GPU_SPMV_LIBRARY_IF("cusp.ell", "csr",
                        "CUSP cusp::multiply on its ELL, converted from CSR in prepare (declined "
                        "where CUSP finds the padding too large)",
                        &ell_v, gpu_cusp_supports),
    GPU_SPMV_LIBRARY_IF("cusp.hyb", "csr",
                        "CUSP cusp::multiply on its HYB (ELL, with COO for the long rows), "
                        "converted from CSR in prepare",
                        &hyb_v, gpu_cusp_supports),
};
extern const int gpu_cusp_kernel_count =
    (int)(sizeof gpu_cusp_kernels / sizeof gpu_cusp_kernels[0]);
