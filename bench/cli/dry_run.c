/* dry_run.c — what a study would measure (see dry_run.h). */
#include "bench/cli/dry_run.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/inputs/gen.h"
#include "bench/machine/energy.h"
#include "bench/run/plan.h"
#include "bench/run/selection.h"
#include "core/memory.h"
#include "core/timing.h"
#include "formats/csr.h"
#include "formats/format_set.h"

static void print_matrices(FILE *out, const spb_source_list *list)
{
    fprintf(out, "# matrices (%d):", list->count);
    for (int k = 0; k < list->count && k < 12; k++) fprintf(out, " %s", list->names[k]);
    if (list->count > 12) fprintf(out, " ... and %d more", list->count - 12);
    fprintf(out, "\n");
}

/* One kernel's settings (rows first..last of the plan): precision,
 * threads, and ranks for a distributed kernel. */
static void kernel_settings(const spb_run_opts *o, const spb_plan *plan, int first, int last,
                            char *text, size_t size)
{
    text[0] = '\0';
    int whole = 1, k = first;
    for (; k <= last && whole && strlen(text) + 32 < size; k++) {
        const spb_kernel_config *c = &plan->rows[k].config;
        char sweep[64];
        plan_row_sweep_label(o, &plan->rows[k], sweep, sizeof sweep);
        whole =
            spb_appendf(text, size, "%s%s%s%s t%d", k == first ? "" : ", ",
                        spb_precision_str(c->precision), sweep[0] ? " " : "", sweep, c->threads);
        if (whole && kernel_over_ranks(plan->rows[k].kernel))
            whole = spb_appendf(text, size, " r%d", c->ranks);
    }
    if (!whole || k <= last) { /* settings left out: the list says so at its end */
        const size_t end = strlen(text);
        snprintf(text + (end + 5 <= size ? end : size - 5), 5, " ...");
    }
}

/* Each kernel once, with its settings and whether it would be skipped
 * here; whether each plan row would be timed, into timed[]. */
static void print_kernels(FILE *out, const spb_run_opts *o, const spb_plan *plan, int *timed)
{
    fprintf(out,
            "# kernels (%d): settings as precision, hN hack size, bN block size, tileN tile (where "
            "a list sweeps them), tN threads, rN ranks\n",
            plan->kernels);
    for (int first = 0, i = 0; i < plan->count; i++) {
        if (!plan_kernel_ends(plan, i)) continue;
        const spb_kernel *kernel = plan->rows[i].kernel;
        char why[SPB_MSG_LEN] = "", settings[256];
        int unavailable = kernel_unavailable(kernel, why);
        kernel_settings(o, plan, first, i, settings, sizeof settings);
        fprintf(out, "#   %-26s %s%s%s%s\n", kernel->name, settings,
                unavailable ? " (skipped here: " : "", unavailable ? why : "",
                unavailable ? ")" : "");
        for (int k = first; k <= i; k++) timed[k] = !unavailable;
        first = i + 1;
    }
}

/* One host row's seconds per product on the case: its fastest of three
 * products after an untimed one; negative where it cannot run there. */
static double host_row_seconds(const spb_run_opts *o, spb_case *c, const spb_kernel *kernel,
                               const spb_kernel_config *config)
{
    char msg[SPB_MSG_LEN] = "";
    spb_kernel_plan plan = {0};
    if ((kernel->supports && !kernel->supports(kernel, c->A, msg)) ||
        !kernel_runs_in(kernel, config->precision) ||
        kernel->prepare(kernel, &c->formats, config, &plan, msg) != SPB_OK)
        return -1;
    double best = -1;
    for (int k = 0; k < 4; k++) {
        double start = timing_now();
        spb_status st = o->op->host_calls(kernel, plan.state, c, config->precision, 1, msg);
        double t = timing_now() - start;
        if (st != SPB_OK) {
            best = -1;
            break;
        }
        if (k > 0 && (best < 0 || t < best)) best = t;
    }
    kernel->release(plan.state);
    return best;
}

