/* dist_block.cu — one MPI rank's rows on its GPU (see gpu.h): the diagonal
 * block prepared and launched as a device row of the table (auto.cuda),
 * the ghost block by a kernel of its own, the entries neighbours need
 * packed on the device, and the exchange through host memory or through
 * NCCL on a stream beside the diagonal block. */
#include <cstdio>
#include <cstring>
#include <new>

#include "spmv_state.cuh"
#ifdef SPB_HAVE_NCCL
#include <nccl.h>
#endif

extern "C" {
#include "gpu.h"
}

#define BLOCK_THREADS 256

struct gpu_block : gpu_record {
    spb_format_set formats; /* the diagonal block's formats, kept while its state lives */
    spb_csr diag_host;      /* a copy the format set points at */
    gpu_state *diag;        /* the device row's state: d_x is x's owned entries, d_y is y */
    int off_rows, sends_total, ghosts;
    int *d_off_ptr, *d_off_col, *d_off_row, *d_send_idx;
    double *d_off_val, *d_send, *d_ghosts;
    cudaStream_t comm; /* the exchange, beside the default stream's diagonal block */
    cudaEvent_t arrived, diag_start, diag_stop, off_start, off_stop;
    cudaEvent_t x_landed; /* x's upload done, for the exchange's stream */
#ifdef SPB_HAVE_NCCL
    ncclComm_t nccl;
#endif
    int has_nccl;
};

__global__ void pack_kernel(const double *__restrict__ x, const int *__restrict__ idx, int count,
                            double *__restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) out[t] = x[idx[t]];
}

/* y[row[r]] += (ghost block row r) . ghosts: a thread per row with ghosts. */
__global__ void ghost_rows_kernel(int rows, const int *__restrict__ ptr,
                                  const int *__restrict__ col, const double *__restrict__ val,
                                  const int *__restrict__ row, const double *__restrict__ ghosts,
                                  double *__restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    double sum = 0;
    for (int k = ptr[r]; k < ptr[r + 1]; k++) sum += val[k] * ghosts[col[k]];
    y[row[r]] += sum;
}

extern "C" int gpu_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

/* The diagonal block as a device row prepares any matrix. */
static spb_status prepare_diag(gpu_block *b, const gpu_block_spec *spec, char *msg)
{
    spb_status st = csr_alloc(&b->diag_host, spec->diag->m, spec->diag->n, spec->diag->nnz, msg);
    if (st != SPB_OK) return st;
    memcpy(b->diag_host.row_ptr, spec->diag->row_ptr, sizeof(int) * ((size_t)spec->diag->m + 1));
    memcpy(b->diag_host.col_idx, spec->diag->col_idx, sizeof(int) * (size_t)spec->diag->nnz);
    memcpy(b->diag_host.val, spec->diag->val, sizeof(double) * (size_t)spec->diag->nnz);
    format_set_init(&b->formats, &b->diag_host);
    spb_kernel_config config = {};
    config.hack_size = HLL_DEFAULT_HACK_SIZE;
    config.threads = 1;
    config.ranks = 1;
    config.precision = SPB_FP64;
    spb_kernel_plan plan = {};
    st = spec->kernel->prepare(spec->kernel, &b->formats, &config, &plan, msg);
    b->diag = (gpu_state *)plan.state;
    return st;
}

