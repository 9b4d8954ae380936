/* check.h — a minimal test harness: CHECK records a failure with its place
 * and a message and goes on; check_done() prints the tally and gives the
 * exit code. CHECK_SKIP_CODE tells CTest a test was skipped. */
#ifndef SPB_CHECK_H
#define SPB_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK_SKIP_CODE 77

static int check_passed, check_failed;

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

/* A seed for fresh random inputs: SPB_TEST_SEED if set, else the clock. */
static inline unsigned long long check_seed(void)
{
    const char *env = getenv("SPB_TEST_SEED");
    unsigned long long seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL);
    printf("seed %llu (rerun with SPB_TEST_SEED=%llu)\n", seed, seed);
    return seed;
}

static inline int check_done(void)
{
    printf("%d passed, %d failed\n", check_passed, check_failed);
    return check_failed ? 1 : 0;
}

#endif
