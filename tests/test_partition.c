/* test_partition.c — the nnz-balanced row partition: every row covered
 * exactly once, no empty range, each boundary within one row's nonzeros of
 * the ideal split, on random and skewed row lengths. */
#include "bench/inputs/rng.h"
#include "check.h"
#include "cpu/partition.h"

static void check_partition(const char *label, const spb_csr *A, int parts)
{
    char msg[SPB_MSG_LEN] = "";
    spb_row_partition p;
    spb_status st = partition_rows_by_nnz(A, parts, &p, msg);
    CHECK(st == SPB_OK, "%s: %s", label, msg);
    if (st != SPB_OK) return;
    CHECK(p.parts <= parts, "%s: %d ranges for %d parts", label, p.parts, parts);
    CHECK(A->m == 0 ? p.parts == 0 : p.parts >= 1, "%s: %d ranges for %d rows", label, p.parts,
          (int)A->m);
    if (p.parts > 0) {
        CHECK(p.first[0] == 0 && p.first[p.parts] == A->m, "%s: ranges do not cover 0..m", label);
        spb_index longest = 0;
        for (spb_index i = 0; i < A->m; i++)
            if (A->row_ptr[i + 1] - A->row_ptr[i] > longest)
                longest = A->row_ptr[i + 1] - A->row_ptr[i];
        /* Each boundary lies within one row of its ideal split k*nnz/parts,
         * so each range's work is within one (longest) row of nnz/parts. */
        int bad_order = 0, bad_balance = 0;
        double ideal = (double)A->nnz / parts;
        for (int k = 0; k < p.parts; k++) {
            bad_order += p.first[k + 1] <= p.first[k];
            double work = A->row_ptr[p.first[k + 1]] - A->row_ptr[p.first[k]];
            bad_balance += work > ideal + longest + 1 || work < ideal - longest - 1;
        }
        CHECK(bad_order == 0, "%s: %d ranges empty or out of order", label, bad_order);
        CHECK(bad_balance == 0, "%s: %d ranges off balance", label, bad_balance);
    }
    partition_free(&p);
}

static void make_rows(spb_rng *rng, spb_index m, int skew, spb_csr *A)
{
    char msg[SPB_MSG_LEN] = "";
    spb_index *lengths = malloc(sizeof *lengths * (size_t)(m + 1));
    int64_t nnz = 0;
    for (spb_index i = 0; i < m; i++) {
        lengths[i] = (spb_index)spb_rng_below(rng, 20);
        if (skew && spb_rng_below(rng, 50) == 0) lengths[i] = 5000;
        if (spb_rng_below(rng, 5) == 0) lengths[i] = 0;
        nnz += lengths[i];
    }
    csr_alloc(A, m, 1, (spb_index)nnz, msg);
    for (spb_index i = 0; i < m; i++) A->row_ptr[i + 1] = A->row_ptr[i] + lengths[i];
    for (int64_t k = 0; k < nnz; k++) {
        A->col_idx[k] = 0;
        A->val[k] = 1.0;
    }
    free(lengths);
}

int main(void)
{
    unsigned long long seed = check_seed();
    spb_rng rng;
    spb_rng_seed(&rng, seed);
    static const spb_index sizes[] = {0, 1, 2, 3, 7, 100, 1000, 4099};
    for (int s = 0; s < 8; s++)
        for (int skew = 0; skew < 2; skew++) {
            spb_csr A;
            make_rows(&rng, sizes[s], skew, &A);
            for (int parts = 1; parts <= 9; parts++) check_partition("random rows", &A, parts);
            check_partition("many parts", &A, 64);
            csr_free(&A);
        }
    /* all rows empty: one range holds them all */
    spb_csr E;
    char msg[SPB_MSG_LEN] = "";
    csr_alloc(&E, 10, 1, 0, msg);
    spb_row_partition p;
    partition_rows_by_nnz(&E, 4, &p, msg);
    CHECK(p.parts == 1 && p.first[1] == 10, "empty matrix: %d ranges", p.parts);
    partition_free(&p);
    csr_free(&E);
    return check_done();
}
