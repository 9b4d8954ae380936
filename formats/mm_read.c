/* mm_read.c — Matrix Market reader. The file is streamed (decompressed by
 * zlib, libbz2 or liblzma when it is gzip, bzip2 or xz) in large chunks and parsed line by line
 * with hand-written number parsers: no fscanf, and memory holds one chunk plus the matrix. Every
 * rejection names the file and line. */
#include "mm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef SPB_HAVE_BZIP2
#include <bzlib.h>
#endif
#ifdef SPB_HAVE_LZMA
#include <lzma.h>
#endif

#include "core/memory.h"
#include "mm_lex.h"

#define READ_CHUNK     (1u << 20)
#define MAX_LINE_BYTES (64u << 20)

/* ---- buffered line reader ------------------------------------------------ */

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

/* The file opened without blocking: a FIFO named directly used to block
 * in open() until a writer came, past SIGTERM. Its first data (or its
 * writer's end) is waited for in poll(), which a signal interrupts. */
static int open_waiting(const char *path, char *msg)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        spb_fail(msg, SPB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat sb;
    if (fstat(fd, &sb) == 0 && S_ISFIFO(sb.st_mode)) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, -1) < 0) {
            spb_fail(msg, SPB_ERR_IO, "%s: waiting for its writer: %s", path,
                     errno == EINTR ? "interrupted by a signal" : strerror(errno));
            close(fd);
            return -1;
        }
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

#define SOURCE_CHUNK (1u << 18)

/* Reads up to `want` raw bytes, retrying on a signal; -1 with errno set. */
static ssize_t read_raw(int fd, void *dst, size_t want)
{
    ssize_t got;
    do got = read(fd, dst, want);
    while (got < 0 && errno == EINTR);
    return got;
}

/* Fills the compressed input when it is empty; sets *why on failure. */
static int source_refill(byte_source *src, const char **why)
{
    if (src->zs.avail_in > 0 || src->file_eof) return 1;
    ssize_t got = read_raw(src->fd, src->in, SOURCE_CHUNK);
    if (got < 0) {
        *why = strerror(errno);
        return 0;
    }
    if (got == 0) src->file_eof = 1;
    src->zs.next_in = src->in;
    src->zs.avail_in = (uInt)got;
    return 1;
}

static const unsigned char XZ_MAGIC[6] = {0xfd, '7', 'z', 'X', 'Z', 0x00};
static const unsigned char ZSTD_MAGIC[4] = {0x28, 0xb5, 0x2f, 0xfd};

/* The codec's decoder started; 0 with *why when it cannot be. */
static int codec_start(byte_source *src, const char **why)
{
    (void)why; /* said only where a codec is not built in */
    switch (src->codec) {
    case CODEC_GZIP: return inflateInit2(&src->zs, 15 + 16) == Z_OK;
    case CODEC_BZIP2:
#ifdef SPB_HAVE_BZIP2
        return BZ2_bzDecompressInit(&src->bz, 0, 0) == BZ_OK;
#else
        *why = "compressed with bzip2, and this spbench was built without libbz2 (install "
               "libbz2-dev and build it again, or bunzip2 the file)";
        return 0;
#endif
    case CODEC_XZ: {
#ifdef SPB_HAVE_LZMA
        lzma_stream fresh = LZMA_STREAM_INIT;
        src->xz = fresh;
        return lzma_stream_decoder(&src->xz, UINT64_MAX, LZMA_CONCATENATED) == LZMA_OK;
#else
        *why = "compressed with xz, and this spbench was built without liblzma (install "
               "liblzma-dev and build it again, or unxz the file)";
        return 0;
#endif
    }
    default: return 1;
    }
}

/* Opens fd as a byte source, the codec from the first bytes. 0 with *why
 * when it cannot: out of memory, or a compression spbench does not read
 * (said as such, not as a file without a banner). */
static int source_open(byte_source *src, int fd, const char **why)
{
    memset(src, 0, sizeof *src);
    src->fd = fd;
    src->in = spb_malloc(SOURCE_CHUNK, 1);
    *why = "out of memory for the reader";
    if (!src->in) return 0;
    while (src->zs.avail_in < sizeof XZ_MAGIC && !src->file_eof) {
        ssize_t got = read_raw(fd, src->in + src->zs.avail_in, SOURCE_CHUNK - src->zs.avail_in);
        if (got <= 0) src->file_eof = 1;
        if (got > 0) src->zs.avail_in += (uInt)got;
    }
    src->zs.next_in = src->in;
    const unsigned char *b = src->in;
    size_t have = src->zs.avail_in;
    src->codec =
        have >= 2 && b[0] == 0x1f && b[1] == 0x8b ? CODEC_GZIP
        : have >= 4 && b[0] == 'B' && b[1] == 'Z' && b[2] == 'h' && b[3] >= '1' && b[3] <= '9'
            ? CODEC_BZIP2
        : have >= sizeof XZ_MAGIC && memcmp(b, XZ_MAGIC, sizeof XZ_MAGIC) == 0 ? CODEC_XZ
                                                                               : CODEC_PLAIN;
    int ready = codec_start(src, why);
    if (src->codec == CODEC_PLAIN && have >= sizeof ZSTD_MAGIC &&
        memcmp(b, ZSTD_MAGIC, sizeof ZSTD_MAGIC) == 0) {
        *why = "compressed with zstd, which spbench does not read (it reads plain, gzip, bzip2 "
               "and xz files): zstd -d it first";
        ready = 0;
    }
    if (!ready) {
        spb_free(src->in);
        src->in = NULL;
        src->codec = CODEC_PLAIN;
    }
    return ready;
}

