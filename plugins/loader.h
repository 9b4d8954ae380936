/* loader.h — kernels from plug-ins (include/spbench/plugin.h): shared
 * libraries loaded at start (--plugin, SPB_PLUGIN_PATH) whose kernels join
 * the operation's table as rows like any other. */
#ifndef SPB_PLUGIN_LOADER_H
#define SPB_PLUGIN_LOADER_H

#include "core/kernel.h"
#include "core/spb.h"

/* Loads the plug-in at path and adds its kernels; SPB_ERR_INVALID with msg
 * (one line naming the library) for a file that is not a plug-in, of
 * another ABI, or whose kernels are malformed or clash with a name
 * already in the table (`taken` says whether a name is spbench's own). */
spb_status plugins_load(const char *path, int (*taken)(const char *name), char *msg);

/* While a kernel's process is awaited, stop() is asked every 100 ms; when
 * it says 1 the process is stopped and the call fails (the run, stopping,
 * writes no row of it). */
void plugins_watch_stop(int (*stop)(void));

/* give_back, before a kernel's process starts, sets the calling thread's
 * CPUs to all of spbench's (its OpenMP runtime bound the thread to one):
 * the process's own OpenMP threads then spread over them. The thread's
 * own CPUs are restored after. */
void plugins_spawn_with(void (*give_back)(void));

/* "crc32 HEX, N bytes" of the file at path into out; 0 when unreadable. */
int plugins_checksum(const char *path, char *out, size_t size);

/* The SpMV kernels the plug-ins added, in load order (each an
 * spb_spmv_kernel's shared part). */
int plugin_spmv_kernel_count(void);
const spb_kernel *plugin_spmv_kernel(int k);
/* The SpGEMM kernels, likewise (each an spb_spgemm_kernel's shared part). */
int plugin_spgemm_kernel_count(void);
const spb_kernel *plugin_spgemm_kernel(int k);

/* The library a plug-in kernel came from ("PATH (crc32 HEX, N bytes)"), or NULL for
 * a kernel of spbench's own. */
const char *plugin_library_of(const spb_kernel *kernel);

/* Every loaded library and its checksum, "plugin=NAME:crc32:HEX ..." (empty
 * without plug-ins): what the rows' measured_under carries, so resume and
 * merge refuse rows of a changed library. */
const char *plugins_provenance(void);

#endif
