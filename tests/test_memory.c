/* test_memory.c — the memory checks' verdicts: a host estimate past the
 * room the user sets (SPB_MEMORY_LIMIT) is too large, with the figures; a
 * device estimate past what is free is out of memory (the run tries the row
 * again alone, when the other rows have let their memory go), past the
 * device's whole memory declined (skipped: no retry can make it fit). */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/memory.h"

static const double gib = 1024.0 * 1024.0 * 1024.0;

static void check_host_room(void)
{
    char msg[SPB_MSG_LEN] = "";
    setenv("SPB_MEMORY_LIMIT", "1073741824", 1);
    spb_memory_room room = spb_memory_room_now();
    CHECK(room.bytes > 0 && room.bytes <= gib, "room %.0f under a 1 GiB limit", room.bytes);
    CHECK(spb_memory_check(0.5 * gib, "the matrix", "its arrays", msg) == SPB_OK,
          "half a GiB under a 1 GiB limit: %s", msg);
    msg[0] = '\0';
    spb_status st = spb_memory_check(3 * gib, "the matrix", "its arrays", msg);
    CHECK(st == SPB_ERR_TOO_LARGE, "3 GiB under a 1 GiB limit: %s", spb_status_str(st));
    CHECK(strstr(msg, "the matrix needs about 3.00 GiB (its arrays)") &&
              strstr(msg, "SPB_MEMORY_LIMIT"),
          "message names the estimate and the bound: %s", msg);
    unsetenv("SPB_MEMORY_LIMIT");
}

static void check_device_verdicts(void)
{
    const double total = 80 * gib, free_bytes = 20 * gib;
    char msg[SPB_MSG_LEN] = "";
    CHECK(spb_memory_check_device(10 * gib, free_bytes, total, "A*B", "d", msg) == SPB_OK,
          "fits in what is free: %s", msg);
    CHECK(spb_memory_check_device(20 * gib, free_bytes, total, "A*B", "d", msg) == SPB_OK,
          "exactly what is free fits: %s", msg);
    CHECK(spb_memory_check_device(1e30, -1, -1, "A*B", "d", msg) == SPB_OK,
          "unknown sizes pass: %s", msg);

    /* past what is free, within the device: other rows may hold the rest */
    msg[0] = '\0';
    spb_status st = spb_memory_check_device(30 * gib, free_bytes, total, "A*B", "d", msg);
    CHECK(st == SPB_ERR_NOMEM, "past free, within the device: %s (%s)", spb_status_str(st), msg);
    CHECK(strstr(msg, "A*B needs about 30.00 GiB (d); 20.00 GiB free of the device's 80.00 GiB"),
          "message: %s", msg);

    /* past the whole device: declined, so the row is skipped, not retried */
    msg[0] = '\0';
    st = spb_memory_check_device(88 * gib, free_bytes, total, "A*B", "d", msg);
    CHECK(st == SPB_ERR_DECLINED, "past the device: %s (%s)", spb_status_str(st), msg);
    CHECK(strstr(msg, "A*B needs about 88.00 GiB (d); more than the device's whole memory, "
                      "80.00 GiB"),
          "message: %s", msg);
    msg[0] = '\0';
    st = spb_memory_check_device(88 * gib, total, total, "A*B", "d", msg);
    CHECK(st == SPB_ERR_DECLINED, "past an idle device: %s (%s)", spb_status_str(st), msg);
    msg[0] = '\0';
    st = spb_memory_check_device(600.0 * 1024 * 1024, 512.0 * 1024 * 1024, gib, "x", "d", msg);
    CHECK(st == SPB_ERR_NOMEM && strstr(msg, "600.0 MiB") && strstr(msg, "512.0 MiB free"),
          "MiB below a GiB: %s", msg);
}

int main(void)
{
    check_host_room();
    check_device_verdicts();
    return check_done();
}
