/* resume.h — which rows a results CSV already holds, so that a batch run
 * killed at any moment can be rerun with --resume and measure only what is
 * missing. A row is keyed by matrix, operation, kernel, precision, threads,
 * ranks and settings. */
#ifndef SPB_RESUME_H
#define SPB_RESUME_H

#include <stddef.h>

#include "bench/inputs/sources.h"
#include "core/spb.h"

/* A row read back: its key and its fields (pointing into line). */
typedef struct {
    char *key, *line;
    char **fields; /* count fields, in the header's column order */
    int count;
} spb_done_row;

typedef struct {
    spb_done_row *rows; /* sorted by key after resume_load */
    int count, cap;
} spb_done_set;

/* Reads an existing results CSV: checks that its header is this version's,
 * cuts a partial last line (a run killed mid-write) off the file, and
 * collects the keys of its rows. A missing or empty file gives an empty set
 * and *has_header = 0. Rows are kept whole: a resumed run reports them as
 * if it had measured them (JSON, summary, speedup baselines). */
spb_status resume_load(const char *path, spb_done_set *done, int *has_header, char *msg);

/* The check merge makes of a shard's CSV, with resume's reader and
 * verdict: this version's header, every row whole and well formed, no key
 * twice; a cut last row is refused (merge cannot measure it again). */
spb_status results_check(const char *path, int *rows, char *msg);

/* The fields that key a row; a matrix that could not be loaded has kernel
 * "" and threads 0. */
typedef struct {
    const char *matrix, *operation, *kernel, *precision;
    int threads, ranks;
    const char *settings;
} spb_row_key;

void resume_key(char *key, size_t size, const spb_row_key *row);

/* The row read back under key, or NULL. */
const spb_done_row *resume_find(const spb_done_set *done, const char *key);
void resume_free(spb_done_set *done);

/* The rows of one matrix: their count, the first at done->rows[*first]. */
int resume_rows_of(const spb_done_set *done, const char *matrix, int *first);

/* Splits one CSV line into at most `max` fields in place (quotes and
 * doubled quotes handled); returns the number of fields. */
int csv_split(char *line, char **fields, int max);

#endif
