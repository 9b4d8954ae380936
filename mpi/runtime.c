/* runtime.c — MPI start and end, each rank's place on its node's cores, and
 * the commands by which rank 0 drives the other ranks through a row's
 * prepare, products, timing and release (see dist.h). */
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "dist_mpi.h"

static int world_rank, world_size = 1, launched, mpi_running;

int dist_compiled(void) { return 1; }
int dist_launched(void) { return launched; }
int dist_world_size(void) { return world_size; }
int dist_world_rank(void) { return world_rank; }

const char *dist_unavailable(void)
{
    return launched ? "" : "not under MPI: run --ranks LIST starts mpirun";
}

const char *dist_placement(void)
{
    const char *placed = getenv("SPB_PLACEMENT");
    return placed ? placed : "as started";
}

/* Whether a launcher started this process: Open MPI's, or a PMI/PMIx one (srun). */
static int under_launcher(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
}

/* The node's cores shared among its ranks: rank r of L on the node takes
 * the r-th L-th of the CPUs it was given, when the launcher left it
 * unbound; with more ranks than cores none is bound (they must float). The
 * choice is kept in SPB_PLACEMENT for the run's header. */
void dist_place_rank(void)
{
    if (!under_launcher() || getenv("SPB_PLACEMENT")) return; /* placed before a re-exec */
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    const char *local_size = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    cpu_set_t given;
    char text[160];
    if (!local || !local_size || sched_getaffinity(0, sizeof given, &given) != 0) return;
    int rank = atoi(local), size = atoi(local_size), cpus = CPU_COUNT(&given);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < online) {
        snprintf(text, sizeof text, "%d CPUs, as the launcher bound this rank", cpus);
    } else if (size < 1 || cpus / size < 1) {
        setenv("OMP_PROC_BIND", "false", 1);
        snprintf(text, sizeof text, "unbound: %d ranks share %d CPUs", size, cpus);
    } else {
        int share = cpus / size, seen = 0, first = -1, last = -1;
        cpu_set_t mine;
        CPU_ZERO(&mine);
        for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
            if (!CPU_ISSET(cpu, &given)) continue;
            if (seen / share == rank) {
                CPU_SET(cpu, &mine);
                if (first < 0) first = cpu;
                last = cpu;
            }
            seen++;
        }
        if (sched_setaffinity(0, sizeof mine, &mine) != 0) return;
        snprintf(text, sizeof text, "CPUs %d-%d: local rank %d's share of %d CPUs", first, last,
                 rank, cpus);
    }
    setenv("SPB_PLACEMENT", text, 1);
}

/* Waits for rank 0's next command without spinning: a rank outside the
 * rank count being measured must not take a core from those inside it. */
static void wait_command(dist_command *cmd)
{
    MPI_Request request;
    MPI_Ibcast(cmd, (int)sizeof *cmd, MPI_BYTE, 0, MPI_COMM_WORLD, &request);
    int done = 0;
    struct timespec nap = {0, 200000};
    for (MPI_Test(&request, &done, MPI_STATUS_IGNORE); !done;
         MPI_Test(&request, &done, MPI_STATUS_IGNORE))
        nanosleep(&nap, NULL);
}

