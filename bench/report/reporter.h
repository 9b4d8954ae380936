/* reporter.h — where a run's rows go. The run hands every row to each of
 * its reporters and knows no format (google/benchmark's runner/reporter
 * split); each reporter writes its own: the console table (skipped rows
 * folded, a line per reason and matrix), the CSV, the JSON's rows. The
 * files' opening, headers and trailers stay with the command that owns
 * them (bench/cli/run_outputs.c). */
#ifndef SPB_REPORTER_H
#define SPB_REPORTER_H

#include <stdio.h>

#include "bench/report/output_file.h"
#include "bench/report/report.h"

/* Where a row comes from: measured now; read back by --resume as one this
 * run selected (the CSV holds it already); or read back and not selected
 * (another operation, kernel or setting of the study): kept in the files,
 * not shown. */
typedef enum { SPB_ORIGIN_MEASURED, SPB_ORIGIN_RESUMED, SPB_ORIGIN_KEPT } spb_row_origin;

typedef struct spb_reporter spb_reporter;
struct spb_reporter {
    /* A row and where it comes from. A failure (a full disk) is the run's,
     * with msg saying why. */
    spb_status (*row)(spb_reporter *self, const spb_result *r, spb_row_origin origin, char *msg);
    /* The end of a matrix's rows, or of the run: whatever is held goes out
     * (NULL: holds nothing). */
    void (*flush)(spb_reporter *self);
};

/* Skipped rows of one matrix that share a reason. */
#define SPB_FOLD_REASONS 8
#define SPB_FOLD_NAMES   4 /* kernels named on the line; beyond, only counted */
typedef struct {
    char reason[SPB_MSG_LEN];
    char kernels[160]; /* the first SPB_FOLD_NAMES names, comma-separated */
    int count;         /* rows */
    int names, more;   /* names listed; 1 when further kernels are left unnamed */
} spb_fold;

/* The console table: a line per row, the current matrix's skipped rows
 * held and printed one line per reason when the matrix ends (a skip says
 * little row by row: "not a pattern matrix" four times, forty GPU rows
 * without a device). */
typedef struct {
    spb_reporter base;
    FILE *out;
    spb_fold folds[SPB_FOLD_REASONS];
    int count;
    char matrix[256];
    int kernel_width; /* the kernel column's (report_table_header) */
} spb_table_reporter;

/* The CSV's rows (a row read back is not written again), and the JSON's
 * (every row). */
typedef struct {
    spb_reporter base;
    FILE *out;
    const char *path;
    int rows; /* written so far (the JSON separates them) */
} spb_file_reporter;

/* run --md: the run's rows (measured and read back, as the table) as one
 * Markdown table, a line of the run's context above it and the totals
 * below (md_reporter.c). It owns its file's whole life: open claims it
 * (locked, refused while another run holds it) and starts a temporary
 * file beside it with the header; rows; end writes the totals and puts
 * the file in its place, or, when the run failed, aborts: the temporary
 * file goes and PATH stays as it was (a file the claim made goes too). */
typedef struct {
    spb_reporter base;
    spb_output claim;
    char temp[SPB_PATH_LEN + 64]; /* written here, renamed onto path (empty: not a regular file) */
    FILE *out;                    /* NULL: ended, or never opened */
    const char *path;
    int rows;
} spb_md_reporter;

spb_status md_reporter_open(spb_md_reporter *m, const char *path, const char *context, char *msg);
/* run: the run's status; its failure is returned (nothing put in place). */
spb_status md_reporter_end(spb_md_reporter *m, const spb_row_counts *counts, spb_status run,
                           char *msg);
void md_reporter_abort(spb_md_reporter *m);

/* A run's reporters, in the order a row reaches them: the table, the CSV,
 * the JSON, the Markdown table (those with a stream). */
#define SPB_MAX_REPORTERS 5
typedef struct {
    spb_table_reporter table;
    spb_file_reporter csv, json;
    spb_reporter *all[SPB_MAX_REPORTERS];
    int count; /* 0: not made yet */
} spb_reporters;

/* md: the run's Markdown reporter, opened already (NULL: none). */
void reporters_begin(spb_reporters *set, FILE *table, int kernel_width, FILE *csv,
                     const char *csv_path, FILE *json, const char *json_path, spb_md_reporter *md);
/* A row to each reporter; after a failure (*status set) the files get no
 * more rows (the table still does). */
void reporters_row(spb_reporters *set, const spb_result *r, spb_row_origin origin,
                   spb_status *status, char *msg);
void reporters_flush(spb_reporters *set);
/* Whether a reporter holds rows that a flush would write. */
int reporters_holding(const spb_reporters *set);

#endif
