/* kernel_rules.c — the run's rules around the kernels, on stand-in rows
 * and real ones: a time cap judged on the product, a failing product an
 * error row, the break-even count against the vendor row, one conversion
 * per run, the auto rows' trial and rules, and the device rows sharing x.
 * Part of test_kernels (test_kernels.c calls each). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "auto_message.h"
#include "bench/inputs/gen.h"
#include "bench/report/resume.h"
#include "bench/run/op_spmv.h"
#include "bench/run/run.h"
#include "bench/validation/validate.h"
#include "check.h"
#include "core/kernel_trial.h"
#include "cpu/spmv_cpu.h"
#include "formats/format_set.h"
#include "gpu/auto_rules.h"
#include "gpu/gpu.h"
#include "test_kernels.h"

/* A kernel whose product fails (as a library call can) must give an error
 * row with its message, never a wrong answer. */
static spb_status failing_spmv(const void *state, const void *x, void *y, char *msg)
{
    (void)state;
    (void)x;
    (void)y;
    return spb_fail(msg, SPB_ERR_INVALID, "the library refused");
}

/* A device-like row whose validated call is slow (its output brought back
 * and checked) but whose products alone are quick: --max-kernel-ms must
 * judge the product, not the transfer and the check. */
static spb_status slow_to_check_spmv(const void *state, const void *x, void *y, char *msg)
{
    struct timespec pause = {0, 30 * 1000 * 1000};
    nanosleep(&pause, NULL);
    return spmv_kernel_of(&cpu_spmv_kernels[0].kernel)->spmv(state, x, y, msg);
}

static double quick_products(void *state, int calls)
{
    (void)state;
    return 1e-6 * calls;
}

/* A run of one made-up row on gen:lap2d:10 (max_kernel_ms: its cap, 0 for
 * none): its totals, and its table line in `line`. */
static void run_one_row(const spb_spmv_kernel *row, double max_kernel_ms, spb_run_totals *totals,
                        char *line, int line_len)
{
    const spb_kernel *table[] = {&row->kernel};
    spb_operation op = *operation_spmv();
    op.kernels = table;
    op.kernel_count = 1;
    spb_run_opts opts = {0};
    opts.op = &op;
    opts.timing = (spb_timing_opts){.warmup = 0, .min_samples = 1, .min_time = 0.0};
    opts.tolerance = SPB_DEFAULT_TOLERANCE;
    opts.config = (spb_kernel_config){.hack_size = 32, .threads = 1, .precision = SPB_FP64};
    opts.max_kernel_ms = max_kernel_ms;
    opts.out.table = tmpfile();
    opts.settings = "test";
    char msg[SPB_MSG_LEN] = "";
    CHECK(run_matrix("gen:lap2d:10", "gen:lap2d:10", &opts, totals, msg) == SPB_OK, "run: %s", msg);
    rewind(opts.out.table);
    if (!fgets(line, line_len, opts.out.table)) line[0] = '\0';
    fclose(opts.out.table);
}

void check_cap_judges_the_product(void)
{
    spb_spmv_kernel row = cpu_spmv_kernels[0]; /* csr.serial's prepare and release */
    row.kernel.name = "test.slow_to_check";
    row.kernel.time_calls = quick_products;
    row.spmv = slow_to_check_spmv;
    spb_run_totals totals = {0};
    char line[1024] = "";
    run_one_row(&row, 10, &totals, line, sizeof line);
    CHECK(totals.counts.ok == 1 && !strstr(line, "capped"),
          "a quick product behind a slow check is not capped: %s", line);
    run_totals_free(&totals);
}

void check_failure_is_error(void)
{
    spb_spmv_kernel failing = cpu_spmv_kernels[0]; /* csr.serial's prepare and release */
    failing.kernel.name = "test.failing";
    failing.spmv = failing_spmv;
    spb_run_totals totals = {0};
    char line[1024] = "";
    run_one_row(&failing, 0, &totals, line, sizeof line);
    CHECK(totals.counts.rows == 1 && totals.counts.errors == 1 && totals.counts.wrong == 0,
          "a failing product: %d rows, %d error, %d wrong", totals.counts.rows,
          totals.counts.errors, totals.counts.wrong);
    CHECK(strstr(line, "error: the library refused"), "the row carries the library's message: %s",
          line);
    run_totals_free(&totals);
}

/* Made-up device rows for the break-even count: csr.serial's state, a
 * prepare that takes `prepare_s` longer, products timed at `product_s`. */
typedef struct {
    double prepare_s, product_s;
} device_like;

static spb_status slow_prepare(const spb_kernel *self, spb_format_set *formats,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const device_like *v = self->variant;
    double start = timing_now();
    while (timing_now() - start < v->prepare_s) {
    }
    const spb_kernel *serial = &cpu_spmv_kernels[0].kernel; /* its state: csr.serial's */
    return serial->prepare(serial, formats, config, plan, msg);
}

/* break_even_products: a device row faster than the fastest vendor row
 * pays for its costlier prepare after (its prepare - that vendor row's) /
 * (its time - its own) products, rounded up, whether it comes before or
 * after the vendor rows in the table; a row slower than the fastest vendor
 * row (if faster than another) and the vendor rows get none. The summary
 * weighs each device row against the fastest vendor row and names it. */
static double vendor_calls(void *state, int calls)
{
    (void)state;
    return 2e-3 * calls;
}
static double fast_calls(void *state, int calls)
{
    (void)state;
    return 1e-3 * calls;
}
static double slow_calls(void *state, int calls)
{
    (void)state;
    return 3e-3 * calls;
}
static double slower_vendor_calls(void *state, int calls)
{
    (void)state;
    return 4e-3 * calls;
}

