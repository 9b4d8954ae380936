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

/* One row's attempt in progress: its batch and the samples taken. */
typedef struct {
    int batch;
    double *samples; /* seconds per call */
    int count, cap;
    double total;        /* seconds of samples */
    double call_seconds; /* one call, as the batch's sizing found it */
} attempt;

/* Warm-up, then the batch grown until one sample lasts long enough to time
 * reliably; 0, or -1 when the calls failed. */
static int size_batch(spb_timed_row *row, const spb_timing_opts *opts, attempt *a)
{
    if (opts->warmup > 0) row->time_calls(row->ctx, opts->warmup);
    a->batch = 1;
    double t = 0;
    while (a->batch < SPB_MAX_BATCH && (t = row->time_calls(row->ctx, a->batch)) >= 0 &&
           t < SPB_MIN_SAMPLE_SECONDS)
        a->batch *= 2;
    a->call_seconds = t / a->batch;
    return t < 0 ? -1 : 0;
}

static int wants_more(const attempt *a, const spb_timing_opts *opts)
{
    return a->count < SPB_MAX_SAMPLES &&
           (a->count < opts->min_samples || a->total < opts->min_time);
}

/* One sample of the row, into a (grown as needed); 0, or -1 when the calls
 * failed or memory ran out (the row's status says which). */
static int take_sample(spb_timed_row *row, attempt *a)
{
    if (!spb_grow((void **)&a->samples, &a->cap, a->count, 16, sizeof *a->samples)) {
        row->status = spb_fail(row->msg, SPB_ERR_NOMEM, "out of memory for timing samples");
        return -1;
    }
    double t = row->time_calls(row->ctx, a->batch);
    if (t < 0) {
        row->status = spb_fail(row->msg, SPB_ERR_DEVICE, "timed calls failed");
        return -1;
    }
    a->total += t;
    a->samples[a->count++] = t / a->batch;
    return 0;
}

/* The attempt's figures (sorts its samples). */
static void summarize(attempt *a, double max_spread, spb_timing *out)
{
    double *s = a->samples;
    int count = a->count;
    out->samples = count;
    out->batch = a->batch;
    out->median = timing_median(s, count);
    out->min = s[0];
    out->max = s[count - 1];
    out->spread =
        out->median > 0 ? (quantile(s, count, 0.75) - quantile(s, count, 0.25)) / out->median : 0.0;
    out->noisy = timing_is_noisy(out, max_spread);
    out->attempts = 1;
    out->kept = count < SPB_KEPT_SAMPLES ? count : SPB_KEPT_SAMPLES;
    for (int k = 0; k < out->kept; k++) /* every sample, or evenly spaced ranks of them */
        out->kept_s[k] =
            (float)s[out->kept == count ? k : (int)((long long)k * (count - 1) / (out->kept - 1))];
}

/* One attempt of the rows picked (which[0..count)), sampled in turns; each
 * row's status says whether it failed, and every row that did not is
 * summarized into got[]. 1 when stop() asked to stop first (nothing is
 * summarized). */
static int attempt_in_turns(spb_timed_row *rows, const int *which, int count,
                            const spb_timing_opts *opts, int (*stop)(void), spb_timing *got)
{
    attempt *a = spb_calloc((size_t)count, sizeof *a);
    if (!a) {
        for (int j = 0; j < count; j++)
            rows[which[j]].status =
                spb_fail(rows[which[j]].msg, SPB_ERR_NOMEM, "out of memory for timing samples");
        return 0;
    }
    for (int j = 0; j < count; j++) {
        spb_timed_row *row = &rows[which[j]];
        if (size_batch(row, opts, &a[j]))
            row->status = spb_fail(row->msg, SPB_ERR_DEVICE, "timed calls failed");
    }
    int last = count - 1; /* the row whose calls ran last */
    int stopped = 0;
    for (int round = 0, more = 1; more && !stopped; round++) {
        more = 0;
        for (int k = 0; k < count && !stopped; k++) {
            int j = (k + round) % count;
            spb_timed_row *row = &rows[which[j]];
            if (row->status != SPB_OK || !wants_more(&a[j], opts)) continue;
            if ((stopped = stop && stop())) break;
            /* after another row's calls, one untimed call brings this row's
             * data back into the caches, as when it is timed alone */
            if (j != last && a[j].call_seconds < SPB_TURN_WARM_SECONDS)
                row->time_calls(row->ctx, 1);
            last = j;
            more |= take_sample(row, &a[j]) == 0;
        }
    }
    for (int j = 0; j < count; j++) {
        if (rows[which[j]].status == SPB_OK && !stopped)
            summarize(&a[j], opts->max_spread, &got[j]);
        spb_free(a[j].samples);
    }
    spb_free(a);
    return stopped;
}

