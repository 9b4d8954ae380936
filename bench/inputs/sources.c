/* sources.c — expanding and loading matrix arguments (see sources.h). */
#include "bench/inputs/sources.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/inputs/gen.h"
#include "formats/csr_binary.h"

static int has_suffix(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

/* The endings of a matrix file (the reader takes each compression by its
 * first bytes; the name decides only what a folder holds). */
static const char *const matrix_suffixes[] = {".mtx.gz", ".mtx.bz2", ".mtx.xz", ".mtx"};

/* The length of name's matrix ending, or 0. */
static size_t matrix_suffix_len(const char *name)
{
    for (size_t k = 0; k < sizeof matrix_suffixes / sizeof matrix_suffixes[0]; k++)
        if (has_suffix(name, matrix_suffixes[k])) return strlen(matrix_suffixes[k]);
    return 0;
}

static int is_matrix_file_name(const char *name) { return matrix_suffix_len(name) > 0; }

static spb_status push(spb_source_list *list, const char *text, size_t len, char *msg)
{
    if (!spb_grow((void **)&list->items, &list->cap, list->count, 16, sizeof *list->items))
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
    char *copy = spb_malloc(len + 1, 1);
    if (!copy) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
    memcpy(copy, text, len);
    copy[len] = '\0';
    list->items[list->count++] = copy;
    return SPB_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static spb_status expand_directory(const char *dir, spb_source_list *list, char *msg)
{
    DIR *d = opendir(dir);
    if (!d) return spb_fail(msg, SPB_ERR_IO, "%s: cannot open directory: %s", dir, strerror(errno));
    int first = list->count;
    spb_status st = SPB_OK;
    struct dirent *e;
    while (st == SPB_OK && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !is_matrix_file_name(e->d_name)) continue;
        char path[SPB_PATH_LEN];
        int len = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        int too_long = len < 0 || (size_t)len >= sizeof path;
        /* a FIFO or device named like a matrix would block or never end;
         * a dangling or looping link cannot be read; a path past the
         * system's length cannot be opened: counted, not read */
        struct stat sb;
        if (too_long || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
            if (list->left_out++ == 0)
                snprintf(list->left_out_example, sizeof list->left_out_example, "%.200s (%s)", path,
                         too_long          ? "a path too long to open"
                         : errno == ELOOP  ? "a link loop"
                         : errno == ENOENT ? "a dangling link"
                                           : "not a regular file");
            errno = 0;
            continue;
        }
        st = push(list, path, (size_t)len, msg);
    }
    closedir(d);
    if (st == SPB_OK && list->count > first) /* items is NULL when nothing was found */
        qsort(list->items + first, (size_t)(list->count - first), sizeof *list->items, cmp_str);
    return st;
}

static spb_status expand_list_file(const char *path, spb_source_list *list, char *msg)
{
    FILE *f = fopen(path, "r");
    if (!f) return spb_fail(msg, SPB_ERR_IO, "%s: cannot open list: %s", path, strerror(errno));
    char line[SPB_PATH_LEN];
    spb_status st = SPB_OK;
    long number = 0;
    while (st == SPB_OK && fgets(line, sizeof line, f)) {
        number++;
        size_t len = strcspn(line, "\r\n");
        if (line[len] == '\0' && len == sizeof line - 1 && !feof(f)) { /* cut by fgets */
            st = spb_fail(msg, SPB_ERR_INVALID,
                          "%s:%ld: a line longer than %d characters (no path is that long)", path,
                          number, SPB_PATH_LEN - 1);
            break;
        }
        char *start = line;
        while (*start == ' ' || *start == '\t') start++, len--;
        while (len > 0 && (start[len - 1] == ' ' || start[len - 1] == '\t')) len--;
        if (len == 0 || start[0] == '#') continue;
        st = push(list, start, len, msg);
    }
    fclose(f);
    return st;
}

/* The item's name from its last `parts` path components, without
 * its matrix ending (a spec: itself); 1 when that is the whole item. */
static int name_from_parts(const char *item, int parts, char *name, size_t size)
{
    const char *start = item + strlen(item);
    for (int found = 0; !gen_is_spec(item) && start > item; start--)
        if (start[-1] == '/' && ++found == parts) break;
    if (gen_is_spec(item)) start = item;
    size_t len = strlen(start);
    len -= matrix_suffix_len(start);
    if (len >= size) len = size - 1;
    memcpy(name, start, len);
    name[len] = '\0';
    spb_clean_name(name); /* a name is data: the same text in every output */
    return start == item;
}

/* What makes two items one matrix: a file that can be stat'ed is its device
 * and inode, anything else (a spec, a missing file) its text. */
typedef struct {
    int by_file;
    dev_t dev;
    ino_t ino;
    const char *text;
    int index;
} source_key;

static int cmp_source_key(const void *pa, const void *pb)
{
    const source_key *a = pa, *b = pb;
    if (a->by_file != b->by_file) return a->by_file - b->by_file;
    int c = a->by_file ? (a->dev > b->dev) - (a->dev < b->dev) : strcmp(a->text, b->text);
    if (c == 0 && a->by_file) c = (a->ino > b->ino) - (a->ino < b->ino);
    return c != 0 ? c : a->index - b->index;
}

/* Drops repeated sources, the first kept in list order: one stat per item
 * and a sort (a list of 10,000 files once took minutes, pair by pair). */
static spb_status drop_repeats(spb_source_list *list, char *msg)
{
    source_key *keys = spb_malloc((size_t)list->count, sizeof *keys);
    unsigned char *repeated = spb_calloc((size_t)list->count, 1);
    if (!keys || !repeated) {
        spb_free(keys);
        spb_free(repeated);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
    }
    for (int k = 0; k < list->count; k++) {
        struct stat sb;
        const char *item = list->items[k];
        keys[k] = (source_key){0, 0, 0, item, k};
        if (!gen_is_spec(item) && stat(item, &sb) == 0)
            keys[k] = (source_key){1, sb.st_dev, sb.st_ino, item, k};
    }
    qsort(keys, (size_t)list->count, sizeof *keys, cmp_source_key);
    for (int k = 1; k < list->count; k++) {
        source_key a = keys[k - 1], b = keys[k];
        a.index = b.index = 0;
        repeated[keys[k].index] = cmp_source_key(&a, &b) == 0;
    }
    int kept = 0;
    for (int k = 0; k < list->count; k++)
        if (repeated[k])
            spb_free(list->items[k]);
        else
            list->items[kept++] = list->items[k];
    list->count = kept;
    spb_free(keys);
    spb_free(repeated);
    return SPB_OK;
}

static const spb_source_list *names_sorted; /* cmp_by_name's list (qsort has no context) */

static int cmp_by_name(const void *pa, const void *pb)
{
    int a = *(const int *)pa, b = *(const int *)pb;
    int c = strcmp(names_sorted->names[a], names_sorted->names[b]);
    return c != 0 ? c : a - b;
}

/* Lengthens the names that clash, group by group, but never a pinned one;
 * 1 when any changed. */
static int lengthen_clashes(spb_source_list *list, int *order, int *parts, int *whole,
                            const unsigned char *pinned)
{
    int kept = list->count, changed = 0;
    for (int k = 0; k < kept; k++) order[k] = k;
    names_sorted = list;
    qsort(order, (size_t)kept, sizeof *order, cmp_by_name);
    for (int first = 0, end; first < kept; first = end) {
        int wholes = 0;
        for (end = first;
             end < kept && strcmp(list->names[order[end]], list->names[order[first]]) == 0; end++)
            wholes += whole[order[end]];
        if (end - first < 2) continue;
        for (int g = first; g < end; g++) {
            int i = order[g];
            if (pinned && pinned[i]) continue;
            changed = 1;
            char given[SPB_NAME_LEN]; /* the path as given, cleaned */
            snprintf(given, sizeof given, "%s", list->items[i]);
            spb_clean_name(given);
            if (whole[i] && wholes > 1 && strcmp(list->names[i], given) != 0) {
                /* m.mtx and m.mtx.gz: the paths as given */
                snprintf(list->names[i], SPB_NAME_LEN, "%s", given);
            } else if (whole[i] && wholes > 1) { /* "a\nb" and "a?b" cleaned alike */
                spb_appendf(list->names[i], SPB_NAME_LEN, "#%d", g - first + 1);
            } else if (!whole[i])
                whole[i] =
                    name_from_parts(list->items[i], ++parts[i], list->names[i], SPB_NAME_LEN);
        }
    }
    return changed;
}

/* Names each item: its base name, or as many trailing path components as
 * tell it from the others with that base name ("a/m", "b/m"); an item with
 * a pinned name (not NULL) keeps it. */
static spb_status name_items(spb_source_list *list, const char *const *pinned_names, char *msg)
{
    int kept = list->count;
    if (kept == 0) return SPB_OK;
    if (!list->names) list->names = spb_calloc((size_t)kept, sizeof *list->names);
    int *parts = spb_calloc(3 * (size_t)kept, sizeof *parts), *whole = parts + kept;
    int ok = list->names && parts;
    unsigned char *pinned = pinned_names ? spb_calloc((size_t)kept, 1) : NULL;
    ok = ok && (pinned || !pinned_names);
    for (int k = 0; k < kept && ok; k++)
        ok = list->names[k] || (list->names[k] = spb_malloc(SPB_NAME_LEN, 1)) != NULL;
    if (!ok) {
        spb_free(parts);
        spb_free(pinned);
        return spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
    }
    for (int k = 0; k < kept; k++) {
        parts[k] = 1;
        whole[k] = name_from_parts(list->items[k], 1, list->names[k], SPB_NAME_LEN);
        if (pinned && pinned_names[k]) {
            snprintf(list->names[k], SPB_NAME_LEN, "%s", pinned_names[k]);
            pinned[k] = 1;
        }
    }
    /* bounded: a name is cut at SPB_NAME_LEN */
    for (int rounds = 0;
         rounds < 4096 && lengthen_clashes(list, whole + kept, parts, whole, pinned); rounds++)
        continue;
    spb_free(parts);
    spb_free(pinned);
    return SPB_OK;
}

int source_can_be_named(const char *item, const char *name)
{
    char candidate[SPB_NAME_LEN];
    for (int parts = 1; parts < 4096; parts++) {
        int whole = name_from_parts(item, parts, candidate, sizeof candidate);
        if (strcmp(candidate, name) == 0) return 1;
        if (whole) return strcmp(item, name) == 0;
    }
    return 0;
}

spb_status sources_pin_names(spb_source_list *list, const char *const *pinned, char *msg)
{
    return name_items(list, pinned, msg);
}

spb_status sources_expand(int argc, char **argv, spb_source_list *list, char *msg)
{
    memset(list, 0, sizeof *list);
    spb_status st = SPB_OK;
    for (int k = 0; k < argc && st == SPB_OK; k++) {
        const char *arg = argv[k];
        struct stat sb;
        if (arg[0] == '@')
            st = expand_list_file(arg + 1, list, msg);
        else if (!gen_is_spec(arg) && stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
            st = expand_directory(arg, list, msg);
        else
            st = push(list, arg, strlen(arg), msg);
    }
    if (st == SPB_OK) st = drop_repeats(list, msg);
    if (st == SPB_OK) st = name_items(list, NULL, msg);
    if (st != SPB_OK) sources_free(list);
    return st;
}

spb_status sources_weak(spb_source_list *list, const int *ranks, int rank_counts, char *msg)
{
    spb_source_list grown = {0};
    size_t total = (size_t)list->count * (size_t)rank_counts;
    grown.items = spb_calloc(total, sizeof *grown.items);
    grown.names = spb_calloc(total, sizeof *grown.names);
    grown.ranks = spb_calloc(total, sizeof *grown.ranks);
    spb_status st = grown.items && grown.names && grown.ranks
                        ? SPB_OK
                        : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
    for (int k = 0; k < list->count && st == SPB_OK; k++)
        for (int r = 0; r < rank_counts && st == SPB_OK; r++) {
            char spec[SPB_NAME_LEN];
            st = gen_spec_for_ranks(list->items[k], ranks[r], spec, sizeof spec, msg);
            grown.items[grown.count] = spb_malloc(SPB_NAME_LEN, 1);
            grown.names[grown.count] = spb_malloc(SPB_NAME_LEN, 1);
            grown.ranks[grown.count] = ranks[r];
            if (st == SPB_OK && (!grown.items[grown.count] || !grown.names[grown.count]))
                st = spb_fail(msg, SPB_ERR_NOMEM, "out of memory for the matrix list");
            if (st == SPB_OK) {
                snprintf(grown.items[grown.count], SPB_NAME_LEN, "%s", spec);
                snprintf(grown.names[grown.count], SPB_NAME_LEN, "%s/rank", list->names[k]);
            }
            grown.count++;
        }
    sources_free(st == SPB_OK ? list : &grown);
    if (st == SPB_OK) *list = grown;
    return st;
}

void sources_free(spb_source_list *list)
{
    for (int k = 0; k < list->count; k++) {
        spb_free(list->items[k]);
        if (list->names) spb_free(list->names[k]);
    }
    spb_free(list->items);
    spb_free(list->names);
    spb_free(list->ranks);
    memset(list, 0, sizeof *list);
}

/* SPB_WIDE_OFFSETS=1 stores every matrix on 64-bit row offsets, as one of
 * more than 2^31 - 1 entries is: the tests run that path on small ones. */
static spb_status offsets_as_asked(spb_csr *A, char *msg)
{
    const char *wide = getenv("SPB_WIDE_OFFSETS");
    return wide && strcmp(wide, "1") == 0 ? csr_widen(A, msg) : SPB_OK;
}

spb_status source_load(const char *item, spb_csr *A, spb_mm_info *info, char *msg)
{
    memset(A, 0, sizeof *A); /* empty, so a caller may free it on any return */
    if (info) memset(info, 0, sizeof *info);
    spb_status st = gen_is_spec(item) ? gen_matrix(item, A, msg) : mm_read_csr(item, A, info, msg);
    if (st == SPB_OK) st = offsets_as_asked(A, msg);
    if (st == SPB_OK) st = csr_check(A, msg);
    if (st != SPB_OK) csr_free(A);
    return st;
}

/* The cache file of a source: its short name and a hash of its full path. */
static void cache_path(const char *item, const char *cache_dir, char *path, size_t size)
{
    char name[256];
    source_name(item, name, sizeof name);
    uint32_t hash = 2166136261u; /* FNV-1a */
    for (const char *p = item; *p; p++) hash = (hash ^ (unsigned char)*p) * 16777619u;
    snprintf(path, size, "%s/%s-%08x.spbcsr", cache_dir, name, hash);
}

/* Records what the cache did. */
static void note_cache(spb_cache_note *note, spb_cache_outcome outcome, const char *text,
                       const char *detail)
{
    if (!note) return;
    note->outcome = outcome;
    snprintf(note->text, sizeof note->text, "%s%s", text, detail);
}

spb_status source_load_cached(const char *item, const char *cache_dir, spb_csr *A,
                              spb_cache_note *note, char *msg)
{
    memset(A, 0, sizeof *A); /* empty, so a caller may free it on any return */
    note_cache(note, SPB_CACHE_UNUSED, "", "");
    if (!cache_dir || gen_is_spec(item)) return source_load(item, A, NULL, msg);
    struct stat sb; /* a pipe read to fingerprint it would lose its first bytes */
    if (stat(item, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        note_cache(note, SPB_CACHE_BYPASSED, "bypassed: not a regular file", "");
        return source_load(item, A, NULL, msg);
    }
    spb_fingerprint fp;
    spb_status st = fingerprint_file(item, &fp, msg);
    if (st != SPB_OK) return st;
    char path[SPB_PATH_LEN], why[SPB_MSG_LEN] = "";
    cache_path(item, cache_dir, path, sizeof path);
    /* a shared cache is an input like any other: csr_read_binary checks an
     * entry's length, checksum and the matrix itself (csr_check) */
    st = csr_read_binary(path, &fp, A, why);
    if (st == SPB_OK) {
        note_cache(note, SPB_CACHE_HIT, "hit", "");
        st = offsets_as_asked(A, msg);
        if (st != SPB_OK) csr_free(A);
        return st;
    }
    csr_free(A);
    st = source_load(item, A, NULL, msg);
    if (st != SPB_OK) return st;
    char write_err[SPB_MSG_LEN] = "";
    if (csr_write_binary(path, A, &fp, write_err) != SPB_OK)
        note_cache(note, SPB_CACHE_NOT_STORED, "not stored: ", write_err);
    else /* an entry that could be opened was stale or broken */
        note_cache(note, SPB_CACHE_STORED, "stored",
                   strstr(why, "cannot open") == NULL ? " (rebuilt)" : "");
    return SPB_OK;
}

void source_name(const char *item, char *name, size_t size)
{
    const char *base = item;
    if (!gen_is_spec(item)) {
        const char *slash = strrchr(item, '/');
        if (slash) base = slash + 1;
    }
    size_t len = strlen(base) - matrix_suffix_len(base);
    if (len >= size) len = size - 1;
    memcpy(name, base, len);
    name[len] = '\0';
}

spb_status sources_shard(spb_source_list *list, int index, int count, char *msg)
{
    if (count < 1 || index < 1 || index > count)
        return spb_fail(msg, SPB_ERR_INVALID, "shard %d/%d: expected I/N with 1 <= I <= N", index,
                        count);
    double *load = spb_calloc((size_t)count, sizeof *load);
    if (!load) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    int kept = 0;
    for (int k = 0; k < list->count; k++) {
        struct stat st;
        char *item = list->items[k];
        double weight = gen_is_spec(item)      ? 12.0 * gen_estimate_nnz(item)
                        : stat(item, &st) == 0 ? (double)st.st_size
                                               : 0.0;
        int lightest = 0;
        for (int s = 1; s < count; s++)
            if (load[s] < load[lightest]) lightest = s;
        load[lightest] += weight > 1 ? weight : 1; /* a missing file still counts once */
        if (lightest == index - 1) {
            list->names[kept] = list->names[k];
            if (list->ranks) list->ranks[kept] = list->ranks[k];
            list->items[kept++] = item;
        } else {
            spb_free(list->items[k]);
            spb_free(list->names[k]);
        }
    }
    list->count = kept;
    spb_free(load);
    return SPB_OK;
}

void source_id(const char *item, char *id, size_t size)
{
    spb_fingerprint fp;
    char msg[SPB_MSG_LEN];
    struct stat sb;
    if (gen_is_spec(item))
        snprintf(id, size, "generated");
    else if (stat(item, &sb) != 0 || !S_ISREG(sb.st_mode) ||
             fingerprint_file(item, &fp, msg) != SPB_OK)
        snprintf(id, size, "%s", ""); /* a pipe read here would lose its first bytes */
    else
        snprintf(id, size, "bytes=%llu crc=%08x mtime=%lld.%09lld", (unsigned long long)fp.size,
                 (unsigned)fp.head_crc, (long long)fp.mtime_sec, (long long)fp.mtime_nsec);
}