static void source_close(byte_source *src)
{
    if (src->codec == CODEC_GZIP) inflateEnd(&src->zs);
#ifdef SPB_HAVE_BZIP2
    if (src->codec == CODEC_BZIP2) BZ2_bzDecompressEnd(&src->bz);
#endif
#ifdef SPB_HAVE_LZMA
    if (src->codec == CODEC_XZ) lzma_end(&src->xz);
#endif
    if (src->fd >= 0) close(src->fd);
    spb_free(src->in);
    src->in = NULL;
    src->fd = -1;
}

/* One step of bzip2's or xz's decoder from the compressed bytes waiting in
 * zs into dst[*made .. want): 1 on progress or a stream's end (member_end
 * set), 0 with *why on an error. at_end: the file is read to its end. */
static int unpack_step(byte_source *src, char *dst, size_t want, size_t *made, int at_end,
                       const char **why)
{
#ifdef SPB_HAVE_BZIP2
    if (src->codec == CODEC_BZIP2) {
        src->bz.next_in = (char *)src->zs.next_in;
        src->bz.avail_in = src->zs.avail_in;
        src->bz.next_out = dst + *made;
        src->bz.avail_out = (unsigned)(want - *made < UINT32_MAX ? want - *made : UINT32_MAX);
        int rc = BZ2_bzDecompress(&src->bz);
        src->zs.next_in = (Bytef *)src->bz.next_in;
        src->zs.avail_in = src->bz.avail_in;
        *made = (size_t)(src->bz.next_out - dst);
        if (rc == BZ_STREAM_END) src->member_end = 1;
        if (rc == BZ_OK || rc == BZ_STREAM_END) return 1;
        *why = rc == BZ_MEM_ERROR ? "out of memory decompressing the bzip2 stream"
                                  : "corrupt bzip2 data";
        return 0;
    }
#endif
#ifdef SPB_HAVE_LZMA
    if (src->codec == CODEC_XZ) {
        src->xz.next_in = src->zs.next_in;
        src->xz.avail_in = src->zs.avail_in;
        src->xz.next_out = (uint8_t *)dst + *made;
        src->xz.avail_out = want - *made;
        lzma_ret rc = lzma_code(&src->xz, at_end ? LZMA_FINISH : LZMA_RUN);
        src->zs.next_in = (Bytef *)src->xz.next_in;
        src->zs.avail_in = (uInt)src->xz.avail_in;
        *made = (size_t)((char *)src->xz.next_out - dst);
        if (rc == LZMA_STREAM_END) src->member_end = 1;
        if (rc == LZMA_OK || rc == LZMA_STREAM_END) return 1;
        *why = rc == LZMA_MEM_ERROR             ? "out of memory decompressing the xz stream"
               : rc == LZMA_BUF_ERROR || at_end ? "the xz stream ends early (truncated file)"
                                                : "corrupt xz data";
        return 0;
    }
#endif
    (void)src, (void)dst, (void)want, (void)made, (void)at_end;
    *why = "no decoder for this compression";
    return 0;
}

/* bzip2's and xz's share of source_read: up to `want` bytes decompressed
 * into dst, stream after stream. */
static ssize_t unpack_read(byte_source *src, char *dst, size_t want, const char **why)
{
    size_t made = 0;
    while (made < want) {
        if (!source_refill(src, why)) return -1;
        if (src->member_end) {
            if (src->zs.avail_in == 0) break; /* the file ends after a whole stream */
            /* xz's decoder reads concatenated streams itself: only bzip2's restarts */
            if (src->codec == CODEC_XZ || src->zs.next_in[0] != 'B') {
                *why = src->codec == CODEC_XZ ? "data after the end of the xz stream"
                                              : "data after the end of the bzip2 stream (not "
                                                "another bzip2 stream)";
                return -1;
            }
#ifdef SPB_HAVE_BZIP2
            BZ2_bzDecompressEnd(&src->bz);
            if (BZ2_bzDecompressInit(&src->bz, 0, 0) != BZ_OK) {
                *why = "out of memory decompressing the bzip2 stream";
                return -1;
            }
#endif
            src->member_end = 0;
        }
        int at_end = src->zs.avail_in == 0 && src->file_eof;
        size_t before_in = src->zs.avail_in, before_made = made;
        if (!unpack_step(src, dst, want, &made, at_end, why)) return -1;
        /* the file read to its end, the stream unfinished and giving no more */
        if (at_end && !src->member_end && src->zs.avail_in == before_in && made == before_made) {
            *why = src->codec == CODEC_BZIP2 ? "the bzip2 stream ends early (truncated file)"
                                             : "the xz stream ends early (truncated file)";
            return -1;
        }
    }
    return (ssize_t)made;
}

