/* main.c — the spbench command: run, info, spmv, gen, --list. Only this file
 * prints usage and exits. */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../cpu/spmv_cpu.h"
#include "../gpu/gpu.h"
#include "bandwidth.h"
#include "gen.h"
#include "kernels.h"
#include "run.h"
#include "sources.h"
#include "validate.h"

#define SPB_VERSION "0.1.0"

enum { EXIT_RESULTS_BAD = 1, EXIT_USAGE = 2 };

static void usage(FILE *out)
{
    fprintf(out,
            "spbench " SPB_VERSION " — sparse matrix-vector kernels, measured and validated\n"
            "\n"
            "usage:\n"
            "  spbench run [options] MATRIX...   measure every selected kernel on each matrix\n"
            "  spbench info [--cache DIR] MATRIX...  statistics, parse speed (and cache speed)\n"
            "  spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] -o Y.mtx\n"
            "                                    one product y = A*x, written as Matrix Market\n"
            "  spbench gen SPEC -o FILE.mtx[.gz] write a generated matrix\n"
            "  spbench plot RESULTS.csv OUTDIR   charts (PNG and SVG) with gnuplot\n"
            "  spbench --list                    the kernel table\n"
            "\n"
            "MATRIX: a .mtx or .mtx.gz file, a directory (every matrix in it), @list.txt\n"
            "(one path or spec per line), or a generator spec: gen:lap2d:N, gen:lap3d:N,\n"
            "gen:random:ROWS:PER_ROW, gen:rmat:SCALE:EDGE_FACTOR.\n"
            "\n"
            "run options:\n"
            "  --kernels PATTERNS  comma-separated shell patterns, e.g. 'csr.*' (default all)\n"
            "  --reps N            at least N timed samples (default 10)\n"
            "  --min-time S        and at least S seconds of samples (default 0.1)\n"
            "  --warmup N          untimed calls first (default 2)\n"
            "  --seed S            seed of the random x (default 1)\n"
            "  --tol T             validation tolerance (default %.0e): a product fails when\n"
            "                      ||y - y_ref||_2 > T * || |A| |x| ||_2\n"
            "  --hack-size H       HLL rows per hack (default %d)\n"
            "  --block-size B      GPU threads per block (default: each kernel's own)\n"
            "  --threads LIST      thread counts for OpenMP kernels: 1,2,4 or 1-8 or max\n"
            "                      (default max); serial kernels run once at 1 thread\n"
            "  --csv FILE          write result rows to FILE (flushed row by row)\n"
            "  --resume            keep FILE's rows and measure only what is missing\n"
            "  --json FILE         the same rows with machine and build information\n"
            "  --cache DIR         keep parsed matrices in DIR (binary, checked)\n"
            "  --quiet             no progress on stderr\n"
            "\n"
            "Exit status: 0 when every row is ok or skipped, 1 when any is wrong or error,\n"
            "2 for a usage error.\n",
            SPB_DEFAULT_TOLERANCE, HLL_DEFAULT_HACK_SIZE);
}

/* ---- option parsing ----------------------------------------------------------- */

/* Matches "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i. */
static int option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0) return 0;
    if (argv[*i][len] == '=') {
        *value = argv[*i] + len + 1;
        return 1;
    }
    if (argv[*i][len] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "spbench: %s needs a value\n", name);
        exit(EXIT_USAGE);
    }
    *value = argv[++*i];
    return 1;
}

static long parse_long(const char *name, const char *text, long min)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno || end == text || *end || v < min) {
        fprintf(stderr, "spbench: %s expects an integer >= %ld, not '%s'\n", name, min, text);
        exit(EXIT_USAGE);
    }
    return v;
}

/* Whole decimal string as a positive long, or `otherwise`. */
static long parse_count_or(const char *text, long otherwise)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    return errno || end == text || *end ? otherwise : v;
}

static double parse_double(const char *name, const char *text, double min)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min) || !isfinite(v)) {
        fprintf(stderr, "spbench: %s expects a number >= %g, not '%s'\n", name, min, text);
        exit(EXIT_USAGE);
    }
    return v;
}

