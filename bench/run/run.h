/* run.h — measuring every selected kernel on one matrix: per row, prepare
 * (timed on its own) and a first product on a NaN-poisoned y validated
 * against the reference; then the rows on the same processors (the device
 * rows; the CPU rows at one thread count) timed together, in turns (timing.h);
 * per row, one more validated product, metrics, and one flushed row, in
 * table order. */
#ifndef SPB_RUN_H
#define SPB_RUN_H

#include <stdio.h>

#include "bench/inputs/sources.h"
#include "bench/machine/machine_load.h"
#include "bench/machine/roofline.h"
#include "bench/report/phases.h"
#include "bench/report/report.h"
#include "bench/report/reporter.h"
#include "bench/report/resume.h"
#include "bench/report/summary.h"
#include "bench/run/operation.h"
#include "bench/run/selection.h"
#include "core/timing.h"

/* Progress of a batch on stderr: matrix i of N, kernel, elapsed, time left. */
typedef struct {
    FILE *out; /* NULL: quiet */
    int live;  /* a terminal: one line rewritten in place */
    int index, total;
    double start;
} spb_progress;

void progress_show(spb_progress *p, const char *matrix, const char *kernel);
void progress_finish(spb_progress *p);

/* Where a run's rows go, apart from how they are measured (spb_run_opts):
 * the outputs (each written by its reporter, bench/report/reporter.h), the
 * progress line and the load watcher. */
typedef struct {
    FILE *csv; /* NULL: no CSV */
    const char *csv_path;
    FILE *json; /* NULL: no JSON */
    const char *json_path;
    spb_reporter *files[SPB_MAX_FILE_OUTPUTS]; /* the files' reporters (spb_file_outputs) */
    int file_count;
    FILE *table;      /* human-readable rows */
    int kernel_width; /* the table's kernel column (plan_kernel_width; 0: the narrow one) */
    spb_progress *progress;
    spb_machine_load *machine; /* sampled after every row measured (NULL: not watched) */
    spb_phase_times *phases;   /* where the time goes (NULL: not kept) */
} spb_run_outputs;

/* How a run measures: the operation, its kernels and settings; and where
 * its rows go (out). */
typedef struct {
    const spb_operation *op; /* the operation measured */
    const char *operand;     /* SpGEMM's --b spec (NULL: the default) */
    const char *host;        /* this machine's name, in every row (NULL: empty) */
    const char *kernels;     /* selection patterns (NULL: all) */
    spb_timing_opts timing;
    double max_kernel_ms;     /* a first call slower caps the row at that call (0: no cap) */
    double max_matrix_s;      /* rows of a matrix past this many seconds are skipped (0: none) */
    uint64_t seed;            /* for x */
    double tolerance;         /* see validate.h */
    spb_kernel_config config; /* hack size, block size, tile: the first of each list (threads
                               * and precision set per row) */
    /* --hack-size, --block-size, --tile lists, by spb_sweep bit order
     * (count 0: config's one value) */
    const int *sweep_values[SPB_SWEEPS];
    int sweep_counts[SPB_SWEEPS];
    const spb_precision *precisions; /* each kernel runs in each (NULL: config.precision only) */
    int precision_count;
    const int *threads; /* thread counts for OpenMP kernels (and per rank), ascending */
    int thread_counts;
    const int *ranks; /* rank counts for distributed kernels, ascending */
    int rank_counts;
    int distributed; /* a distributed study: its rows are chosen by default */
    int weak;        /* a weak-scaling study: each matrix grows with the ranks */
    /* run --ranks: where the error row of the distributed row in flight is
     * kept while it is measured, for the launcher to record should a rank
     * end the job (NULL: not kept) */
    const char *in_flight;
    const spb_roofline *roofline; /* the bounds and cache sizes (NULL: none) */
    const char *settings;         /* the run's settings (lists as given): the JSON's row_key;
                                   * each row's own is plan_row_settings */
    const char *measured_under;   /* the rows' measured_under (see report.h) */
    const spb_done_set *done;     /* --resume: rows already measured (NULL: none) */
    const char *cache_dir;        /* --cache: parsed matrices kept here (NULL: none) */
    spb_energy_opts energy;       /* the energy passes: which rows, how long, the counters */
    spb_energy_edge *energy_edge; /* the study's last energy window (NULL: none) */
    spb_run_outputs out;          /* where the rows go */
} spb_run_opts;

/* A distributed row's time at one rank. */
typedef struct {
    char matrix[SPB_NAME_LEN], kernel[64], precision[8]; /* whole: matched by name */
    int threads;
    double seconds;
} spb_one_rank;

