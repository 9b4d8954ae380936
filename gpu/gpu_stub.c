/* gpu_stub.c — stands in for gpu/ when no CUDA compiler was found. */
#include "gpu.h"

#include <string.h>

int gpu_compiled(void) { return 0; }

spb_status gpu_query(spb_gpu_info *info, char *msg)
{
    memset(info, 0, sizeof *info);
    return spb_fail(msg, SPB_ERR_DEVICE, "not built with CUDA (no CUDA compiler was found)");
}
