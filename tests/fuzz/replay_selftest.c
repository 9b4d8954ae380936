/* replay_selftest.c — a stand-in harness that aborts on inputs starting
 * with "CRASH": linked with replay.c, it shows that the replay test counts
 * and fails on a failing input instead of reporting it as passed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 5 && memcmp(data, "CRASH", 5) == 0) abort();
    return 0;
}
