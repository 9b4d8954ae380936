/* order.h — renumbering a square matrix's rows and columns together
 * (B = P A P^T), for kernels whose gathers of x share cache lines only
 * when a row's neighbours have nearby numbers. */
#ifndef SPB_ORDER_H
#define SPB_ORDER_H

#include "csr.h"

/* Reverse Cuthill-McKee on the pattern of A + A^T (A square): order[i] is
 * the old index of new row and column i (m entries). Each connected part
 * starts from a pseudo-peripheral vertex (George-Liu; its searches run a
 * wide level on the OpenMP threads and move to the last level's lowest
 * numbered vertex of least degree, so the order is the same at any thread
 * count) and is walked breadth first, neighbours by rising degree; parts
 * follow in the order of their lowest old index; the whole is reversed. SPB_ERR_INVALID for a
 * rectangular A, SPB_ERR_NOMEM when its scratch cannot be had. */
spb_status csr_rcm_order(const spb_csr *A, spb_index *order, char *msg);

/* B(i, j) = A(order[i], order[j]) for a permutation `order` of A's m
 * rows (A square), columns sorted in each row as CSR keeps them. */
spb_status csr_permute(const spb_csr *A, const spb_index *order, spb_csr *B, char *msg);

/* A matrix renumbered by reverse Cuthill-McKee, made once for every row
 * that runs on it: B = P A P^T and the order (order[i]: the old index of
 * new row and column i). */
typedef struct {
    spb_csr csr;
    spb_index *order;
} spb_renumbered;

/* csr_rcm_order, then csr_permute: a rectangular A is declined
 * (SPB_ERR_DECLINED, rows and columns are renumbered together only in a
 * square one), as is a complex one; nothing is held on failure. */
spb_status csr_renumber_rcm(const spb_csr *A, spb_renumbered *R, char *msg);
void renumbered_free(spb_renumbered *R);

/* The largest |i - j| over A's entries (0 when empty). */
spb_index csr_bandwidth(const spb_csr *A);

#endif
