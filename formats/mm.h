/* mm.h — Matrix Market reader and writer (.mtx, and .mtx.gz through zlib). */
#ifndef SPB_MM_H
#define SPB_MM_H

#include "coo.h"
#include "csr.h"

/* What the banner said, as read. */
typedef struct {
    int is_array;    /* 'array' (dense, column-major) rather than 'coordinate' */
    int field;       /* MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX */
    int symmetry;    /* MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN */
    int64_t entries; /* entry lines read */
    double bytes;    /* uncompressed bytes read */
} spb_mm_info;

enum { MM_REAL, MM_INTEGER, MM_PATTERN, MM_COMPLEX };
enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW, MM_HERMITIAN };

/* Reads a matrix file into COO: symmetric, skew-symmetric and hermitian
 * expanded (diagonal once; the mirror of v is v, -v, or v's conjugate),
 * pattern entries set to 1.0, complex values as (re, im) pairs
 * (A->complex_values), array files keep their nonzeros. Duplicates stay (csr_from_coo sums them).
 * info may be NULL. On error A is left empty and msg names file and line. */
spb_status mm_read(const char *path, spb_coo *A, spb_mm_info *info, char *msg);

/* mm_read followed by csr_from_coo. */
spb_status mm_read_csr(const char *path, spb_csr *A, spb_mm_info *info, char *msg);

/* Reads a dense vector: an 'array real general' file with one column (or a
 * coordinate file with one column, missing entries zero). A complex one
 * ((re, im) pairs in values) when complex_values is not NULL, which says
 * whether it was; else refused. */
spb_status mm_read_vector(const char *path, spb_index *len, spb_value **values, int *complex_values,
                          char *msg);

/* Writers: .gz suffix selects gzip. Values printed with %.17g (exact). */
spb_status mm_write_csr(const char *path, const spb_csr *A, const char *comment, char *msg);
spb_status mm_write_vector(const char *path, spb_index len, const spb_value *values,
                           int complex_values, const char *comment, char *msg);

#endif
