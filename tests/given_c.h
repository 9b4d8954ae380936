/* given_c.h — a stand-in SpGEMM kernel whose C is its state's matrix: what
 * a row made, right or wrong, for the operation's validation to judge. */
#ifndef SPB_GIVEN_C_H
#define SPB_GIVEN_C_H

#include <string.h>

#include "core/kernel.h"
#include "formats/csr.h"

static spb_status given_c(const void *state, spb_csr *C, char *msg)
{
    const spb_csr *made = state;
    spb_status st = made->complex_values ? csr_alloc_complex(C, made->m, made->n, made->nnz, msg)
                                         : csr_alloc(C, made->m, made->n, made->nnz, msg);
    if (st != SPB_OK) return SPB_ERR_NOMEM;
    memcpy(C->row_ptr, made->row_ptr, sizeof *C->row_ptr * ((size_t)made->m + 1));
    memcpy(C->col_idx, made->col_idx, sizeof *C->col_idx * (size_t)made->nnz);
    memcpy(C->val, made->val, sizeof *C->val * (size_t)made->nnz * csr_values_per_entry(made));
    return SPB_OK;
}

static const spb_spgemm_kernel given_kernel = {.kernel = {.name = "given"}, .spgemm = given_c};

#endif
