/* loader.c — gpu.h for the spbench program: each function calls the GPU
 * module's (gpu_module.h), loaded on first use from beside the program
 * (a build folder) or from the prefix's lib/spbench (an install). Where
 * there is none (built without CUDA) or it does not load (the CUDA
 * runtime absent), spbench runs without GPU rows and says why. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "gpu_module.h"

#ifndef SPB_GPU_MODULE_FROM_BIN
#define SPB_GPU_MODULE_FROM_BIN "../lib/spbench"
#endif
#define MODULE_FILE "spbench-gpu.so"

static const spb_gpu_module *loaded;
static char absent_why[SPB_MSG_LEN] = "not built with CUDA (no CUDA compiler was found)";

#ifdef SPB_GPU_MODULE_BUILT
/* The module from `path`; 0 with the reason kept when it does not load. */
static int load_from(const char *path)
{
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(absent_why, sizeof absent_why, "the GPU module did not load: %s", dlerror());
        return 0;
    }
    spb_gpu_module_fn table = (spb_gpu_module_fn)dlsym(library, SPB_GPU_MODULE_SYMBOL);
    const spb_gpu_module *m = table ? table() : NULL;
    if (!m || m->abi != SPB_GPU_MODULE_ABI) {
        snprintf(absent_why, sizeof absent_why,
                 "%.400s is not spbench's GPU module of this version (ABI %d expected)", path,
                 SPB_GPU_MODULE_ABI);
        dlclose(library);
        return 0;
    }
    loaded = m;
    return 1;
}

static void load_module(void)
{
    char dir[4096], path[4400];
    if (!spb_self_dir(dir, sizeof dir)) {
        snprintf(absent_why, sizeof absent_why,
                 "the GPU module was not looked for: this program's path is unknown");
        return;
    }
    /* an install's first: a build folder has its module beside the program */
    snprintf(path, sizeof path, "%s/%s/%s", dir, SPB_GPU_MODULE_FROM_BIN, MODULE_FILE);
    FILE *f = fopen(path, "rb");
    if (!f) snprintf(path, sizeof path, "%s/%s", dir, MODULE_FILE);
    if (f) fclose(f);
    load_from(path);
}
#else
static void load_module(void) {} /* built without CUDA: absent_why says so */
#endif

static const spb_gpu_module *module(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, load_module);
    return loaded;
}

static spb_status absent(char *msg) { return spb_fail(msg, SPB_ERR_DEVICE, "%s", absent_why); }

const char *gpu_absent_why(void) { return module() ? NULL : absent_why; }

int gpu_module_built(void)
{
#ifdef SPB_GPU_MODULE_BUILT
    return 1;
#else
    return 0;
#endif
}

int gpu_compiled(void) { return module() ? module()->gpu_compiled() : 0; }

spb_status gpu_query(spb_gpu_info *info, char *msg)
{
    if (module()) return module()->gpu_query(info, msg);
    memset(info, 0, sizeof *info);
    return absent(msg);
}

int gpu_available(char *why)
{
    if (module()) return module()->gpu_available(why);
    absent(why);
    return 0;
}

spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs, char *msg)
{
    return module() ? module()->gpu_bandwidth_samples(passes, copy_gbs, read_gbs, msg)
                    : absent(msg);
}

spb_status gpu_peer_bandwidth_samples(int passes, double bytes, double *gbs, int *direct, char *msg)
{
    if (module()) return module()->gpu_peer_bandwidth_samples(passes, bytes, gbs, direct, msg);
    *direct = 0;
    return absent(msg);
}

int gpu_spmv_kernel_count(void) { return module() ? module()->gpu_spmv_kernel_count() : 0; }

const spb_kernel *gpu_spmv_kernel(int index)
{
    return module() ? module()->gpu_spmv_kernel(index) : NULL;
}

const void *gpu_spmv_x_address(const void *state)
{
    return module() ? module()->gpu_spmv_x_address(state) : NULL;
}

int gpu_spgemm_kernel_count(void) { return module() ? module()->gpu_spgemm_kernel_count() : 0; }

const spb_kernel *gpu_spgemm_kernel(int index)
{
    return module() ? module()->gpu_spgemm_kernel(index) : NULL;
}

int gpu_device_count(void) { return module() ? module()->gpu_device_count() : 0; }

