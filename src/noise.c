#include "benchsite/noise.h"

#include "benchsite/bootstrap.h"
#include "benchsite/compare.h"
#include "benchsite/quantile.h"
#include "fastdiv.h"
#include "orderstat.h"
#include "pairs.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bs_noise_options_init(bs_noise_options *o) {
  memset(o, 0, sizeof *o);
  o->resamples = BS_NOISE_RESAMPLES;
  o->level = BS_NOISE_LEVEL;
  o->seed = 0;
  o->block_mode = BS_BLOCK_NONE;
  o->block_length = 0;
}

bs_status bs_noise_options_check(const bs_noise_options *o, bs_error *err) {
  if (!isfinite(o->level))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level must be a fraction between 0.5 and 1");
  if (o->level > 1.0 && o->level < 100.0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level %g: the A/A level is a fraction in (0.5, 1), "
                        "not a percentage; did you mean %g?",
                        o->level, o->level / 100.0);
  if (!(o->level > 0.5 && o->level < 1.0))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level %g is outside (0.5, 1); the A/A level is a "
                        "fraction such as 0.95",
                        o->level);
  if (o->resamples < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (o->resamples > UINT32_MAX)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "at most %lu resamples are supported",
                        (unsigned long)UINT32_MAX);
  if (o->block_mode == BS_BLOCK_FIXED && o->block_length < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the block length must be at least 1 (or auto)");
  return BS_OK;
}

/* --- resampling -------------------------------------------------------- */

size_t bs_noise_auto_block_length(size_t n) {
  if (n < 2)
    return 1;
  double l = round(cbrt((double)n));
  size_t half = n / 2;
  if (!(l >= 1.0))
    return 1;
  if (l >= (double)half)
    return half;
  return (size_t)l;
}

void bs_noise_block_indices(bs_rng *rng, size_t n, size_t L, size_t *idx) {
  uint64_t starts = (uint64_t)(n - L + 1);
  size_t filled = 0;
  while (filled < n) {
    size_t start = (size_t)bs_rng_index(rng, starts);
    for (size_t t = 0; t < L && filled < n; t++)
      idx[filled++] = start + t;
  }
}

/* Jump-ahead for xorshift64*. The state update is linear over GF(2), so k
 * steps are one 64x64 bit matrix T^k; applying it to a state gives the
 * state k draws later. That lets several generators produce disjoint,
 * consecutive stretches of the one sequence the spec defines and run side
 * by side (in registers, or as the lanes of a vector): a single xorshift
 * chain is a serial run of six dependent shifts and xors per draw, and
 * one generator would leave most of the machine idle. */
typedef struct gf2 {
  uint64_t col[64]; /* col[j] = the image of bit j */
} gf2;

/* Four Russians: the image of every byte value at each of the 8 byte
 * positions, so applying the matrix takes 8 lookups. */
typedef uint64_t gf2_tables[8][256];

static void gf2_build(const gf2 *m, gf2_tables tab) {
  for (int k = 0; k < 8; k++) {
    tab[k][0] = 0;
    for (unsigned v = 1; v < 256; v++) {
      unsigned low = 0;
      while (!((v >> low) & 1u))
        low++;
      tab[k][v] = tab[k][v & (v - 1)] ^ m->col[8 * k + (int)low];
    }
  }
}

static uint64_t gf2_apply(gf2_tables tab, uint64_t v) {
  uint64_t r = 0;
  for (int k = 0; k < 8; k++)
    r ^= tab[k][(v >> (8 * k)) & 0xFF];
  return r;
}

/* out = a * b (apply b, then a); `tab` is scratch. out may alias b. */
static void gf2_mul(gf2 *out, const gf2 *a, const gf2 *b, gf2_tables tab) {
  gf2_build(a, tab);
  for (int j = 0; j < 64; j++)
    out->col[j] = gf2_apply(tab, b->col[j]);
}

static uint64_t xorshift_step(uint64_t s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s;
}

/* T^k by square and multiply. */
static void xorshift_jump(uint64_t k, gf2 *out, gf2_tables tab) {
  gf2 base;
  for (int j = 0; j < 64; j++) {
    out->col[j] = (uint64_t)1 << j;
    base.col[j] = xorshift_step((uint64_t)1 << j);
  }
  while (k) {
    if (k & 1u)
      gf2_mul(out, &base, out, tab);
    k >>= 1;
    if (k) {
      gf2 sq;
      gf2_mul(&sq, &base, &base, tab);
      base = sq;
    }
  }
}

/* Generators run side by side; their counters are interleaved. */
#define NCHAINS 8

/* One series prepared for resampling its median. The series is sorted
 * once; a resample only counts how often each rank was drawn, and its
 * type-7 median is read off the cumulative counts. The order statistics
 * found are the values a sort of the resample would put at those
 * positions, and the median uses the expression of bs_quantile_sorted, so
 * the result is bit-identical to sorting every resample. Counting also
 * makes the moving block bootstrap cheap: a median ignores the order in
 * which blocks were appended.
 *
 * Counters are kept per index, not per rank, so a draw is counted without
 * a lookup; the median walk visits them in rank order instead. Counters of
 * the NCHAINS generators are interleaved, counts[index * NCHAINS + chain],
 * so one base pointer serves every chain and the walk reads all chains'
 * counters of a value side by side. */
