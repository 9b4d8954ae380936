/* summary.c — the end-of-run summary (see summary.h). */
#include "bench/report/summary.h"

#include <math.h>
#include <string.h>

#include "core/memory.h"
#include "core/timing.h"

/* The break-even list of r's kernel and precision, made when new (NULL:
 * no memory; the summary is a convenience, the rows are on disk). */
static spb_break_even *pays_of(spb_summary *summary, const spb_result *r)
{
    for (int k = 0; k < summary->pays_count; k++) {
        spb_break_even *b = &summary->pays[k];
        if (strcmp(b->kernel, r->kernel) == 0 && strcmp(b->precision, r->precision) == 0) return b;
    }
    if (!spb_grow((void **)&summary->pays, &summary->pays_cap, summary->pays_count, 8,
                  sizeof *summary->pays))
        return NULL;
    spb_break_even *b = &summary->pays[summary->pays_count++];
    *b = (spb_break_even){0};
    snprintf(b->kernel, sizeof b->kernel, "%s", r->kernel);
    snprintf(b->precision, sizeof b->precision, "%s", r->precision);
    return b;
}

static void note_break_even(spb_summary *summary, const spb_result *r)
{
    if (r->status != SPB_ROW_OK || isnan(r->break_even_products)) return;
    spb_break_even *b = pays_of(summary, r);
    if (!b) return;
    if (!spb_grow((void **)&b->products, &b->cap, b->count, 16, sizeof *b->products)) return;
    b->products[b->count++] = r->break_even_products;
}

/* r's kernel at its precision and setting among the means, added when new. */
static spb_kernel_mean *mean_of(spb_summary *summary, const spb_result *r)
{
    for (int k = 0; k < summary->means_count; k++) {
        spb_kernel_mean *m = &summary->means[k];
        if (strcmp(m->kernel, r->kernel) == 0 && strcmp(m->precision, r->precision) == 0 &&
            strcmp(m->sweep, r->sweep) == 0 && m->threads == r->threads && m->ranks == r->ranks)
            return m;
    }
    if (!spb_grow((void **)&summary->means, &summary->means_cap, summary->means_count, 16,
                  sizeof *summary->means))
        return NULL;
    spb_kernel_mean *m = &summary->means[summary->means_count++];
    *m = (spb_kernel_mean){.threads = r->threads, .ranks = r->ranks};
    snprintf(m->kernel, sizeof m->kernel, "%s", r->kernel);
    snprintf(m->precision, sizeof m->precision, "%s", r->precision);
    snprintf(m->sweep, sizeof m->sweep, "%s", r->sweep);
    return m;
}

static void note_mean(spb_summary *summary, const spb_result *r)
{
    if (r->status != SPB_ROW_OK || !(r->gflops > 0)) return;
    spb_kernel_mean *m = mean_of(summary, r);
    if (!m) return;
    m->log_gflops += log(r->gflops);
    m->count++;
    m->noisy += r->timing.noisy;
    if (r->speedup > 0) {
        m->log_speedup += log(r->speedup);
        m->with_speedup++;
    }
}

/* An ok device row at one rank, for the comparison with the vendor's best. */
static void note_device(spb_summary *summary, const spb_result *r, int vendor)
{
    if (r->status != SPB_ROW_OK || strcmp(r->backend, backend_name(SPB_BACKEND_CUDA)) != 0 ||
        result_over_ranks(r) || !(r->timing.median > 0))
        return;
    if (!spb_grow((void **)&summary->device, &summary->device_cap, summary->device_count, 64,
                  sizeof *summary->device))
        return;
    if (summary->device_matrices == 0 || strcmp(summary->device_matrix, r->matrix) != 0) {
        snprintf(summary->device_matrix, sizeof summary->device_matrix, "%s", r->matrix);
        summary->device_matrices++;
    }
    summary->device[summary->device_count++] = (spb_device_row){
        .matrix = summary->device_matrices,
        .kernel = r->kernel,
        .precision = r->precision,
        .seconds = r->timing.median,
        .vendor = vendor,
    };
}

