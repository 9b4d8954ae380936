/* reporter.h — where a run's rows go. The run hands every row to each of
 * its reporters and knows no format (google/benchmark's runner/reporter
 * split); each reporter writes its own: the console table (skipped rows
 * folded, a line per reason and matrix), the CSV, the JSON's rows, and
 * the files a reporter owns whole (spb_file_outputs: run --md). The CSV's
 * and the JSON's opening, headers and trailers stay with the command that
 * owns them (bench/cli/run_outputs.c: --resume and --processes combine
 * them). */
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
    /* A file's reporter only (NULL for the others). end: the run's end,
     * with its totals and its status: when the run succeeded, the trailer
     * is written and the file put in its place; when it failed, as abort.
     * Returns the run's status, or the file's failure. abort: the file
     * given up (its temporary file gone, PATH as it was, a file the claim
     * made removed). Either releases the reporter; one of them ends it. */
    spb_status (*end)(spb_reporter *self, const spb_row_counts *counts, spb_status run, char *msg);
    void (*abort)(spb_reporter *self);
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

/* A results file that a reporter owns whole: its option of run (its
 * value's name and its help, listed with the other outputs by run --help)
 * and how it is opened: the file claimed (locked; refused while another
 * run holds it) and a temporary file begun beside it, with the run's
 * context (a line naming the build, operation, settings and host); NULL
 * after saying why in msg. Its rows are the run's (measured and read back,
 * as the table's); its end and abort are the reporter's. A new format is
 * its own file and a row of spb_file_outputs (file_outputs.c); the run
 * checks its path as it checks every output's (not another output, not an
 * input, not the standard output, not results without --force or
 * --resume). */
typedef struct {
    const char *option, *value, *help;
    spb_reporter *(*open)(const char *path, const char *option, const char *context, char *msg);
} spb_file_output;

#define SPB_MAX_FILE_OUTPUTS 4
extern const spb_file_output spb_file_outputs[];
extern const int spb_file_output_count;

/* run --md: the run's rows as one Markdown table, the run's context above
 * it and the totals below (md_reporter.c). */
spb_reporter *md_reporter_open(const char *path, const char *option, const char *context,
                               char *msg);

/* A run's reporters, in the order a row reaches them: the table, the CSV,
 * the JSON, the files' (those with a stream). */
#define SPB_MAX_REPORTERS (3 + SPB_MAX_FILE_OUTPUTS)
typedef struct {
    spb_table_reporter table;
    spb_file_reporter csv, json;
    spb_reporter *all[SPB_MAX_REPORTERS];
    int count; /* 0: not made yet */
} spb_reporters;

/* files: the reporters of the run's files, opened already (file_count of
 * them). */
void reporters_begin(spb_reporters *set, FILE *table, int kernel_width, FILE *csv,
                     const char *csv_path, FILE *json, const char *json_path,
                     spb_reporter *const *files, int file_count);
/* A row to each reporter; after a failure (*status set) the files get no
 * more rows (the table still does). */
void reporters_row(spb_reporters *set, const spb_result *r, spb_row_origin origin,
                   spb_status *status, char *msg);
void reporters_flush(spb_reporters *set);
/* Whether a reporter holds rows that a flush would write. */
int reporters_holding(const spb_reporters *set);

#endif
