/* spmv_hll.cu — HLL SpMV kernels on the GPU (row- and column-major hacks)
 * and their rows of the device table. */
#include "reduce.cuh"

#define DEFAULT_BLOCK 256

/* HLL entry (r, k) of hack h: row-major base + r*width + k,
 * column-major base + k*rows_h + r. */

/* hll.cuda.row — one thread per row on row-major hacks: each thread walks
 * its own contiguous row (uncoalesced across the warp); no branch for
 * padding. */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_row_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                   const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                   const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    y[row] = hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, 0, 1);
}

/* Where a column-major hack's columns come from: the format's own 32-bit
 * columns (hll.cuda.col), or a base per hack step plus a 16-bit offset per
 * entry (hll.cuda.col.narrow: formats/hll.h's spb_hll_narrow). A thread
 * calls hack() with its hack's first entry before reading a column.
 * pairs_always: fp32 rows two a thread whatever their length (16-bit
 * columns: one a thread ran FEM blocks' long rows 0.81-1.21x as fast). */
struct wide_columns {
    static constexpr bool pairs_always = false;
    const int *__restrict__ col_idx;
    __device__ void hack(int, int) {}
    __device__ int operator()(int, int at) const { return col_idx[at]; }
    __device__ int2 pair(int, int at) const
    {
        return *reinterpret_cast<const int2 *>(col_idx + at);
    }
};
struct narrow_columns {
    static constexpr bool pairs_always = true;
    const int *__restrict__ step_base;
    const unsigned short *__restrict__ offset;
    int padding_col; /* n: x's spare entry, kept zero */
    /* every hack before the last is full, so hack h's steps start at hack_ptr[h] / hack_size */
    __device__ void hack(int first_entry, int hack_size) { step_base += first_entry / hack_size; }
    __device__ int column(int base, unsigned short o) const
    {
        return o == HLL_NARROW_PADDING ? padding_col : base + o;
    }
    __device__ int operator()(int k, int at) const { return column(step_base[k], offset[at]); }
    __device__ int2 pair(int k, int at) const
    {
        ushort2 o = *reinterpret_cast<const ushort2 *>(offset + at);
        int base = step_base[k];
        return make_int2(column(base, o.x), column(base, o.y));
    }
};

/* hll.cuda.col — one thread per row on column-major hacks: at step k the
 * threads of a hack read consecutive entries (coalesced), the layout HLL
 * exists for. Best with hack_size a multiple of 32. With PATTERN
 * (hll.cuda.col.pattern) val is not read, the padding's columns point at
 * x[n] = 0 (set in prepare), and each sum is scaled once. */
template <typename T, bool PATTERN, class Columns>
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_col_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                   const int *__restrict__ hack_width, Columns col, const T *__restrict__ val,
                   T scale, const T *__restrict__ x, T *__restrict__ y)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    int h = row / hack_size, r = row - h * hack_size, width = hack_width[h];
    int rows_h = min(hack_size, m - h * hack_size);
    int start = hack_ptr[h] + r;
    col.hack(hack_ptr[h], hack_size);
    T sum = 0;
    /* four steps' loads in flight: with 32-bit columns FEM blocks' long
     * rows ran 1.06-1.12x faster in fp64, the other shapes within 1%; with
     * 16-bit columns 0.97-1.04x (H100, narrow-columns-h100) */
#pragma unroll 4
    for (int k = 0; k < width; k++)
        sum += term<PATTERN>(val, start + k * rows_h, x[col(k, start + k * rows_h)]);
    y[row] = row_value<PATTERN>(sum, scale);
}

/* Two values of T loaded or stored as one. */
template <typename T> struct value_pair;
template <> struct value_pair<float> {
    typedef float2 type;
};
template <> struct value_pair<double> {
    typedef double2 type;
};

/* hll.cuda.col with an even hack size, where a step moves few bytes per
 * thread (fp32 values, or no values: hll.cuda.col.pattern): a thread takes
 * two neighbouring rows of a hack and loads both rows' entries of a column
 * step as one pair (an int2 of columns, a float2 of values), halving the
 * load instructions per byte. Pairs never straddle hacks; every hack but
 * the last has an even row count, so its pairs are aligned; in a last hack
 * of odd rows the thread takes its rows one by one. PATTERN as above. */
