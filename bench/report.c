/* report.c — CSV and table output of result rows. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <string.h>

const char *row_status_str(spb_row_status status)
{
    switch (status) {
    case SPB_ROW_OK: return "ok";
    case SPB_ROW_WRONG: return "wrong";
    case SPB_ROW_SKIPPED: return "skipped";
    case SPB_ROW_ERROR: return "error";
    }
    return "error";
}

void result_init(spb_result *r)
{
    memset(r, 0, sizeof *r);
    r->matrix = r->kernel = r->format = r->backend = r->message = r->settings = "";
    r->stored_entries = r->prepare_ms = r->tune_ms = r->gflops = r->gbytes_per_s = NAN;
    r->roofline_frac = r->speedup = r->efficiency = r->bandwidth_gbs = r->tolerance = NAN;
    r->timing.median = r->timing.min = r->timing.max = NAN;
    r->error.abs_l2 = r->error.rel_l2 = r->error.max_abs = NAN;
    r->stats.row_mean = r->stats.row_std = NAN;
    r->status = SPB_ROW_ERROR;
}

#define COUNT_DIGITS 17 /* exact for any integer count */

/* One output field of a row: text, or a number with its significant digits
 * (NAN: not applicable, written empty in CSV and null in JSON). */
typedef struct {
    const char *name;
    const char *text; /* NULL for a number */
    double number;
    int digits;
} field;

#define TEXT(n, t)                                                                                 \
    fields[count++] = (field) { n, t, 0, 0 }
#define NUM(n, v, d)                                                                               \
    fields[count++] = (field) { n, NULL, v, d }

/* Every column, in CSV order: the one list both writers follow. */
static int row_fields(const spb_result *r, field *fields)
{
    int count = 0;
    int have_rows = r->status != SPB_ROW_ERROR || r->stats.rows || r->stats.cols;
    TEXT("matrix", r->matrix);
    TEXT("kernel", r->kernel);
    TEXT("format", r->format);
    TEXT("backend", r->backend);
    NUM("threads", r->threads, COUNT_DIGITS);
    NUM("rows", have_rows ? r->stats.rows : NAN, COUNT_DIGITS);
    NUM("cols", have_rows ? r->stats.cols : NAN, COUNT_DIGITS);
    NUM("nnz", have_rows ? r->stats.nnz : NAN, COUNT_DIGITS);
    NUM("stored_entries", r->stored_entries, COUNT_DIGITS);
    NUM("time_ms_median", r->timing.median * 1e3, 6);
    NUM("time_ms_min", r->timing.min * 1e3, 6);
    NUM("time_ms_max", r->timing.max * 1e3, 6);
    NUM("reps", r->timing.samples ? r->timing.samples : NAN, COUNT_DIGITS);
    NUM("gflops", r->gflops, 6);
    NUM("gbytes_per_s", r->gbytes_per_s, 6);
    NUM("roofline_frac", r->roofline_frac, 4);
    NUM("speedup", r->speedup, 4);
    NUM("efficiency", r->efficiency, 4);
    NUM("abs_l2_err", r->error.abs_l2, 4);
    NUM("rel_l2_err", r->error.rel_l2, 4);
    TEXT("status", row_status_str(r->status));
    TEXT("message", r->message);
    NUM("prepare_ms", r->prepare_ms, 6);
    NUM("max_abs_err", r->error.max_abs, 4);
    NUM("tolerance", r->tolerance, 2);
    NUM("batch", r->timing.batch ? r->timing.batch : NAN, COUNT_DIGITS);
    NUM("row_len_mean", r->stats.row_mean, 4);
    NUM("row_len_std", r->stats.row_std, 4);
    NUM("row_len_max", have_rows ? r->stats.row_max : NAN, COUNT_DIGITS);
    NUM("empty_rows", have_rows ? r->stats.empty_rows : NAN, COUNT_DIGITS);
    NUM("bandwidth_gbs", r->bandwidth_gbs, 4);
    NUM("tune_ms", r->tune_ms, 6);
    NUM("block_size", r->block_size ? r->block_size : NAN, COUNT_DIGITS);
    TEXT("settings", r->settings);
    return count;
}

