/* op_spgemm.c — the SpGEMM operation: the kernel table (host rows from
 * cpu/), the second operand, the reference C and |A|*|B| from the
 * sequential Gustavson kernel, the size checks made before anything large
 * is allocated, one product and its validation. */
#include "bench/run/op_spgemm.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/inputs/rng.h"
#include "bench/inputs/sources.h"
#include "bench/validation/validate.h"
#include "core/memory.h"
#include "cpu/spgemm_cpu.h"
#include "gpu/gpu.h"
#include "plugins/loader.h"

#define THIN_PREFIX    "thin:"
#define TRANSPOSE_SPEC "transpose" /* B = A^T, also for a square A */

typedef struct {
    spb_csr B; /* owned, unless B is A itself */
    int b_is_a;
    spb_csr ref;   /* the reference C */
    double *scale; /* |A|*|B| at the reference's entries */
    spb_csr C;     /* the last product */
} spgemm_data;

const spb_csr *spgemm_case_c(const spb_case *c) { return &((const spgemm_data *)c->data)->C; }

/* thin:K[:PER_ROW] into k and per_row; 0 when malformed. */
static int parse_thin(const char *spec, long *k, long *per_row)
{
    char *end;
    *per_row = 2;
    *k = strtol(spec + strlen(THIN_PREFIX), &end, 10);
    if (*end == ':') *per_row = strtol(end + 1, &end, 10);
    return *end == '\0' && *k >= 1 && *k <= SPB_INDEX_MAX && *per_row >= 1 && *per_row <= *k;
}

int spgemm_operand_valid(const char *spec, char *why)
{
    long k, per_row;
    if (strncmp(spec, THIN_PREFIX, strlen(THIN_PREFIX)) == 0 && !parse_thin(spec, &k, &per_row)) {
        spb_fail(why, SPB_ERR_INVALID,
                 "--b %s: expected thin:K or thin:K:PER_ROW with 1 <= PER_ROW <= K", spec);
        return 0;
    }
    return 1;
}

/* A seeded random rows x k matrix, per_row distinct columns in each row. */
static spb_status thin_matrix(spb_index rows, long k, long per_row, uint64_t seed, spb_csr *B,
                              char *msg)
{
    if ((double)rows * per_row > SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE, "thin B: %d rows x %ld entries exceed %d",
                        (int)rows, per_row, (int)SPB_INDEX_MAX);
    spb_status st = csr_alloc(B, rows, (spb_index)k, (spb_index)(rows * per_row), msg);
    if (st != SPB_OK) return st;
    spb_rng rng;
    spb_rng_seed(&rng, seed ^ 0x7468696eull);
    for (spb_index i = 0; i < rows; i++) {
        spb_index *cols = B->col_idx + (int64_t)i * per_row;
        for (long e = 0; e < per_row; e++) { /* distinct columns, kept sorted */
            spb_index j = (spb_index)spb_rng_below(&rng, (uint64_t)k), at = (spb_index)e;
            int seen = 0;
            for (long f = 0; f < e; f++) seen |= cols[f] == j;
            if (seen) {
                e--;
                continue;
            }
            for (; at > 0 && cols[at - 1] > j; at--) cols[at] = cols[at - 1];
            cols[at] = j;
        }
        for (long e = 0; e < per_row; e++) B->val[(int64_t)i * per_row + e] = spb_rng_value(&rng);
        B->row_ptr[i + 1] = (spb_index)((int64_t)(i + 1) * per_row);
    }
    return SPB_OK;
}

/* B by the spec: A itself, A^T, thin:..., or a matrix source (a file named
 * like a keyword is reached as ./transpose). */
static spb_status load_operand(spb_case *c, spgemm_data *d, uint64_t seed, char *msg)
{
    const char *spec = c->operand;
    long k, per_row;
    if (!spec && c->A->m == c->A->n) {
        d->b_is_a = 1;
        return SPB_OK;
    }
    if (!spec || strcmp(spec, TRANSPOSE_SPEC) == 0) return csr_transpose(c->A, &d->B, msg);
    if (strncmp(spec, THIN_PREFIX, strlen(THIN_PREFIX)) == 0) {
        if (!parse_thin(spec, &k, &per_row))
            return spb_fail(msg, SPB_ERR_INVALID, "--b %s: expected thin:K[:PER_ROW]", spec);
        return thin_matrix(c->A->n, k, per_row, seed, &d->B, msg);
    }
    return source_load(spec, &d->B, NULL, msg);
}