/* Distributed rows at one rank: the time each later rank count is scaled
 * against (per matrix, kernel, threads and precision). */
typedef struct {
    spb_one_rank *at;
    int count, cap;
} spb_one_rank_times;

/* What a run keeps from matrix to matrix: its tallies, its reporters (made
 * from opts->out at its first row), the summary, the one-rank times, and
 * what --resume replayed. */
typedef struct {
    spb_row_counts counts; /* the rows this run selected, measured or read back */
    spb_row_counts kept;   /* rows of the CSV it did not select: in the JSON, not in the table */
    int conversions;       /* formats built (each at most once per matrix and setting) */
    spb_reporters reporters;
    spb_summary summary;
    spb_one_rank_times one_rank;
    unsigned char *replayed; /* --resume: which rows of opts->done went out again (NULL: none) */
} spb_run_totals;

/* A stop asked for by a signal (SIGINT, SIGTERM): no other row starts, and
 * the rows being timed in turns are dropped at their next turn (--resume
 * measures them); a row being prepared is finished. run_request_stop is async-signal-safe;
 * run_stop_requested gives the signal, or 0. */
void run_request_stop(int signo);
int run_stop_requested(void);

/* Whether two rows' energy is weighed together (only the fastest of them
 * gets a window, unless --energy-rows all): timed in one turn group (device
 * rows, or host rows at one thread count), of one precision, both
 * spbench's or both a vendor's. */
int energy_rivals(const spb_kernel *a, const spb_kernel_config *ca, const spb_kernel *b,
                  const spb_kernel_config *cb);
/* A stop asked for by a file's appearing (the launcher of run --ranks
 * creates it: signals do not reach the ranks alike under every launcher),
 * taken as SIGINT; checked between rows. */
void run_watch_stop_file(const char *path);

void run_totals_free(spb_run_totals *totals);

/* --resume: the rows of the CSV this run did not report (other matrices,
 * kernels, precisions or thread counts than it selected) into the JSON,
 * the table and the tallies, so that the JSON keeps every row the CSV
 * keeps. totals->replayed must have been made (run_totals_begin). */
spb_status run_replay_rest(const spb_run_opts *opts, spb_run_totals *totals, char *msg);
/* The totals of a run, with what --resume needs. */
spb_status run_totals_begin(const spb_run_opts *opts, spb_run_totals *totals, char *msg);

/* With --resume: each source whose rows the CSV holds under another of
 * its names (a study grown by a file of the same base name: "m", now
 * "a/m" beside "b/m") keeps that name, so no matrix is measured twice
 * under two names; the others are named around it. */
spb_status run_adopt_names(spb_source_list *list, const spb_done_set *done, char *msg);

/* With --resume: refuses rows of the CSV measured under other options or
 * another build (measured_under) than this run's, naming both. */
spb_status run_check_measured(const spb_done_set *done, const char *measured_under,
                              const char *csv_path, char *msg);

/* With --resume: refuses (naming file and CSV) a source whose rows in the
 * CSV were measured from another file, or from this one before it changed
 * (its source_id differs), so no stored row is ever replayed for it. */
spb_status run_check_sources(const spb_source_list *list, const spb_done_set *done,
                             const char *csv_path, char *msg);

/* Runs the selected kernels on one matrix source, its rows under `name`
 * (see sources.h). Matrix and kernel failures become error rows; only a
 * failed CSV or JSON write is returned as an error. */
spb_status run_matrix(const char *source, const char *name, const spb_run_opts *opts,
                      spb_run_totals *totals, char *msg);

/* Whether the run declines kernel on A in config's precision before its
 * prepare (a complex matrix and a real kernel, fp32 without an fp32
 * version, a matrix read or made on 64-bit row offsets and a kernel
 * without them): SPB_ERR_DECLINED with the reason, else SPB_OK. SpGEMM
 * also names B and C's entries (SpMV: NULL and NAN). */
spb_status run_kernel_declines(const spb_kernel *kernel, const spb_csr *A, const spb_csr *B,
                               double nnz_c, const spb_kernel_config *config, char *msg);

/* One validated product of one kernel on a set-up case, outside any timing
 * (`spbench spmv`): supports, prepare, product, release. SPB_ERR_INVALID,
 * with msg left to the caller, when the product fails validation (v says by
 * how much). */
spb_status run_single_product(const spb_operation *op, const spb_kernel *kernel, spb_case *c,
                              const spb_kernel_config *config, double tolerance, spb_validation *v,
                              char *msg);

#endif
