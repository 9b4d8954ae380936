/* spgemm_rows.h — the host SpGEMM kernels' row loops in every value type
 * (spgemm_rows_template.h: spgemm_dense_row64, spgemm_dense_row32, ...,
 * each also as spgemm_dense_row_wide64 ... for operands on 64-bit row
 * offsets, and the same for spgemm_hash_row), and what a kernel
 * multiplies: the operands' own values, or their fp32 copies. */
#ifndef SPB_SPGEMM_ROWS_H
#define SPB_SPGEMM_ROWS_H

#include <complex.h>
#include <math.h>

#include "spgemm_cpu.h"

/* A matrix's row offsets, 32- or 64-bit, taken out of the struct once so
 * that the inner loops keep them in registers (csr_row_start reads the
 * struct at every row). */
typedef struct {
    const spb_index *narrow;
    const spb_offset *wide; /* NULL: narrow */
} spgemm_rows;

static inline spgemm_rows spgemm_rows_of(const spb_csr *M)
{
    return (spgemm_rows){M->row_ptr, M->row_ptr64};
}

static inline spb_offset spgemm_row_start(spgemm_rows rows, spb_index i)
{
    return rows.wide ? rows.wide[i] : (spb_offset)rows.narrow[i];
}

/* Column j's slot in a table of mask + 1 slots (keys -1 when empty): where
 * it is, or the empty slot where it goes. */
static inline uint64_t spgemm_hash_slot(const spb_index *keys, uint64_t mask, spb_index j)
{
    uint64_t s = ((uint32_t)j * 2654435761u) & mask;
    while (keys[s] != -1 && keys[s] != j) s = (s + 1) & mask;
    return s;
}

#define SPB_VALUE     double
#define SPB_FN(fn)    fn##64
#define SPB_ABS       fabs
#define SPB_WIDE      double
#define SPB_ROWS_WIDE 0
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#define SPB_ROWS_WIDE 1
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS

#define SPB_VALUE     float
#define SPB_FN(fn)    fn##32
#define SPB_ABS       fabsf
#define SPB_ROWS_WIDE 0
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#define SPB_ROWS_WIDE 1
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS
#undef SPB_WIDE

/* Complex values ((re, im) pairs, as the CSR holds them): complex128 and
 * complex64, C in complex double. */
typedef double _Complex spgemm_c128;
typedef float _Complex spgemm_c64;
#define SPB_WIDE spgemm_c128

#define SPB_VALUE     spgemm_c128
#define SPB_FN(fn)    fn##_c128
#define SPB_ABS       cabs
#define SPB_ROWS_WIDE 0
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#define SPB_ROWS_WIDE 1
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS

#define SPB_VALUE     spgemm_c64
#define SPB_FN(fn)    fn##_c64
#define SPB_ABS       cabsf
#define SPB_ROWS_WIDE 0
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#define SPB_ROWS_WIDE 1
#include "spgemm_rows_template.h"
#undef SPB_ROWS_WIDE
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS
#undef SPB_WIDE

/* A complex matrix's values as the complex type they lay out. */
static inline const spgemm_c128 *spgemm_values_c128(const double *val)
{
    return (const spgemm_c128 *)(const void *)val;
}
static inline const spgemm_c64 *spgemm_values_c64(const float *val)
{
    return (const spgemm_c64 *)(const void *)val;
}

/* Row i of A*B in the values' precision (v->a32 NULL: fp64 or
 * complex128; A's field says which) into the dense accumulator acc, of
 * that type; with scale (fp64 and complex128), |A|*|B| too. Its length. */
static inline spb_index spgemm_dense_row_of(const spb_csr *A, const spb_csr *B,
                                            const spgemm_values *v, spb_index i, int64_t mark,
                                            int64_t *marker, double *acc, spb_index *cols,
                                            double *scale)
{
    const int wide = csr_wide(A) || csr_wide(B);
    if (A->complex_values && v->a32)
        return (wide ? spgemm_dense_row_wide_c64 : spgemm_dense_row_c64)(
            A, spgemm_values_c64(v->a32), B, spgemm_values_c64(v->b32), i, mark, marker,
            (spgemm_c64 *)(void *)acc, cols, NULL);
    if (A->complex_values)
        return (wide ? spgemm_dense_row_wide_c128 : spgemm_dense_row_c128)(
            A, spgemm_values_c128(A->val), B, spgemm_values_c128(B->val), i, mark, marker,
            (spgemm_c128 *)(void *)acc, cols, scale);
    if (v->a32)
        return (wide ? spgemm_dense_row_wide32 : spgemm_dense_row32)(
            A, v->a32, B, v->b32, i, mark, marker, (float *)(void *)acc, cols, NULL);
    return (wide ? spgemm_dense_row_wide64 : spgemm_dense_row64)(A, A->val, B, B->val, i, mark,
                                                                 marker, acc, cols, scale);
}

/* The accumulator's sums at cols[0..len) into out, C's row: doubles, or
 * complex doubles for a complex A. */
static inline void spgemm_gather_of(const spb_csr *A, const spgemm_values *v, const double *acc,
                                    const spb_index *cols, spb_index len, double *out)
{
    if (A->complex_values && v->a32)
        spgemm_gather_c64((const spgemm_c64 *)(const void *)acc, cols, len,
                          (spgemm_c128 *)(void *)out);
    else if (A->complex_values)
        spgemm_gather_c128((const spgemm_c128 *)(const void *)acc, cols, len,
                           (spgemm_c128 *)(void *)out);
    else if (v->a32)
        spgemm_gather32((const float *)(const void *)acc, cols, len, out);
    else
        spgemm_gather64(acc, cols, len, out);
}

#endif
