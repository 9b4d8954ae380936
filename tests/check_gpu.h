/* check_gpu.h — how a device half of a table test ends: a device that is
 * listed but on which no device kernel ran is a failure (every prepare
 * failed: out of memory, a driver/runtime mismatch, a device held in
 * exclusive mode), never a skip; no device at all is a skip (CTest's 77),
 * or a failure under SPB_REQUIRE_GPU=1 (a GPU machine's run, where a skip
 * would hide that nothing ran). A check that failed is a failure whatever
 * ran. */
#ifndef SPB_CHECK_GPU_H
#define SPB_CHECK_GPU_H

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gpu/gpu.h"

static inline int check_gpu_done(int ran)
{
    if (ran > 0 || check_failed > 0) return check_done();
    spb_gpu_info info;
    char why[SPB_MSG_LEN] = "";
    const char *required = getenv("SPB_REQUIRE_GPU");
    if (gpu_query(&info, why) == SPB_OK) {
        CHECK(0, "%s is listed, but no device kernel could run on it (each prepare failed)",
              info.name);
        return check_done();
    }
    if (required && strcmp(required, "1") == 0) {
        CHECK(0, "SPB_REQUIRE_GPU=1, but no device kernel could run: %s", why);
        return check_done();
    }
    printf("skipped: no device kernel can run here: %s\n", why);
    return CHECK_SKIP_CODE;
}

#endif
