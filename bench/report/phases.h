/* phases.h — where a study's time goes: the seconds of each phase of a
 * run, summed over its rows, said at the end and in the JSON so that a
 * user sees what to turn down (--energy-s, --reps, the bandwidth pass). */
#ifndef SPB_PHASES_H
#define SPB_PHASES_H

#include <stdio.h>

typedef enum {
    SPB_PHASE_LOAD,      /* reading or generating a matrix, its reference product */
    SPB_PHASE_BANDWIDTH, /* the bandwidth passes (the roofline) */
    SPB_PHASE_PREPARE,   /* the kernels' prepare: formats, uploads, tuning */
    SPB_PHASE_AUTO,      /* the auto kernels' prepare: the candidates timed there */
    SPB_PHASE_VALIDATE,  /* products checked against the reference */
    SPB_PHASE_TIMING,    /* the samples of the first attempt (the floor) */
    SPB_PHASE_AGAIN,     /* noisy rows' samples taken again */
    SPB_PHASE_ENERGY,    /* the energy passes */
    SPB_PHASES
} spb_phase;

/* The energy passes' windows: what the energy phase's seconds bought. */
typedef struct {
    int windows, chained, late_wakes;
    double window_s;                 /* the windows' sum */
    double periods, period_window_s; /* over the windows whose period was known: sums */
} spb_energy_windows;

typedef struct {
    double start; /* timing_now() as the run began */
    double seconds[SPB_PHASES];
    spb_energy_windows energy;
} spb_phase_times;

/* Adds seconds to a phase (p may be NULL: not kept). */
void phase_add(spb_phase_times *p, spb_phase which, double seconds);

/* Counts an energy pass's window: its length, its length in counter
 * periods (NAN: not known), whether it opened where the one before closed,
 * and how often its reader woke after the change it slept for. */
void phase_energy_window(spb_phase_times *p, double window_s, double periods, int chained,
                         int late_wakes);

/* The closing line: the run's wall time and each phase's share, the rest
 * (writing rows, the start) as "other"; then, after energy passes, a line
 * on their windows (how many counter periods each cost). */
void phases_print(FILE *out, const spb_phase_times *p);

/* The same as a JSON object ("time_s": {...}, the energy windows in
 * "energy_windows" when there were any), for the trailer. */
void phases_json(FILE *out, const spb_phase_times *p);

#endif
