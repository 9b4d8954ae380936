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

/* Entries of C (exact, by a symbolic pass); -1 when out of memory. */
int64_t csr_spgemm_nnz(const spb_csr *A, const spb_csr *B);

/* Sequential Gustavson: row by row into a dense accumulator as wide as B,
 * the touched columns listed and sorted. With absolute, C = |A|*|B|: the
 * scale each entry's rounding error is judged against. The reference. */
spb_status csr_spgemm_gustavson(const spb_csr *A, const spb_csr *B, int absolute, spb_csr *C,
                                char *msg);

/* Sequential hash: every product accumulated into one hash map keyed by
 * (row, column), then the entries sorted into CSR. The simplest
 * independent formulation, kept as a row to compare with. */
spb_status csr_spgemm_hash(const spb_csr *A, const spb_csr *B, spb_csr *C, char *msg);

/* ---- OpenMP (spgemm_omp.c) ---- */

/* What prepare computes once: rows split into chunks of equal products,
 * and per-thread accumulators (dense as wide as B when B is narrow enough,
 * a hash table as large as the longest row's products). */
typedef struct spgemm_omp_plan spgemm_omp_plan;

spb_status spgemm_omp_plan_new(const spb_csr *A, const spb_csr *B, int threads,
                               spgemm_omp_plan **plan, char *msg);
void spgemm_omp_plan_free(spgemm_omp_plan *plan); /* accepts NULL */

/* Symbolic pass (exact row sizes), C allocated exactly, numeric pass; each
 * row with the dense accumulator when B is narrow for it, else the hash. */
spb_status csr_spgemm_omp(spgemm_omp_plan *plan, spb_csr *C, char *msg);

#endif
