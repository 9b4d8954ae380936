/* validate.c — error norms against the reference. */
#include "bench/validation/validate.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* A 2-norm summed without overflow (LAPACK's dnrm2 scaling): the squares
 * are kept relative to the largest magnitude seen, so entries near 1e200
 * give a finite norm; an infinite or NaN entry makes it infinite or NaN. */
typedef struct {
    double scale, ssq;
} norm_sum;

static void norm_add(norm_sum *n, double v)
{
    double a = fabs(v);
    if (a == 0) return;
    if (!isfinite(a)) {
        n->scale = isnan(n->scale) ? n->scale : a;
        n->ssq = 1;
    } else if (n->scale < a) {
        n->ssq = 1 + n->ssq * (n->scale / a) * (n->scale / a);
        n->scale = a;
    } else {
        n->ssq += (a / n->scale) * (a / n->scale);
    }
}

static double norm_value(const norm_sum *n) { return n->scale * sqrt(n->ssq); }

double vector_norm2(size_t len, const spb_value *v)
{
    norm_sum n = {0, 0};
    for (size_t i = 0; i < len; i++) norm_add(&n, v[i]);
    return norm_value(&n);
}

/* gamma_n = n u / (1 - n u): the relative bound of n roundings; none past n u = 1. */
static double gamma_n(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : INFINITY; }

double rounding_bound(double terms, double abs_sum, spb_precision precision, int inputs_rounded)
{
    double u = spb_precision_unit_roundoff(precision);
    double relative = gamma_n(terms + 1, u) + gamma_n(terms, spb_precision_unit_roundoff(SPB_FP64));
    if (inputs_rounded) relative += 2 * u + u * u;
    return relative * abs_sum;
}

double flush_slack(double terms, spb_precision precision)
{
    return (terms + 1) * (spb_precision_single(precision) ? FLT_MIN : DBL_MIN);
}

/* err over ref, 0 when both are 0. */
void fp32_product_add(const float *a, const float *b, int complex_values, double *sum,
                      double *abs_sum)
{
    if (complex_values) {
        const float rr = a[0] * b[0], ii = a[1] * b[1], ri = a[0] * b[1], ir = a[1] * b[0];
        sum[0] += (double)rr - ii;
        sum[1] += (double)ri + ir;
        abs_sum[0] += fabsf(rr) + fabsf(ii);
        abs_sum[1] += fabsf(ri) + fabsf(ir);
    } else {
        const float product = a[0] * b[0];
        sum[0] += product;
        abs_sum[0] += fabsf(product);
    }
}

void note_smallest(const spb_value *v, size_t count, double *smallest)
{
    for (size_t q = 0; q < count; q++)
        if (v[q] != 0 && fabs(v[q]) < *smallest) *smallest = fabs(v[q]);
}

const char *fp32_range_cause(double smallest)
{
    return smallest < FLT_MIN ? "the smallest value is below fp32's smallest normal (1.2e-38)"
                              : "products below fp32's smallest normal (1.2e-38)";
}

static double relative(double err, double ref)
{
    return ref > 0 ? err / ref : (err == 0 ? 0.0 : INFINITY);
}

void validate_vector(const spb_csr *A, const spb_value *y, const spb_value *y_ref,
                     const spb_value *y_abs, spb_precision precision, int inputs_rounded,
                     double tolerance, spb_validation *out)
{
    norm_sum err = {0, 0}, abs = {0, 0};
    double max_abs = 0.0;
    int finite = 1;
    const int complex_values = A->complex_values;
    out->failed_row = -1;
    out->failed_bound = NAN;
    for (spb_index i = 0; i < A->m; i++) {
        double d, terms = csr_row_start(A, i + 1) - csr_row_start(A, i), widen = 1.0;
        if (complex_values) {
            /* each part sums 2 x terms real products, each no larger than
             * |a||x|; the modulus of the two parts' errors sqrt(2) times
             * either's bound */
            const double dr = y[2 * (size_t)i] - y_ref[2 * (size_t)i];
            const double di = y[2 * (size_t)i + 1] - y_ref[2 * (size_t)i + 1];
            norm_add(&err, dr);
            norm_add(&err, di);
            d = hypot(dr, di);
            if (!isfinite(dr) || !isfinite(di)) d = NAN;
            terms *= 2;
            widen = sqrt(2.0);
        } else {
            d = y[i] - y_ref[i];
            norm_add(&err, d);
        }
        if (!isfinite(d)) finite = 0;
        norm_add(&abs, y_abs[i]);
        if (fabs(d) > max_abs) max_abs = fabs(d);
        double bound =
            tolerance * widen * rounding_bound(terms, y_abs[i], precision, inputs_rounded);
        if (!(fabs(d) <= bound) && out->failed_row < 0) {
            out->failed_row = i;
            out->failed_bound = bound;
        }
    }
    double ref_norm = vector_norm2((size_t)A->m * (complex_values ? 2 : 1), y_ref);
    out->reference_overflow = !isfinite(ref_norm) || !isfinite(norm_value(&abs));
    out->abs_l2 = finite ? norm_value(&err) : NAN;
    out->max_abs = finite ? max_abs : NAN;
    out->rel_l2 = out->reference_overflow ? NAN : relative(out->abs_l2, ref_norm);
    out->passed = finite && !out->reference_overflow && out->failed_row < 0;
}

