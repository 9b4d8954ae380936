/* row_figures.c — what a row gets beyond its time (run_internal.h): its
 * energy pass (for the rows a study's energy is compared between) and a
 * distributed row's exchange figures. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/run/run_internal.h"

static int on_one_machine(const spb_kernel *kernel)
{
    return kernel->backend == SPB_BACKEND_CUDA || kernel->backend == SPB_BACKEND_SERIAL ||
           kernel->backend == SPB_BACKEND_OPENMP;
}

int energy_rivals(const spb_kernel *a, const spb_kernel_config *ca, const spb_kernel *b,
                  const spb_kernel_config *cb)
{
    const int gpu = a->backend == SPB_BACKEND_CUDA;
    return (b->backend == SPB_BACKEND_CUDA) == gpu && (gpu || ca->threads == cb->threads) &&
           ca->precision == cb->precision && kernel_is_vendor(a) == kernel_is_vendor(b);
}

/* Whether the k-th timed row of a group gets an energy pass: with
 * --energy-rows all every row does; else, of each precision, the fastest
 * spbench row and the fastest vendor row (what a study's energy is
 * compared between), so a study pays for few windows, each long enough
 * for the counter's steps. */
int energy_row(const spb_energy_opts *energy, const held_rows *held, const int *slot,
               const spb_timed_row *timed, int n, int k)
{
    const held_row *h = &held->rows[slot[k]];
    if (energy->all_rows) return 1;
    if (timed[k].status != SPB_OK || !on_one_machine(h->kernel)) return 0;
    for (int j = 0; j < n; j++) {
        const held_row *o = &held->rows[slot[j]];
        if (j == k || timed[j].status != SPB_OK || !on_one_machine(o->kernel) ||
            !energy_rivals(h->kernel, &h->config, o->kernel, &o->config))
            continue;
        double mine = timed[k].timing.median, theirs = timed[j].timing.median;
        if (theirs < mine || (theirs == mine && j < k)) return 0;
    }
    return 1;
}

/* After a row's timing: whether the GPU throttled while its group was
 * timed, and its energy pass when it gets one (a failure of its products
 * is the row's). */
spb_status measure_energy(const spb_energy_opts *energy, spb_phase_times *phases, held_row *h,
                          const spb_timed_row *t, const spb_throttle_mark *before,
                          const spb_throttle_mark *after, spb_energy_edge *edge, int pass)
{
    int gpu = h->kernel->backend == SPB_BACKEND_CUDA;
    if (t->status != SPB_OK || !on_one_machine(h->kernel))
        return t->status; /* distributed rows: not measured */
    if (gpu) energy_throttled_between(energy->meters, before, after, &h->r.energy);
    if (!pass || energy->window_s <= 0 || run_stop_requested()) return SPB_OK;
    char why[SPB_MSG_LEN] = "";
    double start = timing_now();
    const spb_energy_window window = {energy->window_s, SPB_ENERGY_PERIODS};
    spb_status st = energy_measure(energy->meters, gpu, t->time_calls, t->ctx, h->r.timing.median,
                                   window, edge, &h->r.energy, why);
    phase_add(phases, SPB_PHASE_ENERGY, timing_now() - start);
    if (st == SPB_OK)
        phase_energy_window(phases, h->r.energy.window_s, h->r.energy.periods, h->r.energy.chained,
                            h->r.energy.late_wakes);
    if (st == SPB_ERR_DEVICE) {
        snprintf(h->msg, SPB_MSG_LEN, "%s", why);
        return st;
    }
    if (st != SPB_OK && why[0]) { /* a counter unread: columns empty, the reason in the message */
        h->r.energy.joules_per_product = h->r.energy.watts = h->r.energy.err = NAN;
        spb_appendf(h->msg, SPB_MSG_LEN, "%senergy not measured: %s", h->msg[0] ? "; " : "", why);
    }
    return SPB_OK;
}

/* The staged and peer rows' three legs, at the front of the message (which
 * the blocks' kernels may fill): which one limits the exchange, each at the
 * most bytes a rank sends. */
static void say_legs(const spb_dist_stats *d, char *msg)
{
    const double legs[3] = {d->to_host_s, d->mpi_s, d->to_device_s};
    const char *const *names = d->leg_names;
    char said[SPB_MSG_LEN];
    snprintf(said, sizeof said, "legs per product (the slowest rank's):");
    for (int k = 0; k < 3; k++) {
        spb_appendf(said, sizeof said, "%s %s %.3g ms", k ? "," : "", names[k], legs[k] * 1e3);
        if (d->leg_moves[k])
            spb_appendf(said, sizeof said, " (%.3g GB/s)",
                        legs[k] > 0 ? d->bytes_max / legs[k] / 1e9 : 0.0);
    }
    char both[2 * SPB_MSG_LEN + 2];
    snprintf(both, sizeof both, "%s%s%s", said, msg[0] ? "; " : "", msg);
    size_t keep = strlen(both) < SPB_MSG_LEN ? strlen(both) : SPB_MSG_LEN - 1;
    memcpy(msg, both, keep);
    msg[keep] = '\0';
}

/* A distributed row's exchange figures, and the medians over its samples
 * of compute, exposed communication and (GPU rows) the exchange, whose
 * bandwidth is the most bytes a rank sends over it; the staged row's legs
 * also into its message. */
void distributed_figures(const void *state, spb_result *r, char *msg)
{
    double *series[DIST_SERIES];
    int samples = dist_kernel_stats(state, &r->dist, series);
    if (samples <= 0) return;
    r->dist.compute_s = timing_median(series[DIST_COMPUTE], samples);
    r->dist.comm_s = timing_median(series[DIST_COMM], samples);
    if (!series[DIST_EXCHANGE]) return;
    r->dist.exchange_s = timing_median(series[DIST_EXCHANGE], samples);
    if (r->dist.exchange_s > 0 && r->dist.bytes_max > 0)
        r->dist.exchange_gbs = r->dist.bytes_max / r->dist.exchange_s / 1e9;
    if (!series[DIST_TO_HOST] || !r->dist.leg_names[0]) return;
    r->dist.to_host_s = timing_median(series[DIST_TO_HOST], samples);
    r->dist.mpi_s = timing_median(series[DIST_MPI], samples);
    r->dist.to_device_s = timing_median(series[DIST_TO_DEVICE], samples);
    say_legs(&r->dist, msg);
}