/* What summary_print says of the run, in a string of `size` bytes. */
static void summary_text(const spb_summary *summary, char *text, size_t size)
{
    FILE *out = fmemopen(text, size, "w");
    text[0] = '\0';
    if (!out) return;
    summary_print(out, summary, "csr.serial");
    fclose(out);
}

void check_break_even(void)
{
    static const device_like vendor_v = {0, 2e-3}, quick_v = {0.03, 1e-3}, slow_v = {0, 3e-3},
                             slower_vendor_v = {0, 4e-3};
    spb_spmv_kernel vendor = cpu_spmv_kernels[0], quick = vendor, slow = vendor,
                    slower_vendor = vendor;
    vendor.kernel = (spb_kernel){.name = "test.vendor",
                                 .format = "csr",
                                 .variant = &vendor_v,
                                 .backend = SPB_BACKEND_CUDA,
                                 .time_calls = vendor_calls,
                                 .library = 1};
    slower_vendor.kernel = (spb_kernel){.name = "test.vendor.slow",
                                        .format = "csr",
                                        .variant = &slower_vendor_v,
                                        .backend = SPB_BACKEND_CUDA,
                                        .time_calls = slower_vendor_calls,
                                        .library = 1};
    quick.kernel = (spb_kernel){.name = "test.fast",
                                .format = "csr",
                                .variant = &quick_v,
                                .backend = SPB_BACKEND_CUDA,
                                .time_calls = fast_calls};
    slow.kernel = (spb_kernel){.name = "test.slow",
                               .format = "csr",
                               .variant = &slow_v,
                               .backend = SPB_BACKEND_CUDA,
                               .time_calls = slow_calls};
    spb_spmv_kernel *rows[] = {&quick, &vendor, &slower_vendor, &slow};
    for (int k = 0; k < 4; k++) {
        rows[k]->kernel.prepare = slow_prepare;
        rows[k]->kernel.release = cpu_spmv_kernels[0].kernel.release;
    }
    const spb_kernel *table[] = {&quick.kernel, &vendor.kernel, &slower_vendor.kernel,
                                 &slow.kernel};
    spb_operation op = *operation_spmv();
    op.kernels = table;
    op.kernel_count = 4;
    char path[] = "/tmp/spb_break_even_XXXXXX", msg[SPB_MSG_LEN] = "";
    int fd = mkstemp(path);
    FILE *csv = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(csv && report_csv_header(csv, path, msg) == SPB_OK, "a CSV to read back: %s", msg);
    if (!csv) return;
    spb_run_opts opts = {0};
    opts.op = &op;
    opts.timing = (spb_timing_opts){.warmup = 0, .min_samples = 1, .min_time = 0.0};
    opts.tolerance = SPB_DEFAULT_TOLERANCE;
    opts.config = (spb_kernel_config){.hack_size = 32, .threads = 1, .precision = SPB_FP64};
    opts.out = (spb_run_outputs){.csv = csv, .csv_path = path, .table = fopen("/dev/null", "w")};
    opts.settings = "test";
    spb_run_totals totals = {0};
    CHECK(run_matrix("gen:lap2d:10", "gen:lap2d:10", &opts, &totals, msg) == SPB_OK, "run: %s",
          msg);
    fclose(opts.out.table);
    fclose(csv);
    char said[4096];
    summary_text(&totals.summary, said, sizeof said);
    CHECK(strstr(said, "fastest vendor row of their matrix") &&
              strstr(said, "test.fast                    fp64") && strstr(said, "2.00x (1)") &&
              strstr(said, "0.67x (1)") && strstr(said, "the fastest vendor row: test.vendor 1 "),
          "the summary weighs the device rows against the fastest vendor row: %s", said);
    run_totals_free(&totals);
    spb_done_set done = {0};
    int has_header = 0;
    CHECK(resume_load(path, &done, &has_header, msg) == SPB_OK && done.count == 4,
          "four rows read back: %s", msg);
    double prepare[4] = {NAN, NAN, NAN, NAN}, pays[4] = {NAN, NAN, NAN, NAN};
    for (int j = 0; j < done.count; j++) {
        spb_result r;
        result_from_csv(&r, done.rows[j].fields, done.rows[j].count);
        for (int k = 0; k < 4; k++)
            if (strcmp(r.kernel, table[k]->name) == 0 && r.status == SPB_ROW_OK) {
                prepare[k] = r.prepare_ms / 1e3;
                pays[k] = r.break_even_products;
            }
    }
    double expected = ceil((prepare[0] - prepare[1]) / (2e-3 - 1e-3));
    CHECK(pays[0] >= 30 && fabs(pays[0] - expected) <= 1,
          "the faster row pays after %g products; its prepare and the fastest vendor row's say "
          "%g",
          pays[0], expected);
    CHECK(isnan(pays[1]) && isnan(pays[2]) && isnan(pays[3]),
          "the vendor rows, and a row faster than one vendor row but not the fastest: none "
          "(%g, %g, %g)",
          pays[1], pays[2], pays[3]);
    resume_free(&done);
    remove(path);
}

/* A row at 2 threads 4x faster than its own kernel's 1-thread row (a
 * speedup no 2 threads can give) is marked noisy and says so; one 1.6x
 * faster is not. The rows compute csr.serial's product; their times are
 * made up by thread count. */
