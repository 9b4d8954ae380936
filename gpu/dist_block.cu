/* dist_block.cu — one MPI rank's rows on its GPU (see gpu.h): the diagonal
 * block and the ghost block each prepared and launched as a device row of
 * the table (auto.cuda: each block's own shape picks its kernel; the ghost
 * block's rows are added into y by a scatter), the entries neighbours need
 * packed on the device, and the exchange through page-locked host memory
 * or through NCCL on a stream beside the diagonal block. */
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

/* A block of a rank's rows as a device row of the table: its formats, over
 * the caller's block (gpu_block_spec: kept while the state lives; a copy of
 * it took seconds of a large matrix's setup). */
struct device_block {
    spb_format_set formats;
    gpu_state *state;
};

struct gpu_block : gpu_record {
    device_block diag; /* d_x is x's owned entries, d_y is y */
    device_block off;  /* the ghost block (rows with ghosts): d_x the ghosts, d_y their sums */
    int off_rows, sends_total, ghosts;
    int off_beside; /* the ghost block runs on the exchange's stream, beside the diagonal */
    float last_diag_ms, last_exchange_ms; /* the last product's, for the launch order */
    int *d_off_row, *d_send_idx;
    double *d_send, *d_ghosts;       /* d_ghosts: the ghost block's x (NULL: no ghosts) */
    double *send_host, *ghosts_host; /* the staged exchange's host buffers, page-locked */
    int registered_send, registered_ghosts;
    cudaStream_t comm; /* the exchange, beside the default stream's diagonal block */
    cudaEvent_t arrived, diag_start, diag_stop, tail_start, tail_stop, off_done;
    cudaEvent_t x_landed;            /* x's upload done, for the exchange's stream */
    cudaEvent_t exchange_start;      /* the packing's start: to `arrived`, the exchange */
    cudaEvent_t sent_host, up_start; /* the staged legs: send buffer on the host, ghosts' copy up */
#ifdef SPB_HAVE_NCCL
    ncclComm_t nccl;
#endif
    int has_nccl;
    /* the peer exchange: `packed` (interprocess) recorded after the
     * packing; each neighbour's send buffer and event opened by CUDA IPC,
     * and where this rank's ghosts begin in it */
    cudaEvent_t packed;
    cudaEvent_t packed_at, copies_start; /* its legs: the packing, the copies */
    int peers;
    double **peer_send;
    cudaEvent_t *peer_packed;
    int *peer_start;
};

__global__ void pack_kernel(const double *__restrict__ x, const int *__restrict__ idx, int count,
                            double *__restrict__ out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < count) out[t] = x[idx[t]];
}

/* y[row[r]] += the ghost block's row r, computed by its own device row. */
__global__ void scatter_add_kernel(int rows, const int *__restrict__ row,
                                   const double *__restrict__ sums, double *__restrict__ y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < rows) y[row[r]] += sums[r];
}

extern "C" int gpu_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

/* auto.cuda's messages on a row's two blocks (the chosen row's name, then
 * why), kept for the next GPU rows of the same blocks (gpu_trial_key). */
struct kept_trial {
    gpu_trial_key key;
    char row[64];
    char diag[SPB_MSG_LEN], off[SPB_MSG_LEN];
};

#define KEPT_TRIALS 16 /* rank counts of one matrix */
static kept_trial kept_trials[KEPT_TRIALS];
static int kept_count;

static int same_key(const gpu_trial_key *a, const gpu_trial_key *b)
{
    return a->matrix == b->matrix && a->ranks == b->ranks && a->rank == b->rank &&
           a->layout == b->layout;
}

static const kept_trial *kept_for(const gpu_trial_key *key)
{
    for (int k = 0; k < kept_count && key->matrix; k++)
        if (same_key(&kept_trials[k].key, key)) return &kept_trials[k];
    return NULL;
}

/* The device row a kept message names (its text up to the first ':'). */
static const spb_kernel *row_named(const char *choice)
{
    size_t name = strcspn(choice, ":");
    for (int k = 0; k < gpu_spmv_kernel_count() && choice[name] == ':'; k++) {
        const spb_kernel *row = gpu_spmv_kernel(k);
        if (strlen(row->name) == name && strncmp(row->name, choice, name) == 0) return row;
    }
    return NULL;
}

