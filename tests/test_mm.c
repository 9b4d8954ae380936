/* test_mm.c — the Matrix Market reader and writer on hand-written files:
 * every banner combination, gzip, CRLF, comments, and every bad input. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "bench/inputs/rng.h"
#include "check.h"
#include "formats/mm.h"

static char tmpdir[256];

static const char *write_file(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    size_t len = strlen(text);
    if (strstr(name, ".gz")) {
        gzFile gz = gzopen(path, "wb");
        gzwrite(gz, text, (unsigned)len);
        gzclose(gz);
    } else {
        FILE *f = fopen(path, "wb");
        fwrite(text, 1, len, f);
        fclose(f);
    }
    return path;
}

/* Reads text as a matrix and compares it with the dense expected matrix. */
static void expect_matrix(const char *label, const char *text, int m, int n, const double *dense)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    spb_status st = mm_read_csr(write_file("m.mtx", text), &A, NULL, msg);
    CHECK(st == SPB_OK, "%s: read failed: %s", label, msg);
    if (st != SPB_OK) return;
    CHECK(csr_check(&A, msg) == SPB_OK, "%s: %s", label, msg);
    CHECK(A.m == m && A.n == n, "%s: size %d x %d, expected %d x %d", label, (int)A.m, (int)A.n, m,
          n);
    if (A.m == m && A.n == n) {
        double *got = calloc((size_t)m * n + 1, sizeof *got);
        int nonzeros = 0;
        for (int i = 0; i < m; i++)
            for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
                got[i * n + A.col_idx[k]] = A.val[k];
        for (int k = 0; k < m * n; k++) {
            nonzeros += dense[k] != 0;
            CHECK(got[k] == dense[k], "%s: entry (%d,%d) is %g, expected %g", label, k / n, k % n,
                  got[k], dense[k]);
        }
        CHECK(A.nnz == nonzeros, "%s: nnz %d, expected %d", label, (int)A.nnz, nonzeros);
        free(got);
    }
    csr_free(&A);
}

/* A complex file read into (re, im) pairs: dense_re/dense_im its entries
 * (every entry stored is nonzero here). */
static void expect_complex(const char *label, const char *text, int n, const double *dense_re,
                           const double *dense_im)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    spb_status st = mm_read_csr(write_file("c.mtx", text), &A, NULL, msg);
    CHECK(st == SPB_OK, "%s: read failed: %s", label, msg);
    if (st != SPB_OK) return;
    CHECK(A.complex_values && A.m == n && A.n == n, "%s: a complex %d x %d, not %s %d x %d", label,
          n, n, A.complex_values ? "a complex" : "a real", (int)A.m, (int)A.n);
    CHECK(csr_check(&A, msg) == SPB_OK, "%s: %s", label, msg);
    int stored = 0;
    for (int k = 0; k < n * n; k++) stored += dense_re[k] != 0 || dense_im[k] != 0;
    CHECK(A.nnz == stored, "%s: nnz %d, expected %d", label, (int)A.nnz, stored);
    for (int i = 0; i < A.m && A.m == n; i++)
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) {
            int at = i * n + A.col_idx[k];
            CHECK(A.val[2 * k] == dense_re[at] && A.val[2 * k + 1] == dense_im[at],
                  "%s: (%d,%d) is %g%+gi, expected %g%+gi", label, i, (int)A.col_idx[k],
                  A.val[2 * k], A.val[2 * k + 1], dense_re[at], dense_im[at]);
        }
    csr_free(&A);
}

/* Complex files: each symmetry expanded with its own mirror (v, -v, or
 * v's conjugate), duplicates summed part by part, array files, vectors. */
