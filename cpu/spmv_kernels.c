/* spmv_kernels.c — the host kernels of the SpMV table: serial and OpenMP
 * kernels and the CPU library baselines, each an entry of data whose variant
 * (a layout, a partition rule) is read by a shared prepare; auto.omp's
 * choice is spmv_auto.c's. */

#include "baselines.h"
#include "spmv_cpu.h"

/* What a host row's variant says: the HLL rows their layout, the OpenMP
 * CSR rows whether each thread takes one nnz-balanced range of rows. */
typedef struct {
    spb_hll_layout layout;
    int balance_nnz;
} cpu_variant;

static const cpu_variant row_major = {.layout = HLL_ROW_MAJOR},
                         col_major = {.layout = HLL_COL_MAJOR};
static const cpu_variant nnz_balanced = {.balance_nnz = 1}, row_scheduled = {.balance_nnz = 0};

static const cpu_variant *variant_of(const spb_kernel *self) { return self->variant; }

static void no_release(void *state) { (void)state; }

/* A complex matrix's (re, im) pairs as the complex type they lay out. */
static const spb_c128 *complex128_values(const spb_value *val)
{
    return (const spb_c128 *)(const void *)val;
}
static const spb_c64 *complex64_values(const float *val)
{
    return (const spb_c64 *)(const void *)val;
}

/* ---- serial: the set's formats used in place ---------------------------------- */

typedef struct {
    const spb_csr *A;
    const float *val32; /* fp32: the set's rounded values (else NULL) */
} csr_serial_state;

static spb_status csr_prepare(const spb_kernel *self, spb_format_set *F,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    const float *val32 = NULL;
    if (spb_precision_single(config->precision)) {
        spb_status st = format_set_csr_values32(F, &val32, msg);
        if (st != SPB_OK) return st;
    }
    csr_serial_state *s = spb_malloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    *s = (csr_serial_state){F->csr, val32};
    plan->state = s;
    plan->stored_entries = F->csr->nnz;
    plan->bytes = csr_spmv_bytes(F->csr, config->precision);
    return SPB_OK;
}

static spb_status csr_serial_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_serial_state *s = state;
    if (s->A->complex_values && s->val32)
        csr_serial_spmv_c64(s->A, complex64_values(s->val32), x, y);
    else if (s->A->complex_values)
        csr_serial_spmv_c128(s->A, complex128_values(s->A->val), x, y);
    else if (s->val32)
        csr_serial_spmv32(s->A, s->val32, x, y);
    else
        csr_serial_spmv(s->A, x, y);
    return SPB_OK;
}

static void csr_serial_release(void *state) { spb_free(state); }

static spb_status hll_prepare(const spb_kernel *self, spb_format_set *F,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const spb_hll *H;
    spb_status st =
        format_set_hll(F, variant_of(self)->layout, config->hack_size, config->precision, &H, msg);
    if (st != SPB_OK) return st;
    plan->state = (void *)H;
    plan->stored_entries = hll_stored(H);
    plan->bytes = hll_spmv_bytes(H, config->precision);
    return SPB_OK;
}

static spb_status hll_serial_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const spb_hll *H = state;
    if (H->val32)
        hll_serial_spmv32(H, x, y);
    else
        hll_serial_spmv(H, x, y);
    return SPB_OK;
}

/* ---- OpenMP: first-touch copies made in prepare ------------------------------------ */

typedef struct {
    spb_csr A;              /* first-touch copy (no values for the pattern kernel or fp32) */
    spb_row_partition part; /* nnz-balanced rows only */
    int threads;
    double value; /* the pattern kernel: every stored value */
    float *val32; /* fp32: first-touch copy of the rounded values (else NULL) */
    int fp32;     /* the pattern kernel in fp32 (it has no values to copy) */
} csr_omp_state;

static void csr_omp_release(void *state)
{
    csr_omp_state *s = state;
    if (!s) return;
    csr_free(&s->A);
    partition_free(&s->part);
    spb_free(s->val32);
    spb_free(s);
}

/* The first-touch copy of A (its rows nnz-balanced or scheduled) as a plan. */
static spb_status csr_omp_plan(const spb_csr *A, int balance_nnz, const spb_kernel_config *config,
                               spb_kernel_plan *plan, char *msg)
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
    plan->bytes = csr_spmv_bytes(A, config->precision);
    return SPB_OK;
}

/* fp64: the copy carries A's values; fp32: the copy is the pattern, and the
 * rounded values are first-touched beside it by the same rows. */
