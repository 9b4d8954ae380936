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
    info->l2_bytes = (double)prop.l2CacheSize;
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

#define MIN_STREAM_BYTES (64ull << 20)
#define READ_BLOCK       256
#define READ_GRID_PER_SM 8

/* The read stream: every thread sums a grid-stride share of two buffers
 * (16-byte loads, coalesced); one partial per block is written. */
static __global__ void __launch_bounds__(READ_BLOCK)
    read_stream_kernel(const double2 *__restrict__ a, const double2 *__restrict__ b, size_t n,
                       double *__restrict__ partial)
{
    __shared__ double sums[READ_BLOCK];
    double sum = 0.0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double2 u = a[i], v = b[i];
        sum += u.x * v.x + u.y * v.y;
    }
    sums[threadIdx.x] = sum;
    __syncthreads();
    for (int half = READ_BLOCK / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

/* Seconds of one copy or one read pass between the two events. */
static cudaError_t time_pass(int read, void *src, void *dst, size_t bytes, double *partial,
                             int grid, cudaEvent_t start, cudaEvent_t stop, double *seconds)
{
    cudaError_t err = cudaEventRecord(start);
    if (err == cudaSuccess && read)
        read_stream_kernel<<<grid, READ_BLOCK>>>((const double2 *)src, (const double2 *)dst,
                                                 bytes / sizeof(double2), partial);
    else if (err == cudaSuccess)
        err = cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaEventRecord(stop);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    *seconds = ms * 1e-3;
    return err;
}

extern "C" spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs,
                                            char *msg)
{
    void *src = NULL, *dst = NULL;
    double *partial = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    int sms = 0, grid = 0, l2 = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    grid = sms * READ_GRID_PER_SM;
    /* two buffers of 2x L2 each: 4x L2 in all, as for the CPU (bandwidth.h) */
    size_t bytes = (size_t)l2 * 2 > MIN_STREAM_BYTES ? (size_t)l2 * 2 : MIN_STREAM_BYTES;
    bytes -= bytes % sizeof(double2);
    if (err == cudaSuccess) err = cudaMalloc(&src, bytes);
    if (err == cudaSuccess) err = cudaMalloc(&dst, bytes);
    if (err == cudaSuccess) err = cudaMalloc((void **)&partial, sizeof(double) * (size_t)grid);
    if (err == cudaSuccess) err = cudaMemset(src, 1, bytes);
    if (err == cudaSuccess) err = cudaMemset(dst, 2, bytes);
    if (err == cudaSuccess) err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    for (int k = -1; k < passes && err == cudaSuccess; k++) { /* pass -1: warm-up */
        double copy_s = 0, read_s = 0;
        err = time_pass(0, src, dst, bytes, partial, grid, start, stop, &copy_s);
        if (err == cudaSuccess)
            err = time_pass(1, src, dst, bytes, partial, grid, start, stop, &read_s);
        if (err == cudaSuccess && k >= 0) {
            copy_gbs[k] = 2.0 * bytes / copy_s / 1e9; /* read + write */
            read_gbs[k] = 2.0 * bytes / read_s / 1e9; /* two buffers read */
        }
    }
    spb_status st = SPB_OK;
    if (err != cudaSuccess) {
        cudaGetLastError();
        st = spb_fail(msg, err == cudaErrorMemoryAllocation ? SPB_ERR_NOMEM : SPB_ERR_DEVICE,
                      "bandwidth: %s", cudaGetErrorString(err));
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    cudaFree(src);
    cudaFree(dst);
    cudaFree(partial);
    return st;
}
