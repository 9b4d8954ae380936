/* cpufreq.c — the CPUs' frequency governors and turbo state (cpufreq.h). */
#include "bench/machine/cpufreq.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/spb.h"

/* The first line of a small sysfs file, without its newline; 0 when absent. */
static int read_line(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int got = fgets(out, (int)size, f) != NULL;
    fclose(f);
    if (got) out[strcspn(out, "\n")] = '\0';
    return got;
}

#define GOVERNORS 4 /* distinct governors named; more are counted as others */

int cpufreq_state(const char *sysfs_cpu, char *out, size_t size)
{
    const char *root = sysfs_cpu ? sysfs_cpu : "/sys/devices/system/cpu";
    char path[512], value[64], names[GOVERNORS][64];
    int counts[GOVERNORS] = {0}, kinds = 0, cpus = 0, others = 0;
    for (int cpu = 0; cpu < 4096; cpu++) {
        snprintf(path, sizeof path, "%s/cpu%d/cpufreq/scaling_governor", root, cpu);
        if (!read_line(path, value, sizeof value)) {
            snprintf(path, sizeof path, "%s/cpu%d", root, cpu);
            struct stat st;
            if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) break; /* past the last CPU */
            continue; /* an offline CPU, or one without cpufreq */
        }
        cpus++;
        int k = 0;
        while (k < kinds && strcmp(names[k], value) != 0) k++;
        if (k == kinds && kinds < GOVERNORS) snprintf(names[kinds++], sizeof names[0], "%s", value);
        if (k < kinds)
            counts[k]++;
        else
            others++;
    }
    if (cpus == 0) {
        snprintf(out, size,
                 "cannot tell whether the CPUs' clocks scale (no cpufreq in %s: a "
                 "VM or a container)",
                 root);
        return -1;
    }
    int drift = others > 0;
    snprintf(out, size, "governor");
    for (int k = 0; k < kinds; k++) {
        spb_appendf(out, size, "%s %s on %d of %d CPUs", k ? "," : "", names[k], counts[k], cpus);
        drift |= strcmp(names[k], "performance") != 0;
    }
    /* turbo: intel_pstate's no_turbo (0: on), or the generic boost (1: on) */
    const char *turbo = NULL;
    snprintf(path, sizeof path, "%s/intel_pstate/no_turbo", root);
    if (read_line(path, value, sizeof value)) turbo = strcmp(value, "0") == 0 ? "on" : "off";
    snprintf(path, sizeof path, "%s/cpufreq/boost", root);
    if (!turbo && read_line(path, value, sizeof value))
        turbo = strcmp(value, "1") == 0 ? "on" : "off";
    spb_appendf(out, size, "; turbo %s", turbo ? turbo : "unknown");
    drift |= turbo && strcmp(turbo, "on") == 0;
    spb_appendf(out, size, "%s",
                drift ? ": clocks may drift during the study (the performance governor and "
                        "turbo off keep them steady)"
                      : ": steady");
    return drift;
}
