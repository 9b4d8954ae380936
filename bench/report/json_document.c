/* json_document.c — the results JSON around its rows: the header
 * (machine, build, settings, the rooflines, energy) and the trailer
 * (totals, noise, where the time went) (see report.h). */
#include <errno.h>
#include <omp.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/machine/cpufreq.h"
#include "bench/report/report.h"

#define SPB_JSON_FORMAT_VERSION 1

/* __VERSION__ alone is a bare number under gcc ("12.2.0"): name the compiler. */
#if defined(__clang__)
#define SPB_COMPILER_NAME "clang"
#elif defined(__GNUC__)
#define SPB_COMPILER_NAME "gcc"
#else
#define SPB_COMPILER_NAME "cc"
#endif

/* The CPU model from /proc/cpuinfo, or "unknown". */
void report_cpu_model(char *out, size_t size)
{
    snprintf(out, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        colon += 1 + (colon[1] == ' ');
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(out, size, "%s", colon);
        break;
    }
    fclose(f);
}

/* "spbench": the build. */
static void json_build(FILE *j, const spb_json_header *h)
{
    fprintf(j, "  \"spbench\": {\"version\": \"%s\", \"git_commit\": \"%s\", \"compiler\": ",
            h->version, h->git_commit);
    report_json_string(j, SPB_COMPILER_NAME " " __VERSION__);
    fprintf(j, ", \"build\": ");
    report_json_string(j, h->build);
    fprintf(j, ", \"cuda_compiled\": %s},\n", gpu_compiled() ? "true" : "false");
}

static void json_stat(FILE *j, const char *name, const spb_bw_stat *s)
{
    fprintf(j, "\"%s\": {\"best\": %.4g, \"median\": %.4g, \"worst\": %.4g, \"trials\": %d}", name,
            s->best, s->median, s->worst, s->trials);
}

/* "bandwidth": every measured figure with its spread, how many times the
 * set was measured and over how many seconds. */
static void json_bandwidth(FILE *j, const spb_roofline *r)
{
    static const char *const sources[] = {"measured", "reused", "given", "none"};
    fprintf(j, "\"bandwidth\": {\"measurements\": %d, \"span_s\": %.1f, \"cpu_source\": \"%s\", ",
            r->measurements, r->last_at - r->first_at, sources[r->cpu_source]);
    fprintf(j, "\"cpu_measured_at\": ");
    if (r->cpu_source == SPB_BW_MEASURED || r->cpu_source == SPB_BW_REUSED)
        fprintf(j, "%.0f, ", r->cpu_measured_at);
    else
        fputs("null, ", j);
    fputs("\"cpu_llc_source\": ", j);
    report_json_string(j, r->llc_source);
    fputs(", \"cpu_key\": ", j);
    report_json_string(j, r->cpu_key);
    fputs(", \"cpu\": {", j);
    for (int k = 0; k < r->cpu_count; k++) {
        fprintf(j, "%s\"%d\": {", k ? ", " : "", r->cpu[k].threads);
        json_stat(j, "read", &r->cpu[k].read);
        fputs(", ", j);
        json_stat(j, "triad", &r->cpu[k].triad);
        fprintf(j, ", \"roofline\": %.4g}", roofline_cpu(r, r->cpu[k].threads));
    }
    fputs("}, \"gpu\": ", j);
    if (r->gpu) {
        fputc('{', j);
        json_stat(j, "read", &r->gpu_read);
        fputs(", ", j);
        json_stat(j, "copy", &r->gpu_copy);
        fprintf(j, ", \"roofline\": %.4g}", roofline_gpu(r));
    } else {
        fputs("null", j);
    }
    fputc('}', j);
}

