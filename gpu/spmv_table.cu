/* spmv_table.cu — the device SpMV table: the family files' rows, in table
 * order (see family_table.cuh). */
#include "family_table.cuh"
#include "spmv_state.cuh"

static const gpu_family_rows<spb_spmv_kernel> families[] = {
    {gpu_csr_kernels, &gpu_csr_kernel_count},
    {gpu_csr_balanced_kernels, &gpu_csr_balanced_kernel_count},
    {gpu_merge_kernels, &gpu_merge_kernel_count},
    {gpu_colblock_kernels, &gpu_colblock_kernel_count},
    {gpu_hll_kernels, &gpu_hll_kernel_count},
    {gpu_bsr_kernels, &gpu_bsr_kernel_count},
    {gpu_cusparse_kernels, &gpu_cusparse_kernel_count},
    {gpu_cusp_kernels, &gpu_cusp_kernel_count},
    {gpu_auto_kernels, &gpu_auto_kernel_count}};

extern "C" int gpu_spmv_kernel_count(void) { return family_table_count(families); }

extern "C" const spb_kernel *gpu_spmv_kernel(int index)
{
    return family_table_kernel(families, index);
}
