/* energy.c — NVML and RAPL energy counters, and the energy pass (see energy.h). */
#include "bench/machine/energy.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- NVML, loaded at run time: the few entry points used, declared here ---- */

typedef int nvml_return; /* 0: success */
typedef void *nvml_device;
typedef struct {
    unsigned long long reference_time, violation_time; /* ns */
} nvml_violation;

enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };
enum { NVML_POLICY_POWER = 0, NVML_POLICY_THERMAL = 1 };

typedef struct {
    void *library;
    nvml_device device;
    nvml_return (*shutdown)(void);
    nvml_return (*by_bus)(const char *, nvml_device *);
    nvml_return (*energy_mj)(nvml_device, unsigned long long *);
    nvml_return (*clock)(nvml_device, int, unsigned *);
    nvml_return (*max_clock)(nvml_device, int, unsigned *);
    nvml_return (*temperature)(nvml_device, int, unsigned *);
    nvml_return (*reasons)(nvml_device, unsigned long long *);
    nvml_return (*power_limit_mw)(nvml_device, unsigned *);
    nvml_return (*violation)(nvml_device, int, nvml_violation *);
} nvml_api;

/* One RAPL zone: its folder and the value its counter wraps at. */
typedef struct {
    char dir[600];
    double range_uj;
} rapl_zone;

struct spb_energy_meters {
    nvml_api nvml;
    int gpu; /* the GPU's energy counter reads */
    char gpu_why[SPB_MSG_LEN];
    rapl_zone zones[SPB_ENERGY_ZONES];
    int zone_count;
    char zone_names[256];
    char cpu_why[SPB_MSG_LEN];
    /* a counter found dead under products: not read again this run (each
     * pass would spend ENERGY_STUCK_S finding it again) */
    char dead_why[2][SPB_MSG_LEN];
};

static void *symbol(void *library, const char *name)
{
    return library ? dlsym(library, name) : NULL;
}

/* Loads NVML's entry points; 0 with why when a required one is missing. */
static int nvml_load(nvml_api *api, const char *library, char *why)
{
    api->library = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!api->library) {
        const char *err = dlerror();
        snprintf(why, SPB_MSG_LEN, "NVML not loadable (%s: %s)", library, err ? err : "?");
        return 0;
    }
    void *lib = api->library;
    nvml_return (*init)(void) = (nvml_return(*)(void))symbol(lib, "nvmlInit_v2");
    api->by_bus = (nvml_return(*)(const char *, nvml_device *))symbol(
        lib, "nvmlDeviceGetHandleByPciBusId_v2");
    api->shutdown = (nvml_return(*)(void))symbol(lib, "nvmlShutdown");
    api->energy_mj = (nvml_return(*)(nvml_device, unsigned long long *))symbol(
        lib, "nvmlDeviceGetTotalEnergyConsumption");
    api->clock =
        (nvml_return(*)(nvml_device, int, unsigned *))symbol(lib, "nvmlDeviceGetClockInfo");
    api->max_clock =
        (nvml_return(*)(nvml_device, int, unsigned *))symbol(lib, "nvmlDeviceGetMaxClockInfo");
    api->temperature =
        (nvml_return(*)(nvml_device, int, unsigned *))symbol(lib, "nvmlDeviceGetTemperature");
    api->reasons = (nvml_return(*)(nvml_device, unsigned long long *))symbol(
        lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!api->reasons) /* its name before NVML 12.2 */
        api->reasons = (nvml_return(*)(nvml_device, unsigned long long *))symbol(
            lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    api->power_limit_mw =
        (nvml_return(*)(nvml_device, unsigned *))symbol(lib, "nvmlDeviceGetEnforcedPowerLimit");
    api->violation = (nvml_return(*)(nvml_device, int, nvml_violation *))symbol(
        lib, "nvmlDeviceGetViolationStatus");
    if (!init || !api->by_bus || !api->shutdown || !api->energy_mj) {
        snprintf(why, SPB_MSG_LEN, "%s lacks NVML's energy entry points", library);
        return 0;
    }
    if (init() != 0) {
        snprintf(why, SPB_MSG_LEN, "NVML did not start (nvmlInit)");
        api->shutdown = NULL;
        return 0;
    }
    return 1;
}