void dist_send_command(const dist_command *cmd)
{
    dist_command copy = *cmd;
    MPI_Request request;
    MPI_Ibcast(&copy, (int)sizeof copy, MPI_BYTE, 0, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
}

/* ---- a row's part on every rank ---- */

static void state_free(dist_state *s)
{
    if (!s) return;
    for (int k = 0; k < DIST_SERIES; k++) spb_free(s->sample[k]);
    petsc_free(s);
    exchange_free(s);
    layout_free(s);
    if (s->grid.row != MPI_COMM_NULL) MPI_Comm_free(&s->grid.row);
    if (s->grid.col != MPI_COMM_NULL) MPI_Comm_free(&s->grid.col);
    if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
    spb_free(s);
}

/* Every rank of the world: the first cmd->ranks ranks make their part of
 * the row (rank 0 sends each its rows of A); the others only take part in
 * making the communicator. *out is NULL outside it or on failure. */
static spb_status prepare_part(const dist_command *cmd, const spb_csr *A, dist_state **out,
                               char *msg)
{
    *out = NULL;
    MPI_Comm comm;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < cmd->ranks ? 0 : MPI_UNDEFINED, world_rank, &comm);
    if (comm == MPI_COMM_NULL) return SPB_OK;
    dist_state *s = spb_calloc(1, sizeof *s);
    spb_status st = s ? SPB_OK : spb_fail(msg, SPB_ERR_NOMEM, "out of memory for a rank's state");
    if (s) {
        s->comm = comm;
        s->grid.row = s->grid.col = MPI_COMM_NULL;
        s->variant = dist_variant_of(cmd->kernel);
        s->row = dist_row_name(cmd->kernel);
        s->threads = cmd->threads;
        s->matrix = cmd->matrix;
        MPI_Comm_rank(comm, &s->rank);
        MPI_Comm_size(comm, &s->size);
        dist_stats_init(&s->stats);
        s->stats.ranks = s->size;
    }
    /* each step ends with the ranks agreed on its outcome */
    st = dist_agree(comm, st, msg);
    if (st == SPB_OK) st = layout_distribute(s, A, msg);
    if (st == SPB_OK && s->variant->exchange == DIST_PETSC)
        st = petsc_prepare(s, msg);
    else if (st == SPB_OK)
        st = exchange_plan(s, msg);
    if (st != SPB_OK) {
        if (s)
            state_free(s);
        else
            MPI_Comm_free(&comm);
        return st;
    }
    *out = s;
    return SPB_OK;
}

static void product_once(dist_state *s)
{
    if (s->variant->exchange == DIST_PETSC)
        petsc_product(s);
    else
        exchange_product(s);
}

/* Room for one more sample of each series on rank 0 (0: none; a record
 * lost to memory only loses the split). */
static int sample_room(dist_state *s)
{
    if (s->samples < s->sample_cap) return 1;
    int cap = s->sample_cap ? 2 * s->sample_cap : 64, grown = 0;
    for (int k = 0; k < DIST_SERIES; k++) {
        double *more = spb_realloc(s->sample[k], (size_t)cap, sizeof *more);
        if (more) s->sample[k] = more;
        grown += more != NULL;
    }
    if (grown == DIST_SERIES) s->sample_cap = cap;
    return s->samples < s->sample_cap;
}

/* calls products, a barrier before each; rank 0 gets the slowest rank's
 * time (returned), compute, exposed communication and exchange (kept as
 * one sample of each series). */
static double time_products(dist_state *s, int calls)
{
    double total = 0;
    s->local_compute = s->local_exchange = 0;
    s->local_to_host = s->local_mpi = s->local_to_device = 0;
    for (int c = 0; c < calls; c++) {
        MPI_Barrier(s->comm);
        double start = MPI_Wtime();
        product_once(s);
        total += MPI_Wtime() - start;
    }
    double mine[DIST_SERIES + 1] = {total,
                                    s->local_compute,
                                    total - s->local_compute,
                                    s->local_exchange,
                                    s->local_to_host,
                                    s->local_mpi,
                                    s->local_to_device};
    double slowest[DIST_SERIES + 1];
    MPI_Reduce(mine, slowest, DIST_SERIES + 1, MPI_DOUBLE, MPI_MAX, 0, s->comm);
    if (s->rank != 0 || calls <= 0 || !sample_room(s)) return s->rank == 0 ? slowest[0] : 0;
    for (int k = 0; k < DIST_SERIES; k++) s->sample[k][s->samples] = slowest[k + 1] / calls;
    s->samples++;
    return slowest[0];
}

/* One whole product: x from rank 0, y back to it (NULL on the others). */
static void whole_product(dist_state *s, const spb_value *x, spb_value *y)
{
    exchange_scatter_x(s, x);
    product_once(s);
    exchange_gather_y(s, y);
}