#define MAX_FIELDS 48

const char *report_csv_columns(void)
{
    static char header[1024];
    if (header[0]) return header;
    spb_result r;
    result_init(&r);
    field fields[MAX_FIELDS];
    int count = row_fields(&r, fields);
    size_t len = 0;
    for (int k = 0; k < count; k++)
        len += (size_t)snprintf(header + len, sizeof header - len, "%s%s", k ? "," : "",
                                fields[k].name);
    return header;
}

static void csv_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static spb_status flush_checked(FILE *out, const char *path, char *msg)
{
    if (fflush(out) != 0 || ferror(out))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}

spb_status report_csv_header(FILE *csv, const char *path, char *msg)
{
    if (!csv) return SPB_OK;
    fprintf(csv, "%s\n", report_csv_columns());
    return flush_checked(csv, path, msg);
}

spb_status report_csv_row(FILE *csv, const char *path, const spb_result *r, char *msg)
{
    if (!csv) return SPB_OK;
    field fields[MAX_FIELDS];
    int count = row_fields(r, fields);
    for (int k = 0; k < count; k++) {
        if (k) fputc(',', csv);
        if (fields[k].text)
            csv_text(csv, fields[k].text);
        else if (!isnan(fields[k].number))
            fprintf(csv, "%.*g", fields[k].digits, fields[k].number);
    }
    fputc('\n', csv);
    return flush_checked(csv, path, msg);
}

void report_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

spb_status report_json_row(FILE *json, const char *path, const spb_result *r, int first, char *msg)
{
    if (!json) return SPB_OK;
    field fields[MAX_FIELDS];
    int count = row_fields(r, fields);
    fputs(first ? "\n    {" : ",\n    {", json);
    for (int k = 0; k < count; k++) {
        fprintf(json, "%s\"%s\": ", k ? ", " : "", fields[k].name);
        if (fields[k].text)
            report_json_string(json, fields[k].text);
        else if (isnan(fields[k].number) || isinf(fields[k].number))
            fputs("null", json);
        else
            fprintf(json, "%.*g", fields[k].digits, fields[k].number);
    }
    fputc('}', json);
    return flush_checked(json, path, msg);
}

void report_table_header(FILE *out)
{
    fprintf(out, "%-24s %-22s %3s %10s %10s %8s %8s %6s %9s  %s\n", "matrix", "kernel", "thr",
            "nnz", "median_ms", "GFLOPS", "GB/s", "roof%", "rel_err", "status");
    fflush(out);
}

void report_table_row(FILE *out, const spb_result *r)
{
    char nnz[32] = "-", median[32] = "-", gflops[32] = "-", gbs[32] = "-", roof[32] = "-",
         rel[32] = "-";
    if (r->stats.rows || r->stats.cols) snprintf(nnz, sizeof nnz, "%d", (int)r->stats.nnz);
    if (!isnan(r->timing.median)) snprintf(median, sizeof median, "%.4g", r->timing.median * 1e3);
    if (!isnan(r->gflops)) snprintf(gflops, sizeof gflops, "%.3f", r->gflops);
    if (!isnan(r->gbytes_per_s)) snprintf(gbs, sizeof gbs, "%.2f", r->gbytes_per_s);
    if (!isnan(r->roofline_frac)) snprintf(roof, sizeof roof, "%.1f", 100 * r->roofline_frac);
    if (!isnan(r->error.rel_l2)) snprintf(rel, sizeof rel, "%.2e", r->error.rel_l2);
    fprintf(out, "%-24.24s %-22s %3d %10s %10s %8s %8s %6s %9s  %s%s%s\n", r->matrix, r->kernel,
            r->threads, nnz, median, gflops, gbs, roof, rel, row_status_str(r->status),
            r->message[0] ? ": " : "", r->message);
    fflush(out);
}