template <typename T, bool PATTERN, class Columns>
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_col_pairs_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                         const int *__restrict__ hack_width, Columns col, const T *__restrict__ val,
                         T scale, const T *__restrict__ x, T *__restrict__ y)
{
    typedef typename value_pair<T>::type pair;
    long long row = 2 * ((long long)blockIdx.x * blockDim.x + threadIdx.x);
    if (row >= m) return;
    int h = (int)(row / hack_size), r = (int)(row - (long long)h * hack_size);
    int width = hack_width[h], rows_h = min(hack_size, m - h * hack_size);
    int start = hack_ptr[h] + r;
    col.hack(hack_ptr[h], hack_size);
    if (rows_h % 2 == 0) {
        T sum0 = 0, sum1 = 0;
        for (int k = 0; k < width; k++) {
            int2 c = col.pair(k, start + k * rows_h);
            if (PATTERN) {
                sum0 += x[c.x];
                sum1 += x[c.y];
            } else {
                pair v = *reinterpret_cast<const pair *>(val + start + k * rows_h);
                sum0 += v.x * x[c.x];
                sum1 += v.y * x[c.y];
            }
        }
        pair out;
        out.x = row_value<PATTERN>(sum0, scale);
        out.y = row_value<PATTERN>(sum1, scale);
        *reinterpret_cast<pair *>(y + row) = out;
        return;
    }
    for (int q = 0; q < 2 && r + q < rows_h; q++) {
        T sum = 0;
        for (int k = 0; k < width; k++) {
            int at = start + q + k * rows_h;
            sum += term<PATTERN>(val, at, x[col(k, at)]);
        }
        y[row + q] = row_value<PATTERN>(sum, scale);
    }
}

/* hll.cuda.warp — one warp per row on row-major hacks: the lanes stride
 * through the (padded) row, coalesced; shuffle reduction. Precondition:
 * blockDim.x a multiple of 32. */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_warp_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                    const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                    const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    T sum = warp_reduce(
        hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* hll.cuda.warp_shared — hll.cuda.warp with the partials reduced in shared
 * memory. Dynamic shared memory: blockDim.x values. */
template <typename T>
static __global__ void __launch_bounds__(MAX_BLOCK)
    hll_warp_shared_kernel(int m, int hack_size, const int *__restrict__ hack_ptr,
                           const int *__restrict__ hack_width, const int *__restrict__ col_idx,
                           const T *__restrict__ val, const T *__restrict__ x, T *__restrict__ y)
{
    T *partial = dynamic_shared<T>();
    long long row = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / WARP;
    int lane = threadIdx.x % WARP;
    if (row >= m) return;
    T sum = shared_warp_reduce(
        partial + threadIdx.x - lane, lane,
        hll_row_lane_sum(hack_size, hack_ptr, hack_width, col_idx, val, x, row, lane, WARP));
    if (lane == 0) y[row] = sum;
}

/* hll.cuda.col.pattern's setup, on the device: every padding slot of row
 * `row` (positions len..width-1, len from the CSR row pointers) gets column
 * n, where x holds a zero. */
static __global__ void point_padding_at_zero(int m, int n, int hack_size,
                                             const int *__restrict__ hack_ptr,
                                             const int *__restrict__ hack_width,
                                             const int *__restrict__ row_ptr, int *col_idx)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= m) return;
    int h = row / hack_size, r = row - h * hack_size;
    int rows_h = min(hack_size, m - h * hack_size), start = hack_ptr[h] + r;
    for (int k = row_ptr[row + 1] - row_ptr[row]; k < hack_width[h]; k++)
        col_idx[start + k * rows_h] = n;
}

/* ---- launches ------------------------------------------------------------------ */

/* The HLL arrays and the state's values, x and y as the launch's type. */
#define HLL_ARGS(T)                                                                                \
    s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, s->d_col_idx, (const T *)s->d_val,         \
        (const T *)s->d_x, (T *)s->d_y

template <typename T> static void launch_row(gpu_state *s)
{
    hll_row_kernel<T><<<gpu_grid(s, 1), s->block_size, 0, s->stream>>>(HLL_ARGS(T));
}

/* Rows of fp32 values at least this long on average (padding counted)
 * take one thread each, not two (but where pairs_always): with 32-bit
 * columns FEM blocks of 27-104 entries a row ran 1.06-1.52x faster so,
 * random rows of 20 1.00x; the Laplacians' and the road graph's 3-7
 * entries ran 0.96-0.97x so and keep two (H100, narrow-columns-h100). */
#define HLL_PAIRS_MAX_WIDTH 16

/* hll.cuda.col, .pattern and .narrow: two rows per thread where a step
 * moves few bytes (no values, or fp32 values on short rows) and the hack
 * size is even; else one. */
