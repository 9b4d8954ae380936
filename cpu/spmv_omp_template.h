/* spmv_omp_template.h — the OpenMP products, one body for both precisions
 * (the template-file approach of SuiteSparse:GraphBLAS): spmv_omp.c
 * includes it once per value type, after defining
 *   SPB_FN(name)           the function's name in this precision
 *                          (csr_omp_nnz_spmv, csr_omp_nnz_spmv32)
 *   SPB_VALUE              double or float: values, x, y and sums
 *   SPB_ROW_DOT            the CSR row product of that type (spmv_cpu.h)
 *   SPB_ROWS               the CSR rows of a range of that type (spmv_cpu.h)
 *   SPB_HACK_SPMV          the HLL hack product of that type (spmv_cpu.h)
 *   SPB_PANEL_VALUES(P, q) column panel q's values in that type.
 * A team smaller than asked (nested or limited runtime) still covers every
 * range: each thread takes every team-size-th one. No include guard: it is
 * meant to be included twice. */

void SPB_FN(csr_omp_nnz_spmv)(const spb_csr *A, const SPB_VALUE *SPB_RESTRICT val,
                              const spb_row_partition *part, const SPB_VALUE *SPB_RESTRICT x,
                              SPB_VALUE *SPB_RESTRICT y)
{
    if (part->parts == 0) return;
#pragma omp parallel num_threads(part->parts)
    for (int p = omp_get_thread_num(); p < part->parts; p += omp_get_num_threads())
        SPB_ROWS(A, val, part->first[p], part->first[p + 1], x, y);
}

/* Every row under an OpenMP schedule clause, on A's row offsets of either
 * width (a loop each: the narrow one is the loop it always was). */
#define SPB_ROWS_UNDER(clause)                                                                     \
    do {                                                                                           \
        if (A->row_ptr64) {                                                                        \
            _Pragma(clause) for (spb_index i = 0; i < A->m; i++) y[i] =                            \
                SPB_ROW_DOT(A->col_idx, val, A->row_ptr64[i], A->row_ptr64[i + 1], x);             \
        } else {                                                                                   \
            _Pragma(clause) for (spb_index i = 0; i < A->m; i++) y[i] =                            \
                SPB_ROW_DOT(A->col_idx, val, A->row_ptr[i], A->row_ptr[i + 1], x);                 \
        }                                                                                          \
    } while (0)

void SPB_FN(csr_omp_guided_spmv)(const spb_csr *A, const SPB_VALUE *SPB_RESTRICT val, int threads,
                                 const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    SPB_ROWS_UNDER("omp parallel for num_threads(threads) schedule(guided)");
}

void SPB_FN(csr_omp_static_spmv)(const spb_csr *A, const SPB_VALUE *SPB_RESTRICT val, int threads,
                                 const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    SPB_ROWS_UNDER("omp parallel for num_threads(threads) schedule(static)");
}

void SPB_FN(csr_omp_dynamic_spmv)(const spb_csr *A, const SPB_VALUE *SPB_RESTRICT val, int threads,
                                  const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    SPB_ROWS_UNDER("omp parallel for num_threads(threads) schedule(dynamic, SPB_DYNAMIC_CHUNK)");
}

#undef SPB_ROWS_UNDER

#ifndef SPB_CSR_ONLY /* the complex types: the CSR products above only */
void SPB_FN(csr_omp_pattern_spmv)(const spb_csr *A, const spb_row_partition *part, SPB_VALUE value,
                                  const SPB_VALUE *SPB_RESTRICT x, SPB_VALUE *SPB_RESTRICT y)
{
    if (part->parts == 0) return;
    const spb_index *SPB_RESTRICT col_idx = A->col_idx;
#pragma omp parallel num_threads(part->parts)
    for (int p = omp_get_thread_num(); p < part->parts; p += omp_get_num_threads()) {
        /* rows two at a time, their common length in one loop: two independent sums and
         * gathers in flight across a short row's end (1.1-1.15x on the graphs; four at a
         * time measured the same) */
        spb_index i = part->first[p], last = part->first[p + 1];
        for (; i + 1 < last; i += 2) {
            spb_index a = A->row_ptr[i], b = A->row_ptr[i + 1], c = A->row_ptr[i + 2];
            spb_index common = b - a < c - b ? b - a : c - b;
            SPB_VALUE s0 = 0, s1 = 0;
            for (spb_index k = 0; k < common; k++) {
                s0 += x[col_idx[a + k]];
                s1 += x[col_idx[b + k]];
            }
            for (spb_index k = a + common; k < b; k++) s0 += x[col_idx[k]];
            for (spb_index k = b + common; k < c; k++) s1 += x[col_idx[k]];
            y[i] = value * s0;
            y[i + 1] = value * s1;
        }
        for (; i < last; i++) {
            SPB_VALUE sum = 0;
            for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) sum += x[col_idx[k]];
            y[i] = value * sum;
        }
    }
}

void SPB_FN(hll_omp_spmv)(const spb_hll *A, int threads, const SPB_VALUE *SPB_RESTRICT x,
                          SPB_VALUE *SPB_RESTRICT y)
{
#pragma omp parallel for num_threads(threads) schedule(guided)
    for (spb_index h = 0; h < A->nhacks; h++) SPB_HACK_SPMV(A, h, x, y);
}

/* each row summed over its own length, down its column of the hack (the hack's columns
 * stay in L1): no padding entry read, no mask, one loop exit per row as in CSR */
void SPB_FN(hll_omp_pattern_spmv)(const spb_hll *A, const spb_index *SPB_RESTRICT row_len,
                                  int threads, SPB_VALUE value, const SPB_VALUE *SPB_RESTRICT x,
                                  SPB_VALUE *SPB_RESTRICT y)
{
#pragma omp parallel for num_threads(threads) schedule(guided)
    for (spb_index h = 0; h < A->nhacks; h++) {
        spb_index rows = hll_hack_rows(A, h), first = h * A->hack_size;
        const spb_index *SPB_RESTRICT col = A->col_idx + A->hack_ptr[h];
        for (spb_index r = 0; r < rows; r++) {
            SPB_VALUE sum = 0;
            for (spb_index k = 0; k < row_len[first + r]; k++) sum += x[col[k * rows + r]];
            y[first + r] = value * sum;
        }
    }
}

/* the threads move to the next panel together: its part of x stays shared */
void SPB_FN(csr_omp_colblock_spmv)(const spb_col_panels *P, const SPB_VALUE *SPB_RESTRICT x,
                                   SPB_VALUE *SPB_RESTRICT y)
{
    if (P->part.parts == 0) return;
#pragma omp parallel num_threads(P->part.parts)
    for (int q = 0; q < P->panels; q++) {
        const spb_csr *C = &P->panel[q];
        for (int p = omp_get_thread_num(); p < P->part.parts; p += omp_get_num_threads())
            for (spb_index i = P->part.first[p]; i < P->part.first[p + 1]; i++) {
                SPB_VALUE sum = SPB_ROW_DOT(C->col_idx, SPB_PANEL_VALUES(P, q), C->row_ptr[i],
                                            C->row_ptr[i + 1], x);
                y[i] = q == 0 ? sum : y[i] + sum;
            }
#pragma omp barrier
    }
}
#endif
