/* report.c — result rows as CSV, JSON and table lines, from one column
 * table that every writer and the reader walk; the JSON document around
 * the rows is json_document.c's. */
#include "bench/report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

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

void result_kernel_label(const char *kernel, const char *precision, char *out, size_t size)
{
    int named = strcmp(precision, spb_precision_str(SPB_FP64)) != 0 && precision[0];
    snprintf(out, size, "%s%s%s", kernel, named ? "/" : "", named ? precision : "");
}

int result_over_ranks(const spb_result *r)
{
    return strcmp(r->backend, backend_name(SPB_BACKEND_MPI)) == 0;
}

void result_init(spb_result *r)
{
    memset(r, 0, sizeof *r);
    r->matrix = r->operation = r->kernel = r->format = r->backend = r->precision = "";
    r->message = r->settings = r->sweep = r->host = r->source_id = r->measured_under = "";
    r->stored_entries = r->prepare_ms = r->tune_ms = r->gflops = r->gbytes_per_s = NAN;
    r->products = r->nnz_c = r->kernel_ms = r->break_even_products = r->device_peak_bytes = NAN;
    r->roofline_frac = r->speedup = r->efficiency = r->bandwidth_gbs = r->tolerance = NAN;
    r->timing.median = r->timing.min = r->timing.max = NAN;
    r->error.abs_l2 = r->error.rel_l2 = r->error.max_abs = NAN;
    r->stats.row_mean = r->stats.row_std = NAN;
    r->in_cache = -1;
    r->capped = -1;
    r->ranks = 1;
    dist_stats_init(&r->dist);
    r->rank_speedup = r->rank_efficiency = NAN;
    energy_init(&r->energy);
    r->gflops_per_watt = NAN;
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

/* How a column is kept in spb_result and written. */
typedef enum {
    COL_TEXT,        /* const char * */
    COL_REAL,        /* double; NAN is empty */
    COL_MS,          /* double seconds, written in milliseconds */
    COL_INT,         /* int, always written */
    COL_COUNT,       /* int, 0 is empty (not measured) */
    COL_FLAG,        /* int, -1 is empty (unknown) */
    COL_INDEX,       /* spb_index of the matrix's statistics, empty when it was not read */
    COL_ENTRIES,     /* spb_offset of the statistics (past 2^31 - 1), empty likewise */
    COL_STATUS,      /* spb_row_status, written as its name */
    COL_SAMPLE_REAL, /* double of the timing, empty when nothing was timed */
    COL_SAMPLE_INT,  /* int of the timing, empty when nothing was timed */
    COL_COMPRESSION, /* products / nnz_c, derived: written, never read back */
    COL_CHARS,       /* char[SPB_THROTTLE_TEXT_LEN] */
    COL_SAMPLES      /* the timing's kept samples, milliseconds separated by spaces */
} column_kind;

typedef struct {
    const char *name;
    column_kind kind;
    size_t offset; /* in spb_result */
    int digits;    /* significant digits of a number */
} column;

#define COL(name, kind, member, digits)                                                            \
    {                                                                                              \
        name, kind, offsetof(spb_result, member), digits                                           \
    }

/* Every column, in CSV order: the one list the CSV and JSON writers and the
 * reader of --resume follow. */
static const column columns[] = {
    COL("matrix", COL_TEXT, matrix, 0),
    COL("kernel", COL_TEXT, kernel, 0),
    COL("format", COL_TEXT, format, 0),
    COL("backend", COL_TEXT, backend, 0),
    COL("threads", COL_INT, threads, COUNT_DIGITS),
    COL("rows", COL_INDEX, stats.rows, COUNT_DIGITS),
    COL("cols", COL_INDEX, stats.cols, COUNT_DIGITS),
    COL("nnz", COL_ENTRIES, stats.nnz, COUNT_DIGITS),
    COL("stored_entries", COL_REAL, stored_entries, COUNT_DIGITS),
    COL("time_ms_median", COL_MS, timing.median, 6),
    COL("time_ms_min", COL_MS, timing.min, 6),
    COL("time_ms_max", COL_MS, timing.max, 6),
    COL("reps", COL_COUNT, timing.samples, COUNT_DIGITS),
    COL("gflops", COL_REAL, gflops, 6),
    COL("gbytes_per_s", COL_REAL, gbytes_per_s, 6),
    COL("roofline_frac", COL_REAL, roofline_frac, 4),
    COL("speedup", COL_REAL, speedup, 4),
    COL("efficiency", COL_REAL, efficiency, 4),
    COL("abs_l2_err", COL_REAL, error.abs_l2, 4),
    COL("rel_l2_err", COL_REAL, error.rel_l2, 4),
    COL("status", COL_STATUS, status, 0),
    COL("message", COL_TEXT, message, 0),
    COL("prepare_ms", COL_REAL, prepare_ms, 6),
    COL("max_abs_err", COL_REAL, error.max_abs, 4),
    COL("tolerance", COL_REAL, tolerance, 2),
    COL("batch", COL_COUNT, timing.batch, COUNT_DIGITS),
    COL("row_len_mean", COL_REAL, stats.row_mean, 4),
    COL("row_len_std", COL_REAL, stats.row_std, 4),
    COL("row_len_max", COL_INDEX, stats.row_max, COUNT_DIGITS),
    COL("empty_rows", COL_INDEX, stats.empty_rows, COUNT_DIGITS),
    COL("bandwidth_gbs", COL_REAL, bandwidth_gbs, 4),
    COL("tune_ms", COL_REAL, tune_ms, 6),
    COL("block_size", COL_COUNT, block_size, COUNT_DIGITS),
    COL("settings", COL_TEXT, settings, 0),
    COL("operation", COL_TEXT, operation, 0),
    COL("precision", COL_TEXT, precision, 0),
    COL("in_cache", COL_FLAG, in_cache, COUNT_DIGITS),
    COL("products", COL_REAL, products, COUNT_DIGITS),
    COL("nnz_c", COL_REAL, nnz_c, COUNT_DIGITS),
    COL("compression", COL_COMPRESSION, products, 4),
    COL("host", COL_TEXT, host, 0),
    COL("kernel_ms", COL_REAL, kernel_ms, 6),
    COL("source_id", COL_TEXT, source_id, 0),
    COL("spread", COL_SAMPLE_REAL, timing.spread, 4),
    COL("noisy", COL_SAMPLE_INT, timing.noisy, COUNT_DIGITS),
    COL("attempts", COL_COUNT, timing.attempts, COUNT_DIGITS),
    COL("ranks", COL_INT, ranks, COUNT_DIGITS),
    COL("rank_speedup", COL_REAL, rank_speedup, 4),
    COL("rank_efficiency", COL_REAL, rank_efficiency, 4),
    COL("compute_ms", COL_MS, dist.compute_s, 6),
    COL("comm_ms", COL_MS, dist.comm_s, 6),
    COL("exchange_ms", COL_MS, dist.exchange_s, 6),
    COL("exchange_gbs", COL_REAL, dist.exchange_gbs, 6),
    COL("bytes_sent_max", COL_REAL, dist.bytes_max, COUNT_DIGITS),
    COL("bytes_sent_mean", COL_REAL, dist.bytes_mean, 6),
    COL("neighbours", COL_REAL, dist.neighbours, COUNT_DIGITS),
    COL("imbalance", COL_REAL, dist.imbalance, 4),
    COL("capped", COL_FLAG, capped, COUNT_DIGITS),
    COL("measured_under", COL_TEXT, measured_under, 0),
    COL("joules_per_product", COL_REAL, energy.joules_per_product, 4),
    COL("watts", COL_REAL, energy.watts, 4),
    COL("gflops_per_watt", COL_REAL, gflops_per_watt, 4),
    COL("sm_clock_mhz", COL_REAL, energy.sm_mhz, COUNT_DIGITS),
    COL("mem_clock_mhz", COL_REAL, energy.mem_mhz, COUNT_DIGITS),
    COL("gpu_temp_c", COL_REAL, energy.temp_c, COUNT_DIGITS),
    COL("throttled", COL_FLAG, energy.throttled, COUNT_DIGITS),
    COL("throttle_reasons", COL_CHARS, energy.reasons, 0),
    COL("break_even_products", COL_REAL, break_even_products, COUNT_DIGITS),
    COL("energy_err", COL_REAL, energy.err, 2),
    COL("device_peak_bytes", COL_REAL, device_peak_bytes, COUNT_DIGITS),
    /* in the CSV too, so a row read back by --resume or merged keeps them */
    COL("samples_ms", COL_SAMPLES, timing.kept, 6),
};

#define COLUMN_COUNT ((int)(sizeof columns / sizeof columns[0]))
_Static_assert(sizeof columns / sizeof columns[0] <= REPORT_MAX_COLUMNS,
               "REPORT_MAX_COLUMNS (report.h) must hold every column: a reader splits by it");
_Static_assert(sizeof(spb_index) == sizeof(int), "COL_INDEX members are read as int");

/* Column c's member of r, read as its kind stores it. */
static double member_real(const spb_result *r, const column *c)
{
    double v;
    memcpy(&v, (const char *)r + c->offset, sizeof v);
    return v;
}

static spb_offset member_entries(const spb_result *r, const column *c)
{
    spb_offset v;
    memcpy(&v, (const char *)r + c->offset, sizeof v);
    return v;
}

static int member_int(const spb_result *r, const column *c)
{
    int v;
    memcpy(&v, (const char *)r + c->offset, sizeof v);
    return v;
}

/* The value of column c of r, as the writers take it. */
static field column_field(const spb_result *r, const column *c)
{
    const double none = NAN;
    int have_rows = r->status != SPB_ROW_ERROR || r->stats.rows || r->stats.cols;
    int sampled = r->timing.samples && r->capped != 1;
    field f = {c->name, NULL, none, c->digits};
    switch (c->kind) {
    case COL_TEXT: memcpy(&f.text, (const char *)r + c->offset, sizeof f.text); break;
    case COL_REAL: f.number = member_real(r, c); break;
    case COL_MS: f.number = member_real(r, c) * 1e3; break;
    case COL_INT: f.number = member_int(r, c); break;
    case COL_COUNT: f.number = member_int(r, c) ? member_int(r, c) : none; break;
    case COL_FLAG: f.number = member_int(r, c) >= 0 ? member_int(r, c) : none; break;
    case COL_INDEX: f.number = have_rows ? member_int(r, c) : none; break;
    case COL_ENTRIES: f.number = have_rows ? (double)member_entries(r, c) : none; break;
    case COL_STATUS: f.text = row_status_str(r->status); break;
    /* a capped row's one sample says nothing of the spread: unknown, not quiet */
    case COL_SAMPLE_REAL: f.number = sampled ? member_real(r, c) : none; break;
    case COL_SAMPLE_INT: f.number = sampled ? member_int(r, c) : none; break;
    case COL_COMPRESSION: f.number = r->nnz_c > 0 ? r->products / r->nnz_c : none; break;
    case COL_CHARS: f.text = (const char *)r + c->offset; break;
    case COL_SAMPLES: break; /* written by write_samples */
    }
    return f;
}

static int row_fields(const spb_result *r, field *fields)
{
    for (int k = 0; k < COLUMN_COUNT; k++) fields[k] = column_field(r, &columns[k]);
    return COLUMN_COUNT;
}

static double number_or_nan(const char *text)
{
    char *end;
    double v = strtod(text, &end);
    return *text && !*end ? v : NAN;
}

/* The kept samples from their CSV text (checked by samples_valid). */
static void read_samples(spb_timing *t, const char *text)
{
    t->kept = 0;
    for (char *end; *text && t->kept < SPB_KEPT_SAMPLES; text = end) {
        double ms = strtod(text, &end);
        if (end == text) break;
        t->kept_s[t->kept++] = (float)(ms / 1e3);
    }
}

/* Whether a samples cell holds at most SPB_KEPT_SAMPLES finite times, not
 * negative, separated by single spaces. */
static int samples_valid(const char *text)
{
    int count = 0;
    for (char *end; *text; text = end + (*end == ' ')) {
        double ms = strtod(text, &end);
        if (end == text || !isfinite(ms) || ms < 0 || (*end && *end != ' ') ||
            ++count > SPB_KEPT_SAMPLES)
            return 0;
    }
    return 1;
}

/* Sets column c of r from its CSV text (text stays owned by the caller). */
static void set_column(spb_result *r, const column *c, char *text)
{
    char *at = (char *)r + c->offset;
    double v = number_or_nan(text);
    int whole = isnan(v) ? 0 : (int)v, flag = isnan(v) ? -1 : whole;
    spb_index index = (spb_index)whole;
    spb_offset entries = isnan(v) ? 0 : (spb_offset)v;
    double seconds = v / 1e3;
    switch (c->kind) {
    case COL_TEXT: memcpy(at, &text, sizeof text); break;
    case COL_REAL:
    case COL_SAMPLE_REAL: memcpy(at, &v, sizeof v); break;
    case COL_MS: memcpy(at, &seconds, sizeof seconds); break;
    case COL_INT:
    case COL_COUNT:
    case COL_SAMPLE_INT: memcpy(at, &whole, sizeof whole); break;
    case COL_FLAG: memcpy(at, &flag, sizeof flag); break;
    case COL_INDEX: memcpy(at, &index, sizeof index); break;
    case COL_ENTRIES: memcpy(at, &entries, sizeof entries); break;
    case COL_STATUS:
        for (int st = SPB_ROW_OK; st <= SPB_ROW_ERROR; st++)
            if (strcmp(text, row_status_str((spb_row_status)st)) == 0) r->status = st;
        break;
    case COL_COMPRESSION: break; /* derived from products and nnz_c */
    case COL_CHARS: snprintf(at, SPB_THROTTLE_TEXT_LEN, "%s", text); break;
    case COL_SAMPLES: read_samples(&r->timing, text); break;
    }
}

int report_csv_row_check(char *const *fields, int count, char *why, size_t size)
{
    if (count != COLUMN_COUNT) {
        snprintf(why, size, "%d fields, the header %d", count, COLUMN_COUNT);
        return 0;
    }
    for (int k = 0; k < count; k++) {
        const column *c = &columns[k];
        const char *text = fields[k];
        for (const char *p = text; *p;) {
            int len = spb_utf8_len(p);
            if (len == 0) {
                snprintf(why, size, "%s holds bytes that are not UTF-8", c->name);
                return 0;
            }
            p += len;
        }
        if (c->kind == COL_TEXT || c->kind == COL_CHARS || (c->kind != COL_STATUS && !*text))
            continue;
        if (c->kind == COL_SAMPLES) {
            if (samples_valid(text)) continue;
            snprintf(why, size, "%s is '%.40s', not times separated by spaces", c->name, text);
            return 0;
        }
        if (c->kind == COL_STATUS) {
            int known = 0;
            for (int st = SPB_ROW_OK; st <= SPB_ROW_ERROR; st++)
                known |= strcmp(text, row_status_str((spb_row_status)st)) == 0;
            if (known) continue;
            snprintf(why, size, "status '%.40s' is none of ok, wrong, skipped, error", text);
            return 0;
        }
        char *end;
        double v = strtod(text, &end);
        int integral = c->kind == COL_INT || c->kind == COL_COUNT || c->kind == COL_FLAG ||
                       c->kind == COL_INDEX || c->kind == COL_ENTRIES || c->kind == COL_SAMPLE_INT;
        if (*end || isinf(v) || (integral && (v != floor(v) || v < -1))) {
            snprintf(why, size, "%s is '%.40s', not a number", c->name, text);
            return 0;
        }
    }
    return 1;
}

void result_from_csv(spb_result *r, char *const *fields, int count)
{
    result_init(r);
    for (int k = 0; k < count && k < COLUMN_COUNT; k++) set_column(r, &columns[k], fields[k]);
}

const char *report_csv_columns(void)
{
    /* made once at the table's length (a fixed buffer was overrun, its
     * length counted past its end, once the names outgrew it) */
    static char *header;
    if (header) return header;
    size_t len = 0;
    for (int k = 0; k < COLUMN_COUNT; k++) len += strlen(columns[k].name) + 1;
    char *made = spb_malloc(len, 1);
    if (!made) return ""; /* no header: the CSV and resume refuse the file, saying so */
    made[0] = '\0';
    for (int k = 0; k < COLUMN_COUNT; k++)
        spb_appendf(made, len, "%s%s", k ? "," : "", columns[k].name);
    return header = made;
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

/* The kept samples in milliseconds, `sep` between them. */
static void write_samples(FILE *f, const spb_timing *t, const char *sep)
{
    for (int k = 0; k < t->kept; k++) fprintf(f, "%s%.6g", k ? sep : "", 1e3 * t->kept_s[k]);
}

spb_status report_csv_row(FILE *csv, const char *path, const spb_result *r, char *msg)
{
    if (!csv) return SPB_OK;
    field fields[COLUMN_COUNT];
    int count = row_fields(r, fields);
    for (int k = 0; k < count; k++) {
        if (k) fputc(',', csv);
        if (columns[k].kind == COL_SAMPLES)
            write_samples(csv, &r->timing, " ");
        else if (fields[k].text)
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
    while (*s) {
        unsigned char c = (unsigned char)*s;
        int len = spb_utf8_len(s);
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else if (len == 0) /* not UTF-8 (a file name's raw bytes in a message) */
            fputc('?', f);
        else
            fwrite(s, 1, (size_t)len, f);
        s += len > 0 ? len : 1;
    }
    fputc('"', f);
}

spb_status report_json_row(FILE *json, const char *path, const spb_result *r, int first, char *msg)
{
    if (!json) return SPB_OK;
    field fields[COLUMN_COUNT];
    int count = row_fields(r, fields);
    fputs(first ? "\n    {" : ",\n    {", json);
    for (int k = 0; k < count; k++) {
        if (columns[k].kind == COL_SAMPLES) { /* an array, and only when there are samples */
            if (r->timing.kept > 0) {
                fprintf(json, ", \"%s\": [", fields[k].name);
                write_samples(json, &r->timing, ", ");
                fputc(']', json);
            }
            continue;
        }
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

/* The kernel column's width: the run's longest label, at least the
 * narrow table's (0: that). */
static int table_kernel_width(int kernel_width)
{
    return kernel_width > REPORT_KERNEL_WIDTH ? kernel_width : REPORT_KERNEL_WIDTH;
}

void report_table_header(FILE *out, int kernel_width)
{
    fprintf(out, "%-24s %-*s %3s %10s %9s %5s %7s %7s %6s %8s  %s\n", "matrix",
            table_kernel_width(kernel_width), "kernel", "thr", "nnz", "median_ms", "sprd", "GFLOPS",
            "GB/s", "roof%", "rel_err", "status");
    fflush(out);
}

/* The width of the terminal `out` writes to, or 0 when it is not one. */
static int terminal_width(FILE *out)
{
    struct winsize size;
    if (!isatty(fileno(out)) || ioctl(fileno(out), TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

void report_table_line(FILE *out, char *line, int keep)
{
    int width = terminal_width(out); /* on a terminal a line is cut to fit; files keep it all */
    if (width > 0 && width < keep + 3) width = keep + 3;
    if (width > 0 && (int)strlen(line) > width) snprintf(line + width - 3, 4, "...");
    fprintf(out, "%s\n", line);
    fflush(out);
}

void result_row_label(const spb_result *r, char *out, size_t size)
{
    result_kernel_label(r->kernel, r->precision, out, size);
    if (result_over_ranks(r)) /* a distributed row at P ranks: kernel@P */
        spb_appendf(out, size, "@%d", r->ranks);
    if (r->sweep && r->sweep[0]) /* one setting of a sweep: kernel:b128 */
        spb_appendf(out, size, ":%s", r->sweep);
}

void report_table_row(FILE *out, const spb_result *r, int kernel_width)
{
    char nnz[32] = "-", median[32] = "-", spread[32] = "-", gflops[32] = "-", gbs[32] = "-",
         roof[32] = "-", rel[32] = "-";
    if (r->stats.rows || r->stats.cols) snprintf(nnz, sizeof nnz, "%lld", (long long)r->stats.nnz);
    if (!isnan(r->timing.median)) snprintf(median, sizeof median, "%.3e", r->timing.median * 1e3);
    /* the interquartile range over the median; a capped row's one sample has none */
    if (r->timing.samples > 1 && r->capped != 1 && !isnan(r->timing.spread))
        snprintf(spread, sizeof spread, "%.*f%%", 100 * r->timing.spread < 9.95 ? 1 : 0,
                 100 * r->timing.spread);
    if (!isnan(r->gflops)) snprintf(gflops, sizeof gflops, "%.3f", r->gflops);
    if (!isnan(r->gbytes_per_s)) snprintf(gbs, sizeof gbs, "%.2f", r->gbytes_per_s);
    if (!isnan(r->roofline_frac)) /* c: served by the cache, so above 100 can happen */
        snprintf(roof, sizeof roof, "%.1f%s", 100 * r->roofline_frac, r->in_cache == 1 ? "c" : "");
    if (!isnan(r->error.rel_l2)) snprintf(rel, sizeof rel, "%.2e", r->error.rel_l2);
    char kernel[160];
    result_row_label(r, kernel, sizeof kernel);
    kernel_width = table_kernel_width(kernel_width);
    /* a noisy row (ok, its time uncertain) says so where its status is
     * read, in a word that keeps the row within 120 columns; its figures
     * come after, where a terminal may cut them */
    const int noisy = r->status == SPB_ROW_OK && r->timing.noisy;
    char noise[96] = "";
    if (noisy)
        snprintf(noise, sizeof noise, "ok, spread %.0f%%, max %.1fx the median, %d attempts%s",
                 100 * r->timing.spread, r->timing.max / r->timing.median, r->timing.attempts,
                 r->message[0] ? "; " : "");
    const char *status = noisy ? "noisy" : row_status_str(r->status);
    char line[2 * SPB_MSG_LEN];
    int keep = snprintf(line, sizeof line, "%-24.24s %-*s %3d %10s %9s %5s %7s %7s %6s %8s  %s",
                        r->matrix, kernel_width, kernel, r->threads, nnz, median, spread, gflops,
                        gbs, roof, rel, status);
    snprintf(line, sizeof line, "%-24.24s %-*s %3d %10s %9s %5s %7s %7s %6s %8s  %s%s%s%s",
             r->matrix, kernel_width, kernel, r->threads, nnz, median, spread, gflops, gbs, roof,
             rel, status, noise[0] || r->message[0] ? ": " : "", noise, r->message);
    report_table_line(out, line, keep); /* the message may be cut, never the status */
}

void row_counts_add(spb_row_counts *to, const spb_row_counts *from)
{
    to->rows += from->rows, to->ok += from->ok, to->wrong += from->wrong;
    to->skipped += from->skipped, to->errors += from->errors, to->resumed += from->resumed;
    to->noisy += from->noisy, to->throttled += from->throttled;
    if (from->cores_max > to->cores_max) to->cores_max = from->cores_max;
}
