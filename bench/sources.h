/* sources.h — the MATRIX arguments of spbench: files (.mtx, .mtx.gz),
 * directories (every matrix file in them, sorted), @list.txt files (one
 * path or spec per line, '#' comments) and generator specs (gen:...). */
#ifndef SPB_SOURCES_H
#define SPB_SOURCES_H

#include "../formats/mm.h"

typedef struct {
    char **items;
    int count, cap;
} spb_source_list;

/* Expands the arguments in order. Fails only for an unreadable directory or
 * list file; a missing matrix file is kept and fails when loaded, so a batch
 * reports it as an error row and goes on. */
spb_status sources_expand(int argc, char **argv, spb_source_list *list, char *msg);
void sources_free(spb_source_list *list);

/* Loads a file or generates a spec into CSR (checked). info may be NULL;
 * for generated matrices it is zeroed. */
spb_status source_load(const char *item, spb_csr *A, spb_mm_info *info, char *msg);

/* source_load through a cache directory (NULL: none): a file source whose
 * cache entry matches its fingerprint is read from the cache; otherwise it
 * is parsed and the entry (re)written. *cache_note, when not NULL, receives
 * what happened ("hit", "stored", or why the entry was rebuilt or could not
 * be written); generator specs bypass the cache. */
spb_status source_load_cached(const char *item, const char *cache_dir, spb_csr *A, char *cache_note,
                              char *msg);

/* Keeps only shard `index` (1..count) of the list: items go in list order
 * to the shard with the least weight so far (file size in bytes; a gen:
 * spec its estimated entries times 12, about the bytes of its file), so
 * the split is deterministic, balanced, and unchanged for the items already
 * there when the list grows at its end. */
spb_status sources_shard(spb_source_list *list, int index, int count, char *msg);

/* Short name for tables: the file's base name without .mtx/.mtx.gz, or the
 * spec itself. */
void source_name(const char *item, char *name, size_t size);

#endif