static void test_complex(void)
{
    const double gen_re[] = {1, 0, 5, 0}, gen_im[] = {-2, 0, 0.5, 0};
    expect_complex("general, a duplicate summed",
                   "%%MatrixMarket matrix coordinate complex general\n2 2 3\n1 1 1 -1\n"
                   "2 1 5 0.5\n1 1 0 -1\n",
                   2, gen_re, gen_im);
    const double sym_re[] = {1, 2, 2, 0}, sym_im[] = {1, 3, 3, 0};
    expect_complex("symmetric: the mirror equal",
                   "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n1 1 1 1\n"
                   "2 1 2 3\n",
                   2, sym_re, sym_im);
    const double herm_re[] = {4, 2, 2, 0}, herm_im[] = {0, -3, 3, 0};
    expect_complex("hermitian: the mirror conjugated",
                   "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n1 1 4 0\n"
                   "2 1 2 3\n",
                   2, herm_re, herm_im);
    const double skew_re[] = {0, -2, 2, 0}, skew_im[] = {0, -3, 3, 0};
    expect_complex("skew-symmetric: the mirror negated",
                   "%%MatrixMarket matrix coordinate complex skew-symmetric\n2 2 1\n2 1 2 3\n", 2,
                   skew_re, skew_im);
    const double arr_re[] = {1, 0, 0, 7}, arr_im[] = {0, 2, 0, -1};
    expect_complex("array, column-major, zeros dropped",
                   "%%MatrixMarket matrix array complex general\n2 2\n1 0\n0 0\n0 2\n7 -1\n", 2,
                   arr_re, arr_im);
    const double harr_re[] = {1, 5, 5, 2}, harr_im[] = {0, -6, 6, 0};
    expect_complex("array hermitian: the lower triangle, mirrored conjugated",
                   "%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n5 6\n2 0\n", 2,
                   harr_re, harr_im);
    char msg[SPB_MSG_LEN] = "";
    const char *vec = write_file("cv.mtx", "%%MatrixMarket matrix array complex general\n2 1\n"
                                           "1 2\n3 -4\n");
    spb_index len = 0;
    spb_value *v = NULL;
    int complex_values = 0;
    CHECK(mm_read_vector(vec, &len, &v, NULL, msg) == SPB_ERR_UNSUPPORTED &&
              strstr(msg, "complex vector"),
          "a complex vector where a real one is read: '%s'", msg);
    msg[0] = '\0';
    CHECK(mm_read_vector(vec, &len, &v, &complex_values, msg) == SPB_OK && len == 2 &&
              complex_values && v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == -4,
          "a complex vector read: %s", msg);
    spb_free(v);
}

/* Reads text and expects the status and a message containing `needle`. */
static void expect_error(const char *label, const char *name, const char *text, spb_status want,
                         const char *needle)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo A;
    const char *path = write_file(name, text);
    spb_status st = mm_read(path, &A, NULL, msg);
    CHECK(st == want, "%s: status '%s', expected '%s' (%s)", label, spb_status_str(st),
          spb_status_str(want), msg);
    CHECK(strstr(msg, needle) != NULL, "%s: message '%s' lacks '%s'", label, msg, needle);
    CHECK(strstr(msg, name) != NULL, "%s: message '%s' does not name the file", label, msg);
    CHECK(A.nnz == 0 && A.row == NULL, "%s: a failed read left entries behind", label);
}

