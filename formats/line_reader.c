/* line_reader.c — the Matrix Market reader's input (line_reader.h): the
 * file's bytes, decompressed by zlib, libbz2 or liblzma when it is gzip,
 * bzip2 or xz, in large chunks, handed out line by line. */
#include "line_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/memory.h"

#define READ_CHUNK     (1u << 20)
#define MAX_LINE_BYTES (64u << 20)

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

spb_status reader_open(line_reader *lr, const char *path, char *msg)
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

void reader_close(line_reader *lr)
{
    if (lr->buf) source_close(&lr->src);
    spb_free(lr->buf);
    lr->buf = NULL;
}

spb_status reader_fill(line_reader *lr, char *msg)
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
