/* spmv_state.cuh — what the CUDA SpMV files share (not part of gpu.h): the
 * state every row holds, the variant a row carries, checked CUDA/cuSPARSE
 * calls, and the row macro. A new device kernel is its __global__ function,
 * a launch function, a gpu_variant and one GPU_SPMV_KERNEL line in its family file;
 * what it prepares beyond the uploaded format is a type of its family file
 * (gpu_family_new), not a field here. */
#ifndef SPB_SPMV_STATE_CUH
#define SPB_SPMV_STATE_CUH

#include <cuda_runtime.h>
#include <cusparse.h>

extern "C" {
#include "core/kernel.h"
#include "formats/format_set.h" /* and bsr.h, the BSR rows' format */
}
#include "complex_value.cuh"

#define WARP      32
#define MAX_BLOCK 1024
/* Spare entries past x's n and y's m (x's zeroed): a format cut in blocks
 * (cuSPARSE's BSR, up to 8 wide) reads and writes whole blocks. */
#define GPU_VECTOR_SLACK 8

struct gpu_state;

/* What a row of the device table says about its kernel. */
struct gpu_variant {
    spb_format_kind format; /* uploaded by prepare */
    int default_block;      /* threads per block; 0: a library that picks its own */
    int warp_multiple;      /* the block size must be a multiple of 32 */
    int param;              /* the kernel's own parameter (cuSPARSE: the algorithm) */
    /* After upload: the family's own plans and descriptors, kept in
     * s->family (gpu_family_new; NULL: none). Declines with
     * SPB_ERR_DECLINED. */
    spb_status (*setup)(gpu_state *s, const spb_csr *A, char *msg);
    /* One product on d_x -> d_y, not synchronised, by precision: [SPB_FP64]
     * with double values, x and y, [SPB_FP32] with float ones (sums in that
     * type too), [SPB_C128] and [SPB_C64] complex (gpu_complex); NULL: the
     * kernel has no such version (the complex ones: gpu_variant_complex). */
    void (*launch[SPB_PRECISIONS])(gpu_state *s);
    /* The same on 64-bit row offsets (d_row_ptr64: a CSR of more than
     * 2^31 - 1 entries); all NULL: the row declines such a matrix
     * (spb_kernel.wide_offsets). */
    void (*launch_wide[SPB_PRECISIONS])(gpu_state *s);
    int pattern; /* reads no values: only matrices whose values are all equal (else declined) */
    /* its setup uploads its own arrangement of A (panels, a renumbering):
     * prepare uploads none, only sizes the format's traffic */
    int own_upload;
    /* Frees what setup put in s->family (not the data itself), also after a
     * setup that failed half-way; NULL: nothing to free. */
    void (*release)(gpu_state *s);
};

/* A launch template's instantiations, in gpu_variant.launch order: real
 * only, or real and complex (_COMPLEX); _PATTERN: of a template on <T,
 * PATTERN>, PATTERN matching the variant's pattern field (a pattern kernel
 * reads no values: real only). */
#define GPU_LAUNCH(f)                                                                              \
    {                                                                                              \
        f<double>, f<float>                                                                        \
    }
#define GPU_LAUNCH_COMPLEX(f)                                                                      \
    {                                                                                              \
        f<double>, f<float>, f<gpu_c128>, f<gpu_c64>                                               \
    }
#define GPU_LAUNCH_PATTERN(f, pattern)                                                             \
    {                                                                                              \
        f<double, pattern>, f<float, pattern>                                                      \
    }
#define GPU_LAUNCH_VALUES_COMPLEX(f)                                                               \
    {                                                                                              \
        f<double, false>, f<float, false>, f<gpu_c128, false>, f<gpu_c64, false>                   \
    }

/* A launch template on <T, O>'s instantiations on 64-bit row offsets, in
 * gpu_variant.launch_wide order (real and complex). */
#define GPU_LAUNCH_WIDE(f)                                                                         \
    {                                                                                              \
        f<double, int64_t>, f<float, int64_t>, f<gpu_c128, int64_t>, f<gpu_c64, int64_t>           \
    }

/* Whether a variant runs matrices on 64-bit row offsets. */
static inline int gpu_variant_wide(const void *variant)
{
    return ((const gpu_variant *)variant)->launch_wide[SPB_FP64] != NULL;
}

/* Whether a variant runs complex matrices (it has their launches). */
static inline int gpu_variant_complex(const void *variant)
{
    const gpu_variant *v = (const gpu_variant *)variant;
    return v->launch[SPB_C128] != NULL && v->launch[SPB_C64] != NULL && !v->pattern;
}

/* The settings a variant takes (spb_kernel.sweeps): the block size where
 * it launches its own kernels (the hack size comes with an HLL format). */
static inline unsigned gpu_variant_sweeps(const void *variant)
{
    return ((const gpu_variant *)variant)->default_block ? (unsigned)SPB_SWEEP_BLOCK_SIZE : 0u;
}

