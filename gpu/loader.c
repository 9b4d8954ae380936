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
    char dir[SPB_PATH_LEN], path[4400];
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

/* Each of gpu.h's functions: the module's, or what gpu_module.h's table
 * says the program answers without one. */
#define FORWARD(ret, name, params, args, otherwise)                                                \
    ret name params { return module() ? module()->name args : (otherwise); }
#define FORWARD_VOID(name, params, args)                                                           \
    void name params                                                                               \
    {                                                                                              \
        if (module()) module()->name args;                                                         \
    }
SPB_GPU_FUNCTIONS(FORWARD, FORWARD_VOID)
