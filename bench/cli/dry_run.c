/* dry_run.c — what a study would measure (see dry_run.h). */
#include "bench/cli/dry_run.h"

#include <string.h>

#include "bench/cli/cli.h"
#include "bench/run/plan.h"
#include "bench/run/selection.h"
#include "core/timing.h"

static void print_matrices(FILE *out, const spb_source_list *list)
{
    fprintf(out, "# matrices (%d):", list->count);
    for (int k = 0; k < list->count && k < 12; k++) fprintf(out, " %s", list->names[k]);
    if (list->count > 12) fprintf(out, " ... and %d more", list->count - 12);
    fprintf(out, "\n");
}

/* One kernel's settings (rows first..last of the plan): precision,
 * threads, and ranks for a distributed kernel. */
static void kernel_settings(const spb_plan *plan, int first, int last, char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int k = first; k <= last && used + 32 < size; k++) {
        const spb_kernel_config *c = &plan->rows[k].config;
        used += (size_t)snprintf(text + used, size - used, "%s%s t%d", k == first ? "" : ", ",
                                 spb_precision_str(c->precision), c->threads);
        if (kernel_over_ranks(plan->rows[k].kernel))
            used += (size_t)snprintf(text + used, size - used, " r%d", c->ranks);
    }
    if (used + 32 >= size) snprintf(text + size - 5, 5, " ...");
}

/* Each kernel once, with its settings and whether it would be skipped
 * here; whether each plan row would be timed, into timed[]. */
static void print_kernels(FILE *out, const spb_plan *plan, int *timed)
{
    fprintf(out, "# kernels (%d): settings as precision, tN threads, rN ranks\n", plan->kernels);
    for (int first = 0, i = 0; i < plan->count; i++) {
        if (!plan_kernel_ends(plan, i)) continue;
        const spb_kernel *kernel = plan->rows[i].kernel;
        char why[SPB_MSG_LEN] = "", settings[256];
        int unavailable = kernel_unavailable(kernel, why);
        kernel_settings(plan, first, i, settings, sizeof settings);
        fprintf(out, "#   %-26s %s%s%s%s\n", kernel->name, settings,
                unavailable ? " (skipped here: " : "", unavailable ? why : "",
                unavailable ? ")" : "");
        for (int k = first; k <= i; k++) timed[k] = !unavailable;
        first = i + 1;
    }
}

int dry_run_print(FILE *out, const spb_run_opts *o, const spb_source_list *list, int processes)
{
    spb_plan plan;
    char msg[SPB_MSG_LEN] = "";
    if (plan_build(&plan, o, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        return EXIT_RESULTS_BAD;
    }
    int *timed = spb_calloc((size_t)plan.count + 1, sizeof *timed);
    if (!timed) {
        plan_free(&plan);
        fprintf(stderr, "spbench: out of memory\n");
        return EXIT_RESULTS_BAD;
    }
    fprintf(out, "# dry run: nothing is measured or written\n");
    print_matrices(out, list);
    print_kernels(out, &plan, timed);
    long rows = 0, timed_rows = 0, energy_rows = 0;
    for (int m = 0; m < list->count; m++)
        for (int i = 0; i < plan.count; i++) {
            if (list->ranks && plan.rows[i].config.ranks != list->ranks[m]) continue;
            rows++;
            timed_rows += timed[i];
            energy_rows += timed[i] && !kernel_over_ranks(plan.rows[i].kernel);
        }
    /* a row's timing lasts at least --min-time, and --reps samples of at
     * least SPB_MIN_SAMPLE_SECONDS each */
    double per_row = o->timing.min_samples * SPB_MIN_SAMPLE_SECONDS;
    if (o->timing.min_time > per_row) per_row = o->timing.min_time;
    double floor_s = (double)timed_rows * per_row * processes;
    /* an energy window lasts at least --energy-s, and one period of the
     * counter: about 0.1 s on NVML's (where a counter reads at all) */
    double window =
        o->energy_window_s > 0 ? (o->energy_window_s > 0.1 ? o->energy_window_s : 0.1) : 0;
    double energy_s = (double)energy_rows * window * processes;
    fprintf(out, "# rows: %ld (%ld timed, %ld skipped here)%s\n", rows * processes,
            timed_rows * processes, (rows - timed_rows) * processes,
            processes > 1 ? ", the study run by each process" : "");
    fprintf(out,
            "# time: at least %.0f s of timing (each timed row >= %.3g s: --reps, --min-time); "
            "energy windows up to %.0f s more where a counter reads (--energy-s); noisy rows "
            "measured again up to as much as the timing; the bandwidth pass when this "
            "machine's figure is not kept (--bandwidth)\n",
            floor_s, per_row, energy_s);
    fprintf(out, "# so between %.0f s and %.0f s, the loading of the matrices aside\n", floor_s,
            2 * floor_s + energy_s);
    spb_free(timed);
    plan_free(&plan);
    return 0;
}