typedef struct series {
  size_t n;
  size_t L;     /* 0: ordinary bootstrap */
  size_t draws; /* generator draws per resample: n, or ceil(n / L) */
  size_t mod;   /* the divisor: n, or n - L + 1 */
  double *sorted;
  uint32_t *byrank; /* index of the rank-j value, times NCHAINS */
  bs__fastdiv div;  /* mod `mod` */
  int kind;         /* the divisor's case: 0 power of two, 1 magic, 2 add */
  uint32_t lo, hi;
  double frac;
} series;

static void series_release(series *s) {
  free(s->sorted);
  free(s->byrank);
  memset(s, 0, sizeof *s);
}

static bs_status series_init(series *s, const double *x, size_t n, size_t L) {
  memset(s, 0, sizeof *s);
  bs__ranked *order = malloc(n * sizeof *order);
  s->sorted = malloc(n * sizeof *s->sorted);
  s->byrank = malloc(n * sizeof *s->byrank);
  if (!order || !s->sorted || !s->byrank) {
    free(order);
    series_release(s);
    return BS_ENOMEM;
  }
  bs__rank_sort(x, n, order);
  for (size_t r = 0; r < n; r++) {
    s->sorted[r] = order[r].v;
    s->byrank[r] = (uint32_t)(order[r].i * NCHAINS);
  }
  free(order);
  s->n = n;
  s->L = L;
  s->draws = L ? (n + L - 1) / L : n;
  s->mod = L ? n - L + 1 : n;
  s->div = bs__fastdiv_init((uint64_t)s->mod);
#if defined(__SIZEOF_INT128__)
  s->kind = s->div.pow2 ? 0 : s->div.add ? 2 : 1;
#else
  s->kind = 1;
#endif
  double h = 0.5 * (double)(n - 1);
  double fl = floor(h);
  s->frac = h - fl;
  s->lo = (uint32_t)fl;
  s->hi = (uint32_t)ceil(h);
  return BS_OK;
}

/* Adds one draw's values (one index, or a block of `take` from `start`)
 * to the counters of `chain`. */
static inline void count_draw(uint32_t *counts, size_t chain, size_t start,
                              size_t take) {
  uint32_t *p = counts + start * NCHAINS + chain;
  for (size_t t = 0; t < take; t++)
    p[t * NCHAINS]++;
}

/* The type-7 median of one chain's resample from its counters. The walk
 * is branch-free: a mispredicted exit costs more than finishing it. */
static double chain_median(const series *s, const uint32_t *counts,
                           size_t chain) {
  uint32_t cum = 0, jl = 0, jh = 0;
  for (size_t j = 0; j < s->n; j++) {
    cum += counts[s->byrank[j] + chain];
    jl += cum <= s->lo;
    jh += cum <= s->hi;
  }
  double a = s->sorted[jl], b = s->sorted[jh];
  return a + s->frac * (b - a);
}

/* xorshift64* on a local state (bs_rng_next, kept in a register). */
#define XS_NEXT(g)                                                             \
  ((g) ^= (g) >> 12, (g) ^= (g) << 25, (g) ^= (g) >> 27,                       \
   (g)*UINT64_C(0x2545F4914F6CDD1D))

/* draw() % d with the divisor's case fixed at compile time (the same
 * arithmetic as bs__fastdiv_mod). */
#if !defined(__SIZEOF_INT128__)
#define MOD(kind, dv, v, out) ((void)(kind), (out) = (v) % (dv).d)
#else
#define MOD(kind, dv, v, out)                                                  \
  do {                                                                         \
    uint64_t v_ = (v), q_;                                                     \
    if ((kind) == 0) {                                                         \
      q_ = v_ >> (dv).shift;                                                   \
    } else {                                                                   \
      uint64_t h_ = (uint64_t)(((bs__u128)(dv).magic * v_) >> 64);             \
      q_ = (kind) == 2 ? (((v_ - h_) >> 1) + h_) >> (dv).shift                 \
                       : h_ >> (dv).shift;                                     \
    }                                                                          \
    (out) = v_ - q_ * (dv).d;                                                  \
  } while (0)
#endif

/* One resample of s from chains base..base+3, interleaved draw by draw so
 * that their dependency chains overlap. */
#define DEFINE_DRAW4(name, kind)                                               \
  static void name(const series *s, uint64_t *state, uint32_t *counts,         \
                   size_t base) {                                              \
    size_t n = s->n, L = s->L;                                                 \
    const bs__fastdiv dv = s->div;                                             \
    uint64_t g0 = state[base], g1 = state[base + 1], g2 = state[base + 2],     \
             g3 = state[base + 3];                                             \
    uint64_t i0, i1, i2, i3;                                                   \
    uint32_t *cb = counts + base;                                              \
    if (L == 0) {                                                              \
      for (size_t k = 0; k < n; k++) {                                         \
        MOD(kind, dv, XS_NEXT(g0), i0);                                        \
        MOD(kind, dv, XS_NEXT(g1), i1);                                        \
        MOD(kind, dv, XS_NEXT(g2), i2);                                        \
        MOD(kind, dv, XS_NEXT(g3), i3);                                        \
        cb[i0 * NCHAINS]++;                                                    \
        cb[i1 * NCHAINS + 1]++;                                                \
        cb[i2 * NCHAINS + 2]++;                                                \
        cb[i3 * NCHAINS + 3]++;                                                \
      }                                                                        \
    } else {                                                                   \
      for (size_t filled = 0; filled < n; filled += L) {                       \
        size_t take = n - filled < L ? n - filled : L;                         \
        MOD(kind, dv, XS_NEXT(g0), i0);                                        \
        MOD(kind, dv, XS_NEXT(g1), i1);                                        \
        MOD(kind, dv, XS_NEXT(g2), i2);                                        \
        MOD(kind, dv, XS_NEXT(g3), i3);                                        \
        count_draw(counts, base, (size_t)i0, take);                            \
        count_draw(counts, base + 1, (size_t)i1, take);                        \
        count_draw(counts, base + 2, (size_t)i2, take);                        \
        count_draw(counts, base + 3, (size_t)i3, take);                        \
      }                                                                        \
    }                                                                          \
    state[base] = g0;                                                          \
    state[base + 1] = g1;                                                      \
    state[base + 2] = g2;                                                      \
    state[base + 3] = g3;                                                      \
  }