/* Refuses, before anything large is allocated, a product beyond the
 * machine's memory (C held four times: reference, scale, the kernel's C
 * and a library's copy). Its intermediate products may pass 2^31 - 1: a
 * row that counts them in 32 bits declines such a product itself. */
static spb_status check_size(spb_case *c, const spb_csr *B, char *msg)
{
    int64_t products = csr_spgemm_products(c->A, B);
    int64_t nnz_c = csr_spgemm_nnz(c->A, B);
    if (nnz_c < 0) return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory", c->name);
    double need = 4.0 * csr_spgemm_c_bytes(c->A->m, (double)nnz_c, c->A->complex_values);
    char what[SPB_NAME_LEN + 32], detail[128];
    snprintf(what, sizeof what, "%s: its SpGEMM", c->name);
    snprintf(detail, sizeof detail, "C of %lld entries, held four times", (long long)nnz_c);
    spb_status st = spb_memory_check(need, what, detail, msg);
    if (st != SPB_OK) return st;
    c->products = (double)products;
    c->nnz_c = (double)nnz_c;
    c->row_products_max = (double)csr_spgemm_row_products_max(c->A, B);
    return SPB_OK;
}

static void spgemm_case_free(spb_case *c)
{
    spgemm_data *d = c->data;
    if (d) {
        csr_free(&d->B);
        csr_free(&d->ref);
        spb_free(d->scale);
        csr_free(&d->C);
        spb_free(d);
    }
    c->data = NULL;
}

static spb_status spgemm_case_setup(spb_case *c, uint64_t seed, char *msg)
{
    spgemm_data *d = c->data = spb_calloc(1, sizeof *d);
    if (!d) return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory", c->name);
    spb_status st = load_operand(c, d, seed, msg);
    const spb_csr *B = d->b_is_a ? c->A : &d->B;
    if (st == SPB_OK && c->A->complex_values != B->complex_values)
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "%s: A is %s and B %s: C = A*B takes two operands of one field", c->name,
                      c->A->complex_values ? "complex" : "real",
                      B->complex_values ? "complex" : "real");
    if (st == SPB_OK && c->A->n != B->m)
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "%s: A is %d x %d and B is %d x %d: A's columns must equal B's rows", c->name,
                      (int)c->A->m, (int)c->A->n, (int)B->m, (int)B->n);
    if (st == SPB_OK) st = check_size(c, B, msg);
    if (st == SPB_OK)
        st = csr_spgemm_reference(c->A, B, (int64_t)c->nnz_c, &d->ref, &d->scale, msg);
    if (st != SPB_OK) {
        spgemm_case_free(c);
        return st;
    }
    c->formats.b = B;
    return SPB_OK;
}

/* A complex multiply-add is 8 real flops (4 multiplications, 4 additions). */
static double spgemm_flops(const spb_case *c)
{
    return (c->A->complex_values ? 8.0 : 2.0) * c->products;
}

static double spgemm_bytes(const spb_case *c, const spb_kernel_plan *plan, spb_precision precision)
{
    (void)plan;
    return csr_spgemm_bytes(c->A, c->products, c->nnz_c, precision);
}

/* Row i of A*B with A and B rounded to fp32 and each product made in fp32
 * as the kernels make it (a complex one as its four real products), summed
 * in fp64 into acc, the products' magnitudes into acc_abs (w per column);
 * the smallest nonzero value met into *smallest. */
static void add_fp32_products(const spb_csr *A, const spb_csr *B, spb_index i, double *acc,
                              double *acc_abs, double *smallest)
{
    const int cx = A->complex_values;
    const size_t w = csr_values_per_entry(A);
    for (spb_offset k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++) {
        const size_t ak = (size_t)k * w;
        const float a[2] = {(float)A->val[ak], cx ? (float)A->val[ak + 1] : 0.0f};
        note_smallest(&A->val[ak], w, smallest);
        const spb_index r = A->col_idx[k];
        for (spb_offset t = csr_row_start(B, r); t < csr_row_start(B, r + 1); t++) {
            const size_t bt = (size_t)t * w, at = (size_t)B->col_idx[t] * w;
            note_smallest(&B->val[bt], w, smallest);
            const float b[2] = {(float)B->val[bt], cx ? (float)B->val[bt + 1] : 0.0f};
            fp32_product_add(a, b, cx, &acc[at], &acc_abs[at]);
        }
    }
}

