/* summary.h — the end-of-run summary: per matrix, the fastest ok row at
 * each thread count (one-process rows) and at each rank and thread count
 * (distributed rows), with its speedup and, for distributed rows, where
 * the time went; each kernel's geometric means over the matrices. */
#ifndef SPB_SUMMARY_H
#define SPB_SUMMARY_H

#include <stdio.h>

#include "bench/inputs/sources.h"
#include "bench/report/report.h"

/* The fastest ok row of one matrix at one setting. */
typedef struct {
    char matrix[SPB_NAME_LEN]; /* whole: rows are matched to it by name */
    const char *kernel, *precision;
    char sweep[64]; /* its swept settings (spb_result.sweep) */
    int threads, ranks;
    int distributed; /* a distributed row: named kernel@ranks */
    double seconds, speedup;
    int noisy;           /* a row it was ranked among is noisy: the ranking may not hold */
    double rank_speedup; /* distributed rows: over the same row at one rank */
    spb_dist_stats dist; /* and their exchange figures */
} spb_best;

/* A kernel's rows (in one precision) faster than the fastest vendor row of
 * their matrix, and the products after which each one's prepare paid
 * (break_even_products). */
typedef struct {
    char kernel[64], precision[8];
    double *products;
    int count, cap;
} spb_break_even;

/* An ok device row at one rank, kept to weigh spbench's device rows
 * against the fastest vendor row of their matrix and precision. */
typedef struct {
    int matrix; /* the matrices in the order met: rows of one matrix share it */
    const char *kernel, *precision;
    double seconds;
    int vendor; /* a library's device row (kernel_is_vendor) */
} spb_device_row;

/* A kernel's ok rows at one precision and setting, for its geometric
 * means over the matrices. */
typedef struct {
    char kernel[64], precision[8], sweep[64]; /* sweep: spb_result.sweep */
    int threads, ranks;
    double log_gflops, log_speedup; /* sums of the logarithms */
    int count, with_speedup, noisy;
} spb_kernel_mean;

typedef struct {
    spb_best *best; /* grows as matrices are measured */
    int count, cap;
    spb_break_even *pays; /* per kernel and precision, in the order first met */
    int pays_count, pays_cap;
    spb_kernel_mean *means; /* per kernel, precision and setting, in the order first met */
    int means_count, means_cap;
    spb_device_row *device; /* the ok device rows at one rank */
    int device_count, device_cap;
    char device_matrix[SPB_NAME_LEN]; /* the matrix of the last device row, and its number */
    int device_matrices;
} spb_summary;

/* Keeps r when it is the fastest ok row of its matrix and setting so far
 * (rows arrive matrix by matrix), its break-even count, and, for a device
 * row, its time (vendor: r is a library's device row). */
void summary_note(spb_summary *summary, const spb_result *r, int vendor);

/* Prints the best row per matrix and setting, with its speedup over
 * `baseline` (the operation's baseline kernel); per kernel, its geometric
 * mean GFLOPS and speedup over the matrices (where one was measured on two
 * or more); then, where vendor rows ran, each device kernel against the
 * fastest vendor row of each matrix, split by the vendor's time per
 * product, with its rows faster than that row and when their prepare
 * paid. */
void summary_print(FILE *out, const spb_summary *summary, const char *baseline);

void summary_free(spb_summary *summary);

#endif
