/* auto_rules.h — the device auto rows' rules: the rows a matrix's (or a
 * product's) statistics make candidates, best guess first, and why. Host
 * code, built with or without CUDA, so the tests check both sides of each
 * branch anywhere; spmv_auto.cu and spgemm_auto.cu time the candidates on
 * the device. The measurements behind the rules: docs/auto-kernels.md
 * ("Choosing a GPU kernel", "Choosing a GPU SpGEMM row"). */
#ifndef SPB_GPU_AUTO_RULES_H
#define SPB_GPU_AUTO_RULES_H

#ifdef __cplusplus
extern "C" { /* the .cu files include this as C++ */
#endif

#include "core/kernel_trial.h"
#include "formats/csr.h"

/* the reason, both rules' (behind the kernel's name in the message); one cut short ends in '.' */
#define GPU_AUTO_WHY_LEN (SPB_MSG_LEN / 2)

/* ---- auto.cuda (SpMV) */
#define GPU_AUTO_LARGE_NNZ 1000000 /* below: launch-bound on an H100, a one-launch row kernel */

/* What the rule reads. */
typedef struct {
    spb_csr_shape csr;
    double value_bytes, x_bytes, l2_bytes; /* a value of the run's precision, x, the L2 */
    double bsr_share;                      /* BSR's bytes at its best block over CSR's */
    int bsr_block;                         /* that block size (0: none) */
} gpu_auto_shape;

/* The candidates into `list`, and why in `why` (GPU_AUTO_WHY_LEN bytes). */
void gpu_auto_candidates(const gpu_auto_shape *f, spb_trial_names *list, char *why);

/* ---- spgemm.cuda.auto */
#define GPU_SPGEMM_AUTO_LARGE_PRODUCTS 2000000 /* below: small, candidates timed in turns */
#define GPU_SPGEMM_AUTO_SAMPLE_ROWS    1024    /* rows of A counted for the compression */

/* The candidates for a product of shape `f` on a device of `sms`
 * multiprocessors (0: unknown, no row then too long) into `list`, and why
 * in `why` (GPU_AUTO_WHY_LEN bytes). */
void gpu_spgemm_auto_candidates(const spb_spgemm_shape *f, int sms, spb_trial_names *list,
                                char *why);

#ifdef __cplusplus
}
#endif

#endif
