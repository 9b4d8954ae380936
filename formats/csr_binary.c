/* csr_binary.c — the binary CSR cache file (see csr_binary.h). * Layout (host byte order): magic,
 * the fingerprint, m, n, nnz, whether all values are equal (then val is not stored), whether they
 * are complex ((re, im) pairs), a checksum,
 * then the row offsets (32-bit, or 64-bit when nnz passes 2^31 - 1), col_idx and val. */
#include "csr_binary.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static const char magic[8] = {'S', 'P', 'B', 'C', 'S', 'R', '0', '5'};

typedef struct {
    char magic[8];
    spb_fingerprint fp;
    int32_t m, n;
    int64_t nnz;
    uint32_t uniform;        /* 1: every value equals uniform_value, val not stored */
    uint32_t complex_values; /* 1: val holds (re, im) pairs */
    double uniform_value;    /* pattern matrices: 1.0 */
    uint64_t checksum;       /* of the stored arrays (and the uniform value) */
} file_header;

spb_status fingerprint_file(const char *path, spb_fingerprint *fp, char *msg)
{
    memset(fp, 0, sizeof *fp);
    struct stat sb;
    if (stat(path, &sb) != 0)
        return spb_fail(msg, SPB_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    fp->size = (uint64_t)sb.st_size;
    fp->mtime_sec = (int64_t)sb.st_mtim.tv_sec;
    fp->mtime_nsec = (int64_t)sb.st_mtim.tv_nsec;
    FILE *f = fopen(path, "rb");
    if (!f) return spb_fail(msg, SPB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char head[SPB_PATH_LEN];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t total = 0, got;
    while (total < SPB_FINGERPRINT_HEAD && (got = fread(head, 1, sizeof head, f)) > 0) {
        crc = crc32(crc, head, (uInt)got);
        total += got;
    }
    fclose(f);
    fp->head_crc = (uint32_t)crc;
    return SPB_OK;
}

static int fingerprint_equal(const spb_fingerprint *a, const spb_fingerprint *b)
{
    return a->size == b->size && a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
           a->head_crc == b->head_crc;
}

/* A fast 64-bit checksum of the arrays (four independent multiply-xor
 * lanes over 8-byte words, then mixed): any flipped, lost or swapped word
 * changes it with overwhelming probability, at memory speed. */
typedef struct {
    uint64_t lane[4];
    uint64_t bytes;
} checksum;

static void checksum_add(checksum *c, const void *data, size_t bytes)
{
    const unsigned char *p = data;
    const uint64_t prime = 0x100000001b3ull;
    uint64_t l0 = c->lane[0], l1 = c->lane[1], l2 = c->lane[2], l3 = c->lane[3];
    size_t k = 0;
    for (; k + 32 <= bytes; k += 32) {
        uint64_t w[4];
        memcpy(w, p + k, sizeof w);
        l0 = (l0 ^ w[0]) * prime;
        l1 = (l1 ^ w[1]) * prime;
        l2 = (l2 ^ w[2]) * prime;
        l3 = (l3 ^ w[3]) * prime;
    }
    for (; k < bytes; k++) l0 = (l0 ^ p[k]) * prime;
    c->lane[0] = l0;
    c->lane[1] = l1;
    c->lane[2] = l2;
    c->lane[3] = l3;
    c->bytes += bytes;
}

/* Whether every value is the same (pattern matrices): then val is not
 * stored, which halves large graph files. */
static int values_uniform(const spb_csr *A)
{
    if (A->complex_values) return 0;
    /* bits, not values: the cache must give back -0.0 as -0.0 */
    for (spb_offset k = 1; k < A->nnz; k++) {
        int same = memcmp(&A->val[k], &A->val[0], sizeof A->val[0]) == 0; // NOLINT(bugprone-*)
        if (!same) return 0;
    }
    return A->nnz > 0;
}

/* Bytes of a stored row offset: the narrowest that holds nnz, whatever
 * the width in memory (a small matrix on wide offsets is stored narrow). */
static size_t stored_offset_bytes(int64_t nnz)
{
    return nnz > SPB_INDEX_MAX ? sizeof(spb_offset) : sizeof(spb_index);
}

/* A's row offsets in their stored width: its own array, or a narrow copy
 * in *copy (freed by the caller) of a small matrix's wide ones. */
static const void *stored_offsets(const spb_csr *A, spb_index **copy)
{
    *copy = NULL;
    if (!csr_wide(A)) return A->row_ptr;
    if (stored_offset_bytes(A->nnz) == sizeof(spb_offset)) return A->row_ptr64;
    *copy = spb_malloc((size_t)A->m + 1, sizeof **copy);
    if (*copy)
        for (spb_index i = 0; i <= A->m; i++) (*copy)[i] = (spb_index)A->row_ptr64[i];
    return *copy;
}

static uint64_t csr_checksum(const spb_csr *A, const void *offsets, int uniform)
{
    checksum c = {{0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull,
                   0x7f4a7c159e3779b9ull},
                  0};
    /* each array separately, so a word cannot move between them unnoticed */
    checksum_add(&c, offsets, stored_offset_bytes(A->nnz) * ((size_t)A->m + 1));
    c.lane[1] ^= c.lane[0] >> 7;
    checksum_add(&c, A->col_idx, sizeof *A->col_idx * (size_t)A->nnz);
    c.lane[2] ^= c.lane[1] >> 11;
    checksum_add(&c, A->val,
                 sizeof *A->val * (uniform ? 1 : (size_t)A->nnz * csr_values_per_entry(A)));
    uint64_t h = c.bytes;
    for (int k = 0; k < 4; k++) {
        h ^= c.lane[k] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 33;
    }
    return h;
}

spb_status csr_write_binary(const char *path, const spb_csr *A, const spb_fingerprint *fp,
                            char *msg)
{
    spb_index *copy;
    const void *offsets = stored_offsets(A, &copy);
    if (!offsets) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the row offsets");
    char tmp[SPB_PATH_LEN];
    if (spb_temp_path(tmp, sizeof tmp, path, msg) != SPB_OK) {
        spb_free(copy);
        return SPB_ERR_IO;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        spb_free(copy);
        spb_status st = spb_fail(msg, SPB_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
        remove(tmp);
        spb_temp_done(tmp);
        return st;
    }
    file_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, sizeof magic);
    h.fp = *fp;
    h.m = A->m;
    h.n = A->n;
    h.nnz = A->nnz;
    h.uniform = (uint32_t)values_uniform(A);
    h.complex_values = (uint32_t)A->complex_values;
    h.uniform_value = h.uniform ? A->val[0] : 0.0;
    h.checksum = csr_checksum(A, offsets, (int)h.uniform);
    size_t stored_values = h.uniform ? 0 : (size_t)A->nnz * csr_values_per_entry(A);
    int ok =
        fwrite(&h, sizeof h, 1, f) == 1 &&
        fwrite(offsets, stored_offset_bytes(A->nnz), (size_t)A->m + 1, f) == (size_t)A->m + 1 &&
        fwrite(A->col_idx, sizeof *A->col_idx, (size_t)A->nnz, f) == (size_t)A->nnz &&
        fwrite(A->val, sizeof *A->val, stored_values, f) == stored_values;
    ok = (fclose(f) == 0) && ok;
    spb_free(copy);
    spb_status st = SPB_OK;
    if (!ok || rename(tmp, path) != 0) {
        st = spb_fail(msg, SPB_ERR_IO, "%s: write failed: %s", path, strerror(errno));
        remove(tmp);
    }
    spb_temp_done(tmp);
    return st;
}

/* Whether the file's length is the header's arrays' exactly, so that no
 * allocation is made for sizes the file does not hold. */
static int sizes_fit_file(FILE *f, const file_header *h)
{
    struct stat sb;
    if (fstat(fileno(f), &sb) != 0) return 0;
    uint64_t values = h->uniform ? 0 : (uint64_t)h->nnz * (h->complex_values ? 2 : 1);
    uint64_t expected = sizeof *h + ((uint64_t)h->m + 1) * stored_offset_bytes(h->nnz) +
                        (uint64_t)h->nnz * sizeof(spb_index) + values * sizeof(spb_value);
    return (uint64_t)sb.st_size == expected;
}

spb_status csr_read_binary(const char *path, const spb_fingerprint *expected, spb_csr *A, char *msg)
{
    char why[SPB_MSG_LEN] = "";
    memset(A, 0, sizeof *A);
    FILE *f = fopen(path, "rb");
    if (!f) return spb_fail(msg, SPB_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    file_header h;
    spb_status st = SPB_OK;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, magic, sizeof magic) != 0)
        st = spb_fail(msg, SPB_ERR_INVALID, "%s: not a spbench cache file", path);
    else if (!fingerprint_equal(&h.fp, expected))
        st = spb_fail(msg, SPB_ERR_INVALID, "%s: stale (its source changed)", path);
    else if (h.m < 0 || h.n < 0 || h.nnz < 0 || h.uniform > 1 || h.complex_values > 1 ||
             (h.uniform && h.complex_values))
        st = spb_fail(msg, SPB_ERR_INVALID, "%s: corrupt header", path);
    else if (!sizes_fit_file(f, &h))
        st = spb_fail(msg, SPB_ERR_INVALID,
                      "%s: truncated or overlong (its length is not its header's)", path);
    if (st == SPB_OK)
        st = csr_alloc_as(A, h.m, h.n, h.nnz, (int)h.complex_values, h.nnz > SPB_INDEX_MAX, msg);
    if (st == SPB_OK) {
        size_t stored_values = h.uniform ? 0 : (size_t)h.nnz * csr_values_per_entry(A);
        void *offsets = csr_wide(A) ? (void *)A->row_ptr64 : (void *)A->row_ptr;
        int ok =
            fread(offsets, stored_offset_bytes(h.nnz), (size_t)h.m + 1, f) == (size_t)h.m + 1 &&
            fread(A->col_idx, sizeof *A->col_idx, (size_t)h.nnz, f) == (size_t)h.nnz &&
            fread(A->val, sizeof *A->val, stored_values, f) == stored_values && fgetc(f) == EOF;
        if (ok && h.uniform)
            for (spb_offset k = 0; k < h.nnz; k++) A->val[k] = h.uniform_value;
        if (!ok)
            st = spb_fail(msg, SPB_ERR_INVALID, "%s: truncated or overlong", path);
        else if (csr_checksum(A, offsets, (int)h.uniform) != h.checksum)
            st = spb_fail(msg, SPB_ERR_INVALID, "%s: corrupt (checksum mismatch)", path);
        /* the checksum is public: an entry written by someone else with a
         * fitting one is still checked like a parsed matrix */
        else if (csr_check(A, why) != SPB_OK)
            st = spb_fail(msg, SPB_ERR_INVALID, "%s: not a valid matrix: %s", path, why);
    }
    fclose(f);
    if (st != SPB_OK) csr_free(A);
    return st;
}
