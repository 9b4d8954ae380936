/* gpu.h — the plain C face of gpu/: host code sees only this header. Built
 * without a CUDA compiler, gpu_stub.c answers "not built with CUDA". */
#ifndef SPB_GPU_H
#define SPB_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

#include "../formats/kernel.h"

typedef struct {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    double memory_bytes;
    double l2_bytes; /* the last-level cache: rows whose bytes fit are in cache */
    int driver_version, runtime_version; /* 1000*major + 10*minor */
} spb_gpu_info;

/* 1 when the CUDA code was compiled in. */
int gpu_compiled(void);

/* Describes device 0; SPB_ERR_DEVICE with the reason when there is none. */
spb_status gpu_query(spb_gpu_info *info, char *msg);

/* 1 when a kernel can run: compiled in and a device present; else fills why. */
int gpu_available(char *why);

/* `passes` timed passes (after one untimed) of two kernels over two buffers
 * of 2x L2 each (4x L2 in all, as on the CPU: see bench/bandwidth.h), in GB/s: a device-to-device
 * copy (counting bytes read and written) and a read stream (two buffers read, one value per block
 * written: the traffic of SpMV). The GPU roofline is the best of both. */
spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs, char *msg);

/* The device SpMV rows of the kernel table (CUDA kernels, cuSPARSE and
 * auto.cuda, each in fp64 and fp32; see spmv_csr.cu, spmv_merge.cu,
 * spmv_colblock.cu, spmv_hll.cu, spmv_cusparse.cu, spmv_auto.cu): none
 * when built without CUDA. */
int gpu_spmv_kernel_count(void);
const spb_kernel *gpu_spmv_kernel(int index); /* 0 <= index < count */

/* The device SpGEMM rows (the tiled-accumulator progression, ESC and
 * cuSPARSE; see spgemm_tiled.cu, spgemm_esc.cu, spgemm_cusparse.cu): none
 * when built without CUDA. */
int gpu_spgemm_kernel_count(void);
const spb_kernel *gpu_spgemm_kernel(int index); /* 0 <= index < count */

#ifdef __cplusplus
}
#endif
#endif
