/* run.c — one matrix through every selected kernel (see run.h). */
#include "run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../cpu/spmv_cpu.h"
#include "rng.h"
#include "sources.h"

void run_random_vector(uint64_t seed, spb_index n, spb_value *x)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    for (spb_index i = 0; i < n; i++) x[i] = spb_rng_value(&rng);
}

typedef struct {
    const spb_kernel *kernel;
    const void *state;
    const spb_value *x;
    spb_value *y;
} timed_call;

/* What every kernel of one matrix shares. */
typedef struct {
    const char *name;
    const spb_csr *A;
    spb_csr_stats stats;
    const spb_value *x, *y_ref;
    spb_value *y;
    double scale; /* ||(|A||x|)||_2 */
    double serial_seconds;
} matrix_case;

static void emit(const spb_run_opts *opts, spb_run_totals *totals, const spb_result *r,
                 spb_status *csv_status, char *msg)
{
    progress_finish(opts->progress); /* the row replaces the live progress line */
    report_table_row(opts->table, r);
    if (*csv_status == SPB_OK) *csv_status = report_csv_row(opts->csv, opts->csv_path, r, msg);
    if (*csv_status == SPB_OK)
        *csv_status = report_json_row(opts->json, opts->json_path, r, totals->rows == 0, msg);
    totals->rows++;
    totals->ok += r->status == SPB_ROW_OK;
    totals->wrong += r->status == SPB_ROW_WRONG;
    totals->skipped += r->status == SPB_ROW_SKIPPED;
    totals->errors += r->status == SPB_ROW_ERROR;
}

static void poison(spb_value *y, spb_index len)
{
    for (spb_index i = 0; i < len; i++) y[i] = NAN;
}

/* Times a host kernel: `calls` back-to-back products. */
static double time_host_calls(void *ctx, int calls)
{
    timed_call *c = ctx;
    double start = timing_now();
    for (int k = 0; k < calls; k++) c->kernel->run(c->state, c->x, c->y);
    return timing_now() - start;
}

/* One product into mc->y (NaN-poisoned first) and its validation; a device
 * error is reported as an error, not as a wrong answer. */
static spb_row_status product_status(const spb_kernel *kernel, void *state, matrix_case *mc,
                                     const spb_run_opts *opts, spb_validation *v, char *row_msg)
{
    poison(mc->y, mc->A->m);
    kernel->run(state, mc->x, mc->y);
    if (kernel->check && kernel->check(state, row_msg) != SPB_OK) return SPB_ROW_ERROR;
    validate_vector(mc->A->m, mc->y, mc->y_ref, mc->scale, opts->tolerance, v);
    return v->passed ? SPB_ROW_OK : SPB_ROW_WRONG;
}

/* Measures one kernel into r (status and message included). */
static void run_kernel(const spb_kernel *kernel, matrix_case *mc, const spb_run_opts *opts,
                       const spb_kernel_config *config, double bandwidth_gbs, spb_result *r,
                       char *row_msg)
{
    const spb_csr *A = mc->A;
    if (kernel->supports && !kernel->supports(A, row_msg)) {
        r->status = SPB_ROW_SKIPPED;
        return;
    }
    spb_kernel_plan plan = {0};
    plan.tune_ms = NAN;
    double start = timing_now();
    spb_status st = kernel->prepare(A, config, &plan, row_msg);
    r->prepare_ms = (timing_now() - start) * 1e3;
    if (st != SPB_OK) {
        /* a kernel that declines this matrix by design is skipped, not failed */
        r->status = st == SPB_ERR_UNSUPPORTED ? SPB_ROW_SKIPPED : SPB_ROW_ERROR;
        return;
    }
    r->stored_entries = (double)plan.stored_entries;
    r->tune_ms = plan.tune_ms;
    if (plan.block_size) r->block_size = plan.block_size;
    r->status = product_status(kernel, plan.state, mc, opts, &r->error, row_msg);
    if (r->status != SPB_ROW_OK) {
        if (r->status == SPB_ROW_WRONG)
            spb_fail(row_msg, SPB_ERR_INVALID, "first product failed validation");
        kernel->release(plan.state);
        return;
    }
    timed_call call = {kernel, plan.state, mc->x, mc->y};
    if (kernel->time_calls)
        st = timing_measure(kernel->time_calls, plan.state, &opts->timing, &r->timing, row_msg);
    else
        st = timing_measure(time_host_calls, &call, &opts->timing, &r->timing, row_msg);
    if (st != SPB_OK) {
        if (kernel->check) kernel->check(plan.state, row_msg);
        kernel->release(plan.state);
        r->status = SPB_ROW_ERROR;
        return;
    }
    /* After the timed calls the product must still be right: host kernels
     * are checked on the last timed product, device kernels on one more
     * whole product of the same state. */
    spb_validation last;
    spb_row_status after = SPB_ROW_OK;
    if (kernel->time_calls) {
        after = product_status(kernel, plan.state, mc, opts, &last, row_msg);
    } else {
        validate_vector(A->m, mc->y, mc->y_ref, mc->scale, opts->tolerance, &last);
        after = last.passed ? SPB_ROW_OK : SPB_ROW_WRONG;
    }
    kernel->release(plan.state);
    if (after == SPB_ROW_ERROR) {
        r->status = SPB_ROW_ERROR;
        return;
    }
    if (!last.passed || !(last.abs_l2 <= r->error.abs_l2)) r->error = last;
    if (after == SPB_ROW_WRONG) {
        r->status = SPB_ROW_WRONG;
        spb_fail(row_msg, SPB_ERR_INVALID, "a product after the timed calls failed validation");
        return;
    }
    double t = r->timing.median;
    r->gflops = 2.0 * A->nnz / t / 1e9;
    r->gbytes_per_s = plan.bytes / t / 1e9;
    r->bandwidth_gbs = bandwidth_gbs;
    if (bandwidth_gbs > 0) r->roofline_frac = r->gbytes_per_s / bandwidth_gbs;
    if (strcmp(kernel->name, "csr.serial") == 0) mc->serial_seconds = t;
    if (mc->serial_seconds > 0) {
        r->speedup = mc->serial_seconds / t;
        r->efficiency = r->speedup / r->threads;
    }
    r->status = SPB_ROW_OK;
}

