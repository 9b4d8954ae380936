/* cmd_spgemm.c — spbench spgemm: one validated product C = A*B through the
 * run protocol's single product, written as Matrix Market so that any
 * other tool can check it. */
#include <stdlib.h>

#include "cli.h"
#include "op_spgemm.h"
#include "run.h"
#include "validate.h"

typedef struct {
    const char *matrix, *b, *kernel, *out;
    uint64_t seed;
    spb_kernel_config config;
    double tolerance;
} spgemm_args;

static spgemm_args parse_spgemm_args(int argc, char **argv)
{
    spgemm_args a = {NULL,
                     NULL,
                     NULL,
                     NULL,
                     1,
                     {HLL_DEFAULT_HACK_SIZE, 1, 0, SPB_FP64, 0},
                     SPB_DEFAULT_TOLERANCE};
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--kernel", &value))
            a.kernel = value;
        else if (option_value(argc, argv, &i, "--b", &value))
            a.b = value;
        else if (option_value(argc, argv, &i, "--seed", &value))
            a.seed = (uint64_t)parse_long("--seed", value, 0);
        else if (option_value(argc, argv, &i, "--threads", &value))
            a.config.threads = (int)parse_long("--threads", value, 1);
        else if (option_value(argc, argv, &i, "--tol", &value))
            a.tolerance = parse_double("--tol", value, 0);
        else if (option_value(argc, argv, &i, "-o", &value))
            a.out = value;
        else if (argv[i][0] == '-' || a.matrix)
            unknown_option(argv[i]);
        else
            a.matrix = argv[i];
    }
    return a;
}

int cmd_spgemm(int argc, char **argv)
{
    spgemm_args a = parse_spgemm_args(argc, argv);
    char msg[SPB_MSG_LEN] = "";
    if (!a.matrix || !a.kernel || !a.out) {
        fprintf(stderr, "spbench: usage: spbench spgemm A [--b B] --kernel NAME [--threads N] "
                        "-o C.mtx\n");
        return EXIT_USAGE;
    }
    if (a.b && !spgemm_operand_valid(a.b, msg)) {
        fprintf(stderr, "spbench: %s\n", msg);
        return EXIT_USAGE;
    }
    const spb_operation *op = operation_spgemm();
    const spb_kernel *kernel = operation_kernel(op, a.kernel);
    if (!kernel) {
        fprintf(stderr, "spbench: no SpGEMM kernel named '%s' (see spbench --list)\n", a.kernel);
        return EXIT_USAGE;
    }
    spb_csr A = {0};
    spb_case c = {.name = a.matrix, .A = &A, .operand = a.b};
    spb_validation v = {0};
    spb_status st = source_load(a.matrix, &A, NULL, msg);
    format_set_init(&c.formats, &A);
    if (st == SPB_OK) st = op->case_setup(&c, a.seed, msg);
    if (st == SPB_OK) {
        st = run_single_product(op, kernel, &c, &a.config, a.tolerance, &v, msg);
        if (st == SPB_OK || st == SPB_ERR_INVALID)
            fprintf(stderr, "spbench: %s on %s: %.0f products, C has %.0f entries; %s\n",
                    kernel->name, a.matrix, c.products, c.nnz_c,
                    st == SPB_OK ? "ok" : "FAILED validation");
        if (st == SPB_ERR_INVALID)
            spb_fail(msg, st, "%s failed validation (%s); %s not written", kernel->name,
                     msg[0] ? msg : "values", a.out);
    }
    if (st == SPB_OK) {
        char comment[512];
        snprintf(comment, sizeof comment, "C = A*B by spbench %s, kernel %s, A %s, B %s",
                 SPB_VERSION, kernel->name, a.matrix, a.b ? a.b : "A (or A^T)");
        st = mm_write_csr(a.out, spgemm_case_c(&c), comment, msg);
    }
    if (st != SPB_OK) fprintf(stderr, "spbench: %s\n", msg);
    format_set_free(&c.formats);
    op->case_free(&c);
    csr_free(&A);
    return st == SPB_OK ? 0 : EXIT_RESULTS_BAD;
}
