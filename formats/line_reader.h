/* line_reader.h — a file read line by line in large chunks, decompressed
 * when it is gzip, bzip2 or xz (by its first bytes, not its name): the
 * Matrix Market reader's input (mm_read.c). reader_next is inline: the
 * reader's line loop is the parser's hot path. */
#ifndef SPB_LINE_READER_H
#define SPB_LINE_READER_H

#include <stdint.h>
#include <string.h>
#include <zlib.h>
#ifdef SPB_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef SPB_HAVE_LZMA
#include <lzma.h>
#endif

#include "core/spb.h"

/* How the file's bytes are stored, from its first bytes. */
typedef enum { CODEC_PLAIN, CODEC_GZIP, CODEC_BZIP2, CODEC_XZ } codec_kind;

/* The file's bytes, decompressed when it starts with gzip's, bzip2's or
 * xz's magic. zlib's gzread would skip anything after the last gzip member
 * without a word; this reader refuses data after the last stream of any
 * of the three (concatenated streams, as pigz and pbzip2 write, are read
 * on). The compressed bytes read wait in zs.next_in / zs.avail_in whatever
 * the codec. */
typedef struct {
    int fd;
    codec_kind codec;
    int member_end; /* a stream ended; what follows must be another */
    int file_eof;   /* read() returned 0 */
    z_stream zs;
#ifdef SPB_HAVE_BZIP2
    bz_stream bz;
#endif
#ifdef SPB_HAVE_LZMA
    lzma_stream xz;
#endif
    unsigned char *in; /* compressed bytes read, zs.next_in into it */
} byte_source;

typedef struct {
    byte_source src;
    const char *path;
    char *buf;
    size_t cap, len, pos; /* unread data is buf[pos..len) */
    int eof;
    int64_t line;     /* number of the line last returned (1-based) */
    int unterminated; /* the line last returned had no '\n' */
    double bytes;     /* uncompressed bytes read so far */
} line_reader;

/* Opens path (a FIFO too, waiting for its writer without blocking a
 * signal) and its decompressor; every failure names the file. */
spb_status reader_open(line_reader *lr, const char *path, char *msg);
void reader_close(line_reader *lr);
/* Refills the buffer, keeping unread data; grows it for very long lines. */
spb_status reader_fill(line_reader *lr, char *msg);

/* Returns the next line in [*start, *end) without its '\n' or "\r\n";
 * *start is NULL at end of file. */
static inline spb_status reader_next(line_reader *lr, const char **start, const char **end,
                                     char *msg)
{
    for (;;) {
        char *from = lr->buf + lr->pos;
        char *nl = memchr(from, '\n', lr->len - lr->pos);
        if (nl || (lr->eof && lr->pos < lr->len)) {
            char *stop = nl ? nl : lr->buf + lr->len;
            lr->pos = nl ? (size_t)(nl - lr->buf) + 1 : lr->len;
            lr->unterminated = nl == NULL;
            if (stop > from && stop[-1] == '\r') stop--;
            lr->line++;
            *start = from;
            *end = stop;
            return SPB_OK;
        }
        if (lr->eof) {
            *start = *end = NULL;
            return SPB_OK;
        }
        spb_status st = reader_fill(lr, msg);
        if (st != SPB_OK) return st;
    }
}

#endif
