/* auto_rules.c — the device auto rows' rules (auto_rules.h). */
#include "auto_rules.h"

#include <stdarg.h>

/* ---- auto.cuda (SpMV) ---------------------------------------------------------- */

/* The rule's thresholds (docs/auto-kernels.md: the measurements behind them). */
/* The longest row against the rest (H100 figures): one warp walks about 32
 * entries per 88 ns (gen:hubs:45000:8:1:17663: its row of 14604 entries took
 * csr.cuda.warp 42 us), the rest of a product streams at about 2.5 TB/s
 * after a 5 us launch. From half of the rest on, cuSPARSE's even split of
 * the entries is a candidate (gen:hubs:2000000:4:64:20000 sat at 0.98 of the
 * line and ran 1.35x faster on it). */
#define AUTO_WARP_NS_PER_32 88.0
#define AUTO_STREAM_BPS     2.5e12
#define AUTO_LAUNCH_S       5e-6
#define AUTO_HUB_SHARE      0.5
/* Large matrices of rows this short pad little in absolute terms: HLL's
 * column-major hacks are a candidate even past 15% padding
 * (gen:road:1000:65, rows of 0-4: hll.cuda.col.pattern ran 1.26x faster
 * than csr.cuda.stream.pattern). */
#define AUTO_SHORT_MAX 8
/* Gathers this scattered (x's sectors per entry, a warp's 32 at a time)
 * leave the numbering nothing to share: renumbering rows and columns by
 * reverse Cuthill-McKee is a candidate (H100, pattern rows: citationCiteseer,
 * 1.00, ran 1.15-1.22x csr.cuda.stream with the renumbering of x counted;
 * coAuthorsDBLP, 0.50, and cnr-2000, 0.25, 0.72-0.82x). Up to AUTO_RCM_MAX_NNZ entries: the
 * ordering takes prepare 0.2-0.3 s per million (gen:rmat:23:16: 51 s). */
#define AUTO_SCATTERED   0.9
#define AUTO_RCM_MAX_NNZ 8000000
/* Blocks that fill: cuSPARSE's BSR is a candidate where its best block size
 * moves at most this share of CSR's bytes (gen:fem:35:4, 4x4 blocks, 0.69:
 * 1.10x cusparse.sell and 1.38x the best spbench row; gen:fem:40:3, 0.70,
 * lost to SELL; a 2-D Laplacian moves 1.5x), and so is bsr.cuda.sliced,
 * the same cut on HLL's walk (FEM shapes on an H100: 1.06-1.58x the
 * fastest vendor row with blocks of 2, 3, 6 and 8, 0.97-1.14x with 4x4,
 * where cusparse.bsr stays a candidate). spbench's own bsr.cuda is no
 * candidate: on five FEM shapes it ran 0.83-1.04x cusparse.bsr in fp64 and
 * 0.68-0.95x in fp32 (H100, docs/results/2026-12-06-bsr-launch-floor-h100.md). */
#define AUTO_BSR_BYTES 0.85

/* Seconds one warp takes over the longest row, and the rest of the product
 * at the bandwidth: a row kernel cannot finish before its longest row. */
static double longest_row_seconds(const spb_csr_stats *st)
{
    return st->row_max / 32.0 * AUTO_WARP_NS_PER_32 * 1e-9;
}
static double streaming_seconds(const gpu_auto_shape *f)
{
    return (f->value_bytes + 4.0) * f->csr.stats.nnz / AUTO_STREAM_BPS + AUTO_LAUNCH_S;
}

/* One more part of a reason, after what `why` holds, within GPU_AUTO_WHY_LEN
 * bytes; a reason cut short ends in '.'. */
static void why_append(char *why, const char *format, ...) SPB_PRINTF(2, 3);
static void why_append(char *why, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    const int fit = spb_vappendf(why, GPU_AUTO_WHY_LEN, format, ap);
    va_end(ap);
    if (!fit) why[GPU_AUTO_WHY_LEN - 2] = '.';
}

/* Column-major hacks: with 32-bit columns, and with 16-bit offsets where a
 * hack's steps span few columns (a banded matrix: 2 bytes less per entry;
 * the row declines others in prepare). */
static void hll_col_names(spb_trial_names *list, int pattern)
{
    kernel_trial_name(list, pattern ? "hll.cuda.col.pattern" : "hll.cuda.col");
    kernel_trial_name(list, pattern ? "hll.cuda.col.narrow.pattern" : "hll.cuda.col.narrow");
}