typedef struct {
    int threads;
    void *serial; /* csr.serial's state: the product validated */
    double one_thread_s, more_threads_s;
} threads_state;

static double superlinear_times[2][2] = {{4e-3, 1e-3}, {2e-3, 1.25e-3}};

static spb_status threads_prepare(const spb_kernel *self, spb_format_set *F,
                                  const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const double *times = self->variant;
    threads_state *s = calloc(1, sizeof *s);
    const spb_kernel *serial = &cpu_spmv_kernels[0].kernel;
    spb_status st = s ? serial->prepare(serial, F, config, plan, msg) : SPB_ERR_NOMEM;
    if (st != SPB_OK) {
        free(s);
        return st;
    }
    *s = (threads_state){config->threads, plan->state, times[0], times[1]};
    plan->state = s;
    return SPB_OK;
}

static void threads_release(void *state)
{
    threads_state *s = state;
    cpu_spmv_kernels[0].kernel.release(s->serial);
    free(s);
}

static spb_status threads_spmv(const void *state, const void *x, void *y, char *msg)
{
    const threads_state *s = state;
    return cpu_spmv_kernels[0].spmv(s->serial, x, y, msg);
}

static double threads_calls(void *state, int calls)
{
    const threads_state *s = state;
    return calls * (s->threads == 1 ? s->one_thread_s : s->more_threads_s);
}

void check_superlinear_marked(void)
{
    spb_spmv_kernel rows[2];
    const char *names[2] = {"test.superlinear", "test.sublinear"};
    for (int k = 0; k < 2; k++) {
        rows[k].kernel = (spb_kernel){.name = names[k],
                                      .format = "csr",
                                      .variant = superlinear_times[k],
                                      .backend = SPB_BACKEND_OPENMP,
                                      .prepare = threads_prepare,
                                      .release = threads_release,
                                      .time_calls = threads_calls};
        rows[k].spmv = threads_spmv;
    }
    const spb_kernel *table[] = {&rows[0].kernel, &rows[1].kernel};
    spb_operation op = *operation_spmv();
    op.kernels = table;
    op.kernel_count = 2;
    static const int threads[] = {1, 2};
    char path[] = "/tmp/spb_superlinear_XXXXXX", msg[SPB_MSG_LEN] = "";
    int fd = mkstemp(path);
    FILE *csv = fd >= 0 ? fdopen(fd, "w") : NULL;
    CHECK(csv && report_csv_header(csv, path, msg) == SPB_OK, "a CSV to read back: %s", msg);
    if (!csv) return;
    spb_run_opts opts = {0};
    opts.op = &op;
    opts.timing = (spb_timing_opts){.warmup = 0, .min_samples = 3, .min_time = 0.0};
    opts.tolerance = SPB_DEFAULT_TOLERANCE;
    opts.config = (spb_kernel_config){.hack_size = 32, .threads = 1, .precision = SPB_FP64};
    opts.threads = threads;
    opts.thread_counts = 2;
    opts.out = (spb_run_outputs){.csv = csv, .csv_path = path, .table = fopen("/dev/null", "w")};
    opts.settings = "test";
    spb_run_totals totals = {0};
    CHECK(run_matrix("gen:lap2d:10", "gen:lap2d:10", &opts, &totals, msg) == SPB_OK, "run: %s",
          msg);
    fclose(opts.out.table);
    fclose(csv);
    run_totals_free(&totals);
    spb_done_set done = {0};
    int has_header = 0;
    CHECK(resume_load(path, &done, &has_header, msg) == SPB_OK && done.count == 4,
          "four rows read back: %s", msg);
    for (int j = 0; j < done.count; j++) {
        spb_result r;
        result_from_csv(&r, done.rows[j].fields, done.rows[j].count);
        int marked = r.timing.noisy == 1 && strstr(r.message, "superlinear: 4.00x") != NULL;
        int should = r.threads == 2 && strcmp(r.kernel, "test.superlinear") == 0;
        CHECK(r.status == SPB_ROW_OK && marked == should, "%s at %d threads: %s (noisy %d: %s)",
              r.kernel, r.threads, should ? "marked superlinear" : "not marked", r.timing.noisy,
              r.message);
    }
    resume_free(&done);
    remove(path);
}

/* A run over the HLL kernels at two thread counts converts each HLL layout
 * once (before the format set: once per kernel and thread count). */
void check_run_converts_once(void)
{
    static const int threads[] = {1, 2};
    spb_run_opts opts = {0};
    opts.op = operation_spmv();
    opts.kernels = "hll.serial.*,hll.omp.row,hll.omp.col";
    opts.timing = (spb_timing_opts){.warmup = 0, .min_samples = 1, .min_time = 0.0};
    opts.seed = 1;
    opts.tolerance = SPB_DEFAULT_TOLERANCE;
    opts.config = (spb_kernel_config){.hack_size = 32, .threads = 1, .precision = SPB_FP64};
    opts.threads = threads;
    opts.thread_counts = 2;
    opts.out.table = fopen("/dev/null", "w");
    opts.settings = "test";
    spb_run_totals totals = {0};
    char msg[SPB_MSG_LEN] = "";
    CHECK(run_matrix("gen:lap2d:40", "gen:lap2d:40", &opts, &totals, msg) == SPB_OK, "run: %s",
          msg);
    CHECK(totals.counts.rows == 6 && totals.counts.ok == 6, "%d rows, %d ok", totals.counts.rows,
          totals.counts.ok);
    CHECK(totals.conversions == 2, "HLL converted %d times, expected 2 (row- and column-major)",
          totals.conversions);
    run_totals_free(&totals);
    fclose(opts.out.table);
}