/* Whether got[j]'s noise can change a verdict (see spb_timed_row's
 * contest): noisy, and of contest 0 or able to rank first in its own. */
static int noise_counts(const spb_timed_row *rows, const int *which, const spb_timing *got,
                        int live, int j, double max_spread)
{
    int contest = rows[which[j]].contest;
    if (!got[j].noisy) return 0;
    if (contest == 0) return 1;
    const spb_timing *fastest = NULL;
    for (int k = 0; k < live; k++)
        if (rows[which[k]].status == SPB_OK && rows[which[k]].contest == contest &&
            (!fastest || got[k].median < fastest->median))
            fastest = &got[k];
    double limit = max_spread > 0 ? max_spread : SPB_NOISY_SPREAD;
    double margin = fastest->spread > limit ? fastest->spread : limit;
    return got[j].min <= fastest->median * (1.0 + margin);
}

/* Whether the study's memory lets a group be measured again. */
static int memory_allows(spb_noise_memory *memory)
{
    if (!memory || memory->unhelpful < 2) return 1;
    if (++memory->waiting % SPB_NOISY_PROBE == 0) return 1;
    memory->skipped++;
    return 0;
}

static void remember_attempt(spb_noise_memory *memory, int helped)
{
    if (!memory) return;
    memory->unhelpful = helped ? 0 : memory->unhelpful + 1;
    if (helped) memory->waiting = 0;
}

int timing_measure_in_turns(spb_timed_row *rows, int count, const spb_timing_opts *opts,
                            int (*stop)(void), double *again_s)
{
    if (again_s) *again_s = 0;
    int *which = spb_malloc((size_t)count + 1, sizeof *which);
    spb_timing *got = spb_malloc((size_t)count + 1, sizeof *got);
    for (int i = 0; i < count; i++)
        rows[i].status =
            which && got ? SPB_OK
                         : spb_fail(rows[i].msg, SPB_ERR_NOMEM, "out of memory for timing samples");
    int stopped = 0;
    int kept_noisy = 0;       /* noisy rows in the attempt kept, where it counts */
    int last_noisy = 0;       /* and in the attempt before this one */
    double kept_spread = 0.0; /* and the sum of its rows' spreads */
    const int attempts = opts->once ? 1 : 1 + SPB_NOISY_RETRIES;
    for (int taken = 1; which && got && taken <= attempts; taken++) {
        int live = 0;
        for (int i = 0; i < count; i++)
            if (rows[i].status == SPB_OK) which[live++] = i;
        double start = timing_now();
        stopped = live ? attempt_in_turns(rows, which, live, opts, stop, got) : 0;
        if (taken > 1 && again_s) *again_s += timing_now() - start;
        if (!live || stopped) break;
        int noisy = 0;
        double spread = 0.0;
        for (int j = 0; j < live; j++)
            if (rows[which[j]].status == SPB_OK) {
                noisy += noise_counts(rows, which, got, live, j, opts->max_spread);
                spread += got[j].spread;
            }
        /* every row keeps the same attempt, so rows are only ever compared
         * within one stretch of the machine's time */
        int keep =
            taken == 1 || noisy < kept_noisy || (noisy == kept_noisy && spread < kept_spread);
        for (int j = 0; j < live; j++) {
            spb_timed_row *row = &rows[which[j]];
            if (row->status != SPB_OK) continue;
            if (keep) row->timing = got[j];
            row->timing.attempts = taken;
        }
        if (keep) {
            kept_noisy = noisy;
            kept_spread = spread;
        }
        if (taken > 1) remember_attempt(opts->memory, noisy < last_noisy);
        /* again only while it helps: an attempt that left as many rows noisy
         * as the one before met the machine's noise, not a moment's */
        if (!kept_noisy || (taken > 1 && noisy >= last_noisy)) break;
        if (taken == 1 && !memory_allows(opts->memory)) break;
        last_noisy = noisy;
    }
    spb_free(which);
    spb_free(got);
    return stopped;
}

int timing_is_noisy(const spb_timing *t, double max_spread)
{
    double limit = max_spread > 0 ? max_spread : SPB_NOISY_SPREAD;
    return t->spread > limit || t->max > SPB_NOISY_OUTLIER * t->median;
}
