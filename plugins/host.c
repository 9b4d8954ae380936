/* host.c — the process a plug-in kernel runs in (see host.h). */
#include "plugins/host.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/timing.h"
#include "gpu/gpu.h"
#include "plugins/loader.h"
#include "plugins/protocol.h"
#include "spbench/plugin.h"

/* ---- the host side -------------------------------------------------------- */

static int talk = -1;
static unsigned char *base;
static const plugin_layout *layout;

/* Writes all of reply (async-signal-safe: the fault handler uses it). */
static void send_reply(const plugin_reply *r)
{
    const char *p = (const char *)r;
    size_t left = sizeof *r;
    while (left > 0) {
        ssize_t sent = send(talk, p, left, MSG_NOSIGNAL);
        if (sent <= 0) return;
        p += sent, left -= (size_t)sent;
    }
}

static void reply(int32_t status, double seconds, const char *msg)
{
    plugin_reply r = {.status = status, .seconds = seconds};
    snprintf(r.msg, sizeof r.msg, "%s", msg ? msg : "");
    send_reply(&r);
}

/* What an address the kernel faulted on belongs to. */
static const char *fault_place(const void *address)
{
    uint64_t at = (uint64_t)((const unsigned char *)address - base);
    if ((const unsigned char *)address < base || at >= layout->total)
        return "an address outside the data spbench handed it";
    if (at < layout->row_ptr_at) return "spbench's own page before the matrix";
    if (at < layout->b_row_ptr_at) return "the matrix, which is read-only to it: a write";
    if (at < layout->matrix_end) return "B, which is read-only to it: a write";
    if (at < layout->x_at) return "the page before x";
    if (at < layout->x_guard_at) return "x, which is read-only to it: a write";
    if (at < layout->y_front_guard_at) return "past the end of x";
    if (at < layout->y_at) return "before the start of y";
    if (at < layout->y_guard_at) return "y, with a fault the page does not explain";
    return "past the end of y";
}

static void on_fault(int signo, siginfo_t *info, void *context)
{
    (void)context;
    plugin_reply r = {.status = PLUGIN_FAULT};
    /* no snprintf in a signal handler: the message from constant parts */
    const char *parts[] = {"it touched ", fault_place(info->si_addr)};
    size_t used = 0;
    for (size_t k = 0; k < 2; k++)
        for (const char *c = parts[k]; *c && used + 1 < sizeof r.msg; c++) r.msg[used++] = *c;
    r.msg[used] = '\0';
    send_reply(&r);
    signal(signo, SIG_DFL);
    raise(signo);
}

/* The handler on a stack of its own (a kernel that overflowed its stack
 * faults too). */
static void catch_faults(void)
{
    static char stack[64 * 1024];
    stack_t alt = {.ss_sp = stack, .ss_size = sizeof stack};
    sigaltstack(&alt, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
}

/* The kernel's read-only sections and guard pages, as the kernel sees them. */
static int protect(void)
{
    const plugin_layout *L = layout;
    return mprotect(base, L->matrix_end, PROT_READ) ||
           mprotect(base + L->matrix_end, L->x_guard_at - L->matrix_end, PROT_READ) ||
           mprotect(base + L->x_guard_at, L->page, PROT_NONE) ||
           mprotect(base + L->y_front_guard_at, L->page, PROT_NONE) ||
           mprotect(base + L->y_guard_at, L->page, PROT_NONE);
}

/* Whether the pattern before y is whole. */
static int slack_intact(void)
{
    for (uint64_t at = layout->y_slack_at; at < layout->y_at; at++)
        if (base[at] != PLUGIN_SLACK_BYTE) return 0;
    return 1;
}

static const spb_plugin_kernel *kernel_named(const char *path, const char *name, char *msg)
{
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(msg, SPB_MSG_LEN, "its process cannot load %s (%s)", path, dlerror());
        return NULL;
    }
    const spb_plugin_library *(*declare)(void) = NULL;
    *(void **)&declare = dlsym(handle, "spb_plugin_kernels");
    const spb_plugin_library *lib = declare ? declare() : NULL;
    for (int k = 0; lib && lib->abi == SPB_PLUGIN_ABI && k < lib->count; k++)
        if (lib->kernels[k].name && strcmp(lib->kernels[k].name, name) == 0)
            return &lib->kernels[k];
    snprintf(msg, SPB_MSG_LEN, "its process finds no kernel %s in %s", name, path);
    return NULL;
}

/* What the kernel is handed and what it made: views of the shared data,
 * or for a CUDA kernel the device copies. */
typedef struct {
    const spb_plugin_kernel *k;
    spb_plugin_csr A, B, C; /* C: an SpGEMM kernel's last product */
    spb_plugin_config config;
    const void *x;
    void *y;
    void *state;
    int device;      /* a CUDA kernel */
    void *copies[8]; /* its device buffers */
    int copy_count;
    unsigned char *y_region; /* on the device: pattern, y, pattern */
    int rc;                  /* the kernel's answer to its last call */
    char msg[SPB_MSG_LEN];
} host_run;