/* Each timed host row's seconds per unit of work (unit[i]; negative where
 * not timed: device and distributed rows, rows that decline the matrix),
 * timed on the operation's calibration matrix; returns the baseline's at
 * one thread (negative when it could not be timed), from which the other
 * rows are guessed. */
static double calibrate(const spb_run_opts *o, const spb_plan *plan, const int *timed, double *unit)
{
    for (int i = 0; i < plan->count; i++) unit[i] = -1;
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    if (gen_matrix(o->op->calibration, &A, msg) != SPB_OK) return -1;
    spb_case c = {.name = o->op->calibration, .A = &A};
    format_set_init(&c.formats, &A);
    double work = o->op->work(&c, o->seed, msg), baseline = -1;
    if (work > 0 && o->op->case_setup(&c, o->seed, msg) == SPB_OK) {
        spb_kernel_config one = plan_first_config(o, o->op->baseline, SPB_FP64);
        baseline = host_row_seconds(o, &c, o->op->baseline, &one) / work;
        for (int i = 0; i < plan->count; i++) {
            const spb_kernel *kernel = plan->rows[i].kernel;
            const spb_kernel_config *config = &plan->rows[i].config;
            if (!timed[i] || kernel->backend == SPB_BACKEND_CUDA || kernel_over_ranks(kernel))
                continue;
            for (int j = 0; j < i && unit[i] < 0; j++) /* the same row at another rank count */
                if (plan->rows[j].kernel == kernel &&
                    plan->rows[j].config.threads == config->threads &&
                    plan->rows[j].config.precision == config->precision)
                    unit[i] = unit[j];
            if (unit[i] < 0) unit[i] = host_row_seconds(o, &c, kernel, config) / work;
        }
        o->op->case_free(&c);
    }
    format_set_free(&c.formats);
    csr_free(&A);
    return baseline;
}

/* A device call's floor (a launch and its wait), and how much faster than
 * the host's baseline a device row is taken to be: the estimate's guesses
 * where nothing was measured here. */
#define DEVICE_CALL_FLOOR_S 5e-6
#define DEVICE_SPEEDUP      50.0
/* An auto row's candidates, and each one's trial: a warm-up and 3 samples
 * of at least 1 ms, at least 5 ms in all (core/kernel_trial.c). */
#define TRIAL_CANDIDATES 4
#define TRIAL_SAMPLES    3
#define TRIAL_MIN_S      5e-3

/* One product of a row, in seconds: the baseline's rate here shared by the
 * row's threads (or ranks) up to the cores; a device row at the floor or
 * DEVICE_SPEEDUP times faster than the host. */
static double call_seconds(const spb_kernel *kernel, const spb_kernel_config *config, double host_s,
                           int cores)
{
    if (kernel->backend == SPB_BACKEND_CUDA) {
        double t = host_s / DEVICE_SPEEDUP;
        return t > DEVICE_CALL_FLOOR_S ? t : DEVICE_CALL_FLOOR_S;
    }
    int share = config->threads * (kernel_over_ranks(kernel) ? config->ranks : 1);
    if (share > cores) share = cores;
    return host_s / (share > 1 ? share : 1);
}

/* A row's seconds: its warm-up, the batch's sizing, the samples (at least
 * --reps of at least SPB_MIN_SAMPLE_SECONDS, and --min-time), a validated
 * product before and after them, and an auto row's trials; a row whose
 * first call passes --max-kernel-ms is that call and its validation. */
static double row_seconds(const spb_run_opts *o, const spb_kernel *kernel, double call)
{
    if (o->max_kernel_ms > 0 && call * 1e3 > o->max_kernel_ms) return 2 * call;
    double sample = call > SPB_MIN_SAMPLE_SECONDS ? call : SPB_MIN_SAMPLE_SECONDS;
    double timing = o->timing.min_samples * sample;
    if (o->timing.min_time > timing) timing = o->timing.min_time;
    double t = (o->timing.warmup + 2) * call + sample + timing;
    if (kernel->trials) {
        double trial = TRIAL_SAMPLES * sample;
        t += TRIAL_CANDIDATES * ((trial > TRIAL_MIN_S ? trial : TRIAL_MIN_S) + 2 * call);
    }
    return t;
}

