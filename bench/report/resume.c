/* resume.c — the rows a results CSV already holds (see resume.h). */
#include "bench/report/resume.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/report/report.h"

#define KEY_SEP     "\x1f" /* cannot occur in names or settings */
#define MAX_COLUMNS REPORT_MAX_COLUMNS

int csv_split(char *line, char **fields, int max)
{
    int count = 0;
    char *p = line;
    while (count < max) {
        char *out = p;
        fields[count++] = out;
        if (*p == '"') {
            p++;
            while (*p) {
                if (*p == '"' && p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    *out++ = *p++;
                }
            }
            while (*p && *p != ',') p++;
        } else {
            while (*p && *p != ',') *out++ = *p++;
        }
        int more = *p == ',';
        *out = '\0';
        if (!more) break;
        p++;
    }
    return count;
}

void resume_key(char *key, size_t size, const spb_row_key *row)
{
    snprintf(key, size,
             "%s" KEY_SEP "%s" KEY_SEP "%s" KEY_SEP "%s" KEY_SEP "%d" KEY_SEP "%d" KEY_SEP "%s",
             row->matrix, row->operation, row->kernel, row->precision, row->threads, row->ranks,
             row->settings);
}

static char *copy_text(const char *text)
{
    size_t len = strlen(text) + 1;
    char *copy = spb_malloc(len, 1);
    if (copy) memcpy(copy, text, len);
    return copy;
}

/* Keeps the row (a copy of the line, split) under its key. */
static spb_status add_row(spb_done_set *done, const char *key, const char *line, char *msg)
{
    if (!spb_grow((void **)&done->rows, &done->cap, done->count, 256, sizeof *done->rows))
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory reading the results CSV");
    spb_done_row row = {copy_text(key), copy_text(line), NULL, 0};
    if (row.line) row.fields = spb_malloc(MAX_COLUMNS, sizeof *row.fields);
    if (!row.key || !row.line || !row.fields) {
        spb_free(row.key);
        spb_free(row.line);
        spb_free(row.fields);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory reading the results CSV");
    }
    row.count = csv_split(row.line, row.fields, MAX_COLUMNS);
    done->rows[done->count++] = row;
    return SPB_OK;
}

static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const spb_done_row *)a)->key, ((const spb_done_row *)b)->key);
}

static int column_index(char **names, int count, const char *name)
{
    for (int k = 0; k < count; k++)
        if (strcmp(names[k], name) == 0) return k;
    return -1;
}

/* Cuts the file after its last newline, dropping a row cut short. It
 * reads through a handle of its own, closed before the rows are read, so
 * no buffered copy of the cut bytes can be read back afterwards. */
static spb_status drop_partial_line(const char *path, char *msg)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return spb_fail(msg, SPB_ERR_IO, "%s: cannot open to resume: %s", path, strerror(errno));
    long keep = 0, at = 0;
    char chunk[1 << 16];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        for (size_t k = 0; k < got; k++)
            if (chunk[k] == '\n') keep = at + (long)k + 1;
        at += (long)got;
    }
    int failed = ferror(f);
    fclose(f);
    if (failed) return spb_fail(msg, SPB_ERR_IO, "%s: cannot read to resume", path);
    if (keep < at && truncate(path, keep) != 0)
        return spb_fail(msg, SPB_ERR_IO, "%s: cannot cut the partial last row: %s", path,
                        strerror(errno));
    return SPB_OK;
}

/* The key columns' places in this version's header. */
enum { MATRIX, OPERATION, KERNEL, PRECISION, THREADS, RANKS, SETTINGS, KEY_COLUMNS };

typedef struct {
    int col[KEY_COLUMNS];
    int last; /* the rightmost of them: a row must reach it */
} key_columns;

