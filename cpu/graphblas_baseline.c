/* graphblas_baseline.c — SuiteSparse:GraphBLAS as a baseline (see
 * baselines.h). x is lent to GraphBLAS without a copy (pack/unpack of a
 * full vector); the result is copied out of GraphBLAS's vector into y, as
 * any caller holding plain arrays must do. */
#include <GraphBLAS.h>
#include <stdlib.h>
#include <string.h>

#include "baselines.h"

typedef struct {
    GrB_Matrix A;
    GrB_Vector u, w;
    GrB_Descriptor desc;
    GrB_Index m, n;
    GrB_Index *rows;         /* scratch for results with missing entries (empty rows) */
    void *vals;              /* the same, values (of the precision's type) */
    spb_precision precision; /* of the matrix, vectors and semiring */
} graphblas_state;

/* The precision's GraphBLAS type, its semiring and its bytes; complex
 * values are GraphBLAS's GxB_FC64 and GxB_FC32 (C's complex types, laid
 * out as the CSR's (re, im) pairs). */
static GrB_Type type_of(spb_precision p)
{
    return p == SPB_FP32 ? GrB_FP32 : p == SPB_C128 ? GxB_FC64 : p == SPB_C64 ? GxB_FC32 : GrB_FP64;
}
static GrB_Semiring semiring_of(spb_precision p)
{
    return p == SPB_FP32   ? GrB_PLUS_TIMES_SEMIRING_FP32
           : p == SPB_C128 ? GxB_PLUS_TIMES_FC64
           : p == SPB_C64  ? GxB_PLUS_TIMES_FC32
                           : GrB_PLUS_TIMES_SEMIRING_FP64;
}
/* The matrix's precision: val32 (fp32 or complex64 values) or A's own. */
static spb_precision precision_of(const spb_csr *A, const float *val32)
{
    return spb_precision_in_field(val32 ? SPB_FP32 : SPB_FP64, A->complex_values);
}

static int graphblas_ready;

int graphblas_baseline_available(char *why)
{
    (void)why;
    return 1;
}

static spb_status graphblas_error(GrB_Info info, const char *what, char *msg)
{
    return spb_fail(msg, info == GrB_OUT_OF_MEMORY ? SPB_ERR_NOMEM : SPB_ERR_INVALID,
                    "GraphBLAS %s failed (GrB_Info %d)", what, (int)info);
}

void graphblas_baseline_release(void *state)
{
    graphblas_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Vector_free(&s->u);
    GrB_Vector_free(&s->w);
    GrB_Descriptor_free(&s->desc);
    spb_free(s->rows);
    spb_free(s->vals);
    spb_free(s);
}

static spb_status ensure_init(char *msg)
{
    if (graphblas_ready) return SPB_OK;
    GrB_Info info = GrB_init(GrB_NONBLOCKING);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_init", msg);
    graphblas_ready = 1;
    return SPB_OK;
}

/* A GrB_Matrix (row-major, materialized) holding the CSR matrix A: fp64
 * (complex128 for a complex A), or fp32 (complex64) with the values val32
 * when given. */
static spb_status build_matrix(const spb_csr *A, const float *val32, GrB_Matrix *M, char *msg)
{
    GrB_Index *I = spb_malloc((size_t)A->nnz, sizeof *I);
    GrB_Index *J = spb_malloc((size_t)A->nnz, sizeof *J);
    if (!I || !J) {
        spb_free(I);
        spb_free(J);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    }
    for (spb_index i = 0; i < A->m; i++)
        for (spb_offset k = csr_row_start(A, i); k < csr_row_start(A, i + 1); k++) {
            I[k] = (GrB_Index)i;
            J[k] = (GrB_Index)A->col_idx[k];
        }
    const char *what = "GrB_Matrix_new";
    const spb_precision p = precision_of(A, val32);
    GrB_Info info = GrB_Matrix_new(M, type_of(p), (GrB_Index)A->m, (GrB_Index)A->n);
    if (info == GrB_SUCCESS) {
        what = "setting row-major storage";
        info = GxB_Matrix_Option_set(*M, GxB_FORMAT, GxB_BY_ROW);
    }
    if (info == GrB_SUCCESS) {
        what = "GrB_Matrix_build";
        const GrB_Index nnz = (GrB_Index)A->nnz;
        switch (p) {
        case SPB_FP32: info = GrB_Matrix_build_FP32(*M, I, J, val32, nnz, GrB_PLUS_FP32); break;
        case SPB_FP64: info = GrB_Matrix_build_FP64(*M, I, J, A->val, nnz, GrB_PLUS_FP64); break;
        case SPB_C128:
            info = GxB_Matrix_build_FC64(*M, I, J, (const GxB_FC64_t *)(const void *)A->val, nnz,
                                         GxB_PLUS_FC64);
            break;
        case SPB_C64:
            info = GxB_Matrix_build_FC32(*M, I, J, (const GxB_FC32_t *)(const void *)val32, nnz,
                                         GxB_PLUS_FC32);
            break;
        }
    }
    if (info == GrB_SUCCESS) {
        what = "GrB_Matrix_wait";
        info = GrB_Matrix_wait(*M, GrB_MATERIALIZE);
    }
    spb_free(I);
    spb_free(J);
    return info == GrB_SUCCESS ? SPB_OK : graphblas_error(info, what, msg);
}