/* A device copy of `bytes` at host (NULL: uninitialised), kept for release. */
static void *device_copy(host_run *h, const void *host, size_t bytes, char *msg)
{
    void *device = NULL;
    if (h->copy_count == (int)(sizeof h->copies / sizeof h->copies[0]) ||
        gpu_buffer_alloc(&device, bytes, msg) != SPB_OK)
        return NULL;
    h->copies[h->copy_count++] = device;
    if (host && gpu_buffer_copy(device, host, bytes, 1, msg) != SPB_OK) return NULL;
    return device;
}

/* A matrix of the shared file as the kernel sees it (device copies for a
 * CUDA kernel); 0 with msg when the device refused. */
static int hand_matrix(host_run *h, spb_plugin_csr *M, int32_t rows, int32_t cols, int64_t nnz,
                       uint64_t row_ptr_at, uint64_t col_idx_at, uint64_t values_at, char *msg)
{
    *M = (spb_plugin_csr){.rows = rows,
                          .cols = cols,
                          .nnz = nnz,
                          .row_ptr = (const int32_t *)(base + row_ptr_at),
                          .col_idx = (const int32_t *)(base + col_idx_at),
                          .values = base + values_at};
    if (!h->device) return 1;
    size_t index_bytes = sizeof(int32_t) * (size_t)nnz;
    M->row_ptr = device_copy(h, M->row_ptr, sizeof(int32_t) * ((size_t)rows + 1), msg);
    M->col_idx = M->row_ptr ? device_copy(h, M->col_idx, index_bytes, msg) : NULL;
    M->values = M->col_idx
                    ? device_copy(h, M->values, (size_t)layout->value_bytes * (size_t)nnz, msg)
                    : NULL;
    return M->values != NULL;
}

/* The operands, x and y handed over; for a CUDA kernel, y between runs of
 * the pattern on the device. */
static int hand_operands(host_run *h, char *msg)
{
    const plugin_layout *L = layout;
    const plugin_sizes *z = &L->size;
    if (!hand_matrix(h, &h->A, z->rows, z->cols, z->nnz, L->row_ptr_at, L->col_idx_at, L->values_at,
                     msg))
        return 0;
    if (L->operation == SPB_PLUGIN_SPGEMM) {
        if (!hand_matrix(h, &h->B, z->b_rows, z->b_cols, z->b_nnz, L->b_row_ptr_at, L->b_col_idx_at,
                         L->b_values_at, msg))
            return 0;
        h->config.B = &h->B;
        return 1;
    }
    h->x = base + L->x_at;
    h->y = base + L->y_at;
    if (!h->device) return 1;
    size_t y_bytes = (size_t)L->value_bytes * (size_t)z->rows;
    h->x = device_copy(h, NULL, (size_t)L->value_bytes * (size_t)z->cols, msg);
    h->y_region = h->x ? device_copy(h, NULL, y_bytes + 2 * PLUGIN_DEVICE_SLACK, msg) : NULL;
    if (!h->y_region || gpu_buffer_fill(h->y_region, PLUGIN_SLACK_BYTE,
                                        y_bytes + 2 * PLUGIN_DEVICE_SLACK, msg) != SPB_OK)
        return 0;
    h->y = h->y_region + PLUGIN_DEVICE_SLACK;
    return 1;
}

/* Whether the patterns around a CUDA kernel's y are whole. */
static int device_slack_intact(const host_run *h, char *msg)
{
    unsigned char front[PLUGIN_DEVICE_SLACK], back[PLUGIN_DEVICE_SLACK];
    size_t y_bytes = (size_t)layout->value_bytes * (size_t)layout->size.rows;
    if (gpu_buffer_copy(front, h->y_region, sizeof front, 0, msg) != SPB_OK ||
        gpu_buffer_copy(back, h->y_region + PLUGIN_DEVICE_SLACK + y_bytes, sizeof back, 0, msg) !=
            SPB_OK)
        return -1;
    for (size_t k = 0; k < PLUGIN_DEVICE_SLACK; k++)
        if (front[k] != PLUGIN_SLACK_BYTE || back[k] != PLUGIN_SLACK_BYTE) return 0;
    return 1;
}

/* After products: the pattern around y whole, or the row fails. */
static void check_y(host_run *h)
{
    int intact = h->device ? device_slack_intact(h, h->msg) : slack_intact();
    if (intact != 1) h->rc = SPB_PLUGIN_FAILED;
    if (intact == 0)
        snprintf(h->msg, sizeof h->msg, "it wrote %s y",
                 h->device ? "just outside" : "before the start of");
}

