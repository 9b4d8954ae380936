/* test_cli.c — the command line's pieces: option values ("--x V" and
 * "--x=V"), count lists, number ranges (a bad value exits with the usage
 * code, checked in a child process), and the matrix list: names that tell
 * files apart, and shards that cover the list once, stay balanced and keep
 * their items when the list grows at its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench/cli/cli.h"
#include "bench/inputs/sources.h"
#include "check.h"

static void test_option_value(void)
{
    char *argv[] = {"--csv", "out.csv", "--json=out.json", "--csvx", "y"};
    int i = 0;
    const char *v = NULL;
    CHECK(option_value(5, argv, &i, "--csv", &v) && strcmp(v, "out.csv") == 0 && i == 1,
          "--csv VALUE: %s at %d", v ? v : "(none)", i);
    i = 2;
    CHECK(option_value(5, argv, &i, "--json", &v) && strcmp(v, "out.json") == 0 && i == 2,
          "--json=VALUE: %s at %d", v ? v : "(none)", i);
    i = 3;
    CHECK(!option_value(5, argv, &i, "--csv", &v) && i == 3, "--csvx is not --csv");
}

/* The exit status of a child running parse_count_list on text. */
static int count_list_exit(const char *text)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        int counts[8];
        parse_count_list("--threads", text, counts, 8);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_count_lists(void)
{
    int counts[16];
    int n = parse_count_list("--threads", "4,1,2,2", counts, 16);
    CHECK(n == 3 && counts[0] == 1 && counts[1] == 2 && counts[2] == 4,
          "4,1,2,2: ascending and distinct (%d counts)", n);
    n = parse_count_list("--threads", "1-3,8", counts, 16);
    CHECK(n == 4 && counts[0] == 1 && counts[2] == 3 && counts[3] == 8, "1-3,8: %d counts", n);
    n = parse_count_list("--threads", "max", counts, 16);
    CHECK(n == 1 && counts[0] >= 1, "max: one count, the processors (%d)", n ? counts[0] : 0);
    const char *bad[] = {"0", "3-1", "two", "", "1,,2", "-1"};
    for (int k = 0; k < 6; k++)
        CHECK(count_list_exit(bad[k]) == EXIT_USAGE, "'%s' is a usage error", bad[k]);
}

static int long_exit(const char *text, long min, long max)
{
    fflush(NULL);
    pid_t child = fork();
    if (child == 0) {
        if (!freopen("/dev/null", "w", stderr)) _exit(3);
        parse_long("--reps", text, min, max);
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void test_numbers(void)
{
    CHECK(parse_long("--reps", "12", 1, 100) == 12, "12 in [1, 100]");
    CHECK(long_exit("0", 1, 100) == EXIT_USAGE, "0 below [1, 100]");
    CHECK(long_exit("101", 1, 100) == EXIT_USAGE, "101 above [1, 100]");
    CHECK(long_exit("12x", 1, 100) == EXIT_USAGE, "12x is not a number");
    CHECK(long_exit("99999999999999999999", 1, 100) == EXIT_USAGE, "an overflow is refused");
    CHECK(parse_double("--min-time", "0.25", 0) == 0.25, "0.25 seconds");
}

static void test_names(void)
{
    char *items[] = {"a/m.mtx.gz", "b/m.mtx", "c/other.mtx.gz", "gen:lap2d:10", "gen:lap2d:10"};
    spb_source_list list = {0};
    char msg[SPB_MSG_LEN] = "";
    CHECK(sources_expand(5, items, &list, msg) == SPB_OK, "%s", msg);
    CHECK(list.count == 4, "a spec given twice is kept once: %d items", list.count);
    if (list.count == 4) {
        CHECK(strcmp(list.names[0], "a/m") == 0 && strcmp(list.names[1], "b/m") == 0,
              "two files named m are told apart by their folders: %s, %s", list.names[0],
              list.names[1]);
        CHECK(strcmp(list.names[2], "other") == 0, "one file keeps its base name: %s",
              list.names[2]);
    }
    sources_free(&list);
}

/* Which shard of `count` each of the first n items of specs lands in. */
static void shard_of(char **specs, int n, int count, int *shard)
{
    for (int s = 1; s <= count; s++) {
        spb_source_list list = {0};
        char msg[SPB_MSG_LEN] = "";
        CHECK(sources_expand(n, specs, &list, msg) == SPB_OK, "%s", msg);
        CHECK(sources_shard(&list, s, count, msg) == SPB_OK, "shard %d: %s", s, msg);
        for (int k = 0; k < list.count; k++)
            for (int j = 0; j < n; j++)
                if (strcmp(list.items[k], specs[j]) == 0) shard[j] = shard[j] ? -1 : s;
        sources_free(&list);
    }
}

static void test_shards(void)
{
    char *specs[] = {"gen:lap2d:300", "gen:lap2d:20",      "gen:random:5000:8", "gen:lap3d:30",
                     "gen:rmat:12:8", "gen:lap2d:100",     "gen:random:900:3",  "gen:lap3d:12",
                     "gen:rmat:10:4", "gen:random:70000:2"};
    int before[10] = {0}, after[10] = {0};
    shard_of(specs, 8, 3, before);
    shard_of(specs, 10, 3, after);
    int once = 1, kept = 1;
    for (int j = 0; j < 8; j++) {
        once = once && before[j] > 0;
        kept = kept && before[j] == after[j];
    }
    CHECK(once && after[8] > 0 && after[9] > 0, "every item in exactly one shard");
    CHECK(kept, "items already listed keep their shard when the list grows at its end");
}

int main(void)
{
    test_option_value();
    test_count_lists();
    test_numbers();
    test_names();
    test_shards();
    return check_done();
}
