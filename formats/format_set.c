/* format_set.c — each format of one matrix built once (see format_set.h). */
#include "format_set.h"

#include <math.h>
#include <string.h>

int format_kind_of(const char *format_name)
{
    static const char *const names[SPB_FORMAT_KINDS] = {"csr",  "hll.row", "hll.col",
                                                        "sell", "bsr",     "csr.rcm"};
    static const char pattern[] = ".pattern";
    size_t length = strlen(format_name);
    if (length > strlen(pattern) && strcmp(format_name + length - strlen(pattern), pattern) == 0)
        length -= strlen(pattern);
    for (int k = 0; k < SPB_FORMAT_KINDS; k++)
        if (strlen(names[k]) == length && strncmp(format_name, names[k], length) == 0) return k;
    return -1;
}

void format_set_init(spb_format_set *F, const spb_csr *A)
{
    static unsigned long long made;
    memset(F, 0, sizeof *F);
    F->csr = A;
    F->serial = ++made;
}

static void slot_free(spb_format_slot *slot)
{
    if (slot->kind == SPB_FORMAT_SELL)
        sell_free(&slot->as.sell);
    else if (slot->kind == SPB_FORMAT_BSR)
        bsr_free(&slot->as.bsr);
    else if (slot->kind == SPB_FORMAT_RCM)
        renumbered_free(&slot->as.rcm);
    else
        hll_free(&slot->as.hll);
}

void format_set_keep(spb_format_set *F, unsigned keep_mask)
{
    int kept = 0;
    for (int k = 0; k < F->used; k++) {
        if (keep_mask & (1u << F->slots[k].kind))
            F->slots[kept++] = F->slots[k];
        else
            slot_free(&F->slots[k]);
    }
    F->used = kept;
}

void format_set_free(spb_format_set *F)
{
    format_set_keep(F, 0);
    spb_free(F->csr_val32);
    F->csr_val32 = NULL;
    spb_free(F->b_val32);
    F->b_val32 = NULL;
    F->csr = NULL;
}

void values_round_fp32(const double *val, float *out, size_t count)
{
    /* a product's worth of values (a padded format's: billions) took
     * seconds on one thread; the pages are first touched here too */
#pragma omp parallel for schedule(static) if (count > 65536)
    for (long long k = 0; k < (long long)count; k++) out[k] = (float)val[k];
}

/* An HLL's values rounded into val32; val freed (checked for overflow by
 * the caller). */
static spb_status hll_round_values(spb_hll *H, char *msg)
{
    size_t stored = (size_t)hll_stored(H);
    H->val32 = spb_malloc(stored, sizeof *H->val32);
    if (!H->val32) {
        hll_free(H);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for fp32 values");
    }
    values_round_fp32(H->val, H->val32, stored);
    spb_free(H->val);
    H->val = NULL;
    return SPB_OK;
}

/* M's values (each part of a complex one) rounded to fp32 into *out
 * (allocated), checked first so that nothing is half made; `which` names
 * the matrix in the refusal. */
static spb_status round_values(const spb_csr *M, const char *which, float **out, char *msg)
{
    const size_t w = csr_values_per_entry(M);
    const long long total = (long long)M->nnz * (long long)w;
    long long first = total; /* the first value fp32 cannot hold */
#pragma omp parallel for schedule(static) reduction(min : first) if (total > 65536)
    for (long long k = 0; k < total; k++)
        if (isinf((float)M->val[k]) && !isinf(M->val[k]) && k < first) first = k;
    if (first < total) {
        spb_index i = 0;
        while ((long long)csr_row_start(M, i + 1) * (long long)w <= first) i++;
        return spb_fail(msg, SPB_ERR_DECLINED, "%svalue %.17g at (%d, %d) overflows fp32", which,
                        M->val[first], (int)i + 1, (int)M->col_idx[first / (long long)w] + 1);
    }
    *out = spb_malloc((size_t)M->nnz * w, sizeof **out);
    if (!*out) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for fp32 values");
    values_round_fp32(M->val, *out, (size_t)M->nnz * w);
    return SPB_OK;
}

spb_status format_set_csr_values32(spb_format_set *F, const float **out, char *msg)
{
    if (!F->csr_val32) {
        spb_status st = round_values(F->csr, "", &F->csr_val32, msg);
        if (st != SPB_OK) return st;
        F->conversions++;
    }
    *out = F->csr_val32;
    return SPB_OK;
}

spb_status format_set_b_values32(spb_format_set *F, const float **out, char *msg)
{
    if (F->b == F->csr) return format_set_csr_values32(F, out, msg);
    if (!F->b_val32) {
        spb_status st = round_values(F->b, "B's ", &F->b_val32, msg);
        if (st != SPB_OK) return st;
        F->conversions++;
    }
    *out = F->b_val32;
    return SPB_OK;
}

/* The slot of (kind, hack_size, precision), or a fresh one to fill (NULL
 * when the set is full); *found says which. */
