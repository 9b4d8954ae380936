/* selection.h — selecting kernels of an operation's table by name. */
#ifndef SPB_SELECTION_H
#define SPB_SELECTION_H

#include "core/kernel.h"
#include "formats/format_set.h"

/* Whether name matches a comma-separated list of shell patterns
 * ("csr.*,hll.serial.row"); NULL or empty matches everything. */
int kernel_selected(const char *name, const char *patterns);

/* Whether this machine cannot run kernel at all (no CUDA device, a library
 * not built in), and why. The distributed rows are never counted so: the
 * process that launches their ranks is not under MPI itself. */
int kernel_unavailable(const spb_kernel *kernel, char *why);

/* Whether a run measures kernel: by the patterns when given (a kernel this
 * machine cannot run gets its skipped rows only where a pattern names it
 * whole: it was asked for; one a wildcard matches is left out, as "csr.*"
 * on a machine without a device means the CSR rows it has); without them
 * every kernel of the study's kind that this machine can run: the
 * distributed rows in a distributed study (--ranks, or under an MPI
 * launcher), every other row otherwise. */
int kernel_chosen(const spb_kernel *kernel, const char *patterns, int distributed);
/* Whether kernel is one the selection leaves out because this machine
 * cannot run it (why says what it lacks): the header's "left out" lines. */
int kernel_left_out(const spb_kernel *kernel, const char *patterns, int distributed, char *why);
/* Whether a pattern of the comma-separated list is the name itself. */
int kernel_named(const char *name, const char *patterns);

/* Every pattern of the list matches a kernel of the table (`count` rows):
 * SPB_OK, or SPB_ERR_INVALID naming the first that matches none and the
 * names nearest to it (a typo among good patterns was once dropped in
 * silence). */
spb_status kernel_patterns_check(const spb_kernel *const *table, int count, const char *patterns,
                                 char *msg);

/* The three names of table nearest to `asked` (a name or a pattern), for
 * a message: "a, b, c". */
void kernel_nearest(const spb_kernel *const *table, int count, const char *asked, char *out,
                    size_t size);

#endif