static void unknown_option(const char *arg)
{
    fprintf(stderr, "spbench: unknown option '%s' (see spbench --help)\n", arg);
    exit(EXIT_USAGE);
}

static spb_source_list expand_or_exit(int count, char **items)
{
    spb_source_list list;
    char msg[SPB_MSG_LEN] = "";
    if (count == 0) {
        fprintf(stderr, "spbench: no MATRIX given (see spbench --help)\n");
        exit(EXIT_USAGE);
    }
    if (sources_expand(count, items, &list, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        exit(EXIT_USAGE);
    }
    if (list.count == 0) {
        fprintf(stderr, "spbench: no matrix found in the arguments given\n");
        exit(EXIT_USAGE);
    }
    return list;
}

/* ---- spbench --list ----------------------------------------------------------- */

static int cmd_list(void)
{
    for (int k = 0; k < spb_kernel_count; k++) {
        const spb_kernel *kernel = &spb_kernels[k];
        char why[SPB_MSG_LEN] = "";
        int available = !kernel->supports || kernel->supports(NULL, why);
        printf("%-20s %-8s %-7s %s%s%s%s\n", kernel->name, kernel->format,
               backend_name(kernel->backend), kernel->description,
               available ? "" : " [unavailable: ", available ? "" : why, available ? "" : "]");
    }
    return 0;
}

/* ---- spbench info ------------------------------------------------------------- */

/* Fills the cache for source (if needed) and times a load from it. */
static void info_cache_load(const char *source, const char *cache_dir, double parse_s)
{
    char msg[SPB_MSG_LEN] = "", note[SPB_MSG_LEN];
    spb_csr A;
    if (mkdir(cache_dir, 0777) != 0 && errno != EEXIST) {
        printf("  cache           %s: cannot create: %s\n", cache_dir, strerror(errno));
        return;
    }
    spb_status st = source_load_cached(source, cache_dir, &A, note, msg);
    csr_free(&A);
    double start = timing_now();
    if (st == SPB_OK) st = source_load_cached(source, cache_dir, &A, note, msg);
    double load_s = timing_now() - start;
    csr_free(&A);
    if (st != SPB_OK || strcmp(note, "hit") != 0)
        printf("  cache           not used: %s\n", st != SPB_OK ? msg : note);
    else
        printf("  cache load      %.4f s (checked), %.1fx faster than parse + convert\n", load_s,
               load_s > 0 ? parse_s / load_s : 0.0);
}

static int cmd_info(int argc, char **argv)
{
    spb_index hack_size = HLL_DEFAULT_HACK_SIZE;
    const char *cache_dir = NULL;
    char **items = spb_malloc((size_t)argc, sizeof *items);
    int count = 0;
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--hack-size", &value))
            hack_size = (spb_index)parse_long("--hack-size", value, 1);
        else if (option_value(argc, argv, &i, "--cache", &value))
            cache_dir = value;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            unknown_option(argv[i]);
        else
            items[count++] = argv[i];
    }
    spb_source_list list = expand_or_exit(count, items);
    spb_free(items);
    int failures = 0;
    for (int k = 0; k < list.count; k++) {
        const char *source = list.items[k];
        char msg[SPB_MSG_LEN] = "";
        spb_coo coo = {0};
        spb_csr A = {0};
        spb_hll H = {0};
        spb_mm_info info = {0};
        double parse_s = 0, convert_s = 0, start = timing_now();
        spb_status st;
        if (gen_is_spec(source)) {
            st = gen_matrix(source, &A, msg);
            convert_s = timing_now() - start;
        } else {
            st = mm_read(source, &coo, &info, msg);
            parse_s = timing_now() - start;
            if (st == SPB_OK) {
                start = timing_now();
                st = csr_from_coo(&coo, &A, msg);
                convert_s = timing_now() - start;
            }
            coo_free(&coo);
        }
        if (st == SPB_OK) st = csr_check(&A, msg);
        if (st == SPB_OK) st = hll_from_csr(&A, hack_size, HLL_ROW_MAJOR, &H, msg);
        if (st != SPB_OK) {
            fprintf(stderr, "spbench: %s\n", msg);
            failures++;
            csr_free(&A);
            continue;
        }
        spb_csr_stats s;
        csr_stats(&A, &s);
        char name[256];
        source_name(source, name, sizeof name);
        printf("%s\n", name);
        printf("  source          %s\n", source);
        printf("  size            %d x %d, nnz %d (after expansion and duplicate summing)\n",
               (int)s.rows, (int)s.cols, (int)s.nnz);
        printf("  row length      min %d, mean %.2f, max %d, std %.2f; empty rows %d\n",
               (int)s.row_min, s.row_mean, (int)s.row_max, s.row_std, (int)s.empty_rows);
        printf("  HLL (H=%d)      stored %d entries, padding ratio %.3f\n", (int)hack_size,
               (int)hll_stored(&H), A.nnz ? (double)hll_stored(&H) / A.nnz : 1.0);
        printf("  bytes           CSR %.0f, HLL %.0f\n", csr_bytes(&A), hll_bytes(&H));
        if (!gen_is_spec(source)) {
            static const char *const fields[] = {"real", "integer", "pattern"};
            static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric"};
            printf("  file            %s %s %s, %lld entry lines\n",
                   info.is_array ? "array" : "coordinate", fields[info.field],
                   symmetries[info.symmetry], (long long)info.entries);
            printf("  parse           %.3f s for %.1f MB of text: %.1f MB/s (one core)\n", parse_s,
                   info.bytes / 1e6, parse_s > 0 ? info.bytes / 1e6 / parse_s : 0.0);
            printf("  COO -> CSR      %.3f s\n", convert_s);
            if (cache_dir) info_cache_load(source, cache_dir, parse_s + convert_s);
        } else {
            printf("  generate        %.3f s\n", convert_s);
        }
        csr_free(&A);
        hll_free(&H);
    }
    sources_free(&list);
    return failures ? EXIT_RESULTS_BAD : 0;
}

