/* report.c — result rows as CSV, JSON and table lines, and the JSON
 * document's header (machine, build, settings) and trailer. */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    r->matrix = r->operation = r->kernel = r->format = r->backend = r->precision = "";
    r->message = r->settings = r->host = r->source_id = "";
    r->stored_entries = r->prepare_ms = r->tune_ms = r->gflops = r->gbytes_per_s = NAN;
    r->products = r->nnz_c = r->kernel_ms = NAN;
    r->roofline_frac = r->speedup = r->efficiency = r->bandwidth_gbs = r->tolerance = NAN;
    r->timing.median = r->timing.min = r->timing.max = NAN;
    r->error.abs_l2 = r->error.rel_l2 = r->error.max_abs = NAN;
    r->stats.row_mean = r->stats.row_std = NAN;
    r->in_cache = -1;
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
    TEXT("operation", r->operation);
    TEXT("precision", r->precision);
    NUM("in_cache", r->in_cache >= 0 ? r->in_cache : NAN, COUNT_DIGITS);
    NUM("products", r->products, COUNT_DIGITS);
    NUM("nnz_c", r->nnz_c, COUNT_DIGITS);
    NUM("compression", r->nnz_c > 0 ? r->products / r->nnz_c : NAN, 4);
    TEXT("host", r->host);
    NUM("kernel_ms", r->kernel_ms, 6);
    TEXT("source_id", r->source_id);
    NUM("spread", r->timing.samples ? r->timing.spread : NAN, 4);
    NUM("noisy", r->timing.samples ? r->timing.noisy : NAN, COUNT_DIGITS);
    NUM("attempts", r->timing.attempts ? r->timing.attempts : NAN, COUNT_DIGITS);
    return count;
}

#define MAX_FIELDS 48

static double number_or_nan(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return *text && !*end ? v : NAN;
}

/* Sets the field called name from its CSV text; unknown names are derived
 * columns (compression) and are ignored. */
static void set_field(spb_result *r, const char *name, char *text)
{
    static const char *const texts[] = {"matrix",  "operation", "kernel",  "format",
                                        "backend", "precision", "message", "settings",
                                        "host",    "source_id"};
    const char **slots[] = {&r->matrix,    &r->operation, &r->kernel,   &r->format, &r->backend,
                            &r->precision, &r->message,   &r->settings, &r->host,   &r->source_id};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++)
        if (strcmp(name, texts[k]) == 0) *slots[k] = text;
    double v = number_or_nan(text);
    int whole = isnan(v) ? 0 : (int)v;
    static const char *const numbers[] = {
        "stored_entries", "gflops",       "gbytes_per_s", "roofline_frac", "speedup",
        "efficiency",     "abs_l2_err",   "rel_l2_err",   "prepare_ms",    "max_abs_err",
        "tolerance",      "row_len_mean", "row_len_std",  "bandwidth_gbs", "tune_ms",
        "products",       "nnz_c",        "kernel_ms"};
    double *values[] = {&r->stored_entries, &r->gflops,        &r->gbytes_per_s, &r->roofline_frac,
                        &r->speedup,        &r->efficiency,    &r->error.abs_l2, &r->error.rel_l2,
                        &r->prepare_ms,     &r->error.max_abs, &r->tolerance,    &r->stats.row_mean,
                        &r->stats.row_std,  &r->bandwidth_gbs, &r->tune_ms,      &r->products,
                        &r->nnz_c,          &r->kernel_ms};
    for (size_t k = 0; k < sizeof numbers / sizeof numbers[0]; k++)
        if (strcmp(name, numbers[k]) == 0) *values[k] = v;
    if (strncmp(name, "time_ms_", 8) == 0) { /* seconds inside, milliseconds in the file */
        double *t = strcmp(name, "time_ms_median") == 0 ? &r->timing.median
                    : strcmp(name, "time_ms_min") == 0  ? &r->timing.min
                                                        : &r->timing.max;
        *t = v / 1e3;
    }
    if (strcmp(name, "spread") == 0) r->timing.spread = v;
    static const char *const ints[] = {"threads",    "reps",  "batch",
                                       "block_size", "noisy", "attempts"};
    int *counts[] = {&r->threads,    &r->timing.samples, &r->timing.batch,
                     &r->block_size, &r->timing.noisy,   &r->timing.attempts};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        if (strcmp(name, ints[k]) == 0) *counts[k] = whole;
    static const char *const sizes[] = {"rows", "cols", "nnz", "row_len_max", "empty_rows"};
    spb_index *stats[] = {&r->stats.rows, &r->stats.cols, &r->stats.nnz, &r->stats.row_max,
                          &r->stats.empty_rows};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (strcmp(name, sizes[k]) == 0) *stats[k] = (spb_index)whole;
    if (strcmp(name, "in_cache") == 0) r->in_cache = isnan(v) ? -1 : whole;
    if (strcmp(name, "status") == 0)
        for (int st = SPB_ROW_OK; st <= SPB_ROW_ERROR; st++)
            if (strcmp(text, row_status_str((spb_row_status)st)) == 0) r->status = st;
}

