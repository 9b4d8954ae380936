/* timing.h — the one timing protocol every kernel is measured with:
 * warm-up, then samples until both a minimum count and a minimum total time;
 * a call shorter than SPB_MIN_SAMPLE_SECONDS is timed as a batch of
 * back-to-back calls and divided, so launch overhead is treated alike. */
#ifndef SPB_TIMING_H
#define SPB_TIMING_H

#include "../formats/spb.h"

#define SPB_MIN_SAMPLE_SECONDS 1e-3
#define SPB_MAX_BATCH          (1 << 20)
#define SPB_MAX_SAMPLES        100000

typedef struct {
    int warmup;      /* calls before timing starts */
    int min_samples; /* at least this many samples */
    double min_time; /* and at least this many seconds of samples */
} spb_timing_opts;

typedef struct {
    double median, min, max; /* seconds per call */
    int samples;             /* samples taken */
    int batch;               /* calls per sample */
} spb_timing;

/* Times `calls` back-to-back calls and returns the elapsed seconds, or a
 * negative value when they failed (the protocol then stops with an error). */
typedef double (*spb_time_calls_fn)(void *ctx, int calls);

spb_status timing_measure(spb_time_calls_fn time_calls, void *ctx, const spb_timing_opts *opts,
                          spb_timing *out, char *msg);

double timing_now(void); /* monotonic seconds */

/* Median of values (reordered in place); 0 for an empty array. */
double timing_median(double *values, int count);

#endif
