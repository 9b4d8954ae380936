/* test_gen.c — matrix generators: valid CSR, the expected sizes and
 * counts, reproducibility, and refusals. */
#include <omp.h>
#include <string.h>

#include "bench/inputs/gen.h"
#include "bench/inputs/rng.h"
#include "check.h"
#include "formats/bsr.h"

/* Whether two matrices are the same, entry for entry. */
static int same_matrix(const spb_csr *A, const spb_csr *B)
{
    return A->m == B->m && A->n == B->n && A->nnz == B->nnz &&
           !memcmp(A->row_ptr, B->row_ptr, sizeof *A->row_ptr * ((size_t)A->m + 1)) &&
           !memcmp(A->col_idx, B->col_idx, sizeof *A->col_idx * (size_t)A->nnz) &&
           !memcmp(A->val, B->val, sizeof *A->val * (size_t)A->nnz);
}

static void check_generated(const char *spec, spb_index m, spb_index nnz)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, B;
    spb_status st = gen_matrix(spec, &A, msg);
    CHECK(st == SPB_OK, "%s: %s", spec, msg);
    if (st != SPB_OK) return;
    CHECK(csr_check(&A, msg) == SPB_OK, "%s: %s", spec, msg);
    CHECK(A.m == m && A.n == m, "%s: %d x %d, expected %d square", spec, (int)A.m, (int)A.n,
          (int)m);
    if (nnz >= 0) CHECK(A.nnz == nnz, "%s: nnz %d, expected %d", spec, (int)A.nnz, (int)nnz);
    CHECK(gen_matrix(spec, &B, msg) == SPB_OK, "%s: %s", spec, msg);
    CHECK(same_matrix(&A, &B), "%s: two generations differ", spec);
    csr_free(&A);
    csr_free(&B);
}

static spb_index longest_row(const spb_csr *A)
{
    spb_index longest = 0;
    for (spb_index i = 0; i < A->m; i++)
        if (A->row_ptr[i + 1] - A->row_ptr[i] > longest)
            longest = A->row_ptr[i + 1] - A->row_ptr[i];
    return longest;
}

/* gen:hubs: symmetric (A equal to its transpose), its hub rows as long as
 * their distinct random columns, the others about PER_ROW. */
static void check_hubs(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, T;
    CHECK(gen_matrix("gen:hubs:2000:6:2:500", &A, msg) == SPB_OK, "gen:hubs: %s", msg);
    CHECK(csr_transpose(&A, &T, msg) == SPB_OK, "transpose: %s", msg);
    CHECK(same_matrix(&A, &T), "gen:hubs is symmetric");
    spb_index longest = 0, hubs_seen = 0;
    for (spb_index i = 0; i < A.m; i++) {
        spb_index len = A.row_ptr[i + 1] - A.row_ptr[i];
        if (len > longest) longest = len;
        hubs_seen += len > 400;
    }
    /* 500 random columns of 2000: about 2000 (1 - e^-0.25) = 442 distinct, and
     * the mirrored entries of the other hub */
    CHECK(longest > 400 && longest < 520 && hubs_seen == 2,
          "two hub rows of 400-520 entries: longest %d, %d over 400", (int)longest, (int)hubs_seen);
    CHECK(A.nnz > 2000 * 5 && A.nnz < 2000 * 6 + 2 * 1000, "about 6 a row plus the hubs: %d",
          (int)A.nnz);
    csr_free(&A);
    csr_free(&T);
}

/* gen:road: a symmetric pattern of at most 4 a row, about 4 * KEEP / 100. */
static void check_road(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, T;
    CHECK(gen_matrix("gen:road:100:65", &A, msg) == SPB_OK, "gen:road: %s", msg);
    CHECK(csr_transpose(&A, &T, msg) == SPB_OK, "transpose: %s", msg);
    CHECK(A.m == 10000 && A.nnz == T.nnz &&
              !memcmp(A.col_idx, T.col_idx, sizeof *A.col_idx * (size_t)A.nnz),
          "gen:road is a symmetric 10000-node graph");
    spb_index longest = 0;
    int ones = 1;
    for (spb_index i = 0; i < A.m; i++) {
        spb_index len = A.row_ptr[i + 1] - A.row_ptr[i];
        if (len > longest) longest = len;
    }
    for (spb_index k = 0; k < A.nnz; k++) ones &= A.val[k] == 1.0;
    double mean = (double)A.nnz / A.m;
    CHECK(longest <= 4 && ones && mean > 2.4 && mean < 2.8,
          "at most 4 a row (%d), every value 1, mean 2.6 (%.2f)", (int)longest, mean);
    csr_free(&A);
    csr_free(&T);
}

/* The longest row's length, and the row and column counts of entries. */
/* gen:lp: wide; every column PER_COL entries, or one more where a dense row
 * holds it; the dense rows about DENSE_PERCENT % of the columns; the same
 * matrix twice; the estimate near the count. */
