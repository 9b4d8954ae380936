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

/* gamma_n = n u / (1 - n u): the relative bound of n roundings; none past n u = 1. */
static double gamma_n(double n, double u) { return n * u < 1 ? n * u / (1 - n * u) : INFINITY; }

/* rounding_bound with the unit roundoffs given, the kernel's u and the
 * fp64 reference's u_ref (a row loop's constants). */
static inline double bound_of(double terms, double abs_sum, double u, double u_ref,
                              int inputs_rounded)
{
    double relative = gamma_n(terms + 1, u) + gamma_n(terms, u_ref);
    if (inputs_rounded) relative += 2 * u + u * u;
    return relative * abs_sum;
}

double rounding_bound(double terms, double abs_sum, spb_precision precision, int inputs_rounded)
{
    return bound_of(terms, abs_sum, spb_precision_unit_roundoff(precision),
                    spb_precision_unit_roundoff(SPB_FP64), inputs_rounded);
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

/* Two norms of disjoint parts as one (norm_add's rules: NaN wins, then infinity). */
static norm_sum norm_merge(norm_sum a, norm_sum b)
{
    if (b.scale == 0) return a;
    if (a.scale == 0) return b;
    if (isnan(a.scale) || isnan(b.scale)) return (norm_sum){NAN, 1};
    if (isinf(a.scale) || isinf(b.scale)) return (norm_sum){INFINITY, 1};
    if (a.scale < b.scale) {
        norm_sum t = a;
        a = b;
        b = t;
    }
    a.ssq += b.ssq * (b.scale / a.scale) * (b.scale / a.scale);
    return a;
}

/* What validate_vector gathers over a run of rows. */
typedef struct {
    norm_sum err, abs, ref;
    double max_abs, failed_bound;
    spb_index failed_row;
    int finite;
} row_check;

/* validate_vector's per-row work over rows [first, end). */
static row_check check_rows(const spb_csr *A, const spb_value *y, const spb_value *y_ref,
                            const spb_value *y_abs, spb_precision precision, int inputs_rounded,
                            double tolerance, spb_index first, spb_index end)
{
    row_check c = {{0, 0}, {0, 0}, {0, 0}, 0.0, NAN, -1, 1};
    const int complex_values = A->complex_values;
    const double u = spb_precision_unit_roundoff(precision),
                 u_ref = spb_precision_unit_roundoff(SPB_FP64);
    for (spb_index i = first; i < end; i++) {
        double d, terms = csr_row_start(A, i + 1) - csr_row_start(A, i), widen = 1.0;
        if (complex_values) {
            /* each part sums 2 x terms real products, each no larger than
             * |a||x|; the modulus of the two parts' errors sqrt(2) times
             * either's bound */
            const double dr = y[2 * (size_t)i] - y_ref[2 * (size_t)i];
            const double di = y[2 * (size_t)i + 1] - y_ref[2 * (size_t)i + 1];
            norm_add(&c.err, dr);
            norm_add(&c.err, di);
            norm_add(&c.ref, y_ref[2 * (size_t)i]);
            norm_add(&c.ref, y_ref[2 * (size_t)i + 1]);
            d = hypot(dr, di);
            if (!isfinite(dr) || !isfinite(di)) d = NAN;
            terms *= 2;
            widen = sqrt(2.0);
        } else {
            d = y[i] - y_ref[i];
            norm_add(&c.err, d);
            norm_add(&c.ref, y_ref[i]);
        }
        if (!isfinite(d)) c.finite = 0;
        norm_add(&c.abs, y_abs[i]);
        if (fabs(d) > c.max_abs) c.max_abs = fabs(d);
        double bound = tolerance * widen * bound_of(terms, y_abs[i], u, u_ref, inputs_rounded);
        if (!(fabs(d) <= bound) && c.failed_row < 0) {
            c.failed_row = i;
            c.failed_bound = bound;
        }
    }
    return c;
}

/* Rows checked in runs of CHECK_RUN, CHECK_RUNS runs at a time across the
 * threads, their sums then added in row order: the same figures at any
 * thread count (a matrix of one run: the serial loop's). On one thread the
 * check took about 35 ns a row (0.15 s for 4 million rows on a 2-core
 * machine), twice a row of a study. */
enum { CHECK_RUN = 4096, CHECK_RUNS = 64 };

void validate_vector(const spb_csr *A, const spb_value *y, const spb_value *y_ref,
                     const spb_value *y_abs, spb_precision precision, int inputs_rounded,
                     double tolerance, spb_validation *out)
{
    row_check all = {{0, 0}, {0, 0}, {0, 0}, 0.0, NAN, -1, 1};
    for (spb_index base = 0; base < A->m; base += (spb_index)CHECK_RUN * CHECK_RUNS) {
        row_check run[CHECK_RUNS];
        const spb_index left = A->m - base;
        const int runs = left >= (spb_index)CHECK_RUN * CHECK_RUNS
                             ? CHECK_RUNS
                             : (int)((left + CHECK_RUN - 1) / CHECK_RUN);
#pragma omp parallel for schedule(dynamic, 1) if (runs > 1)
        for (int r = 0; r < runs; r++) {
            const spb_index first = base + (spb_index)r * CHECK_RUN;
            const spb_index end = A->m - first > CHECK_RUN ? first + CHECK_RUN : A->m;
            run[r] =
                check_rows(A, y, y_ref, y_abs, precision, inputs_rounded, tolerance, first, end);
        }
        for (int r = 0; r < runs; r++) {
            all.err = norm_merge(all.err, run[r].err);
            all.abs = norm_merge(all.abs, run[r].abs);
            all.ref = norm_merge(all.ref, run[r].ref);
            if (!(run[r].max_abs <= all.max_abs)) all.max_abs = run[r].max_abs;
            all.finite &= run[r].finite;
            if (all.failed_row < 0 && run[r].failed_row >= 0) {
                all.failed_row = run[r].failed_row;
                all.failed_bound = run[r].failed_bound;
            }
        }
    }
    const double ref_norm = norm_value(&all.ref);
    out->failed_row = all.failed_row;
    out->failed_bound = all.failed_bound;
    out->reference_overflow = !isfinite(ref_norm) || !isfinite(norm_value(&all.abs));
    out->abs_l2 = all.finite ? norm_value(&all.err) : NAN;
    out->max_abs = all.finite ? all.max_abs : NAN;
    out->rel_l2 = out->reference_overflow ? NAN : relative(out->abs_l2, ref_norm);
    out->passed = all.finite && !out->reference_overflow && all.failed_row < 0;
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