/* A descriptor running on `threads` threads. */
static spb_status thread_descriptor(int threads, GrB_Descriptor *desc, char *msg)
{
    GrB_Info info = GrB_Descriptor_new(desc);
    if (info == GrB_SUCCESS) info = GxB_Desc_set(*desc, GxB_NTHREADS, threads);
    return info == GrB_SUCCESS ? SPB_OK : graphblas_error(info, "setting the thread count", msg);
}

spb_status graphblas_baseline_prepare(const spb_csr *A, const float *val32, int threads,
                                      void **state, char *msg)
{
    *state = NULL;
    spb_status st = ensure_init(msg);
    if (st != SPB_OK) return st;
    graphblas_state *s = spb_calloc(1, sizeof *s);
    if (s) {
        s->rows = spb_malloc((size_t)A->m, sizeof *s->rows);
        s->vals = spb_malloc((size_t)A->m, spb_precision_bytes(precision_of(A, val32)));
    }
    if (!s || !s->rows || !s->vals) {
        graphblas_baseline_release(s);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    }
    s->m = (GrB_Index)A->m;
    s->n = (GrB_Index)A->n;
    s->precision = precision_of(A, val32);
    GrB_Type type = type_of(s->precision);
    st = build_matrix(A, val32, &s->A, msg);
    GrB_Info info = GrB_SUCCESS;
    if (st == SPB_OK) info = GrB_Vector_new(&s->u, type, s->n);
    if (st == SPB_OK && info == GrB_SUCCESS) info = GrB_Vector_new(&s->w, type, s->m);
    if (st == SPB_OK && info != GrB_SUCCESS) st = graphblas_error(info, "GrB_Vector_new", msg);
    if (st == SPB_OK) st = thread_descriptor(threads, &s->desc, msg);
    if (st == SPB_OK)
        *state = s;
    else
        graphblas_baseline_release(s);
    return st;
}

/* w's entries into rows (may be NULL) and vals, of the precision's type. */
static GrB_Info extract(spb_precision p, GrB_Index *rows, void *vals, GrB_Index *nvals,
                        GrB_Vector w)
{
    switch (p) {
    case SPB_FP32: return GrB_Vector_extractTuples_FP32(rows, vals, nvals, w);
    case SPB_C128: return GxB_Vector_extractTuples_FC64(rows, vals, nvals, w);
    case SPB_C64: return GxB_Vector_extractTuples_FC32(rows, vals, nvals, w);
    case SPB_FP64: break;
    }
    return GrB_Vector_extractTuples_FP64(rows, vals, nvals, w);
}

spb_status graphblas_baseline_run(const void *state, const void *x, void *y, char *msg)
{
    const graphblas_state *s = state;
    size_t value_bytes = spb_precision_bytes(s->precision);
    /* Lend x to u without copying; GraphBLAS reads it and hands it back. */
    void *x_data = (void *)x;
    GrB_Info info = GxB_Vector_pack_Full(s->u, &x_data, s->n * value_bytes, false, NULL);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GxB_Vector_pack_Full", msg);
    info = GrB_mxv(s->w, NULL, NULL, semiring_of(s->precision), s->A, s->u, s->desc);
    GrB_Index size;
    bool iso;
    GrB_Info unpacked = GxB_Vector_unpack_Full(s->u, &x_data, &size, &iso, NULL);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_mxv", msg);
    if (unpacked != GrB_SUCCESS) return graphblas_error(unpacked, "GxB_Vector_unpack_Full", msg);
    GrB_Index nvals = 0;
    info = GrB_Vector_nvals(&nvals, s->w);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_Vector_nvals", msg);
    if (nvals == s->m) { /* every row has an entry: copy the values straight into y */
        info = extract(s->precision, NULL, y, &nvals, s->w);
    } else { /* rows without entries are absent from w */
        info = extract(s->precision, s->rows, s->vals, &nvals, s->w);
        if (info == GrB_SUCCESS) {
            memset(y, 0, value_bytes * s->m);
            for (GrB_Index k = 0; k < nvals; k++) /* one entry's bytes to its row */
                memcpy((char *)y + s->rows[k] * value_bytes, (char *)s->vals + k * value_bytes,
                       value_bytes);
        }
    }
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_Vector_extractTuples", msg);
    return SPB_OK;
}

