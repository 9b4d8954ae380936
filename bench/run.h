/* run.h — measuring every selected kernel on one matrix: prepare (timed on
 * its own), a first product on a NaN-poisoned y validated against the
 * reference, the timing protocol, a second validation of the last product,
 * metrics, and one flushed row per kernel. */
#ifndef SPB_RUN_H
#define SPB_RUN_H

#include <stdio.h>

#include "kernels.h"
#include "report.h"
#include "timing.h"

typedef struct {
    const char *kernels; /* selection patterns (NULL: all) */
    spb_timing_opts timing;
    uint64_t seed;    /* for x */
    double tolerance; /* see validate.h */
    spb_kernel_config config;
    double cpu_bandwidth_gbs; /* roofline for CPU kernels */
    FILE *csv;                /* NULL: no CSV */
    const char *csv_path;
    FILE *table; /* human-readable rows */
} spb_run_opts;

typedef struct {
    int rows, ok, wrong, skipped, errors;
} spb_run_totals;

/* Fills x (size n) with seeded random values, never zero. */
void run_random_vector(uint64_t seed, spb_index n, spb_value *x);

/* Runs the selected kernels on one matrix source. Matrix and kernel failures
 * become error rows; only a failed CSV write is returned as an error. */
spb_status run_matrix(const char *source, const spb_run_opts *opts, spb_run_totals *totals,
                      char *msg);

#endif