/* Moves up to `want` bytes of the file (decompressed) to dst. Returns the
 * count, 0 at the end, -1 with *why set. */
static ssize_t source_read(byte_source *src, char *dst, size_t want, const char **why)
{
    if (src->codec == CODEC_BZIP2 || src->codec == CODEC_XZ)
        return unpack_read(src, dst, want, why);
    if (src->codec == CODEC_PLAIN) {
        if (src->zs.avail_in > 0) { /* the bytes looked at for the magic */
            size_t n = src->zs.avail_in < want ? src->zs.avail_in : want;
            memcpy(dst, src->zs.next_in, n);
            src->zs.next_in += n;
            src->zs.avail_in -= (uInt)n;
            return (ssize_t)n;
        }
        ssize_t got = read_raw(src->fd, dst, want);
        if (got < 0) *why = strerror(errno);
        return got;
    }
    src->zs.next_out = (Bytef *)dst;
    src->zs.avail_out = (uInt)(want < UINT32_MAX ? want : UINT32_MAX);
    while (src->zs.avail_out > 0) {
        if (!source_refill(src, why)) return -1;
        if (src->member_end) {
            if (src->zs.avail_in == 0) break; /* the file ends after a whole member */
            if (src->zs.next_in[0] != 0x1f) {
                *why = "data after the end of the gzip stream (not another gzip member)";
                return -1;
            }
            inflateReset(&src->zs);
            src->member_end = 0;
        }
        if (src->zs.avail_in == 0) {
            *why = "the gzip stream ends early (truncated file)";
            return -1;
        }
        int z = inflate(&src->zs, Z_NO_FLUSH);
        if (z == Z_STREAM_END) {
            src->member_end = 1;
        } else if (z == Z_MEM_ERROR) {
            *why = "out of memory inflating the gzip stream";
            return -1;
        } else if (z != Z_OK && z != Z_BUF_ERROR) {
            *why = src->zs.msg ? src->zs.msg : "corrupt gzip data";
            return -1;
        }
    }
    return (ssize_t)((char *)src->zs.next_out - dst);
}

static spb_status reader_open(line_reader *lr, const char *path, char *msg)
{
    memset(lr, 0, sizeof *lr);
    lr->path = path;
    int fd = open_waiting(path, msg);
    if (fd < 0) return SPB_ERR_IO;
    const char *why = "";
    if (!source_open(&lr->src, fd, &why)) {
        close(fd);
        return spb_fail(msg, strncmp(why, "out of memory", 13) == 0 ? SPB_ERR_NOMEM : SPB_ERR_PARSE,
                        "%s: %s", path, why);
    }
    lr->cap = READ_CHUNK;
    lr->buf = spb_malloc(lr->cap, 1);
    if (!lr->buf) {
        source_close(&lr->src);
        return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory for the read buffer", path);
    }
    return SPB_OK;
}

static void reader_close(line_reader *lr)
{
    if (lr->buf) source_close(&lr->src);
    spb_free(lr->buf);
    lr->buf = NULL;
}

/* Refills the buffer, keeping unread data; grows it for very long lines. */
static spb_status reader_fill(line_reader *lr, char *msg)
{
    size_t left = lr->len - lr->pos;
    if (lr->pos > 0) memmove(lr->buf, lr->buf + lr->pos, left);
    lr->pos = 0;
    lr->len = left;
    if (lr->len == lr->cap) {
        if (lr->cap >= MAX_LINE_BYTES)
            return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: line longer than %u bytes", lr->path,
                            (long long)lr->line + 1, MAX_LINE_BYTES);
        char *bigger = spb_realloc(lr->buf, lr->cap * 2, 1);
        if (!bigger) return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory", lr->path);
        lr->buf = bigger;
        lr->cap *= 2;
    }
    const char *why = "";
    ssize_t got = source_read(&lr->src, lr->buf + lr->len, lr->cap - lr->len, &why);
    if (got < 0)
        return spb_fail(msg, SPB_ERR_IO, "%s:%lld: read failed: %s", lr->path,
                        (long long)lr->line + 1, why);
    if (got == 0) lr->eof = 1;
    lr->len += (size_t)got;
    lr->bytes += got;
    return SPB_OK;
}

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

