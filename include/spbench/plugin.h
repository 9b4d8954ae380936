/* spbench/plugin.h — the interface of a kernel built outside spbench's
 * tree. A plug-in is a shared library that exports one function,
 * spb_plugin_kernels(), naming its kernels; `spbench run --plugin LIB.so`
 * (or SPB_PLUGIN_PATH) adds them to the table, where they are validated,
 * timed, written, charted and compared as spbench's own rows are.
 *
 * spbench hands a kernel its matrix already in the format it asked for,
 * and the vectors; a kernel never reads files, never times itself and
 * never prints. This header is the whole contract: C99, no other spbench
 * header, and SPB_PLUGIN_ABI changes whenever a type below changes in a
 * way a built plug-in would notice (spbench refuses a library of another
 * ABI with one line, before measuring). docs/guide/your-kernel.md walks
 * through it; examples/plugins/ holds kernels to start from. */
#ifndef SPBENCH_PLUGIN_H
#define SPBENCH_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface the plug-in was built against. */
#define SPB_PLUGIN_ABI 2

/* What a callback returns: done, or failed (msg says why; the row is then
 * an error), or declined (the kernel cannot take this matrix or setting by
 * design, msg says why; the row is then skipped). */
#define SPB_PLUGIN_OK       0
#define SPB_PLUGIN_FAILED   1
#define SPB_PLUGIN_DECLINED 2

/* The operation a kernel computes: y = A*x, or C = A*B. */
#define SPB_PLUGIN_SPMV   1
#define SPB_PLUGIN_SPGEMM 2

/* Where it runs: one thread, OpenMP threads (config->threads of them), or
 * the GPU. A CUDA kernel is handed device arrays (the matrices, x and y
 * already uploaded) and launches on the default stream (stream 0), or
 * finishes its work before it returns: spbench times it with events on
 * that stream and synchronizes after. */
#define SPB_PLUGIN_SERIAL 1
#define SPB_PLUGIN_OPENMP 2
#define SPB_PLUGIN_CUDA   3

/* The precision of values, x and y: double, or float. */
#define SPB_PLUGIN_FP64 0
#define SPB_PLUGIN_FP32 1

/* A matrix in compressed sparse rows, 0-based: row i's entries are
 * col_idx[row_ptr[i] .. row_ptr[i+1]) with values at the same places;
 * columns sorted and distinct within a row. values holds doubles in an
 * fp64 row and floats in an fp32 one. The arrays are host memory, or
 * device memory for a CUDA kernel. spbench owns A's and B's arrays; they
 * stay valid from prepare to release. */
typedef struct {
    int32_t rows, cols;
    int64_t nnz;
    const int32_t *row_ptr; /* rows + 1 entries */
    const int32_t *col_idx; /* nnz entries */
    const void *values;     /* nnz doubles or floats */
} spb_plugin_csr;

/* The row's setting, and SpGEMM's right operand. */
typedef struct {
    int precision; /* SPB_PLUGIN_FP64 or SPB_PLUGIN_FP32 */
    int threads;   /* OpenMP kernels: the threads to use (1 for the others) */
    /* SpGEMM: B of C = A*B (A's columns are its rows); NULL for SpMV. */
    const spb_plugin_csr *B;
} spb_plugin_config;

/* One kernel. msg is a buffer of msg_size bytes for a failure's or a
 * decline's reason (one line, no newline). */
typedef struct {
    /* The row's kernel name: letters, digits and . _ - (at most 63
     * characters), not one of spbench's own. */
    const char *name;
    /* One sentence: what it does, for --list and the docs. */
    const char *description;
    int operation; /* SPB_PLUGIN_SPMV or SPB_PLUGIN_SPGEMM */
    int backend;   /* SPB_PLUGIN_SERIAL, SPB_PLUGIN_OPENMP or SPB_PLUGIN_CUDA */
    int fp32;      /* 1: it also runs in fp32 */
    /* Everything before the timed products: copies, conversions, tuning
     * (prepare_ms). *state is the kernel's own, handed back to spmv and
     * release. */
    int (*prepare)(const spb_plugin_csr *A, const spb_plugin_config *config, void **state,
                   char *msg, size_t msg_size);
    /* SpMV kernels: y = A*x (A's rows long y, its columns long x; doubles
     * or floats as the precision says). Called many times: the timed part.
     * y's old contents are not zero. NULL in an SpGEMM kernel. */
    int (*spmv)(void *state, const void *x, void *y, char *msg, size_t msg_size);
    /* SpGEMM kernels: C = A*B, every structurally produced entry kept
     * (zeros too), columns sorted and distinct within each row. The kernel
     * sets C's fields to arrays of its own (host memory, or device memory
     * for a CUDA kernel), which stay valid until its next call or release:
     * it frees the previous C itself. Called many times: the timed part.
     * NULL in an SpMV kernel. */
    int (*spgemm)(void *state, spb_plugin_csr *C, char *msg, size_t msg_size);
    /* Frees what prepare made (accepts NULL). */
    void (*release)(void *state);
} spb_plugin_kernel;

/* What the library declares. */
typedef struct {
    int abi; /* SPB_PLUGIN_ABI */
    int count;
    const spb_plugin_kernel *kernels;
} spb_plugin_library;

/* The one symbol a plug-in exports: its kernels (a pointer to static
 * data). */
const spb_plugin_library *spb_plugin_kernels(void);

#ifdef __cplusplus
}
#endif

#endif
