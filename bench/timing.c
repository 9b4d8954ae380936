/* timing.c — the timing protocol (see timing.h). */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

double timing_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double timing_median(double *values, int count)
{
    if (count == 0) return 0.0;
    qsort(values, (size_t)count, sizeof *values, cmp_double);
    return count % 2 ? values[count / 2] : 0.5 * (values[count / 2 - 1] + values[count / 2]);
}

/* The q-quantile of sorted values, interpolated between neighbours. */
static double quantile(const double *sorted, int count, double q)
{
    double at = q * (count - 1);
    int below = (int)at;
    if (below + 1 >= count) return sorted[count - 1];
    return sorted[below] + (at - below) * (sorted[below + 1] - sorted[below]);
}

spb_status timing_measure(spb_time_calls_fn time_calls, void *ctx, const spb_timing_opts *opts,
                          spb_timing *out, char *msg)
{
    if (opts->warmup > 0) time_calls(ctx, opts->warmup);
    /* Grow the batch until one sample lasts long enough to time reliably. */
    int batch = 1;
    double t = 0;
    while (batch < SPB_MAX_BATCH && (t = time_calls(ctx, batch)) >= 0 && t < SPB_MIN_SAMPLE_SECONDS)
        batch *= 2;
    if (t < 0) return spb_fail(msg, SPB_ERR_DEVICE, "timed calls failed");
    int cap = opts->min_samples > 16 ? opts->min_samples : 16;
    double *samples = spb_malloc((size_t)cap, sizeof *samples);
    if (!samples) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for timing samples");
    int count = 0;
    double total = 0.0;
    while (count < SPB_MAX_SAMPLES && (count < opts->min_samples || total < opts->min_time)) {
        if (count == cap) {
            double *bigger = spb_realloc(samples, (size_t)cap * 2, sizeof *samples);
            if (!bigger) {
                spb_free(samples);
                return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for timing samples");
            }
            samples = bigger;
            cap *= 2;
        }
        t = time_calls(ctx, batch);
        if (t < 0) {
            spb_free(samples);
            return spb_fail(msg, SPB_ERR_DEVICE, "timed calls failed");
        }
        total += t;
        samples[count++] = t / batch;
    }
    out->samples = count;
    out->batch = batch;
    out->median = timing_median(samples, count); /* sorts them */
    out->min = samples[0];
    out->max = samples[count - 1];
    out->spread =
        out->median > 0
            ? (quantile(samples, count, 0.75) - quantile(samples, count, 0.25)) / out->median
            : 0.0;
    out->noisy = timing_is_noisy(out);
    out->attempts = 1;
    spb_free(samples);
    return SPB_OK;
}

int timing_is_noisy(const spb_timing *t)
{
    return t->spread > SPB_NOISY_SPREAD || t->max > SPB_NOISY_OUTLIER * t->median;
}

spb_status timing_measure_steady(spb_time_calls_fn time_calls, void *ctx,
                                 const spb_timing_opts *opts, spb_timing *out, char *msg)
{
    spb_status st = timing_measure(time_calls, ctx, opts, out, msg);
    int attempts = 1;
    while (st == SPB_OK && out->noisy && attempts <= SPB_NOISY_RETRIES) {
        spb_timing again;
        st = timing_measure(time_calls, ctx, opts, &again, msg);
        attempts++;
        if (st == SPB_OK && (!again.noisy || again.spread < out->spread)) *out = again;
    }
    out->attempts = attempts;
    return st;
}
