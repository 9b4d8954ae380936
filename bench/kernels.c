/* kernels.c — the kernel table and the adapters between it and the kernels
 * of cpu/ and gpu/. */
#include "kernels.h"

#include <fnmatch.h>
#include <string.h>

#include "../cpu/baselines.h"
#include "../cpu/spmv_cpu.h"
#include "../gpu/gpu.h"

/* ---- CSR: no conversion, the state is the matrix itself -------------------- */

static spb_status csr_prepare(const spb_csr *A, const spb_kernel_config *config,
                              spb_kernel_plan *plan, char *msg)
{
    (void)config;
    (void)msg;
    plan->state = (void *)A;
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A);
    return SPB_OK;
}

static void csr_release(void *state) { (void)state; }

static void csr_serial_run(const void *state, const spb_value *x, spb_value *y)
{
    csr_serial_spmv(state, x, y);
}

/* ---- HLL: converted from CSR in prepare ------------------------------------ */

static spb_status hll_prepare(const spb_csr *A, const spb_kernel_config *config,
                              spb_hll_layout layout, spb_kernel_plan *plan, char *msg)
{
    spb_hll *H = spb_malloc(1, sizeof *H);
    if (!H) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    spb_status st = hll_from_csr(A, config->hack_size, layout, H, msg);
    if (st != SPB_OK) {
        spb_free(H);
        return st;
    }
    plan->state = H;
    plan->stored_entries = hll_stored(H);
    plan->bytes = hll_spmv_bytes(H);
    return SPB_OK;
}

static spb_status hll_row_prepare(const spb_csr *A, const spb_kernel_config *config,
                                  spb_kernel_plan *plan, char *msg)
{
    return hll_prepare(A, config, HLL_ROW_MAJOR, plan, msg);
}

static spb_status hll_col_prepare(const spb_csr *A, const spb_kernel_config *config,
                                  spb_kernel_plan *plan, char *msg)
{
    return hll_prepare(A, config, HLL_COL_MAJOR, plan, msg);
}

static void hll_release(void *state)
{
    hll_free(state);
    spb_free(state);
}

static void hll_serial_run(const void *state, const spb_value *x, spb_value *y)
{
    hll_serial_spmv(state, x, y);
}

/* ---- OpenMP: first-touch copies made in prepare ------------------------------ */

typedef struct {
    spb_csr A;              /* first-touch copy */
    spb_row_partition part; /* csr.omp.nnz only */
    int threads;
} csr_omp_state;

static void csr_omp_release(void *state)
{
    csr_omp_state *s = state;
    if (!s) return;
    csr_free(&s->A);
    partition_free(&s->part);
    spb_free(s);
}

static spb_status csr_omp_prepare(const spb_csr *A, const spb_kernel_config *config,
                                  int balance_nnz, spb_kernel_plan *plan, char *msg)
{
    csr_omp_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->threads = config->threads;
    spb_status st = SPB_OK;
    if (balance_nnz) st = partition_rows_by_nnz(A, config->threads, &s->part, msg);
    if (st == SPB_OK)
        st = csr_first_touch_copy(A, balance_nnz ? &s->part : NULL, config->threads, &s->A, msg);
    if (st != SPB_OK) {
        csr_omp_release(s);
        return st;
    }
    plan->state = s;
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A);
    return SPB_OK;
}

static spb_status csr_omp_nnz_prepare(const spb_csr *A, const spb_kernel_config *config,
                                      spb_kernel_plan *plan, char *msg)
{
    return csr_omp_prepare(A, config, 1, plan, msg);
}

static spb_status csr_omp_rows_prepare(const spb_csr *A, const spb_kernel_config *config,
                                       spb_kernel_plan *plan, char *msg)
{
    return csr_omp_prepare(A, config, 0, plan, msg);
}

static void csr_omp_nnz_run(const void *state, const spb_value *x, spb_value *y)
{
    const csr_omp_state *s = state;
    csr_omp_nnz_spmv(&s->A, &s->part, x, y);
}