/* ---- banner and size line ------------------------------------------------ */

static const char *symmetry_name(int symmetry)
{
    return symmetry == MM_SKEW        ? "skew-symmetric"
           : symmetry == MM_HERMITIAN ? "hermitian"
                                      : "symmetric";
}

typedef struct {
    int is_array, field, symmetry;
    int64_t m, n, nnz; /* nnz: entry lines expected */
} mm_header;

/* Copies the next whitespace-separated word (lower-cased) into word. */
static const char *next_word(const char *p, const char *end, char *word, size_t size)
{
    p = skip_blanks(p, end);
    size_t k = 0;
    while (p < end && *p != ' ' && *p != '\t') {
        if (k + 1 < size) word[k++] = (char)tolower((unsigned char)*p);
        p++;
    }
    word[k] = '\0';
    return p;
}

/* The banner line past a UTF-8 byte-order mark; lines ending in CR alone
 * (the whole file one line) are named as such, not as a bad banner. */
static spb_status first_line_start(const line_reader *lr, const char **p, const char *end,
                                   char *msg)
{
    if (end - *p >= 3 && memcmp(*p, "\xef\xbb\xbf", 3) == 0) *p += 3;
    const char *cr = memchr(*p, '\r', (size_t)(end - *p));
    if (cr && cr + 1 < end)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:1: its lines end with a carriage return alone (old Mac style); "
                        "Matrix Market lines end with LF (or CR LF): convert them, e.g. tr '\\r' "
                        "'\\n'",
                        lr->path);
    return SPB_OK;
}

static spb_status parse_banner(line_reader *lr, mm_header *h, char *msg)
{
    const char *p, *end;
    spb_status st = reader_next(lr, &p, &end, msg);
    if (st != SPB_OK) return st;
    if (!p)
        return spb_fail(msg, SPB_ERR_PARSE, "%s: empty file (no Matrix Market banner)", lr->path);
    if ((st = first_line_start(lr, &p, end, msg)) != SPB_OK) return st;
    char word[32];
    p = next_word(p, end, word, sizeof word);
    if (strcmp(word, "%%matrixmarket") != 0)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:1: missing banner: the file must start with %%%%MatrixMarket",
                        lr->path);
    char object[32], format[32], field[32], symmetry[32];
    p = next_word(p, end, object, sizeof object);
    p = next_word(p, end, format, sizeof format);
    p = next_word(p, end, field, sizeof field);
    p = next_word(p, end, symmetry, sizeof symmetry);
    if (strcmp(object, "matrix") != 0)
        return spb_fail(msg, SPB_ERR_PARSE, "%s:1: banner object '%s' is not 'matrix'", lr->path,
                        object);
    if (strcmp(format, "coordinate") == 0)
        h->is_array = 0;
    else if (strcmp(format, "array") == 0)
        h->is_array = 1;
    else
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:1: banner format '%s' is neither 'coordinate' nor 'array'", lr->path,
                        format);
    if (strcmp(field, "real") == 0 || strcmp(field, "double") == 0)
        h->field = MM_REAL;
    else if (strcmp(field, "integer") == 0)
        h->field = MM_INTEGER;
    else if (strcmp(field, "pattern") == 0)
        h->field = MM_PATTERN;
    else if (strcmp(field, "complex") == 0)
        h->field = MM_COMPLEX;
    else
        return spb_fail(msg, SPB_ERR_PARSE, "%s:1: unknown banner field '%s'", lr->path, field);
    if (strcmp(symmetry, "general") == 0)
        h->symmetry = MM_GENERAL;
    else if (strcmp(symmetry, "symmetric") == 0)
        h->symmetry = MM_SYMMETRIC;
    else if (strcmp(symmetry, "skew-symmetric") == 0)
        h->symmetry = MM_SKEW;
    else if (strcmp(symmetry, "hermitian") == 0)
        h->symmetry = MM_HERMITIAN;
    else
        return spb_fail(msg, SPB_ERR_PARSE, "%s:1: unknown banner symmetry '%s'", lr->path,
                        symmetry);
    if (h->symmetry == MM_HERMITIAN && h->field != MM_COMPLEX)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:1: 'hermitian' needs the complex field (a real one is 'symmetric')",
                        lr->path);
    if (h->is_array && h->field == MM_PATTERN)
        return spb_fail(msg, SPB_ERR_PARSE, "%s:1: 'array pattern' is not a valid combination",
                        lr->path);
    return SPB_OK;
}

/* Next line that is neither blank nor a comment; *p is NULL at end of file. */
static spb_status next_data_line(line_reader *lr, const char **p, const char **end, char *msg)
{
    for (;;) {
        spb_status st = reader_next(lr, p, end, msg);
        if (st != SPB_OK || !*p) return st;
        if (!is_blank_line(*p, *end) && !is_comment_line(*p, *end)) return SPB_OK;
    }
}