/* ---- SpGEMM: GrB_mxm ------------------------------------------------------------- */

typedef struct {
    GrB_Matrix A, B;
    GrB_Descriptor desc;
    GrB_Index m, n;
    spb_precision precision; /* of A, B, C and the semiring */
    const spb_csr *a, *b;    /* the operands (the format set's): csr_spgemm_wide reads them */
} graphblas_mxm_state;

void graphblas_spgemm_release(void *state)
{
    graphblas_mxm_state *s = state;
    if (!s) return;
    GrB_Matrix_free(&s->A);
    GrB_Matrix_free(&s->B);
    GrB_Descriptor_free(&s->desc);
    spb_free(s);
}

spb_status graphblas_spgemm_prepare(const spb_csr *A, const spb_csr *B, const float *a_val32,
                                    const float *b_val32, int threads, void **state, char *msg)
{
    *state = NULL;
    spb_status st = ensure_init(msg);
    if (st != SPB_OK) return st;
    graphblas_mxm_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    s->m = (GrB_Index)A->m;
    s->n = (GrB_Index)B->n;
    s->precision = precision_of(A, a_val32);
    s->a = A;
    s->b = B;
    st = build_matrix(A, a_val32, &s->A, msg);
    if (st == SPB_OK) st = build_matrix(B, b_val32, &s->B, msg);
    if (st == SPB_OK) st = thread_descriptor(threads, &s->desc, msg);
    if (st == SPB_OK)
        *state = s;
    else
        graphblas_spgemm_release(s);
    return st;
}

/* GraphBLAS's CSR (64-bit indices, possibly iso) copied into spbench's:
 * values of the precision's type (complex ones as (re, im) pairs) widened
 * to doubles; on 64-bit row offsets as csr_spgemm_wide says for A*B. */
static spb_status copy_out(const graphblas_mxm_state *s, const GrB_Index *Ap, const GrB_Index *Aj,
                           const void *Ax, bool iso, spb_csr *C, char *msg)
{
    const GrB_Index m = s->m, nnz = Ap[m];
    const int single = spb_precision_single(s->precision);
    const size_t parts = spb_precision_complex(s->precision) ? 2 : 1;
    spb_status st = csr_alloc_as(C, (spb_index)m, (spb_index)s->n, (spb_offset)nnz, parts == 2,
                                 csr_spgemm_wide(s->a, s->b, (int64_t)nnz), msg);
    if (st != SPB_OK) return st;
    for (GrB_Index i = 0; i <= m; i++) csr_set_row_start(C, (spb_index)i, (spb_offset)Ap[i]);
    for (GrB_Index k = 0; k < nnz; k++) {
        C->col_idx[k] = (spb_index)Aj[k];
        const size_t at = (iso ? 0 : (size_t)k) * parts;
        for (size_t q = 0; q < parts; q++)
            C->val[(size_t)k * parts + q] =
                single ? ((const float *)Ax)[at + q] : ((const double *)Ax)[at + q];
    }
    return SPB_OK;
}

spb_status graphblas_spgemm_run(const void *state, spb_csr *C, char *msg)
{
    const graphblas_mxm_state *s = state;
    memset(C, 0, sizeof *C);
    GrB_Matrix P = NULL;
    GrB_Index *Ap = NULL, *Aj = NULL, Ap_size = 0, Aj_size = 0, Ax_size = 0;
    void *Ax = NULL;
    bool iso = false;
    const char *what = "GrB_Matrix_new";
    GrB_Info info = GrB_Matrix_new(&P, type_of(s->precision), s->m, s->n);
    if (info == GrB_SUCCESS) {
        what = "setting row-major storage";
        info = GxB_Matrix_Option_set(P, GxB_FORMAT, GxB_BY_ROW);
    }
    if (info == GrB_SUCCESS) {
        what = "GrB_mxm";
        info = GrB_mxm(P, NULL, NULL, semiring_of(s->precision), s->A, s->B, s->desc);
    }
    if (info == GrB_SUCCESS) { /* jumbled NULL: GraphBLAS returns sorted rows */
        what = "GxB_Matrix_unpack_CSR";
        info =
            GxB_Matrix_unpack_CSR(P, &Ap, &Aj, &Ax, &Ap_size, &Aj_size, &Ax_size, &iso, NULL, NULL);
    }
    spb_status st = info == GrB_SUCCESS ? copy_out(s, Ap, Aj, Ax, iso, C, msg)
                                        : graphblas_error(info, what, msg);
    free(Ap); /* unpacked arrays belong to the caller, from GraphBLAS's malloc */
    free(Aj);
    free(Ax);
    GrB_Matrix_free(&P);
    return st;
}
