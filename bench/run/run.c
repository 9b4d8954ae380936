/* run.c — one matrix through every selected kernel of an operation (see
 * run.h): the protocol is written once here; the operation supplies its
 * table, inputs, reference and validation. The rows it makes are written
 * by emit.c; what --resume finds is read by stored.c. */
#include "bench/run/run.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench/run/run_internal.h"
#include "core/memory.h"

static double time_host_calls(void *ctx, int calls)
{
    host_calls *h = ctx;
    double start = timing_now();
    spb_status st = h->op->host_calls(h->kernel, h->state, h->c, h->precision, calls, h->msg);
    double elapsed = timing_now() - start;
    return st == SPB_OK ? elapsed : -1.0;
}

/* supports and prepare (timed on its own) into r; 0 when the row ends here. */
/* Whether the kernel's own working memory (its estimate from the case's
 * sizes) fits in what the machine allows now; else row_msg says both
 * figures. A study is never ended by one kernel's appetite. */
static int working_memory_fits(const spb_kernel *kernel, const spb_case *c,
                               const spb_kernel_config *config, char *row_msg)
{
    if (!kernel->host_bytes) return 1;
    const spb_csr *B = c->formats.b;
    spb_work_size size = {.m = c->A->m,
                          .n = B ? B->n : c->A->n,
                          .nnz_a = c->A->nnz,
                          .nnz_b = B ? B->nnz : 0,
                          .products = isnan(c->products) ? 0 : c->products,
                          .nnz_c = isnan(c->nnz_c) ? 0 : c->nnz_c,
                          .row_products_max = isnan(c->row_products_max) ? 0 : c->row_products_max};
    char what[SPB_NAME_LEN + 16];
    snprintf(what, sizeof what, "%s", kernel->name);
    spb_status st = spb_memory_check(kernel->host_bytes(kernel, &size, config), what,
                                     "its working memory, estimated from C's size", row_msg);
    return st == SPB_OK;
}

spb_status run_kernel_declines(const spb_kernel *kernel, const spb_csr *A, const spb_csr *B,
                               double nnz_c, const spb_kernel_config *config, char *msg)
{
    if (spb_precision_complex(config->precision) && !kernel->complex_values)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "the matrix is complex (its file's field) and this kernel computes in "
                        "real numbers: declined, never cast");
    if (spb_precision_single(config->precision) && !kernel->fp32)
        return spb_fail(msg, SPB_ERR_DECLINED, "this kernel has no %s version yet",
                        spb_precision_str(config->precision));
    if (csr_wide(A) && !kernel->wide_offsets)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "the matrix's row offsets are 64-bit (%lld entries) and "
                        "this kernel has no version for them",
                        (long long)A->nnz);
    if (B && csr_wide(B) && !kernel->wide_offsets)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "B's row offsets are 64-bit (%lld entries) and this kernel has no "
                        "version for them",
                        (long long)B->nnz);
    if (nnz_c > SPB_INDEX_MAX && !kernel->wide_offsets)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "C = A*B holds %.0f entries, on 64-bit row offsets, and this kernel has "
                        "no version for them",
                        nnz_c);
    return SPB_OK;
}

static int prepare_kernel(const spb_kernel *kernel, spb_case *c, const spb_kernel_config *config,
                          spb_kernel_plan *plan, spb_result *r, spb_phase_times *phases,
                          char *row_msg)
{
    if ((kernel->supports && !kernel->supports(kernel, c->A, row_msg)) ||
        run_kernel_declines(kernel, c->A, c->formats.b, c->nnz_c, config, row_msg) != SPB_OK) {
        r->status = SPB_ROW_SKIPPED;
        return 0;
    }
    if (!working_memory_fits(kernel, c, config, row_msg)) {
        r->status = SPB_ROW_SKIPPED;
        return 0;
    }
    *plan = (spb_kernel_plan){0};
    plan->tune_ms = NAN;
    double start = timing_now();
    spb_status st = kernel->prepare(kernel, &c->formats, config, plan, row_msg);
    r->prepare_ms = (timing_now() - start) * 1e3;
    phase_add(phases, kernel->trials ? SPB_PHASE_AUTO : SPB_PHASE_PREPARE, r->prepare_ms / 1e3);
    if (st != SPB_OK) {
        /* a kernel that declines this matrix by design is skipped, not failed */
        r->status = st == SPB_ERR_DECLINED ? SPB_ROW_SKIPPED : SPB_ROW_ERROR;
        return 0;
    }
    r->stored_entries = (double)plan->stored_entries;
    r->tune_ms = plan->tune_ms;
    if (plan->block_size) r->block_size = plan->block_size;
    return 1;
}

