/* spgemm_table.cu — the device SpGEMM table: the family files' rows, in
 * table order (see family_table.cuh). */
#include "family_table.cuh"
#include "spgemm_state.cuh"

static const gpu_family_rows<spb_spgemm_kernel> families[] = {
    {gpu_spgemm_tiled_kernels, &gpu_spgemm_tiled_kernel_count},
    {gpu_spgemm_esc_kernels, &gpu_spgemm_esc_kernel_count},
    {gpu_spgemm_cusparse_kernels, &gpu_spgemm_cusparse_kernel_count},
    {gpu_spgemm_auto_kernels, &gpu_spgemm_auto_kernel_count},
    /* last: CUSP keeps device memory it took when it fails (see its row) */
    {gpu_spgemm_cusp_kernels, &gpu_spgemm_cusp_kernel_count}};

extern "C" int gpu_spgemm_kernel_count(void) { return family_table_count(families); }

extern "C" const spb_kernel *gpu_spgemm_kernel(int index)
{
    return family_table_kernel(families, index);
}
