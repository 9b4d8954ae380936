/* plan.c — the rows of each matrix (see plan.h). */
#include "bench/run/plan.h"

#include "core/memory.h"

/* Serial and device kernels run once (one host thread); OpenMP ones at
 * each thread count; distributed ones at each rank count and, per rank,
 * each thread count. */
static int runs_of(const spb_kernel *kernel, const spb_run_opts *opts)
{
    if (kernel_over_ranks(kernel)) return opts->rank_counts * opts->thread_counts;
    return kernel->backend == SPB_BACKEND_OPENMP ? opts->thread_counts : 1;
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

/* kernel's c-th run (runs_of) in `precision`. */
static spb_kernel_config config_of(const spb_run_opts *opts, const spb_kernel *kernel,
                                   spb_precision precision, int c)
{
    spb_kernel_config config = opts->config;
    config.precision = precision;
    config.threads = 1;
    config.ranks = 1;
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
