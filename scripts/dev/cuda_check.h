/* cuda_check.h — the dev programs' CUDA call check: a failed call is
 * printed with its error and ends the program. */
#ifndef SPB_DEV_CUDA_CHECK_H
#define SPB_DEV_CUDA_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(err_));                          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
