/* run_header.c — what spbench run says before its first row (the machine,
 * the rooflines, the settings) and after its last (noise), and the
 * rooflines it measures or reuses (see run_args.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/cli/cli.h"

#include "bench/cli/run_args.h"
#include "bench/machine/cpufreq.h"

/* The key of this machine's kept CPU figures: what decides them. */
static void bandwidth_key(const run_args *a, char *key, size_t size)
{
    char model[256];
    report_cpu_model(model, sizeof model);
    snprintf(key, size, "host=%s cpu=%s cpus=%d llc=%.0f spbench=%s build=%s", a->host, model,
             omp_get_num_procs(), a->roofline.cpu_llc_bytes, SPB_VERSION, spb_build());
    for (char *p = key; *p; p++)
        if (*p == '\t' || *p == '\n') *p = ' ';
}

/* The bounds at every thread count in use (and the GPU's when GPU kernels
 * are selected): the CPU's given, reused from an earlier run on this
 * machine, or measured (SPB_PASSES_FIRST passes of each kernel now, more
 * between matrices in long runs) and kept for the runs after. */
spb_status measure_rooflines(run_args *a, int selected_cuda, int gpu_ranks, char *msg)
{
    spb_run_opts *o = &a->opts;
    a->have_gpu = gpu_query(&a->gpu, a->gpu_msg) == SPB_OK;
    roofline_init(&a->roofline, o->threads, o->thread_counts, a->have_gpu && selected_cuda,
                  a->have_gpu ? a->gpu.l2_bytes : 0);
    a->roofline.stopped = run_stop_requested; /* a signal is heard within a second */
    /* GPU ranks: their exchange's bound is the link between two GPUs */
    a->roofline.gpu_peer =
        a->have_gpu && gpu_ranks > 0 && a->ranks[o->rank_counts - 1] > 1 && gpu_device_count() >= 2;
    char *key = a->roofline.cpu_key;
    bandwidth_key(a, key, sizeof a->roofline.cpu_key);
    if (a->bandwidth_mode == BANDWIDTH_GIVEN || a->bandwidth_mode == BANDWIDTH_NONE)
        roofline_give(&a->roofline, a->bandwidth_given);
    else if (a->bandwidth_mode == BANDWIDTH_AUTO)
        roofline_reuse(&a->roofline, key, BANDWIDTH_MAX_AGE_S);
    return roofline_measure(&a->roofline, SPB_PASSES_FIRST, msg);
}

/* Figures measured now are kept for the runs after, unless the machine
 * was busy as they were measured (they would lower every later bound). */
void keep_rooflines(run_args *a)
{
    char path[SPB_PATH_LEN], why[SPB_MSG_LEN], busy[512];
    const char *key = a->roofline.cpu_key;
    if (a->roofline.cpu_source != SPB_BW_MEASURED || run_stop_requested()) return;
    roofline_cache_path(path, sizeof path);
    if (machine_load_busy(&a->machine, busy, sizeof busy))
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept,
                 "not kept for later runs: the machine was busy");
    else if (!roofline_store(&a->roofline, key, why, sizeof why))
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept, "not kept for later runs: %.400s",
                 why);
    else
        snprintf(a->bandwidth_kept, sizeof a->bandwidth_kept, "kept in %.400s for the runs after",
                 path);
}

static void print_stat(const char *name, const spb_bw_stat *s)
{
    printf("%s %.1f (median %.1f, worst %.1f)", name, s->best, s->median, s->worst);
}

/* Where the CPU figures come from, for the preamble (kept: whether
 * figures measured now were kept). */