static spb_status parse_size_line(line_reader *lr, mm_header *h, char *msg)
{
    const char *p, *end;
    spb_status st = next_data_line(lr, &p, &end, msg);
    if (st != SPB_OK) return st;
    if (!p) return spb_fail(msg, SPB_ERR_PARSE, "%s: missing size line after the banner", lr->path);
    long long line = (long long)lr->line;
    int want = h->is_array ? 2 : 3;
    int64_t v[3] = {0, 0, 0};
    const char *text[3] = {"", "", ""}; /* as written: parse_count clamps at 2^62 */
    int len[3] = {0, 0, 0};
    for (int k = 0; k < want; k++) {
        p = skip_blanks(p, end);
        text[k] = p;
        if (p == end)
            return spb_fail(msg, SPB_ERR_PARSE,
                            "%s:%lld: size line needs %d numbers (%s), found %d", lr->path, line,
                            want, h->is_array ? "rows cols" : "rows cols nnz", k);
        if (!parse_count(&p, end, &v[k]))
            return spb_fail(msg, SPB_ERR_PARSE,
                            "%s:%lld: size line: item %d is not a non-negative integer", lr->path,
                            line, k + 1);
        len[k] = p - text[k] > 40 ? 40 : (int)(p - text[k]);
    }
    if (!is_blank_line(p, end))
        return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: size line has more than %d numbers", lr->path,
                        line, want);
    h->m = v[0];
    h->n = v[1];
    if (h->m > SPB_INDEX_MAX || h->n > SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "%s:%lld: size %.*s x %.*s exceeds the 32-bit index limit of %d rows/cols",
                        lr->path, line, len[0], text[0], len[1], text[1], SPB_INDEX_MAX);
    if (h->symmetry != MM_GENERAL && h->m != h->n)
        return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: a %s matrix must be square, not %lld x %lld",
                        lr->path, line, symmetry_name(h->symmetry), (long long)h->m,
                        (long long)h->n);
    if (h->is_array) {
        if (h->symmetry == MM_GENERAL)
            h->nnz = h->m * h->n;
        else if (h->symmetry != MM_SKEW)
            h->nnz = h->m * (h->m + 1) / 2;
        else
            h->nnz = h->m * (h->m > 0 ? h->m - 1 : 0) / 2;
    } else {
        h->nnz = v[2];
        if (h->nnz > SPB_INDEX_MAX)
            return spb_fail(msg, SPB_ERR_TOO_LARGE,
                            "%s:%lld: nnz %.*s exceeds the 32-bit index limit of %d entries",
                            lr->path, line, len[2], text[2], SPB_INDEX_MAX);
        if (h->nnz > 0 && (h->m == 0 || h->n == 0))
            return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: %lld entries in a %lld x %lld matrix",
                            lr->path, line, (long long)h->nnz, (long long)h->m, (long long)h->n);
    }
    return SPB_OK;
}

/* Refuses, before anything is allocated, a size line the input cannot
 * back: a plain file too short to hold the entries it announces (every
 * coordinate line takes at least 4 bytes, every array value 2), or a
 * matrix whose arrays could not fit in this machine's memory. */
static spb_status check_claims(const line_reader *lr, const mm_header *h, char *msg)
{
    struct stat sb;
    if (lr->src.codec == CODEC_PLAIN && stat(lr->path, &sb) == 0 && S_ISREG(sb.st_mode)) {
        double consumed = lr->bytes - (double)(lr->len - lr->pos);
        double left = (double)sb.st_size - consumed;
        double least = (h->is_array ? 2.0 : 4.0) * (double)h->nnz;
        if (least > left)
            return spb_fail(msg, SPB_ERR_PARSE,
                            "%s:%lld: the size line announces %lld entries, but only %.0f bytes "
                            "follow (too few entries: truncated file or wrong header)",
                            lr->path, (long long)lr->line, (long long)h->nnz, left);
    }
    double entries = (double)h->nnz * (h->symmetry == MM_GENERAL ? 1.0 : 2.0);
    if (entries > SPB_INDEX_MAX) entries = SPB_INDEX_MAX;
    /* triplets (16 B) and CSR (12 B) coexist during conversion; row_ptr and
     * one row array of the conversion at a time (4 B each) */
    double need = (h->field == MM_COMPLEX ? 44.0 : 28.0) * entries + 8.0 * ((double)h->m + 1);
    char what[4200], detail[128];
    snprintf(what, sizeof what, "%s:%lld: reading it", lr->path, (long long)lr->line);
    snprintf(detail, sizeof detail, "a %lld x %lld matrix with %lld entries", (long long)h->m,
             (long long)h->n, (long long)h->nnz);
    return spb_memory_check(need, what, detail, msg);
}

/* ---- triplet accumulation ------------------------------------------------ */

