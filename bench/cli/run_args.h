/* run_args.h — what spbench run's command line holds, shared by the files
 * of the run command in cli/: its options (run_options.c), its results
 * files (run_outputs.c), what it says before and after the rows
 * (run_header.c) and the command itself (cmd_run.c). */
#ifndef SPB_RUN_ARGS_H
#define SPB_RUN_ARGS_H

#include "bench/machine/energy.h"
#include "bench/report/output_file.h"
#include "bench/run/plan.h"
#include "gpu/gpu.h"

#define MAX_THREAD_COUNTS 64
#define MAX_SWEEP_VALUES  16

/* run's defaults, which its --help names */
#define RUN_DEFAULT_REPS     10
#define RUN_DEFAULT_MIN_TIME 0.1
#define RUN_DEFAULT_WARMUP   2
#define RUN_DEFAULT_SEED     1

/* --bandwidth: reuse this machine's figure when it has a fresh one, else
 * measure (auto); measure now; a figure given; none. */
enum { BANDWIDTH_AUTO, BANDWIDTH_MEASURE, BANDWIDTH_GIVEN, BANDWIDTH_NONE };
#define BANDWIDTH_MAX_AGE_S (7 * 86400.0) /* a kept figure older than a week is measured again */

typedef struct {
    spb_run_opts opts;
    int threads[MAX_THREAD_COUNTS];
    int ranks[MAX_THREAD_COUNTS];
    int sweep_values[SPB_SWEEPS][MAX_SWEEP_VALUES]; /* --hack-size, --block-size, --tile */
    int ranks_given;                                /* --ranks LIST */
    int threads_given; /* --threads LIST (a distributed study's default is 1 per rank) */
    spb_roofline roofline;
    int resume, quiet, force, dry_run;
    int shard, shards;                /* --shard I/N (0/0: the whole list) */
    int processes;                    /* --processes N: the study in N fresh processes */
    int process_index, process_count; /* --process-index K/N: run K of those */
    char host[256];
    char **items; /* MATRIX arguments */
    int count;
    char settings[SPB_SETTINGS_LEN];
    char measured_under[1024];
    spb_gpu_info gpu;
    int have_gpu;
    char gpu_msg[SPB_MSG_LEN];
    spb_precision precisions[2];
    char precision_names[16]; /* "fp64", "fp32" or "fp64,fp32" */
    spb_machine_load machine;
    spb_phase_times phases;           /* where the run's time goes */
    int bandwidth_mode;               /* --bandwidth: BANDWIDTH_* */
    double bandwidth_given;           /* --bandwidth GBPS */
    char bandwidth_kept[SPB_MSG_LEN]; /* whether the measured figures were kept, and where */
    /* each spb_file_outputs row's FILE (NULL: not asked for); their
     * reporters are opts.out.files, from open_outputs to the run's end */
    const char *file_paths[SPB_MAX_FILE_OUTPUTS];
    spb_output json_claim;         /* the JSON's lock, held while its text goes to json_temp */
    char json_temp[4200];          /* renamed onto --json at the end: whole or not at all */
    spb_noise_memory noise_memory; /* the study's re-measurements (timing.h) */
    spb_energy_edge energy_edge;   /* where its last energy window closed (energy.h) */
} run_args;

/* run_options.c, run_outputs.c, run_header.c; run_options_help: the
 * options of what is measured (outputs 0) or of where the rows go (1), as
 * run --help lists them */
void run_options_help(FILE *out, int outputs);
double noise_limit(const spb_timing_opts *t);
void parse_run_args(int argc, char **argv, run_args *a);
int selected_or_exit(const spb_run_opts *o, int *cuda, int *gpu_ranks);
spb_source_list matrices_or_exit(run_args *a);

spb_status refuse_overwrite(const char *path, const char *option, char *msg);
int open_outputs(run_args *a, spb_source_list *list, spb_done_set *done, int *csv_has_header);
/* counts: the run's rows, for the Markdown table's totals. */
spb_status close_outputs(run_args *a, spb_status st, const spb_row_counts *counts, char *msg);
spb_status json_begin(const run_args *a, int matrices, char *msg);

spb_status measure_rooflines(run_args *a, int selected_cuda, int gpu_ranks, char *msg);
void keep_rooflines(run_args *a);
void print_run_header(const run_args *a, int matrices, int selected);
void print_noise_summary(const spb_run_totals *totals, const spb_machine_load *m,
                         const spb_timing_opts *timing);

#endif