static void csr_omp_guided_run(const void *state, const spb_value *x, spb_value *y)
{
    const csr_omp_state *s = state;
    csr_omp_guided_spmv(&s->A, s->threads, x, y);
}

static void csr_omp_static_run(const void *state, const spb_value *x, spb_value *y)
{
    const csr_omp_state *s = state;
    csr_omp_static_spmv(&s->A, s->threads, x, y);
}

typedef struct {
    spb_hll H; /* first-touch copy */
    int threads;
} hll_omp_state;

static void hll_omp_release(void *state)
{
    hll_omp_state *s = state;
    if (!s) return;
    hll_free(&s->H);
    spb_free(s);
}

static spb_status hll_omp_prepare(const spb_csr *A, const spb_kernel_config *config,
                                  spb_hll_layout layout, spb_kernel_plan *plan, char *msg)
{
    spb_hll converted;
    spb_status st = hll_from_csr(A, config->hack_size, layout, &converted, msg);
    if (st != SPB_OK) return st;
    hll_omp_state *s = spb_calloc(1, sizeof *s);
    if (!s)
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    else
        st = hll_first_touch_copy(&converted, config->threads, &s->H, msg);
    hll_free(&converted);
    if (st != SPB_OK) {
        spb_free(s);
        return st;
    }
    s->threads = config->threads;
    plan->state = s;
    plan->stored_entries = hll_stored(&s->H);
    plan->bytes = hll_spmv_bytes(&s->H);
    return SPB_OK;
}

static spb_status hll_omp_row_prepare(const spb_csr *A, const spb_kernel_config *config,
                                      spb_kernel_plan *plan, char *msg)
{
    return hll_omp_prepare(A, config, HLL_ROW_MAJOR, plan, msg);
}

static spb_status hll_omp_col_prepare(const spb_csr *A, const spb_kernel_config *config,
                                      spb_kernel_plan *plan, char *msg)
{
    return hll_omp_prepare(A, config, HLL_COL_MAJOR, plan, msg);
}

static void hll_omp_run(const void *state, const spb_value *x, spb_value *y)
{
    const hll_omp_state *s = state;
    hll_omp_spmv(&s->H, s->threads, x, y);
}

/* ---- CPU library baselines ----------------------------------------------------- */

static int rsb_supports(const spb_csr *A, char *why)
{
    (void)A;
    return rsb_baseline_available(why);
}

static spb_status rsb_prepare(const spb_csr *A, const spb_kernel_config *config,
                              spb_kernel_plan *plan, char *msg)
{
    spb_status st = rsb_baseline_prepare(A, config->threads, &plan->state, &plan->tune_ms, msg);
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A); /* the same useful traffic as CSR */
    return st;
}

static int graphblas_supports(const spb_csr *A, char *why)
{
    (void)A;
    return graphblas_baseline_available(why);
}

static spb_status graphblas_prepare(const spb_csr *A, const spb_kernel_config *config,
                                    spb_kernel_plan *plan, char *msg)
{
    spb_status st = graphblas_baseline_prepare(A, config->threads, &plan->state, msg);
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A);
    return st;
}

/* ---- CUDA kernels and cuSPARSE (gpu/) ------------------------------------------- */

static int cuda_supports(const spb_csr *A, char *why)
{
    (void)A;
    return gpu_available(why);
}

static spb_status cuda_prepare(spb_gpu_kernel which, const spb_csr *A,
                               const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    spb_status st = gpu_prepare(which, A, config->hack_size, config->block_size, &plan->state,
                                &plan->stored_entries, &plan->bytes, msg);
    if (st == SPB_OK) plan->block_size = gpu_block_size(plan->state);
    return st;
}

#define CUDA_PREPARE(fn, which)                                                                    \
    static spb_status fn(const spb_csr *A, const spb_kernel_config *config, spb_kernel_plan *plan, \
                         char *msg)                                                                \
    {                                                                                              \
        return cuda_prepare(which, A, config, plan, msg);                                          \
    }

