/* spb.c — status strings, first-error-wins messages, checked allocation. */
#include "spb.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

const char *spb_status_str(spb_status status)
{
    switch (status) {
    case SPB_OK: return "ok";
    case SPB_ERR_IO: return "i/o error";
    case SPB_ERR_PARSE: return "parse error";
    case SPB_ERR_UNSUPPORTED: return "unsupported";
    case SPB_ERR_DECLINED: return "declined";
    case SPB_ERR_TOO_LARGE: return "too large";
    case SPB_ERR_NOMEM: return "out of memory";
    case SPB_ERR_INVALID: return "invalid";
    case SPB_ERR_DEVICE: return "device error";
    }
    return "unknown status";
}

const char *spb_precision_str(spb_precision precision)
{
    switch (precision) {
    case SPB_FP64: return "fp64";
    case SPB_FP32: return "fp32";
    case SPB_C128: return "complex128";
    case SPB_C64: return "complex64";
    }
    return "unknown";
}

int spb_precision_parse(const char *name, spb_precision *precision)
{
    for (int p = 0; p < SPB_PRECISIONS; p++)
        if (strcmp(name, spb_precision_str((spb_precision)p)) == 0) {
            *precision = (spb_precision)p;
            return 1;
        }
    return 0;
}

size_t spb_precision_bytes(spb_precision precision)
{
    switch (precision) {
    case SPB_FP64: return sizeof(double);
    case SPB_FP32: return sizeof(float);
    case SPB_C128: return 2 * sizeof(double);
    case SPB_C64: return 2 * sizeof(float);
    }
    return sizeof(double);
}

double spb_precision_unit_roundoff(spb_precision precision)
{
    return spb_precision_single(precision) ? 0x1p-24 : 0x1p-53;
}

spb_status spb_fail(char *msg, spb_status status, const char *fmt, ...)
{
    if (msg && msg[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, SPB_MSG_LEN, fmt, ap);
        va_end(ap);
    }
    return status;
}

int spb_vappendf(char *buf, size_t size, const char *fmt, va_list ap)
{
    if (!buf || size == 0) return 0;
    const char *end = memchr(buf, '\0', size);
    if (!end) { /* no string within size: ended at the last byte, full */
        buf[size - 1] = '\0';
        return 0;
    }
    const size_t used = (size_t)(end - buf);
    const int wanted = vsnprintf(buf + used, size - used, fmt, ap);
    if (wanted < 0) buf[used] = '\0'; /* an encoding error: nothing appended */
    return wanted >= 0 && (size_t)wanted < size - used;
}

int spb_appendf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const int fit = spb_vappendf(buf, size, fmt, ap);
    va_end(ap);
    return fit;
}

static long alloc_fail_index = -1;
static long alloc_calls = 0;
static double alloc_bytes = 0;

void spb_alloc_fail_at(long index)
{
    alloc_fail_index = index;
    alloc_calls = 0;
    alloc_bytes = 0;
}

long spb_alloc_count(void) { return alloc_calls; }

double spb_alloc_bytes(void) { return alloc_bytes; }

/* Counts the call and its bytes; reports whether an injected failure is due. */
static int injected_failure(size_t bytes)
{
    long call = alloc_calls++;
    alloc_bytes += (double)bytes;
    return alloc_fail_index >= 0 && call == alloc_fail_index;
}

static size_t checked_bytes(size_t count, size_t size, int *overflow)
{
    *overflow = size != 0 && count > SIZE_MAX / size;
    size_t bytes = count * size;
    return bytes ? bytes : 1;
}

void *spb_malloc(size_t count, size_t size)
{
    int overflow;
    size_t bytes = checked_bytes(count, size, &overflow);
    if (overflow || injected_failure(bytes)) return NULL;
    return malloc(bytes);
}

