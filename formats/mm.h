/* mm.h — Matrix Market reader and writer (.mtx, and .mtx.gz through zlib). */
#ifndef SPB_MM_H
#define SPB_MM_H

#include "coo.h"
#include "csr.h"

/* What the banner said, as read. */
typedef struct {
    int is_array;    /* 'array' (dense, column-major) rather than 'coordinate' */
    int field;       /* MM_REAL, MM_INTEGER, MM_PATTERN */
    int symmetry;    /* MM_GENERAL, MM_SYMMETRIC, MM_SKEW */
    int64_t entries; /* entry lines read */
    double bytes;    /* uncompressed bytes read */
} spb_mm_info;

enum { MM_REAL, MM_INTEGER, MM_PATTERN };
enum { MM_GENERAL, MM_SYMMETRIC, MM_SKEW };

/* Reads a matrix file into COO: symmetric and skew-symmetric expanded
 * (diagonal once, skew mirror negated), pattern entries set to 1.0, array
 * files keep their nonzeros. Duplicates stay (csr_from_coo sums them).
 * info may be NULL. On error A is left empty and msg names file and line. */
spb_status mm_read(const char *path, spb_coo *A, spb_mm_info *info, char *msg);

/* mm_read followed by csr_from_coo. */
spb_status mm_read_csr(const char *path, spb_csr *A, spb_mm_info *info, char *msg);

/* Reads a dense vector: an 'array real general' file with one column (or a
 * coordinate file with one column, missing entries zero). */
spb_status mm_read_vector(const char *path, spb_index *len, spb_value **values, char *msg);

/* Writers: .gz suffix selects gzip. Values printed with %.17g (exact). */
spb_status mm_write_csr(const char *path, const spb_csr *A, const char *comment, char *msg);
spb_status mm_write_vector(const char *path, spb_index len, const spb_value *values,
                           const char *comment, char *msg);

#endif