DEFINE_DRAW4(draw4_pow2, 0)
DEFINE_DRAW4(draw4_magic, 1)
DEFINE_DRAW4(draw4_add, 2)

/* Portable path: NCHAINS resamples of s, medians into med[]. */
static void resample_scalar(const series *s, uint64_t *state, uint32_t *counts,
                            double *med) {
  memset(counts, 0, NCHAINS * s->n * sizeof *counts);
  for (size_t base = 0; base < NCHAINS; base += 4) {
    if (s->kind == 0)
      draw4_pow2(s, state, counts, base);
    else if (s->kind == 1)
      draw4_magic(s, state, counts, base);
    else
      draw4_add(s, state, counts, base);
  }
  for (size_t c = 0; c < NCHAINS; c++)
    med[c] = chain_median(s, counts, c);
}

/* One resample of s from a single generator into chain 0's counters. */
static double resample_one(const series *s, uint64_t *state, uint32_t *counts) {
  uint64_t g = *state;
  size_t step = s->L ? s->L : 1;
  memset(counts, 0, NCHAINS * s->n * sizeof *counts);
  for (size_t filled = 0; filled < s->n; filled += step) {
    size_t take = s->n - filled < step ? s->n - filled : step;
    count_draw(counts, 0, (size_t)bs__fastdiv_mod(&s->div, XS_NEXT(g)), take);
  }
  *state = g;
  return chain_median(s, counts, 0);
}

/* --- AVX2 path (x86-64 with GCC or Clang, chosen at run time) ------------
 * Eight generators in two vectors. The multiply of xorshift64* is done in
 * 32-bit halves; draw() % d is reduced exactly: with v = hi 2^32 + lo,
 * t = hi (2^32 mod d) + lo is congruent to v and below 2^32 d <= 2^48,
 * so t and t/d are exact enough in double that floor(t * (1/d)) is the
 * quotient or one less (only for exact multiples), fixed by one
 * compare. The result is the same index as `draw() % d`, bit for bit. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(BENCHSITE_NO_SIMD)
#define HAVE_AVX2 1
#include <immintrin.h>

/* Largest divisor the double reduction is exact for (see above). */
#define AVX2_MAX_MOD 65536u

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i xs_vec(__m256i s) {
  s = _mm256_xor_si256(s, _mm256_srli_epi64(s, 12));
  s = _mm256_xor_si256(s, _mm256_slli_epi64(s, 25));
  return _mm256_xor_si256(s, _mm256_srli_epi64(s, 27));
}

/* s * 0x2545F4914F6CDD1D mod 2^64 from 32x32->64 products. */
AVX2 static inline __m256i mul_vec(__m256i s) {
  const __m256i mlo = _mm256_set1_epi64x(0x4F6CDD1D);
  const __m256i mhi = _mm256_set1_epi64x(0x2545F491);
  __m256i lo = _mm256_mul_epu32(s, mlo);
  __m256i c1 = _mm256_mul_epu32(_mm256_srli_epi64(s, 32), mlo);
  __m256i c2 = _mm256_mul_epu32(s, mhi);
  return _mm256_add_epi64(lo, _mm256_slli_epi64(_mm256_add_epi64(c1, c2), 32));
}

typedef struct avx2_mod {
  __m256i c;   /* 2^32 mod d */
  __m256i d;   /* d */
  __m256i dm1; /* d - 1 */
  __m256d inv; /* 1/d */
} avx2_mod;

AVX2 static inline __m256i mod_vec(__m256i v, const avx2_mod *m) {
  const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256i bits52 = _mm256_set1_epi64x(0x4330000000000000);
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
  __m256i t = _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(v, 32), m->c),
                               _mm256_and_si256(v, low32));
  __m256d td =
      _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(t, bits52)), two52);
  __m256d q = _mm256_floor_pd(_mm256_mul_pd(td, m->inv));
  __m256i qi =
      _mm256_xor_si256(_mm256_castpd_si256(_mm256_add_pd(q, two52)), bits52);
  __m256i r = _mm256_sub_epi64(t, _mm256_mul_epu32(qi, m->d));
  __m256i over = _mm256_cmpgt_epi64(r, m->dm1);
  return _mm256_sub_epi64(r, _mm256_and_si256(over, m->d));
}

/* The draws of NCHAINS resamples of s: idx[k * NCHAINS + c] is the k-th
 * draw of chain c, reduced mod d and stored as the offset of its counter
 * (index * NCHAINS + c). */
