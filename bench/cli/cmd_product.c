/* cmd_product.c — spbench spmv and spbench spgemm: one validated product
 * through the run protocol's single product, written as Matrix Market so
 * that any other tool can check it. One runner; each command says what
 * differs (its operation, operand option, report and writer). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bench/cli/cli.h"
#include "bench/machine/bandwidth.h"
#include "bench/run/op_spgemm.h"
#include "bench/run/op_spmv.h"
#include "bench/run/run.h"
#include "bench/run/selection.h"
#include "bench/validation/validate.h"

typedef struct {
    const char *matrix, *kernel, *operand, *out;
    int force; /* --force: -o may replace a file */
    uint64_t seed;
    spb_kernel_config config;
    double tolerance;
} product_args;

typedef struct {
    const spb_operation *(*op)(void);
    const char *label;          /* "SpMV" */
    const char *operand_option; /* "--x", "--b" */
    const char *usage;
    /* Applies the operand after the case is set up (NULL: the operand is
     * the case's own, read by its setup). */
    spb_status (*use_operand)(spb_case *c, const char *operand, char *msg);
    void (*describe)(const spb_case *c, const spb_validation *v, char *text, size_t size);
    spb_status (*write)(const spb_case *c, const char *path, const char *comment, char *msg);
    const char *product; /* "y = A*x" */
} product_command;

/* --precision: a width (fp64 or complex128, fp32 or complex64), in the
 * matrix's field once it is read (run_single_product). */
static spb_precision precision_width_or_exit(const char *name)
{
    spb_precision p;
    if (!spb_precision_parse(name, &p)) {
        fprintf(stderr,
                "spbench: --precision expects fp64, fp32, complex128 or complex64, not '%s'\n",
                name);
        exit(EXIT_USAGE);
    }
    return spb_precision_in_field(p, 0);
}

static product_args parse_product_args(const product_command *pc, int argc, char **argv)
{
    product_args a = {
        .seed = 1,
        .config = {.hack_size = HLL_DEFAULT_HACK_SIZE, .threads = 1, .precision = SPB_FP64},
        .tolerance = SPB_DEFAULT_TOLERANCE};
    for (int i = 0; i < argc; i++) {
        const char *value;
        if (option_value(argc, argv, &i, "--kernel", &value))
            a.kernel = value;
        else if (option_value(argc, argv, &i, pc->operand_option, &value))
            a.operand = value;
        else if (option_value(argc, argv, &i, "--seed", &value))
            a.seed = (uint64_t)parse_long("--seed", value, 0, LONG_MAX);
        else if (option_value(argc, argv, &i, "--hack-size", &value))
            a.config.hack_size = (spb_index)parse_long("--hack-size", value, 1, SPB_INDEX_MAX);
        else if (option_value(argc, argv, &i, "--threads", &value))
            a.config.threads = (int)parse_long("--threads", value, 1, SPB_MAX_THREADS);
        else if (option_value(argc, argv, &i, "--tol", &value))
            a.tolerance = parse_double("--tol", value, 0);
        else if (option_value(argc, argv, &i, "--precision", &value))
            a.config.precision = precision_width_or_exit(value);
        else if (option_value(argc, argv, &i, "-o", &value))
            a.out = value;
        else if (strcmp(argv[i], "--force") == 0)
            a.force = 1;
        else if (argv[i][0] == '-' || a.matrix)
            unknown_option(argv[i]);
        else
            a.matrix = argv[i];
    }
    a.config.cache_bytes = bandwidth_cpu_llc_bytes(NULL, 0);
    return a;
}

/* Loads A, sets the case up, runs and validates one product, writes it;
 * *unusable is 1 when an input could not be used (read, set up). */
static spb_status run_product(const product_command *pc, const product_args *a,
                              const spb_kernel *kernel, int *unusable, char *msg)
{
    const spb_operation *op = pc->op();
    spb_csr A = {0};
    spb_case c = {.name = a->matrix, .A = &A, .operand = pc->use_operand ? NULL : a->operand};
    spb_validation v = {0};
    spb_status st = source_load(a->matrix, &A, NULL, msg);
    format_set_init(&c.formats, &A);
    if (st == SPB_OK) st = op->case_setup(&c, a->seed, msg);
    if (st == SPB_OK && pc->use_operand && a->operand) st = pc->use_operand(&c, a->operand, msg);
    *unusable = st != SPB_OK;
    if (st == SPB_OK) {
        st = run_single_product(op, kernel, &c, &a->config, a->tolerance, &v, msg);
        char text[256];
        pc->describe(&c, &v, text, sizeof text);
        if (st == SPB_OK || st == SPB_ERR_INVALID)
            fprintf(stderr, "spbench: %s on %s: %s, %s\n", kernel->name, a->matrix, text,
                    st == SPB_OK ? "ok" : "FAILED validation");
        if (st == SPB_ERR_INVALID)
            spb_fail(msg, st, "%s failed validation%s%s%s; %s not written", kernel->name,
                     msg[0] ? " (" : "", msg, msg[0] ? ")" : "", a->out);
    }
    if (st == SPB_OK) {
        char comment[512];
        snprintf(comment, sizeof comment, "%s by spbench %s, kernel %s in %s, matrix %s%s%s",
                 pc->product, SPB_VERSION, kernel->name,
                 spb_precision_str(spb_precision_in_field(a->config.precision, A.complex_values)),
                 a->matrix, a->operand ? ", " : "", a->operand ? a->operand : "");
        st = pc->write(&c, a->out, comment, msg);
    }
    format_set_free(&c.formats);
    op->case_free(&c);
    csr_free(&A);
    return st;
}