static spb_status csr_omp_prepare(const spb_kernel *self, spb_format_set *F,
                                  const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    int balance_nnz = variant_of(self)->balance_nnz;
    if (!spb_precision_single(config->precision))
        return csr_omp_plan(F->csr, balance_nnz, config, plan, msg);
    const float *val32;
    spb_status st = format_set_csr_values32(F, &val32, msg);
    spb_csr structure = *F->csr;
    structure.val = NULL;
    if (st == SPB_OK) st = csr_omp_plan(&structure, balance_nnz, config, plan, msg);
    if (st != SPB_OK) return st;
    csr_omp_state *s = plan->state;
    s->val32 = csr_first_touch_values32(&s->A, val32, balance_nnz ? &s->part : NULL, s->threads);
    if (!s->val32) {
        csr_omp_release(s);
        plan->state = NULL;
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for fp32 values");
    }
    return SPB_OK;
}

static spb_status csr_omp_nnz_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_omp_state *s = state;
    if (s->A.complex_values && s->val32)
        csr_omp_nnz_spmv_c64(&s->A, complex64_values(s->val32), &s->part, x, y);
    else if (s->A.complex_values)
        csr_omp_nnz_spmv_c128(&s->A, complex128_values(s->A.val), &s->part, x, y);
    else if (s->val32)
        csr_omp_nnz_spmv32(&s->A, s->val32, &s->part, x, y);
    else
        csr_omp_nnz_spmv(&s->A, s->A.val, &s->part, x, y);
    return SPB_OK;
}

static spb_status csr_omp_guided_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_omp_state *s = state;
    if (s->A.complex_values && s->val32)
        csr_omp_guided_spmv_c64(&s->A, complex64_values(s->val32), s->threads, x, y);
    else if (s->A.complex_values)
        csr_omp_guided_spmv_c128(&s->A, complex128_values(s->A.val), s->threads, x, y);
    else if (s->val32)
        csr_omp_guided_spmv32(&s->A, s->val32, s->threads, x, y);
    else
        csr_omp_guided_spmv(&s->A, s->A.val, s->threads, x, y);
    return SPB_OK;
}

static spb_status csr_omp_static_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_omp_state *s = state;
    if (s->A.complex_values && s->val32)
        csr_omp_static_spmv_c64(&s->A, complex64_values(s->val32), s->threads, x, y);
    else if (s->A.complex_values)
        csr_omp_static_spmv_c128(&s->A, complex128_values(s->A.val), s->threads, x, y);
    else if (s->val32)
        csr_omp_static_spmv32(&s->A, s->val32, s->threads, x, y);
    else
        csr_omp_static_spmv(&s->A, s->A.val, s->threads, x, y);
    return SPB_OK;
}

static spb_status csr_omp_dynamic_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_omp_state *s = state;
    if (s->A.complex_values && s->val32)
        csr_omp_dynamic_spmv_c64(&s->A, complex64_values(s->val32), s->threads, x, y);
    else if (s->A.complex_values)
        csr_omp_dynamic_spmv_c128(&s->A, complex128_values(s->A.val), s->threads, x, y);
    else if (s->val32)
        csr_omp_dynamic_spmv32(&s->A, s->val32, s->threads, x, y);
    else
        csr_omp_dynamic_spmv(&s->A, s->A.val, s->threads, x, y);
    return SPB_OK;
}

typedef struct {
    spb_hll H; /* first-touch copy (the pattern kernel's: no values) */
    int threads;
    spb_index *row_len; /* the pattern kernel: each row's entries before its padding */
    double value;       /* the pattern kernel: every stored value */
    int fp32;           /* the pattern kernel in fp32 (it has no values to tell it) */
} hll_omp_state;

static void hll_omp_release(void *state)
{
    hll_omp_state *s = state;
    if (!s) return;
    hll_free(&s->H);
    spb_free(s->row_len);
    spb_free(s);
}

static spb_status hll_omp_prepare(const spb_kernel *self, spb_format_set *F,
                                  const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const spb_hll *H;
    spb_status st =
        format_set_hll(F, variant_of(self)->layout, config->hack_size, config->precision, &H, msg);
    if (st != SPB_OK) return st;
    hll_omp_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    st = hll_first_touch_copy(H, config->threads, &s->H, msg);
    if (st != SPB_OK) {
        spb_free(s);
        return st;
    }
    s->threads = config->threads;
    plan->state = s;
    plan->stored_entries = hll_stored(&s->H);
    plan->bytes = hll_spmv_bytes(&s->H, config->precision);
    return SPB_OK;
}