template <typename T, bool PATTERN, class Columns>
static void launch_col_on(gpu_state *s, Columns col)
{
    const T *val = (const T *)s->d_val, *x = (const T *)s->d_x, scale = (T)s->iso_value;
    T *y = (T *)s->d_y;
    const bool fp32_pairs =
        Columns::pairs_always || s->stored < (int64_t)HLL_PAIRS_MAX_WIDTH * s->m;
    if ((PATTERN || (sizeof(T) == 4 && fp32_pairs)) && s->hack_size % 2 == 0) {
        unsigned pairs = (unsigned)(((long long)s->m + 1) / 2);
        hll_col_pairs_kernel<T, PATTERN>
            <<<(pairs + s->block_size - 1) / s->block_size, s->block_size, 0, s->stream>>>(
                s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, col, val, scale, x, y);
    } else {
        hll_col_kernel<T, PATTERN><<<gpu_grid(s, 1), s->block_size, 0, s->stream>>>(
            s->m, s->hack_size, s->d_hack_ptr, s->d_hack_width, col, val, scale, x, y);
    }
}

template <typename T, bool PATTERN> static void launch_col(gpu_state *s)
{
    launch_col_on<T, PATTERN>(s, wide_columns{s->d_col_idx});
}

template <typename T> static void launch_warp(gpu_state *s)
{
    hll_warp_kernel<T><<<gpu_grid(s, WARP), s->block_size, 0, s->stream>>>(HLL_ARGS(T));
}

template <typename T> static void launch_warp_shared(gpu_state *s)
{
    size_t shared = (size_t)s->block_size * sizeof(T);
    hll_warp_shared_kernel<T><<<gpu_grid(s, WARP), s->block_size, shared, s->stream>>>(HLL_ARGS(T));
}

/* hll.cuda.col.pattern: no values were uploaded; the padding (value 0 in
 * the format, a real column) is pointed at x's spare entry n, zeroed when
 * the buffer was made and never written (uploads fill n entries), so the
 * kernel needs no branch and no values. x itself is left alone: rows
 * sharing it may hold the run's x already. */
static spb_status setup_col_pattern(gpu_state *s, const spb_csr *A, char *msg)
{
    int *d_row_ptr = NULL;
    if (gpu_upload(s, (void **)&d_row_ptr, A->row_ptr, (size_t)A->m + 1, sizeof(int))) goto fail;
    if (s->m > 0)
        point_padding_at_zero<<<gpu_grid(s, 1), s->block_size, 0, s->stream>>>(
            s->m, s->n, s->hack_size, s->d_hack_ptr, s->d_hack_width, d_row_ptr, s->d_col_idx);
    GPU_TRY(s, cudaGetLastError(), "kernel launch");
    GPU_TRY(s, cudaDeviceSynchronize(), "marking the padding");
    cudaFree(d_row_ptr);
    return SPB_OK;
fail:
    cudaFree(d_row_ptr);
    return gpu_state_fail(s, msg);
}

/* hll.cuda.col.narrow and .narrow.pattern: the columns as a base per hack
 * step and a 16-bit offset per entry (formats/hll.h), built on the host
 * from A; the 32-bit columns prepare uploaded are freed. Padding reads x's
 * spare entry n, a zero, so the pattern row needs no branch either.
 * Declines a matrix whose hack steps span more columns than 16 bits reach
 * (rows far apart in one hack: a graph, not a banded matrix). */
struct narrow_data {
    int *step_base;
    unsigned short *offset;
};

template <typename T, bool PATTERN> static void launch_col_narrow(gpu_state *s)
{
    const narrow_data *d = gpu_family<narrow_data>(s);
    launch_col_on<T, PATTERN>(s, narrow_columns{d->step_base, d->offset, s->n});
}

static spb_status setup_col_narrow(gpu_state *s, const spb_csr *A, char *msg)
{
    spb_hll_narrow N;
    spb_status st = hll_narrow_from_csr(A, s->hack_size, &N, msg);
    if (st != SPB_OK) return st;
    narrow_data *d = gpu_family_new<narrow_data>(s);
    if (!d) {
        hll_narrow_free(&N);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    }
    if (gpu_upload(s, (void **)&d->step_base, N.step_base, (size_t)N.steps, sizeof(int)) ||
        gpu_upload(s, (void **)&d->offset, N.offset, (size_t)N.stored, sizeof(unsigned short)))
        st = gpu_state_fail(s, msg);
    s->plan_bytes = (s->variant->pattern ? hll_narrow_pattern_spmv_bytes
                                         : hll_narrow_spmv_bytes)(&N, A->m, A->n, s->precision);
    hll_narrow_free(&N);
    cudaFree(s->d_col_idx); /* the kernel reads the offsets instead */
    s->d_col_idx = NULL;
    return st;
}

