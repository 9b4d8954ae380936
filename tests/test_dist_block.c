/* test_dist_block.c — a distributed rank's block on its GPU (gpu/dist_block.cu)
 * driven as the host-staged exchange drives it, without MPI: product after
 * product with a new x each time, the entries packed for the neighbours are
 * the new x's (its upload from pageable memory lands after cudaMemcpy
 * returns, and the packing runs on a stream of its own), and y is the
 * diagonal block times x plus the ghost block times the ghosts. The NCCL
 * product runs on one GPU too, the rank its own neighbour (a communicator
 * of one rank sends to itself). Skipped without a device. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/inputs/rng.h"
#include "check.h"
#include "core/memory.h"
#include "gpu/gpu.h"

#define GHOSTS    64
#define TAIL      4096 /* packed entries at x's end: the part of x's upload that lands last */
#define SCATTERED 4096 /* packed entries anywhere */

static const spb_kernel *device_row(const char *name)
{
    for (int k = 0; k < gpu_spmv_kernel_count(); k++)
        if (strcmp(gpu_spmv_kernel(k)->name, name) == 0) return gpu_spmv_kernel(k);
    return NULL;
}

/* The diagonal block: each row its diagonal entry and one at random. */
static int make_diag(spb_rng *rng, spb_index rows, spb_csr *D, char *msg)
{
    if (csr_alloc(D, rows, rows, 2 * (spb_index)rows, msg) != SPB_OK) return 0;
    for (spb_index i = 0; i < rows; i++) {
        D->row_ptr[i + 1] = 2 * (i + 1);
        D->col_idx[2 * i] = i;
        D->col_idx[2 * i + 1] = (spb_index)spb_rng_below(rng, rows);
        D->val[2 * i] = spb_rng_value(rng);
        D->val[2 * i + 1] = spb_rng_value(rng);
    }
    return 1;
}

/* The ghost block: every `every`-th row has two ghost entries. */
static int make_off(spb_rng *rng, spb_index rows, spb_index every, spb_csr *O, spb_index **off_rows,
                    char *msg)
{
    spb_index count = (rows + every - 1) / every;
    *off_rows = spb_malloc((size_t)count, sizeof **off_rows);
    if (!*off_rows || csr_alloc(O, count, GHOSTS, 2 * count, msg) != SPB_OK) return 0;
    for (spb_index r = 0; r < count; r++) {
        (*off_rows)[r] = r * every;
        O->row_ptr[r + 1] = 2 * (r + 1);
        for (int k = 0; k < 2; k++) {
            O->col_idx[2 * r + k] = (spb_index)spb_rng_below(rng, GHOSTS);
            O->val[2 * r + k] = spb_rng_value(rng);
        }
    }
    return 1;
}

/* The largest error of y against D x + O ghosts, relative to |D| |x| + |O| |ghosts|. */
static double y_error(const spb_csr *D, const spb_csr *O, const spb_index *off_rows,
                      const double *x, const double *ghosts, const double *y)
{
    double worst = 0;
    spb_index r = 0;
    for (spb_index i = 0; i < D->m; i++) {
        double sum = 0, scale = 0;
        for (spb_index k = D->row_ptr[i]; k < D->row_ptr[i + 1]; k++) {
            sum += D->val[k] * x[D->col_idx[k]];
            scale += fabs(D->val[k] * x[D->col_idx[k]]);
        }
        if (r < O->m && off_rows[r] == i) {
            for (spb_index k = O->row_ptr[r]; k < O->row_ptr[r + 1]; k++) {
                sum += O->val[k] * ghosts[O->col_idx[k]];
                scale += fabs(O->val[k] * ghosts[O->col_idx[k]]);
            }
            r++;
        }
        double err = fabs(y[i] - sum) / (scale > 0 ? scale : 1);
        if (!(err <= worst)) worst = err; /* a NaN is the worst */
    }
    return worst;
}