AVX2 static void draws_avx2(const series *s, uint64_t *state, uint64_t *idx) {
  avx2_mod m;
  uint64_t d = (uint64_t)s->mod;
  m.c = _mm256_set1_epi64x((long long)((UINT64_C(1) << 32) % d));
  m.d = _mm256_set1_epi64x((long long)d);
  m.dm1 = _mm256_set1_epi64x((long long)(d - 1));
  m.inv = _mm256_set1_pd(1.0 / (double)d);
  __m256i s0 = _mm256_loadu_si256((const __m256i *)state);
  __m256i s1 = _mm256_loadu_si256((const __m256i *)(state + 4));
  const __m256i lane0 = _mm256_set_epi64x(3, 2, 1, 0);
  const __m256i lane1 = _mm256_set_epi64x(7, 6, 5, 4);
  for (size_t k = 0; k < s->draws; k++) {
    s0 = xs_vec(s0);
    s1 = xs_vec(s1);
    __m256i r0 = mod_vec(mul_vec(s0), &m), r1 = mod_vec(mul_vec(s1), &m);
    _mm256_storeu_si256((__m256i *)(idx + k * NCHAINS),
                        _mm256_add_epi64(_mm256_slli_epi64(r0, 3), lane0));
    _mm256_storeu_si256((__m256i *)(idx + k * NCHAINS + 4),
                        _mm256_add_epi64(_mm256_slli_epi64(r1, 3), lane1));
  }
  _mm256_storeu_si256((__m256i *)state, s0);
  _mm256_storeu_si256((__m256i *)(state + 4), s1);
}

/* The same with AVX-512 (F + DQ): all eight generators in one register, a
 * native 64-bit multiply and exact unsigned conversions. */
#define AVX512 __attribute__((target("avx512f,avx512dq")))

AVX512 static void draws_avx512(const series *s, uint64_t *state,
                                uint64_t *idx) {
  uint64_t d = (uint64_t)s->mod;
  const __m512i c = _mm512_set1_epi64((long long)((UINT64_C(1) << 32) % d));
  const __m512i dv = _mm512_set1_epi64((long long)d);
  const __m512i dm1 = _mm512_set1_epi64((long long)(d - 1));
  const __m512d inv = _mm512_set1_pd(1.0 / (double)d);
  const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);
  const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i lanes = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  __m512i g = _mm512_loadu_si512((const void *)state);
  for (size_t k = 0; k < s->draws; k++) {
    g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 12));
    g = _mm512_xor_si512(g, _mm512_slli_epi64(g, 25));
    g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 27));
    __m512i v = _mm512_mullo_epi64(g, mult);
    __m512i t = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(v, 32), c),
                                 _mm512_and_si512(v, low32));
    __m512d q = _mm512_floor_pd(_mm512_mul_pd(_mm512_cvtepu64_pd(t), inv));
    __m512i r =
        _mm512_sub_epi64(t, _mm512_mul_epu32(_mm512_cvttpd_epu64(q), dv));
    r = _mm512_mask_sub_epi64(r, _mm512_cmpgt_epu64_mask(r, dm1), r, dv);
    _mm512_storeu_si512((void *)(idx + k * NCHAINS),
                        _mm512_add_epi64(_mm512_slli_epi64(r, 3), lanes));
  }
  _mm512_storeu_si512((void *)state, g);
}

/* Counts the draws in idx and returns the NCHAINS medians. */
AVX2 static void count_and_walk_avx2(const series *s, const uint64_t *idx,
                                     uint32_t *counts, double *med) {
  size_t n = s->n, draws = s->draws;
  memset(counts, 0, NCHAINS * n * sizeof *counts);
  if (s->L == 0) {
    for (size_t k = 0; k < draws * NCHAINS; k += NCHAINS) {
      const uint64_t *ik = idx + k;
      counts[ik[0]]++;
      counts[ik[1]]++;
      counts[ik[2]]++;
      counts[ik[3]]++;
      counts[ik[4]]++;
      counts[ik[5]]++;
      counts[ik[6]]++;
      counts[ik[7]]++;
    }
  } else {
    for (size_t k = 0, filled = 0; k < draws; k++, filled += s->L) {
      size_t take = n - filled < s->L ? n - filled : s->L;
      for (size_t c = 0; c < NCHAINS; c++) {
        uint32_t *p = counts + idx[k * NCHAINS + c];
        for (size_t t = 0; t < take; t++)
          p[t * NCHAINS]++;
      }
    }
  }

  /* All eight walks at once: cum <= lo is lo + 1 > cum (counts are far
   * below 2^31, so the signed compare is exact). */
  __m256i cum = _mm256_setzero_si256(), jl = cum, jh = cum;
  const __m256i lo1 = _mm256_set1_epi32((int)(s->lo + 1));
  const __m256i hi1 = _mm256_set1_epi32((int)(s->hi + 1));
  const uint32_t *byrank = s->byrank;
  for (size_t j = 0; j < n; j++) {
    cum = _mm256_add_epi32(
        cum, _mm256_loadu_si256((const __m256i *)(counts + byrank[j])));
    jl = _mm256_sub_epi32(jl, _mm256_cmpgt_epi32(lo1, cum));
    jh = _mm256_sub_epi32(jh, _mm256_cmpgt_epi32(hi1, cum));
  }
  uint32_t l[NCHAINS], h[NCHAINS];
  _mm256_storeu_si256((__m256i *)l, jl);
  _mm256_storeu_si256((__m256i *)h, jh);
  for (size_t c = 0; c < NCHAINS; c++) {
    double a = s->sorted[l[c]], b = s->sorted[h[c]];
    med[c] = a + s->frac * (b - a);
  }
}

