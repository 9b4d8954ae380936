/* reporter.c — the run's three reporters (see reporter.h). */
#include "bench/report/reporter.h"

#include <string.h>

static void table_flush(spb_reporter *self)
{
    spb_table_reporter *t = (spb_table_reporter *)self;
    for (int k = 0; k < t->count; k++) {
        const spb_fold *f = &t->folds[k];
        char line[2 * SPB_MSG_LEN];
        int keep = snprintf(line, sizeof line, "%-24.24s %d kernel%s skipped", t->matrix, f->count,
                            f->count == 1 ? "" : "s");
        snprintf(line + keep, sizeof line - (size_t)keep, " (%s%s): %s", f->kernels,
                 f->more ? ", ..." : "", f->reason);
        report_table_line(t->out, line, keep);
    }
    t->count = 0;
}

/* Whether the fold's list already names kernel (whole names, not parts:
 * hll.omp.col is not hll.omp.col.pattern). */
static int fold_names(const spb_fold *f, const char *kernel)
{
    size_t len = strlen(kernel);
    for (const char *p = f->kernels; (p = strstr(p, kernel)) != NULL; p += len)
        if ((p == f->kernels || p[-1] == ' ') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

/* Whether r joins a folded line: a skipped row, kept with the others of
 * its matrix skipped for the same reason (the first SPB_FOLD_REASONS
 * reasons; a row beyond them is printed as it comes). */
static int fold(spb_table_reporter *t, const spb_result *r)
{
    if (r->status != SPB_ROW_SKIPPED) return 0;
    if (t->count && strcmp(t->matrix, r->matrix) != 0) table_flush(&t->base);
    snprintf(t->matrix, sizeof t->matrix, "%s", r->matrix);
    spb_fold *f = NULL;
    for (int k = 0; k < t->count && !f; k++)
        if (strcmp(t->folds[k].reason, r->message) == 0) f = &t->folds[k];
    if (!f && t->count == SPB_FOLD_REASONS) return 0;
    if (!f) {
        f = &t->folds[t->count++];
        snprintf(f->reason, sizeof f->reason, "%s", r->message);
        f->kernels[0] = '\0';
        f->count = f->names = f->more = 0;
    }
    f->count++; /* a kernel at several thread counts is one name, listed once */
    if (!fold_names(f, r->kernel) && f->names == SPB_FOLD_NAMES) {
        f->more = 1;
    } else if (!fold_names(f, r->kernel)) {
        spb_appendf(f->kernels, sizeof f->kernels, "%s%s", f->kernels[0] ? ", " : "", r->kernel);
        f->names++;
    }
    return 1;
}

static spb_status table_row(spb_reporter *self, const spb_result *r, spb_row_origin origin,
                            char *msg)
{
    (void)msg;
    spb_table_reporter *t = (spb_table_reporter *)self;
    if (origin == SPB_ORIGIN_KEPT) return SPB_OK; /* the run's table shows the run's rows */
    if (fold(t, r)) return SPB_OK;
    char label[160];
    result_row_label(r, label, sizeof label);
    if ((int)strlen(label) > t->kernel_width) { /* a longer label (a complex matrix's): the
                                                 * column widens, under a header of its own */
        t->kernel_width = (int)strlen(label);
        report_table_header(t->out, t->kernel_width);
    }
    report_table_row(t->out, r, t->kernel_width);
    return SPB_OK;
}

static spb_status csv_row(spb_reporter *self, const spb_result *r, spb_row_origin origin, char *msg)
{
    spb_file_reporter *f = (spb_file_reporter *)self;
    if (origin != SPB_ORIGIN_MEASURED) return SPB_OK;
    f->rows++;
    return report_csv_row(f->out, f->path, r, msg);
}

static spb_status json_row(spb_reporter *self, const spb_result *r, spb_row_origin origin,
                           char *msg)
{
    (void)origin;
    spb_file_reporter *f = (spb_file_reporter *)self;
    return report_json_row(f->out, f->path, r, f->rows++ == 0, msg);
}

static void reporter_table(spb_table_reporter *t, FILE *out, int kernel_width)
{
    *t = (spb_table_reporter){
        .base = {.row = table_row, .flush = table_flush},
        .out = out,
        .kernel_width = kernel_width > REPORT_KERNEL_WIDTH ? kernel_width : REPORT_KERNEL_WIDTH};
}

static void reporter_csv(spb_file_reporter *f, FILE *out, const char *path)
{
    *f = (spb_file_reporter){.base = {.row = csv_row}, .out = out, .path = path};
}

static void reporter_json(spb_file_reporter *f, FILE *out, const char *path)
{
    *f = (spb_file_reporter){.base = {.row = json_row}, .out = out, .path = path};
}

void reporters_begin(spb_reporters *set, FILE *table, int kernel_width, FILE *csv,
                     const char *csv_path, FILE *json, const char *json_path,
                     spb_reporter *const *files, int file_count)
{
    set->count = 0;
    reporter_table(&set->table, table, kernel_width);
    reporter_csv(&set->csv, csv, csv_path);
    reporter_json(&set->json, json, json_path);
    if (table) set->all[set->count++] = &set->table.base;
    if (csv) set->all[set->count++] = &set->csv.base;
    if (json) set->all[set->count++] = &set->json.base;
    for (int k = 0; k < file_count && set->count < SPB_MAX_REPORTERS; k++)
        set->all[set->count++] = files[k];
}

void reporters_row(spb_reporters *set, const spb_result *r, spb_row_origin origin,
                   spb_status *status, char *msg)
{
    for (int k = 0; k < set->count; k++) {
        spb_reporter *rep = set->all[k];
        if (rep == &set->table.base)
            rep->row(rep, r, origin, msg); /* the console never fails the run */
        else if (*status == SPB_OK)
            *status = rep->row(rep, r, origin, msg);
    }
}

void reporters_flush(spb_reporters *set)
{
    for (int k = 0; k < set->count; k++)
        if (set->all[k]->flush) set->all[k]->flush(set->all[k]);
}

int reporters_holding(const spb_reporters *set) { return set->count && set->table.count > 0; }