static void test_banners(void)
{
    const double general[] = {1.5, 0, -2, 0, 0, 3.25};
    expect_matrix("coordinate real general",
                  "%%MatrixMarket matrix coordinate real general\n2 3 3\n1 1 1.5\n2 3 3.25\n"
                  "1 3 -2\n",
                  2, 3, general);
    const double integer[] = {7, 0, 0, -4};
    expect_matrix("coordinate integer general",
                  "%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 7\n2 2 -4\n", 2, 2,
                  integer);
    const double pattern[] = {0, 1, 1, 0};
    expect_matrix("coordinate pattern general",
                  "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 2\n2 1\n", 2, 2,
                  pattern);
    /* symmetric: lower triangle stored, diagonal once */
    const double sym[] = {4, 2, 0, 2, 5, -1, 0, -1, 6};
    expect_matrix("coordinate real symmetric",
                  "%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 2\n2 2 5\n"
                  "3 2 -1\n3 3 6\n",
                  3, 3, sym);
    const double isym[] = {0, 3, 3, 1};
    expect_matrix("coordinate integer symmetric",
                  "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n2 1 3\n2 2 1\n", 2, 2,
                  isym);
    const double psym[] = {1, 1, 1, 0};
    expect_matrix("coordinate pattern symmetric",
                  "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n", 2, 2,
                  psym);
    const double skew[] = {0, -2, 0, 2, 0, 5, 0, -5, 0};
    expect_matrix("coordinate real skew-symmetric",
                  "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 2\n3 2 -5\n", 3,
                  3, skew);
    const double iskew[] = {0, -7, 7, 0};
    expect_matrix("coordinate integer skew-symmetric",
                  "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 7\n", 2, 2,
                  iskew);
    /* array: column-major, zeros dropped */
    const double arr[] = {1, 0, 2, 0, 3, 4};
    expect_matrix("array real general",
                  "%%MatrixMarket matrix array real general\n2 3\n1\n0\n0\n3\n2\n4\n", 2, 3, arr);
    const double iarr[] = {5, -6};
    expect_matrix("array integer general",
                  "%%MatrixMarket matrix array integer general\n2 1\n5\n-6\n", 2, 1, iarr);
    const double asym[] = {1, 2, 2, 3};
    expect_matrix("array real symmetric",
                  "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n", 2, 2, asym);
    const double askew[] = {0, -2, -3, 2, 0, -4, 3, 4, 0};
    expect_matrix("array real skew-symmetric",
                  "%%MatrixMarket matrix array real skew-symmetric\n3 3\n2\n3\n4\n", 3, 3, askew);
    const double aisym[] = {9};
    expect_matrix("array integer symmetric",
                  "%%MatrixMarket matrix array integer symmetric\n1 1\n9\n", 1, 1, aisym);
}

static void test_layout_tolerance(void)
{
    const double a[] = {1, 0, 0, 2.5e-3};
    expect_matrix("upper-case banner, CRLF, comments and blank lines",
                  "%%MATRIXMARKET Matrix Coordinate REAL General\r\n% a comment\r\n\r\n%\r\n"
                  "  2 2 2  \r\n\r\n1 1 1.0\r\n% comment between entries\r\n  2\t2\t2.5E-3\r\n\r\n",
                  2, 2, a);
    expect_matrix("last line without newline",
                  "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 0.0025", 2, 2,
                  a);
    const double dup[] = {3, 0, 0, -1};
    expect_matrix("duplicates summed, unsorted entries",
                  "%%MatrixMarket matrix coordinate real general\n2 2 4\n2 2 -1\n1 1 1\n1 1 0.5\n"
                  "1 1 1.5\n",
                  2, 2, dup);
    const double fortran[] = {1.5e3, 0, 0, -2e-2};
    expect_matrix("Fortran exponents and signs",
                  "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 +1.5D3\n2 2 -2d-2\n",
                  2, 2, fortran);
    const double empty_m[] = {0};
    expect_matrix("0 x 0 matrix", "%%MatrixMarket matrix coordinate real general\n0 0 0\n", 0, 0,
                  empty_m);
    expect_matrix("3 x 1 with no entries", "%%MatrixMarket matrix coordinate real general\n3 1 0\n",
                  3, 1, (const double[]){0, 0, 0});
    /* gzip-compressed input, read directly */
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    const char *gz = write_file("g.mtx.gz", "%%MatrixMarket matrix coordinate real general\n"
                                            "3 3 2\n1 3 2.5\n3 1 -1\n");
    CHECK(mm_read_csr(gz, &A, NULL, msg) == SPB_OK, "gzip read: %s", msg);
    CHECK(A.nnz == 2 && A.col_idx[0] == 2 && A.val[0] == 2.5 && A.val[1] == -1,
          "gzip read: wrong entries");
    csr_free(&A);
}

