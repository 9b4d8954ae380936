/* fuzz_mm.c — libFuzzer harness for the Matrix Market reader, plain and
 * gzip. The first input byte picks the wrapping: odd = the rest is
 * gzip-compressed before reading (so mutations reach the text behind zlib),
 * even = the rest is read as it is (raw text, or raw and broken gzip).
 * Whatever the reader accepts must convert to a CSR and an HLL that pass
 * their checks; anything else must be refused with a message. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/hll.h"
#include "formats/mm.h"

#define FUZZ_MAX_ROWS (1 << 22)

static char path[64];

/* The input file goes when the process ends normally (a replay child ends
 * after one input): a crash keeps it, to be looked at. */
static void remove_input(void) { remove(path); }

static void write_input(const uint8_t *data, size_t size)
{
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/spb_fuzz_%ld.mtx", (long)getpid());
        atexit(remove_input);
    }
    if (size > 0 && (data[0] & 1)) {
        gzFile gz = gzopen(path, "wb1");
        if (!gz) abort();
        if (size > 1) gzwrite(gz, data + 1, (unsigned)(size - 1));
        gzclose(gz);
    } else {
        FILE *f = fopen(path, "wb");
        if (!f) abort();
        if (size > 1) fwrite(data + 1, 1, size - 1, f);
        fclose(f);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_input(data, size);
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo;
    spb_status st = mm_read(path, &coo, NULL, msg);
    if (st != SPB_OK) {
        if (msg[0] == '\0') abort();     /* every refusal says why */
        if (coo.row || coo.nnz) abort(); /* and leaves nothing behind */
        return 0;
    }
    /* The conversions allocate per row (row_ptr: 4 bytes a row): a header
     * of 2^31 rows and two entries is a valid file that needs 8 GiB there,
     * past the fuzzer's memory limit. The reader has been exercised; the
     * conversions are checked on files of up to FUZZ_MAX_ROWS rows. */
    if (coo.m > FUZZ_MAX_ROWS) {
        coo_free(&coo);
        return 0;
    }
    spb_csr A;
    st = csr_from_coo(&coo, &A, msg);
    coo_free(&coo);
    if (st == SPB_OK) {
        if (csr_check(&A, msg) != SPB_OK) abort();
        spb_hll H;
        if (hll_from_csr(&A, 7, HLL_COL_MAJOR, &H, msg) == SPB_OK) {
            if (hll_check(&H, msg) != SPB_OK) abort();
            hll_free(&H);
        }
        csr_free(&A);
    }
    return 0;
}
