/* cmd_info.c — spbench info: statistics, parse speed and cache speed. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/cli/cli.h"
#include "bench/inputs/gen.h"
#include "core/timing.h"
#include "formats/hll.h"

/* Fills the cache for source (if needed) and times a load from it. */
static void info_cache_load(const char *source, const char *cache_dir, double parse_s)
{
    char msg[SPB_MSG_LEN] = "";
    spb_cache_note note;
    spb_csr A;
    if (mkdir(cache_dir, 0777) != 0 && errno != EEXIST) {
        printf("  cache           %s: cannot create: %s\n", cache_dir, strerror(errno));
        return;
    }
    spb_status st = source_load_cached(source, cache_dir, &A, &note, msg);
    csr_free(&A);
    double start = timing_now();
    if (st == SPB_OK) st = source_load_cached(source, cache_dir, &A, &note, msg);
    double load_s = timing_now() - start;
    csr_free(&A);
    if (st != SPB_OK || note.outcome != SPB_CACHE_HIT)
        printf("  cache           not used: %s\n", st != SPB_OK ? msg : note.text);
    else
        printf("  cache load      %.4f s (checked), %.1fx faster than parse + convert\n", load_s,
               load_s > 0 ? parse_s / load_s : 0.0);
}

/* Sizes, row lengths, HLL padding and storage bytes. */
static void info_print(const char *source, const spb_csr *A, const spb_hll *H, spb_index hack_size)
{
    spb_csr_stats s;
    csr_stats(A, &s);
    char name[256];
    source_name(source, name, sizeof name);
    printf("%s\n", name);
    printf("  source          %s\n", source);
    printf("  size            %d x %d, nnz %lld (after expansion and duplicate summing)\n",
           (int)s.rows, (int)s.cols, (long long)s.nnz);
    printf("  row length      min %d, mean %.2f, max %d, std %.2f; empty rows %d\n", (int)s.row_min,
           s.row_mean, (int)s.row_max, s.row_std, (int)s.empty_rows);
    printf("  HLL (H=%d)      stored %d entries, padding ratio %.3f\n", (int)hack_size,
           (int)hll_stored(H), A->nnz ? (double)hll_stored(H) / A->nnz : 1.0);
    printf("  bytes           CSR %.0f, HLL %.0f\n", csr_bytes(A), hll_bytes(H));
}

/* One matrix: load (timed), statistics, HLL padding, parse speed; 0 on a
 * failure (reported on stderr). */
static int info_matrix(const char *source, spb_index hack_size, const char *cache_dir)
{
    char msg[SPB_MSG_LEN] = "";
    spb_coo coo = {0};
    spb_csr A = {0};
    spb_hll H = {0};
    spb_mm_info info = {0};
    double parse_s = 0, convert_s = 0, start = timing_now();
    spb_status st;
    if (gen_is_spec(source)) {
        st = gen_matrix(source, &A, msg);
        convert_s = timing_now() - start;
    } else {
        st = mm_read(source, &coo, &info, msg);
        parse_s = timing_now() - start;
        if (st == SPB_OK) {
            start = timing_now();
            st = csr_from_coo(&coo, &A, msg);
            convert_s = timing_now() - start;
        }
        coo_free(&coo);
    }
    if (st == SPB_OK) st = csr_check(&A, msg);
    if (st == SPB_OK) st = hll_from_csr(&A, hack_size, HLL_ROW_MAJOR, &H, msg);
    if (st != SPB_OK) {
        fprintf(stderr, "spbench: %s\n", msg);
        csr_free(&A);
        return 0;
    }
    info_print(source, &A, &H, hack_size);
    if (!gen_is_spec(source)) {
        static const char *const fields[] = {"real", "integer", "pattern", "complex"};
        static const char *const symmetries[] = {"general", "symmetric", "skew-symmetric",
                                                 "hermitian"};
        printf("  file            %s %s %s, %lld entry lines\n",
               info.is_array ? "array" : "coordinate", fields[info.field],
               symmetries[info.symmetry], (long long)info.entries);
        printf("  parse           %.3f s for %.1f MB of text: %.1f MB/s (one core)\n", parse_s,
               info.bytes / 1e6, parse_s > 0 ? info.bytes / 1e6 / parse_s : 0.0);
        printf("  COO -> CSR      %.3f s\n", convert_s);
        if (cache_dir) info_cache_load(source, cache_dir, parse_s + convert_s);
    } else {
        printf("  generate        %.3f s\n", convert_s);
    }
    csr_free(&A);
    hll_free(&H);
    return 1;
}

int cmd_info(int argc, char **argv)
{
    spb_index hack_size = HLL_DEFAULT_HACK_SIZE;
    const char *cache_dir = NULL;
    char **items = spb_malloc((size_t)argc, sizeof *items);
    int count = 0;
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--hack-size", &value))
            hack_size = (spb_index)parse_long("--hack-size", value, 1, SPB_INDEX_MAX);
        else if (option_value(argc, argv, &i, "--cache", &value))
            cache_dir = value;
        else if (argv[i][0] == '-' && argv[i][1] == '-')
            unknown_option(argv[i]);
        else
            items[count++] = argv[i];
    }
    spb_source_list list = expand_or_exit(count, items);
    spb_free(items);
    int failures = 0;
    for (int k = 0; k < list.count; k++)
        failures += !info_matrix(list.items[k], hack_size, cache_dir);
    sources_free(&list);
    return failures ? EXIT_USAGE : 0; /* a matrix that cannot be read: an input unusable */
}
