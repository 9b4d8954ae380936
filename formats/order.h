/* order.h — renumbering a square matrix's rows and columns together
 * (B = P A P^T), for kernels whose gathers of x share cache lines only
 * when a row's neighbours have nearby numbers. */
#ifndef SPB_ORDER_H
#define SPB_ORDER_H

#include "csr.h"

/* Reverse Cuthill-McKee on the pattern of A + A^T (A square): order[i] is
 * the old index of new row and column i (m entries). Each connected part
 * starts from a pseudo-peripheral vertex (George-Liu) and is walked breadth
 * first, neighbours by rising degree; parts follow in the order of their
 * lowest old index; the whole is reversed. SPB_ERR_INVALID for a
 * rectangular A, SPB_ERR_NOMEM when its scratch cannot be had. */
spb_status csr_rcm_order(const spb_csr *A, spb_index *order, char *msg);

/* B(i, j) = A(order[i], order[j]) for a permutation `order` of A's m
 * rows (A square), columns sorted in each row as CSR keeps them. */
spb_status csr_permute(const spb_csr *A, const spb_index *order, spb_csr *B, char *msg);

/* The largest |i - j| over A's entries (0 when empty). */
spb_index csr_bandwidth(const spb_csr *A);

#endif
