/* adapter.cu — the CUSP rows' calls into CUSP (adapter.h): views of the
 * rows' device arrays (no copies), conversion, products, and CUSP's
 * exceptions turned into statuses with messages. */
#include "adapter.h"

#include <cstdio>
#include <exception>
#include <new>

#include "compat.cuh"

template <typename T> using device_array = cusp::array1d_view<thrust::device_ptr<T>>;
template <typename T> using ell_matrix = cusp::ell_matrix<int, T, cusp::device_memory>;
template <typename T> using hyb_matrix = cusp::hyb_matrix<int, T, cusp::device_memory>;

template <typename T> static device_array<T> device_view(void *data, int count)
{
    thrust::device_ptr<T> begin = thrust::device_pointer_cast(static_cast<T *>(data));
    return cusp::make_array1d_view(begin, begin + count);
}

template <typename T> static auto csr_view(const cusp_device_csr *A)
{
    return cusp::make_csr_matrix_view(A->m, A->n, A->nnz, device_view<int>(A->row_ptr, A->m + 1),
                                      device_view<int>(A->col_idx, A->nnz),
                                      device_view<T>(A->val, A->nnz));
}

/* The status and message of an exception CUSP (or Thrust) threw. */
static spb_status failed(const char *what, char *msg)
{
    try {
        throw;
    } catch (const cusp::format_conversion_exception &e) {
        return spb_fail(msg, SPB_ERR_DECLINED, "CUSP declines it: %s", e.what());
    } catch (const std::bad_alloc &) {
        return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of device memory", what);
    } catch (const std::exception &e) {
        return spb_fail(msg, SPB_ERR_DEVICE, "%s: %s", what, e.what());
    }
}

template <typename T> static double stored_bytes(const ell_matrix<T> &E)
{
    return (double)E.column_indices.num_entries * (sizeof(int) + sizeof(T));
}
template <typename T> static double stored_bytes(const hyb_matrix<T> &H)
{
    return stored_bytes<T>(H.ell) + (double)H.coo.num_entries * (2 * sizeof(int) + sizeof(T));
}

template <typename T, typename M>
static spb_status convert_typed(const cusp_device_csr *A, void **matrix, double *bytes, char *msg)
{
    M *made = NULL;
    try {
        made = new M;
        cusp::convert(csr_view<T>(A), *made);
    } catch (...) {
        delete made;
        return failed("cusp::convert", msg);
    }
    *matrix = made;
    *bytes = stored_bytes<T>(*made);
    return SPB_OK;
}

spb_status cusp_convert(const cusp_device_csr *A, int fp32, cusp_format format, void **matrix,
                        double *bytes, char *msg)
{
    if (format == CUSP_ELL)
        return fp32 ? convert_typed<float, ell_matrix<float>>(A, matrix, bytes, msg)
                    : convert_typed<double, ell_matrix<double>>(A, matrix, bytes, msg);
    return fp32 ? convert_typed<float, hyb_matrix<float>>(A, matrix, bytes, msg)
                : convert_typed<double, hyb_matrix<double>>(A, matrix, bytes, msg);
}

void cusp_free_matrix(void *matrix, int fp32, cusp_format format)
{
    if (format == CUSP_ELL && fp32) delete static_cast<ell_matrix<float> *>(matrix);
    if (format == CUSP_ELL && !fp32) delete static_cast<ell_matrix<double> *>(matrix);
    if (format == CUSP_HYB && fp32) delete static_cast<hyb_matrix<float> *>(matrix);
    if (format == CUSP_HYB && !fp32) delete static_cast<hyb_matrix<double> *>(matrix);
}

template <typename T>
static void spmv_typed(const cusp_device_csr *A, cusp_format format, void *matrix, void *x, void *y)
{
    device_array<T> xs = device_view<T>(x, A->n), ys = device_view<T>(y, A->m);
    if (format == CUSP_ELL)
        cusp::multiply(*static_cast<ell_matrix<T> *>(matrix), xs, ys);
    else if (format == CUSP_HYB)
        cusp::multiply(*static_cast<hyb_matrix<T> *>(matrix), xs, ys);
    else
        cusp::multiply(csr_view<T>(A), xs, ys);
}

spb_status cusp_spmv(const cusp_device_csr *A, int fp32, cusp_format format, void *matrix, void *x,
                     void *y, char *msg)
{
    if (A->m == 0) return SPB_OK;
    try {
        if (fp32)
            spmv_typed<float>(A, format, matrix, x, y);
        else
            spmv_typed<double>(A, format, matrix, x, y);
    } catch (...) {
        return failed("cusp::multiply", msg);
    }
    return SPB_OK;
}

/* What cusp_spgemm keeps until cusp_free_product: C in COO and its row
 * offsets. */
struct cusp_product {
    cusp::coo_matrix<int, double, cusp::device_memory> C;
    cusp::array1d<int, cusp::device_memory> row_offsets;
};

/* A CSR matrix as a COO view: its row indices expanded into `rows`. */
static auto coo_view(const cusp_device_csr *A, cusp::array1d<int, cusp::device_memory> &rows)
{
    rows.resize(A->nnz);
    cusp::offsets_to_indices(device_view<int>(A->row_ptr, A->m + 1), rows);
    return cusp::make_coo_matrix_view(A->m, A->n, A->nnz, cusp::make_array1d_view(rows),
                                      device_view<int>(A->col_idx, A->nnz),
                                      device_view<double>(A->val, A->nnz));
}

/* CUSP's product of COO matrices (its expand-sort-compress kernel): its
 * CSR interface runs the same and then drops the entries that sum to zero,
 * which a structural product keeps (explicit zeros, exact cancellation). */
spb_status cusp_spgemm(const cusp_device_csr *A, const cusp_device_csr *B, void **held,
                       cusp_device_csr *C, char *msg)
{
    cusp_product *made = NULL;
    try {
        made = new cusp_product;
        cusp::array1d<int, cusp::device_memory> rows_a, rows_b;
        cusp::multiply(coo_view(A, rows_a), coo_view(B, rows_b), made->C);
        made->row_offsets.resize(A->m + 1);
        cusp::indices_to_offsets(made->C.row_indices, made->row_offsets);
    } catch (...) {
        delete made;
        return failed("cusp::multiply", msg);
    }
    *held = made;
    *C = cusp_device_csr{A->m,
                         B->n,
                         (int)made->C.num_entries,
                         thrust::raw_pointer_cast(made->row_offsets.data()),
                         thrust::raw_pointer_cast(made->C.column_indices.data()),
                         thrust::raw_pointer_cast(made->C.values.data())};
    return SPB_OK;
}

void cusp_free_product(void *held) { delete static_cast<cusp_product *>(held); }

const char *cusp_version(void)
{
    static char text[32];
    snprintf(text, sizeof text, "%d.%d.%d", CUSP_MAJOR_VERSION, CUSP_MINOR_VERSION,
             CUSP_SUBMINOR_VERSION);
    return text;
}