/* kernel_trial on made-up rows: each says how long a call takes, or
 * declines, or fails when timed. The fastest is kept, every other state is
 * released, and a trial where none ran fails with the first one's reason. */
typedef struct {
    double seconds; /* per call; negative: fails when timed */
    spb_status prepare_status;
} trial_row;

static int trial_prepared, trial_released;

static spb_status trial_prepare(const spb_kernel *self, spb_format_set *formats,
                                const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)formats, (void)config;
    const trial_row *row = self->variant;
    if (row->prepare_status != SPB_OK)
        return spb_fail(msg, row->prepare_status,
                        row->prepare_status == SPB_ERR_DECLINED ? "declines" : "fails");
    plan->state = (void *)row;
    trial_prepared++;
    return SPB_OK;
}

static void trial_release(void *state)
{
    if (state) trial_released++;
}

static double trial_time(const spb_kernel *kernel, void *state, void *ctx, int calls)
{
    (void)kernel, (void)ctx;
    const trial_row *row = state;
    return row->seconds < 0 ? -1.0 : row->seconds * calls;
}

/* A device row's own account of its failed calls. */
static spb_status trial_check(const void *state, char *msg)
{
    (void)state;
    return spb_fail(msg, SPB_ERR_NOMEM, "out of device memory");
}

void check_trial(void)
{
    static const trial_row rows[] = {{3e-6, SPB_OK}, {0, SPB_ERR_DECLINED}, {1e-6, SPB_OK},
                                     {2e-6, SPB_OK}, {-1, SPB_OK},          {0, SPB_ERR_NOMEM}};
    spb_kernel kernels[7];
    for (int i = 0; i < 6; i++)
        kernels[i] = (spb_kernel){.name = "trial.row",
                                  .variant = &rows[i],
                                  .prepare = trial_prepare,
                                  .release = trial_release};
    kernels[6] = kernels[4]; /* its calls fail, and it says why */
    kernels[6].check = trial_check;
    spb_csr A = {0};
    spb_format_set formats;
    format_set_init(&formats, &A);
    spb_kernel_config config = {.threads = 1};
    spb_kernel_plan plan = {0};
    char msg[SPB_MSG_LEN] = "";
    for (int interleave = 0; interleave <= 1; interleave++) {
        trial_prepared = trial_released = 0;
        spb_trial trial = {.candidates = {&kernels[0], &kernels[1], &kernels[2], &kernels[3]},
                           .count = 4,
                           .interleave = interleave};
        spb_status st = kernel_trial(&trial, &A, &formats, &config, trial_time, NULL, &plan, msg);
        CHECK(st == SPB_OK && trial.chosen == 2 && plan.state == &rows[2],
              "trial (interleave %d) kept candidate %d (status %d), expected the fastest, 2",
              interleave, trial.chosen, (int)st);
        CHECK(isnan(trial.seconds[1]) && trial.seconds[3] == 2e-6,
              "a declined candidate has no time, the others theirs");
        CHECK(trial_prepared == 3 && trial_released == 2,
              "%d prepared, %d released: all but the kept one must be", trial_prepared,
              trial_released);
        /* a failure that is not a decline is the trial's, nothing left held */
        for (int failing = 4; failing <= 6; failing++) {
            trial_prepared = trial_released = 0;
            trial = (spb_trial){.candidates = {&kernels[2], &kernels[failing], &kernels[3]},
                                .count = 3,
                                .interleave = interleave};
            msg[0] = '\0';
            st = kernel_trial(&trial, &A, &formats, &config, trial_time, NULL, &plan, msg);
            CHECK(st == (failing == 4 ? SPB_ERR_DEVICE : SPB_ERR_NOMEM) && trial.chosen == -1 &&
                      trial_prepared == trial_released &&
                      (failing != 6 || strstr(msg, "out of device memory")),
                  "a failing candidate: status %d, %d prepared, %d released (%s)", (int)st,
                  trial_prepared, trial_released, msg);
        }
    }
    spb_trial trial = {.candidates = {&kernels[1]}, .count = 1};
    spb_status st = kernel_trial(&trial, &A, &formats, &config, trial_time, NULL, &plan, msg);
    CHECK(st == SPB_ERR_DECLINED && trial.chosen == -1 && strstr(msg, "declines"),
          "a trial where none ran: status %d, message %s", (int)st, msg);
    format_set_free(&formats);
}

/* An auto kernel's rule, branch by branch: the candidates its message says
 * were timed (in the rule's order), and the kernel it kept the fastest of
 * them. cache_bytes stands for the CPU's last-level cache and the GPU's L2
 * (0: the machine's own). */
/* The SpMV table's row of that name (NULL: none). */
static const spb_kernel *spmv_row(const char *name)
{
    const spb_operation *op = operation_spmv();
    for (int k = 0; k < op->kernel_count; k++)
        if (strcmp(op->kernels[k]->name, name) == 0) return op->kernels[k];
    return NULL;
}

static void check_auto_choice(const char *row, const char *label, const spb_csr *A,
                              double cache_bytes, const char *expected)
{
    const spb_kernel *kernel = spmv_row(row);
    CHECK(kernel != NULL, "%s is not in the table", row);
    if (!kernel) return;
    spb_format_set formats;
    format_set_init(&formats, A);
    spb_kernel_config config = {.hack_size = 32,
                                .threads = 2,
                                .precision = SPB_FP64,
                                .cache_bytes = cache_bytes,
                                .device_cache_bytes = cache_bytes};
    spb_kernel_plan plan = {0};
    char msg[SPB_MSG_LEN] = "";
    spb_status st = kernel->prepare(kernel, &formats, &config, &plan, msg);
    CHECK(st == SPB_OK, "%s on %s: %s", row, label, msg);
    if (st != SPB_OK) {
        format_set_free(&formats);
        return;
    }
    kernel->release(plan.state);
    format_set_free(&formats);
    check_trial_message(row, label, msg, expected);
}

