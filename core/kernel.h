/* kernel.h — the kernel: the interface every backend's kernels
 * implement and bench/ drives. Types only; the matrix and its formats are
 * named, not included (formats/ builds them above core/). */
#ifndef SPB_KERNEL_H
#define SPB_KERNEL_H

#include "spb.h"

typedef struct spb_csr spb_csr;               /* formats/csr.h */
typedef struct spb_format_set spb_format_set; /* formats/format_set.h */

/* MPI kernels run at each rank count (and thread count per rank). */
typedef enum {
    SPB_BACKEND_SERIAL,
    SPB_BACKEND_OPENMP,
    SPB_BACKEND_CUDA,
    SPB_BACKEND_MPI
} spb_backend;

typedef struct {
    spb_index hack_size;     /* HLL rows per hack, SELL rows per slice */
    int threads;             /* CPU threads (OpenMP kernels; per rank for MPI ones) */
    int ranks;               /* MPI ranks (distributed kernels; 1 otherwise) */
    int block_size;          /* GPU threads per block; 0 = the kernel's default */
    spb_precision precision; /* what the kernel computes in */
    double cache_bytes;      /* the CPU's last-level cache (0: unknown), for cache blocking */
    int tile; /* GPU SpGEMM: accumulator columns per tile; 0 = the kernel's default */
    double device_cache_bytes; /* the GPU's L2 for cache blocking (0: the device's own) */
    /* GPU SpMV: x in the one buffer the other rows asking for it share, so
     * that rows compared in one run gather x from the same address (a
     * skewed matrix's time moves with where x lands: docs/MEASUREMENTS.md) */
    int shared_x;
} spb_kernel_config;

/* The settings a kernel's work depends on beyond threads and ranks: given
 * as a list (--block-size 128,256), each value is a row of its own for the
 * kernels that take that setting (spb_kernel.sweeps) and the first value
 * the others'. */
typedef enum {
    SPB_SWEEP_HACK_SIZE = 1u << 0,  /* config.hack_size */
    SPB_SWEEP_BLOCK_SIZE = 1u << 1, /* config.block_size */
    SPB_SWEEP_TILE = 1u << 2,       /* config.tile */
} spb_sweep;
#define SPB_SWEEPS 3

/* What prepare hands back: the kernel's private state and its byte model. */
typedef struct {
    void *state;
    int64_t stored_entries; /* entries the format stores, padding included */
    double bytes;           /* bytes one product moves (metrics) */
    double tune_ms;         /* autotuning inside prepare, when the kernel has one (else NAN) */
    int block_size;         /* GPU block size in use (0: not a GPU kernel or a library) */
} spb_kernel_plan;

typedef struct spb_kernel spb_kernel;

/* What is known of a product before its row runs, for the kernel's memory
 * estimate: C is m x n (SpMV: A's shape), A and B hold nnz_a and nnz_b
 * entries (B: 0 for SpMV), and SpGEMM makes `products` intermediate
 * products into nnz_c entries of C (0 for SpMV). */
typedef struct {
    double m, n, nnz_a, nnz_b, products, nnz_c;
    double row_products_max; /* the most products in one row of C */
} spb_work_size;

/* y = A*x with the prepared state; y is overwritten. x and y are arrays of
 * the precision the kernel was prepared for (double for fp64, float for
 * fp32). Returns SPB_OK or the failure (a library's or the device's) with
 * its message. */
typedef spb_status (*spb_spmv_fn)(const void *state, const void *x, void *y, char *msg);

/* C = A*B with the prepared state (A and B taken from the format set in
 * prepare); C is allocated by the kernel, canonical: columns sorted in
 * each row, every structurally produced entry kept (zeros too). On failure
 * C is left empty. */
typedef spb_status (*spb_spgemm_fn)(const void *state, spb_csr *C, char *msg);

