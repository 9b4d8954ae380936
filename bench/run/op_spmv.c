/* op_spmv.c — the SpMV operation: the kernel table (host rows from cpu/,
 * device rows from gpu/), random x, the compensated reference y_ref and the
 * error scale || |A||x| ||_2, one product and its validation. */
#include "bench/run/op_spmv.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/inputs/sources.h"
#include "core/memory.h"

#include "bench/inputs/rng.h"
#include "cpu/spmv_cpu.h"
#include "gpu/gpu.h"
#include "mpi/dist.h"
#include "plugins/loader.h"

/* A complex matrix's vectors are complex: (re, im) pairs, as its values. */
typedef struct {
    spb_value *x, *y, *y_ref;
    spb_value *y_abs; /* |A||x| per row: the scale of each row's rounding bound */
    float *x32, *y32; /* fp32 rows: x rounded once, y before it is widened into y */
} spmv_data;

/* Doubles (or floats) per entry of x and y: 2 for a complex matrix. */
static size_t parts(const spb_case *c) { return csr_values_per_entry(c->A); }

void spmv_random_vector(uint64_t seed, size_t n, spb_value *x)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++) x[i] = spb_rng_value(&rng);
}

static void reference(spb_case *c)
{
    spmv_data *d = c->data;
    for (size_t j = 0; j < (size_t)c->A->n * parts(c); j++) d->x32[j] = (float)d->x[j];
    csr_reference_spmv(c->A, d->x, d->y_ref, d->y_abs);
}

static void spmv_case_free(spb_case *c)
{
    spmv_data *d = c->data;
    if (d) {
        spb_free(d->x);
        spb_free(d->y);
        spb_free(d->y_ref);
        spb_free(d->y_abs);
        spb_free(d->x32);
        spb_free(d->y32);
        spb_free(d);
    }
    c->data = NULL;
}

/* Refuses, before any vector is allocated, a matrix whose product would
 * not fit: x and y with their fp32 copies, the reference and |A||x|, and a kernel's
 * first-touch copies of A, x and y. A 1 x 2^31 matrix of one entry takes a
 * few bytes to read and tens of GiB to multiply. */
static spb_status spmv_check_memory(const spb_case *c, char *msg)
{
    double m = c->A->m, n = c->A->n, nnz = c->A->nnz, gib = 1024.0 * 1024.0 * 1024.0;
    double w = (double)parts(c), vectors = w * (12.0 * n + 20.0 * m) + 8.0 * m;
    double copies = (8.0 * w + 4.0) * nnz + 4.0 * (m + 1) + 8.0 * w * (n + m);
    char detail[256], what[SPB_NAME_LEN + 32];
    snprintf(detail, sizeof detail,
             "%.0f x %.0f: x, y, their fp32 copies, the reference and |A||x| %.2f GiB, a kernel's "
             "copies "
             "of A, x and y %.2f GiB",
             m, n, vectors / gib, copies / gib);
    snprintf(what, sizeof what, "%s: its SpMV", c->name);
    return spb_memory_check(vectors + copies, what, detail, msg);
}

static spb_status spmv_case_setup(spb_case *c, uint64_t seed, char *msg)
{
    spb_status st = spmv_check_memory(c, msg);
    if (st != SPB_OK) return st;
    spmv_data *d = c->data = spb_calloc(1, sizeof *d);
    const size_t n = (size_t)c->A->n * parts(c), m = (size_t)c->A->m * parts(c);
    if (d) {
        d->x = spb_malloc(n, sizeof *d->x);
        d->y = spb_malloc(m, sizeof *d->y);
        d->y_ref = spb_malloc(m, sizeof *d->y_ref);
        d->y_abs = spb_malloc((size_t)c->A->m, sizeof *d->y_abs);
        d->x32 = spb_malloc(n, sizeof *d->x32);
        d->y32 = spb_malloc(m, sizeof *d->y32);
    }
    if (!d || !d->x || !d->y || !d->y_ref || !d->y_abs || !d->x32 || !d->y32) {
        spmv_case_free(c);
        return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory for the vectors", c->name);
    }
    spmv_random_vector(seed, n, d->x); /* complex: the parts drawn alike */
    reference(c);
    c->products = c->nnz_c = c->row_products_max = NAN;
    return SPB_OK;
}

void spmv_case_set_x(spb_case *c, const spb_value *x)
{
    spmv_data *d = c->data;
    for (size_t j = 0; j < (size_t)c->A->n * parts(c); j++) d->x[j] = x[j];
    reference(c);
}

