/* plugin_args.c — the plug-ins named by SPB_PLUGIN_PATH and --plugin,
 * loaded before any kernel table is made. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/op_spmv.h"
#include "plugins/loader.h"

static int kernel_name_taken(const char *name)
{
    return spmv_kernel_builtin(name) || spgemm_kernel_builtin(name);
}

/* One entry of SPB_PLUGIN_PATH: a library, or a folder whose *.so files
 * are loaded in name order. */
static spb_status load_plugin_entry(const char *entry, char *msg)
{
    struct dirent **names = NULL;
    int count = scandir(entry, &names, NULL, alphasort);
    if (count < 0) return plugins_load(entry, kernel_name_taken, msg);
    spb_status st = SPB_OK;
    for (int k = 0; k < count; k++) {
        size_t len = strlen(names[k]->d_name);
        char path[8192];
        if (st == SPB_OK && len > 3 && strcmp(names[k]->d_name + len - 3, ".so") == 0 &&
            snprintf(path, sizeof path, "%s/%s", entry, names[k]->d_name) < (int)sizeof path)
            st = plugins_load(path, kernel_name_taken, msg);
        free(names[k]);
    }
    free(names);
    return st;
}

/* The plug-ins of SPB_PLUGIN_PATH (entries separated by ':') and of every
 * --plugin PATH on the command line, loaded before any kernel table is
 * made; 0, or EXIT_USAGE after one line. */
int load_plugins(int argc, char **argv)
{
    char msg[SPB_MSG_LEN] = "";
    spb_status st = SPB_OK;
    const char *path = getenv("SPB_PLUGIN_PATH");
    while (st == SPB_OK && path && *path) {
        const char *end = strchr(path, ':');
        size_t len = end ? (size_t)(end - path) : strlen(path);
        char entry[SPB_PATH_LEN];
        if (len > 0 && len < sizeof entry) {
            memcpy(entry, path, len);
            entry[len] = '\0';
            st = load_plugin_entry(entry, msg);
        }
        path = end ? end + 1 : NULL;
    }
    for (int i = 2; st == SPB_OK && i < argc; i++) {
        if (strcmp(argv[i], "--") == 0) break;
        if (strcmp(argv[i], "--plugin") == 0 && i + 1 < argc)
            st = plugins_load(argv[++i], kernel_name_taken, msg);
        else if (strncmp(argv[i], "--plugin=", 9) == 0)
            st = plugins_load(argv[i] + 9, kernel_name_taken, msg);
    }
    if (st == SPB_OK) return 0;
    fprintf(stderr, "spbench: %s\n", msg);
    return EXIT_USAGE;
}
