/* spmv_state.cuh — what the CUDA SpMV files share (not part of gpu.h): the
 * per-kernel state, the variant a row carries, checked CUDA/cuSPARSE calls,
 * and the row macro. A new device kernel is its __global__ function, a
 * launch function, a gpu_variant and one GPU_ROW line in its family file. */
#ifndef SPB_SPMV_STATE_CUH
#define SPB_SPMV_STATE_CUH

#include <cuda_runtime.h>
#include <cusparse.h>

extern "C" {
#include "../formats/kernel.h"
}

#define WARP      32
#define MAX_BLOCK 1024

struct gpu_state;

/* csr.cuda.binned: the rows sorted by length class into segments, each
 * launched as `lanes` threads per row (more than a warp: a block per row);
 * segment s takes blocks [first_block[s], first_block[s+1]) and rows
 * [first_row[s], first_row[s] + rows[s]) of the sorted row list. */
#define BIN_SEGMENTS 16
struct bin_segments {
    int count;
    int first_block[BIN_SEGMENTS + 1];
    int first_row[BIN_SEGMENTS], rows[BIN_SEGMENTS], lanes[BIN_SEGMENTS];
};

/* What a row of the device table says about its kernel. */
struct gpu_variant {
    spb_format_kind format; /* uploaded by prepare */
    int default_block;      /* threads per block; 0: a library that picks its own */
    int warp_multiple;      /* the block size must be a multiple of 32 */
    int param;              /* the kernel's own parameter (cuSPARSE: the algorithm) */
    /* After upload: extra plans, descriptors (NULL: none). Declines with
     * SPB_ERR_DECLINED; every resource goes into the state. */
    spb_status (*setup)(gpu_state *s, const spb_csr *A, char *msg);
    /* One product on d_x -> d_y, not synchronised; [SPB_FP64] with double
     * values, x and y, [SPB_FP32] with float ones (sums in that type too). */
    void (*launch[2])(gpu_state *s);
    int pattern; /* reads no values: only matrices whose values are all equal (else declined) */
};

/* A launch template's two instantiations, in gpu_variant.launch order;
 * _PATTERN: of a template on <T, PATTERN>, PATTERN matching the variant's
 * pattern field. */
#define GPU_LAUNCH(f)                                                                              \
    {                                                                                              \
        f<double>, f<float>                                                                        \
    }
#define GPU_LAUNCH_PATTERN(f, pattern)                                                             \
    {                                                                                              \
        f<double, pattern>, f<float, pattern>                                                      \
    }

struct gpu_state {
    const gpu_variant *variant;
    int m, n, nnz, block_size, hack_size;
    spb_precision precision; /* of d_val, d_x, d_y (double or float) and of the sums */
    size_t value_bytes;      /* sizeof one of them */
    int64_t stored;          /* entries uploaded, padding included */
    /* CSR (row_ptr), HLL (hack_ptr, hack_width) or SELL (hack_ptr = slice offsets) */
    int *d_row_ptr, *d_hack_ptr, *d_hack_width, *d_col_idx;
    void *d_val, *d_x, *d_y;
    cudaTextureObject_t x_tex; /* csr.cuda.texture */
    int has_tex;
    double iso_value; /* pattern kernels: every stored value */
    int lanes;        /* csr.cuda.adaptive: threads per short row */
    int *d_long_rows; /* csr.cuda.adaptive: rows longer than LONG_ROW */
    int long_count;
    bin_segments bins; /* csr.cuda.binned: the launch plan */
    int *d_bin_rows;   /* csr.cuda.binned: rows in segment order */
    int tiles, epoch;  /* csr.cuda.merge, .stream: blocks; merge: calls so far (carries' stamp) */
    int *d_tile_row;   /* csr.cuda.merge, .stream: each tile's first row (stream: tiles + 1) */
    int *d_tile_k, *d_lookback_from; /* csr.cuda.merge: each tile's first entry, look-back */
    void *d_carry;            /* csr.cuda.merge: each block's sum of the row open at its end */
    int *d_carry_epoch;       /* csr.cuda.merge: the call that published each carry */
    int panels, *panel_lanes; /* csr.cuda.colblock: panels, each one's threads per row (host) */
    double cache_bytes;       /* the L2 to block x for (gpu_l2_bytes) */
    double plan_bytes;        /* set by a setup whose traffic is not its format's */
    cusparseHandle_t handle;  /* cuSPARSE rows */
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vec_x, vec_y;
    void *d_buffer;
    cudaEvent_t start, stop;
    spb_status error; /* first failure met; out of memory is SPB_ERR_NOMEM */
    char error_msg[SPB_MSG_LEN];
};

/* Record the first failure of a call in the state; nonzero on error. */
int gpu_cuda_failed(gpu_state *s, cudaError_t err, const char *what);
int gpu_cusparse_failed(gpu_state *s, cusparseStatus_t err, const char *what);

/* Checked calls inside a function with a `fail:` label. */
#define GPU_TRY(s, call, what)                                                                     \
    do {                                                                                           \
        if (gpu_cuda_failed((s), (call), (what))) goto fail;                                       \
    } while (0)
#define GPU_SPARSE_TRY(s, call, what)                                                              \
    do {                                                                                           \
        if (gpu_cusparse_failed((s), (call), (what))) goto fail;                                   \
    } while (0)

/* The state's failure as a status with its message. */
spb_status gpu_state_fail(const gpu_state *s, char *msg);

/* cudaMalloc of count*size bytes (at least size) and the copy of host data. */
int gpu_upload(gpu_state *s, void **d_ptr, const void *host, size_t count, size_t size);

/* The L2 the kernels block x for: the configured size, else the device's
 * (0 when unknown). */
double gpu_l2_bytes(const spb_kernel_config *config);

/* Blocks for `per_row` threads per row over the state's rows. */
unsigned gpu_grid(const gpu_state *s, long long per_row);

/* The entry points every device row shares (spmv_cuda.cu). */
int gpu_row_supports(const spb_kernel *self, const spb_csr *A, char *why);
spb_status gpu_row_prepare(const spb_kernel *self, spb_format_set *formats,
                           const spb_kernel_config *config, spb_kernel_plan *plan, char *msg);
spb_status gpu_row_spmv(const void *state, const void *x, void *y, char *msg);
void gpu_row_release(void *state);
double gpu_row_time_calls(void *state, int calls);
spb_status gpu_row_check(const void *state, char *msg);

/* One row of the device table. */
#define GPU_ROW(name, format, description, variant)                                                \
    {                                                                                              \
        name, format, SPB_BACKEND_CUDA, description, variant, gpu_row_supports, gpu_row_prepare,   \
            gpu_row_spmv, NULL, gpu_row_release, gpu_row_time_calls, gpu_row_check, NULL, 1        \
    }

/* Each family file exports its rows. */
extern const spb_kernel gpu_csr_rows[];
extern const int gpu_csr_row_count;
extern const spb_kernel gpu_auto_rows[];
extern const int gpu_auto_row_count;
extern const spb_kernel gpu_merge_rows[];
extern const int gpu_merge_row_count;
extern const spb_kernel gpu_hll_rows[];
extern const int gpu_hll_row_count;
extern const spb_kernel gpu_cusparse_rows[];
extern const int gpu_cusparse_row_count;

#endif