/* After a row in fp32 (or complex64) failed: whether fp32's range explains
 * it. A and B are rounded to fp32, each product made in fp32 as the
 * kernels make it (a complex one as its four real products) and the
 * products summed in fp64; when that already misses the reference (as
 * validate_csr judges) and the kernel's C (same pattern) agrees with it
 * within the kernel's own rounding bound per part, values or products
 * below fp32's range are the cause (values above it are declined before),
 * not the kernel, and msg says so, as the SpMV rows do. 0 otherwise (or
 * without memory for the check): the row stays wrong. */
static int fp32_range_misses(const spb_case *c, spb_precision precision, double tolerance,
                             char *msg)
{
    const spgemm_data *d = c->data;
    const spb_csr *A = c->A, *B = d->b_is_a ? c->A : &d->B, *R = &d->ref, *C = &d->C;
    const int cx = A->complex_values;
    const size_t w = csr_values_per_entry(A);
    if (C->m != R->m || C->n != R->n || C->nnz != R->nnz ||
        memcmp(C->col_idx, R->col_idx, sizeof *R->col_idx * (size_t)R->nnz) != 0)
        return 0;
    for (spb_index i = 1; i <= R->m; i++)
        if (csr_row_start(C, i) != csr_row_start(R, i)) return 0;
    /* per column and part: the sum and the sum of its real products' magnitudes */
    double *acc = spb_calloc(((size_t)B->n + 1) * w, sizeof *acc);
    double *acc_abs = spb_calloc(((size_t)B->n + 1) * w, sizeof *acc_abs);
    if (!acc || !acc_abs) {
        spb_free(acc);
        spb_free(acc_abs);
        return 0;
    }
    double smallest = INFINITY;
    spb_index miss_row = -1, miss_col = -1;
    int agrees = 1;
    for (spb_index i = 0; i < A->m && agrees; i++) {
        const double terms = (double)(csr_row_start(A, i + 1) - csr_row_start(A, i)) * (cx ? 2 : 1);
        add_fp32_products(A, B, i, acc, acc_abs, &smallest);
        /* the reference's row holds every column the row touched (its pattern
         * is structural): read and cleared there; the miss as validate_csr
         * judges an entry (a complex one by its modulus, sqrt(2) wider) */
        for (spb_offset k = csr_row_start(R, i); k < csr_row_start(R, i + 1); k++) {
            const size_t at = (size_t)R->col_idx[k] * w, rk = (size_t)k * w;
            double off = 0.0;
            for (size_t q = 0; q < w; q++) {
                const double made = acc[at + q], made_abs = acc_abs[at + q];
                off = hypot(off, made - R->val[rk + q]);
                double own = tolerance * (rounding_bound(terms, made_abs, precision, 0) +
                                          flush_slack(terms, precision));
                agrees = agrees && fabs(C->val[rk + q] - made) <= own;
                acc[at + q] = acc_abs[at + q] = 0;
            }
            double miss = tolerance * (cx ? sqrt(2.0) : 1.0) *
                          rounding_bound(terms, d->scale[k], precision, 1);
            if (miss_row < 0 && !(off <= miss)) {
                miss_row = i;
                miss_col = R->col_idx[k];
            }
        }
    }
    spb_free(acc);
    spb_free(acc_abs);
    if (miss_row < 0 || !agrees) return 0;
    snprintf(msg, SPB_MSG_LEN,
             "A and B in fp32, their products made in fp32, already miss the reference at (%d, "
             "%d) before any kernel runs (%s): the input's range, not the kernel (whose C agrees "
             "with that fp32 product)",
             (int)miss_row, (int)miss_col, fp32_range_cause(smallest));
    return 1;
}