static const char *const shared_x_rows[] = {"csr.cuda.stream", "hll.cuda.col", "cusparse.csr",
                                            "csr.cuda.merge"};
enum { SHARED_X_ROWS = 4 };

/* The checks of check_shared_x on its four prepared rows (0-1: fp64 asking
 * for a shared x, 2: fp32 asking, 3: not asking); rows 0 and 1 released. */
static void check_shared_x_rows(const spb_operation *op, spb_case *c, void **state,
                                const spb_kernel_config *shared)
{
    const void *x0 = gpu_spmv_x_address(state[0]);
    CHECK(x0 && gpu_spmv_x_address(state[1]) == x0,
          "two fp64 rows asking for a shared x got two buffers");
    CHECK(gpu_spmv_x_address(state[2]) != x0, "an fp32 row shares the fp64 rows' x");
    CHECK(gpu_spmv_x_address(state[3]) != x0, "a row not asking for it shares x");
    const spb_kernel *first = spmv_row(shared_x_rows[0]), *second = spmv_row(shared_x_rows[1]);
    char msg[SPB_MSG_LEN] = "";
    spb_validation v;
    for (int r = 1; r >= 0; r--) { /* each row's product, the other's before it */
        spb_row_status st =
            op->product(r ? second : first, state[r], c, SPB_FP64, SPB_DEFAULT_TOLERANCE, &v, msg);
        CHECK(st == SPB_ROW_OK, "shared x: %s after the other: %s", shared_x_rows[r], msg);
    }
    first->release(state[0]);
    state[0] = NULL;
    CHECK(second->time_calls(state[1], 2) >= 0, "shared x: calls after the other row let go");
    spb_row_status st = op->product(second, state[1], c, SPB_FP64, SPB_DEFAULT_TOLERANCE, &v, msg);
    CHECK(st == SPB_ROW_OK, "shared x: %s alone: %s", shared_x_rows[1], msg);
    second->release(state[1]);
    state[1] = NULL;
    spb_kernel_plan again = {0};
    CHECK(first->prepare(first, &c->formats, shared, &again, msg) == SPB_OK &&
              op->product(first, again.state, c, SPB_FP64, SPB_DEFAULT_TOLERANCE, &v, msg) ==
                  SPB_ROW_OK,
          "shared x: a row after the buffer was freed: %s", msg);
    if (again.state) first->release(again.state);
}

/* An SpMV case on A with a random x, its formats made (shared_x_case_free
 * frees it all); the shared-x checks' rows ask for a shared fp64 x. */
static const spb_kernel_config shared_x_config = {
    .hack_size = 32, .threads = 1, .precision = SPB_FP64, .shared_x = 1};
static spb_value *shared_x_case(spb_rng *rng, const char *name, spb_csr *A, spb_case *c)
{
    char msg[SPB_MSG_LEN] = "";
    *c = (spb_case){.name = name, .A = A};
    CHECK(operation_spmv()->case_setup(c, 1, msg) == SPB_OK, "%s: setup: %s", name, msg);
    spb_value *x = malloc(sizeof *x * (size_t)A->n);
    spmv_random_vector(spb_rng_next(rng), A->n, x);
    spmv_case_set_x(c, x);
    format_set_init(&c->formats, A);
    return x;
}
static void shared_x_case_free(spb_case *c, spb_value *x, spb_csr *A)
{
    format_set_free(&c->formats);
    operation_spmv()->case_free(c);
    free(x);
    csr_free(A);
}

/* A row prepared after others leaves their shared x alone: the run
 * validates rows one by one (uploading x) and then times them in turns on
 * the device's x, so a later prepare that wrote x (hll.cuda.col.pattern's
 * did, zeroing it) would time the earlier rows on other data. The pattern
 * row's padding still reads x's spare entry as zero. */
static void check_shared_x_kept(spb_rng *rng)
{
    spb_csr A;
    random_csr(rng, 2000, 1800, 20000, -1, 0, &A);
    for (spb_offset k = 0; k < A.nnz; k++) A.val[k] = 1.5; /* a pattern matrix */
    const spb_operation *op = operation_spmv();
    char msg[SPB_MSG_LEN] = "";
    spb_case c;
    spb_value *x = shared_x_case(rng, "shared x kept", &A, &c);
    spb_value *on_device = malloc(sizeof *on_device * (A.n + 1));
    const spb_kernel *held = spmv_row("csr.cuda.stream"), *later = spmv_row("hll.cuda.col.pattern");
    spb_kernel_plan first = {0}, second = {0};
    spb_validation v;
    if (held && later && held->prepare(held, &c.formats, &shared_x_config, &first, msg) == SPB_OK &&
        op->product(held, first.state, &c, SPB_FP64, SPB_DEFAULT_TOLERANCE, &v, msg) ==
            SPB_ROW_OK &&
        later->prepare(later, &c.formats, &shared_x_config, &second, msg) == SPB_OK &&
        gpu_spmv_x_download(first.state, on_device, msg) == SPB_OK) {
        CHECK(gpu_spmv_x_address(first.state) == gpu_spmv_x_address(second.state),
              "shared x kept: the two rows got two buffers");
        spb_index changed = 0;
        for (spb_index j = 0; j < A.n; j++) changed += on_device[j] != x[j];
        CHECK(changed == 0, "shared x kept: %d of x's %d entries changed by a later prepare",
              changed, A.n);
        CHECK(on_device[A.n] == 0.0, "shared x kept: x's spare entry is %g", on_device[A.n]);
        CHECK(op->product(later, second.state, &c, SPB_FP64, SPB_DEFAULT_TOLERANCE, &v, msg) ==
                  SPB_ROW_OK,
              "shared x kept: %s: %s", later->name, msg);
    } else {
        CHECK(0, "shared x kept: %s", held && later ? msg : "a row is not in the table");
    }
    if (first.state) held->release(first.state);
    if (second.state) later->release(second.state);
    free(on_device);
    shared_x_case_free(&c, x, &A);
}

