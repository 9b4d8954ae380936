/* partition.c — nnz-balanced contiguous row ranges (see partition.h). */
#include "partition.h"

#include <string.h>

/* The first row of A[lo, hi) starting at or past target entries (hi when
 * none), on row offsets of either width. */
static spb_index first_row_from(const spb_csr *A, spb_index lo, spb_index hi, int64_t target)
{
    while (lo < hi) {
        spb_index mid = lo + (hi - lo) / 2;
        if (csr_row_start(A, mid) < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

spb_status partition_rows_by_nnz(const spb_csr *A, int parts, spb_row_partition *out, char *msg)
{
    memset(out, 0, sizeof *out);
    if (parts < 1) return spb_fail(msg, SPB_ERR_INVALID, "partition into %d parts", parts);
    out->first = spb_malloc((size_t)parts + 1, sizeof *out->first);
    if (!out->first) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a row partition");
    out->first[0] = 0;
    int count = 0;
    for (int p = 1; p <= parts && A->m > 0; p++) {
        spb_index boundary =
            p == parts ? A->m : first_row_from(A, 0, A->m, (int64_t)A->nnz * p / parts);
        if (boundary > out->first[count]) out->first[++count] = boundary;
    }
    out->parts = count;
    return SPB_OK;
}

void partition_free(spb_row_partition *p)
{
    if (!p) return;
    spb_free(p->first);
    memset(p, 0, sizeof *p);
}
