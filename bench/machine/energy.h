/* energy.h — what a row's products cost in energy, and whether the
 * hardware ran at its clocks while it was timed. The GPU's counters come
 * from NVML, loaded at run time (a build or machine without the driver
 * runs, and says energy is not available); the CPU's from RAPL's powercap
 * files, when readable. After a row is timed, an energy pass runs its
 * products back to back over a window between two changes of the energy
 * counter (NVML's moves about every 100 ms, too coarse for the timed
 * samples, which rows take in turns); the throttle counters are read
 * around the timing itself. */
#ifndef SPB_ENERGY_H
#define SPB_ENERGY_H

#include "core/timing.h"

#define SPB_ENERGY_ZONES      8    /* RAPL zones summed: packages and their DRAM */
#define SPB_ENERGY_WINDOW_S   0.05 /* the default energy window, seconds */
#define SPB_ENERGY_PERIODS    10   /* a run's windows: at least this many of the counter's steps */
#define SPB_THROTTLE_TEXT_LEN 64

/* NVML's clock event reasons that mean the GPU ran below its clocks for
 * power or heat (an idle GPU or a user's clock setting is not throttling). */
#define SPB_THROTTLE_SW_POWER 0x4ull
#define SPB_THROTTLE_HW_SLOW  0x8ull
#define SPB_THROTTLE_SW_HEAT  0x20ull
#define SPB_THROTTLE_HW_HEAT  0x40ull
#define SPB_THROTTLE_HW_POWER 0x80ull
#define SPB_THROTTLE_ANY                                                                           \
    (SPB_THROTTLE_SW_POWER | SPB_THROTTLE_HW_SLOW | SPB_THROTTLE_SW_HEAT | SPB_THROTTLE_HW_HEAT |  \
     SPB_THROTTLE_HW_POWER)

/* What a row's energy pass found; NAN where not measured. */
typedef struct {
    double joules_per_product;
    double watts;                        /* average over the window */
    double err;                          /* both figures' relative bound: the window's timing */
    double sm_mhz, mem_mhz, temp_c;      /* the GPU's, during the pass */
    int throttled;                       /* 1 or 0; -1: unknown (no counters) */
    char reasons[SPB_THROTTLE_TEXT_LEN]; /* the throttle reasons seen, comma-separated */
    /* how the pass went, for the study's account of its energy time */
    double window_s; /* between the changes that opened and closed it */
    double periods;  /* the window over the counter's period (NAN: period not known) */
    int chained;     /* 1: opened where the pass before closed */
    int late_wakes;  /* times its reader woke after the change it slept for */
} spb_energy;

void energy_init(spb_energy *e); /* all NAN, throttled unknown */

typedef struct spb_energy_meters spb_energy_meters;

/* What a run asks of the counters (--energy-s, --energy-rows): which rows
 * get an energy pass, how long each lasts, and the counters it reads. */
typedef struct {
    spb_energy_meters *meters; /* the CPU's and GPU's (NULL: none read; a dead one is marked by
                                * its first pass) */
    double window_s;           /* each row's energy pass (0: none) */
    int all_rows;              /* 1: every row's; 0: the fastest spbench and vendor rows' */
} spb_energy_opts;

/* Where the counters are read from: NVML's library (NULL: the driver's
 * "libnvidia-ml.so.1") for the device with this PCI bus id ("": none, no
 * GPU meter), and the powercap tree (NULL: /sys/class/powercap). Never
 * fails: a side without counters says why (energy_why). */
spb_energy_meters *energy_open(const char *nvml_library, const char *pci_bus_id,
                               const char *powercap_root);
void energy_close(spb_energy_meters *m); /* accepts NULL */

/* 1 when the side (gpu: 1, the CPU: 0) has an energy counter; else why. */
int energy_available(const spb_energy_meters *m, int gpu);
const char *energy_why(const spb_energy_meters *m, int gpu);

/* The GPU at the start: its enforced power limit and clocks (NAN where
 * NVML does not say). */
typedef struct {
    double power_limit_w;
    double sm_mhz, mem_mhz, sm_max_mhz, mem_max_mhz, temp_c;
} spb_gpu_power_info;
int energy_gpu_info(const spb_energy_meters *m, spb_gpu_power_info *info);

/* The CPU's zones ("package-0, dram-0"), for the header. */
const char *energy_cpu_zones(const spb_energy_meters *m);

/* The GPU's throttle state so far: reasons seen and time spent under
 * power or thermal limits (NVML's violation counters, ns). */
typedef struct {
    unsigned long long reasons, limited_ns;
} spb_throttle_mark;
void energy_throttle_mark(const spb_energy_meters *m, spb_throttle_mark *mark);
/* Whether the GPU throttled between two marks; the reasons into e. */
int energy_throttled_between(const spb_energy_meters *m, const spb_throttle_mark *before,
                             const spb_throttle_mark *after, spb_energy *e);

/* Where a pass left the counter: the change its window closed on. */
typedef struct {
    int valid, gpu;
    double at;       /* when the change happened: mid-way between the readings around it */
    double half_gap; /* half the time between those readings: at's uncertainty */
    double seen;     /* when it was read */
    double period;   /* the counter's period as last seen (0: not known) */
    double margin;   /* how long before the change expected a reader wakes (0: the default) */
    double uj[SPB_ENERGY_ZONES];
} spb_energy_edge;

/* How long a window lasts: at least `seconds` and at least `periods` of
 * the counter's steps (1: one step; more, and the reader also reads once
 * mid-way through the last step, to know it woke before the change that
 * closes the window). */
typedef struct {
    double seconds;
    int periods;
} spb_energy_window;

/* The energy pass: calls(ctx, n) run back to back in chunks of about 2 ms
 * (call_seconds: one call, from the timing) while a thread beside them
 * reads the side's counter (NVML's read takes milliseconds), until the
 * window (see spb_energy_window) lies between two of its changes: it is then
 * known to the span of two readings
 * whatever the counter's step (NVML's moves about every 100 ms, RAPL's
 * every millisecond), and e->err says how well (the two changes' half
 * gaps over the window). The first change may open a window only after
 * ENERGY_SETTLE_S of products, unless *edge (NULL: none) holds the change
 * the previous pass closed on, read a moment ago: rows measured one after
 * another then share it, and each costs one window. *edge receives this
 * pass's closing change, the counter's period and the margin the reader
 * wakes by before a change (wider after a wake that came too late, which
 * costs a period; narrower after each pass that woke in time). SPB_OK with e filled,
 * SPB_ERR_DECLINED when the side has no counter, SPB_ERR_DEVICE when the calls failed, SPB_ERR_IO
 * when the counter did not read or did not move (a counter that did not
 * move is not read again by m: later passes fail at once, saying so). */
spb_status energy_measure(spb_energy_meters *m, int gpu, spb_time_calls_fn calls, void *ctx,
                          double call_seconds, spb_energy_window window, spb_energy_edge *edge,
                          spb_energy *e, char *msg);

/* The reasons of a throttle mask, comma-separated, into out. */
void energy_reasons_text(unsigned long long reasons, char *out, size_t size);

#endif
