/* dry_run.h — `run --dry-run`: what a study would measure, and the least
 * time it would take, without measuring or writing anything. */
#ifndef SPB_DRY_RUN_H
#define SPB_DRY_RUN_H

#include <stdio.h>

#include "bench/inputs/sources.h"
#include "bench/run/run.h"

/* Prints the matrices, the kernels with their settings (and which would
 * be skipped on this machine, and why), the rows, and the time's floor
 * and parts; `processes` (run --processes N) repeats the study. Returns
 * the exit status. */
int dry_run_print(FILE *out, const spb_run_opts *o, const spb_source_list *list, int processes);

#endif