/* The first column where row i of C and of ref differ. */
static spb_index first_difference(const spb_csr *C, const spb_csr *ref, spb_index i)
{
    spb_offset kc = csr_row_start(C, i), kr = csr_row_start(ref, i);
    for (; kc < csr_row_start(C, i + 1) && kr < csr_row_start(ref, i + 1); kc++, kr++)
        if (C->col_idx[kc] != ref->col_idx[kr])
            return C->col_idx[kc] < ref->col_idx[kr] ? C->col_idx[kc] : ref->col_idx[kr];
    return kc < csr_row_start(C, i + 1) ? C->col_idx[kc] : ref->col_idx[kr];
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
        int same = csr_row_start(C, i + 1) - csr_row_start(C, i) ==
                   csr_row_start(ref, i + 1) - csr_row_start(ref, i);
        for (spb_index k = 0; same && k < csr_row_start(ref, i + 1) - csr_row_start(ref, i); k++)
            same = C->col_idx[csr_row_start(C, i) + k] == ref->col_idx[csr_row_start(ref, i) + k];
        if (!same) {
            snprintf(where, where_size,
                     "pattern differs first at (%d, %d): row %d has %d entries, the reference %d",
                     (int)i, (int)first_difference(C, ref, i), (int)i,
                     (int)(csr_row_start(C, i + 1) - csr_row_start(C, i)),
                     (int)(csr_row_start(ref, i + 1) - csr_row_start(ref, i)));
            return 0;
        }
    }
    return 1;
}

void validate_csr(const spb_csr *C, const spb_csr *ref, const spb_value *scale, const spb_csr *A,
                  spb_precision precision, int inputs_rounded, double tolerance,
                  spb_validation *out, char *where, size_t where_size)
{
    out->abs_l2 = out->rel_l2 = out->max_abs = NAN;
    out->reference_overflow = 0;
    out->passed = 0;
    out->failed_row = -1;
    out->failed_bound = NAN;
    where[0] = '\0';
    if (!same_pattern(C, ref, where, where_size)) return;
    if (C->complex_values != ref->complex_values) {
        snprintf(where, where_size, "C is %s, the reference %s",
                 C->complex_values ? "complex" : "real", ref->complex_values ? "complex" : "real");
        return;
    }
    norm_sum err2 = {0, 0}, ref2 = {0, 0};
    double worst = 0.0;
    int passed = 1, overflow = 0;
    const int cx = ref->complex_values; /* the bound as validate_vector's for complex */
    for (spb_index i = 0; i < ref->m; i++) {
        double terms = (csr_row_start(A, i + 1) - csr_row_start(A, i)) * (cx ? 2.0 : 1.0);
        for (spb_offset k = csr_row_start(ref, i), end = csr_row_start(ref, i + 1); k < end; k++) {
            const double re = cx ? C->val[2 * k] - ref->val[2 * k] : C->val[k] - ref->val[k];
            const double im = cx ? C->val[2 * k + 1] - ref->val[2 * k + 1] : 0.0;
            double err = cx ? hypot(re, im) : fabs(re);
            if (cx && (isnan(re) || isnan(im))) err = NAN;
            double bound = tolerance * (cx ? sqrt(2.0) : 1.0) *
                           rounding_bound(terms, scale[k], precision, inputs_rounded);
            const double ref_re = cx ? ref->val[2 * k] : ref->val[k];
            const double ref_im = cx ? ref->val[2 * k + 1] : 0.0;
            norm_add(&err2, err);
            norm_add(&ref2, cx ? hypot(ref_re, ref_im) : ref_re);
            if (err > worst || isnan(err)) worst = err;
            if (!isfinite(ref_re) || !isfinite(ref_im) || !isfinite(scale[k])) {
                if (!overflow)
                    snprintf(where, where_size,
                             "the exact C overflows fp64 at (%d, %d): nothing to validate against",
                             (int)i, (int)ref->col_idx[k]);
                overflow = 1;
                passed = 0;
            } else if (!(err <= bound) && passed) {
                passed = 0;
                out->failed_row = i;
                out->failed_bound = bound;
                if (cx)
                    snprintf(where, where_size,
                             "value differs first at (%d, %d): %.17g%+.17gi, expected "
                             "%.17g%+.17gi within %.3g",
                             (int)i, (int)ref->col_idx[k], C->val[2 * k], C->val[2 * k + 1], ref_re,
                             ref_im, bound);
                else
                    snprintf(where, where_size,
                             "value differs first at (%d, %d): %.17g, expected %.17g within %.3g",
                             (int)i, (int)ref->col_idx[k], C->val[k], ref_re, bound);
            }
        }
    }
    out->reference_overflow = overflow;
    out->abs_l2 = norm_value(&err2);
    out->rel_l2 = overflow ? NAN : relative(out->abs_l2, norm_value(&ref2));
    out->max_abs = worst;
    out->passed = passed;
}
