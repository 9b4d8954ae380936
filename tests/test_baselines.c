/* test_baselines.c — the library baselines run on the threads their row
 * says: librsb at one thread keeps every other thread of the process idle
 * (it once ran on the team it was started with, its extra threads waiting
 * at barriers), its products stay right after it is started again for
 * another thread count, and a row at another count while one of its
 * matrices lives is refused. Skipped (77) when librsb is not built in. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bench/inputs/gen.h"
#include "check.h"
#include "cpu/baselines.h"

/* CPU ticks (user + system) of this process's threads: the calling
 * thread's into *mine, every other thread's summed into *others. */
static void thread_ticks(long *mine, long *others)
{
    *mine = *others = 0;
    DIR *d = opendir("/proc/self/task");
    if (!d) return;
    char self[32];
    snprintf(self, sizeof self, "%ld", (long)getpid()); /* the main thread calls */
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        char path[300], line[1024];
        snprintf(path, sizeof path, "/proc/self/task/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        long utime = 0, stime = 0;
        if (fgets(line, sizeof line, f)) {
            const char *p = strrchr(line, ')'); /* the fields after the name */
            if (p && sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld", &utime,
                            &stime) != 2)
                utime = stime = 0;
        }
        fclose(f);
        *(strcmp(e->d_name, self) == 0 ? mine : others) += utime + stime;
    }
    closedir(d);
}

/* The largest |y - A*x| of one librsb product against a plain loop. */
static double rsb_error_of(const spb_csr *A, void *state, const double *x, double *y)
{
    char msg[SPB_MSG_LEN] = "";
    if (rsb_baseline_run(state, x, y, msg) != SPB_OK) return INFINITY;
    double worst = 0;
    for (spb_index i = 0; i < A->m; i++) {
        double sum = 0;
        for (spb_index k = A->row_ptr[i]; k < A->row_ptr[i + 1]; k++)
            sum += A->val[k] * x[A->col_idx[k]];
        worst = fmax(worst, fabs(sum - y[i]));
    }
    return worst;
}

int main(void)
{
    char why[SPB_MSG_LEN] = "", msg[SPB_MSG_LEN] = "";
    if (!rsb_baseline_available(why)) {
        printf("skipped: %s\n", why);
        return CHECK_SKIP_CODE;
    }
    spb_csr A = {0};
    CHECK(gen_matrix("gen:lap2d:300", &A, msg) == SPB_OK, "the matrix: %s", msg);
    double *x = spb_malloc((size_t)A.n, sizeof *x), *y = spb_malloc((size_t)A.m, sizeof *y);
    for (spb_index j = 0; j < A.n; j++) x[j] = 1.0 + (double)(j % 7) / 7;

    void *one = NULL;
    double tune_ms;
    CHECK(rsb_baseline_prepare(&A, NULL, 1, &one, &tune_ms, msg) == SPB_OK, "1 thread: %s", msg);
    long mine0, others0, mine1, others1;
    thread_ticks(&mine0, &others0);
    for (int k = 0; k < 2000; k++) rsb_baseline_run(one, x, y, msg);
    thread_ticks(&mine1, &others1);
    long main_ticks = mine1 - mine0, other_ticks = others1 - others0;
    CHECK(main_ticks >= 10 && other_ticks * 10 <= main_ticks,
          "librsb at 1 thread: the calling thread %ld ticks, the others %ld (a team of more "
          "threads spends about as much on them)",
          main_ticks, other_ticks);
    CHECK(rsb_error_of(&A, one, x, y) < 1e-12, "1 thread: the product is right");

    void *two = NULL;
    CHECK(rsb_baseline_prepare(&A, NULL, 2, &two, &tune_ms, msg) != SPB_OK &&
              strstr(msg, "while one of its matrices lives"),
          "a row at 2 threads while a 1-thread matrix lives is refused: %s", msg);
    rsb_baseline_release(two);
    rsb_baseline_release(one);
    CHECK(rsb_baseline_prepare(&A, NULL, 2, &two, &tune_ms, msg) == SPB_OK,
          "librsb started again for 2 threads: %s", msg);
    CHECK(two && rsb_error_of(&A, two, x, y) < 1e-12, "2 threads: the product is right");
    rsb_baseline_release(two);
    spb_free(x);
    spb_free(y);
    csr_free(&A);
    return check_done();
}
