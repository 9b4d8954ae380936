/* exchange_gpu.c — the GPU ranks' exchanges (mpi.cuda.*): each rank's
 * blocks on its GPU over the ghost plan (exchange.c), the ghosts staged
 * through host memory, sent by NCCL, or copied from the neighbours' GPUs
 * by CUDA IPC (the peer exchange). */
#include <stdio.h>

#include "dist_mpi.h"
#include "gpu/gpu.h"
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h> /* Open MPI's extensions: MPIX_Query_cuda_support */
#endif

/* The peer exchange's notes: a neighbour's send buffer packed (its event
 * recorded), and this rank's copies out of it done. */
#define TAG_PACKED 22
#define TAG_COPIED 23

/* The device row that multiplies a GPU rank's diagonal block: spbench's
 * own auto row (the one that tries its candidates), found by its role. */
static const spb_kernel *diag_kernel(void)
{
    for (int k = 0; k < gpu_spmv_kernel_count(); k++) {
        const spb_kernel *kernel = gpu_spmv_kernel(k);
        if (kernel->trials && !kernel->library) return kernel;
    }
    return NULL;
}

/* This rank's GPU: its place among the row's ranks on its node, modulo
 * the node's GPUs (NCCL needs one per rank). */
static spb_status pick_device(const dist_state *s, int *device, char *msg)
{
    int local, devices = gpu_device_count(), local_size = dist_node_ranks(s->comm, &local);
    *device = devices > 0 ? local % devices : 0;
    if (devices < 1 || !diag_kernel())
        return spb_fail(msg, SPB_ERR_DECLINED, "no GPU on this rank's node");
    if (s->variant->exchange == DIST_GPU_NCCL && local_size > devices)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "%d ranks share %d GPU%s on a node: NCCL needs a GPU per rank", local_size,
                        devices, devices == 1 ? "" : "s");
    return SPB_OK;
}

/* NCCL over the row's ranks: rank 0's unique id to all, a communicator each. */
static spb_status nccl_plan(dist_state *s, char *msg)
{
    unsigned char id[GPU_NCCL_ID_BYTES] = {0};
    spb_status st = dist_agree(s->comm, s->rank == 0 ? gpu_nccl_id(id, msg) : SPB_OK, msg);
    if (st != SPB_OK) return st;
    MPI_Bcast(id, GPU_NCCL_ID_BYTES, MPI_BYTE, 0, s->comm);
    return dist_agree(s->comm, gpu_block_nccl_init(s->gpu.block, id, s->size, s->rank, msg), msg);
}

/* Whether this MPI moves device buffers itself (Open MPI's extension asks
 * the library it runs with). The staged row stages through host memory
 * either way; its message says which MPI it had. */
static int mpi_cuda_aware(void)
{
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

/* The staged row's message: its path first, then the blocks' kernels. */
static void say_staged_path(char *msg)
{
    char blocks[SPB_MSG_LEN];
    snprintf(blocks, sizeof blocks, "%s", msg);
    snprintf(msg, SPB_MSG_LEN, "ghosts through page-locked host memory (%s); %.*s",
             mpi_cuda_aware() ? "this MPI is CUDA-aware, but the row stages by design"
                              : "this MPI is not CUDA-aware",
             SPB_MSG_LEN - 120, blocks);
}

/* The peer exchange: every rank of the row on one node (CUDA IPC reaches
 * no further); each exports its send buffer and event, and opens those of
 * the neighbours its ghosts come from, with where its entries begin in
 * each. */
static spb_status peer_plan(dist_state *s, char *msg)
{
    int size = s->size;
    if (dist_node_ranks(s->comm, NULL) < size)
        return dist_agree(s->comm,
                          spb_fail(msg, SPB_ERR_DECLINED,
                                   "the row's ranks span nodes: CUDA IPC reaches one node's GPUs "
                                   "(mpi.cuda.nccl and mpi.cuda.staged do not need it)"),
                          msg);
    gpu_peer_handle mine, *all = spb_malloc((size_t)size, sizeof *all);
    gpu_peer_handle *theirs = spb_malloc((size_t)s->ghost.recvs + 1, sizeof *theirs);
    int *start_for = spb_malloc(2 * (size_t)size, sizeof *start_for);
    int *their_start = spb_malloc((size_t)s->ghost.recvs + 1, sizeof *their_start);
    spb_status st = all && theirs && start_for && their_start
                        ? gpu_block_peer_export(s->gpu.block, &mine, msg)
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the peer exchange");
    if ((st = dist_agree(s->comm, st, msg)) == SPB_OK) {
        s->gpu.peer_exported = 1;
        MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, s->comm);
        for (int p = 0; p < size; p++) start_for[p] = -1;
        for (int k = 0; k < s->ghost.sends; k++)
            start_for[s->ghost.send_rank[k]] = s->ghost.send_start[k];
        MPI_Alltoall(start_for, 1, MPI_INT, start_for + size, 1, MPI_INT, s->comm);
        for (int k = 0; k < s->ghost.recvs; k++) {
            theirs[k] = all[s->ghost.recv_rank[k]];
            their_start[k] = start_for[size + s->ghost.recv_rank[k]];
        }
        st = dist_agree(s->comm,
                        gpu_block_peer_open(s->gpu.block, s->ghost.recvs, theirs, their_start, msg),
                        msg);
    }
    spb_free(all);
    spb_free(theirs);
    spb_free(start_for);
    spb_free(their_start);
    return st;
}