/* ---- spbench gen -------------------------------------------------------------- */

static int cmd_gen(int argc, char **argv)
{
    const char *spec = NULL, *out = NULL;
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "-o", &value))
            out = value;
        else if (argv[i][0] == '-')
            unknown_option(argv[i]);
        else if (!spec)
            spec = argv[i];
        else
            unknown_option(argv[i]);
    }
    if (!spec || !out || !gen_is_spec(spec)) {
        fprintf(stderr, "spbench: usage: spbench gen gen:KIND:ARGS -o FILE.mtx[.gz]\n");
        return EXIT_USAGE;
    }
    char msg[SPB_MSG_LEN] = "", comment[512];
    spb_csr A;
    spb_status st = gen_matrix(spec, &A, msg);
    snprintf(comment, sizeof comment, "generated by spbench gen %s", spec);
    if (st == SPB_OK) st = mm_write_csr(out, &A, comment, msg);
    csr_free(&A);
    if (st != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        return EXIT_RESULTS_BAD;
    }
    return 0;
}

/* ---- spbench spmv ------------------------------------------------------------- */

static int cmd_spmv(int argc, char **argv)
{
    const char *matrix = NULL, *kernel_name = NULL, *x_path = NULL, *out = NULL;
    uint64_t seed = 1;
    spb_kernel_config config = {HLL_DEFAULT_HACK_SIZE, 1, 0};
    double tolerance = SPB_DEFAULT_TOLERANCE;
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--kernel", &value))
            kernel_name = value;
        else if (option_value(argc, argv, &i, "--x", &value))
            x_path = value;
        else if (option_value(argc, argv, &i, "--seed", &value))
            seed = (uint64_t)parse_long("--seed", value, 0);
        else if (option_value(argc, argv, &i, "--hack-size", &value))
            config.hack_size = (spb_index)parse_long("--hack-size", value, 1);
        else if (option_value(argc, argv, &i, "--tol", &value))
            tolerance = parse_double("--tol", value, 0);
        else if (option_value(argc, argv, &i, "-o", &value))
            out = value;
        else if (argv[i][0] == '-')
            unknown_option(argv[i]);
        else if (!matrix)
            matrix = argv[i];
        else
            unknown_option(argv[i]);
    }
    if (!matrix || !kernel_name || !out) {
        fprintf(stderr, "spbench: usage: spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] "
                        "-o Y.mtx\n");
        return EXIT_USAGE;
    }
    const spb_kernel *kernel = kernel_find(kernel_name);
    if (!kernel) {
        fprintf(stderr, "spbench: no kernel named '%s' (see spbench --list)\n", kernel_name);
        return EXIT_USAGE;
    }
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    spb_value *x = NULL, *y = NULL, *y_ref = NULL, *y_abs = NULL;
    spb_kernel_plan plan = {0};
    int prepared = 0, code = EXIT_RESULTS_BAD;
    spb_status st = source_load(matrix, &A, NULL, msg);
    if (st != SPB_OK) goto done;
    if (x_path) {
        spb_index len;
        st = mm_read_vector(x_path, &len, &x, msg);
        if (st == SPB_OK && len != A.n)
            st = spb_fail(msg, SPB_ERR_INVALID, "%s: x has %d entries, the matrix %d columns",
                          x_path, (int)len, (int)A.n);
    } else if ((x = spb_malloc((size_t)A.n, sizeof *x))) {
        run_random_vector(seed, A.n, x);
    } else {
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    }
    if (st != SPB_OK) goto done;
    y = spb_malloc((size_t)A.m, sizeof *y);
    y_ref = spb_malloc((size_t)A.m, sizeof *y_ref);
    y_abs = spb_malloc((size_t)A.m, sizeof *y_abs);
    if (!y || !y_ref || !y_abs) {
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (kernel->supports && !kernel->supports(&A, msg)) {
        st = spb_fail(msg, SPB_ERR_UNSUPPORTED, "kernel %s cannot run here", kernel->name);
        goto done;
    }
    st = kernel->prepare(&A, &config, &plan, msg);
    if (st != SPB_OK) goto done;
    prepared = 1;
    kernel->run(plan.state, x, y);
    csr_reference_spmv(&A, x, y_ref);
    csr_abs_spmv(&A, x, y_abs);
    spb_validation v;
    validate_vector(A.m, y, y_ref, vector_norm2(A.m, y_abs), tolerance, &v);
    fprintf(stderr, "spbench: %s on %s: abs_l2_err %.3e, rel_l2_err %.3e, %s\n", kernel->name,
            matrix, v.abs_l2, v.rel_l2, v.passed ? "ok" : "FAILED validation");
    if (!v.passed) {
        st = spb_fail(msg, SPB_ERR_INVALID, "%s failed validation; %s not written", kernel->name,
                      out);
        goto done;
    }
    char comment[512];
    snprintf(comment, sizeof comment, "y = A*x by spbench %s, kernel %s, matrix %s", SPB_VERSION,
             kernel->name, matrix);
    st = mm_write_vector(out, A.m, y, comment, msg);
    if (st == SPB_OK) code = 0;
done:
    if (st != SPB_OK) fprintf(stderr, "spbench: %s\n", msg);
    if (prepared) kernel->release(plan.state);
    spb_free(x);
    spb_free(y);
    spb_free(y_ref);
    spb_free(y_abs);
    csr_free(&A);
    return code;
}

