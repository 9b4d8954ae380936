/* spgemm_state.cuh — what the CUDA SpGEMM files share: device CSR
 * matrices, the per-kernel state, the variant a row carries and the
 * stream-ordered allocation every whole product uses. A row is a
 * gpu_spgemm_variant whose product() takes device-resident A and B to a
 * device-resident canonical C (columns sorted in each row). */
#ifndef SPB_SPGEMM_STATE_CUH
#define SPB_SPGEMM_STATE_CUH

#include "spmv_state.cuh"

/* A CSR matrix in device memory (arrays NULL when not allocated); its
 * values in the state's precision (double or float, complex ones as
 * (re, im) pairs). */
struct gpu_csr {
    int m, n, nnz;
    int *row_ptr, *col_idx;
    void *val;
};

/* M's values as the product's value type T. */
template <class T> static inline T *values_of(const gpu_csr &M) { return (T *)M.val; }

struct gpu_spgemm_state;

struct gpu_spgemm_variant {
    int default_block; /* threads per block; 0: a library that picks its own */
    int default_tile;  /* accumulator columns per tile; 0: no tile */
    /* One whole product into s->C (the previous C already freed), in
     * s->precision, the product kernels between s->kernel_start and
     * s->kernel_stop; failures go into s->core. */
    void (*product)(gpu_spgemm_state *s);
    int mode; /* the family's own selector (tiled kernels: which one) */
    /* After upload: library handles and descriptors (NULL: none). */
    spb_status (*setup)(gpu_spgemm_state *s, char *msg);
    int outside_pool; /* allocates outside the stream-ordered pool (CUSP): memory not counted */
    /* counts its products in 64 bits and sizes its buffers itself, falling
     * back where they do not fit (cuSPARSE): prepare neither declines a
     * product past 2^31 - 1 products nor refuses one by its estimate */
    int sizes_itself;
};

struct gpu_spgemm_state {
    gpu_record core; /* failure record and the whole-product events */
    const gpu_spgemm_variant *variant;
    gpu_csr A, B, C;
    spb_precision precision; /* of the values, products and sums (complex: cuSPARSE's rows) */
    size_t value_bytes;
    int block_size, tile;
    int dense_cols; /* spgemm.cuda.esc: the widest B whose dense row fits a block's shared memory */
    cudaEvent_t kernel_start, kernel_stop;
    float *kernel_ms; /* the product kernels' time, one entry per product */
    int kernel_count, kernel_cap;
    cusparseHandle_t handle; /* cusparse.spgemm */
    cusparseSpMatDescr_t mat_a, mat_b;
    cusparseSpGEMMAlg_t spgemm_alg; /* chosen in prepare: the one algorithm timed */
    double peak_bytes; /* the most pool memory a validated product held (NAN: none yet) */
};

/* Stream-ordered device allocation (the pool keeps freed memory, so the
 * allocations inside a timed product cost what they cost an application
 * that repeats products); nonzero on failure, recorded in s. */
int spgemm_alloc(gpu_spgemm_state *s, void **ptr, size_t bytes);
void spgemm_free(void *ptr);

/* Arrays carved out of one allocation, each on a 256-byte boundary: with
 * base NULL only their size is counted. */
struct carving {
    char *base;
    size_t used;
    template <class U> U *take(size_t count)
    {
        U *at = base ? (U *)(base + used) : NULL;
        used += (sizeof(U) * count + 255) / 256 * 256;
        return at;
    }
};

/* One allocation for the arrays `layout` takes (counted, then carved);
 * NULL on failure, recorded in s. Its size into *bytes, if asked. */
template <class Layout> static void *carve(gpu_spgemm_state *s, size_t *bytes, Layout layout)
{
    carving c = {NULL, 0};
    layout(c);
    void *block = NULL;
    if (spgemm_alloc(s, &block, c.used)) return NULL;
    if (bytes) *bytes = c.used;
    c = {(char *)block, 0};
    layout(c);
    return block;
}

/* C's arrays for nnz entries (row_ptr for m+1), and their release. */
int spgemm_alloc_c(gpu_spgemm_state *s, int nnz);
void spgemm_free_c(gpu_spgemm_state *s);

/* The products of A*B, counted on the device (a thread per entry of A)
 * into `counter` (device memory, zeroed by the caller) and read back: what
 * a product sizes its buffers by. Nonzero on failure, recorded in s. */
int spgemm_count_products(gpu_spgemm_state *s, unsigned long long *counter, int *products);

/* The number of bits a value below `limit` needs (0 for limit <= 1). */
int spgemm_bits(long long limit);

/* The product kernels' time of this product, recorded after kernel_stop. */
void spgemm_record_kernel_time(gpu_spgemm_state *s);

/* The unordered coordinates (row << col_bits | column, value) of C's
 * entries, each (row, column) once, into canonical CSR in s->C (T double
 * or float, the state's precision). */
template <class T>
void spgemm_coordinates_to_csr(gpu_spgemm_state *s, unsigned long long *keys, T *vals, int count,
                               int col_bits);