static void test_bad_input(void)
{
    expect_error("empty file", "empty.mtx", "", SPB_ERR_PARSE, "empty file");
    expect_error("no banner", "nobanner.mtx", "2 2 1\n1 1 1\n", SPB_ERR_PARSE, "banner");
    expect_error("wrong banner", "wrongbanner.mtx", "%%MatrixMarket matrix crd real general\n",
                 SPB_ERR_PARSE, "crd");
    expect_error("unknown field", "field.mtx",
                 "%%MatrixMarket matrix coordinate quaternion general\n", SPB_ERR_PARSE,
                 "quaternion");
    expect_error("complex entry without its imaginary part", "complex.mtx",
                 "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1\n", SPB_ERR_PARSE,
                 "entry has 3 items, expected 4");
    expect_error("complex entry with a bad imaginary part", "complex2.mtx",
                 "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 i\n",
                 SPB_ERR_PARSE, "imaginary part is not a valid number");
    expect_error("hermitian, real", "herm.mtx",
                 "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", SPB_ERR_PARSE,
                 "'hermitian' needs the complex field");
    expect_error("hermitian, both triangles", "herm2.mtx",
                 "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n2 1 1 1\n1 2 1 -1\n",
                 SPB_ERR_PARSE, "a hermitian file stores one triangle");
    expect_error("missing size line", "nosize.mtx",
                 "%%MatrixMarket matrix coordinate real general\n% only comments\n", SPB_ERR_PARSE,
                 "missing size line");
    expect_error("short size line", "shortsize.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3\n", SPB_ERR_PARSE, ":2:");
    expect_error("bad size", "badsize.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 x 1\n", SPB_ERR_PARSE,
                 "not a non-negative integer");
    /* sizes past 2^62 are named as the file writes them, not as clamped */
    expect_error("huge rows", "hugerows.mtx",
                 "%%MatrixMarket matrix coordinate real general\n9223372036854775807 1 1\n1 1 1\n",
                 SPB_ERR_TOO_LARGE, "size 9223372036854775807 x 1 exceeds");
    expect_error("huge nnz", "hugennz.mtx",
                 "%%MatrixMarket matrix coordinate real general\n1 1 99999999999999999999\n",
                 SPB_ERR_TOO_LARGE, "nnz 99999999999999999999 exceeds 2^62");
    expect_error("too few entries", "few.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 2\n",
                 SPB_ERR_PARSE, "too few entries");
    expect_error("too many entries", "many.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 2\n",
                 SPB_ERR_PARSE, ":4: too many entries");
    expect_error("row index 0", "zero.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n0 1 1\n", SPB_ERR_PARSE,
                 "indices start at 1");
    expect_error("column beyond size", "beyond.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 4 1\n",
                 SPB_ERR_PARSE, ":4: column index 4 outside 1..3");
    /* an index past 2^62 is named as written, not as the clamped 2^62 */
    expect_error("row index past 2^62", "huge_index.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n"
                 "99999999999999999999999 1 1\n",
                 SPB_ERR_PARSE, ":3: row index 99999999999999999999999 outside 1..3");
    expect_error("non-number value", "nan.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 abc\n", SPB_ERR_PARSE,
                 ":3: value is not a valid number");
    expect_error("number glued to text", "glued.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1.5x\n", SPB_ERR_PARSE,
                 "value is not a valid number");
    expect_error("nan value", "nanv.mtx",
                 "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 nan\n", SPB_ERR_PARSE,
                 "value is not a valid number");
    expect_error("overflowing value", "huge.mtx",
                 "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e400\n", SPB_ERR_PARSE,
                 "huge.mtx:3: value overflows a double");
    expect_error("overflowing array value", "hugearray.mtx",
                 "%%MatrixMarket matrix array real general\n1 1\n-1e999\n", SPB_ERR_PARSE,
                 "hugearray.mtx:3: value overflows a double");
    expect_error("extra item", "extra.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1 7\n", SPB_ERR_PARSE,
                 "more than 3 items");
    expect_error("missing value", "novalue.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1\n2 2 1\n",
                 SPB_ERR_PARSE, ":3: entry has 2 items, expected 3");
    expect_error("file ends mid-line", "truncated.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2", SPB_ERR_PARSE,
                 "file ends mid-line");
    expect_error("rows beyond 32 bits", "bigm.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3000000000 3 1\n1 1 1\n",
                 SPB_ERR_TOO_LARGE, "2147483647");
    /* more than 2^31 - 1 entries are read (on 64-bit row offsets): this
     * header is refused only because its file cannot hold them */
    expect_error("nnz beyond 32 bits, file too short", "bignnz.mtx",
                 "%%MatrixMarket matrix coordinate real general\n3 3 2147483648\n1 1 1\n",
                 SPB_ERR_PARSE, "announces 2147483648 entries");
    expect_error("symmetric must be square", "symrect.mtx",
                 "%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n", SPB_ERR_PARSE,
                 "square");
    expect_error("array too few values", "arrfew.mtx",
                 "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", SPB_ERR_PARSE,
                 "too few");
    expect_error("array too many values", "arrmany.mtx",
                 "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", SPB_ERR_PARSE,
                 "too many values");
    expect_error("array pattern", "arrpat.mtx",
                 "%%MatrixMarket matrix array pattern general\n1 1\n", SPB_ERR_PARSE,
                 "array pattern");
    expect_error("header claims more entries than the file holds", "claims.mtx",
                 "%%MatrixMarket matrix coordinate real general\n1000 1000 1000000\n1 1 1\n",
                 SPB_ERR_PARSE, "announces 1000000 entries, but only 6 bytes follow");
    {
        /* a gzip file (size unknown up front) claiming ~2^31 entries: refused
         * for memory where the machine is too small, else when they are missing */
        char msg[SPB_MSG_LEN] = "";
        spb_coo A;
        const char *p = write_file("claims.mtx.gz", "%%MatrixMarket matrix coordinate real "
                                                    "symmetric\n2000000000 2000000000 "
                                                    "2000000000\n1 1 1\n");
        spb_status st = mm_read(p, &A, NULL, msg);
        CHECK(st == SPB_ERR_TOO_LARGE || st == SPB_ERR_PARSE, "huge gzip claim: %s", msg);
        CHECK(strstr(msg, "needs about") || strstr(msg, "too few entries"), "message: %s", msg);
    }
    /* a gzip stream cut short */
    char path[512];
    snprintf(path, sizeof path, "%s/cut.mtx.gz", tmpdir);
    {
        char text[4096] = "%%MatrixMarket matrix coordinate real general\n100 100 100\n";
        for (int k = 1; k <= 100; k++) spb_appendf(text, sizeof text, "%d %d %d.25\n", k, k, k);
        write_file("full.mtx.gz", text);
        char full[512];
        snprintf(full, sizeof full, "%s/full.mtx.gz", tmpdir);
        FILE *f = fopen(full, "rb");
        char bytes[4096];
        size_t len = fread(bytes, 1, sizeof bytes, f);
        fclose(f);
        f = fopen(path, "wb");
        fwrite(bytes, 1, len / 2, f);
        fclose(f);
        char msg[SPB_MSG_LEN] = "";
        spb_coo A;
        spb_status st = mm_read(path, &A, NULL, msg);
        CHECK(st != SPB_OK, "truncated gzip was accepted");
        CHECK(strstr(msg, "cut.mtx.gz") != NULL, "truncated gzip message: %s", msg);
    }
    char msg[SPB_MSG_LEN] = "";
    spb_coo A;
    snprintf(path, sizeof path, "%s/does-not-exist.mtx", tmpdir);
    CHECK(mm_read(path, &A, NULL, msg) == SPB_ERR_IO, "missing file: %s", msg);
    CHECK(strstr(msg, "does-not-exist.mtx") != NULL, "missing file message: %s", msg);
}

