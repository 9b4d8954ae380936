/* phases.c — where a study's time goes (see phases.h). */
#include "bench/report/phases.h"

#include "core/timing.h"

static const char *const names[SPB_PHASES] = {"loading",        "bandwidth",  "prepare",
                                              "auto trials",    "validation", "timing",
                                              "re-measurement", "energy"};
static const char *const keys[SPB_PHASES] = {"load",       "bandwidth", "prepare",   "auto_trials",
                                             "validation", "timing",    "remeasure", "energy"};

void phase_add(spb_phase_times *p, spb_phase which, double seconds)
{
    if (p && seconds > 0) p->seconds[which] += seconds;
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
    fprintf(out, ", \"other\": %.3f}", other);
}
