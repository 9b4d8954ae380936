/* roofline_cache.c — a machine's CPU bandwidth figures kept between runs
 * (see roofline.h): one line per key (host, CPU, CPUs, cache, build) and
 * thread count, tab-separated, with the time it was measured. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/machine/roofline.h"

#define LINE_FIELDS 11 /* key, threads, read best/median/worst/trials, triad's, time */

void roofline_cache_path(char *out, size_t size)
{
    const char *given = getenv("SPB_BANDWIDTH_CACHE");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (given && *given)
        snprintf(out, size, "%s", given);
    else if (xdg && *xdg)
        snprintf(out, size, "%s/spbench/bandwidth.tsv", xdg);
    else
        snprintf(out, size, "%s/.cache/spbench/bandwidth.tsv", home && *home ? home : "/tmp");
}

typedef struct {
    char key[1024];
    int threads;
    spb_bw_stat read, triad;
    double at;
} cache_line;

/* A decimal number, whole text, within [low, high]: 1 and *v, else 0
 * (strtod alone takes hex, inf and nan). */
static int parse_figure(const char *text, double low, double high, double *v)
{
    if (!*text || strspn(text, "0123456789.eE+-") != strlen(text)) return 0;
    char *end;
    errno = 0;
    double got = strtod(text, &end);
    if (*end || errno == ERANGE || !(got >= low && got <= high)) return 0;
    *v = got;
    return 1;
}

int roofline_parse_gbps(const char *text, double *gbps)
{
    return parse_figure(text, ROOFLINE_MIN_GBPS, ROOFLINE_MAX_GBPS, gbps);
}

/* A whole decimal count of at least `min` (up to a million), or -1. */
static long parse_count(const char *text, long min)
{
    if (!*text || strspn(text, "0123456789") != strlen(text) || strlen(text) > 7) return -1;
    long v = strtol(text, NULL, 10);
    return v >= min && v <= 1000000 ? v : -1;
}

/* One line of the file into c; 0 when it is not one (a line of another
 * version, cut short, or a figure that is not a plausible bandwidth: such a
 * line is measured again, never reused). */
static int parse_line(char *line, cache_line *c)
{
    char *fields[LINE_FIELDS];
    int n = 0;
    for (char *p = line; n < LINE_FIELDS; n++) {
        fields[n] = p;
        p = strchr(p, '\t');
        if (!p) {
            n++;
            break;
        }
        *p++ = '\0';
    }
    if (n != LINE_FIELDS) return 0;
    fields[LINE_FIELDS - 1][strcspn(fields[LINE_FIELDS - 1], "\n")] = '\0';
    snprintf(c->key, sizeof c->key, "%s", fields[0]);
    long threads = parse_count(fields[1], 1);
    if (threads < 0) return 0;
    c->threads = (int)threads;
    spb_bw_stat *stats[2] = {&c->read, &c->triad};
    for (int s = 0; s < 2; s++) {
        memset(stats[s], 0, sizeof *stats[s]);
        long trials = parse_count(fields[5 + 4 * s], 1);
        /* the best pass is the roofline; the median and worst only describe it */
        if (!roofline_parse_gbps(fields[2 + 4 * s], &stats[s]->best) ||
            !parse_figure(fields[3 + 4 * s], 0, ROOFLINE_MAX_GBPS, &stats[s]->median) ||
            !parse_figure(fields[4 + 4 * s], 0, ROOFLINE_MAX_GBPS, &stats[s]->worst) ||
            trials < 0 || stats[s]->worst > stats[s]->median || stats[s]->median > stats[s]->best)
            return 0;
        stats[s]->trials = (int)trials;
    }
    char *end;
    c->at = strtod(fields[10], &end);
    return !*end && end != fields[10] && isfinite(c->at) && c->at > 0;
}

static void write_line(FILE *f, const char *key, int threads, const spb_bw_stat *read,
                       const spb_bw_stat *triad, double at)
{
    fprintf(f, "%s\t%d\t%.6g\t%.6g\t%.6g\t%d\t%.6g\t%.6g\t%.6g\t%d\t%.0f\n", key, threads,
            read->best, read->median, read->worst, read->trials, triad->best, triad->median,
            triad->worst, triad->trials, at);
}

int roofline_reuse(spb_roofline *r, const char *key, double max_age_s)
{
    char path[SPB_PATH_LEN];
    roofline_cache_path(path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int found[SPB_ROOFLINE_THREADS] = {0};
    spb_cpu_bandwidth figures[SPB_ROOFLINE_THREADS];
    double oldest = 0, now = (double)time(NULL);
    char line[2048];
    cache_line c;
    while (fgets(line, sizeof line, f)) {
        /* parse_line cuts the line up: once per line, then each thread count */
        if (!parse_line(line, &c) || strcmp(c.key, key) != 0 || now - c.at > max_age_s ||
            c.at > now + 60)
            continue;
        for (int k = 0; k < r->cpu_count; k++)
            if (c.threads == r->cpu[k].threads) {
                figures[k] = (spb_cpu_bandwidth){c.threads, c.read, c.triad};
                found[k] = 1;
                if (oldest == 0 || c.at < oldest) oldest = c.at;
            }
    }
    fclose(f);
    for (int k = 0; k < r->cpu_count; k++)
        if (!found[k]) return 0;
    for (int k = 0; k < r->cpu_count; k++) r->cpu[k] = figures[k];
    r->cpu_source = SPB_BW_REUSED;
    r->cpu_measured_at = oldest;
    return 1;
}

/* mkdir -p of path's folder. */
static int make_folder_of(const char *path)
{
    char dir[SPB_PATH_LEN];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) return 1;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) return 0;
            *p = '/';
        }
    return mkdir(dir, 0777) == 0 || errno == EEXIST;
}

int roofline_store(const spb_roofline *r, const char *key, char *why, size_t size)
{
    char path[SPB_PATH_LEN], temp[4200], msg[SPB_MSG_LEN] = "";
    roofline_cache_path(path, sizeof path);
    if (!make_folder_of(path)) {
        snprintf(why, size, "cannot create the folder of %s: %s", path, strerror(errno));
        return 0;
    }
    if (spb_temp_path(temp, sizeof temp, path, msg) != SPB_OK) {
        snprintf(why, size, "%s", msg);
        return 0;
    }
    FILE *out = fopen(temp, "w");
    if (!out) {
        snprintf(why, size, "cannot write %s: %s", temp, strerror(errno));
        unlink(temp);
        spb_temp_done(temp);
        return 0;
    }
    FILE *in = fopen(path, "r"); /* the other keys and thread counts stay */
    char line[2048], copy[2048];
    cache_line c;
    while (in && fgets(line, sizeof line, in)) {
        snprintf(copy, sizeof copy, "%s", line); /* parse_line cuts it up: once */
        int replaced = 0, mine = parse_line(copy, &c) && strcmp(c.key, key) == 0;
        for (int k = 0; k < r->cpu_count && mine && !replaced; k++)
            replaced = c.threads == r->cpu[k].threads;
        if (!replaced && strchr(line, '\n')) fputs(line, out);
    }
    if (in) fclose(in);
    for (int k = 0; k < r->cpu_count; k++)
        write_line(out, key, r->cpu[k].threads, &r->cpu[k].read, &r->cpu[k].triad,
                   r->cpu_measured_at);
    int failed = ferror(out);
    int stored = fclose(out) == 0 && !failed && rename(temp, path) == 0;
    if (!stored) {
        snprintf(why, size, "cannot write %s: %s", path, strerror(errno));
        unlink(temp);
    }
    spb_temp_done(temp);
    return stored;
}