void progress_show(spb_progress *p, const char *matrix, const char *kernel)
{
    if (!p || !p->out) return;
    double elapsed = timing_now() - p->start;
    char left[32] = "?";
    if (p->index > 1) { /* from the matrices finished so far */
        double eta = elapsed / (p->index - 1) * (p->total - p->index + 1);
        snprintf(left, sizeof left, "%02d:%02d:%02d", (int)(eta / 3600), (int)(eta / 60) % 60,
                 (int)eta % 60);
    }
    fprintf(p->out, "%s[%d/%d] %s: %s (elapsed %02d:%02d:%02d, left ~%s)%s",
            p->live ? "\r\033[K" : "", p->index, p->total, matrix, kernel, (int)(elapsed / 3600),
            (int)(elapsed / 60) % 60, (int)elapsed % 60, left, p->live ? "" : "\n");
    fflush(p->out);
}

void progress_finish(spb_progress *p)
{
    if (p && p->out && p->live) fputs("\r\033[K", p->out);
}

/* Keeps the fastest ok row per (matrix, threads). */
static void note_best(spb_run_totals *totals, const spb_result *r)
{
    if (r->status != SPB_ROW_OK) return;
    for (int k = totals->best_count - 1; k >= 0; k--) {
        spb_best *b = &totals->best[k];
        if (strcmp(b->matrix, r->matrix) != 0) break;
        if (b->threads != r->threads) continue;
        if (r->timing.median < b->seconds) {
            b->kernel = r->kernel;
            b->seconds = r->timing.median;
            b->speedup = r->speedup;
        }
        return;
    }
    if (totals->best_count == totals->best_cap) {
        int cap = totals->best_cap ? totals->best_cap * 2 : 64;
        spb_best *grown = spb_realloc(totals->best, (size_t)cap, sizeof *grown);
        if (!grown) return; /* the summary is a convenience; the rows are on disk */
        totals->best = grown;
        totals->best_cap = cap;
    }
    spb_best *b = &totals->best[totals->best_count++];
    snprintf(b->matrix, sizeof b->matrix, "%s", r->matrix);
    b->kernel = r->kernel;
    b->threads = r->threads;
    b->seconds = r->timing.median;
    b->speedup = r->speedup;
}

void run_print_summary(FILE *out, const spb_run_totals *totals)
{
    if (totals->best_count == 0) return;
    fprintf(out, "\n# best kernel per matrix and thread count (speedup over csr.serial)\n");
    fprintf(out, "%-24s %3s  %-16s %10s %8s\n", "matrix", "thr", "best kernel", "median_ms",
            "speedup");
    for (int k = 0; k < totals->best_count; k++) {
        const spb_best *b = &totals->best[k];
        char speedup[32] = "-";
        if (!isnan(b->speedup)) snprintf(speedup, sizeof speedup, "%.2f", b->speedup);
        fprintf(out, "%-24.24s %3d  %-16s %10.4g %8s\n", b->matrix, b->threads, b->kernel,
                b->seconds * 1e3, speedup);
    }
}

void run_totals_free(spb_run_totals *totals)
{
    spb_free(totals->best);
    totals->best = NULL;
    totals->best_count = totals->best_cap = 0;
}

/* Serial and device kernels run once (one host thread); OpenMP ones at
 * each thread count. */
static int kernel_runs(const spb_kernel *kernel, const spb_run_opts *opts)
{
    return kernel->backend == SPB_BACKEND_OPENMP ? opts->thread_counts : 1;
}

static int kernel_threads(const spb_kernel *kernel, const spb_run_opts *opts, int c)
{
    return kernel->backend == SPB_BACKEND_OPENMP ? opts->threads[c] : 1;
}

