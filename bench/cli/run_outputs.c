/* run_outputs.c — spbench run's results files: claimed and checked before
 * any is emptied, opened (or resumed), and closed whole (see run_args.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/inputs/gen.h"

#include "bench/cli/run_args.h"

/* A results file that already holds rows is kept unless the user says
 * what to do with it: --resume continues it, --force overwrites it. */
spb_status refuse_overwrite(const char *path, const char *option, char *msg)
{
    struct stat st;
    if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return SPB_OK;
    return spb_fail(msg, SPB_ERR_INVALID,
                    "%s %s: the file already holds results; --resume continues it, --force "
                    "overwrites it",
                    option, path);
}

/* Whether the file starts as a spbench results JSON does. */
static int is_results_json(const char *path)
{
    char head[256] = "";
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    size_t got = fread(head, 1, sizeof head - 1, f);
    fclose(f);
    head[got] = '\0';
    return strstr(head, "\"format\": \"spbench-results\"") != NULL;
}

/* An output that is one of the input matrices would be overwritten by the
 * rows (--force) or called a results file; it is refused as what it is. */
static spb_status refuse_input(const spb_output *out, const spb_source_list *list, char *msg)
{
    for (int k = 0; k < list->count; k++)
        if (!gen_is_spec(list->items[k]) && output_is_file(out, list->items[k]))
            return spb_fail(msg, SPB_ERR_INVALID,
                            "%s %s is one of the input matrices (%s): the results would "
                            "overwrite it; name another file",
                            out->option, out->path, list->items[k]);
    return SPB_OK;
}

/* An output that is this run's standard output would interleave the table
 * with its rows (--csv /dev/stdout > out.txt). */
static spb_status refuse_stdout(const spb_output *out, char *msg)
{
    struct stat so, sp;
    if (out->fd < 0 || fstat(out->fd, &so) != 0 || fstat(STDOUT_FILENO, &sp) != 0 ||
        so.st_dev != sp.st_dev || so.st_ino != sp.st_ino)
        return SPB_OK;
    return spb_fail(msg, SPB_ERR_INVALID,
                    "%s %s is this run's standard output, where the table goes: the rows would "
                    "be mixed with it; name a file",
                    out->option, out->path);
}

/* A JSON not there yet is not created to hold its lock (a run killed
 * outright would leave it empty): the lock is this run's temporary file's,
 * which becomes the JSON at the end, and another run's live one is refused. */
static spb_status claim_json(run_args *a, spb_output *json, char *msg)
{
    const char *path = a->opts.out.json_path;
    struct stat sb;
    if (stat(path, &sb) == 0 || errno != ENOENT) return output_claim(json, path, "--json", 0, msg);
    if (spb_temp_path(a->json_temp, sizeof a->json_temp, path, msg) != SPB_OK) return SPB_ERR_IO;
    spb_status st = output_claim_temp(json, a->json_temp, "--json", msg);
    long writer = st == SPB_OK ? output_temp_writer(path) : 0;
    if (writer)
        st = spb_fail(msg, SPB_ERR_IO,
                      "--json %s: another process (pid %ld) is writing this file; wait for it "
                      "to end or write elsewhere",
                      path, writer);
    return st;
}

/* Claims the CSV and the JSON, then checks that they may be written as
 * asked, before anything is emptied. */
static spb_status claim_outputs(run_args *a, const spb_source_list *list, spb_output *csv,
                                spb_output *json, char *msg)
{
    const spb_run_opts *o = &a->opts;
    struct stat sb;
    spb_status st = SPB_OK;
    if (a->resume && !o->out.csv_path)
        st = spb_fail(msg, SPB_ERR_INVALID, "--resume needs --csv FILE (the rows to resume from)");
    if (st == SPB_OK && o->out.csv_path)
        st = output_claim(csv, o->out.csv_path, "--csv", a->resume, msg);
    if (st == SPB_OK && output_is_file(csv, o->out.json_path))
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "--csv and --json name one file (%s): give each its own", o->out.csv_path);
    if (st == SPB_OK && o->out.json_path) st = claim_json(a, json, msg);
    if (st == SPB_OK && o->out.csv_path) st = refuse_input(csv, list, msg);
    if (st == SPB_OK && o->out.csv_path) st = refuse_stdout(csv, msg);
    if (st == SPB_OK && o->out.json_path) st = refuse_stdout(json, msg);
    if (st == SPB_OK && o->out.json_path) st = refuse_input(json, list, msg);
    if (st == SPB_OK && !a->resume && !a->force)
        st = refuse_overwrite(o->out.csv_path, "--csv", msg);
    if (st == SPB_OK && !a->resume && !a->force)
        st = refuse_overwrite(o->out.json_path, "--json", msg);
    if (st == SPB_OK && a->resume && !a->force && json->regular &&
        stat(o->out.json_path, &sb) == 0 && sb.st_size > 0 && !is_results_json(o->out.json_path))
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "--json %s: the file is not a spbench results JSON, and --resume rewrites "
                      "the JSON whole; name another file, or --force to replace it",
                      o->out.json_path);
    return st;
}

