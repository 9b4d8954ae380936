/* bandwidth.c — CPU read-stream and triad bandwidth (see bandwidth.h). */
#include "bench/machine/bandwidth.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/machine/placement.h"
#include "core/timing.h"

#define UNKNOWN_CACHE_ELEMENTS (8l << 20) /* 64 MiB per array when the cache size is unknown */
#define MIN_ELEMENTS           (1l << 20)

void bw_stat_add(spb_bw_stat *s, double gbytes_per_s)
{
    if (s->trials < SPB_BW_SAMPLES_MAX) s->samples[s->trials] = gbytes_per_s;
    s->trials++;
    int kept = s->trials < SPB_BW_SAMPLES_MAX ? s->trials : SPB_BW_SAMPLES_MAX;
    double sorted[SPB_BW_SAMPLES_MAX];
    memcpy(sorted, s->samples, sizeof sorted[0] * (size_t)kept);
    s->median = timing_median(sorted, kept);
    if (s->trials == 1 || gbytes_per_s > s->best) s->best = gbytes_per_s;
    if (s->trials == 1 || gbytes_per_s < s->worst) s->worst = gbytes_per_s;
}

/* The first line of a sysfs file, or "" when it cannot be read. */
static void read_sysfs(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (f && !fgets(out, (int)size, f)) out[0] = '\0';
    if (f) fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

/* The last-level cache that cpu sees in sysfs: its size and the CPUs that
 * share it; 0 when sysfs says nothing. */
static double sysfs_llc(int cpu, char *shared, size_t size)
{
    double best = 0;
    int best_level = 0;
    for (int index = 0; index < 10; index++) {
        char path[160], level[16], type[32], text[64];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/level", cpu,
                 index);
        read_sysfs(path, level, sizeof level);
        if (!level[0]) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/type", cpu, index);
        read_sysfs(path, type, sizeof type);
        if (strcmp(type, "Instruction") == 0 || atoi(level) < best_level) continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/size", cpu, index);
        read_sysfs(path, text, sizeof text);
        long kib = atol(text);
        if (kib <= 0) continue;
        best_level = atoi(level);
        best = 1024.0 * kib;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
                 cpu, index);
        read_sysfs(path, shared, size);
    }
    return best;
}

double bandwidth_cpu_llc_bytes(char *why, size_t size)
{
    cpu_set_t mine;
    int cpus = 0;
    if (!placement_process_cpus(&mine)) CPU_ZERO(&mine);
    /* every last-level cache this process's CPUs reach, each counted once
     * (threads on two sockets or two core complexes hold data in both) */
    enum { MAX_CACHES = 256 };
    char seen[MAX_CACHES][256];
    int caches = 0;
    double total = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &mine)) continue;
        cpus++;
        char shared[256] = "";
        double bytes = sysfs_llc(cpu, shared, sizeof shared);
        int known = 0;
        for (int k = 0; k < caches && !known; k++) known = strcmp(seen[k], shared) == 0;
        if (bytes <= 0 || known || caches == MAX_CACHES) continue;
        snprintf(seen[caches++], sizeof seen[0], "%s", shared);
        total += bytes;
    }
    if (total > 0) {
        if (why)
            snprintf(why, size, "sysfs: %d last-level cache%s of this process's %d CPUs", caches,
                     caches == 1 ? "" : "s", cpus);
        return total;
    }
    /* no topology in sysfs (a virtual machine): the CPUID figure some
     * hypervisors pass through is the host's (508 MiB on a 2-CPU guest,
     * seen here), so it is capped at a generous share per CPU */
    double cap = SPB_LLC_PER_CPU_CAP * (cpus > 0 ? cpus : 1), l3 = 0;
