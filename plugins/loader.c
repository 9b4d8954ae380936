/* loader.c — kernels from plug-ins (see loader.h). */
#include "plugins/loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "core/memory.h"
#include "formats/csr.h"
#include "formats/format_set.h"
#include "spbench/plugin.h"

/* One plug-in kernel as a row of the table: spbench's kernel, and what it
 * wraps. */
typedef struct {
    spb_spmv_kernel row;
    const spb_plugin_kernel *plugin;
    const char *library; /* "PATH (crc32 HEX, N bytes)" */
} plugin_row;

static plugin_row *rows;
static int row_count, row_cap;
static char provenance[4096];

/* The CRC-32 and length of the file at path; 0 when it cannot be read. */
static int file_checksum(const char *path, unsigned long *crc_out, long long *bytes_out)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    unsigned char buffer[65536];
    uLong crc = crc32(0L, Z_NULL, 0);
    long long bytes = 0;
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, f)) > 0) {
        crc = crc32(crc, buffer, (uInt)got);
        bytes += (long long)got;
    }
    int ok = !ferror(f);
    fclose(f);
    *crc_out = (unsigned long)crc;
    *bytes_out = bytes;
    return ok;
}

/* A kernel name spbench can carry into rows, files and charts: letters,
 * digits and . _ -, 1 to 63 characters. */
static int name_well_formed(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len >= 1 && len <= 63 &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

typedef struct {
    const spb_plugin_kernel *plugin;
    spb_plugin_csr csr;
    void *state;
} plugin_state;

static const plugin_row *row_of(const spb_kernel *self) { return self->variant; }

static spb_status plugin_prepare(const spb_kernel *self, spb_format_set *F,
                                 const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const spb_plugin_kernel *k = row_of(self)->plugin;
    const float *val32 = NULL;
    if (config->precision == SPB_FP32) {
        spb_status st = format_set_csr_values32(F, &val32, msg);
        if (st != SPB_OK) return st;
    }
    plugin_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    const spb_csr *A = F->csr;
    s->plugin = k;
    s->csr = (spb_plugin_csr){.rows = A->m,
                              .cols = A->n,
                              .nnz = A->nnz,
                              .row_ptr = A->row_ptr,
                              .col_idx = A->col_idx,
                              .values = val32 ? (const void *)val32 : (const void *)A->val};
    spb_plugin_config pc = {.precision =
                                config->precision == SPB_FP32 ? SPB_PLUGIN_FP32 : SPB_PLUGIN_FP64,
                            .threads = k->backend == SPB_PLUGIN_OPENMP ? config->threads : 1};
    char why[SPB_MSG_LEN] = "";
    int rc = k->prepare(&s->csr, &pc, &s->state, why, sizeof why);
    if (rc != SPB_PLUGIN_OK) {
        if (k->release) k->release(s->state);
        spb_free(s);
        return spb_fail(msg, rc == SPB_PLUGIN_DECLINED ? SPB_ERR_DECLINED : SPB_ERR_DEVICE, "%s",
                        why[0] ? why : "the plug-in's prepare failed, saying nothing");
    }
    plan->state = s;
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A, config->precision);
    return SPB_OK;
}

static spb_status plugin_spmv(const void *state, const void *x, void *y, char *msg)
{
    const plugin_state *s = state;
    msg[0] = '\0'; /* the timed call: no buffer cleared beyond this byte */
    if (s->plugin->spmv(s->state, x, y, msg, SPB_MSG_LEN) == SPB_PLUGIN_OK) return SPB_OK;
    if (!msg[0]) return spb_fail(msg, SPB_ERR_DEVICE, "the plug-in's product failed");
    return SPB_ERR_DEVICE;
}

static void plugin_release(void *state)
{
    plugin_state *s = state;
    if (!s) return;
    if (s->plugin->release) s->plugin->release(s->state);
    spb_free(s);
}

/* Why kernel k of the library cannot be a row, or NULL. */
static const char *kernel_fault(const spb_plugin_kernel *k, int (*taken)(const char *name))
{
    if (!name_well_formed(k->name))
        return "a kernel's name is not 1-63 letters, digits, '.', '_' or '-'";
    if (k->operation != SPB_PLUGIN_SPMV) return "a kernel's operation is not SPB_PLUGIN_SPMV";
    if (k->backend != SPB_PLUGIN_SERIAL && k->backend != SPB_PLUGIN_OPENMP)
        return "a kernel's backend is not SPB_PLUGIN_SERIAL or SPB_PLUGIN_OPENMP";
    if (!k->prepare || !k->spmv) return "a kernel has no prepare or no spmv";
    if (!k->description || !k->description[0]) return "a kernel has no description";
    if (taken(k->name)) return "a kernel's name is one spbench's table already holds";
    for (int j = 0; j < row_count; j++)
        if (strcmp(rows[j].row.kernel.name, k->name) == 0)
            return "a kernel's name is one an earlier plug-in already holds";
    return NULL;
}

