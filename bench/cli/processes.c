/* processes.c — run --processes N: the study measured N times, each time in
 * a fresh process (its own placement, clocks and memory layout, which the
 * samples of one process cannot show), then combined by `spbench merge
 * --processes` into the files the user named. */
#include "bench/cli/processes.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/cli/launch.h"
#include "bench/machine/placement.h"
#include "core/spb.h"

static volatile sig_atomic_t running_child, stops;

/* Ctrl-C reaches the process group (the run in flight stops after its row
 * and leaves); a SIGTERM sent to this process alone is passed on. */
static void on_stop(int signo)
{
    stops++;
    if (signo == SIGTERM && running_child > 0) kill((pid_t)running_child, SIGTERM);
}

void process_file(const char *path, int k, char *out, size_t size)
{
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash) || dot == path || (slash && dot == slash + 1))
        dot = path + strlen(path); /* no extension: the number goes last */
    snprintf(out, size, "%.*s.process-%d%s", (int)(dot - path), path, k, dot);
}

/* This program's run with the user's arguments, less --processes, with
 * run k's own files, and --process-index k/N. NULL when out of memory. */
static char **run_args_of(const char *self, int argc, char **argv, int k, int runs,
                          char files[2][4200], char *index)
{
    char **args = spb_calloc((size_t)argc + 8, sizeof *args);
    if (!args) return NULL;
    int n = 0;
    args[n++] = (char *)self;
    args[n++] = "run";
    for (int i = 0; i < argc; i++) {
        const char *names[] = {"--csv", "--json"}, *value;
        int which = -1;
        if (option_value(argc, argv, &i, "--processes", &value)) continue;
        for (int f = 0; f < 2 && which < 0; f++)
            if (option_value(argc, argv, &i, names[f], &value)) which = f;
        if (which < 0) {
            args[n++] = argv[i];
            continue;
        }
        process_file(value, k, files[which], sizeof files[which]);
        args[n++] = (char *)names[which];
        args[n++] = files[which];
    }
    snprintf(index, 32, "%d/%d", k, runs);
    args[n++] = "--process-index";
    args[n++] = index;
    return args;
}

/* Runs args (a program and its arguments) and waits: its exit status, or
 * 128 + the signal that ended it. */
static int run_child(char **args)
{
    fflush(NULL);
    pid_t parent = getpid();
    /* held until each side is ready for them: a SIGTERM meant for the run
     * is passed on only once its pid is known, and one that comes before
     * the child's exec must not meet the parent's handler there (on_stop,
     * which would swallow it and let the run go on alone) */
    sigset_t stop_signals, before;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &before);
    pid_t child = fork();
    if (child == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        /* a parent killed outright takes its run with it: no run goes on
         * alone, holding its files' locks, with nothing to merge it */
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(EXIT_RESULTS_BAD);
        pthread_sigmask(SIG_SETMASK, &before, NULL);
        placement_give_back_start_cpus(); /* the parent's CPUs, not its first thread's one */
        execv(args[0], args);
        fprintf(stderr, "spbench: cannot run %s: %s\n", args[0], strerror(errno));
        _exit(EXIT_RESULTS_BAD);
    }
    running_child = child > 0 ? child : 0;
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (child < 0) return EXIT_RESULTS_BAD;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) continue;
    running_child = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `spbench merge --processes` on the runs' files into the user's. */
static int combine(const char *self, const char *csv, const char *json, int runs)
{
    size_t count = 2 * (size_t)runs + 8;
    char **args = spb_calloc(count, sizeof *args);
    char(*names)[4200] = spb_calloc(2 * (size_t)runs, sizeof *names);
    int n = 0, status = EXIT_RESULTS_BAD;
    if (args && names) {
        args[n++] = (char *)self;
        args[n++] = "merge";
        args[n++] = "--processes";
        args[n++] = "--force"; /* the run checked its outputs; a resume merges again */
        const char *outs[] = {csv, json};
        for (int f = 0; f < 2 && outs[f]; f++) {
            if (f == 1) args[n++] = "--json";
            args[n++] = (char *)outs[f];
            for (int k = 1; k <= runs; k++) {
                process_file(outs[f], k, names[f * runs + k - 1], sizeof names[0]);
                args[n++] = names[f * runs + k - 1];
            }
        }
        status = run_child(args);
    }
    spb_free(args);
    spb_free(names);
    return status;
}

int run_processes(int argc, char **argv, int runs, const char *csv, const char *json)
{
    char self[SPB_PATH_LEN];
    if (!spb_self_path(self, sizeof self)) {
        fprintf(stderr, "spbench: --processes: cannot find this program's path\n");
        return EXIT_USAGE;
    }
    on_stop_signals(on_stop, 0);
    /* a usage error or a signal ends the study; results do not. Wrong or
     * error rows in any process are the study's status (1) before
     * "nothing measured" (3), which holds only where no process measured */
    int worst = 0, bad_rows = 0, measured = 0;
    for (int k = 1; k <= runs && worst != EXIT_USAGE && worst < 128 && !stops; k++) {
        char files[2][4200] = {"", ""}, index[32];
        char **args = run_args_of(self, argc, argv, k, runs, files, index);
        if (!args) return EXIT_RESULTS_BAD;
        printf("# process %d of %d: rows in %s%s%s\n", k, runs, files[0], json ? " and " : "",
               json ? files[1] : "");
        int status = run_child(args);
        spb_free(args);
        bad_rows |= status == EXIT_RESULTS_BAD;
        measured |= status != EXIT_NOTHING_MEASURED;
        if (status > worst) worst = status;
    }
    if (worst == EXIT_USAGE || worst >= 128 || stops) return worst ? worst : 128 + SIGINT;
    int combined = combine(self, csv, json, runs);
    return combined ? combined : bad_rows ? EXIT_RESULTS_BAD : measured ? 0 : EXIT_NOTHING_MEASURED;
}
