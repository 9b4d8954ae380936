/* spmv_auto.cu — auto.cuda: one row that picks the device kernel for the
 * matrix in prepare, from the matrix's statistics by a fixed rule (no
 * timing), prepares that kernel and hands its state on. The row's message
 * names the kernel chosen and why; the rule and the measurements behind it
 * are in the README ("Choosing a GPU kernel"). */
#include <stdio.h>
#include <string.h>

#include "gpu.h"
#include "spmv_state.cuh"

/* The rule's thresholds (README: the measurements behind them). */
#define AUTO_LARGE_NNZ 1000000 /* below: launch-bound on an H100, a one-launch row kernel */
#define AUTO_LONG_ROW  64      /* small matrices: a longer row wants a warp */
#define AUTO_WARP_MEAN 16.0    /* small matrices: rows this long on average want a warp */
/* The longest row against the rest (H100 figures): one warp walks about 32
 * entries per 88 ns (gen:hubs:45000:8:1:17663: its row of 14604 entries took
 * csr.cuda.warp 42 us), the rest of a product streams at about 2.5 TB/s
 * after a 5 us launch. */
#define AUTO_WARP_NS_PER_32 88.0
#define AUTO_STREAM_BPS     2.5e12
#define AUTO_LAUNCH_S       5e-6

/* What the rule reads. */
struct matrix_shape {
    spb_csr_shape csr;
    double value_bytes, x_bytes, l2_bytes; /* a value of the run's precision, x, the L2 */
};

#define WHY_LEN (SPB_MSG_LEN / 2) /* the reason, behind the kernel's name in the message */

/* Seconds one warp takes over the longest row, and the rest of the product
 * at the bandwidth: a row kernel cannot finish before its longest row. */
static double longest_row_seconds(const spb_csr_stats *st)
{
    return st->row_max / 32.0 * AUTO_WARP_NS_PER_32 * 1e-9;
}
static double streaming_seconds(const matrix_shape *f)
{
    return (f->value_bytes + 4.0) * f->csr.stats.nnz / AUTO_STREAM_BPS + AUTO_LAUNCH_S;
}

/* The rule: the kernel's name, and why in `why` (WHY_LEN bytes). */
static const char *choose(const matrix_shape *f, char *why)
{
    const spb_csr_stats *st = &f->csr.stats;
    const double mean = st->row_mean, cv = f->csr.cv;
    const int large = st->nnz >= AUTO_LARGE_NNZ;
    /* a few rows thousands of times the mean (hubs), at any size: every row
     * kernel here waits on them; cuSPARSE splits the entries evenly */
    if (st->row_max > AUTO_LONG_ROW && longest_row_seconds(st) > streaming_seconds(f)) {
        snprintf(why, WHY_LEN,
                 "one row of %d entries (mean %.1f) would keep a warp %.0f us, longer than the "
                 "rest of the product (about %.0f us): cuSPARSE's even split of the entries",
                 (int)st->row_max, mean, longest_row_seconds(st) * 1e6, streaming_seconds(f) * 1e6);
        return "cusparse.csr";
    }
    /* x beyond half the L2, each row's gathers spread over it, rows alike
     * (skewed rows: the L2 keeps their hot columns, panels only add traffic) */
    if (large && f->x_bytes > f->l2_bytes / 2 && f->value_bytes * f->csr.span > f->l2_bytes / 2 &&
        cv < SPB_SHAPE_SKEWED_CV) {
        snprintf(why, WHY_LEN,
                 "x (%.0f MiB) exceeds half the L2 (%.0f MiB), gathered at random (rows span "
                 "%.0f columns), rows alike (cv %.2f): column panels",
                 f->x_bytes / 1048576.0, f->l2_bytes / 1048576.0, f->csr.span, cv);
        return "csr.cuda.colblock";
    }
    if (large && f->csr.padding <= SPB_SHAPE_HLL_PADDING) {
        snprintf(why, WHY_LEN,
                 "rows alike (HLL pads %.0f%%): column-major hacks read at the bandwidth%s",
                 100.0 * (f->csr.padding - 1.0), f->csr.pattern ? ", pattern: no values read" : "");
        return f->csr.pattern ? "hll.cuda.col.pattern" : "hll.cuda.col";
    }
    if (large) {
        snprintf(why, WHY_LEN,
                 "rows unlike (cv %.2f, max %d, mean %.1f)%s: tiles of rows streamed through "
                 "shared memory",
                 cv, (int)st->row_max, mean, f->csr.pattern ? ", pattern: no values read" : "");
        return f->csr.pattern ? "csr.cuda.stream.pattern" : "csr.cuda.stream";
    }
    if (st->row_max > AUTO_LONG_ROW || mean >= AUTO_WARP_MEAN) {
        snprintf(why, WHY_LEN,
                 "small (launch-bound), rows long (max %d, mean %.1f): a warp per row",
                 (int)st->row_max, mean);
        return "csr.cuda.warp";
    }
    snprintf(why, WHY_LEN,
             "small (launch-bound), rows short (max %d, mean %.1f): a thread group per row",
             (int)st->row_max, mean);
    return "csr.cuda.adaptive";
}

static const spb_kernel *device_row(const char *name)
{
    for (int i = 0; i < gpu_spmv_kernel_count(); i++)
        if (strcmp(gpu_spmv_kernel(i)->name, name) == 0) return gpu_spmv_kernel(i);
    return NULL;
}

static spb_status auto_prepare(const spb_kernel *self, spb_format_set *formats,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    matrix_shape shape;
    csr_shape(formats->csr, config->hack_size > 0 ? config->hack_size : 32, &shape.csr);
    shape.value_bytes = (double)spb_precision_bytes(config->precision);
    shape.x_bytes = shape.value_bytes * formats->csr->n;
    shape.l2_bytes = gpu_l2_bytes(config);
    char why[WHY_LEN];
    const spb_kernel *chosen = device_row(choose(&shape, why));
    if (!chosen) return spb_fail(msg, SPB_ERR_DEVICE, "auto.cuda: its choice is not in the table");
    spb_status st = chosen->prepare(chosen, formats, config, plan, msg);
    if (st == SPB_OK) snprintf(msg, SPB_MSG_LEN, "%s: %s", chosen->name, why);
    return st;
}

extern const spb_spmv_kernel gpu_auto_kernels[] = {
    {.kernel = {.name = "auto.cuda",
                .format = "csr",
                .backend = SPB_BACKEND_CUDA,
                .description = "the device kernel for this matrix, chosen in prepare from its "
                               "statistics (rule in the README); the message says which and why",
                .supports = gpu_kernel_supports,
                .prepare = auto_prepare,
                .release = gpu_spmv_release,
                .time_calls = gpu_spmv_time_calls,
                .check = gpu_spmv_check,
                .fp32 = 1},
     .spmv = gpu_spmv_run},
};
extern const int gpu_auto_kernel_count =
    (int)(sizeof gpu_auto_kernels / sizeof gpu_auto_kernels[0]);
