/* adapter.h — the CUSP calls of the CUSP rows, behind plain functions: CUSP's
 * headers need C++17 (they use the std::binary_function typedefs C++20
 * removed), the device tables C++20, so CUSP is included by adapter.cu alone
 * (its own target, built when CMake finds CUSP: SPB_HAVE_CUSP). */
#ifndef SPB_CUSP_ADAPTER_H
#define SPB_CUSP_ADAPTER_H

#include <stddef.h>

extern "C" {
#include "core/spb.h"
}

/* A CSR matrix in device memory; val holds double, or float when fp32. */
struct cusp_device_csr {
    int m, n, nnz;
    int *row_ptr, *col_idx;
    void *val;
};

/* Why a CUSP row cannot run in a build without CUSP. */
#define SPB_CUSP_NOT_BUILT                                                                         \
    "not built with CUSP (cmake -DSPB_CUSP_DIR=<a CUSP clone>; docs/kernels.md)"

enum cusp_format { CUSP_CSR, CUSP_ELL, CUSP_HYB };

/* A's CSR converted by CUSP into its ELL or HYB, returned in *matrix with
 * the bytes it stores; SPB_ERR_DECLINED where CUSP refuses the padding. */
spb_status cusp_convert(const cusp_device_csr *A, int fp32, cusp_format format, void **matrix,
                        double *bytes, char *msg);
void cusp_free_matrix(void *matrix, int fp32, cusp_format format);

/* y = A*x on the default stream, A as CSR (matrix NULL) or as converted. */
spb_status cusp_spmv(const cusp_device_csr *A, int fp32, cusp_format format, void *matrix, void *x,
                     void *y, char *msg);

/* C = A*B (fp64), C held by CUSP in *held (its arrays in *C) until
 * cusp_free_product. */
spb_status cusp_spgemm(const cusp_device_csr *A, const cusp_device_csr *B, void **held,
                       cusp_device_csr *C, char *msg);
void cusp_free_product(void *held);

/* CUSP's version, "0.6.0". */
const char *cusp_version(void);

#endif