/* The best engine at most `want` that this CPU and these series allow. */
static bs_noise_engine pick_engine(const series *a, const series *b,
                                   bs_noise_engine want) {
  if (want == BS_NOISE_ENGINE_PORTABLE || a->mod > AVX2_MAX_MOD ||
      b->mod > AVX2_MAX_MOD)
    return BS_NOISE_ENGINE_PORTABLE;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2"))
    return BS_NOISE_ENGINE_PORTABLE;
  if (want != BS_NOISE_ENGINE_AVX2 && __builtin_cpu_supports("avx512f") &&
      __builtin_cpu_supports("avx512dq"))
    return BS_NOISE_ENGINE_AVX512;
  return BS_NOISE_ENGINE_AVX2;
}
#else
static bs_noise_engine pick_engine(const series *a, const series *b,
                                   bs_noise_engine want) {
  (void)a;
  (void)b;
  (void)want;
  return BS_NOISE_ENGINE_PORTABLE;
}
#endif

/* The seed's test, literally: a tie counts, so conf(x, y) + conf(y, x) - 1
 * recovers the share of tied replicates. */
static inline int replicate_counts(double mx, double my) {
  return mx == my || 1.0 - mx / my >= 0.0;
}

bs_status bs_noise_confidence(const double *x, size_t nx, size_t lx,
                              const double *y, size_t ny, size_t ly,
                              uint64_t resamples, uint64_t seed, double *conf,
                              bs_error *err) {
  return bs_noise_confidence_engine(x, nx, lx, y, ny, ly, resamples, seed,
                                    BS_NOISE_ENGINE_AUTO, NULL, conf, err);
}

bs_status bs_noise_confidence_engine(const double *x, size_t nx, size_t lx,
                                     const double *y, size_t ny, size_t ly,
                                     uint64_t resamples, uint64_t seed,
                                     bs_noise_engine engine,
                                     bs_noise_engine *used, double *conf,
                                     bs_error *err) {
  if (nx == 0 || ny == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "cannot bootstrap an empty sample");
  if (resamples == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (lx > nx || ly > ny)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "block length %zu exceeds the %zu samples",
                        lx > nx ? lx : ly, lx > nx ? nx : ny);
  if (nx > UINT32_MAX / NCHAINS || ny > UINT32_MAX / NCHAINS)
    return bs_error_set(err, BS_ELIMIT, NULL, 0, "too many samples");
  series sx, sy;
  uint32_t *cx = NULL, *cy = NULL;
  uint64_t *idx = NULL;
  uint64_t(*tab)[256] = NULL;
  bs_status st = BS_OK;
  if (series_init(&sx, x, nx, lx))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  if (series_init(&sy, y, ny, ly)) {
    series_release(&sx);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  size_t maxdraws = sx.draws > sy.draws ? sx.draws : sy.draws;
  cx = malloc(NCHAINS * nx * sizeof *cx);
  cy = malloc(NCHAINS * ny * sizeof *cy);
  idx = malloc(NCHAINS * maxdraws * sizeof *idx);
  tab = malloc(sizeof(gf2_tables));
  if (!cx || !cy || !idx || !tab) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }

  engine = pick_engine(&sx, &sy, engine);
  if (used)
    *used = engine;
  bs_rng rng;
  bs_rng_seed(&rng, seed);
  uint64_t count = 0;
  /* Chain c computes replicates [c*per, (c+1)*per) from the state
   * c*per*(draws per replicate) steps into the sequence; the last chain
   * ends where the remaining replicates begin. Every replicate sees
   * exactly the draws the one-generator definition gives it. */
  uint64_t per = resamples / NCHAINS;
  uint64_t state[NCHAINS];
  for (size_t c = 0; c < NCHAINS; c++)
    state[c] = rng.s;
  if (per > 0) {
    gf2 jump;
    xorshift_jump(per * (uint64_t)(sx.draws + sy.draws), &jump, tab);
    gf2_build(&jump, tab);
    for (size_t c = 1; c < NCHAINS; c++)
      state[c] = gf2_apply(tab, state[c - 1]);
    double mx[NCHAINS], my[NCHAINS];
#if HAVE_AVX2
    if (engine != BS_NOISE_ENGINE_PORTABLE) {
      for (uint64_t r = 0; r < per; r++) {
        if (engine == BS_NOISE_ENGINE_AVX512)
          draws_avx512(&sx, state, idx);
        else
          draws_avx2(&sx, state, idx);
        count_and_walk_avx2(&sx, idx, cx, mx);
        if (engine == BS_NOISE_ENGINE_AVX512)
          draws_avx512(&sy, state, idx);
        else
          draws_avx2(&sy, state, idx);
        count_and_walk_avx2(&sy, idx, cy, my);
        for (size_t c = 0; c < NCHAINS; c++)
          count += (uint64_t)replicate_counts(mx[c], my[c]);
      }
    } else
#endif
    {
      for (uint64_t r = 0; r < per; r++) {
        resample_scalar(&sx, state, cx, mx);
        resample_scalar(&sy, state, cy, my);
        for (size_t c = 0; c < NCHAINS; c++)
          count += (uint64_t)replicate_counts(mx[c], my[c]);
      }
    }
  }
  uint64_t g = state[NCHAINS - 1];
  for (uint64_t r = per * NCHAINS; r < resamples; r++) {
    double mx = resample_one(&sx, &g, cx);
    double my = resample_one(&sy, &g, cy);
    count += (uint64_t)replicate_counts(mx, my);
  }
  *conf = (double)count / (double)resamples;
done:
  free(cx);
  free(cy);
  free(idx);
  free(tab);
  series_release(&sx);
  series_release(&sy);
  return st;
}

/* --- drift and autocorrelation ----------------------------------------- */

