/* gpu_stub.c — stands in for gpu/ when no CUDA compiler was found: every
 * entry point answers "not built with CUDA". */
#include "gpu.h"

#include <string.h>

#define NOT_BUILT "not built with CUDA (no CUDA compiler was found)"

int gpu_compiled(void) { return 0; }

spb_status gpu_query(spb_gpu_info *info, char *msg)
{
    memset(info, 0, sizeof *info);
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

int gpu_available(char *why)
{
    spb_fail(why, SPB_ERR_DEVICE, NOT_BUILT);
    return 0;
}

spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs, char *msg)
{
    (void)passes;
    (void)copy_gbs;
    (void)read_gbs;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

int gpu_spmv_kernel_count(void) { return 0; }

const spb_kernel *gpu_spmv_kernel(int index)
{
    (void)index;
    return NULL;
}

int gpu_spgemm_kernel_count(void) { return 0; }

const spb_kernel *gpu_spgemm_kernel(int index)
{
    (void)index;
    return NULL;
}
