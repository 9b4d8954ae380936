/* cmd_new_kernel.c — spbench new-kernel: a plug-in's folder to start from,
 * an example plug-in (examples/plugins/csr_rows, or cuda_rows with
 * --cuda) under a new name. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bench/cli/cli.h"
#include "plugin_template.h"

/* A name that is safe as a folder, a file, a C and CMake identifier and a
 * kernel name's first part: a lowercase letter, then lowercase letters,
 * digits and '_', at most 32 characters. */
static int name_usable(const char *name)
{
    size_t len = strlen(name);
    return len >= 1 && len <= 32 && name[0] >= 'a' && name[0] <= 'z' &&
           strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

/* One example: its folder's name, its files and what the printout says. */
typedef struct {
    const char *folder;
    const char *source_suffix; /* the source file's: ".c" or ".cu" */
    const unsigned char *source, *lists;
    const char *kernels[4]; /* its kernels' names after "NAME." */
    const char *configure;  /* what its CMake configuration needs more (a CUDA
                               one: the GPU's compute capability, 90 on an H100) */
    const char *rivals;     /* --kernels beside it */
} example;

static const example examples[] = {
    {"csr_rows",
     ".c",
     template_csr_rows_csr_rows_c,
     template_csr_rows_CMakeLists_txt,
     {"csr.serial", "csr.omp", "spgemm.serial (C = A*B: run it with --op spgemm)"},
     "",
     "csr.*"},
    {"cuda_rows",
     ".cu",
     template_cuda_rows_cuda_rows_cu,
     template_cuda_rows_CMakeLists_txt,
     {"csr.cuda.warp"},
     " -DCMAKE_CUDA_ARCHITECTURES=90",
     "cusparse.csr"},
};

/* text with every example folder's name (the library, the file) and every
 * "mine." (the kernels' names) replaced by the new name, written to a new
 * file. */
static int write_renamed(const char *path, const char *text, const char *folder, const char *name)
{
    FILE *f = fopen(path, "wx"); /* never over a file: the folder is new */
    if (!f) return 0;
    char kernels[40];
    snprintf(kernels, sizeof kernels, "%s.", name);
    size_t folder_len = strlen(folder);
    while (*text) {
        if (strncmp(text, folder, folder_len) == 0)
            fputs(name, f), text += folder_len;
        else if (strncmp(text, "mine.", 5) == 0)
            fputs(kernels, f), text += 5;
        else
            fputc(*text++, f);
    }
    return fclose(f) == 0;
}

int cmd_new_kernel(int argc, char **argv)
{
    const char *name = NULL, *dir = NULL;
    const example *e = &examples[0];
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "-o", &value))
            dir = value;
        else if (strcmp(argv[i], "--cuda") == 0)
            e = &examples[1];
        else if (argv[i][0] != '-' && !name)
            name = argv[i];
        else
            unknown_option(argv[i]);
    }
    if (!name) {
        fprintf(stderr, "spbench: usage: spbench new-kernel NAME [--cuda] [-o DIR]\n");
        return EXIT_USAGE;
    }
    if (!name_usable(name)) {
        fprintf(stderr,
                "spbench new-kernel: %s: a name is a lowercase letter, then lowercase letters, "
                "digits and '_' (at most 32): it names the folder, the library and the kernels\n",
                name);
        return EXIT_USAGE;
    }
    if (!dir) dir = name;
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "spbench new-kernel: cannot make the folder %s: %s%s\n", dir,
                strerror(errno), errno == EEXIST ? " (nothing in it was touched)" : "");
        return EXIT_USAGE;
    }
    char source[SPB_PATH_LEN], lists[SPB_PATH_LEN], kernels[256];
    snprintf(source, sizeof source, "%s/%s%s", dir, name, e->source_suffix);
    snprintf(lists, sizeof lists, "%s/CMakeLists.txt", dir);
    if (!write_renamed(source, (const char *)e->source, e->folder, name) ||
        !write_renamed(lists, (const char *)e->lists, e->folder, name)) {
        fprintf(stderr, "spbench new-kernel: cannot write in %s: %s\n", dir, strerror(errno));
        return EXIT_RESULTS_BAD;
    }
    kernels[0] = '\0';
    for (int k = 0; k < 4 && e->kernels[k]; k++)
        spb_appendf(kernels, sizeof kernels, "%s%s.%s", k ? ", " : "", name, e->kernels[k]);
    printf("%s: %s%s (kernels %s) and CMakeLists.txt\n"
           "build it against this spbench's prefix P (where include/spbench/plugin.h is):\n"
           "  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=P%s && cmake --build %s/build\n"
           "  spbench run --plugin %s/build/lib%s.so --kernels '%s.*,%s' MATRIX...\n%s",
           dir, name, e->source_suffix, kernels, dir, dir, e->configure, dir, dir, name, name,
           e->rivals,
           e->configure[0] ? "(CMAKE_CUDA_ARCHITECTURES: your GPU's compute capability, 90 for "
                             "an H100 or H200)\n"
                           : "");
    return 0;
}
