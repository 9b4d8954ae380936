/* family_table.cuh — a device table (SpMV's, SpGEMM's) made of its family
 * files' rows, in the order the table file lists the families; the table
 * files (spmv_table.cu, spgemm_table.cu) are apart from the families and
 * the helpers they share, so that no file needs another that needs it. */
#ifndef SPB_FAMILY_TABLE_CUH
#define SPB_FAMILY_TABLE_CUH

#include <stddef.h>

#include "core/kernel.h"

/* One family file's rows: its array and its count. */
template <typename Row> struct gpu_family_rows {
    const Row *rows;
    const int *count;
};

template <typename Row, size_t N>
static int family_table_count(const gpu_family_rows<Row> (&families)[N])
{
    int count = 0;
    for (const auto &family : families) count += *family.count;
    return count;
}

/* The index-th row of the table, or NULL past its end. */
template <typename Row, size_t N>
static const spb_kernel *family_table_kernel(const gpu_family_rows<Row> (&families)[N], int index)
{
    for (const auto &family : families) {
        if (index < *family.count) return &family.rows[index].kernel;
        index -= *family.count;
    }
    return NULL;
}

#endif
