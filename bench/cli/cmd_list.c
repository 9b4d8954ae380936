/* cmd_list.c — spbench --list: every operation's kernel table, with which
 * rows also take complex matrices, where a kernel cannot run here and the
 * library a plug-in kernel came from. */
#include <stdio.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/run/operation.h"
#include "gpu/gpu.h"
#include "plugins/loader.h"

int cmd_list(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int width = 0; /* the name column as wide as the longest name */
    for (int o = 0; operation_at(o); o++)
        for (int k = 0; k < operation_at(o)->kernel_count; k++) {
            int len = (int)strlen(operation_at(o)->kernels[k]->name);
            if (len > width) width = len;
        }
    for (int o = 0; operation_at(o); o++) {
        const spb_operation *op = operation_at(o);
        for (int k = 0; k < op->kernel_count; k++) {
            const spb_kernel *kernel = op->kernels[k];
            char why[SPB_MSG_LEN] = "";
            int available = !kernel->supports || kernel->supports(kernel, NULL, why);
            const char *library = plugin_library_of(kernel);
            printf("%-*s %-6s %-11s %-7s %s%s%s%s%s%s%s%s%s\n", width, kernel->name, op->name,
                   kernel->format, backend_name(kernel->backend), kernel->description,
                   kernel->complex_values ? " [complex too]" : "",
                   kernel->wide_offsets ? " [64-bit offsets too]" : "",
                   available ? "" : " [unavailable: ", available ? "" : why, available ? "" : "]",
                   library ? " [plug-in: " : "", library ? library : "", library ? "]" : "");
        }
    }
    const char *no_gpu = gpu_absent_why();
    if (no_gpu) printf("# no GPU kernels: %s\n", no_gpu);
    return 0;
}