/* The rule: the candidates into `list`, and why in `why` (GPU_AUTO_WHY_LEN bytes).
 * Large matrices always have cusparse.csr among them; small ones, which
 * one launch of a row kernel serves in 3-8 us, the row kernels that won
 * one or more of them on the H100 (docs/auto-kernels.md: 0.3-1.5 us apart, in an order
 * no statistic predicted). */
void gpu_auto_candidates(const gpu_auto_shape *f, spb_trial_names *list, char *why)
{
    const spb_csr_stats *st = &f->csr.stats;
    const double mean = st->row_mean, cv = f->csr.cv;
    const int large = st->nnz >= GPU_AUTO_LARGE_NNZ, pattern = f->csr.pattern;
    const int hubs = longest_row_seconds(st) > AUTO_HUB_SHARE * streaming_seconds(f);
    why[0] = '\0';
    if (hubs) {
        /* a few rows thousands of times the mean, at any size: every row
         * kernel waits on them; cuSPARSE and the merge split the entries */
        kernel_trial_name(list, "cusparse.csr");
        kernel_trial_name(list, pattern ? "csr.cuda.merge.pattern" : "csr.cuda.merge");
        why_append(why,
                   "one row of %d entries (mean %.1f) would keep a warp %.0f us, against "
                   "%.0f us for the rest: an even split of the entries; ",
                   (int)st->row_max, mean, longest_row_seconds(st) * 1e6,
                   streaming_seconds(f) * 1e6);
    }
    if (!large) {
        why_append(why, "small (launch-bound: %d entries): the one-launch row kernels",
                   (int)st->nnz);
        kernel_trial_name(list, "csr.cuda.warp");
        kernel_trial_name(list, pattern ? "csr.cuda.adaptive.pattern" : "csr.cuda.adaptive");
        kernel_trial_name(list, pattern ? "csr.cuda.stream.pattern" : "csr.cuda.stream");
        kernel_trial_name(list, pattern ? "csr.cuda.binned.pattern" : "csr.cuda.binned");
        kernel_trial_name(list, "csr.cuda.ldg");
        kernel_trial_name(list, "csr.cuda.warp_shared2d");
        if (f->csr.padding <= SPB_SHAPE_HLL_PADDING)
            kernel_trial_name(list, "hll.cuda.warp_shared");
        return;
    }
    if (!hubs) kernel_trial_name(list, "cusparse.csr");
    /* x beyond half the L2, each row's gathers spread over a quarter of
     * its worth or more, rows alike (skewed rows: the L2 keeps their hot
     * columns, panels only add traffic): column panels, beside the shape's
     * other candidates (gen:random:6000000:3, fp64, spans of half x's 46
     * MiB: 1.18x cusparse.sell, which the HLL branch alone had kept) */
    if (f->x_bytes > f->l2_bytes / 2 && f->value_bytes * f->csr.span > f->l2_bytes / 4 &&
        cv < SPB_SHAPE_SKEWED_CV) {
        why_append(why,
                   "x (%.0f MiB) exceeds half the L2 (%.0f MiB), gathered widely (rows span %.0f "
                   "columns): column panels; ",
                   f->x_bytes / 1048576.0, f->l2_bytes / 1048576.0, f->csr.span);
        kernel_trial_name(list, "csr.cuda.colblock");
    }
    if (f->csr.padding <= SPB_SHAPE_HLL_PADDING) {
        why_append(why, "rows alike (HLL pads %.0f%%): column-major hacks or sliced ELL",
                   100.0 * (f->csr.padding - 1.0));
        hll_col_names(list, pattern);
        kernel_trial_name(list, "cusparse.sell");
    } else if (st->row_max <= AUTO_SHORT_MAX) {
        why_append(why,
                   "rows short (max %d, mean %.1f; HLL pads %.0f%%): column-major hacks or CSR's "
                   "row tiles",
                   (int)st->row_max, mean, 100.0 * (f->csr.padding - 1.0));
        hll_col_names(list, pattern);
    } else {
        why_append(why, "rows unlike (cv %.2f, max %d, mean %.1f): CSR's row tiles", cv,
                   (int)st->row_max, mean);
    }
    kernel_trial_name(list, pattern ? "csr.cuda.stream.pattern" : "csr.cuda.stream");
    if (!hubs) kernel_trial_name(list, pattern ? "csr.cuda.merge.pattern" : "csr.cuda.merge");
    if (!hubs && f->csr.scatter >= AUTO_SCATTERED && st->rows == st->cols &&
        st->nnz <= AUTO_RCM_MAX_NNZ) {
        why_append(why, "; gathers scattered (%.2f sectors per entry): renumbered", f->csr.scatter);
        kernel_trial_name(list, pattern ? "csr.cuda.stream.rcm.pattern" : "csr.cuda.stream.rcm");
    }
    /* skewed rows with values, a hub row or not: cuSPARSE's COO split
     * (H200, docs/results/2026-12-05-gpu-large-h200.md: the fastest vendor
     * row on gen:rmat:20:16:70, 1.07x cusparse.csr, on gen:rmat:21:8,
     * cnr-2000 and citationCiteseer; the pattern rows beat it 1.3-1.6x) */
    if (!pattern && cv >= SPB_SHAPE_SKEWED_CV) {
        why_append(why, "; rows skewed (cv %.2f): COO's split", cv);
        kernel_trial_name(list, "cusparse.coo");
    }
    if (!pattern && f->bsr_block && f->bsr_share <= AUTO_BSR_BYTES) {
        why_append(why, "; %dx%d blocks move %.2f of CSR's bytes", f->bsr_block, f->bsr_block,
                   f->bsr_share);
        kernel_trial_name(list, "cusparse.bsr");
        kernel_trial_name(list, "bsr.cuda.sliced");
    }
}