/* A kernel slower than --max-kernel-ms: the row is that one call alone
 * (`what` took `seconds`), marked capped, and the study moves on. */
static void cap_row(spb_result *r, const char *what, double seconds, double cap_ms, char *row_msg)
{
    r->timing.median = r->timing.min = r->timing.max = seconds;
    r->timing.samples = r->timing.batch = r->timing.attempts = 1;
    r->timing.spread = 0;
    r->timing.noisy = 0;
    r->timing.kept = 1;
    r->timing.kept_s[0] = (float)seconds;
    r->capped = 1;
    spb_appendf(row_msg, SPB_MSG_LEN,
                "%scapped: %s took %.0f ms, over --max-kernel-ms %g: timed from that call alone",
                row_msg[0] ? "; " : "", what, seconds * 1e3, cap_ms);
}

/* The validated first product, then the cap: 1 when the row is to be
 * timed, 0 when it ends here (r's status and message say how: failed,
 * wrong, or capped and timed from that call alone). */
static int first_product(const spb_kernel *kernel, void *state, spb_case *c,
                         spb_precision precision, const spb_run_opts *opts, spb_result *r,
                         char *row_msg)
{
    const spb_operation *op = opts->op;
    double start = timing_now();
    r->status = op->product(kernel, state, c, precision, r->tolerance, &r->error, row_msg);
    double first = timing_now() - start;
    phase_add(opts->out.phases, SPB_PHASE_VALIDATE, first);
    if (r->status != SPB_ROW_OK) {
        if (r->status == SPB_ROW_WRONG)
            spb_fail(row_msg, SPB_ERR_INVALID, "first product failed validation");
        return 0;
    }
    r->capped = 0;
    if (opts->max_kernel_ms > 0 && first * 1e3 > opts->max_kernel_ms && kernel->time_calls) {
        /* a device row's first call also brought the output to the host and
         * validated it (a second, for C of 10^8 entries): one whole product
         * alone decides */
        double alone = kernel->time_calls(state, 1);
        if (alone < 0) {
            if (kernel->check) kernel->check(state, row_msg);
            r->status = SPB_ROW_ERROR;
            return 0;
        }
        first = alone;
    }
    if (opts->max_kernel_ms > 0 && first * 1e3 > opts->max_kernel_ms) {
        cap_row(r,
                !kernel->time_calls                   ? "its first call"
                : kernel->backend == SPB_BACKEND_CUDA ? "one whole product on the device"
                                                      : "one product in the kernel's process",
                first, opts->max_kernel_ms, row_msg);
        return 0;
    }
    return 1;
}

/* After the timed calls: their outcome (`timed`, and r->timing when it is
 * SPB_OK), then one more whole product of the same state, validated. Fills
 * r's status and error. */
static spb_status after_timing(const spb_kernel *kernel, void *state, spb_case *c,
                               spb_precision precision, const spb_run_opts *opts, spb_status timed,
                               spb_result *r, char *row_msg)
{
    if (timed != SPB_OK) {
        /* the device's own account (out of memory, say) before the timing's */
        char device[SPB_MSG_LEN] = "";
        spb_status st = kernel->check ? kernel->check(state, device) : SPB_OK;
        if (st != SPB_OK) snprintf(row_msg, SPB_MSG_LEN, "%s", device);
        r->status = SPB_ROW_ERROR;
        return st != SPB_OK ? st : timed;
    }
    spb_validation last;
    double start = timing_now();
    spb_row_status after =
        opts->op->product(kernel, state, c, precision, r->tolerance, &last, row_msg);
    phase_add(opts->out.phases, SPB_PHASE_VALIDATE, timing_now() - start);
    if (after == SPB_ROW_ERROR) {
        r->status = SPB_ROW_ERROR;
        return SPB_ERR_DEVICE;
    }
    if (!last.passed || !(last.abs_l2 <= r->error.abs_l2)) r->error = last;
    if (after == SPB_ROW_WRONG) {
        r->status = SPB_ROW_WRONG;
        spb_fail(row_msg, SPB_ERR_INVALID, "a product after the timed calls failed validation");
    }
    return SPB_OK;
}

