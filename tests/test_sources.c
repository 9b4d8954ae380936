/* test_sources.c — the matrix list beyond names and shards (test_cli):
 * folders expanded to their matrix files in order, other entries left out
 * and counted; @list files with comments; one file given by two paths kept
 * once; an unreadable list refused; each source's id (size, checksum of
 * its head, time), which changes with the file; weak-scaling lists; and
 * names pinned by --resume. On a fresh folder of its own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/inputs/sources.h"
#include "check.h"

static char root[] = "/tmp/spb_sources_XXXXXX";

static void put(const char *name, const char *text) { check_put(root, name, text); }

static const char *at(const char *name)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    snprintf(path, 512, "%s/%s", root, name);
    return path;
}

static const char *matrix = "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1.5\n";

static void test_folder(void)
{
    mkdir(at("m"), 0755);
    put("m/b.mtx", matrix);
    put("m/a.mtx.gz", "not read here");
    put("m/notes.txt", "not a matrix");
    mkfifo(at("m/c.mtx"), 0644);
    char *items[] = {(char *)at("m")};
    spb_source_list list = {0};
    char msg[SPB_MSG_LEN] = "";
    CHECK(sources_expand(1, items, &list, msg) == SPB_OK, "a folder: %s", msg);
    CHECK(
        list.count == 2 && strstr(list.items[0], "m/a.mtx.gz") && strstr(list.items[1], "m/b.mtx"),
        "its matrix files, sorted: %d items (%s ...)", list.count, list.count ? list.items[0] : "");
    CHECK(list.left_out == 1 && strstr(list.left_out_example, "c.mtx"),
          "a FIFO named like a matrix is left out and named: %d (%s)", list.left_out,
          list.left_out_example);
    sources_free(&list);
}

static void test_list_file(void)
{
    char text[1024];
    snprintf(text, sizeof text, "# the study\n\n%s\n  gen:lap2d:10  \n  # indented\n%s/./m/b.mtx\n",
             at("m/b.mtx"), root);
    put("study.txt", text);
    char arg[600];
    snprintf(arg, sizeof arg, "@%s", at("study.txt"));
    char *items[] = {arg};
    spb_source_list list = {0};
    char msg[SPB_MSG_LEN] = "";
    CHECK(sources_expand(1, items, &list, msg) == SPB_OK, "an @list: %s", msg);
    CHECK(list.count == 2 && strstr(list.items[0], "b.mtx") &&
              strcmp(list.items[1], "gen:lap2d:10") == 0,
          "its lines in order, comments and blanks skipped, one file by two paths once: %d "
          "items",
          list.count);
    sources_free(&list);

    snprintf(arg, sizeof arg, "@%s", at("no-such-list.txt"));
    msg[0] = '\0';
    CHECK(sources_expand(1, items, &list, msg) != SPB_OK && strstr(msg, "no-such-list.txt"),
          "an unreadable list is refused, named: %s", msg);
    sources_free(&list);
}

static void test_ids(void)
{
    char first[SPB_SOURCE_ID_LEN], again[SPB_SOURCE_ID_LEN], changed[SPB_SOURCE_ID_LEN];
    put("id.mtx", matrix);
    source_id(at("id.mtx"), first, sizeof first);
    source_id(at("id.mtx"), again, sizeof again);
    CHECK(strncmp(first, "bytes=", 6) == 0 && strstr(first, " crc=") && strstr(first, " mtime=") &&
              strcmp(first, again) == 0,
          "a file's id: size, checksum, time, the same when read again: %s", first);
    put("id.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2.5\n");
    source_id(at("id.mtx"), changed, sizeof changed);
    char *crc_first = strstr(first, "crc="), *crc_changed = strstr(changed, "crc=");
    CHECK(crc_first && crc_changed && strncmp(crc_first, crc_changed, 12) != 0 &&
              strncmp(first, changed, (size_t)(strchr(first, ' ') - first)) == 0,
          "the same size, another value: another checksum (%s / %s)", first, changed);
    source_id("gen:lap2d:10", first, sizeof first);
    CHECK(strcmp(first, "generated") == 0, "a spec's id: %s", first);
    source_id(at("missing.mtx"), first, sizeof first);
    CHECK(first[0] == '\0', "a missing file's id is empty: '%s'", first);
}

static void test_weak_and_pinned(void)
{
    char *specs[] = {"gen:lap2d:100", "gen:rmat:10:8"};
    const int ranks[] = {1, 2, 4};
    spb_source_list list = {0};
    char msg[SPB_MSG_LEN] = "";
    CHECK(sources_expand(2, specs, &list, msg) == SPB_OK, "%s", msg);
    CHECK(sources_weak(&list, ranks, 3, msg) == SPB_OK, "weak: %s", msg);
    CHECK(list.count == 6 && list.ranks && list.ranks[0] == 1 && list.ranks[2] == 4 &&
              list.ranks[3] == 1 && strcmp(list.items[4], "gen:rmat:11:8") == 0 &&
              strcmp(list.names[4], "gen:rmat:10:8/rank") == 0,
          "each spec once per rank count, grown, named NAME/rank: %d items (%s as %s)", list.count,
          list.count > 4 ? list.items[4] : "", list.count > 4 ? list.names[4] : "");
    sources_free(&list);

    char *files[] = {(char *)at("m/b.mtx"), "gen:lap2d:10"};
    CHECK(sources_expand(2, files, &list, msg) == SPB_OK, "%s", msg);
    CHECK(sources_weak(&list, ranks, 3, msg) == SPB_ERR_INVALID, "a file cannot grow with the "
                                                                 "ranks");
    sources_free(&list);

    CHECK(sources_expand(2, files, &list, msg) == SPB_OK, "%s", msg);
    const char *pinned[] = {"m/b", NULL};
    CHECK(sources_pin_names(&list, pinned, msg) == SPB_OK && strcmp(list.names[0], "m/b") == 0 &&
              strcmp(list.names[1], "gen:lap2d:10") == 0,
          "a pinned name is kept (--resume): %s", list.count ? list.names[0] : "");
    CHECK(source_can_be_named(at("m/b.mtx"), "m/b") && !source_can_be_named(at("m/b.mtx"), "x/b"),
          "names a file can take: its trailing components");
    sources_free(&list);
}

int main(void)
{
    if (!mkdtemp(root)) return 1;
    test_folder();
    test_list_file();
    test_ids();
    test_weak_and_pinned();
    char cleanup[600];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", root);
    if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", root);
    return check_done();
}