CUDA_PREPARE(csr_cuda_thread_prepare, GPU_CSR_THREAD)
CUDA_PREPARE(csr_cuda_warp_prepare, GPU_CSR_WARP)
CUDA_PREPARE(csr_cuda_warp_shared_prepare, GPU_CSR_WARP_SHARED)
CUDA_PREPARE(csr_cuda_warp_shared2d_prepare, GPU_CSR_WARP_SHARED2D)
CUDA_PREPARE(csr_cuda_ldg_prepare, GPU_CSR_LDG)
CUDA_PREPARE(csr_cuda_texture_prepare, GPU_CSR_TEXTURE)
CUDA_PREPARE(csr_cuda_adaptive_prepare, GPU_CSR_ADAPTIVE)
CUDA_PREPARE(hll_cuda_row_prepare, GPU_HLL_ROW)
CUDA_PREPARE(hll_cuda_warp_prepare, GPU_HLL_WARP)
CUDA_PREPARE(hll_cuda_warp_shared_prepare, GPU_HLL_WARP_SHARED)
CUDA_PREPARE(hll_cuda_col_prepare, GPU_HLL_COL)
CUDA_PREPARE(cusparse_csr_prepare, GPU_CUSPARSE_CSR)
CUDA_PREPARE(cusparse_csr_alg2_prepare, GPU_CUSPARSE_CSR_ALG2)
CUDA_PREPARE(cusparse_sell_prepare, GPU_CUSPARSE_SELL)

#define CUDA_ENTRY(name, format, prepare, description)                                             \
    {                                                                                              \
        name, format, SPB_BACKEND_CUDA, description, cuda_supports, prepare, gpu_run, gpu_release, \
            gpu_time_calls, gpu_check                                                              \
    }

/* ---- the table -------------------------------------------------------------- */