static int product_command_run(const product_command *pc, int argc, char **argv)
{
    product_args a = parse_product_args(pc, argc, argv);
    if (!a.matrix || !a.kernel || !a.out) {
        fprintf(stderr, "spbench: usage: %s\n", pc->usage);
        return EXIT_USAGE;
    }
    refuse_existing_or_exit(a.out, a.force);
    const spb_kernel *kernel = operation_kernel(pc->op(), a.kernel);
    if (!kernel) {
        char near[512];
        kernel_nearest(pc->op()->kernels, pc->op()->kernel_count, a.kernel, near, sizeof near);
        fprintf(stderr,
                "spbench: no kernel named '%s' among the %s kernels; the nearest names: %s (see "
                "spbench --list)\n",
                a.kernel, pc->label, near);
        return EXIT_USAGE;
    }
    char msg[SPB_MSG_LEN] = "";
    int unusable = 0;
    spb_status st = run_product(pc, &a, kernel, &unusable, msg);
    if (st != SPB_OK) fprintf(stderr, "spbench: %s\n", msg);
    /* an input that cannot be used: 2, as for every command; a product
     * that fails or is wrong: 1 */
    return st == SPB_OK ? 0 : unusable ? EXIT_USAGE : EXIT_RESULTS_BAD;
}

/* ---- spbench spmv ------------------------------------------------------------ */

/* x from a Matrix Market vector file into the case (its length checked),
 * complex for a complex matrix. */
static spb_status load_x(spb_case *c, const char *path, char *msg)
{
    spb_index len;
    spb_value *x = NULL;
    int complex_x = 0;
    spb_status st = mm_read_vector(path, &len, &x, &complex_x, msg);
    if (st == SPB_OK && complex_x != c->A->complex_values)
        st = spb_fail(msg, SPB_ERR_INVALID, "%s: x is %s, the matrix %s: their fields must agree",
                      path, complex_x ? "complex" : "real",
                      c->A->complex_values ? "complex" : "real");
    if (st == SPB_OK && len != c->A->n)
        st = spb_fail(msg, SPB_ERR_INVALID, "%s: x has %d entries, the matrix %d columns", path,
                      (int)len, (int)c->A->n);
    if (st == SPB_OK) spmv_case_set_x(c, x);
    spb_free(x);
    return st;
}

static void describe_spmv(const spb_case *c, const spb_validation *v, char *text, size_t size)
{
    (void)c;
    snprintf(text, size, "abs_l2_err %.3e, rel_l2_err %.3e", v->abs_l2, v->rel_l2);
}

static spb_status write_y(const spb_case *c, const char *path, const char *comment, char *msg)
{
    return mm_write_vector(path, c->A->m, spmv_case_y(c), c->A->complex_values, comment, msg);
}

int cmd_spmv(int argc, char **argv)
{
    static const product_command spmv = {
        operation_spmv,
        "SpMV",
        "--x",
        "spbench spmv MATRIX --kernel NAME [--x X.mtx | --seed S] [--threads N] [--precision P] "
        "-o Y.mtx [--force]",
        load_x,
        describe_spmv,
        write_y,
        "y = A*x"};
    return product_command_run(&spmv, argc, argv);
}

/* ---- spbench spgemm ---------------------------------------------------------- */

static void describe_spgemm(const spb_case *c, const spb_validation *v, char *text, size_t size)
{
    snprintf(text, size, "%.0f products, C has %.0f entries, rel_l2_err %.3e", c->products,
             c->nnz_c, v->rel_l2);
}

static spb_status write_c(const spb_case *c, const char *path, const char *comment, char *msg)
{
    return mm_write_csr(path, spgemm_case_c(c), comment, msg);
}

int cmd_spgemm(int argc, char **argv)
{
    static const product_command spgemm = {
        operation_spgemm,
        "SpGEMM",
        "--b",
        "spbench spgemm A [--b B] --kernel NAME [--threads N] [--precision P] -o C.mtx [--force]",
        NULL,
        describe_spgemm,
        write_c,
        "C = A*B"};
    return product_command_run(&spgemm, argc, argv);
}
