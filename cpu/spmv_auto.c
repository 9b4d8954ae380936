/* spmv_auto.c — auto.omp: the OpenMP kernel chosen for the matrix, by its
 * shape and a timed trial of the candidates (see spmv_cpu.h). */
#include <omp.h>
#include <stdio.h>

#include "core/kernel_trial.h"
#include "spmv_cpu.h"

/* The rule names the candidates a matrix's shape allows, best guess first;
 * prepare times them on the matrix (kernel_trial) and keeps the fastest.
 * Which of them wins depends on the CPU as much as on the matrix: on the
 * 2-core AMD EPYC hll.omp.col beat csr.omp.pattern 2.3x on gen:road:360:65
 * but lost 1.6x on gen:road:200:80, where the H100 machine's 16-core host
 * had it win 3.4x; hll.omp.row beat hll.omp.col 1.3x on gen:random:2000000:8
 * and lost 1.2-1.3x on the Laplacians; the CSR schedules trade places by
 * a few percent (docs/MEASUREMENTS.md). */
#define AUTO_WHY_LEN    (SPB_MSG_LEN / 2)
#define AUTO_SHORT_MEAN 8.0 /* short rows: HLL's hack columns against CSR's per-row exit */
#define AUTO_SHORT_MAX  32
/* HLL's column kernel stays a candidate for rows unlike up to this padding:
 * in a Release build on the 2-core EPYC it was the best row at 1 and 2
 * threads on 6 of the 11 matrices padding 15-50% (Journals 1.18x
 * csr.omp.static) and at one of them on 2 more; it lost on all 34 padding
 * more (1.13-5.4x) */
#define AUTO_HLL_MAX_PADDING 1.5

static const char *const auto_panels[] = {"csr.omp.colblock", "csr.omp.nnz", NULL};
static const char *const auto_short_pattern[] = {"hll.omp.col", "hll.omp.row", "csr.omp.pattern",
                                                 NULL};
static const char *const auto_pattern[] = {"csr.omp.pattern", NULL};
static const char *const auto_pattern_alike[] = {"csr.omp.pattern", "hll.omp.col.pattern", NULL};
static const char *const auto_alike[] = {"hll.omp.col",    "hll.omp.row",     "csr.omp.nnz",
                                         "csr.omp.static", "csr.omp.dynamic", NULL};
static const char *const auto_padded[] = {"csr.omp.nnz",     "hll.omp.col",    "csr.omp.static",
                                          "csr.omp.dynamic", "csr.omp.guided", NULL};
static const char *const auto_unlike[] = {"csr.omp.nnz", "csr.omp.static", "csr.omp.dynamic",
                                          "csr.omp.guided", NULL};

typedef struct {
    const spb_kernel *kernel; /* the row chosen */
    void *state;              /* its prepared state */
} auto_state;

/* The rule: the candidates (NULL-terminated), and why. llc: the last-level
 * cache's bytes (0: unknown); x_bytes in the run's precision. */
static const char *const *auto_choose(const spb_csr_shape *f, double x_bytes, double llc,
                                      spb_precision precision, char *why)
{
    double value = (double)spb_precision_bytes(precision);
    if (llc > 0 && x_bytes > llc / 2 && value * f->span > llc / 2 && f->cv < SPB_SHAPE_SKEWED_CV) {
        snprintf(why, AUTO_WHY_LEN,
                 "x (%.1f MiB) exceeds half the last-level cache (%.0f MiB), gathered at random "
                 "(rows span %.0f columns), rows alike (cv %.2f): column panels",
                 x_bytes / 1048576.0, llc / 1048576.0, f->span, f->cv);
        return auto_panels;
    }
    if (f->pattern && f->stats.row_mean <= AUTO_SHORT_MEAN && f->stats.row_max <= AUTO_SHORT_MAX) {
        snprintf(why, AUTO_WHY_LEN,
                 "a pattern matrix of short rows (mean %.1f, max %d, cv %.2f): HLL's hacks, "
                 "32 rows at a time, or CSR without values",
                 f->stats.row_mean, (int)f->stats.row_max, f->cv);
        return auto_short_pattern;
    }
    if (f->pattern) {
        snprintf(why, AUTO_WHY_LEN, "a pattern matrix (cv %.2f, HLL pads %.0f%%): no values read",
                 f->cv, 100.0 * (f->padding - 1.0));
        return f->padding <= SPB_SHAPE_HLL_PADDING ? auto_pattern_alike : auto_pattern;
    }
    if (f->padding <= SPB_SHAPE_HLL_PADDING) {
        snprintf(why, AUTO_WHY_LEN, "rows alike (HLL pads %.0f%%): HLL's hacks or CSR's rows",
                 100.0 * (f->padding - 1.0));
        return auto_alike;
    }
    if (f->padding <= AUTO_HLL_MAX_PADDING) {
        snprintf(why, AUTO_WHY_LEN,
                 "rows unlike (cv %.2f, HLL would pad %.0f%%): CSR's schedules or HLL's hacks",
                 f->cv, 100.0 * (f->padding - 1.0));
        return auto_padded;
    }
    snprintf(why, AUTO_WHY_LEN,
             "rows unlike (cv %.2f, HLL would pad %.0f%%): CSR, its thread schedules", f->cv,
             100.0 * (f->padding - 1.0));
    return auto_unlike;
}

