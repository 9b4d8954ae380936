/* report.h — result rows: one CSV line (written and flushed at once), one
 * JSON object and one human-readable table line per (matrix, kernel,
 * precision, threads, ranks), from one column table. */
#ifndef SPB_REPORT_H
#define SPB_REPORT_H

#include <stdio.h>

#include "bench/machine/energy.h"
#include "bench/machine/machine_load.h"
#include "bench/machine/roofline.h"
#include "bench/report/phases.h"
#include "bench/validation/validate.h"
#include "core/timing.h"
#include "formats/csr.h"
#include "gpu/gpu.h"
#include "mpi/dist.h"

typedef enum { SPB_ROW_OK, SPB_ROW_WRONG, SPB_ROW_SKIPPED, SPB_ROW_ERROR } spb_row_status;

const char *row_status_str(spb_row_status status);

/* Numeric fields that do not apply are NAN and written empty. */
typedef struct {
    const char *matrix, *operation, *kernel, *format, *backend, *precision;
    const char *host;      /* the machine that measured the row */
    const char *source_id; /* what the matrix was read from (see sources.h) */
    int threads;           /* per rank for distributed rows */
    int ranks;             /* MPI ranks (1 for every row but the distributed ones) */
    int block_size;        /* GPU kernels; 0 otherwise */
    /* What else decides the measurement ("hack_size=32 block_size=auto
     * seed=1"); with matrix, operation, kernel, precision, threads and
     * ranks it keys --resume. */
    const char *settings;
    /* The settings the run sweeps for this kernel, as the table names them
     * after its kernel ("b128", "h16,b256"; empty: none swept); not a
     * column: the settings hold them. */
    const char *sweep;
    /* How it was measured, beyond the key: the tolerance, warm-up and
     * sampling options and the build ("tol=1e-10 warmup=2 reps=10
     * min_time=0.1 build=Release (-O3 -DNDEBUG)"). Resume and merge refuse
     * rows measured otherwise than the rest. */
    const char *measured_under;
    spb_csr_stats stats;        /* rows, cols, nnz, row lengths */
    double stored_entries;      /* padding included */
    double products, nnz_c;     /* SpGEMM: intermediate products and entries of C */
    spb_timing timing;          /* seconds per call */
    double prepare_ms, tune_ms; /* tune_ms: autotuning, part of prepare_ms */
    /* device rows faster than the fastest vendor row (kernel_is_vendor) of
     * their matrix and precision: the products after which their costlier
     * prepare has paid for itself (0: it costs no more); NAN: not faster,
     * or no vendor row */
    double break_even_products;
    double device_peak_bytes; /* SpGEMM device rows: one product's memory beyond its operands */
    double kernel_ms;         /* device SpGEMM: the product kernels alone, median */
    double gflops, gbytes_per_s, roofline_frac, speedup, efficiency, bandwidth_gbs;
    spb_validation error;
    double tolerance;
    int in_cache;        /* the byte model fits in the last-level cache: 1, 0, or -1 unknown */
    int capped;          /* timed from its first call alone (--max-kernel-ms); -1: not measured */
    spb_dist_stats dist; /* distributed rows: compute and communication, bytes, balance */
    double rank_speedup, rank_efficiency; /* over the same row at one rank; / ranks */
    spb_energy energy; /* the energy pass after the timing: joules, watts, clocks, throttling */
    double gflops_per_watt; /* gflops over the pass's watts */
    spb_row_status status;
    const char *message;
} spb_result;

/* Fills every numeric field with NAN and the rest with empties. */
void result_init(spb_result *r);

/* Whether the row is a distributed row's (kernel_over_ranks), from its
 * backend: rows read back from a CSV have no kernel to ask. */
int result_over_ranks(const spb_result *r);
/* A row's kernel as tables and charts name it: fp64 is the default, another
 * precision is named ("csr.serial/complex64"). */
void result_kernel_label(const char *kernel, const char *precision, char *out, size_t size);

/* The most columns a results row has (report.c checks its table against
 * it): the readers of results files split lines into this many fields. */
#define REPORT_MAX_COLUMNS 96

/* A row read back from a results CSV of this version (fields in column
 * order) into r; r's text fields point into fields. */