static spb_format_slot *find_slot(spb_format_set *F, spb_format_kind kind, spb_index hack_size,
                                  spb_precision precision, int *found)
{
    for (int k = 0; k < F->used; k++) {
        spb_format_slot *slot = &F->slots[k];
        if (slot->kind == kind && slot->hack_size == hack_size && slot->precision == precision) {
            *found = 1;
            return slot;
        }
    }
    *found = 0;
    return F->used < SPB_FORMAT_SLOTS ? &F->slots[F->used] : NULL;
}

/* A slot just filled: its key set and counted as used and converted. */
static void slot_filled(spb_format_set *F, spb_format_slot *slot, spb_format_kind kind,
                        spb_index hack_size, spb_precision precision)
{
    slot->kind = kind;
    slot->hack_size = hack_size;
    slot->precision = precision;
    F->used++;
    F->conversions++;
}

spb_status format_set_hll(spb_format_set *F, spb_hll_layout layout, spb_index hack_size,
                          spb_precision precision, const spb_hll **out, char *msg)
{
    spb_format_kind kind = layout == HLL_ROW_MAJOR ? SPB_FORMAT_HLL_ROW : SPB_FORMAT_HLL_COL;
    if (csr_real_only(F->csr, "HLL", msg) != SPB_OK) return SPB_ERR_DECLINED;
    int found;
    spb_format_slot *slot = find_slot(F, kind, hack_size, precision, &found);
    if (!slot) return spb_fail(msg, SPB_ERR_INVALID, "format set full: drop formats first");
    if (!found) {
        const float *checked; /* an fp32 HLL: values checked for overflow first */
        spb_status st = precision == SPB_FP32 ? format_set_csr_values32(F, &checked, msg) : SPB_OK;
        if (st == SPB_OK) st = hll_from_csr(F->csr, hack_size, layout, &slot->as.hll, msg);
        if (st == SPB_OK && precision == SPB_FP32) st = hll_round_values(&slot->as.hll, msg);
        if (st != SPB_OK) return st;
        slot_filled(F, slot, kind, hack_size, precision);
    }
    *out = &slot->as.hll;
    return SPB_OK;
}

spb_status format_set_sell(spb_format_set *F, spb_index slice_size, const spb_sell **out, char *msg)
{
    if (csr_real_only(F->csr, "SELL", msg) != SPB_OK) return SPB_ERR_DECLINED;
    int found;
    spb_format_slot *slot = find_slot(F, SPB_FORMAT_SELL, slice_size, SPB_FP64, &found);
    if (!slot) return spb_fail(msg, SPB_ERR_INVALID, "format set full: drop formats first");
    if (!found) {
        spb_status st = sell_from_csr(F->csr, slice_size, &slot->as.sell, msg);
        if (st != SPB_OK) return st;
        slot_filled(F, slot, SPB_FORMAT_SELL, slice_size, SPB_FP64);
    }
    *out = &slot->as.sell;
    return SPB_OK;
}

spb_index format_set_bsr_block(spb_format_set *F, spb_precision precision, int64_t *blocks)
{
    if (!F->bsr_counted) {
        bsr_count_sizes(F->csr, F->bsr_counts);
        F->bsr_counted = 1;
    }
    return bsr_best_of_counts(F->csr, precision, F->bsr_counts, blocks);
}

spb_status format_set_bsr(spb_format_set *F, spb_precision precision, const spb_bsr **out,
                          char *msg)
{
    if (csr_real_only(F->csr, "BSR", msg) != SPB_OK) return SPB_ERR_DECLINED;
    int64_t blocks;
    const spb_index block = format_set_bsr_block(F, precision, &blocks);
    if (block == 0)
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "BSR at every block size stores more than 32-bit offsets hold");
    int found;
    spb_format_slot *slot = find_slot(F, SPB_FORMAT_BSR, block, SPB_FP64, &found);
    if (!slot) return spb_fail(msg, SPB_ERR_INVALID, "format set full: drop formats first");
    if (!found) {
        spb_status st = bsr_from_csr(F->csr, block, &slot->as.bsr, msg);
        if (st != SPB_OK) return st;
        slot_filled(F, slot, SPB_FORMAT_BSR, block, SPB_FP64);
    }
    *out = &slot->as.bsr;
    return SPB_OK;
}

spb_status format_set_rcm(spb_format_set *F, const spb_renumbered **out, char *msg)
{
    int found;
    spb_format_slot *slot = find_slot(F, SPB_FORMAT_RCM, 0, SPB_FP64, &found);
    if (!slot) return spb_fail(msg, SPB_ERR_INVALID, "format set full: drop formats first");
    if (!found) {
        spb_status st = csr_renumber_rcm(F->csr, &slot->as.rcm, msg);
        if (st != SPB_OK) return st;
        slot_filled(F, slot, SPB_FORMAT_RCM, 0, SPB_FP64);
    }
    *out = &slot->as.rcm;
    return SPB_OK;
}
