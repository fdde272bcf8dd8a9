/* Remainder by an invariant divisor with a multiply and a shift instead of
 * a hardware divide (Granlund & Montgomery 1994, in libdivide's form).
 * Exact for every 64-bit numerator, so `bs__fastdiv_mod(&v, x)` is
 * `x % d` bit for bit (tests/test_bootstrap.c checks it). Private. */
#ifndef BENCHSITE_FASTDIV_H
#define BENCHSITE_FASTDIV_H

#include <stdint.h>

#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 bs__u128;

typedef struct bs__fastdiv {
  uint64_t d;
  uint64_t magic;
  unsigned shift;
  int add;  /* the 65-bit magic case: one extra add-and-halve step */
  int pow2; /* d is a power of two: a plain shift */
} bs__fastdiv;

static inline bs__fastdiv bs__fastdiv_init(uint64_t d) {
  bs__fastdiv v = {d, 0, 0, 0, 0};
  unsigned l = 0;
  while (l < 63 && (d >> (l + 1)) != 0)
    l++; /* floor(log2 d) */
  v.shift = l;
  if (d < 2 || (d & (d - 1)) == 0) { /* 0 (a caller's bug), 1, 2^k */
    v.pow2 = 1;
    return v;
  }
  bs__u128 num = (bs__u128)1 << (64 + l);
  uint64_t m = (uint64_t)(num / d);
  uint64_t rem = (uint64_t)(num % d);
  if (d - rem < ((uint64_t)1 << l)) {
    v.add = 0;
  } else {
    m += m;
    uint64_t twice = rem + rem;
    if (twice >= d || twice < rem)
      m += 1;
    v.add = 1;
  }
  v.magic = m + 1;
  return v;
}

static inline uint64_t bs__fastdiv_mod(const bs__fastdiv *v, uint64_t n) {
  uint64_t q;
  if (v->pow2) {
    q = n >> v->shift;
  } else {
    uint64_t hi = (uint64_t)(((bs__u128)v->magic * n) >> 64);
    q = v->add ? (((n - hi) >> 1) + hi) >> v->shift : hi >> v->shift;
  }
  return n - q * v->d;
}
#else
typedef struct bs__fastdiv {
  uint64_t d;
} bs__fastdiv;
static inline bs__fastdiv bs__fastdiv_init(uint64_t d) {
  bs__fastdiv v = {d};
  return v;
}
static inline uint64_t bs__fastdiv_mod(const bs__fastdiv *v, uint64_t n) {
  return n % v->d;
}
#endif

#endif