void result_from_csv(spb_result *r, char *const *fields, int count)
{
    result_init(r);
    spb_result names;
    result_init(&names);
    field columns[MAX_FIELDS];
    int known = row_fields(&names, columns);
    for (int k = 0; k < count && k < known; k++) set_field(r, columns[k].name, fields[k]);
}

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
    if (!isnan(r->timing.median)) snprintf(median, sizeof median, "%.3e", r->timing.median * 1e3);
    if (!isnan(r->gflops)) snprintf(gflops, sizeof gflops, "%.3f", r->gflops);
    if (!isnan(r->gbytes_per_s)) snprintf(gbs, sizeof gbs, "%.2f", r->gbytes_per_s);
    if (!isnan(r->roofline_frac)) snprintf(roof, sizeof roof, "%.1f", 100 * r->roofline_frac);
    if (!isnan(r->error.rel_l2)) snprintf(rel, sizeof rel, "%.2e", r->error.rel_l2);
    char kernel[128]; /* fp64 is the default: other precisions are named */
    snprintf(kernel, sizeof kernel, "%s%s%s", r->kernel,
             strcmp(r->precision, "fp32") == 0 ? "/" : "",
             strcmp(r->precision, "fp32") == 0 ? r->precision : "");
    char status[96]; /* a noisy row says so where its status is read */
    snprintf(status, sizeof status, "%s", row_status_str(r->status));
    if (r->status == SPB_ROW_OK && r->timing.noisy)
        snprintf(status, sizeof status,
                 "ok, noisy (spread %.0f%%, max %.1fx the median, %d "
                 "attempts)",
                 100 * r->timing.spread, r->timing.max / r->timing.median, r->timing.attempts);
    fprintf(out, "%-24.24s %-22s %3d %10s %10s %8s %8s %6s %9s  %s%s%s\n", r->matrix, kernel,
            r->threads, nnz, median, gflops, gbs, roof, rel, status, r->message[0] ? ": " : "",
            r->message);
    fflush(out);
}

/* ---- the JSON document ---------------------------------------------------------- */

#define SPB_JSON_FORMAT_VERSION 1

/* __VERSION__ alone is a bare number under gcc ("12.2.0"): name the compiler. */
#if defined(__clang__)
#define SPB_COMPILER_NAME "clang"
#elif defined(__GNUC__)
#define SPB_COMPILER_NAME "gcc"
#else
#define SPB_COMPILER_NAME "cc"
#endif

/* The CPU model from /proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

/* "spbench": the build. */
static void json_build(FILE *j, const spb_json_header *h)
{
    fprintf(j, "  \"spbench\": {\"version\": \"%s\", \"git_commit\": \"%s\", \"compiler\": ",
            h->version, h->git_commit);
    report_json_string(j, SPB_COMPILER_NAME " " __VERSION__);
    fprintf(j, ", \"cuda_compiled\": %s},\n", gpu_compiled() ? "true" : "false");
}

static void json_stat(FILE *j, const char *name, const spb_bw_stat *s)
{
    fprintf(j, "\"%s\": {\"best\": %.4g, \"median\": %.4g, \"worst\": %.4g, \"trials\": %d}", name,
            s->best, s->median, s->worst, s->trials);
}

/* "bandwidth": every measured figure with its spread, how many times the
 * set was measured and over how many seconds. */
static void json_bandwidth(FILE *j, const spb_roofline *r)
{
    fprintf(j, "\"bandwidth\": {\"measurements\": %d, \"span_s\": %.1f, \"cpu\": {",
            r->measurements, r->last_at - r->first_at);
    for (int k = 0; k < r->cpu_count; k++) {
        fprintf(j, "%s\"%d\": {", k ? ", " : "", r->cpu[k].threads);
        json_stat(j, "read", &r->cpu[k].read);
        fputs(", ", j);
        json_stat(j, "triad", &r->cpu[k].triad);
        fprintf(j, ", \"roofline\": %.4g}", roofline_cpu(r, r->cpu[k].threads));
    }
    fputs("}, \"gpu\": ", j);
    if (r->gpu) {
        fputc('{', j);
        json_stat(j, "read", &r->gpu_read);
        fputs(", ", j);
        json_stat(j, "copy", &r->gpu_copy);
        fprintf(j, ", \"roofline\": %.4g}", roofline_gpu(r));
    } else {
        fputs("null", j);
    }
    fputc('}', j);
}

