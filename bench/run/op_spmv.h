/* op_spmv.h — the SpMV operation, y = A*x (see operation.h), and what
 * `spbench spmv` needs beyond the run loop: a given x and the y computed. */
#ifndef SPB_OP_SPMV_H
#define SPB_OP_SPMV_H

#include "bench/run/operation.h"

/* Replaces the case's random x (size A->n) and recomputes the reference. */
void spmv_case_set_x(spb_case *c, const spb_value *x);
/* The y of the last product (size A->m). */
const spb_value *spmv_case_y(const spb_case *c);

/* Fills x (size n) with seeded random values, never zero. */
void spmv_random_vector(uint64_t seed, size_t n, spb_value *x);

/* Whether one of spbench's own SpMV kernels (host, device, distributed)
 * has this name; asked before the table is made, as plug-ins load. */
int spmv_kernel_builtin(const char *name);

#endif