static void open_gpu(spb_energy_meters *m, const char *library, const char *pci_bus_id)
{
    if (!pci_bus_id || !pci_bus_id[0]) {
        snprintf(m->gpu_why, sizeof m->gpu_why, "no CUDA device");
        return;
    }
    if (!nvml_load(&m->nvml, library ? library : "libnvidia-ml.so.1", m->gpu_why)) return;
    unsigned long long mj = 0;
    if (m->nvml.by_bus(pci_bus_id, &m->nvml.device) != 0)
        snprintf(m->gpu_why, sizeof m->gpu_why, "NVML does not know the GPU at %s", pci_bus_id);
    else if (m->nvml.energy_mj(m->nvml.device, &mj) != 0)
        snprintf(m->gpu_why, sizeof m->gpu_why,
                 "NVML has no energy counter for this GPU (Volta and newer have one)");
    else
        m->gpu = 1;
}

/* ---- RAPL: /sys/class/powercap/intel-rapl:P (a package) and :P:D (its parts) ---- */

/* The first line of dir/name into out; 0 with why when it cannot be read. */
static int read_line(const char *dir, const char *name, char *out, size_t size, char *why)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    errno = 0;
    FILE *f = fopen(path, "r");
    if (!f || !fgets(out, (int)size, f)) {
        snprintf(why, SPB_MSG_LEN, "cannot read %.300s: %s", path, strerror(errno ? errno : EIO));
        if (f) fclose(f);
        return 0;
    }
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
    return 1;
}

/* A RAPL reading in microjoules: a finite number, not negative, within
 * the counter's range (when known); 0 with why for anything else (a
 * counter reading 'abc' or -5 is broken, not 0 J). */
static int parse_uj(const char *dir, const char *name, const char *text, double range, double *uj,
                    char *why)
{
    char *end;
    double v = strtod(text, &end);
    while (*end == ' ' || *end == '\r') end++;
    if (end == text || *end || !isfinite(v) || v < 0 || (range > 0 && v > range)) {
        snprintf(why, SPB_MSG_LEN, "%.300s/%s reads '%.40s', not a count of microjoules", dir, name,
                 text);
        return 0;
    }
    *uj = v;
    return 1;
}

/* Adds zone dir (a package, or a package's DRAM) when its counter reads. */
static int add_zone(spb_energy_meters *m, const char *dir, char *why)
{
    char name[64], range[64], now[64];
    if (!read_line(dir, "name", name, sizeof name, why) ||
        !read_line(dir, "max_energy_range_uj", range, sizeof range, why) ||
        !read_line(dir, "energy_uj", now, sizeof now, why))
        return 0;
    if (strncmp(name, "package", 7) != 0 && strcmp(name, "dram") != 0)
        return 1; /* core, uncore: inside the package */
    double range_uj, now_uj;
    if (!parse_uj(dir, "max_energy_range_uj", range, 0, &range_uj, why) ||
        !parse_uj(dir, "energy_uj", now, range_uj, &now_uj, why))
        return 0;
    if (m->zone_count == SPB_ENERGY_ZONES) return 1;
    rapl_zone *z = &m->zones[m->zone_count++];
    snprintf(z->dir, sizeof z->dir, "%s", dir);
    z->range_uj = range_uj;
    size_t used = strlen(m->zone_names);
    snprintf(m->zone_names + used, sizeof m->zone_names - used, "%s%s", used ? ", " : "", name);
    return 1;
}

static int rapl_entry(const char *name) { return strncmp(name, "intel-rapl:", 11) == 0; }

static void open_cpu(spb_energy_meters *m, const char *root)
{
    DIR *d = opendir(root);
    if (!d) {
        snprintf(m->cpu_why, sizeof m->cpu_why,
                 "no RAPL counters (%s: %s; a virtual machine usually hides them)", root,
                 strerror(errno));
        return;
    }
    char why[SPB_MSG_LEN] = "", dir[600];
    int readable = 1;
    for (struct dirent *e; (e = readdir(d)) != NULL && readable;) {
        if (!rapl_entry(e->d_name)) continue;
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        readable = add_zone(m, dir, why);
    }
    closedir(d);
    if (!readable) {
        m->zone_count = 0; /* a part of the machine unread would be a part missing */
        snprintf(m->cpu_why, sizeof m->cpu_why, "RAPL counters not readable (%.400s)", why);
    } else if (m->zone_count == 0) {
        snprintf(m->cpu_why, sizeof m->cpu_why,
                 "no RAPL package counters under %s (a virtual machine usually hides them)", root);
    }
}

