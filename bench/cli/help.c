/* help.c — what `spbench --help` and `spbench COMMAND --help` print: the
 * commands, run's options and each command's usage. */
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/run_args.h"
#include "bench/machine/energy.h"
#include "bench/validation/validate.h"
#include "formats/hll.h"

/* A command's line of the overview: its synopsis, then what it does at
 * the 36th column, on the next line when the synopsis is longer. */
static void print_command_line(FILE *out, const char *synopsis, const char *summary)
{
    int used = fprintf(out, "  spbench %s", synopsis);
    if (used + 1 + (int)strlen(summary) > 80) used = fprintf(out, "\n") - 1;
    fprintf(out, "%*s%s\n", used < 36 ? 36 - used : 1, "", summary);
}

static void print_commands(FILE *out)
{
    fprintf(out, "spbench " SPB_VERSION
                 " — sparse kernels (SpMV, SpGEMM), measured and validated\n\nusage:\n");
    const spb_command *c;
    for (int k = 0; (c = command_at(k)) != NULL; k++)
        print_command_line(out, c->synopsis, c->summary);
    print_command_line(out, "--version", "version, what is built in, where the helpers are");
    print_command_line(out, "COMMAND --help", "that command's options");
    fprintf(out, "\n"
                 "MATRIX: a .mtx file (plain, gzip, bzip2 or xz: .mtx.gz, .mtx.bz2, .mtx.xz), a\n"
                 "directory (every matrix in it), @list.txt\n"
                 "(one path or spec per line), or a generator spec: gen:lap2d:N[:LAYERS],\n"
                 "gen:lap3d:N[:LAYERS], gen:random:ROWS:PER_ROW,\n"
                 "gen:rmat:SCALE:EDGE_FACTOR[:A_PERCENT], gen:hubs:ROWS:PER_ROW:HUBS:HUB_LEN,\n"
                 "gen:road:N:KEEP_PERCENT, gen:lp:ROWS:COLS:PER_COL:DENSE_PERCENT[:DENSE_ROWS],\n"
                 "gen:circuit:N:PER_ROW:NETS:NET_LEN, gen:fem:N:DOF.\n");
}

/* run's options (run_options.c's table) and its exit status. */
static void print_run_options(FILE *out)
{
    fputs("run options:\n", out);
    run_options_help(out, 0);
    run_options_help(out, 1);
    fputs("\n"
          "Exit status: 0 when every row is ok or skipped, 1 when any is wrong or error,\n"
          "2 for a usage error (an input that cannot be used among them, refused before\n"
          "anything is measured), 3 when no row was measured (every row skipped, or none\n"
          "this machine can run selected), 128 + the signal after Ctrl-C (SIGINT) or\n"
          "SIGTERM. A kernel this machine cannot run that a wildcard of --kernels\n"
          "matches is left out (a line says so); one named whole gets its skipped rows.\n",
          out);
}

void cli_usage(FILE *out)
{
    print_commands(out);
    fputc('\n', out);
    print_run_options(out);
}

/* `spbench COMMAND --help`: 1 when it printed that command's help. */
int print_command_help(const char *cmd)
{
    const spb_command *c = command_named(cmd);
    if (!c) return 0;
    if (!c->help) { /* run: its options */
        printf("usage: spbench %s\n\n", c->synopsis);
        print_run_options(stdout);
        return 1;
    }
    fputs(c->help, stdout);
    return 1;
}
