/* gen.h — matrices generated in memory from a spec string, with a fixed
 * seed, so large inputs need no file:
 *   gen:lap2d:N[:L]          5-point Laplacian on an N x N grid (N^2 rows), or N x L
 *   gen:lap3d:N[:L]          7-point Laplacian on an N^3 grid, or N x N x L
 *                            (L layers along the slowest axis: rows N*L, N*N*L)
 *   gen:random:ROWS:PER_ROW  square, PER_ROW distinct random columns per row
 *   gen:rmat:SCALE:EF[:A]    R-MAT power-law graph, 2^SCALE rows, EF*2^SCALE edges,
 *                            the top-left quadrant's chance A % (default 57: the skew)
 *   gen:hubs:ROWS:PER_ROW:HUBS:HUB_LEN
 *                            symmetric, about PER_ROW random entries a row, and HUBS
 *                            rows (and columns) of HUB_LEN: a few rows thousands of
 *                            times the mean
 *   gen:road:N:KEEP_PERCENT  an N x N grid graph keeping each edge with that
 *                            chance, symmetric pattern: a road network's short,
 *                            alike rows
 *   gen:fem:N:DOF            27-point hexahedral stencil on N^3 nodes, DOF unknowns a
 *                            node: dense DOF x DOF blocks, banded */
#ifndef SPB_GEN_H
#define SPB_GEN_H

#include "formats/csr.h"

#define GEN_PREFIX "gen:"

int gen_is_spec(const char *text);
spb_status gen_matrix(const char *spec, spb_csr *A, char *msg);

/* Whether spec names a generator with the right count of positive sizes
 * (what can be checked before generating anything); 0 with msg if not. */
int gen_spec_well_formed(const char *spec, char *msg);

/* The entries a spec would generate, without generating it (0 when the
 * spec is malformed): the weight of a spec when a batch is split. */
double gen_estimate_nnz(const char *spec);

/* A weak-scaling study's spec for `ranks` ranks: the spec's matrix per
 * rank, grown along the rows (Laplacian layers, random rows, R-MAT scale:
 * ranks a power of 2). SPB_ERR_INVALID, saying why, for a spec that does
 * not grow so. */
spb_status gen_spec_for_ranks(const char *spec, int ranks, char *out, size_t size, char *msg);

#endif
