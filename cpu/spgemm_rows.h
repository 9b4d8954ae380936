/* spgemm_rows.h — the host SpGEMM kernels' row loops in both precisions
 * (spgemm_rows_template.h: spgemm_dense_row64 and spgemm_dense_row32, and
 * the same for spgemm_hash_row), and what a kernel multiplies: the
 * operands' own values, or their fp32 copies. */
#ifndef SPB_SPGEMM_ROWS_H
#define SPB_SPGEMM_ROWS_H

#include <math.h>

#include "spgemm_cpu.h"

/* Column j's slot in a table of mask + 1 slots (keys -1 when empty): where
 * it is, or the empty slot where it goes. */
static inline uint64_t spgemm_hash_slot(const spb_index *keys, uint64_t mask, spb_index j)
{
    uint64_t s = ((uint32_t)j * 2654435761u) & mask;
    while (keys[s] != -1 && keys[s] != j) s = (s + 1) & mask;
    return s;
}

#define SPB_VALUE  double
#define SPB_FN(fn) fn##64
#define SPB_ABS    fabs
#include "spgemm_rows_template.h"
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS

#define SPB_VALUE  float
#define SPB_FN(fn) fn##32
#define SPB_ABS    fabsf
#include "spgemm_rows_template.h"
#undef SPB_VALUE
#undef SPB_FN
#undef SPB_ABS

#endif
