/* kernels.h — the kernel table: every SpMV kernel is one entry, so adding a
 * kernel is one function plus one line, and tests and benchmarks loop over
 * the table. */
#ifndef SPB_KERNELS_H
#define SPB_KERNELS_H

#include "../formats/hll.h"

typedef enum { SPB_BACKEND_SERIAL, SPB_BACKEND_OPENMP, SPB_BACKEND_CUDA } spb_backend;

typedef struct {
    spb_index hack_size; /* HLL rows per hack */
    int threads;         /* CPU threads (OpenMP kernels) */
    int block_size;      /* GPU threads per block; 0 = the kernel's default */
} spb_kernel_config;

/* What prepare hands back: the kernel's private state and its byte model. */
typedef struct {
    void *state;
    int64_t stored_entries; /* entries the format stores, padding included */
    double bytes;           /* bytes one product moves (metrics) */
    double tune_ms;         /* autotuning inside prepare, when the kernel has one */
    int block_size;         /* GPU block size in use (0: not a GPU kernel) */
} spb_kernel_plan;

typedef struct {
    const char *name;   /* dotted, stable: the CSV key and chart label */
    const char *format; /* "csr", "hll.row", "hll.col" */
    spb_backend backend;
    const char *description; /* one line for --list */
    /* Whether the kernel can run here (A may be NULL: availability only);
     * fills why when not. NULL means always. */
    int (*supports)(const spb_csr *A, char *why);
    /* Converts or uploads; timed separately from run. */
    spb_status (*prepare)(const spb_csr *A, const spb_kernel_config *config, spb_kernel_plan *plan,
                          char *msg);
    /* y = A*x: the timed part. */
    void (*run)(const void *state, const spb_value *x, spb_value *y);
    void (*release)(void *state); /* accepts NULL */
    /* Device kernels only (NULL for host ones): run() is a whole product,
     * transfers included; time_calls() times `calls` back-to-back products
     * on device-resident data and returns seconds (negative on failure);
     * check() reports the first device error met. */
    double (*time_calls)(void *state, int calls);
    spb_status (*check)(const void *state, char *msg);
} spb_kernel;

extern const spb_kernel spb_kernels[];
extern const int spb_kernel_count;

const spb_kernel *kernel_find(const char *name);
const char *backend_name(spb_backend backend);

/* Whether name matches a comma-separated list of shell patterns
 * ("csr.*,hll.serial.row"); NULL or empty matches everything. */
int kernel_selected(const char *name, const char *patterns);

#endif
