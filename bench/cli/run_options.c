/* run_options.c — spbench run's command line: its options into run_args, the
 * kernels they select and the matrices they name, each checked before
 * anything is measured (see run_args.h). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/launch.h"
#include "bench/inputs/gen.h"
#include "bench/machine/roofline.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/plan.h"
#include "plugins/loader.h"

#include "bench/cli/run_args.h"

/* --precision into the run's list of precisions: widths, the field being
 * each matrix's own (fp64 and complex128 name the double width, fp32 and
 * complex64 the single one: plan_set_field). */
static void parse_precision(run_args *a, const char *v)
{
    spb_run_opts *o = &a->opts;
    int both = strcmp(v, "both") == 0;
    spb_precision named = SPB_FP64;
    if (!both && !spb_precision_parse(v, &named)) {
        fprintf(stderr,
                "spbench: --precision expects fp64, fp32, complex128, complex64 or both, not "
                "'%s'\n",
                v);
        exit(EXIT_USAGE);
    }
    o->precision_count = both ? 2 : 1;
    a->precisions[0] = both ? SPB_FP64 : spb_precision_in_field(named, 0);
    a->precisions[1] = SPB_FP32;
    o->precisions = a->precisions;
    o->config.precision = a->precisions[0];
}

/* A setting's list (sweep in spb_sweep bit order): each value a row of
 * the kernels that take it, the first the others' (plan.c). */
