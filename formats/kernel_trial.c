/* kernel_trial.c — the auto rows' trial: prepare, time, keep the fastest. */
#include "kernel_trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls are doubled until a batch lasts TRIAL_WARMUP_S (the warm-up: caches
 * filled, a GPU's clocks raised after the candidate's upload), then timed
 * in samples of at least TRIAL_SAMPLE_S, as the run times its rows, so a
 * launch-bound product is timed as a batch. */
#define TRIAL_WARMUP_S 2e-3
#define TRIAL_SAMPLE_S 1e-3
#define TRIAL_SAMPLES  5
/* Fewer samples (never under TRIAL_MIN_SAMPLES) once a candidate has
 * taken this long: a slow product needs no more to be told apart. */
#define TRIAL_BUDGET_S    0.05
#define TRIAL_MIN_SAMPLES 3
#define TRIAL_MAX_CALLS   (1 << 16)

/* One candidate in the trial. */
typedef struct {
    spb_kernel_plan plan;
    int calls;                     /* per sample */
    double samples[TRIAL_SAMPLES]; /* seconds per call */
    int taken;
    double spent; /* seconds of samples */
} candidate;

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Prepares candidate i (why: the reason it did not, if so). */
static spb_status prepare(const spb_trial *trial, int i, spb_format_set *formats,
                          const spb_kernel_config *config, candidate *c, char *why)
{
    const spb_kernel *k = trial->candidates[i];
    *c = (candidate){.calls = 1};
    if (config->precision == SPB_FP32 && !k->fp32)
        return spb_fail(why, SPB_ERR_DECLINED, "no fp32 version");
    if (k->supports && !k->supports(k, formats->csr, why)) return SPB_ERR_DECLINED;
    spb_status st = k->prepare(k, formats, config, &c->plan, why);
    if (st != SPB_OK && c->plan.state) k->release(c->plan.state);
    if (st != SPB_OK) c->plan.state = NULL;
    return st;
}

/* The warm-up, which also sizes a sample's batch; 0 or -1 on failure. */
static int warm_up(const spb_kernel *k, candidate *c, spb_trial_time_fn time_calls, void *ctx)
{
    double t = time_calls(k, c->plan.state, ctx, c->calls);
    while (t >= 0 && t < TRIAL_WARMUP_S && c->calls < TRIAL_MAX_CALLS) {
        c->calls *= 2;
        t = time_calls(k, c->plan.state, ctx, c->calls);
    }
    while (c->calls > 1 && t / 2 >= TRIAL_SAMPLE_S) { /* the last batch: twice a sample or more */
        c->calls /= 2;
        t /= 2;
    }
    return t < 0 ? -1 : 0;
}

static int sample(const spb_kernel *k, candidate *c, spb_trial_time_fn time_calls, void *ctx)
{
    double t = time_calls(k, c->plan.state, ctx, c->calls);
    if (t < 0) return -1;
    c->samples[c->taken++] = t / c->calls;
    c->spent += t;
    return 0;
}

static int wants_more(const candidate *c)
{
    return c->taken < TRIAL_SAMPLES && (c->taken < TRIAL_MIN_SAMPLES || c->spent < TRIAL_BUDGET_S);
}

static double median_of(candidate *c)
{
    qsort(c->samples, (size_t)c->taken, sizeof c->samples[0], by_value);
    return c->samples[c->taken / 2];
}

/* Samples every prepared candidate in turns, each round starting one
 * further on: drift and bursts of other work fall on all of them alike. */
static int sample_in_turns(const spb_trial *trial, candidate *c, spb_trial_time_fn time_calls,
                           void *ctx)
{
    const int n = trial->count;
    for (int round = 0, more = 1; more; round++) {
        more = 0;
        for (int j = 0; j < n; j++) {
            int i = (j + round) % n;
            if (!c[i].plan.state || !wants_more(&c[i])) continue;
            if (sample(trial->candidates[i], &c[i], time_calls, ctx)) return -1;
            more = 1;
        }
    }
    return 0;
}

static void release_all(const spb_trial *trial, candidate *c)
{
    for (int i = 0; i < trial->count; i++)
        if (c[i].plan.state) trial->candidates[i]->release(c[i].plan.state);
}

/* Candidate i, sampled: kept if the fastest so far (the one it beats
 * released), else released. */
static void keep_fastest(spb_trial *trial, candidate *c, int i)
{
    trial->seconds[i] = median_of(&c[i]);
    int *best = &trial->chosen;
    int loser = *best >= 0 && trial->seconds[i] >= trial->seconds[*best] ? i : *best;
    if (loser != i) *best = i;
    if (loser >= 0) {
        trial->candidates[loser]->release(c[loser].plan.state);
        c[loser].plan.state = NULL;
    }
}

/* Prepares and warms up candidate i; a decline is noted in first_msg, any
 * other failure in msg. */
