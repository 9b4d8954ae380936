/* kernel_trial.c — the auto kernels' trial: prepare, time (the one timing
 * protocol, core/timing.c), keep the fastest. */
#include "kernel_trial.h"

#include "timing.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The trial's samples: the run's protocol (core/timing.h) with a smaller
 * budget, five samples of at least SPB_MIN_SAMPLE_SECONDS each, or three
 * for a product that takes longer; no re-measurement while noisy (a
 * trial tells rows apart that differ by more than the noise it could
 * wait out). */
static const spb_timing_opts trial_timing = {
    .warmup = 1, .min_samples = 3, .min_time = 5 * SPB_MIN_SAMPLE_SECONDS, .once = 1};

/* One candidate in the trial, and what the protocol times it through. */
typedef struct {
    spb_kernel_plan plan;
    const spb_kernel *kernel;
    spb_trial_time_fn time_calls;
    void *ctx;
} candidate;

static double time_candidate(void *ctx, int calls)
{
    const candidate *c = ctx;
    return c->time_calls(c->kernel, c->plan.state, c->ctx, calls);
}

/* Prepares candidate i (why: the reason it did not, if so). */
static spb_status prepare(const spb_trial *trial, int i, const spb_csr *A, spb_format_set *formats,
                          const spb_kernel_config *config, candidate *c, char *why)
{
    const spb_kernel *k = trial->candidates[i];
    c->plan = (spb_kernel_plan){0};
    if (!kernel_runs_in(k, config->precision))
        return spb_fail(why, SPB_ERR_DECLINED, "no %s version",
                        spb_precision_str(config->precision));
    if (k->supports && !k->supports(k, A, why)) return SPB_ERR_DECLINED;
    spb_status st = k->prepare(k, formats, config, &c->plan, why);
    if (st != SPB_OK && c->plan.state) k->release(c->plan.state);
    if (st != SPB_OK) c->plan.state = NULL;
    return st;
}

static void release_all(const spb_trial *trial, candidate *c)
{
    for (int i = 0; i < trial->count; i++)
        if (c[i].plan.state) trial->candidates[i]->release(c[i].plan.state);
}

/* Times the prepared candidates among which[0..count) together: SPB_OK, or
 * the first failure (a candidate's products, or memory for the samples)
 * with its message in msg. */
static spb_status measure(spb_trial *trial, candidate *c, const int *which, int count, char *msg)
{
    spb_timed_row rows[SPB_TRIAL_MAX];
    char msgs[SPB_TRIAL_MAX][SPB_MSG_LEN];
    for (int j = 0; j < count; j++) {
        msgs[j][0] = '\0';
        rows[j] =
            (spb_timed_row){.time_calls = time_candidate, .ctx = &c[which[j]], .msg = msgs[j]};
    }
    timing_measure_in_turns(rows, count, &trial_timing, NULL, NULL);
    for (int j = 0; j < count; j++) {
        const spb_kernel *k = trial->candidates[which[j]];
        char device[SPB_MSG_LEN] = ""; /* a device row's own account: out of memory, say */
        spb_status st = rows[j].status == SPB_OK || !k->check
                            ? SPB_OK
                            : k->check(c[which[j]].plan.state, device);
        if (st != SPB_OK) return spb_fail(msg, st, "%s: %.400s in the trial", k->name, device);
        if (rows[j].status != SPB_OK)
            return spb_fail(msg, rows[j].status, "%s: %.400s in the trial", k->name, msgs[j]);
        trial->seconds[which[j]] = rows[j].timing.median;
    }
    return SPB_OK;
}

/* Candidate i, measured: kept if the fastest so far (the one it beats
 * released), else released. */
static void keep_fastest(spb_trial *trial, candidate *c, int i)
{
    int *best = &trial->chosen;
    int loser = *best >= 0 && trial->seconds[i] >= trial->seconds[*best] ? i : *best;
    if (loser != i) *best = i;
    if (loser >= 0) {
        trial->candidates[loser]->release(c[loser].plan.state);
        c[loser].plan.state = NULL;
    }
}

/* Prepares candidate i; a decline is noted in first_msg, any other
 * failure in msg. */
static spb_status ready(const spb_trial *trial, int i, const spb_csr *A, spb_format_set *formats,
                        const spb_kernel_config *config, candidate *c, char *first_msg, char *msg)
{
    const spb_kernel *k = trial->candidates[i];
    char why[SPB_MSG_LEN] = "";
    spb_status st = prepare(trial, i, A, formats, config, &c[i], why);
    if (st == SPB_ERR_DECLINED && !first_msg[0])
        snprintf(first_msg, SPB_MSG_LEN, "%s: %.400s", k->name, why);
    else if (st != SPB_OK && st != SPB_ERR_DECLINED)
        snprintf(msg, SPB_MSG_LEN, "%s: %.400s", k->name, why);
    return st;
}

/* Every prepared candidate measured in turns, then the fastest kept. */
static spb_status measure_held(spb_trial *trial, candidate *c, char *msg)
{
    int which[SPB_TRIAL_MAX] = {0}, held = 0;
    for (int i = 0; i < trial->count; i++)
        if (c[i].plan.state) which[held++] = i;
    spb_status st = measure(trial, c, which, held, msg);
    for (int j = 0; j < held && st == SPB_OK; j++) keep_fastest(trial, c, which[j]);
    return st;
}

spb_status kernel_trial(spb_trial *trial, const spb_csr *A, spb_format_set *formats,
                        const spb_kernel_config *config, spb_trial_time_fn time_calls, void *ctx,
                        spb_kernel_plan *plan, char *msg)
{
    candidate c[SPB_TRIAL_MAX];
    for (int i = 0; i < trial->count; i++)
        c[i] = (candidate){.kernel = trial->candidates[i], .time_calls = time_calls, .ctx = ctx};
    char first_msg[SPB_MSG_LEN] = "";
    trial->chosen = -1;
    spb_status failed = SPB_OK;
    for (int i = 0; i < trial->count && failed == SPB_OK; i++) {
        trial->seconds[i] = NAN;
        spb_status st = ready(trial, i, A, formats, config, c, first_msg, msg);
        if (st == SPB_ERR_DECLINED) continue;
        if (st != SPB_OK) { /* out of memory, the device: the row's error, as anywhere */
            release_all(trial, c);
            trial->chosen = -1;
            return st;
        }
        if (trial->interleave) continue;
        failed = measure(trial, c, &i, 1, msg);
        if (failed == SPB_OK) keep_fastest(trial, c, i);
    }
    if (failed == SPB_OK && trial->interleave) failed = measure_held(trial, c, msg);
    if (failed != SPB_OK) {
        release_all(trial, c);
        trial->chosen = -1;
        return failed;
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
    out[0] = '\0';
    for (int i = 0; i < trial->count; i++) {
        const char *sep = out[0] ? ", " : "";
        if (isnan(trial->seconds[i]))
            spb_appendf(out, len, "%s%s -", sep, trial->candidates[i]->name);
        else
            spb_appendf(out, len, "%s%s %.4g", sep, trial->candidates[i]->name,
                        trial->seconds[i] * 1e6);
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
