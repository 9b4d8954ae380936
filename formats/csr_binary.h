/* csr_binary.h — CSR in a binary file: the parsed-matrix cache. The file
 * carries a fingerprint of its source (size, modification time, checksum of
 * the first bytes) and a checksum of its arrays, so a stale or corrupt file
 * is detected and never trusted. */
#ifndef SPB_CSR_BINARY_H
#define SPB_CSR_BINARY_H

#include "csr.h"

typedef struct {
    uint64_t size;     /* source file size in bytes */
    int64_t mtime_sec; /* source modification time */
    int64_t mtime_nsec;
    uint32_t head_crc; /* CRC-32 of the source's first SPB_FINGERPRINT_HEAD bytes */
} spb_fingerprint;

#define SPB_FINGERPRINT_HEAD 65536

/* Fingerprints a source file. */
spb_status fingerprint_file(const char *path, spb_fingerprint *fp, char *msg);

/* Writes A with the source's fingerprint; the file appears whole or not at
 * all (written to a temporary name, then renamed). */
spb_status csr_write_binary(const char *path, const spb_csr *A, const spb_fingerprint *fp,
                            char *msg);

/* Reads a binary CSR whose fingerprint must equal *expected. Returns
 * SPB_ERR_INVALID with the reason when the file is stale, truncated or
 * corrupt (the caller then rebuilds it), SPB_ERR_IO when it is missing. */
spb_status csr_read_binary(const char *path, const spb_fingerprint *expected, spb_csr *A,
                           char *msg);

#endif