static void parse_sweep(run_args *a, int sweep, const char *option, const char *v, long max)
{
    spb_run_opts *o = &a->opts;
    int *values = a->sweep_values[sweep];
    o->sweep_counts[sweep] = parse_value_list(option, v, 1, max, values, MAX_SWEEP_VALUES);
    o->sweep_values[sweep] = values;
    if (sweep == 0)
        o->config.hack_size = (spb_index)values[0];
    else if (sweep == 1)
        o->config.block_size = values[0];
    else
        o->config.tile = values[0];
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

/* --energy-rows: 1 for all, 0 for best. */
static int energy_rows_or_exit(const char *v)
{
    if (strcmp(v, "best") != 0 && strcmp(v, "all") != 0) {
        fprintf(stderr, "spbench: --energy-rows expects best or all, not '%s'\n", v);
        exit(EXIT_USAGE);
    }
    return strcmp(v, "all") == 0;
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
    double gbps;
    if (!roofline_parse_gbps(v, &gbps)) {
        fprintf(stderr,
                "spbench: --bandwidth expects auto, measure, none or a bandwidth in GB/s "
                "(%g to %g, decimal), not '%s'\n",
                ROOFLINE_MIN_GBPS, ROOFLINE_MAX_GBPS, v);
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
    else if (option_value(argc, argv, i, "--energy-rows", &v))
        o->energy_all_rows = energy_rows_or_exit(v);
    else if (option_value(argc, argv, i, "--max-kernel-ms", &v))
        o->max_kernel_ms = parse_double("--max-kernel-ms", v, 0);
    else if (option_value(argc, argv, i, "--max-matrix-s", &v))
        o->max_matrix_s = parse_double("--max-matrix-s", v, 0);
    else if (option_value(argc, argv, i, "--warmup", &v))
        o->timing.warmup = (int)parse_long("--warmup", v, 0, INT_MAX);
    else if (option_value(argc, argv, i, "--seed", &v))
        o->seed = (uint64_t)parse_long("--seed", v, 0, LONG_MAX);
    else if (option_value(argc, argv, i, "--tol", &v))
        o->tolerance = parse_double("--tol", v, 0);
    else if (option_value(argc, argv, i, "--hack-size", &v))
        parse_sweep(a, 0, "--hack-size", v, SPB_INDEX_MAX);
    else if (option_value(argc, argv, i, "--threads", &v)) {
        o->thread_counts = parse_count_list("--threads", v, a->threads, MAX_THREAD_COUNTS);
        a->threads_given = 1;
    } else if (option_value(argc, argv, i, "--ranks", &v)) {
        o->rank_counts = parse_count_list("--ranks", v, a->ranks, MAX_THREAD_COUNTS);
        a->ranks_given = 1;
    } else if (option_value(argc, argv, i, "--block-size", &v))
        parse_sweep(a, 1, "--block-size", v, INT_MAX);
    else if (option_value(argc, argv, i, "--precision", &v))
        parse_precision(a, v);
    else if (option_value(argc, argv, i, "--tile", &v))
        parse_sweep(a, 2, "--tile", v, INT_MAX);
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
    else if (option_value(argc, argv, i, "--plugin", &v))
        (void)v; /* loaded by main, before any kernel table is made */
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

/* --max-kernel-ms when not given for a SpGEMM run (SpMV: no cap). The
 * teaching rows took 4.6 and 25 s a product on LP shapes an H100's
 * cuSPARSE multiplies in 1-2 ms (issue 62). */
#define SPGEMM_MAX_KERNEL_MS 1000.0

/* The run's settings (its lists as given; each row's own: plan_row_settings)
 * and what every row was measured under. */
static void compose_settings(run_args *a)
{
    spb_run_opts *o = &a->opts;
    plan_run_settings(o, a->settings, sizeof a->settings);
    o->settings = a->settings;
    /* the commit too: resume and merge never mix rows of two spbench builds */
    /* and each plug-in's checksum: never rows of a changed library */
    snprintf(a->measured_under, sizeof a->measured_under,
             "tol=%g warmup=%d reps=%d min_time=%g build=%s commit=%s%s%s", o->tolerance,
             o->timing.warmup, o->timing.min_samples, o->timing.min_time, spb_build(),
             spb_git_commit(), plugins_provenance()[0] ? " " : "", plugins_provenance());
    o->measured_under = a->measured_under;
}

/* The noise rule's spread limit in force (timing.h). */
double noise_limit(const spb_timing_opts *t)
{
    return t->max_spread > 0 ? t->max_spread : SPB_NOISY_SPREAD;
}

void parse_run_args(int argc, char **argv, run_args *a)
{
    spb_run_opts *o = &a->opts;
    o->op = operation_spmv();
    o->timing = (spb_timing_opts){
        .warmup = 2, .min_samples = 10, .min_time = 0.1, .memory = &a->noise_memory};
    o->energy_window_s = SPB_ENERGY_WINDOW_S;
    o->energy_edge = &a->energy_edge;
    o->max_kernel_ms = -1; /* not given: the operation's default, below */
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
    if (o->max_kernel_ms < 0) /* a large product must not hold up a SpGEMM study */
        o->max_kernel_ms = o->op == operation_spgemm() ? SPGEMM_MAX_KERNEL_MS : 0;
    check_operand(o);
    compose_settings(a);
}

/* The selected kernels (the plan's); *cuda: how many of them run on a
 * GPU (the GPU ranks' rows included), *gpu_ranks: how many are GPU ranks'
 * rows. */
static int count_selected(const spb_plan *plan, int *cuda, int *gpu_ranks)
{
    *cuda = *gpu_ranks = 0;
    for (int i = 0; i < plan->count; i++) {
        const spb_kernel *kernel = plan->rows[i].kernel;
        if (!plan_kernel_ends(plan, i)) continue; /* each kernel once */
        *gpu_ranks += dist_kernel_on_gpus(kernel);
        *cuda += kernel->backend == SPB_BACKEND_CUDA || dist_kernel_on_gpus(kernel);
    }
    return plan->kernels;
}

/* The kernels the patterns select (how many run on a GPU, how many are GPU
 * ranks' rows); a usage error when a pattern matches no kernel, and
 * EXIT_NOTHING_MEASURED when this machine runs none of those it matches. */
int selected_or_exit(const spb_run_opts *o, int *cuda, int *gpu_ranks)
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
    if (!selected) { /* the patterns match kernels (checked above): this machine runs none */
        const char *first = NULL;
        for (int k = 0; k < o->op->kernel_count && !first; k++)
            if (kernel_left_out(o->op->kernels[k], o->kernels, o->distributed, msg))
                first = o->op->kernels[k]->name;
        fprintf(stderr,
                "spbench: no row to measure: this machine runs none of the kernels --kernels '%s' "
                "selects (%s: %s); a kernel named whole records its skipped rows\n",
                o->kernels ? o->kernels : "", first ? first : "?", first ? msg : "");
        exit(EXIT_NOTHING_MEASURED);
    }
    return selected;
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
spb_source_list matrices_or_exit(run_args *a)
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
