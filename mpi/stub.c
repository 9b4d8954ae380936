/* stub.c — the distributed rows without MPI: listed, never run (each says
 * why), and one process with no ranks to serve. */
#include "dist_internal.h"

void dist_place_rank(void) {}

void dist_start(int started_by_spbench) { (void)started_by_spbench; }

int dist_world_size(void) { return 1; }
int dist_compiled(void) { return 0; }
int dist_launched(void) { return 0; }
int dist_petsc_compiled(void) { return 0; }
const char *dist_placement(void) { return "as started"; }
const char *dist_shared_memory_copy(void) { return ""; }

const char *dist_unavailable(void)
{
    return "spbench was built without MPI (CMake found none; scripts/deps.sh installs Open MPI)";
}

spb_status dist_prepare(const dist_variant *variant, int kernel_index,
                        const spb_format_set *formats, const spb_kernel_config *config,
                        spb_kernel_plan *plan, char *msg)
{
    (void)variant;
    (void)kernel_index;
    (void)formats;
    (void)config;
    (void)plan;
    return spb_fail(msg, SPB_ERR_DECLINED, "%s", dist_unavailable());
}

spb_status dist_product(const void *state, const spb_value *x, spb_value *y, char *msg)
{
    (void)state;
    (void)x;
    (void)y;
    return spb_fail(msg, SPB_ERR_DECLINED, "%s", dist_unavailable());
}

double dist_time_calls(void *state, int calls)
{
    (void)state;
    (void)calls;
    return -1.0;
}

spb_status dist_check(const void *state, char *msg)
{
    (void)state;
    (void)msg;
    return SPB_OK;
}

void dist_release(void *state) { (void)state; }

int dist_kernel_stats(const void *state, spb_dist_stats *out, double *series[DIST_SERIES])
{
    (void)state;
    dist_stats_init(out);
    for (int k = 0; k < DIST_SERIES; k++) series[k] = NULL;
    return 0;
}
