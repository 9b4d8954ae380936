/* cli.c — the command line's shared parsing. A usage error ends the
 * program here (exit status 2): the one place besides main() that exits,
 * so that each command reads as a list of options. */
#include "bench/cli/cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- option parsing ----------------------------------------------------------- */

/* Matches "--name VALUE" or "--name=VALUE" at argv[*i]; advances *i. */
int option_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    size_t len = strlen(name);
    if (strncmp(argv[*i], name, len) != 0) return 0;
    if (argv[*i][len] == '=') {
        *value = argv[*i] + len + 1;
        return 1;
    }
    if (argv[*i][len] != '\0') return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "spbench: %s needs a value\n", name);
        exit(EXIT_USAGE);
    }
    const char *next = argv[*i + 1];
    if (strncmp(next, "--", 2) == 0 && next[2] != '\0') { /* `--csv --json x.json` */
        fprintf(stderr,
                "spbench: %s needs a value, not the option %s (a value that starts with -- is "
                "given as %s=VALUE)\n",
                name, next, name);
        exit(EXIT_USAGE);
    }
    *value = argv[++*i];
    return 1;
}

long parse_long(const char *name, const char *text, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    int digits = text[0] == '-' ? isdigit((unsigned char)text[1]) : isdigit((unsigned char)text[0]);
    if (!digits || errno || *end || v < min || v > max) {
        fprintf(stderr, "spbench: %s expects an integer from %ld to %ld, not '%s'\n", name, min,
                max, text);
        exit(EXIT_USAGE);
    }
    return v;
}

/* Whole decimal string as a positive long, or `otherwise`. */
static long parse_count_or(const char *text, long otherwise)
{
    char *end;
    errno = 0;
    long v = strtol(text, &end, 10);
    return errno || end == text || *end ? otherwise : v;
}

double parse_double(const char *name, const char *text, double min)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= min) || !isfinite(v)) {
        fprintf(stderr, "spbench: %s expects a number >= %g, not '%s'\n", name, min, text);
        exit(EXIT_USAGE);
    }
    return v;
}

void unknown_option(const char *arg)
{
    fprintf(stderr, "spbench: unknown option '%s' (see spbench --help)\n", arg);
    exit(EXIT_USAGE);
}

spb_source_list expand_or_exit(int count, char **items)
{
    spb_source_list list;
    char msg[SPB_MSG_LEN] = "";
    if (count == 0) {
        fprintf(stderr, "spbench: no MATRIX given (see spbench --help)\n");
        exit(EXIT_USAGE);
    }
    if (sources_expand(count, items, &list, msg) != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        exit(EXIT_USAGE);
    }
    if (list.left_out)
        fprintf(stderr,
                "spbench: warning: %d entr%s named like matrices left out of the folders listed "
                "(not readable as files), e.g. %s\n",
                list.left_out, list.left_out == 1 ? "y" : "ies", list.left_out_example);
    if (list.count == 0) {
        fprintf(stderr,
                "spbench: no matrix found in %s%s (a folder is searched for .mtx, .mtx.gz, "
                ".mtx.bz2 and .mtx.xz files)\n",
                items[0], count > 1 ? " and the other arguments" : "");
        exit(EXIT_USAGE);
    }
    return list;
}

/* v into the list of *count values unless it is there already; 0 when
 * the list is full. */
static int add_distinct(int *values, int *count, int cap, int v)
{
    for (int k = 0; k < *count; k++)
        if (values[k] == v) return 1;
    if (*count == cap) return 0;
    values[(*count)++] = v;
    return 1;
}

static void sort_ascending(int *values, int count)
{
    for (int a = 1; a < count; a++) /* insertion sort: lists are short */
        for (int b = a; b > 0 && values[b - 1] > values[b]; b--) {
            int swap = values[b];
            values[b] = values[b - 1];
            values[b - 1] = swap;
        }
}

/* Parses a thread list: "1,2,4", "1-8", "max" and mixes ("1,2-4,max") into
 * ascending distinct counts; exits on a bad list. */
int parse_count_list(const char *option, const char *text, int *counts, int cap)
{
    int max = omp_get_num_procs(), count = 0;
    char item[64];
    const char *p = text;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item) goto bad;
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        char *dash = strchr(item, '-');
        if (dash) *dash = '\0';
        long lo = strcmp(item, "max") == 0 ? max : parse_count_or(item, -1);
        long hi = !dash ? lo : strcmp(dash + 1, "max") == 0 ? max : parse_count_or(dash + 1, -1);
        if (lo < 1 || hi < lo || hi > SPB_MAX_THREADS) goto bad;
        for (long t = lo; t <= hi; t++)
            if (!add_distinct(counts, &count, cap, (int)t)) goto bad;
    }
    if (count == 0) goto bad;
    sort_ascending(counts, count);
    return count;
bad:
    fprintf(stderr,
            "spbench: %s '%s': give counts from 1 to %d (this machine has %d "
            "processors), at most %d of them, like 1,2,4 or 1-8 or max\n",
            option, text, SPB_MAX_THREADS, max, cap);
    exit(EXIT_USAGE);
}

int parse_value_list(const char *option, const char *text, long min, long max, int *values, int cap)
{
    int count = 0;
    const char *p = text;
    while (*p) {
        char item[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof item) goto bad;
        memcpy(item, p, len);
        item[len] = '\0';
        p += len + (p[len] == ',');
        long v = parse_count_or(item, min - 1);
        if (v < min || v > max || !add_distinct(values, &count, cap, (int)v)) goto bad;
    }
    if (count == 0 || p[-1] == ',') goto bad;
    sort_ascending(values, count);
    return count;
bad:
    fprintf(stderr,
            "spbench: %s '%s': give integers from %ld to %ld, at most %d of them, like 64 or "
            "64,128,256\n",
            option, text, min, max, cap);
    exit(EXIT_USAGE);
}

void refuse_existing_or_exit(const char *path, int force)
{
    struct stat sb;
    if (force || !path || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) return;
    fprintf(stderr, "spbench: %s exists; --force replaces it\n", path);
    exit(EXIT_USAGE);
}

void on_stop_signals(void (*handler)(int), int flags)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}
