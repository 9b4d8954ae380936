/* device.cu — device discovery through the CUDA runtime. */
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
        cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
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
