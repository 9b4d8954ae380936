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
 * kernel, precision by precision, then its settings (--hack-size,
 * --block-size, --tile lists, in their order), then ranks, then threads
 * ascending. */
spb_status plan_build(spb_plan *plan, const spb_run_opts *opts, char *msg);
/* The rows' precisions in the matrix's field, once it is loaded: a width
 * asked for (fp64, fp32) is complex128 or complex64 on a complex matrix. */
void plan_set_field(spb_plan *plan, int complex_values);
void plan_free(spb_plan *plan);

/* The setting of kernel's first row in `precision`, selected or not (the
 * baseline's stored time is looked up by it). */
spb_kernel_config plan_first_config(const spb_run_opts *opts, const spb_kernel *kernel,
                                    spb_precision precision);

/* The settings kernel takes (spb_sweep bits): its own, and the hack size
 * of an HLL or SELL format. */
unsigned kernel_sweeps(const spb_kernel *kernel);

/* A row's settings, the row key's part: "hack_size=32 block_size=auto
 * seed=1", then the tile, --max-kernel-ms and SpGEMM's B where they
 * apply. plan_run_settings: the same with the run's lists ("16,32"). */
#define SPB_SETTINGS_LEN 512
void plan_row_settings(const spb_run_opts *opts, const spb_kernel_config *config, char *out,
                       size_t size);
void plan_run_settings(const spb_run_opts *opts, char *out, size_t size);

/* The row's swept settings as the table names them ("b128", "h16,b256",
 * "tile64"); empty when the run gives the kernel's settings one value
 * each. */
void plan_row_sweep_label(const spb_run_opts *opts, const spb_planned_row *row, char *out,
                          size_t size);

/* The longest kernel label (result_row_label) of a row the run can
 * measure here on a real matrix (a kernel that cannot run here, or has
 * not the row's precision, is skipped, its row folded): the console
 * table's kernel column, widened by the table where a complex matrix's
 * labels are longer. */
int plan_kernel_width(const spb_run_opts *opts);

/* Whether rows[i] is the last row of its kernel. */
int plan_kernel_ends(const spb_plan *plan, int i);

/* The formats (a bit per format kind) that the rows after rows[i] need. */
unsigned plan_formats_after(const spb_plan *plan, int i);

#endif
