/* cmd_run.c — spbench run: options, outputs, the rooflines, then every
 * matrix through the run protocol (run.c), and the closing summary. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/dry_run.h"
#include "bench/cli/launch.h"
#include "bench/cli/processes.h"
#include "bench/inputs/gen.h"
#include "bench/report/output_file.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/plan.h"
#include "bench/run/run.h"
#include "bench/validation/validate.h"
#include "gpu/gpu.h"
#include "mpi/dist.h"

#include "spb_commit.h" /* SPB_GIT_COMMIT, written at build time */

const char *spb_git_commit(void) { return SPB_GIT_COMMIT; }

const char *spb_build(void) { return SPB_BUILD_TYPE " (" SPB_BUILD_C_FLAGS ")"; }

#define MAX_THREAD_COUNTS 64

/* --bandwidth: reuse this machine's figure when it has a fresh one, else
 * measure (auto); measure now; a figure given; none. */
enum { BANDWIDTH_AUTO, BANDWIDTH_MEASURE, BANDWIDTH_GIVEN, BANDWIDTH_NONE };
#define BANDWIDTH_MAX_AGE_S (7 * 86400.0) /* a kept figure older than a week is measured again */

typedef struct {
    spb_run_opts opts;
    int threads[MAX_THREAD_COUNTS];
    int ranks[MAX_THREAD_COUNTS];
    int ranks_given;   /* --ranks LIST */
    int threads_given; /* --threads LIST (a distributed study's default is 1 per rank) */
    spb_roofline roofline;
    int resume, quiet, force, dry_run;
    int shard, shards;                /* --shard I/N (0/0: the whole list) */
    int processes;                    /* --processes N: the study in N fresh processes */
    int process_index, process_count; /* --process-index K/N: run K of those */
    char host[256];
    char **items; /* MATRIX arguments */
    int count;
    char settings[512];
    char measured_under[512];
    spb_gpu_info gpu;
    int have_gpu;
    char gpu_msg[SPB_MSG_LEN];
    spb_precision precisions[2];
    char precision_names[16]; /* "fp64", "fp32" or "fp64,fp32" */
    spb_machine_load machine;
    spb_energy_meters *energy;
    spb_phase_times phases;           /* where the run's time goes */
    int bandwidth_mode;               /* --bandwidth: BANDWIDTH_* */
    double bandwidth_given;           /* --bandwidth GBPS */
    char bandwidth_kept[SPB_MSG_LEN]; /* whether the measured figures were kept, and where */
    spb_output json_claim;            /* the JSON's lock, held while its text goes to json_temp */
    char json_temp[4200];             /* renamed onto --json at the end: whole or not at all */
    spb_noise_memory noise_memory;    /* the study's re-measurements (timing.h) */
    spb_energy_edge energy_edge;      /* where its last energy window closed (energy.h) */
} run_args;

/* --precision fp64|fp32|both into the run's list of precisions. */
static void parse_precision(run_args *a, const char *v)
{
    spb_run_opts *o = &a->opts;
    int both = strcmp(v, "both") == 0;
    if (!both && strcmp(v, "fp64") != 0 && strcmp(v, "fp32") != 0) {
        fprintf(stderr, "spbench: --precision expects fp64, fp32 or both, not '%s'\n", v);
        exit(EXIT_USAGE);
    }
    o->precision_count = both ? 2 : 1;
    a->precisions[0] = strcmp(v, "fp32") == 0 ? SPB_FP32 : SPB_FP64;
    a->precisions[1] = SPB_FP32;
    o->precisions = a->precisions;
    o->config.precision = a->precisions[0];
}

static const spb_operation *operation_or_exit(const char *name)
{
    const spb_operation *op = operation_named(name);
    if (!op) {
        fprintf(stderr, "spbench: --op expects spmv or spgemm, not '%s'\n", name);
        exit(EXIT_USAGE);
    }
    return op;
}

/* --b belongs to SpGEMM and must be well formed. */
static void check_operand(const spb_run_opts *o)
{
    char why[SPB_MSG_LEN] = "";
    if (o->operand && o->op != operation_spgemm()) {
        fprintf(stderr, "spbench: --b picks SpGEMM's B: use it with --op spgemm\n");
        exit(EXIT_USAGE);
    }
    if (o->operand && !spgemm_operand_valid(o->operand, why)) {
        fprintf(stderr, "spbench: %s\n", why);
        exit(EXIT_USAGE);
    }
}

/* The value of `option`, "I/N" with 1 <= I <= N. */
static void parse_part(const char *option, const char *text, int *index, int *count)
{
    char *end;
    long i = strtol(text, &end, 10), n = *end == '/' ? strtol(end + 1, &end, 10) : 0;
    if (*end || i < 1 || n < 1 || i > n || n > 100000) {
        fprintf(stderr, "spbench: %s expects I/N with 1 <= I <= N (e.g. 2/8), not '%s'\n", option,
                text);
        exit(EXIT_USAGE);
    }
    *index = (int)i;
    *count = (int)n;
}

/* --bandwidth auto|measure|none|GBPS. */
static void parse_bandwidth(run_args *a, const char *v)
{
    static const char *const words[] = {"auto", "measure", "", "none"};
    for (int mode = 0; mode < 4; mode++)
        if (words[mode][0] && strcmp(v, words[mode]) == 0) {
            a->bandwidth_mode = mode;
            return;
        }
    char *end;
    double gbps = strtod(v, &end);
    if (*end || end == v || !(gbps > 0) || gbps > 1e6) {
        fprintf(stderr,
                "spbench: --bandwidth expects auto, measure, none or a bandwidth in GB/s, not "
                "'%s'\n",
                v);
        exit(EXIT_USAGE);
    }
    a->bandwidth_mode = BANDWIDTH_GIVEN;
    a->bandwidth_given = gbps;
}

