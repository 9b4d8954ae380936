/* test_kernels.h — what test_kernels.c (every kernel's answers) and
 * kernel_rules.c (the run's rules around the kernels: the time cap,
 * failures, break-even, the auto rows' trials and rules, the shared x)
 * share. */
#ifndef SPB_TEST_KERNELS_H
#define SPB_TEST_KERNELS_H

#include "bench/inputs/rng.h"
#include "formats/csr.h"

/* A pretend last-level cache (CPU) and L2 (GPU) of 4 KiB: column-blocked
 * kernels cut the test matrices into panels of 256 columns instead of
 * declining them. */
#define TEST_CACHE_BYTES 4096.0

/* Random entries, and long_len more in row long_row (none when < 0). */
void random_csr(spb_rng *rng, spb_index m, spb_index n, spb_index nnz, spb_index long_row,
                spb_index long_len, spb_csr *A);
/* Rows of two lengths in turn (HLL's padding: 2 long / (short + long)). */
void two_length_csr(spb_rng *rng, spb_index m, spb_index n, spb_index short_len, spb_index long_len,
                    spb_csr *A);

/* The run's rules (kernel_rules.c); the device ones where a GPU ran. */
void check_cap_judges_the_product(void);
void check_failure_is_error(void);
void check_break_even(void);
void check_superlinear_marked(void);
void check_run_converts_once(void);
void check_trial(void);
void check_auto_rule(spb_rng *rng);
void check_auto_cuda_rule(spb_rng *rng);
void check_auto_cuda_rule_host(void); /* the same rule on statistics, anywhere */
void check_shared_x(spb_rng *rng);

#endif