/* Device rows prepared with config.shared_x gather x from one buffer per
 * precision (rows compared in one run: where x lands moves their time),
 * and each still computes its own product: the buffer outlives the first
 * row to let it go, a freed one is made again, and a row without the flag
 * keeps its own (the distributed blocks'). */
void check_shared_x(spb_rng *rng)
{
    spb_csr A;
    random_csr(rng, 3000, 2500, 40000, -1, 0, &A);
    const spb_operation *op = operation_spmv();
    char msg[SPB_MSG_LEN] = "";
    spb_case c;
    spb_value *x = shared_x_case(rng, "shared x", &A, &c);
    spb_kernel_config shared = shared_x_config;
    spb_kernel_config single = shared, own = shared;
    single.precision = SPB_FP32;
    own.shared_x = 0;
    const spb_kernel_config *configs[SHARED_X_ROWS] = {&shared, &shared, &single, &own};
    void *state[SHARED_X_ROWS] = {NULL};
    int prepared = 0;
    for (int r = 0; r < SHARED_X_ROWS; r++) {
        const spb_kernel *k = spmv_row(shared_x_rows[r]);
        spb_kernel_plan plan = {0};
        spb_status st = k ? k->prepare(k, &c.formats, configs[r], &plan, msg) : SPB_ERR_INVALID;
        CHECK(st == SPB_OK, "shared x: %s: %s", shared_x_rows[r], k ? msg : "not in the table");
        state[r] = st == SPB_OK ? plan.state : NULL;
        prepared += st == SPB_OK;
    }
    if (prepared == SHARED_X_ROWS) check_shared_x_rows(op, &c, state, &shared);
    for (int r = 0; r < SHARED_X_ROWS; r++)
        if (state[r]) spmv_row(shared_x_rows[r])->release(state[r]);
    shared_x_case_free(&c, x, &A);
    check_shared_x_kept(rng);
}

/* auto.cuda's rule on statistics given (no device, no matrix): the
 * candidates it names, in its order. */
static void check_cuda_candidates(const char *label, const gpu_auto_shape *f, const char *expected)
{
    spb_trial_names list = {{NULL}, 0};
    guarded_reason out;
    guarded_reason_init(&out);
    char names[512] = "";
    gpu_auto_candidates(f, &list, out.why);
    trial_names_join(&list, names, sizeof names);
    check_guarded_reason("auto.cuda", label, &out);
    CHECK(strcmp(names, expected) == 0, "auto.cuda's rule on %s named %s, expected %s (%s)", label,
          names, expected, out.why);
    CHECK(strstr(out.why, "column panels") == NULL || strstr(expected, "colblock") != NULL,
          "auto.cuda's rule on %s gives panels as a reason without naming them: %s", label,
          out.why);
}

/* The column-panel branch on both sides of each bound: x beyond half the
 * L2, rows spanning more than a quarter of the L2's worth of x, row
 * lengths' cv below 1 (an H100's 50 MiB L2; fp64). */
