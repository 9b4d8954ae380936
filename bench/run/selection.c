/* selection.c — the kernels of an operation's table picked by name:
 * patterns, availability here, the nearest names to a typo; the table's
 * room (see selection.h). */
#include "bench/run/selection.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/run/operation.h"
#include "gpu/gpu.h"
#include "mpi/dist.h"

const spb_kernel **kernel_table(int count)
{
    const spb_kernel **table = spb_calloc((size_t)count + 1, sizeof(const spb_kernel *));
    if (!table) {
        fprintf(stderr, "spbench: out of memory for the kernel table\n");
        exit(EXIT_FAILURE);
    }
    return table;
}

const spb_kernel *operation_kernel(const spb_operation *op, const char *name)
{
    for (int k = 0; k < op->kernel_count; k++)
        if (strcmp(op->kernels[k]->name, name) == 0) return op->kernels[k];
    return NULL;
}

int kernel_unavailable(const spb_kernel *kernel, char *why)
{
    /* a distributed row: what the machine lacks, not "not under MPI" (the launcher's) */
    if (kernel_over_ranks(kernel)) return dist_compiled() && dist_kernel_unavailable(kernel, why);
    return kernel->supports && !kernel->supports(kernel, NULL, why);
}

int kernel_chosen(const spb_kernel *kernel, const char *patterns, int distributed)
{
    char why[SPB_MSG_LEN];
    if (patterns && *patterns)
        return kernel_named(kernel->name, patterns) ||
               (kernel_selected(kernel->name, patterns) && !kernel_unavailable(kernel, why));
    return kernel_over_ranks(kernel) == distributed && !kernel_unavailable(kernel, why);
}

int kernel_left_out(const spb_kernel *kernel, const char *patterns, int distributed, char *why)
{
    if (patterns && *patterns)
        return kernel_selected(kernel->name, patterns) && !kernel_named(kernel->name, patterns) &&
               kernel_unavailable(kernel, why);
    return kernel_over_ranks(kernel) == distributed && kernel_unavailable(kernel, why);
}

/* Edit distance (insertions, deletions, substitutions) of two short names. */
static int edit_distance(const char *a, const char *b)
{
    enum { MAX = 64 };
    int la = (int)strlen(a), lb = (int)strlen(b), row[MAX + 1];
    if (la > MAX || lb > MAX) return MAX;
    for (int j = 0; j <= lb; j++) row[j] = j;
    for (int i = 1; i <= la; i++) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= lb; j++) {
            int above = row[j];
            int best = diagonal + (a[i - 1] != b[j - 1]);
            if (above + 1 < best) best = above + 1;
            if (row[j - 1] + 1 < best) best = row[j - 1] + 1;
            row[j] = best;
            diagonal = above;
        }
    }
    return row[lb];
}

/* How far a name is from what was asked: first by the parts before the
 * first dot ("csrr" against "csr", "librsb"), then by the whole with any
 * wildcard dropped; lower is nearer. */
static int nearness(const char *asked, const char *name)
{
    char literal[256], head_a[64], head_n[64];
    size_t used = 0;
    for (const char *p = asked; *p && used + 1 < sizeof literal; p++)
        if (!strchr("*?[]", *p)) literal[used++] = *p;
    literal[used] = '\0';
    snprintf(head_a, sizeof head_a, "%.*s", (int)strcspn(literal, "."), literal);
    snprintf(head_n, sizeof head_n, "%.*s", (int)strcspn(name, "."), name);
    return 1000 * edit_distance(head_a, head_n) + edit_distance(literal, name);
}

void kernel_nearest(const spb_kernel *const *table, int count, const char *asked, char *out,
                    size_t size)
{
    const char *near[3] = {NULL, NULL, NULL};
    int dist[3] = {1 << 30, 1 << 30, 1 << 30};
    for (int k = 0; k < count; k++) {
        int d = nearness(asked, table[k]->name);
        for (int n = 0; n < 3; n++)
            if (d < dist[n]) {
                for (int m = 2; m > n; m--) near[m] = near[m - 1], dist[m] = dist[m - 1];
                near[n] = table[k]->name;
                dist[n] = d;
                break;
            }
    }
    snprintf(out, size, "%s%s%s%s%s", near[0] ? near[0] : "", near[1] ? ", " : "",
             near[1] ? near[1] : "", near[2] ? ", " : "", near[2] ? near[2] : "");
}

spb_status kernel_patterns_check(const spb_kernel *const *table, int count, const char *patterns,
                                 char *msg)
{
    char pattern[256], near[512];
    while (patterns && *patterns) {
        size_t len = strcspn(patterns, ",");
        snprintf(pattern, sizeof pattern, "%.*s", (int)len, patterns);
        patterns += len + (patterns[len] == ',');
        int matched = 0;
        for (int k = 0; k < count && !matched; k++)
            matched = fnmatch(pattern, table[k]->name, 0) == 0;
        if (matched) continue;
        kernel_nearest(table, count, pattern, near, sizeof near);
        const char *no_gpu = gpu_absent_why(); /* the GPU's rows are not in the table then */
        return spb_fail(msg, SPB_ERR_INVALID,
                        "--kernels: '%s' matches no kernel; the nearest names: %s (spbench --list "
                        "names them all)%s%s",
                        pattern, near, no_gpu ? "; no GPU kernels here: " : "",
                        no_gpu ? no_gpu : "");
    }
    return SPB_OK;
}

int kernel_named(const char *name, const char *patterns)
{
    const size_t len = strlen(name);
    for (const char *p = patterns; p && *p;) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, name, len) == 0) return 1;
        p += item + (p[item] == ',');
    }
    return 0;
}

int kernel_selected(const char *name, const char *patterns)
{
    if (!patterns || !*patterns) return 1;
    char pattern[256];
    while (*patterns) {
        size_t len = strcspn(patterns, ",");
        if (len > 0 && len < sizeof pattern) {
            memcpy(pattern, patterns, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, name, 0) == 0) return 1;
        }
        patterns += len + (patterns[len] == ',');
    }
    return 0;
}
