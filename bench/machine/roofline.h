/* roofline.h — the bandwidth bound of a run: per CPU thread count the read
 * and triad statistics, and on the GPU the read and copy statistics; the
 * roofline is the highest sustained (best-pass) figure of each. Measured
 * at the start and again between matrices in long runs, each measurement
 * adding its passes, so a pass that caught a busy moment cannot lower the
 * bound. The last-level cache sizes decide which rows are in cache. */
#ifndef SPB_ROOFLINE_H
#define SPB_ROOFLINE_H

#include "bench/machine/bandwidth.h"

#define SPB_ROOFLINE_THREADS  64
#define SPB_REMEASURE_SECONDS 60.0 /* between matrices, when this long has passed */
#define SPB_PASSES_FIRST      30   /* passes per kernel at the start of a run */
#define SPB_PASSES_AGAIN      3    /* and at each re-measurement */

typedef struct {
    int threads;
    spb_bw_stat read, triad;
} spb_cpu_bandwidth;

/* Where a run's CPU figures come from. */
typedef enum {
    SPB_BW_MEASURED, /* measured by this run */
    SPB_BW_REUSED,   /* a figure this machine measured before (roofline_cache.c) */
    SPB_BW_GIVEN,    /* --bandwidth GBPS */
    SPB_BW_NONE      /* --bandwidth none: no roofline, the rows say so */
} spb_bw_source;

typedef struct {
    spb_cpu_bandwidth cpu[SPB_ROOFLINE_THREADS]; /* [0]: one thread */
    int cpu_count;
    int gpu;                        /* the GPU is measured */
    spb_bw_stat gpu_read, gpu_copy; /* copy counts read + write */
    double cpu_llc_bytes, gpu_l2_bytes;
    /* distributed GPU rows on two GPUs or more: GPU 0 to GPU 1's copy,
     * the bound of their exchange (peer_direct: over peer access) */
    int gpu_peer, gpu_peer_direct;
    spb_bw_stat gpu_peer_copy;
    int measurements;         /* how many times the whole set was measured */
    double first_at, last_at; /* timing_now() of the first and last */
    int (*stopped)(void);     /* a stop asked for (a signal): the passes end early */
    spb_bw_source cpu_source;
    double cpu_measured_at; /* when the CPU figures were measured (seconds since the epoch) */
    char llc_source[200];   /* where cpu_llc_bytes comes from */
    char cpu_key[1024];     /* what the kept figures are filed under (roofline_cache.c) */
} spb_roofline;

/* Sets the thread counts (1 is always measured) and cache sizes. */
void roofline_init(spb_roofline *r, const int *threads, int count, int gpu, double gpu_l2_bytes);

/* The bytes of each timed copy between two GPUs. */
#define SPB_PEER_COPY_BYTES (256.0 * 1048576)

/* Adds `passes` passes of every kernel at every thread count (when the CPU
 * figures are this run's to measure), and the GPU, and the link between
 * GPUs where gpu_peer is set. */
spb_status roofline_measure(spb_roofline *r, int passes, char *msg);

/* The CPU figures given rather than measured: gbps at every thread count
 * (SPB_BW_GIVEN), or none at all when gbps is 0 (SPB_BW_NONE). */
void roofline_give(spb_roofline *r, double gbps);

/* The CPU figures this machine measured before, from the cache file, when
 * every thread count of r has one under `key` younger than max_age_s:
 * 1 (SPB_BW_REUSED), else 0 with r unchanged. */
int roofline_reuse(spb_roofline *r, const char *key, double max_age_s);

/* Keeps r's measured CPU figures in the cache file under `key` (replacing
 * older ones of the same key and thread counts); 0 with why when it could
 * not (the figures are a convenience: the run goes on). */
int roofline_store(const spb_roofline *r, const char *key, char *why, size_t size);

/* A bandwidth in GB/s as text, read strictly (the cache file's figures and
 * --bandwidth alike): a plain decimal number, whole text, within
 * [ROOFLINE_MIN_GBPS, ROOFLINE_MAX_GBPS]; 0 for anything else (inf, nan,
 * 0x10, 12abc, 1e-300, 1e9). */
#define ROOFLINE_MIN_GBPS 0.01
#define ROOFLINE_MAX_GBPS 1e5
int roofline_parse_gbps(const char *text, double *gbps);

/* The cache file: $SPB_BANDWIDTH_CACHE, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/spbench/bandwidth.tsv. */
void roofline_cache_path(char *out, size_t size);

/* The bound at a thread count, and on the GPU (0: not measured). */
double roofline_cpu(const spb_roofline *r, int threads);
double roofline_gpu(const spb_roofline *r);

#endif