/* Parses a thread list: "1,2,4", "1-8", "max" and mixes ("1,2-4,max") into
 * ascending distinct counts; exits on a bad list. */
static int parse_thread_list(const char *text, int *counts, int cap)
{
    int max = omp_get_num_procs(), count = 0;
    char item[64];
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item) goto bad;
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        char *dash = strchr(item, '-');
        if (dash) *dash = '\0';
        long lo = strcmp(item, "max") == 0 ? max : parse_count_or(item, -1);
        long hi = !dash ? lo : strcmp(dash + 1, "max") == 0 ? max : parse_count_or(dash + 1, -1);
        if (lo < 1 || hi < lo || hi > 4096) goto bad;
        for (long t = lo; t <= hi; t++) {
            int seen = 0;
            for (int k = 0; k < count; k++) seen |= counts[k] == t;
            if (seen) continue;
            if (count == cap) goto bad;
            counts[count++] = (int)t;
        }
    }
    if (count == 0) goto bad;
    for (int a = 1; a < count; a++) /* insertion sort: lists are short */
        for (int b = a; b > 0 && counts[b - 1] > counts[b]; b--) {
            int swap = counts[b];
            counts[b] = counts[b - 1];
            counts[b - 1] = swap;
        }
    return count;
bad:
    fprintf(stderr,
            "spbench: --threads expects counts like 1,2,4 or 1-8 or max (1..4096, at most %d), "
            "not '%s'\n",
            cap, text);
    exit(EXIT_USAGE);
}