/* Random decimal strings of many shapes must read back exactly as strtod
 * reads them: the fast paths may never change a bit. */
static void test_number_conversion(unsigned long long seed)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    enum { COUNT = 20000 };
    size_t cap = (size_t)COUNT * 48 + 128;
    char *text = malloc(cap);
    char(*tokens)[40] = malloc(COUNT * sizeof *tokens);
    size_t len =
        (size_t)snprintf(text, cap, "%%%%MatrixMarket matrix array real general\n%d 1\n", COUNT);
    for (int k = 0; k < COUNT; k++) {
        int kind = (int)spb_rng_below(&rng, 4);
        double v = (spb_rng_uniform(&rng) - 0.5) * pow(10.0, (double)spb_rng_below(&rng, 60) - 30);
        if (kind == 0)
            snprintf(tokens[k], sizeof tokens[k], "%.17g", v);
        else if (kind == 1)
            snprintf(tokens[k], sizeof tokens[k], "%.*e", (int)spb_rng_below(&rng, 20), v);
        else if (kind == 2)
            snprintf(tokens[k], sizeof tokens[k], "%.*f", (int)spb_rng_below(&rng, 25), v);
        else
            snprintf(tokens[k], sizeof tokens[k], "%lld",
                     (long long)(spb_rng_next(&rng) >> spb_rng_below(&rng, 64)));
        len += (size_t)snprintf(text + len, cap - len, "%s\n", tokens[k]);
    }
    char msg[SPB_MSG_LEN] = "";
    spb_index n;
    spb_value *values;
    spb_status st = mm_read_vector(write_file("numbers.mtx", text), &n, &values, NULL, msg);
    CHECK(st == SPB_OK && n == COUNT, "number file: %s", msg);
    if (st == SPB_OK) {
        int mismatches = 0;
        for (int k = 0; k < COUNT; k++) {
            double want = strtod(tokens[k], NULL);
            if (memcmp(&want, &values[k], sizeof want) != 0 && mismatches++ < 5)
                CHECK(0, "'%s' read as %.17g, strtod gives %.17g", tokens[k], values[k], want);
        }
        CHECK(mismatches == 0, "%d of %d numbers differ from strtod", mismatches, COUNT);
        free(values);
    }
    free(text);
    free(tokens);
}