void check_auto_cuda_rule_host(void)
{
    const double l2 = 50.0 * 1048576.0;
    gpu_auto_shape f = {.value_bytes = 8.0, .l2_bytes = l2};
    /* gen:random:6000000:3: three random columns a row spanning half of x */
    f.csr.stats = (spb_csr_stats){.rows = 6000000,
                                  .cols = 6000000,
                                  .nnz = 18000000,
                                  .row_min = 3,
                                  .row_max = 3,
                                  .row_mean = 3.0};
    f.csr.padding = 1.0;
    f.csr.scatter = 1.0;
    f.x_bytes = 8.0 * 6000000;
    f.csr.span = 3000000; /* 24 MB: past a quarter of the L2, short of half */
    static const char alike[] =
        "hll.cuda.col,hll.cuda.col.narrow,cusparse.sell,csr.cuda.stream,csr.cuda.merge";
    char panels_alike[256], csr_alike[256];
    snprintf(panels_alike, sizeof panels_alike, "cusparse.csr,csr.cuda.colblock,%s", alike);
    snprintf(csr_alike, sizeof csr_alike, "cusparse.csr,%s", alike);
    check_cuda_candidates("rows alike, spans of half x (24 MB)", &f, panels_alike);
    f.csr.span = 0.99 * l2 / 4 / 8;
    check_cuda_candidates("rows alike, spans just under a quarter of the L2", &f, csr_alike);
    f.csr.span = 1.01 * l2 / 4 / 8;
    check_cuda_candidates("rows alike, spans just over a quarter of the L2", &f, panels_alike);
    f.x_bytes = 0.99 * l2 / 2;
    check_cuda_candidates("rows alike, x just under half the L2", &f, csr_alike);
    /* blocks that fill: cuSPARSE's BSR and bsr.cuda.sliced up to 0.85 of
     * CSR's bytes, neither past it, nor where no block size fits */
    char blocks_alike[320];
    snprintf(blocks_alike, sizeof blocks_alike, "%s,cusparse.bsr,bsr.cuda.sliced", csr_alike);
    f.bsr_block = 3;
    f.bsr_share = 0.85;
    check_cuda_candidates("rows alike, 3x3 blocks at 0.85 of CSR's bytes", &f, blocks_alike);
    f.bsr_share = 0.86;
    check_cuda_candidates("rows alike, 3x3 blocks at 0.86 of CSR's bytes", &f, csr_alike);
    f.bsr_block = 0;
    f.bsr_share = 0.5;
    check_cuda_candidates("rows alike, no block size fits", &f, csr_alike);
    f.bsr_share = 0;
    f.x_bytes = 8.0 * 6000000;
    /* rows unlike (HLL pads 50%), cv 0.6 and 1.2 */
    f.csr.padding = 1.5;
    f.csr.stats.row_max = 40;
    f.csr.cv = 0.6;
    check_cuda_candidates("rows unlike, cv 0.6", &f,
                          "cusparse.csr,csr.cuda.colblock,csr.cuda.stream,csr.cuda.merge");
    f.csr.cv = 1.2; /* skewed: the L2 keeps the hot columns */
    check_cuda_candidates("rows skewed, cv 1.2", &f,
                          "cusparse.csr,csr.cuda.stream,csr.cuda.merge,cusparse.coo");
    /* at most 8 million entries, scattered: renumbering beside the panels */
    f.csr.cv = 0.6;
    f.csr.stats.nnz = 8000000;
    check_cuda_candidates("rows unlike, 8 million entries, scattered", &f,
                          "cusparse.csr,csr.cuda.colblock,csr.cuda.stream,csr.cuda.merge,"
                          "csr.cuda.stream.rcm");
    /* statistics whose reason outgrows its buffer (a hub row, a mean of
     * 1e200 printed in full): cut short, the candidates named all the same */
    f.csr.stats.row_max = 2000000000;
    f.csr.stats.row_mean = 1e200;
    check_cuda_candidates("a reason longer than its buffer", &f,
                          "cusparse.csr,csr.cuda.merge,csr.cuda.colblock,csr.cuda.stream");
}

/* auto.cuda's rule, branch by branch (on the device only). */
void check_auto_cuda_rule(spb_rng *rng)
{
    static const char small[] = "csr.cuda.warp,csr.cuda.adaptive,csr.cuda.stream,csr.cuda.binned,"
                                "csr.cuda.ldg,csr.cuda.warp_shared2d";
    static const char unlike[] = "cusparse.csr,csr.cuda.stream,csr.cuda.merge,csr.cuda.stream.rcm";
    spb_csr A;
    char msg[SPB_MSG_LEN] = "";
    random_csr(rng, 3000, 3000, 24000, -1, 0, &A);
    check_auto_choice("auto.cuda", "small, rows unlike", &A, 0, small);
    csr_free(&A);
    CHECK(gen_matrix("gen:lap2d:40", &A, msg) == SPB_OK, "%s", msg);
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0;
    check_auto_choice("auto.cuda", "small pattern, rows alike", &A, 0,
                      "csr.cuda.warp,csr.cuda.adaptive.pattern,csr.cuda.stream.pattern,"
                      "csr.cuda.binned.pattern,csr.cuda.ldg,csr.cuda.warp_shared2d,"
                      "hll.cuda.warp_shared");
    csr_free(&A);
    CHECK(gen_matrix("gen:hubs:45000:8:1:17663", &A, msg) == SPB_OK, "%s", msg);
    check_auto_choice("auto.cuda", "small with a hub row", &A, 0,
                      "cusparse.csr,csr.cuda.merge,csr.cuda.warp,csr.cuda.adaptive,csr.cuda.stream,"
                      "csr.cuda.binned,csr.cuda.ldg,csr.cuda.warp_shared2d");
    csr_free(&A);
    CHECK(gen_matrix("gen:lap2d:500", &A, msg) == SPB_OK, "%s", msg); /* 1.25M entries */
    static const char large_alike[] = "cusparse.csr,hll.cuda.col,hll.cuda.col.narrow,cusparse.sell,"
                                      "csr.cuda.stream,csr.cuda.merge";
    check_auto_choice("auto.cuda", "large, rows alike", &A, 0, large_alike);
    /* x (2 MB) beyond half a pretend 64 KiB L2, rows spanning 1001
     * columns (8 KB, under a quarter of it): banded, no panels */
    check_auto_choice("auto.cuda", "large, rows alike, banded past the L2", &A, 65536.0,
                      large_alike);
    csr_free(&A);
    /* three random columns a row: spans of half x (1.6 MB), between a
     * quarter and a half of a pretend 4 MiB L2, x (3.2 MB) beyond its
     * half: panels beside the HLL candidates */
    CHECK(gen_matrix("gen:random:400000:3", &A, msg) == SPB_OK, "%s", msg);
    check_auto_choice("auto.cuda", "large, rows alike, gathered across x", &A, 4194304.0,
                      "cusparse.csr,csr.cuda.colblock,hll.cuda.col,hll.cuda.col.narrow,"
                      "cusparse.sell,csr.cuda.stream,csr.cuda.merge,csr.cuda.stream.rcm");
    csr_free(&A);
    CHECK(gen_matrix("gen:road:700:65", &A, msg) == SPB_OK, "%s", msg); /* rows of 0-4 */
    check_auto_choice("auto.cuda", "large pattern, rows short", &A, 0,
                      "cusparse.csr,hll.cuda.col.pattern,hll.cuda.col.narrow.pattern,"
                      "csr.cuda.stream.pattern,"
                      "csr.cuda.merge.pattern");
    csr_free(&A);
    random_csr(rng, 200000, 200000, 1200000, -1, 0, &A);
    check_auto_choice("auto.cuda", "large, rows unlike", &A, 0, unlike);
    check_auto_choice("auto.cuda", "large, x beyond the L2", &A, TEST_CACHE_BYTES,
                      "cusparse.csr,csr.cuda.colblock,csr.cuda.stream,csr.cuda.merge,"
                      "csr.cuda.stream.rcm");
    csr_free(&A);
    CHECK(gen_matrix("gen:hubs:300000:6:1:100000", &A, msg) == SPB_OK, "%s", msg);
    check_auto_choice("auto.cuda", "large with a hub row", &A, TEST_CACHE_BYTES,
                      "cusparse.csr,csr.cuda.merge,csr.cuda.stream,cusparse.coo");
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0; /* no values: no COO */
    check_auto_choice("auto.cuda", "large pattern with a hub row", &A, TEST_CACHE_BYTES,
                      "cusparse.csr,csr.cuda.merge.pattern,csr.cuda.stream.pattern");
    csr_free(&A);
    CHECK(gen_matrix("gen:fem:22:3", &A, msg) == SPB_OK, "%s", msg); /* 3x3 blocks, 0.71 */
    check_auto_choice("auto.cuda", "large, blocks that fill", &A, 0,
                      "cusparse.csr,hll.cuda.col,hll.cuda.col.narrow,cusparse.sell,csr.cuda.stream,"
                      "csr.cuda.merge,cusparse.bsr,bsr.cuda.sliced");
    csr_free(&A);
}

