/* stop.c — the run's stop request (see run.h): a signal, or the stop file
 * the --ranks launcher creates, asked by the protocol (run.c) and by what
 * measures between rows (row_figures.c, the rooflines). */
#include <signal.h>
#include <unistd.h>

#include "bench/run/run.h"

static volatile sig_atomic_t stop_signal;
static const char *stop_file; /* run --ranks: the launcher creates it to stop the ranks */

void run_request_stop(int signo) { stop_signal = signo; }

void run_watch_stop_file(const char *path) { stop_file = path; }

int run_stop_requested(void)
{
    if (!stop_signal && stop_file && access(stop_file, F_OK) == 0) stop_signal = SIGINT;
    return stop_signal;
}
