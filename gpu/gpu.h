/* gpu.h — the plain C face of gpu/: host code sees only this header. The
 * spbench program reaches the CUDA code through loader.c (a module loaded
 * at run time, so it starts without the CUDA runtime); without a CUDA
 * compiler there is no module and the loader answers "not built with
 * CUDA". */
#ifndef SPB_GPU_H
#define SPB_GPU_H

#ifdef __cplusplus
extern "C" {
#endif

#include "core/kernel.h"
#include "formats/format_set.h"

typedef struct {
    char name[256];
    int sm_count;
    int cc_major, cc_minor;
    double memory_bytes;
    double l2_bytes; /* the last-level cache: rows whose bytes fit are in cache */
    int driver_version, runtime_version; /* 1000*major + 10*minor */
    char pci_bus_id[32];                 /* "0000:19:00.0": the device as NVML knows it */
} spb_gpu_info;

/* 1 when the CUDA code was compiled in (and, for the spbench program, its
 * GPU module loaded: gpu_module.h). */
int gpu_compiled(void);
/* NULL where the GPU code is here (linked in, or the spbench program's
 * module loaded), else why not (built without CUDA, or the module did not
 * load: the CUDA runtime absent, say). */
const char *gpu_absent_why(void);
/* 1 when built with the CUDA code (for the spbench program: a module to load). */
int gpu_module_built(void);

/* Describes device 0; SPB_ERR_DEVICE with the reason when there is none. */
spb_status gpu_query(spb_gpu_info *info, char *msg);

/* 1 when a kernel can run: compiled in and a device present; else fills why. */
int gpu_available(char *why);

/* `passes` timed passes (after one untimed) of two kernels over two buffers
 * of 2x L2 each (4x L2 in all, as on the CPU: see bench/machine/bandwidth.h), in GB/s: a
 * device-to-device copy (counting bytes read and written) and a read stream (two buffers read, one
 * value per block written: the traffic of SpMV). The GPU roofline is the best of both. */
spb_status gpu_bandwidth_samples(int passes, double *copy_gbs, double *read_gbs, char *msg);

/* The link between GPU 0 and GPU 1, as the distributed GPU rows' exchange
 * uses it: `passes` timed one-way copies (after one untimed) of `bytes`
 * from device 0 to device 1 with cudaMemcpyPeerAsync, in GB/s; *direct is
 * 1 when the two have peer access (NVLink or PCIe P2P), 0 when the copy is
 * staged through the host. SPB_ERR_DECLINED with fewer than two GPUs. */
spb_status gpu_peer_bandwidth_samples(int passes, double bytes, double *gbs, int *direct,
                                      char *msg);

/* The device SpMV kernels of the table (CUDA kernels, cuSPARSE and
 * auto.cuda, each in fp64 and fp32; see spmv_csr.cu, spmv_merge.cu,
 * spmv_colblock.cu, spmv_hll.cu, spmv_cusparse.cu, spmv_auto.cu): none
 * when built without CUDA. */
int gpu_spmv_kernel_count(void);
const spb_kernel *gpu_spmv_kernel(int index); /* 0 <= index < count */
/* The device address a prepared SpMV row of that table gathers x from
 * (rows prepared with config.shared_x share one); NULL without CUDA. */
const void *gpu_spmv_x_address(const void *state);
/* Copies that x's n entries and its first spare one (kept zero) to x, in
 * the row's precision; the CUDA error otherwise. */
spb_status gpu_spmv_x_download(const void *state, void *x, char *msg);

/* The device SpGEMM rows (the tiled-accumulator progression, ESC and
 * cuSPARSE; see spgemm_tiled.cu, spgemm_esc.cu, spgemm_cusparse.cu): none
 * when built without CUDA. */
int gpu_spgemm_kernel_count(void);
const spb_kernel *gpu_spgemm_kernel(int index); /* 0 <= index < count */

/* ---- a distributed rank's block on its GPU (dist_block.cu) ---- */

/* One MPI rank's rows on a GPU: its diagonal block and its ghost block
 * (only the rows that have ghosts: off_rows) each multiplied by a device
 * row of the table (auto.cuda, chosen for each block's shape), the ghost
 * rows' sums added into y; and the exchange's device side: the owned
 * entries neighbours need packed (send_idx), the ghosts received in place.
 * x (owned entries), the ghosts and y stay on the device. */
typedef struct gpu_block gpu_block;

/* Which blocks a row's are: the GPU rows of one matrix, rank count and
 * rank have the same two blocks, so the first runs auto.cuda's trial on
 * them and the next ones keep its choices (one trial, not one a row, and
 * rows that differ in their exchange alone). matrix 0: a trial every time. */
typedef struct {
    unsigned long long matrix;
    int ranks, rank, layout;
} gpu_trial_key;

typedef struct {
    const spb_kernel *kernel; /* the device row for the diagonal block */
    const spb_csr *diag;      /* rows x owned columns; kept by the caller while the block lives */
    const spb_csr *off;       /* rows with ghosts x ghosts; kept likewise */
    const spb_index *off_rows;
    const spb_index *send_idx; /* owned entries to send, neighbour after neighbour */
    int sends_total, ghosts;
    int device; /* the GPU this rank uses */
    /* the staged exchange's host buffers (sends_total and ghosts entries;
     * NULL: none), page-locked while the block lives */
    double *send_host, *ghosts_host;
    gpu_trial_key trial;
    const char *row; /* the row's name, for the rows that keep its choices */
} gpu_block_spec;

spb_status gpu_block_create(const gpu_block_spec *spec, gpu_block **out, char *msg);
void gpu_block_free(gpu_block *b); /* accepts NULL */
spb_status gpu_block_set_x(gpu_block *b, const double *x_own, char *msg);
spb_status gpu_block_get_y(gpu_block *b, double *y_own, char *msg);
/* The GPUs this process sees (0 without a device or CUDA). */
int gpu_device_count(void);

/* A product's times, in seconds: the two blocks' kernels (compute), and the
 * exchange from the packing's start to the ghosts' arrival on the device
 * (exchange: hidden behind the diagonal block or not; 0 without one); the
 * staged exchange's copies: the packing's start to the send buffer on the
 * host (to_host), and the ghosts' copy up (to_device); the peer exchange's:
 * the packing (to_host) and the copies out of the neighbours' buffers
 * (to_device); 0 otherwise. */
typedef struct {
    double compute_s, exchange_s, to_host_s, to_device_s;
} gpu_product_times;

/* A rank with nothing to send or receive (one rank, or rows that need no
 * other rank's x): its diagonal block alone, with none of an exchange's
 * events, waits or host calls, the same product in every GPU row. */
spb_status gpu_block_local_product(gpu_block *b, gpu_product_times *times, char *msg);

/* The host-staged exchange: start packs the entries to send, copies them to
 * the spec's send_host and launches the diagonal block; finish copies the
 * ghosts up from its ghosts_host and adds the ghost block, and gives the
 * product's times. */
spb_status gpu_block_start(gpu_block *b, char *msg);
spb_status gpu_block_finish(gpu_block *b, gpu_product_times *times, char *msg);

/* The NCCL exchange (built when NCCL is found): a communicator over the
 * row's ranks from a unique id made on its rank 0, then products whose
 * ghosts travel by grouped ncclSend/ncclRecv on a stream of their own while
 * the diagonal block runs. */
int gpu_nccl_compiled(void);

/* CUSP's version ("0.6.0") when its rows were built with it, else NULL. */
const char *gpu_cusp_version(void);
#define GPU_NCCL_ID_BYTES 128
spb_status gpu_nccl_id(unsigned char id[GPU_NCCL_ID_BYTES], char *msg);
spb_status gpu_block_nccl_init(gpu_block *b, const unsigned char id[GPU_NCCL_ID_BYTES], int ranks,
                               int rank, char *msg);
typedef struct {
    int sends, recvs;
    const int *send_rank, *send_start, *recv_rank, *recv_start;
} gpu_exchange_plan;
spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                  gpu_product_times *times, char *msg);