spb_energy_meters *energy_open(const char *nvml_library, const char *pci_bus_id,
                               const char *powercap_root)
{
    spb_energy_meters *m = spb_calloc(1, sizeof *m);
    if (!m) return NULL;
    open_gpu(m, nvml_library, pci_bus_id);
    open_cpu(m, powercap_root ? powercap_root : "/sys/class/powercap");
    return m;
}

void energy_close(spb_energy_meters *m)
{
    if (!m) return;
    if (m->nvml.shutdown) m->nvml.shutdown();
    if (m->nvml.library) dlclose(m->nvml.library);
    spb_free(m);
}

int energy_available(const spb_energy_meters *m, int gpu)
{
    return m && (gpu ? m->gpu : m->zone_count > 0);
}

const char *energy_why(const spb_energy_meters *m, int gpu)
{
    if (!m) return "out of memory for the energy counters";
    return gpu ? m->gpu_why : m->cpu_why;
}

const char *energy_cpu_zones(const spb_energy_meters *m) { return m ? m->zone_names : ""; }

/* One of NVML's unsigned readings (MHz, degrees) of the GPU, or NAN where it says none. */
static double nvml_reading(const spb_energy_meters *m,
                           nvml_return (*get)(nvml_device, int, unsigned *), int which)
{
    unsigned v = 0;
    return get && get(m->nvml.device, which, &v) == 0 ? (double)v : NAN;
}

int energy_gpu_info(const spb_energy_meters *m, spb_gpu_power_info *info)
{
    if (!energy_available(m, 1)) return 0;
    unsigned mw = 0;
    info->power_limit_w =
        m->nvml.power_limit_mw && m->nvml.power_limit_mw(m->nvml.device, &mw) == 0 ? mw / 1e3 : NAN;
    info->sm_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_SM);
    info->mem_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_MEM);
    info->sm_max_mhz = nvml_reading(m, m->nvml.max_clock, NVML_CLOCK_SM);
    info->mem_max_mhz = nvml_reading(m, m->nvml.max_clock, NVML_CLOCK_MEM);
    info->temp_c = nvml_reading(m, m->nvml.temperature, NVML_TEMPERATURE_GPU);
    return 1;
}

/* ---- readings ---- */

void energy_init(spb_energy *e)
{
    e->joules_per_product = e->watts = e->err = e->sm_mhz = e->mem_mhz = e->temp_c = NAN;
    e->throttled = -1;
    e->reasons[0] = '\0';
    e->window_s = e->periods = NAN;
    e->chained = e->late_wakes = 0;
}

void energy_throttle_mark(const spb_energy_meters *m, spb_throttle_mark *mark)
{
    *mark = (spb_throttle_mark){0};
    if (!energy_available(m, 1)) return;
    if (m->nvml.reasons) m->nvml.reasons(m->nvml.device, &mark->reasons);
    for (int policy = NVML_POLICY_POWER; m->nvml.violation && policy <= NVML_POLICY_THERMAL;
         policy++) {
        nvml_violation v = {0, 0};
        if (m->nvml.violation(m->nvml.device, policy, &v) == 0)
            mark->limited_ns += v.violation_time;
    }
}

