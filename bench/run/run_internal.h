/* run_internal.h — what the files of the run protocol share inside run/:
 * run.c (the protocol), emit.c (the rows written, references, rank
 * scaling, progress, totals), stored.c (what --resume finds) and
 * row_figures.c (a row's energy pass and distributed figures). */
#ifndef SPB_RUN_INTERNAL_H
#define SPB_RUN_INTERNAL_H

#include "bench/run/plan.h"
#include "bench/run/run.h"

/* The timed host calls: `calls` products through the operation, on the
 * inputs of the row's precision (rows of both precisions take turns). */
typedef struct {
    const spb_operation *op;
    const spb_kernel *kernel;
    void *state;
    spb_case *c;
    spb_precision precision;
    char *msg;
} host_calls;

/* A row of the matrix in hand. Rows are prepared and validated one by one
 * and held; then the held rows are timed together, in turns (timing.h), and
 * every row is written in table order. */
typedef struct {
    const spb_kernel *kernel;
    spb_kernel_config config;
    int place, of;                   /* its place in the matrix's plan, for the progress line */
    char settings[SPB_SETTINGS_LEN]; /* the row key's settings part (plan_row_settings) */
    char sweep[64];                  /* its swept settings, for the table (spb_result.sweep) */
    const spb_done_row *stored;      /* --resume: replayed, not measured */
    spb_result r;
    char msg[SPB_MSG_LEN];
    void *state;     /* prepared, validated once, waiting to be timed (NULL: none) */
    int dropped;     /* its timing stopped by a signal: not written (--resume redoes it) */
    int again;       /* out of device memory beside the rows it took turns with: redone alone */
    host_calls call; /* its timed calls, when it has no time_calls of its own */
    double bytes, bound;
} held_row;

typedef struct {
    held_row *rows; /* room for every row of the matrix: r.message points into it */
    int count;
    int waiting; /* rows holding a state */
} held_rows;

void flush_folded(const spb_run_opts *opts, spb_run_totals *totals);
void emit(const spb_run_opts *opts, spb_run_totals *totals, const spb_result *r,
          spb_status *csv_status, char *msg);
void note_reference(spb_case *c, const spb_run_opts *opts, const spb_result *r);
void break_even(const spb_case *c, const spb_kernel *kernel, spb_precision precision,
                spb_result *r);
/* A row --resume found, written again as it was; sweep: its swept
 * settings for the table (NULL: none). */
void replay(const spb_run_opts *opts, spb_run_totals *totals, const spb_done_row *row, spb_case *c,
            const char *sweep, spb_status *csv_status, char *msg);
void scale_over_ranks(spb_run_totals *totals, const spb_run_opts *opts, spb_result *r);
const spb_done_row *stored_row(const spb_run_opts *opts, const char *matrix, const char *kernel,
                               const spb_kernel_config *config);
int replayed_whole(const char *name, const spb_plan *plan, const spb_run_opts *opts,
                   spb_run_totals *totals, spb_status *csv_status, char *msg);
void references_from_done(spb_case *c, const spb_run_opts *opts);

/* Whether the k-th of the n timed rows of a group (held->rows[slot[k]])
 * gets an energy pass: with --energy-rows all every row does; else, of
 * each precision, the fastest spbench row and the fastest vendor row. */
int energy_row(const spb_energy_opts *energy, const held_rows *held, const int *slot,
               const spb_timed_row *timed, int n, int k);
/* After a row's timing: whether the GPU throttled while its group was
 * timed (before, after), and its energy pass when `pass` (a failure of its
 * products is the row's). */
spb_status measure_energy(const spb_energy_opts *energy, spb_phase_times *phases, held_row *h,
                          const spb_timed_row *t, const spb_throttle_mark *before,
                          const spb_throttle_mark *after, spb_energy_edge *edge, int pass);
/* A distributed row's exchange figures from its state, into r (and the
 * staged row's legs into msg). */
void distributed_figures(const void *state, spb_result *r, char *msg);

#endif