static void release_col_narrow(gpu_state *s)
{
    narrow_data *d = gpu_family<narrow_data>(s);
    cudaFree(d->step_base);
    cudaFree(d->offset);
}

/* ---- rows ---------------------------------------------------------------------- */

static const gpu_variant row_v = {
    .format = SPB_FORMAT_HLL_ROW, .default_block = DEFAULT_BLOCK, .launch = GPU_LAUNCH(launch_row)};
static const gpu_variant warp_v = {.format = SPB_FORMAT_HLL_ROW,
                                   .default_block = DEFAULT_BLOCK,
                                   .warp_multiple = 1,
                                   .launch = GPU_LAUNCH(launch_warp)};
static const gpu_variant warp_shared_v = {.format = SPB_FORMAT_HLL_ROW,
                                          .default_block = DEFAULT_BLOCK,
                                          .warp_multiple = 1,
                                          .launch = GPU_LAUNCH(launch_warp_shared)};
static const gpu_variant col_v = {.format = SPB_FORMAT_HLL_COL,
                                  .default_block = DEFAULT_BLOCK,
                                  .launch = GPU_LAUNCH_PATTERN(launch_col, false)};
static const gpu_variant col_pattern_v = {.format = SPB_FORMAT_HLL_COL,
                                          .default_block = DEFAULT_BLOCK,
                                          .setup = setup_col_pattern,
                                          .launch = GPU_LAUNCH_PATTERN(launch_col, true),
                                          .pattern = 1};
static const gpu_variant col_narrow_v = {.format = SPB_FORMAT_HLL_COL,
                                         .default_block = DEFAULT_BLOCK,
                                         .setup = setup_col_narrow,
                                         .launch = GPU_LAUNCH_PATTERN(launch_col_narrow, false),
                                         .release = release_col_narrow};
static const gpu_variant col_narrow_pattern_v = {.format = SPB_FORMAT_HLL_COL,
                                                 .default_block = DEFAULT_BLOCK,
                                                 .setup = setup_col_narrow,
                                                 .launch =
                                                     GPU_LAUNCH_PATTERN(launch_col_narrow, true),
                                                 .pattern = 1,
                                                 .release = release_col_narrow};

extern const spb_spmv_kernel gpu_hll_kernels[] = {
    GPU_SPMV_KERNEL("hll.cuda.row", "hll.row", "HLL row-major hacks on the GPU, one thread per row",
                    &row_v),
    GPU_SPMV_KERNEL("hll.cuda.warp", "hll.row",
                    "HLL row-major hacks on the GPU, one warp per row, shuffle reduction", &warp_v),
    GPU_SPMV_KERNEL("hll.cuda.warp_shared", "hll.row",
                    "HLL row-major hacks on the GPU, one warp per row, shared-memory reduction",
                    &warp_shared_v),
    GPU_SPMV_KERNEL(
        "hll.cuda.col", "hll.col",
        "HLL column-major hacks on the GPU, one thread per row (coalesced; fp32 rows of under 16 "
        "entries with an even hack size: two rows per thread, paired loads)",
        &col_v),
    GPU_SPMV_KERNEL(
        "hll.cuda.col.pattern", "hll.col.pattern",
        "hll.cuda.col for a pattern matrix (all values equal): no values read, padding "
        "pointed at a zero of x, two rows per thread with an even hack size (declines other "
        "matrices)",
        &col_pattern_v),
    GPU_SPMV_KERNEL(
        "hll.cuda.col.narrow", "hll.col",
        "hll.cuda.col with 16-bit columns: each hack step's smallest column kept once, each "
        "entry its offset from it (2 bytes of column, not 4; declines a matrix whose hack "
        "steps span more than 65,535 columns)",
        &col_narrow_v),
    GPU_SPMV_KERNEL("hll.cuda.col.narrow.pattern", "hll.col.pattern",
                    "hll.cuda.col.narrow for a pattern matrix (all values equal): 2 bytes per "
                    "entry, no values read (declines other matrices and what .narrow declines)",
                    &col_narrow_pattern_v),
};
extern const int gpu_hll_kernel_count = (int)(sizeof gpu_hll_kernels / sizeof gpu_hll_kernels[0]);
