/* check.h — a minimal test harness: CHECK records a failure with its place
 * and a message and goes on; check_done() prints the tally and gives the
 * exit code. CHECK_SKIP_CODE tells CTest a test was skipped. */
#ifndef SPB_CHECK_H
#define SPB_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#define CHECK_SKIP_CODE    77
#define CHECK_DEFAULT_SEED 20261123ULL

/* The tally, one for the whole program: a test of several files has a
 * weak definition in each, which the linker merges. */
__attribute__((weak)) int check_passed, check_failed;
__attribute__((weak)) unsigned long long check_seed_used;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (cond) {                                                                                \
            check_passed++;                                                                        \
        } else {                                                                                   \
            check_failed++;                                                                        \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

/* Checks of timing (a window of wall-clock time, a thread woken in time)
 * hold on a machine that gives the test its CPUs. TIMED_CASE marks the
 * start of such a case; a TIMED_CHECK after it that fails while the
 * process was preempted CHECK_BUSY_SWITCHES times or more since the mark
 * (another task took its CPU: the machine was busy) is not a failure but a
 * skip, said with the count; on a quiet machine it fails as CHECK does. */
#define CHECK_BUSY_SWITCHES 3
__attribute__((weak)) long check_case_switches;
__attribute__((weak)) int check_timing_skipped;
static inline long check_preempted(void)
{
    struct rusage u;
    return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_nivcsw : 0;
}
#define TIMED_CASE() (check_case_switches = check_preempted())
#define TIMED_CHECK(cond, ...)                                                                     \
    do {                                                                                           \
        long switches_ = check_preempted() - check_case_switches;                                  \
        if (!(cond) && switches_ >= CHECK_BUSY_SWITCHES) {                                         \
            check_timing_skipped++;                                                                \
            fprintf(stderr,                                                                        \
                    "%s:%d: skipped, the machine busy (preempted %ld times in the case): ",        \
                    __FILE__, __LINE__, switches_);                                                \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        } else {                                                                                   \
            CHECK(cond, __VA_ARGS__);                                                              \
        }                                                                                          \
    } while (0)

/* The seed of the random inputs: fixed, so a failure replays as it is;
 * SPB_TEST_SEED=N varies it (CI can sweep seeds). */
static inline unsigned long long check_seed(void)
{
    const char *env = getenv("SPB_TEST_SEED");
    check_seed_used = env ? strtoull(env, NULL, 10) : CHECK_DEFAULT_SEED;
    printf("seed %llu\n", check_seed_used);
    return check_seed_used;
}

static inline int check_done(void)
{
    printf("%d passed, %d failed", check_passed, check_failed);
    if (check_timing_skipped)
        printf(", %d timing checks skipped on a busy machine", check_timing_skipped);
    printf("\n");
    if (check_failed && check_seed_used)
        fprintf(stderr, "failed with seed %llu: rerun with SPB_TEST_SEED=%llu\n", check_seed_used,
                check_seed_used);
    return check_failed ? 1 : 0;
}

/* A fixture file: text written to dir/name (a test's own temporary folder). */
static inline void check_put(const char *dir, const char *name, const char *text)
{
    /* whole or not at all, as a reader beside the writer sees it (a
     * counter file read by another thread) */
    char path[700], temp[720];
    snprintf(path, sizeof path, "%.600s/%s", dir, name);
    snprintf(temp, sizeof temp, "%s.being-written", path);
    FILE *f = fopen(temp, "w");
    if (!f) return;
    fputs(text, f);
    if (fclose(f) != 0 || rename(temp, path) != 0) remove(temp);
}

#endif
