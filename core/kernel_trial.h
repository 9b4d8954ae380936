/* kernel_trial.h — what the auto kernels share: each candidate row the rule
 * allows is prepared, timed on this matrix for a few calls, and the
 * fastest is kept, the others released. The cost is the auto kernel's
 * prepare time. */
#ifndef SPB_KERNEL_TRIAL_H
#define SPB_KERNEL_TRIAL_H

#ifdef __cplusplus
extern "C" { /* the CUDA rows include this as C++ */
#endif

#include "kernel.h"

#define SPB_TRIAL_MAX 10 /* candidates a rule may name */

/* Seconds for `calls` back-to-back products with a prepared state, or a
 * negative value when they failed. */
typedef double (*spb_trial_time_fn)(const spb_kernel *kernel, void *state, void *ctx, int calls);

/* A spb_trial_time_fn for rows that time themselves (the device rows:
 * kernel->time_calls, events around the launches). */
double kernel_trial_own_time(const spb_kernel *kernel, void *state, void *ctx, int calls);

/* The rows a rule names, best guess first. */
typedef struct {
    const char *names[SPB_TRIAL_MAX];
    int count;
} spb_trial_names;

/* Appends a name (past SPB_TRIAL_MAX it is dropped). */
void kernel_trial_name(spb_trial_names *list, const char *name);

typedef struct {
    const spb_kernel *candidates[SPB_TRIAL_MAX];
    int count;
    /* 1: every candidate held prepared and sampled in turns, so drift and
     * bursts of other work fall on all alike (the CPU rows, whose states
     * share the format set's arrays; small device operands); 0: one after
     * the other, at most two held (large device operands). */
    int interleave;
    double seconds[SPB_TRIAL_MAX]; /* median per call; NAN: declined or failed */
    int chosen;                    /* index of the fastest; -1 when none ran */
} spb_trial;

/* trial->candidates: the rows named, from a table of `rows` rows (row(i)
 * the i-th). SPB_ERR_INVALID, naming it, for a name not in the table. */
spb_status kernel_trial_candidates(spb_trial *trial, const spb_trial_names *list,
                                   const spb_kernel *(*row)(int), int rows, char *msg);

/* Prepares and times trial->candidates[0..count) and hands back the
 * fastest's plan (its median per call the least). A candidate that does not support A
 * or declines it is passed over (SPB_ERR_DECLINED, with the first one's
 * reason, when all are); any other failure (out of memory, the device) is
 * the trial's, with every state released. */
spb_status kernel_trial(spb_trial *trial, const spb_csr *A, spb_format_set *formats,
                        const spb_kernel_config *config, spb_trial_time_fn time_calls, void *ctx,
                        spb_kernel_plan *plan, char *msg);

/* The auto kernel's message: "kept: why; timed (us) a 1.23, b 2.5, c -"
 * (microseconds per call; c did not run), cut short visibly when it does
 * not fit SPB_MSG_LEN. */
void kernel_trial_message(const spb_trial *trial, const char *why, char *msg);

#ifdef __cplusplus
}
#endif

#endif