/* The pattern kernels' common value (SPB_ERR_DECLINED unless every
 * stored value is the same), checked to fit fp32 for an fp32 run. */
static spb_status pattern_value(spb_format_set *F, spb_precision precision, spb_value *value,
                                char *msg)
{
    const float *val32;
    spb_status st = csr_pattern_value(F->csr, value, msg);
    if (st == SPB_OK && precision == SPB_FP32) st = format_set_csr_values32(F, &val32, msg);
    return st;
}

/* A pattern (iso) matrix only: column-major hacks without values, and the
 * row lengths that bound each row's sum (first touched hack by hack). */
static spb_status hll_pattern_prepare(const spb_kernel *self, spb_format_set *F,
                                      const spb_kernel_config *config, spb_kernel_plan *plan,
                                      char *msg)
{
    (void)self;
    const spb_csr *A = F->csr;
    const spb_hll *H;
    spb_value value;
    spb_status st = pattern_value(F, config->precision, &value, msg);
    if (st == SPB_OK)
        st = format_set_hll(F, HLL_COL_MAJOR, config->hack_size, config->precision, &H, msg);
    if (st != SPB_OK) return st;
    hll_omp_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    spb_hll structure = *H; /* no values copied: never read, the traffic saved is the point */
    structure.val = NULL;
    structure.val32 = NULL;
    st = hll_first_touch_copy(&structure, config->threads, &s->H, msg);
    if (st == SPB_OK && !(s->row_len = spb_malloc((size_t)A->m + 1, sizeof *s->row_len)))
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the row lengths");
    if (st != SPB_OK) {
        hll_omp_release(s);
        return st;
    }
#pragma omp parallel for num_threads(config->threads) schedule(static)
    for (spb_index h = 0; h < H->nhacks; h++)
        for (spb_index i = h * H->hack_size; i < h * H->hack_size + hll_hack_rows(H, h); i++)
            s->row_len[i] = A->row_ptr[i + 1] - A->row_ptr[i];
    s->threads = config->threads;
    s->value = value;
    s->fp32 = config->precision == SPB_FP32;
    plan->state = s;
    plan->stored_entries = hll_stored(&s->H);
    plan->bytes = hll_pattern_spmv_bytes(&s->H, config->precision) +
                  (double)sizeof(spb_index) * A->m; /* the row lengths */
    return SPB_OK;
}

static spb_status hll_pattern_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const hll_omp_state *s = state;
    if (s->fp32)
        hll_omp_pattern_spmv32(&s->H, s->row_len, s->threads, (float)s->value, x, y);
    else
        hll_omp_pattern_spmv(&s->H, s->row_len, s->threads, s->value, x, y);
    return SPB_OK;
}

static spb_status hll_omp_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const hll_omp_state *s = state;
    if (s->H.val32)
        hll_omp_spmv32(&s->H, s->threads, x, y);
    else
        hll_omp_spmv(&s->H, s->threads, x, y);
    return SPB_OK;
}

/* A pattern (iso) matrix only: the copy keeps row_ptr and col_idx. */
static spb_status csr_pattern_prepare(const spb_kernel *self, spb_format_set *F,
                                      const spb_kernel_config *config, spb_kernel_plan *plan,
                                      char *msg)
{
    spb_value value;
    spb_csr structure = *F->csr; /* no values copied: never read, the traffic saved is the point */
    structure.val = NULL;
    spb_status st = pattern_value(F, config->precision, &value, msg);
    if (st == SPB_OK)
        st = csr_omp_plan(&structure, variant_of(self)->balance_nnz, config, plan, msg);
    if (st != SPB_OK) return st;
    csr_omp_state *s = plan->state;
    s->value = value;
    s->fp32 = config->precision == SPB_FP32;
    plan->bytes = csr_pattern_spmv_bytes(F->csr, config->precision);
    return SPB_OK;
}

static spb_status csr_pattern_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const csr_omp_state *s = state;
    if (s->fp32)
        csr_omp_pattern_spmv32(&s->A, &s->part, (float)s->value, x, y);
    else
        csr_omp_pattern_spmv(&s->A, &s->part, s->value, x, y);
    return SPB_OK;
}

/* Column blocking: panels as wide as half the last-level cache holds of x;
 * declined when x fits there already (blocking would only add traffic). */
typedef struct {
    spb_col_panels P;
} colblock_state;

static void colblock_release(void *state)
{
    colblock_state *s = state;
    if (!s) return;
    col_panels_free(&s->P);
    spb_free(s);
}

