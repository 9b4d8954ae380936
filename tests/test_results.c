/* test_results.c — a results CSV written by report.c and read back by
 * resume.c (the column table's round trip): text with commas and quotes
 * comes back as written (a line break as a space: a row is one line), keys
 * find their rows, a row cut by a kill is dropped by resume and refused by
 * merge's check, a key twice and a foreign header are refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/report/report.h"
#include "bench/report/resume.h"
#include "check.h"

static const char *const MESSAGES[] = {"plain", "a, b and \"c\"", "two\nlines"};
/* What they read back as: a row is one line, so a line break becomes a space. */
static const char *const READ_BACK[] = {"plain", "a, b and \"c\"", "two lines"};

static void row(spb_result *r, int k)
{
    result_init(r);
    r->matrix = k == 2 ? "m,2" : "m1";
    r->operation = "spmv";
    r->kernel = k == 1 ? "csr.omp.nnz" : "csr.serial";
    r->format = "csr";
    r->backend = "serial";
    r->precision = "fp64";
    r->host = "h";
    r->source_id = "generated";
    r->settings = "hack_size=32 block_size=auto seed=1";
    r->measured_under = "tol=1e-10";
    r->threads = 1 + k;
    r->ranks = 1;
    r->timing.median = 1.5e-3 * (k + 1);
    r->timing.min = r->timing.max = r->timing.median;
    r->timing.samples = 10;
    r->status = k == 2 ? SPB_ROW_SKIPPED : SPB_ROW_OK;
    r->message = MESSAGES[k];
    r->stats.rows = r->stats.cols = 90000000;
    r->stats.nnz = k == 1 ? 2160000000 : 77; /* past 2^31 - 1: a wide matrix's */
}

/* Writes the header and three rows to path; 1 when all were written. */
static int write_rows(const char *path)
{
    FILE *f = fopen(path, "w");
    char msg[SPB_MSG_LEN] = "";
    int ok = f && report_csv_header(f, path, msg) == SPB_OK;
    for (int k = 0; k < 3 && ok; k++) {
        spb_result r;
        row(&r, k);
        ok = report_csv_row(f, path, &r, msg) == SPB_OK;
    }
    if (f && fclose(f) != 0) ok = 0;
    CHECK(ok, "writing the rows: %s", msg);
    return ok;
}

static const spb_done_row *find(const spb_done_set *done, int k)
{
    spb_result r;
    row(&r, k);
    char key[2048];
    spb_row_key rk = {r.matrix, r.operation, r.kernel, r.precision, r.threads, r.ranks, r.settings};
    resume_key(key, sizeof key, &rk);
    return resume_find(done, key);
}

static void test_round_trip(const char *path)
{
    if (!write_rows(path)) return;
    spb_done_set done = {0};
    int has_header = 0, rows = 0;
    char msg[SPB_MSG_LEN] = "";
    CHECK(resume_load(path, &done, &has_header, msg) == SPB_OK && has_header && done.count == 3,
          "three rows read back (%d): %s", done.count, msg);
    for (int k = 0; k < 3; k++) {
        const spb_done_row *d = find(&done, k);
        CHECK(d != NULL, "row %d found by its key", k);
        if (!d) continue;
        spb_result back;
        result_from_csv(&back, d->fields, d->count);
        CHECK(strcmp(back.message, READ_BACK[k]) == 0, "message %d comes back: '%s'", k,
              back.message);
        CHECK(fabs(back.timing.median - 1.5e-3 * (k + 1)) < 1e-9 && back.threads == 1 + k,
              "row %d: median %g, threads %d", k, back.timing.median, back.threads);
        CHECK(back.stats.nnz == (k == 1 ? 2160000000 : 77), "row %d: nnz %lld comes back", k,
              (long long)back.stats.nnz);
    }
    CHECK(results_check(path, &rows, msg) == SPB_OK && rows == 3, "merge's check: %s", msg);
    resume_free(&done);
}

static void test_cut_row(const char *path)
{
    if (!write_rows(path)) return;
    FILE *f = fopen(path, "a");
    if (f) {
        fputs("m9,csr.serial,csr,serial,1,4", f); /* a kill mid-row: no line end */
        fclose(f);
    }
    char msg[SPB_MSG_LEN] = "";
    int rows = 0, has_header = 0;
    CHECK(results_check(path, &rows, msg) != SPB_OK, "merge refuses a cut last row");
    spb_done_set done = {0};
    CHECK(resume_load(path, &done, &has_header, msg) == SPB_OK && done.count == 3,
          "resume drops the cut row and keeps three: %d (%s)", done.count, msg);
    resume_free(&done);
    CHECK(results_check(path, &rows, msg) == SPB_OK && rows == 3,
          "the file holds whole rows again after resume: %s", msg);
}

static void test_refusals(const char *path)
{
    if (!write_rows(path)) return;
    FILE *f = fopen(path, "a");
    spb_result r;
    row(&r, 0);
    char msg[SPB_MSG_LEN] = "";
    if (f) {
        report_csv_row(f, path, &r, msg);
        fclose(f);
    }
    int rows = 0;
    CHECK(results_check(path, &rows, msg) != SPB_OK && strstr(msg, "twice"),
          "a key twice is refused: %s", msg);
    f = fopen(path, "w");
    if (f) {
        fputs("matrix,kernel,time\nm1,csr.serial,1\n", f);
        fclose(f);
    }
    spb_done_set done = {0};
    int has_header = 0;
    CHECK(resume_load(path, &done, &has_header, msg) != SPB_OK, "a foreign header is refused");
    resume_free(&done);
}

static void test_split(void)
{
    char line[] = "a,\"b, c\",\"say \"\"hi\"\"\",,d";
    char *fields[8];
    int n = csv_split(line, fields, 8);
    CHECK(n == 5 && strcmp(fields[1], "b, c") == 0 && strcmp(fields[2], "say \"hi\"") == 0 &&
              fields[3][0] == '\0' && strcmp(fields[4], "d") == 0,
          "quoted fields, doubled quotes and an empty field: %d fields", n);
}

int main(void)
{
    char path[] = "/tmp/spb_test_results_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return 1;
    close(fd);
    test_round_trip(path);
    test_cut_row(path);
    test_refusals(path);
    test_split();
    unlink(path);
    return check_done();
}
