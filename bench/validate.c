/* validate.c — error norms against the reference. */
#include "validate.h"

#include <math.h>

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
