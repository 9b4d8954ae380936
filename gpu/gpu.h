/* gpu.h — the plain C face of gpu/: host code sees only this header. Built
 * without a CUDA compiler, gpu_stub.c answers "not built with CUDA". */
#ifndef SPB_GPU_H
#define SPB_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

#include "../formats/csr.h"

typedef struct {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    double memory_bytes;
    int driver_version, runtime_version; /* 1000*major + 10*minor */
} spb_gpu_info;

/* 1 when the CUDA code was compiled in. */
int gpu_compiled(void);

/* Describes device 0; SPB_ERR_DEVICE with the reason when there is none. */
spb_status gpu_query(spb_gpu_info *info, char *msg);

/* 1 when a kernel can run: compiled in and a device present; else fills why. */
int gpu_available(char *why);

/* Device-to-device copy bandwidth, counting bytes read and written (best of
 * several copies of a buffer far larger than L2): the GPU roofline. */
spb_status gpu_copy_bandwidth(double *gbytes_per_s, char *msg);

/* The device kernels, fp64 (see gpu/spmv_cuda.cu for each one's banner). */
typedef enum {
    GPU_CSR_THREAD,
    GPU_CSR_WARP,
    GPU_CSR_WARP_SHARED,
    GPU_CSR_WARP_SHARED2D,
    GPU_CSR_LDG,
    GPU_CSR_TEXTURE,
    GPU_CSR_ADAPTIVE,
    GPU_HLL_ROW,
    GPU_HLL_WARP,
    GPU_HLL_WARP_SHARED,
    GPU_HLL_COL,
    GPU_CUSPARSE_CSR,
    GPU_CUSPARSE_CSR_ALG2,
    GPU_CUSPARSE_SELL
} spb_gpu_kernel;

/* Converts (HLL, SELL) and uploads A, allocates x and y on the device and,
 * for cuSPARSE, creates descriptors, the work buffer and runs preprocess.
 * block_size 0 picks the kernel's default. Fills the padded entry count and
 * the bytes one product moves. SPB_ERR_UNSUPPORTED when the kernel cannot
 * take this matrix (the reason in msg); SPB_ERR_DEVICE when it does not fit
 * or a CUDA call fails. */
spb_status gpu_prepare(spb_gpu_kernel kernel, const spb_csr *A, spb_index hack_size, int block_size,
                       void **state, int64_t *stored_entries, double *bytes, char *msg);

/* One whole product: upload x, poison the device y with NaN, compute,
 * download y. On failure y is left NaN and the error is kept for gpu_check. */
void gpu_run(const void *state, const spb_value *x, spb_value *y);

/* Times `calls` back-to-back products on the device-resident x and y with
 * CUDA events; returns seconds, or a negative value on failure. */
double gpu_time_calls(void *state, int calls);

/* The first CUDA error the state met, or SPB_OK. */
spb_status gpu_check(const void *state, char *msg);

/* The block size in use (after defaults), for the results. */
int gpu_block_size(const void *state);

void gpu_release(void *state); /* accepts NULL */

#ifdef __cplusplus
}
#endif
#endif
