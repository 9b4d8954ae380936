/* emit.c — the rows a run writes: each handed to its reporters (the table,
 * the CSV, the JSON: bench/report/reporter.h), the references other rows are divided by
 * (the baseline's speedup, the vendor's break-even), rows read back by
 * --resume, the scaling over ranks, the progress line and the run's
 * totals (see run_internal.h). */
#include <math.h>
#include <string.h>

#include "bench/run/run_internal.h"

/* Writes what the reporters hold (the table's folded skips of the matrix
 * that ended), after the live progress line. */
void flush_folded(const spb_run_opts *opts, spb_run_totals *totals)
{
    if (!reporters_holding(&totals->reporters)) return;
    progress_finish(opts->out.progress);
    reporters_flush(&totals->reporters);
}

/* A row into the reporters and into the tallies (a kept row's apart): a
 * row read back by --resume goes to the JSON but not again to the CSV, a
 * kept one (not selected by this run) to the JSON only. */
static void emit_row(const spb_run_opts *opts, spb_run_totals *totals, const spb_result *r,
                     spb_row_origin origin, spb_status *csv_status, char *msg)
{
    if (origin != SPB_ORIGIN_KEPT)
        progress_finish(opts->out.progress); /* the row replaces the live progress line */
    if (!totals->reporters.count)
        reporters_begin(&totals->reporters, opts->out.table, opts->out.kernel_width, opts->out.csv,
                        opts->out.csv_path, opts->out.json, opts->out.json_path, opts->out.files,
                        opts->out.file_count);
    reporters_row(&totals->reporters, r, origin, csv_status, msg);
    spb_row_counts *n = origin == SPB_ORIGIN_KEPT ? &totals->kept : &totals->counts;
    n->rows++;
    n->resumed += origin != SPB_ORIGIN_MEASURED;
    n->noisy += r->status == SPB_ROW_OK && r->timing.noisy;
    n->throttled += r->status == SPB_ROW_OK && r->energy.throttled == 1;
    if (origin == SPB_ORIGIN_MEASURED && opts->out.machine) machine_load_sample(opts->out.machine);
    n->ok += r->status == SPB_ROW_OK;
    n->wrong += r->status == SPB_ROW_WRONG;
    n->skipped += r->status == SPB_ROW_SKIPPED;
    n->errors += r->status == SPB_ROW_ERROR;
    const int cores = (r->threads > 0 ? r->threads : 1) * (r->ranks > 0 ? r->ranks : 1);
    if (cores > n->cores_max) n->cores_max = cores;
}

void emit(const spb_run_opts *opts, spb_run_totals *totals, const spb_result *r,
          spb_status *csv_status, char *msg)
{
    emit_row(opts, totals, r, SPB_ORIGIN_MEASURED, csv_status, msg);
}

/* Keeps an ok row of the operation's baseline, or a vendor row faster than
 * those before it: the speedups and break-even counts of the rows after it
 * use its figures. */
void note_reference(spb_case *c, const spb_run_opts *opts, const spb_result *r)
{
    if (r->status != SPB_ROW_OK) return;
    spb_precision p;
    if (!spb_precision_parse(r->precision, &p)) return;
    if (strcmp(r->kernel, opts->op->baseline->name) == 0) c->baseline_seconds[p] = r->timing.median;
    const spb_kernel *kernel = operation_kernel(opts->op, r->kernel);
    if (kernel && kernel_is_vendor(kernel) &&
        (!c->vendor_kernel[p] || r->timing.median < c->vendor_seconds[p])) {
        c->vendor_kernel[p] = kernel->name;
        c->vendor_seconds[p] = r->timing.median;
        c->vendor_prepare_s[p] = r->prepare_ms / 1e3;
    }
}

/* A device row faster than the fastest vendor row of its matrix: the
 * products after which its costlier prepare has paid for itself (ISpMV's
 * measure), 0 when it costs no more. */
void break_even(const spb_case *c, const spb_kernel *kernel, spb_precision precision, spb_result *r)
{
    double vendor_t = c->vendor_seconds[precision], vendor_p = c->vendor_prepare_s[precision];
    double t = r->timing.median, p = r->prepare_ms / 1e3;
    if (kernel->backend != SPB_BACKEND_CUDA || kernel_is_vendor(kernel) ||
        !c->vendor_kernel[precision] || !(t < vendor_t) || isnan(p))
        return;
    r->break_even_products = p <= vendor_p ? 0 : ceil((p - vendor_p) / (vendor_t - t));
}

