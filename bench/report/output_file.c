/* output_file.c — claimed, locked results files (see output_file.h). */
#include "bench/report/output_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* The process holding a flock on the file (from /proc/locks), or 0. */
static long lock_holder(int fd)
{
    struct stat sb;
    FILE *locks = fopen("/proc/locks", "r");
    if (!locks || fstat(fd, &sb) != 0) {
        if (locks) fclose(locks);
        return 0;
    }
    char line[256];
    long holder = 0;
    while (!holder && fgets(line, sizeof line, locks)) {
        char kind[16];
        long pid;
        unsigned major_dev, minor_dev;
        unsigned long inode;
        if (sscanf(line, "%*d: %15s %*s %*s %ld %x:%x:%lu", kind, &pid, &major_dev, &minor_dev,
                   &inode) == 5 &&
            strcmp(kind, "FLOCK") == 0 && major_dev == major(sb.st_dev) &&
            minor_dev == minor(sb.st_dev) && inode == (unsigned long)sb.st_ino && pid != getpid())
            holder = pid;
    }
    fclose(locks);
    return holder;
}

spb_status output_claim(spb_output *o, const char *path, const char *option, int append, char *msg)
{
    *o = (spb_output){path, option, -1, 0, 0};
    struct stat sb;
    int existed = stat(path, &sb) == 0;
    o->fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : 0), 0666);
    if (o->fd < 0)
        return spb_fail(msg, SPB_ERR_IO, "%s %s: cannot write: %s", option, path, strerror(errno));
    o->created = !existed;
    if (fstat(o->fd, &sb) == 0) o->regular = S_ISREG(sb.st_mode);
    if (!o->regular || flock(o->fd, LOCK_EX | LOCK_NB) == 0) return SPB_OK;
    long holder = errno == EWOULDBLOCK ? lock_holder(o->fd) : 0;
    char who[64] = "another process";
    if (holder) snprintf(who, sizeof who, "another process (pid %ld)", holder);
    spb_status st = spb_fail(
        msg, SPB_ERR_IO, "%s %s: %s is writing this file; wait for it to end or write elsewhere",
        option, path, errno == EWOULDBLOCK ? who : strerror(errno));
    close(o->fd); /* created is left: the file is the other run's */
    o->fd = -1;
    return st;
}

spb_status output_claim_temp(spb_output *o, const char *temp, const char *option, char *msg)
{
    *o = (spb_output){temp, option, spb_temp_fd(temp), 1, 1};
    if (o->fd < 0)
        return spb_fail(msg, SPB_ERR_IO, "%s %s: cannot write: %s", option, temp, strerror(errno));
    return SPB_OK;
}

long output_temp_writer(const char *path)
{
    char dir[SPB_PATH_LEN], prefix[SPB_PATH_LEN];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path) snprintf(dir, sizeof dir, "/");
    snprintf(prefix, sizeof prefix, "%s.tmp.", slash ? slash + 1 : path);
    size_t len = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d) return 0;
    long writer = 0;
    struct dirent *e;
    while (!writer && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strncmp(e->d_name, prefix, len) == 0 ? strtol(e->d_name + len, &end, 10) : 0;
        if (pid <= 0 || *end || pid == (long)getpid()) continue;
        char other[8192];
        snprintf(other, sizeof other, "%s/%s", dir, e->d_name);
        int fd = open(other, O_RDONLY);
        if (fd < 0) continue;
        if (flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) writer = pid;
        close(fd);
    }
    closedir(d);
    return writer;
}

int output_is_file(const spb_output *o, const char *path)
{
    struct stat so, sp;
    return o->fd >= 0 && path && fstat(o->fd, &so) == 0 && stat(path, &sp) == 0 &&
           so.st_dev == sp.st_dev && so.st_ino == sp.st_ino;
}

FILE *output_stream(spb_output *o, int empty_it, char *msg)
{
    if (empty_it && o->regular && ftruncate(o->fd, 0) != 0) {
        spb_fail(msg, SPB_ERR_IO, "%s: cannot empty: %s", o->path, strerror(errno));
        return NULL;
    }
    FILE *f = fdopen(o->fd, "w");
    if (!f) {
        spb_fail(msg, SPB_ERR_IO, "%s: cannot write: %s", o->path, strerror(errno));
        return NULL;
    }
    o->fd = -1; /* the stream owns it now */
    return f;
}

void output_abandon(spb_output *o)
{
    if (o->fd < 0) return;
    struct stat sb;
    if (o->created && o->regular && fstat(o->fd, &sb) == 0 && sb.st_size == 0) unlink(o->path);
    close(o->fd);
    o->fd = -1;
}
