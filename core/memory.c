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

/* This process's cgroup for the memory controller, from /proc/self/cgroup:
 * the unified hierarchy's ("0::/path", v2) or the memory controller's
 * (v1); "" when not found. */
static void own_cgroup(int v2, char *path, size_t size)
{
    path[0] = '\0';
    FILE *f = fopen("/proc/self/cgroup", "r");
    if (!f) return;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char *controllers = strchr(line, ':'),
             *where = controllers ? strchr(controllers + 1, ':') : NULL;
        if (!where) continue;
        *where++ = '\0';
        where[strcspn(where, "\n")] = '\0';
        controllers++;
        int mine = v2 ? strcmp(line, "0") == 0 && *controllers == '\0'
                      : strstr(controllers, "memory") != NULL;
        if (mine) {
            snprintf(path, size, "%s", where);
            break;
        }
    }
    fclose(f);
}

/* The room every cgroup from this process's own up to the root leaves
 * (a limit anywhere above applies too): under `base`, `limit` and `used`
 * are the files; v1 says "no limit" with a huge number. */
static void consider_cgroups(spb_memory_room *room, int v2, const char *base, const char *limit,
                             const char *used, const char *bound)
{
    char path[1024], file[1400];
    own_cgroup(v2, path, sizeof path);
    for (;;) {
        snprintf(file, sizeof file, "%s%s/%s", base, path, limit);
        double most = read_number(file);
        if (most >= 0 && most < 1e18) {
            snprintf(file, sizeof file, "%s%s/%s", base, path, used);
            double now = read_number(file);
            consider(room, most - (now > 0 ? now : 0), bound);
        }
        char *slash = strrchr(path, '/');
        if (!slash || path[0] == '\0') break;
        *slash = '\0'; /* the parent; "" is the root */
    }
}

spb_memory_room spb_memory_room_now(void)
{
    spb_memory_room room = {-1, "unknown"};
    const char *cap = getenv("SPB_MEMORY_LIMIT"); /* a user's own cap, in bytes */
    if (cap && *cap) consider(&room, strtod(cap, NULL), "SPB_MEMORY_LIMIT");
    consider(&room, mem_available(), "MemAvailable");
    /* this process's own cgroup and those above it, not the hierarchy's root
     * alone: a container's or a job's limit is set there */
    consider_cgroups(&room, 1, "/sys/fs/cgroup", "memory.max", "memory.current",
                     "cgroup memory.max");
    consider_cgroups(&room, 1, "/sys/fs/cgroup/unified", "memory.max", "memory.current",
                     "cgroup memory.max");
    consider_cgroups(&room, 0, "/sys/fs/cgroup/memory", "memory.limit_in_bytes",
                     "memory.usage_in_bytes", "cgroup memory.limit_in_bytes");
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

spb_status spb_memory_check_device(double need, double free_bytes, double total_bytes,
                                   const char *what, const char *detail, char *msg)
{
    if (free_bytes < 0 || total_bytes < 0 || need <= free_bytes) return SPB_OK;
    char need_text[32], free_text[32], total_text[32];
    format_bytes(need_text, sizeof need_text, need);
    format_bytes(free_text, sizeof free_text, free_bytes);
    format_bytes(total_text, sizeof total_text, total_bytes);
    if (need > total_bytes)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "%s needs about %s (%s); more than the device's whole memory, %s", what,
                        need_text, detail, total_text);
    return spb_fail(msg, SPB_ERR_NOMEM, "%s needs about %s (%s); %s free of the device's %s", what,
                    need_text, detail, free_text, total_text);
}