/* Kept for the next rows when they name device rows (the next rows then
 * prepare those); another matrix's are dropped first. */
static void keep_trial(const gpu_trial_key *key, const char *row, const char *diag, const char *off)
{
    if (!key->matrix || !row_named(diag) || (off[0] && !row_named(off))) return;
    if (kept_count > 0 && kept_trials[0].key.matrix != key->matrix) kept_count = 0;
    if (kept_count == KEPT_TRIALS) return;
    kept_trial *k = &kept_trials[kept_count++];
    k->key = *key;
    snprintf(k->row, sizeof k->row, "%s", row ? row : "a GPU row");
    snprintf(k->diag, sizeof k->diag, "%s", diag);
    snprintf(k->off, sizeof k->off, "%s", off);
}

/* A block of rows as the device row `kernel` prepares any matrix, or as
 * the row a kept trial chose (`kept`, its message: NULL for none); the
 * message (the auto kernel's choice) into msg. */
static spb_status prepare_block(device_block *b, const spb_kernel *kernel, const spb_csr *A,
                                const char *kept, char *msg)
{
    const spb_kernel *chosen = kept ? row_named(kept) : NULL;
    const spb_kernel *row = chosen ? chosen : kernel;
    format_set_init(&b->formats, A);
    spb_kernel_config config = {};
    config.hack_size = HLL_DEFAULT_HACK_SIZE;
    config.threads = 1;
    config.ranks = 1;
    config.precision = SPB_FP64;
    spb_kernel_plan plan = {};
    spb_status st = row->prepare(row, &b->formats, &config, &plan, msg);
    b->state = (gpu_state *)plan.state;
    if (chosen && st == SPB_OK) snprintf(msg, SPB_MSG_LEN, "%s", kept);
    return st;
}

static void release_block(device_block *b)
{
    if (b->state) gpu_spmv_release(b->state);
    b->state = NULL;
    format_set_free(&b->formats);
}

/* The staged exchange's host buffers page-locked, so that their copies
 * run asynchronously on the exchange's stream. */