/* One call of the kernel; nonzero stops a run of calls. */
static int call_kernel(void *context)
{
    host_run *h = context;
    h->msg[0] = '\0';
    h->rc = h->k->spmv ? h->k->spmv(h->state, h->x, h->y, h->msg, sizeof h->msg)
                       : h->k->spgemm(h->state, &h->C, h->msg, sizeof h->msg);
    h->msg[sizeof h->msg - 1] = '\0';             /* a kernel's message may fill the buffer */
    if (h->rc == SPB_PLUGIN_OK) h->msg[0] = '\0'; /* room for spbench's own account */
    return h->rc != SPB_PLUGIN_OK;
}

/* `calls` products, their seconds; h->rc and h->msg the outcome
 * (SPB_PLUGIN_FAILED with the device's account of a fault). */
static double run_calls(host_run *h, int calls)
{
    double seconds = 0;
    h->rc = SPB_PLUGIN_OK;
    if (h->device) {
        char why[SPB_MSG_LEN] = "";
        if (gpu_time_steps(call_kernel, h, calls, &seconds, why) != SPB_OK &&
            h->rc == SPB_PLUGIN_OK) {
            h->rc = SPB_PLUGIN_FAILED;
            snprintf(h->msg, sizeof h->msg, "%s", why);
        }
        return seconds;
    }
    double start = timing_now();
    for (int c = 0; c < calls; c++)
        if (call_kernel(h)) break;
    return timing_now() - start;
}

/* SpMV: x and y in from the shared file (a CUDA kernel's to the device),
 * one product, y back, the patterns around y checked. */
static void spmv_product(host_run *h)
{
    const plugin_layout *L = layout;
    size_t x_bytes = (size_t)L->value_bytes * (size_t)L->size.cols,
           y_bytes = (size_t)L->value_bytes * (size_t)L->size.rows;
    if (h->device && (gpu_buffer_copy((void *)h->x, base + L->x_at, x_bytes, 1, h->msg) != SPB_OK ||
                      gpu_buffer_copy(h->y, base + L->y_at, y_bytes, 1, h->msg) != SPB_OK)) {
        h->rc = SPB_PLUGIN_FAILED;
        return;
    }
    run_calls(h, 1);
    if (h->rc == SPB_PLUGIN_OK) check_y(h);
    if (h->rc == SPB_PLUGIN_OK && h->device &&
        gpu_buffer_copy(base + L->y_at, h->y, y_bytes, 0, h->msg) != SPB_OK)
        h->rc = SPB_PLUGIN_FAILED;
}

/* Writes all of `bytes` to spbench; 0 when it stopped listening. */
static int send_all(const void *data, size_t bytes)
{
    const char *p = data;
    while (bytes > 0) {
        ssize_t sent = send(talk, p, bytes, MSG_NOSIGNAL);
        if (sent <= 0) return 0;
        p += sent, bytes -= (size_t)sent;
    }
    return 1;
}

/* C as the kernel left it, copied into host buffers and checked for its
 * shape: 0 with h->msg when it is not one (or the device refused). */
static int stage_product(host_run *h, int32_t **row_ptr, int32_t **col_idx, void **values)
{
    const spb_plugin_csr *C = &h->C;
    size_t value_bytes = (size_t)layout->value_bytes;
    if (C->rows != h->A.rows || C->cols != h->B.cols || C->nnz < 0 || !C->row_ptr ||
        (C->nnz > 0 && (!C->col_idx || !C->values))) {
        snprintf(h->msg, sizeof h->msg,
                 "its C is %d x %d with %lld entries (or an array missing); A*B is %d x %d",
                 (int)C->rows, (int)C->cols, (long long)C->nnz, (int)h->A.rows, (int)h->B.cols);
        return 0;
    }
    size_t nnz = (size_t)C->nnz, ptr_bytes = sizeof(int32_t) * ((size_t)C->rows + 1);
    *row_ptr = malloc(ptr_bytes);
    *col_idx = malloc(sizeof(int32_t) * nnz + 1);
    *values = malloc(value_bytes * nnz + 1);
    if (!*row_ptr || !*col_idx || !*values) {
        snprintf(h->msg, sizeof h->msg, "its process is out of memory for C's %zu entries", nnz);
        return 0;
    }
    /* a host kernel's arrays are read here: a bad pointer faults now, before any reply */
    int copied = 1;
    const void *from[3] = {C->row_ptr, C->col_idx, C->values};
    void *to[3] = {*row_ptr, *col_idx, *values};
    size_t bytes[3] = {ptr_bytes, sizeof(int32_t) * nnz, value_bytes * nnz};
    for (int a = 0; a < 3 && copied; a++) {
        if (bytes[a] == 0) continue;
        if (h->device)
            copied = gpu_buffer_copy(to[a], from[a], bytes[a], 0, h->msg) == SPB_OK;
        else
            memcpy(to[a], from[a], bytes[a]);
    }
    if (copied && (*row_ptr)[C->rows] != C->nnz) {
        snprintf(h->msg, sizeof h->msg, "its C's row_ptr[rows] is %d, its nnz %lld",
                 (int)(*row_ptr)[C->rows], (long long)C->nnz);
        copied = 0;
    }
    return copied;
}