#ifdef _SC_LEVEL3_CACHE_SIZE
    l3 = (double)sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    if (l3 <= 0) {
        if (why) snprintf(why, size, "unknown (no sysfs topology, no CPUID figure)");
        return 0;
    }
    if (why && l3 > cap)
        snprintf(why, size,
                 "CPUID says %.0f MiB, the host's, not this process's: capped at %.0f MiB per "
                 "CPU of its %d",
                 l3 / 1048576, SPB_LLC_PER_CPU_CAP / 1048576, cpus);
    else if (why)
        snprintf(why, size, "CPUID (no sysfs topology)");
    return l3 > cap ? cap : l3;
}

/* One timed pass of each kernel over arrays of n elements. */
static void time_passes(int threads, long n, const double *b, const double *c, double *a,
                        spb_bw_stat *read, spb_bw_stat *triad)
{
    double sum = 0.0, start = timing_now();
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    { /* the static split of the first touch; four sums so no add chain limits the loads */
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        long i = n * t / nt, end = n * (t + 1) / nt;
        double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
        for (; i + 3 < end; i += 4) {
            s0 += a[i] * b[i] + c[i];
            s1 += a[i + 1] * b[i + 1] + c[i + 1];
            s2 += a[i + 2] * b[i + 2] + c[i + 2];
            s3 += a[i + 3] * b[i + 3] + c[i + 3];
        }
        for (; i < end; i++) s0 += a[i] * b[i] + c[i];
        sum += (s0 + s1) + (s2 + s3);
    }
    double t = timing_now() - start;
    bw_stat_add(read, 24.0 * n / t / 1e9);
    start = timing_now();
    const double s = 3.0 + 1e-300 * sum; /* keeps the read pass live */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
    t = timing_now() - start;
    bw_stat_add(triad, 24.0 * n / t / 1e9);
}

spb_status bandwidth_cpu(int threads, int passes, double llc, int (*stopped)(void),
                         spb_bw_stat *read, spb_bw_stat *triad, char *msg)
{
    /* three arrays of 4/3 of the cache each: 4x the cache in all */
    long n = llc > 0 ? (long)(4.0 / 3.0 * llc / sizeof(double)) : UNKNOWN_CACHE_ELEMENTS;
    if (n < MIN_ELEMENTS) n = MIN_ELEMENTS;
    double *a = spb_malloc((size_t)n, sizeof *a);
    double *b = spb_malloc((size_t)n, sizeof *b);
    double *c = spb_malloc((size_t)n, sizeof *c);
    if (!a || !b || !c) {
        spb_free(a);
        spb_free(b);
        spb_free(c);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the bandwidth arrays");
    }
    /* First touch by the threads that will stream the arrays (time_passes'
     * split); a stop is heard every 8 MiB of each thread's part, as the pages of gigabytes of
     * arrays take seconds to fault in */
    int stop = 0;
#pragma omp parallel num_threads(threads) reduction(| : stop)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        for (long i = n * t / nt, end = n * (t + 1) / nt; i < end; i++) {
            if ((i & ((1l << 20) - 1)) == 0 && stopped && stopped()) {
                stop = 1;
                break;
            }
            a[i] = 0.5;
            b[i] = 1.0 + (double)(i & 7);
            c[i] = 2.0 - (double)(i & 3);
        }
    }
    spb_bw_stat warm_read = {0}, warm_triad = {0}; /* a warm-up pass, not kept */
    if (!stop) time_passes(threads, n, b, c, a, &warm_read, &warm_triad);
    /* a machine with a large cache gets fewer passes, not minutes of them */
    double start = timing_now();
    for (int pass = 0; pass < passes && !stop && !(stopped && stopped()); pass++) {
        time_passes(threads, n, b, c, a, read, triad);
        if (pass >= SPB_BW_MIN_PASSES - 1 && timing_now() - start > SPB_BW_MAX_SECONDS) break;
    }
    volatile double sink = a[n / 2]; /* the triad's stores are not dead */
    (void)sink;
    spb_free(a);
    spb_free(b);
    spb_free(c);
    return SPB_OK;
}
