/* spgemm_auto.cu — spgemm.cuda.auto: the device SpGEMM row for this
 * product. A rule (auto_rules.c) reads what is known before the product (its products,
 * the most in one row, A's longest row, a compression counted on sampled
 * rows, the device's SMs) and names the candidate rows; prepare times each
 * on the device for a few whole products (kernel_trial) and keeps the
 * fastest. The message names the row chosen, why the candidates, and their
 * times; docs/auto-kernels.md ("Choosing a GPU SpGEMM row") has the rule
 * and the data behind it. */
#include <stdio.h>

#include "auto_rules.h"
#include "core/kernel_trial.h"
#include "gpu.h"
#include "spgemm_state.cuh"

static spb_status auto_prepare(const spb_kernel *self, spb_format_set *formats,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    spb_spgemm_shape shape;
    spb_status st =
        csr_spgemm_shape(formats->csr, formats->b, GPU_SPGEMM_AUTO_SAMPLE_ROWS, &shape, msg);
    if (st != SPB_OK) return st;
    char why[GPU_AUTO_WHY_LEN];
    spb_trial_names list = {{NULL}, 0};
    spb_gpu_info gpu; /* no SMs read: no row is then too long */
    gpu_spgemm_auto_candidates(&shape, gpu_query(&gpu, msg) == SPB_OK ? gpu.sm_count : 0, &list,
                               why);
    spb_trial trial = {};
    /* small: copies cost little */
    trial.interleave = shape.products < GPU_SPGEMM_AUTO_LARGE_PRODUCTS;
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
