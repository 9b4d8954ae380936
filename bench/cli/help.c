/* help.c — what `spbench --help` and `spbench COMMAND --help` print: the
 * commands, run's options and each command's usage. */
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"
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

/* run's options for its outputs and the study's shape, and its exit status. */
static void print_run_output_options(FILE *out)
{
    fputs("  --csv FILE          write result rows to FILE (flushed row by row)\n"
          "  --resume            keep FILE's rows and measure only what is missing\n"
          "  --force             overwrite a --csv or --json file that holds results\n"
          "  --json FILE         the same rows with machine and build information\n"
          "  --cache DIR         keep parsed matrices in DIR (binary, checked)\n"
          "  --plugin LIB.so     add a plug-in's kernels to the table (repeatable; also\n"
          "                      SPB_PLUGIN_PATH; docs/guide/your-kernel.md)\n"
          "  --shard I/N         measure only shard I of N of the matrix list (balanced by\n"
          "                      size, stable as the list grows; see scripts/slurm/submit.sh)\n"
          "  --processes N       the whole run N times, each in a fresh process (its rows in\n"
          "                      FILE.process-K.csv), combined into --csv/--json: each row\n"
          "                      the middle run's, the JSON with every run's median, a row\n"
          "                      whose runs spread over 10% marked noisy\n"
          "  --process-index K/N set by --processes on its K-th run\n"
          "  --quiet             no progress on stderr\n"
          "  --dry-run           list the matrices, kernels and rows the study would\n"
          "                      measure and an estimate of its time (each matrix\n"
          "                      read, each host row's rate timed on a generated\n"
          "                      matrix); measure and write nothing\n"
          "\n"
          "Exit status: 0 when every row is ok or skipped, 1 when any is wrong or error,\n"
          "2 for a usage error (an input that cannot be used among them, refused before\n"
          "anything is measured), 3 when no row was measured (every row skipped, or none\n"
          "this machine can run selected), 128 + the signal after Ctrl-C (SIGINT) or\n"
          "SIGTERM. A kernel this machine cannot run that a wildcard of --kernels\n"
          "matches is left out (a line says so); one named whole gets its skipped rows.\n",
          out);
}

static void print_run_options(FILE *out)
{
    fprintf(out,
            "run options:\n"
            "  --op spmv|spgemm    the operation: y = A*x (default) or C = A*B\n"
            "  --b SPEC            spgemm's B: a file, a gen: spec, thin:K[:PER_ROW] or\n"
            "                      transpose (A^T)\n"
            "                      (default: A itself when square, else A^T)\n"
            "  --kernels PATTERNS  comma-separated shell patterns, e.g. 'csr.*' (default all)\n"
            "  --reps N            at least N timed samples (default 10)\n"
            "  --min-time S        and at least S seconds of samples (default 0.1)\n"
            "  --max-noise PCT     a row is noisy when its samples' interquartile range\n"
            "                      passes PCT%% of the median (default 10), or one sample\n"
            "                      twice it\n"
            "  --warmup N          untimed calls first (default 2)\n"
            "  --max-kernel-ms T   a kernel whose first validated call takes over T ms is\n"
            "                      timed from that call alone (capped column) and the study\n"
            "                      moves on; a device row is judged by one whole product on\n"
            "                      the device (default: 1000 with --op spgemm, else no cap;\n"
            "                      0: none)\n"
            "  --max-matrix-s S    a matrix's rows not started after S seconds on it\n"
            "                      (loading included) are skipped, saying so: a long study\n"
            "                      bounds each matrix's time (default 0: no bound)\n"
            "  --energy-s S        after a matrix's CPU or GPU rows are timed, run a row's\n"
            "                      products over a window of at least S seconds and %d\n"
            "                      steps of the energy counter (NVML's moves about every\n"
            "                      100 ms, RAPL's every ms) for the joules_per_product,\n"
            "                      watts, energy_err and clock columns; 0: none (default\n"
            "                      %.2g)\n"
            "  --energy-rows R     which rows get that window: best (default: of each\n"
            "                      precision, the fastest spbench row and the fastest vendor\n"
            "                      row) or all\n"
            "  --bandwidth B       the CPU roofline: auto (default: this machine's figure\n"
            "                      when under a week old, else measured and kept), measure\n"
            "                      (now), GBPS (given: 0.01 to 100000), none (no roofline\n"
            "                      fractions)\n"
            "  --seed S            seed of the random x (default 1)\n"
            "  --tol T             validation: a product fails when an entry is off by more\n"
            "                      than T (default %g) times its rounding bound, from its\n"
            "                      row's length and |A||x| (docs/rows.md)\n"
            "  --hack-size LIST    HLL rows per hack, SELL rows per slice (default %d)\n"
            "  --block-size LIST   GPU threads per block (default: each kernel's own)\n"
            "  --precision P       fp64 (default), fp32, or both: each kernel in each; a\n"
            "                      complex matrix (its file's field) runs in complex128\n"
            "                      for fp64, complex64 for fp32 (those names work too)\n"
            "  --tile LIST         GPU SpGEMM accumulator columns per tile (default: the\n"
            "                      kernel's)\n"
            "                      --hack-size, --block-size and --tile take a LIST\n"
            "                      (64,128,256): each value a row of the kernels that take\n"
            "                      the setting (HLL and SELL rows the hack size, device rows\n"
            "                      that launch their own kernels the block size, the tiled\n"
            "                      SpGEMM rows the tile), named in the table\n"
            "                      (csr.cuda.warp:b128); the other rows run once, at the\n"
            "                      first value\n"
            "  --threads LIST      thread counts for OpenMP kernels: 1,2,4 or 1-8 or max\n"
            "                      (default max); serial kernels run once at 1 thread\n"
            "  --ranks LIST        a distributed study: the mpi.* and petsc.* rows (unless\n"
            "                      --kernels says otherwise) at each rank count, --threads\n"
            "                      per rank (default 1); spbench starts mpirun -np MAX\n"
            "                      itself (inside a Slurm allocation too); under mpirun or\n"
            "                      srun, at most the ranks started (default: all of them)\n"
            "  --weak              with --ranks: each gen: spec is the matrix per rank, grown\n"
            "                      with the rank count (weak scaling)\n",
            SPB_ENERGY_PERIODS, SPB_ENERGY_WINDOW_S, SPB_DEFAULT_TOLERANCE, HLL_DEFAULT_HACK_SIZE);
    print_run_output_options(out);
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
