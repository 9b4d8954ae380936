/* spgemm_cpu.h — CPU sparse matrix-matrix products C = A*B, both operands
 * and C in CSR. C is canonical: columns sorted in each row, every
 * structurally produced entry kept (numerical zeros too), so every kernel's
 * C has exactly the reference's pattern. C is allocated here. */
#ifndef SPB_SPGEMM_CPU_H
#define SPB_SPGEMM_CPU_H

#include "core/kernel.h"
#include "formats/format_set.h"

/* The host kernels of the SpGEMM table (spgemm_kernels.c); the sequential
 * Gustavson kernel is the first, the speedup baseline. */
extern const spb_spgemm_kernel cpu_spgemm_kernels[];
extern const int cpu_spgemm_kernel_count;

/* The values a product multiplies: the operands' own (a32 and b32 NULL:
 * fp64), or their fp32 copies (format_set_csr_values32, _b_values32), when
 * products and sums are made in float and C's values widened from them. */
typedef struct {
    const float *a32, *b32;
} spgemm_values;

/* The values of `precision` from the format set (A its CSR, B its b). */
spb_status spgemm_values_of(spb_format_set *F, spb_precision precision, spgemm_values *v,
                            char *msg);

/* Entries of C (exact, by a symbolic pass); -1 when out of memory. */
int64_t csr_spgemm_nnz(const spb_csr *A, const spb_csr *B);

/* Sequential Gustavson: row by row into a dense accumulator as wide as B,
 * the touched columns listed and sorted. */
spb_status csr_spgemm_gustavson(const spb_csr *A, const spb_csr *B, spb_csr *C, char *msg);
/* The reference: C = A*B as csr_spgemm_gustavson makes it and, in the same
 * pass, scale[k] = (|A|*|B|) at C's entry k, the scale each entry's
 * rounding error is judged against (*scale allocated here). nnz_c: C's
 * entries when already counted (csr_spgemm_nnz), or -1. */
spb_status csr_spgemm_reference(const spb_csr *A, const spb_csr *B, int64_t nnz_c, spb_csr *C,
                                double **scale, char *msg);
/* The same as a kernel, in the values' precision (never absolute). */
spb_status csr_spgemm_gustavson_values(const spb_csr *A, const spb_csr *B, const spgemm_values *v,
                                       spb_csr *C, char *msg);

/* Sequential hash: every product accumulated into one hash map keyed by
 * (row, column), then the entries sorted into CSR. The simplest
 * independent formulation, kept as a row to compare with. */
spb_status csr_spgemm_hash(const spb_csr *A, const spb_csr *B, const spgemm_values *v, spb_csr *C,
                           char *msg);

/* ---- OpenMP (spgemm_omp.c) ---- */

/* What prepare computes once: rows split into chunks of equal products,
 * and per-thread accumulators (dense as wide as B when B is narrow enough,
 * a hash table as large as the longest row's products). */
typedef struct spgemm_omp_plan spgemm_omp_plan;

spb_status spgemm_omp_plan_new(const spb_csr *A, const spb_csr *B, const spgemm_values *v,
                               int threads, spgemm_omp_plan **plan, char *msg);
void spgemm_omp_plan_free(spgemm_omp_plan *plan); /* accepts NULL */

/* Symbolic pass (exact row sizes), C allocated exactly, numeric pass; each
 * row with the dense accumulator when B is narrow for it, else the hash. */
spb_status csr_spgemm_omp(spgemm_omp_plan *plan, spb_csr *C, char *msg);

#endif
