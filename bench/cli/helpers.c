/* helpers.c — the commands spbench's Python helpers do (plot, compare,
 * fetch, report, merge), started from where the helpers are installed or
 * built. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/report/resume.h"

#ifndef SPB_SHARE_FROM_BIN
#define SPB_SHARE_FROM_BIN "../share/spbench"
#endif

/* Where the helpers of folder `sub` (python: the spbench package) are: under the
 * installed prefix, found from this binary's own place
 * (BIN/SPB_SHARE_FROM_BIN/sub: a prefix can move), else, for the binary of
 * a build folder, in the source tree that folder's spbench.source names (a
 * file of the build, never installed: the binary itself does not know
 * where it was built). */
void helper_dir(const char *sub, char *dir, size_t size)
{
    char exe[SPB_PATH_LEN], source[SPB_PATH_LEN] = "";
    const int found = spb_self_dir(exe, sizeof exe);
    if (found) {
        int len = snprintf(dir, size, "%s/%s/%s", exe, SPB_SHARE_FROM_BIN, sub);
        if (len > 0 && (size_t)len < size && access(dir, R_OK) == 0) return;
        char note[4200];
        snprintf(note, sizeof note, "%s/spbench.source", exe);
        FILE *f = fopen(note, "r");
        if (f) {
            if (!fgets(source, sizeof source, f)) source[0] = '\0';
            source[strcspn(source, "\n")] = '\0';
            fclose(f);
        }
    }
    /* neither: the name says where they were looked for */
    int len = snprintf(dir, size, "%s/%s", source[0] ? source : found ? exe : ".", sub);
    if (len < 0 || (size_t)len >= size) snprintf(dir, size, "./%s", sub); /* a path past PATH_MAX */
}

/* Runs a command of the Python package `spbench` (python/spbench: the
 * CSV and JSON handling of plot, merge, compare, report and fetch): its
 * module file `module` (relative to the package), or the file the
 * environment variable `env` names, with the command's arguments; the
 * package's folder goes first on PYTHONPATH, so its modules import each
 * other by the package's name wherever it is installed. */
static int run_python(const char *env, const char *module, int argc, char **argv)
{
    char dir[SPB_PATH_LEN], script[8192], path[2 * SPB_PATH_LEN];
    const char *given = getenv(env), *before = getenv("PYTHONPATH");
    helper_dir("python", dir, sizeof dir);
    snprintf(script, sizeof script, "%s/spbench/%s", dir, module);
    if (given) snprintf(script, sizeof script, "%s", given);
    int len = snprintf(path, sizeof path, "%s%s%s", dir, before && *before ? ":" : "",
                       before ? before : "");
    if (len < 0 || (size_t)len >= sizeof path || setenv("PYTHONPATH", path, 1) != 0) {
        fprintf(stderr, "spbench: cannot set PYTHONPATH for %s\n", script);
        return EXIT_RESULTS_BAD;
    }
    char **args = calloc((size_t)argc + 3, sizeof *args);
    if (!args) return EXIT_RESULTS_BAD;
    args[0] = "python3";
    args[1] = script;
    for (int k = 0; k < argc; k++) args[k + 2] = argv[k];
    execvp("python3", args);
    fprintf(stderr, "spbench: cannot run python3 %s: %s (needs python3)\n", script,
            strerror(errno));
    free(args);
    return EXIT_RESULTS_BAD;
}

/* Charts are drawn by spbench.plots.plot (CSV handling) and gnuplot (drawing). */
int cmd_plot(int argc, char **argv)
{
    if (argc != 2 || argv[0][0] == '-') {
        fprintf(stderr, "spbench: usage: spbench plot RESULTS.csv OUTDIR\n");
        return EXIT_USAGE;
    }
    return run_python("SPB_PLOT_SCRIPT", "plots/plot.py", argc, argv);
}

/* Two studies, or two kernels of one, compared with statistics. */
int cmd_compare(int argc, char **argv)
{
    return run_python("SPB_COMPARE_SCRIPT", "compare.py", argc, argv);
}

/* Matrices of the SuiteSparse collection, chosen by what they are. */
int cmd_fetch(int argc, char **argv)
{
    return run_python("SPB_FETCH_SCRIPT", "fetch.py", argc, argv);
}

/* A study's results as one HTML page. */
int cmd_report(int argc, char **argv)
{
    return run_python("SPB_REPORT_SCRIPT", "report.py", argc, argv);
}

/* Shards of a study (run --shard I/N) into one results file. */
int cmd_merge(int argc, char **argv)
{
    int first = 0; /* --processes, --force and --partial come before OUT.csv */
    while (first < argc &&
           (strcmp(argv[first], "--processes") == 0 || strcmp(argv[first], "--force") == 0 ||
            strcmp(argv[first], "--partial") == 0))
        first++;
    if (argc < 2 + first || argv[first][0] == '-') {
        fprintf(stderr, "spbench: usage: spbench merge [--processes] [--force] [--partial] "
                        "OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]\n");
        return EXIT_USAGE;
    }
    /* every shard's rows get resume's verdict (one reader for both) */
    for (int k = first + 1; k < argc && strcmp(argv[k], "--json") != 0; k++) {
        char msg[SPB_MSG_LEN] = "";
        int rows;
        if (results_check(argv[k], &rows, msg) != SPB_OK) {
            fprintf(stderr, "spbench merge: %s; nothing written\n", msg);
            return EXIT_USAGE; /* a shard that cannot be used, as merge.py says it */
        }
    }
    return run_python("SPB_MERGE_SCRIPT", "merge.py", argc, argv);
}
