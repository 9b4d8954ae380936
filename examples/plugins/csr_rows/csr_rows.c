/* csr_rows.c — a plug-in for spbench: the CSR product one row at a time,
 * serial and with OpenMP, in fp64 and fp32. A starting point for your own
 * kernel: change the loops in rows_range(), keep the rest.
 *
 * Build against an installed spbench (see CMakeLists.txt here, or
 *   cc -O3 -fPIC -shared -fopenmp -I PREFIX/include csr_rows.c -o csr_rows.so)
 * and measure it beside spbench's rows:
 *   spbench run --plugin ./csr_rows.so --kernels 'mine.*,csr.serial' matrices/ */
#include <omp.h>
#include <stdlib.h>

#include <spbench/plugin.h>

/* What prepare keeps: the matrix spbench handed over (its arrays stay
 * valid until release), the precision and the threads. */
typedef struct {
    spb_plugin_csr A;
    int fp32, threads;
} rows_state;

static int rows_prepare(const spb_plugin_csr *A, const spb_plugin_config *config, void **state,
                        char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    rows_state *s = malloc(sizeof *s);
    if (!s) return SPB_PLUGIN_FAILED;
    s->A = *A;
    s->fp32 = config->precision == SPB_PLUGIN_FP32;
    s->threads = config->threads;
    *state = s;
    return SPB_PLUGIN_OK;
}

/* y's rows [first, last) in the state's precision. */
static void rows_range(const rows_state *s, const void *x, void *y, int32_t first, int32_t last)
{
    const int32_t *row_ptr = s->A.row_ptr, *col = s->A.col_idx;
    if (s->fp32) {
        const float *val = s->A.values, *xf = x;
        float *yf = y;
        for (int32_t i = first; i < last; i++) {
            float sum = 0;
            for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) sum += val[k] * xf[col[k]];
            yf[i] = sum;
        }
    } else {
        const double *val = s->A.values, *xd = x;
        double *yd = y;
        for (int32_t i = first; i < last; i++) {
            double sum = 0;
            for (int32_t k = row_ptr[i]; k < row_ptr[i + 1]; k++) sum += val[k] * xd[col[k]];
            yd[i] = sum;
        }
    }
}

/* One thread: no OpenMP region (entering one costs microseconds, more
 * than a small product). */
static int rows_spmv_serial(void *state, const void *x, void *y, char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    const rows_state *s = state;
    rows_range(s, x, y, 0, s->A.rows);
    return SPB_PLUGIN_OK;
}

/* The rows split in equal static blocks over config->threads threads. */
static int rows_spmv_omp(void *state, const void *x, void *y, char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    const rows_state *s = state;
#pragma omp parallel num_threads(s->threads)
    {
        int64_t t = omp_get_thread_num(), threads = omp_get_num_threads();
        rows_range(s, x, y, (int32_t)(s->A.rows * t / threads),
                   (int32_t)(s->A.rows * (t + 1) / threads));
    }
    return SPB_PLUGIN_OK;
}

static void rows_release(void *state) { free(state); }

static const spb_plugin_kernel kernels[] = {
    {.name = "mine.csr.serial",
     .description = "CSR, one row at a time (a plug-in's example)",
     .operation = SPB_PLUGIN_SPMV,
     .backend = SPB_PLUGIN_SERIAL,
     .fp32 = 1,
     .prepare = rows_prepare,
     .spmv = rows_spmv_serial,
     .release = rows_release},
    {.name = "mine.csr.omp",
     .description = "CSR, rows split statically over the OpenMP threads (a plug-in's example)",
     .operation = SPB_PLUGIN_SPMV,
     .backend = SPB_PLUGIN_OPENMP,
     .fp32 = 1,
     .prepare = rows_prepare,
     .spmv = rows_spmv_omp,
     .release = rows_release},
};

const spb_plugin_library *spb_plugin_kernels(void)
{
    static const spb_plugin_library library = {
        .abi = SPB_PLUGIN_ABI, .count = sizeof kernels / sizeof kernels[0], .kernels = kernels};
    return &library;
}
