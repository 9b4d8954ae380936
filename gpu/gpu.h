/* gpu.h — the plain C face of gpu/: host code sees only this header. Built
 * without a CUDA compiler, gpu_stub.c answers "not built with CUDA". */
#ifndef SPB_GPU_H
#define SPB_GPU_H

#include "../formats/spb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    double memory_bytes;
    int driver_version, runtime_version; /* 1000*major + 10*minor */
} spb_gpu_info;

/* 1 when the CUDA code was compiled in. */
int gpu_compiled(void);

/* Describes device 0; SPB_ERR_DEVICE with the reason when there is none. */
spb_status gpu_query(spb_gpu_info *info, char *msg);

#ifdef __cplusplus
}
#endif
#endif
