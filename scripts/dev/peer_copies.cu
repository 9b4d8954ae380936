/* peer_copies.cu — what the copy engines give when every GPU of a node
 * exchanges with every other at once (the GPU ranks' ghost exchange on a
 * random matrix), beside one pair alone (the run header's "GPU link" line).
 * One process, peer copies between the GPUs (as mpi.cuda.peer's CUDA IPC
 * copies), each GPU receiving a segment of SEGMENT_MIB from each other one:
 * pulled (issued by the receiver) or pushed (by the sender), on one stream
 * per GPU or one per neighbour. Prints the time of one exchange (mean of 20)
 * and the bytes each GPU receives per second.
 *
 *   nvcc -arch=sm_90 -O2 -o peer_copies scripts/dev/peer_copies.cu
 *   ./peer_copies [SEGMENT_MIB (default 39)] [GPUS (default all)]
 */
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "cuda_check.h"

#define MAX_GPUS 16
#define REPS     20

static int gpus;
static size_t segment;
static char *send_buf[MAX_GPUS], *ghosts[MAX_GPUS];
static cudaStream_t stream[MAX_GPUS][MAX_GPUS]; /* [issuing GPU][neighbour] */

static void sync_all(void)
{
    for (int g = 0; g < gpus; g++) {
        CHECK(cudaSetDevice(g));
        CHECK(cudaDeviceSynchronize());
    }
}

/* GPU `to` receives segment `to` of GPU `from`'s send buffer at ghosts
 * segment `from`; only pair 1 -> 0 when `one_pair`. */
static void exchange(int push, int stream_per_neighbour, int one_pair)
{
    for (int to = 0; to < gpus; to++)
        for (int from = 0; from < gpus; from++) {
            if (to == from || (one_pair && !(to == 0 && from == 1))) continue;
            int issuer = push ? from : to, other = push ? to : from;
            CHECK(cudaSetDevice(issuer));
            CHECK(cudaMemcpyAsync(ghosts[to] + segment * from, send_buf[from] + segment * to,
                                  segment, cudaMemcpyDefault,
                                  stream[issuer][stream_per_neighbour ? other : 0]));
        }
}

static void measure(const char *name, int push, int stream_per_neighbour, int one_pair)
{
    exchange(push, stream_per_neighbour, one_pair); /* warm-up */
    sync_all();
    auto start = std::chrono::steady_clock::now();
    for (int r = 0; r < REPS; r++) {
        exchange(push, stream_per_neighbour, one_pair);
        sync_all();
    }
    double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / REPS;
    double received = (double)segment * (one_pair ? 1 : gpus - 1);
    printf("%-34s %8.3f ms %8.1f GB/s received per GPU\n", name, s * 1e3, received / s / 1e9);
}

int main(int argc, char **argv)
{
    segment = (size_t)(argc > 1 ? atof(argv[1]) : 39) * (1 << 20);
    CHECK(cudaGetDeviceCount(&gpus));
    if (argc > 2 && atoi(argv[2]) < gpus) gpus = atoi(argv[2]);
    if (gpus < 2 || gpus > MAX_GPUS) {
        fprintf(stderr, "needs 2 to %d GPUs (this process sees %d)\n", MAX_GPUS, gpus);
        return 1;
    }
    for (int g = 0; g < gpus; g++) {
        CHECK(cudaSetDevice(g));
        for (int o = 0; o < gpus; o++) {
            int can = 0;
            CHECK(cudaDeviceCanAccessPeer(&can, g, o));
            if (o != g && can) CHECK(cudaDeviceEnablePeerAccess(o, 0));
            CHECK(cudaStreamCreateWithFlags(&stream[g][o], cudaStreamNonBlocking));
        }
        CHECK(cudaMalloc(&send_buf[g], segment * gpus));
        CHECK(cudaMalloc(&ghosts[g], segment * gpus));
        CHECK(cudaMemset(send_buf[g], g + 1, segment * gpus));
    }
    printf("%d GPUs, %.1f MiB from each neighbour\n", gpus, segment / 1048576.0);
    measure("one pair, pulled", 0, 0, 1);
    measure("one pair, pushed", 1, 0, 1);
    measure("all pairs, pulled, one stream", 0, 0, 0);
    measure("all pairs, pulled, stream/neighbour", 0, 1, 0);
    measure("all pairs, pushed, one stream", 1, 0, 0);
    measure("all pairs, pushed, stream/neighbour", 1, 1, 0);
    return 0;
}