/* ---- --json: rows with the machine and build -------------------------------------- */

#define SPB_JSON_FORMAT_VERSION 1

#ifndef SPB_GIT_COMMIT
#define SPB_GIT_COMMIT "unknown"
#endif

/* The CPU model from /proc/cpuinfo, or "unknown". */
static void cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

static spb_status json_begin(const spb_run_opts *opts, const spb_gpu_info *gpu,
                             const char *gpu_reason, int matrices, char *msg)
{
    FILE *j = opts->json;
    char model[256], date[64];
    cpu_model(model, sizeof model);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(j, "{\n  \"format\": \"spbench-results\",\n  \"format_version\": %d,\n",
            SPB_JSON_FORMAT_VERSION);
    fprintf(j, "  \"spbench\": {\"version\": \"%s\", \"git_commit\": \"%s\", \"compiler\": ",
            SPB_VERSION, SPB_GIT_COMMIT);
    report_json_string(j, __VERSION__);
    fprintf(j, ", \"cuda_compiled\": %s},\n", gpu_compiled() ? "true" : "false");
    fprintf(j, "  \"date\": \"%s\",\n  \"machine\": {\n    \"cpu_model\": ", date);
    report_json_string(j, model);
    fprintf(j, ",\n    \"cpu_cores\": %d,\n    \"cpu_bandwidth_gbs\": {\"1\": %.4g",
            omp_get_num_procs(), opts->serial_bandwidth_gbs);
    for (int c = 0; c < opts->thread_counts; c++)
        if (opts->threads[c] != 1)
            fprintf(j, ", \"%d\": %.4g", opts->threads[c], opts->bandwidth_gbs[c]);
    fprintf(j, "},\n    \"gpu\": ");
    if (gpu) {
        fprintf(j, "{\"name\": ");
        report_json_string(j, gpu->name);
        fprintf(j,
                ", \"sm_count\": %d, \"compute_capability\": \"%d.%d\", \"memory_bytes\": %.0f, "
                "\"driver_version\": %d, \"runtime_version\": %d, \"copy_bandwidth_gbs\": %.4g}",
                gpu->sm_count, gpu->cc_major, gpu->cc_minor, gpu->memory_bytes, gpu->driver_version,
                gpu->runtime_version, opts->gpu_bandwidth_gbs);
    } else {
        fprintf(j, "{\"name\": null, \"reason\": ");
        report_json_string(j, gpu_reason);
        fputc('}', j);
    }
    fprintf(j, "\n  },\n  \"settings\": {\"row_key\": ");
    report_json_string(j, opts->settings);
    fprintf(j,
            ", \"kernels\": \"%s\", \"warmup\": %d, \"min_samples\": %d, \"min_time_s\": %g, "
            "\"tolerance\": %g, \"matrices\": %d},\n  \"columns\": ",
            opts->kernels ? opts->kernels : "*", opts->timing.warmup, opts->timing.min_samples,
            opts->timing.min_time, opts->tolerance, matrices);
    report_json_string(j, report_csv_columns());
    fprintf(j, ",\n  \"rows\": [");
    if (fflush(j) != 0 || ferror(j))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", opts->json_path, strerror(errno));
    return SPB_OK;
}