void energy_reasons_text(unsigned long long reasons, char *out, size_t size)
{
    static const struct {
        unsigned long long bit;
        const char *name;
    } names[] = {{SPB_THROTTLE_SW_POWER, "power cap"},
                 {SPB_THROTTLE_HW_POWER, "power brake"},
                 {SPB_THROTTLE_HW_SLOW, "hardware slowdown"},
                 {SPB_THROTTLE_SW_HEAT, "heat"},
                 {SPB_THROTTLE_HW_HEAT, "heat (hardware)"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof names[0] && used < size; k++)
        if (reasons & names[k].bit) {
            int n = snprintf(out + used, size - used, "%s%s", used ? "; " : "", names[k].name);
            if (n < 0) break;
            used += (size_t)n;
        }
}

int energy_throttled_between(const spb_energy_meters *m, const spb_throttle_mark *before,
                             const spb_throttle_mark *after, spb_energy *e)
{
    if (!energy_available(m, 1)) return 0;
    unsigned long long seen = (before->reasons | after->reasons) & SPB_THROTTLE_ANY;
    int limited = after->limited_ns > before->limited_ns;
    if (e->throttled < 0) e->throttled = 0;
    if (!seen && !limited) return 0;
    e->throttled = 1;
    if (!seen) seen = SPB_THROTTLE_SW_POWER; /* NVML counted time under a limit, of power or heat */
    char text[SPB_THROTTLE_TEXT_LEN];
    energy_reasons_text(seen, text, sizeof text);
    if (!e->reasons[0]) snprintf(e->reasons, sizeof e->reasons, "%s", text);
    return 1;
}

/* The side's counter, joules since an arbitrary start; each RAPL zone's
 * raw microjoules into uj (for the wrap). 0 with why when it did not read. */
static int read_counter(const spb_energy_meters *m, int gpu, double *uj, char *why)
{
    if (gpu) {
        unsigned long long mj = 0;
        if (m->nvml.energy_mj(m->nvml.device, &mj) != 0) {
            snprintf(why, SPB_MSG_LEN, "NVML's energy counter did not read");
            return 0;
        }
        uj[0] = (double)mj * 1e3;
        return 1;
    }
    for (int z = 0; z < m->zone_count; z++) {
        char now[64];
        if (!read_line(m->zones[z].dir, "energy_uj", now, sizeof now, why) ||
            !parse_uj(m->zones[z].dir, "energy_uj", now, m->zones[z].range_uj, &uj[z], why))
            return 0;
    }
    return 1;
}

/* Joules between two readings; a RAPL counter that passed its range
 * wrapped once (a pass is far shorter than a wrap, minutes at least). */
static double joules_between(const spb_energy_meters *m, int gpu, const double *a, const double *b)
{
    if (gpu) return (b[0] - a[0]) * 1e-6;
    double uj = 0;
    for (int z = 0; z < m->zone_count; z++)
        uj += b[z] >= a[z] ? b[z] - a[z] : b[z] + (m->zones[z].range_uj - a[z]) + 1;
    return uj * 1e-6;
}

/* The GPU's clocks and temperature, between chunks of the pass. */
static void read_clocks(const spb_energy_meters *m, spb_energy *e)
{
    e->sm_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_SM);
    e->mem_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_MEM);
    e->temp_c = nvml_reading(m, m->nvml.temperature, NVML_TEMPERATURE_GPU);
}

#define ENERGY_CHUNK_S    2e-3   /* products between two looks at the counter's reader */
#define ENERGY_SETTLE_S   0.02   /* products before a window may open: the counter lags the power */
#define ENERGY_CHAIN_S    5e-3   /* a pass this soon after another's opens its window there */
#define ENERGY_STUCK_S    1.0    /* a counter still for this long under products is dead */
#define ENERGY_NAP_NS     200000 /* between two readings of a counter that reads at once (RAPL) */
#define ENERGY_MARGIN_S   0.015  /* woken this long before the change expected to close a window */
#define ENERGY_MARGIN_MAX 0.5    /* the margin learnt: at most this share of the period */
#define ENERGY_LATE_WAKES 4      /* sleeps again at most this often after waking past a change */

/* The side's counter as read: when the reading began and ended (NVML's
 * takes milliseconds) and what it held. */
typedef struct {
    double from, to;
    double uj[SPB_ENERGY_ZONES];
} reading;

static int take_reading(const spb_energy_meters *m, int gpu, reading *r, char *why)
{
    r->from = timing_now();
    int ok = read_counter(m, gpu, r->uj, why);
    r->to = timing_now();
    return ok;
}

static int counter_moved(const spb_energy_meters *m, int gpu, const reading *a, const reading *b)
{
    for (int z = 0; z < (gpu ? 1 : m->zone_count); z++)
        if (a->uj[z] != b->uj[z]) return 1;
    return 0;
}

