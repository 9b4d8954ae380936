/* loader.c — kernels from plug-ins (see loader.h). */
#include "plugins/loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "core/memory.h"
#include "core/timing.h"
#include "formats/csr.h"
#include "formats/format_set.h"
#include "gpu/gpu.h"
#include "plugins/protocol.h"
#include "spbench/plugin.h"

extern char **environ;

/* One plug-in kernel as a row of the table: spbench's kernel, and what it
 * wraps. */
typedef struct {
    union { /* kernel.as_spmv.kernel is kernel.as_spgemm.kernel: the part both share */
        spb_spmv_kernel as_spmv;
        spb_spgemm_kernel as_spgemm;
    } row;
    const spb_plugin_kernel *plugin;
    const char *path;     /* the library as given */
    const char *checksum; /* "crc32 HEX, N bytes" */
    const char *library;  /* "PATH (crc32 HEX, N bytes)" */
} plugin_row;

static plugin_row *rows;
static int row_count, row_cap;
static char provenance[4096]; /* one token per library */

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

int plugins_checksum(const char *path, char *out, size_t size)
{
    unsigned long crc;
    long long bytes;
    if (!file_checksum(path, &crc, &bytes)) return 0;
    snprintf(out, size, "crc32 %08lx, %lld bytes", crc, bytes);
    return 1;
}

/* A kernel name spbench can carry into rows, files and charts: letters,
 * digits and . _ -, 1 to 63 characters. */
static int name_well_formed(const char *name)
{
    size_t len = name ? strlen(name) : 0;
    return len >= 1 && len <= 63 &&
           strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == len;
}

static const plugin_row *row_of(const spb_kernel *self) { return self->variant; }

/* A prepared plug-in row: its kernel's process, the file shared with it
 * and the first failure met (every later call repeats it). */
typedef struct {
    const plugin_row *row;
    pid_t pid;
    int talk; /* the socket to the process */
    unsigned char *base;
    plugin_layout layout;
    double slowest; /* the slowest product so far, seconds */
    int failed;     /* 1 after a failure: the process is gone */
    char failure[SPB_MSG_LEN];
} plugin_state;

/* How long a request may go unanswered before the kernel counts as hung:
 * SPB_PLUGIN_HANG_S seconds (default 60), and a timed request also 20
 * times its products at the slowest product's pace. */
static double hang_seconds(const plugin_state *s, int calls)
{
    const char *text = getenv("SPB_PLUGIN_HANG_S");
    double limit = text ? atof(text) : 0;
    if (!(limit > 0)) limit = 60;
    return limit + 20.0 * calls * s->slowest;
}

/* The process gone (killed when still running) and what became of it. */
static void stop_process(plugin_state *s, int kill_it, const char *what)
{
    int status = 0;
    if (kill_it) kill(s->pid, SIGKILL);
    pid_t got;
    do got = waitpid(s->pid, &status, 0);
    while (got < 0 && errno == EINTR);
    char how[96] = "";
    if (got == s->pid && WIFSIGNALED(status))
        snprintf(how, sizeof how, "%s (signal %d)", strsignal(WTERMSIG(status)), WTERMSIG(status));
    else if (got == s->pid && WIFEXITED(status))
        snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
    if (!s->failed && what) {
        snprintf(s->failure, sizeof s->failure, "%s%s%s", what, how[0] ? ": " : "", how);
        s->failed = 1;
    }
    close(s->talk);
    s->talk = -1;
    s->pid = 0;
}

static int (*stop_requested)(void);
static void (*give_back_cpus)(void);

void plugins_spawn_with(void (*give_back)(void)) { give_back_cpus = give_back; }

void plugins_watch_stop(int (*stop)(void)) { stop_requested = stop; }

/* Reads `bytes` from the kernel's process within `seconds`; 0 when they
 * did not come, the process stopped: s->failure says what was `missing`
 * past the time, or `ended`, or that the study stopped. */
