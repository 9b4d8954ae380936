/* energy_meters.c — the energy counters: NVML (loaded at run time) for the
 * GPU, RAPL's powercap files for the CPU, and the GPU's clocks and
 * throttle reasons (see energy.h; the energy pass over them: energy.c). */
#include "bench/machine/energy_meters.h"

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
    spb_appendf(m->zone_names, sizeof m->zone_names, "%s%s", m->zone_names[0] ? ", " : "", name);
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
    out[0] = '\0';
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (reasons & names[k].bit)
            spb_appendf(out, size, "%s%s", out[0] ? "; " : "", names[k].name);
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
int read_counter(const spb_energy_meters *m, int gpu, double *uj, char *why)
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
double joules_between(const spb_energy_meters *m, int gpu, const double *a, const double *b)
{
    if (gpu) return (b[0] - a[0]) * 1e-6;
    double uj = 0;
    for (int z = 0; z < m->zone_count; z++)
        uj += b[z] >= a[z] ? b[z] - a[z] : b[z] + (m->zones[z].range_uj - a[z]) + 1;
    return uj * 1e-6;
}

/* The GPU's clocks and temperature, between chunks of the pass. */
void read_clocks(const spb_energy_meters *m, spb_energy *e)
{
    e->sm_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_SM);
    e->mem_mhz = nvml_reading(m, m->nvml.clock, NVML_CLOCK_MEM);
    e->temp_c = nvml_reading(m, m->nvml.temperature, NVML_TEMPERATURE_GPU);
}

int energy_zone_count(const spb_energy_meters *m, int gpu) { return gpu ? 1 : m->zone_count; }

const char *energy_dead_why(const spb_energy_meters *m, int gpu) { return m->dead_why[gpu]; }

void energy_mark_dead(spb_energy_meters *m, int gpu, const char *why)
{
    snprintf(m->dead_why[gpu], sizeof m->dead_why[gpu], "%s", why);
}