typedef struct {
    spb_coo *A;
    int64_t cap;      /* room in A's arrays */
    int64_t expected; /* entries the size line announces (before expansion) */
} triplets;

/* Makes room for more triplets: first the size line's count (capped, so a
 * lying header cannot reserve much), then doubling. */
static spb_status triplets_grow(triplets *t, const line_reader *lr, char *msg)
{
    spb_coo *A = t->A;
    if (t->cap >= SPB_INDEX_MAX)
        return spb_fail(msg, SPB_ERR_TOO_LARGE,
                        "%s:%lld: more than %d entries after symmetric expansion (32-bit limit)",
                        lr->path, (long long)lr->line, SPB_INDEX_MAX);
    int64_t cap = t->cap ? t->cap * 2 : t->expected < (1 << 22) ? t->expected : (1 << 22);
    if (cap < 1024) cap = 1024;
    if (cap > SPB_INDEX_MAX) cap = SPB_INDEX_MAX;
    spb_index *row = spb_realloc(A->row, (size_t)cap, sizeof *row);
    if (row) A->row = row;
    spb_index *col = row ? spb_realloc(A->col, (size_t)cap, sizeof *col) : NULL;
    if (col) A->col = col;
    spb_value *val =
        col ? spb_realloc(A->val, (size_t)cap * (A->complex_values ? 2 : 1), sizeof *val) : NULL;
    if (!val)
        return spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory for %lld entries", lr->path,
                        (long long)cap);
    A->val = val;
    t->cap = cap;
    return SPB_OK;
}

/* A value as read: v[1] the imaginary part of a complex one. */
static inline spb_status triplets_push(triplets *t, spb_index i, spb_index j, const spb_value *v,
                                       const line_reader *lr, char *msg)
{
    spb_coo *A = t->A;
    if (A->nnz == t->cap) {
        spb_status st = triplets_grow(t, lr, msg);
        if (st != SPB_OK) return st;
    }
    A->row[A->nnz] = i;
    A->col[A->nnz] = j;
    if (A->complex_values) {
        A->val[2 * (size_t)A->nnz] = v[0];
        A->val[2 * (size_t)A->nnz + 1] = v[1];
    } else {
        A->val[A->nnz] = v[0];
    }
    A->nnz++;
    return SPB_OK;
}

/* Adds (i,j,v) and, for symmetric headers, its mirror: v, -v, or v's
 * conjugate (hermitian). */
static spb_status add_entry(triplets *t, const mm_header *h, spb_index i, spb_index j,
                            const spb_value *v, const line_reader *lr, char *msg)
{
    spb_status st = triplets_push(t, i, j, v, lr, msg);
    if (st != SPB_OK || i == j || h->symmetry == MM_GENERAL) return st;
    const spb_value mirror[2] = {h->symmetry == MM_SKEW ? -v[0] : v[0],
                                 h->symmetry == MM_SYMMETRIC ? v[1] : -v[1]};
    return triplets_push(t, j, i, mirror, lr, msg);
}

/* ---- entries ------------------------------------------------------------- */

static const char *entry_item_name(int k)
{
    return k == 0 ? "row index" : k == 1 ? "column index" : k == 2 ? "value" : "imaginary part";
}

static spb_status fail_overflow(const line_reader *lr, char *msg)
{
    return spb_fail(msg, SPB_ERR_PARSE,
                    "%s:%lld: value overflows a double (magnitude beyond 1.8e308)", lr->path,
                    (long long)lr->line);
}

static spb_status fail_short_line(const line_reader *lr, int want, int found, char *msg)
{
    if (lr->unterminated)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:%lld: file ends mid-line: entry has %d of %d items (truncated file?)",
                        lr->path, (long long)lr->line, found, want);
    return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: entry has %d items, expected %d", lr->path,
                    (long long)lr->line, found, want);
}

/* An 'integer' field holds whole numbers. */
static spb_status check_integer(const line_reader *lr, const mm_header *h, double v, char *msg)
{
    if (h->field != MM_INTEGER || v == trunc(v)) return SPB_OK;
    return spb_fail(msg, SPB_ERR_PARSE,
                    "%s:%lld: value %.17g is not a whole number, but the banner says 'integer'",
                    lr->path, (long long)lr->line, v);
}

/* Which triangle a symmetric file stores: the first off-diagonal entry
 * decides, and an entry in the other is refused (it would be counted
 * twice: once as itself, once as its partner's mirror); a skew-symmetric
 * matrix has a zero diagonal. */
typedef struct {
    int side; /* 0: none seen yet, 1: below the diagonal, 2: above */
    long long line, row, col;
} triangle_seen;