void *spb_calloc(size_t count, size_t size)
{
    int overflow;
    size_t bytes = checked_bytes(count, size, &overflow);
    if (overflow || injected_failure(bytes)) return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *spb_realloc(void *ptr, size_t count, size_t size)
{
    int overflow;
    size_t bytes = checked_bytes(count, size, &overflow);
    if (overflow || injected_failure(bytes)) return NULL;
    return realloc(ptr, bytes);
}

void spb_free(void *ptr) { free(ptr); }

int spb_grow(void **items, int *cap, int count, int first, size_t size)
{
    if (count < *cap) return 1;
    int grown_cap = *cap ? 2 * *cap : first;
    void *grown = spb_realloc(*items, (size_t)grown_cap, size);
    if (!grown) return 0;
    *items = grown;
    *cap = grown_cap;
    return 1;
}

spb_index spb_lower_bound(const spb_index *sorted, spb_index lo, spb_index hi, int64_t target)
{
    while (lo < hi) {
        spb_index mid = lo + (hi - lo) / 2;
        if (sorted[mid] < target)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int spb_utf8_len(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] == 0) return 0;
    if (u[0] < 0x80) return 1;
    int len = u[0] >= 0xf0 && u[0] <= 0xf4 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc2 ? 2 : 0;
    if (len == 0 || (u[0] >= 0xe0 && len == 2)) return 0;
    for (int k = 1; k < len; k++)
        if ((u[k] & 0xc0) != 0x80) return 0;
    unsigned cp = len == 2   ? (u[0] & 0x1fu) << 6 | (u[1] & 0x3fu)
                  : len == 3 ? (u[0] & 0x0fu) << 12 | (u[1] & 0x3fu) << 6 | (u[2] & 0x3fu)
                             : (u[0] & 0x07u) << 18 | (u[1] & 0x3fu) << 12 | (u[2] & 0x3fu) << 6 |
                                   (u[3] & 0x3fu);
    int overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

void spb_clean_name(char *name)
{
    for (char *p = name; *p;) {
        int len = spb_utf8_len(p);
        if (len == 0 || (len == 1 && ((unsigned char)*p < 0x20 || *p == 0x7f))) {
            *p++ = '?';
            continue;
        }
        p += len;
    }
}

/* The temporary files being written now (a process writes one or two),
 * each with the descriptor that holds its lock until it is done. */
#define TEMP_SLOTS 8
static char temp_paths[TEMP_SLOTS][SPB_PATH_LEN];
static int temp_fds[TEMP_SLOTS];
static volatile sig_atomic_t temp_used[TEMP_SLOTS];

/* Removes path's own leftovers, PATH.tmp.PID, that no process holds locked
 * (their writer died: a lock ends with its process, on any host and in any
 * PID namespace). Nothing else in the folder is looked at: a file that only
 * looks like a temporary one belongs to someone else. */
static void sweep_stale(const char *path)
{
    char dir[SPB_PATH_LEN], prefix[1024];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    int len = snprintf(prefix, sizeof prefix, "%s.tmp.", slash ? slash + 1 : path);
    if (len < 0 || (size_t)len >= sizeof prefix) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *digits = e->d_name + len;
        if (strncmp(e->d_name, prefix, (size_t)len) != 0 || !*digits ||
            strspn(digits, "0123456789") != strlen(digits))
            continue;
        char stale[4096 + 256];
        snprintf(stale, sizeof stale, "%s/%s", dir, e->d_name);
        int fd = open(stale, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        struct stat held, named;
        if (fd < 0) continue;
        /* unlinked only while this process holds its lock, and only if the
         * name still is the file that was locked */
        if (fstat(fd, &held) == 0 && S_ISREG(held.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            lstat(stale, &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino)
            unlink(stale);
        close(fd);
    }
    closedir(d);
}

/* Creates buf and locks it; the descriptor, or -1 with the reason in msg.
 * A sweep by another process may remove the file between its creation and
 * its lock: then it is made again. */
static int create_locked(const char *buf, const char *path, char *msg)
{
    for (int attempt = 0; attempt < 8; attempt++) {
        int fd = open(buf, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) {
            spb_fail(msg, SPB_ERR_IO, "%s: cannot create %s: %s", path, buf, strerror(errno));
            return -1;
        }
        if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
            spb_fail(msg, SPB_ERR_IO,
                     "%s: %s is locked by another process (another host's or another PID "
                     "namespace's, with this process's id): write elsewhere",
                     path, buf);
            close(fd);
            return -1;
        }
        struct stat held, named;
        if (fstat(fd, &held) == 0 && lstat(buf, &named) == 0 && held.st_dev == named.st_dev &&
            held.st_ino == named.st_ino) {
            if (ftruncate(fd, 0) == 0) return fd;
            spb_fail(msg, SPB_ERR_IO, "%s: cannot empty %s: %s", path, buf, strerror(errno));
            close(fd);
            return -1;
        }
        close(fd);
    }
    spb_fail(msg, SPB_ERR_IO, "%s: %s keeps being removed by another process", path, buf);
    return -1;
}

spb_status spb_temp_path(char *buf, size_t size, const char *path, char *msg)
{
    int len = snprintf(buf, size, "%s.tmp.%ld", path, (long)getpid());
    int slot = 0;
    while (slot < TEMP_SLOTS && temp_used[slot]) slot++;
    if (len < 0 || (size_t)len >= size || (size_t)len >= sizeof temp_paths[0] ||
        slot == TEMP_SLOTS) {
        if (size) buf[0] = '\0';
        return spb_fail(msg, SPB_ERR_IO, "%s: %s", path,
                        slot == TEMP_SLOTS ? "too many files written at once"
                                           : "the path is too long");
    }
    sweep_stale(path);
    int fd = create_locked(buf, path, msg);
    if (fd < 0) {
        buf[0] = '\0'; /* not this process's: nothing to remove */
        return SPB_ERR_IO;
    }
    memcpy(temp_paths[slot], buf, (size_t)len + 1);
    temp_fds[slot] = fd;
    temp_used[slot] = 1;
    return SPB_OK;
}

int spb_temp_fd(const char *buf)
{
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_used[k] && strcmp(temp_paths[k], buf) == 0) return dup(temp_fds[k]);
    errno = ENOENT;
    return -1;
}

void spb_temp_done(const char *buf)
{
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_used[k] && strcmp(temp_paths[k], buf) == 0) {
            temp_used[k] = 0;
            close(temp_fds[k]);
        }
}

void spb_temp_remove_all(void)
{
    for (int k = 0; k < TEMP_SLOTS; k++)
        if (temp_used[k]) unlink(temp_paths[k]);
}

int spb_self_path(char *path, size_t size)
{
    if (size < 2) return 0;
    ssize_t len = readlink("/proc/self/exe", path, size - 1);
    if (len <= 0 || (size_t)len >= size - 1) { /* unread, or perhaps cut short */
        path[0] = '\0';
        return 0;
    }
    path[len] = '\0';
    return 1;
}

int spb_self_dir(char *dir, size_t size)
{
    char *slash;
    if (!spb_self_path(dir, size) || !(slash = strrchr(dir, '/'))) return 0;
    *(slash == dir ? slash + 1 : slash) = '\0';
    return 1;
}