/* 0 when the table's header cannot be had (out of memory). */
static int find_key_columns(key_columns *kc)
{
    static const char *const names[KEY_COLUMNS] = {"matrix",  "operation", "kernel",  "precision",
                                                   "threads", "ranks",     "settings"};
    char *header = spb_malloc(strlen(report_csv_columns()) + 1, 1), *columns[MAX_COLUMNS];
    int count = 0;
    if (header) { /* csv_split cuts its copy */
        strcpy(header, report_csv_columns());
        count = csv_split(header, columns, MAX_COLUMNS);
    }
    kc->last = 0;
    for (int k = 0; k < KEY_COLUMNS; k++) {
        kc->col[k] = column_index(columns, count, names[k]);
        if (kc->col[k] > kc->last) kc->last = kc->col[k];
        if (kc->col[k] < 0) count = 0;
    }
    spb_free(header);
    return count > 0;
}

/* One data line (line number `number`, len bytes) into the set. */
static spb_status read_row(const char *path, long number, char *line, size_t len,
                           const key_columns *kc, spb_done_set *done, const char *advice, char *msg)
{
    char *fields[MAX_COLUMNS], whole[1 << 16];
    memcpy(whole, line, len + 1); /* csv_split writes into the line */
    int count = csv_split(line, fields, MAX_COLUMNS);
    char why[SPB_MSG_LEN];
    if (count <= kc->last || !report_csv_row_check(fields, count, why, sizeof why))
        return spb_fail(msg, SPB_ERR_PARSE, "%s:%ld: %s; %s", path, number,
                        count <= kc->last ? "the row is cut short" : why, advice);
    char key[1024];
    spb_row_key row = {fields[kc->col[MATRIX]],        fields[kc->col[OPERATION]],
                       fields[kc->col[KERNEL]],        fields[kc->col[PRECISION]],
                       atoi(fields[kc->col[THREADS]]), atoi(fields[kc->col[RANKS]]),
                       fields[kc->col[SETTINGS]]};
    resume_key(key, sizeof key, &row);
    return add_row(done, key, whole, msg);
}

/* The results file opened for reading after its partial last line is cut
 * off; *f NULL (and SPB_OK) when there is no file yet. */
static spb_status open_to_resume(const char *path, FILE **f, char *msg)
{
    struct stat sb;
    *f = NULL;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT) return SPB_OK;
        return spb_fail(msg, SPB_ERR_IO, "%s: cannot open to resume: %s", path, strerror(errno));
    }
    if (!S_ISREG(sb.st_mode))
        return spb_fail(msg, SPB_ERR_IO,
                        "%s: not a regular file: --resume reads its rows back and appends to it",
                        path);
    spb_status st = drop_partial_line(path, msg);
    if (st == SPB_OK && !(*f = fopen(path, "r")))
        st = spb_fail(msg, SPB_ERR_IO, "%s: cannot open to resume: %s", path, strerror(errno));
    return st;
}

/* Why a header that is not this version's is refused: an older version's
 * (this one's columns up to where it stops) is named with the columns it
 * lacks, which a row cannot be resumed without. */
static spb_status refuse_header(const char *path, const char *line, char *msg)
{
    const char *now = report_csv_columns();
    size_t len = strlen(line);
    if (len > 0 && strncmp(now, line, len) == 0 && now[len] == ',')
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s: its header is an older spbench's: it lacks the columns %.300s; "
                        "finish it with the spbench that began it, or begin a new CSV",
                        path, now + len + 1);
    return spb_fail(msg, SPB_ERR_PARSE,
                    "%s: its header is not this spbench's results header (another "
                    "version's, or not a results CSV)",
                    path);
}

/* The rows of an open results file (its header this version's), sorted,
 * no key twice; `advice` ends a refusal. */