static void test_writer_round_trip(unsigned long long seed)
{
    spb_rng rng;
    spb_rng_seed(&rng, seed + 1);
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    coo_alloc(&coo, 37, 23, 200, msg);
    for (int k = 0; k < coo.nnz; k++) {
        coo.row[k] = (spb_index)spb_rng_below(&rng, 37);
        coo.col[k] = (spb_index)spb_rng_below(&rng, 23);
        coo.val[k] = spb_rng_value(&rng) * pow(10.0, (double)spb_rng_below(&rng, 40) - 20);
    }
    spb_csr A, B, W;
    CHECK(csr_from_coo(&coo, &A, msg) == SPB_OK, "%s", msg);
    CHECK(csr_from_coo_offsets(&coo, 1, &W, msg) == SPB_OK, "%s", msg);
    for (int gz = 0; gz < 3; gz++) { /* 2: plain, written from 64-bit row offsets */
        char path[512];
        snprintf(path, sizeof path, "%s/round%s", tmpdir, gz == 1 ? ".mtx.gz" : ".mtx");
        CHECK(mm_write_csr(path, gz == 2 ? &W : &A, "a comment\nover two lines", msg) == SPB_OK,
              "%s", msg);
        CHECK(mm_read_csr(path, &B, NULL, msg) == SPB_OK, "%s", msg);
        int same = A.m == B.m && A.n == B.n && A.nnz == B.nnz &&
                   !memcmp(A.row_ptr, B.row_ptr, sizeof *A.row_ptr * (size_t)(A.m + 1)) &&
                   !memcmp(A.col_idx, B.col_idx, sizeof *A.col_idx * (size_t)A.nnz) &&
                   !memcmp(A.val, B.val, sizeof *A.val * (size_t)A.nnz);
        CHECK(same, "matrix written and read back (%s) differs",
              gz == 1 ? "gzip"
              : gz    ? "from wide offsets"
                      : "plain");
        csr_free(&B);
    }
    csr_free(&W);
    spb_value y[5] = {1.0 / 3, -2e-300, 0.0, 12345.678, -1e300};
    char path[512];
    snprintf(path, sizeof path, "%s/vec.mtx", tmpdir);
    CHECK(mm_write_vector(path, 5, y, 0, NULL, msg) == SPB_OK, "%s", msg);
    spb_index n;
    spb_value *back;
    CHECK(mm_read_vector(path, &n, &back, NULL, msg) == SPB_OK && n == 5, "%s", msg);
    if (n == 5) CHECK(!memcmp(back, y, sizeof y), "vector written and read back differs");
    free(back);
    snprintf(path, sizeof path, "%s/no-such-dir/out.mtx", tmpdir);
    CHECK(mm_write_vector(path, 5, y, 0, NULL, msg) == SPB_ERR_IO,
          "write into a missing directory");
    csr_free(&A);
    coo_free(&coo);
}