/* A CSR variant: the given default block, then the variant's own fields. */
#define GPU_CSR_VARIANT(block, ...)                                                                \
    {                                                                                              \
        .format = SPB_FORMAT_CSR, .default_block = block, __VA_ARGS__                              \
    }

/* What every device row (SpMV and SpGEMM) keeps: the events that time its
 * products and the first failure of its device calls. */
struct gpu_record {
    cudaEvent_t start, stop;
    spb_status error; /* first failure met; out of memory is SPB_ERR_NOMEM */
    char error_msg[SPB_MSG_LEN];
};

/* What every device SpMV row holds beyond that: the matrix in its format
 * on the device, x and y. What one family of kernels prepares beyond these
 * (tile plans, row lists, library descriptors) is its own type, in
 * `family`. */
struct gpu_state : gpu_record {
    const gpu_variant *variant;
    int m, n, block_size, hack_size;
    int64_t nnz;
    spb_precision precision; /* of d_val, d_x, d_y (double or float) and of the sums */
    size_t value_bytes;      /* sizeof one of them */
    int64_t stored;          /* entries uploaded, padding included */
    /* CSR (row_ptr), HLL (hack_ptr, hack_width) or SELL (hack_ptr = slice offsets) */
    int *d_row_ptr, *d_hack_ptr, *d_hack_width, *d_col_idx;
    int64_t *d_row_ptr64; /* CSR's row offsets instead of d_row_ptr when the matrix's are 64-bit */
    void *d_val, *d_x, *d_y;
    int x_shared;       /* d_x is the shared buffer of config.shared_x */
    double iso_value;   /* pattern kernels: every stored value */
    double cache_bytes; /* the L2 to block x for (gpu_l2_bytes) */
    double plan_bytes;  /* set by a setup whose traffic is not its format's */
    /* SPB_FORMAT_BSR variants: the format set's BSR at the block size of
     * the fewest bytes in this precision (format_set_bsr), read by setup */
    const spb_bsr *bsr;
    /* SPB_FORMAT_RCM variants: the format set's renumbered CSR and its
     * order (format_set_rcm), read by setup */
    const spb_renumbered *rcm;
    void *family;        /* the family's prepared data (gpu_family_new), or NULL */
    cudaStream_t stream; /* where its products run: the default stream unless set */
};

/* The family's data of type D in s, made zeroed by its setup (NULL when
 * out of memory), and read back by its launches and release. */
template <typename D> static inline D *gpu_family_new(gpu_state *s)
{
    s->family = spb_calloc(1, sizeof(D));
    return static_cast<D *>(s->family);
}
template <typename D> static inline D *gpu_family(const gpu_state *s)
{
    return static_cast<D *>(s->family);
}

/* Record the first failure of a call; nonzero on error. */
int gpu_cuda_failed(gpu_record *s, cudaError_t err, const char *what);
int gpu_cusparse_failed(gpu_record *s, cusparseStatus_t err, const char *what);

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
spb_status gpu_state_fail(const gpu_record *s, char *msg);

/* cudaMalloc of count*size bytes (at least size) and the copy of host data. */
int gpu_upload(gpu_record *s, void **d_ptr, const void *host, size_t count, size_t size);

/* Uploads `count` values to s->d_val in the state's precision: val as it is
 * (fp64), else val32 where the format keeps one, else val rounded (its
 * range was checked in prepare). Nonzero on failure. */
int gpu_upload_values(gpu_state *s, const double *val, const float *val32, size_t count);

/* Uploads A as CSR to d_row_ptr (d_row_ptr64 when A's offsets are
 * 64-bit), d_col_idx and, unless the variant is a pattern one, d_val
 * (gpu_upload_values). Nonzero on failure. */
int gpu_upload_csr(gpu_state *s, const spb_csr *A, const float *val32);

/* Refuses early, with sizes, a product whose arrays (bytes_needed) cannot
 * fit in device memory: skipped past the device's whole memory, an error
 * (tried again alone) past what the other rows leave free. Prepare asks it
 * for the format's traffic plus GPU_FIT_SLACK; a setup that uploads more
 * than its format (its own arrangement) asks again for that. */
spb_status gpu_check_fits(double bytes_needed, char *msg);
#define GPU_FIT_SLACK (64 << 20) /* bytes beyond the arrays: vectors' slack, the runtime's */

/* The BSR prepare took from the format set (s->bsr: SPB_FORMAT_BSR
 * variants): block row offsets and block columns to the given device
 * pointers, the values (blocks whole, row-major, their zeros
 * included) to s->d_val in the state's precision (prepare counted its
 * entries and traffic from the format set); msg names the cut (the row's
 * message). x and y are read and written past n and m up to whole blocks:
 * the vectors' spare entries (GPU_VECTOR_SLACK) hold them, x's zeros. */