struct spb_kernel {
    const char *name;        /* dotted, stable: the CSV key and chart label */
    const char *format;      /* "csr", "hll.row", "hll.col", "sell", or a library's own */
    spb_backend backend;     /* serial and CUDA kernels at one thread count; OpenMP at each */
    const char *description; /* one line for --list */
    const void *variant;     /* the kernel's own data (schedule, layout, launch), read by prepare */
    /* Whether the kernel can run here (A may be NULL: availability only);
     * fills why when not. NULL means always. */
    int (*supports)(const spb_kernel *self, const spb_csr *A, char *why);
    /* Takes its format from the set (built once per matrix), copies or
     * uploads it; timed separately from the product. SPB_ERR_DECLINED
     * declines this matrix by design (the row is skipped, not failed). */
    spb_status (*prepare)(const spb_kernel *self, spb_format_set *formats,
                          const spb_kernel_config *config, spb_kernel_plan *plan, char *msg);
    void (*release)(void *state); /* accepts NULL */
    /* Device kernels and plug-ins (NULL for spbench's host ones): the
     * product is a whole product, transfers included; time_calls() times
     * `calls` back-to-back products where the data lives (the device, a
     * plug-in's own process) and returns seconds (negative on failure);
     * check() reports the first failure met. */
    double (*time_calls)(void *state, int calls);
    spb_status (*check)(const void *state, char *msg);
    /* 1 when the kernel also runs in fp32 (values, x and y in single
     * precision); rows without it are skipped in an fp32 run. */
    int fp32;
    /* 1 when the kernel also runs complex matrices (complex128, and
     * complex64 with fp32: values, x and y (re, im) pairs); a real kernel
     * declines a complex matrix, never casting it. */
    int complex_values;
    /* 1 when the kernel also runs a wide matrix (more than 2^31 - 1
     * entries: formats/csr.h's row_ptr64); the others decline it, saying
     * why, before prepare. */
    int wide_offsets;
    /* 1 when the row is timed alone, after the rows before it are written,
     * never in turns with others: a distributed row takes the ranks'
     * processors; a library row that keeps device memory when it fails
     * (cusp.spgemm) would take it from the rows timed beside it. */
    int timed_alone;
    /* 1 for a library's row (cuSPARSE, CUSP, librsb, GraphBLAS, PETSc): a
     * peer spbench's own rows are compared against, the device ones (the
     * vendor rows) per matrix at the fastest of them; the JSON's roles. */
    int library;
    /* The settings the kernel takes (SPB_SWEEP_* bits; an HLL or SELL
     * format takes the hack size without saying: kernel_sweeps). */
    unsigned sweeps;
    /* 1 for a row whose prepare times candidate rows and keeps the fastest
     * (the auto rows): its prepare is counted as trials, not conversion. */
    int trials;
    /* Host bytes the kernel allocates beyond its inputs (its copies,
     * workspaces and C, at their peak), from what is known before it runs;
     * NULL: no more than a copy of A, which every row is allowed. A row
     * whose estimate passes the memory the machine (or a cgroup, ulimit or
     * SPB_MEMORY_LIMIT) allows is skipped with the figure, before prepare. */
    double (*host_bytes)(const spb_kernel *self, const spb_work_size *size,
                         const spb_kernel_config *config);
};

/* A vendor row: a library's device row. spbench's device rows are weighed
 * per matrix against the fastest of them (never one chosen mode). */
static inline int kernel_is_vendor(const spb_kernel *kernel)
{
    return kernel->library && kernel->backend == SPB_BACKEND_CUDA;
}

/* Whether the kernel has a version in `precision` (fp32 and complex64:
 * fp32; the complex ones: complex_values). */
static inline int kernel_runs_in(const spb_kernel *kernel, spb_precision precision)
{
    return (!spb_precision_single(precision) || kernel->fp32) &&
           (!spb_precision_complex(precision) || kernel->complex_values);
}

/* The backend as rows and --list name it: "serial", "openmp", "cuda", "mpi". */
const char *backend_name(spb_backend backend);

/* Whether the kernel runs over MPI ranks (mpi/): its rows are measured at
 * each rank count, have no single-processor roofline, report their
 * exchange's figures and are scaled against the kernel's time at one rank.
 * The one question bench/ asks of a distributed kernel. */
static inline int kernel_over_ranks(const spb_kernel *kernel)
{
    return kernel->backend == SPB_BACKEND_MPI;
}

/* An SpMV kernel of the table: the part every kernel shares, then its
 * product (the timed part). The shared part comes first, so the run loop
 * holds every kernel as a `const spb_kernel *` and the operation gets its
 * own back (spmv_kernel_of). */
typedef struct {
    spb_kernel kernel;
    spb_spmv_fn spmv;
} spb_spmv_kernel;

/* An SpGEMM kernel: the shared part, its product, and for device kernels the
 * median seconds of the product kernels alone (no setup, allocation or
 * conversion) over the products made so far (NULL where the whole product
 * is one step), and the most device memory one product took beyond its
 * operands (NAN until a product was made; NULL: not counted). */
typedef struct {
    spb_kernel kernel;
    spb_spgemm_fn spgemm;
    double (*kernel_seconds)(const void *state);
    double (*device_peak_bytes)(const void *state);
} spb_spgemm_kernel;

static inline const spb_spmv_kernel *spmv_kernel_of(const spb_kernel *kernel)
{
    return (const spb_spmv_kernel *)(const void *)kernel;
}
static inline const spb_spgemm_kernel *spgemm_kernel_of(const spb_kernel *kernel)
{
    return (const spb_spgemm_kernel *)(const void *)kernel;
}

#endif