void summary_note(spb_summary *summary, const spb_result *r, int vendor)
{
    note_break_even(summary, r);
    note_mean(summary, r);
    note_device(summary, r, vendor);
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
            snprintf(b->sweep, sizeof b->sweep, "%s", r->sweep);
            b->seconds = r->timing.median;
            b->speedup = r->speedup;
            b->rank_speedup = r->rank_speedup;
            b->dist = r->dist;
        }
        return;
    }
    if (!spb_grow((void **)&summary->best, &summary->cap, summary->count, 64,
                  sizeof *summary->best))
        return; /* the summary is a convenience; the rows are on disk */
    spb_best *b = &summary->best[summary->count++];
    snprintf(b->matrix, sizeof b->matrix, "%s", r->matrix);
    b->kernel = r->kernel;
    b->precision = r->precision;
    snprintf(b->sweep, sizeof b->sweep, "%s", r->sweep);
    b->threads = r->threads;
    b->ranks = r->ranks;
    b->distributed = result_over_ranks(r);
    b->seconds = r->timing.median;
    b->speedup = r->speedup;
    b->noisy = r->timing.noisy;
    b->rank_speedup = r->rank_speedup;
    b->dist = r->dist;
}

/* A kernel, its precision and swept settings as the table names them
 * (result_row_label, without the ranks the summaries give apart). */
static void summary_label(const char *kernel, const char *precision, const char *sweep, char *name,
                          size_t size)
{
    spb_result r;
    result_init(&r);
    r.kernel = kernel;
    r.precision = precision;
    r.sweep = sweep;
    result_row_label(&r, name, size);
}