/* What is measured and how: one option at argv[*i]; 0 when not one of these. */
static int parse_measure_option(int argc, char **argv, int *i, run_args *a)
{
    spb_run_opts *o = &a->opts;
    const char *v;
    if (option_value(argc, argv, i, "--kernels", &v))
        o->kernels = v;
    else if (option_value(argc, argv, i, "--op", &v))
        o->op = operation_or_exit(v);
    else if (option_value(argc, argv, i, "--b", &v))
        o->operand = v;
    else if (option_value(argc, argv, i, "--reps", &v))
        o->timing.min_samples = (int)parse_long("--reps", v, 1, SPB_MAX_SAMPLES);
    else if (option_value(argc, argv, i, "--min-time", &v))
        o->timing.min_time = parse_double("--min-time", v, 0);
    else if (option_value(argc, argv, i, "--max-noise", &v))
        o->timing.max_spread = parse_double("--max-noise", v, 1e-9) / 100;
    else if (option_value(argc, argv, i, "--energy-s", &v))
        o->energy_window_s = parse_double("--energy-s", v, 0);
    else if (option_value(argc, argv, i, "--max-kernel-ms", &v))
        o->max_kernel_ms = parse_double("--max-kernel-ms", v, 0);
    else if (option_value(argc, argv, i, "--warmup", &v))
        o->timing.warmup = (int)parse_long("--warmup", v, 0, INT_MAX);
    else if (option_value(argc, argv, i, "--seed", &v))
        o->seed = (uint64_t)parse_long("--seed", v, 0, LONG_MAX);
    else if (option_value(argc, argv, i, "--tol", &v))
        o->tolerance = parse_double("--tol", v, 0);
    else if (option_value(argc, argv, i, "--hack-size", &v))
        o->config.hack_size = (spb_index)parse_long("--hack-size", v, 1, SPB_INDEX_MAX);
    else if (option_value(argc, argv, i, "--threads", &v)) {
        o->thread_counts = parse_count_list("--threads", v, a->threads, MAX_THREAD_COUNTS);
        a->threads_given = 1;
    } else if (option_value(argc, argv, i, "--ranks", &v)) {
        o->rank_counts = parse_count_list("--ranks", v, a->ranks, MAX_THREAD_COUNTS);
        a->ranks_given = 1;
    } else if (option_value(argc, argv, i, "--block-size", &v))
        o->config.block_size = (int)parse_long("--block-size", v, 1, INT_MAX);
    else if (option_value(argc, argv, i, "--precision", &v))
        parse_precision(a, v);
    else if (option_value(argc, argv, i, "--tile", &v))
        o->config.tile = (int)parse_long("--tile", v, 1, INT_MAX);
    else if (option_value(argc, argv, i, "--bandwidth", &v))
        parse_bandwidth(a, v);
    else
        return 0;
    return 1;
}

/* Where the rows go and which share of the list: one option at argv[*i];
 * 0 when not one of these. */
static int parse_output_option(int argc, char **argv, int *i, run_args *a)
{
    spb_run_opts *o = &a->opts;
    const char *v;
    if (option_value(argc, argv, i, "--csv", &v))
        o->out.csv_path = v;
    else if (option_value(argc, argv, i, "--json", &v))
        o->out.json_path = v;
    else if (option_value(argc, argv, i, "--cache", &v))
        o->cache_dir = v;
    else if (option_value(argc, argv, i, "--shard", &v))
        parse_part("--shard", v, &a->shard, &a->shards);
    else if (option_value(argc, argv, i, "--processes", &v))
        a->processes = (int)parse_long("--processes", v, 1, 1000);
    else if (option_value(argc, argv, i, "--process-index", &v))
        parse_part("--process-index", v, &a->process_index, &a->process_count);
    else if (strcmp(argv[*i], "--resume") == 0)
        a->resume = 1;
    else if (strcmp(argv[*i], "--quiet") == 0)
        a->quiet = 1;
    else if (strcmp(argv[*i], "--weak") == 0)
        a->opts.weak = 1;
    else if (strcmp(argv[*i], "--force") == 0)
        a->force = 1;
    else if (strcmp(argv[*i], "--dry-run") == 0)
        a->dry_run = 1;
    else
        return 0;
    return 1;
}

/* The settings part of every row's key: what else decides a measurement. */
static void compose_settings(run_args *a)
{
    spb_run_opts *o = &a->opts;
    char block[32] = "auto";
    if (o->config.block_size) snprintf(block, sizeof block, "%d", o->config.block_size);
    int used = snprintf(a->settings, sizeof a->settings, "hack_size=%d block_size=%s seed=%llu",
                        (int)o->config.hack_size, block, (unsigned long long)o->seed);
    if (o->config.tile && used < (int)sizeof a->settings)
        used += snprintf(a->settings + used, sizeof a->settings - (size_t)used, " tile=%d",
                         o->config.tile);
    if (o->max_kernel_ms > 0 && used < (int)sizeof a->settings)
        used += snprintf(a->settings + used, sizeof a->settings - (size_t)used, " max_kernel_ms=%g",
                         o->max_kernel_ms);
    if (o->op == operation_spgemm() &&
        used < (int)sizeof a->settings) /* B is part of what was measured */
        snprintf(a->settings + used, sizeof a->settings - (size_t)used, " b=%s",
                 o->operand ? o->operand : "self");
    o->settings = a->settings;
    snprintf(a->measured_under, sizeof a->measured_under,
             "tol=%g warmup=%d reps=%d min_time=%g build=%s", o->tolerance, o->timing.warmup,
             o->timing.min_samples, o->timing.min_time, spb_build());
    o->measured_under = a->measured_under;
}

/* The noise rule's spread limit in force (timing.h). */
static double noise_limit(const spb_timing_opts *t)
{
    return t->max_spread > 0 ? t->max_spread : SPB_NOISY_SPREAD;
}

static void parse_run_args(int argc, char **argv, run_args *a)
{
    spb_run_opts *o = &a->opts;
    o->op = operation_spmv();
    o->timing = (spb_timing_opts){
        .warmup = 2, .min_samples = 10, .min_time = 0.1, .memory = &a->noise_memory};
    o->energy_window_s = SPB_ENERGY_WINDOW_S;
    o->energy_edge = &a->energy_edge;
    o->seed = 1;
    o->tolerance = SPB_DEFAULT_TOLERANCE;
    o->config = (spb_kernel_config){
        .hack_size = HLL_DEFAULT_HACK_SIZE, .threads = 1, .precision = SPB_FP64};
    o->out.table = stdout;
    o->thread_counts = parse_count_list("--threads", "max", a->threads, MAX_THREAD_COUNTS);
    a->items = spb_malloc((size_t)argc, sizeof *a->items);
    for (int i = 0; i < argc; i++) {
        if (parse_measure_option(argc, argv, &i, a) || parse_output_option(argc, argv, &i, a))
            continue;
        if (argv[i][0] == '-' && argv[i][1] == '-') unknown_option(argv[i]);
        a->items[a->count++] = argv[i];
    }
    if (!a->threads_given && (a->ranks_given || dist_launched())) { /* MPI alone, unless asked */
        a->threads[0] = 1;
        o->thread_counts = 1;
    }
    o->threads = a->threads;
    o->ranks = a->ranks;
    if (!a->ranks_given) { /* under a launcher: the world's size; else one rank */
        a->ranks[0] = dist_world_size();
        o->rank_counts = 1;
    }
    o->distributed = a->ranks_given || dist_launched();
    o->in_flight = launch_in_flight_file(); /* run --ranks's */
    o->roofline = &a->roofline;
    snprintf(a->precision_names, sizeof a->precision_names, "%s%s%s",
             spb_precision_str(o->config.precision), o->precision_count == 2 ? "," : "",
             o->precision_count == 2 ? spb_precision_str(SPB_FP32) : "");
    check_operand(o);
    compose_settings(a);
}

