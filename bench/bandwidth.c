/* bandwidth.c — CPU read-stream and triad bandwidth (see bandwidth.h). */
#include "bandwidth.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../core/timing.h"

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

/* sysfs first: some virtual machines report through sysconf a cache
 * larger than the one the CPU has (256 MiB against 32 MiB, seen here). */
double bandwidth_cpu_llc_bytes(void)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cache/index3/size", "r");
    if (f) {
        long kib = 0;
        int got = fscanf(f, "%ldK", &kib);
        fclose(f);
        if (got == 1 && kib > 0) return 1024.0 * kib;
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0) return (double)l3;
#endif
    return 0;
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

spb_status bandwidth_cpu(int threads, int passes, int (*stopped)(void), spb_bw_stat *read,
                         spb_bw_stat *triad, char *msg)
{
    /* three arrays of 4/3 of the cache each: 4x the cache in all */
    double llc = bandwidth_cpu_llc_bytes();
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