int gpu_nccl_compiled(void) { return module() ? module()->gpu_nccl_compiled() : 0; }

const char *gpu_cusp_version(void) { return module() ? module()->gpu_cusp_version() : NULL; }

/* The distributed GPU rows' blocks: made only where a module loaded. */

spb_status gpu_block_create(const gpu_block_spec *spec, gpu_block **out, char *msg)
{
    if (module()) return module()->gpu_block_create(spec, out, msg);
    *out = NULL;
    return absent(msg);
}

void gpu_block_free(gpu_block *b)
{
    if (module()) module()->gpu_block_free(b);
}

spb_status gpu_block_set_x(gpu_block *b, const double *x_own, char *msg)
{
    return module() ? module()->gpu_block_set_x(b, x_own, msg) : absent(msg);
}

spb_status gpu_block_get_y(gpu_block *b, double *y_own, char *msg)
{
    return module() ? module()->gpu_block_get_y(b, y_own, msg) : absent(msg);
}

spb_status gpu_block_local_product(gpu_block *b, gpu_product_times *times, char *msg)
{
    return module() ? module()->gpu_block_local_product(b, times, msg) : absent(msg);
}

spb_status gpu_block_start(gpu_block *b, char *msg)
{
    return module() ? module()->gpu_block_start(b, msg) : absent(msg);
}

spb_status gpu_block_finish(gpu_block *b, gpu_product_times *times, char *msg)
{
    return module() ? module()->gpu_block_finish(b, times, msg) : absent(msg);
}

spb_status gpu_nccl_id(unsigned char id[GPU_NCCL_ID_BYTES], char *msg)
{
    return module() ? module()->gpu_nccl_id(id, msg) : absent(msg);
}

spb_status gpu_block_nccl_init(gpu_block *b, const unsigned char id[GPU_NCCL_ID_BYTES], int ranks,
                               int rank, char *msg)
{
    return module() ? module()->gpu_block_nccl_init(b, id, ranks, rank, msg) : absent(msg);
}

spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                  gpu_product_times *times, char *msg)
{
    return module() ? module()->gpu_block_nccl_product(b, plan, times, msg) : absent(msg);
}

spb_status gpu_block_peer_export(gpu_block *b, gpu_peer_handle *mine, char *msg)
{
    return module() ? module()->gpu_block_peer_export(b, mine, msg) : absent(msg);
}

spb_status gpu_block_peer_open(gpu_block *b, int peers, const gpu_peer_handle *theirs,
                               const int *their_start, char *msg)
{
    return module() ? module()->gpu_block_peer_open(b, peers, theirs, their_start, msg)
                    : absent(msg);
}

void gpu_block_peer_close(gpu_block *b)
{
    if (module()) module()->gpu_block_peer_close(b);
}

spb_status gpu_block_peer_pack(gpu_block *b, char *msg)
{
    return module() ? module()->gpu_block_peer_pack(b, msg) : absent(msg);
}

spb_status gpu_block_peer_pull(gpu_block *b, const gpu_exchange_plan *plan,
                               gpu_product_times *times, char *msg)
{
    return module() ? module()->gpu_block_peer_pull(b, plan, times, msg) : absent(msg);
}

/* A plug-in's CUDA kernel's buffers and timing. */
spb_status gpu_buffer_alloc(void **device, size_t bytes, char *msg)
{
    if (module()) return module()->gpu_buffer_alloc(device, bytes, msg);
    *device = NULL;
    return absent(msg);
}

void gpu_buffer_free(void *device)
{
    if (module()) module()->gpu_buffer_free(device);
}

spb_status gpu_buffer_copy(void *to, const void *from, size_t bytes, int to_device, char *msg)
{
    return module() ? module()->gpu_buffer_copy(to, from, bytes, to_device, msg) : absent(msg);
}

spb_status gpu_buffer_fill(void *device, int byte, size_t bytes, char *msg)
{
    return module() ? module()->gpu_buffer_fill(device, byte, bytes, msg) : absent(msg);
}

spb_status gpu_time_steps(int (*step)(void *context), void *context, int calls, double *seconds,
                          char *msg)
{
    if (module()) return module()->gpu_time_steps(step, context, calls, seconds, msg);
    *seconds = 0;
    return absent(msg);
}
