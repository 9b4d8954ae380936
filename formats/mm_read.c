/* mm_read.c — Matrix Market reader: the file streamed line by line
 * (line_reader.h: decompressed when it is gzip, bzip2 or xz) and parsed with
 * hand-written number parsers: no fscanf, and memory holds one chunk plus
 * the matrix. Every rejection names the file and line. */
#include "mm.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/memory.h"
#include "line_reader.h"
#include "mm_lex.h"

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
        if (h->nnz >= MM_ENTRIES_BEYOND) /* parse_count's clamp: named as written */
            return spb_fail(msg, SPB_ERR_TOO_LARGE,
                            "%s:%lld: nnz %.*s exceeds 2^62 entries, more than any machine's "
                            "memory holds",
                            lr->path, line, len[2], text[2]);
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
    /* triplets (16 B) and CSR (12 B) coexist during conversion; the row
     * offsets, built 64-bit (8 B), and one row array of the conversion at a
     * time (8 B) */
    double need = (h->field == MM_COMPLEX ? 44.0 : 28.0) * entries + 16.0 * ((double)h->m + 1);
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
    int64_t cap = t->cap ? t->cap * 2 : t->expected < (1 << 22) ? t->expected : (1 << 22);
    if (cap < 1024) cap = 1024;
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
