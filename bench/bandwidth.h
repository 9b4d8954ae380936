/* bandwidth.h — the memory-bandwidth roofline, measured on this machine. */
#ifndef SPB_BANDWIDTH_H
#define SPB_BANDWIDTH_H

#include "../formats/spb.h"

/* STREAM-triad-like a[i] = b[i] + s*c[i] over arrays far larger than the
 * caches, with `threads` OpenMP threads; best of several passes, counting
 * 24 bytes per element (two reads, one write). */
spb_status bandwidth_cpu_triad(int threads, double *gbytes_per_s, char *msg);

#endif
