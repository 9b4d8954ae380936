/* operation.h — what the run loop needs to know about an operation (SpMV
 * and SpGEMM: op_spmv.c, op_spgemm.c): its kernel table, its speedup baseline, how to set
 * up one matrix's inputs and reference, how to run and validate a product,
 * and its flop count. The loop itself (selection, prepare, warm-up and
 * timing, rows, resume, progress) is written once in run.c. */
#ifndef SPB_OPERATION_H
#define SPB_OPERATION_H

#include "bench/report/report.h"
#include "core/kernel.h"
#include "formats/format_set.h"

/* One matrix under one operation: what every kernel run on it shares. */
typedef struct {
    const char *name;       /* for rows and messages */
    const char *source_id;  /* what was read (see sources.h; NULL: none) */
    const spb_csr *A;       /* the matrix as read */
    spb_format_set formats; /* A's formats, each built once */
    spb_csr_stats stats;
    const char *operand;     /* SpGEMM's --b spec (NULL: A*A, or A*A^T when not square) */
    void *data;              /* the operation's inputs, output and reference */
    double products, nnz_c;  /* SpGEMM: intermediate products, entries of C (else NAN) */
    double row_products_max; /* SpGEMM: the most products in one row of C (else NAN) */
    /* the baseline kernel's median time per precision (0: not measured) */
    double baseline_seconds[SPB_PRECISIONS];
    /* per precision, the fastest vendor row (kernel_is_vendor) measured so
     * far: its name (NULL: none), median and prepare time in seconds */
    const char *vendor_kernel[SPB_PRECISIONS];
    double vendor_seconds[SPB_PRECISIONS], vendor_prepare_s[SPB_PRECISIONS];
    double started; /* when its loading began (timing_now): --max-matrix-s */
} spb_case;

typedef struct {
    const char *name; /* "spmv": the operation column, part of the resume key */
    int kernel_count;
    const spb_kernel *const *kernels; /* the table, in --list order */
    const spb_kernel *baseline;       /* speedup = t(baseline) / t */
    /* Inputs (seeded, never zero), output buffer, reference and error scale;
     * c->formats is initialised (on c->A) before, and the operation may add
     * its second operand there. */
    spb_status (*case_setup)(spb_case *c, uint64_t seed, char *msg);
    void (*case_free)(spb_case *c); /* accepts a case whose setup failed */
    double (*flops)(const spb_case *c);
    /* Bytes one product moves (the byte model the roofline fraction uses). */
    double (*bytes)(const spb_case *c, const spb_kernel_plan *plan, spb_precision precision);
    /* One whole product in the row's precision (which inputs and output it
     * uses) into the case's output (poisoned first), then its validation:
     * ok, wrong, or error when the kernel reported a failure. */
    spb_row_status (*product)(const spb_kernel *kernel, void *state, spb_case *c,
                              spb_precision precision, double tolerance, spb_validation *v,
                              char *msg);
    /* `calls` back-to-back host products (the timed part of host kernels). */
    spb_status (*host_calls)(const spb_kernel *kernel, void *state, spb_case *c,
                             spb_precision precision, int calls, char *msg);
    /* What an ok row's state measured besides its time, into r: SpGEMM's
     * device rows, the product kernels' seconds alone (kernel_ms) and the
     * device memory a product took (device_peak_bytes); NULL: nothing. */
    void (*state_figures)(const spb_kernel *kernel, const void *state, spb_result *r);
    /* For the dry run's estimate: one product's work on the case's A (SpMV:
     * A's entries; SpGEMM: the intermediate products, B made or read as a
     * run would; negative with msg when it cannot say), what a unit is in
     * words, and the generated matrix on which each host row's seconds per
     * unit are timed. */
    double (*work)(spb_case *c, uint64_t seed, char *msg);
    const char *work_unit;
    const char *calibration;
} spb_operation;

const spb_operation *operation_spmv(void);
const spb_operation *operation_spgemm(void);

/* The operations in --list order, and by name ("spmv", "spgemm"); NULL past
 * the end or for an unknown name. */
const spb_operation *operation_at(int index);
const spb_operation *operation_named(const char *name);

/* Room for an operation's table of `count` kernels, kept for the process
 * (sized from the kernel tables, so no kernel is ever left out); out of
 * memory ends the process, as nothing can run without it. */
const spb_kernel **kernel_table(int count);

/* The kernel of op named `name`, or NULL. */
const spb_kernel *operation_kernel(const spb_operation *op, const char *name);

#endif