/* "machine": CPU model, cores, cache and bounds; the GPU or why there is none. */
static void json_machine(FILE *j, const spb_json_header *h)
{
    const spb_roofline *r = h->roofline;
    char model[256];
    report_cpu_model(model, sizeof model);
    fprintf(j, "  \"machine\": {\n    \"cpu_model\": ");
    report_json_string(j, model);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    /* the machine's cores, and those this process may use (a rank's share) */
    fprintf(
        j,
        ",\n    \"cpu_cores\": %ld,\n    \"cpu_cores_used\": %d,\n    \"cpu_llc_bytes\": %.0f,\n",
        online > 0 ? online : (long)omp_get_num_procs(), omp_get_num_procs(), r->cpu_llc_bytes);
    char clocks[512]; /* whether the clocks may drift: the governors and turbo */
    cpufreq_state(NULL, clocks, sizeof clocks);
    fputs("    \"cpu_clocks\": ", j);
    report_json_string(j, clocks);
    fputs(",\n", j);
    fputs("    \"cpu_bandwidth_gbs\": {", j);
    for (int k = 0; k < r->cpu_count; k++)
        fprintf(j, "%s\"%d\": %.4g", k ? ", " : "", r->cpu[k].threads,
                roofline_cpu(r, r->cpu[k].threads));
    fprintf(j, "},\n    \"gpu\": ");
    const spb_gpu_info *gpu = h->gpu;
    if (gpu) {
        fprintf(j, "{\"name\": ");
        report_json_string(j, gpu->name);
        fprintf(j,
                ", \"sm_count\": %d, \"compute_capability\": \"%d.%d\", \"memory_bytes\": %.0f, "
                "\"l2_bytes\": %.0f, \"driver_version\": %d, \"runtime_version\": %d, "
                "\"copy_bandwidth_gbs\": %.4g, \"roofline_gbs\": %.4g",
                gpu->sm_count, gpu->cc_major, gpu->cc_minor, gpu->memory_bytes, gpu->l2_bytes,
                gpu->driver_version, gpu->runtime_version, r->gpu_copy.best, roofline_gpu(r));
        if (r->gpu_peer) /* the GPU ranks' link: GPU 0 to 1, one way */
            fprintf(j,
                    ", \"peer_copy_gbs\": %.4g, \"peer_copy_median_gbs\": %.4g, "
                    "\"peer_access\": %s",
                    r->gpu_peer_copy.best, r->gpu_peer_copy.median,
                    r->gpu_peer_direct ? "true" : "false");
        fputc('}', j);
    } else {
        fprintf(j, "{\"name\": null, \"reason\": ");
        report_json_string(j, h->gpu_reason);
        fputc('}', j);
    }
    fputs(",\n    ", j);
    json_bandwidth(j, r);
    fprintf(j, "\n  },\n");
}

/* A number, or null when negative (not measured here). */
static void json_number_or_null(FILE *j, double v)
{
    if (v < 0)
        fputs("null", j);
    else
        fprintf(j, "%.2f", v);
}

/* "energy": where the energy columns come from, or why they are empty. */
static void json_energy(FILE *j, const spb_json_header *h)
{
    fprintf(j,
            ",\n  \"energy\": {\"window_s\": %g, \"periods\": %d, \"rows\": \"%s\", "
            "\"gpu\": {\"available\": %s",
            h->energy.window_s, SPB_ENERGY_PERIODS, h->energy.all_rows ? "all" : "best",
            energy_available(h->energy.meters, 1) ? "true" : "false");
    spb_gpu_power_info g;
    if (energy_gpu_info(h->energy.meters, &g)) {
        fputs(", \"power_limit_w\": ", j);
        json_number_or_null(j, g.power_limit_w);
        fputs(", \"sm_clock_mhz\": ", j);
        json_number_or_null(j, g.sm_mhz);
        fputs(", \"mem_clock_mhz\": ", j);
        json_number_or_null(j, g.mem_mhz);
        fputs(", \"temp_c\": ", j);
        json_number_or_null(j, g.temp_c);
    } else {
        fputs(", \"why\": ", j);
        report_json_string(j, energy_why(h->energy.meters, 1));
    }
    fprintf(j, "}, \"cpu\": {\"available\": %s, \"%s\": ",
            energy_available(h->energy.meters, 0) ? "true" : "false",
            energy_available(h->energy.meters, 0) ? "zones" : "why");
    report_json_string(j, energy_available(h->energy.meters, 0) ? energy_cpu_zones(h->energy.meters)
                                                                : energy_why(h->energy.meters, 0));
    fputs("}}", j);
}

/* {"baseline": ..., "libraries": [...]} */
static void json_roles(FILE *j, const spb_json_roles *roles)
{
    fputs("{\"baseline\": ", j);
    report_json_string(j, roles->baseline ? roles->baseline : "");
    fputs(", \"libraries\": [", j);
    for (int k = 0; k < roles->library_count; k++) {
        if (k) fputs(", ", j);
        report_json_string(j, roles->libraries[k]);
    }
    fputs("]}", j);
}

