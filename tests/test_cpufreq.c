/* test_cpufreq.c — the header's word on CPU clocks, read from a sysfs tree
 * made here: every CPU on the performance governor with turbo off is
 * steady; a powersave CPU, or turbo on (intel_pstate's no_turbo 0, or the
 * generic boost 1), may drift, and the governors are counted; an offline
 * CPU (no cpufreq folder) is passed over; no cpufreq at all cannot tell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/machine/cpufreq.h"
#include "check.h"

static char root[64];

static void put(const char *relative, const char *text)
{
    char path[512], folder[512];
    snprintf(path, sizeof path, "%s/%s", root, relative);
    for (char *slash = strchr(path + strlen(root) + 1, '/'); slash;
         slash = strchr(slash + 1, '/')) {
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
        mkdir(folder, 0755);
    }
    if (!text) { /* a folder only */
        mkdir(path, 0755);
        return;
    }
    FILE *f = fopen(path, "w");
    CHECK(f != NULL, "cannot write %s", path);
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static int state(char *out, size_t size) { return cpufreq_state(root, out, size); }

int main(void)
{
    snprintf(root, sizeof root, "/tmp/spb_cpufreq_XXXXXX");
    if (!mkdtemp(root)) return 1;
    char said[512];
    CHECK(state(said, sizeof said) == -1 && strstr(said, "cannot tell"),
          "no cpufreq: cannot tell: %s", said);
    put("cpu0/cpufreq/scaling_governor", "performance");
    put("cpu1/cpufreq/scaling_governor", "performance");
    put("cpu2", NULL); /* offline: no cpufreq */
    put("cpu3/cpufreq/scaling_governor", "performance");
    put("intel_pstate/no_turbo", "1");
    CHECK(state(said, sizeof said) == 0 && strstr(said, "performance on 3 of 3 CPUs") &&
              strstr(said, "turbo off") && strstr(said, "steady"),
          "performance, turbo off: steady: %s", said);
    put("intel_pstate/no_turbo", "0");
    CHECK(state(said, sizeof said) == 1 && strstr(said, "turbo on") && strstr(said, "may drift"),
          "turbo on may drift: %s", said);
    put("intel_pstate/no_turbo", "1");
    put("cpu1/cpufreq/scaling_governor", "powersave");
    CHECK(state(said, sizeof said) == 1 && strstr(said, "performance on 2 of 3 CPUs") &&
              strstr(said, "powersave on 1 of 3 CPUs") && strstr(said, "may drift"),
          "a powersave CPU may drift, the governors counted: %s", said);
    put("cpu1/cpufreq/scaling_governor", "performance");
    char path[256];
    snprintf(path, sizeof path, "%s/intel_pstate/no_turbo", root);
    unlink(path);
    put("cpufreq/boost", "1");
    CHECK(state(said, sizeof said) == 1 && strstr(said, "turbo on"), "boost 1 is turbo on: %s",
          said);
    put("cpufreq/boost", "0");
    CHECK(state(said, sizeof said) == 0 && strstr(said, "turbo off"), "boost 0 is off: %s", said);
    char small[24];
    CHECK(state(small, sizeof small) == 0 && strlen(small) < sizeof small,
          "a short buffer is filled, not overrun");
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    CHECK(system(command) == 0, "cannot remove %s", root);
    return check_done();
}
