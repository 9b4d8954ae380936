/* md_reporter.c — run --md: the study as a Markdown table (see reporter.h).
 * The reporter owns its file's whole life: claimed (locked) before anything
 * is measured, written to a temporary file beside it, and put in its place
 * only when the run ends, whole; an ended run that failed, or a stop by a
 * signal, leaves the file it had (or none). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/reporter.h"

/* The reporter: its claim on PATH, the temporary file beside it that
 * becomes PATH at the end (temp empty: not a regular file, written as it
 * goes), and the option that named it (its messages). */
typedef struct {
    spb_reporter base;
    spb_output claim;
    char temp[SPB_PATH_LEN + 64];
    FILE *out; /* NULL: never opened */
    const char *path, *option;
} spb_md_reporter;

/* Text from an input (a matrix's name, a message) as one Markdown table
 * cell: the characters Markdown or HTML would read as markup escaped or
 * written as entities, a line break a space. The one helper for this sink. */
static void md_cell(FILE *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        switch (*p) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '\n':
        case '\r': fputc(' ', out); break;
        case '|':
        case '\\':
        case '`':
        case '*':
        case '_':
        case '[':
        case ']':
        case '#':
            fputc('\\', out);
            fputc(*p, out);
            break;
        default: fputc(*p, out);
        }
    }
}

/* A figure with `decimals` digits after the point (a percentage with
 * `percent`), or "-" where it does not apply (NAN). */
static void md_figure(FILE *out, int decimals, double v, int percent)
{
    if (isnan(v))
        fputs("-", out);
    else
        fprintf(out, "%.*f%s", decimals, v, percent ? "%" : "");
}

static spb_status md_failed(spb_md_reporter *m, char *msg)
{
    return spb_fail(msg, SPB_ERR_IO, "%s %s: write failed: %s", m->option, m->path,
                    strerror(errno));
}

static spb_status md_row(spb_reporter *self, const spb_result *r, spb_row_origin origin, char *msg)
{
    spb_md_reporter *m = (spb_md_reporter *)self;
    if (origin == SPB_ORIGIN_KEPT || !m->out) return SPB_OK; /* the run's rows, as its table */
    char kernel[160];
    result_row_label(r, kernel, sizeof kernel);
    fputs("| ", m->out);
    md_cell(m->out, r->matrix);
    fputs(" | ", m->out);
    md_cell(m->out, kernel);
    fprintf(m->out, " | %s | %d | %d | ", r->precision, r->threads, r->ranks);
    if (isnan(r->timing.median))
        fputs("-", m->out);
    else
        fprintf(m->out, "%.4g", r->timing.median * 1e3);
    fputs(" | ", m->out);
    md_figure(m->out, 1, r->timing.samples > 1 ? 100 * r->timing.spread : NAN, 1);
    fputs(" | ", m->out);
    md_figure(m->out, 3, r->gflops, 0);
    fputs(" | ", m->out);
    md_figure(m->out, 2, r->gbytes_per_s, 0);
    fputs(" | ", m->out);
    md_figure(m->out, 2, r->speedup, 0);
    fprintf(m->out, " | %s", row_status_str(r->status));
    if (r->status != SPB_ROW_OK && r->message[0]) {
        fputs(": ", m->out);
        md_cell(m->out, r->message);
    }
    fputs(" |\n", m->out);
    return ferror(m->out) ? md_failed(m, msg) : SPB_OK;
}

static void md_abort(spb_reporter *self)
{
    spb_md_reporter *m = (spb_md_reporter *)self;
    if (m->out) fclose(m->out);
    if (m->temp[0]) {
        unlink(m->temp);
        spb_temp_done(m->temp);
    }
    output_abandon(&m->claim); /* a file it created and never filled goes too */
    spb_free(m);
}

static spb_status md_end(spb_reporter *self, const spb_row_counts *counts, spb_status run,
                         char *msg)
{
    spb_md_reporter *m = (spb_md_reporter *)self;
    spb_status st = run;
    if (st == SPB_OK) {
        fprintf(m->out, "\n%d rows: %d ok, %d wrong, %d skipped, %d error%s\n", counts->rows,
                counts->ok, counts->wrong, counts->skipped, counts->errors,
                counts->interrupted_by ? "; stopped by a signal before the end" : "");
        if (ferror(m->out)) st = md_failed(m, msg);
    }
    int closed = fclose(m->out) == 0;
    m->out = NULL;
    if (st == SPB_OK && !closed) st = md_failed(m, msg);
    if (st == SPB_OK && m->temp[0] && rename(m->temp, m->path) != 0)
        st = spb_fail(msg, SPB_ERR_IO, "%s %s: cannot put %s in its place: %s", m->option, m->path,
                      m->temp, strerror(errno));
    if (st != SPB_OK) {
        md_abort(self);
        return st;
    }
    if (m->temp[0]) spb_temp_done(m->temp);
    if (m->claim.fd >= 0) close(m->claim.fd);
    spb_free(m);
    return st;
}

spb_reporter *md_reporter_open(const char *path, const char *option, const char *context, char *msg)
{
    spb_md_reporter *m = spb_calloc(1, sizeof *m);
    if (!m) {
        spb_fail(msg, SPB_ERR_NOMEM, "%s %s: out of memory", option, path);
        return NULL;
    }
    *m = (spb_md_reporter){.base = {.row = md_row, .end = md_end, .abort = md_abort},
                           .claim = {.fd = -1},
                           .path = path,
                           .option = option};
    spb_status st = output_claim(&m->claim, path, option, 1, msg);
    if (st == SPB_OK && m->claim.regular) st = spb_temp_path(m->temp, sizeof m->temp, path, msg);
    if (st == SPB_OK)
        m->out = m->claim.regular ? fopen(m->temp, "w") : output_stream(&m->claim, 1, msg);
    if (st == SPB_OK && !m->out) st = md_failed(m, msg);
    if (st == SPB_OK) {
        fputs("# spbench study\n\n", m->out);
        md_cell(m->out, context);
        fputs("\n\n| matrix | kernel | precision | threads | ranks | median ms | spread | GFLOPS | "
              "GB/s | speedup | status |\n"
              "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n",
              m->out);
        if (ferror(m->out)) st = md_failed(m, msg);
    }
    if (st != SPB_OK) {
        md_abort(&m->base);
        return NULL;
    }
    return &m->base;
}