/* A regular JSON is written to a temporary file renamed onto it at the
 * end, so a run killed outright leaves the JSON it had (or none), never a
 * cut one; the claimed file stays open for its lock. */
static spb_status open_json(run_args *a, spb_output *json, char *msg)
{
    spb_run_opts *o = &a->opts;
    if (!json->regular) return (o->out.json = output_stream(json, 1, msg)) ? SPB_OK : SPB_ERR_IO;
    if (!a->json_temp[0] &&
        spb_temp_path(a->json_temp, sizeof a->json_temp, o->out.json_path, msg) != SPB_OK)
        return SPB_ERR_IO;
    o->out.json = fopen(a->json_temp, "w");
    if (!o->out.json) {
        spb_status st = spb_fail(msg, SPB_ERR_IO, "--json %s: cannot write %s: %s",
                                 o->out.json_path, a->json_temp, strerror(errno));
        unlink(a->json_temp);
        spb_temp_done(a->json_temp);
        a->json_temp[0] = '\0';
        return st;
    }
    a->json_claim = *json;
    json->fd = -1;
    return SPB_OK;
}

/* Whether paths a and b (b NULL: none) name one existing file. */
static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* The files' reporters (spb_file_outputs), opened last, each refused
 * where the other outputs are: the CSV, the JSON or another file output
 * itself, an input, the standard output, a file of results without
 * --force or --resume (which rewrites it). On a failure the ones opened
 * are given up. */
static spb_status open_file_outputs(run_args *a, const spb_source_list *list, char *msg)
{
    spb_run_opts *o = &a->opts;
    char context[1024];
    snprintf(context, sizeof context,
             "spbench %s (commit %s; %s); operation %s, precision %s; settings: %s; host %s",
             SPB_VERSION, spb_git_commit(), spb_build(), o->op->name, a->precision_names,
             o->settings, a->host[0] ? a->host : "unknown");
    spb_status st = SPB_OK;
    for (int k = 0; k < spb_file_output_count && st == SPB_OK; k++) {
        const char *path = a->file_paths[k], *option = spb_file_outputs[k].option;
        if (!path) continue;
        int twice = same_file(path, o->out.csv_path) || same_file(path, o->out.json_path);
        for (int j = 0; j < k; j++) twice |= a->file_paths[j] && same_file(path, a->file_paths[j]);
        if (twice)
            st = spb_fail(msg, SPB_ERR_INVALID,
                          "%s %s is also --csv, --json or another output: give each its own",
                          option, path);
        if (st == SPB_OK && !a->resume && !a->force) st = refuse_overwrite(path, option, msg);
        spb_output probe = {.fd = -1}; /* the checks' own claim, given up before the reporter's */
        if (st == SPB_OK) st = output_claim(&probe, path, option, 1, msg);
        if (st == SPB_OK) st = refuse_input(&probe, list, msg);
        if (st == SPB_OK) st = refuse_stdout(&probe, msg);
        output_abandon(&probe);
        spb_reporter *r =
            st == SPB_OK ? spb_file_outputs[k].open(path, option, context, msg) : NULL;
        if (r)
            o->out.files[o->out.file_count++] = r;
        else if (st == SPB_OK)
            st = SPB_ERR_IO;
    }
    if (st != SPB_OK) {
        for (int k = 0; k < o->out.file_count; k++) o->out.files[k]->abort(o->out.files[k]);
        o->out.file_count = 0;
    }
    return st;
}

/* Claims and checks every output before any is emptied, reads back the
 * rows to resume, then opens the streams and the cache folder; 0 after
 * saying why not. */