/* The change between two readings: after the first began, before the
 * second ended; taken mid-way. */
static spb_energy_edge change_between(int gpu, const reading *before, const reading *after)
{
    spb_energy_edge edge = {.valid = 1,
                            .gpu = gpu,
                            .at = 0.5 * (before->from + after->to),
                            .half_gap = 0.5 * (after->to - before->from),
                            .seen = after->to};
    memcpy(edge.uj, after->uj, sizeof edge.uj);
    return edge;
}

/* The counter's reader, a thread beside the products (so they run on
 * while it reads). It reads without pause until the window opens on a
 * change (the first after ENERGY_SETTLE_S of products, unless open
 * already holds one), then sleeps until just before the change that can
 * close it (from the counter's period, when known), and reads again until
 * that change: inside the window it reads only at its end, since a read
 * of NVML's counter slows the products beside it. Then it sets done. */
typedef struct {
    const spb_energy_meters *m;
    int gpu;
    double start;
    spb_energy_window window;
    spb_energy_edge open, close;
    spb_energy found; /* clocks and throttling, read under load */
    pthread_mutex_t lock;
    int done, quit; /* under lock: the reader finished; the products failed */
    int dead;       /* the counter did not move under products */
    spb_status status;
    char msg[SPB_MSG_LEN];
} counter_reader;

static int reader_flag(counter_reader *r, int *flag, int set)
{
    pthread_mutex_lock(&r->lock);
    if (set) *flag = 1;
    int value = *flag;
    pthread_mutex_unlock(&r->lock);
    return value;
}

/* Reads until the counter moves from *last (a change after `after`
 * seconds of the pass, when given); the change into *seen. 0 when it
 * failed or was told to quit (r->status says which). */
static int next_change(counter_reader *r, reading *last, double after, spb_energy_edge *seen)
{
    char why[SPB_MSG_LEN] = "";
    double moved_at = last->to;
    for (reading now; r->status == SPB_OK && !reader_flag(r, &r->quit, 0); *last = now) {
        if (!r->gpu) nanosleep(&(struct timespec){0, ENERGY_NAP_NS}, NULL);
        if (!take_reading(r->m, r->gpu, &now, why)) {
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
        } else if (counter_moved(r->m, r->gpu, last, &now)) {
            *seen = change_between(r->gpu, last, &now);
            moved_at = now.to;
            if (last->from >= after) {
                *last = now;
                return 1;
            }
        } else if (now.to - moved_at > ENERGY_STUCK_S) { /* a working counter moves: stuck */
            r->dead = 1;
            r->status = spb_fail(r->msg, SPB_ERR_IO,
                                 "the %s energy counter did not move over %.2g s of products: a "
                                 "dead counter, not 0 W",
                                 r->gpu ? "GPU's" : "CPU's", now.to - moved_at);
        }
    }
    return 0;
}

/* Sleeps until `until` (timing_now's clock), in slices, unless told to quit. */
static void sleep_until(counter_reader *r, double until)
{
    for (double left; (left = until - timing_now()) > 0 && !reader_flag(r, &r->quit, 0);) {
        double nap = left < 0.01 ? left : 0.01;
        nanosleep(&(struct timespec){0, (long)(nap * 1e9)}, NULL);
    }
}

/* The reading on waking before the change that closes the window. A
 * busy machine may wake the reader after that change: then it sleeps
 * again until just before the next one (rather than reading through a
 * period, which slows the products), and *quiet says a change went
 * unseen. 0 when a read failed. */
static int wake_before_change(counter_reader *r, reading before, double period, double *margin,
                              reading *woke, int *quiet)
{
    for (int wakes = 0;; wakes++) {
        char why[SPB_MSG_LEN] = "";
        if (!take_reading(r->m, r->gpu, woke, why)) {
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
            return 0;
        }
        if (!counter_moved(r->m, r->gpu, &before, woke)) return 1;
        *quiet = 0;
        r->found.late_wakes++;
        if (!(period > 0) || wakes == ENERGY_LATE_WAKES) return 1;
        /* the change came sooner than the margin allowed for (the
         * counter's jitter, or the machine woke the reader late): a wider
         * margin, which costs reads, not a period */
        *margin = fmin(2 * *margin, ENERGY_MARGIN_MAX * period);
        double next = r->open.at + ceil((woke->to - r->open.at) / period) * period;
        if (next - woke->to < 2 * ENERGY_MARGIN_S) return 1; /* near: read up to it */
        before = *woke;
        sleep_until(r, next - *margin);
    }
}