/* The GPU rows, on the ghost plan (as mpi.rows): the blocks on the rank's GPU. */
spb_status exchange_gpu_plan(dist_state *s, char *msg)
{
    int device;
    spb_status st = pick_device(s, &device, msg);
    if (st == SPB_OK) {
        gpu_block_spec spec = {diag_kernel(),
                               &s->ghost.diag,
                               &s->ghost.off,
                               s->ghost.off_rows,
                               s->ghost.send_idx,
                               s->ghost.send_start[s->ghost.sends],
                               s->ghost.recv_start[s->ghost.recvs],
                               device,
                               s->ghost.send_buf,
                               s->x_other,
                               {s->matrix, s->size, s->rank, (int)s->variant->layout},
                               s->row};
        st = gpu_block_create(&spec, &s->gpu.block, msg);
        if (st == SPB_OK && s->variant->exchange == DIST_GPU_STAGED) say_staged_path(msg);
    }
    st = dist_agree(s->comm, st, msg);
    if (st == SPB_OK && s->variant->exchange == DIST_GPU_NCCL) st = nccl_plan(s, msg);
    if (st == SPB_OK && s->variant->exchange == DIST_GPU_PEER) st = peer_plan(s, msg);
    return st;
}

/* The first failure of a GPU rank's device calls, for the row's check. */
void exchange_keep_gpu_failure(dist_state *s, spb_status st, const char *msg)
{
    if (st == SPB_OK || s->gpu.status != SPB_OK) return;
    s->gpu.status = st;
    snprintf(s->gpu.msg, sizeof s->gpu.msg, "%s", msg);
}

/* Zero-byte notes of the peer exchange to the `to` ranks and from the
 * `from` ranks (the ghost plan's requests: receives first). */
static void peer_notes(dist_state *s, int tag, int to, const int *to_rank, int from,
                       const int *from_rank)
{
    MPI_Request *r = s->ghost.requests;
    for (int k = 0; k < from; k++) MPI_Irecv(NULL, 0, MPI_BYTE, from_rank[k], tag, s->comm, &r[k]);
    for (int k = 0; k < to; k++)
        MPI_Isend(NULL, 0, MPI_BYTE, to_rank[k], tag, s->comm, &r[from + k]);
    MPI_Waitall(from + to, r, MPI_STATUSES_IGNORE);
}

/* The peer exchange's product: the packing's event recorded, the ranks
 * that copy out of this rank's buffer told so; the copies out of the
 * neighbours' buffers once they said the same; then this rank's copies
 * done, told to those neighbours, which pack again only after hearing it. */
static spb_status peer_product(dist_state *s, const gpu_exchange_plan *plan,
                               gpu_product_times *times, char *msg)
{
    dist_ghost *g = &s->ghost;
    spb_status st = gpu_block_peer_pack(s->gpu.block, msg);
    double start = MPI_Wtime();
    peer_notes(s, TAG_PACKED, g->sends, g->send_rank, g->recvs, g->recv_rank);
    s->local_mpi += MPI_Wtime() - start;
    if (st == SPB_OK) st = gpu_block_peer_pull(s->gpu.block, plan, times, msg);
    peer_notes(s, TAG_COPIED, g->recvs, g->recv_rank, g->sends, g->send_rank);
    return st;
}

/* A GPU rank's product: its exchange beside its diagonal block; the
 * messages are posted even after a device failure, so that no neighbour
 * waits forever (the failure is kept for the row's check). A rank with no
 * neighbour (one rank, or rows that need no other rank's x) runs the same
 * local product in every GPU row: one row's exchange bookkeeping once made
 * its one-rank time, the base of its speedups, up to 10 us longer than another's. */
void exchange_gpu_product(dist_state *s)
{
    char msg[SPB_MSG_LEN] = "";
    gpu_product_times times = {0, 0, 0, 0};
    spb_status st;
    gpu_exchange_plan plan = {s->ghost.sends,      s->ghost.recvs,     s->ghost.send_rank,
                              s->ghost.send_start, s->ghost.recv_rank, s->ghost.recv_start};
    if (s->ghost.sends + s->ghost.recvs == 0) {
        st = gpu_block_local_product(s->gpu.block, &times, msg);
    } else if (s->variant->exchange == DIST_GPU_NCCL) {
        st = gpu_block_nccl_product(s->gpu.block, &plan, &times, msg);
    } else if (s->variant->exchange == DIST_GPU_PEER) {
        st = peer_product(s, &plan, &times, msg);
    } else {
        st = gpu_block_start(s->gpu.block, msg);
        double start = MPI_Wtime();
        exchange_post_receives(s);
        exchange_post_sends(s);
        MPI_Waitall(s->ghost.recvs + s->ghost.sends, s->ghost.requests, MPI_STATUSES_IGNORE);
        s->local_mpi += MPI_Wtime() - start;
        if (st == SPB_OK) st = gpu_block_finish(s->gpu.block, &times, msg);
    }
    s->local_compute += times.compute_s;
    s->local_exchange += times.exchange_s;
    s->local_to_host += times.to_host_s;
    s->local_to_device += times.to_device_s;
    exchange_keep_gpu_failure(s, st, msg);
}
