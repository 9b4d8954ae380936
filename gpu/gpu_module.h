/* gpu_module.h — how spbench reaches its GPU code: the CUDA code is built
 * as a module (spbench-gpu.so) that the program loads when it starts
 * using a GPU function, so an installed spbench starts where the CUDA
 * runtime is absent (loader.c answers for the GPU then, saying why). The
 * module gives one table of gpu.h's functions; a table of another ABI is
 * not used. */
#ifndef SPB_GPU_MODULE_H
#define SPB_GPU_MODULE_H

#include "gpu.h"

/* changes with gpu.h's functions and with the types they pass (the format
 * set: 4 added its BSR, 5 its renumbered CSR) */
#define SPB_GPU_MODULE_ABI    5
#define SPB_GPU_MODULE_SYMBOL "spb_gpu_module_table"

/* gpu.h's functions: X(return type, name, parameters, the arguments
 * passed on, what the program's loader answers without a module), or
 * V(name, parameters, arguments) for one returning nothing (the loader
 * then does nothing). One line a function: the module's table, its
 * addresses and the loader's forwarding are all made from it. */
#define SPB_GPU_FUNCTIONS(X, V)                                                                    \
    X(int, gpu_compiled, (void), (), 0)                                                            \
    X(spb_status, gpu_query, (spb_gpu_info * info, char *msg), (info, msg),                        \
      (memset(info, 0, sizeof *info), absent(msg)))                                                \
    X(int, gpu_available, (char *why), (why), (absent(why), 0))                                    \
    X(spb_status, gpu_bandwidth_samples,                                                           \
      (int passes, double *copy_gbs, double *read_gbs, char *msg),                                 \
      (passes, copy_gbs, read_gbs, msg), absent(msg))                                              \
    X(spb_status, gpu_peer_bandwidth_samples,                                                      \
      (int passes, double bytes, double *gbs, int *direct, char *msg),                             \
      (passes, bytes, gbs, direct, msg), (*direct = 0, absent(msg)))                               \
    X(int, gpu_spmv_kernel_count, (void), (), 0)                                                   \
    X(const spb_kernel *, gpu_spmv_kernel, (int index), (index), NULL)                             \
    X(const void *, gpu_spmv_x_address, (const void *state), (state), NULL)                        \
    X(spb_status, gpu_spmv_x_download, (const void *state, void *x, char *msg), (state, x, msg),   \
      absent(msg))                                                                                 \
    X(int, gpu_spgemm_kernel_count, (void), (), 0)                                                 \
    X(const spb_kernel *, gpu_spgemm_kernel, (int index), (index), NULL)                           \
    X(spb_status, gpu_block_create, (const gpu_block_spec *spec, gpu_block **out, char *msg),      \
      (spec, out, msg), (*out = NULL, absent(msg)))                                                \
    V(gpu_block_free, (gpu_block * b), (b))                                                        \
    X(spb_status, gpu_block_set_x, (gpu_block * b, const double *x_own, char *msg),                \
      (b, x_own, msg), absent(msg))                                                                \
    X(spb_status, gpu_block_get_y, (gpu_block * b, double *y_own, char *msg), (b, y_own, msg),     \
      absent(msg))                                                                                 \
    X(int, gpu_device_count, (void), (), 0)                                                        \
    X(spb_status, gpu_block_local_product, (gpu_block * b, gpu_product_times * times, char *msg),  \
      (b, times, msg), absent(msg))                                                                \
    X(spb_status, gpu_block_start, (gpu_block * b, char *msg), (b, msg), absent(msg))              \
    X(spb_status, gpu_block_finish, (gpu_block * b, gpu_product_times * times, char *msg),         \
      (b, times, msg), absent(msg))                                                                \
    X(int, gpu_nccl_compiled, (void), (), 0)                                                       \
    X(const char *, gpu_cusp_version, (void), (), NULL)                                            \
    X(spb_status, gpu_nccl_id, (unsigned char id[GPU_NCCL_ID_BYTES], char *msg), (id, msg),        \
      absent(msg))                                                                                 \
    X(spb_status, gpu_block_nccl_init,                                                             \
      (gpu_block * b, const unsigned char id[GPU_NCCL_ID_BYTES], int ranks, int rank, char *msg),  \
      (b, id, ranks, rank, msg), absent(msg))                                                      \
    X(spb_status, gpu_block_nccl_product,                                                          \
      (gpu_block * b, const gpu_exchange_plan *plan, gpu_product_times *times, char *msg),         \
      (b, plan, times, msg), absent(msg))                                                          \
    X(spb_status, gpu_block_peer_export, (gpu_block * b, gpu_peer_handle * mine, char *msg),       \
      (b, mine, msg), absent(msg))                                                                 \
    X(spb_status, gpu_block_peer_open,                                                             \
      (gpu_block * b, int peers, const gpu_peer_handle *theirs, const int *their_start,            \
       char *msg),                                                                                 \
      (b, peers, theirs, their_start, msg), absent(msg))                                           \
    V(gpu_block_peer_close, (gpu_block * b), (b))                                                  \
    X(spb_status, gpu_block_peer_pack, (gpu_block * b, char *msg), (b, msg), absent(msg))          \
    X(spb_status, gpu_block_peer_pull,                                                             \
      (gpu_block * b, const gpu_exchange_plan *plan, gpu_product_times *times, char *msg),         \
      (b, plan, times, msg), absent(msg))                                                          \
    X(spb_status, gpu_buffer_alloc, (void **device, size_t bytes, char *msg),                      \
      (device, bytes, msg), (*device = NULL, absent(msg)))                                         \
    V(gpu_buffer_free, (void *device), (device))                                                   \
    X(spb_status, gpu_buffer_copy,                                                                 \
      (void *to, const void *from, size_t bytes, int to_device, char *msg),                        \
      (to, from, bytes, to_device, msg), absent(msg))                                              \
    X(spb_status, gpu_buffer_fill, (void *device, int byte, size_t bytes, char *msg),              \
      (device, byte, bytes, msg), absent(msg))                                                     \
    X(spb_status, gpu_time_steps,                                                                  \
      (int (*step)(void *context), void *context, int calls, double *seconds, char *msg),          \
      (step, context, calls, seconds, msg), (*seconds = 0, absent(msg)))

#define SPB_GPU_MODULE_FIELD(ret, name, params, args, otherwise) ret(*name) params;
#define SPB_GPU_MODULE_VOID_FIELD(name, params, args)            void(*name) params;
typedef struct {
    int abi; /* SPB_GPU_MODULE_ABI */
    SPB_GPU_FUNCTIONS(SPB_GPU_MODULE_FIELD, SPB_GPU_MODULE_VOID_FIELD)
} spb_gpu_module;

typedef const spb_gpu_module *(*spb_gpu_module_fn)(void);

#endif
