/* dist.h — distributed SpMV over MPI ranks: the runtime that lets one
 * spbench process (rank 0) drive the others, and the distributed kernel
 * rows of the SpMV table.
 *
 * Under an MPI launcher every rank starts spbench; rank 0 runs the command
 * as usual (reads the matrix, measures, writes every output) and the other
 * ranks only serve it: dist_start() keeps them in a loop that waits for rank
 * 0's commands (prepare a kernel on the first P ranks, time, multiply,
 * release) and never returns. A rank count P of a study is the first P ranks
 * of the world; the ranks beyond it sleep between commands, so one launch
 * measures every rank count of a strong-scaling study. Without MPI (built
 * without it, or not started by a launcher) spbench is one process and the
 * distributed rows say why they cannot run. */
#ifndef SPB_DIST_H
#define SPB_DIST_H

#include "core/kernel.h"
#include "formats/format_set.h"

/* Called first in main, before the OpenMP runtime's placement is fixed:
 * under an MPI launcher that left this rank unbound, binds it to its share
 * of the node's cores (none when ranks outnumber cores). */
void dist_place_rank(void);

/* Then: under an MPI launcher, initialises MPI and keeps every rank but 0
 * serving rank 0 until it ends (those never return). Returns on rank 0,
 * and in a process without MPI. started_by_spbench: run --ranks's own
 * mpirun started it (each rank then dies with that launcher). */
void dist_start(int started_by_spbench);

/* Ranks in the world (1 without MPI), and whether MPI was built in and
 * whether this process runs under a launcher; why not, when not. */
int dist_world_size(void);
int dist_compiled(void);
int dist_launched(void);
const char *dist_unavailable(void); /* "" when distributed rows can run */
int dist_petsc_compiled(void);

/* Open MPI's shared-memory single-copy mechanism among this node's ranks
 * ("cma", "none", ...), as the library runs with it; "" where unknown or
 * no other rank shares the node. */
const char *dist_shared_memory_copy(void);

/* How this rank was placed: cores it may run on and how they were chosen,
 * for the run's header ("bound by the launcher", "its share of ..."). */
const char *dist_placement(void);

/* What a distributed row measured besides its time; NAN where it does not
 * apply. Times are per product, the slowest rank's. */
typedef struct {
    int ranks;
    double compute_s;    /* local products (diagonal and off-diagonal blocks) */
    double comm_s;       /* exposed communication: the product's time less compute */
    double exchange_s;   /* GPU rows: the ghost exchange, packing to arrival, exposed or hidden */
    double exchange_gbs; /* bytes_max over exchange_s */
    double bytes_max;    /* bytes of x (and y for 2-D) a rank sends per product, max */
    double bytes_mean;   /* and mean over ranks */
    double neighbours;   /* ranks a rank sends to or receives from, max */
    double imbalance;    /* stored entries per rank, max over mean */
    /* mpi.cuda.staged: the host path's three legs, per product, the slowest
     * rank's: device to host (the packing included), MPI between the ranks
     * (waiting for a neighbour's copy included), host to device;
     * mpi.cuda.peer: the packing, MPI's notes that the neighbours packed
     * (waiting for them included), the copies out of their buffers */
    double to_host_s, mpi_s, to_device_s;
    const char *leg_names[3]; /* the legs' names in the row's message (NULL: no legs) */
    int leg_moves[3];         /* whether the leg moves the bytes (its GB/s is said) */
} spb_dist_stats;

void dist_stats_init(spb_dist_stats *s);

/* The distributed rows (mpi.*, petsc.mpiaij): backend SPB_BACKEND_MPI, run
 * at each rank count (config->ranks) and thread count; their product is
 * whole (x scattered from rank 0, y gathered to it) and time_calls times
 * products on the distributed data. Listed even when MPI was not built
 * (supports() says why). */
extern const spb_spmv_kernel dist_spmv_kernels[];
extern const int dist_spmv_kernel_count;

/* 1 when kernel is a distributed row whose ranks multiply on GPUs (the
 * mpi.cuda.* rows: their exchange's, never their name's say). */
int dist_kernel_on_gpus(const spb_kernel *kernel);

/* Whether a distributed kernel cannot run on this machine whatever the
 * launch (a GPU rank's row without a GPU, PETSc or NCCL not built in),
 * with why: the launcher leaves such rows out before any rank starts. */
int dist_kernel_unavailable(const spb_kernel *self, char *why);

/* The prepared row's figures after its timing (state from prepare), and
 * per timed sample the most of any rank, per product, of each series:
 * returns the samples (the caller takes their medians into out; 0 when the
 * row cannot split its time); series[DIST_EXCHANGE] is NULL for rows that
 * do not time their exchange apart (the CPU rows), and the legs' series
 * (DIST_TO_HOST ..) for rows other than mpi.cuda.staged and mpi.cuda.peer. */
enum {
    DIST_COMPUTE,
    DIST_COMM,
    DIST_EXCHANGE,
    DIST_TO_HOST,
    DIST_MPI,
    DIST_TO_DEVICE,
    DIST_SERIES
};
int dist_kernel_stats(const void *state, spb_dist_stats *out, double *series[DIST_SERIES]);

#endif
