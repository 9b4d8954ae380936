/* validate.h — a kernel's y against the reference y_ref. */
#ifndef SPB_VALIDATE_H
#define SPB_VALIDATE_H

#include "formats/csr.h"

#define SPB_DEFAULT_TOLERANCE 1e-10

typedef struct {
    double abs_l2;  /* ||y - y_ref||_2 */
    double rel_l2;  /* ||y - y_ref||_2 / ||y_ref||_2 (0 when both are 0) */
    double max_abs; /* max_i |y_i - y_ref_i| */
    int passed;     /* abs_l2 <= tolerance * scale (NaN never passes) */
    /* the exact result (or its bound) is not finite in fp64: nothing to
     * judge against, never passed */
    int reference_overflow;
} spb_validation;

/* Rounding errors of a length-k dot product are bounded by about
 * k*eps*(|A||x|)_i per row, so the error is judged against
 * scale = ||(|A||x|)||_2, not ||y_ref||_2, which cancellation can make
 * arbitrarily small. */
void validate_vector(spb_index len, const spb_value *y, const spb_value *y_ref, double scale,
                     double tolerance, spb_validation *out);

/* The bound a row of `precision` is judged by: the tolerance scaled by its
 * unit roundoff (fp32: 5.4e8 times fp64's), but never above the default
 * tolerance's scaled bound unless the tolerance itself is (--tol 1e-2
 * once made the fp32 bound 5.4e6, which passes anything). */
double validation_bound(double tolerance, spb_precision precision);

/* ||v||_2, without overflow for entries near the largest double. */
double vector_norm2(spb_index len, const spb_value *v);

/* A sparse result C against its reference: the pattern must be the same
 * exactly (sizes, row pointers, columns), and each value within
 * tolerance * scale_ij, scale being |A|*|B| on the reference's pattern
 * (rounding is bounded by the absolute products, not by c_ij). abs_l2 and
 * rel_l2 are Frobenius norms, max_abs the worst entry. On a failure, where
 * names the first differing (row, column). */
void validate_csr(const spb_csr *C, const spb_csr *ref, const spb_value *scale, double tolerance,
                  spb_validation *out, char *where, size_t where_size);

#endif
