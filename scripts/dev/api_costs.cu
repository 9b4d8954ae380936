/* api_costs.cu — what the calls a small device SpGEMM product makes cost on
 * the host, one at a time: a stream-ordered allocation and its free from a
 * pool that keeps freed memory (as the SpGEMM rows set it), an empty kernel
 * launch, a small device-to-host copy into pageable and into pinned memory
 * after an empty kernel (the round trip a product waits for when it reads a
 * size back), and a cub scan of 4096 ints. Prints the median of 2000 of each
 * in microseconds. Then the floor of a launch-bound product as the rows time
 * it: empty kernels launched back to back between two events (1 block, and
 * one block per SM), per launch.
 *
 *   nvcc -arch=sm_90 -O2 -o api_costs scripts/dev/api_costs.cu
 *   ./api_costs
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cub/device/device_scan.cuh>

#include "cuda_check.h"

#define REPS 2000

__global__ void empty_kernel(int *out)
{
    if (out && threadIdx.x == 0 && blockIdx.x == 0) out[0] = 1;
}

static double now_us(void)
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

template <class F> static void report(const char *what, F call)
{
    std::vector<double> t(REPS);
    for (int r = 0; r < 20; r++) call(); /* warm */
    CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        call();
        t[r] = now_us() - t0;
    }
    CHECK(cudaDeviceSynchronize());
    std::sort(t.begin(), t.end());
    printf("%-52s median %7.2f us  (p10 %.2f, p90 %.2f)\n", what, t[REPS / 2], t[REPS / 10],
           t[REPS * 9 / 10]);
}

/* Per launch of `blocks` empty blocks of 128 threads, launched `calls`
 * times back to back between two events (gpu_spmv_time_calls's loop): the
 * median of 50 such rounds. */
static void event_floor(int *dev, int blocks)
{
    const int calls = 200, rounds = 50;
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    std::vector<double> t(rounds);
    for (int r = -5; r < rounds; r++) {
        float ms = 0;
        CHECK(cudaEventRecord(start));
        for (int k = 0; k < calls; k++) empty_kernel<<<blocks, 128>>>(dev);
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        if (r >= 0) t[r] = 1e3 * ms / calls;
    }
    std::sort(t.begin(), t.end());
    printf("event-timed back-to-back empty kernels, %4d blocks: median %5.2f us a launch (p10 "
           "%.2f, p90 %.2f)\n",
           blocks, t[rounds / 2], t[rounds / 10], t[rounds * 9 / 10]);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
}

int main(void)
{
    cudaMemPool_t pool;
    uint64_t keep = UINT64_MAX;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    int *dev, *pinned, pageable[16];
    CHECK(cudaMalloc(&dev, 1 << 20));
    CHECK(cudaMallocHost(&pinned, 64));
    CHECK(cudaMemset(dev, 0, 1 << 20));
    void *temp = NULL;
    size_t temp_bytes = 0;
    CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, dev, dev + 8192, 4096));
    CHECK(cudaMalloc(&temp, temp_bytes));

    report("cudaMallocAsync + cudaFreeAsync (64 KiB, pooled)", [] {
        void *p;
        CHECK(cudaMallocAsync(&p, 65536, 0));
        CHECK(cudaFreeAsync(p, 0));
    });
    report("empty kernel launch (no wait)", [dev] { empty_kernel<<<1, 32>>>(dev); });
    report("cudaMemsetAsync 16 KiB (no wait)", [dev] { CHECK(cudaMemsetAsync(dev, 0, 16384, 0)); });
    report("cub scan of 4096 ints (no wait)", [dev, temp, temp_bytes] {
        size_t bytes = temp_bytes;
        CHECK(cub::DeviceScan::ExclusiveSum(temp, bytes, dev, dev + 8192, 4096));
    });
    report("kernel + cudaMemcpy 44 B to pageable (round trip)", [dev, &pageable] {
        empty_kernel<<<1, 32>>>(dev);
        CHECK(cudaMemcpy(pageable, dev, 44, cudaMemcpyDeviceToHost));
    });
    report("kernel + cudaMemcpyAsync 44 B to pinned + sync", [dev, pinned] {
        empty_kernel<<<1, 32>>>(dev);
        CHECK(cudaMemcpyAsync(pinned, dev, 44, cudaMemcpyDeviceToHost, 0));
        CHECK(cudaStreamSynchronize(0));
    });
    report("kernel + cudaDeviceSynchronize", [dev] {
        empty_kernel<<<1, 32>>>(dev);
        CHECK(cudaDeviceSynchronize());
    });
    report("10 kernels back to back + sync (GPU-side pace)", [dev] {
        for (int k = 0; k < 10; k++) empty_kernel<<<1, 32>>>(dev);
        CHECK(cudaDeviceSynchronize());
    });
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    event_floor(dev, 1);
    event_floor(dev, sms);
    return 0;
}
