/* spmv_cpu.h — CPU sparse matrix-vector products, y = A*x. Callers pass x of
 * size A->n and y of size A->m; y is overwritten, never accumulated into. */
#ifndef SPB_SPMV_CPU_H
#define SPB_SPMV_CPU_H

#include "core/kernel.h"
#include "formats/format_set.h"
#include "partition.h"

/* The host kernels of the SpMV table (spmv_kernels.c); csr.serial is the
 * first, the speedup baseline. */
extern const spb_spmv_kernel cpu_spmv_kernels[];
extern const int cpu_spmv_kernel_count;

/* auto.omp's entry points (spmv_auto.c): its prepare times the candidates
 * its rules name for the matrix's shape and keeps the fastest. */
spb_status cpu_auto_prepare(const spb_kernel *self, spb_format_set *F,
                            const spb_kernel_config *config, spb_kernel_plan *plan, char *msg);
void cpu_auto_release(void *state);
spb_status cpu_auto_run(const void *state, const void *x, void *y, char *msg);

/* Reference product: each row summed with error-free transformations (Dot2,
 * Ogita-Rump-Oishi), as accurate as if computed in twice the precision and
 * then rounded. Slow on purpose; the yardstick for every kernel. With y_abs
 * (else NULL), y_abs = |A|*|x| in the same pass: the scale against which
 * rounding errors are judged. A complex matrix's x and y are (re, im)
 * pairs (y_abs stays one per row). */
void csr_reference_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x,
                        spb_value *SPB_RESTRICT y, spb_value *SPB_RESTRICT y_abs);

void csr_serial_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
/* fp32: A's pattern with the values `val` (A->val is not read), x and y in
 * single precision, sums in float. */
void csr_serial_spmv32(const spb_csr *A, const float *SPB_RESTRICT val, const float *SPB_RESTRICT x,
                       float *SPB_RESTRICT y);
void hll_serial_spmv(const spb_hll *A, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
/* An fp32 HLL (val32): x and y in single precision. */
void hll_serial_spmv32(const spb_hll *A, const float *SPB_RESTRICT x, float *SPB_RESTRICT y);

/* The inner loops every kernel of a format shares, one body
 * (spmv_row_template.h) made for each precision: csr_row_dot and
 * hll_hack_spmv in double (HLL values val), csr_row_dot32 and
 * hll_hack_spmv32 in float (val32). One CSR row: its dot product with x.
 * One HLL hack h: every row of the hack runs the same width (padding holds
 * zeros), so there is no branch; row-major walks each row contiguously,
 * column-major walks the hack a column at a time, updating all its rows. */
#define SPB_FN(name)   name
#define SPB_VALUE      spb_value
#define SPB_HLL_VALUES val
#include "spmv_row_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_HLL_VALUES

#define SPB_FN(name)   name##32
#define SPB_VALUE      float
#define SPB_HLL_VALUES val32
#include "spmv_row_template.h"
#undef SPB_FN
#undef SPB_VALUE
#undef SPB_HLL_VALUES

/* Complex values, x and y: C's complex types, laid out as the CSR's (re,
 * im) pairs (spb_csr.complex_values). complex128 and complex64 rows have
 * the CSR loops only (suffixes _c128, _c64). */
typedef double _Complex spb_c128;
typedef float _Complex spb_c64;

#define SPB_FN(name) name##_c128
#define SPB_VALUE    spb_c128
#include "spmv_row_template.h"
#undef SPB_FN
#undef SPB_VALUE

#define SPB_FN(name) name##_c64
#define SPB_VALUE    spb_c64
#include "spmv_row_template.h"
#undef SPB_FN
#undef SPB_VALUE

/* csr_serial_spmv in complex: val the matrix's (re, im) pairs (A's or their
 * complex64 rounding), x and y complex. */
void csr_serial_spmv_c128(const spb_csr *A, const spb_c128 *SPB_RESTRICT val,
                          const spb_c128 *SPB_RESTRICT x, spb_c128 *SPB_RESTRICT y);
void csr_serial_spmv_c64(const spb_csr *A, const spb_c64 *SPB_RESTRICT val,
                         const spb_c64 *SPB_RESTRICT x, spb_c64 *SPB_RESTRICT y);

/* ---- OpenMP (spmv_omp.c) ---- */

/* Every OpenMP product exists in fp64 and, with the suffix 32, in fp32
 * (float values, x, y and sums); one body makes both (spmv_omp_template.h).
 * The CSR ones take A's pattern and the values `val` of their precision. */

/* Rows in nnz-balanced contiguous ranges, one range per thread (the
 * partition's parts threads): equal work for skewed row lengths without any
 * scheduling cost at run time. */
void csr_omp_nnz_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT val,
                      const spb_row_partition *part, const spb_value *SPB_RESTRICT x,
                      spb_value *SPB_RESTRICT y);
void csr_omp_nnz_spmv32(const spb_csr *A, const float *SPB_RESTRICT val,
                        const spb_row_partition *part, const float *SPB_RESTRICT x,
                        float *SPB_RESTRICT y);
/* A first-touch fp32 copy of values (A's rows split as by
 * csr_first_touch_copy: the partition's ranges, else `threads` equal ones). */
float *csr_first_touch_values32(const spb_csr *A, const float *val, const spb_row_partition *part,
                                int threads);
/* csr.omp.nnz for a matrix whose stored values all equal `value` (pattern
 * graphs): reads no values, y_i = value * (sum of x over row i's columns),
 * a third less traffic. A->val is not read (may be NULL). */
