/* test_energy.c — the energy counters on stand-ins: a fake powercap tree
 * (packages and DRAM summed, a counter that wraps, a zone without its
 * counter, one that cannot be read, no tree at all) and a fake NVML
 * (tests/fake/fake_nvml.c: a steady 150 W, throttle reasons and violation
 * time set here); and the energy pass's arithmetic on both. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/machine/energy.h"
#include "bench/report/phases.h"
#include "check.h"
#include "core/timing.h"

/* A window of at least S seconds and one of the counter's steps. */
#define ONE_STEP(S) ((spb_energy_window){(S), 1})

/* ---- a fake powercap tree ---- */

/* A zone folder root/entry with its name, range and counter (NULL: none). */
static void zone(const char *root, const char *entry, const char *name, const char *range,
                 const char *now)
{
    char dir[600];
    snprintf(dir, sizeof dir, "%s/%s", root, entry);
    mkdir(dir, 0755);
    check_put(dir, "name", name);
    check_put(dir, "max_energy_range_uj", range);
    if (now) check_put(dir, "energy_uj", now);
}

/* The products of the pass: each takes a millisecond, and the counters
 * move with the time as a steady draw would: the package 100 W (past its
 * range it wraps), DRAM 30 W. */
#define PACKAGE_RANGE_UJ 4294967296.0
typedef struct {
    const char *root;
    double start, start_uj; /* the package counter at start */
} rapl_calls;

static double rapl_products(void *ctx, int calls)
{
    rapl_calls *r = ctx;
    double start = timing_now();
    while (timing_now() - start < 1e-3 * calls) continue;
    double uj = 1e6 * (timing_now() - r->start); /* joules at 1 W, in uJ */
    char dir[600], text[32];
    snprintf(dir, sizeof dir, "%s/intel-rapl:0", r->root);
    snprintf(text, sizeof text, "%.0f\n", fmod(r->start_uj + 100 * uj, PACKAGE_RANGE_UJ));
    check_put(dir, "energy_uj", text);
    snprintf(dir, sizeof dir, "%s/intel-rapl:0:1", r->root);
    snprintf(text, sizeof text, "%.0f\n", 100 + 30 * uj);
    check_put(dir, "energy_uj", text);
    return timing_now() - start;
}