bs_status bs_noise_midranks(const double *x, size_t n, double *ranks) {
  if (n == 0)
    return BS_OK;
  bs__ranked *order = malloc(n * sizeof *order);
  if (!order)
    return BS_ENOMEM;
  bs__rank_sort(x, n, order);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && order[j].v == order[i].v)
      j++;
    /* Positions i..j-1 hold ranks i+1..j; ties share their mean. */
    double mid = 0.5 * (double)(i + 1 + j);
    for (size_t k = i; k < j; k++)
      ranks[order[k].i] = mid;
    i = j;
  }
  free(order);
  return BS_OK;
}

double bs_noise_lag1(const double *x, size_t n) {
  if (n < 2)
    return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  double mean = sum / (double)n;
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] - mean;
    den += d * d;
    if (i + 1 < n)
      num += d * (x[i + 1] - mean);
  }
  if (den == 0.0)
    return 0.0;
  return num / den;
}

bs_status bs_noise_drift(const double *x, size_t n, bs_drift *out) {
  memset(out, 0, sizeof *out);
  if (n < BS_NOISE_DRIFT_MIN)
    return BS_EINPUT;
  double *ranks = malloc(n * sizeof *ranks);
  if (!ranks)
    return BS_ENOMEM;
  if (bs_noise_midranks(x, n, ranks)) {
    free(ranks);
    return BS_ENOMEM;
  }
  /* Spearman's rho is Pearson's r of the mid-ranks against positions
   * 0..n-1. Ranks are multiples of 1/2 and their mean is (n+1)/2, so every
   * deviation and product below is exact in double for any n a log holds;
   * only the final division and square root round. */
  double rmean = 0.5 * (double)(n + 1);
  double pmean = 0.5 * (double)(n - 1);
  double sxy = 0.0, syy = 0.0, sxx = 0.0;
  for (size_t i = 0; i < n; i++) {
    double dr = ranks[i] - rmean;
    double dp = (double)i - pmean;
    sxy += dr * dp;
    syy += dr * dr;
    sxx += dp * dp;
  }
  free(ranks);
  out->rho = syy == 0.0 ? 0.0 : sxy / sqrt(sxx * syy);
  /* Normal approximation to the null distribution of rho (as the seed's
   * DetectDrift), not the t distribution scipy uses. */
  out->z = out->rho * sqrt((double)(n - 1));
  out->p = erfc(fabs(out->z) / sqrt(2.0));
  out->drifted = out->p < BS_NOISE_DRIFT_LEVEL;
  size_t half = n / 2;
  out->first = bs_median(x, half);
  out->second = bs_median(x + (n - half), half);
  if (isnan(out->first) || isnan(out->second))
    return BS_ENOMEM;
  out->relative_shift = (out->second - out->first) / out->first;
  return BS_OK;
}

/* --- the validation ---------------------------------------------------- */

static void experiment_free(bs_noise_experiment *e) {
  free(e->a);
  free(e->b);
  free(e->blocks);
}

static void case_free(bs_noise_case *c) {
  for (size_t i = 0; i < c->runs; i++)
    experiment_free(&c->experiments[i]);
  free(c->experiments);
  free(c->deltas);
  free(c->confidences);
  free(c->paired_deltas_pct);
}

void bs_noise_result_free(bs_noise_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->ncases; i++)
    case_free(&r->cases[i]);
  free(r->cases);
  free(r->a);
  free(r->b);
  free(r);
}

/* Pairs the A rows ka[0..na-1] and B rows kb[0..nb-1] of one run (both
 * sorted by block) and fills the experiment's series. */
static bs_status pair_run(const char *label, uint64_t run, const bs__keyed *ka,
                          size_t na, const bs__keyed *kb, size_t nb,
                          bs_noise_experiment *e, bs_error *err) {
  size_t i = 0, j = 0;
  const bs__keyed *first = NULL;
  char list[600];
  size_t used = 0, listed = 0;
  list[0] = '\0';
  while (i < na || j < nb) {
    int c;
    if (i == na)
      c = 1;
    else if (j == nb)
      c = -1;
    else
      c = (ka[i].block > kb[j].block) - (ka[i].block < kb[j].block);
    if (c == 0) {
      i++;
      j++;
      continue;
    }
    const bs__keyed *lone = c < 0 ? &ka[i++] : &kb[j++];
    if (!first)
      first = lone;
    bs__keyed_describe(list, sizeof list, &used, lone, 0, &listed);
  }
  if (first)
    return bs_error_set(
        err, BS_EMISMATCH, first->row->file, first->row->line,
        "mismatched pairs in case %s, run %llu: %zu row%s without a partner "
        "in the same block: %s%s",
        label, (unsigned long long)run, listed, listed == 1 ? "" : "s", list,
        listed > 8 ? ", ..." : "");
  e->run = run;
  e->na = na;
  e->nb = nb;
  e->a = malloc(na * sizeof *e->a);
  e->b = malloc(nb * sizeof *e->b);
  e->blocks = malloc(na * sizeof *e->blocks);
  if (!e->a || !e->b || !e->blocks) {
    /* The status spelled out: clang's analyser cannot see that
     * bs_error_set returns it, and would run analyse_run on this path. */
    bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    return BS_ENOMEM;
  }
  for (size_t k = 0; k < na; k++) {
    e->a[k] = ka[k].row->per_call_us;
    e->b[k] = kb[k].row->per_call_us;
    e->blocks[k] = ka[k].block;
  }
  return BS_OK;
}

static size_t block_length_for(const bs_noise_options *o, size_t n) {
  switch (o->block_mode) {
  case BS_BLOCK_FIXED:
    return o->block_length;
  case BS_BLOCK_AUTO:
    return bs_noise_auto_block_length(n);
  case BS_BLOCK_NONE:
    break;
  }
  return 0;
}

