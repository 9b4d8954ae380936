/* launch.c — run --ranks outside MPI: spbench again under mpirun, the
 * files through which that launcher and rank 0 speak (a stop asked for, the
 * error row of the row in flight, the study's end and its exit status),
 * and the restart of a job that a dying rank ended. The variables that
 * carry those files' names to the ranks (mpirun passes the environment and
 * nothing else) are named here and nowhere else. */
#include "bench/cli/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <omp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/report/output_file.h"
#include "mpi/dist.h"

#define STOP_FILE_VAR      "SPB_STOP_FILE"
#define IN_FLIGHT_FILE_VAR "SPB_IN_FLIGHT_FILE"
#define END_FILE_VAR       "SPB_END_FILE"

const char *launch_stop_file(void) { return dist_launched() ? getenv(STOP_FILE_VAR) : NULL; }

const char *launch_in_flight_file(void)
{
    return dist_launched() ? getenv(IN_FLIGHT_FILE_VAR) : NULL;
}

int launch_by_spbench(void) { return getenv(IN_FLIGHT_FILE_VAR) != NULL; }

/* The ranks start as this process did, before its OpenMP runtime bound it
 * to one core: on every CPU it may use, with the user's own OpenMP
 * placement (each rank places itself, then its threads: main.c). */
static void start_ranks_unplaced(void)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        CPU_SET(cpu, &all); /* the kernel keeps the allowed */
    sched_setaffinity(0, sizeof all, &all);
    const char *set = getenv("SPB_OMP_SET");
    if (set && strcmp(set, "OMP_PLACES") != 0) unsetenv("OMP_PROC_BIND");
    if (set && strcmp(set, "OMP_PROC_BIND") != 0) unsetenv("OMP_PLACES");
    unsetenv("SPB_OMP_SET");
    unsetenv("SPB_OMP_PLACED");
}

/* The launcher's mpirun, the stops asked of the launcher so far, the file
 * whose appearing asks rank 0 to stop, the file where rank 0 keeps the
 * error row of the distributed row in flight, and the one it creates when
 * it reaches the study's end. */
static volatile sig_atomic_t launched_mpirun, launcher_stops;
static char stop_file[64], in_flight_file[64], end_file[64];

/* Jobs a dying rank ended that the launcher starts again (each after
 * recording one error row, so a study always ends). */
#define SPB_MAX_RESTARTS 16

/* Ctrl-C or SIGTERM to the launcher: the first asks rank 0 to stop after
 * the row in flight (the stop file: mpirun does not pass every signal on
 * alike in every version), the next ends the job (mpirun's own SIGTERM). */
static void forward_stop(int signo)
{
    (void)signo;
    if (launcher_stops++ == 0) {
        int fd = open(stop_file, O_CREAT | O_WRONLY, 0600);
        if (fd >= 0) close(fd);
    } else if (launched_mpirun > 0) {
        kill((pid_t)launched_mpirun, SIGTERM);
    }
}

/* mpirun with this run's arguments (and --resume when `resume`), in its
 * own process group; its exit status (128 + the signal that ended it). */
static int run_mpirun(char **args)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        start_ranks_unplaced();
        setpgid(0, 0); /* the terminal's Ctrl-C reaches the launcher alone, which forwards it */
        int null = open("/dev/null", O_RDONLY); /* mpirun would read stdin for rank 0 */
        if (null >= 0) dup2(null, STDIN_FILENO);
        execvp("mpirun", args);
        fprintf(stderr, "spbench: cannot run mpirun: %s (Open MPI: scripts/deps.sh)\n",
                strerror(errno));
        _exit(EXIT_USAGE);
    }
    if (child < 0) return EXIT_RESULTS_BAD;
    launched_mpirun = child;
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) continue;
    launched_mpirun = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        kill(-child, SIGKILL); /* ranks mpirun left behind when it aborted (their group) */
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The in-flight row of the last job that ended during a row. */
static char last_aborted[1 << 14];

/* After a job that ended during a row (a rank killed or crashed, or mpirun
 * killed, so the job aborted): the first time for that row, nothing is
 * recorded and the job is started again, measuring it once more (a plain
 * run redoes a row a kill cut short too); when the same row ends the job a
 * second time, the error row rank 0 prepared for it is appended to the
 * CSV, so the study records it and --resume goes past it. 1 when the job
 * is to be started again. */