static void test_rapl(void)
{
    char root[] = "/tmp/spb_powercap_XXXXXX";
    if (!mkdtemp(root)) return;
    /* 0.1 s of the package's 100 W before its wrap: within the window,
     * which opens after 20 ms and lasts 0.2 s */
    double start_uj = PACKAGE_RANGE_UJ - 100 * 0.1 * 1e6;
    char start_text[32];
    snprintf(start_text, sizeof start_text, "%.0f\n", start_uj);
    zone(root, "intel-rapl:0", "package-0", "4294967296", start_text);
    zone(root, "intel-rapl:0:0", "core", "1000000", "5");
    zone(root, "intel-rapl:0:1", "dram", "500000000", "100");
    spb_energy_meters *m = energy_open("/nonexistent/libnvidia-ml.so.1", "", root);
    CHECK(energy_available(m, 0), "a readable tree has a CPU counter: %s", energy_why(m, 0));
    CHECK(strstr(energy_cpu_zones(m), "package-0") && strstr(energy_cpu_zones(m), "dram") &&
              !strstr(energy_cpu_zones(m), "core"),
          "zones: packages and DRAM, not their cores: %s", energy_cpu_zones(m));
    rapl_calls calls = {root, timing_now(), start_uj};
    spb_energy e;
    energy_init(&e);
    char msg[SPB_MSG_LEN] = "";
    TIMED_CASE();
    spb_status st = energy_measure(m, 0, rapl_products, &calls, 1e-3, ONE_STEP(0.2), NULL, &e, msg);
    /* 130 W through the package's wrap (4295 J if taken for a fall), known
     * to the window's timing (e.err) and the fake's own lag between its
     * reading of the time and its file's change (5%: it writes files); a
     * product's energy is the watts times its time as given */
    TIMED_CHECK(
        st == SPB_OK && fabs(e.watts - 130) <= 130 * (e.err + 0.05) &&
            fabs(e.joules_per_product - e.watts * 1e-3) <= 1e-12,
        "a wrapped package counter and DRAM: %.4g W (130 expected, within %.2g), %.4g J per "
        "product (%s)",
        e.watts, e.err + 0.05, e.joules_per_product, msg);
    CHECK(e.watts > 0 && e.err > 0 && isnan(e.sm_mhz) && e.throttled == -1,
          "CPU rows: watts, the window's bound, no clocks, throttling unknown (%g W, err %g, %g "
          "MHz, %d)",
          e.watts, e.err, e.sm_mhz, e.throttled);
    energy_close(m);

    /* a zone without its counter: no CPU energy, and the file named */
    char missing[600];
    snprintf(missing, sizeof missing, "%s/intel-rapl:0/energy_uj", root);
    unlink(missing);
    m = energy_open("/nonexistent/libnvidia-ml.so.1", "", root);
    CHECK(!energy_available(m, 0) && strstr(energy_why(m, 0), "cannot read") &&
              strstr(energy_why(m, 0), "energy_uj"),
          "a missing counter: %s", energy_why(m, 0));
    energy_close(m);

    /* a counter that cannot be read: unreadable to a user (root reads
     * anything: a folder in its place stands in) */
    if (geteuid() != 0) {
        check_put(root, "intel-rapl:0/energy_uj", "1\n");
        chmod(missing, 0);
    } else {
        mkdir(missing, 0755);
    }
    m = energy_open("/nonexistent/libnvidia-ml.so.1", "", root);
    CHECK(!energy_available(m, 0) && strstr(energy_why(m, 0), "not readable"),
          "an unreadable counter: %s", energy_why(m, 0));
    energy_close(m);
    rmdir(missing);
    unlink(missing);

    m = energy_open("/nonexistent/libnvidia-ml.so.1", "", "/nonexistent/powercap");
    CHECK(!energy_available(m, 0) && strstr(energy_why(m, 0), "virtual machine") &&
              !energy_available(m, 1) && strstr(energy_why(m, 1), "no CUDA device"),
          "no tree: %s; no GPU: %s", energy_why(m, 0), energy_why(m, 1));
    energy_close(m);
    char cleanup[700];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", root);
    if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", root);
}

/* ---- a fake NVML ---- */

/* A product that takes about a millisecond of the CPU. */
static double busy_products(void *ctx, int calls)
{
    long *made = ctx;
    double start = timing_now();
    while (timing_now() - start < 1e-3 * calls) continue;
    *made += calls;
    return timing_now() - start;
}

static double limited_products(void *ctx, int calls)
{
    unsigned long long *limited_ns = ctx;
    *limited_ns += 1000; /* NVML counted time under the power limit */
    double start = timing_now();
    while (timing_now() - start < 1e-3 * calls) continue;
    return timing_now() - start;
}

/* The closing summary's account of the energy passes: four windows of a
 * 100 ms counter, three chained, the last woken late (two periods), 0.9 s
 * of passes; the line and the JSON say how many periods a pass cost. */
static void test_energy_account(void)
{
    spb_phase_times phases = {.start = timing_now()};
    phases.seconds[SPB_PHASE_ENERGY] = 0.9;
    phase_energy_window(&phases, 0.1, 1.0, 0, 0);
    phase_energy_window(&phases, 0.1, 1.0, 1, 0);
    phase_energy_window(&phases, 0.1, NAN, 1, 0); /* the period not known: no periods */
    phase_energy_window(&phases, 0.2, 2.0, 1, 1);
    phase_energy_window(&phases, 0.0, NAN, 0, 0); /* no window: not counted */
    char *text = NULL, *json = NULL;
    size_t text_len = 0, json_len = 0;
    FILE *out = open_memstream(&text, &text_len);
    phases_print(out, &phases);
    fclose(out);
    out = open_memstream(&json, &json_len);
    phases_json(out, &phases);
    fclose(out);
    CHECK(strstr(text, "# energy: 4 passes, 0.225 s each (2.25 periods of the counter's 100 ms); "
                       "windows of 0.125 s; 75% opened where the pass before closed; 1 wake "),
          "the closing line on the passes: %s", text);
    CHECK(strstr(json, "\"energy_windows\": {\"passes\": 4, \"window_s\": 0.500, \"periods\": "
                       "4.000, \"period_window_s\": 0.400, \"chained\": 3, \"late_wakes\": 1}"),
          "the trailer's account of the passes: %s", json);
    free(text);
    free(json);
}

