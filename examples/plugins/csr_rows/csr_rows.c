/* csr_rows.c — a plug-in for spbench: the CSR product one row at a time,
 * serial and with OpenMP, and C = A*B one row at a time, in fp64 and fp32.
 * A starting point for your own kernel: change the loops in rows_range()
 * or product_spgemm(), keep the rest.
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

/* C = A*B one row of C at a time (Gustavson): the columns a row reaches
 * are counted first, so that C is allocated once at its size; then each
 * row's sums are gathered in a dense accumulator and its columns sorted. */
typedef struct {
    spb_plugin_csr A, B;
    int fp32;
    int32_t *last_row;          /* B's columns: the last row of C that reached each */
    double *sum;                /* B's columns: the row's sums */
    int32_t *row_ptr, *col_idx; /* C, kept until the next product */
    void *values;
} product_state;

static void product_release(void *state)
{
    product_state *s = state;
    if (!s) return;
    free(s->last_row), free(s->sum), free(s->row_ptr), free(s->col_idx), free(s->values);
    free(s);
}

static int product_prepare(const spb_plugin_csr *A, const spb_plugin_config *config, void **state,
                           char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    product_state *s = calloc(1, sizeof *s);
    if (!s) return SPB_PLUGIN_FAILED;
    s->A = *A, s->B = *config->B;
    s->fp32 = config->precision == SPB_PLUGIN_FP32;
    s->last_row = malloc(sizeof(int32_t) * ((size_t)s->B.cols + 1));
    s->sum = malloc(sizeof(double) * ((size_t)s->B.cols + 1));
    *state = s;
    if (!s->last_row || !s->sum) return SPB_PLUGIN_FAILED; /* release frees it */
    return SPB_PLUGIN_OK;
}

static int by_column(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* B's value k as a double, in the state's precision. */
static double value_at(const product_state *s, const void *values, int64_t k)
{
    return s->fp32 ? ((const float *)values)[k] : ((const double *)values)[k];
}

static int product_spgemm(void *state, spb_plugin_csr *C, char *msg, size_t msg_size)
{
    (void)msg, (void)msg_size;
    product_state *s = state;
    const spb_plugin_csr *A = &s->A, *B = &s->B;
    free(s->row_ptr), free(s->col_idx), free(s->values); /* the previous C */
    s->col_idx = NULL, s->values = NULL;
    s->row_ptr = malloc(sizeof(int32_t) * ((size_t)A->rows + 1));
    if (!s->row_ptr) return SPB_PLUGIN_FAILED;
    for (int32_t j = 0; j < B->cols; j++) s->last_row[j] = -1;
    s->row_ptr[0] = 0;
    for (int32_t i = 0; i < A->rows; i++) { /* C's columns in each row, counted */
        int32_t count = 0;
        for (int32_t ka = A->row_ptr[i]; ka < A->row_ptr[i + 1]; ka++) {
            int32_t r = A->col_idx[ka];
            for (int32_t kb = B->row_ptr[r]; kb < B->row_ptr[r + 1]; kb++)
                if (s->last_row[B->col_idx[kb]] != i) s->last_row[B->col_idx[kb]] = i, count++;
        }
        s->row_ptr[i + 1] = s->row_ptr[i] + count;
    }
    size_t nnz = (size_t)s->row_ptr[A->rows];
    s->col_idx = malloc(sizeof(int32_t) * nnz + 1);
    s->values = malloc((s->fp32 ? sizeof(float) : sizeof(double)) * nnz + 1);
    if (!s->col_idx || !s->values) return SPB_PLUGIN_FAILED;
    for (int32_t j = 0; j < B->cols; j++) s->last_row[j] = -1;
    for (int32_t i = 0; i < A->rows; i++) { /* then summed, and sorted */
        int32_t *cols = s->col_idx + s->row_ptr[i], count = 0;
        for (int32_t ka = A->row_ptr[i]; ka < A->row_ptr[i + 1]; ka++) {
            int32_t r = A->col_idx[ka];
            double a = value_at(s, A->values, ka);
            for (int32_t kb = B->row_ptr[r]; kb < B->row_ptr[r + 1]; kb++) {
                int32_t j = B->col_idx[kb];
                if (s->last_row[j] != i) s->last_row[j] = i, s->sum[j] = 0, cols[count++] = j;
                s->sum[j] += a * value_at(s, B->values, kb);
            }
        }
        qsort(cols, (size_t)count, sizeof *cols, by_column);
        for (int32_t k = 0; k < count; k++) {
            int64_t at = s->row_ptr[i] + k;
            if (s->fp32)
                ((float *)s->values)[at] = (float)s->sum[cols[k]];
            else
                ((double *)s->values)[at] = s->sum[cols[k]];
        }
    }
    *C = (spb_plugin_csr){.rows = A->rows,
                          .cols = B->cols,
                          .nnz = (int64_t)nnz,
                          .row_ptr = s->row_ptr,
                          .col_idx = s->col_idx,
                          .values = s->values};
    return SPB_PLUGIN_OK;
}

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
    {.name = "mine.spgemm.serial",
     .description = "C = A*B one row at a time, sums in a dense accumulator (a plug-in's example)",
     .operation = SPB_PLUGIN_SPGEMM,
     .backend = SPB_PLUGIN_SERIAL,
     .fp32 = 1,
     .prepare = product_prepare,
     .spgemm = product_spgemm,
     .release = product_release},
};

const spb_plugin_library *spb_plugin_kernels(void)
{
    static const spb_plugin_library library = {
        .abi = SPB_PLUGIN_ABI, .count = sizeof kernels / sizeof kernels[0], .kernels = kernels};
    return &library;
}