/* "machine": CPU model, cores, cache and bounds; the GPU or why there is none. */
static void json_machine(FILE *j, const spb_json_header *h)
{
    const spb_roofline *r = h->roofline;
    char model[256];
    cpu_model(model, sizeof model);
    fprintf(j, "  \"machine\": {\n    \"cpu_model\": ");
    report_json_string(j, model);
    fprintf(j, ",\n    \"cpu_cores\": %d,\n    \"cpu_llc_bytes\": %.0f,\n", omp_get_num_procs(),
            r->cpu_llc_bytes);
    fputs("    \"cpu_bandwidth_gbs\": {", j);
    for (int k = 0; k < r->cpu_count; k++)
        fprintf(j, "%s\"%d\": %.4g", k ? ", " : "", r->cpu[k].threads,
                roofline_cpu(r, r->cpu[k].threads));
    fprintf(j, "},\n    \"gpu\": ");
    const spb_gpu_info *gpu = h->gpu;
    if (gpu) {
        fprintf(j, "{\"name\": ");
        report_json_string(j, gpu->name);
        fprintf(j,
                ", \"sm_count\": %d, \"compute_capability\": \"%d.%d\", \"memory_bytes\": %.0f, "
                "\"l2_bytes\": %.0f, \"driver_version\": %d, \"runtime_version\": %d, "
                "\"copy_bandwidth_gbs\": %.4g, \"roofline_gbs\": %.4g}",
                gpu->sm_count, gpu->cc_major, gpu->cc_minor, gpu->memory_bytes, gpu->l2_bytes,
                gpu->driver_version, gpu->runtime_version, r->gpu_copy.best, roofline_gpu(r));
    } else {
        fprintf(j, "{\"name\": null, \"reason\": ");
        report_json_string(j, h->gpu_reason);
        fputc('}', j);
    }
    fputs(",\n    ", j);
    json_bandwidth(j, r);
    fprintf(j, "\n  },\n");
}

/* A number, or null when negative (not measured here). */
static void json_number_or_null(FILE *j, double v)
{
    if (v < 0)
        fputs("null", j);
    else
        fprintf(j, "%.2f", v);
}

spb_status report_json_begin(FILE *j, const char *path, const spb_json_header *h, char *msg)
{
    if (!j) return SPB_OK;
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(j, "{\n  \"format\": \"spbench-results\",\n  \"format_version\": %d,\n",
            SPB_JSON_FORMAT_VERSION);
    json_build(j, h);
    fprintf(j, "  \"date\": \"%s\",\n", date);
    json_machine(j, h);
    fprintf(j, "  \"settings\": {\"operation\": \"%s\", \"precision\": \"%s\", \"row_key\": ",
            h->operation, h->precision);
    report_json_string(j, h->settings);
    fprintf(j,
            ", \"kernels\": \"%s\", \"warmup\": %d, \"min_samples\": %d, \"min_time_s\": %g, "
            "\"tolerance\": %g, \"matrices\": %d},\n  \"columns\": ",
            h->kernels ? h->kernels : "*", h->timing.warmup, h->timing.min_samples,
            h->timing.min_time, h->tolerance, h->matrices);
    report_json_string(j, report_csv_columns());
    if (h->load) {
        fprintf(j,
                ",\n  \"load_before\": {\"cores\": %d, \"load_average\": %.2f, "
                "\"cpu_pressure_percent\": ",
                h->load->cores, h->load->load_before);
        json_number_or_null(j, h->load->pressure_before);
        fprintf(j, ", \"bandwidth_spread\": %.4f}", h->load->bandwidth_spread);
    }
    fprintf(j, ",\n  \"rows\": [");
    if (fflush(j) != 0 || ferror(j))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}

/* The trailer's noise record: noisy rows and how busy the machine was. */
static void json_noise(FILE *j, const spb_row_counts *n, const spb_machine_load *load)
{
    fprintf(j, "\"noise\": {\"noisy_rows\": %d", n->noisy);
    if (load) {
        char why[512];
        int busy = machine_load_busy(load, why, sizeof why);
        fprintf(j, ", \"busy\": %s, \"why\": ", busy ? "true" : "false");
        report_json_string(j, why);
        fprintf(j, ", \"load_average_max\": %.2f, \"cpu_pressure_percent_max\": ", load->load_max);
        json_number_or_null(j, load->pressure_max);
    }
    fputs("},\n  ", j);
}

spb_status report_json_end(FILE *json, const char *path, const spb_row_counts *n,
                           const spb_roofline *roofline, const spb_machine_load *load, char *msg)
{
    if (!json) return SPB_OK;
    fprintf(json,
            "\n  ],\n  \"totals\": {\"rows\": %d, \"ok\": %d, \"wrong\": %d, \"skipped\": %d, "
            "\"error\": %d, \"already_in_csv\": %d},\n  \"interrupted\": ",
            n->rows, n->ok, n->wrong, n->skipped, n->errors, n->resumed);
    if (n->interrupted_by)
        fprintf(json,
                "{\"signal\": %d, \"note\": \"stopped early: the rows are those measured "
                "before it; --resume continues\"},\n  ",
                n->interrupted_by);
    else
        fputs("false,\n  ", json);
    json_noise(json, n, load);
    json_bandwidth(json, roofline); /* after the re-measurements of a long run */
    fputs("\n}\n", json);
    if (fflush(json) != 0 || ferror(json))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}
