/* plan.c — the rows of each matrix (see plan.h). */
#include "bench/run/plan.h"

#include <stdio.h>
#include <string.h>

#include "bench/run/selection.h"
#include "core/memory.h"

unsigned kernel_sweeps(const spb_kernel *kernel)
{
    const int kind = format_kind_of(kernel->format);
    const int hack =
        kind == SPB_FORMAT_HLL_ROW || kind == SPB_FORMAT_HLL_COL || kind == SPB_FORMAT_SELL;
    return kernel->sweeps | (hack ? (unsigned)SPB_SWEEP_HACK_SIZE : 0u);
}

/* The config field each sweep sets, in spb_sweep bit order. */
static int *sweep_field(spb_kernel_config *config, int sweep)
{
    switch (sweep) {
    case 0: return &config->hack_size;
    case 1: return &config->block_size;
    default: return &config->tile;
    }
}

/* How many values the run gives the sweep (a setting not listed: one). */
static int sweep_count(const spb_run_opts *opts, int sweep)
{
    return opts->sweep_counts[sweep] > 0 ? opts->sweep_counts[sweep] : 1;
}

/* The settings the kernel is run at: its sweeps' lists multiplied. */
static int sweep_runs(const spb_kernel *kernel, const spb_run_opts *opts)
{
    int runs = 1;
    for (int w = 0; w < SPB_SWEEPS; w++)
        if (kernel_sweeps(kernel) & (1u << w)) runs *= sweep_count(opts, w);
    return runs;
}

/* Serial and device kernels run once (one host thread); OpenMP ones at
 * each thread count; distributed ones at each rank count and, per rank,
 * each thread count: the placements of one setting. */
static int placements_of(const spb_kernel *kernel, const spb_run_opts *opts)
{
    if (kernel_over_ranks(kernel)) return opts->rank_counts * opts->thread_counts;
    return kernel->backend == SPB_BACKEND_OPENMP ? opts->thread_counts : 1;
}

static int runs_of(const spb_kernel *kernel, const spb_run_opts *opts)
{
    return sweep_runs(kernel, opts) * placements_of(kernel, opts);
}

/* The precisions each kernel runs in, and the p-th of them. */
static int precision_count(const spb_run_opts *opts)
{
    return opts->precisions ? opts->precision_count : 1;
}

static spb_precision precision_of(const spb_run_opts *opts, int p)
{
    return opts->precisions ? opts->precisions[p] : opts->config.precision;
}

/* kernel's c-th run (runs_of) in `precision`: its settings in the order of
 * their lists (the first sweep slowest), each at every placement. */
static spb_kernel_config config_of(const spb_run_opts *opts, const spb_kernel *kernel,
                                   spb_precision precision, int c)
{
    spb_kernel_config config = opts->config;
    config.precision = precision;
    config.threads = 1;
    config.ranks = 1;
    int setting = c / placements_of(kernel, opts);
    c %= placements_of(kernel, opts);
    for (int w = SPB_SWEEPS - 1; w >= 0; w--)
        if ((kernel_sweeps(kernel) & (1u << w)) && opts->sweep_counts[w] > 0) {
            *sweep_field(&config, w) = opts->sweep_values[w][setting % opts->sweep_counts[w]];
            setting /= opts->sweep_counts[w];
        }
    if (kernel_over_ranks(kernel)) {
        config.threads = opts->threads[c % opts->thread_counts];
        config.ranks = opts->ranks[c / opts->thread_counts];
    } else if (kernel->backend == SPB_BACKEND_OPENMP) {
        config.threads = opts->threads[c];
    }
    if (opts->roofline) config.cache_bytes = opts->roofline->cpu_llc_bytes;
    config.shared_x = 1; /* the table's device rows gather x alike */
    return config;
}

spb_kernel_config plan_first_config(const spb_run_opts *opts, const spb_kernel *kernel,
                                    spb_precision precision)
{
    return config_of(opts, kernel, precision, 0);
}

spb_status plan_build(spb_plan *plan, const spb_run_opts *opts, char *msg)
{
    *plan = (spb_plan){.first_precision = precision_of(opts, 0)};
    const spb_operation *op = opts->op;
    int count = 0;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        if (pass == 1 && count > 0 && !(plan->rows = spb_calloc((size_t)count, sizeof *plan->rows)))
            return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the list of rows");
        for (int k = 0; k < op->kernel_count; k++) {
            const spb_kernel *kernel = op->kernels[k];
            if (!kernel_chosen(kernel, opts->kernels, opts->distributed)) continue;
            if (pass == 1) plan->kernels++;
            for (int p = 0; p < precision_count(opts); p++)
                for (int c = 0; c < runs_of(kernel, opts); c++) {
                    if (pass == 1)
                        plan->rows[plan->count++] = (spb_planned_row){
                            kernel, k, config_of(opts, kernel, precision_of(opts, p), c)};
                    else
                        count++;
                }
        }
    }
    return SPB_OK;
}

