/* cpufreq.h — whether the CPUs' clocks may drift under a study: the
 * cpufreq governors (anything but "performance" lowers the clock when idle
 * and raises it under load, so a row's first samples run slower than its
 * last) and turbo or boost (the clock above base while the package stays
 * cool, so long studies slow down as it warms), as google/benchmark warns of
 * CPU scaling. Read from sysfs; a machine without cpufreq there (most VMs
 * and containers) cannot tell, and says so. */
#ifndef SPB_CPUFREQ_H
#define SPB_CPUFREQ_H

#include <stddef.h>

/* One sentence on the CPUs' frequency scaling into out; returns 1 when
 * timings may drift (a governor other than performance, or turbo on), 0
 * when they should not, -1 when sysfs cannot tell. `sysfs_cpu` is the
 * folder of cpu0, cpu1, ... (NULL: /sys/devices/system/cpu). */
int cpufreq_state(const char *sysfs_cpu, char *out, size_t size);

#endif