static void free_block_and_inputs(gpu_block *b, spb_csr *D, spb_csr *O, spb_index *off_rows,
                                  double *x, double *y)
{
    gpu_block_free(b);
    csr_free(D);
    csr_free(O);
    spb_free(off_rows);
    spb_free(x);
    spb_free(y);
}

/* `products` products of a block of `rows` rows, each with a new x; every
 * `every`-th row has ghosts: a sparse ghost block runs beside the
 * diagonal block, one with an entry for each of the diagonal's after it. */
static void check_products(spb_rng *rng, spb_index rows, spb_index every, int products)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr D = {0}, O = {0};
    spb_index *off_rows = NULL, send_idx[TAIL + SCATTERED];
    for (int t = 0; t < TAIL; t++) send_idx[t] = rows - TAIL + t;
    for (int t = TAIL; t < TAIL + SCATTERED; t++) send_idx[t] = (spb_index)spb_rng_below(rng, rows);
    double *x = spb_malloc((size_t)rows, sizeof *x), *y = spb_malloc((size_t)rows, sizeof *y);
    double *send = spb_malloc(TAIL + SCATTERED, sizeof *send);
    double *ghosts = spb_malloc(GHOSTS, sizeof *ghosts);
    int made = x && y && send && ghosts && make_diag(rng, rows, &D, msg) &&
               make_off(rng, rows, every, &O, &off_rows, msg);
    CHECK(made, "test matrices: %s", msg);
    const spb_kernel *kernel = device_row("csr.cuda.warp");
    CHECK(kernel != NULL, "the device table has csr.cuda.warp");
    gpu_block *b = NULL;
    if (made && kernel) {
        gpu_block_spec spec = {kernel, &D, &O,   off_rows, send_idx,     TAIL + SCATTERED,
                               GHOSTS, 0,  send, ghosts,   {0, 0, 0, 0}, NULL};
        CHECK(gpu_block_create(&spec, &b, msg) == SPB_OK, "gpu_block_create: %s", msg);
        const char *place = every > 1 ? "beside the diagonal" : "after the diagonal";
        CHECK(strstr(msg, place) != NULL, "ghosts every %d rows: the ghost block %s: %s",
              (int)every, place, msg);
    }
    int stale_products = 0, wrong_products = 0;
    for (int p = 0; b && p < products; p++) {
        for (spb_index i = 0; i < rows; i++) x[i] = (p % 2 ? -1 : 1) * spb_rng_value(rng);
        for (int g = 0; g < GHOSTS; g++) ghosts[g] = spb_rng_value(rng);
        gpu_product_times times;
        spb_status st = gpu_block_set_x(b, x, msg);
        if (st == SPB_OK) st = gpu_block_start(b, msg);
        int stale = 0;
        for (int t = 0; st == SPB_OK && t < TAIL + SCATTERED; t++)
            stale += send[t] != x[send_idx[t]];
        if (st == SPB_OK) st = gpu_block_finish(b, &times, msg);
        if (st == SPB_OK) st = gpu_block_get_y(b, y, msg);
        CHECK(st == SPB_OK, "%d rows, product %d: %s", (int)rows, p, msg);
        if (st != SPB_OK) break;
        if (stale)
            fprintf(stderr, "%d rows, product %d: %d of %d packed entries not x's\n", (int)rows, p,
                    stale, TAIL + SCATTERED);
        stale_products += stale > 0;
        wrong_products += !(y_error(&D, &O, off_rows, x, ghosts, y) < 1e-13);
    }
    CHECK(stale_products == 0, "%d rows: %d of %d products packed entries of an earlier x",
          (int)rows, stale_products, products);
    CHECK(wrong_products == 0, "%d rows: %d of %d products gave a wrong y", (int)rows,
          wrong_products, products);
    free_block_and_inputs(b, &D, &O, off_rows, x, y);
    spb_free(send);
    spb_free(ghosts);
}

/* One product of a block made by `spec` (the ghosts arriving in its host
 * buffer): its message into msg, and whether y is right (-1: the block
 * failed). */
