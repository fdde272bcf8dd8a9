/* benchsite: xorshift64* (SPEC §2.2; Vigna, ACM TOMS 42(4), 2016). */
#ifndef BENCHSITE_RNG_H
#define BENCHSITE_RNG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Seed 0 would be a fixed point of xorshift; it is replaced by this. */
#define BS_RNG_ZERO_SEED UINT64_C(0x9E3779B97F4A7C15)

/* Generator state, owned by the caller. */
typedef struct bs_rng {
  uint64_t s;
} bs_rng;

/* Seeds: s = seed, except seed 0 gives BS_RNG_ZERO_SEED. */
static inline void bs_rng_seed(bs_rng *r, uint64_t seed) {
  r->s = seed ? seed : BS_RNG_ZERO_SEED;
}

/* The next 64-bit output. */
static inline uint64_t bs_rng_next(bs_rng *r) {
  uint64_t s = r->s;
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  r->s = s;
  return s * UINT64_C(0x2545F4914F6CDD1D);
}

/* A random index in {0..m-1}: exactly bs_rng_next() % m (m >= 1). */
static inline uint64_t bs_rng_index(bs_rng *r, uint64_t m) {
  return bs_rng_next(r) % m;
}

#ifdef __cplusplus
}
#endif
#endif
