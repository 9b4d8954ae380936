/* protocol.h — what spbench (plugins/loader.c) and a plug-in kernel's own
 * process (plugins/host.c) share: the host's arguments and descriptors,
 * the one file in memory both map (the matrix and x, read-only to the
 * kernel, and y, each vector ending at a page the kernel cannot touch,
 * the bytes before y a pattern checked after every product), and the
 * requests and replies on the socket. */
#ifndef SPB_PLUGIN_PROTOCOL_H
#define SPB_PLUGIN_PROTOCOL_H

#include <stdint.h>

#include "core/spb.h"

#define PLUGIN_HOST_ARG   "--plugin-host"
#define PLUGIN_HOST_FILE  3 /* the shared file's descriptor in the host */
#define PLUGIN_HOST_TALK  4 /* the socket's */
#define PLUGIN_SLACK_BYTE 0xA5

/* The operands' sizes: A, and B for SpGEMM (b_rows 0 for SpMV). */
typedef struct {
    int32_t rows, cols;
    int64_t nnz;
    int32_t b_rows, b_cols;
    int64_t b_nnz;
} plugin_sizes;

/* Byte offsets in the shared file; every section starts on a page. */
typedef struct {
    plugin_sizes size;
    int32_t operation; /* SPB_PLUGIN_SPMV or SPB_PLUGIN_SPGEMM */
    int32_t backend;   /* SPB_PLUGIN_SERIAL, _OPENMP or _CUDA */
    int32_t precision; /* SPB_PLUGIN_FP64 or SPB_PLUGIN_FP32 */
    int32_t threads;
    int64_t value_bytes;
    uint64_t page;
    uint64_t row_ptr_at, col_idx_at, values_at;
    uint64_t b_row_ptr_at, b_col_idx_at, b_values_at, matrix_end;
    uint64_t x_at, x_guard_at;                   /* x ends where its guard page starts */
    uint64_t y_front_guard_at, y_slack_at, y_at; /* a guard page, the pattern, y */
    uint64_t y_guard_at, total;
} plugin_layout;

/* The sections for operands of these sizes (value_bytes 8 or 4). */
void plugin_layout_plan(plugin_layout *L, const plugin_sizes *size, int32_t precision,
                        int64_t value_bytes, uint64_t page);

/* A CUDA kernel's y lies between two runs of this many pattern bytes on
 * the device, checked after every product. */
#define PLUGIN_DEVICE_SLACK 256

enum { PLUGIN_PREPARE = 1, PLUGIN_PRODUCT, PLUGIN_TIME, PLUGIN_RELEASE };

typedef struct {
    int32_t op;
    int32_t calls; /* PLUGIN_TIME: products to time back to back */
} plugin_request;

/* status: an SPB_PLUGIN_* code of the kernel, or PLUGIN_FAULT (the host
 * is about to die of a signal; msg says what the kernel touched). */
#define PLUGIN_FAULT 100
typedef struct {
    int32_t status;
    double seconds; /* PLUGIN_TIME: the products' time */
    /* PLUGIN_PRODUCT of an SpGEMM kernel that succeeded: C's entries; C's
     * row_ptr (A's rows + 1 int32), col_idx and values follow the reply */
    int64_t c_nnz;
    char msg[SPB_MSG_LEN];
} plugin_reply;

#endif
