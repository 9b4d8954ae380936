/* test_timing.c — the timing protocol's noise rule, on a clock the test
 * controls: samples that agree are kept at once; a slow sample injected
 * into the first measurement makes it noisy and it is taken again; noise
 * in every attempt is reported after SPB_NOISY_RETRIES re-measurements,
 * with the steadiest attempt kept; a wide interquartile range is noisy
 * even without an outlier. Rows measured in turns: a machine that slows
 * down halfway slows every row alike; a row's turn after another's finds
 * its data warm; a noisy row has every row measured again, all keeping one
 * attempt; a row whose calls fail is an error alone. */
#include "check.h"
#include "core/timing.h"

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

static spb_timing measure_with(fake_clock *c, spb_noise_memory *memory)
{
    /* no warm-up, one invocation to size the batch (1 ms: batch 1), then
     * ten samples: invocations 1..10 are the first attempt's samples */
    spb_timing_opts opts = {.warmup = 0, .min_samples = 10, .min_time = 0.0, .memory = memory};
    char msg[SPB_MSG_LEN] = "";
    spb_timed_row row = {.time_calls = fake_calls, .ctx = c, .msg = msg};
    timing_measure_in_turns(&row, 1, &opts, NULL, NULL);
    CHECK(row.status == SPB_OK, "timing: %s", msg);
    return row.timing;
}

static spb_timing measure(fake_clock *c) { return measure_with(c, NULL); }

/* A study whose groups all meet the machine's noise: after two
 * re-measurements that did not help, only every SPB_NOISY_PROBE-th group
 * is measured again; one that helps brings the re-measurements back. */
static void check_noise_memory(void)
{
    const int every_attempt[] = {5, 16, 27, -1};
    spb_noise_memory memory = {0};
    int attempts[2 + 2 * SPB_NOISY_PROBE];
    for (int g = 0; g < 2 + 2 * SPB_NOISY_PROBE; g++) {
        fake_clock always = {1e-3, 10, every_attempt, 0, 0};
        attempts[g] = measure_with(&always, &memory).attempts;
    }
    int measured_again = 0;
    for (int g = 2; g < 2 + 2 * SPB_NOISY_PROBE; g++) measured_again += attempts[g] > 1;
    CHECK(attempts[0] == 2 && attempts[1] == 2 && measured_again == 2 && memory.skipped > 0,
          "the machine's noise: groups 1 and 2 measured again, then %d of the next %d (expected "
          "2), %d skipped",
          measured_again, 2 * SPB_NOISY_PROBE, memory.skipped);
    const int first_only[] = {5, -1}; /* a moment's noise: the probe helps */
    int helped_at = -1;
    for (int g = 0; g < SPB_NOISY_PROBE && helped_at < 0; g++) {
        fake_clock once = {1e-3, 10, first_only, 0, 0};
        if (measure_with(&once, &memory).attempts == 2) helped_at = g;
    }
    fake_clock again = {1e-3, 10, first_only, 0, 0};
    spb_timing t = measure_with(&again, &memory);
    CHECK(helped_at >= 0 && memory.unhelpful == 0 && t.attempts == 2 && !t.noisy,
          "a probe that helps: the next noisy group is measured again (attempts %d, noisy %d)",
          t.attempts, t.noisy);
}

/* A machine shared by rows timed in turns: every call takes the row's
 * `base` seconds, times `slow_factor` once `slow_after` calls (of all rows)
 * have run; a row's first call after another row's calls costs `cold`
 * seconds more (its data left the caches). */
typedef struct {
    long calls, slow_after;
    double slow_factor, cold;
    int last_row;
    long fail_after; /* row 1's calls fail once this many have run (0: never) */
} shared_machine;

typedef struct {
    shared_machine *machine;
    int id;
    double base;
    int invocations;
    int stall_at; /* this row's invocation stall_at - 1 takes 10x (0: none) */
} machine_row;