static spb_status check_triangle(const line_reader *lr, const mm_header *h, triangle_seen *tri,
                                 int64_t i, int64_t j, char *msg)
{
    if (h->symmetry == MM_GENERAL) return SPB_OK;
    if (i == j) {
        if (h->symmetry != MM_SKEW) return SPB_OK;
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:%lld: entry (%lld, %lld) is on the diagonal, which a skew-symmetric "
                        "matrix holds as zeros",
                        lr->path, (long long)lr->line, (long long)i, (long long)j);
    }
    int side = i > j ? 1 : 2;
    if (!tri->side) *tri = (triangle_seen){side, (long long)lr->line, (long long)i, (long long)j};
    if (side == tri->side) return SPB_OK;
    return spb_fail(msg, SPB_ERR_PARSE,
                    "%s:%lld: entry (%lld, %lld) is %s the diagonal, but line %lld holds (%lld, "
                    "%lld) %s it: a %s file stores one triangle, the other is its mirror",
                    lr->path, (long long)lr->line, (long long)i, (long long)j,
                    side == 1 ? "below" : "above", tri->line, tri->row, tri->col,
                    tri->side == 1 ? "below" : "above", symmetry_name(h->symmetry));
}

static spb_status read_coordinate(line_reader *lr, const mm_header *h, triplets *t, char *msg)
{
    int want = h->field == MM_PATTERN ? 2 : h->field == MM_COMPLEX ? 4 : 3;
    int64_t seen = 0;
    triangle_seen triangle = {0, 0, 0, 0};
    for (;;) {
        const char *p, *end;
        spb_status st = reader_next(lr, &p, &end, msg);
        if (st != SPB_OK) return st;
        if (!p) break;
        p = skip_blanks(p, end);
        if (p == end || *p == '%') continue;
        if (seen == h->nnz)
            return spb_fail(msg, SPB_ERR_PARSE,
                            "%s:%lld: too many entries: the size line says %lld", lr->path,
                            (long long)lr->line, (long long)h->nnz);
        int64_t idx[2];
        const char *written[2] = {"", ""}; /* as written: parse_count clamps at 2^62 */
        int written_len[2] = {0, 0};
        double v[2] = {1.0, 0.0};
        for (int k = 0; k < want; k++) {
            p = skip_blanks(p, end);
            if (p == end) return fail_short_line(lr, want, k, msg);
            if (k < 2) written[k] = p;
            int ok = k < 2 ? parse_count(&p, end, &idx[k]) : parse_real(&p, end, &v[k - 2]);
            if (k < 2) written_len[k] = p - written[k] > 40 ? 40 : (int)(p - written[k]);
            if (ok == NUMBER_OVERFLOWS) return fail_overflow(lr, msg);
            if (!ok)
                return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: %s is not a valid number", lr->path,
                                (long long)lr->line, entry_item_name(k));
        }
        if (!is_blank_line(p, end))
            return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: entry has more than %d items", lr->path,
                            (long long)lr->line, want);
        for (int k = 0; k < 2; k++) {
            int64_t limit = k == 0 ? h->m : h->n;
            if (idx[k] < 1 || idx[k] > limit)
                return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: %s %.*s outside 1..%lld%s", lr->path,
                                (long long)lr->line, entry_item_name(k), written_len[k], written[k],
                                (long long)limit,
                                idx[k] == 0 ? " (Matrix Market indices start at 1)" : "");
        }
        st = check_integer(lr, h, v[0], msg);
        if (st == SPB_OK) st = check_triangle(lr, h, &triangle, idx[0], idx[1], msg);
        if (st == SPB_OK)
            st = add_entry(t, h, (spb_index)(idx[0] - 1), (spb_index)(idx[1] - 1), v, lr, msg);
        if (st != SPB_OK) return st;
        seen++;
    }
    if (seen < h->nnz)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:%lld: too few entries: found %lld, the size line says %lld", lr->path,
                        (long long)lr->line, (long long)seen, (long long)h->nnz);
    return SPB_OK;
}

/* Dense column-major values; symmetric files hold the lower triangle,
 * skew-symmetric ones the strict lower triangle. Zeros are dropped unless
 * keep_zeros is set. */
