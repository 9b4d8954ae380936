/* spmv_table.cu — the device SpMV table: the family files' rows, in table
 * order (see family_table.cuh). */
#include <stdio.h>
#include <stdlib.h>

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

/* The first row whose format name (what a run's plan keeps the format
 * set's formats by, bench/run/plan.c) names another kind than its
 * variant's (what its prepare takes from the set), or NULL. A name of no
 * kind ("coo") is a vendor's own layout, made from the CSR. Rows that
 * disagree would have their format dropped before their last use and
 * built again. */
static const char *format_disagreement(void)
{
    for (int k = 0; k < family_table_count(families); k++) {
        const spb_kernel *row = family_table_kernel(families, k);
        if (row->prepare != gpu_spmv_prepare) continue; /* no variant (auto.cuda) */
        const int named = format_kind_of(row->format);
        const int taken = ((const gpu_variant *)row->variant)->format;
        if (named != taken && !(named < 0 && taken == SPB_FORMAT_CSR)) return row->name;
    }
    return NULL;
}

extern "C" int gpu_spmv_kernel_count(void)
{
    static const char *const disagrees = format_disagreement();
    if (disagrees) { /* a defect of the build: every test that lists the rows stops here */
        fprintf(stderr, "spbench: device row %s: its format name is not the format it takes\n",
                disagrees);
        abort();
    }
    return family_table_count(families);
}

extern "C" const spb_kernel *gpu_spmv_kernel(int index)
{
    return family_table_kernel(families, index);
}