static double machine_calls(void *ctx, int calls)
{
    machine_row *row = ctx;
    shared_machine *m = row->machine;
    if (m->fail_after && row->id == 1 && m->calls >= m->fail_after) return -1.0;
    double t = m->last_row == row->id ? 0.0 : m->cold;
    for (int k = 0; k < calls; k++, m->calls++)
        t += row->base * (m->calls >= m->slow_after ? m->slow_factor : 1.0);
    m->last_row = row->id;
    return ++row->invocations == row->stall_at ? 10 * t : t;
}

/* Three rows of equal base time on one shared machine, measured in turns;
 * what timing_measure_in_turns returns. */
static int measure_three(shared_machine *m, machine_row *rows, spb_timed_row *timed,
                         const spb_timing_opts *opts, int (*stop)(void))
{
    static char msgs[3][SPB_MSG_LEN];
    for (int i = 0; i < 3; i++) {
        rows[i] = (machine_row){.machine = m, .id = i, .base = 1e-3};
        msgs[i][0] = '\0';
        timed[i] = (spb_timed_row){.time_calls = machine_calls, .ctx = &rows[i], .msg = msgs[i]};
    }
    return timing_measure_in_turns(timed, 3, opts, stop, NULL);
}

/* Asks to stop on its 25th question. */
static int questions;
static int stop_at_25(void) { return ++questions >= 25; }

