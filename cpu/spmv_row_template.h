/* spmv_row_template.h — the inner loops of the CSR and HLL kernels, one
 * body for both precisions: spmv_cpu.h includes it once per value type,
 * after defining SPB_FN(name) (the name in this precision), SPB_VALUE
 * (double, float, or a complex type) and SPB_HLL_VALUES (the HLL's values
 * of that type: val or val32; undefined for the complex types, which have
 * the CSR loop only). No include guard: it is meant to be included once
 * per type. */

static inline SPB_VALUE SPB_FN(csr_row_dot)(const spb_index *SPB_RESTRICT col_idx,
                                            const SPB_VALUE *SPB_RESTRICT val, spb_offset begin,
                                            spb_offset end, const SPB_VALUE *SPB_RESTRICT x)
{
    SPB_VALUE sum = 0;
    for (spb_offset k = begin; k < end; k++) sum += val[k] * x[col_idx[k]];
    return sum;
}

/* Rows [first, last) of A with the values val, on its row offsets of either
 * width (a loop each: the narrow one is the loop it always was). */
static inline void SPB_FN(csr_rows)(const spb_csr *A, const SPB_VALUE *SPB_RESTRICT val,
                                    spb_index first, spb_index last,
                                    const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    if (A->row_ptr64)
        for (spb_index i = first; i < last; i++)
            y[i] = SPB_FN(csr_row_dot)(A->col_idx, val, A->row_ptr64[i], A->row_ptr64[i + 1], x);
    else
        for (spb_index i = first; i < last; i++)
            y[i] = SPB_FN(csr_row_dot)(A->col_idx, val, A->row_ptr[i], A->row_ptr[i + 1], x);
}

#ifdef SPB_HLL_VALUES
static inline void SPB_FN(hll_hack_spmv)(const spb_hll *A, spb_index h,
                                         const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    const spb_index *SPB_RESTRICT col_idx = A->col_idx;
    const SPB_VALUE *SPB_RESTRICT val = A->SPB_HLL_VALUES;
    spb_index rows = hll_hack_rows(A, h), width = A->hack_width[h], base = A->hack_ptr[h];
    SPB_VALUE *SPB_RESTRICT yh = y + (int64_t)h * A->hack_size;
    if (A->layout == HLL_ROW_MAJOR) {
        for (spb_index r = 0; r < rows; r++) {
            spb_index start = base + r * width;
            SPB_VALUE sum = 0;
            for (spb_index k = 0; k < width; k++) sum += val[start + k] * x[col_idx[start + k]];
            yh[r] = sum;
        }
    } else {
        for (spb_index r = 0; r < rows; r++) yh[r] = 0;
        for (spb_index k = 0; k < width; k++) {
            spb_index start = base + k * rows;
            for (spb_index r = 0; r < rows; r++) yh[r] += val[start + r] * x[col_idx[start + r]];
        }
    }
}
#endif