static const spb_kernel *cpu_spmv_row(int index) { return &cpu_spmv_kernels[index].kernel; }

void cpu_auto_release(void *state)
{
    auto_state *s = state;
    if (!s) return;
    s->kernel->release(s->state);
    spb_free(s);
}

/* The trial's input and output, in the run's precision (x nonzero). */
typedef struct {
    void *x, *y;
} auto_trial_buffers;

static double auto_time_calls(const spb_kernel *kernel, void *state, void *ctx, int calls)
{
    const auto_trial_buffers *b = ctx;
    char msg[SPB_MSG_LEN];
    double t0 = omp_get_wtime();
    for (int c = 0; c < calls; c++)
        if (spmv_kernel_of(kernel)->spmv(state, b->x, b->y, msg) != SPB_OK) return -1;
    return omp_get_wtime() - t0;
}

static spb_status auto_trial_buffers_make(const spb_csr *A, spb_precision precision,
                                          auto_trial_buffers *b)
{
    size_t bytes = spb_precision_bytes(precision);
    b->x = spb_malloc((size_t)A->n, bytes);
    b->y = spb_malloc((size_t)A->m, bytes);
    if (!b->x || !b->y) return SPB_ERR_NOMEM;
    for (spb_index j = 0; j < A->n; j++) {
        double v = 1.0 + (double)(j % 7) / 8.0;
        if (precision == SPB_FP32)
            ((float *)b->x)[j] = (float)v;
        else
            ((double *)b->x)[j] = v;
    }
    return SPB_OK;
}

/* Prepare: the rule's candidates, timed; the fastest kept. */
spb_status cpu_auto_prepare(const spb_kernel *self, spb_format_set *F,
                            const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    spb_csr_shape shape;
    csr_shape(F->csr, config->hack_size, &shape);
    double x_bytes = (double)spb_precision_bytes(config->precision) * F->csr->n;
    char why[AUTO_WHY_LEN];
    const char *const *names =
        auto_choose(&shape, x_bytes, config->cache_bytes, config->precision, why);
    spb_trial_names list = {.count = 0};
    for (int i = 0; names[i]; i++) kernel_trial_name(&list, names[i]);
    spb_trial trial = {.count = 0, .interleave = 1}; /* the states share the format set */
    spb_status st =
        kernel_trial_candidates(&trial, &list, cpu_spmv_row, cpu_spmv_kernel_count, msg);
    if (st != SPB_OK) return st;
    auto_state *s = spb_calloc(1, sizeof *s);
    auto_trial_buffers buffers = {0};
    st = s ? auto_trial_buffers_make(F->csr, config->precision, &buffers) : SPB_ERR_NOMEM;
    if (st == SPB_OK)
        st = kernel_trial(&trial, F->csr, F, config, auto_time_calls, &buffers, plan, msg);
    else
        spb_fail(msg, st, "out of memory");
    spb_free(buffers.x);
    spb_free(buffers.y);
    if (st != SPB_OK) {
        spb_free(s);
        return st;
    }
    s->kernel = trial.candidates[trial.chosen];
    s->state = plan->state;
    plan->state = s;
    kernel_trial_message(&trial, why, msg);
    return SPB_OK;
}

spb_status cpu_auto_run(const void *state, const void *x, void *y, char *msg)
{
    const auto_state *s = state;
    return spmv_kernel_of(s->kernel)->spmv(s->state, x, y, msg);
}