/* Rates, roofline fraction and speedup over the operation's baseline. */
static void fill_metrics(spb_case *c, const spb_run_opts *opts, double bytes, double bandwidth_gbs,
                         spb_precision precision, spb_result *r)
{
    double t = r->timing.median;
    r->gflops = opts->op->flops(c) / t / 1e9;
    r->gbytes_per_s = bytes / t / 1e9;
    r->bandwidth_gbs = bandwidth_gbs;
    if (bandwidth_gbs > 0) r->roofline_frac = r->gbytes_per_s / bandwidth_gbs;
    /* against the baseline in the same precision */
    note_reference(c, opts, r); /* the baseline's own row: the speedup below is 1 */
    if (c->baseline_seconds[precision] > 0) {
        r->speedup = c->baseline_seconds[precision] / t;
        r->efficiency = r->speedup / (r->threads * r->ranks); /* per core in use */
    }
    /* flops per joule: the energy pass's products, apart from the timing */
    if (r->energy.joules_per_product > 0)
        r->gflops_per_watt = opts->op->flops(c) / r->energy.joules_per_product / 1e9;
}

/* The kernel's bound (the GPU's, or the CPU's at its thread count) and
 * whether its working set fits in that side's last-level cache. */
static double bound_for(const spb_kernel *kernel, const spb_run_opts *opts, int threads,
                        double bytes, int *in_cache)
{
    const spb_roofline *roof = opts->roofline;
    *in_cache = -1;
    /* the bandwidth is measured by rank 0 alone: no bound for P ranks */
    if (!roof || kernel_over_ranks(kernel)) return 0;
    int gpu = kernel->backend == SPB_BACKEND_CUDA;
    double llc = gpu ? roof->gpu_l2_bytes : roof->cpu_llc_bytes;
    if (llc > 0) *in_cache = bytes <= llc;
    return gpu ? roofline_gpu(roof) : roofline_cpu(roof, threads);
}

spb_status run_single_product(const spb_operation *op, const spb_kernel *kernel, spb_case *c,
                              const spb_kernel_config *config, double tolerance, spb_validation *v,
                              char *msg)
{
    if (kernel->supports && !kernel->supports(kernel, c->A, msg))
        return spb_fail(msg, SPB_ERR_DECLINED, "kernel %s cannot run here", kernel->name);
    spb_kernel_config in_field = *config; /* the matrix's field, as a run's rows take it */
    in_field.precision = spb_precision_in_field(config->precision, c->A->complex_values);
    if (run_kernel_declines(kernel, c->A, c->formats.b, c->nnz_c, &in_field, msg) != SPB_OK)
        return SPB_ERR_DECLINED;
    spb_kernel_plan plan = {0};
    spb_status st = kernel->prepare(kernel, &c->formats, &in_field, &plan, msg);
    if (st != SPB_OK) return st;
    spb_row_status status =
        op->product(kernel, plan.state, c, in_field.precision, tolerance, v, msg);
    kernel->release(plan.state);
    if (status == SPB_ROW_ERROR) {
        char why[SPB_MSG_LEN];
        snprintf(why, sizeof why, "%s", msg);
        return spb_fail(msg, SPB_ERR_DEVICE, "%s failed%s%s", kernel->name, why[0] ? ": " : "",
                        why);
    }
    return status == SPB_ROW_WRONG ? SPB_ERR_INVALID : SPB_OK;
}