static int await_bytes(plugin_state *s, void *into, size_t bytes, double seconds,
                       const char *missing, const char *ended)
{
    double deadline = timing_now() + seconds;
    size_t got = 0;
    while (got < bytes) {
        int wait_ms = (int)((deadline - timing_now()) * 1e3);
        struct pollfd p = {.fd = s->talk, .events = POLLIN};
        int ready = wait_ms > 0 ? poll(&p, 1, wait_ms < 100 ? wait_ms : 100) : 0;
        if (stop_requested && stop_requested()) {
            stop_process(s, 1, "stopped with the study");
            return 0;
        }
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0 && wait_ms > 100) continue;
        if (ready <= 0) {
            char what[160];
            snprintf(what, sizeof what,
                     "%s within %.0f s: the kernel hung, its process was stopped", missing,
                     seconds);
            stop_process(s, 1, what);
            return 0;
        }
        ssize_t n = recv(s->talk, (char *)into + got, bytes - got, 0);
        if (n <= 0) {
            stop_process(s, 0, ended);
            return 0;
        }
        got += (size_t)n;
    }
    return 1;
}

/* Reads one reply within `seconds`; 0 when none came (the process ended
 * or hung: s->failure says which). */
static int await_reply(plugin_state *s, double seconds, plugin_reply *r)
{
    if (!await_bytes(s, r, sizeof *r, seconds, "no answer", "its process ended")) return 0;
    /* the kernel's words are data: one line of text, whatever it wrote */
    r->msg[sizeof r->msg - 1] = '\0';
    spb_clean_name(r->msg);
    if (r->status == PLUGIN_FAULT) { /* it is dying of the fault it describes */
        char what[SPB_MSG_LEN];
        snprintf(what, sizeof what, "the kernel crashed: %.400s", r->msg);
        stop_process(s, 0, what);
        return 0;
    }
    return 1;
}

/* One request answered: SPB_PLUGIN_* of the kernel (r->msg its reason), or
 * -1 when the process failed (s->failure says how). */
static int ask(plugin_state *s, int op, int calls, plugin_reply *r)
{
    if (s->failed) return -1;
    plugin_request q = {.op = op, .calls = calls};
    if (send(s->talk, &q, sizeof q, MSG_NOSIGNAL) != (ssize_t)sizeof q) {
        stop_process(s, 1, "its process stopped listening");
        return -1;
    }
    if (!await_reply(s, hang_seconds(s, calls), r)) return -1;
    return r->status;
}

/* One matrix into the shared file at its sections. */
static void share_matrix(unsigned char *base, const spb_csr *M, const float *val32,
                         uint64_t row_ptr_at, uint64_t col_idx_at, uint64_t values_at,
                         int64_t value_bytes)
{
    memcpy(base + row_ptr_at, M->row_ptr, sizeof(int32_t) * ((size_t)M->m + 1));
    memcpy(base + col_idx_at, M->col_idx, sizeof(int32_t) * (size_t)M->nnz);
    memcpy(base + values_at, val32 ? (const void *)val32 : (const void *)M->val,
           (size_t)value_bytes * (size_t)M->nnz);
}

/* The shared file: the layout, the matrices (B for SpGEMM), x and y; the
 * pattern before y. */
