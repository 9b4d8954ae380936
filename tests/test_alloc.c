/* test_alloc.c — allocation failures: the reader, the conversions and each
 * kernel's prepare are rerun with the 1st, 2nd, 3rd ... allocation failing;
 * every run must return out-of-memory (never crash, never succeed with a
 * partial result) until enough allocations succeed. The run of one matrix,
 * with any one allocation failing, writes every row once; a row whose
 * prepare fails while earlier rows hold their states is tried again alone.
 * Leaks are caught by the sanitizer build, where this test also runs. */
#include <string.h>

#include "bench/run/operation.h"
#include "bench/run/run.h"
#include "check.h"
#include "formats/hll.h"
#include "formats/mm.h"

typedef spb_status (*step_fn)(void *ctx, char *msg);

/* Fails allocation 0, 1, 2, ... until the step succeeds. */
static void sweep(const char *label, step_fn step, void *ctx)
{
    int failures_seen = 0;
    for (long at = 0; at < 10000; at++) {
        char msg[SPB_MSG_LEN] = "";
        spb_alloc_fail_at(at);
        spb_status st = step(ctx, msg);
        long made = spb_alloc_count();
        spb_alloc_fail_at(-1);
        if (st == SPB_OK) {
            CHECK(made <= at, "%s: succeeded although allocation %ld failed", label, at);
            printf("%s: %d failure points, all clean\n", label, failures_seen);
            return;
        }
        CHECK(st == SPB_ERR_NOMEM, "%s: allocation %ld failed, status '%s' (%s)", label, at,
              spb_status_str(st), msg);
        CHECK(strstr(msg, "memory") != NULL, "%s: message '%s'", label, msg);
        failures_seen++;
    }
    CHECK(0, "%s: never succeeded", label);
}

static const char *matrix_path;

static spb_status read_step(void *ctx, char *msg)
{
    (void)ctx;
    spb_csr A;
    spb_status st = mm_read_csr(matrix_path, &A, NULL, msg);
    csr_free(&A);
    return st;
}

static spb_status hll_step(void *ctx, char *msg)
{
    spb_hll H;
    spb_status st = hll_from_csr(ctx, 7, HLL_COL_MAJOR, &H, msg);
    hll_free(&H);
    return st;
}

typedef struct {
    const spb_kernel *kernel;
    const spb_csr *A;
    spb_precision precision;
} prepare_ctx;

/* A fresh format set each time, so the kernel's conversion is swept too. */
static spb_status prepare_step(void *ctx, char *msg)
{
    prepare_ctx *p = ctx;
    /* a pretend cache small enough to block x in both precisions (same panel width) */
    double cache = p->precision == SPB_FP32 ? 2048 : 4096;
    spb_kernel_config config = {
        .hack_size = 32, .threads = 1, .precision = p->precision, .cache_bytes = cache};
    spb_kernel_plan plan = {0};
    spb_format_set formats;
    format_set_init(&formats, p->A);
    spb_status st = p->kernel->prepare(p->kernel, &formats, &config, &plan, msg);
    if (st == SPB_OK) p->kernel->release(plan.state);
    format_set_free(&formats);
    return st;
}

/* An SpGEMM kernel's prepare and one product A*A, on a fresh set. */
static spb_status spgemm_step(void *ctx, char *msg)
{
    prepare_ctx *p = ctx;
    spb_kernel_config config = {.hack_size = 32, .threads = 2, .precision = SPB_FP64};
    spb_kernel_plan plan = {0};
    spb_format_set formats;
    format_set_init(&formats, p->A);
    formats.b = p->A;
    spb_status st = p->kernel->prepare(p->kernel, &formats, &config, &plan, msg);
    if (st == SPB_OK) {
        spb_csr C;
        st = spgemm_kernel_of(p->kernel)->spgemm(plan.state, &C, msg);
        csr_free(&C);
        p->kernel->release(plan.state);
    }
    format_set_free(&formats);
    return st;
}

static spb_status sell_step(void *ctx, char *msg)
{
    spb_sell S;
    spb_status st = sell_from_csr(ctx, 7, &S, msg);
    sell_free(&S);
    return st;
}

/* run_matrix with allocation `at` failing (-1: none): its tallies, and in
 * *lost the error rows of the second and third kernels: rows that would
 * have run, had they been tried again alone (their first try held the rows
 * before them, or took turns with them: out of memory in their timing). */