void result_from_csv(spb_result *r, char *const *fields, int count);

/* Whether a row read back has this version's fields, numbers where numbers
 * go and a known status (the verdict merge gives too); why, when not. */
int report_csv_row_check(char *const *fields, int count, char *why, size_t size);

/* CSV: a NULL file means no CSV. Write failures are reported, never silent. */
spb_status report_csv_header(FILE *csv, const char *path, char *msg);
spb_status report_csv_row(FILE *csv, const char *path, const spb_result *r, char *msg);
const char *report_csv_columns(void); /* the header line, without newline */

/* JSON: a row as an object (numbers, null where not applicable), preceded
 * by a comma unless first; and a string with JSON escapes. */
spb_status report_json_row(FILE *json, const char *path, const spb_result *r, int first, char *msg);
void report_json_string(FILE *f, const char *s);

/* An operation's roles: its speedup baseline and the library rows
 * (spb_kernel.library) of this build's table. */
typedef struct {
    const char *operation, *baseline;
    const char *const *libraries;
    int library_count;
} spb_json_roles;
#define SPB_JSON_OPERATIONS 4 /* room for every operation's roles */

/* What the JSON header records: the build, the machine with its measured
 * bandwidths, and the settings of the run. */
typedef struct {
    const char *version, *git_commit, *build;
    const char *operation, *precision;
    const spb_roofline *roofline; /* every bandwidth measured, with its spread */
    const spb_gpu_info *gpu;      /* NULL: none, gpu_reason says why */
    const char *gpu_reason;
    const char *settings, *kernels;
    spb_timing_opts timing;
    double tolerance;
    int matrices;
    int shard, shards; /* --shard I/N (0/0: the whole study) */
    /* every operation's roles (a study's file may hold rows of each; the
     * run's operation's are also the top-level "roles") */
    spb_json_roles roles[SPB_JSON_OPERATIONS];
    int role_count;
    const spb_machine_load *load; /* before the study (NULL: not sampled) */
    spb_energy_opts energy;       /* the run's energy passes and their counters */
} spb_json_header;

/* Row tallies for the JSON trailer. */
typedef struct {
    int rows, ok, wrong, skipped, errors, resumed;
    int interrupted_by; /* the signal that stopped the run early, or 0 */
    const char *failed; /* the error that ended the run early, or NULL */
    int noisy;          /* ok rows that broke the noise rule */
    int throttled;      /* ok rows timed while the GPU throttled (energy.h) */
    int cores_max;      /* the most CPU cores a row used: its threads times its ranks */
} spb_row_counts;

/* Adds the row tallies of `from` to `to` (the signal and failure stay to's). */
void row_counts_add(spb_row_counts *to, const spb_row_counts *from);

/* The JSON document: its header and the opening of "rows" (begin), then
 * report_json_row per row, then the totals and the closing (end). */
spb_status report_json_begin(FILE *json, const char *path, const spb_json_header *h, char *msg);
spb_status report_json_end(FILE *json, const char *path, const spb_row_counts *counts,
                           const spb_roofline *roofline, const spb_machine_load *load,
                           const spb_phase_times *phases, char *msg);

/* The whole JSON of a run that failed before its header was written: no
 * rows, and the error. */
void report_json_failed(FILE *json, const char *error);

/* The console table: kernel_width the longest kernel label the run
 * prints (plan_kernel_width), so that the columns after it stay in line;
 * at least REPORT_KERNEL_WIDTH. */
#define REPORT_KERNEL_WIDTH 22
void report_table_header(FILE *out, int kernel_width);
void report_table_row(FILE *out, const spb_result *r, int kernel_width);
/* A row's kernel as the table names it: its label (result_kernel_label),
 * @ranks for a distributed row, :settings for one setting of a sweep
 * (csr.cuda.warp:b128). */
void result_row_label(const spb_result *r, char *out, size_t size);
/* One line of the table (written, then flushed); on a terminal it is cut
 * to the terminal's width ("..." at the end), never within its first
 * `keep` characters; in a file it is kept whole. */
void report_table_line(FILE *out, char *line, int keep);

/* The CPU's model name from /proc/cpuinfo ("unknown" without one). */
void report_cpu_model(char *out, size_t size);

#endif