const spb_value *spmv_case_y(const spb_case *c) { return ((const spmv_data *)c->data)->y; }

/* A complex multiply-add is 8 real flops (4 multiplications, 4 additions). */
static double spmv_flops(const spb_case *c)
{
    return (c->A->complex_values ? 8.0 : 2.0) * c->A->nnz;
}

/* The format's byte model, from the kernel's prepare. */
static double spmv_bytes(const spb_case *c, const spb_kernel_plan *plan, spb_precision precision)
{
    (void)c;
    (void)precision;
    return plan->bytes;
}

/* The product's x and y in the row's precision. */
static const void *case_x(const spb_case *c, spb_precision precision)
{
    const spmv_data *d = c->data;
    return spb_precision_single(precision) ? (const void *)d->x32 : (const void *)d->x;
}

static void *case_y(const spb_case *c, spb_precision precision)
{
    spmv_data *d = c->data;
    return spb_precision_single(precision) ? (void *)d->y32 : (void *)d->y;
}

/* The kernel's y against the reference of A and x as given: an fp32 row
 * with A's and x's rounding in its bound. */
static void spmv_validate_output(const spb_case *c, spb_precision precision, double tolerance,
                                 spb_validation *v)
{
    spmv_data *d = c->data;
    int fp32 = spb_precision_single(precision);
    if (fp32) { /* judged in fp64 against the same reference */
        const long long len = (long long)c->A->m * parts(c);
#pragma omp parallel for schedule(static) if (len > 65536)
        for (long long i = 0; i < len; i++) d->y[i] = d->y32[i];
    }
    validate_vector(c->A, d->y, d->y_ref, d->y_abs, precision, fp32, tolerance, v);
}

/* After a row in fp32 (or complex64) failed: whether fp32's range, not
 * the kernel, is the cause. A and x rounded to fp32, each product made in
 * fp32 as the kernels make it (a complex one as its four real products),
 * the products summed in fp64: the row is the input's when the kernel's
 * y agrees with that within the kernel's own rounding bound per part (and
 * what flushing to zero takes), and that already misses the reference
 * (values or products below fp32's smallest normal lose their digits or
 * flush to 0). msg says so. */
static int fp32_input_out_of_range(const spb_case *c, spb_precision precision, double tolerance,
                                   char *msg)
{
    const spmv_data *d = c->data;
    const spb_csr *A = c->A;
    const int cx = A->complex_values;
    const size_t w = csr_values_per_entry(A);
    spb_value *made = spb_malloc((size_t)A->m * w, sizeof *made);
    if (!made) return 0;
    double smallest = INFINITY;
    int agrees = 1;
    for (spb_index i = 0; i < A->m; i++) {
        /* per part: the sum and the sum of its real products' magnitudes */
        double sum[2] = {0.0, 0.0}, abs_sum[2] = {0.0, 0.0};
        const double terms = (double)(csr_row_start(A, i + 1) - csr_row_start(A, i)) * (cx ? 2 : 1);
        for (spb_offset k = csr_row_start(A, i), end = csr_row_start(A, i + 1); k < end; k++) {
            const size_t at = (size_t)k * w, j = (size_t)A->col_idx[k] * w;
            note_smallest(&A->val[at], w, &smallest);
            const float a[2] = {(float)A->val[at], cx ? (float)A->val[at + 1] : 0.0f};
            fp32_product_add(a, &d->x32[j], cx, sum, abs_sum);
        }
        for (size_t q = 0; q < w; q++) {
            made[(size_t)i * w + q] = sum[q];
            double own = tolerance * (rounding_bound(terms, abs_sum[q], precision, 0) +
                                      flush_slack(terms, precision));
            agrees = agrees && fabs(d->y[(size_t)i * w + q] - sum[q]) <= own;
        }
    }
    spb_validation rounded;
    validate_vector(A, made, d->y_ref, d->y_abs, precision, 1, tolerance, &rounded);
    spb_free(made);
    if (!agrees || rounded.passed || rounded.reference_overflow) return 0;
    snprintf(msg, SPB_MSG_LEN,
             "A and x in fp32, their products made in fp32, already miss the reference (rel_err "
             "%.2g before any kernel runs; %s): the input's range, not the kernel (whose y agrees "
             "with that fp32 product)",
             rounded.rel_l2, fp32_range_cause(smallest));
    return 1;
}

