/* partition.h — contiguous row ranges with balanced nonzeros. */
#ifndef SPB_PARTITION_H
#define SPB_PARTITION_H

#include "formats/csr.h"

typedef struct {
    int parts;        /* ranges that hold at least one row (<= requested) */
    spb_index *first; /* size parts+1; range p is rows [first[p], first[p+1]);
                         first[0] = 0, first[parts] = m, strictly increasing */
} spb_row_partition;

/* Splits the rows of A into at most `parts` contiguous ranges whose
 * nonzero counts are as equal as contiguous rows allow: boundary p is the
 * first row starting at or after p*nnz/parts, so each boundary sits within
 * one row's nonzeros of the ideal split. Ranges that would be empty are left
 * out. m = 0 gives zero ranges. */
spb_status partition_rows_by_nnz(const spb_csr *A, int parts, spb_row_partition *out, char *msg);
void partition_free(spb_row_partition *p);

#endif