/* A family's product in the state's precision: product<double> or
 * product<float> of a template taking the value type. */
#define SPGEMM_BY_PRECISION(s, product)                                                            \
    ((s)->precision == SPB_FP32 ? product<float>(s) : product<double>(s))

#define FULL_MASK 0xffffffffu

/* The exclusive prefix sum of v over the block and the block's total
 * (every thread calls it; blockDim a multiple of 32). */
static __device__ __forceinline__ int block_exclusive_sum(int v, int *warp_sums, int *total)
{
    const int lane = threadIdx.x % WARP, warp = threadIdx.x / WARP, warps = blockDim.x / WARP;
    int inclusive = v;
    for (int offset = 1; offset < WARP; offset <<= 1) {
        int before = __shfl_up_sync(FULL_MASK, inclusive, offset);
        if (lane >= offset) inclusive += before;
    }
    if (lane == WARP - 1) warp_sums[warp] = inclusive;
    __syncthreads();
    int before = 0, sum = 0;
    for (int w = 0; w < warps; w++) {
        before += w < warp ? warp_sums[w] : 0;
        sum += warp_sums[w];
    }
    __syncthreads(); /* warp_sums free again */
    *total = sum;
    return before + inclusive - v;
}

/* Each family file exports its kernels (GPU_SPGEMM_KERNEL, below). */
extern const spb_spgemm_kernel gpu_spgemm_tiled_kernels[];
extern const int gpu_spgemm_tiled_kernel_count;
extern const spb_spgemm_kernel gpu_spgemm_esc_kernels[];
extern const int gpu_spgemm_esc_kernel_count;
extern const spb_spgemm_kernel gpu_spgemm_cusparse_kernels[];
extern const int gpu_spgemm_cusparse_kernel_count;
extern const spb_spgemm_kernel gpu_spgemm_cusp_kernels[];
extern const int gpu_spgemm_cusp_kernel_count;
extern const spb_spgemm_kernel gpu_spgemm_auto_kernels[];
extern const int gpu_spgemm_auto_kernel_count;

/* The settings a variant takes (spb_kernel.sweeps): the block size and
 * tile of the kernels it launches itself. */
static inline unsigned gpu_spgemm_sweeps(const void *variant)
{
    const gpu_spgemm_variant *v = (const gpu_spgemm_variant *)variant;
    return (v->default_block ? (unsigned)SPB_SWEEP_BLOCK_SIZE : 0u) |
           (v->default_tile ? (unsigned)SPB_SWEEP_TILE : 0u);
}

/* The entry points every device SpGEMM kernel shares (spgemm_cuda.cu). */
spb_status gpu_spgemm_prepare(const spb_kernel *self, spb_format_set *formats,
                              const spb_kernel_config *config, spb_kernel_plan *plan, char *msg);
spb_status gpu_spgemm_run(const void *state, spb_csr *C, char *msg);
void gpu_spgemm_release(void *state);
double gpu_spgemm_time_calls(void *state, int calls);
spb_status gpu_spgemm_check(const void *state, char *msg);
double gpu_spgemm_kernel_seconds(const void *state);
double gpu_spgemm_peak_bytes(const void *state);

#define GPU_SPGEMM_KERNEL(row_name, row_description, row_variant)                                  \
    GPU_SPGEMM_KERNEL_IF(row_name, row_description, row_variant, gpu_kernel_supports)
/* The same for a row that needs more than a device (see GPU_SPMV_KERNEL_IF). */
#define GPU_SPGEMM_KERNEL_IF(row_name, row_description, row_variant, row_supports)                 \
    GPU_SPGEMM_KERNEL_FULL(row_name, row_description, row_variant, row_supports, 0, 1, 0, 0)
/* ... and one timed alone (spb_kernel.timed_alone), without an fp32
 * version (fp32 0), a vendor library's (spb_kernel.library), or one that
 * takes complex matrices too (spb_kernel.complex_values). */
#define GPU_SPGEMM_KERNEL_FULL(row_name, row_description, row_variant, row_supports, alone,        \
                               single, lib, complex)                                               \
    {                                                                                              \
        .kernel = {.name = row_name,                                                               \
                   .format = "csr",                                                                \
                   .backend = SPB_BACKEND_CUDA,                                                    \
                   .description = row_description,                                                 \
                   .variant = row_variant,                                                         \
                   .supports = row_supports,                                                       \
                   .prepare = gpu_spgemm_prepare,                                                  \
                   .release = gpu_spgemm_release,                                                  \
                   .time_calls = gpu_spgemm_time_calls,                                            \
                   .check = gpu_spgemm_check,                                                      \
                   .fp32 = (single),                                                               \
                   .complex_values = (complex),                                                    \
                   .timed_alone = (alone),                                                         \
                   .library = (lib),                                                               \
                   .sweeps = gpu_spgemm_sweeps(row_variant)},                                      \
        .spgemm = gpu_spgemm_run, .kernel_seconds = gpu_spgemm_kernel_seconds,                     \
        .device_peak_bytes = gpu_spgemm_peak_bytes                                                 \
    }

#endif
