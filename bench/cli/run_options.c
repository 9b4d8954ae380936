/* run_options.c — spbench run's command line: its options into run_args, the
 * kernels they select and the matrices they name, each checked before
 * anything is measured (see run_args.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
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

/* --max-kernel-ms when not given for a SpGEMM run (SpMV: no cap). The
 * teaching rows took 4.6 and 25 s a product on LP shapes an H100's
 * cuSPARSE multiplies in 1-2 ms (issue 62). */
#define SPGEMM_MAX_KERNEL_MS 1000

/* ---- the options, as one table ------------------------------------------------- */

/* How an option's value is taken: into a field of run_args (an integer or
 * a number in [min, max], a text, a flag set to 1), or by its own
 * function (the value's own syntax, or more than one field). */
typedef enum { TAKE_INT, TAKE_NUMBER, TAKE_TEXT, TAKE_FLAG, TAKE_OWN } take_kind;

/* One of run's options: its name, its value's name (NULL: a flag), what
 * `run --help` says of it (wrapped to the terminal's 80 columns; its
 * default named from the constant the parser starts from), and where its
 * value goes. `output`: among the options of where the rows go. `key`: its
 * place in every row's measured_under (1, 2, ...; 0: not in it), written
 * as key_name=value: rows measured under other values are never mixed
 * (--resume, merge, compare), and the places keep the text of the files
 * written before. */
typedef struct {
    const char *name, *value, *help;
    take_kind kind;
    size_t field; /* offsetof(run_args, ...) for the kinds that take one */
    double min, max;
    void (*take)(run_args *a, const char *option, const char *value); /* TAKE_OWN */
    int output;
    int key;
    const char *key_name;
} run_option;

static void take_op(run_args *a, const char *option, const char *v)
{
    (void)option;
    a->opts.op = operation_or_exit(v);
}

static void take_max_noise(run_args *a, const char *option, const char *v)
{
    a->opts.timing.max_spread = parse_double(option, v, 1e-9) / 100;
}

static void take_energy_rows(run_args *a, const char *option, const char *v)
{
    (void)option;
    a->opts.energy.all_rows = energy_rows_or_exit(v);
}

static void take_seed(run_args *a, const char *option, const char *v)
{
    a->opts.seed = (uint64_t)parse_long(option, v, 0, LONG_MAX);
}

static void take_hack_size(run_args *a, const char *option, const char *v)
{
    parse_sweep(a, 0, option, v, SPB_INDEX_MAX);
}

static void take_block_size(run_args *a, const char *option, const char *v)
{
    parse_sweep(a, 1, option, v, INT_MAX);
}

static void take_tile(run_args *a, const char *option, const char *v)
{
    parse_sweep(a, 2, option, v, INT_MAX);
}

static void take_precision(run_args *a, const char *option, const char *v)
{
    (void)option;
    parse_precision(a, v);
}

static void take_threads(run_args *a, const char *option, const char *v)
{
    a->opts.thread_counts = parse_count_list(option, v, a->threads, MAX_THREAD_COUNTS);
    a->threads_given = 1;
}

static void take_ranks(run_args *a, const char *option, const char *v)
{
    a->opts.rank_counts = parse_count_list(option, v, a->ranks, MAX_THREAD_COUNTS);
    a->ranks_given = 1;
}

static void take_bandwidth(run_args *a, const char *option, const char *v)
{
    (void)option;
    parse_bandwidth(a, v);
}

static void take_plugin(run_args *a, const char *option, const char *v)
{
    (void)a, (void)option, (void)v; /* loaded by main, before any kernel table is made */
}

static void take_shard(run_args *a, const char *option, const char *v)
{
    parse_part(option, v, &a->shard, &a->shards);
}

static void take_process_index(run_args *a, const char *option, const char *v)
{
    parse_part(option, v, &a->process_index, &a->process_count);
}

#define FIELD(member) offsetof(run_args, member)
#define OWN(fn)       TAKE_OWN, 0, 0, 0, fn
#define NO_KEY        0, NULL

