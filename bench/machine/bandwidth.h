/* bandwidth.h — memory bandwidth measured on this machine, the bound the
 * roofline fractions are judged against. Two CPU kernels over three arrays
 * that together hold 4x the last-level cache, each timed over repeated
 * passes (every pass a sample):
 *   read  — the traffic SpMV does: the arrays streamed, one small sum per
 *           thread written (24 bytes per element, all reads);
 *   triad — a[i] = b[i] + s*c[i] (24 bytes per element: on the machines
 *           measured its element rate equals the read stream's, so its
 *           store costs no extra read; counted with one it would exceed
 *           what the cores can read).
 * Why 4x the cache and not far more: a cache that is not strictly LRU
 * keeps part of a cyclically streamed working set, so back-to-back SpMV
 * calls on a matrix 4-6x the cache move more bytes per second than a
 * stream over 10x the cache. Measured at 4x, the bound holds for every
 * working set from 4x the cache up (rows below that are marked in_cache). */
#ifndef SPB_BANDWIDTH_H
#define SPB_BANDWIDTH_H

#include "core/spb.h"

#define SPB_BW_SAMPLES_MAX 256
#define SPB_BW_MIN_PASSES  5   /* at least this many passes per measurement */
#define SPB_BW_MAX_SECONDS 1.0 /* and no more once this long has passed */

typedef struct {
    int trials;                         /* passes timed */
    double best, median, worst;         /* GB/s over them */
    double samples[SPB_BW_SAMPLES_MAX]; /* the first SPB_BW_SAMPLES_MAX passes */
} spb_bw_stat;

void bw_stat_add(spb_bw_stat *s, double gbytes_per_s);

/* A generous last-level cache per CPU (3D V-Cache parts have 12 MiB): the
 * cap on a CPUID figure that sysfs cannot confirm. */
#define SPB_LLC_PER_CPU_CAP (16.0 * 1048576)

/* The last-level cache this process's CPUs reach, in bytes (0 when
 * unknown): sysfs's caches, each counted once, else CPUID's figure capped
 * at SPB_LLC_PER_CPU_CAP per CPU; why (when not NULL) says which. */
double bandwidth_cpu_llc_bytes(char *why, size_t size);

/* `passes` timed passes of each CPU kernel at `threads` threads (fewer,
 * but at least SPB_BW_MIN_PASSES, when they take over SPB_BW_MAX_SECONDS),
 * added to read and triad, over arrays sized from the cache llc (bytes). */
spb_status bandwidth_cpu(int threads, int passes, double llc, int (*stopped)(void),
                         spb_bw_stat *read, spb_bw_stat *triad, char *msg);

#endif
