/* launch.h — run --ranks: spbench started again under mpirun (the
 * launcher, launch_ranks), with rank 0's side of what they say to each
 * other.
 *
 * The environment is only for what must cross into another process:
 * launch.c writes and reads the files' names, SPB_STOP_FILE,
 * SPB_IN_FLIGHT_FILE and SPB_END_FILE (below), and gives back the thread
 * placement that bench/machine/placement.c set (SPB_OMP_PLACED,
 * SPB_OMP_SET) before the ranks start, each to place itself; mpi/runtime.c
 * keeps SPB_PLACEMENT, a rank's own placement across its re-exec, to
 * itself; SPB_MEMORY_LIMIT is the user's, read by core/memory.c. */
#ifndef SPB_LAUNCH_H
#define SPB_LAUNCH_H

#include <sched.h>

/* What the launcher needs of the run it starts again under mpirun. */
typedef struct {
    int ranks;   /* mpirun -np: the most ranks asked for */
    int threads; /* per rank, the most asked for (the oversubscription warning) */
    int resume;  /* the run resumes already (else a restart adds --resume) */
    const char *csv_path, *json_path;
    /* Says how to go on after the job ended before the study did (`what`). */
    void (*resume_hint)(const char *what, void *context);
    void *context;
} spb_launch;

/* This run (its arguments after "run") under mpirun -np ranks, started again
 * with --resume after a dying rank ends it (the row measured once more; a
 * row that ends the job twice is recorded as an error; at most
 * SPB_MAX_RESTARTS restarts). Returns the run's exit status. */
int launch_ranks(int argc, char **argv, const spb_launch *job);

/* Rank 0 of a launched job: the file whose appearing asks it to stop after
 * the row in flight, and the one where it keeps that row's error row; NULL
 * outside a job launch_ranks started. */
const char *launch_stop_file(void);
const char *launch_in_flight_file(void);

/* Whether this process was started by launch_ranks (under MPI or about to
 * be: the ranks read it before MPI starts). */
int launch_by_spbench(void);

/* Rank 0 leaving by exit or return: it reached the study's end (atexit). */
void launch_mark_end(void);

/* Rank 0's exit status, handed to the launcher; 0 then, so that mpirun adds
 * no banner of its own (code itself outside a launched job). */
int launch_report_status(int code);

#endif