/* The parts of the estimate, in seconds, and which sides' energy counters
 * read here (an energy pass runs only where one does). */
typedef struct {
    double load, references, rows, floor, energy;
    int unreadable;
    int energy_cpu, energy_gpu;
    int bounded;   /* matrices whose estimate --max-matrix-s cut */
    long declined; /* timed rows the run declines on their matrix (its field, its offsets) */
} dry_estimate;

/* Whether the plan's row i is timed on matrix m (at its rank count). */
static int row_timed_on(const spb_plan *plan, const int *timed, const spb_source_list *list, int m,
                        int i)
{
    return timed[i] && !(list->ranks && plan->rows[i].config.ranks != list->ranks[m]);
}

/* One matrix's energy windows: each row's with --energy-rows all, else
 * one per group of energy_rivals (the fastest of each); a window lasts SPB_ENERGY_PERIODS of the
 * counter's steps (NVML's about 0.1 s, RAPL's 1 ms), or --energy-s where that is longer. */
static double energy_windows_s(const spb_run_opts *o, const spb_plan *plan, const int *timed,
                               const spb_source_list *list, int m, const dry_estimate *e)
{
    double total = 0;
    for (int i = 0; i < plan->count && o->energy.window_s > 0; i++) {
        const spb_planned_row *r = &plan->rows[i];
        const int gpu = r->kernel->backend == SPB_BACKEND_CUDA;
        if (!row_timed_on(plan, timed, list, m, i) || kernel_over_ranks(r->kernel) ||
            !(gpu ? e->energy_gpu : e->energy_cpu))
            continue;
        int first = 1; /* of its kind: the one window they share */
        for (int j = 0; j < i && first && !o->energy.all_rows; j++) {
            const spb_planned_row *q = &plan->rows[j];
            first = !(row_timed_on(plan, timed, list, m, j) &&
                      energy_rivals(r->kernel, &r->config, q->kernel, &q->config));
        }
        if (first) total += fmax(o->energy.window_s, SPB_ENERGY_PERIODS * (gpu ? 0.1 : 1e-3));
    }
    return total;
}

/* One matrix: read it (timed: a run reads it too), its work per product,
 * then each of its timed rows: at its own rate where it was calibrated,
 * else guessed from the baseline's (unit_s). */
static void estimate_matrix(const spb_run_opts *o, const spb_plan *plan, const int *timed,
                            const double *unit, const spb_source_list *list, int m, double unit_s,
                            int cores, dry_estimate *e)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    const double loaded_before = e->load;
    double start = timing_now();
    if (source_load(list->items[m], &A, NULL, msg) != SPB_OK) {
        e->unreadable++;
        return;
    }
    e->load += timing_now() - start;
    spb_case c = {.name = list->names[m], .A = &A, .operand = o->operand};
    double work = o->op->work(&c, o->seed, msg);
    if (work < 0) {
        e->unreadable++;
        csr_free(&A);
        return;
    }
    double host_s = work * unit_s;
    dry_estimate mine = {0};      /* this matrix's parts, bounded below before they count */
    mine.references = 4 * host_s; /* the compensated reference and its scale */
    double longest = 0;
    mine.energy = energy_windows_s(o, plan, timed, list, m, e);
    for (int i = 0; i < plan->count; i++) {
        if (!row_timed_on(plan, timed, list, m, i)) continue;
        const spb_kernel *kernel = plan->rows[i].kernel;
        spb_kernel_config in_field = plan->rows[i].config; /* as the run takes the matrix */
        in_field.precision = spb_precision_in_field(in_field.precision, A.complex_values);
        if (run_kernel_declines(kernel, &A, NULL, NAN, &in_field, msg) != SPB_OK) {
            e->declined++;
            continue;
        }
        double call = unit[i] > 0 ? work * unit[i]
                                  : call_seconds(kernel, &plan->rows[i].config, host_s, cores);
        double row = row_seconds(o, kernel, call);
        mine.rows += row;
        if (row > longest) longest = row;
        double sample = call > SPB_MIN_SAMPLE_SECONDS ? call : SPB_MIN_SAMPLE_SECONDS;
        mine.floor += o->timing.min_time > o->timing.min_samples * sample
                          ? o->timing.min_time
                          : o->timing.min_samples * sample;
    }
    /* --max-matrix-s: rows not begun by then are skipped; a row already
     * timing finishes (at most the longest row past the bound) */
    const double spent = e->load - loaded_before + mine.references + mine.rows + mine.energy;
    const double bound = o->max_matrix_s + longest;
    if (o->max_matrix_s > 0 && spent > bound) {
        const double keep =
            (bound - (e->load - loaded_before)) / (spent - (e->load - loaded_before));
        const double share = keep > 0 ? keep : 0;
        mine.references *= share, mine.rows *= share, mine.energy *= share, mine.floor *= share;
        e->bounded++;
    }
    e->references += mine.references, e->rows += mine.rows;
    e->energy += mine.energy, e->floor += mine.floor;
    csr_free(&A);
}

