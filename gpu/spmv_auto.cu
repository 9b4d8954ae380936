/* spmv_auto.cu — auto.cuda: one row that picks the device kernel for the
 * matrix in prepare. A fixed rule (auto_rules.c) reads the matrix's
 * statistics and names the candidates its shape allows; each is prepared and timed on the
 * device for a few calls (kernel_trial) and the fastest is kept. The row's
 * message names the kernel chosen, why the candidates, and their times; the
 * rule and the measurements behind it are in docs/auto-kernels.md ("Choosing a GPU
 * kernel"). */
#include <stdio.h>
#include <string.h>

#include "auto_rules.h"
#include "core/kernel_trial.h"
#include "gpu.h"
extern "C" {
#include "formats/bsr.h"
}
#include "spmv_state.cuh"

static spb_status auto_prepare(const spb_kernel *self, spb_format_set *formats,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    gpu_auto_shape shape;
    csr_shape(formats->csr, config->hack_size > 0 ? config->hack_size : 32, &shape.csr);
    shape.value_bytes = (double)spb_precision_bytes(config->precision);
    shape.x_bytes = shape.value_bytes * formats->csr->n;
    shape.l2_bytes = gpu_l2_bytes(config);
    shape.bsr_block = 0;
    shape.bsr_share = 0;
    if (shape.csr.stats.nnz >= GPU_AUTO_LARGE_NNZ && !shape.csr.pattern) {
        int64_t blocks = 0;
        shape.bsr_block = format_set_bsr_block(formats, config->precision, &blocks);
        if (shape.bsr_block)
            shape.bsr_share =
                bsr_spmv_bytes(formats->csr, shape.bsr_block, blocks, config->precision) /
                csr_spmv_bytes(formats->csr, config->precision);
    }
    char why[GPU_AUTO_WHY_LEN];
    spb_trial_names list = {{NULL}, 0};
    gpu_auto_candidates(&shape, &list, why);
    spb_trial trial = {};
    trial.interleave = shape.csr.stats.nnz < GPU_AUTO_LARGE_NNZ; /* small: copies cost little */
    spb_status st =
        kernel_trial_candidates(&trial, &list, gpu_spmv_kernel, gpu_spmv_kernel_count(), msg);
    if (st != SPB_OK) return st;
    st =
        kernel_trial(&trial, formats->csr, formats, config, kernel_trial_own_time, NULL, plan, msg);
    if (st != SPB_OK) return st;
    kernel_trial_message(&trial, why, msg);
    return SPB_OK;
}

extern const spb_spmv_kernel gpu_auto_kernels[] = {
    {.kernel = {.name = "auto.cuda",
                .format = "csr",
                .backend = SPB_BACKEND_CUDA,
                .description =
                    "the device kernel for this matrix: a rule on its statistics names the "
                    "candidates, prepare times them and keeps the fastest (docs/auto-kernels.md)",
                .supports = gpu_kernel_supports,
                .prepare = auto_prepare,
                .release = gpu_spmv_release,
                .time_calls = gpu_spmv_time_calls,
                .check = gpu_spmv_check,
                .fp32 = 1,
                .complex_values = 1, /* its complex candidates: the others decline */
                .trials = 1},
     .spmv = gpu_spmv_run},
};
extern const int gpu_auto_kernel_count =
    (int)(sizeof gpu_auto_kernels / sizeof gpu_auto_kernels[0]);