/* The other ranks: rank 0's commands until it ends. */
static void serve(void)
{
    dist_state *current = NULL;
    for (;;) {
        dist_command cmd;
        char msg[SPB_MSG_LEN] = "";
        wait_command(&cmd);
        switch ((dist_op)cmd.op) {
        case CMD_QUIT: state_free(current); return;
        case CMD_PREPARE: prepare_part(&cmd, NULL, &current, msg); break;
        case CMD_PRODUCT:
            if (current) whole_product(current, NULL, NULL);
            break;
        case CMD_TIME:
            if (current) time_products(current, cmd.calls);
            break;
        case CMD_RELEASE:
            state_free(current);
            current = NULL;
            break;
        }
    }
}

/* Open MPI's shared-memory transport among a node's ranks: the single-copy
 * mechanism it runs with ("cma", "none", ...), as its control variable
 * reads after start-up, fallbacks applied (it copies a large message once,
 * or twice through its own buffers); "" where this MPI has no such
 * variable or no other rank shares this node. */
static char shared_memory_copy[64];

static void read_copy_variable(int index)
{
    char name[128], desc[256], item[64];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity, bind, scope, items, value = -1;
    MPI_Datatype type;
    MPI_T_enum values;
    MPI_T_cvar_handle handle;
    int count;
    if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &values, desc, &desc_len,
                            &bind, &scope) != MPI_SUCCESS ||
        (strcmp(name, "btl_vader_single_copy_mechanism") != 0 &&
         strcmp(name, "btl_sm_single_copy_mechanism") != 0) || /* Open MPI 4, 5 */
        type != MPI_INT ||
        values == MPI_T_ENUM_NULL)
        return;
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS) return;
    int read = MPI_T_cvar_read(handle, &value);
    MPI_T_cvar_handle_free(&handle);
    int enum_len = sizeof item;
    if (read != MPI_SUCCESS || MPI_T_enum_get_info(values, &items, item, &enum_len) != MPI_SUCCESS)
        return;
    for (int k = 0; k < items; k++) {
        int this_value, item_len = sizeof item;
        if (MPI_T_enum_get_item(values, k, &this_value, item, &item_len) == MPI_SUCCESS &&
            this_value == value)
            snprintf(shared_memory_copy, sizeof shared_memory_copy, "%s", item);
    }
}

/* Collective over the world: every rank learns whether it shares a node. */
static void read_shared_memory_copy(void)
{
    int provided, variables;
    if (dist_node_ranks(MPI_COMM_WORLD, NULL) < 2 ||
        MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
        return;
    if (MPI_T_cvar_get_num(&variables) == MPI_SUCCESS)
        for (int k = 0; k < variables && !shared_memory_copy[0]; k++) read_copy_variable(k);
    MPI_T_finalize();
}

const char *dist_shared_memory_copy(void) { return shared_memory_copy; }

static void dist_finish(void)
{
    if (!mpi_running) return;
    mpi_running = 0;
    dist_send_command(&(dist_command){.op = CMD_QUIT});
    petsc_finish();
    MPI_Finalize();
}

/* Under run --ranks's own mpirun: a rank dies with the process that
 * started it. A killed mpirun once left the ranks measuring on, in process
 * groups of their own, and rank 0 wrote a row after the launcher had
 * recorded that row's error row. */
static void end_with_launcher(int started_by_spbench)
{
    if (!started_by_spbench) return;
    pid_t parent = getppid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(EXIT_FAILURE); /* it died before the call */
}

void dist_start(int started_by_spbench)
{
    if (!under_launcher()) return;
    launched = 1;
    end_with_launcher(started_by_spbench);
    int provided;
    MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    mpi_running = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    read_shared_memory_copy();
    if (world_rank == 0) {
        atexit(dist_finish);
        return;
    }
    /* a stop (Ctrl-C reaches every rank) is rank 0's to make: it finishes
     * the row in flight with the others, then tells them to quit */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    serve();
    petsc_finish();
    MPI_Finalize();
    exit(0);
}

/* ---- rank 0's side of a row (dist_internal.h) ---- */

spb_status dist_prepare(const dist_variant *variant, int kernel_index,
                        const spb_format_set *formats, const spb_kernel_config *config,
                        spb_kernel_plan *plan, char *msg)
{
    const spb_csr *A = formats->csr;
    int ranks = config->ranks > 0 ? config->ranks : 1;
    if (ranks > world_size)
        return spb_fail(msg, SPB_ERR_DECLINED, "%d ranks asked for; the launch has %d", ranks,
                        world_size);
    if (variant->exchange == DIST_PETSC && config->threads > 1)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "PETSc's MatMult runs one thread per rank (measured at --threads 1)");
    if (dist_exchange_on_gpu(variant->exchange) && config->threads > 1)
        return spb_fail(msg, SPB_ERR_DECLINED,
                        "a GPU rank runs no OpenMP threads (measured at --threads 1)");
    if (config->precision != SPB_FP64)
        return spb_fail(msg, SPB_ERR_DECLINED, "distributed rows run in fp64 only");
    dist_command cmd = {.op = CMD_PREPARE,
                        .kernel = kernel_index,
                        .ranks = ranks,
                        .threads = config->threads,
                        .matrix = formats->serial};
    dist_send_command(&cmd);
    dist_state *s;
    spb_status st = prepare_part(&cmd, A, &s, msg);
    if (st != SPB_OK) return st;
    plan->state = s;
    plan->stored_entries = A->nnz;
    plan->bytes = csr_spmv_bytes(A, SPB_FP64) + s->stats.bytes_mean * s->size;
    return SPB_OK;
}

