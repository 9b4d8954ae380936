/* module.c — the one symbol spbench-gpu.so exports: its table of gpu.h's
 * functions (the CUDA code itself, linked in from spb_gpu). */
#include "gpu_module.h"

#define SPB_GPU_MODULE_ADDRESS(ret, name, params, args, otherwise) .name = name,
#define SPB_GPU_MODULE_VOID_ADDRESS(name, params, args)            .name = name,

__attribute__((visibility("default"))) const spb_gpu_module *spb_gpu_module_table(void);

const spb_gpu_module *spb_gpu_module_table(void)
{
    static const spb_gpu_module table = {
        .abi = SPB_GPU_MODULE_ABI,
        SPB_GPU_FUNCTIONS(SPB_GPU_MODULE_ADDRESS, SPB_GPU_MODULE_VOID_ADDRESS)};
    return &table;
}