/* Whether --resume finds this row already measured. */
static int already_done(const spb_run_opts *opts, const char *matrix, const char *kernel,
                        int threads)
{
    char key[1024];
    resume_key(key, sizeof key, matrix, kernel, threads, opts->settings);
    return resume_done(opts->done, key);
}

/* Counts the selected rows of a matrix already measured (--resume) and
 * returns how many are left; a matrix whose loading failed before has its
 * one error row and nothing left. */
static int rows_left(const char *name, const spb_run_opts *opts, int *done_rows)
{
    *done_rows = 0;
    if (!opts->done) return 1;
    if (already_done(opts, name, "", 0)) {
        *done_rows = 1;
        return 0;
    }
    int left = 0;
    for (int k = 0; k < spb_kernel_count; k++) {
        const spb_kernel *kernel = &spb_kernels[k];
        if (!kernel_selected(kernel->name, opts->kernels)) continue;
        for (int c = 0; c < kernel_runs(kernel, opts); c++) {
            int done = already_done(opts, name, kernel->name, kernel_threads(kernel, opts, c));
            *done_rows += done;
            left += !done;
        }
    }
    return left;
}

spb_status run_matrix(const char *source, const spb_run_opts *opts, spb_run_totals *totals,
                      char *msg)
{
    char name[256], row_msg[SPB_MSG_LEN] = "";
    source_name(source, name, sizeof name);
    spb_status csv_status = SPB_OK;
    int done_rows;
    if (!rows_left(name, opts, &done_rows)) {
        totals->resumed += done_rows;
        progress_show(opts->progress, name, "already in the CSV");
        return SPB_OK;
    }
    progress_show(opts->progress, name, "loading");

    spb_csr A;
    spb_value *x = NULL, *y = NULL, *y_ref = NULL, *y_abs = NULL;
    char cache_note[SPB_MSG_LEN];
    spb_status st = source_load_cached(source, opts->cache_dir, &A, cache_note, row_msg);
    if (st == SPB_OK && strncmp(cache_note, "not stored", 10) == 0)
        fprintf(stderr, "spbench: warning: cache: %s\n", cache_note);
    if (st == SPB_OK) {
        x = spb_malloc((size_t)A.n, sizeof *x);
        y = spb_malloc((size_t)A.m, sizeof *y);
        y_ref = spb_malloc((size_t)A.m, sizeof *y_ref);
        y_abs = spb_malloc((size_t)A.m, sizeof *y_abs);
        if (!x || !y || !y_ref || !y_abs)
            st = spb_fail(row_msg, SPB_ERR_NOMEM, "%s: out of memory for the vectors", source);
    }
    if (st != SPB_OK) {
        spb_result r;
        result_init(&r);
        r.matrix = name;
        r.message = row_msg;
        r.settings = opts->settings;
        emit(opts, totals, &r, &csv_status, msg);
        goto done;
    }
    run_random_vector(opts->seed, A.n, x);
    csr_reference_spmv(&A, x, y_ref);
    csr_abs_spmv(&A, x, y_abs);
    matrix_case mc = {name, &A, {0}, x, y_ref, y, vector_norm2(A.m, y_abs), 0.0};
    csr_stats(&A, &mc.stats);
    for (int k = 0; k < spb_kernel_count && csv_status == SPB_OK; k++) {
        const spb_kernel *kernel = &spb_kernels[k];
        if (!kernel_selected(kernel->name, opts->kernels)) continue;
        int serial = kernel->backend != SPB_BACKEND_OPENMP;
        for (int c = 0; c < kernel_runs(kernel, opts) && csv_status == SPB_OK; c++) {
            spb_kernel_config config = opts->config;
            config.threads = kernel_threads(kernel, opts, c);
            if (already_done(opts, name, kernel->name, config.threads)) {
                totals->resumed++;
                continue;
            }
            progress_show(opts->progress, name, kernel->name);
            spb_result r;
            result_init(&r);
            r.matrix = name;
            r.kernel = kernel->name;
            r.format = kernel->format;
            r.backend = backend_name(kernel->backend);
            r.threads = config.threads;
            r.stats = mc.stats;
            r.tolerance = opts->tolerance;
            r.settings = opts->settings;
            row_msg[0] = '\0';
            r.message = row_msg;
            double bandwidth = kernel->backend == SPB_BACKEND_CUDA ? opts->gpu_bandwidth_gbs
                               : serial                            ? opts->serial_bandwidth_gbs
                                                                   : opts->bandwidth_gbs[c];
            run_kernel(kernel, &mc, opts, &config, bandwidth, &r, row_msg);
            emit(opts, totals, &r, &csv_status, msg);
            note_best(totals, &r);
        }
    }
done:
    spb_free(x);
    spb_free(y);
    spb_free(y_ref);
    spb_free(y_abs);
    csr_free(&A);
    return csv_status;
}
