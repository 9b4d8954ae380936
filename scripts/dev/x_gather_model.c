/* x_gather_model.c — a model of the L2 sectors per entry that
 * csr.cuda.stream's product asks for on an H100, to weigh a change
 * before a device is at hand: the matrix's stream (4-byte index and the
 * value, read once) plus the x gathers each SM's L1 does not hold. Tiles
 * of TILE entries go to the SMs in turn, RESIDENT at a time on each, their
 * warps interleaved; a warp's 32 gathers ask for their distinct 32-byte
 * sectors; the L1 is a 16-way LRU cache of sectors of each size given.
 * Printed for the matrix's own column numbers and for columns renumbered
 * by falling count (hot entries of x packed into few sectors), with what
 * renumbering x itself would cost each product (a gather and a write of
 * x). A model: its figures rank levers, the device measures them.
 *
 *   cc -O2 -o x_gather_model scripts/dev/x_gather_model.c
 *   spbench gen gen:rmat:20:16:70 -o rmat.mtx
 *   ./x_gather_model rmat.mtx
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TILE = 1024, SMS = 132, RESIDENT = 8, WAYS = 16, WARP = 32, SECTOR = 32 };

typedef struct {
    int row, col;
} entry;

typedef struct {
    uint64_t *tag, *used, clock;
    int sets;
} cache;

static const int *count_of; /* qsort's key: entries per column */

static int by_row_then_column(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->row != y->row) return (x->row > y->row) - (x->row < y->row);
    return (x->col > y->col) - (x->col < y->col);
}

static int by_falling_count(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (count_of[x] != count_of[y])
        return (count_of[y] > count_of[x]) - (count_of[y] < count_of[x]);
    return (x > y) - (x < y);
}

static void cache_reset(cache *c, long bytes)
{
    c->sets = (int)(bytes / SECTOR / WAYS);
    size_t slots = (size_t)c->sets * WAYS;
    free(c->tag);
    free(c->used);
    c->tag = malloc(slots * sizeof *c->tag);
    c->used = calloc(slots, sizeof *c->used);
    memset(c->tag, 0xff, slots * sizeof *c->tag);
    c->clock = 0;
}

/* 1 when the sector was not held (it is then, in its set's least used way). */
static int cache_misses(cache *c, uint64_t sector)
{
    int set = (int)(((sector * 0x9E3779B97F4A7C15ull) >> 20) % (uint64_t)c->sets), lru = 0;
    uint64_t *tag = c->tag + (size_t)set * WAYS, *used = c->used + (size_t)set * WAYS;
    c->clock++;
    for (int w = 0; w < WAYS; w++) {
        if (tag[w] == sector) {
            used[w] = c->clock;
            return 0;
        }
        if (used[w] < used[lru]) lru = w;
    }
    tag[lru] = sector;
    used[lru] = c->clock;
    return 1;
}

/* One warp's gathers of entries k0..k0+31: its distinct sectors, and how
 * many of them the L1 missed. */
static void warp_gathers(const entry *e, long k0, long nnz, int value_bytes, cache *c, long *asked,
                         long *missed)
{
    uint64_t sectors[WARP];
    int distinct = 0;
    for (long k = k0; k < k0 + WARP && k < nnz; k++) {
        uint64_t s = (uint64_t)e[k].col * (uint64_t)value_bytes / SECTOR;
        int seen = 0;
        for (int i = 0; i < distinct && !seen; i++) seen = sectors[i] == s;
        if (!seen) sectors[distinct++] = s;
    }
    *asked += distinct;
    for (int i = 0; i < distinct; i++) *missed += cache_misses(c, sectors[i]);
}

static void model(const entry *e, long nnz, long l1, int value_bytes, long *asked, long *missed)
{
    cache c = {0};
    const long tiles = (nnz + TILE - 1) / TILE;
    *asked = *missed = 0;
    for (int sm = 0; sm < SMS; sm++) {
        cache_reset(&c, l1);
        for (long first = sm; first < tiles; first += (long)SMS * RESIDENT)
            for (int step = 0; step < TILE / WARP; step++)
                for (long b = first; b < first + (long)SMS * RESIDENT && b < tiles; b += SMS)
                    warp_gathers(e, b * TILE + step * WARP, nnz, value_bytes, &c, asked, missed);
    }
    free(c.tag);
    free(c.used);
}

static void report(const char *numbering, const entry *e, long nnz, int n, int renumbered)
{
    const long l1s[] = {64 << 10, 128 << 10, 200 << 10};
    for (int v = 8; v >= 4; v /= 2)
        for (int i = 0; i < 3; i++) {
            long asked, missed;
            model(e, nnz, l1s[i], v, &asked, &missed);
            double stream = (4.0 + v) / SECTOR, x = (double)missed / (double)nnz;
            double renumber = renumbered ? (double)n / (double)nnz * (1.0 + (double)v / SECTOR) : 0;
            printf("%-8s fp%d L1 %3ld KiB: warp sectors %.3f, L1 misses %.3f, stream %.3f, "
                   "renumbering x %.3f: %.3f L2 sectors per entry\n",
                   numbering, 8 * v, l1s[i] >> 10, (double)asked / (double)nnz, x, stream, renumber,
                   x + stream + renumber);
        }
}

int main(int argc, char **argv)
{
    FILE *f = argc == 2 ? fopen(argv[1], "r") : NULL;
    if (!f) {
        fprintf(stderr, "usage: x_gather_model MATRIX.mtx (plain coordinate Matrix Market)\n");
        return 2;
    }
    char line[1024] = "%";
    while (line[0] == '%' && fgets(line, sizeof line, f)) continue;
    int m, n;
    long nnz;
    if (sscanf(line, "%d %d %ld", &m, &n, &nnz) != 3 || nnz <= 0 || n <= 0) return 2;
    entry *e = malloc((size_t)nnz * sizeof *e);
    int *count = calloc((size_t)n, sizeof *count), *order = malloc((size_t)n * sizeof *order),
        *new_of = malloc((size_t)n * sizeof *new_of);
    for (long k = 0; k < nnz; k++) {
        if (fscanf(f, "%d %d %*[^\n]", &e[k].row, &e[k].col) != 2) return 2;
        e[k].row--, e[k].col--;
        count[e[k].col]++;
    }
    fclose(f);
    qsort(e, (size_t)nnz, sizeof *e, by_row_then_column);
    printf("%s: %d x %d, %ld entries; tiles of %d, %d SMs, %d tiles resident\n", argv[1], m, n, nnz,
           TILE, SMS, RESIDENT);
    report("own", e, nnz, n, 0);
    for (int i = 0; i < n; i++) order[i] = i;
    count_of = count;
    qsort(order, (size_t)n, sizeof *order, by_falling_count);
    for (int i = 0; i < n; i++) new_of[order[i]] = i;
    for (long k = 0; k < nnz; k++) e[k].col = new_of[e[k].col];
    qsort(e, (size_t)nnz, sizeof *e, by_row_then_column);
    report("by count", e, nnz, n, 1);
    free(e), free(count), free(order), free(new_of);
    return 0;
}