static const run_option options[] = {
    {"--op", "spmv|spgemm", "the operation: y = A*x (default) or C = A*B", OWN(take_op), 0, NO_KEY},
    {"--b", "SPEC",
     "spgemm's B: a file, a gen: spec, thin:K[:PER_ROW] or transpose (A^T) (default: A itself "
     "when square, else A^T)",
     TAKE_TEXT, FIELD(opts.operand), 0, 0, NULL, 0, NO_KEY},
    {"--kernels", "PATTERNS", "comma-separated shell patterns, e.g. 'csr.*' (default all)",
     TAKE_TEXT, FIELD(opts.kernels), 0, 0, NULL, 0, NO_KEY},
    {"--reps", "N", "at least N timed samples (default " SPB_TEXT(RUN_DEFAULT_REPS) ")", TAKE_INT,
     FIELD(opts.timing.min_samples), 1, SPB_MAX_SAMPLES, NULL, 0, 3, "reps"},
    {"--min-time", "S",
     "and at least S seconds of samples (default " SPB_TEXT(RUN_DEFAULT_MIN_TIME) ")", TAKE_NUMBER,
     FIELD(opts.timing.min_time), 0, INFINITY, NULL, 0, 4, "min_time"},
    {"--max-noise", "PCT",
     "a row is noisy when its samples' interquartile range passes PCT% of the median "
     "(default " SPB_TEXT(SPB_NOISY_SPREAD_PCT) "), or one sample twice it",
     OWN(take_max_noise), 0, NO_KEY},
    {"--warmup", "N", "untimed calls first (default " SPB_TEXT(RUN_DEFAULT_WARMUP) ")", TAKE_INT,
     FIELD(opts.timing.warmup), 0, INT_MAX, NULL, 0, 2, "warmup"},
    {"--max-kernel-ms", "T",
     "a kernel whose first validated call takes over T ms is timed from that call alone (capped "
     "column) and the study moves on; a device row is judged by one whole product on the device "
     "(default: " SPB_TEXT(SPGEMM_MAX_KERNEL_MS) " with --op spgemm, else no cap; 0: none)",
     TAKE_NUMBER, FIELD(opts.max_kernel_ms), 0, INFINITY, NULL, 0, NO_KEY},
    {"--max-matrix-s", "S",
     "a matrix's rows not started after S seconds on it (loading included) are skipped, saying "
     "so: a long study bounds each matrix's time (default 0: no bound)",
     TAKE_NUMBER, FIELD(opts.max_matrix_s), 0, INFINITY, NULL, 0, NO_KEY},
    {"--energy-s", "S",
     "after a matrix's CPU or GPU rows are timed, run a row's products over a window of at least "
     "S seconds and " SPB_TEXT(SPB_ENERGY_PERIODS) " steps of the energy counter (NVML's moves "
                                                   "about every 100 ms, RAPL's every ms) for the "
                                                   "joules_per_product, watts, energy_err and "
                                                   "clock columns; 0: none (default " SPB_TEXT(
                                                       SPB_ENERGY_WINDOW_S) ")",
     TAKE_NUMBER, FIELD(opts.energy.window_s), 0, INFINITY, NULL, 0, NO_KEY},
    {"--energy-rows", "R",
     "which rows get that window: best (default: of each precision, the fastest spbench row and "
     "the fastest vendor row) or all",
     OWN(take_energy_rows), 0, NO_KEY},
    {"--bandwidth", "B",
     "the CPU roofline: auto (default: this machine's figure when under a week old, else "
     "measured and kept), measure (now), GBPS (given: 0.01 to 100000), none (no roofline "
     "fractions)",
     OWN(take_bandwidth), 0, NO_KEY},
    {"--seed", "S", "seed of the random x (default " SPB_TEXT(RUN_DEFAULT_SEED) ")", OWN(take_seed),
     0, NO_KEY},
    {"--tol", "T",
     "validation: a product fails when an entry is off by more than T (default " SPB_TEXT(
         SPB_DEFAULT_TOLERANCE) ") times its rounding bound, from its row's length and |A||x| "
                                "(docs/rows.md)",
     TAKE_NUMBER, FIELD(opts.tolerance), 0, INFINITY, NULL, 0, 1, "tol"},
    {"--hack-size", "LIST",
     "HLL rows per hack, SELL rows per slice (default " SPB_TEXT(HLL_DEFAULT_HACK_SIZE) ")",
     OWN(take_hack_size), 0, NO_KEY},
    {"--block-size", "LIST", "GPU threads per block (default: each kernel's own)",
     OWN(take_block_size), 0, NO_KEY},
    {"--tile", "LIST",
     "GPU SpGEMM accumulator columns per tile (default: the kernel's). --hack-size, "
     "--block-size and --tile take a LIST (64,128,256): each value a row of the kernels that "
     "take the setting (HLL and SELL rows the hack size, device rows that launch their own "
     "kernels the block size, the tiled SpGEMM rows the tile), named in the table "
     "(csr.cuda.warp:b128); the other rows run once, at the first value",
     OWN(take_tile), 0, NO_KEY},
    {"--precision", "P",
     "fp64 (default), fp32, or both: each kernel in each; a complex matrix (its file's field) "
     "runs in complex128 for fp64, complex64 for fp32 (those names work too)",
     OWN(take_precision), 0, NO_KEY},
    {"--threads", "LIST",
     "thread counts for OpenMP kernels: 1,2,4 or 1-8 or max (default max); serial kernels run "
     "once at 1 thread",
     OWN(take_threads), 0, NO_KEY},
    {"--ranks", "LIST",
     "a distributed study: the mpi.* and petsc.* rows (unless --kernels says otherwise) at each "
     "rank count, --threads per rank (default 1); spbench starts mpirun -np MAX itself (inside "
     "a Slurm allocation too); under mpirun or srun, at most the ranks started (default: all of "
     "them)",
     OWN(take_ranks), 0, NO_KEY},
    {"--weak", NULL,
     "with --ranks: each gen: spec is the matrix per rank, grown with the rank count (weak "
     "scaling)",
     TAKE_FLAG, FIELD(opts.weak), 0, 0, NULL, 0, NO_KEY},
    {"--csv", "FILE", "write result rows to FILE (flushed row by row)", TAKE_TEXT,
     FIELD(opts.out.csv_path), 0, 0, NULL, 1, NO_KEY},
    {"--resume", NULL, "keep FILE's rows and measure only what is missing", TAKE_FLAG,
     FIELD(resume), 0, 0, NULL, 1, NO_KEY},
    {"--force", NULL, "overwrite a --csv or --json file that holds results", TAKE_FLAG,
     FIELD(force), 0, 0, NULL, 1, NO_KEY},
    {"--json", "FILE", "the same rows with machine and build information", TAKE_TEXT,
     FIELD(opts.out.json_path), 0, 0, NULL, 1, NO_KEY},
    {"--cache", "DIR", "keep parsed matrices in DIR (binary, checked)", TAKE_TEXT,
     FIELD(opts.cache_dir), 0, 0, NULL, 1, NO_KEY},
    {"--plugin", "LIB.so",
     "add a plug-in's kernels to the table (repeatable; also SPB_PLUGIN_PATH; "
     "docs/guide/your-kernel.md)",
     OWN(take_plugin), 1, NO_KEY},
    {"--shard", "I/N",
     "measure only shard I of N of the matrix list (balanced by size, stable as the list "
     "grows; see scripts/slurm/submit.sh)",
     OWN(take_shard), 1, NO_KEY},
    {"--processes", "N",
     "the whole run N times, each in a fresh process (its rows in FILE.process-K.csv), combined "
     "into --csv/--json: each row the middle run's, the JSON with every run's median, a row "
     "whose runs spread over 10% marked noisy",
     TAKE_INT, FIELD(processes), 1, 1000, NULL, 1, NO_KEY},
    {"--process-index", "K/N", "set by --processes on its K-th run", OWN(take_process_index), 1,
     NO_KEY},
    {"--quiet", NULL, "no progress on stderr", TAKE_FLAG, FIELD(quiet), 0, 0, NULL, 1, NO_KEY},
    {"--dry-run", NULL,
     "list the matrices, kernels and rows the study would measure and an estimate of its time "
     "(each matrix read, each host row's rate timed on a generated matrix); measure and write "
     "nothing",
     TAKE_FLAG, FIELD(dry_run), 0, 0, NULL, 1, NO_KEY},
};

