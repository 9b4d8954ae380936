/* kernels.c — kernel names: backends and selection patterns. */
#include "kernels.h"

#include <fnmatch.h>
#include <string.h>

#include "operation.h"

const spb_kernel *operation_kernel(const spb_operation *op, const char *name)
{
    for (int k = 0; k < op->kernel_count; k++)
        if (strcmp(op->kernels[k]->name, name) == 0) return op->kernels[k];
    return NULL;
}

const spb_operation *operation_at(int index)
{
    switch (index) {
    case 0: return operation_spmv();
    case 1: return operation_spgemm();
    }
    return NULL;
}

const spb_operation *operation_named(const char *name)
{
    for (int k = 0; operation_at(k); k++)
        if (strcmp(operation_at(k)->name, name) == 0) return operation_at(k);
    return NULL;
}

const char *backend_name(spb_backend backend)
{
    switch (backend) {
    case SPB_BACKEND_SERIAL: return "serial";
    case SPB_BACKEND_OPENMP: return "openmp";
    case SPB_BACKEND_CUDA: return "cuda";
    case SPB_BACKEND_MPI: return "mpi";
    }
    return "unknown";
}

int kernel_chosen(const spb_kernel *kernel, const char *patterns, int distributed)
{
    if (!patterns || !*patterns) return (kernel->backend == SPB_BACKEND_MPI) == distributed;
    return kernel_selected(kernel->name, patterns);
}

int kernel_selected(const char *name, const char *patterns)
{
    if (!patterns || !*patterns) return 1;
    char pattern[256];
    while (*patterns) {
        size_t len = strcspn(patterns, ",");
        if (len > 0 && len < sizeof pattern) {
            memcpy(pattern, patterns, len);
            pattern[len] = '\0';
            if (fnmatch(pattern, name, 0) == 0) return 1;
        }
        patterns += len + (patterns[len] == ',');
    }
    return 0;
}