static int share_data(plugin_state *s, const spb_csr *A, const float *val32, const spb_csr *B,
                      const float *b_val32, int fd)
{
    plugin_layout *L = &s->layout;
    if (ftruncate(fd, (off_t)L->total) != 0) return 0;
    s->base = mmap(NULL, L->total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (s->base == MAP_FAILED) {
        s->base = NULL;
        return 0;
    }
    memcpy(s->base, L, sizeof *L);
    share_matrix(s->base, A, val32, L->row_ptr_at, L->col_idx_at, L->values_at, L->value_bytes);
    if (B)
        share_matrix(s->base, B, b_val32, L->b_row_ptr_at, L->b_col_idx_at, L->b_values_at,
                     L->value_bytes);
    memset(s->base + L->y_slack_at, PLUGIN_SLACK_BYTE, L->y_at - L->y_slack_at);
    return 1;
}

/* spbench started again as the kernel's process, the file and one end of
 * the socket at the numbers host.h names. */
static int start_process(plugin_state *s, int fd, char *msg)
{
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
        spb_fail(msg, SPB_ERR_IO, "cannot make a socket for the kernel's process: %s",
                 strerror(errno));
        return 0;
    }
    char self[SPB_PATH_LEN];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    char *argv[] = {"spbench",
                    PLUGIN_HOST_ARG,
                    (char *)s->row->path,
                    (char *)s->row->checksum,
                    (char *)s->row->plugin->name,
                    NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, PLUGIN_HOST_FILE);
    posix_spawn_file_actions_adddup2(&actions, ends[1], PLUGIN_HOST_TALK);
    /* a group of its own: Ctrl-C stops spbench, which then stops it (an
     * interrupted study writes no row the kernel did not fail) */
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);
    cpu_set_t own; /* this thread's CPUs, lent back to spbench's for the start */
    int kept = give_back_cpus && sched_getaffinity(0, sizeof own, &own) == 0;
    if (kept) give_back_cpus();
    int rc = len > 0 ? posix_spawn(&s->pid, self, &actions, &attributes, argv, environ) : ENOENT;
    if (kept) sched_setaffinity(0, sizeof own, &own);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(ends[1]);
    if (rc != 0) {
        close(ends[0]);
        spb_fail(msg, SPB_ERR_IO, "cannot start the kernel's process (%s): %s", self, strerror(rc));
        return 0;
    }
    s->talk = ends[0];
    return 1;
}

static void plugin_release(void *state);

static spb_status plugin_prepare(const spb_kernel *self, spb_format_set *F,
                                 const spb_kernel_config *config, spb_kernel_plan *plan, char *msg)
{
    const plugin_row *row = row_of(self);
    int spgemm = row->plugin->operation == SPB_PLUGIN_SPGEMM;
    const float *val32 = NULL, *b_val32 = NULL;
    if (config->precision == SPB_FP32) {
        spb_status st = format_set_csr_values32(F, &val32, msg);
        if (st == SPB_OK && spgemm) st = format_set_b_values32(F, &b_val32, msg);
        if (st != SPB_OK) return st;
    }
    plugin_state *s = spb_calloc(1, sizeof *s);
    if (!s) return spb_fail(msg, SPB_ERR_NOMEM, "out of memory");
    const spb_csr *A = F->csr, *B = spgemm ? F->b : NULL;
    s->row = row;
    s->talk = -1;
    int fp32 = config->precision == SPB_FP32;
    plugin_sizes size = {.rows = A->m, .cols = A->n, .nnz = A->nnz};
    if (B) size.b_rows = B->m, size.b_cols = B->n, size.b_nnz = B->nnz;
    plugin_layout_plan(&s->layout, &size, fp32 ? SPB_PLUGIN_FP32 : SPB_PLUGIN_FP64, fp32 ? 4 : 8,
                       (uint64_t)sysconf(_SC_PAGESIZE));
    s->layout.operation = row->plugin->operation;
    s->layout.backend = row->plugin->backend;
    s->layout.threads = row->plugin->backend == SPB_PLUGIN_OPENMP ? config->threads : 1;
    int fd = memfd_create("spbench-plugin", MFD_CLOEXEC);
    int ready = fd >= 0 && share_data(s, A, val32, B, b_val32, fd);
    if (!ready)
        spb_fail(msg, SPB_ERR_NOMEM, "cannot share %.0f bytes with the kernel's process: %s",
                 (double)s->layout.total, strerror(errno));
    else
        ready = start_process(s, fd, msg);
    if (fd >= 0) close(fd);
    plugin_reply r;
    int rc = ready ? ask(s, PLUGIN_PREPARE, 0, &r) : -1;
    if (rc != SPB_PLUGIN_OK) {
        spb_status st = rc == SPB_PLUGIN_DECLINED ? SPB_ERR_DECLINED : SPB_ERR_DEVICE;
        if (rc >= 0)
            spb_fail(msg, st, "%s",
                     r.msg[0] ? r.msg : "the plug-in's prepare failed, saying nothing");
        else if (ready)
            spb_fail(msg, st, "%s", s->failure);
        plugin_release(s);
        return st;
    }
    plan->state = s;
    plan->stored_entries = A->nnz;
    if (!spgemm) plan->bytes = csr_spmv_bytes(A, config->precision);
    return SPB_OK;
}

