/* coo.c — coordinate matrix storage. */
#include "coo.h"

#include <string.h>

spb_status coo_alloc(spb_coo *A, spb_index m, spb_index n, spb_offset nnz, char *msg)
{
    memset(A, 0, sizeof *A);
    if (m < 0 || n < 0 || nnz < 0)
        return spb_fail(msg, SPB_ERR_INVALID, "negative COO size %d x %d, nnz %lld", (int)m, (int)n,
                        (long long)nnz);
    A->row = spb_malloc((size_t)nnz, sizeof *A->row);
    A->col = spb_malloc((size_t)nnz, sizeof *A->col);
    A->val = spb_malloc((size_t)nnz, sizeof *A->val);
    if (!A->row || !A->col || !A->val) {
        coo_free(A);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for %lld COO entries", (long long)nnz);
    }
    A->m = m;
    A->n = n;
    A->nnz = nnz;
    return SPB_OK;
}

void coo_free(spb_coo *A)
{
    if (!A) return;
    spb_free(A->row);
    spb_free(A->col);
    spb_free(A->val);
    memset(A, 0, sizeof *A);
}
