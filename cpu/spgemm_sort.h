/* spgemm_sort.h — sorting one row's column indices, shared by the SpGEMM
 * kernels: insertion sort for the short rows most products have, qsort
 * beyond. */
#ifndef SPB_SPGEMM_SORT_H
#define SPB_SPGEMM_SORT_H

#include <stdlib.h>

#include "core/spb.h"

static inline int index_cmp(const void *a, const void *b)
{
    spb_index x = *(const spb_index *)a, y = *(const spb_index *)b;
    return x < y ? -1 : x > y;
}

static inline void sort_columns(spb_index *cols, spb_index len)
{
    if (len > 32) {
        qsort(cols, (size_t)len, sizeof *cols, index_cmp);
        return;
    }
    for (spb_index a = 1; a < len; a++) {
        spb_index v = cols[a], b = a;
        for (; b > 0 && cols[b - 1] > v; b--) cols[b] = cols[b - 1];
        cols[b] = v;
    }
}

#endif