static spb_status read_rows(const char *path, FILE *f, spb_done_set *done, int *has_header,
                            const char *advice, char *msg)
{
    size_t cap = 1 << 16;
    char *line = spb_malloc(cap, 1);
    spb_status st = line ? SPB_OK : spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    key_columns kc;
    if (st == SPB_OK && !find_key_columns(&kc))
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the columns");
    for (long number = 1; st == SPB_OK && fgets(line, (int)cap, f); number++) {
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && !feof(f)) {
            st = spb_fail(msg, SPB_ERR_PARSE, "%s:%ld: line too long", path, number);
            break;
        }
        line[len] = '\0';
        if (number > 1)
            st = read_row(path, number, line, len, &kc, done, advice, msg);
        else if (strcmp(line, report_csv_columns()) == 0)
            *has_header = 1;
        else
            st = refuse_header(path, line, msg);
    }
    spb_free(line);
    if (st != SPB_OK) return st;
    if (done->count > 0) /* qsort's pointer must not be NULL, even for no rows */
        qsort(done->rows, (size_t)done->count, sizeof *done->rows, cmp_row);
    for (int k = 1; k < done->count; k++)
        if (strcmp(done->rows[k - 1].key, done->rows[k].key) == 0)
            return spb_fail(msg, SPB_ERR_PARSE, "%s: a row is there twice (%s %s); %s", path,
                            done->rows[k].fields[0], done->rows[k].fields[1], advice);
    return SPB_OK;
}

spb_status resume_load(const char *path, spb_done_set *done, int *has_header, char *msg)
{
    memset(done, 0, sizeof *done);
    *has_header = 0;
    FILE *f;
    spb_status st = open_to_resume(path, &f, msg);
    if (st != SPB_OK || !f) return st;
    st = read_rows(path, f, done, has_header, "take the row out, or resume into a new CSV", msg);
    fclose(f);
    if (st != SPB_OK) resume_free(done);
    return st;
}

spb_status results_check(const char *path, int *rows, char *msg)
{
    spb_done_set done = {0};
    int has_header = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return spb_fail(msg, SPB_ERR_IO, "%s: %s", path, strerror(errno));
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    int last = size > 0 && fseek(f, -1, SEEK_END) == 0 ? fgetc(f) : '\n';
    spb_status st = SPB_OK;
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0)
        st = spb_fail(msg, SPB_ERR_IO, "%s: not a file that can be read through", path);
    else if (last != '\n')
        st = spb_fail(msg, SPB_ERR_PARSE,
                      "%s: the last row is cut short (no line end): a shard still running or "
                      "killed mid-row; resume it first",
                      path);
    if (st == SPB_OK) st = read_rows(path, f, &done, &has_header, "fix or rerun the shard", msg);
    fclose(f);
    if (st == SPB_OK && !has_header)
        st = spb_fail(msg, SPB_ERR_PARSE, "%s is empty, not a spbench results CSV", path);
    *rows = done.count;
    resume_free(&done);
    return st;
}

const spb_done_row *resume_find(const spb_done_set *done, const char *key)
{
    if (!done || done->count == 0) return NULL;
    spb_done_row probe = {(char *)key, NULL, NULL, 0};
    return bsearch(&probe, done->rows, (size_t)done->count, sizeof *done->rows, cmp_row);
}

int resume_rows_of(const spb_done_set *done, const char *matrix, int *first)
{
    char prefix[SPB_NAME_LEN + 2];
    snprintf(prefix, sizeof prefix, "%s" KEY_SEP, matrix);
    size_t len = strlen(prefix);
    int lo = 0, hi = done ? done->count : 0;
    while (lo < hi) { /* the first key not below the prefix */
        int mid = lo + (hi - lo) / 2;
        if (strcmp(done->rows[mid].key, prefix) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *first = lo;
    int end = lo;
    while (done && end < done->count && strncmp(done->rows[end].key, prefix, len) == 0) end++;
    return end - lo;
}

void resume_free(spb_done_set *done)
{
    for (int k = 0; k < done->count; k++) {
        spb_free(done->rows[k].key);
        spb_free(done->rows[k].line);
        spb_free(done->rows[k].fields);
    }
    spb_free(done->rows);
    memset(done, 0, sizeof *done);
}
