/* cli.h — what the spbench subcommands share: exit codes, option parsing
 * (a usage error exits with EXIT_USAGE), and the command entry points. */
#ifndef SPB_CLI_H
#define SPB_CLI_H

#include <stdio.h>

#include "bench/inputs/sources.h"

/* The commit the binary was built from ("abc123def456", "-dirty" when the
 * tree had changes, "unknown" outside git): captured at every build. */
const char *spb_git_commit(void);

/* How the binary was built: "Release (-O3 -DNDEBUG)", the build type and
 * the C flags the kernels were compiled with. */
const char *spb_build(void);

enum { EXIT_RESULTS_BAD = 1, EXIT_USAGE = 2, EXIT_NOTHING_MEASURED = 3 };

/* Matches "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i. */
int option_value(int argc, char **argv, int *i, const char *name, const char **value);
/* The most threads a count may ask for (every command). */
#define SPB_MAX_THREADS 4096
/* An option's integer in [min, max] (what it is stored in allows), or a
 * usage error naming the range. */
long parse_long(const char *name, const char *text, long min, long max);
double parse_double(const char *name, const char *text, double min);
void unknown_option(const char *arg);

/* An output file that exists is replaced only under --force, as run's
 * results files are: exits with a usage error naming it otherwise. */
void refuse_existing_or_exit(const char *path, int force);
/* The MATRIX arguments expanded; exits when none is left. */
spb_source_list expand_or_exit(int count, char **items);
/* The value of a count list option (--threads, --ranks): "1,2,4", "1-8",
 * "max" (the processors) and mixes into ascending distinct counts. */
int parse_count_list(const char *option, const char *text, int *counts, int cap);
/* Parses a list of integers in min..max ("64" or "64,128,256") into
 * ascending distinct values; exits on a bad list. */
int parse_value_list(const char *option, const char *text, long min, long max, int *values,
                     int cap);

/* SIGINT and SIGTERM to handler, with sigaction's flags (SA_RESTART: the
 * files' reads and writes go on). */
void on_stop_signals(void (*handler)(int), int flags);

/* The subcommands: argv holds the arguments after the command's name. */
int cmd_run(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_spmv(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_new_kernel(int argc, char **argv);
int cmd_spgemm(int argc, char **argv);
int cmd_list(int argc, char **argv); /* cmd_list.c */
int cmd_plot(int argc, char **argv); /* helpers.c: the Python helpers' */
int cmd_compare(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_merge(int argc, char **argv);

/* Where the Python helpers of folder `sub` (scripts, plots) are (helpers.c). */
void helper_dir(const char *sub, char *dir, size_t size);

/* spbench's usage, and `spbench COMMAND --help`: 1 when it printed that
 * command's help (help.c). */
/* A subcommand (commands.c's table): its name, entry point (the
 * arguments after the name), its line in `spbench --help` and what
 * `spbench NAME --help` prints (NULL: run's, made from its options). */
typedef struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *synopsis, *summary;
    const char *help;
} spb_command;
/* The command of that name (--list is list), or NULL; the k-th of the
 * table, or NULL past its end. */
const spb_command *command_named(const char *name);
const spb_command *command_at(int k);

void cli_usage(FILE *out);
int print_command_help(const char *cmd);

/* The plug-ins of SPB_PLUGIN_PATH and --plugin loaded; 0, or EXIT_USAGE
 * after one line (plugin_args.c). */
int load_plugins(int argc, char **argv);

#endif