static spb_status ready(const spb_trial *trial, int i, spb_format_set *formats,
                        const spb_kernel_config *config, spb_trial_time_fn time_calls, void *ctx,
                        candidate *c, char *first_msg, char *msg)
{
    const spb_kernel *k = trial->candidates[i];
    char why[SPB_MSG_LEN] = "";
    spb_status st = prepare(trial, i, formats, config, &c[i], why);
    if (st == SPB_OK && warm_up(k, &c[i], time_calls, ctx)) {
        k->release(c[i].plan.state);
        c[i].plan.state = NULL;
        st = spb_fail(why, SPB_ERR_DEVICE, "its products failed in the trial");
    }
    if (st == SPB_ERR_DECLINED && !first_msg[0])
        snprintf(first_msg, SPB_MSG_LEN, "%s: %.400s", k->name, why);
    else if (st != SPB_OK && st != SPB_ERR_DECLINED)
        snprintf(msg, SPB_MSG_LEN, "%s: %.400s", k->name, why);
    return st;
}

spb_status kernel_trial(spb_trial *trial, spb_format_set *formats, const spb_kernel_config *config,
                        spb_trial_time_fn time_calls, void *ctx, spb_kernel_plan *plan, char *msg)
{
    candidate c[SPB_TRIAL_MAX];
    for (int i = 0; i < SPB_TRIAL_MAX; i++) c[i] = (candidate){.calls = 1};
    char first_msg[SPB_MSG_LEN] = "";
    trial->chosen = -1;
    int failed = 0;
    for (int i = 0; i < trial->count && !failed; i++) {
        trial->seconds[i] = NAN;
        spb_status st = ready(trial, i, formats, config, time_calls, ctx, c, first_msg, msg);
        if (st == SPB_ERR_DECLINED) continue;
        if (st != SPB_OK) { /* out of memory, the device: the row's error, as anywhere */
            release_all(trial, c);
            trial->chosen = -1;
            return st;
        }
        if (trial->interleave) continue;
        while (!failed && wants_more(&c[i]))
            failed = sample(trial->candidates[i], &c[i], time_calls, ctx);
        if (!failed) keep_fastest(trial, c, i);
    }
    if (!failed && trial->interleave) {
        failed = sample_in_turns(trial, c, time_calls, ctx);
        for (int i = 0; i < trial->count && !failed; i++)
            if (c[i].plan.state) keep_fastest(trial, c, i);
    }
    if (failed) {
        release_all(trial, c);
        trial->chosen = -1;
        return spb_fail(msg, SPB_ERR_DEVICE, "a candidate's products failed in the trial");
    }
    if (trial->chosen < 0) {
        snprintf(msg, SPB_MSG_LEN, "%s", trial->count ? first_msg : "no candidate");
        return SPB_ERR_DECLINED;
    }
    *plan = c[trial->chosen].plan;
    return SPB_OK;
}

/* What the message shows of the trial, into out (len bytes). */
static void describe(const spb_trial *trial, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < trial->count && used < len; i++) {
        const char *sep = used ? ", " : "";
        int n = isnan(trial->seconds[i])
                    ? snprintf(out + used, len - used, "%s%s -", sep, trial->candidates[i]->name)
                    : snprintf(out + used, len - used, "%s%s %.4g", sep, trial->candidates[i]->name,
                               trial->seconds[i] * 1e6);
        if (n < 0) break;
        used += (size_t)n;
    }
}

void kernel_trial_message(const spb_trial *trial, const char *why, char *msg)
{
    char timed[SPB_MSG_LEN / 2];
    describe(trial, timed, sizeof timed);
    if (snprintf(msg, SPB_MSG_LEN, "%s: %.300s; timed (us) %s",
                 trial->candidates[trial->chosen]->name, why, timed) >= SPB_MSG_LEN)
        msg[SPB_MSG_LEN - 2] = '.'; /* cut short: shown as such */
}

double kernel_trial_own_time(const spb_kernel *kernel, void *state, void *ctx, int calls)
{
    (void)ctx;
    return kernel->time_calls(state, calls);
}

void kernel_trial_name(spb_trial_names *list, const char *name)
{
    if (list->count < SPB_TRIAL_MAX) list->names[list->count++] = name;
}

spb_status kernel_trial_candidates(spb_trial *trial, const spb_trial_names *list,
                                   const spb_kernel *(*row)(int), int rows, char *msg)
{
    trial->count = 0;
    for (int i = 0; i < list->count; i++) {
        const spb_kernel *found = NULL;
        for (int r = 0; r < rows && !found; r++)
            if (strcmp(row(r)->name, list->names[i]) == 0) found = row(r);
        if (!found) return spb_fail(msg, SPB_ERR_INVALID, "%s is not in the table", list->names[i]);
        trial->candidates[trial->count++] = found;
    }
    return SPB_OK;
}
