/* rsb_baseline.c — librsb as a baseline (see baselines.h). */
#include <omp.h>
#include <rsb.h>
#include <string.h>
#include <time.h>

#include "baselines.h"

typedef struct {
    struct rsb_mtx_t *mtx;
    rsb_int_t threads;
    spb_index m, n;
    int fp32; /* a float matrix: alpha, beta, x and y in float */
} rsb_state;

/* librsb runs every product on a team of the size OpenMP gave when it was
 * started, whatever RSB_IO_WANT_EXECUTING_THREADS says: at fewer threads
 * the rest of the team waits at its barriers (on a busy machine, for a
 * whole time slice: 1-thread medians 1000x their minimum were seen). So
 * librsb is started again with each row's thread count, which its rows
 * being timed alone allows (no other librsb matrix lives meanwhile). */
static int rsb_ready, rsb_team, rsb_live;

static spb_status rsb_start(int threads, char *msg);

int rsb_baseline_available(char *why)
{
    (void)why;
    return 1;
}

static spb_status rsb_error(rsb_err_t err, const char *what, char *msg)
{
    char text[256] = "";
    rsb_strerror_r(err, text, sizeof text);
    return spb_fail(msg, SPB_ERR_INVALID, "librsb %s: %s", what, text);
}

/* librsb started with a team of `threads`: restarted when its team is
 * another size and none of its matrices lives. */
static spb_status rsb_start(int threads, char *msg)
{
    if (rsb_ready && rsb_team == threads) return SPB_OK;
    if (rsb_ready && rsb_live > 0)
        return spb_fail(msg, SPB_ERR_INVALID,
                        "librsb runs on %d threads while one of its matrices lives; a row at %d "
                        "threads would run on that team",
                        rsb_team, threads);
    if (rsb_ready) {
        rsb_err_t err = rsb_lib_exit(RSB_NULL_EXIT_OPTIONS);
        if (err != RSB_ERR_NO_ERROR) return rsb_error(err, "rsb_lib_exit", msg);
        rsb_ready = 0;
    }
    int before = omp_get_max_threads();
    omp_set_num_threads(threads); /* the team librsb takes at its start */
    rsb_err_t err = rsb_lib_init(RSB_NULL_INIT_OPTIONS);
    omp_set_num_threads(before);
    if (err != RSB_ERR_NO_ERROR) return rsb_error(err, "rsb_lib_init", msg);
    rsb_ready = 1;
    rsb_team = threads;
    return SPB_OK;
}

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

spb_status rsb_baseline_prepare(const spb_csr *A, const float *val32, int threads, void **state,
                                double *tune_ms, char *msg)
{
    *state = NULL;
    spb_status started = rsb_start(threads, msg);
    if (started != SPB_OK) return started;
    rsb_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->threads = threads;
    s->m = A->m;
    s->n = A->n;
    s->fp32 = val32 != NULL;
    rsb_err_t err = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &s->threads);
    if (err != RSB_ERR_NO_ERROR) {
        spb_free(s);
        return rsb_error(err, "setting the thread count", msg);
    }
    s->mtx = rsb_mtx_alloc_from_csr_const(
        s->fp32 ? (const void *)val32 : (const void *)A->val, A->row_ptr, A->col_idx, A->nnz,
        s->fp32 ? RSB_NUMERICAL_TYPE_FLOAT : RSB_NUMERICAL_TYPE_DOUBLE, A->m, A->n, 1, 1,
        RSB_FLAG_NOFLAGS, &err);
    if (!s->mtx || err != RSB_ERR_NO_ERROR) {
        spb_free(s);
        return rsb_error(err, "building the matrix", msg);
    }
    rsb_live++; /* until its release */
    /* Autotuning of the block structure for this thread count; the tuner
     * may replace the matrix (freeing the old one). */
    const double alpha = 1.0, beta = 0.0; /* read as the matrix's type */
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const void *one = s->fp32 ? (const void *)&alpha32 : (const void *)&alpha;
    const void *zero = s->fp32 ? (const void *)&beta32 : (const void *)&beta;
    double start = seconds_now();
    /* librsb refuses to tune a matrix without rows or columns: nothing to tune. */
    if (A->m > 0 && A->n > 0)
        err = rsb_tune_spmm(&s->mtx, NULL, NULL, 0, 0.0, RSB_TRANSPOSITION_N, one, NULL, 1,
                            RSB_FLAG_WANT_COLUMN_MAJOR_ORDER, NULL, 0, zero, NULL, 0);
    *tune_ms = (seconds_now() - start) * 1e3;
    if (err != RSB_ERR_NO_ERROR) {
        rsb_baseline_release(s);
        return rsb_error(err, "rsb_tune_spmm", msg);
    }
    *state = s;
    return SPB_OK;
}

spb_status rsb_baseline_run(const void *state, const void *x, void *y, char *msg)
{
    const rsb_state *s = state;
    const double alpha = 1.0, beta = 0.0; /* read as the matrix's type */
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const void *one = s->fp32 ? (const void *)&alpha32 : (const void *)&alpha;
    const void *zero = s->fp32 ? (const void *)&beta32 : (const void *)&beta;
    if (s->n == 0) { /* no columns: librsb leaves y untouched, the product is zero */
        memset(y, 0, (s->fp32 ? sizeof(float) : sizeof(double)) * (size_t)s->m);
        return SPB_OK;
    }
    /* librsb keeps the thread count globally; set it for this matrix. */
    rsb_err_t err = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &s->threads);
    if (err != RSB_ERR_NO_ERROR) return rsb_error(err, "setting the thread count", msg);
    err = rsb_spmv(RSB_TRANSPOSITION_N, one, s->mtx, x, 1, zero, y, 1);
    if (err != RSB_ERR_NO_ERROR) return rsb_error(err, "rsb_spmv", msg);
    return SPB_OK;
}

void rsb_baseline_release(void *state)
{
    rsb_state *s = state;
    if (!s) return;
    if (s->mtx) rsb_mtx_free(s->mtx);
    if (s->mtx) rsb_live--;
    spb_free(s);
}