static void check_lp(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, T, B;
    CHECK(gen_matrix("gen:lp:400:20000:3:70:2", &A, msg) == SPB_OK, "gen:lp: %s", msg);
    CHECK(csr_check(&A, msg) == SPB_OK && A.m == 400 && A.n == 20000, "400 x 20000: %s", msg);
    CHECK(csr_transpose(&A, &T, msg) == SPB_OK, "transpose: %s", msg);
    int columns_ok = 1;
    for (spb_index c = 0; c < T.m; c++) {
        spb_index len = T.row_ptr[c + 1] - T.row_ptr[c];
        columns_ok &= len >= 3 && len <= 5;
    }
    CHECK(columns_ok, "every column 3 entries, and up to 2 more from the dense rows");
    int dense = 0;
    for (spb_index i = 0; i < A.m; i++) {
        spb_index len = A.row_ptr[i + 1] - A.row_ptr[i];
        dense += len > 13000 && len < 15000; /* 70% of 20000, give or take */
    }
    double estimate = gen_estimate_nnz("gen:lp:400:20000:3:70:2");
    CHECK(dense == 2 && longest_row(&A) < 15000, "two dense rows of about 14000: %d, longest %d",
          dense, (int)longest_row(&A));
    CHECK(estimate > 0.98 * A.nnz && estimate < 1.02 * A.nnz, "estimate %.0f for %d entries",
          estimate, (int)A.nnz);
    CHECK(gen_matrix("gen:lp:400:20000:3:70:2", &B, msg) == SPB_OK && same_matrix(&A, &B),
          "gen:lp twice: the same matrix");
    csr_free(&B);
    CHECK(gen_matrix("gen:lp:50:300:2:10", &B, msg) == SPB_OK && longest_row(&B) < 60,
          "one dense row when not given: longest %d", (int)longest_row(&B));
    csr_free(&A);
    csr_free(&T);
    csr_free(&B);
}

/* Sizes that once wrapped or took quadratic time (issue 74 item 6): a
 * dense-row bound past 32 bits (a heap overflow), a row length past 2^62
 * (a 2-entry matrix), a column holding every row (quadratic draws). */
static void check_lp_bounds(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, T;
    /* 2.2 million dense rows of 1% of 1000 columns: room for all would be
     * 2.2e9 entries; about 22 million are drawn */
    CHECK(gen_matrix("gen:lp:2200000:1000:1:1:2200000", &A, msg) == SPB_OK, "%s", msg);
    CHECK(csr_check(&A, msg) == SPB_OK && A.nnz > 21000000 && A.nnz < 23000000,
          "gen:lp with 2.2e9 dense cells: %d entries (%s)", (int)A.nnz, msg);
    csr_free(&A);
    msg[0] = '\0';
    CHECK(gen_matrix("gen:hubs:1000:4611686018427387904:1:1", &A, msg) != SPB_OK &&
              strstr(msg, "4611686018427387904"),
          "a row length past the index limit is refused, named: %s", msg);
    /* every row in one column, and 80 of 100 in each of 50: distinct, in linear time */
    static const char *const full[] = {"gen:lp:200000:1:200000:1", "gen:lp:100:50:80:1"};
    static const spb_index per_col[] = {200000, 80};
    for (int k = 0; k < 2; k++) {
        msg[0] = '\0';
        CHECK(gen_matrix(full[k], &A, msg) == SPB_OK && csr_check(&A, msg) == SPB_OK, "%s: %s",
              full[k], msg);
        CHECK(csr_transpose(&A, &T, msg) == SPB_OK, "transpose: %s", msg);
        int distinct = 1;
        for (spb_index c = 0; c < T.m; c++)
            distinct &= T.row_ptr[c + 1] - T.row_ptr[c] >= per_col[k];
        CHECK(distinct, "%s: every column holds %d distinct rows", full[k], (int)per_col[k]);
        csr_free(&A);
        csr_free(&T);
    }
}

/* gen:circuit: square, a full diagonal, about PER_ROW a row, and NETS rows
 * and columns of about NET_LEN. */