/* Appends raw bytes to a file written by write_file. */
static void append_bytes(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "ab");
    fwrite(bytes, 1, len, f);
    fclose(f);
}

/* gzip members may follow one another (gzip -c a b > c); anything else after
 * the last one is refused, not skipped as zlib's gzread does. */
static void test_gzip_members(void)
{
    const char *head = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.5\n";
    char path[512];
    snprintf(path, sizeof path, "%s", write_file("two.mtx.gz", head));
    char tail_path[512];
    snprintf(tail_path, sizeof tail_path, "%s", write_file("tail.mtx.gz", "2 2 -4\n"));
    FILE *f = fopen(tail_path, "rb");
    char member[512];
    size_t len = fread(member, 1, sizeof member, f);
    fclose(f);
    append_bytes(path, member, len);
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    CHECK(mm_read_csr(path, &A, NULL, msg) == SPB_OK, "two gzip members: %s", msg);
    if (A.nnz == 2) CHECK(A.val[1] == -4.0, "second member's entry read: %g", A.val[1]);
    CHECK(A.nnz == 2, "two gzip members give 2 entries, not %lld", (long long)A.nnz);
    csr_free(&A);
    const char *garbage[] = {"junk after the stream\n", "\x1f", "\x1f\x8bnot deflate"};
    for (int k = 0; k < 3; k++) {
        snprintf(path, sizeof path, "%s", write_file("garbage.mtx.gz", head));
        append_bytes(path, member, len);
        append_bytes(path, garbage[k], strlen(garbage[k]));
        CHECK(mm_read_csr(path, &A, NULL, msg) != SPB_OK, "trailing bytes %d accepted", k);
        CHECK(strstr(msg, "garbage.mtx.gz") && strstr(msg, "gzip"), "trailing bytes %d: %s", k,
              msg);
    }
    snprintf(path, sizeof path, "%s", write_file("garbage.mtx", head));
    append_bytes(path, "2 2 -4\n", 7);
    CHECK(mm_read_csr(path, &A, NULL, msg) == SPB_OK, "plain file: %s", msg);
    csr_free(&A);
}

int main(void)
{
    unsigned long long seed = check_seed();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/spb_test_mm_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    test_banners();
    test_layout_tolerance();
    test_bad_input();
    test_complex();
    test_number_conversion(seed);
    test_writer_round_trip(seed);
    test_gzip_members();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return check_done();
}
