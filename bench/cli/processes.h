/* processes.h — run --processes N: the study in N fresh processes, then
 * their rows combined (the middle median of each row, and the spread
 * between the processes). */
#ifndef SPB_PROCESSES_H
#define SPB_PROCESSES_H

#include <stddef.h>

/* Run k's file beside path: "out.csv" -> "out.process-k.csv". */
void process_file(const char *path, int k, char *out, size_t size);

/* This run's arguments (after "run") measured in `runs` processes one
 * after another, each writing its own files beside csv and json (json may
 * be NULL), then combined into csv and json. The exit status: the worst of
 * the runs', the combining's, or 128 + the signal that stopped them. */
int run_processes(int argc, char **argv, int runs, const char *csv, const char *json);

#endif