int open_outputs(run_args *a, spb_source_list *list, spb_done_set *done, int *csv_has_header)
{
    spb_run_opts *o = &a->opts;
    spb_output csv = {.fd = -1}, json = {.fd = -1};
    a->json_claim = json;
    char msg[SPB_MSG_LEN] = "";
    spb_status st = claim_outputs(a, list, &csv, &json, msg);
    if (st == SPB_OK && a->resume) st = resume_load(o->out.csv_path, done, csv_has_header, msg);
    if (st == SPB_OK && a->resume)
        st = run_check_measured(done, o->measured_under, o->out.csv_path, msg);
    if (st == SPB_OK && a->resume) st = run_adopt_names(list, done, msg);
    if (st == SPB_OK && a->resume) st = run_check_sources(list, done, o->out.csv_path, msg);
    if (st == SPB_OK && o->cache_dir && mkdir(o->cache_dir, 0777) != 0 && errno != EEXIST)
        st = spb_fail(msg, SPB_ERR_IO, "--cache %s: cannot create: %s", o->cache_dir,
                      strerror(errno));
    if (st == SPB_OK && o->out.csv_path && !(o->out.csv = output_stream(&csv, !a->resume, msg)))
        st = SPB_ERR_IO;
    if (st == SPB_OK && o->out.json_path) st = open_json(a, &json, msg);
    if (st == SPB_OK) st = open_file_outputs(a, list, msg);
    output_abandon(&csv);
    output_abandon(&json); /* the JSON's temporary file too, when it holds the lock */
    if (st == SPB_OK) return 1;
    if (a->json_temp[0]) spb_temp_done(a->json_temp);
    a->json_temp[0] = '\0';
    fprintf(stderr, "spbench: %s\n", msg);
    if (o->out.csv) fclose(o->out.csv);
    o->out.csv = NULL;
    resume_free(done);
    return 0;
}

/* Closes the outputs; a failed close is a failed write. The JSON's
 * temporary file takes its place only when it was written whole. */
spb_status close_outputs(run_args *a, spb_status st, const spb_row_counts *counts, char *msg)
{
    spb_run_opts *o = &a->opts;
    for (int k = 0; k < o->out.file_count; k++)
        st = o->out.files[k]->end(o->out.files[k], counts, st, msg);
    o->out.file_count = 0;
    /* a write that failed earlier (a full disk) may leave fclose nothing to fail on */
    int json_failed = o->out.json && ferror(o->out.json);
    if (o->out.json && fclose(o->out.json) != 0) json_failed = 1;
    if (json_failed && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", o->out.json_path, strerror(errno));
    if (a->json_temp[0] && !json_failed && rename(a->json_temp, o->out.json_path) != 0) {
        json_failed = 1;
        if (st == SPB_OK)
            st = spb_fail(msg, SPB_ERR_IO, "--json %s: cannot put %s in its place: %s",
                          o->out.json_path, a->json_temp, strerror(errno));
    }
    if (a->json_temp[0] && json_failed) unlink(a->json_temp);
    if (a->json_temp[0]) spb_temp_done(a->json_temp);
    if (json_failed) output_abandon(&a->json_claim); /* a file it created stays only if whole */
    if (a->json_claim.fd >= 0) close(a->json_claim.fd);
    if (o->out.csv && fclose(o->out.csv) != 0 && st == SPB_OK)
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", o->out.csv_path, strerror(errno));
    return st;
}

spb_status json_begin(const run_args *a, int matrices, char *msg)
{
    const spb_run_opts *o = &a->opts;
    spb_json_header h = {.version = SPB_VERSION,
                         .git_commit = spb_git_commit(),
                         .build = spb_build(),
                         .operation = o->op->name,
                         /* as --precision names it (the schema's fp64, fp32, both) */
                         .precision = o->precision_count == 2 ? "both" : a->precision_names,
                         .shard = a->shard,
                         .shards = a->shards,
                         .roofline = &a->roofline,
                         .gpu = a->have_gpu ? &a->gpu : NULL,
                         .gpu_reason = a->gpu_msg,
                         .settings = o->settings,
                         .kernels = o->kernels,
                         .timing = o->timing,
                         .tolerance = o->tolerance,
                         .matrices = matrices,
                         .load = o->out.machine,
                         .energy = o->energy};
    /* every operation's roles: rows of each may share the file (--resume) */
    const char **libraries[SPB_JSON_OPERATIONS] = {NULL};
    spb_status st = SPB_OK;
    for (const spb_operation *op; st == SPB_OK && h.role_count < SPB_JSON_OPERATIONS &&
                                  (op = operation_at(h.role_count)) != NULL;) {
        const char **names = spb_calloc((size_t)op->kernel_count + 1, sizeof *names);
        if (!names) {
            st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
            break;
        }
        spb_json_roles *roles = &h.roles[h.role_count];
        libraries[h.role_count++] = names;
        *roles = (spb_json_roles){
            .operation = op->name, .baseline = op->baseline->name, .libraries = names};
        for (int k = 0; k < op->kernel_count; k++)
            if (op->kernels[k]->library) names[roles->library_count++] = op->kernels[k]->name;
    }
    if (st == SPB_OK) st = report_json_begin(o->out.json, o->out.json_path, &h, msg);
    for (int r = 0; r < h.role_count; r++) spb_free(libraries[r]);
    return st;
}
