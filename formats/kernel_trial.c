/* kernel_trial.c — the auto rows' trial: prepare, time, keep the fastest. */
#include "kernel_trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds per call of a prepared candidate; negative on failure. */
static double time_candidate(const spb_kernel *kernel, void *state, spb_trial_time_fn time_calls,
                             void *ctx)
{
    int calls = 1;
    double t = time_calls(kernel, state, ctx, calls);
    while (t >= 0 && t < TRIAL_WARMUP_S && calls < TRIAL_MAX_CALLS) {
        calls *= 2;
        t = time_calls(kernel, state, ctx, calls);
    }
    if (t < 0) return -1;
    /* the last warm-up batch lasted about twice a sample or more */
    while (calls > 1 && t / 2 >= TRIAL_SAMPLE_S) {
        calls /= 2;
        t /= 2;
    }
    t = time_calls(kernel, state, ctx, calls);
    if (t < 0) return -1;
    double per_call[TRIAL_SAMPLES];
    per_call[0] = t / calls;
    double spent = t;
    int n = 1;
    while (n < TRIAL_SAMPLES && (n < TRIAL_MIN_SAMPLES || spent < TRIAL_BUDGET_S)) {
        t = time_calls(kernel, state, ctx, calls);
        if (t < 0) return -1;
        per_call[n++] = t / calls;
        spent += t;
    }
    qsort(per_call, (size_t)n, sizeof per_call[0], by_value);
    return per_call[n / 2];
}

spb_status kernel_trial(spb_trial *trial, spb_format_set *formats, const spb_kernel_config *config,
                        spb_trial_time_fn time_calls, void *ctx, spb_kernel_plan *plan, char *msg)
{
    char first_msg[SPB_MSG_LEN] = "";
    spb_kernel_plan best = {0};
    trial->chosen = -1;
    for (int i = 0; i < trial->count; i++) {
        const spb_kernel *k = trial->candidates[i];
        spb_kernel_plan p = {0};
        char why[SPB_MSG_LEN] = "";
        spb_status st = SPB_ERR_DECLINED;
        trial->seconds[i] = NAN;
        if (config->precision == SPB_FP32 && !k->fp32)
            snprintf(why, sizeof why, "no fp32 version");
        else if (!k->supports || k->supports(k, formats->csr, why))
            st = k->prepare(k, formats, config, &p, why);
        double s = -1;
        if (st == SPB_OK) {
            s = time_candidate(k, p.state, time_calls, ctx);
            if (s < 0) st = spb_fail(why, SPB_ERR_DEVICE, "its products failed in the trial");
        }
        if (st != SPB_OK && p.state) k->release(p.state);
        if (st == SPB_ERR_DECLINED) {
            if (!first_msg[0]) snprintf(first_msg, sizeof first_msg, "%s: %s", k->name, why);
            continue;
        }
        if (st != SPB_OK) { /* out of memory, a device failure: the row's error, as anywhere */
            if (trial->chosen >= 0) trial->candidates[trial->chosen]->release(best.state);
            trial->chosen = -1;
            snprintf(msg, SPB_MSG_LEN, "%s: %s", k->name, why);
            return st;
        }
        trial->seconds[i] = s;
        if (trial->chosen < 0 || s < trial->seconds[trial->chosen]) {
            if (trial->chosen >= 0) trial->candidates[trial->chosen]->release(best.state);
            best = p;
            trial->chosen = i;
        } else {
            k->release(p.state);
        }
    }
    if (trial->chosen < 0) {
        snprintf(msg, SPB_MSG_LEN, "%s", trial->count ? first_msg : "no candidate");
        return SPB_ERR_DECLINED;
    }
    *plan = best;
    return SPB_OK;
}

void kernel_trial_describe(const spb_trial *trial, char *out, size_t len)
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