const spb_kernel spb_kernels[] = {
    {"csr.serial", "csr", SPB_BACKEND_SERIAL, "CSR, one thread, row by row (the speedup baseline)",
     NULL, csr_prepare, csr_serial_run, csr_release, NULL, NULL},
    {"hll.serial.row", "hll.row", SPB_BACKEND_SERIAL,
     "HLL with row-major hacks, one thread, row by row", NULL, hll_row_prepare, hll_serial_run,
     hll_release, NULL, NULL},
    {"hll.serial.col", "hll.col", SPB_BACKEND_SERIAL,
     "HLL with column-major hacks, one thread, a hack column at a time", NULL, hll_col_prepare,
     hll_serial_run, hll_release, NULL, NULL},
    {"csr.omp.nnz", "csr", SPB_BACKEND_OPENMP,
     "CSR, one contiguous nnz-balanced row range per thread (partition made in prepare)", NULL,
     csr_omp_nnz_prepare, csr_omp_nnz_run, csr_omp_release, NULL, NULL},
    {"csr.omp.guided", "csr", SPB_BACKEND_OPENMP, "CSR, rows under schedule(guided)", NULL,
     csr_omp_rows_prepare, csr_omp_guided_run, csr_omp_release, NULL, NULL},
    {"csr.omp.static", "csr", SPB_BACKEND_OPENMP,
     "CSR, rows under schedule(static): the plain OpenMP baseline", NULL, csr_omp_rows_prepare,
     csr_omp_static_run, csr_omp_release, NULL, NULL},
    {"hll.omp.row", "hll.row", SPB_BACKEND_OPENMP, "HLL row-major hacks under schedule(guided)",
     NULL, hll_omp_row_prepare, hll_omp_run, hll_omp_release, NULL, NULL},
    {"hll.omp.col", "hll.col", SPB_BACKEND_OPENMP, "HLL column-major hacks under schedule(guided)",
     NULL, hll_omp_col_prepare, hll_omp_run, hll_omp_release, NULL, NULL},
    {"librsb", "rsb", SPB_BACKEND_OPENMP,
     "librsb rsb_spmv on recursive sparse blocks, autotuned by rsb_tune_spmm in prepare",
     rsb_supports, rsb_prepare, rsb_baseline_run, rsb_baseline_release, NULL, NULL},
    {"graphblas", "grb.row", SPB_BACKEND_OPENMP,
     "SuiteSparse:GraphBLAS GrB_mxv, plus-times, row-major; result copied out to y",
     graphblas_supports, graphblas_prepare, graphblas_baseline_run, graphblas_baseline_release,
     NULL, NULL},
    CUDA_ENTRY("csr.cuda.thread", "csr", csr_cuda_thread_prepare,
               "CSR on the GPU, one thread per row"),
    CUDA_ENTRY("csr.cuda.warp", "csr", csr_cuda_warp_prepare,
               "CSR on the GPU, one warp per row, __shfl_down_sync reduction"),
    CUDA_ENTRY("csr.cuda.warp_shared", "csr", csr_cuda_warp_shared_prepare,
               "CSR on the GPU, one warp per row, partial sums reduced in shared memory"),
    CUDA_ENTRY("csr.cuda.warp_shared2d", "csr", csr_cuda_warp_shared2d_prepare,
               "CSR on the GPU, 2-D blocks, a 2-D shared array of partials, then shuffles"),
    CUDA_ENTRY("csr.cuda.ldg", "csr", csr_cuda_ldg_prepare,
               "CSR on the GPU, one warp per row, read-only loads through __ldg"),
    CUDA_ENTRY("csr.cuda.texture", "csr", csr_cuda_texture_prepare,
               "CSR on the GPU, one warp per row, x read through a texture object"),
    CUDA_ENTRY("csr.cuda.adaptive", "csr", csr_cuda_adaptive_prepare,
               "CSR on the GPU, a power-of-two group of threads per short row (sized from the "
               "mean row length), a block per row longer than 512"),
    CUDA_ENTRY("hll.cuda.row", "hll.row", hll_cuda_row_prepare,
               "HLL row-major hacks on the GPU, one thread per row"),
    CUDA_ENTRY("hll.cuda.warp", "hll.row", hll_cuda_warp_prepare,
               "HLL row-major hacks on the GPU, one warp per row, shuffle reduction"),
    CUDA_ENTRY("hll.cuda.warp_shared", "hll.row", hll_cuda_warp_shared_prepare,
               "HLL row-major hacks on the GPU, one warp per row, shared-memory reduction"),
    CUDA_ENTRY("hll.cuda.col", "hll.col", hll_cuda_col_prepare,
               "HLL column-major hacks on the GPU, one thread per row (coalesced)"),
    CUDA_ENTRY("cusparse.csr", "csr", cusparse_csr_prepare,
               "cuSPARSE cusparseSpMV on CSR, CUSPARSE_SPMV_CSR_ALG1 (the reference to beat)"),
    CUDA_ENTRY("cusparse.csr.alg2", "csr", cusparse_csr_alg2_prepare,
               "cuSPARSE cusparseSpMV on CSR, CUSPARSE_SPMV_CSR_ALG2 (deterministic)"),
    CUDA_ENTRY("cusparse.sell", "sell", cusparse_sell_prepare,
               "cuSPARSE cusparseSpMV on sliced ELL (slice = hack size), SELL_ALG1"),
};

const int spb_kernel_count = (int)(sizeof spb_kernels / sizeof spb_kernels[0]);

const spb_kernel *kernel_find(const char *name)
{
    for (int k = 0; k < spb_kernel_count; k++)
        if (strcmp(spb_kernels[k].name, name) == 0) return &spb_kernels[k];
    return NULL;
}

const char *backend_name(spb_backend backend)
{
    switch (backend) {
    case SPB_BACKEND_SERIAL: return "serial";
    case SPB_BACKEND_OPENMP: return "openmp";
    case SPB_BACKEND_CUDA: return "cuda";
    }
    return "unknown";
}

int kernel_selected(const char *name, const char *patterns)
{
    if (!patterns || !*patterns) return 1;
    char pattern[256];
    while (*patterns) {
        size_t len = strcspn(patterns, ",");
        if (len > 0 && len < sizeof pattern) {
            memcpy(pattern, patterns, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, name, 0) == 0) return 1;
        }
        patterns += len + (patterns[len] == ',');
    }
    return 0;
}
