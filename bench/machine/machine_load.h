/* machine_load.h — whether the machine was quiet enough for its timings to
 * be trusted: CPU pressure (Linux PSI: the share of the last 10 s in which
 * some task waited for a CPU) or, without PSI, the load average against
 * the cores, sampled before the study and after every row measured; and
 * the spread of the bandwidth passes measured at the start. */
#ifndef SPB_MACHINE_LOAD_H
#define SPB_MACHINE_LOAD_H

#include <stddef.h>

#include "bench/machine/roofline.h"

/* Busy: CPU pressure above this many percent at any sample; without PSI,
 * a load average above the cores plus one (before the study: above half
 * the cores); or a bandwidth kernel's median pass this far below its best. */
#define SPB_BUSY_CPU_PRESSURE     10.0
#define SPB_BUSY_BANDWIDTH_SPREAD 0.30

typedef struct {
    int cores;
    double load_before, pressure_before; /* pressure < 0: no PSI here */
    double load_max, pressure_max;       /* the most seen at any sample */
    double bandwidth_spread;             /* the largest (best - median) / best */
    int bandwidth_measured;              /* the CPU passes ran in this run (else spread 0) */
    int samples;
} spb_machine_load;

/* Samples the machine before the study (after the rooflines: their
 * spread is read from r). */
void machine_load_start(spb_machine_load *m, const spb_roofline *r);

/* Samples it again (after a row). */
void machine_load_sample(spb_machine_load *m);

/* 1 when busy, with the reasons written to why ("" when quiet). */
int machine_load_busy(const spb_machine_load *m, char *why, size_t size);

#endif
