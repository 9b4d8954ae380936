/* gpu_module.h — how spbench reaches its GPU code: the CUDA code is built
 * as a module (spbench-gpu.so) that the program loads when it starts
 * using a GPU function, so an installed spbench starts where the CUDA
 * runtime is absent (loader.c answers for the GPU then, saying why). The
 * module gives one table of gpu.h's functions; a table of another ABI is
 * not used. */
#ifndef SPB_GPU_MODULE_H
#define SPB_GPU_MODULE_H

#include "gpu.h"

#define SPB_GPU_MODULE_ABI    2
#define SPB_GPU_MODULE_SYMBOL "spb_gpu_module_table"

/* gpu.h's functions: X(return type, name, parameters) */
#define SPB_GPU_FUNCTIONS(X)                                                                       \
    X(int, gpu_compiled, (void))                                                                   \
    X(spb_status, gpu_query, (spb_gpu_info * info, char *msg))                                     \
    X(int, gpu_available, (char *why))                                                             \
    X(spb_status, gpu_bandwidth_samples,                                                           \
      (int passes, double *copy_gbs, double *read_gbs, char *msg))                                 \
    X(spb_status, gpu_peer_bandwidth_samples,                                                      \
      (int passes, double bytes, double *gbs, int *direct, char *msg))                             \
    X(int, gpu_spmv_kernel_count, (void))                                                          \
    X(const spb_kernel *, gpu_spmv_kernel, (int index))                                            \
    X(const void *, gpu_spmv_x_address, (const void *state))                                       \
    X(int, gpu_spgemm_kernel_count, (void))                                                        \
    X(const spb_kernel *, gpu_spgemm_kernel, (int index))                                          \
    X(spb_status, gpu_block_create, (const gpu_block_spec *spec, gpu_block **out, char *msg))      \
    X(void, gpu_block_free, (gpu_block * b))                                                       \
    X(spb_status, gpu_block_set_x, (gpu_block * b, const double *x_own, char *msg))                \
    X(spb_status, gpu_block_get_y, (gpu_block * b, double *y_own, char *msg))                      \
    X(int, gpu_device_count, (void))                                                               \
    X(spb_status, gpu_block_local_product, (gpu_block * b, gpu_product_times * times, char *msg))  \
    X(spb_status, gpu_block_start, (gpu_block * b, char *msg))                                     \
    X(spb_status, gpu_block_finish, (gpu_block * b, gpu_product_times * times, char *msg))         \
    X(int, gpu_nccl_compiled, (void))                                                              \
    X(const char *, gpu_cusp_version, (void))                                                      \
    X(spb_status, gpu_nccl_id, (unsigned char id[GPU_NCCL_ID_BYTES], char *msg))                   \
    X(spb_status, gpu_block_nccl_init,                                                             \
      (gpu_block * b, const unsigned char id[GPU_NCCL_ID_BYTES], int ranks, int rank, char *msg))  \
    X(spb_status, gpu_block_nccl_product,                                                          \
      (gpu_block * b, const gpu_exchange_plan *plan, gpu_product_times *times, char *msg))         \
    X(spb_status, gpu_block_peer_export, (gpu_block * b, gpu_peer_handle * mine, char *msg))       \
    X(spb_status, gpu_block_peer_open,                                                             \
      (gpu_block * b, int peers, const gpu_peer_handle *theirs, const int *their_start,            \
       char *msg))                                                                                 \
    X(void, gpu_block_peer_close, (gpu_block * b))                                                 \
    X(spb_status, gpu_block_peer_pack, (gpu_block * b, char *msg))                                 \
    X(spb_status, gpu_block_peer_pull,                                                             \
      (gpu_block * b, const gpu_exchange_plan *plan, gpu_product_times *times, char *msg))         \
    X(spb_status, gpu_buffer_alloc, (void **device, size_t bytes, char *msg))                      \
    X(void, gpu_buffer_free, (void *device))                                                       \
    X(spb_status, gpu_buffer_copy,                                                                 \
      (void *to, const void *from, size_t bytes, int to_device, char *msg))                        \
    X(spb_status, gpu_buffer_fill, (void *device, int byte, size_t bytes, char *msg))              \
    X(spb_status, gpu_time_steps,                                                                  \
      (int (*step)(void *context), void *context, int calls, double *seconds, char *msg))

#define SPB_GPU_MODULE_FIELD(ret, name, params) ret(*name) params;
typedef struct {
    int abi; /* SPB_GPU_MODULE_ABI */
    SPB_GPU_FUNCTIONS(SPB_GPU_MODULE_FIELD)
} spb_gpu_module;

typedef const spb_gpu_module *(*spb_gpu_module_fn)(void);

#endif
