/* help.c — what `spbench --help` and `spbench COMMAND --help` print: the
 * commands, run's options and each command's usage. */
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/machine/energy.h"
#include "bench/validation/validate.h"
#include "formats/hll.h"

static void print_commands(FILE *out)
{
    fprintf(out,
            "spbench " SPB_VERSION " — sparse kernels (SpMV, SpGEMM), measured and validated\n"
            "\n"
            "usage:\n"
            "  spbench run [options] MATRIX...   measure every selected kernel on each matrix\n"
            "  spbench info [--cache DIR] MATRIX...  statistics, parse speed (and cache speed)\n"
            "  spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] -o Y.mtx\n"
            "                                    one product y = A*x, written as Matrix Market\n"
            "  spbench spgemm A [--b B] --kernel NAME [--threads N] -o C.mtx\n"
            "                                    one product C = A*B, written as Matrix Market\n"
            "  spbench gen SPEC -o FILE.mtx[.gz] write a generated matrix\n"
            "  spbench plot RESULTS.csv OUTDIR   charts (PNG and SVG) with gnuplot\n"
            "  spbench merge OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]\n"
            "                                    the shards of a study in one results file\n"
            "  spbench compare BASE NEW          two studies' times, with intervals and verdicts\n"
            "  spbench fetch [CRITERIA] -o LIST  SuiteSparse matrices chosen by what they are\n"
            "  spbench report STUDY.json         the study as one HTML page\n"
            "  spbench new-kernel NAME           a plug-in kernel's folder to start from\n"
            "  spbench --list                    the kernel table\n"
            "  spbench --version                 version, what is built in, where the helpers are\n"
            "  spbench COMMAND --help            that command's options\n"
            "\n"
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

/* What `spbench COMMAND --help` prints for the commands other than run. */
static const struct {
    const char *name, *text;
} command_help[] = {
    {"info", "usage: spbench info [--hack-size H] [--cache DIR] MATRIX...\n"
             "  the matrix's size, row lengths, HLL padding and bytes, and how fast it parses\n"
             "  --hack-size H   HLL rows per hack (default 32)\n"
             "  --cache DIR     also time a load from the binary cache in DIR\n"},
    {"spmv", "usage: spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] [--threads N]\n"
             "                    [--hack-size H] [--precision P] [--tol T] -o Y.mtx [--force]\n"
             "  one validated product y = A*x by kernel NAME, written as Matrix Market;\n"
             "  x from X.mtx (a vector file), else random with seed S (default 1);\n"
             "  P: fp64 (default) or fp32, complex128 or complex64 for a complex matrix\n"},
    {"spgemm",
     "usage: spbench spgemm A [--b B] --kernel NAME [--threads N] [--precision P] [--tol T]\n"
     "                      -o C.mtx [--force]\n"
     "  one validated product C = A*B by kernel NAME, written as Matrix Market;\n"
     "  B: a file, a gen: spec, thin:K[:PER_ROW] or transpose (A^T) (default A,\n"
     "  or A^T when A is not square); P: fp64 (default) or fp32 (complex128,\n"
     "  complex64 for complex matrices)\n"},
    {"gen", "usage: spbench gen SPEC -o FILE.mtx[.gz] [--force]\n"
            "  writes a generated matrix: gen:lap2d:N[:LAYERS] (N x N, or N x LAYERS),\n"
            "  gen:lap3d:N[:LAYERS] (N^3, or N x N x LAYERS), gen:random:ROWS:PER_ROW,\n"
            "  gen:rmat:SCALE:EDGE_FACTOR[:A_PERCENT] (the top-left quadrant's chance, default\n"
            "  57: the larger, the more skewed), gen:hubs:ROWS:PER_ROW:HUBS:HUB_LEN (symmetric,\n"
            "  HUBS rows of HUB_LEN), gen:road:N:KEEP_PERCENT (a grid graph keeping that\n"
            "  share of its edges), gen:lp:ROWS:COLS:PER_COL:DENSE_PERCENT[:DENSE_ROWS] (an\n"
            "  LP matrix: wide, PER_COL a column, dense rows of that share of the columns),\n"
            "  gen:circuit:N:PER_ROW:NETS:NET_LEN (a circuit matrix: NETS rows and columns\n"
            "  of NET_LEN), gen:fem:N:DOF (27-point stencil on N^3 nodes, DOF unknowns a node:\n"
            "  dense DOF x DOF blocks) (fixed seeds); .gz is written compressed; an existing\n"
            "  FILE is replaced only with --force\n"},
    {"new-kernel", "usage: spbench new-kernel NAME [--cuda] [-o DIR]\n"
                   "  writes DIR (default NAME), a new folder: NAME.c, a plug-in of two SpMV\n"
                   "  kernels (NAME.csr.serial, NAME.csr.omp) and one SpGEMM kernel\n"
                   "  (NAME.spgemm.serial), fp64 and fp32, to change, and a CMakeLists.txt\n"
                   "  that builds it against an installed spbench; with --cuda, NAME.cu, a\n"
                   "  CUDA SpMV kernel (NAME.csr.cuda.warp, a warp per row) instead\n"
                   "  (docs/guide/your-kernel.md)\n"},
    {"plot", "usage: spbench plot RESULTS.csv OUTDIR\n"
             "  charts of a results CSV as PNG and SVG (gnuplot): gflops, energy (GFLOPS per\n"
             "  watt), cpu_vs_gpu, scaling, roofline, csr_vs_hll, profile (the share of\n"
             "  matrices each kernel is within a factor of the fastest on), gflops_by_size;\n"
             "  strong_scaling,\n"
             "  weak_scaling, comm_split for the distributed rows; spgemm_gflops,\n"
             "  spgemm_time for SpGEMM rows\n"},
    {"merge", "usage: spbench merge [--processes] [--force] [--partial] OUT.csv SHARD.csv...\n"
              "                     [--json OUT.json SHARD.json...]\n"
              "  the shards of a study (run --shard I/N) in one results file; every row is\n"
              "  checked, a row measured twice is refused, nothing is written on a failure;\n"
              "  with JSONs, a shard missing, twice or interrupted is refused, naming it,\n"
              "  unless --partial (the merged JSON then says what is missing);\n"
              "  an output that is an input is refused, an existing one replaced only with\n"
              "  --force; --processes: the inputs are whole runs of one study (run\n"
              "  --processes N)\n"},
    {"compare", "usage: spbench compare BASE NEW [--strict] [--fail-if-slower PCT [--common-only]\n"
                "                       [--allow-unjudgeable]] [--csv OUT] [--json OUT]\n"
                "                       [--markdown OUT] [--chart OUTDIR] [--force]\n"
                "       spbench compare FILE --kernels A,B\n"
                "  NEW's time over BASE's for every row both hold (results JSON or CSV, each\n"
                "  with every row's samples): new/base, the ratio of the medians; est, the\n"
                "  ratio the samples estimate, its 95% interval and a verdict (faster,\n"
                "  slower, no difference shown, too few samples). The interval: between\n"
                "  processes where both rows carry every process's median (run --processes\n"
                "  N): Welch's t on their logarithms; else within one process:\n"
                "  Hodges-Lehmann on the samples' logarithms, the Mann-Whitney interval,\n"
                "  widened by the spread between the two runs that the rows' scatter shows.\n"
                "  The geometric mean per kernel and overall. What differs between the\n"
                "  studies is named first (--strict refuses it). --fail-if-slower PCT exits 1\n"
                "  when a row's best time (its fastest sample, over its processes) is slower\n"
                "  by more than PCT% beyond the row's noise allowance, or their geometric\n"
                "  mean is; when a row's allowance is 2x or more (unjudgeable; passed with\n"
                "  --allow-unjudgeable); when a row ok in BASE is wrong, in error, skipped\n"
                "  or missing in NEW, or NEW was interrupted (--common-only: only the rows\n"
                "  both hold are judged); or when nothing could be judged. Measure both\n"
                "  sides with run --processes 5 for a gate on a busy machine.\n"
                "  --kernels A,B compares kernel B against kernel A within one file; A may be\n"
                "  'vendor': per matrix the fastest vendor row (each cuSPARSE mode, CUSP),\n"
                "  named in each pair, the means split by its time per product;\n"
                "  --chart draws OUTDIR/compare.png and\n"
                "  .svg (gnuplot); --markdown writes the table and geometric means as\n"
                "  Markdown; --csv, --json and --markdown never name an input and replace a\n"
                "  file only with --force\n"},
    {"fetch", "usage: spbench fetch [--kind GLOB] [--group GLOB] [--name GLOB] [--min-nnz N]\n"
              "                     [--max-nnz N] [--min-rows N] [--max-rows N] [--real]\n"
              "                     [--square] [--max N [--largest]] [--list FILE]\n"
              "                     [-o LIST [--force]] [--cache DIR] [--jobs N] [--timeout S]\n"
              "                     [--dry-run] [--refresh] [--base URL]\n"
              "  matrices of the SuiteSparse Matrix Collection chosen from its index\n"
              "  (ssstats.csv) by those fields (all together; --max: the N smallest by\n"
              "  entries, or largest), or Group/Name lines of --list FILE; says what it\n"
              "  would fetch and how many bytes first (--dry-run: only that); downloads\n"
              "  --jobs at a time (default 4), resuming a dropped connection and dropping\n"
              "  one slower than 1 KB/s over 30 s; --timeout S ends the fetch after S\n"
              "  seconds; checks each archive (its gzip CRC and length, a Matrix Market\n"
              "  file of the index's size); leaves out index lines whose group or name is\n"
              "  not a plain file name; keeps them in the cache (default\n"
              "  ~/.cache/spbench/matrices) as Group/Name.mtx.gz for later fetches; -o LIST\n"
              "  writes their paths for spbench run @LIST when all are there, replacing a\n"
              "  file only with --force. --base URL (or SPB_FETCH_BASE): a mirror laid out\n"
              "  as https://sparse.tamu.edu\n"},
    {"report", "usage: spbench report STUDY.json [-o OUT.html] [--force] [--kinds LIST]\n"
               "  the study as one self-contained HTML page: machine and build, totals, the\n"
               "  verdict on noise, each kernel's geometric means against the baselines\n"
               "  with 95% intervals (and by the matrices' size, and with --kinds, the list\n"
               "  `spbench fetch -o` wrote, by their kind in the collection's index), a\n"
               "  table of the matrices to sort and filter, and the charts inline; OUT\n"
               "  defaults to STUDY.html, replaced only with --force\n"},
    {"list", "usage: spbench --list\n"
             "  the kernel table: name, operation, format, backend, description\n"},
};

/* `spbench COMMAND --help`: 1 when it printed that command's help. */
int print_command_help(const char *cmd)
{
    if (strcmp(cmd, "run") == 0) {
        printf("usage: spbench run [options] MATRIX...\n\n");
        print_run_options(stdout);
        return 1;
    }
    for (size_t k = 0; k < sizeof command_help / sizeof command_help[0]; k++)
        if (strcmp(cmd, command_help[k].name) == 0 ||
            (strcmp(cmd, "--list") == 0 && strcmp(command_help[k].name, "list") == 0)) {
            fputs(command_help[k].text, stdout);
            return 1;
        }
    return 0;
}