/* A row with the fields every row of this case shares. */
static void row_start(spb_result *r, const spb_run_opts *opts, spb_precision precision,
                      const char *settings, const spb_case *c, const spb_kernel *kernel,
                      char *row_msg)
{
    result_init(r);
    r->matrix = c->name;
    r->source_id = c->source_id ? c->source_id : "";
    r->operation = opts->op->name;
    r->precision = spb_precision_str(precision);
    r->settings = settings;
    r->measured_under = opts->measured_under ? opts->measured_under : "";
    r->host = opts->host ? opts->host : "";
    r->message = row_msg;
    if (!kernel) return;
    r->kernel = kernel->name;
    r->format = kernel->format;
    r->backend = backend_name(kernel->backend);
    r->tolerance = opts->tolerance; /* the factor on every entry's rounding bound */
}

/* What the progress line says a row measures: its place among the
 * matrix's rows; an OpenMP kernel at its thread count, a distributed one at
 * its ranks (and threads per rank). */
static void describe_run(char *doing, size_t size, int place, int of, const spb_kernel *kernel,
                         const spb_kernel_config *config, const char *sweep)
{
    int threads = config->threads;
    int keep = snprintf(doing, size, "row %d of %d, %s%s%s", place, of, kernel->name,
                        sweep[0] ? ":" : "", sweep);
    if (keep < 0 || (size_t)keep >= size) return;
    if (kernel_over_ranks(kernel))
        snprintf(doing + keep, size - (size_t)keep, " at %d rank%s x %d thread%s", config->ranks,
                 config->ranks == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
    else if (kernel->backend == SPB_BACKEND_OPENMP)
        snprintf(doing + keep, size - (size_t)keep, " at %d thread%s", threads,
                 threads == 1 ? "" : "s");
}

/* The error row of a distributed row about to be measured, kept in
 * opts->in_flight until its own row is written (see run.h). */
static void keep_in_flight(const spb_run_opts *opts, const spb_result *r)
{
    if (!opts->in_flight || !result_over_ranks(r)) return;
    char msg[SPB_MSG_LEN] = "";
    spb_result e = *r;
    e.status = SPB_ROW_ERROR;
    e.message = "a rank ended the job during this row, twice (killed or crashed; mpirun aborted "
                "it)";
    FILE *f = fopen(opts->in_flight, "w");
    if (!f) return;
    report_csv_row(f, opts->in_flight, &e, msg);
    fclose(f);
}

/* Whether the kernel is timed alone, never in turns with other rows (the
 * row says why: core/kernel.h). */
static int timed_alone(const spb_kernel *kernel) { return kernel->timed_alone; }

/* Bounds, figures from the state, then the state released. */
static void release_held(const spb_run_opts *opts, held_row *h)
{
    if (h->r.status == SPB_ROW_OK && opts->op->state_figures)
        opts->op->state_figures(h->kernel, h->state, &h->r);
    if (kernel_over_ranks(h->kernel)) distributed_figures(h->state, &h->r, h->msg);
    h->kernel->release(h->state);
    h->state = NULL;
}

/* The row's prepare and first product; its state is held when it is to be
 * timed, else released. */
/* --max-matrix-s: a row the matrix's time has run out for is skipped, saying
 * so (a long study moves on to the next matrix); 1 when it is. */
static int past_matrix_budget(const spb_case *c, const spb_run_opts *opts, spb_result *r,
                              char *row_msg)
{
    const double spent = timing_now() - c->started;
    if (!(opts->max_matrix_s > 0 && spent > opts->max_matrix_s)) return 0;
    r->status = SPB_ROW_SKIPPED;
    spb_fail(row_msg, SPB_ERR_DECLINED,
             "not measured: the matrix had taken %.3g s, past --max-matrix-s %g", spent,
             opts->max_matrix_s);
    return 1;
}

static void start_row(spb_case *c, held_rows *held, held_row *h, const spb_run_opts *opts)
{
    char doing[160];
    describe_run(doing, sizeof doing, h->place, h->of, h->kernel, &h->config, h->sweep);
    progress_show(opts->out.progress, c->name, doing);
    row_start(&h->r, opts, h->config.precision, h->settings, c, h->kernel, h->msg);
    h->r.sweep = h->sweep;
    h->r.threads = h->config.threads;
    h->r.ranks = h->config.ranks;
    h->r.stats = c->stats;
    h->r.products = c->products;
    h->r.nnz_c = c->nnz_c;
    keep_in_flight(opts, &h->r);
    if (past_matrix_budget(c, opts, &h->r, h->msg)) return;
    spb_kernel_plan plan;
    if (!prepare_kernel(h->kernel, c, &h->config, &plan, &h->r, opts->out.phases, h->msg)) return;
    h->bytes = opts->op->bytes(c, &plan, h->config.precision);
    h->bound = bound_for(h->kernel, opts, h->config.threads, h->bytes, &h->r.in_cache);
    h->state = plan.state;
    if (first_product(h->kernel, h->state, c, h->config.precision, opts, &h->r, h->msg)) {
        held->waiting++;
        h->call = (host_calls){opts->op, h->kernel, h->state, c, h->config.precision, h->msg};
    } else {
        release_held(opts, h);
    }
}

/* Rows that run on the same processors take turns together: the device
 * rows, and the CPU rows at each thread count (a wider row's idle workers,
 * still spinning, would slow a narrower row timed after it). */
static int turn_group(const held_row *h)
{
    return h->kernel->backend == SPB_BACKEND_CUDA ? 0 : h->config.threads;
}

/* Which rows a row ranks against when its noise is weighed (see
 * spb_timed_row): the others of its precision; the rows every other is
 * divided by (the baseline's speedup, the vendor's break-even) in none. */
static int row_contest(const spb_run_opts *opts, const held_row *h)
{
    if (h->kernel == opts->op->baseline || kernel_is_vendor(h->kernel)) return 0;
    return 1 + (int)h->config.precision;
}

/* Times the waiting rows of h's turn group in turns (timed[] and slot[]:
 * room for them); each is validated once more and released, or dropped
 * when a stop cuts the timing short. 1 when it did. */
static int time_group(spb_case *c, held_rows *held, int first, spb_timed_row *timed, int *slot,
                      const spb_run_opts *opts)
{
    int group = turn_group(&held->rows[first]), n = 0;
    for (int i = first; i < held->count; i++) {
        held_row *h = &held->rows[i];
        if (!h->state || turn_group(h) != group) continue;
        slot[n] = i;
        timed[n] =
            h->kernel->time_calls
                ? (spb_timed_row){.time_calls = h->kernel->time_calls,
                                  .ctx = h->state,
                                  .msg = h->msg}
                : (spb_timed_row){.time_calls = time_host_calls, .ctx = &h->call, .msg = h->msg};
        timed[n++].contest = row_contest(opts, h);
    }
    if (n > 1) {
        char doing[96];
        if (group == 0)
            snprintf(doing, sizeof doing, "timing %d device rows in turns", n);
        else
            snprintf(doing, sizeof doing, "timing %d rows at %d thread%s in turns", n, group,
                     group == 1 ? "" : "s");
        progress_show(opts->out.progress, c->name, doing);
    }
    spb_throttle_mark before, after;
    energy_throttle_mark(opts->energy.meters, &before);
    double start = timing_now(), again = 0;
    int stopped = timing_measure_in_turns(timed, n, &opts->timing, run_stop_requested, &again);
    phase_add(opts->out.phases, SPB_PHASE_TIMING, timing_now() - start - again);
    phase_add(opts->out.phases, SPB_PHASE_AGAIN, again);
    energy_throttle_mark(opts->energy.meters, &after);
    /* the energy passes back to back, so that each opens its window where
     * the one before closed */
    spb_energy_edge *edge = opts->energy_edge;
    for (int k = 0; k < n && !stopped; k++) {
        held_row *h = &held->rows[slot[k]];
        /* a row whose calls failed keeps no figures (a first attempt's, say) */
        if (timed[k].status == SPB_OK) h->r.timing = timed[k].timing;
        timed[k].status =
            measure_energy(&opts->energy, opts->out.phases, h, &timed[k], &before, &after, edge,
                           energy_row(&opts->energy, held, slot, timed, n, k));
    }
    for (int k = 0; k < n; k++) {
        held_row *h = &held->rows[slot[k]];
        if (stopped) {
            h->dropped = 1;
        } else {
            spb_status st = after_timing(h->kernel, h->state, c, h->config.precision, opts,
                                         timed[k].status, &h->r, h->msg);
            h->again = st == SPB_ERR_NOMEM && n > 1;
        }
        release_held(opts, h);
    }
    return stopped;
}

static void start_row(spb_case *c, held_rows *held, held_row *h, const spb_run_opts *opts);
static void flush_held(spb_case *c, held_rows *held, const spb_run_opts *opts,
                       spb_run_totals *totals, spb_status *csv_status, char *msg);

/* Empties the list; the rows whose timing ran out of device memory beside
 * the others (held states and the pool their products left) are measured
 * again, each alone, from a fresh prepare, as a row whose prepare fails
 * beside held rows is. */
static void redo_alone(spb_case *c, held_rows *held, const spb_run_opts *opts,
                       spb_run_totals *totals, spb_status *csv_status, char *msg)
{
    int count = held->count;
    held->count = held->waiting = 0;
    for (int i = 0; i < count && *csv_status == SPB_OK && !run_stop_requested(); i++) {
        if (!held->rows[i].again) continue;
        const held_row *was = &held->rows[i];
        held_row again = {
            .kernel = was->kernel, .config = was->config, .place = was->place, .of = was->of};
        held_row *h = &held->rows[held->count++];
        *h = again;
        start_row(c, held, h, opts);
        flush_held(c, held, opts, totals, csv_status, msg); /* alone: never again */
    }
}

/* A speedup no row can have: the row over its own kernel at one thread (a
 * one-process row at more threads, the table's earlier row), or over its
 * own row at one rank (a distributed row, strong scaling), above its count
 * of threads times ranks. The row is marked noisy and its message says by
 * how much: cache effects can do it, and so can a slowed one-thread row,
 * so the reader must know before believing either. */
static void mark_superlinear(const held_rows *held, int i, const spb_run_opts *opts)
{
    held_row *h = &held->rows[i];
    spb_result *r = &h->r;
    if (r->status != SPB_ROW_OK) return;
    double self = NAN;
    if (result_over_ranks(r)) {
        if (!opts->weak && r->ranks > 1) self = r->rank_speedup;
    } else if (r->threads > 1) {
        for (int j = 0; j < i; j++) {
            const spb_result *one = &held->rows[j].r;
            if (one->status == SPB_ROW_OK && one->threads == 1 &&
                strcmp(one->kernel, r->kernel) == 0 && strcmp(one->precision, r->precision) == 0)
                self = one->timing.median / r->timing.median;
        }
    }
    int parallel = r->threads * r->ranks;
    if (!(self > parallel)) return;
    r->timing.noisy = 1;
    spb_appendf(h->msg, sizeof h->msg,
                "%ssuperlinear: %.2fx its own %s on %d thread%s x %d rank%s (cache effects, or "
                "that row slowed)",
                h->msg[0] ? "; " : "", self,
                result_over_ranks(r) ? "row at one rank" : "one-thread row", r->threads,
                r->threads == 1 ? "" : "s", r->ranks, r->ranks == 1 ? "" : "s");
    r->message = h->msg;
}

/* Times the waiting rows, group by group (turn_group), validates each once
 * more and releases it; then writes every held row, in table order, and
 * empties the list. */
static void flush_held(spb_case *c, held_rows *held, const spb_run_opts *opts,
                       spb_run_totals *totals, spb_status *csv_status, char *msg)
{
    size_t n = (size_t)held->waiting;
    spb_timed_row *timed = n ? spb_calloc(n, sizeof *timed) : NULL;
    int *slot = n ? spb_calloc(n, sizeof *slot) : NULL;
    int stopped = 0;
    for (int i = 0; i < held->count; i++) {
        held_row *h = &held->rows[i];
        if (!h->state) continue;
        if (!timed || !slot) { /* no room to time them: each row says so, or tries alone */
            h->r.status = SPB_ROW_ERROR;
            spb_fail(h->msg, SPB_ERR_NOMEM, "out of memory for timing samples");
            h->again = n > 1;
            release_held(opts, h);
        } else if (stopped) {
            h->dropped = 1;
            release_held(opts, h);
        } else if (past_matrix_budget(c, opts, &h->r, h->msg)) { /* its group not timed yet */
            release_held(opts, h);
        } else {
            stopped = time_group(c, held, i, timed, slot, opts);
        }
    }
    spb_free(slot);
    spb_free(timed);
    /* the vendor rows' figures first: the rows before them weigh against
     * the fastest too */
    for (int i = 0; i < held->count; i++)
        if (!held->rows[i].stored && !held->rows[i].dropped && !held->rows[i].again &&
            kernel_is_vendor(held->rows[i].kernel))
            note_reference(c, opts, &held->rows[i].r);
    for (int i = 0; i < held->count; i++) {
        held_row *h = &held->rows[i];
        if (h->stored) {
            replay(opts, totals, h->stored, c, h->sweep, csv_status, msg);
            result_from_csv(&h->r, h->stored->fields, h->stored->count);
            scale_over_ranks(totals, opts, &h->r);
            continue;
        }
        if (h->dropped || h->again) continue;
        /* an error met while the run stops may be the stop's (a plug-in's
         * process stopped with it): left to --resume, never written */
        if (h->r.status == SPB_ROW_ERROR && run_stop_requested()) continue;
        if (h->r.status == SPB_ROW_OK) {
            fill_metrics(c, opts, h->bytes, h->bound, h->config.precision, &h->r);
            break_even(c, h->kernel, h->config.precision, &h->r);
        }
        scale_over_ranks(totals, opts, &h->r);
        mark_superlinear(held, i, opts);
        /* the error row goes before the row is written: a job ended in
         * between loses the row (--resume measures it), never doubles it */
        if (opts->in_flight && kernel_over_ranks(h->kernel)) unlink(opts->in_flight);
        emit(opts, totals, &h->r, csv_status, msg);
        summary_note(&totals->summary, &h->r, kernel_is_vendor(h->kernel));
    }
    redo_alone(c, held, opts, totals, csv_status, msg);
}

/* Whether the memory left can take one more row beside those held: room
 * for a kernel's copy of A in another format, a workspace as large, and
 * its vectors. Held rows take memory page by page as they touch it, and
 * the kernel of this system does not refuse an allocation it cannot back
 * but ends the process later: a run that holds its rows must stop adding
 * to them before that. */
static int room_for_another_row(const spb_case *c)
{
    spb_memory_room room = spb_memory_room_now();
    double need = 2.0 * csr_bytes(c->A) + (double)sizeof(spb_value) * 2.0 * (c->A->m + c->A->n);
    return room.bytes < 0 || room.bytes >= need;
}

/* One row: kernel at config on the case, held (see held_row). When memory
 * runs short, the rows held are timed and written first. A row that fails
 * while other rows hold their states may have failed for want of the
 * memory they hold: they are timed and written first, and the row is tried
 * again alone. */
static void hold_row(spb_case *c, held_rows *held, const spb_plan *plan, int index,
                     const spb_run_opts *opts, spb_run_totals *totals, spb_status *csv_status,
                     char *msg)
{
    const spb_planned_row *p = &plan->rows[index];
    held_row fresh = {
        .kernel = p->kernel, .config = p->config, .place = index + 1, .of = plan->count};
    plan_row_settings(opts, &p->config, fresh.settings, sizeof fresh.settings);
    plan_row_sweep_label(opts, p, fresh.sweep, sizeof fresh.sweep);
    if (held->count && (timed_alone(p->kernel) || (held->waiting && !room_for_another_row(c))))
        flush_held(c, held, opts, totals, csv_status, msg);
    held_row *h = &held->rows[held->count++];
    *h = fresh;
    h->stored = stored_row(opts, c->name, p->kernel->name, &p->config);
    if (!h->stored) start_row(c, held, h, opts);
    if (!h->stored && h->r.status == SPB_ROW_ERROR && held->waiting > 0) {
        held->count--;
        flush_held(c, held, opts, totals, csv_status, msg);
        h = &held->rows[held->count++];
        *h = fresh;
        start_row(c, held, h, opts);
    }
    if (timed_alone(p->kernel)) flush_held(c, held, opts, totals, csv_status, msg);
}

/* The planned rows on one case. Formats are freed after the last row that
 * needs them, once no held row refers to them. */
static spb_status run_case(spb_case *c, const spb_plan *plan, held_rows *held,
                           const spb_run_opts *opts, spb_run_totals *totals, char *msg)
{
    spb_status csv_status = SPB_OK;
    references_from_done(c, opts);
    unsigned formats_after = ~0u; /* the formats the rows still to start need */
    for (int i = 0; i < plan->count && csv_status == SPB_OK && !run_stop_requested(); i++) {
        hold_row(c, held, plan, i, opts, totals, &csv_status, msg);
        if (!plan_kernel_ends(plan, i)) continue;
        formats_after = plan_formats_after(plan, i);
        if (!held->waiting) format_set_keep(&c->formats, formats_after);
    }
    /* after a stop asked for, no row starts, and the rows held are dropped
     * as their timing stops (flush_held): --resume measures them */
    flush_held(c, held, opts, totals, &csv_status, msg);
    format_set_keep(&c->formats, formats_after);
    return csv_status;
}

spb_status run_matrix(const char *source, const char *name, const spb_run_opts *opts,
                      spb_run_totals *totals, char *msg)
{
    char row_msg[SPB_MSG_LEN] = "";
    spb_plan plan;
    spb_status st = plan_build(&plan, opts, row_msg); /* failed: the matrix's error row */
    spb_status replay_status = SPB_OK;
    if (st == SPB_OK && replayed_whole(name, &plan, opts, totals, &replay_status, msg)) {
        plan_free(&plan);
        flush_folded(opts, totals);
        progress_show(opts->out.progress, name, "already in the CSV");
        return replay_status;
    }
    progress_show(opts->out.progress, name, "loading");
    double loading = timing_now();
    spb_csr A = {0};
    char id[SPB_SOURCE_ID_LEN];
    source_id(source, id, sizeof id);
    spb_case c = {
        .name = name, .source_id = id, .A = &A, .operand = opts->operand, .started = loading};
    spb_cache_note cache;
    if (st == SPB_OK) st = source_load_cached(source, opts->cache_dir, &A, &cache, row_msg);
    if (st == SPB_OK && cache.outcome == SPB_CACHE_NOT_STORED)
        fprintf(stderr, "spbench: warning: cache: %s\n", cache.text);
    if (st == SPB_OK) plan_set_field(&plan, A.complex_values); /* the file says, not the request */
    format_set_init(&c.formats, &A);
    if (st == SPB_OK) st = opts->op->case_setup(&c, opts->seed, row_msg);
    phase_add(opts->out.phases, SPB_PHASE_LOAD, timing_now() - loading);
    held_rows held = {0};
    if (st == SPB_OK && !(held.rows = spb_calloc((size_t)plan.count + 1, sizeof *held.rows)))
        st = spb_fail(row_msg, SPB_ERR_NOMEM, "%s: out of memory for its rows", name);
    spb_status csv_status = SPB_OK;
    if (st != SPB_OK) { /* one error row for the matrix; the batch goes on */
        spb_result r;
        char settings[SPB_SETTINGS_LEN];
        plan_row_settings(opts, &opts->config, settings, sizeof settings);
        row_start(&r, opts, plan.first_precision, settings, &c, NULL, row_msg);
        emit(opts, totals, &r, &csv_status, msg);
    } else {
        csr_stats(&A, &c.stats);
        csv_status = run_case(&c, &plan, &held, opts, totals, msg);
        totals->conversions += c.formats.conversions;
    }
    spb_free(held.rows);
    plan_free(&plan);
    format_set_free(&c.formats);
    opts->op->case_free(&c);
    csr_free(&A);
    flush_folded(opts, totals);
    return csv_status;
}
