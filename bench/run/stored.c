/* stored.c — what --resume finds already measured: a matrix's rows and
 * references in the CSV, the names the CSV gave its matrices, and a CSV
 * measured under other settings or from other files refused (see
 * run_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "bench/inputs/gen.h"
#include "bench/run/run_internal.h"

typedef struct {
    const char *source_id, *matrix;
} named_source;

/* The row --resume found already measured, or NULL. */
const spb_done_row *stored_row(const spb_run_opts *opts, const char *matrix, const char *kernel,
                               const spb_kernel_config *config)
{
    char key[1024], settings[SPB_SETTINGS_LEN];
    plan_row_settings(opts, config, settings, sizeof settings);
    spb_row_key row = {
        matrix,          opts->op->name, kernel,  spb_precision_str(config->precision),
        config->threads, config->ranks,  settings};
    resume_key(key, sizeof key, &row);
    return resume_find(opts->done, key);
}

/* Whether every planned row of the matrix is already measured (or the
 * matrix failed to load before); if so, replays them all. */
int replayed_whole(const char *name, const spb_plan *plan, const spb_run_opts *opts,
                   spb_run_totals *totals, spb_status *csv_status, char *msg)
{
    if (!opts->done) return 0;
    spb_kernel_config unloaded = opts->config; /* a matrix that failed to load: one row */
    unloaded.precision = plan->first_precision;
    unloaded.threads = 0;
    unloaded.ranks = 1;
    const spb_done_row *failed = stored_row(opts, name, "", &unloaded);
    if (failed) {
        replay(opts, totals, failed, NULL, NULL, csv_status, msg);
        return 1;
    }
    for (int pass = 0; pass < 2; pass++) /* all there? then replay them all */
        for (int i = 0; i < plan->count && *csv_status == SPB_OK; i++) {
            const spb_planned_row *p = &plan->rows[i];
            const spb_done_row *row = stored_row(opts, name, p->kernel->name, &p->config);
            char sweep[64];
            plan_row_sweep_label(opts, p, sweep, sizeof sweep);
            if (pass == 0 && !row) return 0;
            if (pass == 1) replay(opts, totals, row, NULL, sweep, csv_status, msg);
        }
    return 1;
}

/* The baseline's and the vendor rows' figures that --resume found in the
 * CSV, whether or not they are selected now: the speedups and break-even
 * counts of the rows measured now use them. */
void references_from_done(spb_case *c, const spb_run_opts *opts)
{
    for (int k = 0; k < opts->op->kernel_count; k++) {
        const spb_kernel *reference = opts->op->kernels[k];
        if (reference != opts->op->baseline && !kernel_is_vendor(reference)) continue;
        for (int p = 0; p < SPB_PRECISIONS; p++) {
            spb_kernel_config config = plan_first_config(opts, reference, (spb_precision)p);
            const spb_done_row *row = stored_row(opts, c->name, reference->name, &config);
            spb_result r;
            if (!row) continue;
            result_from_csv(&r, row->fields, row->count);
            note_reference(c, opts, &r);
        }
    }
}

static int cmp_named_source(const void *a, const void *b)
{
    return strcmp(((const named_source *)a)->source_id, ((const named_source *)b)->source_id);
}

spb_status run_adopt_names(spb_source_list *list, const spb_done_set *done, char *msg)
{
    if (done->count == 0 || list->count == 0) return SPB_OK;
    named_source *known = spb_malloc((size_t)done->count, sizeof *known);
    const char **pinned = spb_calloc((size_t)list->count, sizeof *pinned);
    char(*ids)[SPB_SOURCE_ID_LEN] = spb_malloc((size_t)list->count, sizeof *ids);
    if (!known || !pinned || !ids) {
        spb_free(known);
        spb_free(pinned);
        spb_free(ids);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the resumed names");
    }
    int count = 0, adopted = 0;
    for (int j = 0; j < done->count; j++) {
        spb_result r;
        result_from_csv(&r, done->rows[j].fields, done->rows[j].count);
        if (r.source_id[0] && strcmp(r.source_id, "generated") != 0)
            known[count++] = (named_source){r.source_id, r.matrix};
    }
    if (count > 0) qsort(known, (size_t)count, sizeof *known, cmp_named_source);
    for (int k = 0; k < list->count && count > 0; k++) {
        if (gen_is_spec(list->items[k])) continue;
        source_id(list->items[k], ids[k], sizeof ids[k]);
        named_source key = {ids[k], NULL};
        const named_source *hit =
            ids[k][0] ? bsearch(&key, known, (size_t)count, sizeof *known, cmp_named_source) : NULL;
        if (hit && strcmp(hit->matrix, list->names[k]) != 0 &&
            source_can_be_named(list->items[k], hit->matrix)) {
            pinned[k] = hit->matrix;
            adopted++;
        }
    }
    spb_status st = adopted ? sources_pin_names(list, pinned, msg) : SPB_OK;
    spb_free(known);
    spb_free(pinned);
    spb_free(ids);
    return st;
}

spb_status run_check_measured(const spb_done_set *done, const char *measured_under,
                              const char *csv_path, char *msg)
{
    for (int j = 0; j < done->count; j++) {
        spb_result r;
        result_from_csv(&r, done->rows[j].fields, done->rows[j].count);
        if (strcmp(r.measured_under, measured_under) == 0) continue;
        return spb_fail(msg, SPB_ERR_INVALID,
                        "%s: its rows were measured under '%s'; this run is '%s': a file would "
                        "state one and hold rows of the other; resume with the same options "
                        "and build of the same commit, or into a new CSV",
                        csv_path, r.measured_under, measured_under);
    }
    return SPB_OK;
}

spb_status run_check_sources(const spb_source_list *list, const spb_done_set *done,
                             const char *csv_path, char *msg)
{
    for (int k = 0; k < list->count; k++) {
        char id[SPB_SOURCE_ID_LEN];
        int first, count = resume_rows_of(done, list->names[k], &first);
        if (count == 0) continue;
        source_id(list->items[k], id, sizeof id);
        for (int j = first; j < first + count; j++) {
            spb_result r;
            const spb_done_row *row = &done->rows[j];
            result_from_csv(&r, row->fields, row->count);
            if (strcmp(r.source_id, id) == 0) continue;
            return spb_fail(msg, SPB_ERR_INVALID,
                            "%s: %s holds %d rows of %s measured from another file, or from "
                            "this one before it changed (%s then; %s now); resume into a new "
                            "CSV, or take those rows out of it",
                            list->items[k], csv_path, count, list->names[k],
                            r.source_id[0] ? r.source_id : "unreadable", id[0] ? id : "unreadable");
        }
    }
    return SPB_OK;
}
