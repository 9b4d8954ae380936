/* cmd_new_kernel.c — spbench new-kernel: a plug-in's folder to start from,
 * the example plug-in (examples/plugins/csr_rows) under a new name. */
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

/* text with every "csr_rows" (the library, the file) and every "mine." (the
 * kernels' names) replaced by the new name, written to a new file. */
static int write_renamed(const char *path, const char *text, const char *name)
{
    FILE *f = fopen(path, "wx"); /* never over a file: the folder is new */
    if (!f) return 0;
    char kernels[40];
    snprintf(kernels, sizeof kernels, "%s.", name);
    while (*text) {
        if (strncmp(text, "csr_rows", 8) == 0)
            fputs(name, f), text += 8;
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
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "-o", &value))
            dir = value;
        else if (argv[i][0] != '-' && !name)
            name = argv[i];
        else
            unknown_option(argv[i]);
    }
    if (!name) {
        fprintf(stderr, "spbench: usage: spbench new-kernel NAME [-o DIR]\n");
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
    char source[4096], lists[4096];
    snprintf(source, sizeof source, "%s/%s.c", dir, name);
    snprintf(lists, sizeof lists, "%s/CMakeLists.txt", dir);
    if (!write_renamed(source, (const char *)template_csr_rows_c, name) ||
        !write_renamed(lists, (const char *)template_CMakeLists_txt, name)) {
        fprintf(stderr, "spbench new-kernel: cannot write in %s: %s\n", dir, strerror(errno));
        return EXIT_RESULTS_BAD;
    }
    printf("%s: %s.c (kernels %s.csr.serial and %s.csr.omp: change their loops) and "
           "CMakeLists.txt\n"
           "build it against this spbench's prefix P (where include/spbench/plugin.h is):\n"
           "  cmake -S %s -B %s/build -DCMAKE_PREFIX_PATH=P && cmake --build %s/build\n"
           "  spbench run --plugin %s/build/lib%s.so --kernels '%s.*,csr.*' MATRIX...\n",
           dir, name, name, name, dir, dir, dir, dir, name, name);
    return 0;
}