/* How a window closes: on the steps-th change of the counter (period
 * apart), at least `need` after it opened; the reader sleeps until `wait`
 * after the opening. */
typedef struct {
    int steps;
    double period, need, wait;
} window_plan;

/* The window's plan: a whole number of the counter's periods, less a
 * margin for its jitter (learnt: wider after a late wake, narrower after
 * each pass that woke in time). A window of several steps needs the
 * period: where no pass has learnt it yet and this pass opened the window
 * on *last, it reads on to the next change (once a run and side). */
static window_plan plan_window(counter_reader *r, reading *last, double margin)
{
    window_plan p = {.steps = 1, .period = r->open.period, .need = r->window.seconds};
    spb_energy_edge next;
    if (r->open.valid && !(p.period > 0) && r->window.periods > 1 && last &&
        next_change(r, last, 0, &next))
        p.period = next.at - r->open.at;
    p.wait = p.need;
    if (p.period > 0) { /* the steps-th change, give or take its jitter */
        p.steps = (int)ceil(fmax(p.need, r->window.periods * p.period) / p.period - 1e-9);
        p.wait = fmax(p.need, p.steps * p.period - margin);
        p.need = fmax(p.need, (p.steps - 0.5) * p.period);
    }
    return p;
}

static void *read_counter_beside(void *arg)
{
    counter_reader *r = arg;
    spb_throttle_mark before, after;
    if (r->gpu) energy_throttle_mark(r->m, &before);
    char why[SPB_MSG_LEN] = "";
    reading last;
    spb_energy_edge seen;
    int opened_here = 0;
    r->status = SPB_OK;
    if (!r->open.valid) { /* a chained window is open already: no read inside it */
        if (!take_reading(r->m, r->gpu, &last, why))
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
        else if (next_change(r, &last, r->start + ENERGY_SETTLE_S, &seen)) {
            seen.period = r->open.period; /* learnt before: kept */
            seen.margin = r->open.margin;
            r->open = seen;
            opened_here = 1;
        }
    }
    if (r->gpu && r->open.valid) read_clocks(r->m, &r->found); /* under load */
    double margin = r->open.margin > 0 ? r->open.margin : ENERGY_MARGIN_S;
    const window_plan plan = plan_window(r, opened_here ? &last : NULL, margin);
    const double period = plan.period, need = plan.need, wait = plan.wait;
    const int steps = plan.steps;
    reading last_step = {0}; /* the counter before the closing change, as last read */
    memcpy(last_step.uj, r->open.uj, sizeof last_step.uj);
    if (r->open.valid && steps > 1) { /* one read mid-way through the last step */
        sleep_until(r, r->open.at + (steps - 0.5) * period);
        if (!take_reading(r->m, r->gpu, &last_step, why))
            r->status = spb_fail(r->msg, SPB_ERR_IO, "%s", why);
    }
    if (r->open.valid) sleep_until(r, r->open.at + wait);
    reading woke;
    int quiet = 1; /* no change unseen while asleep */
    int closed = r->open.valid && r->status == SPB_OK &&
                 wake_before_change(r, last_step, period, &margin, &woke, &quiet);
    /* the throttle counters now, not after the close: their reads take
     * milliseconds, and the next row's pass chains only if it starts
     * within ENERGY_CHAIN_S of the change */
    if (closed && r->gpu) energy_throttle_mark(r->m, &after);
    while (closed && (closed = next_change(r, &woke, 0, &seen)) && seen.at - r->open.at < need)
        quiet = 0;
    if (closed) {
        r->close = seen;
        /* one period from a window with no change unseen in its last step,
         * averaged with those before (each is placed only to its readings'
         * gaps, and NVML's period jitters) */
        double one = (seen.at - r->open.at) / steps;
        r->close.period = !quiet ? period : period > 0 ? 0.75 * period + 0.25 * one : one;
        r->close.margin = quiet ? fmax(ENERGY_MARGIN_S, 0.9 * margin) : margin;
        if (r->gpu) energy_throttled_between(r->m, &before, &after, &r->found);
    }
    reader_flag(r, &r->done, 1);
    return NULL;
}