spb_status plugins_load(const char *path, int (*taken)(const char *name), char *msg)
{
    unsigned long crc;
    long long bytes;
    if (!file_checksum(path, &crc, &bytes))
        return spb_fail(msg, SPB_ERR_INVALID, "--plugin %s: cannot read it", path);
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle)
        return spb_fail(msg, SPB_ERR_INVALID, "--plugin %s: not a shared library it can load (%s)",
                        path, dlerror());
    const spb_plugin_library *(*declare)(void) = NULL;
    *(void **)&declare = dlsym(handle, "spb_plugin_kernels");
    const spb_plugin_library *lib = declare ? declare() : NULL;
    if (lib && lib->abi != SPB_PLUGIN_ABI) {
        int abi = lib->abi; /* the library's data: read before it is unloaded */
        dlclose(handle);
        return spb_fail(msg, SPB_ERR_INVALID,
                        "--plugin %s: built against plug-in ABI %d; this spbench has ABI %d "
                        "(rebuild it against this spbench's include/spbench/plugin.h)",
                        path, abi, SPB_PLUGIN_ABI);
    }
    const char *fault = !declare ? "not a plug-in: it exports no spb_plugin_kernels()"
                        : !lib   ? "spb_plugin_kernels() returned NULL"
                        : lib->count < 1 || !lib->kernels ? "it declares no kernel"
                                                          : NULL;
    for (int k = 0; !fault && k < lib->count; k++) fault = kernel_fault(&lib->kernels[k], taken);
    if (fault) {
        dlclose(handle);
        return spb_fail(msg, SPB_ERR_INVALID, "--plugin %s: %s", path, fault);
    }
    char library[4200];
    snprintf(library, sizeof library, "%s (crc32 %08lx, %lld bytes)", path, crc, bytes);
    char *kept = spb_malloc(strlen(library) + 1, 1);
    if (!kept ||
        !spb_grow((void **)&rows, &row_cap, row_count + lib->count - 1, lib->count, sizeof *rows)) {
        spb_free(kept);
        dlclose(handle);
        return spb_fail(msg, SPB_ERR_NOMEM, "--plugin %s: out of memory", path);
    }
    memcpy(kept, library, strlen(library) + 1);
    for (int k = 0; k < lib->count; k++) {
        const spb_plugin_kernel *p = &lib->kernels[k];
        plugin_row *r = &rows[row_count++];
        *r = (plugin_row){.plugin = p, .library = kept};
        r->row.kernel = (spb_kernel){
            .name = p->name,
            .format = "csr",
            .backend = p->backend == SPB_PLUGIN_OPENMP ? SPB_BACKEND_OPENMP : SPB_BACKEND_SERIAL,
            .description = p->description,
            .prepare = plugin_prepare,
            .release = plugin_release,
            .fp32 = p->fp32 != 0,
        };
        r->row.spmv = plugin_spmv;
    }
    /* the variants point into rows[], which may have moved: set them all */
    for (int k = 0; k < row_count; k++) rows[k].row.kernel.variant = &rows[k];
    const char *base = strrchr(path, '/');
    size_t used = strlen(provenance);
    snprintf(provenance + used, sizeof provenance - used, "%splugin=%s:crc32=%08lx:bytes=%lld",
             used ? " " : "", base ? base + 1 : path, crc, bytes);
    for (char *c = provenance + used; *c; c++) /* one token per library, whatever its name */
        if (*c == ' ' || *c == ',' || *c == '"' || (unsigned char)*c < 0x20) *c = '_';
    return SPB_OK;
}

int plugin_spmv_kernel_count(void) { return row_count; }

const spb_kernel *plugin_spmv_kernel(int k) { return &rows[k].row.kernel; }

const char *plugin_library_of(const spb_kernel *kernel)
{
    for (int k = 0; k < row_count; k++)
        if (&rows[k].row.kernel == kernel) return rows[k].library;
    return NULL;
}

const char *plugins_provenance(void) { return provenance; }