/* A distributed row whose ranks multiply on GPUs (mpi.cuda.*). */
static int on_gpu_ranks(const spb_kernel *k) { return strncmp(k->name, "mpi.cuda.", 9) == 0; }

/* The selected kernels (the plan's); *cuda: how many of them run on a
 * GPU (the GPU ranks' rows included), *gpu_ranks: how many are GPU ranks'
 * rows. */
static int count_selected(const spb_plan *plan, int *cuda, int *gpu_ranks)
{
    *cuda = *gpu_ranks = 0;
    for (int i = 0; i < plan->count; i++) {
        const spb_kernel *kernel = plan->rows[i].kernel;
        if (!plan_kernel_ends(plan, i)) continue; /* each kernel once */
        *gpu_ranks += on_gpu_ranks(kernel);
        *cuda += kernel->backend == SPB_BACKEND_CUDA || on_gpu_ranks(kernel);
    }
    return plan->kernels;
}

/* A results file that already holds rows is kept unless the user says
 * what to do with it: --resume continues it, --force overwrites it. */
static spb_status refuse_overwrite(const char *path, const char *option, char *msg)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return SPB_OK;
    return spb_fail(msg, SPB_ERR_INVALID,
                    "%s %s: the file already holds results; --resume continues it, --force "
                    "overwrites it",
                    option, path);
}

/* More threads than OpenMP has processors time the contention, not the kernel. */
static void warn_oversubscribed(const spb_run_opts *o)
{
    int procs = omp_get_num_procs(), most = o->threads[o->thread_counts - 1];
    if (most > procs)
        fprintf(stderr,
                "spbench: warning: --threads asks for up to %d threads but OpenMP can use %d "
                "processors; counts above %d share cores and run slower\n",
                most, procs, procs);
}

/* Whether the file starts as a spbench results JSON does. */
static int is_results_json(const char *path)
{
    char head[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[got] = '\0';
    return strstr(head, "\"format\": \"spbench-results\"") != NULL;
}

/* An output that is one of the input matrices would be overwritten by the
 * rows (--force) or called a results file; it is refused as what it is. */
static spb_status refuse_input(const spb_output *out, const spb_source_list *list, char *msg)
{
    for (int k = 0; k < list->count; k++)
        if (!gen_is_spec(list->items[k]) && output_is_file(out, list->items[k]))
            return spb_fail(msg, SPB_ERR_INVALID,
                            "%s %s is one of the input matrices (%s): the results would "
                            "overwrite it; name another file",
                            out->option, out->path, list->items[k]);
    return SPB_OK;
}

/* An output that is this run's standard output would interleave the table
 * with its rows (--csv /dev/stdout > out.txt). */
static spb_status refuse_stdout(const spb_output *out, char *msg)
{
    struct stat so, sp;
    if (out->fd < 0 || fstat(out->fd, &so) != 0 || fstat(STDOUT_FILENO, &sp) != 0 ||
        so.st_dev != sp.st_dev || so.st_ino != sp.st_ino)
        return SPB_OK;
    return spb_fail(msg, SPB_ERR_INVALID,
                    "%s %s is this run's standard output, where the table goes: the rows would "
                    "be mixed with it; name a file",
                    out->option, out->path);
}

/* A JSON not there yet is not created to hold its lock (a run killed
 * outright would leave it empty): the lock is this run's temporary file's,
 * which becomes the JSON at the end, and another run's live one is refused. */
static spb_status claim_json(run_args *a, spb_output *json, char *msg)
{
    const char *path = a->opts.out.json_path;
    struct stat sb;
    if (stat(path, &sb) == 0 || errno != ENOENT) return output_claim(json, path, "--json", 0, msg);
    if (spb_temp_path(a->json_temp, sizeof a->json_temp, path) != SPB_OK)
        return spb_fail(msg, SPB_ERR_IO, "--json %s: the path is too long", path);
    spb_status st = output_claim(json, a->json_temp, "--json", 0, msg);
    long writer = st == SPB_OK ? output_temp_writer(path) : 0;
    if (writer)
        st = spb_fail(msg, SPB_ERR_IO,
                      "--json %s: another process (pid %ld) is writing this file; wait for it "
                      "to end or write elsewhere",
                      path, writer);
    return st;
}

/* Claims the CSV and the JSON, then checks that they may be written as
 * asked, before anything is emptied. */
static spb_status claim_outputs(run_args *a, const spb_source_list *list, spb_output *csv,
                                spb_output *json, char *msg)
{
    const spb_run_opts *o = &a->opts;
    struct stat sb;
    spb_status st = SPB_OK;
    if (a->resume && !o->out.csv_path)
        st = spb_fail(msg, SPB_ERR_INVALID, "--resume needs --csv FILE (the rows to resume from)");
    if (st == SPB_OK && o->out.csv_path)
        st = output_claim(csv, o->out.csv_path, "--csv", a->resume, msg);
    if (st == SPB_OK && output_is_file(csv, o->out.json_path))
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "--csv and --json name one file (%s): give each its own", o->out.csv_path);
    if (st == SPB_OK && o->out.json_path) st = claim_json(a, json, msg);
    if (st == SPB_OK && o->out.csv_path) st = refuse_input(csv, list, msg);
    if (st == SPB_OK && o->out.csv_path) st = refuse_stdout(csv, msg);
    if (st == SPB_OK && o->out.json_path) st = refuse_stdout(json, msg);
    if (st == SPB_OK && o->out.json_path) st = refuse_input(json, list, msg);
    if (st == SPB_OK && !a->resume && !a->force)
        st = refuse_overwrite(o->out.csv_path, "--csv", msg);
    if (st == SPB_OK && !a->resume && !a->force)
        st = refuse_overwrite(o->out.json_path, "--json", msg);
    if (st == SPB_OK && a->resume && !a->force && json->regular &&
        stat(o->out.json_path, &sb) == 0 && sb.st_size > 0 && !is_results_json(o->out.json_path))
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "--json %s: the file is not a spbench results JSON, and --resume rewrites "
                      "the JSON whole; name another file, or --force to replace it",
                      o->out.json_path);
    return st;
}

/* A regular JSON is written to a temporary file renamed onto it at the
 * end, so a run killed outright leaves the JSON it had (or none), never a
 * cut one; the claimed file stays open for its lock. */
