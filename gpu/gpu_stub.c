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

spb_status gpu_copy_bandwidth(double *gbytes_per_s, char *msg)
{
    *gbytes_per_s = 0;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_prepare(spb_gpu_kernel kernel, const spb_csr *A, spb_index hack_size, int block_size,
                       void **state, int64_t *stored_entries, double *bytes, char *msg)
{
    (void)kernel;
    (void)A;
    (void)hack_size;
    (void)block_size;
    (void)stored_entries;
    (void)bytes;
    *state = NULL;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

void gpu_run(const void *state, const spb_value *x, spb_value *y)
{
    (void)state;
    (void)x;
    (void)y;
}

double gpu_time_calls(void *state, int calls)
{
    (void)state;
    (void)calls;
    return -1.0;
}

spb_status gpu_check(const void *state, char *msg)
{
    (void)state;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

int gpu_block_size(const void *state)
{
    (void)state;
    return 0;
}

void gpu_release(void *state) { (void)state; }