spb_status dist_product(const void *state, const spb_value *x, spb_value *y, char *msg)
{
    (void)msg;
    dist_state *s = (dist_state *)state;
    dist_send_command(&(dist_command){.op = CMD_PRODUCT, .ranks = s->size});
    whole_product(s, x, y);
    return SPB_OK;
}

double dist_time_calls(void *state, int calls)
{
    dist_state *s = state;
    dist_send_command(&(dist_command){.op = CMD_TIME, .ranks = s->size, .calls = calls});
    return time_products(s, calls);
}

spb_status dist_check(const void *state, char *msg)
{
    /* MPI errors end the job (MPI_ERRORS_ARE_FATAL); a GPU rank's device
     * failure is kept: rank 0's here, another rank's shows in validation */
    const dist_state *s = state;
    if (s->gpu.status == SPB_OK) return SPB_OK;
    return spb_fail(msg, s->gpu.status, "%s", s->gpu.msg);
}

void dist_release(void *state)
{
    if (!state) return;
    dist_send_command(&(dist_command){.op = CMD_RELEASE});
    state_free(state);
}

int dist_kernel_stats(const void *state, spb_dist_stats *out, double *series[DIST_SERIES])
{
    const dist_state *s = state;
    *out = s->stats;
    for (int k = 0; k < DIST_SERIES; k++) series[k] = s->sample[k];
    if (!s->gpu.block) series[DIST_EXCHANGE] = NULL;
    static const char *const staged[3] = {"device to host", "MPI", "host to device"};
    static const char *const peer[3] = {"packing", "MPI's notes", "copies"};
    /* no legs where no rank moves a ghost (one rank): their times would be
     * a few events apart, and their GB/s 0 */
    const char *const *legs = !s->gpu.block || !(s->stats.bytes_max > 0) ? NULL
                              : s->variant->exchange == DIST_GPU_STAGED  ? staged
                              : s->variant->exchange == DIST_GPU_PEER    ? peer
                                                                         : NULL;
    for (int k = 0; k < 3; k++) {
        out->leg_names[k] = legs ? legs[k] : NULL;
        out->leg_moves[k] = legs == staged || k != 1; /* the peer row's notes carry no ghost */
    }
    if (!legs) series[DIST_TO_HOST] = series[DIST_MPI] = series[DIST_TO_DEVICE] = NULL;
    return s->variant->exchange == DIST_PETSC ? 0 : s->samples; /* PETSc's split is its own */
}
