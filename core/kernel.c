/* kernel.c — the backends' names (see kernel.h). */
#include "core/kernel.h"

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