static void check_circuit(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A, T;
    CHECK(gen_matrix("gen:circuit:5000:5:3:1500", &A, msg) == SPB_OK, "gen:circuit: %s", msg);
    CHECK(csr_check(&A, msg) == SPB_OK && A.m == 5000 && A.n == 5000, "5000 square: %s", msg);
    CHECK(csr_transpose(&A, &T, msg) == SPB_OK, "transpose: %s", msg);
    int diagonal = 1, long_rows = 0, long_cols = 0;
    for (spb_index i = 0; i < A.m; i++) {
        int has = 0;
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++) has |= A.col_idx[k] == i;
        diagonal &= has;
        long_rows += A.row_ptr[i + 1] - A.row_ptr[i] > 1000;
        long_cols += T.row_ptr[i + 1] - T.row_ptr[i] > 1000;
    }
    double mean = (double)(A.nnz - 2 * 3 * 1500) / A.m;
    CHECK(diagonal && long_rows == 3 && long_cols == 3 && longest_row(&A) <= 1500 + 5 * 2,
          "the diagonal, three rows and three columns of about 1500: %d, %d, longest %d", long_rows,
          long_cols, (int)longest_row(&A));
    CHECK(mean > 4 && mean <= 5, "about 5 a row besides the nets: %.2f", mean);
    csr_free(&A);
    csr_free(&T);
    check_generated("gen:circuit:300:4:2:50", 300, -1);
    check_generated("gen:circuit:3:2:1:1", 3, -1); /* smaller than the band near the diagonal */
}

/* spb_rng_advance(n) lands where n draws would. */
static void check_rng_advance(void)
{
    static const uint64_t steps[] = {0, 1, 2, 63, 64, 65, 1000, 4097, 100003};
    for (size_t t = 0; t < sizeof steps / sizeof steps[0]; t++) {
        spb_rng drawn, jumped;
        spb_rng_seed(&drawn, 12345 + t);
        jumped = drawn;
        for (uint64_t k = 0; k < steps[t]; k++) spb_rng_next(&drawn);
        spb_rng_advance(&jumped, steps[t]);
        CHECK(!memcmp(drawn.s, jumped.s, sizeof drawn.s), "advancing %llu draws",
              (unsigned long long)steps[t]);
        CHECK(spb_rng_next(&drawn) == spb_rng_next(&jumped), "the draw after %llu",
              (unsigned long long)steps[t]);
    }
}

/* The generators split among threads make the matrix one thread makes. */
static void check_threads_agree(void)
{
    static const char *const specs[] = {"gen:rmat:11:8",          "gen:hubs:3001:6:3:700",
                                        "gen:random:2000:9",      "gen:circuit:1500:5:2:300",
                                        "gen:lp:300:5000:3:40:2", "gen:road:60:70",
                                        "gen:rmat:11:8:75"};
    int before = omp_get_max_threads();
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        char msg[SPB_MSG_LEN] = "";
        spb_csr one, three;
        omp_set_num_threads(1);
        CHECK(gen_matrix(specs[k], &one, msg) == SPB_OK, "%s: %s", specs[k], msg);
        omp_set_num_threads(3);
        CHECK(gen_matrix(specs[k], &three, msg) == SPB_OK, "%s: %s", specs[k], msg);
        CHECK(same_matrix(&one, &three), "%s: 1 and 3 threads make different matrices", specs[k]);
        csr_free(&one);
        csr_free(&three);
    }
    omp_set_num_threads(before);
}

/* The share of A's entries in its first m/16 rows. */
static double head_share(const spb_csr *A)
{
    return A->nnz ? (double)A->row_ptr[A->m / 16] / A->nnz : 0.0;
}

/* gen:rmat's skew: without A_PERCENT the Graph500 matrix, bit for bit; a
 * larger A_PERCENT gathers the edges on the first rows (a larger share of
 * the entries there, more duplicates summed), a smaller one spreads them. */
static void check_rmat_skew(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr plain, graph500, flat, steep;
    CHECK(gen_matrix("gen:rmat:12:8", &plain, msg) == SPB_OK, "%s", msg);
    CHECK(gen_matrix("gen:rmat:12:8:57", &graph500, msg) == SPB_OK, "%s", msg);
    CHECK(gen_matrix("gen:rmat:12:8:40", &flat, msg) == SPB_OK, "%s", msg);
    CHECK(gen_matrix("gen:rmat:12:8:80", &steep, msg) == SPB_OK, "%s", msg);
    CHECK(same_matrix(&plain, &graph500), "gen:rmat:12:8 is not gen:rmat:12:8:57");
    CHECK(head_share(&flat) < head_share(&plain) && head_share(&plain) < head_share(&steep),
          "entries in the first 1/16 of the rows at a = 40, 57, 80 %%: %.3f, %.3f, %.3f "
          "(expected increasing)",
          head_share(&flat), head_share(&plain), head_share(&steep));
    CHECK(flat.nnz > plain.nnz && plain.nnz > steep.nnz,
          "entries at a = 40, 57, 80 %%: %d, %d, %d (more duplicates the steeper)", (int)flat.nnz,
          (int)plain.nnz, (int)steep.nnz);
    csr_free(&plain);
    csr_free(&graph500);
    csr_free(&flat);
    csr_free(&steep);
}

/* gen:fem: each node pair of the 27-point stencil a dense DOF x DOF block
 * (BSR at DOF stores no zero), interior rows 27 DOF long, each row's
 * diagonal at least its other entries' absolute sum. */
