/* main.c — the spbench command: --version, what every command starts with
 * (placement, MPI, plug-ins, signals) and the dispatch to a subcommand
 * (commands.c's table); the help is help.c's, the Python helpers'
 * commands helpers.c's. Library code never exits; the subcommands exit
 * only on usage errors (cli.c's parsers, and cmd_run.c's options, shard
 * and matrix list), with EXIT_USAGE. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/launch.h"
#include "bench/machine/placement.h"
#include "gpu/gpu.h"
#include "mpi/dist.h"
#include "plugins/host.h"
#include "plugins/protocol.h"

/* SPB_MEMORY_LIMIT, when set, is a byte count above 0 (core/memory.c
 * reads it): a typo there would silently cap every allocation at 0. */
static int memory_limit_valid(void)
{
    const char *limit = getenv("SPB_MEMORY_LIMIT");
    if (!limit || !*limit) return 1;
    char *end;
    errno = 0;
    double bytes = strtod(limit, &end);
    if (!errno && end != limit && !*end && bytes > 0 && isfinite(bytes)) return 1;
    fprintf(stderr, "spbench: SPB_MEMORY_LIMIT='%s': expects a byte count above 0, like 8e9\n",
            limit);
    return 0;
}

/* SIGINT or SIGTERM outside run (which stops between rows itself): the
 * file being written is removed, then the signal ends the process. */
static void on_signal_remove_temps(int signo)
{
    spb_temp_remove_all();
    signal(signo, SIG_DFL);
    raise(signo);
}

static void remove_temps_on_signals(void) { on_stop_signals(on_signal_remove_temps, 0); }

int main(int argc, char **argv)
{
    /* a plug-in kernel's own process (plugins/host.h): nothing else of spbench starts */
    if (argc > 1 && strcmp(argv[1], PLUGIN_HOST_ARG) == 0) return plugin_host_main(argc, argv);
    dist_place_rank(); /* under an MPI launcher: this rank's share of the cores */
    placement_place_threads(argv);
    dist_start(launch_by_spbench()); /* ranks other than 0 serve rank 0 and end there */
    if (argc < 2) {
        cli_usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        const char *cusp = gpu_cusp_version(), *no_gpu = gpu_absent_why();
        printf("spbench %s (commit %s; %s; CUDA %s; MPI %s; PETSc %s; NCCL %s; CUSP %s)\n",
               SPB_VERSION, spb_git_commit(), spb_build(),
               !no_gpu              ? "compiled in"
               : gpu_module_built() ? "not loaded"
                                    : "not built",
               dist_compiled() ? "compiled in" : "not built",
               dist_petsc_compiled() ? "compiled in" : "not built",
               gpu_nccl_compiled() ? "compiled in" : "not built", cusp ? cusp : "not built");
        char helpers[SPB_PATH_LEN];
        helper_dir("python", helpers, sizeof helpers);
        printf("helpers: %s/spbench\n", helpers);
        if (no_gpu && gpu_module_built()) printf("GPU: %s\n", no_gpu);
        return 0;
    }
    if (!memory_limit_valid()) return EXIT_USAGE;
    if (load_plugins(argc, argv) != 0) return EXIT_USAGE;
    remove_temps_on_signals(); /* run sets its own */
    if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) &&
        print_command_help(cmd))
        return 0;
    const spb_command *c = command_named(cmd);
    if (c) return c->run(argc - 2, argv + 2);
    fprintf(stderr, "spbench: unknown command '%s' (see spbench --help)\n", cmd);
    return EXIT_USAGE;
}
