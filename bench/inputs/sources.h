/* sources.h — the MATRIX arguments of spbench: files (.mtx, .mtx.gz),
 * directories (every matrix file in them, sorted), @list.txt files (one
 * path or spec per line, '#' comments) and generator specs (gen:...). */
#ifndef SPB_SOURCES_H
#define SPB_SOURCES_H

#include "formats/mm.h"

/* A matrix's name in rows and tables, its NUL included: the longest
 * the list makes (and every copy of a name must hold). */
#define SPB_NAME_LEN 256

typedef struct {
    char **items;
    char **names; /* each item's name in rows and tables, distinct within the list */
    int *ranks;   /* a weak-scaling list: the one rank count each item is for (else NULL) */
    int count, cap;
    /* entries of listed folders named like matrices but left out: dangling
     * or looping links, FIFOs, devices (the first named) */
    int left_out;
    char left_out_example[256];
} spb_source_list;

/* Expands the arguments in order. Fails only for an unreadable directory or
 * list file; a missing matrix file is kept and fails when loaded, so a batch
 * reports it as an error row and goes on. A source given twice (the same
 * spec, or two paths to one file) is kept once. Each item is named by its
 * base name without .mtx/.mtx.gz, or, where several items share that, by
 * as many trailing path components as tell them apart ("a/m", "b/m"): one
 * name never stands for two files. */
spb_status sources_expand(int argc, char **argv, spb_source_list *list, char *msg);
void sources_free(spb_source_list *list);

/* A weak-scaling study: each generator spec of the list becomes one item
 * per rank count, its matrix grown with the ranks (gen_spec_for_ranks), all
 * named "NAME/rank" (the rows tell them apart by ranks); list->ranks gives
 * each item's count. SPB_ERR_INVALID for an item that is not a spec. */
spb_status sources_weak(spb_source_list *list, const int *ranks, int rank_counts, char *msg);

/* Names the list again, item k keeping pinned[k] when that is not NULL
 * (--resume: the name its rows already have), the others lengthened
 * around them as sources_expand does. */
spb_status sources_pin_names(spb_source_list *list, const char *const *pinned, char *msg);
/* Whether `name` is one the item can be given: its last 1, 2, ... path
 * components without .mtx/.mtx.gz, or the item as given. */
int source_can_be_named(const char *item, const char *name);

/* Loads a file or generates a spec into CSR (checked). info may be NULL;
 * for generated matrices it is zeroed. On failure A is empty (csr_free
 * takes it), as with source_load_cached. */
spb_status source_load(const char *item, spb_csr *A, spb_mm_info *info, char *msg);

/* What the cache did for one load, and in words ("stored (rebuilt)", why
 * an entry could not be written). */
typedef enum {
    SPB_CACHE_UNUSED,     /* no cache, or a generator spec */
    SPB_CACHE_HIT,        /* read from the cache */
    SPB_CACHE_STORED,     /* parsed, and the entry (re)written */
    SPB_CACHE_NOT_STORED, /* parsed, but the entry could not be written */
    SPB_CACHE_BYPASSED    /* not a regular file: read as it is */
} spb_cache_outcome;

typedef struct {
    spb_cache_outcome outcome;
    char text[SPB_MSG_LEN];
} spb_cache_note;

/* source_load through a cache directory (NULL: none): a file source whose
 * cache entry matches its fingerprint is read from the cache; otherwise it
 * is parsed and the entry (re)written. *note, when not NULL, receives what
 * happened; generator specs bypass the cache. */
spb_status source_load_cached(const char *item, const char *cache_dir, spb_csr *A,
                              spb_cache_note *note, char *msg);

/* Keeps only shard `index` (1..count) of the list (named first, so every
 * shard names an item alike): items go in list order
 * to the shard with the least weight so far (file size in bytes; a gen:
 * spec its estimated entries times 12, about the bytes of its file), so
 * the split is deterministic, balanced, and unchanged for the items already
 * there when the list grows at its end. */
spb_status sources_shard(spb_source_list *list, int index, int count, char *msg);

/* What a source was, in every row (the source_id column), so that a row
 * is never taken for another file's or a changed file's: for a file its
 * size, a checksum of its head and its modification time ("bytes=31170
 * crc=1a2b3c4d mtime=1732400000.123456789"), for a spec "generated", and
 * "" for a file that cannot be read. */
#define SPB_SOURCE_ID_LEN 96
void source_id(const char *item, char *id, size_t size);

/* Short name for tables: the file's base name without .mtx/.mtx.gz, or the
 * spec itself. */
void source_name(const char *item, char *name, size_t size);

#endif
