/* kernels.h — selecting kernels of an operation's table by name. */
#ifndef SPB_KERNELS_H
#define SPB_KERNELS_H

#include "../formats/kernel.h"

const char *backend_name(spb_backend backend);

/* Whether name matches a comma-separated list of shell patterns
 * ("csr.*,hll.serial.row"); NULL or empty matches everything. */
int kernel_selected(const char *name, const char *patterns);

#endif
