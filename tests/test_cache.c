/* test_cache.c — the binary CSR cache: a round trip gives bit-identical
 * arrays; a stale, corrupt, truncated or foreign file is refused, never
 * trusted; source_load_cached rebuilds such entries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/inputs/sources.h"
#include "check.h"
#include "formats/csr_binary.h"

static int same_csr(const spb_csr *a, const spb_csr *b)
{
    return a->m == b->m && a->n == b->n && a->nnz == b->nnz &&
           a->complex_values == b->complex_values &&
           !memcmp(a->row_ptr, b->row_ptr, sizeof *a->row_ptr * ((size_t)a->m + 1)) &&
           !memcmp(a->col_idx, b->col_idx, sizeof *a->col_idx * (size_t)a->nnz) &&
           !memcmp(a->val, b->val, sizeof *a->val * (size_t)a->nnz * csr_values_per_entry(a));
}

static void flip_byte(const char *path, long offset)
{
    FILE *f = fopen(path, "r+b");
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x40, f);
    fclose(f);
}

static void check_round_trip(const char *source, const char *tmpdir)
{
    char msg[SPB_MSG_LEN] = "", path[512];
    snprintf(path, sizeof path, "%s/entry.spbcsr", tmpdir);
    spb_csr A, B;
    spb_fingerprint fp;
    CHECK(source_load(source, &A, NULL, msg) == SPB_OK, "%s", msg);
    CHECK(fingerprint_file(source, &fp, msg) == SPB_OK, "%s", msg);
    CHECK(csr_write_binary(path, &A, &fp, msg) == SPB_OK, "%s", msg);
    CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_OK, "%s: %s", source, msg);
    CHECK(same_csr(&A, &B), "%s: cached matrix differs from the parsed one", source);
    csr_free(&B);

    spb_fingerprint stale = fp;
    stale.mtime_nsec += 1;
    msg[0] = '\0';
    CHECK(csr_read_binary(path, &stale, &B, msg) == SPB_ERR_INVALID && strstr(msg, "stale"),
          "%s: a stale entry was accepted (%s)", source, msg);
    struct stat sb;
    stat(path, &sb);
    /* a flipped byte in each array region and in the header */
    long offsets[] = {8, (long)sb.st_size / 2, (long)sb.st_size - 1};
    for (int k = 0; k < 3; k++) {
        flip_byte(path, offsets[k]);
        msg[0] = '\0';
        CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_ERR_INVALID,
              "%s: corruption at byte %ld was not detected", source, offsets[k]);
        flip_byte(path, offsets[k]);
    }
    /* poisoned: entries written with a fitting checksum (it is public), one
     * with a column past n, one with a row pointer past nnz */
    static const char *const poisons[] = {"column", "row pointer"};
    for (int k = 0; k < 2; k++) {
        spb_csr P;
        CHECK(source_load(source, &P, NULL, msg) == SPB_OK, "%s", msg);
        if (k == 0)
            P.col_idx[P.nnz / 2] = P.n + 3;
        else
            P.row_ptr[P.m / 2] = 50000000;
        CHECK(csr_write_binary(path, &P, &fp, msg) == SPB_OK, "%s", msg);
        msg[0] = '\0';
        CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_ERR_INVALID &&
                  strstr(msg, "not a valid matrix"),
              "%s: a cache entry with a poisoned %s was accepted (%s)", source, poisons[k], msg);
        csr_free(&P);
    }
    CHECK(csr_write_binary(path, &A, &fp, msg) == SPB_OK, "%s", msg);
    /* a header claiming more than the file holds is refused before allocating
     * (nnz follows the magic, the fingerprint, m and n) */
    FILE *grown = fopen(path, "r+b");
    int64_t huge = 0x7fffffff;
    long nnz_at = (long)(8 + sizeof(spb_fingerprint) + 2 * sizeof(int32_t));
    CHECK(grown && fseek(grown, nnz_at, SEEK_SET) == 0 && fwrite(&huge, sizeof huge, 1, grown) == 1,
          "writing a header");
    if (grown) fclose(grown);
    msg[0] = '\0';
    CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_ERR_INVALID && strstr(msg, "length"),
          "%s: a header past the file's length was accepted (%s)", source, msg);
    CHECK(csr_write_binary(path, &A, &fp, msg) == SPB_OK, "%s", msg);
    CHECK(truncate(path, sb.st_size - 3) == 0, "truncate");
    msg[0] = '\0';
    CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_ERR_INVALID && strstr(msg, "truncated"),
          "%s: a truncated entry was accepted (%s)", source, msg);
    /* a small matrix on wide row offsets (SPB_WIDE_OFFSETS=1) is stored as
     * the narrow one, byte for byte, and comes back narrow */
    spb_csr W;
    CHECK(source_load(source, &W, NULL, msg) == SPB_OK && csr_widen(&W, msg) == SPB_OK, "%s", msg);
    CHECK(csr_write_binary(path, &W, &fp, msg) == SPB_OK, "%s", msg);
    struct stat wide_sb;
    stat(path, &wide_sb);
    CHECK(wide_sb.st_size == sb.st_size, "%s: stored wide, the entry is %lld bytes, not %lld",
          source, (long long)wide_sb.st_size, (long long)sb.st_size);
    CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_OK && !csr_wide(&B) && same_csr(&A, &B),
          "%s: a wide matrix's entry read back: %s", source, msg);
    csr_free(&B);
    csr_free(&W);
    FILE *f = fopen(path, "wb");
    fputs("%%MatrixMarket matrix coordinate real general\n", f);
    fclose(f);
    msg[0] = '\0';
    CHECK(csr_read_binary(path, &fp, &B, msg) == SPB_ERR_INVALID, "a foreign file was accepted");
    csr_free(&A);
}