void check_auto_rule(spb_rng *rng)
{
    static const char alike[] =
        "hll.omp.col,hll.omp.row,csr.omp.nnz,csr.omp.static,csr.omp.dynamic";
    static const char short_pattern[] = "hll.omp.col,hll.omp.row,csr.omp.pattern";
    static const char unlike[] = "csr.omp.nnz,csr.omp.static,csr.omp.dynamic,csr.omp.guided";
    spb_csr A;
    char msg[SPB_MSG_LEN] = "";
    CHECK(gen_matrix("gen:lap2d:40", &A, msg) == SPB_OK, "%s", msg);
    check_auto_choice("auto.omp", "lap2d (no padding)", &A, 0, alike);
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0; /* short rows, one length */
    check_auto_choice("auto.omp", "lap2d pattern", &A, 0, short_pattern);
    csr_free(&A);
    CHECK(gen_matrix("gen:road:30:65", &A, msg) == SPB_OK, "%s", msg);
    check_auto_choice("auto.omp", "road graph", &A, 0, short_pattern);
    csr_free(&A);
    /* rows of random length (cv about 0.35, HLL padding well past 15%)
     * over columns far wider than the pretend cache */
    random_csr(rng, 3000, 3000, 24000, -1, 0, &A);
    check_auto_choice("auto.omp", "random, x beyond the cache", &A, TEST_CACHE_BYTES,
                      "csr.omp.colblock,csr.omp.nnz");
    check_auto_choice("auto.omp", "random, cache unknown", &A, 0, unlike);
    csr_free(&A);
    /* rows unlike: HLL padding 17% and 40% keep hll.omp.col among the
     * candidates, 56% does not */
    static const char padded[] =
        "csr.omp.nnz,hll.omp.col,csr.omp.static,csr.omp.dynamic,csr.omp.guided";
    two_length_csr(rng, 640, 3000, 10, 14, &A);
    check_auto_choice("auto.omp", "rows of 10 and 14 (pads 17%)", &A, 0, padded);
    csr_free(&A);
    two_length_csr(rng, 640, 3000, 6, 14, &A);
    check_auto_choice("auto.omp", "rows of 6 and 14 (pads 40%)", &A, 0, padded);
    csr_free(&A);
    two_length_csr(rng, 640, 3000, 4, 14, &A);
    check_auto_choice("auto.omp", "rows of 4 and 14 (pads 56%)", &A, 0, unlike);
    csr_free(&A);
    random_csr(rng, 3000, 3000, 21000, -1, 0, &A); /* mean 7, the longest far under 32 */
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0;
    check_auto_choice("auto.omp", "random pattern, short rows", &A, 0, short_pattern);
    csr_free(&A);
    /* rows of 40, alike: CSR or HLL without values */
    CHECK(gen_matrix("gen:random:500:40", &A, msg) == SPB_OK, "%s", msg);
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0;
    check_auto_choice("auto.omp", "pattern, long rows alike", &A, 0,
                      "csr.omp.pattern,hll.omp.col.pattern");
    csr_free(&A);
    /* one long row: skewed, so no panels even with x beyond the cache */
    random_csr(rng, 400, 3000, 2000, 7, 2500, &A);
    check_auto_choice("auto.omp", "skewed", &A, TEST_CACHE_BYTES, unlike);
    for (spb_index k = 0; k < A.nnz; k++) A.val[k] = 1.0;
    check_auto_choice("auto.omp", "skewed pattern", &A, 0, "csr.omp.pattern");
    csr_free(&A);
}
