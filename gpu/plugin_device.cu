/* plugin_device.cu — device buffers and event timing for a plug-in's CUDA
 * kernel (gpu.h; the kernel itself is the plug-in's). */
#include <cuda_runtime.h>

#include "gpu.h"

/* The device's account of a failure; a kernel's fault is sticky (the
 * process's device is unusable after it), so it is named as the kernel's. */
static spb_status device_failure(cudaError_t err, const char *what, char *msg)
{
    cudaGetLastError(); /* clear what can be cleared */
    return spb_fail(msg, SPB_ERR_DEVICE, "%s: %s (%s)", what, cudaGetErrorString(err),
                    cudaGetErrorName(err));
}

extern "C" spb_status gpu_buffer_alloc(void **device, size_t bytes, char *msg)
{
    *device = NULL;
    cudaError_t err = cudaMalloc(device, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        *device = NULL;
        return device_failure(err, "cudaMalloc", msg);
    }
    return SPB_OK;
}

extern "C" void gpu_buffer_free(void *device)
{
    if (device) cudaFree(device);
}

extern "C" spb_status gpu_buffer_copy(void *to, const void *from, size_t bytes, int to_device,
                                      char *msg)
{
    if (bytes == 0) return SPB_OK;
    cudaError_t err =
        cudaMemcpy(to, from, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    return err == cudaSuccess ? SPB_OK : device_failure(err, "a copy", msg);
}

extern "C" spb_status gpu_buffer_fill(void *device, int byte, size_t bytes, char *msg)
{
    cudaError_t err = cudaMemset(device, byte, bytes);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    return err == cudaSuccess ? SPB_OK : device_failure(err, "a fill", msg);
}

extern "C" spb_status gpu_time_steps(int (*step)(void *context), void *context, int calls,
                                     double *seconds, char *msg)
{
    *seconds = 0;
    cudaEvent_t start, stop;
    cudaError_t err = cudaEventCreate(&start);
    if (err != cudaSuccess) return device_failure(err, "cudaEventCreate", msg);
    err = cudaEventCreate(&stop);
    if (err != cudaSuccess) {
        cudaEventDestroy(start);
        return device_failure(err, "cudaEventCreate", msg);
    }
    err = cudaEventRecord(start, 0);
    for (int c = 0; c < calls && err == cudaSuccess; c++)
        if (step(context) != 0) break;
    if (err == cudaSuccess) err = cudaEventRecord(stop, 0);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    if (err == cudaSuccess) err = cudaDeviceSynchronize();
    if (err == cudaSuccess) err = cudaGetLastError();
    float ms = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    if (err != cudaSuccess) return device_failure(err, "the kernel failed on the device", msg);
    *seconds = ms * 1e-3;
    return SPB_OK;
}