/* Everything of one run: delta, both confidences, drift, lag-1 and the
 * confirmatory gate on the pairs. k is the run's 0-based position. */
static bs_status analyse_run(const char *label, bs_noise_experiment *e,
                             size_t k, const bs_noise_options *o,
                             bs_error *err) {
  size_t n = e->na;
  bs_status st;
  e->median_a_us = bs_median(e->a, n);
  e->median_b_us = bs_median(e->b, n);
  if (isnan(e->median_a_us) || isnan(e->median_b_us))
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  e->delta = 1.0 - e->median_a_us / e->median_b_us;

  e->block_length_a = block_length_for(o, e->na);
  e->block_length_b = block_length_for(o, e->nb);
  if (e->block_length_a > e->na || e->block_length_b > e->nb)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "case %s, run %llu: block length %zu exceeds the %zu "
                        "samples of the run",
                        label, (unsigned long long)e->run, o->block_length, n);
  /* Seeds per run, modulo 2^64 by unsigned arithmetic. */
  e->seed_ab = o->seed + 2u * (uint64_t)k;
  e->seed_ba = e->seed_ab + 1u;
  st = bs_noise_confidence(e->a, e->na, e->block_length_a, e->b, e->nb,
                           e->block_length_b, o->resamples, e->seed_ab,
                           &e->conf_ab, err);
  if (st)
    return st;
  st = bs_noise_confidence(e->b, e->nb, e->block_length_b, e->a, e->na,
                           e->block_length_a, o->resamples, e->seed_ba,
                           &e->conf_ba, err);
  if (st)
    return st;
  /* Splitting ties: with confAB = P(<) + P(=) and confBA = P(>) + P(=),
   * (confAB + 1 - confBA)/2 = P(<) + P(=)/2 and confAB + confBA - 1 =
   * P(=), up to the Monte Carlo error of two independent bootstraps. */
  e->confidence = (e->conf_ab + 1.0 - e->conf_ba) / 2.0;
  e->tie = fmax(0.0, e->conf_ab + e->conf_ba - 1.0);

  st = bs_noise_drift(e->a, e->na, &e->drift_a);
  if (st == BS_ENOMEM)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  e->has_drift_a = st == BS_OK;
  st = bs_noise_drift(e->b, e->nb, &e->drift_b);
  if (st == BS_ENOMEM)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  e->has_drift_b = st == BS_OK;
  e->drifted = (e->has_drift_a && e->drift_a.drifted) ||
               (e->has_drift_b && e->drift_b.drifted);
  e->lag1_a = bs_noise_lag1(e->a, e->na);
  e->lag1_b = bs_noise_lag1(e->b, e->nb);

  double *d = malloc(n * sizeof *d);
  if (!d)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  for (size_t i = 0; i < n; i++)
    d[i] = e->a[i] - e->b[i];
  e->median_delta_us = bs_median(d, n);
  if (isnan(e->median_delta_us)) {
    free(d);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  /* As bs_compare_run does it: B is the baseline, A the candidate. */
  e->paired_delta_pct = 100.0 * e->median_delta_us / e->median_b_us;
  st =
      bs_bootstrap_median_ci(d, n, BS_GATE_RESAMPLES, BS_GATE_LEVEL_PCT,
                             o->seed, &e->ci_low_us, &e->ci_high_us, NULL, err);
  free(d);
  if (st)
    return st;
  e->significant_regression =
      e->paired_delta_pct >= BS_GATE_THRESHOLD_PCT && e->ci_low_us > 0;
  return BS_OK;
}

/* Median of v[0..n-1] (reordered), 0 when n == 0 (the seed's
 * medianOrZero). */
static double median_or_zero(double *v, size_t n) {
  if (n == 0)
    return 0.0;
  bs_sort_doubles(v, n);
  return bs_quantile_sorted(v, n, 0.5);
}

static bs_status summarise(bs_noise_case *c, const bs_noise_options *o,
                           bs_error *err) {
  size_t n = c->runs;
  c->deltas = malloc(n * sizeof(double));
  c->confidences = malloc(n * sizeof(double));
  c->paired_deltas_pct = malloc(n * sizeof(double));
  double *s = malloc(2 * n * sizeof *s);
  if (!c->deltas || !c->confidences || !c->paired_deltas_pct || !s) {
    free(s);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  double sum = 0.0;
  size_t false_signals = 0, drifted = 0, regressions = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_noise_experiment *e = &c->experiments[k];
    c->deltas[k] = e->delta;
    c->confidences[k] = e->confidence;
    c->paired_deltas_pct[k] = e->paired_delta_pct;
    sum += e->confidence;
    if (e->confidence > o->level || e->confidence < 1.0 - o->level)
      false_signals++;
    drifted += e->drifted != 0;
    regressions += e->significant_regression != 0;
  }

  for (size_t k = 0; k < n; k++)
    s[k] = fabs(c->deltas[k]);
  bs_sort_doubles(s, n);
  c->noise_floor = bs_quantile_sorted(s, n, BS_NOISE_FLOOR_QUANTILE);
  c->max_observed_noise = s[n - 1];
  c->typical_noise = bs_quantile_sorted(s, n, 0.5);

  c->mean_confidence = sum / (double)n;
  memcpy(s, c->confidences, n * sizeof *s);
  c->median_confidence = median_or_zero(s, n);
  for (size_t k = 0; k < n; k++)
    s[k] = c->experiments[k].tie;
  c->tie_rate = median_or_zero(s, n);
  c->false_signal_rate = (double)false_signals / (double)n;
  c->drift_rate = (double)drifted / (double)n;

  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_noise_experiment *e = &c->experiments[k];
    if (e->has_drift_a)
      s[m++] = fabs(e->drift_a.relative_shift);
    if (e->has_drift_b)
      s[m++] = fabs(e->drift_b.relative_shift);
  }
  c->median_drift_shift = median_or_zero(s, m);
  for (size_t k = 0; k < n; k++) {
    s[2 * k] = c->experiments[k].lag1_a;
    s[2 * k + 1] = c->experiments[k].lag1_b;
  }
  c->autocorrelation = median_or_zero(s, 2 * n);

  for (size_t k = 0; k < n; k++)
    s[k] = fabs(c->paired_deltas_pct[k]);
  bs_sort_doubles(s, n);
  c->paired_noise_floor_pct = bs_quantile_sorted(s, n, BS_NOISE_FLOOR_QUANTILE);
  c->false_regression_rate = (double)regressions / (double)n;
  c->gate_resolves = BS_GATE_THRESHOLD_PCT > c->paired_noise_floor_pct;
  free(s);
  return BS_OK;
}

