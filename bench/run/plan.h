/* plan.h — the rows a run makes of each matrix: every selected kernel in
 * each precision and at each of its thread and rank counts, in table order.
 * Built once from the run's options; the run, --resume, the baseline's
 * stored times and the progress line all walk this one list. */
#ifndef SPB_PLAN_H
#define SPB_PLAN_H

#include "bench/run/run.h"

/* One row a matrix will get: a kernel at one setting. */
typedef struct {
    const spb_kernel *kernel;
    int kernel_index;         /* in the operation's table */
    spb_kernel_config config; /* opts->config with precision, threads and ranks set */
} spb_planned_row;

typedef struct {
    spb_planned_row *rows; /* table order; a kernel's rows side by side */
    int count;
    int kernels;                   /* kernels selected */
    spb_precision first_precision; /* the run's first (a matrix that fails to load: its row) */
} spb_plan;

/* The rows of opts's selection (kernel_chosen), in table order; per
 * kernel, precision by precision, then ranks, then threads ascending. */
spb_status plan_build(spb_plan *plan, const spb_run_opts *opts, char *msg);
/* The rows' precisions in the matrix's field, once it is loaded: a width
 * asked for (fp64, fp32) is complex128 or complex64 on a complex matrix. */
void plan_set_field(spb_plan *plan, int complex_values);
void plan_free(spb_plan *plan);

/* The setting of kernel's first row in `precision`, selected or not (the
 * baseline's stored time is looked up by it). */
spb_kernel_config plan_first_config(const spb_run_opts *opts, const spb_kernel *kernel,
                                    spb_precision precision);

/* Whether rows[i] is the last row of its kernel. */
int plan_kernel_ends(const spb_plan *plan, int i);

/* The formats (a bit per format kind) that the rows after rows[i] need. */
unsigned plan_formats_after(const spb_plan *plan, int i);

#endif