static int record_aborted_row(const spb_launch *job, int status)
{
    char line[1 << 14], msg[SPB_MSG_LEN] = "";
    spb_output csv = {.fd = -1};
    spb_status claimed = SPB_ERR_IO;
    /* rank 0 holds the CSV until it is gone: only then does the in-flight
     * file say whether its row was written (it removes the file first) */
    for (int tries = 0; job->csv_path && claimed != SPB_OK && tries < 100; tries++) {
        msg[0] = '\0';
        claimed = output_claim(&csv, job->csv_path, "--csv", 1, msg);
        if (claimed != SPB_OK) nanosleep(&(struct timespec){0, 100000000}, NULL);
    }
    FILE *f = claimed == SPB_OK || !job->csv_path ? fopen(in_flight_file, "r") : NULL;
    size_t got = f ? fread(line, 1, sizeof line - 1, f) : 0;
    if (f) fclose(f);
    if (f) unlink(in_flight_file);
    line[got] = '\0';
    if (got == 0) { /* no row in flight, or rank 0 still holds the CSV */
        if (claimed == SPB_OK) output_abandon(&csv);
        if (claimed != SPB_OK && job->csv_path)
            fprintf(stderr, "spbench: the job ended (status %d) but %s\n", status, msg);
        return 0;
    }
    if (strcmp(line, last_aborted) != 0) {
        snprintf(last_aborted, sizeof last_aborted, "%s", line);
        if (claimed == SPB_OK) output_abandon(&csv);
        fprintf(stderr,
                "spbench: the job ended (status %d) during a distributed row; measuring that "
                "row once more\n",
                status);
        return 1;
    }
    FILE *out = claimed == SPB_OK ? output_stream(&csv, 0, msg) : NULL;
    int written = out && fputs(line, out) >= 0;
    if (out && fclose(out) != 0) written = 0;
    if (!out && claimed == SPB_OK) output_abandon(&csv);
    if (!job->csv_path) snprintf(msg, sizeof msg, "without --csv it is not recorded");
    fprintf(stderr,
            "spbench: the job ended (status %d) during the same distributed row again: %s\n",
            status, written ? "its error row is in the CSV; measuring the rest" : msg);
    return written;
}

/* The files the ranks watch and write (their names in their environment),
 * and the launcher's stop signals forwarded through the stop file. */
static void watch_launched_job(void)
{
    snprintf(stop_file, sizeof stop_file, "/tmp/spbench-stop.%ld", (long)getpid());
    snprintf(in_flight_file, sizeof in_flight_file, "/tmp/spbench-row.%ld", (long)getpid());
    snprintf(end_file, sizeof end_file, "/tmp/spbench-end.%ld", (long)getpid());
    unlink(stop_file);
    unlink(in_flight_file);
    unlink(end_file);
    setenv(STOP_FILE_VAR, stop_file, 1);
    setenv(IN_FLIGHT_FILE_VAR, in_flight_file, 1);
    setenv(END_FILE_VAR, end_file, 1);
    on_stop_signals(forward_stop, 0);
}

/* A job that ended before rank 0 reached the study's end, outside any row
 * (rank 0 killed between rows): how to go on, and no empty JSON left
 * behind (rank 0 writes it whole at the end; see open_json). */