static int block_product(spb_rng *rng, const gpu_block_spec *spec, char *msg)
{
    gpu_block *b = NULL;
    spb_index rows = spec->diag->m;
    double *x = spb_malloc((size_t)rows, sizeof *x), *y = spb_malloc((size_t)rows, sizeof *y);
    double *ghosts = spec->ghosts_host;
    spb_status st = x && y ? gpu_block_create(spec, &b, msg) : SPB_ERR_NOMEM;
    for (spb_index i = 0; st == SPB_OK && i < rows; i++) x[i] = spb_rng_value(rng);
    for (int g = 0; g < GHOSTS; g++) ghosts[g] = spb_rng_value(rng);
    char product_msg[SPB_MSG_LEN] = "";
    gpu_product_times times;
    if (st == SPB_OK) st = gpu_block_set_x(b, x, product_msg);
    if (st == SPB_OK) st = gpu_block_start(b, product_msg);
    if (st == SPB_OK) st = gpu_block_finish(b, &times, product_msg);
    if (st == SPB_OK) st = gpu_block_get_y(b, y, product_msg);
    if (st != SPB_OK && product_msg[0]) snprintf(msg, SPB_MSG_LEN, "%s", product_msg);
    int right =
        st != SPB_OK ? -1 : y_error(spec->diag, spec->off, spec->off_rows, x, ghosts, y) < 1e-13;
    gpu_block_free(b);
    spb_free(x);
    spb_free(y);
    return right;
}

/* The GPU rows of one matrix, rank count and rank run auto.cuda's trial on
 * their blocks once: the next block of the same key keeps the choices (and
 * says whose), another matrix's runs its own trial. */
static void check_kept_trial(spb_rng *rng)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr D = {0}, O = {0};
    spb_index *off_rows = NULL, send_idx[1] = {0};
    double send[1], ghosts[GHOSTS];
    const spb_kernel *automatic = device_row("auto.cuda");
    int made = make_diag(rng, 1 << 14, &D, msg) && make_off(rng, 1 << 14, 3, &O, &off_rows, msg);
    CHECK(made && automatic, "test blocks and auto.cuda: %s", msg);
    if (!made || !automatic) return;
    gpu_block_spec spec = {automatic, &D, &O,   off_rows, send_idx,     1,
                           GHOSTS,    0,  send, ghosts,   {7, 2, 1, 0}, "mpi.cuda.staged"};
    char first[SPB_MSG_LEN] = "", kept[SPB_MSG_LEN] = "", other[SPB_MSG_LEN] = "";
    CHECK(block_product(rng, &spec, first) == 1, "the trial's block: %s", first);
    spec.row = "mpi.cuda.nccl";
    CHECK(block_product(rng, &spec, kept) == 1, "the kept choices' block: %s", kept);
    spec.trial.matrix = 8;
    CHECK(block_product(rng, &spec, other) == 1, "another matrix's block: %s", other);
    CHECK(!strstr(first, "trial at these ranks") && !strstr(other, "trial at these ranks"),
          "a trial's own messages: '%s', '%s'", first, other);
    CHECK(strstr(kept, "(mpi.cuda.staged's trial at these ranks) "), "kept: %s", kept);
    const char *diag_first = strstr(first, "; diagonal "), *diag_kept = strstr(kept, ") ");
    CHECK(diag_first && diag_kept && strncmp(diag_first + 11, diag_kept + 2, 24) == 0,
          "the same diagonal row: '%s' and '%s'", first, kept);
    csr_free(&D);
    csr_free(&O);
    spb_free(off_rows);
}

/* NCCL's product with the rank as its own neighbour: its ghosts are the
 * entries it packs, so y is D x + O x[send_idx], product after product
 * with a new x (the launch order of the exchange and the diagonal block
 * follows the last product's times, so both orders run). */
