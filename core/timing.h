/* timing.h — the one timing protocol every kernel is measured with:
 * warm-up, then samples until both a minimum count and a minimum total time;
 * a call shorter than SPB_MIN_SAMPLE_SECONDS is timed as a batch of
 * back-to-back calls and divided, so launch overhead is treated alike. */
#ifndef SPB_TIMING_H
#define SPB_TIMING_H

#include "spb.h"

#define SPB_MIN_SAMPLE_SECONDS 1e-3
#define SPB_MAX_BATCH          (1 << 20)
#define SPB_MAX_SAMPLES        100000

/* What a study's re-measurements taught it: two in a row that left as
 * many rows noisy as before mean the noise is the machine's, so from
 * then on only every SPB_NOISY_PROBE-th group that wants one is measured
 * again (to see whether the noise has passed; one that helps ends this). */
#define SPB_NOISY_PROBE 4
typedef struct {
    int unhelpful; /* re-measurements in a row that did not help */
    int skipped;   /* groups not measured again for it */
    int waiting;   /* groups that wanted one since the last probe */
} spb_noise_memory;

typedef struct {
    int warmup;      /* calls before timing starts */
    int min_samples; /* at least this many samples */
    double min_time; /* and at least this many seconds of samples */
    int once;        /* 1: a noisy attempt is not measured again (the auto kernels' trials) */
    spb_noise_memory *memory; /* the study's (NULL: every group judged alone) */
    double max_spread;        /* the noise rule's spread (0: SPB_NOISY_SPREAD) */
} spb_timing_opts;

/* A row is noisy when its samples disagree: the interquartile range above
 * SPB_NOISY_SPREAD of the median (the bulk of the samples, so the median
 * itself is uncertain), or a sample above SPB_NOISY_OUTLIER times the
 * median (something else held the CPU or device for a whole sample). While
 * a row is noisy in a way that can change a verdict its rows are measured
 * again, all of them, up to
 * SPB_NOISY_RETRIES more times but only while it helps (a re-measurement
 * that leaves as many rows noisy as the attempt before ends them: that
 * noise is the machine's, not a moment's), and all keep the steadiest
 * attempt (the fewest noisy rows, then the least spread): a row is
 * reported noisy when it was in that attempt. */
#define SPB_NOISY_SPREAD_PCT 10 /* the same in percent (run --max-noise) */
#define SPB_NOISY_SPREAD     (SPB_NOISY_SPREAD_PCT / 100.0)
#define SPB_NOISY_OUTLIER    2.0
#define SPB_NOISY_RETRIES    2

/* The samples a row keeps for the JSON (spbench compare's statistics):
 * all of them up to this count, else this many evenly spaced order
 * statistics of them (their distribution, thinned). */
#define SPB_KEPT_SAMPLES 256

typedef struct {
    double median, min, max;        /* seconds per call */
    double spread;                  /* interquartile range over the median */
    int samples;                    /* samples taken */
    int batch;                      /* calls per sample */
    int noisy;                      /* the kept attempt broke the rule above */
    int attempts;                   /* measurements taken: 1 + re-measurements */
    int kept;                       /* samples in kept_s (0: none, as for a row read back) */
    float kept_s[SPB_KEPT_SAMPLES]; /* the kept attempt's samples, ascending, seconds per call */
} spb_timing;

/* Times `calls` back-to-back calls and returns the elapsed seconds, or a
 * negative value when they failed (the protocol then stops with an error). */
typedef double (*spb_time_calls_fn)(void *ctx, int calls);

/* A row to be timed: its calls, and what the measurement gave it. */
typedef struct {
    spb_time_calls_fn time_calls;
    void *ctx;
    char *msg;         /* the row's failure, if any */
    spb_status status; /* SPB_OK, or why this row's timing failed */
    spb_timing timing; /* when status is SPB_OK */
    /* Rows of one contest > 0 are ranked against each other: a noisy one is
     * measured again only while it could rank first (its quickest sample
     * within the noise margin of the contest's fastest median). Contest 0:
     * a row others are measured against, whose noise always counts. */
    int contest;
} spb_timed_row;

/* Measures rows together: each is warmed up and its batch sized, then
 * the rows take samples in turns, one each per round (each round starting
 * one row further on), until every row has its samples; so drift in the
 * machine's speed, and a stall, fall on all of them alike. A turn that
 * follows another row's, for calls shorter than SPB_TURN_WARM_SECONDS,
 * starts with one untimed call (the row's data back in the caches). While
 * a row is noisy all are measured again in turns (see SPB_NOISY_RETRIES),
 * each keeping the same attempt. One row alone takes
 * its samples back to back, with no untimed calls between them. A row
 * whose calls fail stops there (its status and msg say so); the others go
 * on. stop (NULL: none) is asked before each turn: 1 is returned when it
 * stopped the measurement, and no row's timing is then to be used.
 * again_s (NULL: not wanted) receives the seconds the noisy rows' attempts
 * after the first took. */
#define SPB_TURN_WARM_SECONDS 0.05
int timing_measure_in_turns(spb_timed_row *rows, int count, const spb_timing_opts *opts,
                            int (*stop)(void), double *again_s);

/* Whether a timing breaks the noise rule, its spread limit max_spread
 * (0: SPB_NOISY_SPREAD). */
int timing_is_noisy(const spb_timing *t, double max_spread);

double timing_now(void); /* monotonic seconds */

/* Median of values (reordered in place); 0 for an empty array. */
double timing_median(double *values, int count);

#endif