static void report_job_lost(const spb_launch *job, int status)
{
    struct stat sb;
    if (job->json_path && stat(job->json_path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0)
        unlink(job->json_path);
    char what[96];
    snprintf(what, sizeof what, "the job ended (status %d) before the study did", status);
    job->resume_hint(what, job->context);
}

/* The exit status rank 0 left in the end file (see launched_status), or
 * -1 when it left none. */
static int reported_status(void)
{
    FILE *f = fopen(end_file, "r");
    int code = -1;
    if (f && fscanf(f, "%d", &code) != 1) code = -1;
    if (f) fclose(f);
    return code;
}

/* Whether `name` is an executable file in a folder of PATH. */
static int on_path(const char *name)
{
    const char *path = getenv("PATH");
    while (path && *path) {
        size_t len = strcspn(path, ":");
        char file[SPB_PATH_LEN];
        if (snprintf(file, sizeof file, "%.*s/%s", (int)len, len ? path : ".", name) <
                (int)sizeof file &&
            access(file, X_OK) == 0)
            return 1;
        path += len + (path[len] == ':');
    }
    return 0;
}

/* --ranks outside MPI: this run again under mpirun with the most ranks
 * asked for (each rank count is the first P of them), unbound (spbench
 * gives each rank its share of the cores), oversubscribed when there are
 * more ranks than cores. Inside a Slurm allocation mpirun takes its nodes.
 * A job that a dying rank ends gets that row's error row and is started
 * again with --resume. Returns the run's exit status. */
int launch_ranks(int argc, char **argv, const spb_launch *job)
{
    char self[SPB_PATH_LEN], ranks[16], resume[] = "--resume";
    int found = spb_self_path(self, sizeof self);
    if (!dist_compiled() || !found) {
        fprintf(stderr, "spbench: --ranks: %s\n",
                !found ? "cannot find this program's path" : dist_unavailable());
        return EXIT_USAGE;
    }
    if (!on_path("mpirun")) { /* said before anything starts: nothing to --resume */
        fprintf(stderr, "spbench: --ranks needs mpirun (Open MPI), and none is on PATH "
                        "(bash scripts/deps.sh installs it)\n");
        return EXIT_USAGE;
    }
    int most = job->ranks, k = 0, procs = omp_get_num_procs();
    int threads = job->threads;
    if (most * threads > procs)
        fprintf(stderr,
                "spbench: warning: %d ranks x %d threads ask for %d cores; this machine has %d: "
                "rank counts beyond %d share cores and time the contention\n",
                most, threads, most * threads, procs, procs / threads > 0 ? procs / threads : 1);
    snprintf(ranks, sizeof ranks, "%d", most);
    char **args = spb_calloc((size_t)argc + 10, sizeof *args);
    if (!args) return EXIT_RESULTS_BAD;
    char *launch[] = {"mpirun", "-np", ranks, "--bind-to", "none", "--oversubscribe", self, "run"};
    for (int i = 0; i < 8; i++)
        if (i != 5 || most > procs) args[k++] = launch[i];
    for (int i = 0; i < argc; i++) args[k++] = argv[i];
    fprintf(stderr, "spbench: starting %d ranks: mpirun -np %d%s ... run ...\n", most, most,
            most > procs ? " --oversubscribe" : "");
    if (geteuid() == 0 && !getenv("OMPI_ALLOW_RUN_AS_ROOT")) {
        /* Open MPI refuses root unless told twice; spbench's own job is meant */
        fprintf(stderr, "spbench: running as root: OMPI_ALLOW_RUN_AS_ROOT=1 and "
                        "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 set for mpirun\n");
        setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
        setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
    }
    watch_launched_job();
    int status, restarts = 0;
    while ((status = run_mpirun(args)) != 0 && launcher_stops == 0 &&
           record_aborted_row(job, status) && restarts++ < SPB_MAX_RESTARTS)
        if (!job->resume) args[k] = resume; /* the rows so far stay; the rest is measured */
    spb_free(args);
    int reported = reported_status();
    if (status == 0 && reported > 0) status = reported;
    if (status != 0 && launcher_stops == 0 && access(end_file, F_OK) != 0)
        report_job_lost(job, status);
    unlink(stop_file);
    unlink(in_flight_file);
    unlink(end_file);
    return status;
}

/* Rank 0 of run --ranks's job, leaving by exit or return: it said itself
 * how the run ended (see report_job_lost). */
void launch_mark_end(void)
{
    const char *path = getenv(END_FILE_VAR);
    int fd = path ? open(path, O_CREAT | O_WRONLY, 0600) : -1;
    if (fd >= 0) close(fd);
}

/* Rank 0 of run --ranks's job: its exit status goes to the launcher in the
 * end file and the job ends with 0, so that mpirun adds no banner of its
 * own to a study that found a wrong row. */
int launch_report_status(int code)
{
    const char *path = getenv(END_FILE_VAR);
    FILE *f = dist_launched() && path ? fopen(path, "w") : NULL;
    if (!f) return code;
    fprintf(f, "%d\n", code);
    return fclose(f) == 0 ? 0 : code;
}