static spb_status colblock_prepare(const spb_kernel *self, spb_format_set *F,
                                   const spb_kernel_config *config, spb_kernel_plan *plan,
                                   char *msg)
{
    (void)self;
    const spb_csr *A = F->csr;
    double value_bytes = (double)spb_precision_bytes(config->precision);
    double width = config->cache_bytes / 2 / value_bytes;
    if (!(width >= 1))
        return spb_fail(msg, SPB_ERR_DECLINED, "the size of the last-level cache is unknown");
    if (A->n <= width)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "x (%.1f MiB) fits in half the last-level cache: nothing to block",
                        A->n * value_bytes / 1048576.0);
    const float *val32 = NULL;
    spb_status st = SPB_OK;
    if (spb_precision_single(config->precision)) st = format_set_csr_values32(F, &val32, msg);
    if (st != SPB_OK) return st;
    colblock_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    st = csr_col_panels(A, val32, (spb_index)width, config->threads, &s->P, msg);
    if (st != SPB_OK) {
        spb_free(s);
        return st;
    }
    plan->state = s;
    plan->stored_entries = A->nnz;
    plan->bytes = col_panels_spmv_bytes(&s->P, config->precision);
    return SPB_OK;
}

static spb_status colblock_run(const void *state, const void *x, void *y, char *msg)
{
    (void)msg;
    const colblock_state *s = state;
    if (s->P.val32)
        csr_omp_colblock_spmv32(&s->P, x, y);
    else
        csr_omp_colblock_spmv(&s->P, x, y);
    return SPB_OK;
}

/* ---- CPU library baselines ----------------------------------------------------- */

static int rsb_supports(const spb_kernel *self, const spb_csr *A, char *why)
{
    (void)self;
    (void)A;
    return rsb_baseline_available(why);
}

static spb_status rsb_prepare(const spb_kernel *self, spb_format_set *F,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    (void)self;
    const float *val32 = NULL;
    spb_status st = SPB_OK;
    if (spb_precision_single(config->precision)) st = format_set_csr_values32(F, &val32, msg);
    if (st == SPB_OK)
        st =
            rsb_baseline_prepare(F->csr, val32, config->threads, &plan->state, &plan->tune_ms, msg);
    plan->stored_entries = F->csr->nnz;
    plan->bytes = csr_spmv_bytes(F->csr, config->precision); /* the same useful traffic as CSR */
    return st;
}

int graphblas_row_supports(const spb_kernel *self, const spb_csr *A, char *why)
{
    (void)self;
    (void)A;
    return graphblas_baseline_available(why);
}

static spb_status graphblas_prepare(const spb_kernel *self, spb_format_set *F,
                                    const spb_kernel_config *config, spb_kernel_plan *plan,
                                    char *msg)
{
    (void)self;
    const float *val32 = NULL;
    spb_status st = SPB_OK;
    if (spb_precision_single(config->precision)) st = format_set_csr_values32(F, &val32, msg);
    if (st == SPB_OK)
        st = graphblas_baseline_prepare(F->csr, val32, config->threads, &plan->state, msg);
    plan->stored_entries = F->csr->nnz;
    plan->bytes = csr_spmv_bytes(F->csr, config->precision);
    return st;
}

/* ---- the kernels of the host table ------------------------------------------------- */