static void check_in_turns(void)
{
    spb_timing_opts opts = {.warmup = 0, .min_samples = 40, .min_time = 0.0};
    machine_row rows[3];
    spb_timed_row timed[3];

    /* halfway through, every call takes 3x: one after the other, the first
     * row would be fast and the last slow; in turns they agree */
    shared_machine drifting = {.slow_after = 60, .slow_factor = 3.0, .last_row = -1};
    measure_three(&drifting, rows, timed, &opts, NULL);
    for (int i = 0; i < 3; i++)
        CHECK(timed[i].status == SPB_OK && timed[i].timing.median == timed[0].timing.median,
              "drift in turns: row %d median %g, row 0 %g", i, timed[i].timing.median,
              timed[0].timing.median);

    /* a cold first call after another row's would add 0.5 ms to a sample:
     * the untimed call before each turn takes it */
    shared_machine caches = {
        .slow_after = 1L << 40, .slow_factor = 1.0, .cold = 5e-4, .last_row = -1};
    measure_three(&caches, rows, timed, &opts, NULL);
    for (int i = 0; i < 3; i++)
        CHECK(timed[i].status == SPB_OK && timed[i].timing.median == 1e-3 &&
                  timed[i].timing.max == 1e-3,
              "turns after another row's: row %d median %g max %g (1e-3 each)", i,
              timed[i].timing.median, timed[i].timing.max);

    /* the middle row's calls fail part-way: it alone is an error */
    shared_machine failing = {
        .slow_after = 1L << 40, .slow_factor = 1.0, .last_row = -1, .fail_after = 30};
    measure_three(&failing, rows, timed, &opts, NULL);
    CHECK(timed[1].status == SPB_ERR_DEVICE && timed[0].status == SPB_OK &&
              timed[2].status == SPB_OK && timed[0].timing.samples == 40,
          "a failing row among three: statuses %d %d %d, row 0 with %d samples", timed[0].status,
          timed[1].status, timed[2].status, timed[0].timing.samples);

    /* row 0 stalls in its second sample, and then the machine turns twice as
     * fast: re-measured alone, row 0 would come out twice as fast as row 1;
     * both are measured again and keep the same attempt */
    shared_machine speeding = {.slow_after = 33, .slow_factor = 0.5, .last_row = -1};
    static char msgs2[2][SPB_MSG_LEN];
    spb_timing_opts ten = {.warmup = 0, .min_samples = 10, .min_time = 0.0};
    for (int i = 0; i < 2; i++) {
        /* invocations: 1 sizes the batch, then an untimed call before a turn that
         * follows the other row's, and a sample; the first attempt makes 33 calls */
        rows[i] = (machine_row){.machine = &speeding, .id = i, .base = 1e-3, .stall_at = i ? 0 : 5};
        timed[i] = (spb_timed_row){.time_calls = machine_calls, .ctx = &rows[i], .msg = msgs2[i]};
    }
    timing_measure_in_turns(timed, 2, &ten, NULL, NULL);
    CHECK(timed[0].status == SPB_OK && timed[1].status == SPB_OK && timed[0].timing.attempts == 2 &&
              timed[1].timing.attempts == 2 && !timed[0].timing.noisy &&
              timed[0].timing.median == timed[1].timing.median,
          "a noisy row among two: attempts %d and %d, medians %g and %g (noisy %d)",
          timed[0].timing.attempts, timed[1].timing.attempts, timed[0].timing.median,
          timed[1].timing.median, timed[0].timing.noisy);

    /* the same stall in a row three times slower than its contest's
     * fastest: it cannot rank first, so it is labelled noisy and not
     * measured again; in the fastest row, or a row of contest 0, it is */
    for (int stalled = 0; stalled < 3; stalled++) {
        shared_machine steady = {.slow_after = 1L << 40, .slow_factor = 1.0, .last_row = -1};
        for (int i = 0; i < 2; i++) {
            rows[i] = (machine_row){.machine = &steady,
                                    .id = i,
                                    .base = i ? 3e-3 : 1e-3,
                                    /* a sample's invocation (see above) */
                                    .stall_at = i != (stalled ? 0 : 1) ? 0
                                                : i                    ? 4
                                                                       : 5};
            timed[i] = (spb_timed_row){.time_calls = machine_calls,
                                       .ctx = &rows[i],
                                       .msg = msgs2[i],
                                       .contest = stalled == 2 ? 0 : 1};
        }
        timing_measure_in_turns(timed, 2, &ten, NULL, NULL);
        const spb_timing *t = &timed[stalled ? 0 : 1].timing;
        int expect = stalled ? 2 : 1;
        CHECK(timed[0].status == SPB_OK && t->attempts == expect && t->noisy == (expect == 1),
              "a stall in the %s: %d attempts (expected %d), noisy %d",
              stalled == 0   ? "slower row of a contest"
              : stalled == 1 ? "fastest row of a contest"
                             : "a row of contest 0",
              t->attempts, expect, t->noisy);
    }

    /* a stop asked for part-way: the measurement ends there and says so */
    shared_machine stopping = {.slow_after = 1L << 40, .slow_factor = 1.0, .last_row = -1};
    int stopped = measure_three(&stopping, rows, timed, &opts, stop_at_25);
    CHECK(stopped && stopping.calls < 60 && questions == 25,
          "a stop part-way: stopped %d after %ld calls and %d questions", stopped, stopping.calls,
          questions);
}

int main(void)
{
    check_in_turns();
    check_noise_memory();

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
    /* the second attempt as noisy as the first: a third would not help */
    CHECK(t.noisy && t.attempts == 2 && t.max > SPB_NOISY_OUTLIER * t.median,
          "a slow sample in every attempt: noisy %d after %d attempts, not %d (max %g, median %g)",
          t.noisy, t.attempts, 1 + SPB_NOISY_RETRIES, t.max, t.median);
    CHECK(t.median == 1e-3, "the outlier does not move the median: %g", t.median);

    fake_clock wide = {1e-3, 1, none, 1, 0}; /* half the samples 1.3x: IQR 30% of the median */
    t = measure(&wide);
    CHECK(t.noisy && t.spread > SPB_NOISY_SPREAD && t.max <= SPB_NOISY_OUTLIER * t.median,
          "a wide spread without outliers: noisy %d, spread %g", t.noisy, t.spread);
    return check_done();
}