spb_status gpu_upload_bsr(gpu_state *s, const spb_csr *A, int **d_block_ptr, int **d_block_cols,
                          int *block_size, char *msg);

/* The L2 the kernels block x for: the configured size, else the device's
 * (0 when unknown). */
double gpu_l2_bytes(const spb_kernel_config *config);

/* The state's CSR row offsets at the width O a launch was built for. */
template <typename O> static inline const O *gpu_row_offsets(const gpu_state *s);
template <> inline const int *gpu_row_offsets<int>(const gpu_state *s) { return s->d_row_ptr; }
template <> inline const int64_t *gpu_row_offsets<int64_t>(const gpu_state *s)
{
    return s->d_row_ptr64;
}

/* Blocks of `block` threads for `items` threads in all. */
static inline unsigned gpu_blocks_for(long long items, int block)
{
    return (unsigned)((items + block - 1) / block);
}

/* Blocks for `per_row` threads per row over the state's rows. */
unsigned gpu_grid(const gpu_state *s, long long per_row);

/* One product of the state's kernel on d_x -> d_y, on the state's stream,
 * not synchronised (spmv_cuda.cu; the distributed blocks). */
void gpu_spmv_launch(gpu_state *s);

/* The entry points every device row shares (spmv_cuda.cu). */
int gpu_kernel_supports(const spb_kernel *self, const spb_csr *A, char *why);
spb_status gpu_spmv_prepare(const spb_kernel *self, spb_format_set *formats,
                            const spb_kernel_config *config, spb_kernel_plan *plan, char *msg);
spb_status gpu_spmv_run(const void *state, const void *x, void *y, char *msg);
void gpu_spmv_release(void *state);
double gpu_spmv_time_calls(void *state, int calls);
spb_status gpu_spmv_check(const void *state, char *msg);

/* One row of the device table: every device row shares the entry points
 * above and differs in its name, format, description and variant. */
#define GPU_SPMV_KERNEL(row_name, row_format, row_description, row_variant)                        \
    GPU_SPMV_KERNEL_IF(row_name, row_format, row_description, row_variant, gpu_kernel_supports)
/* The same for a row that needs more than a device (a library built in):
 * `supports` says whether this machine can run it at all (A NULL). */
#define GPU_SPMV_KERNEL_IF(row_name, row_format, row_description, row_variant, row_supports)       \
    GPU_SPMV_ROW(row_name, row_format, row_description, row_variant, row_supports, 0)
/* A vendor library's row (spb_kernel.library). */
#define GPU_SPMV_LIBRARY_IF(row_name, row_format, row_description, row_variant, row_supports)      \
    GPU_SPMV_ROW(row_name, row_format, row_description, row_variant, row_supports, 1)
#define GPU_SPMV_ROW(row_name, row_format, row_description, row_variant, row_supports, lib)        \
    {                                                                                              \
        .kernel = {.name = row_name,                                                               \
                   .format = row_format,                                                           \
                   .backend = SPB_BACKEND_CUDA,                                                    \
                   .description = row_description,                                                 \
                   .variant = row_variant,                                                         \
                   .supports = row_supports,                                                       \
                   .prepare = gpu_spmv_prepare,                                                    \
                   .release = gpu_spmv_release,                                                    \
                   .time_calls = gpu_spmv_time_calls,                                              \
                   .check = gpu_spmv_check,                                                        \
                   .fp32 = 1,                                                                      \
                   .complex_values = gpu_variant_complex(row_variant),                             \
                   .wide_offsets = gpu_variant_wide(row_variant),                                  \
                   .library = (lib),                                                               \
                   .sweeps = gpu_variant_sweeps(row_variant)},                                     \
        .spmv = gpu_spmv_run                                                                       \
    }

/* Each family file exports its rows. */
extern const spb_spmv_kernel gpu_csr_kernels[];
extern const int gpu_csr_kernel_count;
extern const spb_spmv_kernel gpu_csr_balanced_kernels[];
extern const int gpu_csr_balanced_kernel_count;
extern const spb_spmv_kernel gpu_auto_kernels[];
extern const int gpu_auto_kernel_count;
extern const spb_spmv_kernel gpu_merge_kernels[];
extern const int gpu_merge_kernel_count;
extern const spb_spmv_kernel gpu_colblock_kernels[];
extern const int gpu_colblock_kernel_count;
extern const spb_spmv_kernel gpu_bsr_kernels[];
extern const int gpu_bsr_kernel_count;
extern const spb_spmv_kernel gpu_hll_kernels[];
extern const int gpu_hll_kernel_count;
extern const spb_spmv_kernel gpu_cusparse_kernels[];
extern const int gpu_cusparse_kernel_count;
extern const spb_spmv_kernel gpu_cusp_kernels[];
extern const int gpu_cusp_kernel_count;
/* The CUSP rows' supports (SpMV and SpGEMM): a device, and CUSP built in. */
int gpu_cusp_supports(const spb_kernel *self, const spb_csr *A, char *why);

#endif
