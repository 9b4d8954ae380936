/* test_roofline_cache.c — a machine's bandwidth figures kept between runs:
 * every thread count of a run is found again (each line read once: a line
 * cut up by its first reading once hid every thread count but the first),
 * storing again replaces a key's lines instead of adding to them, another
 * key's lines stay, a figure older than the limit is not reused, and the
 * reused figures carry the oldest line's time; a line whose figures are not
 * plausible bandwidths is never reused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/machine/roofline.h"
#include "check.h"

static void figures(spb_roofline *r, double scale)
{
    static const int threads[] = {1, 2, 4};
    memset(r, 0, sizeof *r);
    r->cpu_count = 3;
    for (int k = 0; k < 3; k++) {
        r->cpu[k].threads = threads[k];
        r->cpu[k].read = (spb_bw_stat){.trials = 30, .best = scale * threads[k], .median = 1};
        r->cpu[k].triad = (spb_bw_stat){.trials = 30, .best = scale * threads[k] + 1};
    }
    r->cpu_measured_at = (double)time(NULL);
}

static int lines_of(const char *path)
{
    FILE *f = fopen(path, "r");
    int n = 0, c;
    while (f && (c = fgetc(f)) != EOF) n += c == '\n';
    if (f) fclose(f);
    return n;
}

int main(void)
{
    char dir[] = "/tmp/spb_bwcache_XXXXXX", path[256], why[SPB_MSG_LEN] = "";
    if (!mkdtemp(dir)) return 1;
    snprintf(path, sizeof path, "%s/sub/bandwidth.tsv", dir); /* its folder is made */
    setenv("SPB_BANDWIDTH_CACHE", path, 1);

    spb_roofline r, got;
    figures(&r, 10);
    CHECK(roofline_store(&r, "key A", why, sizeof why), "stored: %s", why);
    figures(&r, 7);
    CHECK(roofline_store(&r, "key B", why, sizeof why), "another key stored: %s", why);
    figures(&got, 0);
    CHECK(roofline_reuse(&got, "key A", 3600) && got.cpu_source == SPB_BW_REUSED &&
              got.cpu[0].read.best == 10 && got.cpu[1].read.best == 20 &&
              got.cpu[2].read.best == 40 && got.cpu[2].read.trials == 30,
          "every thread count found again: %g %g %g", got.cpu[0].read.best, got.cpu[1].read.best,
          got.cpu[2].read.best);
    figures(&r, 11);
    CHECK(roofline_store(&r, "key A", why, sizeof why) && lines_of(path) == 6,
          "storing again replaces the key's lines (6 in the file, not 9): %d", lines_of(path));
    figures(&got, 0);
    CHECK(roofline_reuse(&got, "key B", 3600) && got.cpu[2].read.best == 28,
          "the other key's lines stay: %g", got.cpu[2].read.best);
    figures(&got, 0);
    got.cpu[2].threads = 8;
    CHECK(!roofline_reuse(&got, "key A", 3600) && got.cpu_source == SPB_BW_MEASURED,
          "a thread count without a figure: nothing reused");

    FILE *f = fopen(path, "w"); /* an hour-old line and a day-old one for one key */
    double now = (double)time(NULL);
    fprintf(f, "key C\t1\t5\t5\t5\t30\t5\t5\t5\t30\t%.0f\n", now - 3600);
    fprintf(f, "key C\t2\t9\t9\t9\t30\t9\t9\t9\t30\t%.0f\n", now - 60);
    fprintf(f, "key D\t1\t5\t5\t5\t30\t5\t5\t5\t30\t%.0f\n", now - 86400);
    fclose(f);
    figures(&got, 0);
    got.cpu_count = 2;
    CHECK(roofline_reuse(&got, "key C", 7200) && got.cpu_measured_at == now - 3600,
          "the reused figures carry the oldest line's time: %.0f s ago", now - got.cpu_measured_at);
    figures(&got, 0);
    got.cpu_count = 1;
    CHECK(!roofline_reuse(&got, "key D", 7200), "a figure older than the limit is not reused");

    /* lines whose figures are not plausible bandwidths are measured again,
     * never reused (an inf once made the JSON invalid and roof% 3.6e12) */
    static const char *const bad[] = {"inf", "nan", "1e9", "0x10", "12abc", "1e-300", "-5", ""};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        f = fopen(path, "w");
        fprintf(f, "key E\t1\t%s\t5\t5\t30\t5\t5\t5\t30\t%.0f\n", bad[k], now - 60);
        fclose(f);
        figures(&got, 0);
        got.cpu_count = 1;
        CHECK(!roofline_reuse(&got, "key E", 7200), "a cached best of '%s' was reused", bad[k]);
        double gbps = 0;
        CHECK(!roofline_parse_gbps(bad[k], &gbps), "'%s' read as a bandwidth: %g", bad[k], gbps);
    }
    f = fopen(path, "w");
    fprintf(f, "key E\t1x\t5\t5\t5\t30\t5\t5\t5\t30\t%.0f\n", now - 60);
    fprintf(f, "key E\t1\t5\t5\t5\t30\t5\t5\t5\t30\t%.0fjunk\n", now - 60);
    fclose(f);
    figures(&got, 0);
    got.cpu_count = 1;
    CHECK(!roofline_reuse(&got, "key E", 7200), "a thread count or time with junk was reused");
    double gbps = 0;
    CHECK(roofline_parse_gbps("25.5", &gbps) && gbps == 25.5, "a plain figure is read: %g", gbps);

    char cleanup[300];
    snprintf(cleanup, sizeof cleanup, "rm -rf '%s'", dir);
    if (system(cleanup) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return check_done();
}