/* Runs the products in chunks until the reader is done. */
static spb_status products_beside(counter_reader *r, spb_time_calls_fn calls, void *ctx,
                                  int per_chunk)
{
    while (!reader_flag(r, &r->done, 0))
        if (calls(ctx, per_chunk) < 0) {
            reader_flag(r, &r->quit, 1);
            return SPB_ERR_DEVICE;
        }
    return SPB_OK;
}

/* The figures from the window: watts over it, and a product's energy at
 * that power and the product's timed pace (call_seconds). Not the
 * products made within the window: the reads at its end slow them (on an
 * H200 they ran 1.36x their timed time, median), and the GPU's waits
 * would count as their energy. */
static spb_status window_figures(const counter_reader *r, double call_seconds, spb_energy *e,
                                 char *msg)
{
    double joules = joules_between(r->m, r->gpu, r->open.uj, r->close.uj);
    double window = r->close.at - r->open.at;
    if (!(joules > 0) || !(window > 0))
        return spb_fail(msg, SPB_ERR_IO, "the %s energy counter went backwards",
                        r->gpu ? "GPU's" : "CPU's");
    *e = r->found;
    e->watts = joules / window;
    e->joules_per_product = e->watts * call_seconds;
    /* the changes' places, and a chained window's start under the previous
     * row's products (up to the power's whole difference) */
    double from = r->open.at > r->start ? r->open.at : r->start;
    e->err = (r->open.half_gap + r->close.half_gap + (from - r->open.at)) / window;
    e->window_s = window;
    e->periods = r->close.period > 0 ? window / r->close.period : NAN;
    return SPB_OK;
}

spb_status energy_measure(spb_energy_meters *m, int gpu, spb_time_calls_fn calls, void *ctx,
                          double call_seconds, spb_energy_window window, spb_energy_edge *edge,
                          spb_energy *e, char *msg)
{
    if (!energy_available(m, gpu)) return SPB_ERR_DECLINED;
    if (m->dead_why[gpu][0])
        return spb_fail(msg, SPB_ERR_IO, "%s (found on an earlier row; not read again)",
                        m->dead_why[gpu]);
    double chunk = call_seconds > 0 ? floor(ENERGY_CHUNK_S / call_seconds) : 1;
    int per_chunk = chunk < 1 ? 1 : chunk > 1e7 ? 10000000 : (int)chunk;
    counter_reader r = {.m = m, .gpu = gpu, .start = timing_now(), .window = window};
    r.found = *e;
    /* a pass right after another's (the next row of a group) opens its
     * window where that one's closed */
    if (edge && edge->valid && edge->gpu == gpu && r.start - edge->seen < ENERGY_CHAIN_S) {
        r.open = *edge;
        r.found.chained = 1;
    } else if (edge && edge->gpu == gpu) { /* the counter's period and margin, learnt before */
        r.open.period = edge->period;
        r.open.margin = edge->margin;
    }
    if (edge) edge->valid = 0;
    pthread_t reader;
    pthread_mutex_init(&r.lock, NULL);
    if (pthread_create(&reader, NULL, read_counter_beside, &r) != 0) {
        pthread_mutex_destroy(&r.lock);
        return spb_fail(msg, SPB_ERR_IO, "cannot start the energy counter's reader");
    }
    spb_status st = products_beside(&r, calls, ctx, per_chunk);
    pthread_join(reader, NULL);
    pthread_mutex_destroy(&r.lock);
    if (st != SPB_OK) return spb_fail(msg, st, "products failed in the energy pass");
    if (r.status != SPB_OK && r.dead)
        snprintf(m->dead_why[gpu], sizeof m->dead_why[gpu], "%s", r.msg);
    if (r.status != SPB_OK) return spb_fail(msg, r.status, "%s", r.msg);
    st = window_figures(&r, call_seconds, e, msg);
    if (st == SPB_OK && edge) *edge = r.close;
    return st;
}