static spb_status lock_host_buffers(gpu_block *b, const gpu_block_spec *spec, char *msg)
{
    b->send_host = spec->send_host;
    b->ghosts_host = spec->ghosts_host;
    if (spec->send_host && spec->sends_total > 0) {
        GPU_TRY(b,
                cudaHostRegister(spec->send_host, sizeof(double) * (size_t)spec->sends_total,
                                 cudaHostRegisterDefault),
                "page-locking the send buffer");
        b->registered_send = 1;
    }
    if (spec->ghosts_host && spec->ghosts > 0) {
        GPU_TRY(b,
                cudaHostRegister(spec->ghosts_host, sizeof(double) * (size_t)spec->ghosts,
                                 cudaHostRegisterDefault),
                "page-locking the ghost buffer");
        b->registered_ghosts = 1;
    }
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* The ghost block's rows, the packing list, the send buffer and the stream
 * and events of the exchange. */
static spb_status upload_exchange(gpu_block *b, const gpu_block_spec *spec, char *msg)
{
    b->off_rows = spec->off->m;
    b->sends_total = spec->sends_total;
    b->ghosts = spec->ghosts;
    b->d_ghosts = b->off.state ? (double *)b->off.state->d_x : NULL;
    /* gpu_upload: nonzero on a failure */
    if (gpu_upload(b, (void **)&b->d_off_row, spec->off_rows, (size_t)spec->off->m, sizeof(int)) ||
        gpu_upload(b, (void **)&b->d_send_idx, spec->send_idx, (size_t)spec->sends_total,
                   sizeof(int)))
        return gpu_state_fail(b, msg);
    GPU_TRY(b, cudaMalloc(&b->d_send, sizeof(double) * ((size_t)spec->sends_total + 1)),
            "cudaMalloc");
    /* the exchange's kernels (packing, NCCL's) launched beside the diagonal
     * block take SMs as its blocks retire, not after its last wave */
    int least, greatest;
    GPU_TRY(b, cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
    GPU_TRY(b, cudaStreamCreateWithPriority(&b->comm, cudaStreamNonBlocking, greatest),
            "cudaStreamCreate");
    for (cudaEvent_t *e : {&b->arrived, &b->diag_start, &b->diag_stop, &b->tail_start,
                           &b->tail_stop, &b->x_landed, &b->exchange_start, &b->off_done,
                           &b->sent_host, &b->up_start, &b->packed_at, &b->copies_start})
        GPU_TRY(b, cudaEventCreate(e), "cudaEventCreate");
    if (b->off_beside) b->off.state->stream = b->comm;
    return lock_host_buffers(b, spec, msg);
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
    const kept_trial *kept = kept_for(&spec->trial);
    spb_status st =
        prepare_block(&b->diag, spec->kernel, spec->diag, kept ? kept->diag : NULL, msg);
    char off_msg[SPB_MSG_LEN] = "", diag_msg[SPB_MSG_LEN];
    snprintf(diag_msg, sizeof diag_msg, "%s", msg);
    if (st == SPB_OK && spec->off->m > 0)
        st = prepare_block(&b->off, spec->kernel, spec->off, kept ? kept->off : NULL, off_msg);
    if (st != SPB_OK && off_msg[0]) snprintf(msg, SPB_MSG_LEN, "ghost block: %.400s", off_msg);
    /* a small ghost block (at most an eighth of the diagonal's entries)
     * runs beside the diagonal as soon as its ghosts arrive; a large one
     * after it, where it would take half the diagonal's bandwidth */
    b->off_beside =
        st == SPB_OK && b->off.state && (long long)spec->off->nnz * 8 <= (long long)spec->diag->nnz;
    /* the row's message: the ghost block's kernel and place, then the diagonal's choice */
    char kept_note[96] = "";
    if (kept) snprintf(kept_note, sizeof kept_note, "(%.60s's trial at these ranks) ", kept->row);
    if (st == SPB_OK && b->off.state) {
        const char *diag = diag_msg[0] ? diag_msg : spec->kernel->name;
        const char *off_kernel = off_msg[0] ? off_msg : spec->kernel->name; /* auto's choice */
        int name = (int)strcspn(off_kernel, ":");
        snprintf(msg, SPB_MSG_LEN, "ghost block %.*s %s the diagonal; diagonal %s%.*s",
                 name < 64 ? name : 64, off_kernel, b->off_beside ? "beside" : "after", kept_note,
                 SPB_MSG_LEN - 220, diag);
    } else if (st == SPB_OK && kept) {
        snprintf(msg, SPB_MSG_LEN, "%s%.*s", kept_note, SPB_MSG_LEN - 100, diag_msg);
    }
    if (st == SPB_OK) st = upload_exchange(b, spec, msg);
    if (st == SPB_OK && !kept) keep_trial(&spec->trial, spec->row, diag_msg, off_msg);
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
    gpu_block_peer_close(b);
    if (b->packed) cudaEventDestroy(b->packed);
#ifdef SPB_HAVE_NCCL
    if (b->has_nccl) ncclCommDestroy(b->nccl);
#endif
    if (b->registered_send) cudaHostUnregister(b->send_host);
    if (b->registered_ghosts) cudaHostUnregister(b->ghosts_host);
    release_block(&b->diag);
    release_block(&b->off);
    void *arrays[] = {b->d_off_row, b->d_send_idx, b->d_send};
    for (void *p : arrays) cudaFree(p);
    if (b->comm) cudaStreamDestroy(b->comm);
    for (cudaEvent_t e :
         {b->arrived, b->diag_start, b->diag_stop, b->tail_start, b->tail_stop, b->x_landed,
          b->exchange_start, b->off_done, b->sent_host, b->up_start, b->packed_at, b->copies_start})
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
            cudaMemcpy(b->diag.state->d_x, x_own, sizeof(double) * (size_t)b->diag.state->n,
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
            cudaMemcpy(y_own, b->diag.state->d_y, sizeof(double) * (size_t)b->diag.state->m,
                       cudaMemcpyDeviceToHost),
            "y from the device");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* The owned entries neighbours need, packed on the exchange's stream. */
static void pack(gpu_block *b)
{
    cudaEventRecord(b->exchange_start, b->comm);
    if (b->sends_total == 0) return;
    pack_kernel<<<gpu_blocks_for(b->sends_total, BLOCK_THREADS), BLOCK_THREADS, 0, b->comm>>>(
        (const double *)b->diag.state->d_x, b->d_send_idx, b->sends_total, b->d_send);
}

static void launch_diag(gpu_block *b)
{
    cudaEventRecord(b->diag_start, 0);
    if (b->diag.state->m > 0) gpu_spmv_launch(b->diag.state);
    cudaEventRecord(b->diag_stop, 0);
}

/* Once the ghosts arrived (`arrived` recorded on the exchange's stream):
 * the ghost block, beside the diagonal block as soon as they are there
 * (off_beside) or after it, its sums added into y after the diagonal;
 * then the times. Compute is what ran on the default stream: the diagonal
 * block, the additions and the ghost block when it ran there; a ghost block
 * beside the diagonal counts only where it delays y, as exposed time. A
 * rank with nothing to exchange waits for no exchange and has no tail. */
static spb_status finish_product(gpu_block *b, gpu_product_times *times, char *msg)
{
    float diag_ms = 0, tail_ms = 0, exchange_ms = 0;
    int exchanges = b->sends_total + b->ghosts > 0;
    if (b->off_beside) {
        gpu_spmv_launch(b->off.state); /* on the exchange's stream, after the ghosts */
        cudaEventRecord(b->off_done, b->comm);
        cudaStreamWaitEvent(0, b->off_done, 0);
    } else if (exchanges) {
        cudaStreamWaitEvent(0, b->arrived, 0);
    }
    if (b->off.state) {
        cudaEventRecord(b->tail_start, 0);
        if (!b->off_beside) gpu_spmv_launch(b->off.state);
        scatter_add_kernel<<<gpu_blocks_for(b->off_rows, BLOCK_THREADS), BLOCK_THREADS>>>(
            b->off_rows, b->d_off_row, (const double *)b->off.state->d_y,
            (double *)b->diag.state->d_y);
        cudaEventRecord(b->tail_stop, 0);
    }
    GPU_TRY(b, cudaGetLastError(), "kernel launch");
    GPU_TRY(b, cudaStreamSynchronize(0), "the product");
    GPU_TRY(b, cudaEventElapsedTime(&diag_ms, b->diag_start, b->diag_stop), "event time");
    if (b->off.state)
        GPU_TRY(b, cudaEventElapsedTime(&tail_ms, b->tail_start, b->tail_stop), "event time");
    if (exchanges)
        GPU_TRY(b, cudaEventElapsedTime(&exchange_ms, b->exchange_start, b->arrived), "event time");
    b->last_diag_ms = diag_ms;
    b->last_exchange_ms = exchange_ms;
    times->compute_s = (diag_ms + tail_ms) * 1e-3;
    times->exchange_s = exchange_ms * 1e-3;
    if (b->diag.state->error != SPB_OK) return gpu_state_fail(b->diag.state, msg);
    return b->off.state && b->off.state->error != SPB_OK ? gpu_state_fail(b->off.state, msg)
                                                         : SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_local_product(gpu_block *b, gpu_product_times *times, char *msg)
{
    launch_diag(b);
    return finish_product(b, times, msg);
}

extern "C" spb_status gpu_block_start(gpu_block *b, char *msg)
{
    pack(b);
    if (b->sends_total > 0)
        GPU_TRY(b,
                cudaMemcpyAsync(b->send_host, b->d_send, sizeof(double) * (size_t)b->sends_total,
                                cudaMemcpyDeviceToHost, b->comm),
                "ghosts to the host");
    GPU_TRY(b, cudaEventRecord(b->sent_host, b->comm), "event");
    launch_diag(b);
    GPU_TRY(b, cudaStreamSynchronize(b->comm), "packing");
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* The ghosts in place (`arrived` recorded after them): the product finished
 * by finish_product, and the two timed legs of the staged or peer exchange
 * (to_host: first_start to first_end; to_device: second_start to
 * `arrived`). */
static spb_status finish_with_legs(gpu_block *b, cudaEvent_t first_start, cudaEvent_t first_end,
                                   cudaEvent_t second_start, gpu_product_times *times, char *msg)
{
    float first_ms = 0, second_ms = 0;
    GPU_TRY(b, cudaEventRecord(b->arrived, b->comm), "event");
    {
        spb_status st = finish_product(b, times, msg); /* synchronised: the events are done */
        if (st != SPB_OK) return st;
    }
    GPU_TRY(b, cudaEventElapsedTime(&first_ms, first_start, first_end), "event time");
    GPU_TRY(b, cudaEventElapsedTime(&second_ms, second_start, b->arrived), "event time");
    times->to_host_s = first_ms * 1e-3;
    times->to_device_s = second_ms * 1e-3;
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_finish(gpu_block *b, gpu_product_times *times, char *msg)
{
    GPU_TRY(b, cudaEventRecord(b->up_start, b->comm), "event");
    if (b->ghosts > 0)
        GPU_TRY(b,
                cudaMemcpyAsync(b->d_ghosts, b->ghosts_host, sizeof(double) * (size_t)b->ghosts,
                                cudaMemcpyHostToDevice, b->comm),
                "ghosts to the device");
    return finish_with_legs(b, b->exchange_start, b->sent_host, b->up_start, times, msg);
fail:
    return gpu_state_fail(b, msg);
}

extern "C" spb_status gpu_block_peer_export(gpu_block *b, gpu_peer_handle *mine, char *msg)
{
    static_assert(sizeof(cudaIpcMemHandle_t) == GPU_IPC_BYTES, "CUDA IPC memory handle size");
    static_assert(sizeof(cudaIpcEventHandle_t) == GPU_IPC_BYTES, "CUDA IPC event handle size");
    cudaIpcMemHandle_t send;
    cudaIpcEventHandle_t packed;
    memset(mine, 0, sizeof *mine);
    GPU_TRY(b, cudaEventCreateWithFlags(&b->packed, cudaEventInterprocess | cudaEventDisableTiming),
            "interprocess event");
    GPU_TRY(b, cudaIpcGetMemHandle(&send, b->d_send), "CUDA IPC handle of the send buffer");
    GPU_TRY(b, cudaIpcGetEventHandle(&packed, b->packed), "CUDA IPC handle of an event");
    memcpy(mine->send, &send, sizeof send);
    memcpy(mine->packed, &packed, sizeof packed);
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* A neighbour's buffer or event that cannot be opened (GPUs without peer
 * access, IPC refused): the row is declined, not an error of the kernel. */
static spb_status peer_unreachable(cudaError_t err, const char *what, char *msg)
{
    cudaGetLastError(); /* the failure is reported here, not by a later call */
    return spb_fail(msg, SPB_ERR_DECLINED,
                    "CUDA IPC cannot open a neighbour's %s (%s): its GPU is not reachable "
                    "from this rank's; mpi.cuda.nccl and mpi.cuda.staged do not need it",
                    what, cudaGetErrorString(err));
}

extern "C" spb_status gpu_block_peer_open(gpu_block *b, int peers, const gpu_peer_handle *theirs,
                                          const int *their_start, char *msg)
{
    b->peer_send = new (std::nothrow) double *[peers > 0 ? peers : 1]();
    b->peer_packed = new (std::nothrow) cudaEvent_t[peers > 0 ? peers : 1]();
    b->peer_start = new (std::nothrow) int[peers > 0 ? peers : 1]();
    if (!b->peer_send || !b->peer_packed || !b->peer_start)
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the neighbours' buffers");
    b->peers = peers;
    for (int k = 0; k < peers; k++) {
        cudaIpcMemHandle_t send;
        cudaIpcEventHandle_t packed;
        memcpy(&send, theirs[k].send, sizeof send);
        memcpy(&packed, theirs[k].packed, sizeof packed);
        cudaError_t err =
            cudaIpcOpenMemHandle((void **)&b->peer_send[k], send, cudaIpcMemLazyEnablePeerAccess);
        if (err != cudaSuccess) return peer_unreachable(err, "send buffer", msg);
        err = cudaIpcOpenEventHandle(&b->peer_packed[k], packed);
        if (err != cudaSuccess) return peer_unreachable(err, "event", msg);
        b->peer_start[k] = their_start[k];
    }
    return SPB_OK;
}

extern "C" void gpu_block_peer_close(gpu_block *b)
{
    if (!b) return;
    for (int k = 0; k < b->peers; k++) {
        if (b->peer_send[k]) cudaIpcCloseMemHandle(b->peer_send[k]);
        if (b->peer_packed[k]) cudaEventDestroy(b->peer_packed[k]);
    }
    delete[] b->peer_send;
    delete[] b->peer_packed;
    delete[] b->peer_start;
    b->peer_send = NULL;
    b->peer_packed = NULL;
    b->peer_start = NULL;
    b->peers = 0;
}

extern "C" spb_status gpu_block_peer_pack(gpu_block *b, char *msg)
{
    pack(b);
    if (b->sends_total > 0) /* else no neighbour opened it to wait on */
        GPU_TRY(b, cudaEventRecord(b->packed, b->comm), "event");
    GPU_TRY(b, cudaEventRecord(b->packed_at, b->comm), "event");
    launch_diag(b);
    return SPB_OK;
fail:
    return gpu_state_fail(b, msg);
}

/* Each neighbour's event was recorded before MPI's note said so, and its
 * buffer is not packed again before this rank said its copies are done:
 * the wait is for this product's packing. The copies start once every
 * neighbour packed, so that their leg times the copies alone. */
extern "C" spb_status gpu_block_peer_pull(gpu_block *b, const gpu_exchange_plan *plan,
                                          gpu_product_times *times, char *msg)
{
    if (plan->recvs != b->peers)
        return spb_fail(msg, SPB_ERR_INVALID, "%d neighbours opened for %d in the plan", b->peers,
                        plan->recvs);
    for (int k = 0; k < b->peers; k++)
        GPU_TRY(b, cudaStreamWaitEvent(b->comm, b->peer_packed[k], 0), "a neighbour's packing");
    GPU_TRY(b, cudaEventRecord(b->copies_start, b->comm), "event");
    for (int k = 0; k < b->peers; k++) {
        size_t count = (size_t)(plan->recv_start[k + 1] - plan->recv_start[k]);
        GPU_TRY(b,
                cudaMemcpyAsync(b->d_ghosts + plan->recv_start[k],
                                b->peer_send[k] + b->peer_start[k], sizeof(double) * count,
                                cudaMemcpyDefault, b->comm),
                "ghosts from a neighbour's GPU");
    }
    return finish_with_legs(b, b->exchange_start, b->packed_at, b->copies_start, times, msg);
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
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 0)
    /* the fewest CTAs that keep the exchange's pace: it runs beside the
     * diagonal block, whose SMs it would otherwise take */
    config.CTAPolicy = NCCL_CTA_POLICY_EFFICIENCY;
#endif
    ncclResult_t r = ncclCommInitRankConfig(&b->nccl, ranks, unique, rank, &config);
    if (r != ncclSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "NCCL communicator: %s", ncclGetErrorString(r));
    b->has_nccl = 1;
    return SPB_OK;
}

extern "C" spb_status gpu_block_nccl_product(gpu_block *b, const gpu_exchange_plan *plan,
                                             gpu_product_times *times, char *msg)
{
    /* NCCL's enqueue costs the host microseconds: the longer of the two
     * paths (as the last product measured them) is launched first */
    int exchange_first = b->last_exchange_ms > b->last_diag_ms;
    pack(b);
    if (!exchange_first) launch_diag(b);
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
    if (exchange_first) launch_diag(b);
    if (r != ncclSuccess)
        return spb_fail(msg, SPB_ERR_DEVICE, "NCCL exchange: %s", ncclGetErrorString(r));
    GPU_TRY(b, cudaEventRecord(b->arrived, b->comm), "event");
    return finish_product(b, times, msg);
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
                                             gpu_product_times *times, char *msg)
{
    (void)b, (void)plan, (void)times;
    return spb_fail(msg, SPB_ERR_DECLINED, "spbench was built without NCCL");
}

#endif
