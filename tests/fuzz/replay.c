/* replay.c — runs the fuzz harness over saved inputs (the seed corpus and
 * every regression found by fuzzing) in any build, without libFuzzer. Each
 * input runs in a child process, so an abort, crash or sanitizer report on
 * one input is counted, named, and fails the test; the others still run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The harness on one file, in this process; exits 0 when it returns. */
static void replay_here(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) exit(3);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    size_t got = fread(data, 1, (size_t)size, f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    exit(0);
}

/* 1 when the harness returned normally on the file, 0 otherwise. */
static int replay_file(const char *path)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) replay_here(path);
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child) {
        fprintf(stderr, "%s: cannot run the harness\n", path);
        return 0;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 1;
    if (WIFSIGNALED(status))
        fprintf(stderr, "FAILED %s: signal %d\n", path, WTERMSIG(status));
    else
        fprintf(stderr, "FAILED %s: exit status %d\n", path, WEXITSTATUS(status));
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0, failed = 0;
    for (int k = 1; k < argc; k++) {
        DIR *d = opendir(argv[k]);
        if (!d) {
            fprintf(stderr, "cannot open %s\n", argv[k]);
            return 1;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.') continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[k], e->d_name);
            files++;
            failed += !replay_file(path);
        }
        closedir(d);
    }
    printf("%d inputs replayed, %d failed\n", files, failed);
    return files > 0 && failed == 0 ? 0 : 1;
}
