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
#include "plugins/loader.h"
#include "spbench/plugin.h"

static uint64_t page_up(uint64_t bytes, uint64_t page) { return (bytes + page - 1) / page * page; }

void plugin_layout_plan(plugin_layout *L, int32_t rows, int32_t cols, int64_t nnz,
                        int32_t precision, int64_t value_bytes, uint64_t page)
{
    memset(L, 0, sizeof *L);
    L->rows = rows, L->cols = cols, L->nnz = nnz;
    L->precision = precision, L->value_bytes = value_bytes, L->page = page;
    L->row_ptr_at = page; /* page 0: this layout */
    L->col_idx_at = L->row_ptr_at + page_up(sizeof(int32_t) * ((uint64_t)rows + 1), page);
    L->values_at = L->col_idx_at + page_up(sizeof(int32_t) * (uint64_t)nnz, page);
    L->matrix_end = L->values_at + page_up((uint64_t)(value_bytes * nnz), page);
    uint64_t x_bytes = (uint64_t)(value_bytes * cols), y_bytes = (uint64_t)(value_bytes * rows);
    L->x_guard_at = L->matrix_end + page_up(x_bytes, page);
    L->x_at = L->x_guard_at - x_bytes;
    L->y_front_guard_at = L->x_guard_at + page;
    L->y_slack_at = L->y_front_guard_at + page;
    L->y_guard_at = L->y_slack_at + page_up(y_bytes, page) + (y_bytes % page == 0 ? page : 0);
    L->y_at = L->y_guard_at - y_bytes;
    L->total = L->y_guard_at + page;
}

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
    if (at < layout->matrix_end) return "the matrix, which is read-only to it: a write";
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
    const spb_plugin_kernel *k = NULL;
    if (strcmp(checksum, argv[3]) != 0)
        snprintf(msg, sizeof msg, "%s changed since spbench loaded it (%s, then %s)", argv[2],
                 argv[3], checksum[0] ? checksum : "unreadable");
    else
        k = kernel_named(argv[2], argv[4], msg);
    if (!k || protect() != 0) {
        reply(SPB_PLUGIN_FAILED, 0, msg[0] ? msg : "its process cannot guard its data");
        return 2;
    }
    catch_faults();
    spb_plugin_csr A = {.rows = L->rows,
                        .cols = L->cols,
                        .nnz = L->nnz,
                        .row_ptr = (const int32_t *)(base + L->row_ptr_at),
                        .col_idx = (const int32_t *)(base + L->col_idx_at),
                        .values = base + L->values_at};
    spb_plugin_config config = {.precision = L->precision, .threads = L->threads};
    const void *x = base + L->x_at;
    void *y = base + L->y_at, *state = NULL;
    plugin_request q;
    while (recv(talk, &q, sizeof q, MSG_WAITALL) == (ssize_t)sizeof q) {
        msg[0] = '\0';
        int rc = SPB_PLUGIN_OK;
        double seconds = 0;
        switch (q.op) {
        case PLUGIN_PREPARE: rc = k->prepare(&A, &config, &state, msg, sizeof msg); break;
        case PLUGIN_PRODUCT:
        case PLUGIN_TIME: {
            int calls = q.op == PLUGIN_PRODUCT ? 1 : q.calls;
            double start = timing_now();
            for (int c = 0; c < calls && rc == SPB_PLUGIN_OK; c++)
                rc = k->spmv(state, x, y, msg, sizeof msg);
            seconds = timing_now() - start;
            if (rc == SPB_PLUGIN_OK && !slack_intact()) {
                rc = SPB_PLUGIN_FAILED;
                snprintf(msg, sizeof msg, "it wrote before the start of y");
            }
            break;
        }
        case PLUGIN_RELEASE:
            if (k->release) k->release(state);
            reply(SPB_PLUGIN_OK, 0, "");
            return 0;
        default: return 2;
        }
        reply(rc, seconds, msg);
    }
    return 0;
}
