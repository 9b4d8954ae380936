/* test_timing.c — the timing protocol's noise rule, on a clock the test
 * controls: samples that agree are kept at once; a slow sample injected
 * into the first measurement makes it noisy and it is taken again; noise
 * in every attempt is reported after SPB_NOISY_RETRIES re-measurements,
 * with the steadiest attempt kept; a wide interquartile range is noisy
 * even without an outlier. */
#include "../bench/timing.h"
#include "check.h"

/* A fake clock: every call takes `base` seconds, except the calls of the
 * timed invocations listed as slow, which take `slow` times longer. */
typedef struct {
    double base, slow;
    const int *slow_at; /* invocation numbers, ascending, -1 ended */
    int alternate;      /* every other invocation takes 1.3x */
    int invocation;
} fake_clock;

static double fake_calls(void *ctx, int calls)
{
    fake_clock *c = ctx;
    int n = c->invocation++;
    double per_call = c->base;
    for (const int *s = c->slow_at; s && *s >= 0; s++)
        if (*s == n) per_call *= c->slow;
    if (c->alternate && n % 2) per_call *= 1.3;
    return per_call * calls;
}

static spb_timing measure(fake_clock *c)
{
    /* no warm-up, one invocation to size the batch (1 ms: batch 1), then
     * ten samples: invocations 1..10 are the first attempt's samples */
    spb_timing_opts opts = {.warmup = 0, .min_samples = 10, .min_time = 0.0};
    spb_timing t;
    char msg[SPB_MSG_LEN] = "";
    spb_status st = timing_measure_steady(fake_calls, c, &opts, &t, msg);
    CHECK(st == SPB_OK, "timing: %s", msg);
    return t;
}

int main(void)
{
    const int none[] = {-1};
    fake_clock quiet = {1e-3, 1, none, 0, 0};
    spb_timing t = measure(&quiet);
    CHECK(!t.noisy && t.attempts == 1 && t.spread == 0.0 && t.median == 1e-3,
          "agreeing samples: noisy %d after %d attempts, spread %g, median %g", t.noisy, t.attempts,
          t.spread, t.median);

    const int first_only[] = {5, -1}; /* one sample 10x slower, in the first attempt */
    fake_clock once = {1e-3, 10, first_only, 0, 0};
    t = measure(&once);
    CHECK(!t.noisy && t.attempts == 2 && t.max == 1e-3,
          "a slow sample once: re-measured (attempts %d) and clean (noisy %d, max %g)", t.attempts,
          t.noisy, t.max);

    const int every_attempt[] = {5, 16, 27, -1}; /* one slow sample in each of three attempts */
    fake_clock always = {1e-3, 10, every_attempt, 0, 0};
    t = measure(&always);
    CHECK(t.noisy && t.attempts == 1 + SPB_NOISY_RETRIES && t.max > SPB_NOISY_OUTLIER * t.median,
          "a slow sample in every attempt: noisy %d after %d attempts (max %g, median %g)", t.noisy,
          t.attempts, t.max, t.median);
    CHECK(t.median == 1e-3, "the outlier does not move the median: %g", t.median);

    fake_clock wide = {1e-3, 1, none, 1, 0}; /* half the samples 1.3x: IQR 30% of the median */
    t = measure(&wide);
    CHECK(t.noisy && t.spread > SPB_NOISY_SPREAD && t.max <= SPB_NOISY_OUTLIER * t.median,
          "a wide spread without outliers: noisy %d, spread %g", t.noisy, t.spread);
    return check_done();
}
