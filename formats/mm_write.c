/* mm_write.c — Matrix Market writer: coordinate matrices and dense array
 * vectors; a path ending in ".gz" is written gzip-compressed. */
#include "mm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

typedef struct {
    const char *path;
    char tmp[SPB_PATH_LEN]; /* written here, renamed to path when whole ("" : written in place) */
    FILE *plain;
    gzFile gz;
} mm_writer;

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* A file appears whole or not at all (a full disk leaves no partial file);
 * a device or pipe (/dev/stdout) is written in place. */
static spb_status writer_open(mm_writer *w, const char *path, char *msg)
{
    memset(w, 0, sizeof *w);
    w->path = path;
    struct stat sb;
    const char *target = path;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode)) {
        if (spb_temp_path(w->tmp, sizeof w->tmp, path, msg) != SPB_OK) return SPB_ERR_IO;
        target = w->tmp;
    }
    if (ends_with(path, ".gz"))
        w->gz = gzopen(target, "wb6");
    else
        w->plain = fopen(target, "wb");
    if (!w->gz && !w->plain) {
        spb_status st = spb_fail(msg, SPB_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
        if (w->tmp[0]) {
            remove(w->tmp);
            spb_temp_done(w->tmp);
        }
        return st;
    }
    return SPB_OK;
}

static int writer_puts(mm_writer *w, const char *text, size_t len)
{
    if (w->gz) return gzwrite(w->gz, text, (unsigned)len) == (int)len;
    return fwrite(text, 1, len, w->plain) == len;
}

static int writer_printf(mm_writer *w, const char *fmt, ...) SPB_PRINTF(2, 3);

static int writer_printf(mm_writer *w, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return len >= 0 && (size_t)len < sizeof line && writer_puts(w, line, (size_t)len);
}

/* Writes "% comment" lines, one per line of the comment text. */
static int write_comment(mm_writer *w, const char *comment)
{
    while (comment && *comment) {
        const char *nl = strchr(comment, '\n');
        size_t len = nl ? (size_t)(nl - comment) : strlen(comment);
        if (!writer_puts(w, "% ", 2) || !writer_puts(w, comment, len) || !writer_puts(w, "\n", 1))
            return 0;
        comment += len + (nl != NULL);
    }
    return 1;
}

static spb_status writer_close(mm_writer *w, int ok, char *msg)
{
    int closed = w->gz ? gzclose(w->gz) == Z_OK : fclose(w->plain) == 0;
    spb_status st = SPB_OK;
    if (!ok || !closed || (w->tmp[0] && rename(w->tmp, w->path) != 0)) {
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", w->path,
                      errno ? strerror(errno) : "unknown error");
        if (w->tmp[0]) remove(w->tmp);
    }
    if (w->tmp[0]) spb_temp_done(w->tmp);
    return st;
}

spb_status mm_write_csr(const char *path, const spb_csr *A, const char *comment, char *msg)
{
    mm_writer w;
    spb_status st = writer_open(&w, path, msg);
    if (st != SPB_OK) return st;
    const int cx = A->complex_values;
    int ok = writer_printf(&w, "%%%%MatrixMarket matrix coordinate %s general\n",
                           cx ? "complex" : "real") &&
             write_comment(&w, comment) &&
             writer_printf(&w, "%d %d %lld\n", (int)A->m, (int)A->n, (long long)A->nnz);
    for (spb_index i = 0; ok && i < A->m; i++)
        for (spb_offset k = csr_row_start(A, i), end = csr_row_start(A, i + 1); ok && k < end; k++)
            ok = cx ? writer_printf(&w, "%d %d %.17g %.17g\n", (int)i + 1, (int)A->col_idx[k] + 1,
                                    A->val[2 * (size_t)k], A->val[2 * (size_t)k + 1])
                    : writer_printf(&w, "%d %d %.17g\n", (int)i + 1, (int)A->col_idx[k] + 1,
                                    A->val[k]);
    return writer_close(&w, ok, msg);
}

spb_status mm_write_vector(const char *path, spb_index len, const spb_value *values,
                           int complex_values, const char *comment, char *msg)
{
    mm_writer w;
    spb_status st = writer_open(&w, path, msg);
    if (st != SPB_OK) return st;
    int ok = writer_printf(&w, "%%%%MatrixMarket matrix array %s general\n",
                           complex_values ? "complex" : "real") &&
             write_comment(&w, comment) && writer_printf(&w, "%d 1\n", (int)len);
    for (spb_index i = 0; ok && i < len; i++)
        ok = complex_values ? writer_printf(&w, "%.17g %.17g\n", values[2 * (size_t)i],
                                            values[2 * (size_t)i + 1])
                            : writer_printf(&w, "%.17g\n", values[i]);
    return writer_close(&w, ok, msg);
}
