/* commands.c — spbench's subcommands as one table: each command's name,
 * entry point, its line in `spbench --help` and what `spbench COMMAND
 * --help` prints. main.c dispatches through it and help.c prints from it,
 * so a new subcommand is its cmd_NAME.c and one entry here. */
#include <stddef.h>
#include <string.h>

#include "bench/cli/cli.h"

/* run's help is made from its options (help.c: help NULL). */
static const spb_command commands[] = {
    {"run", cmd_run, "run [options] MATRIX...", "measure every selected kernel on each matrix",
     NULL},
    {"info", cmd_info, "info [--cache DIR] MATRIX...", "statistics, parse speed (and cache speed)",
     "usage: spbench info [--hack-size H] [--cache DIR] MATRIX...\n"
     "  the matrix's size, row lengths, HLL padding and bytes, and how fast it parses\n"
     "  --hack-size H   HLL rows per hack (default 32)\n"
     "  --cache DIR     also time a load from the binary cache in DIR\n"},
    {"spmv", cmd_spmv, "spmv MATRIX --kernel NAME [--x X.mtx | --seed S] -o Y.mtx",
     "one product y = A*x, written as Matrix Market",
     "usage: spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] [--threads N]\n"
     "                    [--hack-size H] [--precision P] [--tol T] -o Y.mtx [--force]\n"
     "  one validated product y = A*x by kernel NAME, written as Matrix Market;\n"
     "  x from X.mtx (a vector file), else random with seed S (default 1);\n"
     "  P: fp64 (default) or fp32, complex128 or complex64 for a complex matrix\n"},
    {"spgemm", cmd_spgemm, "spgemm A [--b B] --kernel NAME [--threads N] -o C.mtx",
     "one product C = A*B, written as Matrix Market",
     "usage: spbench spgemm A [--b B] --kernel NAME [--threads N] [--precision P] [--tol T]\n"
     "                      -o C.mtx [--force]\n"
     "  one validated product C = A*B by kernel NAME, written as Matrix Market;\n"
     "  B: a file, a gen: spec, thin:K[:PER_ROW] or transpose (A^T) (default A,\n"
     "  or A^T when A is not square); P: fp64 (default) or fp32 (complex128,\n"
     "  complex64 for complex matrices)\n"},
    {"gen", cmd_gen, "gen SPEC -o FILE.mtx[.gz]", "write a generated matrix",
     "usage: spbench gen SPEC -o FILE.mtx[.gz] [--force]\n"
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
    {"plot", cmd_plot, "plot RESULTS.csv OUTDIR", "charts (PNG and SVG) with gnuplot",
     "usage: spbench plot RESULTS.csv OUTDIR\n"
     "  charts of a results CSV as PNG and SVG (gnuplot): gflops, energy (GFLOPS per\n"
     "  watt), cpu_vs_gpu, scaling, roofline, csr_vs_hll, profile (the share of\n"
     "  matrices each kernel is within a factor of the fastest on), gflops_by_size;\n"
     "  strong_scaling,\n"
     "  weak_scaling, comm_split for the distributed rows; spgemm_gflops,\n"
     "  spgemm_time for SpGEMM rows\n"},
    {"merge", cmd_merge, "merge OUT.csv SHARD.csv... [--json OUT.json SHARD.json...]",
     "the shards of a study in one results file",
     "usage: spbench merge [--processes] [--force] [--partial] OUT.csv SHARD.csv...\n"
     "                     [--json OUT.json SHARD.json...]\n"
     "  the shards of a study (run --shard I/N) in one results file; every row is\n"
     "  checked, a row measured twice is refused, nothing is written on a failure;\n"
     "  with JSONs, a shard missing, twice or interrupted is refused, naming it,\n"
     "  unless --partial (the merged JSON then says what is missing);\n"
     "  an output that is an input is refused, an existing one replaced only with\n"
     "  --force; --processes: the inputs are whole runs of one study (run\n"
     "  --processes N)\n"},
    {"compare", cmd_compare, "compare BASE NEW", "two studies' times, with intervals and verdicts",
     "usage: spbench compare BASE NEW [--strict] [--fail-if-slower PCT [--common-only]\n"
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
    {"fetch", cmd_fetch, "fetch [CRITERIA] -o LIST", "SuiteSparse matrices chosen by what they are",
     "usage: spbench fetch [--kind GLOB] [--group GLOB] [--name GLOB] [--min-nnz N]\n"
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
    {"report", cmd_report, "report STUDY.json", "the study as one HTML page",
     "usage: spbench report STUDY.json [-o OUT.html] [--force] [--kinds LIST]\n"
     "  the study as one self-contained HTML page: machine and build, totals, the\n"
     "  verdict on noise, each kernel's geometric means against the baselines\n"
     "  with 95% intervals (and by the matrices' size, and with --kinds, the list\n"
     "  `spbench fetch -o` wrote, by their kind in the collection's index), a\n"
     "  table of the matrices to sort and filter, and the charts inline; OUT\n"
     "  defaults to STUDY.html, replaced only with --force\n"},
    {"new-kernel", cmd_new_kernel, "new-kernel NAME", "a plug-in kernel's folder to start from",
     "usage: spbench new-kernel NAME [--cuda] [-o DIR]\n"
     "  writes DIR (default NAME), a new folder: NAME.c, a plug-in of two SpMV\n"
     "  kernels (NAME.csr.serial, NAME.csr.omp) and one SpGEMM kernel\n"
     "  (NAME.spgemm.serial), fp64 and fp32, to change, and a CMakeLists.txt\n"
     "  that builds it against an installed spbench; with --cuda, NAME.cu, a\n"
     "  CUDA SpMV kernel (NAME.csr.cuda.warp, a warp per row) instead\n"
     "  (docs/guide/your-kernel.md)\n"},
    {"list", cmd_list, "--list", "the kernel table",
     "usage: spbench --list\n"
     "  the kernel table: name, operation, format, backend, description\n"},
};

const spb_command *command_named(const char *name)
{
    if (strcmp(name, "--list") == 0) name = "list"; /* --list is list's other name */
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++)
        if (strcmp(name, commands[k].name) == 0) return &commands[k];
    return NULL;
}

const spb_command *command_at(int k)
{
    return k >= 0 && (size_t)k < sizeof commands / sizeof commands[0] ? &commands[k] : NULL;
}