/* Splits the case's A and B rows (sorted by run, block) into runs and
 * analyses each. */
static bs_status analyse_case(bs_noise_case *c, const char *a, const char *b,
                              bs__keyed *ka, size_t na, bs__keyed *kb,
                              size_t nb, const bs_noise_options *o,
                              bs_error *err) {
  char label[256];
  bs__case_label(label, sizeof label, c->benchmark, c->dataset);
  qsort(ka, na, sizeof *ka, bs__keyed_cmp);
  qsort(kb, nb, sizeof *kb, bs__keyed_cmp);

  /* Distinct runs of either impl, ascending; each must have both. */
  size_t runs = 0;
  size_t i = 0, j = 0;
  while (i < na || j < nb) {
    uint64_t run;
    if (j == nb || (i < na && ka[i].run <= kb[j].run))
      run = ka[i].run;
    else
      run = kb[j].run;
    size_t i0 = i, j0 = j;
    while (i < na && ka[i].run == run)
      i++;
    while (j < nb && kb[j].run == run)
      j++;
    if (i == i0 || j == j0) {
      const bs__keyed *other = i == i0 ? &kb[j0] : &ka[i0];
      return bs_error_set(err, BS_EINPUT, other->row->file, other->row->line,
                          "case %s, run %llu: no confirm rows of %s \"%s\" "
                          "(an A/A run needs samples of both \"%s\" and "
                          "\"%s\")",
                          label, (unsigned long long)run, i == i0 ? "A" : "B",
                          i == i0 ? a : b, a, b);
    }
    runs++;
  }
  if (runs < BS_NOISE_MIN_RUNS)
    return bs_error_set(err, BS_EINPUT, ka[0].row->file, ka[0].row->line,
                        "case %s: only 1 A/A run (run %llu); a noise floor "
                        "needs at least %d runs",
                        label, (unsigned long long)ka[0].run,
                        BS_NOISE_MIN_RUNS);

  c->experiments = calloc(runs, sizeof *c->experiments);
  if (!c->experiments)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  i = j = 0;
  for (size_t k = 0; k < runs; k++) {
    uint64_t run = ka[i].run;
    size_t i0 = i, j0 = j;
    while (i < na && ka[i].run == run)
      i++;
    while (j < nb && kb[j].run == run)
      j++;
    c->runs = k + 1; /* so that a failure frees what was built */
    bs_status st = pair_run(label, run, ka + i0, i - i0, kb + j0, j - j0,
                            &c->experiments[k], err);
    if (!st)
      st = analyse_run(label, &c->experiments[k], k, o, err);
    if (st)
      return st;
  }
  return summarise(c, o, err);
}

bs_status bs_noise_run(const bs_log *log, const char *a, const char *b,
                       const bs_noise_options *opt, bs_noise_result **out,
                       bs_error *err) {
  *out = NULL;
  bs_status st = bs_noise_options_check(opt, err);
  if (st)
    return st;
  if (!strcmp(a, b))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "A and B are both \"%s\"; an A/A validation needs "
                        "the same code under two impl ids",
                        a);
  bs_noise_result *r = calloc(1, sizeof *r);
  size_t ncase = bs_log_case_count(log);
  bs__pairs ab = {0};
  if (!r)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  r->options = *opt;
  r->a = bs__strdup(a);
  r->b = bs__strdup(b);
  r->cases = calloc(ncase ? ncase : 1, sizeof *r->cases);
  if (!r->a || !r->b || !r->cases) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto fail;
  }
  for (size_t ci = 0; ci < ncase; ci++) {
    const bs_case *lc = bs_log_case(log, ci);
    if ((st = bs__pairs_gather(&ab, log, lc, a, b, err)))
      goto fail;
    size_t na = ab.nx, nb = ab.ny;
    if (na == 0 && nb == 0)
      continue;
    bs_noise_case *c = &r->cases[r->ncases++];
    c->benchmark = lc->benchmark;
    c->dataset = lc->dataset;
    st = analyse_case(c, a, b, ab.x, na, ab.y, nb, opt, err);
    if (st)
      goto fail;
  }
  if (r->ncases == 0) {
    st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "no case has confirm rows of \"%s\" or \"%s\"", a, b);
    goto fail;
  }
  bs__pairs_release(&ab);
  *out = r;
  return BS_OK;
fail:
  bs__pairs_release(&ab);
  bs_noise_result_free(r);
  return st;
}