void plan_set_field(spb_plan *plan, int complex_values)
{
    plan->first_precision = spb_precision_in_field(plan->first_precision, complex_values);
    for (int i = 0; i < plan->count; i++)
        plan->rows[i].config.precision =
            spb_precision_in_field(plan->rows[i].config.precision, complex_values);
}

void plan_free(spb_plan *plan)
{
    spb_free(plan->rows);
    *plan = (spb_plan){0};
}

int plan_kernel_ends(const spb_plan *plan, int i)
{
    return i + 1 >= plan->count || plan->rows[i + 1].kernel_index != plan->rows[i].kernel_index;
}

unsigned plan_formats_after(const spb_plan *plan, int i)
{
    unsigned mask = 0;
    for (int j = i + 1; j < plan->count; j++) {
        int kind = format_kind_of(plan->rows[j].kernel->format);
        if (kind >= 0) mask |= 1u << kind;
    }
    return mask;
}

/* The one writer of a settings text (the row key's part), from each
 * setting as text: a row's values, or the run's lists. */
static void settings_text(char *out, size_t size, const char *hack, const char *block,
                          const char *tile, const spb_run_opts *opts)
{
    snprintf(out, size, "hack_size=%s block_size=%s seed=%llu", hack, block,
             (unsigned long long)opts->seed);
    if (tile[0]) spb_appendf(out, size, " tile=%s", tile);
    if (opts->max_kernel_ms > 0) spb_appendf(out, size, " max_kernel_ms=%g", opts->max_kernel_ms);
    if (opts->op == operation_spgemm()) /* B is part of what was measured */
        spb_appendf(out, size, " b=%s", opts->operand ? opts->operand : "self");
}

void plan_row_settings(const spb_run_opts *opts, const spb_kernel_config *config, char *out,
                       size_t size)
{
    char hack[16], block[16] = "auto", tile[16] = "";
    snprintf(hack, sizeof hack, "%d", (int)config->hack_size);
    if (config->block_size) snprintf(block, sizeof block, "%d", config->block_size);
    if (config->tile) snprintf(tile, sizeof tile, "%d", config->tile);
    settings_text(out, size, hack, block, tile, opts);
}

/* A sweep's list as text ("16,32"), or its one value as a row writes it. */
static void list_text(const spb_run_opts *opts, int sweep, char *out, size_t size)
{
    spb_kernel_config config = opts->config;
    const int value = *sweep_field(&config, sweep);
    out[0] = '\0';
    if (opts->sweep_counts[sweep] <= 1) {
        if (value || sweep == 0)
            snprintf(out, size, "%d", value);
        else if (sweep == 1)
            snprintf(out, size, "auto");
        return;
    }
    for (int k = 0; k < opts->sweep_counts[sweep]; k++)
        spb_appendf(out, size, "%s%d", k ? "," : "", opts->sweep_values[sweep][k]);
}

void plan_run_settings(const spb_run_opts *opts, char *out, size_t size)
{
    char text[SPB_SWEEPS][200];
    for (int w = 0; w < SPB_SWEEPS; w++) list_text(opts, w, text[w], sizeof text[w]);
    settings_text(out, size, text[0], text[1], text[2], opts);
}

void plan_row_sweep_label(const spb_run_opts *opts, const spb_planned_row *row, char *out,
                          size_t size)
{
    static const char *const letters[SPB_SWEEPS] = {"h", "b", "tile"};
    spb_kernel_config config = row->config;
    out[0] = '\0';
    for (int w = 0; w < SPB_SWEEPS; w++)
        if ((kernel_sweeps(row->kernel) & (1u << w)) && opts->sweep_counts[w] > 1)
            spb_appendf(out, size, "%s%s%d", out[0] ? "," : "", letters[w],
                        *sweep_field(&config, w));
}

int plan_kernel_width(const spb_run_opts *opts)
{
    spb_plan plan;
    char msg[SPB_MSG_LEN], label[160], sweep[64];
    int width = 0;
    if (plan_build(&plan, opts, msg) != SPB_OK) return 0;
    for (int i = 0; i < plan.count; i++) {
        const spb_planned_row *p = &plan.rows[i];
        if (kernel_unavailable(p->kernel, msg) || !kernel_runs_in(p->kernel, p->config.precision))
            continue; /* skipped rows are folded */
        spb_result r;
        result_init(&r);
        r.kernel = p->kernel->name;
        r.backend = backend_name(p->kernel->backend);
        r.precision = spb_precision_str(p->config.precision);
        r.ranks = p->config.ranks;
        plan_row_sweep_label(opts, p, sweep, sizeof sweep);
        r.sweep = sweep;
        result_row_label(&r, label, sizeof label);
        if ((int)strlen(label) > width) width = (int)strlen(label);
    }
    plan_free(&plan);
    return width;
}