static void check_fem(void)
{
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    /* on 4 nodes an axis, a node has 2, 3, 3, 2 neighbours along it (itself
     * included): 10^3 node pairs */
    check_generated("gen:fem:4:3", 4 * 4 * 4 * 3, 9 * 1000);
    check_generated("gen:fem:1:1", 1, 1);
    CHECK(gen_matrix("gen:fem:4:3", &A, msg) == SPB_OK, "%s", msg);
    CHECK(bsr_count_blocks(&A, 3) * 9 == A.nnz, "gen:fem:4:3: %lld 3x3 blocks for %d entries",
          (long long)bsr_count_blocks(&A, 3), (int)A.nnz);
    CHECK(longest_row(&A) == 27 * 3, "gen:fem:4:3: longest row %d, expected 81",
          (int)longest_row(&A));
    int weak = 0;
    for (spb_index i = 0; i < A.m; i++) {
        double diagonal = 0, others = 0;
        for (spb_index k = A.row_ptr[i]; k < A.row_ptr[i + 1]; k++)
            if (A.col_idx[k] == i)
                diagonal = A.val[k];
            else
                others += A.val[k] < 0 ? -A.val[k] : A.val[k];
        weak += diagonal < others;
    }
    CHECK(weak == 0, "gen:fem:4:3: %d rows whose diagonal is below the others' sum", weak);
    csr_free(&A);
}

int main(void)
{
    check_rng_advance();
    check_threads_agree();
    check_hubs();
    check_road();
    check_lp();
    check_lp_bounds();
    check_circuit();
    check_rmat_skew();
    check_fem();
    /* lap2d: 5 N^2 - 4 N entries; lap3d: 7 N^3 - 6 N^2 */
    check_generated("gen:lap2d:1", 1, 1);
    check_generated("gen:lap2d:10", 100, 5 * 100 - 4 * 10);
    check_generated("gen:lap3d:2", 8, 7 * 8 - 6 * 4);
    check_generated("gen:lap3d:9", 729, 7 * 729 - 6 * 81);
    /* layered grids (weak scaling): each axis of extent e adds 2 (e - 1) entries per line of it */
    check_generated("gen:lap2d:4:6", 24, 5 * 24 - 2 * 6 - 2 * 4);
    check_generated("gen:lap3d:3:5", 45, 7 * 45 - 2 * (9 + 15 + 15));
    check_generated("gen:lap3d:9:9", 729, 7 * 729 - 6 * 81);
    check_generated("gen:random:500:7", 500, 3500);
    check_generated("gen:random:5:5", 5, 25);
    check_generated("gen:rmat:8:4", 256, -1);
    /* lap2d row sums: 0 inside, positive on the boundary */
    char msg[SPB_MSG_LEN] = "";
    spb_csr A;
    gen_matrix("gen:lap2d:5", &A, msg);
    double inner = 0;
    for (spb_index k = A.row_ptr[12]; k < A.row_ptr[13]; k++) inner += A.val[k];
    CHECK(inner == 0 && A.row_ptr[13] - A.row_ptr[12] == 5, "interior row of lap2d:5");
    csr_free(&A);
    static const char *const bad[] = {"gen:lap2d",
                                      "gen:lap2d:0",
                                      "gen:lap2d:-3",
                                      "gen:cube:4",
                                      "gen:random:10",
                                      "gen:random:5:6",
                                      "gen:lap2d:10x",
                                      "gen:rmat:40:16",
                                      "gen:rmat:8:4:20",
                                      "gen:rmat:8:4:95",
                                      "gen:rmat:8:4:57:1",
                                      "gen:fem:4",
                                      "gen:fem:2000:3",
                                      "gen:lap3d:2000",
                                      "gen:lap3d:4:0",
                                      "gen:lap2d:3:4:5",
                                      "gen:hubs:10:2:1",
                                      "gen:hubs:10:2:20:5",
                                      "gen:lp:10:100:20:50",
                                      "gen:lp:10:100:2:150",
                                      "gen:lp:10:100:2:50:11",
                                      "gen:lp:10:100:2",
                                      "gen:circuit:10:20:1:5",
                                      "gen:circuit:10:2:1:50",
                                      "gen:lp:1:2:1:1:1:1",
                                      "gen:random:4:4294967297",
                                      "gen:road:4294967296:50"};
    for (int k = 0; k < (int)(sizeof bad / sizeof bad[0]); k++) {
        msg[0] = '\0';
        spb_status st = gen_matrix(bad[k], &A, msg);
        CHECK(st != SPB_OK, "%s accepted", bad[k]);
        CHECK(strstr(msg, bad[k]) != NULL, "%s: message '%s' does not name the spec", bad[k], msg);
    }
    return check_done();
}
