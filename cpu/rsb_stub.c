/* rsb_stub.c — stands in for librsb when CMake did not find it. */
#include "baselines.h"

int rsb_baseline_available(char *why)
{
    spb_fail(why, SPB_ERR_DECLINED, "not built with librsb (install librsb-dev and rebuild)");
    return 0;
}

spb_status rsb_baseline_prepare(const spb_csr *A, const float *val32, int threads, void **state,
                                double *tune_ms, char *msg)
{
    (void)A;
    (void)val32;
    (void)threads;
    (void)tune_ms;
    *state = NULL;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with librsb");
}

spb_status rsb_baseline_run(const void *state, const void *x, void *y, char *msg)
{
    (void)state;
    (void)x;
    (void)y;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with librsb");
}

void rsb_baseline_release(void *state) { (void)state; }
