/* replay.c — runs the fuzz harness over saved inputs (the seed corpus and
 * every regression found by fuzzing) in any build, without libFuzzer: a
 * crash, hang or sanitizer report there fails the test. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    uint8_t *data = malloc(size > 0 ? (size_t)size : 1);
    size_t got = fread(data, 1, (size_t)size, f);
    fclose(f);
    LLVMFuzzerTestOneInput(data, got);
    free(data);
    return 1;
}

int main(int argc, char **argv)
{
    int files = 0;
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
            files += replay_file(path);
        }
        closedir(d);
    }
    printf("%d inputs replayed, 0 failed\n", files);
    return files > 0 ? 0 : 1;
}
