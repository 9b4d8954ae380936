/* spgemm_rows_template.h — the numeric inner loops of the host SpGEMM
 * kernels, one body for every value type and both widths of row offsets:
 * spgemm_rows.h includes it once per value type and width, after defining
 * SPB_FN(name) (the name in this precision), SPB_VALUE (double, float, or
 * a complex type), SPB_ABS (its absolute value), SPB_WIDE (what C holds:
 * double, or complex double) and SPB_ROWS_WIDE (1: the _wide functions,
 * for A or B on 64-bit row offsets; 0: 32-bit ones read as they always
 * were, the sequential kernels' speed kept). No include guard: it is meant
 * to be included once per type and width. */

#if SPB_ROWS_WIDE
#define SPB_ROW_FN(fn)      SPB_FN(fn##_wide)
#define SPB_OFFSET          spb_offset
#define SPB_ROW_START(M, i) csr_row_start(M, i)
#else
#define SPB_ROW_FN(fn)      SPB_FN(fn)
#define SPB_OFFSET          spb_index
#define SPB_ROW_START(M, i) ((M)->row_ptr[i])
#endif

/* Row i of A*B into the dense accumulator acc: a column is new to the row
 * while marker[j] != mark; the new columns are appended to cols in the
 * order met. With scale (the reference's, fp64 and complex128 only),
 * |a|*|b| is summed into it at the same columns. Returns the row's length. */
static inline spb_index SPB_ROW_FN(spgemm_dense_row)(const spb_csr *A, const SPB_VALUE *a_val,
                                                     const spb_csr *B, const SPB_VALUE *b_val,
                                                     spb_index i, int64_t mark, int64_t *marker,
                                                     SPB_VALUE *acc, spb_index *cols, double *scale)
{
    spb_index len = 0;
    for (SPB_OFFSET ka = SPB_ROW_START(A, i); ka < SPB_ROW_START(A, i + 1); ka++) {
        spb_index r = A->col_idx[ka];
        SPB_VALUE a = a_val[ka];
        for (SPB_OFFSET kb = SPB_ROW_START(B, r); kb < SPB_ROW_START(B, r + 1); kb++) {
            spb_index j = B->col_idx[kb];
            SPB_VALUE b = b_val[kb];
            if (marker[j] != mark) {
                marker[j] = mark;
                acc[j] = 0;
                if (scale) scale[j] = 0;
                cols[len++] = j;
            }
            acc[j] += a * b;
            if (scale) scale[j] += SPB_ABS(a) * SPB_ABS(b);
        }
    }
    return len;
}

#if !SPB_ROWS_WIDE
/* The sums at the row's columns cols[0..len) of a dense accumulator,
 * widened into out. */
static inline void SPB_FN(spgemm_gather)(const SPB_VALUE *acc, const spb_index *cols, spb_index len,
                                         SPB_WIDE *out)
{
    for (spb_index k = 0; k < len; k++) out[k] = acc[cols[k]];
}
#endif

/* Row i of A*B into an open-addressing table of mask + 1 slots (keys -1
 * when empty), the new columns appended to cols; the table is left filled. */
static inline spb_index SPB_ROW_FN(spgemm_hash_row)(const spb_csr *A, const SPB_VALUE *a_val,
                                                    const spb_csr *B, const SPB_VALUE *b_val,
                                                    spb_index i, uint64_t mask, spb_index *keys,
                                                    SPB_VALUE *vals, spb_index *cols)
{
    spb_index len = 0;
    for (SPB_OFFSET ka = SPB_ROW_START(A, i); ka < SPB_ROW_START(A, i + 1); ka++) {
        spb_index r = A->col_idx[ka];
        SPB_VALUE a = a_val[ka];
        for (SPB_OFFSET kb = SPB_ROW_START(B, r); kb < SPB_ROW_START(B, r + 1); kb++) {
            spb_index j = B->col_idx[kb];
            uint64_t s = spgemm_hash_slot(keys, mask, j);
            if (keys[s] == -1) {
                keys[s] = j;
                vals[s] = 0;
                cols[len++] = j;
            }
            vals[s] += a * b_val[kb];
        }
    }
    return len;
}

#undef SPB_ROW_FN
#undef SPB_OFFSET
#undef SPB_ROW_START
