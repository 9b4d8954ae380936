/* validate.h — a kernel's y against the reference y_ref. */
#ifndef SPB_VALIDATE_H
#define SPB_VALIDATE_H

#include "formats/csr.h"

/* The factor on the rounding bound (--tol): 1 is the bound itself. */
#define SPB_DEFAULT_TOLERANCE 1.0

typedef struct {
    double abs_l2;  /* ||y - y_ref||_2 */
    double rel_l2;  /* ||y - y_ref||_2 / ||y_ref||_2 (0 when both are 0) */
    double max_abs; /* max_i |y_i - y_ref_i| */
    int passed;     /* every entry within tolerance times its rounding bound (NaN never passes) */
    /* the exact result (or its bound) is not finite in fp64: nothing to
     * judge against, never passed */
    int reference_overflow;
    spb_index failed_row; /* the first entry past its bound: its row, or -1 */
    double failed_bound;  /* and the bound it passed */
} spb_validation;

/* The most a correct result entry can be off, in a kernel of `precision`,
 * when it sums `terms` products whose absolute values sum to abs_sum:
 * gamma_{terms+1} = (terms+1) u / (1 - (terms+1) u) times abs_sum (each
 * product passes at most `terms` roundings in any order of summation, and
 * the result one more where it is stored narrower; Higham, Accuracy and
 * Stability, 3.1), plus the reference's own, gamma_terms in fp64; with
 * inputs_rounded (an fp32 row judged against the fp64 inputs' reference)
 * 2u + u^2 more for the operands' rounding. Infinite where terms * u
 * reaches 1 (no bound). Values below the precision's normal range are not
 * covered: a row there fails, and is then told apart by flush_slack. */
double rounding_bound(double terms, double abs_sum, spb_precision precision, int inputs_rounded);

/* What flushing to zero can take from a sum of `terms` products beyond
 * rounding_bound: terms + 1 smallest normals of the precision (each product
 * and partial sum flushed, as device atomics do). */
double flush_slack(double terms, spb_precision precision);

/* What an fp32 (or complex64) kernel makes of a*b: a and b in fp32 (a
 * complex one, (re, im) pairs, as its four real products), the product
 * added to sum (per part, in fp64) and the real products' magnitudes to
 * abs_sum. The range checks rebuild a product with it. */
void fp32_product_add(const float *a, const float *b, int complex_values, double *sum,
                      double *abs_sum);

/* The smallest nonzero magnitude of v's `count` values and *smallest. */
void note_smallest(const spb_value *v, size_t count, double *smallest);

/* Why a product made in fp32 missed, by the smallest value met: a value
 * below fp32's smallest normal, else products below it (a row's message). */
const char *fp32_range_cause(double smallest);

/* y = A*x of a kernel of `precision` against y_ref: row i passes when
 * |y_i - y_ref_i| <= tolerance * rounding_bound(row i's entries, y_abs_i,
 * ...), y_abs being |A||x| (judged per row, against the row's own length and
 * |A||x|, not a norm that a long row's error hides in). A complex matrix's y
 * and y_ref are (re, im) pairs: |.| the modulus, and the bound that of 2 x
 * the row's entries real products per part, times sqrt(2) for the two
 * parts (Higham 3.6). */
void validate_vector(const spb_csr *A, const spb_value *y, const spb_value *y_ref,
                     const spb_value *y_abs, spb_precision precision, int inputs_rounded,
                     double tolerance, spb_validation *out);

/* A sparse result C = A*B against its reference: the pattern must be the
 * same exactly (sizes, row pointers, columns), and each value c_ij within
 * tolerance * rounding_bound(A's row i length, scale_ij, ...), scale being
 * |A|*|B| on the reference's pattern (an entry sums at most as many
 * products as row i of A has entries). abs_l2 and rel_l2 are Frobenius
 * norms, max_abs the worst entry. On a failure, where names the first
 * differing (row, column). */
void validate_csr(const spb_csr *C, const spb_csr *ref, const spb_value *scale, const spb_csr *A,
                  spb_precision precision, int inputs_rounded, double tolerance,
                  spb_validation *out, char *where, size_t where_size);

#endif