static spb_status json_end(const spb_run_opts *opts, const spb_run_totals *totals, char *msg)
{
    fprintf(opts->json,
            "\n  ],\n  \"totals\": {\"rows\": %d, \"ok\": %d, \"wrong\": %d, \"skipped\": %d, "
            "\"error\": %d, \"already_in_csv\": %d}\n}\n",
            totals->rows, totals->ok, totals->wrong, totals->skipped, totals->errors,
            totals->resumed);
    if (fflush(opts->json) != 0 || ferror(opts->json))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", opts->json_path, strerror(errno));
    return SPB_OK;
}

/* ---- spbench run -------------------------------------------------------------- */

static int cmd_run(int argc, char **argv)
{
    spb_run_opts opts = {0};
    opts.timing = (spb_timing_opts){2, 10, 0.1};
    opts.seed = 1;
    opts.tolerance = SPB_DEFAULT_TOLERANCE;
    opts.config = (spb_kernel_config){HLL_DEFAULT_HACK_SIZE, 1, 0};
    opts.table = stdout;
    int resume = 0, quiet = 0;
    int thread_list[64] = {0};
    double bandwidths[64] = {0};
    opts.thread_counts = parse_thread_list("max", thread_list, 64);
    char **items = spb_malloc((size_t)argc, sizeof *items);
    int count = 0;
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--kernels", &value))
            opts.kernels = value;
        else if (option_value(argc, argv, &i, "--reps", &value))
            opts.timing.min_samples = (int)parse_long("--reps", value, 1);
        else if (option_value(argc, argv, &i, "--min-time", &value))
            opts.timing.min_time = parse_double("--min-time", value, 0);
        else if (option_value(argc, argv, &i, "--warmup", &value))
            opts.timing.warmup = (int)parse_long("--warmup", value, 0);
        else if (option_value(argc, argv, &i, "--seed", &value))
            opts.seed = (uint64_t)parse_long("--seed", value, 0);
        else if (option_value(argc, argv, &i, "--tol", &value))
            opts.tolerance = parse_double("--tol", value, 0);
        else if (option_value(argc, argv, &i, "--hack-size", &value))
            opts.config.hack_size = (spb_index)parse_long("--hack-size", value, 1);
        else if (option_value(argc, argv, &i, "--csv", &value))
            opts.csv_path = value;
        else if (option_value(argc, argv, &i, "--threads", &value))
            opts.thread_counts = parse_thread_list(value, thread_list, 64);
        else if (option_value(argc, argv, &i, "--block-size", &value))
            opts.config.block_size = (int)parse_long("--block-size", value, 1);
        else if (option_value(argc, argv, &i, "--json", &value))
            opts.json_path = value;
        else if (option_value(argc, argv, &i, "--cache", &value))
            opts.cache_dir = value;
        else if (strcmp(argv[i], "--resume") == 0)
            resume = 1;
        else if (strcmp(argv[i], "--quiet") == 0)
            quiet = 1;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            unknown_option(argv[i]);
        else
            items[count++] = argv[i];
    }
    opts.threads = thread_list;
    opts.bandwidth_gbs = bandwidths;
    int selected = 0, selected_cuda = 0;
    for (int k = 0; k < spb_kernel_count; k++) {
        int chosen = kernel_selected(spb_kernels[k].name, opts.kernels);
        selected += chosen;
        selected_cuda += chosen && spb_kernels[k].backend == SPB_BACKEND_CUDA;
    }
    if (!selected) {
        fprintf(stderr, "spbench: --kernels '%s' matches no kernel (see spbench --list)\n",
                opts.kernels);
        spb_free(items);
        return EXIT_USAGE;
    }
    spb_source_list list = expand_or_exit(count, items);
    spb_free(items);
    char msg[SPB_MSG_LEN] = "";
    char settings[128];
    if (opts.config.block_size)
        snprintf(settings, sizeof settings, "hack_size=%d block_size=%d seed=%llu",
                 (int)opts.config.hack_size, opts.config.block_size, (unsigned long long)opts.seed);
    else
        snprintf(settings, sizeof settings, "hack_size=%d block_size=auto seed=%llu",
                 (int)opts.config.hack_size, (unsigned long long)opts.seed);
    opts.settings = settings;
    spb_done_set done = {0};
    int csv_has_header = 0;
    if (resume && !opts.csv_path) {
        fprintf(stderr, "spbench: --resume needs --csv FILE (the rows to resume from)\n");
        sources_free(&list);
        return EXIT_USAGE;
    }
    if (resume && resume_load(opts.csv_path, &done, &csv_has_header, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        sources_free(&list);
        return EXIT_USAGE;
    }
    if (resume) opts.done = &done;
    /* Open the outputs before any work, so an unwritable path costs nothing. */
    const char *failed_path = NULL;
    if (opts.csv_path && !(opts.csv = fopen(opts.csv_path, resume ? "a" : "w")))
        failed_path = opts.csv_path;
    if (!failed_path && opts.json_path && !(opts.json = fopen(opts.json_path, "w")))
        failed_path = opts.json_path;
    if (!failed_path && opts.cache_dir && mkdir(opts.cache_dir, 0777) != 0 && errno != EEXIST)
        failed_path = opts.cache_dir;
    if (failed_path) {
        fprintf(stderr, "spbench: %s: cannot write: %s\n", failed_path, strerror(errno));
        if (opts.csv) fclose(opts.csv);
        if (opts.json) fclose(opts.json);
        resume_free(&done);
        sources_free(&list);
        return EXIT_USAGE;
    }
    spb_status st = csv_has_header ? SPB_OK : report_csv_header(opts.csv, opts.csv_path, msg);
    /* The roofline at every thread count in use, measured once per run. */
    if (st == SPB_OK) st = bandwidth_cpu_triad(1, &opts.serial_bandwidth_gbs, msg);
    for (int c = 0; c < opts.thread_counts && st == SPB_OK; c++) {
        if (opts.threads[c] == 1)
            bandwidths[c] = opts.serial_bandwidth_gbs;
        else
            st = bandwidth_cpu_triad(opts.threads[c], &bandwidths[c], msg);
    }
    spb_gpu_info gpu;
    char gpu_msg[SPB_MSG_LEN] = "";
    int have_gpu = gpu_query(&gpu, gpu_msg) == SPB_OK;
    if (st == SPB_OK && have_gpu && selected_cuda)
        st = gpu_copy_bandwidth(&opts.gpu_bandwidth_gbs, msg);
    if (st == SPB_OK) {
        printf("# spbench %s: %d matrices, %d kernels selected, seed %llu\n", SPB_VERSION,
               list.count, selected, (unsigned long long)opts.seed);
        printf("# OpenMP: %d processors, OMP_PROC_BIND=%s, OMP_PLACES=%s\n", omp_get_num_procs(),
               getenv("OMP_PROC_BIND"), getenv("OMP_PLACES"));
        printf("# CPU memory bandwidth (STREAM triad): %.2f GB/s at 1 thread",
               opts.serial_bandwidth_gbs);
        for (int c = 0; c < opts.thread_counts; c++)
            if (opts.threads[c] != 1) printf(", %.2f at %d", bandwidths[c], opts.threads[c]);
        printf("\n");
        if (have_gpu)
            printf("# GPU: %s, %d SMs, %.1f GiB, compute capability %d.%d, driver %d, runtime %d;"
                   " device-to-device copy (read + write): %.1f GB/s\n",
                   gpu.name, gpu.sm_count, gpu.memory_bytes / (1024.0 * 1024 * 1024), gpu.cc_major,
                   gpu.cc_minor, gpu.driver_version, gpu.runtime_version, opts.gpu_bandwidth_gbs);
        else
            printf("# GPU: %s\n", gpu_msg);
        printf("# validation: ||y - y_ref||_2 <= %.1e * || |A| |x| ||_2\n", opts.tolerance);
        printf("# settings: %s%s\n", settings, resume ? "; resuming" : "");
        printf("# timing: %d warm-up calls, >= %d samples and >= %.3g s per kernel\n",
               opts.timing.warmup, opts.timing.min_samples, opts.timing.min_time);
        report_table_header(stdout);
    }
    if (st == SPB_OK && opts.json)
        st = json_begin(&opts, have_gpu ? &gpu : NULL, gpu_msg, list.count, msg);
    spb_progress progress = {quiet ? NULL : stderr, !quiet && isatty(fileno(stderr)), 0, list.count,
                             timing_now()};
    opts.progress = &progress;
    spb_run_totals totals = {0};
    for (int k = 0; k < list.count && st == SPB_OK; k++) {
        progress.index = k + 1;
        st = run_matrix(list.items[k], &opts, &totals, msg);
    }
    progress_finish(&progress);
    if (st == SPB_OK && opts.json) st = json_end(&opts, &totals, msg);
    if (opts.json && fclose(opts.json) != 0 && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", opts.json_path, strerror(errno));
    resume_free(&done);
    sources_free(&list);
    if (opts.csv && fclose(opts.csv) != 0 && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", opts.csv_path, strerror(errno));
    if (st != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        run_totals_free(&totals);
        return EXIT_RESULTS_BAD;
    }
    run_print_summary(stdout, &totals);
    run_totals_free(&totals);
    printf("# %d rows: %d ok, %d wrong, %d skipped, %d error", totals.rows, totals.ok, totals.wrong,
           totals.skipped, totals.errors);
    if (resume) printf("; %d rows were already in %s", totals.resumed, opts.csv_path);
    printf("\n");
    return totals.wrong || totals.errors ? EXIT_RESULTS_BAD : 0;
}

/* ---- spbench plot -------------------------------------------------------------- */

#ifndef SPB_PLOTS_DIR
#define SPB_PLOTS_DIR "plots"
#endif

/* Charts are drawn by plots/plot.py (CSV handling) and gnuplot (drawing). */
static int cmd_plot(int argc, char **argv)
{
    if (argc != 2 || argv[0][0] == '-') {
        fprintf(stderr, "spbench: usage: spbench plot RESULTS.csv OUTDIR\n");
        return EXIT_USAGE;
    }
    const char *script = getenv("SPB_PLOT_SCRIPT");
    if (!script) script = SPB_PLOTS_DIR "/plot.py";
    execlp("python3", "python3", script, argv[0], argv[1], (char *)NULL);
    fprintf(stderr, "spbench: cannot run python3 %s: %s (spbench plot needs python3 and gnuplot)\n",
            script, strerror(errno));
    return EXIT_RESULTS_BAD;
}

int main(int argc, char **argv)
{
    /* Thread placement must be set before the OpenMP runtime starts; a
     * user's own settings win. Both are reported by `spbench run`. */
    setenv("OMP_PROC_BIND", "close", 0);
    setenv("OMP_PLACES", "cores", 0);
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("spbench %s (CUDA %s)\n", SPB_VERSION, gpu_compiled() ? "compiled in" : "not built");
        return 0;
    }
    if (strcmp(cmd, "--list") == 0 || strcmp(cmd, "list") == 0) return cmd_list();
    if (strcmp(cmd, "run") == 0) return cmd_run(argc - 2, argv + 2);
    if (strcmp(cmd, "info") == 0) return cmd_info(argc - 2, argv + 2);
    if (strcmp(cmd, "spmv") == 0) return cmd_spmv(argc - 2, argv + 2);
    if (strcmp(cmd, "gen") == 0) return cmd_gen(argc - 2, argv + 2);
    if (strcmp(cmd, "plot") == 0) return cmd_plot(argc - 2, argv + 2);
    fprintf(stderr, "spbench: unknown command '%s' (see spbench --help)\n", cmd);
    return EXIT_USAGE;
}