/* A row --resume found in the CSV, reported as if measured now: in the
 * JSON, the table, the tallies and the summary, and as the speedup
 * baseline or vendor figures of the rows still to measure (c may be
 * NULL). */
void replay(const spb_run_opts *opts, spb_run_totals *totals, const spb_done_row *row, spb_case *c,
            const char *sweep, spb_status *csv_status, char *msg)
{
    spb_result r;
    result_from_csv(&r, row->fields, row->count);
    if (sweep) r.sweep = sweep;
    totals->replayed[row - opts->done->rows] = 1;
    emit_row(opts, totals, &r, SPB_ORIGIN_RESUMED, csv_status, msg);
    const spb_kernel *kernel = operation_kernel(opts->op, r.kernel);
    summary_note(&totals->summary, &r, kernel && kernel_is_vendor(kernel));
    if (c) note_reference(c, opts, &r);
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

spb_status run_totals_begin(const spb_run_opts *opts, spb_run_totals *totals, char *msg)
{
    memset(totals, 0, sizeof *totals);
    if (!opts->done || opts->done->count == 0) return SPB_OK;
    totals->replayed = spb_calloc((size_t)opts->done->count, 1);
    return totals->replayed ? SPB_OK
                            : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the resumed rows");
}

spb_status run_replay_rest(const spb_run_opts *opts, spb_run_totals *totals, char *msg)
{
    spb_status st = SPB_OK;
    for (int k = 0; opts->done && k < opts->done->count && st == SPB_OK; k++) {
        if (totals->replayed[k]) continue;
        spb_result r;
        result_from_csv(&r, opts->done->rows[k].fields, opts->done->rows[k].count);
        totals->replayed[k] = 1;
        emit_row(opts, totals, &r, SPB_ORIGIN_KEPT, &st, msg);
    }
    if (totals->kept.rows && opts->out.table)
        fprintf(opts->out.table,
                "# %d row%s of %s this run did not select (other operations, kernels or settings) "
                "stay in it%s, as they were; this table and its summary are this run's\n",
                totals->kept.rows, totals->kept.rows == 1 ? "" : "s", opts->out.csv_path,
                opts->out.json_path ? " and join the JSON" : "");
    return st;
}

void run_totals_free(spb_run_totals *totals)
{
    spb_free(totals->replayed);
    totals->replayed = NULL;
    spb_free(totals->one_rank.at);
    totals->one_rank.at = NULL;
    totals->one_rank.count = totals->one_rank.cap = 0;
    summary_free(&totals->summary);
}

/* The one-rank time of r's matrix, kernel, threads and precision, or
 * NULL; with `add`, a new entry when there is none. */
static spb_one_rank *one_rank_of(spb_run_totals *totals, const spb_result *r, int add)
{
    for (int k = 0; k < totals->one_rank.count; k++) {
        spb_one_rank *o = &totals->one_rank.at[k];
        if (o->threads == r->threads && strcmp(o->matrix, r->matrix) == 0 &&
            strcmp(o->kernel, r->kernel) == 0 && strcmp(o->precision, r->precision) == 0)
            return o;
    }
    if (!add) return NULL;
    if (!spb_grow((void **)&totals->one_rank.at, &totals->one_rank.cap, totals->one_rank.count, 32,
                  sizeof *totals->one_rank.at))
        return NULL; /* the rows stay right; only their scaling is left empty */
    spb_one_rank *o = &totals->one_rank.at[totals->one_rank.count++];
    snprintf(o->matrix, sizeof o->matrix, "%s", r->matrix);
    snprintf(o->kernel, sizeof o->kernel, "%s", r->kernel);
    snprintf(o->precision, sizeof o->precision, "%s", r->precision);
    o->threads = r->threads;
    return o;
}

/* A distributed row against the same row at one rank (measured before it:
 * ranks ascend). Strong scaling: speedup t1/tP, efficiency speedup / P.
 * Weak scaling (the matrix grows with P): efficiency t1/tP, speedup P times
 * it (the scaled speedup). */
void scale_over_ranks(spb_run_totals *totals, const spb_run_opts *opts, spb_result *r)
{
    if (!result_over_ranks(r) || r->status != SPB_ROW_OK) return;
    spb_one_rank *one = one_rank_of(totals, r, r->ranks == 1);
    if (!one) return;
    if (r->ranks == 1) one->seconds = r->timing.median;
    double ratio = one->seconds / r->timing.median;
    r->rank_speedup = opts->weak ? ratio * r->ranks : ratio;
    r->rank_efficiency = opts->weak ? ratio : ratio / r->ranks;
}