/* What the estimate leaves out or cuts. */
static void print_estimate_notes(FILE *out, const spb_run_opts *o, const dry_estimate *e,
                                 int processes)
{
    fprintf(out,
            "# noisy rows are measured again (up to the timing once more: %.0f s), and the "
            "bandwidth pass runs when this machine's figure is not kept (--bandwidth)\n",
            e->floor * processes);
    if (e->unreadable)
        fprintf(out, "# %d %s could not be read: error rows, not counted\n", e->unreadable,
                e->unreadable == 1 ? "matrix" : "matrices");
    if (e->bounded)
        fprintf(out,
                "# %d %s bounded by --max-matrix-s %g: the rows not begun by then are "
                "skipped, and counted so\n",
                e->bounded, e->bounded == 1 ? "matrix" : "matrices", o->max_matrix_s);
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
    print_kernels(out, o, &plan, timed);
    long rows = 0, timed_rows = 0;
    for (int m = 0; m < list->count; m++)
        for (int i = 0; i < plan.count; i++) {
            if (list->ranks && plan.rows[i].config.ranks != list->ranks[m]) continue;
            rows++;
            timed_rows += timed[i];
        }
    double *unit = spb_calloc((size_t)plan.count + 1, sizeof *unit);
    double unit_s = unit ? calibrate(o, &plan, timed, unit) : -1;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    dry_estimate e = {0};
    spb_energy_meters *meters = energy_open(NULL, "", NULL);
    e.energy_cpu = energy_available(meters, 0);
    e.energy_gpu = energy_available(meters, 1);
    energy_close(meters);
    for (int m = 0; m < list->count && unit_s > 0; m++)
        estimate_matrix(o, &plan, timed, unit, list, m, unit_s, cores > 0 ? (int)cores : 1, &e);
    spb_free(unit);
    timed_rows -= e.declined; /* each matrix read: the rows its field or size declines */
    fprintf(out, "# rows: %ld (%ld timed, %ld skipped here)%s\n", rows * processes,
            timed_rows * processes, (rows - timed_rows) * processes,
            processes > 1 ? ", the study run by each process" : "");
    double total = (e.load + e.references + e.rows + e.energy) * processes;
    fprintf(out,
            "# time: about %.3g s: reading the matrices %.1f s (read now), references %.1f s, "
            "rows %.1f s (timing at least %.1f s: --reps, --min-time; warm-up, validation, "
            "auto trials), energy windows %.1f s (--energy-s, --energy-rows, where a counter "
            "reads), each for "
            "%d process%s; each "
            "host row's rate timed here on %s (%s: %.3g ns per %s), device rows guessed at "
            "%gx %s, distributed rows at its rate over their cores\n",
            total, e.load, e.references, e.rows, e.floor, e.energy, processes,
            processes == 1 ? "" : "es", o->op->calibration, o->op->baseline->name, unit_s * 1e9,
            o->op->work_unit, DEVICE_SPEEDUP, o->op->baseline->name);
    print_estimate_notes(out, o, &e, processes);
    spb_free(timed);
    plan_free(&plan);
    return 0;
}
