/* api_costs.cu — what the calls a small device SpGEMM product makes cost on
 * the host, one at a time: a stream-ordered allocation and its free from a
 * pool that keeps freed memory (as the SpGEMM rows set it), an empty kernel
 * launch, a small device-to-host copy into pageable and into pinned memory
 * after an empty kernel (the round trip a product waits for when it reads a
 * size back), and a cub scan of 4096 ints. Prints the median of 2000 of each
 * in microseconds.
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
    return 0;
}
