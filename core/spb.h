/* spb.h — types, status codes, message buffers and allocation shared by every
 * spbench module. Library code returns an spb_status and fills a caller-owned
 * message buffer; it never prints and never exits. */
#ifndef SPB_H
#define SPB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define SPB_RESTRICT __restrict__
extern "C" {
#else
#define SPB_RESTRICT restrict
#endif

typedef int32_t spb_index; /* row/column index */
/* A stored-entry count or a row offset: the collection's largest matrices
 * hold more than 2^31 - 1 entries (formats/csr.h's wide row offsets). */
typedef int64_t spb_offset;
typedef double spb_value; /* matrix and vector values as read and validated (fp64) */

/* The precision a kernel computes in: part of every result row, the resume
 * key and the format-set key, so rows of different precisions never mix.
 * A real matrix runs in fp64 or fp32, a complex one (its file's field) in
 * complex128 or complex64, its values (re, im) pairs of doubles or floats:
 * what is asked for is a width, the field is the matrix's. */
typedef enum { SPB_FP64, SPB_FP32, SPB_C128, SPB_C64 } spb_precision;
#define SPB_PRECISIONS 4

/* "fp64", "fp32", "complex128", "complex64" */
const char *spb_precision_str(spb_precision precision);
size_t spb_precision_bytes(spb_precision precision); /* bytes per value: 8, 4, 16, 8 */
/* The unit roundoff of the parts (2^-53, 2^-24): tolerances scale with it. */
double spb_precision_unit_roundoff(spb_precision precision);
/* The precision named name (as spb_precision_str writes it): 1, else 0. */
int spb_precision_parse(const char *name, spb_precision *precision);
/* Whether the values are complex; whether their parts are floats. */
static inline int spb_precision_complex(spb_precision p) { return p == SPB_C128 || p == SPB_C64; }
static inline int spb_precision_single(spb_precision p) { return p == SPB_FP32 || p == SPB_C64; }
/* The precision of p's width in a matrix's field (complex or real). */
static inline spb_precision spb_precision_in_field(spb_precision p, int complex_values)
{
    int single = spb_precision_single(p);
    return complex_values ? (single ? SPB_C64 : SPB_C128) : (single ? SPB_FP32 : SPB_FP64);
}

#define SPB_INDEX_MAX INT32_MAX

/* A numeric constant's digits as a string literal, for descriptions that
 * quote it ("longer than " SPB_TEXT(LONG_ROW)). */
#define SPB_TEXT_OF(x) #x
#define SPB_TEXT(x)    SPB_TEXT_OF(x)

typedef enum {
    SPB_OK = 0,
    SPB_ERR_IO,          /* file could not be opened, read or written */
    SPB_ERR_PARSE,       /* malformed input: banner, size line, entry */
    SPB_ERR_UNSUPPORTED, /* valid input we do not handle (complex, hermitian) */
    SPB_ERR_DECLINED,    /* a kernel does not take this matrix or setting by design: its
                          * row is skipped, not failed (not a pattern matrix, x fits) */
    SPB_ERR_TOO_LARGE,   /* sizes or counts beyond 32-bit indices */
    SPB_ERR_NOMEM,       /* allocation failed */
    SPB_ERR_INVALID,     /* bad argument or broken format invariant */
    SPB_ERR_DEVICE       /* accelerator missing or failing */
} spb_status;

const char *spb_status_str(spb_status status);

/* Message buffer: callers own one of SPB_MSG_LEN chars; the first error
 * written wins, later ones are dropped so the root cause stays visible. */
#define SPB_MSG_LEN 512

/* A path, its NUL included: the system's longest (PATH_MAX). Every path
 * buffer is this long. */
#define SPB_PATH_LEN 4096

#if defined(__GNUC__)
#define SPB_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#define SPB_PRINTF(fmt_idx, arg_idx)
#endif

/* Writes the message (if msg is non-NULL and still empty) and returns status. */
spb_status spb_fail(char *msg, spb_status status, const char *fmt, ...) SPB_PRINTF(3, 4);

/* Appends printf-style text after the string in buf (size bytes), cut to
 * fit and always ended: 1 when all of it fit, 0 when it was cut (a buf
 * already full takes nothing). The one bounded append: no caller keeps a
 * count that could step past the end. */
int spb_appendf(char *buf, size_t size, const char *fmt, ...) SPB_PRINTF(3, 4);
int spb_vappendf(char *buf, size_t size, const char *fmt, va_list ap) SPB_PRINTF(3, 0);

/* The length of the valid UTF-8 character at s (1-4), or 0 for a byte that
 * does not start one (or for the terminating NUL). */
int spb_utf8_len(const char *s);

/* A name made safe to be data in every output, the same way everywhere:
 * control characters (a newline in a file name) and bytes that are not
 * UTF-8 become '?'. */
void spb_clean_name(char *name);

/* Where a file is written before it is renamed to path, so that it appears
 * whole or not at all: path + ".tmp." + this process's id, in the same
 * folder, created here and locked (flock) until spb_temp_done. path's own
 * leftovers that no process holds locked (a writer killed with -9) are
 * removed first; no other file is touched. SPB_ERR_IO, with the reason in
 * msg, when the path is too long, the file cannot be made, or another
 * process holds it (a writer on another host with the same id). */
spb_status spb_temp_path(char *buf, size_t size, const char *path, char *msg);
/* A new descriptor of the temporary file buf, sharing its lock; -1 when buf
 * is not one of this process's temporary files. */
int spb_temp_fd(const char *buf);
/* The temporary file was renamed into place or removed: its lock ends. */
void spb_temp_done(const char *buf);
/* Removes every temporary file still being written (async-signal-safe: the
 * handlers of SIGINT and SIGTERM call it before the process ends). */
void spb_temp_remove_all(void);

/* The running program's path, from /proc/self/exe (a build folder's or an
 * install's: what is beside it is found from there), and its folder: 1,
 * or 0 when it cannot be read or does not fit size. */
int spb_self_path(char *path, size_t size);
int spb_self_dir(char *dir, size_t size);

/* All allocation goes through these: count*size is checked for overflow, a
 * zero-size request returns a valid pointer, and a test build can make the
 * k-th call fail (spb_alloc_fail_at). */
void *spb_malloc(size_t count, size_t size);
void *spb_calloc(size_t count, size_t size);
void *spb_realloc(void *ptr, size_t count, size_t size);
void spb_free(void *ptr);
/* Room for one item more than `count` in the array *items of capacity
 * *cap (items of `size` bytes), doubling it, from `first` when empty: 1,
 * or 0 when out of memory (*items and *cap kept). */
int spb_grow(void **items, int *cap, int count, int first, size_t size);

/* The first index r in [lo, hi) with sorted[r] >= target, or hi when none
 * (sorted ascending there): row pointers split by entries, a block's slot
 * in its block row. */
spb_index spb_lower_bound(const spb_index *sorted, spb_index lo, spb_index hi, int64_t target);

/* Failure injection for tests: the allocation numbered `index` (0-based,
 * counted from this call) fails; a negative index turns injection off. */
void spb_alloc_fail_at(long index);
/* Number of allocations made since the last spb_alloc_fail_at call. */
long spb_alloc_count(void);
/* Bytes those allocations asked for (frees not subtracted: what was live
 * at once is at most this). */
double spb_alloc_bytes(void);

#ifdef __cplusplus
}
#endif
#endif