/* A best row's kernel as the table names it, * marks noise. */
static void best_name(const spb_best *b, char *name, size_t size)
{
    summary_label(b->kernel, b->precision, b->sweep, name, size);
    size_t used = strlen(name);
    if (b->noisy && used + 2 < size) memcpy(name + used, " *", 3);
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

/* The best distributed row of b's matrix and threads at one rank, or NULL. */
static const spb_best *best_at_one_rank(const spb_summary *summary, const spb_best *b)
{
    for (int k = 0; k < summary->count; k++) {
        const spb_best *one = &summary->best[k];
        if (one->distributed && one->ranks == 1 && one->threads == b->threads &&
            strcmp(one->matrix, b->matrix) == 0)
            return one;
    }
    return NULL;
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
            fprintf(out, "\n# best distributed row per matrix, rank count and threads per rank, "
                         "by time (spd_best1: over the best row at one rank; rank_spd: over "
                         "the same kernel at one rank)\n");
            fprintf(out, "%-24s %5s %3s  %-*s %10s %9s %8s %9s %9s %10s %4s %6s\n", "matrix",
                    "ranks", "thr", width, "best kernel", "median_ms", "spd_best1", "rank_spd",
                    "compute_ms", "comm_ms", "MB_sent", "nbrs", "imbal");
        }
        char kernel[128], best1[32], spd[32], compute[32], comm[32], sent[32], nbrs[32], imbal[32];
        best_name(b, kernel, sizeof kernel);
        const spb_best *one = best_at_one_rank(summary, b);
        fprintf(out, "%-24.24s %5d %3d  %-*s %10.3e %9s %8s %9s %9s %10s %4s %6s\n", b->matrix,
                b->ranks, b->threads, width, kernel, b->seconds * 1e3,
                figure(best1, sizeof best1, 2, one ? one->seconds / b->seconds : NAN),
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

/* Per kernel, precision and setting: the geometric means over the
 * matrices, printed when some kernel has two matrices or more. */
static void print_means(FILE *out, const spb_summary *summary, const char *baseline, int width)
{
    int several = 0;
    for (int k = 0; k < summary->means_count; k++) several |= summary->means[k].count > 1;
    if (!several) return;
    fprintf(out,
            "\n# per kernel: geometric mean over the matrices of its GFLOPS, and of its "
            "speedup over %s where measured\n",
            baseline);
    fprintf(out, "%-*s %3s %5s %8s %10s %8s %6s\n", width, "kernel", "thr", "ranks", "matrices",
            "gflops", "speedup", "noisy");
    for (int k = 0; k < summary->means_count; k++) {
        const spb_kernel_mean *m = &summary->means[k];
        char name[96], speedup[32];
        summary_label(m->kernel, m->precision, m->sweep, name, sizeof name);
        double geo_speedup =
            m->with_speedup == m->count ? exp(m->log_speedup / m->with_speedup) : NAN;
        fprintf(out, "%-*s %3d %5d %8d %10.4g %8s %6d\n", width, name, m->threads, m->ranks,
                m->count, exp(m->log_gflops / m->count),
                figure(speedup, sizeof speedup, 2, geo_speedup), m->noisy);
    }
}

/* The vendor's time per product that splits the comparison: launch-bound
 * products, the middle, long ones (the report's split too). */
static const struct {
    double below_s;
    const char *label;
} vendor_buckets[] = {{1e-5, "<10us"}, {1e-4, "10-100us"}, {INFINITY, ">100us"}};
enum { VENDOR_BUCKETS = sizeof vendor_buckets / sizeof vendor_buckets[0] };

/* One device kernel at one precision against the vendor's best. */
typedef struct {
    const char *kernel, *precision;
    double log_ratio[VENDOR_BUCKETS];
    int count[VENDOR_BUCKETS];
} vs_vendor;

/* The fastest vendor row of device row k's matrix and precision, or NULL. */
static const spb_device_row *vendor_best(const spb_summary *summary, int k)
{
    const spb_device_row *of = &summary->device[k], *best = NULL;
    for (int i = k; i >= 0 && summary->device[i].matrix == of->matrix; i--)
        if (summary->device[i].vendor && strcmp(summary->device[i].precision, of->precision) == 0 &&
            (!best || summary->device[i].seconds < best->seconds))
            best = &summary->device[i];
    for (int i = k + 1; i < summary->device_count && summary->device[i].matrix == of->matrix; i++)
        if (summary->device[i].vendor && strcmp(summary->device[i].precision, of->precision) == 0 &&
            (!best || summary->device[i].seconds < best->seconds))
            best = &summary->device[i];
    return best;
}

/* v's entry for row d, added when new (NULL: no memory). */
static vs_vendor *vs_vendor_of(vs_vendor **v, int *count, int *cap, const spb_device_row *d)
{
    for (int k = 0; k < *count; k++)
        if (strcmp((*v)[k].kernel, d->kernel) == 0 && strcmp((*v)[k].precision, d->precision) == 0)
            return &(*v)[k];
    if (!spb_grow((void **)v, cap, *count, 8, sizeof **v)) return NULL;
    (*v)[*count] = (vs_vendor){.kernel = d->kernel, .precision = d->precision};
    return &(*v)[(*count)++];
}

/* Which vendor rows were the fastest, and on how many matrices and
 * precisions: "cusparse.sell 53, cusparse.csr 11". */
static void print_vendor_winners(FILE *out, const spb_summary *summary)
{
    fprintf(out, "# the fastest vendor row:");
    const char *said[64];
    int said_count = 0;
    for (int k = 0; k < summary->device_count; k++) {
        const spb_device_row *d = &summary->device[k];
        const spb_device_row *best = d->vendor ? vendor_best(summary, k) : NULL;
        if (best != d) continue;
        int seen = 0;
        for (int s = 0; s < said_count; s++) seen |= strcmp(said[s], d->kernel) == 0;
        if (seen || said_count == 64) continue;
        said[said_count++] = d->kernel;
        int wins = 0;
        for (int i = 0; i < summary->device_count; i++)
            wins += summary->device[i].vendor && vendor_best(summary, i) == &summary->device[i] &&
                    strcmp(summary->device[i].kernel, d->kernel) == 0;
        fprintf(out, "%s %s %d", said_count == 1 ? "" : ",", d->kernel, wins);
    }
    fprintf(out, " (matrices x precisions)\n");
}

/* The break-even counts of a kernel at a precision (NULL: none faster). */
static spb_break_even *pays_for(const spb_summary *summary, const vs_vendor *v)
{
    for (int k = 0; k < summary->pays_count; k++)
        if (strcmp(summary->pays[k].kernel, v->kernel) == 0 &&
            strcmp(summary->pays[k].precision, v->precision) == 0)
            return &summary->pays[k];
    return NULL;
}

/* Per device kernel and precision: the geometric mean of the vendor's best
 * time over the row's, split by the vendor's time per product, with the
 * rows in each part; how many rows beat the vendor's best, and the median
 * and largest count of products their prepare took to pay. */
static void print_vs_vendor(FILE *out, const spb_summary *summary)
{
    vs_vendor *v = NULL;
    int count = 0, cap = 0;
    for (int k = 0; k < summary->device_count; k++) {
        const spb_device_row *d = &summary->device[k], *best = vendor_best(summary, k);
        vs_vendor *e = !d->vendor && best ? vs_vendor_of(&v, &count, &cap, d) : NULL;
        if (!e) continue;
        int b = 0;
        while (best->seconds >= vendor_buckets[b].below_s) b++;
        e->log_ratio[b] += log(best->seconds / d->seconds);
        e->count[b]++;
    }
    if (count > 0) {
        fprintf(out,
                "\n# device rows against the fastest vendor row of their matrix: its time over "
                "the row's (geometric mean, by the vendor's time per product; rows in "
                "brackets); rows faster, and the products after which their prepare paid "
                "against its (break_even_products)\n");
        fprintf(out, "%-28s %-9s", "kernel", "precision");
        for (int b = 0; b < VENDOR_BUCKETS; b++) fprintf(out, " %15s", vendor_buckets[b].label);
        fprintf(out, " %6s %10s %10s\n", "faster", "pays_med", "pays_most");
    }
    for (int k = 0; k < count; k++) {
        fprintf(out, "%-28.28s %-9s", v[k].kernel, v[k].precision);
        for (int b = 0; b < VENDOR_BUCKETS; b++) {
            char cell[32] = "-";
            if (v[k].count[b])
                snprintf(cell, sizeof cell, "%.2fx (%d)", exp(v[k].log_ratio[b] / v[k].count[b]),
                         v[k].count[b]);
            fprintf(out, " %15s", cell);
        }
        spb_break_even *pays = pays_for(summary, &v[k]);
        if (pays && pays->count > 0) {
            double median = timing_median(pays->products, pays->count); /* sorts them */
            fprintf(out, " %6d %10.0f %10.0f\n", pays->count, median,
                    pays->products[pays->count - 1]);
        } else {
            fprintf(out, " %6d %10s %10s\n", 0, "-", "-");
        }
    }
    if (count > 0) print_vendor_winners(out, summary);
    spb_free(v);
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
    for (int k = 0; k < summary->means_count; k++) {
        const spb_kernel_mean *m = &summary->means[k];
        char kernel[128];
        summary_label(m->kernel, m->precision, m->sweep, kernel, sizeof kernel);
        if ((int)strlen(kernel) > width) width = (int)strlen(kernel);
    }
    int noisy = print_best_local(out, summary, baseline, width);
    noisy += print_best_distributed(out, summary, width);
    if (noisy)
        fprintf(out, "# * ranked among noisy rows (%d of %d): the order may not hold\n", noisy,
                summary->count);
    print_means(out, summary, baseline, width);
    print_vs_vendor(out, summary);
}

void summary_free(spb_summary *summary)
{
    for (int k = 0; k < summary->pays_count; k++) spb_free(summary->pays[k].products);
    spb_free(summary->pays);
    spb_free(summary->means);
    spb_free(summary->device);
    spb_free(summary->best);
    *summary = (spb_summary){0};
}