static spb_row_status spmv_product(const spb_kernel *kernel, void *state, spb_case *c,
                                   spb_precision precision, double tolerance, spb_validation *v,
                                   char *msg)
{
    spmv_data *d = c->data;
    const long long len = (long long)c->A->m * parts(c);
#pragma omp parallel for schedule(static) if (len > 65536)
    for (long long i = 0; i < len; i++) {
        d->y[i] = NAN;
        d->y32[i] = NAN;
    }
    spb_status st =
        spmv_kernel_of(kernel)->spmv(state, case_x(c, precision), case_y(c, precision), msg);
    if (st == SPB_OK && kernel->check) st = kernel->check(state, msg);
    if (st != SPB_OK) return SPB_ROW_ERROR;
    spmv_validate_output(c, precision, tolerance, v);
    if (v->reference_overflow) {
        spb_fail(msg, SPB_ERR_INVALID,
                 "the exact y = A*x (or its bound |A||x|) overflows fp64: nothing to validate "
                 "against");
        return SPB_ROW_ERROR;
    }
    if (!v->passed && spb_precision_single(precision) &&
        fp32_input_out_of_range(c, precision, tolerance, msg))
        return SPB_ROW_SKIPPED;
    if (!v->passed && c->A->complex_values) {
        size_t i = (size_t)v->failed_row;
        spb_fail(msg, SPB_ERR_INVALID,
                 "y[%d] is %.17g%+.17gi, expected %.17g%+.17gi within %.3g (its row's rounding "
                 "bound)",
                 (int)i, d->y[2 * i], d->y[2 * i + 1], d->y_ref[2 * i], d->y_ref[2 * i + 1],
                 v->failed_bound);
    } else if (!v->passed) {
        spb_index i = v->failed_row;
        spb_fail(msg, SPB_ERR_INVALID,
                 "y[%d] is %.17g, expected %.17g within %.3g (its row's rounding bound)", (int)i,
                 d->y[i], d->y_ref[i], v->failed_bound);
    }
    return v->passed ? SPB_ROW_OK : SPB_ROW_WRONG;
}

static spb_status spmv_host_calls(const spb_kernel *kernel, void *state, spb_case *c,
                                  spb_precision precision, int calls, char *msg)
{
    spb_status st = SPB_OK;
    const void *x = case_x(c, precision);
    void *y = case_y(c, precision);
    for (int k = 0; k < calls && st == SPB_OK; k++)
        st = spmv_kernel_of(kernel)->spmv(state, x, y, msg);
    return st;
}

static double spmv_work(spb_case *c, uint64_t seed, char *msg)
{
    (void)seed, (void)msg;
    return (double)c->A->nnz;
}

int spmv_kernel_builtin(const char *name)
{
    for (int k = 0; k < cpu_spmv_kernel_count; k++)
        if (strcmp(cpu_spmv_kernels[k].kernel.name, name) == 0) return 1;
    for (int k = 0; k < gpu_spmv_kernel_count(); k++)
        if (strcmp(gpu_spmv_kernel(k)->name, name) == 0) return 1;
    for (int k = 0; k < dist_spmv_kernel_count; k++)
        if (strcmp(dist_spmv_kernels[k].kernel.name, name) == 0) return 1;
    return 0;
}

const spb_operation *operation_spmv(void)
{
    static spb_operation op = {
        .name = "spmv",
        .case_setup = spmv_case_setup,
        .case_free = spmv_case_free,
        .flops = spmv_flops,
        .bytes = spmv_bytes,
        .product = spmv_product,
        .host_calls = spmv_host_calls,
        .work = spmv_work,
        .work_unit = "entry",
        .calibration = "gen:random:50000:16",
    };
    if (op.kernel_count == 0) { /* the host rows, the device rows, the distributed rows */
        const spb_kernel **table =
            kernel_table(cpu_spmv_kernel_count + gpu_spmv_kernel_count() + dist_spmv_kernel_count +
                         plugin_spmv_kernel_count());
        for (int k = 0; k < cpu_spmv_kernel_count; k++)
            table[op.kernel_count++] = &cpu_spmv_kernels[k].kernel;
        for (int k = 0; k < gpu_spmv_kernel_count(); k++)
            table[op.kernel_count++] = gpu_spmv_kernel(k);
        for (int k = 0; k < dist_spmv_kernel_count; k++)
            table[op.kernel_count++] = &dist_spmv_kernels[k].kernel;
        for (int k = 0; k < plugin_spmv_kernel_count(); k++)
            table[op.kernel_count++] = plugin_spmv_kernel(k);
        op.kernels = table;
        op.baseline = &cpu_spmv_kernels[0].kernel; /* csr.serial */
    }
    return &op;
}