/* One product in the kernel's process: x in, y (as it was: poisoned) in
 * and out. */
static spb_status plugin_spmv(const void *state, const void *x, void *y, char *msg)
{
    plugin_state *s = (plugin_state *)state;
    const plugin_layout *L = &s->layout;
    size_t x_bytes = (size_t)(L->value_bytes * L->size.cols),
           y_bytes = (size_t)(L->value_bytes * L->size.rows);
    if (s->failed) return spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure);
    memcpy(s->base + L->x_at, x, x_bytes);
    memcpy(s->base + L->y_at, y, y_bytes);
    plugin_reply r;
    int rc = ask(s, PLUGIN_PRODUCT, 1, &r);
    if (rc < 0) return spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure);
    if (r.seconds > s->slowest) s->slowest = r.seconds;
    memcpy(y, s->base + L->y_at, y_bytes);
    if (rc == SPB_PLUGIN_OK) return SPB_OK;
    return spb_fail(msg, SPB_ERR_DEVICE, "%s", r.msg[0] ? r.msg : "the plug-in's product failed");
}

/* C = A*B in the kernel's process; C comes back over the socket and is
 * checked as any row's C is (csr_check) before it is validated. */
static spb_status plugin_spgemm(const void *state, spb_csr *C, char *msg)
{
    plugin_state *s = (plugin_state *)state;
    const plugin_layout *L = &s->layout;
    memset(C, 0, sizeof *C);
    if (s->failed) return spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure);
    plugin_reply r;
    int rc = ask(s, PLUGIN_PRODUCT, 1, &r);
    if (rc < 0) return spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure);
    if (r.seconds > s->slowest) s->slowest = r.seconds;
    if (rc != SPB_PLUGIN_OK)
        return spb_fail(msg, SPB_ERR_DEVICE, "%s",
                        r.msg[0] ? r.msg : "the plug-in's product failed");
    if (r.c_nnz < 0 || r.c_nnz > SPB_INDEX_MAX) {
        stop_process(s, 1, "its C's entry count is out of range");
        return spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure);
    }
    spb_status st = csr_alloc(C, L->size.rows, L->size.b_cols, (spb_index)r.c_nnz, msg);
    if (st != SPB_OK) return st;
    size_t nnz = (size_t)r.c_nnz, value_bytes = (size_t)L->value_bytes;
    void *values = value_bytes == sizeof(float) ? spb_malloc(nnz + 1, sizeof(float)) : C->val;
    double limit = hang_seconds(s, 1);
    const char *late = "not all of C", *ended = "its process ended while sending C";
    int came =
        values &&
        await_bytes(s, C->row_ptr, sizeof(int32_t) * ((size_t)C->m + 1), limit, late, ended) &&
        await_bytes(s, C->col_idx, sizeof(int32_t) * nnz, limit, late, ended) &&
        await_bytes(s, values, value_bytes * nnz, limit, late, ended);
    if (came && values != (void *)C->val)
        for (size_t k = 0; k < nnz; k++) C->val[k] = ((const float *)values)[k];
    if (values != (void *)C->val) spb_free(values);
    if (!came) {
        csr_free(C);
        return values ? spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure)
                      : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for C");
    }
    st = csr_check(C, msg);
    if (st != SPB_OK) {
        char why[SPB_MSG_LEN];
        snprintf(why, sizeof why, "its C is not a canonical CSR: %s", msg);
        csr_free(C);
        msg[0] = '\0'; /* spb_fail keeps a message already there */
        return spb_fail(msg, SPB_ERR_DEVICE, "%s", why);
    }
    return SPB_OK;
}

/* `calls` products back to back, timed in the kernel's process; seconds,
 * or -1 (plugin_check says why). */
