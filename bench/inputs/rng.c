/* rng.c — advancing the generator by many draws at once (see rng.h). */
#include "bench/inputs/rng.h"

#include <string.h>

#define STATE_BITS 256

/* A linear map of the 256-bit state over GF(2), as the images of the unit
 * vectors: xoshiro's update is shifts, rotations and XORs only. */
typedef struct {
    uint64_t image[STATE_BITS][4];
} state_map;

static void apply(const state_map *map, const uint64_t in[4], uint64_t out[4])
{
    uint64_t sum[4] = {0, 0, 0, 0};
    for (int b = 0; b < STATE_BITS; b++)
        if (in[b / 64] >> (b % 64) & 1)
            for (int w = 0; w < 4; w++) sum[w] ^= map->image[b][w];
    memcpy(out, sum, sizeof sum);
}

void spb_rng_advance(spb_rng *r, uint64_t steps)
{
    state_map power, squared; /* one draw's map, then squared: 2^k draws' (16 KiB) */
    for (int b = 0; b < STATE_BITS; b++) {
        spb_rng unit = {{0, 0, 0, 0}};
        unit.s[b / 64] = 1ull << (b % 64);
        spb_rng_next(&unit);
        memcpy(power.image[b], unit.s, sizeof unit.s);
    }
    for (; steps; steps >>= 1) {
        if (steps & 1) apply(&power, r->s, r->s);
        if (steps == 1) break;
        for (int b = 0; b < STATE_BITS; b++) apply(&power, power.image[b], squared.image[b]);
        power = squared;
    }
}
