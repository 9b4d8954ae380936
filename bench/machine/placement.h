/* placement.h — the CPUs this process runs its threads on. Thread
 * placement is spbench's own: it sets OMP_PROC_BIND and OMP_PLACES (a
 * user's own settings win) and starts itself again, once, for the OpenMP
 * runtime to see them; the variables it keeps for that (SPB_OMP_PLACED,
 * SPB_OMP_SET, SPB_START_CPUS) are written here, and given back by the
 * --ranks launcher (bench/cli/launch.c) before its ranks start. */
#ifndef SPB_PLACEMENT_H
#define SPB_PLACEMENT_H

#include <sched.h>

/* Thread placement is read by the OpenMP runtime as it loads, before
 * main: spbench sets it (a user's own settings win) and starts itself
 * again, once, for the runtime to see it. */
void placement_place_threads(char **argv);

/* Back to the CPUs of the first start: a process the placed one starts
 * (run --processes) would otherwise inherit the one CPU its OpenMP runtime
 * bound the starting thread to, and every thread of it would run there. */
void placement_give_back_start_cpus(void);

/* The CPUs this process runs its threads on: its OpenMP places' (the
 * runtime bound the first thread to one of them), else its affinity's.
 * How many; 0 when neither can be read. */
int placement_process_cpus(cpu_set_t *set);

#endif
