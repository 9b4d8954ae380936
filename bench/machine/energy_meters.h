/* energy_meters.h — what the energy pass (energy.c) reads of the counters
 * (energy_meters.c); private to the two. */
#ifndef SPB_ENERGY_METERS_H
#define SPB_ENERGY_METERS_H

#include "bench/machine/energy.h"

/* The side's counter, joules since an arbitrary start; each RAPL zone's
 * raw microjoules into uj (for the wrap). 0 with why when it did not read. */
int read_counter(const spb_energy_meters *m, int gpu, double *uj, char *why);
/* Joules between two readings (a RAPL counter past its range wrapped once). */
double joules_between(const spb_energy_meters *m, int gpu, const double *a, const double *b);
/* The GPU's clocks and temperature into e. */
void read_clocks(const spb_energy_meters *m, spb_energy *e);
/* The side's counters in a reading: NVML's one, RAPL's zones. */
int energy_zone_count(const spb_energy_meters *m, int gpu);
/* A counter found dead under products ("" while it is not): not read again
 * this run (each pass would spend a second finding it again). */
const char *energy_dead_why(const spb_energy_meters *m, int gpu);
void energy_mark_dead(spb_energy_meters *m, int gpu, const char *why);

#endif
