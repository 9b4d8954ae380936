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
    /* of the matrix, alpha, beta, x and y: fp32 floats, complex ones
     * librsb's float and double complex ((re, im) pairs) */
    spb_precision precision;
} rsb_state;

/* alpha = 1 and beta = 0 in each precision, in spb_precision order (read
 * as the matrix's type), and the precision's librsb type code. */
static const double one64[2] = {1.0, 0.0}, zero64[2] = {0.0, 0.0};
static const float one32[2] = {1.0f, 0.0f}, zero32[2] = {0.0f, 0.0f};
static const void *const ones[SPB_PRECISIONS] = {one64, one32, one64, one32};
static const void *const zeros[SPB_PRECISIONS] = {zero64, zero32, zero64, zero32};
static rsb_type_t type_of(spb_precision p)
{
    return p == SPB_FP32   ? RSB_NUMERICAL_TYPE_FLOAT
           : p == SPB_C128 ? RSB_NUMERICAL_TYPE_DOUBLE_COMPLEX
           : p == SPB_C64  ? RSB_NUMERICAL_TYPE_FLOAT_COMPLEX
                           : RSB_NUMERICAL_TYPE_DOUBLE;
}

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
    s->precision = spb_precision_in_field(val32 ? SPB_FP32 : SPB_FP64, A->complex_values);
    rsb_err_t err = rsb_lib_set_opt(RSB_IO_WANT_EXECUTING_THREADS, &s->threads);
    if (err != RSB_ERR_NO_ERROR) {
        spb_free(s);
        return rsb_error(err, "setting the thread count", msg);
    }
    s->mtx = rsb_mtx_alloc_from_csr_const(val32 ? (const void *)val32 : (const void *)A->val,
                                          A->row_ptr, A->col_idx, A->nnz, type_of(s->precision),
                                          A->m, A->n, 1, 1, RSB_FLAG_NOFLAGS, &err);
    if (!s->mtx || err != RSB_ERR_NO_ERROR) {
        spb_free(s);
        return rsb_error(err, "building the matrix", msg);
    }
    rsb_live++; /* until its release */
    /* Autotuning of the block structure for this thread count; the tuner
     * may replace the matrix (freeing the old one). */
    const void *one = ones[s->precision], *zero = zeros[s->precision];
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
    const void *one = ones[s->precision], *zero = zeros[s->precision];
    if (s->n == 0) { /* no columns: librsb leaves y untouched, the product is zero */
        memset(y, 0, spb_precision_bytes(s->precision) * (size_t)s->m);
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