static double plugin_time_calls(void *state, int calls)
{
    plugin_state *s = state;
    plugin_reply r;
    int rc = ask(s, PLUGIN_TIME, calls, &r);
    if (rc == SPB_PLUGIN_OK) {
        if (calls > 0 && r.seconds / calls > s->slowest) s->slowest = r.seconds / calls;
        return r.seconds;
    }
    if (rc >= 0) { /* the kernel said it failed (or wrote before y): the row ends here */
        snprintf(s->failure, sizeof s->failure, "%s",
                 r.msg[0] ? r.msg : "the plug-in's product failed");
        s->failed = 1; /* its own account, not how the stopped process ended */
        stop_process(s, 1, NULL);
    }
    return -1.0;
}

static spb_status plugin_check(const void *state, char *msg)
{
    const plugin_state *s = state;
    return s->failed ? spb_fail(msg, SPB_ERR_DEVICE, "%s", s->failure) : SPB_OK;
}

static void plugin_release(void *state)
{
    plugin_state *s = state;
    if (!s) return;
    if (s->pid > 0) {
        plugin_reply r;
        int rc = ask(s, PLUGIN_RELEASE, 0, &r);
        if (s->pid > 0) stop_process(s, rc != SPB_PLUGIN_OK, "released");
    }
    if (s->base) munmap(s->base, s->layout.total);
    spb_free(s);
}

/* A CUDA plug-in row runs where spbench's own device rows do. */
static int device_here(const spb_kernel *self, const spb_csr *A, char *why)
{
    (void)self, (void)A;
    return gpu_available(why);
}

/* An SpGEMM plug-in row's host memory: C received (and, in the kernel's
 * process, staged beside the kernel's own), A and B shared with it. */
static double spgemm_host_bytes(const spb_kernel *self, const spb_work_size *size,
                                const spb_kernel_config *config)
{
    (void)self;
    double value = config->precision == SPB_FP32 ? 4 : 8, entry = sizeof(int32_t) + value;
    return 3 * size->nnz_c * entry + (size->nnz_a + size->nnz_b) * entry +
           (2 * size->m + size->n) * sizeof(int32_t);
}

