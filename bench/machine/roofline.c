/* roofline.c — the run's bandwidth bound (see roofline.h). */
#include "bench/machine/roofline.h"

#include <string.h>
#include <time.h>

#include "core/timing.h"
#include "gpu/gpu.h"

#define GPU_PASSES_MAX 32

void roofline_init(spb_roofline *r, const int *threads, int count, int gpu, double gpu_l2_bytes)
{
    memset(r, 0, sizeof *r);
    r->cpu[r->cpu_count++].threads = 1;
    for (int k = 0; k < count && r->cpu_count < SPB_ROOFLINE_THREADS; k++)
        if (threads[k] != 1) r->cpu[r->cpu_count++].threads = threads[k];
    r->gpu = gpu;
    r->cpu_llc_bytes = bandwidth_cpu_llc_bytes(r->llc_source, sizeof r->llc_source);
    r->gpu_l2_bytes = gpu_l2_bytes;
}

spb_status roofline_measure(spb_roofline *r, int passes, char *msg)
{
    spb_status st = SPB_OK;
    for (int k = 0; k < r->cpu_count && st == SPB_OK && r->cpu_source == SPB_BW_MEASURED; k++)
        st = bandwidth_cpu(r->cpu[k].threads, passes, r->cpu_llc_bytes, r->stopped, &r->cpu[k].read,
                           &r->cpu[k].triad, msg);
    if (r->cpu_source == SPB_BW_MEASURED) r->cpu_measured_at = (double)time(NULL);
    if (r->stopped && r->stopped()) return st; /* the run ends before any row */
    if (st == SPB_OK && r->gpu) {
        double copy[GPU_PASSES_MAX], read[GPU_PASSES_MAX];
        if (passes > GPU_PASSES_MAX) passes = GPU_PASSES_MAX;
        st = gpu_bandwidth_samples(passes, copy, read, msg);
        for (int k = 0; k < passes && st == SPB_OK; k++) {
            bw_stat_add(&r->gpu_copy, copy[k]);
            bw_stat_add(&r->gpu_read, read[k]);
        }
    }
    if (st == SPB_OK && r->gpu_peer) {
        double gbs[GPU_PASSES_MAX];
        if (passes > GPU_PASSES_MAX) passes = GPU_PASSES_MAX;
        st = gpu_peer_bandwidth_samples(passes, SPB_PEER_COPY_BYTES, gbs, &r->gpu_peer_direct, msg);
        for (int k = 0; k < passes && st == SPB_OK; k++) bw_stat_add(&r->gpu_peer_copy, gbs[k]);
    }
    if (st != SPB_OK) return st;
    r->last_at = timing_now();
    if (r->measurements++ == 0) r->first_at = r->last_at;
    return SPB_OK;
}

void roofline_give(spb_roofline *r, double gbps)
{
    r->cpu_source = gbps > 0 ? SPB_BW_GIVEN : SPB_BW_NONE;
    for (int k = 0; k < r->cpu_count; k++) {
        spb_bw_stat given = {.best = gbps, .median = gbps, .worst = gbps};
        r->cpu[k].read = r->cpu[k].triad = given;
    }
}

static double larger(double a, double b) { return a > b ? a : b; }

double roofline_cpu(const spb_roofline *r, int threads)
{
    for (int k = 0; k < r->cpu_count; k++)
        if (r->cpu[k].threads == threads) return larger(r->cpu[k].read.best, r->cpu[k].triad.best);
    return 0;
}

double roofline_gpu(const spb_roofline *r)
{
    return r->gpu ? larger(r->gpu_read.best, r->gpu_copy.best) : 0;
}
