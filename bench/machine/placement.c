/* placement.c — the CPUs this process runs its threads on: the OpenMP
 * placement spbench sets before the runtime loads, the CPUs of the first
 * start kept for the processes it starts (see placement.h). */
#include "bench/machine/placement.h"

#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define START_CPUS_VAR "SPB_START_CPUS" /* the CPUs the first start was given, in hex */

/* The CPUs this process may run on, kept in START_CPUS_VAR for the start
 * that follows. */
static void keep_start_cpus(void)
{
    cpu_set_t given;
    char hex[2 * sizeof given + 1];
    if (sched_getaffinity(0, sizeof given, &given) != 0) return;
    const unsigned char *bytes = (const unsigned char *)&given;
    for (size_t k = 0; k < sizeof given; k++) snprintf(hex + 2 * k, 3, "%02x", bytes[k]);
    setenv(START_CPUS_VAR, hex, 1);
}

/* The CPUs of the OpenMP runtime's places (what it saw as it loaded,
 * before it bound this thread to the first); 0 when it has none. */
static int place_cpus(cpu_set_t *set)
{
    CPU_ZERO(set);
    int places = omp_get_num_places(), found = 0;
    for (int p = 0; p < places; p++) {
        int n = omp_get_place_num_procs(p), ids[CPU_SETSIZE];
        if (n <= 0 || n > CPU_SETSIZE) continue;
        omp_get_place_proc_ids(p, ids);
        for (int k = 0; k < n; k++)
            if (ids[k] >= 0 && ids[k] < CPU_SETSIZE) CPU_SET(ids[k], set), found = 1;
    }
    return found;
}

int placement_process_cpus(cpu_set_t *set)
{
    if (!place_cpus(set) && sched_getaffinity(0, sizeof *set, set) != 0) return 0;
    return CPU_COUNT(set);
}

void placement_give_back_start_cpus(void)
{
    const char *hex = getenv(START_CPUS_VAR);
    cpu_set_t given;
    unsigned char *bytes = (unsigned char *)&given;
    if (!hex) { /* the user placed the threads: no start was kept, the places say */
        if (place_cpus(&given)) sched_setaffinity(0, sizeof given, &given);
        return;
    }
    if (strlen(hex) != 2 * sizeof given) return;
    for (size_t k = 0; k < sizeof given; k++) {
        unsigned int byte = 0;
        if (sscanf(hex + 2 * k, "%2x", &byte) != 1) return;
        bytes[k] = (unsigned char)byte;
    }
    sched_setaffinity(0, sizeof given, &given);
}

/* Thread placement is read by the OpenMP runtime as it loads, before
 * main: spbench sets it (a user's own settings win) and starts itself
 * again, once, for the runtime to see it. `spbench run` reports the
 * binding in effect. */
void placement_place_threads(char **argv)
{
    if (getenv("SPB_OMP_PLACED")) {
#ifdef KMP_VERSION_MAJOR /* LLVM's omp.h */
        /* A build on LLVM's OpenMP runtime can load GNU's as well (PETSc's
         * libraries bring it), and that one binds this thread to the first
         * place as it loads, before main; LLVM's runtime would then take
         * that one CPU for all its places and run every thread there. It
         * reads the CPUs at its first use, after this. */
        placement_give_back_start_cpus();
#endif
        return;
    }
    setenv("SPB_OMP_PLACED", "1", 1);
    if (getenv("OMP_PROC_BIND") && getenv("OMP_PLACES")) return;
    if (!getenv("OMP_PROC_BIND")) setenv("SPB_OMP_SET", "OMP_PROC_BIND", 1);
    if (!getenv("OMP_PLACES")) /* which ones spbench set (run --ranks gives them back) */
        setenv("SPB_OMP_SET", getenv("SPB_OMP_SET") ? "both" : "OMP_PLACES", 1);
    setenv("OMP_PROC_BIND", "close", 0);
    setenv("OMP_PLACES", "cores", 0);
    keep_start_cpus();
    execv("/proc/self/exe", argv);
    /* no /proc: go on unbound, as the header will say */
}
