/* product_graph.cu — what a GPU rank's product costs the host beyond its
 * kernels, with the calls issued one by one (as gpu/dist_block.cu issues
 * them) and as one CUDA graph: a one-rank product (the diagonal block
 * alone, its timing events and the exchange stream's empty events) and a
 * two-rank-like one (packing, a device copy for the exchange, a ghost
 * block beside the diagonal, the additions). The "diagonal block" streams
 * DOUBLES entries (default 7M: about lap3d:100's product). Prints the
 * median and spread of 2000 products, host clock, launch to synchronised.
 * Also says whether an interprocess event can be recorded, and an event
 * recorded outside waited on, inside a stream capture.
 *
 *   nvcc -arch=sm_90 -O2 -o product_graph scripts/dev/product_graph.cu
 *   ./product_graph [doubles]
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "cuda_check.h"

#define REPS 2000

__global__ void stream_kernel(const double *__restrict__ in, double *__restrict__ out, long n)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0 * in[i];
}

__global__ void gather_kernel(const double *__restrict__ x, int n, double *__restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[(i * 7) % n];
}

static double now_us(void)
{
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

static void report(const char *what, const std::function<void()> &product)
{
    std::vector<double> t(REPS);
    for (int r = 0; r < 50; r++) product();
    for (int r = 0; r < REPS; r++) {
        double t0 = now_us();
        product();
        t[r] = now_us() - t0;
    }
    std::sort(t.begin(), t.end());
    printf("%-58s median %7.2f us  (p10 %.2f, p90 %.2f)\n", what, t[REPS / 2], t[REPS / 10],
           t[REPS * 9 / 10]);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 7000000;
    int ghosts = 90000; /* lap3d:300's plane, about */
    double *in, *out, *send, *recv, *ghost_y;
    CHECK(cudaMalloc(&in, n * sizeof(double)));
    CHECK(cudaMalloc(&out, n * sizeof(double)));
    CHECK(cudaMalloc(&send, ghosts * sizeof(double)));
    CHECK(cudaMalloc(&recv, ghosts * sizeof(double)));
    CHECK(cudaMalloc(&ghost_y, ghosts * sizeof(double)));
    CHECK(cudaMemset(in, 1, n * sizeof(double)));
    cudaStream_t main_s, comm;
    int least, greatest;
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(cudaStreamCreateWithFlags(&main_s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithPriority(&comm, cudaStreamNonBlocking, greatest));
    cudaEvent_t ev[10];
    for (cudaEvent_t &e : ev) CHECK(cudaEventCreate(&e));
    enum { EXCH, DSTART, DSTOP, ARRIVED, TSTART, TSTOP, OFFDONE, FORK };
    unsigned blocks = (unsigned)((n + 255) / 256), gblocks = (unsigned)((ghosts + 255) / 256);
    float ms;

    /* a timing event: in a capture, recorded as an event record node
     * (external) or as a plain record, which a capture keeps only as a
     * dependency between its streams */
    bool external = false;
    auto mark = [&](cudaEvent_t e, cudaStream_t s) {
        CHECK(cudaEventRecordWithFlags(e, s, external ? cudaEventRecordExternal : 0));
    };
    /* the one-rank product, as dist_block.cu issued it on the default stream */
    auto one_rank_calls = [&](cudaStream_t s) {
        mark(ev[EXCH], comm);
        mark(ev[DSTART], s);
        stream_kernel<<<blocks, 256, 0, s>>>(in, out, n);
        mark(ev[DSTOP], s);
        CHECK(cudaEventRecord(ev[ARRIVED], comm));
        CHECK(cudaStreamWaitEvent(s, ev[ARRIVED], 0));
        mark(ev[TSTART], s);
        mark(ev[TSTOP], s);
    };
    /* the local product dist_block.cu issues now: the diagonal's events alone */
    auto local_calls = [&](cudaStream_t s) {
        mark(ev[DSTART], s);
        stream_kernel<<<blocks, 256, 0, s>>>(in, out, n);
        mark(ev[DSTOP], s);
    };
    auto times = [&] {
        CHECK(cudaEventElapsedTime(&ms, ev[DSTART], ev[DSTOP]));
        CHECK(cudaEventElapsedTime(&ms, ev[TSTART], ev[TSTOP]));
    };
    report("kernel alone + sync", [&] {
        stream_kernel<<<blocks, 256, 0, main_s>>>(in, out, n);
        CHECK(cudaStreamSynchronize(main_s));
    });
    report("one rank: calls one by one (default stream)", [&] {
        one_rank_calls(0);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(0));
        times();
    });
    report("local product: calls one by one (default stream)", [&] {
        local_calls(0);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(0));
        CHECK(cudaEventElapsedTime(&ms, ev[DSTART], ev[DSTOP]));
    });
    /* the same captured: comm joins the capture through a forked event */
    auto capture = [&](const std::function<void()> &body) {
        cudaGraph_t graph;
        cudaGraphExec_t exec;
        CHECK(cudaStreamBeginCapture(main_s, cudaStreamCaptureModeThreadLocal));
        CHECK(cudaEventRecord(ev[FORK], main_s));
        CHECK(cudaStreamWaitEvent(comm, ev[FORK], 0));
        body();
        CHECK(cudaStreamEndCapture(main_s, &graph));
        CHECK(cudaGraphInstantiate(&exec, graph, 0));
        CHECK(cudaGraphDestroy(graph));
        return exec;
    };
    /* can a graph's events be timed? plain records, then external ones */
    for (int pass = 0; pass < 2; pass++) {
        external = pass == 1;
        cudaGraphExec_t probe = capture([&] { one_rank_calls(main_s); });
        CHECK(cudaGraphLaunch(probe, main_s));
        CHECK(cudaStreamSynchronize(main_s));
        cudaError_t timed = cudaEventElapsedTime(&ms, ev[DSTART], ev[DSTOP]);
        printf("a graph's %s event records timed: %s (%.4f ms)\n", external ? "external" : "plain",
               cudaGetErrorString(timed), timed == cudaSuccess ? ms : 0.0f);
        cudaGetLastError();
        CHECK(cudaGraphExecDestroy(probe));
    }
    /* the graphs' times read as the product would read them, failing or not */
    auto graph_times = [&] {
        cudaEventElapsedTime(&ms, ev[DSTART], ev[DSTOP]);
        cudaEventElapsedTime(&ms, ev[TSTART], ev[TSTOP]);
        cudaGetLastError();
    };
    cudaGraphExec_t one = capture([&] { one_rank_calls(main_s); });
    report("one rank: one graph (external event records)", [&] {
        CHECK(cudaGraphLaunch(one, main_s));
        CHECK(cudaStreamSynchronize(main_s));
        graph_times();
    });

    /* two-rank-like: packing and the exchange (a device copy) on comm, the
     * ghost block beside the diagonal, the additions after both */
    auto two_rank_calls = [&](cudaStream_t s) {
        mark(ev[EXCH], comm);
        gather_kernel<<<gblocks, 256, 0, comm>>>(in, ghosts, send);
        mark(ev[DSTART], s);
        stream_kernel<<<blocks / 2, 256, 0, s>>>(in, out, n / 2);
        mark(ev[DSTOP], s);
        CHECK(cudaMemcpyAsync(recv, send, ghosts * sizeof(double), cudaMemcpyDeviceToDevice, comm));
        CHECK(cudaEventRecord(ev[ARRIVED], comm));
        gather_kernel<<<gblocks, 256, 0, comm>>>(recv, ghosts, ghost_y);
        CHECK(cudaEventRecord(ev[OFFDONE], comm));
        CHECK(cudaStreamWaitEvent(s, ev[OFFDONE], 0));
        mark(ev[TSTART], s);
        gather_kernel<<<gblocks, 256, 0, s>>>(ghost_y, ghosts, out);
        mark(ev[TSTOP], s);
    };
    auto two_times = [&] {
        times();
        CHECK(cudaEventElapsedTime(&ms, ev[EXCH], ev[DSTOP]));
    };
    external = false;
    report("two-rank-like: calls one by one (default stream)", [&] {
        two_rank_calls(0);
        CHECK(cudaGetLastError());
        CHECK(cudaStreamSynchronize(0));
        two_times();
    });
    external = true;
    cudaGraphExec_t two = capture([&] { two_rank_calls(main_s); });
    report("two-rank-like: one graph (external event records)", [&] {
        CHECK(cudaGraphLaunch(two, main_s));
        CHECK(cudaStreamSynchronize(main_s));
        graph_times();
    });

    /* what the peer exchange would capture */
    cudaEvent_t ipc, outside;
    CHECK(cudaEventCreateWithFlags(&ipc, cudaEventInterprocess | cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&outside, cudaEventDisableTiming));
    CHECK(cudaEventRecord(outside, comm));
    cudaGraph_t g;
    CHECK(cudaStreamBeginCapture(main_s, cudaStreamCaptureModeThreadLocal));
    cudaError_t rec = cudaEventRecordWithFlags(ipc, main_s, cudaEventRecordExternal);
    cudaError_t wait_ext = cudaStreamWaitEvent(main_s, outside, cudaEventWaitExternal);
    cudaError_t end = cudaStreamEndCapture(main_s, &g);
    printf("capture: interprocess event recorded (external): %s; outside event waited on "
           "(external): %s; "
           "end: %s\n",
           cudaGetErrorString(rec), cudaGetErrorString(wait_ext), cudaGetErrorString(end));
    cudaGetLastError();
    return 0;
}