static spb_row_status spgemm_product(const spb_kernel *kernel, void *state, spb_case *c,
                                     spb_precision precision, double tolerance, spb_validation *v,
                                     char *msg)
{
    spgemm_data *d = c->data;
    csr_free(&d->C);
    spb_status st = spgemm_kernel_of(kernel)->spgemm(state, &d->C, msg);
    if (st == SPB_OK && kernel->check) st = kernel->check(state, msg);
    if (st != SPB_OK) return SPB_ROW_ERROR;
    char where[SPB_MSG_LEN];
    validate_csr(&d->C, &d->ref, d->scale, c->A, precision, spb_precision_single(precision),
                 tolerance, v, where, sizeof where);
    if (!v->passed) spb_fail(msg, SPB_ERR_INVALID, "%s", where);
    if (v->reference_overflow) return SPB_ROW_ERROR;
    if (!v->passed && spb_precision_single(precision) &&
        fp32_range_misses(c, precision, tolerance, msg))
        return SPB_ROW_SKIPPED;
    return v->passed ? SPB_ROW_OK : SPB_ROW_WRONG;
}

static spb_status spgemm_host_calls(const spb_kernel *kernel, void *state, spb_case *c,
                                    spb_precision precision, int calls, char *msg)
{
    (void)precision; /* the kernel's state holds the operands in its precision */
    spgemm_data *d = c->data;
    spb_status st = SPB_OK;
    for (int k = 0; k < calls && st == SPB_OK; k++) {
        csr_free(&d->C); /* C's allocation is part of every product */
        st = spgemm_kernel_of(kernel)->spgemm(state, &d->C, msg);
    }
    return st;
}

static void spgemm_state_figures(const spb_kernel *kernel, const void *state, spb_result *r)
{
    const spb_spgemm_kernel *row = spgemm_kernel_of(kernel);
    if (row->kernel_seconds) r->kernel_ms = row->kernel_seconds(state) * 1e3;
    if (row->device_peak_bytes) r->device_peak_bytes = row->device_peak_bytes(state);
}

/* The intermediate products of A times B, B made as a run makes it. */
static double spgemm_work(spb_case *c, uint64_t seed, char *msg)
{
    spgemm_data d = {0};
    double products = -1;
    if (load_operand(c, &d, seed, msg) == SPB_OK) {
        const spb_csr *B = d.b_is_a ? c->A : &d.B;
        if (c->A->n == B->m)
            products = (double)csr_spgemm_products(c->A, B);
        else
            spb_fail(msg, SPB_ERR_INVALID, "A's columns must equal B's rows");
    }
    csr_free(&d.B);
    return products;
}

int spgemm_kernel_builtin(const char *name)
{
    for (int k = 0; k < cpu_spgemm_kernel_count; k++)
        if (strcmp(cpu_spgemm_kernels[k].kernel.name, name) == 0) return 1;
    for (int k = 0; k < gpu_spgemm_kernel_count(); k++)
        if (strcmp(gpu_spgemm_kernel(k)->name, name) == 0) return 1;
    return 0;
}

const spb_operation *operation_spgemm(void)
{
    static spb_operation op = {
        .name = "spgemm",
        .case_setup = spgemm_case_setup,
        .case_free = spgemm_case_free,
        .flops = spgemm_flops,
        .bytes = spgemm_bytes,
        .product = spgemm_product,
        .host_calls = spgemm_host_calls,
        .state_figures = spgemm_state_figures,
        .work = spgemm_work,
        .work_unit = "intermediate product",
        .calibration = "gen:rmat:11:8",
    };
    if (op.kernel_count == 0) {
        const spb_kernel **table = kernel_table(
            cpu_spgemm_kernel_count + gpu_spgemm_kernel_count() + plugin_spgemm_kernel_count());
        for (int k = 0; k < cpu_spgemm_kernel_count; k++)
            table[op.kernel_count++] = &cpu_spgemm_kernels[k].kernel;
        for (int k = 0; k < gpu_spgemm_kernel_count(); k++)
            table[op.kernel_count++] = gpu_spgemm_kernel(k);
        for (int k = 0; k < plugin_spgemm_kernel_count(); k++)
            table[op.kernel_count++] = plugin_spgemm_kernel(k);
        op.kernels = table;
        op.baseline = &cpu_spgemm_kernels[0].kernel; /* spgemm.gustavson */
    }
    return &op;
}
