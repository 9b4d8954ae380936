/* baselines.h — CPU library baselines run beside spbench's own kernels:
 * librsb (recursive sparse blocks, autotuned) and SuiteSparse:GraphBLAS
 * (GrB_mxv, plus-times semiring). Each is compiled in when CMake finds the
 * library; otherwise its stub says "not built with ...". */
#ifndef SPB_BASELINES_H
#define SPB_BASELINES_H

#include "core/kernel.h"
#include "formats/format_set.h"

/* 1 when the library was compiled in; otherwise fills why. */
int rsb_baseline_available(char *why);
/* Builds the RSB matrix from A (float, with the values val32, when given)
 * and autotunes it (rsb_tune_spmm) for `threads` threads; tune_ms receives
 * the tuning time alone. */
spb_status rsb_baseline_prepare(const spb_csr *A, const float *val32, int threads, void **state,
                                double *tune_ms, char *msg);
/* y = A*x; a library failure is returned with its message. */
spb_status rsb_baseline_run(const void *state, const void *x, void *y, char *msg);
void rsb_baseline_release(void *state);

int graphblas_baseline_available(char *why);
/* A kernel's supports() for the GraphBLAS rows of every operation. */
int graphblas_row_supports(const spb_kernel *self, const spb_csr *A, char *why);
/* Builds a row-major (GxB_BY_ROW) GrB_Matrix from A (fp32 with the values
 * val32 when given, x and y then float); mxv runs on `threads` threads
 * (descriptor GxB_NTHREADS). */
spb_status graphblas_baseline_prepare(const spb_csr *A, const float *val32, int threads,
                                      void **state, char *msg);
spb_status graphblas_baseline_run(const void *state, const void *x, void *y, char *msg);
void graphblas_baseline_release(void *state);

/* SpGEMM: A and B as row-major GrB_Matrix objects built in prepare (fp32
 * from a_val32 and b_val32 when given, else fp64); the run is GrB_mxm
 * (plus-times in that type) into a new matrix, unpacked as CSR and copied
 * into C, as any caller holding plain arrays must do. */
spb_status graphblas_spgemm_prepare(const spb_csr *A, const spb_csr *B, const float *a_val32,
                                    const float *b_val32, int threads, void **state, char *msg);
spb_status graphblas_spgemm_run(const void *state, spb_csr *C, char *msg);
void graphblas_spgemm_release(void *state);

#endif
