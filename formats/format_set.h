/* format_set.h — the storage formats of one matrix, each built once: the
 * CSR as read, and the derived formats (HLL row- and column-major, SELL,
 * BSR) converted on first request for a given hack size (block size) and
 * precision and kept until dropped. Kernels take their format from here in
 * prepare, so a run over many kernels and thread counts converts each
 * format once. */
#ifndef SPB_FORMAT_SET_H
#define SPB_FORMAT_SET_H

#include "bsr.h"
#include "hll.h"
#include "order.h"
#include "sell.h"

typedef enum {
    SPB_FORMAT_CSR,
    SPB_FORMAT_HLL_ROW,
    SPB_FORMAT_HLL_COL,
    SPB_FORMAT_SELL,
    SPB_FORMAT_BSR,
    SPB_FORMAT_RCM /* the CSR renumbered by reverse Cuthill-McKee, with its order */
} spb_format_kind;

#define SPB_FORMAT_KINDS 6
/* Derived formats kept at once: a slot per (kind, hack size, precision)
 * asked for: HLL row- and column-major in fp64 and fp32 and SELL (kept in
 * fp64) make 5 per hack size, so 3 hack sizes fit beside BSR at the two
 * block sizes fp64 and fp32 may choose and the renumbered CSR. */
#define SPB_FORMAT_SLOTS 19

/* The kind named by a kernel's format ("csr", "hll.row", "hll.col",
 * "sell", "bsr", "csr.rcm"; a pattern kernel's name ends in ".pattern");
 * -1 for a library's own format ("rsb", "grb.row"). */
int format_kind_of(const char *format_name);

typedef struct {
    spb_format_kind kind;
    spb_index hack_size; /* rows per hack or slice; BSR: the block size */
    spb_precision precision;
    union {
        spb_hll hll;
        spb_sell sell;
        spb_bsr bsr;
        spb_renumbered rcm;
    } as;
} spb_format_slot;

typedef struct spb_format_set {
    const spb_csr *csr;        /* the matrix as read; not owned */
    unsigned long long serial; /* one per set in the process: rows on one set share a matrix */
    const spb_csr *b;          /* SpGEMM's second operand (C = A*B), or NULL; not owned */
    spb_format_slot slots[SPB_FORMAT_SLOTS];
    int used;
    int conversions;  /* formats built so far, counted by tests */
    float *csr_val32; /* the CSR's values in fp32, made on request (NULL until then) */
    float *b_val32;   /* b's values in fp32, when b is not the CSR itself (the same) */
    int bsr_counted;  /* bsr_counts made: stored blocks at each BSR block size, */
    int64_t bsr_counts[BSR_BLOCK_SIZE_COUNT]; /* counted once for both precisions */
} spb_format_set;

void format_set_init(spb_format_set *F, const spb_csr *A);
void format_set_free(spb_format_set *F); /* frees every derived format */

/* The HLL of the set's matrix for this hack size and precision (or the
 * SELL for this slice size: fp64 values, which an fp32 kernel rounds as it
 * uploads them): converted on the first request, the same object
 * afterwards. */
spb_status format_set_hll(spb_format_set *F, spb_hll_layout layout, spb_index hack_size,
                          spb_precision precision, const spb_hll **out, char *msg);
spb_status format_set_sell(spb_format_set *F, spb_index slice_size, const spb_sell **out,
                           char *msg);

/* The block size of BSR_BLOCK_SIZES whose product in `precision` moves the
 * fewest bytes (bsr_best_block's choice, on blocks counted once per
 * matrix): 0 when none fits 32-bit offsets; its stored blocks in *blocks. */
spb_index format_set_bsr_block(spb_format_set *F, spb_precision precision, int64_t *blocks);
/* The BSR of the set's matrix at that block size (fp64 values, which an
 * fp32 kernel rounds as it uploads them): converted on the first request,
 * the same object afterwards, also for the other precision where it
 * chooses the same size. SPB_ERR_TOO_LARGE when no block size fits. */
spb_status format_set_bsr(spb_format_set *F, spb_precision precision, const spb_bsr **out,
                          char *msg);

/* The set's matrix renumbered by reverse Cuthill-McKee (csr_renumber_rcm,
 * fp64 values): made on the first request, the same object afterwards, for
 * either precision. A rectangular or complex matrix is declined. */
spb_status format_set_rcm(spb_format_set *F, const spb_renumbered **out, char *msg);

/* The CSR's values rounded to fp32, made on the first request. A value
 * beyond fp32's range declines the matrix (SPB_ERR_DECLINED, naming the
 * entry) instead of becoming infinite. */
spb_status format_set_csr_values32(spb_format_set *F, const float **out, char *msg);
/* The same for SpGEMM's second operand b (the CSR's own when b is A). */
spb_status format_set_b_values32(spb_format_set *F, const float **out, char *msg);

/* val's `count` values rounded to fp32 into out, on the OpenMP threads
 * (every fp32 copy of a format's values, the device rows' uploads
 * included). */
void values_round_fp32(const double *val, float *out, size_t count);

/* Frees the derived formats of the kinds whose bit (1 << kind) is not in
 * keep_mask: the run drops a format after the last kernel that needs it. */
void format_set_keep(spb_format_set *F, unsigned keep_mask);

#endif
