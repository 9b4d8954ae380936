/* phases.c — where a study's time goes (see phases.h). */
#include "bench/report/phases.h"

#include "core/timing.h"

#include <math.h>

static const char *const names[SPB_PHASES] = {"loading",        "bandwidth",  "prepare",
                                              "auto trials",    "validation", "timing",
                                              "re-measurement", "energy"};
static const char *const keys[SPB_PHASES] = {"load",       "bandwidth", "prepare",   "auto_trials",
                                             "validation", "timing",    "remeasure", "energy"};

void phase_add(spb_phase_times *p, spb_phase which, double seconds)
{
    if (p && seconds > 0) p->seconds[which] += seconds;
}

void phase_energy_window(spb_phase_times *p, double window_s, double periods, int chained,
                         int late_wakes)
{
    if (!p || !(window_s > 0)) return;
    spb_energy_windows *w = &p->energy;
    w->windows++;
    w->window_s += window_s;
    w->chained += chained != 0;
    w->late_wakes += late_wakes;
    if (periods > 0) {
        w->periods += periods;
        w->period_window_s += window_s;
    }
}

/* The run's wall time so far and the part no phase holds. */
static double wall_and_other(const spb_phase_times *p, double *other)
{
    double wall = timing_now() - p->start, sum = 0;
    for (int k = 0; k < SPB_PHASES; k++) sum += p->seconds[k];
    *other = wall > sum ? wall - sum : 0;
    return wall;
}

void phases_print(FILE *out, const spb_phase_times *p)
{
    if (!p) return;
    double other, wall = wall_and_other(p, &other);
    fprintf(out, "# time: %.1f s:", wall);
    for (int k = 0; k < SPB_PHASES; k++)
        if (p->seconds[k] >= 0.05 || k == SPB_PHASE_TIMING)
            fprintf(out, " %s %.1f s (%.0f%%),", names[k], p->seconds[k],
                    wall > 0 ? 100 * p->seconds[k] / wall : 0);
    fprintf(out, " other %.1f s\n", other);
    const spb_energy_windows *w = &p->energy;
    if (!w->windows) return;
    /* what a pass cost against the counter's period: one is its floor */
    double period = w->periods > 0 ? w->period_window_s / w->periods : NAN;
    double pass = p->seconds[SPB_PHASE_ENERGY] / w->windows;
    fprintf(out, "# energy: %d passes, %.3f s each", w->windows, pass);
    if (period > 0)
        fprintf(out, " (%.2f periods of the counter's %.0f ms)", pass / period, 1e3 * period);
    fprintf(out,
            "; windows of %.3f s; %d%% opened where the pass before closed; %d wake%s after "
            "the change slept for (each costs a period)\n",
            w->window_s / w->windows, (int)lround(100.0 * w->chained / w->windows), w->late_wakes,
            w->late_wakes == 1 ? "" : "s");
}

void phases_json(FILE *out, const spb_phase_times *p)
{
    if (!p) {
        fputs("null", out);
        return;
    }
    double other, wall = wall_and_other(p, &other);
    fprintf(out, "{\"wall\": %.3f", wall);
    for (int k = 0; k < SPB_PHASES; k++) fprintf(out, ", \"%s\": %.3f", keys[k], p->seconds[k]);
    fprintf(out, ", \"other\": %.3f", other);
    const spb_energy_windows *w = &p->energy;
    if (w->windows)
        fprintf(out,
                ", \"energy_windows\": {\"passes\": %d, \"window_s\": %.3f, \"periods\": %.3f, "
                "\"period_window_s\": %.3f, \"chained\": %d, \"late_wakes\": %d}",
                w->windows, w->window_s, w->periods, w->period_window_s, w->chained, w->late_wakes);
    fputc('}', out);
}
