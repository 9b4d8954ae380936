/* machine_load.c — how busy the machine was (see machine_load.h). */
#include "bench/machine/machine_load.h"

#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The 1-minute load average and the PSI "some avg10" CPU pressure (-1
 * where the kernel has no PSI). */
static void read_load(double *load, double *pressure)
{
    *load = 0;
    *pressure = -1;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", load) != 1) *load = 0;
        fclose(f);
    }
    f = fopen("/proc/pressure/cpu", "r");
    if (f) {
        if (fscanf(f, "some avg10=%lf", pressure) != 1) *pressure = -1;
        fclose(f);
    }
}

static double stat_spread(const spb_bw_stat *s)
{
    return s->trials > 0 && s->best > 0 ? (s->best - s->median) / s->best : 0.0;
}

void machine_load_start(spb_machine_load *m, const spb_roofline *r)
{
    memset(m, 0, sizeof *m);
    long online = sysconf(_SC_NPROCESSORS_ONLN); /* the load average is the machine's */
    m->cores = online > 0 ? (int)online : omp_get_num_procs();
    read_load(&m->load_before, &m->pressure_before);
    m->load_max = m->load_before;
    m->pressure_max = m->pressure_before;
    m->bandwidth_measured = r && r->cpu_source == SPB_BW_MEASURED;
    for (int k = 0; m->bandwidth_measured && k < r->cpu_count; k++) {
        double worst = stat_spread(&r->cpu[k].read);
        if (stat_spread(&r->cpu[k].triad) > worst) worst = stat_spread(&r->cpu[k].triad);
        if (worst > m->bandwidth_spread) m->bandwidth_spread = worst;
    }
}

void machine_load_sample(spb_machine_load *m)
{
    double load, pressure;
    read_load(&load, &pressure);
    if (load > m->load_max) m->load_max = load;
    if (pressure > m->pressure_max) m->pressure_max = pressure;
    m->samples++;
}

/* Appends one reason to why, after a "; " when there is one already. */
static void add_reason(char *why, size_t size, const char *fmt, ...) SPB_PRINTF(3, 4);

static void add_reason(char *why, size_t size, const char *fmt, ...)
{
    if (why[0]) spb_appendf(why, size, "; ");
    va_list ap;
    va_start(ap, fmt);
    spb_vappendf(why, size, fmt, ap);
    va_end(ap);
}

int machine_load_busy(const spb_machine_load *m, char *why, size_t size)
{
    why[0] = '\0';
    if (m->pressure_max > SPB_BUSY_CPU_PRESSURE)
        add_reason(why, size,
                   "tasks waited for a CPU %.0f%% of the time (CPU pressure; %.0f%% "
                   "allowed)",
                   m->pressure_max, SPB_BUSY_CPU_PRESSURE);
    if (m->pressure_max < 0 && m->load_max > m->cores + 1.0)
        add_reason(why, size, "load average %.1f on %d cores", m->load_max, m->cores);
    if (m->pressure_before < 0 && m->load_before > 0.5 * m->cores)
        add_reason(why, size, "load average %.1f on %d cores before the study", m->load_before,
                   m->cores);
    if (m->bandwidth_spread > SPB_BUSY_BANDWIDTH_SPREAD)
        add_reason(why, size, "the bandwidth passes' median was %.0f%% below their best",
                   100 * m->bandwidth_spread);
    return why[0] != '\0';
}
