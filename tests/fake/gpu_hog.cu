/* gpu_hog.cu — holds nearly all of device 0's memory until it is killed:
 * a listed device on which nothing can be prepared, for the test that such
 * a device fails the device table tests instead of skipping them. Prints
 * "held N MiB" once it holds them; exit 3 without a device. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("no device\n");
        return 3;
    }
    size_t held = 0;
    for (size_t chunk = (size_t)1 << 30; chunk >= ((size_t)1 << 20); chunk /= 2) {
        void *p;
        while (cudaMalloc(&p, chunk) == cudaSuccess) held += chunk;
        cudaGetLastError();
    }
    printf("held %zu MiB\n", held >> 20);
    fflush(stdout);
    for (;;) pause();
}
