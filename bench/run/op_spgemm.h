/* op_spgemm.h — the SpGEMM operation, C = A*B (see operation.h): B is A
 * itself when A is square, A^T otherwise, or the --b spec: a matrix file,
 * a gen: spec, or thin:K[:PER_ROW] (a seeded random B with A's column
 * count as rows, K columns and PER_ROW entries per row, default 2). */
#ifndef SPB_OP_SPGEMM_H
#define SPB_OP_SPGEMM_H

#include "bench/run/operation.h"

/* The C of the last product. */
const spb_csr *spgemm_case_c(const spb_case *c);

/* Whether a --b spec is well formed (file existence is checked on load). */
int spgemm_operand_valid(const char *spec, char *why);

/* Whether one of spbench's own SpGEMM kernels has this name (asked before
 * the table is made, as plug-ins load). */
int spgemm_kernel_builtin(const char *name);

#endif
