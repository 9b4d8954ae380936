/* cmd_run.c — spbench run: options, outputs, the rooflines, then every
 * matrix through the run protocol (run.c), and the closing summary. */
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/cli/dry_run.h"
#include "bench/cli/launch.h"
#include "bench/cli/processes.h"
#include "bench/cli/run_args.h"
#include "bench/machine/placement.h"
#include "plugins/loader.h"

/* More threads than OpenMP has processors time the contention, not the kernel. */
static void warn_oversubscribed(const spb_run_opts *o)
{
    int procs = omp_get_num_procs(), most = o->threads[o->thread_counts - 1];
    if (most > procs)
        fprintf(stderr,
                "spbench: warning: --threads asks for up to %d threads but OpenMP can use %d "
                "processors; counts above %d share cores and run slower\n",
                most, procs, procs);
}

/* Every matrix in turn, with progress; the JSON closed with the totals. */
static spb_status run_all(run_args *a, const spb_source_list *list, spb_run_totals *totals,
                          char *msg)
{
    spb_run_opts *o = &a->opts;
    spb_progress progress = {a->quiet ? NULL : stderr, !a->quiet && isatty(fileno(stderr)), 0,
                             list->count, timing_now()};
    o->out.progress = &progress;
    spb_status st = SPB_OK;
    for (int k = 0; k < list->count && st == SPB_OK && !run_stop_requested(); k++) {
        progress.index = k + 1;
        if (k > 0 && (a->roofline.cpu_source == SPB_BW_MEASURED || a->roofline.gpu) &&
            timing_now() - a->roofline.last_at > SPB_REMEASURE_SECONDS) {
            progress_show(&progress, list->names[k], "measuring the bandwidth again");
            double start = timing_now();
            st = roofline_measure(&a->roofline, SPB_PASSES_AGAIN, msg);
            phase_add(&a->phases, SPB_PHASE_BANDWIDTH, timing_now() - start);
        }
        if (list->ranks) { /* a weak-scaling item: its own rank count alone */
            o->ranks = &list->ranks[k];
            o->rank_counts = 1;
        }
        if (st == SPB_OK) st = run_matrix(list->items[k], list->names[k], o, totals, msg);
    }
    progress_finish(&progress);
    if (st == SPB_OK) st = run_replay_rest(o, totals, msg);
    /* the JSON's totals are its rows': the run's and those it kept */
    spb_row_counts counts = totals->counts;
    row_counts_add(&counts, &totals->kept);
    counts.interrupted_by = run_stop_requested();
    /* the JSON ends whole on every path: after an error it says which */
    char end_msg[SPB_MSG_LEN] = "";
    counts.failed = st == SPB_OK ? NULL : msg;
    spb_status ended = report_json_end(o->out.json, o->out.json_path, &counts, &a->roofline,
                                       o->out.machine, &a->phases, end_msg);
    if (st == SPB_OK && ended != SPB_OK) {
        snprintf(msg, SPB_MSG_LEN, "%s", end_msg);
        st = ended;
    }
    return st;
}

/* The first SIGINT or SIGTERM stops the run between turns (run.h) and
 * lets the outputs close validly; a second one ends the process at once. */
static void on_stop_signal(int signo)
{
    if (run_stop_requested()) {
        spb_temp_remove_all();
        signal(signo, SIG_DFL);
        raise(signo);
        return;
    }
    run_request_stop(signo);
    static const char note[] = "\nspbench: stopping; rows not finished are left to --resume "
                               "(again to stop at once)\n";
    ssize_t ignored = write(STDERR_FILENO, note, sizeof note - 1);
    (void)ignored;
}

static void catch_stop_signals(void)
{
    on_stop_signals(on_stop_signal, SA_RESTART);
    if (launch_stop_file()) run_watch_stop_file(launch_stop_file());
    plugins_watch_stop(run_stop_requested); /* a kernel's process waited on is stopped too */
    plugins_spawn_with(placement_give_back_start_cpus); /* its OpenMP threads on all our CPUs */
}

/* How to continue a run that stopped early (`what` says how): its own
 * command with --resume. */
