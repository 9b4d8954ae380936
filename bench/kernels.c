/* kernels.c — the kernel table and the adapters between it and the kernels
 * of cpu/ and gpu/. */
#include "kernels.h"

#include <fnmatch.h>
#include <string.h>

#include "../cpu/spmv_cpu.h"

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

/* ---- the table -------------------------------------------------------------- */

const spb_kernel spb_kernels[] = {
    {"csr.serial", "csr", SPB_BACKEND_SERIAL, "CSR, one thread, row by row (the speedup baseline)",
     NULL, csr_prepare, csr_serial_run, csr_release},
    {"hll.serial.row", "hll.row", SPB_BACKEND_SERIAL,
     "HLL with row-major hacks, one thread, row by row", NULL, hll_row_prepare, hll_serial_run,
     hll_release},
    {"hll.serial.col", "hll.col", SPB_BACKEND_SERIAL,
     "HLL with column-major hacks, one thread, a hack column at a time", NULL, hll_col_prepare,
     hll_serial_run, hll_release},
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