/* SpGEMM: one product, then C after the reply (or the failure alone). */
static void spgemm_product(host_run *h)
{
    memset(&h->C, 0, sizeof h->C);
    run_calls(h, 1);
    int32_t *row_ptr = NULL, *col_idx = NULL;
    void *values = NULL;
    if (h->rc == SPB_PLUGIN_OK && !stage_product(h, &row_ptr, &col_idx, &values))
        h->rc = SPB_PLUGIN_FAILED;
    plugin_reply r = {.status = h->rc, .c_nnz = h->rc == SPB_PLUGIN_OK ? h->C.nnz : 0};
    snprintf(r.msg, sizeof r.msg, "%s", h->msg);
    send_reply(&r);
    if (h->rc == SPB_PLUGIN_OK) {
        size_t nnz = (size_t)h->C.nnz;
        /* a spbench that stopped listening stops this process too */
        (void)(send_all(row_ptr, sizeof(int32_t) * ((size_t)h->C.rows + 1)) &&
               send_all(col_idx, sizeof(int32_t) * nnz) &&
               send_all(values, (size_t)layout->value_bytes * nnz));
    }
    free(row_ptr), free(col_idx), free(values);
}

static void release_run(host_run *h)
{
    if (h->k && h->k->release) h->k->release(h->state);
    for (int c = 0; c < h->copy_count; c++) gpu_buffer_free(h->copies[c]);
}

int plugin_host_main(int argc, char **argv)
{
    char msg[SPB_MSG_LEN] = "";
    talk = PLUGIN_HOST_TALK;
    /* ends with spbench, even in the middle of a kernel that hangs */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1) return 2;
    dup2(STDERR_FILENO, STDOUT_FILENO); /* a kernel that prints cannot mix into the table */
    struct stat st;
    if (argc != 5 || fstat(PLUGIN_HOST_FILE, &st) != 0) return 2;
    base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, PLUGIN_HOST_FILE, 0);
    if (base == MAP_FAILED) return 2;
    layout = (const plugin_layout *)base;
    const plugin_layout *L = layout;
    if (L->total != (uint64_t)st.st_size) return 2;
    char checksum[128] = "";
    plugins_checksum(argv[2], checksum, sizeof checksum);
    static host_run h;
    h.config = (spb_plugin_config){.precision = L->precision, .threads = L->threads};
    h.device = L->backend == SPB_PLUGIN_CUDA;
    if (strcmp(checksum, argv[3]) != 0)
        snprintf(msg, sizeof msg, "%s changed since spbench loaded it (%s, then %s)", argv[2],
                 argv[3], checksum[0] ? checksum : "unreadable");
    else
        h.k = kernel_named(argv[2], argv[4], msg);
    if (!h.k || protect() != 0 || !hand_operands(&h, msg)) {
        reply(SPB_PLUGIN_FAILED, 0, msg[0] ? msg : "its process cannot guard its data");
        release_run(&h);
        return 2;
    }
    catch_faults();
    plugin_request q;
    int device_lost = 0; /* a CUDA fault leaves the device unusable here */
    while (!device_lost && recv(talk, &q, sizeof q, MSG_WAITALL) == (ssize_t)sizeof q) {
        double seconds = 0;
        h.msg[0] = '\0'; /* spb_fail writes only into an empty message */
        switch (q.op) {
        case PLUGIN_PREPARE:
            h.msg[0] = '\0';
            h.rc = h.k->prepare(&h.A, &h.config, &h.state, h.msg, sizeof h.msg);
            h.msg[sizeof h.msg - 1] = '\0';
            break;
        case PLUGIN_PRODUCT:
            if (L->operation == SPB_PLUGIN_SPGEMM) {
                spgemm_product(&h); /* replies itself: C follows the reply */
                device_lost = h.device && h.rc != SPB_PLUGIN_OK;
                continue;
            }
            spmv_product(&h);
            break;
        case PLUGIN_TIME:
            seconds = run_calls(&h, q.calls);
            if (h.rc == SPB_PLUGIN_OK && L->operation == SPB_PLUGIN_SPMV) check_y(&h);
            break;
        case PLUGIN_RELEASE:
            release_run(&h);
            reply(SPB_PLUGIN_OK, 0, "");
            return 0;
        default: return 2;
        }
        reply(h.rc, seconds, h.msg);
        device_lost = h.device && h.rc != SPB_PLUGIN_OK;
    }
    return 0;
}