static spb_status read_array(line_reader *lr, const mm_header *h, triplets *t, int keep_zeros,
                             char *msg)
{
    int64_t i = h->symmetry == MM_SKEW ? 1 : 0, j = 0, seen = 0;
    for (;;) {
        const char *p, *end;
        spb_status st = reader_next(lr, &p, &end, msg);
        if (st != SPB_OK) return st;
        if (!p) break;
        p = skip_blanks(p, end);
        if (p == end || *p == '%') continue;
        if (seen == h->nnz)
            return spb_fail(
                msg, SPB_ERR_PARSE, "%s:%lld: too many values: a %lld x %lld %s array holds %lld",
                lr->path, (long long)lr->line, (long long)h->m, (long long)h->n,
                h->symmetry == MM_GENERAL ? "general" : "triangular", (long long)h->nnz);
        double v[2] = {0.0, 0.0};
        const int parts = h->field == MM_COMPLEX ? 2 : 1;
        for (int k = 0; k < parts; k++) {
            p = skip_blanks(p, end);
            int ok = parse_real(&p, end, &v[k]);
            if (ok == NUMBER_OVERFLOWS) return fail_overflow(lr, msg);
            if (!ok)
                return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: %s is not a valid number", lr->path,
                                (long long)lr->line, entry_item_name(2 + k));
        }
        if (!is_blank_line(p, end))
            return spb_fail(msg, SPB_ERR_PARSE, "%s:%lld: an array line holds one value%s",
                            lr->path, (long long)lr->line,
                            parts == 2 ? " (its real and imaginary parts)" : "");
        st = check_integer(lr, h, v[0], msg);
        if (st != SPB_OK) return st;
        if (v[0] != 0.0 || v[1] != 0.0 || keep_zeros) {
            st = add_entry(t, h, (spb_index)i, (spb_index)j, v, lr, msg);
            if (st != SPB_OK) return st;
        }
        seen++;
        if (++i == h->m) {
            j++;
            i = h->symmetry == MM_GENERAL ? 0 : h->symmetry == MM_SKEW ? j + 1 : j;
        }
    }
    if (seen < h->nnz)
        return spb_fail(msg, SPB_ERR_PARSE,
                        "%s:%lld: too few values: found %lld of the %lld a %lld x %lld array holds",
                        lr->path, (long long)lr->line, (long long)seen, (long long)h->nnz,
                        (long long)h->m, (long long)h->n);
    return SPB_OK;
}

static spb_status read_matrix(const char *path, spb_coo *A, spb_mm_info *info, int keep_zeros,
                              char *msg)
{
    memset(A, 0, sizeof *A);
    line_reader lr;
    spb_status st = reader_open(&lr, path, msg);
    if (st != SPB_OK) return st;
    mm_header h = {0};
    triplets t = {A, 0, 0};
    st = parse_banner(&lr, &h, msg);
    if (st == SPB_OK) st = parse_size_line(&lr, &h, msg);
    if (st == SPB_OK) st = check_claims(&lr, &h, msg);
    if (st == SPB_OK) {
        A->m = (spb_index)h.m;
        A->n = (spb_index)h.n;
        A->complex_values = h.field == MM_COMPLEX;
        t.expected = h.nnz;
        st = h.is_array ? read_array(&lr, &h, &t, keep_zeros, msg)
                        : read_coordinate(&lr, &h, &t, msg);
    }
    if (info) {
        info->is_array = h.is_array;
        info->field = h.field;
        info->symmetry = h.symmetry;
        info->entries = h.nnz;
        info->bytes = lr.bytes;
    }
    reader_close(&lr);
    if (st != SPB_OK) coo_free(A);
    return st;
}

spb_status mm_read(const char *path, spb_coo *A, spb_mm_info *info, char *msg)
{
    return read_matrix(path, A, info, 0, msg);
}

spb_status mm_read_csr(const char *path, spb_csr *A, spb_mm_info *info, char *msg)
{
    spb_coo coo;
    memset(A, 0, sizeof *A);
    spb_status st = mm_read(path, &coo, info, msg);
    if (st != SPB_OK) return st;
    char why[SPB_MSG_LEN] = "";
    st = csr_from_coo(&coo, A, why);
    coo_free(&coo);
    if (st != SPB_OK) return spb_fail(msg, st, "%s: %s", path, why);
    return st;
}

spb_status mm_read_vector(const char *path, spb_index *len, spb_value **values, int *complex_values,
                          char *msg)
{
    spb_coo coo;
    spb_mm_info info;
    *len = 0;
    *values = NULL;
    spb_status st = read_matrix(path, &coo, &info, 1, msg);
    if (st != SPB_OK) return st;
    const size_t w = coo.complex_values ? 2 : 1;
    if (complex_values) *complex_values = coo.complex_values;
    if (coo.complex_values && !complex_values) {
        st = spb_fail(msg, SPB_ERR_UNSUPPORTED, "%s: a complex vector, where a real one is read",
                      path);
    } else if (coo.n != 1) {
        st = spb_fail(msg, SPB_ERR_PARSE, "%s: a vector file needs one column, not %d", path,
                      (int)coo.n);
    } else if (!(*values = spb_calloc((size_t)coo.m * w, sizeof **values))) {
        st = spb_fail(msg, SPB_ERR_NOMEM, "%s: out of memory", path);
    } else {
        /* array entries are stored once each (assigned, so -0.0 survives);
         * coordinate duplicates are summed */
        for (spb_index k = 0; k < coo.nnz; k++)
            for (size_t q = 0; q < w; q++) {
                if (info.is_array)
                    (*values)[coo.row[k] * w + q] = coo.val[k * w + q];
                else
                    (*values)[coo.row[k] * w + q] += coo.val[k * w + q];
            }
        *len = coo.m;
    }
    coo_free(&coo);
    return st;
}
