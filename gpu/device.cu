/* device.cu — device discovery and the device-to-device copy bandwidth. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"

extern "C" int gpu_compiled(void) { return 1; }

extern "C" spb_status gpu_query(spb_gpu_info *info, char *msg)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        const char *why = err != cudaSuccess ? cudaGetErrorString(err) : "no device found";
        cudaGetLastError(); /* clear the error so later calls start clean */
        return spb_fail(msg, SPB_ERR_DEVICE, "no CUDA device: %s", why);
    }
    cudaDeviceProp prop;
    err = cudaGetDeviceProperties(&prop, 0);
    if (err != cudaSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "cudaGetDeviceProperties: %s",
                        cudaGetErrorString(err));
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->sm_count = prop.multiProcessorCount;
    info->cc_major = prop.major;
    info->cc_minor = prop.minor;
    info->memory_bytes = (double)prop.totalGlobalMem;
    cudaDriverGetVersion(&info->driver_version);
    cudaRuntimeGetVersion(&info->runtime_version);
    return SPB_OK;
}

extern "C" int gpu_available(char *why)
{
    /* asked once per (matrix, kernel): query the runtime once */
    static int known = 0, available = 0;
    static char reason[SPB_MSG_LEN];
    if (!known) {
        spb_gpu_info info;
        available = gpu_query(&info, reason) == SPB_OK;
        known = 1;
    }
    if (!available) spb_fail(why, SPB_ERR_DEVICE, "%s", reason);
    return available;
}

#define COPY_BYTES   (512ull << 20) /* 10x the H100's 50 MB L2 */
#define COPY_REPEATS 10

extern "C" spb_status gpu_copy_bandwidth(double *gbytes_per_s, char *msg)
{
    *gbytes_per_s = 0;
    void *src = NULL, *dst = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    spb_status st = SPB_OK;
    cudaError_t err = cudaMalloc(&src, COPY_BYTES);
    if (err == cudaSuccess) err = cudaMalloc(&dst, COPY_BYTES);
    if (err == cudaSuccess) err = cudaMemset(src, 1, COPY_BYTES);
    if (err == cudaSuccess) err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    double best = 0;
    for (int k = 0; k < COPY_REPEATS + 2 && err == cudaSuccess; k++) {
        err = cudaEventRecord(start);
        if (err == cudaSuccess) err = cudaMemcpy(dst, src, COPY_BYTES, cudaMemcpyDeviceToDevice);
        if (err == cudaSuccess) err = cudaEventRecord(stop);
        if (err == cudaSuccess) err = cudaEventSynchronize(stop);
        float ms = 0;
        if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
        double rate = 2.0 * COPY_BYTES / (ms * 1e-3) / 1e9; /* read + write */
        if (err == cudaSuccess && k >= 2 && rate > best) best = rate;
    }
    if (err != cudaSuccess)
        st = spb_fail(msg, SPB_ERR_DEVICE, "copy bandwidth: %s", cudaGetErrorString(err));
    *gbytes_per_s = best;
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
    return st;
}
