// place.cu: does where a row's buffers land in device memory change the time
// of one cuSPARSE SpMV (CSR, ALG1, fp64)? Copies of A and of x are made at
// different places and timed in turns, crossed (A of one copy with x of
// another), after 20 GB of other allocations, and with x at offsets inside
// one allocation. A one-off check behind docs/results/2026-11-27-shared-x-h100.md,
// built against spbench's libraries for its generators (from the repository root):
//   nvcc -O2 -arch=sm_90 -I. place.cu build/libspb_bench.a build/libspb_formats.a \
//        build/libspb_core.a -lcusparse -lz -lm -o place && ./place gen:rmat:23:16
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <cusparse.h>
#include <vector>
extern "C" {
#include "bench/gen.h"
#include "formats/csr.h"
}
#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t err_ = (x);                                                                    \
        if (err_) {                                                                                \
            printf("%s: %s\n", #x, cudaGetErrorString(err_));                                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define SK(x)                                                                                      \
    do {                                                                                           \
        cusparseStatus_t err_ = (x);                                                               \
        if (err_) {                                                                                \
            printf("%s: %d\n", #x, (int)err_);                                                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

struct Aset {
    int *row, *col;
    double *val;
};
struct Vset {
    double *x, *y;
};
struct Combo {
    cusparseHandle_t h;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t x, y;
    void *buf;
};
static spb_csr M;
static const double one = 1, zero = 0;

static Aset make_A()
{
    Aset a;
    CK(cudaMalloc(&a.row, sizeof(int) * (M.m + 1)));
    CK(cudaMalloc(&a.col, sizeof(int) * M.nnz));
    CK(cudaMalloc(&a.val, sizeof(double) * M.nnz));
    CK(cudaMemcpy(a.row, M.row_ptr, sizeof(int) * (M.m + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(a.col, M.col_idx, sizeof(int) * M.nnz, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(a.val, M.val, sizeof(double) * M.nnz, cudaMemcpyHostToDevice));
    return a;
}
static Vset make_V()
{
    Vset v;
    CK(cudaMalloc(&v.x, sizeof(double) * (M.n + 1)));
    CK(cudaMalloc(&v.y, sizeof(double) * (M.m + 1)));
    std::vector<double> h(M.n);
    for (int i = 0; i < M.n; i++) h[i] = 1.0 + (i % 7) * 0.1;
    CK(cudaMemcpy(v.x, h.data(), sizeof(double) * M.n, cudaMemcpyHostToDevice));
    return v;
}
static Combo combo(const Aset &a, const Vset &v)
{
    Combo c;
    SK(cusparseCreate(&c.h));
    SK(cusparseCreateCsr(&c.A, M.m, M.n, M.nnz, a.row, a.col, a.val, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    SK(cusparseCreateDnVec(&c.x, M.n, v.x, CUDA_R_64F));
    SK(cusparseCreateDnVec(&c.y, M.m, v.y, CUDA_R_64F));
    size_t sz = 0;
    SK(cusparseSpMV_bufferSize(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A, c.x, &zero, c.y,
                               CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, &sz));
    c.buf = NULL;
    if (sz) CK(cudaMalloc(&c.buf, sz));
    SK(cusparseSpMV_preprocess(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A, c.x, &zero, c.y,
                               CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, c.buf));
    return c;
}
static double sample(Combo &c, int calls)
{
    cudaEvent_t s, e;
    cudaEventCreate(&s);
    cudaEventCreate(&e);
    cudaEventRecord(s);
    for (int k = 0; k < calls; k++)
        SK(cusparseSpMV(c.h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, c.A, c.x, &zero, c.y,
                        CUDA_R_64F, CUSPARSE_SPMV_CSR_ALG1, c.buf));
    cudaEventRecord(e);
    CK(cudaEventSynchronize(e));
    float ms;
    cudaEventElapsedTime(&ms, s, e);
    cudaEventDestroy(s);
    cudaEventDestroy(e);
    return ms * 1e3 / calls;
}
// times the combos in turns: median per combo (us)
static void turns(const char *what, std::vector<Combo *> cs, std::vector<const char *> names)
{
    std::vector<std::vector<double>> t(cs.size());
    for (auto c : cs) sample(*c, 5);
    for (int r = 0; r < 11; r++)
        for (size_t i = 0; i < cs.size(); i++) t[i].push_back(sample(*cs[i], 15));
    printf("%-28s", what);
    for (size_t i = 0; i < cs.size(); i++) {
        std::sort(t[i].begin(), t[i].end());
        printf("  %s %.1f [%.1f..%.1f]", names[i], t[i][5], t[i][0], t[i][10]);
    }
    printf("\n");
    fflush(stdout);
}
static void where(const char *n, const void *p)
{
    printf("  %s %p (mod 2MiB %lu)\n", n, p, (unsigned long)((size_t)p % (2u << 20)));
}

int main(int argc, char **argv)
{
    char msg[512];
    const char *spec = argc > 1 ? argv[1] : "gen:rmat:23:16";
    if (gen_matrix(spec, &M, msg)) {
        printf("gen: %s\n", msg);
        return 1;
    }
    printf("%s: %d x %d, %d entries\n", spec, M.m, M.n, M.nnz);
    Aset a1 = make_A();
    Vset v1 = make_V();
    Combo c11 = combo(a1, v1);
    turns("S1 alone", {&c11}, {"A1x1"});
    Aset a2 = make_A();
    Vset v2 = make_V();
    Combo c22 = combo(a2, v2), c12 = combo(a1, v2), c21 = combo(a2, v1);
    where("A1.col", a1.col);
    where("A1.val", a1.val);
    where("x1", v1.x);
    where("A2.col", a2.col);
    where("A2.val", a2.val);
    where("x2", v2.x);
    turns("S1,S2", {&c11, &c22}, {"A1x1", "A2x2"});
    turns("crossed", {&c11, &c12, &c21, &c22}, {"A1x1", "A1x2", "A2x1", "A2x2"});
    // a third state after 20 GB of other allocations
    void *filler;
    CK(cudaMalloc(&filler, (size_t)20 << 30));
    CK(cudaMemset(filler, 1, (size_t)20 << 30));
    Aset a3 = make_A();
    Vset v3 = make_V();
    Combo c33 = combo(a3, v3), c13 = combo(a1, v3), c31 = combo(a3, v1);
    where("A3.col", a3.col);
    where("x3", v3.x);
    turns("after 20 GB", {&c11, &c22, &c33, &c13, &c31}, {"A1x1", "A2x2", "A3x3", "A1x3", "A3x1"});
    // free the first state and the filler; a fourth state takes their room
    cudaFree(filler);
    Vset v4 = make_V();
    Combo c14 = combo(a1, v4), c34 = combo(a3, v4);
    where("x4", v4.x);
    turns("x4 late", {&c11, &c14, &c33, &c34}, {"A1x1", "A1x4", "A3x3", "A3x4"});
    // x's offset inside a 2 MiB page: x1 shifted by 4 KiB and by 1 MiB
    double *xs;
    CK(cudaMalloc(&xs, sizeof(double) * (M.n + 1) + (3u << 20)));
    Vset v5 = {xs + 512, v1.y}, v6 = {xs + (1 << 17), v1.y};
    CK(cudaMemcpy(v5.x, v1.x, sizeof(double) * M.n, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(v6.x, v1.x, sizeof(double) * M.n, cudaMemcpyDeviceToDevice));
    Combo c15 = combo(a1, v5), c16 = combo(a1, v6);
    turns("x offset", {&c11, &c15, &c16}, {"A1x1", "A1x+4K", "A1x+1M"});
    turns("S1 again", {&c11}, {"A1x1"});
    return 0;
}