/* Windows of SPB_ENERGY_PERIODS of the counter's 20 ms steps: the first
 * pass of a side learns the period (it reads through a step), the next,
 * chained, reads the counter once mid-way through the last step and again
 * only near the change that closes it; each window holds its steps whole,
 * and its bound narrows with its length. */
static void test_nvml_steps(spb_energy_meters *m, int *step_ms, int *reads, double *read_at)
{
    *step_ms = 20;
    const spb_energy_window window = {0.01, SPB_ENERGY_PERIODS};
    spb_energy_edge edge = {0};
    long made = 0;
    char msg[SPB_MSG_LEN] = "";
    for (int pass = 0; pass < 2; pass++) {
        spb_energy e;
        energy_init(&e);
        spb_energy_edge was = edge;
        *reads = 0;
        TIMED_CASE();
        spb_status st = energy_measure(m, 1, busy_products, &made, 1e-3, window, &edge, &e, msg);
        double steps = (edge.uj[0] - was.uj[0]) / 3e6; /* 150 W x 20 ms */
        /* a late reader lengthens a window, never shortens it */
        CHECK(st == SPB_OK && fabs(e.watts - 150) <= 150 * e.err + 1e-9 &&
                  e.periods >= SPB_ENERGY_PERIODS - 0.5 && e.window_s >= 0.19 &&
                  (pass == 0 || steps >= SPB_ENERGY_PERIODS),
              "pass %d of %d-step windows: %g W within %.2g over %g s, %g periods (%g steps "
              "after the last) (%s)",
              pass, SPB_ENERGY_PERIODS, e.watts, e.err, e.window_s, e.periods, steps, msg);
        TIMED_CHECK(e.periods <= SPB_ENERGY_PERIODS + 2.5 && e.err < 0.1 &&
                        (pass == 0 || steps <= SPB_ENERGY_PERIODS + 2),
                    "pass %d: no more than two steps past %d: %g periods, %g steps, bound %.2g",
                    pass, SPB_ENERGY_PERIODS, e.periods, steps, e.err);
        int inside =
            0; /* reads from the window's opening to 20 ms (and the margin) before its close */
        double opened = edge.at - e.window_s;
        for (int k = 0; pass > 0 && k < *reads; k++)
            inside += read_at[k] > opened + 5e-3 && read_at[k] < edge.at - edge.margin - 20e-3;
        TIMED_CHECK(pass == 0 ||
                        (e.chained && inside <= 1 && edge.period > 0.018 && edge.period < 0.022),
                    "pass %d: chained %d, %d reads inside the window, the period learnt %g s", pass,
                    e.chained, inside, edge.period);
    }
}

