/* summary.c — the end-of-run summary (see summary.h). */
#include "summary.h"

#include <math.h>
#include <string.h>

#include "../core/memory.h"

void summary_note(spb_summary *summary, const spb_result *r)
{
    if (r->status != SPB_ROW_OK) return;
    for (int k = summary->count - 1; k >= 0; k--) {
        spb_best *b = &summary->best[k];
        if (strcmp(b->matrix, r->matrix) != 0) break;
        if (b->threads != r->threads || b->ranks != r->ranks ||
            b->distributed != result_over_ranks(r))
            continue;
        b->noisy |= r->timing.noisy;
        if (r->timing.median < b->seconds) {
            b->kernel = r->kernel;
            b->precision = r->precision;
            b->seconds = r->timing.median;
            b->speedup = r->speedup;
            b->rank_speedup = r->rank_speedup;
            b->dist = r->dist;
        }
        return;
    }
    if (summary->count == summary->cap) {
        int cap = summary->cap ? summary->cap * 2 : 64;
        spb_best *grown = spb_realloc(summary->best, (size_t)cap, sizeof *grown);
        if (!grown) return; /* the summary is a convenience; the rows are on disk */
        summary->best = grown;
        summary->cap = cap;
    }
    spb_best *b = &summary->best[summary->count++];
    snprintf(b->matrix, sizeof b->matrix, "%s", r->matrix);
    b->kernel = r->kernel;
    b->precision = r->precision;
    b->threads = r->threads;
    b->ranks = r->ranks;
    b->distributed = result_over_ranks(r);
    b->seconds = r->timing.median;
    b->speedup = r->speedup;
    b->noisy = r->timing.noisy;
    b->rank_speedup = r->rank_speedup;
    b->dist = r->dist;
}

/* A best row's kernel as the table names it: fp32 rows say so, * marks noise. */
static void best_name(const spb_best *b, char *name, size_t size)
{
    int fp32 = strcmp(b->precision, "fp32") == 0;
    snprintf(name, size, "%s%s%s", b->kernel, fp32 ? "/fp32" : "", b->noisy ? " *" : "");
}

/* A figure with `decimals` digits after the point, or "-" where it does
 * not apply (NAN). */
static const char *figure(char *text, size_t size, int decimals, double v)
{
    if (isnan(v)) return "-";
    snprintf(text, size, "%.*f", decimals, v);
    return text;
}

/* The one-process rows' best kernel per matrix and thread count. */
static int print_best_local(FILE *out, const spb_summary *summary, const char *baseline, int width)
{
    int noisy = 0, printed = 0;
    for (int k = 0; k < summary->count; k++) {
        const spb_best *b = &summary->best[k];
        if (b->distributed) continue;
        if (printed++ == 0) {
            fprintf(out, "\n# best kernel per matrix and thread count (speedup over %s)\n",
                    baseline);
            fprintf(out, "%-24s %3s  %-*s %10s %8s\n", "matrix", "thr", width, "best kernel",
                    "median_ms", "speedup");
        }
        char kernel[128], speedup[32];
        best_name(b, kernel, sizeof kernel);
        fprintf(out, "%-24.24s %3d  %-*s %10.3e %8s\n", b->matrix, b->threads, width, kernel,
                b->seconds * 1e3, figure(speedup, sizeof speedup, 2, b->speedup));
        noisy += b->noisy;
    }
    return noisy;
}

/* The distributed rows' best per matrix, rank count and threads per rank,
 * with what a PETSc -log_view reader looks for: the split of the time,
 * the bytes, the neighbours and the balance. */
static int print_best_distributed(FILE *out, const spb_summary *summary, int width)
{
    int noisy = 0, printed = 0;
    for (int k = 0; k < summary->count; k++) {
        const spb_best *b = &summary->best[k];
        if (!b->distributed) continue;
        if (printed++ == 0) {
            fprintf(out, "\n# best distributed row per matrix, rank count and threads per rank "
                         "(rank_spd: over the same row at one rank)\n");
            fprintf(out, "%-24s %5s %3s  %-*s %10s %8s %9s %9s %10s %4s %6s\n", "matrix", "ranks",
                    "thr", width, "best kernel", "median_ms", "rank_spd", "compute_ms", "comm_ms",
                    "MB_sent", "nbrs", "imbal");
        }
        char kernel[128], spd[32], compute[32], comm[32], sent[32], nbrs[32], imbal[32];
        best_name(b, kernel, sizeof kernel);
        fprintf(out, "%-24.24s %5d %3d  %-*s %10.3e %8s %9s %9s %10s %4s %6s\n", b->matrix,
                b->ranks, b->threads, width, kernel, b->seconds * 1e3,
                figure(spd, sizeof spd, 2, b->rank_speedup),
                figure(compute, sizeof compute, 4, b->dist.compute_s * 1e3),
                figure(comm, sizeof comm, 4, b->dist.comm_s * 1e3),
                figure(sent, sizeof sent, 3, b->dist.bytes_max / 1e6),
                figure(nbrs, sizeof nbrs, 0, b->dist.neighbours),
                figure(imbal, sizeof imbal, 2, b->dist.imbalance));
        noisy += b->noisy;
    }
    return noisy;
}

void summary_print(FILE *out, const spb_summary *summary, const char *baseline)
{
    if (summary->count == 0) return;
    int width = 20; /* the longest name decides the column: no row pushed out of line */
    for (int k = 0; k < summary->count; k++) {
        char kernel[128];
        best_name(&summary->best[k], kernel, sizeof kernel);
        if ((int)strlen(kernel) > width) width = (int)strlen(kernel);
    }
    int noisy = print_best_local(out, summary, baseline, width);
    noisy += print_best_distributed(out, summary, width);
    if (noisy)
        fprintf(out, "# * ranked among noisy rows (%d of %d): the order may not hold\n", noisy,
                summary->count);
}

void summary_free(spb_summary *summary)
{
    spb_free(summary->best);
    *summary = (spb_summary){0};
}
