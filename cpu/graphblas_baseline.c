/* graphblas_baseline.c — SuiteSparse:GraphBLAS as a baseline (see
 * baselines.h). x is lent to GraphBLAS without a copy (pack/unpack of a
 * full vector); the result is copied out of GraphBLAS's vector into y, as
 * any caller holding plain arrays must do. */
#include <GraphBLAS.h>
#include <string.h>

#include "baselines.h"

typedef struct {
    GrB_Matrix A;
    GrB_Vector u, w;
    GrB_Descriptor desc;
    GrB_Index m, n;
    GrB_Index *rows; /* scratch for results with missing entries (empty rows) */
    double *vals;
} graphblas_state;

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

spb_status graphblas_baseline_prepare(const spb_csr *A, int threads, void **state, char *msg)
{
    *state = NULL;
    GrB_Info info = GrB_SUCCESS;
    if (!graphblas_ready) {
        info = GrB_init(GrB_NONBLOCKING);
        if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_init", msg);
        graphblas_ready = 1;
    }
    graphblas_state *s = spb_calloc(1, sizeof *s);
    GrB_Index *I = spb_malloc((size_t)A->nnz, sizeof *I);
    GrB_Index *J = spb_malloc((size_t)A->nnz, sizeof *J);
    if (s) {
        s->rows = spb_malloc((size_t)A->m, sizeof *s->rows);
        s->vals = spb_malloc((size_t)A->m, sizeof *s->vals);
    }
    spb_status st = SPB_OK;
    if (!s || !I || !J || !s->rows || !s->vals) {
        st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
        goto done;
    }
    s->m = (GrB_Index)A->m;
    s->n = (GrB_Index)A->n;
    for (spb_index i = 0; i < A->m; i++)
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++) {
            I[k] = (GrB_Index)i;
            J[k] = (GrB_Index)A->col_idx[k];
        }
    const char *what = "GrB_Matrix_new";
    info = GrB_Matrix_new(&s->A, GrB_FP64, s->m, s->n);
    if (info == GrB_SUCCESS) {
        what = "setting row-major storage";
        info = GxB_Matrix_Option_set(s->A, GxB_FORMAT, GxB_BY_ROW);
    }
    if (info == GrB_SUCCESS) {
        what = "GrB_Matrix_build";
        info = GrB_Matrix_build_FP64(s->A, I, J, A->val, (GrB_Index)A->nnz, GrB_PLUS_FP64);
    }
    if (info == GrB_SUCCESS) {
        what = "GrB_Matrix_wait";
        info = GrB_Matrix_wait(s->A, GrB_MATERIALIZE);
    }
    if (info == GrB_SUCCESS) info = GrB_Vector_new(&s->u, GrB_FP64, s->n);
    if (info == GrB_SUCCESS) info = GrB_Vector_new(&s->w, GrB_FP64, s->m);
    if (info == GrB_SUCCESS) info = GrB_Descriptor_new(&s->desc);
    if (info == GrB_SUCCESS) {
        what = "setting the thread count";
        info = GxB_Desc_set(s->desc, GxB_NTHREADS, threads);
    }
    if (info != GrB_SUCCESS) st = graphblas_error(info, what, msg);
done:
    spb_free(I);
    spb_free(J);
    if (st == SPB_OK)
        *state = s;
    else
        graphblas_baseline_release(s);
    return st;
}

spb_status graphblas_baseline_run(const void *state, const spb_value *x, spb_value *y, char *msg)
{
    const graphblas_state *s = state;
    /* Lend x to u without copying; GraphBLAS reads it and hands it back. */
    void *x_data = (void *)x;
    GrB_Info info = GxB_Vector_pack_Full(s->u, &x_data, s->n * sizeof *x, false, NULL);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GxB_Vector_pack_Full", msg);
    info = GrB_mxv(s->w, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, s->A, s->u, s->desc);
    GrB_Index size;
    bool iso;
    GrB_Info unpacked = GxB_Vector_unpack_Full(s->u, &x_data, &size, &iso, NULL);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_mxv", msg);
    if (unpacked != GrB_SUCCESS) return graphblas_error(unpacked, "GxB_Vector_unpack_Full", msg);
    GrB_Index nvals = 0;
    info = GrB_Vector_nvals(&nvals, s->w);
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_Vector_nvals", msg);
    if (nvals == s->m) { /* every row has an entry: copy the values straight into y */
        info = GrB_Vector_extractTuples_FP64(NULL, y, &nvals, s->w);
    } else { /* rows without entries are absent from w */
        info = GrB_Vector_extractTuples_FP64(s->rows, s->vals, &nvals, s->w);
        if (info == GrB_SUCCESS) {
            memset(y, 0, sizeof *y * s->m);
            for (GrB_Index k = 0; k < nvals; k++) y[s->rows[k]] = s->vals[k];
        }
    }
    if (info != GrB_SUCCESS) return graphblas_error(info, "GrB_Vector_extractTuples", msg);
    return SPB_OK;
}
