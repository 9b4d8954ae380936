/* memory.c — the memory this process may still take (see memory.h). */
#include "memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* A number from the first line of a file ("max" and unreadable: -1). */
static double read_number(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char text[64] = "";
    double v = -1;
    if (fgets(text, sizeof text, f) && strncmp(text, "max", 3) != 0 && sscanf(text, "%lf", &v) != 1)
        v = -1;
    fclose(f);
    return v;
}

static double mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return -1;
    char line[256];
    double kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
    fclose(f);
    return kib < 0 ? -1 : kib * 1024.0;
}

/* Bytes of address space this process has mapped (/proc/self/statm). */
static double mapped_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return 0;
    double pages = 0;
    if (fscanf(f, "%lf", &pages) != 1) pages = 0;
    fclose(f);
    return pages * (double)sysconf(_SC_PAGESIZE);
}

static void consider(spb_memory_room *room, double bytes, const char *bound)
{
    if (bytes < 0) return;
    if (room->bytes < 0 || bytes < room->bytes) {
        room->bytes = bytes;
        room->bound = bound;
    }
}

spb_memory_room spb_memory_room_now(void)
{
    spb_memory_room room = {-1, "unknown"};
    const char *cap = getenv("SPB_MEMORY_LIMIT"); /* a user's own cap, in bytes */
    if (cap && *cap) consider(&room, strtod(cap, NULL), "SPB_MEMORY_LIMIT");
    consider(&room, mem_available(), "MemAvailable");
    double limit = read_number("/sys/fs/cgroup/memory.max");
    if (limit >= 0) {
        double used = read_number("/sys/fs/cgroup/memory.current");
        consider(&room, limit - (used > 0 ? used : 0), "cgroup memory.max");
    }
    limit = read_number("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (limit >= 0 && limit < 1e18) { /* v1 says "no limit" with a huge number */
        double used = read_number("/sys/fs/cgroup/memory/memory.usage_in_bytes");
        consider(&room, limit - (used > 0 ? used : 0), "cgroup memory.limit_in_bytes");
    }
    static const struct {
        int resource;
        const char *name;
    } rlimits[] = {{RLIMIT_AS, "RLIMIT_AS"}, {RLIMIT_DATA, "RLIMIT_DATA"}};
    for (size_t k = 0; k < sizeof rlimits / sizeof rlimits[0]; k++) {
        struct rlimit rl;
        if (getrlimit(rlimits[k].resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            consider(&room, (double)rl.rlim_cur - mapped_bytes(), rlimits[k].name);
    }
    if (room.bytes < 0) room.bytes = -1;
    return room;
}

/* "12.50 GiB", or MiB below one GiB. */
static void format_bytes(char *text, size_t size, double bytes)
{
    const double mib = 1024.0 * 1024.0;
    if (bytes >= 1024.0 * mib)
        snprintf(text, size, "%.2f GiB", bytes / (1024.0 * mib));
    else
        snprintf(text, size, "%.1f MiB", bytes > 0 ? bytes / mib : 0.0);
}

spb_status spb_memory_check(double need, const char *what, const char *detail, char *msg)
{
    spb_memory_room room = spb_memory_room_now();
    if (room.bytes < 0 || need <= room.bytes) return SPB_OK;
    char need_text[32], room_text[32];
    format_bytes(need_text, sizeof need_text, need);
    format_bytes(room_text, sizeof room_text, room.bytes);
    return spb_fail(msg, SPB_ERR_TOO_LARGE, "%s needs about %s (%s); %s available (%s)", what,
                    need_text, detail, room_text, room.bound);
}