static void test_nvml(void)
{
    void *fake = dlopen(FAKE_NVML, RTLD_NOW | RTLD_LOCAL); /* the meters share its state */
    CHECK(fake != NULL, "the fake NVML loads: %s", dlerror());
    if (!fake) return;
    unsigned long long *reasons = dlsym(fake, "fake_nvml_reasons");
    unsigned long long *limited_ns = dlsym(fake, "fake_nvml_limited_ns");
    int *no_energy = dlsym(fake, "fake_nvml_no_energy");

    spb_energy_meters *m = energy_open(FAKE_NVML, "00000000:19:00.0", "/nonexistent");
    CHECK(energy_available(m, 1), "the fake GPU has an energy counter: %s", energy_why(m, 1));
    spb_gpu_power_info g;
    CHECK(energy_gpu_info(m, &g) && g.power_limit_w == 700 && g.sm_mhz == 1755 &&
              g.mem_max_mhz == 2619 && g.temp_c == 55,
          "limit %g W, SM %g MHz, memory max %g MHz, %g C", g.power_limit_w, g.sm_mhz,
          g.mem_max_mhz, g.temp_c);
    long made = 0;
    spb_energy e;
    energy_init(&e);
    char msg[SPB_MSG_LEN] = "";
    double start = timing_now();
    TIMED_CASE();
    spb_status st = energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.3), NULL, &e, msg);
    double took = timing_now() - start;
    TIMED_CHECK(st == SPB_OK && fabs(e.watts - 150) <= 150 * e.err + 1e-9 && e.err > 0,
                "a steady 150 W read as %g W, within %.2g, over a 0.3 s window (%s)", e.watts,
                e.err, msg);
    /* a product's energy over the power is its time: a millisecond */
    double per_product = e.joules_per_product / e.watts;
    TIMED_CHECK(fabs(per_product - 1e-3) <= (e.err + 0.05) * 1e-3 && took >= 0.3,
                "joules per product over the power is a product's time: %g s, expected 1e-3 within "
                "%.2g (the pass %g s)",
                per_product, e.err + 0.05, took);
    CHECK(e.sm_mhz == 1755 && e.mem_mhz == 2619 && e.throttled == 0 && !e.reasons[0],
          "clocks read, no throttling: %g / %g MHz, throttled %d (%s)", e.sm_mhz, e.mem_mhz,
          e.throttled, e.reasons);

    /* a counter moving every 100 ms, as NVML's does: a 0.05 s window is
     * one of its steps, known to the readings' gap, and the next row's pass
     * opens its window where this one's closed */
    int *step_ms = dlsym(fake, "fake_nvml_step_ms");
    *step_ms = 100;
    int *reads = dlsym(fake, "fake_nvml_reads");
    double *read_at = dlsym(fake, "fake_nvml_read_at");
    spb_energy_edge edge = {0};
    for (int row = 0; row < 3; row++) {
        energy_init(&e);
        spb_energy_edge was = edge;
        *reads = 0;
        TIMED_CASE();
        st = energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.05), &edge, &e, msg);
        /* one step, or a few whole ones where a busy machine woke the
         * reader after the change it slept for */
        double steps = (edge.uj[0] - was.uj[0]) / 15e6;
        TIMED_CHECK(
            st == SPB_OK && fabs(e.watts - 150) <= 150 * e.err + 1e-9 && e.err > 0 && edge.valid &&
                (row == 0 || (steps >= 1 && steps <= 3 && steps == floor(steps))),
            "row %d of a chain, 100 ms steps: %g W within %.2g; its window %g steps of 15 J "
            "after the last (%s)",
            row, e.watts, e.err, steps, msg);
        /* the period known (from row 1 on), the counter is not read inside
         * the window but near its end (a read slows the products): in its
         * last 15 ms, and up to 20 ms more for the period's and the
         * changes' placing on a busy machine; a reader woken after a change
         * reads once then sleeps to the next, so the window's last step
         * holds that read at most */
        int inside = 0;
        double opened = edge.at - edge.period, quiet_until = edge.at - 35e-3;
        for (int k = 0; row > 0 && k < *reads; k++)
            inside += read_at[k] > opened + 5e-3 && read_at[k] < quiet_until;
        TIMED_CHECK(
            row == 0 || (inside <= (steps > 1) && edge.period > 0.09 && edge.period < 0.11),
            "row %d: %d reads inside the window's last step (of %g); the period learnt %g s", row,
            inside, steps, edge.period);
        /* how the pass went: the first opens its own window, the next
         * where the one before closed, a window as many periods as the
         * counter's steps in it */
        TIMED_CHECK(row > 0 ? !e.chained || (fabs(e.window_s - 0.1 * steps) < 0.02 &&
                                             fabs(e.periods - steps) < 0.2)
                            : !e.chained && e.window_s > 0.09,
                    "row %d: chained %d, a window of %g s, %g periods (%g steps)", row, e.chained,
                    e.window_s, e.periods, steps);
    }

    /* the next row's reader woken late (its read on waking ends 15 ms
     * past the change it slept for): it sleeps again to the next change
     * rather than reading through a step */
    int *slow_wake_ms = dlsym(fake, "fake_nvml_slow_wake_ms");
    *slow_wake_ms = 30;
    *reads = 0;
    spb_energy_edge was = edge;
    energy_init(&e);
    TIMED_CASE();
    st = energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.05), &edge, &e, msg);
    *slow_wake_ms = 0;
    double steps = (edge.uj[0] - was.uj[0]) / 15e6, last_opened = edge.at - edge.period;
    int inside = 0; /* the margin, widened by the late wake, and 20 ms for the placing */
    for (int k = 0; k < *reads; k++)
        inside += read_at[k] > last_opened + 5e-3 && read_at[k] < edge.at - edge.margin - 20e-3;
    TIMED_CHECK(
        st == SPB_OK && fabs(e.watts - 150) <= 150 * e.err + 1e-9 && steps >= 2 && inside <= 1 &&
            e.late_wakes >= 1,
        "a late wake: %g W within %.2g over %g steps; %d reads inside the last; %d late wakes "
        "counted (%s)",
        e.watts, e.err, steps, inside, e.late_wakes, msg);
    /* the late wake widened the margin the reader wakes by (a late wake
     * costs a period, a wider margin only reads); a pass in time narrows
     * it again */
    double widened = edge.margin;
    energy_init(&e);
    TIMED_CASE();
    st = energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.05), &edge, &e, msg);
    TIMED_CHECK(widened >= 0.029 && st == SPB_OK && e.late_wakes == 0 && edge.margin < widened &&
                    edge.margin >= 0.015,
                "the margin: %g s after the late wake, %g s after a pass in time (%d late wakes)",
                widened, edge.margin, e.late_wakes);
    /* throttle counters that read slowly (on an H100 a violation counter
     * takes 0.76 ms, and a pass reads two at each end): read before the
     * closing change, they do not hold the pass after it, so the next
     * row's pass can still open where this one closed (within
     * ENERGY_CHAIN_S); read after it, they would take 100 ms here */
    int *violation_ms = dlsym(fake, "fake_nvml_violation_ms");
    *violation_ms = 50;
    double after_close = 1;
    TIMED_CASE();
    for (int row = 0; row < 2; row++) {
        energy_init(&e);
        st = energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.05), &edge, &e, msg);
        double returned = timing_now() - edge.seen;
        if (st == SPB_OK && returned < after_close) after_close = returned;
    }
    *violation_ms = 0;
    TIMED_CHECK(after_close < 0.04,
                "slow throttle counters: the pass returned %.3g s after its close", after_close);
    test_nvml_steps(m, step_ms, reads, read_at);
    *step_ms = 10;

    *reasons = 0x1 | 0x2; /* idle, a user's clock setting: not throttling */
    energy_init(&e);
    made = 0;
    energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.02), NULL, &e, msg);
    CHECK(e.throttled == 0, "idle and clock-setting reasons are not throttling (%s)", e.reasons);

    *reasons = SPB_THROTTLE_SW_POWER | SPB_THROTTLE_HW_HEAT;
    energy_init(&e);
    energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.02), NULL, &e, msg);
    CHECK(e.throttled == 1 && strstr(e.reasons, "power cap") && strstr(e.reasons, "heat"),
          "power cap and heat: throttled %d (%s)", e.throttled, e.reasons);

    *reasons = 0;
    energy_init(&e);
    energy_measure(m, 1, limited_products, limited_ns, 1e-3, ONE_STEP(0.02), NULL, &e, msg);
    CHECK(e.throttled == 1 && e.reasons[0], "time under a limit during the pass: throttled %d (%s)",
          e.throttled, e.reasons);

    /* the marks around a timing, as the run takes them */
    spb_throttle_mark before, after;
    energy_throttle_mark(m, &before);
    energy_throttle_mark(m, &after);
    energy_init(&e);
    CHECK(!energy_throttled_between(m, &before, &after, &e) && e.throttled == 0,
          "no throttling between two marks: %d", e.throttled);
    energy_close(m);

    m = energy_open(FAKE_NVML, "00000000:3b:00.0", "/nonexistent");
    CHECK(!energy_available(m, 1) && strstr(energy_why(m, 1), "does not know"), "another GPU: %s",
          energy_why(m, 1));
    energy_close(m);
    *no_energy = 1;
    m = energy_open(FAKE_NVML, "00000000:19:00.0", "/nonexistent");
    CHECK(!energy_available(m, 1) && strstr(energy_why(m, 1), "no energy counter"),
          "a GPU without the counter: %s", energy_why(m, 1));
    energy_init(&e);
    CHECK(energy_measure(m, 1, busy_products, &made, 1e-3, ONE_STEP(0.02), NULL, &e, msg) ==
                  SPB_ERR_DECLINED &&
              isnan(e.joules_per_product),
          "no counter: no pass, the columns empty");
    energy_close(m);
    *no_energy = 0;
    m = energy_open("/nonexistent/libnvidia-ml.so.1", "00000000:19:00.0", "/nonexistent");
    CHECK(!energy_available(m, 1) && strstr(energy_why(m, 1), "NVML not loadable"), "no driver: %s",
          energy_why(m, 1));
    energy_close(m);
    dlclose(fake);
}