spb_status report_json_begin(FILE *j, const char *path, const spb_json_header *h, char *msg)
{
    if (!j) return SPB_OK;
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    fprintf(j, "{\n  \"format\": \"spbench-results\",\n  \"format_version\": %d,\n",
            SPB_JSON_FORMAT_VERSION);
    json_build(j, h);
    fprintf(j, "  \"date\": \"%s\",\n", date);
    json_machine(j, h);
    fprintf(j, "  \"settings\": {\"operation\": \"%s\", \"precision\": \"%s\", \"row_key\": ",
            h->operation, h->precision);
    report_json_string(j, h->settings);
    fprintf(j,
            ", \"kernels\": \"%s\", \"warmup\": %d, \"min_samples\": %d, \"min_time_s\": %g, "
            "\"max_noise\": %g, \"tolerance\": %g, \"matrices\": %d",
            h->kernels ? h->kernels : "*", h->timing.warmup, h->timing.min_samples,
            h->timing.min_time, h->timing.max_spread > 0 ? h->timing.max_spread : SPB_NOISY_SPREAD,
            h->tolerance, h->matrices);
    if (h->shards > 0) /* merge checks that every shard of the study is there */
        fprintf(j, ", \"shard\": \"%d/%d\"", h->shard, h->shards);
    fprintf(j, "},\n  \"roles\": ");
    for (int r = 0; r < h->role_count; r++)
        if (strcmp(h->roles[r].operation, h->operation) == 0) json_roles(j, &h->roles[r]);
    fprintf(j, ",\n  \"roles_by_operation\": {");
    for (int r = 0; r < h->role_count; r++) {
        fprintf(j, "%s", r ? ", " : "");
        report_json_string(j, h->roles[r].operation);
        fputs(": ", j);
        json_roles(j, &h->roles[r]);
    }
    fprintf(j, "},\n  \"columns\": ");
    report_json_string(j, report_csv_columns());
    if (h->load) {
        fprintf(j,
                ",\n  \"load_before\": {\"cores\": %d, \"load_average\": %.2f, "
                "\"cpu_pressure_percent\": ",
                h->load->cores, h->load->load_before);
        json_number_or_null(j, h->load->pressure_before);
        fprintf(j, ", \"bandwidth_spread\": %.4f}", h->load->bandwidth_spread);
    }
    json_energy(j, h);
    fprintf(j, ",\n  \"rows\": [");
    if (fflush(j) != 0 || ferror(j))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}

/* The trailer's noise record: noisy rows and how busy the machine was. */
static void json_noise(FILE *j, const spb_row_counts *n, const spb_machine_load *load)
{
    fprintf(j, "\"noise\": {\"noisy_rows\": %d", n->noisy);
    if (load) {
        char why[512];
        int busy = machine_load_busy(load, why, sizeof why);
        fprintf(j, ", \"busy\": %s, \"why\": ", busy ? "true" : "false");
        report_json_string(j, why);
        fprintf(j, ", \"load_average_max\": %.2f, \"cpu_pressure_percent_max\": ", load->load_max);
        json_number_or_null(j, load->pressure_max);
    }
    fputs("},\n  ", j);
}

void report_json_failed(FILE *json, const char *error)
{
    if (!json) return;
    fprintf(json,
            "{\n  \"format\": \"spbench-results\",\n  \"format_version\": %d,\n  \"rows\": [],\n"
            "  \"interrupted\": {\"error\": ",
            SPB_JSON_FORMAT_VERSION);
    report_json_string(json, error);
    fputs(", \"note\": \"ended by the error before any row\"}\n}\n", json);
}

spb_status report_json_end(FILE *json, const char *path, const spb_row_counts *n,
                           const spb_roofline *roofline, const spb_machine_load *load,
                           const spb_phase_times *phases, char *msg)
{
    if (!json) return SPB_OK;
    fprintf(json,
            "\n  ],\n  \"totals\": {\"rows\": %d, \"ok\": %d, \"wrong\": %d, \"skipped\": %d, "
            "\"error\": %d, \"already_in_csv\": %d, \"cores_used_max\": %d},\n  \"interrupted\": ",
            n->rows, n->ok, n->wrong, n->skipped, n->errors, n->resumed, n->cores_max);
    if (n->interrupted_by) {
        fprintf(json,
                "{\"signal\": %d, \"note\": \"stopped early: the rows are those measured "
                "before it; --resume continues\"},\n  ",
                n->interrupted_by);
    } else if (n->failed) {
        fputs("{\"error\": ", json);
        report_json_string(json, n->failed);
        fputs(", \"note\": \"ended early by the error: the rows are those measured before it; "
              "--resume continues\"},\n  ",
              json);
    } else
        fputs("false,\n  ", json);
    json_noise(json, n, load);
    fputs("\"time_s\": ", json);
    phases_json(json, phases);
    fputs(",\n  ", json);
    json_bandwidth(json, roofline); /* after the re-measurements of a long run */
    fputs("\n}\n", json);
    if (fflush(json) != 0 || ferror(json))
        return spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
    return SPB_OK;
}
