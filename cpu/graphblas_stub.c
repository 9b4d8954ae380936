/* graphblas_stub.c — stands in for SuiteSparse:GraphBLAS when CMake did not find it. */
#include "baselines.h"

int graphblas_baseline_available(char *why)
{
    spb_fail(why, SPB_ERR_DECLINED,
             "not built with GraphBLAS (install libgraphblas-dev and rebuild)");
    return 0;
}

spb_status graphblas_baseline_prepare(const spb_csr *A, const float *val32, int threads,
                                      void **state, char *msg)
{
    (void)A;
    (void)val32;
    (void)threads;
    *state = NULL;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with GraphBLAS");
}

spb_status graphblas_baseline_run(const void *state, const void *x, void *y, char *msg)
{
    (void)state;
    (void)x;
    (void)y;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with GraphBLAS");
}

void graphblas_baseline_release(void *state) { (void)state; }

spb_status graphblas_spgemm_prepare(const spb_csr *A, const spb_csr *B, const float *a_val32,
                                    const float *b_val32, int threads, void **state, char *msg)
{
    (void)A;
    (void)B;
    (void)a_val32;
    (void)b_val32;
    (void)threads;
    *state = NULL;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with GraphBLAS");
}

spb_status graphblas_spgemm_run(const void *state, spb_csr *C, char *msg)
{
    (void)state;
    (void)C;
    return spb_fail(msg, SPB_ERR_DECLINED, "not built with GraphBLAS");
}

void graphblas_spgemm_release(void *state) { (void)state; }