/* Takes the option at argv[*i] into a; 0 when it is none of run's. */
static int take_option(int argc, char **argv, int *i, run_args *a)
{
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        const run_option *o = &options[k];
        const char *v = NULL;
        if (o->kind == TAKE_FLAG ? strcmp(argv[*i], o->name) != 0
                                 : !option_value(argc, argv, i, o->name, &v))
            continue;
        char *field = (char *)a + o->field;
        switch (o->kind) {
        case TAKE_INT:
            *(int *)field = (int)parse_long(o->name, v, (long)o->min, (long)o->max);
            break;
        case TAKE_NUMBER: *(double *)field = parse_double(o->name, v, o->min); break;
        case TAKE_TEXT: *(const char **)field = v; break;
        case TAKE_FLAG: *(int *)field = 1; break;
        case TAKE_OWN: o->take(a, o->name, v); break;
        }
        return 1;
    }
    for (int k = 0; k < spb_file_output_count; k++) { /* the files a reporter owns whole */
        const char *v = NULL;
        if (!option_value(argc, argv, i, spb_file_outputs[k].option, &v)) continue;
        a->file_paths[k] = v;
        return 1;
    }
    return 0;
}

/* One option's line of run --help: name and value, then its help wrapped
 * at 80 columns. */
static void print_option(FILE *out, const char *name, const char *value, const char *help)
{
    char head[64];
    snprintf(head, sizeof head, "  %s%s%s", name, value ? " " : "", value ? value : "");
    int column = fprintf(out, "%-21s", head);
    for (const char *word = help; *word;) {
        size_t len = strcspn(word, " ");
        if (column > 22 && column + 1 + (int)len > 80) column = fprintf(out, "\n%21s", "");
        column += fprintf(out, " %.*s", (int)len, word);
        word += len + (word[len] == ' ');
    }
    fputc('\n', out);
}