static void check_cached_loads(const char *source, const char *tmpdir)
{
    char msg[SPB_MSG_LEN] = "", cache[512];
    spb_cache_note note;
    snprintf(cache, sizeof cache, "%s/cache", tmpdir);
    mkdir(cache, 0777);
    spb_csr parsed, first, second;
    CHECK(source_load(source, &parsed, NULL, msg) == SPB_OK, "%s", msg);
    CHECK(source_load_cached(source, cache, &first, &note, msg) == SPB_OK, "%s", msg);
    CHECK(note.outcome == SPB_CACHE_STORED, "first load: note '%s'", note.text);
    CHECK(source_load_cached(source, cache, &second, &note, msg) == SPB_OK, "%s", msg);
    CHECK(note.outcome == SPB_CACHE_HIT, "second load: note '%s'", note.text);
    CHECK(same_csr(&parsed, &first) && same_csr(&parsed, &second),
          "cached loads differ from parsing");
    csr_free(&second);
    /* corrupt every entry of the cache: the next load must rebuild it */
    char cmd[1200];
    snprintf(cmd, sizeof cmd,
             "for f in '%s'/*.spbcsr; do printf 'XXXX' | dd of=\"$f\" bs=1 seek=200 conv=notrunc "
             "2>/dev/null; done",
             cache);
    CHECK(system(cmd) == 0, "corrupting the cache");
    CHECK(source_load_cached(source, cache, &second, &note, msg) == SPB_OK, "%s", msg);
    CHECK(note.outcome == SPB_CACHE_STORED && strstr(note.text, "rebuilt") != NULL,
          "a corrupt entry was not rebuilt: note '%s'", note.text);
    CHECK(same_csr(&parsed, &second), "the rebuilt load differs from parsing");
    csr_free(&second);
    CHECK(source_load_cached(source, cache, &second, &note, msg) == SPB_OK &&
              note.outcome == SPB_CACHE_HIT,
          "after the rebuild the entry is used: note '%s'", note.text);
    csr_free(&second);
    csr_free(&first);
    csr_free(&parsed);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "matrices";
    char tmpdir[] = "/tmp/spb_test_cache_XXXXXX";
    if (!mkdtemp(tmpdir)) return 1;
    static const char *const names[] = {"cage4", "plskz362", "jagmesh7", "lp_e226", "Journals"};
    for (int k = 0; k < 5; k++) {
        char source[512];
        snprintf(source, sizeof source, "%s/%s.mtx.gz", dir, names[k]);
        check_round_trip(source, tmpdir);
    }
    /* a complex matrix: its (re, im) pairs kept, and a real one never read
     * back as complex (nor the reverse) */
    char source[512];
    snprintf(source, sizeof source, "%s/complex.mtx", tmpdir);
    FILE *complex_file = fopen(source, "w");
    if (complex_file) {
        fputs("%%MatrixMarket matrix coordinate complex hermitian\n3 3 4\n1 1 2 0\n2 1 -1 "
              "0.5\n3 2 0.25 -3\n3 3 1 0\n",
              complex_file);
        fclose(complex_file);
    }
    check_round_trip(source, tmpdir);
    snprintf(source, sizeof source, "%s/adder_dcop_32.mtx.gz", dir);
    check_cached_loads(source, tmpdir);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_done();
}
