/* bandwidth.c — STREAM-triad-like CPU bandwidth. */
#include "bandwidth.h"

#include <omp.h>

#include "timing.h"

#define TRIAD_ELEMENTS (8l << 20) /* 3 arrays x 64 MiB */
#define TRIAD_PASSES   8

spb_status bandwidth_cpu_triad(int threads, double *gbytes_per_s, char *msg)
{
    double *a = spb_malloc(TRIAD_ELEMENTS, sizeof *a);
    double *b = spb_malloc(TRIAD_ELEMENTS, sizeof *b);
    double *c = spb_malloc(TRIAD_ELEMENTS, sizeof *c);
    if (!a || !b || !c) {
        spb_free(a);
        spb_free(b);
        spb_free(c);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the bandwidth arrays");
    }
    /* First touch by the threads that will stream the arrays. */
#pragma omp parallel for num_threads(threads) schedule(static)
    for (long i = 0; i < TRIAD_ELEMENTS; i++) {
        a[i] = 0.0;
        b[i] = 1.0 + (double)(i & 7);
        c[i] = 2.0 - (double)(i & 3);
    }
    double best = 0.0;
    for (int pass = 0; pass < TRIAD_PASSES; pass++) {
        double start = timing_now();
        const double s = 3.0;
#pragma omp parallel for num_threads(threads) schedule(static)
        for (long i = 0; i < TRIAD_ELEMENTS; i++) a[i] = b[i] + s * c[i];
        double t = timing_now() - start;
        double rate = 24.0 * TRIAD_ELEMENTS / t / 1e9;
        if (rate > best) best = rate;
    }
    /* Read a result so the passes cannot be dropped as dead stores. */
    volatile double sink = a[TRIAD_ELEMENTS / 2];
    (void)sink;
    spb_free(a);
    spb_free(b);
    spb_free(c);
    *gbytes_per_s = best;
    return SPB_OK;
}
