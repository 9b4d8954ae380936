/* memory.h — how much memory this process may still take, so that work too
 * large for it is refused with a message naming the estimate before
 * anything is allocated, instead of the kernel's OOM killer ending the
 * whole batch (allocations succeed lazily; the kill comes on first touch). */
#ifndef SPB_MEMORY_H
#define SPB_MEMORY_H

#include "spb.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double bytes;      /* < 0: unknown */
    const char *bound; /* which limit it is: "MemAvailable", "cgroup memory.max", ... */
} spb_memory_room;

/* The least of: the environment's SPB_MEMORY_LIMIT (bytes: a cap the user
 * sets), the memory the system reports available (MemAvailable),
 * the cgroup's limit less its usage (v2 or v1), and the address-space and
 * data-segment limits (RLIMIT_AS, RLIMIT_DATA) less what this process has
 * mapped. */
spb_memory_room spb_memory_room_now(void);

/* SPB_OK when `need` bytes fit in the room now; otherwise SPB_ERR_TOO_LARGE
 * with "WHAT needs about X GiB (DETAIL); Y GiB available (BOUND)", in MiB below a GiB. */
spb_status spb_memory_check(double need, const char *what, const char *detail, char *msg);

/* A device's answer to `need` bytes, given its free and whole memory:
 * SPB_OK when they fit in what is free (or a size is unknown, < 0);
 * SPB_ERR_NOMEM when they pass what is free but not the whole (other rows
 * may hold the rest: the run tries the row again alone); SPB_ERR_DECLINED
 * when they pass the whole device, which no retry mends (the row is
 * skipped, as a host row past the host's room is). The message names the
 * estimate and the bound as spb_memory_check's does. */
spb_status spb_memory_check_device(double need, double free_bytes, double total_bytes,
                                   const char *what, const char *detail, char *msg);

#ifdef __cplusplus
}
#endif
#endif
