/* device.cu — device discovery and the device-to-device copy bandwidth. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "gpu.h"

extern "C" int gpu_compiled(void) { return 1; }
/* linked in directly (the tests): the GPU code is here */
extern "C" const char *gpu_absent_why(void) { return NULL; }
extern "C" int gpu_module_built(void) { return 1; }

extern "C" spb_status gpu_query(spb_gpu_info *info, char *msg)
{
    memset(info, 0, sizeof *info);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        cudaGetLastError(); /* clear the error so later calls start clean */
        /* without any NVIDIA driver the runtime says "driver version is
         * insufficient", which reads as "upgrade the driver" */
        FILE *driver = fopen("/proc/driver/nvidia/version", "r");
        if (driver) fclose(driver);
        if (!driver || err == cudaErrorNoDevice || count == 0)
            return spb_fail(msg, SPB_ERR_DEVICE, "no CUDA device on this machine%s",
                            driver ? "" : " (no NVIDIA driver is loaded)");
        int driver_version = 0, runtime_version = 0;
        cudaDriverGetVersion(&driver_version);
        cudaRuntimeGetVersion(&runtime_version);
        if (err == cudaErrorInsufficientDriver)
            return spb_fail(msg, SPB_ERR_DEVICE,
                            "a driver/runtime mismatch: the NVIDIA driver supports CUDA %d.%d, "
                            "this build's runtime is %d.%d (update the driver, or build with an "
                            "older CUDA toolkit)",
                            driver_version / 1000, driver_version % 1000 / 10,
                            runtime_version / 1000, runtime_version % 1000 / 10);
        return spb_fail(msg, SPB_ERR_DEVICE, "a CUDA device is here but unusable: %s",
                        cudaGetErrorString(err));
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
    if (cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, 0) != cudaSuccess)
        info->pci_bus_id[0] = '\0';
    return SPB_OK;
}

extern "C" int gpu_available(char *why)
{
    /* asked once per (matrix, kernel): query the runtime once. Rows say "no
     * CUDA device" plainly (the JSON's header keeps the details), and a
     * device that is there but cannot be used in gpu_query's words */
    static int known = 0, available = 0;
    static char reason[SPB_MSG_LEN];
    if (!known) {
        spb_gpu_info info;
        available = gpu_query(&info, reason) == SPB_OK;
        known = 1;
    }
    if (!available)
        spb_fail(why, SPB_ERR_DEVICE, "%s",
                 strncmp(reason, "no CUDA device", 14) == 0 ? "no CUDA device on this machine"
                                                            : reason);
    return available;
}

#define MIN_STREAM_BYTES (64ull << 20)
#define PASS_REPEATS     16
#define READ_BLOCK       256

/* The read stream: every thread sums a grid-stride share of two buffers
 * with 16-byte coalesced loads, four strides per iteration so that eight
 * loads are in flight per thread; one partial per block is written. */
static __global__ void __launch_bounds__(READ_BLOCK)
    read_stream_kernel(const double2 *__restrict__ a, const double2 *__restrict__ b, size_t n,
                       double *__restrict__ partial)
{
    __shared__ double sums[READ_BLOCK];
    size_t stride = (size_t)gridDim.x * blockDim.x,
           i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        double2 a0 = a[i], a1 = a[i + stride], a2 = a[i + 2 * stride], a3 = a[i + 3 * stride];
        double2 b0 = b[i], b1 = b[i + stride], b2 = b[i + 2 * stride], b3 = b[i + 3 * stride];
        s0 += a0.x * b0.x + a0.y * b0.y;
        s1 += a1.x * b1.x + a1.y * b1.y;
        s2 += a2.x * b2.x + a2.y * b2.y;
        s3 += a3.x * b3.x + a3.y * b3.y;
    }
    for (; i < n; i += stride) s0 += a[i].x * b[i].x + a[i].y * b[i].y;
    sums[threadIdx.x] = (s0 + s1) + (s2 + s3);
    __syncthreads();
    for (int half = READ_BLOCK / 2; half > 0; half >>= 1) {
        if (threadIdx.x < half) sums[threadIdx.x] += sums[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
}

/* Seconds of one copy or one read pass between the two events: PASS_REPEATS
 * back-to-back sweeps, so that launch and ramp-up are a small part of it. */
static cudaError_t time_pass(int read, void *src, void *dst, size_t bytes, double *partial,
                             int grid, cudaEvent_t start, cudaEvent_t stop, double *seconds)
{
    cudaError_t err = cudaEventRecord(start);
    for (int k = 0; k < PASS_REPEATS && err == cudaSuccess; k++) {
        if (read)
            read_stream_kernel<<<grid, READ_BLOCK>>>((const double2 *)src, (const double2 *)dst,
                                                     bytes / sizeof(double2), partial);
        else
            err = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice);
    }
    if (err == cudaSuccess) err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaEventRecord(stop);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    *seconds = ms * 1e-3;
    return err;
}

