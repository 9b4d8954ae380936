/* spb.c — status strings, first-error-wins messages, checked allocation. */
#include "spb.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *spb_status_str(spb_status status)
{
    switch (status) {
    case SPB_OK: return "ok";
    case SPB_ERR_IO: return "i/o error";
    case SPB_ERR_PARSE: return "parse error";
    case SPB_ERR_UNSUPPORTED: return "unsupported";
    case SPB_ERR_DECLINED: return "declined";
    case SPB_ERR_TOO_LARGE: return "too large";
    case SPB_ERR_NOMEM: return "out of memory";
    case SPB_ERR_INVALID: return "invalid";
    case SPB_ERR_DEVICE: return "device error";
    }
    return "unknown status";
}

const char *spb_precision_str(spb_precision precision)
{
    switch (precision) {
    case SPB_FP64: return "fp64";
    case SPB_FP32: return "fp32";
    }
    return "unknown";
}

size_t spb_precision_bytes(spb_precision precision)
{
    switch (precision) {
    case SPB_FP64: return sizeof(double);
    case SPB_FP32: return sizeof(float);
    }
    return sizeof(double);
}

double spb_precision_unit_roundoff(spb_precision precision)
{
    return precision == SPB_FP32 ? 0x1p-24 : 0x1p-53;
}

spb_status spb_fail(char *msg, spb_status status, const char *fmt, ...)
{
    if (msg && msg[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, SPB_MSG_LEN, fmt, ap);
        va_end(ap);
    }
    return status;
}

static long alloc_fail_index = -1;
static long alloc_calls = 0;

void spb_alloc_fail_at(long index)
{
    alloc_fail_index = index;
    alloc_calls = 0;
}

long spb_alloc_count(void) { return alloc_calls; }

/* Counts the call and reports whether an injected failure is due. */
static int injected_failure(void)
{
    long call = alloc_calls++;
    return alloc_fail_index >= 0 && call == alloc_fail_index;
}

static size_t checked_bytes(size_t count, size_t size, int *overflow)
{
    *overflow = size != 0 && count > SIZE_MAX / size;
    size_t bytes = count * size;
    return bytes ? bytes : 1;
}

void *spb_malloc(size_t count, size_t size)
{
    int overflow;
    size_t bytes = checked_bytes(count, size, &overflow);
    if (overflow || injected_failure()) return NULL;
    return malloc(bytes);
}

void *spb_calloc(size_t count, size_t size)
{
    int overflow;
    checked_bytes(count, size, &overflow);
    if (overflow || injected_failure()) return NULL;
    return calloc(count ? count : 1, size ? size : 1);
}

void *spb_realloc(void *ptr, size_t count, size_t size)
{
    int overflow;
    size_t bytes = checked_bytes(count, size, &overflow);
    if (overflow || injected_failure()) return NULL;
    return realloc(ptr, bytes);
}

void spb_free(void *ptr) { free(ptr); }

spb_status spb_temp_path(char *buf, size_t size, const char *path)
{
    int len = snprintf(buf, size, "%s.tmp.%ld", path, (long)getpid());
    return len >= 0 && (size_t)len < size ? SPB_OK : SPB_ERR_IO;
}