static spb_row_counts run_failing_at(long at, long *made, int *lost)
{
    static const int one_thread[] = {1};
    FILE *table = fopen("/dev/null", "w"), *csv = tmpfile();
    spb_run_opts opts = {.op = operation_spmv(),
                         .kernels = "csr.serial,csr.omp.static,hll.omp.row",
                         .timing = {.warmup = 0, .min_samples = 2, .min_time = 0},
                         .seed = 7,
                         .tolerance = SPB_DEFAULT_TOLERANCE,
                         .config = {.hack_size = 32, .precision = SPB_FP64},
                         .threads = one_thread,
                         .thread_counts = 1,
                         .out = {.csv = csv, .csv_path = "rows.csv", .table = table},
                         .settings = ""};
    spb_run_totals totals = {0};
    char msg[SPB_MSG_LEN] = "";
    spb_alloc_fail_at(at);
    spb_status st = run_matrix(matrix_path, "plskz362", &opts, &totals, msg);
    *made = spb_alloc_count();
    spb_alloc_fail_at(-1);
    CHECK(st == SPB_OK, "run_matrix, allocation %ld failing: %s", at, msg);
    char line[4096];
    *lost = 0;
    rewind(csv);
    while (fgets(line, sizeof line, csv))
        *lost += strstr(line, ",error,") &&
                 (strstr(line, ",csr.omp.static,") || strstr(line, ",hll.omp.row,"));
    run_totals_free(&totals);
    fclose(csv);
    fclose(table);
    return totals.counts;
}

/* Every failure point of a run of three rows: three rows written, or the
 * matrix's one error row; a failure in the prepare or first product of
 * the second or third row, while the rows before it hold their states, is
 * absorbed by its retry alone. */
static void sweep_run(void)
{
    long made = 0;
    int lost = 0;
    spb_row_counts clean = run_failing_at(-1, &made, &lost);
    CHECK(clean.rows == 3 && clean.ok == 3, "the run without failures: %d rows, %d ok", clean.rows,
          clean.ok);
    int absorbed = 0;
    for (long at = 0; at < made; at++) {
        long seen = 0;
        spb_row_counts t = run_failing_at(at, &seen, &lost);
        int whole = t.rows == 3 && t.ok + t.errors == 3;
        int matrix_failed = t.rows == 1 && t.errors == 1;
        CHECK(whole || matrix_failed, "allocation %ld failing: %d rows (%d ok, %d errors)", at,
              t.rows, t.ok, t.errors);
        CHECK(lost == 0, "allocation %ld failing: %d rows failed while others were held", at, lost);
        absorbed += t.ok == 3;
    }
    printf("run_matrix: %ld failure points, %d absorbed\n", made, absorbed);
}

/* spb_grow: doubling from `first`, the items kept across growth, and a
 * failed growth keeping the array and its capacity. */
static void check_grow(void)
{
    int *items = NULL, cap = 0, count = 0;
    for (int k = 0; k < 100; k++) {
        CHECK(spb_grow((void **)&items, &cap, count, 4, sizeof *items), "grow to %d", k + 1);
        items[count++] = k;
    }
    CHECK(cap == 128, "capacity doubled from 4 to 128: %d", cap);
    spb_alloc_fail_at(0);
    CHECK(!spb_grow((void **)&items, &cap, 128, 4, sizeof *items) && cap == 128,
          "a failed growth keeps the capacity: %d", cap);
    spb_alloc_fail_at(-1);
    int kept = 1;
    for (int k = 0; k < count; k++) kept &= items[k] == k;
    CHECK(kept, "the items survive growth and a failed growth");
    spb_free(items);
}

int main(int argc, char **argv)
{
    char path[512];
    const char *dir = argc > 1 ? argv[1] : "matrices";
    snprintf(path, sizeof path, "%s/plskz362.mtx.gz", dir);
    matrix_path = path;
    sweep("mm_read_csr", read_step, NULL);
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    if (mm_read_csr(path, &A, NULL, msg) != SPB_OK) {
        fprintf(stderr, "%s\n", msg);
        return 1;
    }
    sweep("hll_from_csr", hll_step, &A);
    spb_csr pattern; /* A with every value 1, for the kernels that take only pattern matrices */
    if (mm_read_csr(path, &pattern, NULL, msg) != SPB_OK) return 1;
    for (spb_index k = 0; k < pattern.nnz; k++) pattern.val[k] = 1.0;
    sweep("sell_from_csr", sell_step, &A);
    const spb_operation *op = operation_spmv();
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if (kernel->supports && !kernel->supports(kernel, &A, why)) continue;
        prepare_ctx ctx = {kernel, &A, SPB_FP64};
        char declined[SPB_MSG_LEN] = "";
        if (prepare_step(&ctx, declined) == SPB_ERR_DECLINED)
            ctx.A = &pattern; /* a pattern kernel */
        sweep(kernel->name, prepare_step, &ctx);
        if (!kernel->fp32) continue;
        char label[SPB_MSG_LEN]; /* the fp32 prepare: rounded values, float copies */
        snprintf(label, sizeof label, "%s/fp32", kernel->name);
        ctx.precision = SPB_FP32;
        sweep(label, prepare_step, &ctx);
    }
    /* SpGEMM: every kernel's prepare and product (GraphBLAS allocates with
     * its own allocator, so only spbench's allocations can fail there) */
    op = operation_spgemm();
    for (int k = 0; k < op->kernel_count; k++) {
        const spb_kernel *kernel = op->kernels[k];
        char why[SPB_MSG_LEN] = "";
        if (kernel->supports && !kernel->supports(kernel, &A, why)) continue;
        prepare_ctx ctx = {kernel, &A, SPB_FP64};
        sweep(kernel->name, spgemm_step, &ctx);
    }
    csr_free(&A);
    csr_free(&pattern);
    sweep_run();
    check_grow();
    return check_done();
}
