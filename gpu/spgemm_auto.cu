/* spgemm_auto.cu — spgemm.cuda.auto: the device SpGEMM row for this
 * product. A rule reads what is known before the product (its products,
 * the most in one row, A's longest row, a compression counted on sampled
 * rows, the device's SMs) and names the candidate rows; prepare times each
 * on the device for a few whole products (kernel_trial) and keeps the
 * fastest. The message names the row chosen, why the candidates, and their
 * times; docs/auto-kernels.md ("Choosing a GPU SpGEMM row") has the rule
 * and the data behind it. */
#include <stdio.h>

#include "core/kernel_trial.h"
#include "gpu.h"
#include "spgemm_state.cuh"

/* The rule's lines (docs/auto-kernels.md: the H100 measurements behind them). Rows of
 * few products: the thread-per-row kernel (G67, Pd) is a candidate; past
 * them its one thread per row stalls (0.01-0.05x the best on long rows). */
#define AUTO_THREAD_PRODUCTS 32
/* Products of low compression in the millions: ESC or cuSPARSE; the tiled
 * kernels sweep their accumulator over B's width and ran 0.12-0.35x ESC
 * (cage11, kmnist_norm_10NN, gen:lap2d:1000, cond-mat-2005). */
#define AUTO_LARGE_PRODUCTS  2000000
#define AUTO_LOW_COMPRESSION 3.0
/* A row this long in A (circuits, graphs): cuSPARSE is a candidate too
 * (a circuit matrix with rows of ~570 entries ran ESC at 0.81x of it). */
#define AUTO_LONG_ROW 128
/* A row of C of more than AUTO_SLICED_ROW products (ESC shares such a row
 * out among blocks) that holds more than AUTO_ROW_SHARES SMs' even share of
 * the products: the tiled kernels, a block per row, wait on that row alone.
 * On the LP shapes (one row 12-36 SMs' share on an H200) they ran 4-40x
 * ESC; on every other shape measured such a row held at most 6 shares.
 * Shorter rows are left to the trial: on small products (cage4, 269 of
 * them) the tiled kernels win whatever the shares. */
#define AUTO_SLICED_ROW 8192
#define AUTO_ROW_SHARES 8
/* Rows of A whose products are counted for the compression. */
#define AUTO_SAMPLE_ROWS 1024

#define WHY_LEN (SPB_MSG_LEN / 2)

/* The rule: the candidates into `list`, and why. */
static void choose(const spb_spgemm_shape *f, int sms, spb_trial_names *list, char *why)
{
    const int longest_row = (int)f->a_row_max;
    const int low = f->products >= AUTO_LARGE_PRODUCTS && f->compression < AUTO_LOW_COMPRESSION;
    const double row_shares =
        f->products > 0 ? (double)f->row_products_max * sms / (double)f->products : 0;
    const int one_row = f->row_products_max > AUTO_SLICED_ROW && row_shares > AUTO_ROW_SHARES;
    const int few = f->row_products_max <= AUTO_THREAD_PRODUCTS;
    const int library = f->products >= AUTO_LARGE_PRODUCTS || longest_row >= AUTO_LONG_ROW;
    kernel_trial_name(list, "spgemm.cuda.esc");
    if (!low && !one_row) {
        kernel_trial_name(list, "spgemm.cuda.warp");
        kernel_trial_name(list, "spgemm.cuda.block");
        kernel_trial_name(list, "spgemm.cuda.block.reserve");
        if (few) kernel_trial_name(list, "spgemm.cuda.thread.hoisted");
    }
    if (library) kernel_trial_name(list, "cusparse.spgemm");
    char tiled[96];
    if (low)
        snprintf(tiled, sizeof tiled, "millions of products of low compression, no tiled kernel");
    else if (one_row)
        snprintf(tiled, sizeof tiled,
                 "C's longest row holds %.0f SMs' share of them, no tiled kernel", row_shares);
    else
        snprintf(tiled, sizeof tiled, "ESC and the tiled kernels");
    if (snprintf(
            why, WHY_LEN,
            "%lld products (at most %lld in a row), compression about %.2f, A's longest row %d: "
            "%s%s%s",
            (long long)f->products, (long long)f->row_products_max, f->compression, longest_row,
            tiled, few && !low && !one_row ? "; few products per row, a thread per row" : "",
            library ? "; cuSPARSE for the long rows or the many products" : "") >= WHY_LEN)
        why[WHY_LEN - 2] = '.'; /* cut short: shown as such */
}

static spb_status auto_prepare(const spb_kernel *self, spb_format_set *formats,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    spb_spgemm_shape shape;
    spb_status st = csr_spgemm_shape(formats->csr, formats->b, AUTO_SAMPLE_ROWS, &shape, msg);
    if (st != SPB_OK) return st;
    char why[WHY_LEN];
    spb_trial_names list = {{NULL}, 0};
    spb_gpu_info gpu; /* no SMs read: no row is then too long */
    choose(&shape, gpu_query(&gpu, msg) == SPB_OK ? gpu.sm_count : 0, &list, why);
    spb_trial trial = {};
    trial.interleave = shape.products < AUTO_LARGE_PRODUCTS; /* small: copies cost little */
    st = kernel_trial_candidates(&trial, &list, gpu_spgemm_kernel, gpu_spgemm_kernel_count(), msg);
    if (st != SPB_OK) return st;
    st =
        kernel_trial(&trial, formats->csr, formats, config, kernel_trial_own_time, NULL, plan, msg);
    if (st != SPB_OK) return st;
    /* the row's kernel time counts its own products, not the trial's */
    ((gpu_spgemm_state *)plan->state)->kernel_count = 0;
    kernel_trial_message(&trial, why, msg);
    return SPB_OK;
}

const spb_spgemm_kernel gpu_spgemm_auto_kernels[] = {
    {.kernel = {.name = "spgemm.cuda.auto",
                .format = "csr",
                .backend = SPB_BACKEND_CUDA,
                .description = "the device SpGEMM row for this product: a rule on what is known "
                               "before it names the candidates, prepare times them and keeps the "
                               "fastest (docs/auto-kernels.md)",
                .supports = gpu_kernel_supports,
                .prepare = auto_prepare,
                .release = gpu_spgemm_release,
                .time_calls = gpu_spgemm_time_calls,
                .check = gpu_spgemm_check,
                .fp32 = 1,
                .trials = 1},
     .spgemm = gpu_spgemm_run,
     .kernel_seconds = gpu_spgemm_kernel_seconds,
     .device_peak_bytes = gpu_spgemm_peak_bytes},
};
const int gpu_spgemm_auto_kernel_count =
    (int)(sizeof gpu_spgemm_auto_kernels / sizeof gpu_spgemm_auto_kernels[0]);