/* A measurement's outcome (its events destroyed): SPB_OK, or the CUDA
 * error as a status and message naming `what`. */
static spb_status measured(cudaError_t err, const char *what, cudaEvent_t start, cudaEvent_t stop,
                           char *msg)
{
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (err == cudaSuccess) return SPB_OK;
    cudaGetLastError();
    return spb_fail(msg, err == cudaErrorMemoryAllocation ? SPB_ERR_NOMEM : SPB_ERR_DEVICE,
                    "%s: %s", what, cudaGetErrorString(err));
}

extern "C" spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs,
                                            char *msg)
{
    void *src = NULL, *dst = NULL;
    double *partial = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    int sms = 0, resident = 0, l2 = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
    /* exactly the blocks that fit at once: a second, partial wave would idle most SMs */
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, read_stream_kernel,
                                                            READ_BLOCK, 0);
    int grid = sms * (resident > 0 ? resident : 1);
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
            copy_gbs[k] = 2.0 * PASS_REPEATS * bytes / copy_s / 1e9; /* read + write */
            read_gbs[k] = 2.0 * PASS_REPEATS * bytes / read_s / 1e9; /* two buffers read */
        }
    }
    spb_status st = measured(err, "bandwidth", start, stop, msg);
    cudaFree(src);
    cudaFree(dst);
    cudaFree(partial);
    return st;
}

/* One timed pass of the peer copy: events on device 0's stream. */
static cudaError_t time_peer_pass(void *dst, const void *src, size_t bytes, cudaEvent_t start,
                                  cudaEvent_t stop, double *seconds)
{
    cudaError_t err = cudaEventRecord(start);
    if (err == cudaSuccess) err = cudaMemcpyPeerAsync(dst, 1, src, 0, bytes);
    if (err == cudaSuccess) err = cudaEventRecord(stop);
    if (err == cudaSuccess) err = cudaEventSynchronize(stop);
    float ms = 0;
    if (err == cudaSuccess) err = cudaEventElapsedTime(&ms, start, stop);
    *seconds = ms * 1e-3;
    return err;
}

extern "C" spb_status gpu_peer_bandwidth_samples(int passes, double bytes, double *gbs, int *direct,
                                                 char *msg)
{
    int devices = 0, previous = 0;
    *direct = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 2)
        return spb_fail(msg, SPB_ERR_DECLINED, "fewer than two GPUs");
    cudaGetDevice(&previous);
    size_t size = (size_t)bytes;
    void *src = NULL, *dst = NULL;
    cudaEvent_t start = NULL, stop = NULL;
    cudaError_t err = cudaDeviceCanAccessPeer(direct, 0, 1);
    if (err == cudaSuccess) err = cudaSetDevice(1);
    if (err == cudaSuccess) err = cudaMalloc(&dst, size);
    if (err == cudaSuccess) err = cudaSetDevice(0);
    /* peer access on for the copy to go over the link directly, off after */
    int enabled = 0;
    if (err == cudaSuccess && *direct) {
        err = cudaDeviceEnablePeerAccess(1, 0);
        enabled = err == cudaSuccess;
        if (err == cudaErrorPeerAccessAlreadyEnabled) err = cudaSuccess;
    }
    if (err == cudaSuccess) err = cudaMalloc(&src, size);
    if (err == cudaSuccess) err = cudaMemset(src, 1, size);
    if (err == cudaSuccess) err = cudaEventCreate(&start);
    if (err == cudaSuccess) err = cudaEventCreate(&stop);
    for (int k = -1; k < passes && err == cudaSuccess; k++) { /* pass -1: warm-up */
        double s = 0;
        err = time_peer_pass(dst, src, size, start, stop, &s);
        if (err == cudaSuccess && k >= 0) gbs[k] = bytes / s / 1e9;
    }
    spb_status st = measured(err, "peer bandwidth", start, stop, msg);
    cudaFree(src);
    if (enabled) cudaDeviceDisablePeerAccess(1);
    cudaSetDevice(1);
    cudaFree(dst);
    if (previous != 1) cudaDeviceReset(); /* device 1 is another rank's: no context left on it */
    cudaSetDevice(previous);
    return st;
}