static spb_status open_json(run_args *a, spb_output *json, char *msg)
{
    spb_run_opts *o = &a->opts;
    if (!json->regular) return (o->out.json = output_stream(json, 1, msg)) ? SPB_OK : SPB_ERR_IO;
    if (!a->json_temp[0] &&
        spb_temp_path(a->json_temp, sizeof a->json_temp, o->out.json_path) != SPB_OK)
        return spb_fail(msg, SPB_ERR_IO, "--json %s: the path is too long", o->out.json_path);
    o->out.json = fopen(a->json_temp, "w");
    if (!o->out.json) {
        spb_status st = spb_fail(msg, SPB_ERR_IO, "--json %s: cannot write %s: %s",
                                 o->out.json_path, a->json_temp, strerror(errno));
        spb_temp_done(a->json_temp);
        a->json_temp[0] = '\0';
        return st;
    }
    a->json_claim = *json;
    json->fd = -1;
    return SPB_OK;
}

/* Claims and checks every output before any is emptied, reads back the
 * rows to resume, then opens the streams and the cache folder; 0 after
 * saying why not. */
static int open_outputs(run_args *a, spb_source_list *list, spb_done_set *done, int *csv_has_header)
{
    spb_run_opts *o = &a->opts;
    spb_output csv = {.fd = -1}, json = {.fd = -1};
    a->json_claim = json;
    char msg[SPB_MSG_LEN] = "";
    spb_status st = claim_outputs(a, list, &csv, &json, msg);
    if (st == SPB_OK && a->resume) st = resume_load(o->out.csv_path, done, csv_has_header, msg);
    if (st == SPB_OK && a->resume)
        st = run_check_measured(done, o->measured_under, o->out.csv_path, msg);
    if (st == SPB_OK && a->resume) st = run_adopt_names(list, done, msg);
    if (st == SPB_OK && a->resume) st = run_check_sources(list, done, o->out.csv_path, msg);
    if (st == SPB_OK && o->cache_dir && mkdir(o->cache_dir, 0777) != 0 && errno != EEXIST)
        st = spb_fail(msg, SPB_ERR_IO, "--cache %s: cannot create: %s", o->cache_dir,
                      strerror(errno));
    if (st == SPB_OK && o->out.csv_path && !(o->out.csv = output_stream(&csv, !a->resume, msg)))
        st = SPB_ERR_IO;
    if (st == SPB_OK && o->out.json_path) st = open_json(a, &json, msg);
    output_abandon(&csv);
    output_abandon(&json); /* the JSON's temporary file too, when it holds the lock */
    if (st == SPB_OK) return 1;
    if (a->json_temp[0]) spb_temp_done(a->json_temp);
    a->json_temp[0] = '\0';
    fprintf(stderr, "spbench: %s\n", msg);
    if (o->out.csv) fclose(o->out.csv);
    o->out.csv = NULL;
    resume_free(done);
    return 0;
}

/* The key of this machine's kept CPU figures: what decides them. */
static void bandwidth_key(const run_args *a, char *key, size_t size)
{
    char model[256];
    report_cpu_model(model, sizeof model);
    snprintf(key, size, "host=%s cpu=%s cpus=%d llc=%.0f spbench=%s build=%s", a->host, model,
             omp_get_num_procs(), a->roofline.cpu_llc_bytes, SPB_VERSION, spb_build());
    for (char *p = key; *p; p++)
        if (*p == '\t' || *p == '\n') *p = ' ';
}

/* The bounds at every thread count in use (and the GPU's when GPU kernels
 * are selected): the CPU's given, reused from an earlier run on this
 * machine, or measured (SPB_PASSES_FIRST passes of each kernel now, more
 * between matrices in long runs) and kept for the runs after. */
static spb_status measure_rooflines(run_args *a, int selected_cuda, int gpu_ranks, char *msg)
{
    spb_run_opts *o = &a->opts;
    a->have_gpu = gpu_query(&a->gpu, a->gpu_msg) == SPB_OK;
    roofline_init(&a->roofline, o->threads, o->thread_counts, a->have_gpu && selected_cuda,
                  a->have_gpu ? a->gpu.l2_bytes : 0);
    a->roofline.stopped = run_stop_requested; /* a signal is heard within a second */
    /* GPU ranks: their exchange's bound is the link between two GPUs */
    a->roofline.gpu_peer =
        a->have_gpu && gpu_ranks > 0 && a->ranks[o->rank_counts - 1] > 1 && gpu_device_count() >= 2;
    char *key = a->roofline.cpu_key;
    bandwidth_key(a, key, sizeof a->roofline.cpu_key);
    if (a->bandwidth_mode == BANDWIDTH_GIVEN || a->bandwidth_mode == BANDWIDTH_NONE)
        roofline_give(&a->roofline, a->bandwidth_given);
    else if (a->bandwidth_mode == BANDWIDTH_AUTO)
        roofline_reuse(&a->roofline, key, BANDWIDTH_MAX_AGE_S);
    return roofline_measure(&a->roofline, SPB_PASSES_FIRST, msg);
}

/* Figures measured now are kept for the runs after, unless the machine
 * was busy as they were measured (they would lower every later bound). */
static void keep_rooflines(run_args *a)
{
    char path[4096], why[SPB_MSG_LEN], busy[512];
    const char *key = a->roofline.cpu_key;
    if (a->roofline.cpu_source != SPB_BW_MEASURED || run_stop_requested()) return;
    roofline_cache_path(path, sizeof path);
    if (machine_load_busy(&a->machine, busy, sizeof busy))
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept,
                 "not kept for later runs: the machine was busy");
    else if (!roofline_store(&a->roofline, key, why, sizeof why))
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept, "not kept for later runs: %.400s",
                 why);
    else
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept, "kept in %.400s for the runs after",
                 path);
}

static void print_stat(const char *name, const spb_bw_stat *s)
{
    printf("%s %.1f (median %.1f, worst %.1f)", name, s->best, s->median, s->worst);
}

/* Where the CPU figures come from, for the preamble (kept: whether
 * figures measured now were kept). */