const spb_spmv_kernel cpu_spmv_kernels[] = {
    {.kernel = {.name = "csr.serial",
                .format = "csr",
                .backend = SPB_BACKEND_SERIAL,
                .description = "CSR, one thread, row by row (the speedup baseline)",
                .prepare = csr_prepare,
                .release = csr_serial_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1},
     .spmv = csr_serial_run},
    {.kernel = {.name = "hll.serial.row",
                .format = "hll.row",
                .backend = SPB_BACKEND_SERIAL,
                .description = "HLL with row-major hacks, one thread, row by row",
                .variant = &row_major,
                .prepare = hll_prepare,
                .release = no_release,
                .fp32 = 1},
     .spmv = hll_serial_run},
    {.kernel = {.name = "hll.serial.col",
                .format = "hll.col",
                .backend = SPB_BACKEND_SERIAL,
                .description = "HLL with column-major hacks, one thread, a hack column at a time",
                .variant = &col_major,
                .prepare = hll_prepare,
                .release = no_release,
                .fp32 = 1},
     .spmv = hll_serial_run},
    {.kernel =
         {.name = "csr.omp.nnz",
          .format = "csr",
          .backend = SPB_BACKEND_OPENMP,
          .description =
              "CSR, one contiguous nnz-balanced row range per thread (partition made in prepare)",
          .variant = &nnz_balanced,
          .prepare = csr_omp_prepare,
          .release = csr_omp_release,
          .fp32 = 1,
          .complex_values = 1,
          .wide_offsets = 1},
     .spmv = csr_omp_nnz_run},
    {.kernel = {.name = "csr.omp.guided",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description = "CSR, rows under schedule(guided)",
                .variant = &row_scheduled,
                .prepare = csr_omp_prepare,
                .release = csr_omp_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1},
     .spmv = csr_omp_guided_run},
    {.kernel = {.name = "csr.omp.static",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description = "CSR, rows under schedule(static): the plain OpenMP baseline",
                .variant = &row_scheduled,
                .prepare = csr_omp_prepare,
                .release = csr_omp_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1},
     .spmv = csr_omp_static_run},
    {.kernel = {.name = "csr.omp.dynamic",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description = "CSR, rows under schedule(dynamic) in chunks of " SPB_TEXT(
                    SPB_DYNAMIC_CHUNK) " rows",
                .variant = &row_scheduled,
                .prepare = csr_omp_prepare,
                .release = csr_omp_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1},
     .spmv = csr_omp_dynamic_run},
    {.kernel = {.name = "csr.omp.pattern",
                .format = "csr.pattern",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "CSR of a pattern matrix (all values equal): nnz-balanced rows, no values "
                    "read (declines other matrices)",
                .variant = &nnz_balanced,
                .prepare = csr_pattern_prepare,
                .release = csr_omp_release,
                .fp32 = 1},
     .spmv = csr_pattern_run},
    {.kernel = {.name = "csr.omp.colblock",
                .format = "csr.panels",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "CSR in column panels of half the last-level cache's worth of x, nnz-balanced "
                    "rows, panel after panel (declines when x fits in the cache)",
                .prepare = colblock_prepare,
                .release = colblock_release,
                .fp32 = 1},
     .spmv = colblock_run},
    {.kernel = {.name = "hll.omp.row",
                .format = "hll.row",
                .backend = SPB_BACKEND_OPENMP,
                .description = "HLL row-major hacks under schedule(guided)",
                .variant = &row_major,
                .prepare = hll_omp_prepare,
                .release = hll_omp_release,
                .fp32 = 1},
     .spmv = hll_omp_run},
    {.kernel = {.name = "hll.omp.col",
                .format = "hll.col",
                .backend = SPB_BACKEND_OPENMP,
                .description = "HLL column-major hacks under schedule(guided)",
                .variant = &col_major,
                .prepare = hll_omp_prepare,
                .release = hll_omp_release,
                .fp32 = 1},
     .spmv = hll_omp_run},
    {.kernel = {.name = "hll.omp.col.pattern",
                .format = "hll.col.pattern",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "hll.omp.col for a pattern matrix (all values equal): no values read, each "
                    "row summed over its own length, padding not read (declines other matrices)",
                .prepare = hll_pattern_prepare,
                .release = hll_omp_release,
                .fp32 = 1},
     .spmv = hll_pattern_run},
    {.kernel = {.name = "auto.omp",
                .format = "csr",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "the OpenMP kernel for this matrix, chosen in prepare from its statistics "
                    "(rule in docs/auto-kernels.md); the message says which and why",
                .prepare = cpu_auto_prepare,
                .release = cpu_auto_release,
                .fp32 = 1,
                .trials = 1},
     .spmv = cpu_auto_run},
    {.kernel = {.name = "librsb",
                .format = "rsb",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "librsb rsb_spmv on recursive sparse blocks, autotuned by rsb_tune_spmm in "
                    "prepare",
                .supports = rsb_supports,
                .prepare = rsb_prepare,
                .release = rsb_baseline_release,
                .fp32 = 1,
                .complex_values = 1,
                .timed_alone = 1, /* librsb is started again per thread count */
                .library = 1},
     .spmv = rsb_baseline_run},
    {.kernel = {.name = "graphblas",
                .format = "grb.row",
                .backend = SPB_BACKEND_OPENMP,
                .description =
                    "SuiteSparse:GraphBLAS GrB_mxv, plus-times, row-major; result copied out to y",
                .supports = graphblas_row_supports,
                .prepare = graphblas_prepare,
                .release = graphblas_baseline_release,
                .fp32 = 1,
                .complex_values = 1,
                .wide_offsets = 1, /* GraphBLAS indexes in 64 bits */
                .library = 1},
     .spmv = graphblas_baseline_run},
};

const int cpu_spmv_kernel_count = (int)(sizeof cpu_spmv_kernels / sizeof cpu_spmv_kernels[0]);
