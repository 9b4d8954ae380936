/* run_internal.h — what the files of the run protocol share inside run/:
 * run.c (the protocol), emit.c (the rows written, references, rank
 * scaling, progress, totals) and stored.c (what --resume finds). */
#ifndef SPB_RUN_INTERNAL_H
#define SPB_RUN_INTERNAL_H

#include "bench/run/plan.h"
#include "bench/run/run.h"

void flush_folded(const spb_run_opts *opts, spb_run_totals *totals);
void emit(const spb_run_opts *opts, spb_run_totals *totals, const spb_result *r,
          spb_status *csv_status, char *msg);
void note_reference(spb_case *c, const spb_run_opts *opts, const spb_result *r);
void break_even(const spb_case *c, const spb_kernel *kernel, spb_precision precision,
                spb_result *r);
void replay(const spb_run_opts *opts, spb_run_totals *totals, const spb_done_row *row, spb_case *c,
            spb_status *csv_status, char *msg);
void scale_over_ranks(spb_run_totals *totals, const spb_run_opts *opts, spb_result *r);
const spb_done_row *stored_row(const spb_run_opts *opts, const char *matrix, const char *kernel,
                               spb_precision precision, int threads, int ranks);
int replayed_whole(const char *name, const spb_plan *plan, const spb_run_opts *opts,
                   spb_run_totals *totals, spb_status *csv_status, char *msg);
void references_from_done(spb_case *c, const spb_run_opts *opts);

#endif