/* ---- spgemm.cuda.auto ---------------------------------------------------------- */

/* The rule's lines (docs/auto-kernels.md: the H100 measurements behind them). Rows of
 * few products: the thread-per-row kernel (G67, Pd) is a candidate; past
 * them its one thread per row stalls (0.01-0.05x the best on long rows). */
#define AUTO_THREAD_PRODUCTS 32
/* Products of low compression in the millions: ESC or cuSPARSE; the tiled
 * kernels sweep their accumulator over B's width and ran 0.12-0.35x ESC
 * (cage11, kmnist_norm_10NN, gen:lap2d:1000, cond-mat-2005). */
#define AUTO_LOW_COMPRESSION 3.0
/* A row this long in A (circuits, graphs): cuSPARSE is a candidate too
 * (a circuit matrix with rows of ~570 entries ran ESC at 0.81x of it). */
#define AUTO_LONG_ROW 128
/* A row of C of more than AUTO_SLICED_ROW products (ESC shares such a row
 * out among blocks) that holds more than AUTO_ROW_SHARES SMs' even share of
 * the products: the tiled kernels, a block per row, wait on that row alone.
 * On the LP shapes (one row 12-36 SMs' share on an H200) they ran 4-40x
 * ESC; on every other shape measured such a row held at most 6 shares.
 * Shorter rows are left to the trial: on small products (cage4, 269 of
 * them) the tiled kernels win whatever the shares. */
#define AUTO_SLICED_ROW 8192
#define AUTO_ROW_SHARES 8

/* spgemm.cuda.auto's rule (auto_rules.h). */
void gpu_spgemm_auto_candidates(const spb_spgemm_shape *f, int sms, spb_trial_names *list,
                                char *why)
{
    const int longest_row = (int)f->a_row_max;
    const int low =
        f->products >= GPU_SPGEMM_AUTO_LARGE_PRODUCTS && f->compression < AUTO_LOW_COMPRESSION;
    const double row_shares =
        f->products > 0 ? (double)f->row_products_max * sms / (double)f->products : 0;
    const int one_row = f->row_products_max > AUTO_SLICED_ROW && row_shares > AUTO_ROW_SHARES;
    const int few = f->row_products_max <= AUTO_THREAD_PRODUCTS;
    const int library =
        f->products >= GPU_SPGEMM_AUTO_LARGE_PRODUCTS || longest_row >= AUTO_LONG_ROW;
    kernel_trial_name(list, "spgemm.cuda.esc");
    if (!low && !one_row) {
        kernel_trial_name(list, "spgemm.cuda.warp");
        kernel_trial_name(list, "spgemm.cuda.block");
        kernel_trial_name(list, "spgemm.cuda.block.reserve");
        if (few) kernel_trial_name(list, "spgemm.cuda.thread.hoisted");
    }
    if (library) kernel_trial_name(list, "cusparse.spgemm");
    why[0] = '\0';
    why_append(
        why, "%lld products (at most %lld in a row), compression about %.2f, A's longest row %d: ",
        (long long)f->products, (long long)f->row_products_max, f->compression, longest_row);
    if (low)
        why_append(why, "millions of products of low compression, no tiled kernel");
    else if (one_row)
        why_append(why, "C's longest row holds %.0f SMs' share of them, no tiled kernel",
                   row_shares);
    else
        why_append(why, "ESC and the tiled kernels");
    if (few && !low && !one_row) why_append(why, "; few products per row, a thread per row");
    if (library) why_append(why, "; cuSPARSE for the long rows or the many products");
}