void csr_omp_pattern_spmv(const spb_csr *A, const spb_row_partition *part, double value,
                          const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void csr_omp_pattern_spmv32(const spb_csr *A, const spb_row_partition *part, float value,
                            const float *SPB_RESTRICT x, float *SPB_RESTRICT y);
/* Column panels of A for cache blocking: panel q holds the entries whose
 * columns fall in [q*width, (q+1)*width) as a CSR over all rows, first
 * touched by the threads of the nnz-balanced partition, so that while the
 * rows of one panel are streamed its part of x stays in the cache. */
typedef struct {
    int panels;
    spb_index width;
    spb_csr *panel;         /* size panels */
    float **val32;          /* fp32 panels: each panel's values (its val NULL); else NULL */
    spb_row_partition part; /* the same rows per thread in every panel */
} spb_col_panels;

spb_status csr_col_panels(const spb_csr *A, const float *val32, spb_index width, int threads,
                          spb_col_panels *P, char *msg);
void col_panels_free(spb_col_panels *P); /* accepts a zeroed struct */

/* Bytes one product moves: every panel's arrays once, x once, y written by
 * the first panel and read and written by each further one. */
double col_panels_spmv_bytes(const spb_col_panels *P, spb_precision precision);

/* y = A*x panel by panel (threads in step between panels). */
void csr_omp_colblock_spmv(const spb_col_panels *P, const spb_value *SPB_RESTRICT x,
                           spb_value *SPB_RESTRICT y);
/* fp32 panels (made with val32). */
void csr_omp_colblock_spmv32(const spb_col_panels *P, const float *SPB_RESTRICT x,
                             float *SPB_RESTRICT y);

/* Rows under schedule(guided): dynamic balance, shrinking chunks. */
void csr_omp_guided_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT val, int threads,
                         const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void csr_omp_guided_spmv32(const spb_csr *A, const float *SPB_RESTRICT val, int threads,
                           const float *SPB_RESTRICT x, float *SPB_RESTRICT y);
/* Rows under schedule(static): the plain baseline. */
void csr_omp_static_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT val, int threads,
                         const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void csr_omp_static_spmv32(const spb_csr *A, const float *SPB_RESTRICT val, int threads,
                           const float *SPB_RESTRICT x, float *SPB_RESTRICT y);
/* Rows under schedule(dynamic) in chunks of SPB_DYNAMIC_CHUNK rows: the
 * third schedule of the classic comparison (balance at a cost per chunk). */
#define SPB_DYNAMIC_CHUNK 64
void csr_omp_dynamic_spmv(const spb_csr *A, const spb_value *SPB_RESTRICT val, int threads,
                          const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void csr_omp_dynamic_spmv32(const spb_csr *A, const float *SPB_RESTRICT val, int threads,
                            const float *SPB_RESTRICT x, float *SPB_RESTRICT y);
/* The four CSR products above in complex (spmv_omp_template.h's CSR part). */
#define SPB_CSR_OMP_COMPLEX(suffix, T)                                                             \
    void csr_omp_nnz_spmv##suffix(const spb_csr *A, const T *SPB_RESTRICT val,                     \
                                  const spb_row_partition *part, const T *SPB_RESTRICT x,          \
                                  T *SPB_RESTRICT y);                                              \
    void csr_omp_guided_spmv##suffix(const spb_csr *A, const T *SPB_RESTRICT val, int threads,     \
                                     const T *SPB_RESTRICT x, T *SPB_RESTRICT y);                  \
    void csr_omp_static_spmv##suffix(const spb_csr *A, const T *SPB_RESTRICT val, int threads,     \
                                     const T *SPB_RESTRICT x, T *SPB_RESTRICT y);                  \
    void csr_omp_dynamic_spmv##suffix(const spb_csr *A, const T *SPB_RESTRICT val, int threads,    \
                                      const T *SPB_RESTRICT x, T *SPB_RESTRICT y)
SPB_CSR_OMP_COMPLEX(_c128, spb_c128);
SPB_CSR_OMP_COMPLEX(_c64, spb_c64);
#undef SPB_CSR_OMP_COMPLEX
/* Hacks under schedule(guided), row- or column-major per A->layout. */
void hll_omp_spmv(const spb_hll *A, int threads, const spb_value *SPB_RESTRICT x,
                  spb_value *SPB_RESTRICT y);
void hll_omp_spmv32(const spb_hll *A, int threads, const float *SPB_RESTRICT x,
                    float *SPB_RESTRICT y); /* an fp32 HLL (val32) */
/* hll_omp_spmv of column-major hacks whose stored values all equal
 * `value`: no values read (A's may be absent), each row summed over its
 * length (row_len[i], its entries before the padding), the padding never
 * read. */
void hll_omp_pattern_spmv(const spb_hll *A, const spb_index *SPB_RESTRICT row_len, int threads,
                          double value, const spb_value *SPB_RESTRICT x, spb_value *SPB_RESTRICT y);
void hll_omp_pattern_spmv32(const spb_hll *A, const spb_index *SPB_RESTRICT row_len, int threads,
                            float value, const float *SPB_RESTRICT x, float *SPB_RESTRICT y);

/* First-touch copies: each page of the copy is written first by the thread
 * that will stream it (rows by the partition when given, else static rows;
 * hacks static), so on NUMA machines it lands in that thread's memory. A
 * source without values (val NULL) gives a copy without values. */
spb_status csr_first_touch_copy(const spb_csr *src, const spb_row_partition *part, int threads,
                                spb_csr *dst, char *msg);
spb_status hll_first_touch_copy(const spb_hll *src, int threads, spb_hll *dst, char *msg);

#endif
