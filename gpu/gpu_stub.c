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

spb_status gpu_peer_bandwidth_samples(int passes, double bytes, double *gbs, int *direct, char *msg)
{
    (void)passes;
    (void)bytes;
    (void)gbs;
    *direct = 0;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

int gpu_spmv_kernel_count(void) { return 0; }

const spb_kernel *gpu_spmv_kernel(int index)
{
    (void)index;
    return NULL;
}

const void *gpu_spmv_x_address(const void *state)
{
    (void)state;
    return NULL;
}

int gpu_spgemm_kernel_count(void) { return 0; }

const spb_kernel *gpu_spgemm_kernel(int index)
{
    (void)index;
    return NULL;
}

int gpu_device_count(void) { return 0; }
int gpu_nccl_compiled(void) { return 0; }
const char *gpu_cusp_version(void) { return NULL; }

spb_status gpu_block_create(const gpu_block_spec *spec, gpu_block **out, char *msg)
{
    (void)spec;
    *out = NULL;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

void gpu_block_free(gpu_block *b) { (void)b; }

spb_status gpu_block_set_x(gpu_block *b, const double *x_own, char *msg)
{
    (void)b;
    (void)x_own;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_get_y(gpu_block *b, double *y_own, char *msg)
{
    (void)b;
    (void)y_own;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_local_product(gpu_block *b, gpu_product_times *times, char *msg)
{
    (void)b;
    (void)times;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_start(gpu_block *b, char *msg)
{
    (void)b;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_finish(gpu_block *b, gpu_product_times *times, char *msg)
{
    (void)b;
    (void)times;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_nccl_id(unsigned char id[GPU_NCCL_ID_BYTES], char *msg)
{
    (void)id;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_nccl_init(gpu_block *b, const unsigned char id[GPU_NCCL_ID_BYTES], int ranks,
                               int rank, char *msg)
{
    (void)b;
    (void)id;
    (void)ranks;
    (void)rank;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                  gpu_product_times *times, char *msg)
{
    (void)b;
    (void)plan;
    (void)times;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_peer_export(gpu_block *b, gpu_peer_handle *mine, char *msg)
{
    (void)b;
    (void)mine;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_peer_open(gpu_block *b, int peers, const gpu_peer_handle *theirs,
                               const int *their_start, char *msg)
{
    (void)b;
    (void)peers;
    (void)theirs;
    (void)their_start;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

void gpu_block_peer_close(gpu_block *b) { (void)b; }

spb_status gpu_block_peer_pack(gpu_block *b, char *msg)
{
    (void)b;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}

spb_status gpu_block_peer_pull(gpu_block *b, const gpu_exchange_plan *plan,
                               gpu_product_times *times, char *msg)
{
    (void)b;
    (void)plan;
    (void)times;
    return spb_fail(msg, SPB_ERR_DEVICE, NOT_BUILT);
}
