/* fake_nvml.c — a stand-in for libnvidia-ml.so.1 with the entry points
 * spbench loads: a GPU at one PCI bus id drawing a steady FAKE_WATTS, its
 * energy counter moving in steps of fake_nvml_step_ms (NVML's moves about
 * every 100 ms); the throttle reasons and violation time are set by the
 * test (fake_nvml_reasons, fake_nvml_limited_ns), and a read can be made
 * slow (a reader woken late on a busy machine). test_energy loads it as
 * bench/machine/energy.c loads NVML. */
#include <string.h>
#include <time.h>

#define FAKE_WATTS  150.0
#define FAKE_BUS_ID "00000000:19:00.0"

unsigned long long fake_nvml_reasons;
unsigned long long fake_nvml_limited_ns;
int fake_nvml_no_energy; /* 1: the counter is not supported (pre-Volta) */
int fake_nvml_step_ms = 10;
double fake_nvml_read_at[1 << 20]; /* when the energy counter was read (CLOCK_MONOTONIC s) */
int fake_nvml_reads;
int fake_nvml_slow_wake_ms; /* the next read after a pause of 50 ms takes this long, once */
int fake_nvml_violation_ms; /* each read of a violation counter takes this long */

static double started;
static int device_token;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int nvmlInit_v2(void);
int nvmlShutdown(void);
int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device);
int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj);
int nvmlDeviceGetClockInfo(void *device, int type, unsigned *mhz);
int nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned *mhz);
int nvmlDeviceGetTemperature(void *device, int sensor, unsigned *c);
int nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *reasons);
int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned *mw);
int nvmlDeviceGetViolationStatus(void *device, int policy, unsigned long long *time);

int nvmlInit_v2(void)
{
    started = now();
    return 0;
}

int nvmlShutdown(void) { return 0; }

int nvmlDeviceGetHandleByPciBusId_v2(const char *bus, void **device)
{
    if (strcmp(bus, FAKE_BUS_ID) != 0) return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *device = &device_token;
    return 0;
}

int nvmlDeviceGetTotalEnergyConsumption(void *device, unsigned long long *mj)
{
    if (device != &device_token) return 2;
    if (fake_nvml_no_energy) return 3; /* NVML_ERROR_NOT_SUPPORTED */
    static double last_read;
    if (fake_nvml_slow_wake_ms > 0 && now() - last_read > 50e-3) {
        nanosleep(&(struct timespec){0, fake_nvml_slow_wake_ms * 1000000L}, NULL);
        fake_nvml_slow_wake_ms = 0;
    }
    last_read = now();
    if (fake_nvml_reads < (int)(sizeof fake_nvml_read_at / sizeof *fake_nvml_read_at))
        fake_nvml_read_at[fake_nvml_reads++] = now();
    double ms = (now() - started) * 1e3;
    double stepped = (double)((unsigned long long)(ms / fake_nvml_step_ms) *
                              (unsigned long long)fake_nvml_step_ms);
    *mj = 5000000ULL + (unsigned long long)(stepped * FAKE_WATTS); /* W = mJ per ms */
    return 0;
}

int nvmlDeviceGetClockInfo(void *device, int type, unsigned *mhz)
{
    (void)device;
    *mhz = type == 2 ? 2619 : 1755;
    return 0;
}

int nvmlDeviceGetMaxClockInfo(void *device, int type, unsigned *mhz)
{
    (void)device;
    *mhz = type == 2 ? 2619 : 1980;
    return 0;
}

int nvmlDeviceGetTemperature(void *device, int sensor, unsigned *c)
{
    (void)device, (void)sensor;
    *c = 55;
    return 0;
}

int nvmlDeviceGetCurrentClocksEventReasons(void *device, unsigned long long *reasons)
{
    (void)device;
    *reasons = fake_nvml_reasons;
    return 0;
}

int nvmlDeviceGetEnforcedPowerLimit(void *device, unsigned *mw)
{
    (void)device;
    *mw = 700000;
    return 0;
}

/* nvmlViolationTime_t: reference time, then violation time (ns). */
int nvmlDeviceGetViolationStatus(void *device, int policy, unsigned long long *time)
{
    (void)device;
    if (fake_nvml_violation_ms > 0)
        nanosleep(&(struct timespec){0, fake_nvml_violation_ms * 1000000L}, NULL);
    time[0] = (unsigned long long)(now() * 1e9);
    time[1] = policy == 0 ? fake_nvml_limited_ns : 0;
    return 0;
}