/* Why kernel k of the library cannot be a row, or NULL. */
static const char *kernel_fault(const spb_plugin_kernel *k, int (*taken)(const char *name))
{
    if (!name_well_formed(k->name))
        return "a kernel's name is not 1-63 letters, digits, '.', '_' or '-'";
    if (k->operation != SPB_PLUGIN_SPMV && k->operation != SPB_PLUGIN_SPGEMM)
        return "a kernel's operation is not SPB_PLUGIN_SPMV or SPB_PLUGIN_SPGEMM";
    if (k->backend != SPB_PLUGIN_SERIAL && k->backend != SPB_PLUGIN_OPENMP &&
        k->backend != SPB_PLUGIN_CUDA)
        return "a kernel's backend is not SPB_PLUGIN_SERIAL, SPB_PLUGIN_OPENMP or SPB_PLUGIN_CUDA";
    if (!k->prepare) return "a kernel has no prepare";
    if (k->operation == SPB_PLUGIN_SPMV && (!k->spmv || k->spgemm))
        return "an SpMV kernel has no spmv, or an spgemm too";
    if (k->operation == SPB_PLUGIN_SPGEMM && (!k->spgemm || k->spmv))
        return "an SpGEMM kernel has no spgemm, or an spmv too";
    if (!k->description || !k->description[0]) return "a kernel has no description";
    if (taken(k->name)) return "a kernel's name is one spbench's table already holds";
    for (int j = 0; j < row_count; j++)
        if (strcmp(rows[j].row.as_spmv.kernel.name, k->name) == 0)
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
    size_t path_len = strlen(path);
    /* kept: "PATH (crc32 HEX, N bytes)", then PATH and "crc32 HEX, N bytes" apart */
    char *kept = spb_malloc(2 * strlen(library) + 2, 1);
    int room = kept != NULL; /* spb_grow makes room for one more: as often as it takes */
    while (room && row_cap < row_count + lib->count)
        room = spb_grow((void **)&rows, &row_cap, row_cap, lib->count, sizeof *rows);
    if (!room) {
        spb_free(kept);
        dlclose(handle);
        return spb_fail(msg, SPB_ERR_NOMEM, "--plugin %s: out of memory", path);
    }
    memcpy(kept, library, strlen(library) + 1);
    char *kept_path = kept + strlen(library) + 1, *kept_sum = kept_path + path_len + 1;
    memcpy(kept_path, path, path_len + 1);
    size_t sum_len = strlen(library) - path_len - 3; /* between " (" and ")" */
    memcpy(kept_sum, library + path_len + 2, sum_len);
    kept_sum[sum_len] = '\0';
    for (int k = 0; k < lib->count; k++) {
        const spb_plugin_kernel *p = &lib->kernels[k];
        plugin_row *r = &rows[row_count++];
        /* the library's words are data: one line of text wherever printed */
        size_t said = strlen(p->description);
        char *description = spb_malloc(said + 1, 1);
        if (description) {
            memcpy(description, p->description, said + 1);
            spb_clean_name(description);
        }
        *r = (plugin_row){.plugin = p, .path = kept_path, .checksum = kept_sum, .library = kept};
        spb_kernel *kernel = &r->row.as_spmv.kernel;
        *kernel = (spb_kernel){
            .name = p->name,
            .format = "csr",
            .backend = p->backend == SPB_PLUGIN_CUDA     ? SPB_BACKEND_CUDA
                       : p->backend == SPB_PLUGIN_OPENMP ? SPB_BACKEND_OPENMP
                                                         : SPB_BACKEND_SERIAL,
            .description = description ? description : "(no room for its description)",
            .supports = p->backend == SPB_PLUGIN_CUDA ? device_here : NULL,
            .prepare = plugin_prepare,
            .release = plugin_release,
            .time_calls = plugin_time_calls,
            .check = plugin_check,
            .fp32 = p->fp32 != 0,
            .host_bytes = p->operation == SPB_PLUGIN_SPGEMM ? spgemm_host_bytes : NULL,
        };
        if (p->operation == SPB_PLUGIN_SPGEMM)
            r->row.as_spgemm.spgemm = plugin_spgemm;
        else
            r->row.as_spmv.spmv = plugin_spmv;
    }
    /* the variants point into rows[], which may have moved: set them all */
    for (int k = 0; k < row_count; k++) rows[k].row.as_spmv.kernel.variant = &rows[k];
    const char *base = strrchr(path, '/');
    const size_t used = strlen(provenance);
    spb_appendf(provenance, sizeof provenance, "%splugin=%s:crc32=%08lx:bytes=%lld",
                used ? " " : "", base ? base + 1 : path, crc, bytes);
    for (char *c = provenance + used; *c; c++) /* one token per library, whatever its name */
        if (*c == ' ' || *c == ',' || *c == '"' || (unsigned char)*c < 0x20) *c = '_';
    return SPB_OK;
}

/* The k-th row of the operation's kernels, or NULL. */
static const spb_kernel *kernel_of_operation(int operation, int k)
{
    for (int j = 0; j < row_count; j++)
        if (rows[j].plugin->operation == operation && k-- == 0) return &rows[j].row.as_spmv.kernel;
    return NULL;
}

static int kernels_of_operation(int operation)
{
    int count = 0;
    for (int j = 0; j < row_count; j++) count += rows[j].plugin->operation == operation;
    return count;
}

int plugin_spmv_kernel_count(void) { return kernels_of_operation(SPB_PLUGIN_SPMV); }
const spb_kernel *plugin_spmv_kernel(int k) { return kernel_of_operation(SPB_PLUGIN_SPMV, k); }
int plugin_spgemm_kernel_count(void) { return kernels_of_operation(SPB_PLUGIN_SPGEMM); }
const spb_kernel *plugin_spgemm_kernel(int k) { return kernel_of_operation(SPB_PLUGIN_SPGEMM, k); }

const char *plugin_library_of(const spb_kernel *kernel)
{
    for (int k = 0; k < row_count; k++)
        if (&rows[k].row.as_spmv.kernel == kernel) return rows[k].library;
    return NULL;
}

const char *plugins_provenance(void) { return provenance; }