static void print_resume_hint(int argc, char **argv, const run_args *a, const char *what)
{
    fprintf(stderr, "spbench: %s", what);
    if (a->process_count) { /* one of run --processes's runs: that launcher says how */
        fprintf(stderr, "\n");
        return;
    }
    if (!a->opts.out.csv_path) {
        fprintf(stderr, "; without --csv FILE there is nothing to resume\n");
        return;
    }
    char self[SPB_PATH_LEN]; /* the path that ran, so the line can be pasted */
    if (!spb_self_path(self, sizeof self)) snprintf(self, sizeof self, "spbench");
    fprintf(stderr, " (in %s); to continue:\n  %s run", a->opts.out.csv_path, self);
    for (int i = 0; i < argc; i++) {
        int plain = strspn(argv[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                    "0123456789-_./:=,@+%") == strlen(argv[i]);
        fprintf(stderr, plain ? " %s" : " '%s'", argv[i]);
    }
    fprintf(stderr, "%s\n", a->resume ? "" : " --resume");
}

/* The closing lines: best kernels, totals, noise; the exit status. */
static int finish_run(int argc, char **argv, const run_args *a, spb_run_totals *totals)
{
    /* rows read back included: it names their kernels */
    summary_print(stdout, &totals->summary, a->opts.op->baseline->name);
    printf("# %d row%s: %d ok, %d wrong, %d skipped, %d error", totals->counts.rows,
           totals->counts.rows == 1 ? "" : "s", totals->counts.ok, totals->counts.wrong,
           totals->counts.skipped, totals->counts.errors);
    if (a->resume)
        printf("; %d were already in %s, %d measured now", totals->counts.resumed,
               a->opts.out.csv_path, totals->counts.rows - totals->counts.resumed);
    printf("\n");
    print_noise_summary(totals, &a->machine, &a->opts.timing);
    phases_print(stdout, &a->phases);
    int stopped_by = run_stop_requested();
    if (stopped_by) {
        fflush(stdout);
        char what[96];
        snprintf(what, sizeof what, "interrupted by %s after %d rows",
                 stopped_by == SIGINT ? "SIGINT" : "SIGTERM",
                 totals->counts.rows - totals->counts.resumed);
        print_resume_hint(argc, argv, a, what);
        return 128 + stopped_by;
    }
    const spb_row_counts *n = &totals->counts;
    if (n->wrong || n->errors) return EXIT_RESULTS_BAD;
    /* a study, or a gate, whose every row was skipped must not pass as one
     * (a shard with no matrices has no rows: that is its whole share) */
    if (n->rows > 0 && n->ok == 0) {
        fflush(stdout);
        fprintf(stderr, "spbench: no row was measured: all %d were skipped (the reasons above)\n",
                n->rows);
        return EXIT_NOTHING_MEASURED;
    }
    return 0;
}

/* --processes N: the whole run in N fresh processes, combined into the
 * files named (see processes.h); a stop gives the command that goes on. */
static int launch_processes(int argc, char **argv, const run_args *a)
{
    char msg[SPB_MSG_LEN] = "";
    if (!a->opts.out.csv_path) {
        fprintf(stderr, "spbench: --processes N keeps each process's rows beside --csv FILE and "
                        "combines them there: give --csv (and --json for the samples)\n");
        return EXIT_USAGE;
    }
    if (!a->resume && !a->force &&
        (refuse_overwrite(a->opts.out.csv_path, "--csv", msg) != SPB_OK ||
         refuse_overwrite(a->opts.out.json_path, "--json", msg) != SPB_OK)) {
        fprintf(stderr, "spbench: %s\n", msg);
        return EXIT_USAGE;
    }
    int status =
        run_processes(argc, argv, a->processes, a->opts.out.csv_path, a->opts.out.json_path);
    if (status >= 128) {
        char what[96];
        snprintf(what, sizeof what, "the study in %d processes stopped", a->processes);
        print_resume_hint(argc, argv, a, what);
    }
    return status;
}

/* The launcher's resume line: this run's own (see print_resume_hint). */
typedef struct {
    int argc;
    char **argv;
    const run_args *args;
} launch_context;

static void launch_hint(const char *what, void *context)
{
    const launch_context *c = context;
    print_resume_hint(c->argc, c->argv, c->args, what);
}

/* --ranks outside MPI: this run under mpirun (launch.c). */
static int run_under_mpirun(int argc, char **argv, const run_args *a)
{
    launch_context context = {argc, argv, a};
    spb_launch job = {.ranks = a->ranks[a->opts.rank_counts - 1],
                      .threads = a->threads[a->opts.thread_counts - 1],
                      .resume = a->resume,
                      .csv_path = a->opts.out.csv_path,
                      .json_path = a->opts.out.json_path,
                      .resume_hint = launch_hint,
                      .context = &context};
    return launch_ranks(argc, argv, &job);
}

/* The bounds (kept for the runs after when measured), the machine's load
 * and the energy meters, before the first row. */
static spb_status start_measuring(run_args *a, int selected_cuda, int gpu_ranks, char *msg)
{
    double start = timing_now();
    spb_status st = measure_rooflines(a, selected_cuda, gpu_ranks, msg);
    phase_add(&a->phases, SPB_PHASE_BANDWIDTH, timing_now() - start);
    machine_load_start(&a->machine, &a->roofline);
    if (st == SPB_OK) keep_rooflines(a);
    a->opts.out.machine = &a->machine;
    a->opts.energy.meters = energy_open(NULL, a->have_gpu ? a->gpu.pci_bus_id : "", NULL);
    return st;
}

/* A run that does not measure here: a dry run, or one launched as several
 * processes or under mpirun; its exit status, or -1 (and the list kept)
 * when the run is this process's. */
static int run_elsewhere(int argc, char **argv, run_args *a, spb_source_list *list)
{
    int code = -1;
    if (a->dry_run)
        code = dry_run_print(stdout, &a->opts, list, a->processes > 1 ? a->processes : 1);
    else if (a->processes > 1 && !dist_launched())
        code = launch_processes(argc, argv, a);
    else if (a->ranks_given && !dist_launched())
        code = run_under_mpirun(argc, argv, a);
    if (code >= 0) sources_free(list);
    return code;
}

int cmd_run(int argc, char **argv)
{
    static run_args a; /* large: thread lists, messages */
    memset(&a, 0, sizeof a);
    a.phases.start = timing_now();
    a.opts.out.phases = &a.phases;
    if (dist_launched()) atexit(launch_mark_end);
    parse_run_args(argc, argv, &a);
    int selected_cuda, gpu_ranks, selected = selected_or_exit(&a.opts, &selected_cuda, &gpu_ranks);
    a.opts.out.kernel_width = plan_kernel_width(&a.opts);
    spb_source_list list = matrices_or_exit(&a);
    int elsewhere = run_elsewhere(argc, argv, &a, &list);
    if (elsewhere >= 0) return elsewhere;
    int most_ranks = a.ranks[a.opts.rank_counts - 1];
    if (a.opts.distributed && most_ranks > dist_world_size()) {
        fprintf(stderr, "spbench: --ranks asks for %d ranks; the launcher started %d\n", most_ranks,
                dist_world_size());
        sources_free(&list);
        return launch_report_status(EXIT_USAGE);
    }
    if (gethostname(a.host, sizeof a.host - 1) != 0) snprintf(a.host, sizeof a.host, "unknown");
    a.opts.host = a.host;
    spb_done_set done = {0};
    int csv_has_header = 0, code = EXIT_RESULTS_BAD;
    if (!open_outputs(&a, &list, &done, &csv_has_header)) {
        sources_free(&list);
        return launch_report_status(EXIT_USAGE);
    }
    if (a.resume) a.opts.done = &done;
    catch_stop_signals();
    warn_oversubscribed(&a.opts);
    char msg[SPB_MSG_LEN] = "";
    spb_status st =
        csv_has_header ? SPB_OK : report_csv_header(a.opts.out.csv, a.opts.out.csv_path, msg);
    if (st == SPB_OK) st = start_measuring(&a, selected_cuda, gpu_ranks, msg);
    if (st == SPB_OK) print_run_header(&a, list.count, selected);
    if (st == SPB_OK)
        st = json_begin(&a, list.count, msg);
    else
        report_json_failed(a.opts.out.json, msg); /* the JSON is whole on every path */
    spb_run_totals totals = {0};
    if (st == SPB_OK) st = run_totals_begin(&a.opts, &totals, msg);
    if (st == SPB_OK) st = run_all(&a, &list, &totals, msg);
    spb_row_counts counts = totals.counts;
    counts.interrupted_by = run_stop_requested();
    st = close_outputs(&a, st, &counts, msg);
    sources_free(&list);
    if (st != SPB_OK)
        fprintf(stderr, "spbench: %s\n", msg);
    else
        code = finish_run(argc, argv, &a, &totals);
    run_totals_free(&totals);
    resume_free(&done);
    energy_close(a.opts.energy.meters);
    return launch_report_status(code);
}
