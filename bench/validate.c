/* validate.c — error norms against the reference. */
#include "validate.h"

#include <math.h>
#include <stdio.h>

double vector_norm2(spb_index len, const spb_value *v)
{
    double sum = 0.0;
    for (spb_index i = 0; i < len; i++) sum += v[i] * v[i];
    return sqrt(sum);
}

void validate_vector(spb_index len, const spb_value *y, const spb_value *y_ref, double scale,
                     double tolerance, spb_validation *out)
{
    double err_sq = 0.0, max_abs = 0.0;
    int finite = 1;
    for (spb_index i = 0; i < len; i++) {
        double d = y[i] - y_ref[i];
        if (!isfinite(d)) finite = 0;
        err_sq += d * d;
        if (fabs(d) > max_abs) max_abs = fabs(d);
    }
    double ref_norm = vector_norm2(len, y_ref);
    out->abs_l2 = finite ? sqrt(err_sq) : NAN;
    out->max_abs = finite ? max_abs : NAN;
    out->rel_l2 = ref_norm > 0 ? out->abs_l2 / ref_norm : (out->abs_l2 == 0 ? 0.0 : INFINITY);
    out->passed = finite && out->abs_l2 <= tolerance * scale;
}

/* The first column where row i of C and of ref differ. */
static spb_index first_difference(const spb_csr *C, const spb_csr *ref, spb_index i)
{
    spb_index kc = C->row_ptr[i], kr = ref->row_ptr[i];
    for (; kc < C->row_ptr[i + 1] && kr < ref->row_ptr[i + 1]; kc++, kr++)
        if (C->col_idx[kc] != ref->col_idx[kr])
            return C->col_idx[kc] < ref->col_idx[kr] ? C->col_idx[kc] : ref->col_idx[kr];
    return kc < C->row_ptr[i + 1] ? C->col_idx[kc] : ref->col_idx[kr];
}

/* Whether the patterns agree; where names the first difference if not. */
static int same_pattern(const spb_csr *C, const spb_csr *ref, char *where, size_t where_size)
{
    if (C->m != ref->m || C->n != ref->n) {
        snprintf(where, where_size, "C is %d x %d, the reference %d x %d", (int)C->m, (int)C->n,
                 (int)ref->m, (int)ref->n);
        return 0;
    }
    for (spb_index i = 0; i < ref->m; i++) {
        int same = C->row_ptr[i + 1] - C->row_ptr[i] == ref->row_ptr[i + 1] - ref->row_ptr[i];
        for (spb_index k = 0; same && k < ref->row_ptr[i + 1] - ref->row_ptr[i]; k++)
            same = C->col_idx[C->row_ptr[i] + k] == ref->col_idx[ref->row_ptr[i] + k];
        if (!same) {
            snprintf(where, where_size,
                     "pattern differs first at (%d, %d): row %d has %d entries, the reference %d",
                     (int)i, (int)first_difference(C, ref, i), (int)i,
                     (int)(C->row_ptr[i + 1] - C->row_ptr[i]),
                     (int)(ref->row_ptr[i + 1] - ref->row_ptr[i]));
            return 0;
        }
    }
    return 1;
}

void validate_csr(const spb_csr *C, const spb_csr *ref, const spb_value *scale, double tolerance,
                  spb_validation *out, char *where, size_t where_size)
{
    out->abs_l2 = out->rel_l2 = out->max_abs = NAN;
    out->passed = 0;
    where[0] = '\0';
    if (!same_pattern(C, ref, where, where_size)) return;
    double err2 = 0.0, ref2 = 0.0, worst = 0.0;
    int passed = 1;
    for (spb_index i = 0; i < ref->m; i++)
        for (spb_index k = ref->row_ptr[i]; k < ref->row_ptr[i + 1]; k++) {
            double err = fabs(C->val[k] - ref->val[k]);
            err2 += err * err;
            ref2 += ref->val[k] * ref->val[k];
            if (err > worst || isnan(err)) worst = err;
            if (!(err <= tolerance * scale[k]) && passed) {
                passed = 0;
                snprintf(where, where_size,
                         "value differs first at (%d, %d): %.17g, expected %.17g", (int)i,
                         (int)ref->col_idx[k], C->val[k], ref->val[k]);
            }
        }
    out->abs_l2 = sqrt(err2);
    out->rel_l2 = ref2 > 0 ? out->abs_l2 / sqrt(ref2) : (err2 > 0 ? INFINITY : 0.0);
    out->max_abs = worst;
    out->passed = passed;
}