static void print_cpu_source(const spb_roofline *r, const char *kept)
{
    char path[SPB_PATH_LEN], when[64] = "";
    time_t at = (time_t)r->cpu_measured_at;
    struct tm tm;
    if (localtime_r(&at, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M", &tm);
    roofline_cache_path(path, sizeof path);
    switch (r->cpu_source) {
    case SPB_BW_MEASURED:
        printf("# CPU bandwidth, GB/s, measured now over %d passes each, %s (LLC %.0f MiB: %s):\n",
               r->cpu[0].read.trials, kept, r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_REUSED:
        printf("# CPU bandwidth, GB/s, reused: measured on this machine %s (%s; --bandwidth "
               "measure measures it again) (LLC %.0f MiB: %s):\n",
               when, path, r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_GIVEN:
        printf("# CPU bandwidth, GB/s: given (--bandwidth), not measured (LLC %.0f MiB: %s):\n",
               r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    case SPB_BW_NONE:
        printf("# CPU bandwidth: not measured (--bandwidth none): the CPU rows have no roofline "
               "fraction (LLC %.0f MiB: %s)\n",
               r->cpu_llc_bytes / 1048576.0, r->llc_source);
        break;
    }
}

/* The bounds as the table's preamble: per thread count and on the GPU. */
static void print_rooflines(const spb_roofline *r, const char *kept)
{
    print_cpu_source(r, kept);
    for (int k = 0; k < r->cpu_count && r->cpu_source != SPB_BW_NONE; k++) {
        printf("#   %2d threads: ", r->cpu[k].threads);
        print_stat("read", &r->cpu[k].read);
        printf(", ");
        print_stat("triad", &r->cpu[k].triad);
        printf("; roofline %.1f\n", roofline_cpu(r, r->cpu[k].threads));
    }
    if (!r->gpu) return;
    printf("# GPU bandwidth, GB/s (L2 %.0f MiB): ", r->gpu_l2_bytes / 1048576.0);
    print_stat("read", &r->gpu_read);
    printf(", ");
    print_stat("copy", &r->gpu_copy);
    printf("; roofline %.1f\n", roofline_gpu(r));
    if (!r->gpu_peer) return;
    printf("# GPU link, GB/s one way, GPU 0 to 1 (%.0f MiB copies, %s): ",
           SPB_PEER_COPY_BYTES / 1048576,
           r->gpu_peer_direct ? "peer access" : "no peer access: through the host");
    print_stat("copy", &r->gpu_peer_copy);
    printf("; the bound of the GPU rows' exchange_gbs\n");
}

/* How busy the machine is as the study starts. */
static void print_machine_load(const spb_machine_load *m)
{
    char why[512], pressure[64] = "no PSI here";
    if (m->pressure_before >= 0)
        snprintf(pressure, sizeof pressure, "CPU pressure %.1f%%", m->pressure_before);
    int busy = machine_load_busy(m, why, sizeof why);
    char passes[96] = "no CPU bandwidth passes this run";
    if (m->bandwidth_measured)
        snprintf(passes, sizeof passes, "bandwidth passes' median %.0f%% below their best",
                 100 * m->bandwidth_spread);
    printf("# machine: %d cores, load average %.2f, %s, %s: %s%s\n", m->cores, m->load_before,
           pressure, passes, busy ? "busy: " : "quiet", why);
    char clocks[512];
    cpufreq_state(NULL, clocks, sizeof clocks);
    printf("# CPU clocks: %s\n", clocks);
}

/* The kernels this machine cannot run that the selection leaves out (all
 * of them without --kernels, those a wildcard matched with it: their rows
 * would only say "skipped"): one line per reason. */
static void print_left_out(const spb_run_opts *o)
{
    enum { REASONS = 4 };
    char reasons[REASONS][SPB_MSG_LEN], names[REASONS][160];
    int counts[REASONS] = {0}, used = 0;
    for (int k = 0; k < o->op->kernel_count; k++) {
        const spb_kernel *kernel = o->op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if (!kernel_left_out(kernel, o->kernels, o->distributed, why)) continue;
        int r = 0;
        while (r < used && strcmp(reasons[r], why) != 0) r++;
        if (r == REASONS) continue;
        if (r == used) {
            snprintf(reasons[used], SPB_MSG_LEN, "%s", why);
            names[used++][0] = '\0';
        }
        if (counts[r]++ < 3)
            spb_appendf(names[r], sizeof names[r], "%s%s", counts[r] > 1 ? ", " : "", kernel->name);
    }
    for (int r = 0; r < used; r++)
        printf("# left out: %d kernel%s (%s%s): %s; --kernels naming them records their "
               "skipped rows\n",
               counts[r], counts[r] == 1 ? "" : "s", names[r], counts[r] > 3 ? ", ..." : "",
               reasons[r]);
}

/* What the energy columns can hold here, and the GPU's limit and clocks
 * as the study starts. */
static void print_energy(const run_args *a)
{
    const spb_energy_meters *m = a->opts.energy.meters;
    if (a->opts.energy.window_s <= 0) {
        printf("# energy: not measured (--energy-s 0)\n");
        return;
    }
    spb_gpu_power_info g;
    if (energy_gpu_info(m, &g))
        printf("# energy, GPU (NVML): power limit %.0f W; clocks now SM %.0f MHz, memory %.0f MHz "
               "(max %.0f / %.0f), %.0f C\n",
               g.power_limit_w, g.sm_mhz, g.mem_mhz, g.sm_max_mhz, g.mem_max_mhz, g.temp_c);
    else if (a->have_gpu)
        printf("# energy, GPU: not available: %s\n", energy_why(m, 1));
    if (energy_available(m, 0))
        printf("# energy, CPU (RAPL): %s, the whole package whatever runs on it\n",
               energy_cpu_zones(m));
    else
        printf("# energy, CPU: not available: %s\n", energy_why(m, 0));
    if (energy_available(m, 0) || energy_available(m, 1))
        printf("# energy: %s, its products over a window of at least %.3g s and %d steps of the "
               "counter, after the rows are timed (energy_err: the window's uncertainty)\n",
               a->opts.energy.all_rows
                   ? "every row"
                   : "of each precision the fastest spbench row and the fastest vendor row "
                     "(--energy-rows all: every row)",
               a->opts.energy.window_s, SPB_ENERGY_PERIODS);
}

void print_run_header(const run_args *a, int matrices, int selected)
{
    const spb_run_opts *o = &a->opts;
    printf("# spbench %s: %s, %d matrices, %d kernels selected, %s, seed %llu, host %s\n",
           SPB_VERSION, o->op->name, matrices, selected, a->precision_names,
           (unsigned long long)o->seed, o->host);
    if (a->shards) printf("# shard %d of %d of the matrix list\n", a->shard, a->shards);
    print_left_out(o);
    /* other build types compile the kernels otherwise: figures do not compare */
    printf("# build: %s, commit %s%s\n", spb_build(), spb_git_commit(),
           strcmp(SPB_BUILD_TYPE, "Release") == 0
               ? ""
               : "; not a Release build: its kernels' times do not compare with a Release "
                 "build's (cmake -DCMAKE_BUILD_TYPE=Release)");
    static const char *const binds[] = {"false", "true", "primary", "close", "spread"};
    int bind = (int)omp_get_proc_bind(); /* the runtime's own, not the environment's */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    char share[64] = "";
    if (online > omp_get_num_procs()) /* a rank's share, or a bound process */
        snprintf(share, sizeof share, " of the machine's %ld", online);
    printf("# OpenMP: %d processors%s, binding %s, OMP_PLACES=%s\n", omp_get_num_procs(), share,
           bind >= 0 && bind < 5 ? binds[bind] : "unknown",
           getenv("OMP_PLACES") ? getenv("OMP_PLACES") : "unset");
    if (o->distributed) {
        printf("# MPI: %d ranks started, rank counts measured up to %d, rank 0 on %s; PETSc %s; "
               "times are the slowest rank's, a barrier before each product",
               dist_world_size(), a->ranks[o->rank_counts - 1], dist_placement(),
               dist_petsc_compiled() ? "built in" : "not built");
        /* large messages between a node's ranks: copied once, or twice through
         * shared buffers (single copy "none") */
        if (dist_shared_memory_copy()[0])
            printf("; Open MPI's shared memory: single copy %s", dist_shared_memory_copy());
        printf("\n");
    }
    print_rooflines(&a->roofline, a->bandwidth_kept);
    print_machine_load(&a->machine);
    print_energy(a);
    if (a->have_gpu)
        printf("# GPU: %s, %d SMs, %.1f GiB, compute capability %d.%d, driver %d, runtime %d\n",
               a->gpu.name, a->gpu.sm_count, a->gpu.memory_bytes / (1024.0 * 1024 * 1024),
               a->gpu.cc_major, a->gpu.cc_minor, a->gpu.driver_version, a->gpu.runtime_version);
    else
        printf("# GPU: %s\n", a->gpu_msg);
    /* the bound as validate.h's rounding_bound makes it */
    int spgemm = o->op == operation_spgemm();
    printf("# validation: %s, each %s within %g x its rounding bound: (gamma_{k+1}(u) + "
           "gamma_k(2^-53)) x %s, k the %s entries, u 2^-53 in fp64 and 2^-24 in fp32 rows "
           "(those also + 2u for A's and %s rounding)\n",
           spgemm ? "C's pattern exactly the reference's" : "y against a compensated reference",
           spgemm ? "c_ij" : "y_i", o->tolerance, spgemm ? "(|A||B|)_ij" : "(|A||x|)_i",
           spgemm ? "row of A's" : "row's", spgemm ? "B's" : "x's");
    printf("# settings: %s%s\n", a->settings, a->resume ? "; resuming" : "");
    printf("# timing: %d warm-up calls, >= %d samples and >= %.3g s per kernel; noisy beyond "
           "%g%% spread (--max-noise)\n",
           o->timing.warmup, o->timing.min_samples, o->timing.min_time,
           100 * noise_limit(&o->timing));
    printf("# roof%%: achieved bandwidth over the roofline; c: the row's data fits in the "
           "last-level cache, which served it, so it can pass 100\n");
    report_table_header(stdout, o->out.kernel_width);
}

/* Noisy rows and a busy machine, said at the end where a user looks. */
void print_noise_summary(const spb_run_totals *totals, const spb_machine_load *m,
                         const spb_timing_opts *timing)
{
    const spb_noise_memory *memory = timing->memory;
    char why[512];
    int busy = machine_load_busy(m, why, sizeof why);
    if (totals->counts.noisy)
        printf("# %d of %d ok rows noisy (samples spread beyond %.0f%% of the median, or one "
               "beyond %.0fx it, after up to %d re-measurements)%s%s; rerun %sor raise --reps "
               "and --min-time\n",
               totals->counts.noisy, totals->counts.ok, 100 * noise_limit(timing),
               SPB_NOISY_OUTLIER, SPB_NOISY_RETRIES, busy ? ": the machine was busy: " : "", why,
               busy ? "on a quiet machine " : "");
    else if (busy)
        printf("# the machine was busy (%s): no row broke the noise rule, but compare with a "
               "run on a quiet machine\n",
               why);
    if (memory->skipped)
        printf("# %d group%s of rows not measured again for their noise: re-measurements had "
               "stopped helping (the machine's noise; one in %d was still tried)\n",
               memory->skipped, memory->skipped == 1 ? "" : "s", SPB_NOISY_PROBE);
    if (totals->counts.throttled)
        printf("# the GPU throttled during %d row%s (power or heat; throttled, throttle_reasons): "
               "their times are below the kernels' speed at full clocks\n",
               totals->counts.throttled, totals->counts.throttled == 1 ? "" : "s");
}