static void print_cpu_source(const spb_roofline *r, const char *kept)
{
    char path[4096], when[64] = "";
    time_t at = (time_t)r->cpu_measured_at;
    struct tm tm;
    if (localtime_r(&at, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    roofline_cache_path(path, sizeof path);
    switch (r->cpu_source) {
    case SPB_BW_MEASURED:
        printf("# CPU bandwidth, GB/s, measured now over %d passes each, %s (LLC %.0f MiB: %s):\n",
               r->cpu[0].read.trials, kept, r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_REUSED:
        printf("# CPU bandwidth, GB/s, reused: measured on this machine %s (%s; --bandwidth "
               "measure measures it again) (LLC %.0f MiB: %s):\n",
               when, path, r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_GIVEN:
        printf("# CPU bandwidth, GB/s: given (--bandwidth), not measured (LLC %.0f MiB: %s):\n",
               r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_NONE:
        printf("# CPU bandwidth: not measured (--bandwidth none): the CPU rows have no roofline "
               "fraction (LLC %.0f MiB: %s)\n",
               r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    }
}

/* The bounds as the table's preamble: per thread count and on the GPU. */
static void print_rooflines(const spb_roofline *r, const char *kept)
{
    print_cpu_source(r, kept);
    for (int k = 0; k < r->cpu_count && r->cpu_source != SPB_BW_NONE; k++) {
        printf("#   %2d threads: ", r->cpu[k].threads);
        print_stat("read", &r->cpu[k].read);
        printf(", ");
        print_stat("triad", &r->cpu[k].triad);
        printf("; roofline %.1f\n", roofline_cpu(r, r->cpu[k].threads));
    }
    if (!r->gpu) return;
    printf("# GPU bandwidth, GB/s (L2 %.0f MiB): ", r->gpu_l2_bytes / 1048576.0);
    print_stat("read", &r->gpu_read);
    printf(", ");
    print_stat("copy", &r->gpu_copy);
    printf("; roofline %.1f\n", roofline_gpu(r));
    if (!r->gpu_peer) return;
    printf("# GPU link, GB/s one way, GPU 0 to 1 (%.0f MiB copies, %s): ",
           SPB_PEER_COPY_BYTES / 1048576,
           r->gpu_peer_direct ? "peer access" : "no peer access: through the host");
    print_stat("copy", &r->gpu_peer_copy);
    printf("; the bound of the GPU rows' exchange_gbs\n");
}

/* How busy the machine is as the study starts. */
static void print_machine_load(const spb_machine_load *m)
{
    char why[512], pressure[64] = "no PSI here";
    if (m->pressure_before >= 0)
        snprintf(pressure, sizeof pressure, "CPU pressure %.1f%%", m->pressure_before);
    int busy = machine_load_busy(m, why, sizeof why);
    char passes[96] = "no CPU bandwidth passes this run";
    if (m->bandwidth_measured)
        snprintf(passes, sizeof passes, "bandwidth passes' median %.0f%% below their best",
                 100 * m->bandwidth_spread);
    printf("# machine: %d cores, load average %.2f, %s, %s: %s%s\n", m->cores, m->load_before,
           pressure, passes, busy ? "busy: " : "quiet", why);
}

/* Without --kernels, the kernels this machine cannot run are left out of
 * the study (their rows would only say "skipped"): one line per reason. */
static void print_left_out(const spb_run_opts *o)
{
    enum { REASONS = 4 };
    char reasons[REASONS][SPB_MSG_LEN], names[REASONS][160];
    int counts[REASONS] = {0}, used = 0;
    for (int k = 0; k < o->op->kernel_count && !(o->kernels && *o->kernels); k++) {
        const spb_kernel *kernel = o->op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if (kernel_over_ranks(kernel) != o->distributed || !kernel_unavailable(kernel, why))
            continue;
        int r = 0;
        while (r < used && strcmp(reasons[r], why) != 0) r++;
        if (r == REASONS) continue;
        if (r == used) {
            snprintf(reasons[used], SPB_MSG_LEN, "%s", why);
            names[used++][0] = '\0';
        }
        if (counts[r]++ < 3)
            snprintf(names[r] + strlen(names[r]), sizeof names[r] - strlen(names[r]), "%s%s",
                     counts[r] > 1 ? ", " : "", kernel->name);
    }
    for (int r = 0; r < used; r++)
        printf("# left out: %d kernel%s (%s%s): %s; --kernels naming them records their "
               "skipped rows\n",
               counts[r], counts[r] == 1 ? "" : "s", names[r], counts[r] > 3 ? ", ..." : "",
               reasons[r]);
}

/* What the energy columns can hold here, and the GPU's limit and clocks
 * as the study starts. */
static void print_energy(const run_args *a)
{
    const spb_energy_meters *m = a->energy;
    if (a->opts.energy_window_s <= 0) {
        printf("# energy: not measured (--energy-s 0)\n");
        return;
    }
    spb_gpu_power_info g;
    if (energy_gpu_info(m, &g))
        printf("# energy, GPU (NVML): power limit %.0f W; clocks now SM %.0f MHz, memory %.0f MHz "
               "(max %.0f / %.0f), %.0f C\n",
               g.power_limit_w, g.sm_mhz, g.mem_mhz, g.sm_max_mhz, g.mem_max_mhz, g.temp_c);
    else if (a->have_gpu)
        printf("# energy, GPU: not available: %s\n", energy_why(m, 1));
    if (energy_available(m, 0))
        printf("# energy, CPU (RAPL): %s, the whole package whatever runs on it\n",
               energy_cpu_zones(m));
    else
        printf("# energy, CPU: not available: %s\n", energy_why(m, 0));
    if (energy_available(m, 0) || energy_available(m, 1))
        printf("# energy per row: its products run over a window of at least %.3g s between "
               "two changes of the counter, after its timing (energy_err: the window's "
               "uncertainty)\n",
               a->opts.energy_window_s);
}

static void print_run_header(const run_args *a, int matrices, int selected)
{
    const spb_run_opts *o = &a->opts;
    printf("# spbench %s: %s, %d matrices, %d kernels selected, %s, seed %llu, host %s\n",
           SPB_VERSION, o->op->name, matrices, selected, a->precision_names,
           (unsigned long long)o->seed, o->host);
    if (a->shards) printf("# shard %d of %d of the matrix list\n", a->shard, a->shards);
    print_left_out(o);
    /* other build types compile the kernels otherwise: figures do not compare */
    printf("# build: %s, commit %s%s\n", spb_build(), spb_git_commit(),
           strcmp(SPB_BUILD_TYPE, "Release") == 0
               ? ""
               : "; not a Release build: its kernels' times do not compare with a Release "
                 "build's (cmake -DCMAKE_BUILD_TYPE=Release)");
    static const char *const binds[] = {"false", "true", "primary", "close", "spread"};
    int bind = (int)omp_get_proc_bind(); /* the runtime's own, not the environment's */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char share[64] = "";
    if (online > omp_get_num_procs()) /* a rank's share, or a bound process */
        snprintf(share, sizeof share, " of the machine's %ld", online);
    printf("# OpenMP: %d processors%s, binding %s, OMP_PLACES=%s\n", omp_get_num_procs(), share,
           bind >= 0 && bind < 5 ? binds[bind] : "unknown",
           getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset");
    if (o->distributed)
        printf("# MPI: %d ranks started, rank counts measured up to %d, rank 0 on %s; PETSc %s; "
               "times are the slowest rank's, a barrier before each product\n",
               dist_world_size(), a->ranks[o->rank_counts - 1], dist_placement(),
               dist_petsc_compiled() ? "built in" : "not built");
    print_rooflines(&a->roofline, a->bandwidth_kept);
    print_machine_load(&a->machine);
    print_energy(a);
    if (a->have_gpu)
        printf("# GPU: %s, %d SMs, %.1f GiB, compute capability %d.%d, driver %d, runtime %d\n",
               a->gpu.name, a->gpu.sm_count, a->gpu.memory_bytes / (1024.0 * 1024 * 1024),
               a->gpu.cc_major, a->gpu.cc_minor, a->gpu.driver_version, a->gpu.runtime_version);
    else
        printf("# GPU: %s\n", a->gpu_msg);
    if (o->op == operation_spgemm())
        printf("# validation: C's pattern exactly the reference's, |c_ij - ref_ij| <= %.1e * "
               "(|A||B|)_ij\n",
               o->tolerance);
    else
        printf("# validation: ||y - y_ref||_2 <= %.1e * || |A| |x| ||_2 (fp32 rows: %.1e, the "
               "bound scaled by the unit roundoff, at most %.1e unless --tol is looser)\n",
               o->tolerance, validation_bound(o->tolerance, SPB_FP32),
               validation_bound(SPB_DEFAULT_TOLERANCE, SPB_FP32));
    printf("# settings: %s%s\n", a->settings, a->resume ? "; resuming" : "");
    printf("# timing: %d warm-up calls, >= %d samples and >= %.3g s per kernel; noisy beyond "
           "%g%% spread (--max-noise)\n",
           o->timing.warmup, o->timing.min_samples, o->timing.min_time,
           100 * noise_limit(&o->timing));
    printf("# roof%%: achieved bandwidth over the roofline; c: the row's data fits in the "
           "last-level cache, which served it, so it can pass 100\n");
    report_table_header(stdout);
}

static spb_status json_begin(const run_args *a, int matrices, char *msg)
{
    const spb_run_opts *o = &a->opts;
    spb_json_header h = {.version = SPB_VERSION,
                         .git_commit = spb_git_commit(),
                         .build = spb_build(),
                         .operation = o->op->name,
                         .precision = a->precision_names,
                         .roofline = &a->roofline,
                         .gpu = a->have_gpu ? &a->gpu : NULL,
                         .gpu_reason = a->gpu_msg,
                         .settings = o->settings,
                         .kernels = o->kernels,
                         .timing = o->timing,
                         .tolerance = o->tolerance,
                         .matrices = matrices,
                         .load = o->out.machine,
                         .energy = a->energy,
                         .energy_window_s = o->energy_window_s};
    return report_json_begin(o->out.json, o->out.json_path, &h, msg);
}

/* Every matrix in turn, with progress; the JSON closed with the totals. */
static spb_status run_all(run_args *a, const spb_source_list *list, spb_run_totals *totals,
                          char *msg)
{
    spb_run_opts *o = &a->opts;
    spb_progress progress = {a->quiet ? NULL : stderr, !a->quiet && isatty(fileno(stderr)), 0,
                             list->count, timing_now()};
    o->out.progress = &progress;
    spb_status st = SPB_OK;
    for (int k = 0; k < list->count && st == SPB_OK && !run_stop_requested(); k++) {
        progress.index = k + 1;
        if (k > 0 && (a->roofline.cpu_source == SPB_BW_MEASURED || a->roofline.gpu) &&
            timing_now() - a->roofline.last_at > SPB_REMEASURE_SECONDS) {
            progress_show(&progress, list->names[k], "measuring the bandwidth again");
            double start = timing_now();
            st = roofline_measure(&a->roofline, SPB_PASSES_AGAIN, msg);
            phase_add(&a->phases, SPB_PHASE_BANDWIDTH, timing_now() - start);
        }
        if (list->ranks) { /* a weak-scaling item: its own rank count alone */
            o->ranks = &list->ranks[k];
            o->rank_counts = 1;
        }
        if (st == SPB_OK) st = run_matrix(list->items[k], list->names[k], o, totals, msg);
    }
    progress_finish(&progress);
    if (st == SPB_OK) st = run_replay_rest(o, totals, msg);
    spb_row_counts counts = totals->counts;
    counts.interrupted_by = run_stop_requested();
    /* the JSON ends whole on every path: after an error it says which */
    char end_msg[SPB_MSG_LEN] = "";
    counts.failed = st == SPB_OK ? NULL : msg;
    spb_status ended = report_json_end(o->out.json, o->out.json_path, &counts, &a->roofline,
                                       o->out.machine, &a->phases, end_msg);
    if (st == SPB_OK && ended != SPB_OK) {
        snprintf(msg, SPB_MSG_LEN, "%s", end_msg);
        st = ended;
    }
    return st;
}

/* Closes the outputs; a failed close is a failed write. The JSON's
 * temporary file takes its place only when it was written whole. */
static spb_status close_outputs(run_args *a, spb_status st, char *msg)
{
    spb_run_opts *o = &a->opts;
    /* a write that failed earlier (a full disk) may leave fclose nothing to fail on */
    int json_failed = o->out.json && ferror(o->out.json);
    if (o->out.json && fclose(o->out.json) != 0) json_failed = 1;
    if (json_failed && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", o->out.json_path, strerror(errno));
    if (a->json_temp[0] && !json_failed && rename(a->json_temp, o->out.json_path) != 0) {
        json_failed = 1;
        if (st == SPB_OK)
            st = spb_fail(msg, SPB_ERR_IO, "--json %s: cannot put %s in its place: %s",
                          o->out.json_path, a->json_temp, strerror(errno));
    }
    if (a->json_temp[0] && json_failed) unlink(a->json_temp);
    if (a->json_temp[0]) spb_temp_done(a->json_temp);
    if (json_failed) output_abandon(&a->json_claim); /* a file it created stays only if whole */
    if (a->json_claim.fd >= 0) close(a->json_claim.fd);
    if (o->out.csv && fclose(o->out.csv) != 0 && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", o->out.csv_path, strerror(errno));
    return st;
}

/* Noisy rows and a busy machine, said at the end where a user looks. */
static void print_noise_summary(const spb_run_totals *totals, const spb_machine_load *m,
                                const spb_timing_opts *timing)
{
    const spb_noise_memory *memory = timing->memory;
    char why[512];
    int busy = machine_load_busy(m, why, sizeof why);
    if (totals->counts.noisy)
        printf("# %d of %d ok rows noisy (samples spread beyond %.0f%% of the median, or one "
               "beyond %.0fx it, after up to %d re-measurements)%s%s; rerun %sor raise --reps "
               "and --min-time\n",
               totals->counts.noisy, totals->counts.ok, 100 * noise_limit(timing),
               SPB_NOISY_OUTLIER, SPB_NOISY_RETRIES, busy ? ": the machine was busy: " : "", why,
               busy ? "on a quiet machine " : "");
    else if (busy)
        printf("# the machine was busy (%s): no row broke the noise rule, but compare with a "
               "run on a quiet machine\n",
               why);
    if (memory->skipped)
        printf("# %d group%s of rows not measured again for their noise: re-measurements had "
               "stopped helping (the machine's noise; one in %d was still tried)\n",
               memory->skipped, memory->skipped == 1 ? "" : "s", SPB_NOISY_PROBE);
    if (totals->counts.throttled)
        printf("# the GPU throttled during %d row%s (power or heat; throttled, throttle_reasons): "
               "their times are below the kernels' speed at full clocks\n",
               totals->counts.throttled, totals->counts.throttled == 1 ? "" : "s");
}

/* The first SIGINT or SIGTERM stops the run between turns (run.h) and
 * lets the outputs close validly; a second one ends the process at once. */
static void on_stop_signal(int signo)
{
    if (run_stop_requested()) {
        spb_temp_remove_all();
        signal(signo, SIG_DFL);
        raise(signo);
        return;
    }
    run_request_stop(signo);
    static const char note[] = "\nspbench: stopping; rows not finished are left to --resume "
                               "(again to stop at once)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
}

static void catch_stop_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART; /* file writes and reads go on */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (launch_stop_file()) run_watch_stop_file(launch_stop_file());
}

/* How to continue a run that stopped early (`what` says how): its own
 * command with --resume. */
static void print_resume_hint(int argc, char **argv, const run_args *a, const char *what)
{
    fprintf(stderr, "spbench: %s", what);
    if (a->process_count) { /* one of run --processes's runs: that launcher says how */
        fprintf(stderr, "\n");
        return;
    }
    if (!a->opts.out.csv_path) {
        fprintf(stderr, "; without --csv FILE there is nothing to resume\n");
        return;
    }
    char self[4096] = "spbench"; /* the path that ran, so the line can be pasted */
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 7] = '\0';
    fprintf(stderr, " (in %s); to continue:\n  %s run", a->opts.out.csv_path, self);
    for (int i = 0; i < argc; i++) {
        int plain = strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-_./:=,@+%") == strlen(argv[i]);
        fprintf(stderr, plain ? " %s" : " '%s'", argv[i]);
    }
    fprintf(stderr, "%s\n", a->resume ? "" : " --resume");
}

/* Inputs that cannot be used — a file that cannot be read, a generator
 * spec that is not well formed — each said, before any measuring or rank
 * starts (a matrix whose contents turn out bad still gets its error row
 * and the batch goes on); how many. */
static int refuse_bad_inputs(const spb_source_list *list)
{
    int bad = 0;
    for (int k = 0; k < list->count; k++) {
        char msg[SPB_MSG_LEN] = "";
        const char *item = list->items[k];
        if (gen_is_spec(item) ? !gen_spec_well_formed(item, msg) : access(item, R_OK) != 0) {
            if (!msg[0]) snprintf(msg, sizeof msg, "%s: %s", item, strerror(errno));
            fprintf(stderr, "spbench: %s\n", msg);
            bad++;
        }
    }
    if (bad)
        fprintf(stderr, "spbench: %d input%s cannot be used; nothing was measured\n", bad,
                bad == 1 ? "" : "s");
    return bad;
}

/* The matrices to measure: expanded (for --weak, one per spec and rank
 * count), then this shard's share; exits on a usage error. */
static spb_source_list matrices_or_exit(run_args *a)
{
    const char *outputs[] = {a->opts.out.csv_path, a->opts.out.json_path};
    for (int k = 0; k < 2 && a->count == 0; k++) /* an option took the matrix as its file */
        if (outputs[k] && (strstr(outputs[k], ".mtx") || strncmp(outputs[k], "gen:", 4) == 0)) {
            fprintf(stderr,
                    "spbench: no MATRIX given: %s took %s as its file; name the results file "
                    "after it, then the matrices\n",
                    k == 0 ? "--csv" : "--json", outputs[k]);
            exit(EXIT_USAGE);
        }
    spb_source_list list = expand_or_exit(a->count, a->items);
    spb_free(a->items);
    a->items = NULL;
    char msg[SPB_MSG_LEN] = "";
    if (a->opts.weak && !a->opts.distributed) {
        fprintf(stderr, "spbench: --weak grows each matrix with the rank count: give --ranks\n");
        exit(EXIT_USAGE);
    }
    if (a->opts.weak && sources_weak(&list, a->ranks, a->opts.rank_counts, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        sources_free(&list);
        exit(EXIT_USAGE);
    }
    if (a->shards && sources_shard(&list, a->shard, a->shards, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        sources_free(&list);
        exit(EXIT_USAGE);
    }
    if (refuse_bad_inputs(&list)) {
        sources_free(&list);
        exit(EXIT_USAGE);
    }
    return list;
}

/* The closing lines: best kernels, totals, noise; the exit status. */
static int finish_run(int argc, char **argv, const run_args *a, spb_run_totals *totals)
{
    /* rows read back included: it names their kernels */
    summary_print(stdout, &totals->summary, a->opts.op->baseline->name,
                  a->opts.op->vendor ? a->opts.op->vendor->name : NULL);
    printf("# %d row%s: %d ok, %d wrong, %d skipped, %d error", totals->counts.rows,
           totals->counts.rows == 1 ? "" : "s", totals->counts.ok, totals->counts.wrong,
           totals->counts.skipped, totals->counts.errors);
    if (a->resume)
        printf("; %d were already in %s, %d measured now", totals->counts.resumed,
               a->opts.out.csv_path, totals->counts.rows - totals->counts.resumed);
    printf("\n");
    print_noise_summary(totals, &a->machine, &a->opts.timing);
    phases_print(stdout, &a->phases);
    int stopped_by = run_stop_requested();
    if (stopped_by) {
        fflush(stdout);
        char what[96];
        snprintf(what, sizeof what, "interrupted by %s after %d rows",
                 stopped_by == SIGINT ? "SIGINT" : "SIGTERM",
                 totals->counts.rows - totals->counts.resumed);
        print_resume_hint(argc, argv, a, what);
        return 128 + stopped_by;
    }
    return totals->counts.wrong || totals->counts.errors ? EXIT_RESULTS_BAD : 0;
}

/* The kernels the patterns select (how many run on a GPU, how many are GPU
 * ranks' rows); a usage error when a pattern matches none of them, or
 * nothing is selected. */
static int selected_or_exit(const spb_run_opts *o, int *cuda, int *gpu_ranks)
{
    char msg[SPB_MSG_LEN] = "";
    if (kernel_patterns_check(o->op->kernels, o->op->kernel_count, o->kernels, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        exit(EXIT_USAGE);
    }
    spb_plan plan;
    if (plan_build(&plan, o, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        exit(EXIT_FAILURE);
    }
    int selected = count_selected(&plan, cuda, gpu_ranks);
    plan_free(&plan);
    if (!selected) {
        fprintf(stderr, "spbench: --kernels '%s' matches no kernel (see spbench --list)\n",
                o->kernels);
        exit(EXIT_USAGE);
    }
    return selected;
}

/* --processes N: the whole run in N fresh processes, combined into the
 * files named (see processes.h); a stop gives the command that goes on. */
static int launch_processes(int argc, char **argv, const run_args *a)
{
    char msg[SPB_MSG_LEN] = "";
    if (!a->opts.out.csv_path) {
        fprintf(stderr, "spbench: --processes N keeps each process's rows beside --csv FILE and "
                        "combines them there: give --csv (and --json for the samples)\n");
        return EXIT_USAGE;
    }
    if (!a->resume && !a->force &&
        (refuse_overwrite(a->opts.out.csv_path, "--csv", msg) != SPB_OK ||
         refuse_overwrite(a->opts.out.json_path, "--json", msg) != SPB_OK)) {
        fprintf(stderr, "spbench: %s\n", msg);
        return EXIT_USAGE;
    }
    int status =
        run_processes(argc, argv, a->processes, a->opts.out.csv_path, a->opts.out.json_path);
    if (status >= 128) {
        char what[96];
        snprintf(what, sizeof what, "the study in %d processes stopped", a->processes);
        print_resume_hint(argc, argv, a, what);
    }
    return status;
}

/* The launcher's resume line: this run's own (see print_resume_hint). */
typedef struct {
    int argc;
    char **argv;
    const run_args *args;
} launch_context;

static void launch_hint(const char *what, void *context)
{
    const launch_context *c = context;
    print_resume_hint(c->argc, c->argv, c->args, what);
}

/* --ranks outside MPI: this run under mpirun (launch.c). */
static int run_under_mpirun(int argc, char **argv, const run_args *a)
{
    launch_context context = {argc, argv, a};
    spb_launch job = {.ranks = a->ranks[a->opts.rank_counts - 1],
                      .threads = a->threads[a->opts.thread_counts - 1],
                      .resume = a->resume,
                      .csv_path = a->opts.out.csv_path,
                      .json_path = a->opts.out.json_path,
                      .resume_hint = launch_hint,
                      .context = &context};
    return launch_ranks(argc, argv, &job);
}

/* The bounds (kept for the runs after when measured), the machine's load
 * and the energy meters, before the first row. */
static spb_status start_measuring(run_args *a, int selected_cuda, int gpu_ranks, char *msg)
{
    double start = timing_now();
    spb_status st = measure_rooflines(a, selected_cuda, gpu_ranks, msg);
    phase_add(&a->phases, SPB_PHASE_BANDWIDTH, timing_now() - start);
    machine_load_start(&a->machine, &a->roofline);
    if (st == SPB_OK) keep_rooflines(a);
    a->opts.out.machine = &a->machine;
    a->energy = energy_open(NULL, a->have_gpu ? a->gpu.pci_bus_id : "", NULL);
    a->opts.energy = a->energy;
    return st;
}

/* A run that does not measure here: a dry run, or one launched as several
 * processes or under mpirun; its exit status, or -1 (and the list kept)
 * when the run is this process's. */
static int run_elsewhere(int argc, char **argv, run_args *a, spb_source_list *list)
{
    int code = -1;
    if (a->dry_run)
        code = dry_run_print(stdout, &a->opts, list, a->processes > 1 ? a->processes : 1);
    else if (a->processes > 1 && !dist_launched())
        code = launch_processes(argc, argv, a);
    else if (a->ranks_given && !dist_launched())
        code = run_under_mpirun(argc, argv, a);
    if (code >= 0) sources_free(list);
    return code;
}

int cmd_run(int argc, char **argv)
{
    static run_args a; /* large: thread lists, messages */
    memset(&a, 0, sizeof a);
    a.phases.start = timing_now();
    a.opts.out.phases = &a.phases;
    if (dist_launched()) atexit(launch_mark_end);
    parse_run_args(argc, argv, &a);
    int selected_cuda, gpu_ranks, selected = selected_or_exit(&a.opts, &selected_cuda, &gpu_ranks);
    spb_source_list list = matrices_or_exit(&a);
    int elsewhere = run_elsewhere(argc, argv, &a, &list);
    if (elsewhere >= 0) return elsewhere;
    int most_ranks = a.ranks[a.opts.rank_counts - 1];
    if (a.opts.distributed && most_ranks > dist_world_size()) {
        fprintf(stderr, "spbench: --ranks asks for %d ranks; the launcher started %d\n", most_ranks,
                dist_world_size());
        sources_free(&list);
        return launch_report_status(EXIT_USAGE);
    }
    if (gethostname(a.host, sizeof a.host - 1) != 0) snprintf(a.host, sizeof a.host, "unknown");
    a.opts.host = a.host;
    spb_done_set done = {0};
    int csv_has_header = 0, code = EXIT_RESULTS_BAD;
    if (!open_outputs(&a, &list, &done, &csv_has_header)) {
        sources_free(&list);
        return launch_report_status(EXIT_USAGE);
    }
    if (a.resume) a.opts.done = &done;
    catch_stop_signals();
    warn_oversubscribed(&a.opts);
    char msg[SPB_MSG_LEN] = "";
    spb_status st =
        csv_has_header ? SPB_OK : report_csv_header(a.opts.out.csv, a.opts.out.csv_path, msg);
    if (st == SPB_OK) st = start_measuring(&a, selected_cuda, gpu_ranks, msg);
    if (st == SPB_OK) print_run_header(&a, list.count, selected);
    if (st == SPB_OK)
        st = json_begin(&a, list.count, msg);
    else
        report_json_failed(a.opts.out.json, msg); /* the JSON is whole on every path */
    spb_run_totals totals = {0};
    if (st == SPB_OK) st = run_totals_begin(&a.opts, &totals, msg);
    if (st == SPB_OK) st = run_all(&a, &list, &totals, msg);
    st = close_outputs(&a, st, msg);
    sources_free(&list);
    if (st != SPB_OK)
        fprintf(stderr, "spbench: %s\n", msg);
    else
        code = finish_run(argc, argv, &a, &totals);
    run_totals_free(&totals);
    resume_free(&done);
    energy_close(a.energy);
    return launch_report_status(code);
}