/* The ghost block, the packing list and the exchange buffers. */
static spb_status upload_exchange(gpu_block *b, const gpu_block_spec *spec, char *msg)
{
    const spb_csr *off = spec->off;
    b->off_rows = off->m;
    b->sends_total = spec->sends_total;
    b->ghosts = spec->ghosts;
    /* gpu_upload: nonzero on a failure */
    if (gpu_upload(b, (void **)&b->d_off_ptr, off->row_ptr, (size_t)off->m + 1, sizeof(int)) ||
        gpu_upload(b, (void **)&b->d_off_col, off->col_idx, (size_t)off->nnz, sizeof(int)) ||
        gpu_upload(b, (void **)&b->d_off_val, off->val, (size_t)off->nnz, sizeof(double)) ||
        gpu_upload(b, (void **)&b->d_off_row, spec->off_rows, (size_t)off->m, sizeof(int)) ||
        gpu_upload(b, (void **)&b->d_send_idx, spec->send_idx, (size_t)spec->sends_total,
                   sizeof(int)))
        return gpu_state_fail(b, msg);
    GPU_TRY(b, cudaMalloc(&b->d_send, sizeof(double) * ((size_t)spec->sends_total + 1)),
            "cudaMalloc");
    GPU_TRY(b, cudaMalloc(&b->d_ghosts, sizeof(double) * ((size_t)spec->ghosts + 1)), "cudaMalloc");
    GPU_TRY(b, cudaStreamCreateWithFlags(&b->comm, cudaStreamNonBlocking), "cudaStreamCreate");
    for (cudaEvent_t *e :
         {&b->arrived, &b->diag_start, &b->diag_stop, &b->off_start, &b->off_stop, &b->x_landed})
        GPU_TRY(b, cudaEventCreate(e), "cudaEventCreate");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_create(const gpu_block_spec *spec, gpu_block **out, char *msg)
{
    *out = NULL;
    if (cudaSetDevice(spec->device) != cudaSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "cannot use GPU %d", spec->device);
    gpu_block *b = new (std::nothrow) gpu_block();
    if (!b) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    spb_status st = prepare_diag(b, spec, msg);
    if (st == SPB_OK) st = upload_exchange(b, spec, msg);
    if (st != SPB_OK) {
        gpu_block_free(b);
        return st;
    }
    *out = b;
    return SPB_OK;
}

extern "C" void gpu_block_free(gpu_block *b)
{
    if (!b) return;
#ifdef SPB_HAVE_NCCL
    if (b->has_nccl) ncclCommDestroy(b->nccl);
#endif
    if (b->diag) gpu_spmv_release(b->diag);
    format_set_free(&b->formats);
    csr_free(&b->diag_host);
    void *arrays[] = {b->d_off_ptr,  b->d_off_col, b->d_off_val, b->d_off_row,
                      b->d_send_idx, b->d_send,    b->d_ghosts};
    for (void *p : arrays) cudaFree(p);
    if (b->comm) cudaStreamDestroy(b->comm);
    for (cudaEvent_t e :
         {b->arrived, b->diag_start, b->diag_stop, b->off_start, b->off_stop, b->x_landed})
        if (e) cudaEventDestroy(e);
    delete b;
}

/* x's owned entries up. A copy from pageable memory returns once the data
 * is staged, before its last transfer lands; the default stream's kernels
 * are ordered after it, the exchange's (non-blocking) stream only by the
 * event: without it, the packing read what d_x held before, and the
 * neighbours got ghosts of another x (a wrong y in one run of two). */
extern "C" spb_status gpu_block_set_x(gpu_block *b, const double *x_own, char *msg)
{
    GPU_TRY(b,
            cudaMemcpy(b->diag->d_x, x_own, sizeof(double) * (size_t)b->diag->n,
                       cudaMemcpyHostToDevice),
            "x to the device");
    GPU_TRY(b, cudaEventRecord(b->x_landed, 0), "event");
    GPU_TRY(b, cudaStreamWaitEvent(b->comm, b->x_landed, 0), "stream wait");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_get_y(gpu_block *b, double *y_own, char *msg)
{
    GPU_TRY(b,
            cudaMemcpy(y_own, b->diag->d_y, sizeof(double) * (size_t)b->diag->m,
                       cudaMemcpyDeviceToHost),
            "y from the device");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* The owned entries neighbours need, packed on the exchange's stream. */
static void pack(gpu_block *b)
{
    if (b->sends_total == 0) return;
    pack_kernel<<<gpu_blocks_for(b->sends_total, BLOCK_THREADS), BLOCK_THREADS, 0, b->comm>>>(
        (const double *)b->diag->d_x, b->d_send_idx, b->sends_total, b->d_send);
}

static void launch_diag(gpu_block *b)
{
    cudaEventRecord(b->diag_start, 0);
    if (b->diag->m > 0) gpu_spmv_launch(b->diag);
    cudaEventRecord(b->diag_stop, 0);
}

/* After the ghosts arrived: the ghost block added on the default stream,
 * then both blocks' kernel time. */
static spb_status finish_product(gpu_block *b, double *compute_s, char *msg)
{
    float diag_ms = 0, off_ms = 0;
    cudaEventRecord(b->off_start, 0);
    if (b->off_rows > 0)
        ghost_rows_kernel<<<gpu_blocks_for(b->off_rows, BLOCK_THREADS), BLOCK_THREADS>>>(
            b->off_rows, b->d_off_ptr, b->d_off_col, b->d_off_val, b->d_off_row, b->d_ghosts,
            (double *)b->diag->d_y);
    cudaEventRecord(b->off_stop, 0);
    GPU_TRY(b, cudaGetLastError(), "kernel launch");
    GPU_TRY(b, cudaStreamSynchronize(0), "the product");
    GPU_TRY(b, cudaEventElapsedTime(&diag_ms, b->diag_start, b->diag_stop), "event time");
    GPU_TRY(b, cudaEventElapsedTime(&off_ms, b->off_start, b->off_stop), "event time");
    *compute_s = (diag_ms + off_ms) * 1e-3;
    return b->diag->error != SPB_OK ? gpu_state_fail(b->diag, msg) : SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_start(gpu_block *b, double *send, char *msg)
{
    pack(b);
    if (b->sends_total > 0)
        GPU_TRY(b,
                cudaMemcpyAsync(send, b->d_send, sizeof(double) * (size_t)b->sends_total,
                                cudaMemcpyDeviceToHost, b->comm),
                "ghosts to the host");
    launch_diag(b);
    GPU_TRY(b, cudaStreamSynchronize(b->comm), "packing");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_finish(gpu_block *b, const double *ghosts, double *compute_s,
                                       char *msg)
{
    if (b->ghosts > 0)
        GPU_TRY(b,
                cudaMemcpyAsync(b->d_ghosts, ghosts, sizeof(double) * (size_t)b->ghosts,
                                cudaMemcpyHostToDevice, 0),
                "ghosts to the device");
    return finish_product(b, compute_s, msg);
fail:
    return gpu_state_fail(b, msg);
}

#ifdef SPB_HAVE_NCCL

extern "C" int gpu_nccl_compiled(void) { return 1; }

extern "C" spb_status gpu_nccl_id(unsigned char id[GPU_NCCL_ID_BYTES], char *msg)
{
    static_assert(sizeof(ncclUniqueId) == GPU_NCCL_ID_BYTES, "NCCL's id size");
    ncclUniqueId unique;
    ncclResult_t r = ncclGetUniqueId(&unique);
    if (r != ncclSuccess) return spb_fail(msg, SPB_ERR_DEVICE, "NCCL: %s", ncclGetErrorString(r));
    memcpy(id, &unique, sizeof unique);
    return SPB_OK;
}

extern "C" spb_status gpu_block_nccl_init(gpu_block *b, const unsigned char id[GPU_NCCL_ID_BYTES],
                                          int ranks, int rank, char *msg)
{
    ncclUniqueId unique;
    memcpy(&unique, id, sizeof unique);
    ncclResult_t r = ncclCommInitRank(&b->nccl, ranks, unique, rank);
    if (r != ncclSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "NCCL communicator: %s", ncclGetErrorString(r));
    b->has_nccl = 1;
    return SPB_OK;
}

extern "C" spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                             double *compute_s, char *msg)
{
    pack(b);
    ncclResult_t r = ncclGroupStart();
    for (int k = 0; k < plan->sends && r == ncclSuccess; k++)
        r = ncclSend(b->d_send + plan->send_start[k], plan->send_start[k + 1] - plan->send_start[k],
                     ncclDouble, plan->send_rank[k], b->nccl, b->comm);
    for (int k = 0; k < plan->recvs && r == ncclSuccess; k++)
        r = ncclRecv(b->d_ghosts + plan->recv_start[k],
                     plan->recv_start[k + 1] - plan->recv_start[k], ncclDouble, plan->recv_rank[k],
                     b->nccl, b->comm);
    ncclResult_t ended = ncclGroupEnd();
    if (r == ncclSuccess) r = ended;
    if (r != ncclSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "NCCL exchange: %s", ncclGetErrorString(r));
    launch_diag(b); /* on the default stream while the ghosts travel */
    GPU_TRY(b, cudaEventRecord(b->arrived, b->comm), "event");
    GPU_TRY(b, cudaStreamWaitEvent(0, b->arrived, 0), "stream wait");
    return finish_product(b, compute_s, msg);
fail:
    return gpu_state_fail(b, msg);
}

#else

extern "C" int gpu_nccl_compiled(void) { return 0; }

extern "C" spb_status gpu_nccl_id(unsigned char id[GPU_NCCL_ID_BYTES], char *msg)
{
    (void)id;
    return spb_fail(msg, SPB_ERR_DECLINED, "spbench was built without NCCL");
}

extern "C" spb_status gpu_block_nccl_init(gpu_block *b, const unsigned char id[GPU_NCCL_ID_BYTES],
                                          int ranks, int rank, char *msg)
{
    (void)b, (void)id, (void)ranks, (void)rank;
    return spb_fail(msg, SPB_ERR_DECLINED, "spbench was built without NCCL");
}

extern "C" spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                             double *compute_s, char *msg)
{
    (void)b, (void)plan, (void)compute_s;
    return spb_fail(msg, SPB_ERR_DECLINED, "spbench was built without NCCL");
}

#endif