/* The peer exchange (mpi.cuda.peer): each rank's packed send buffer and an
 * interprocess event recorded after its packing, exported by CUDA IPC; a
 * neighbour that MPI told the packing was recorded waits for the event on
 * its exchange stream and copies its ghosts out of that buffer with the copy
 * engines (over NVLink between GPUs), the diagonal block running meanwhile.
 * The imports are closed (gpu_block_peer_close) before any rank frees its
 * block. */
#define GPU_IPC_BYTES 64
typedef struct {
    unsigned char send[GPU_IPC_BYTES], packed[GPU_IPC_BYTES];
} gpu_peer_handle;
spb_status gpu_block_peer_export(gpu_block *b, gpu_peer_handle *mine, char *msg);
/* The send buffers of the neighbours the ghosts come from (plan's recvs, in
 * order) and where in each this rank's entries begin. */
spb_status gpu_block_peer_open(gpu_block *b, int peers, const gpu_peer_handle *theirs,
                               const int *their_start, char *msg);
void gpu_block_peer_close(gpu_block *b); /* accepts NULL */
/* A product in two calls: pack (the send buffer packed, the event recorded,
 * the diagonal block launched), then, once every neighbour said it packed,
 * pull (the copies, the ghost block; returns when the product is done, the
 * copies out of the neighbours' buffers included). */
spb_status gpu_block_peer_pack(gpu_block *b, char *msg);
spb_status gpu_block_peer_pull(gpu_block *b, const gpu_exchange_plan *plan,
                               gpu_product_times *times, char *msg);

/* Device memory and timing for a plug-in's CUDA kernel, which runs in a
 * process of its own (plugins/host.c): buffers allocated, copied and
 * filled; step(context) called `calls` times (stopping at its first
 * nonzero answer) between two events on the default stream, then the
 * device synchronized. SPB_ERR_DEVICE names what the device reported (a
 * kernel's fault leaves the process's device unusable). */
spb_status gpu_buffer_alloc(void **device, size_t bytes, char *msg);
void gpu_buffer_free(void *device); /* accepts NULL */
spb_status gpu_buffer_copy(void *to, const void *from, size_t bytes, int to_device, char *msg);
spb_status gpu_buffer_fill(void *device, int byte, size_t bytes, char *msg);
spb_status gpu_time_steps(int (*step)(void *context), void *context, int calls, double *seconds,
                          char *msg);

#ifdef __cplusplus
}
#endif
#endif
