/* rng.h — small seeded generator (xoshiro256**, seeded by splitmix64) for
 * reproducible inputs: the same seed gives the same numbers everywhere. */
#ifndef SPB_RNG_H
#define SPB_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} spb_rng;

static inline uint64_t spb_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void spb_rng_seed(spb_rng *r, uint64_t seed)
{
    for (int k = 0; k < 4; k++) r->s[k] = spb_splitmix64(&seed);
}

static inline uint64_t spb_rng_next(spb_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s[3] << 45 | s[3] >> 19;
    return result;
}

/* The state `steps` draws later, without drawing them (a generator split
 * among threads starts each part where the serial draws would be). */
void spb_rng_advance(spb_rng *r, uint64_t steps);

/* Uniform in [0, 1). */
static inline double spb_rng_uniform(spb_rng *r)
{
    return (double)(spb_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform in [0, bound) for bound >= 1. */
static inline uint64_t spb_rng_below(spb_rng *r, uint64_t bound)
{
    return (uint64_t)(spb_rng_uniform(r) * (double)bound);
}

/* Magnitude in [0.1, 1) with a random sign: never zero, never all equal, so
 * a wrong column index or a dropped entry changes the product. */
static inline double spb_rng_value(spb_rng *r)
{
    double v = 0.1 + 0.9 * spb_rng_uniform(r);
    return (spb_rng_next(r) & 1) ? -v : v;
}

#endif