void run_options_help(FILE *out, int outputs)
{
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
        const run_option *o = &options[k];
        if (o->output == outputs) print_option(out, o->name, o->value, o->help);
    }
    for (int k = 0; outputs && k < spb_file_output_count; k++)
        print_option(out, spb_file_outputs[k].option, spb_file_outputs[k].value,
                     spb_file_outputs[k].help);
}

/* The option at place `key` of measured_under (NULL: none). */
static const run_option *key_option(int key)
{
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if (options[k].key == key) return &options[k];
    return NULL;
}

static int last_key(void)
{
    int last = 0;
    for (size_t k = 0; k < sizeof options / sizeof options[0]; k++)
        if (options[k].key > last) last = options[k].key;
    return last;
}

/* The run's settings (its lists as given; each row's own: plan_row_settings)
 * and what every row was measured under: the keyed options, then the build
 * and commit (resume and merge never mix rows of two spbench builds) and
 * each plug-in's checksum (never rows of a changed library). */
static void compose_settings(run_args *a)
{
    spb_run_opts *o = &a->opts;
    plan_run_settings(o, a->settings, sizeof a->settings);
    o->settings = a->settings;
    char *text = a->measured_under;
    const size_t size = sizeof a->measured_under;
    text[0] = '\0';
    for (int key = 1; key <= last_key(); key++) {
        const run_option *opt = key_option(key);
        if (!opt) continue;
        const char *field = (const char *)a + opt->field;
        if (opt->kind == TAKE_INT)
            spb_appendf(text, size, "%s=%d ", opt->key_name, *(const int *)field);
        else
            spb_appendf(text, size, "%s=%g ", opt->key_name, *(const double *)field);
    }
    spb_appendf(text, size, "build=%s commit=%s%s%s", spb_build(), spb_git_commit(),
                plugins_provenance()[0] ? " " : "", plugins_provenance());
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
    o->timing = (spb_timing_opts){.warmup = RUN_DEFAULT_WARMUP,
                                  .min_samples = RUN_DEFAULT_REPS,
                                  .min_time = RUN_DEFAULT_MIN_TIME,
                                  .memory = &a->noise_memory};
    o->energy.window_s = SPB_ENERGY_WINDOW_S;
    o->energy_edge = &a->energy_edge;
    o->max_kernel_ms = -1; /* not given: the operation's default, below */
    o->seed = RUN_DEFAULT_SEED;
    o->tolerance = SPB_DEFAULT_TOLERANCE;
    o->config = (spb_kernel_config){
        .hack_size = HLL_DEFAULT_HACK_SIZE, .threads = 1, .precision = SPB_FP64};
    o->out.table = stdout;
    o->thread_counts = parse_count_list("--threads", "max", a->threads, MAX_THREAD_COUNTS);
    a->items = spb_malloc((size_t)argc, sizeof *a->items);
    for (int i = 0; i < argc; i++) {
        if (take_option(argc, argv, &i, a)) continue;
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
    for (int k = 0; k < spb_file_output_count && a->processes > 1; k++) {
        if (!a->file_paths[k]) continue;
        fprintf(stderr,
                "spbench: %s writes one run's rows; --processes combines several runs into "
                "--csv and --json: leave %s out\n",
                spb_file_outputs[k].option, spb_file_outputs[k].option);
        exit(EXIT_USAGE);
    }
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