static void test_reasons_text(void)
{
    char text[SPB_THROTTLE_TEXT_LEN];
    energy_reasons_text(0, text, sizeof text);
    CHECK(text[0] == '\0', "no reasons: '%s'", text);
    energy_reasons_text(SPB_THROTTLE_ANY, text, sizeof text);
    CHECK(strstr(text, "power cap") && strstr(text, "power brake") && strstr(text, "slowdown"),
          "every reason, cut to the field: '%s'", text);
}

/* The products of a pass that leave the package counter at `after`. */
typedef struct {
    const char *root, *after;
} broken_calls;

static double broken_products(void *ctx, int calls)
{
    broken_calls *b = ctx;
    char dir[600];
    snprintf(dir, sizeof dir, "%s/intel-rapl:0", b->root);
    if (b->after) check_put(dir, "energy_uj", b->after);
    return 1e-3 * calls;
}

/* A counter that reads garbage or never moves is no reading: the pass
 * fails naming why, and the figures stay empty (NAN), never 0 W. */
static void test_rapl_broken(void)
{
    char root[] = "/tmp/spb_powercap_XXXXXX";
    if (!mkdtemp(root)) return;
    zone(root, "intel-rapl:0", "package-0", "1000000", "abc\n");
    spb_energy_meters *m = energy_open("/nonexistent/libnvidia-ml.so.1", "", root);
    CHECK(!energy_available(m, 0) && strstr(energy_why(m, 0), "not a count of microjoules"),
          "a counter reading 'abc' at the start: %s", energy_why(m, 0));
    energy_close(m);
    static const char *const after[] = {"-5\n", "abc\n", "2000000\n", NULL};
    for (int k = 0; k < 4; k++) {
        zone(root, "intel-rapl:0", "package-0", "1000000", "500\n");
        m = energy_open("/nonexistent/libnvidia-ml.so.1", "", root);
        CHECK(energy_available(m, 0), "a sound counter: %s", energy_why(m, 0));
        broken_calls calls = {root, after[k]}; /* NULL: the counter stays at 500 */
        spb_energy e;
        energy_init(&e);
        char msg[SPB_MSG_LEN] = "";
        spb_status st =
            energy_measure(m, 0, broken_products, &calls, 1e-3, ONE_STEP(0.01), NULL, &e, msg);
        CHECK(st != SPB_OK && isnan(e.watts) && isnan(e.joules_per_product) &&
                  strstr(msg, after[k] ? "not a count of microjoules" : "did not move"),
              "a counter reading %s after the pass: status %d, %g W, '%s'",
              after[k] ? after[k] : "the same", (int)st, e.watts, msg);
        if (!after[k]) { /* a dead counter is found once: the next pass does not read it */
            energy_init(&e);
            msg[0] = '\0';
            st = energy_measure(m, 0, broken_products, &calls, 1e-3, ONE_STEP(0.01), NULL, &e, msg);
            CHECK(st == SPB_ERR_IO && isnan(e.watts) && strstr(msg, "did not move") &&
                      strstr(msg, "found on an earlier row"),
                  "the next pass on a dead counter: status %d, '%s'", (int)st, msg);
        }
        energy_close(m);
    }
    char cleanup[700];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", root);
    if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", root);
}

int main(void)
{
    test_rapl();
    test_rapl_broken();
    test_nvml();
    test_energy_account();
    test_reasons_text();
    return check_done();
}