static void check_nccl_self(spb_rng *rng, spb_index rows, spb_index every, int products)
{
    if (!gpu_nccl_compiled()) {
        printf("NCCL's product: not checked, spbench was built without NCCL\n");
        return;
    }
    char msg[SPB_MSG_LEN] = "";
    spb_csr D = {0}, O = {0};
    spb_index *off_rows = NULL, send_idx[GHOSTS];
    for (int g = 0; g < GHOSTS; g++) /* half at x's end, half anywhere */
        send_idx[g] = g % 2 ? rows - 1 - g : (spb_index)spb_rng_below(rng, rows);
    double *x = spb_malloc((size_t)rows, sizeof *x), *y = spb_malloc((size_t)rows, sizeof *y);
    double ghosts[GHOSTS];
    int made =
        x && y && make_diag(rng, rows, &D, msg) && make_off(rng, rows, every, &O, &off_rows, msg);
    const spb_kernel *kernel = device_row("csr.cuda.warp");
    CHECK(made && kernel, "test matrices and csr.cuda.warp: %s", msg);
    gpu_block *b = NULL;
    unsigned char id[GPU_NCCL_ID_BYTES];
    if (made && kernel) {
        gpu_block_spec spec = {kernel, &D, &O,   off_rows, send_idx,     GHOSTS,
                               GHOSTS, 0,  NULL, NULL,     {0, 0, 0, 0}, "mpi.cuda.nccl"};
        spb_status st = gpu_block_create(&spec, &b, msg);
        if (st == SPB_OK) st = gpu_nccl_id(id, msg);
        if (st == SPB_OK) st = gpu_block_nccl_init(b, id, 1, 0, msg);
        CHECK(st == SPB_OK, "a block and NCCL's communicator of one rank: %s", msg);
        if (st != SPB_OK) {
            gpu_block_free(b);
            b = NULL;
        }
    }
    const int self[1] = {0}, bounds[2] = {0, GHOSTS};
    gpu_exchange_plan plan = {1, 1, self, bounds, self, bounds};
    int wrong_products = 0, untimed = 0;
    for (int p = 0; b && p < products; p++) {
        for (spb_index i = 0; i < rows; i++) x[i] = (p % 2 ? -1 : 1) * spb_rng_value(rng);
        for (int g = 0; g < GHOSTS; g++) ghosts[g] = x[send_idx[g]];
        gpu_product_times times = {0, 0, 0, 0};
        spb_status st = gpu_block_set_x(b, x, msg);
        if (st == SPB_OK) st = gpu_block_nccl_product(b, &plan, &times, msg);
        if (st == SPB_OK) st = gpu_block_get_y(b, y, msg);
        CHECK(st == SPB_OK, "NCCL, %d rows, product %d: %s", (int)rows, p, msg);
        if (st != SPB_OK) break;
        wrong_products += !(y_error(&D, &O, off_rows, x, ghosts, y) < 1e-13);
        untimed += !(times.exchange_s > 0 && times.compute_s > 0);
    }
    CHECK(wrong_products == 0, "NCCL, %d rows: %d of %d products gave a wrong y", (int)rows,
          wrong_products, products);
    CHECK(untimed == 0, "NCCL, %d rows: %d of %d products without an exchange or compute time",
          (int)rows, untimed, products);
    free_block_and_inputs(b, &D, &O, off_rows, x, y);
}

int main(void)
{
    if (gpu_device_count() < 1) {
        printf("skipped: no CUDA device\n");
        return CHECK_SKIP_CODE;
    }
    spb_rng rng;
    spb_rng_seed(&rng, check_seed());
    check_products(&rng, 1 << 17, 1000, 400); /* a rank's block of cnr-2000 at 3 ranks: 1 MB of x */
    check_products(&rng, 1 << 23, 1000, 12);  /* 64 MB of x */
    check_products(&rng, 1 << 17, 1, 100);    /* ghosts on every row */
    check_kept_trial(&rng);
    check_nccl_self(&rng, 1 << 17, 1000, 200); /* the ghost block beside the diagonal */
    check_nccl_self(&rng, 1 << 20, 1, 50);     /* after it */
    return check_done();
}
