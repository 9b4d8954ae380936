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
    r->matrix = r->kernel = r->format = r->backend = r->message = "";
    r->stored_entries = r->prepare_ms = r->tune_ms = r->gflops = r->gbytes_per_s = NAN;
    r->roofline_frac = r->speedup = r->efficiency = r->bandwidth_gbs = r->tolerance = NAN;
    r->timing.median = r->timing.min = r->timing.max = NAN;
    r->error.abs_l2 = r->error.rel_l2 = r->error.max_abs = NAN;
    r->stats.row_mean = r->stats.row_std = NAN;
    r->status = SPB_ROW_ERROR;
}

#define COUNT_DIGITS 17 /* exact for any integer count */

static const char *const csv_columns =
    "matrix,kernel,format,backend,threads,rows,cols,nnz,stored_entries,"
    "time_ms_median,time_ms_min,time_ms_max,reps,gflops,gbytes_per_s,roofline_frac,"
    "speedup,efficiency,abs_l2_err,rel_l2_err,status,message,"
    "prepare_ms,max_abs_err,tolerance,batch,row_len_mean,row_len_std,row_len_max,"
    "empty_rows,bandwidth_gbs,tune_ms,block_size";

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

/* ",value" with `digits` significant digits; empty when NAN. */
static void csv_number(FILE *f, double v, int digits)
{
    fputc(',', f);
    if (!isnan(v)) fprintf(f, "%.*g", digits, v);
}

static spb_status flush_checked(FILE *csv, const char *path, char *msg)
{
    if (fflush(csv) != 0 || ferror(csv))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}

spb_status report_csv_header(FILE *csv, const char *path, char *msg)
{
    if (!csv) return SPB_OK;
    fprintf(csv, "%s\n", csv_columns);
    return flush_checked(csv, path, msg);
}

spb_status report_csv_row(FILE *csv, const char *path, const spb_result *r, char *msg)
{
    if (!csv) return SPB_OK;
    int have_rows = r->status != SPB_ROW_ERROR || r->stats.rows || r->stats.cols;
    csv_text(csv, r->matrix);
    fputc(',', csv);
    csv_text(csv, r->kernel);
    fprintf(csv, ",%s,%s,%d", r->format, r->backend, r->threads);
    csv_number(csv, have_rows ? r->stats.rows : NAN, COUNT_DIGITS);
    csv_number(csv, have_rows ? r->stats.cols : NAN, COUNT_DIGITS);
    csv_number(csv, have_rows ? r->stats.nnz : NAN, COUNT_DIGITS);
    csv_number(csv, r->stored_entries, COUNT_DIGITS);
    csv_number(csv, r->timing.median * 1e3, 6);
    csv_number(csv, r->timing.min * 1e3, 6);
    csv_number(csv, r->timing.max * 1e3, 6);
    csv_number(csv, r->timing.samples ? r->timing.samples : NAN, COUNT_DIGITS);
    csv_number(csv, r->gflops, 6);
    csv_number(csv, r->gbytes_per_s, 6);
    csv_number(csv, r->roofline_frac, 4);
    csv_number(csv, r->speedup, 4);
    csv_number(csv, r->efficiency, 4);
    csv_number(csv, r->error.abs_l2, 4);
    csv_number(csv, r->error.rel_l2, 4);
    fprintf(csv, ",%s,", row_status_str(r->status));
    csv_text(csv, r->message);
    csv_number(csv, r->prepare_ms, 6);
    csv_number(csv, r->error.max_abs, 4);
    csv_number(csv, r->tolerance, 2);
    csv_number(csv, r->timing.batch ? r->timing.batch : NAN, COUNT_DIGITS);
    csv_number(csv, r->stats.row_mean, 4);
    csv_number(csv, r->stats.row_std, 4);
    csv_number(csv, have_rows ? r->stats.row_max : NAN, COUNT_DIGITS);
    csv_number(csv, have_rows ? r->stats.empty_rows : NAN, COUNT_DIGITS);
    csv_number(csv, r->bandwidth_gbs, 4);
    csv_number(csv, r->tune_ms, 6);
    csv_number(csv, r->block_size ? r->block_size : NAN, COUNT_DIGITS);
    fputc('\n', csv);
    return flush_checked(csv, path, msg);
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
