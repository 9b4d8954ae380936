/* coo.h — coordinate (triplet) matrix as read from a file. */
#ifndef SPB_COO_H
#define SPB_COO_H

#include "core/spb.h"

/* Entries in any order; duplicates allowed (they are summed by csr_from_coo). */
typedef struct {
    spb_index m, n;     /* rows, columns (>= 0) */
    spb_offset nnz;     /* number of triplets */
    spb_index *row;     /* size nnz; 0 <= row[k] < m */
    spb_index *col;     /* size nnz; 0 <= col[k] < n */
    spb_value *val;     /* size nnz; complex: 2 * nnz, (re, im) pairs */
    int complex_values; /* the file's field is complex */
} spb_coo;

/* Allocates room for nnz triplets (contents uninitialised); nnz set. */
spb_status coo_alloc(spb_coo *A, spb_index m, spb_index n, spb_offset nnz, char *msg);
void coo_free(spb_coo *A); /* accepts a zeroed or freed struct */

#endif
