/* The median band (AVX-512, compare's bootstrap): the median of a
 * resample of n draws lies within a few sqrt(n) ranks of the middle, so
 * most draws only need to be known as below a band of ranks [L, H) around
 * it, in it, or above it. Each draw is classified by two bitmaps over the
 * indices (rank < L; L <= rank < H), looked up in a register; the draws
 * below are counted per lane, and only the in-band ones (a fifth at the
 * default width) are written out and counted per index. The median's
 * ranks then follow from the count below and a walk over the band alone.
 * A resample whose median ranks are not both in the band (the count below
 * exceeds the lower position, or the band's draws do not reach past the
 * upper one) is redone exactly from its saved generator state by the
 * plain path (resample.c); whether it is, changes the time, never the
 * result. Four vectors of eight generators run interleaved, so that the
 * six dependent shifts and xors of one do not leave the machine idle. */
#include "lmath.h"
#include "resample_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if BS__HAVE_SIMD
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512dq")))

#define BAND_CHAINS 32u
/* Draws per generator between two passes over the in-band list. */
#define BAND_STRETCH 64u

typedef struct band {
  size_t n, L, H;               /* ranks [L, H) counted one by one */
  uint32_t lo, hi;              /* the median's positions */
  uint64_t below[8], inband[8]; /* bit i: the rank of index i < L, in band */
  uint16_t *index;              /* index[j - L]: the index of rank j */
  uint16_t *cnt;                /* cnt[i * BAND_CHAINS + c] */
  uint64_t *list;               /* offsets into cnt of one stretch */
  uint64_t c2, d;               /* 2^32 - c (see below), the divisor */
} band;

/* One xorshift64* step of eight generators and the draws reduced mod d.
 * As on the paths above, t = hi c + lo with c = 2^32 mod d, here formed as
 * v - hi (2^32 - c) in one multiply; c = d when 2^32 mod d is 0, so that
 * 2^32 - c fits 32 bits. t <= (2^32 - 1)(d + 1) < 2^49 is exact in double,
 * t / d < 2^33, and q = floor((t + 1/2) / d) with the same margin: the
 * fraction is at least 2^-17 from an integer, the computed quotient
 * within 2^33 * 2^-53 + 2^-21 < 2^-19 of it. The conversion truncates,
 * which is floor() for q >= 0. */
#define BAND_DRAW(g, r)                                                        \
  do {                                                                         \
    (g) = _mm512_xor_si512((g), _mm512_srli_epi64((g), 12));                   \
    (g) = _mm512_xor_si512((g), _mm512_slli_epi64((g), 25));                   \
    (g) = _mm512_xor_si512((g), _mm512_srli_epi64((g), 27));                   \
    __m512i v_ = _mm512_mullo_epi64((g), mult);                                \
    __m512i t_ =                                                               \
        _mm512_sub_epi64(v_, _mm512_mul_epu32(_mm512_srli_epi64(v_, 32), c2)); \
    __m512i q_ = _mm512_cvttpd_epu64(                                          \
        _mm512_fmadd_pd(_mm512_cvtepu64_pd(t_), inv, half_inv));               \
    (r) = _mm512_sub_epi64(t_, _mm512_mullo_epi64(q_, dv));                    \
  } while (0)

/* Classifies the draws r of lanes `lane` (offsets c of their chains):
 * counts those below in acc, appends the offsets of those in the band. */
#define BAND_CLASSIFY(r, acc, lane)                                            \
  do {                                                                         \
    __m512i w_ = _mm512_srli_epi64((r), 6);                                    \
    __mmask8 kb_ = _mm512_test_epi64_mask(                                     \
        _mm512_rorv_epi64(_mm512_permutexvar_epi64(w_, bz), (r)), one);        \
    __mmask8 kw_ = _mm512_test_epi64_mask(                                     \
        _mm512_rorv_epi64(_mm512_permutexvar_epi64(w_, wz), (r)), one);        \
    (acc) = _mm512_mask_sub_epi64((acc), kb_, (acc), minus1);                  \
    _mm512_storeu_si512(                                                       \
        (void *)p,                                                             \
        _mm512_maskz_compress_epi64(                                           \
            kw_, _mm512_add_epi64(_mm512_slli_epi64((r), 5), (lane))));        \
    p += __builtin_popcount((unsigned)kw_);                                    \
  } while (0)

/* 2^32 - c for BAND_DRAW's t = v - hi (2^32 - c). */
static uint64_t band_c2(uint64_t d) {
  uint64_t c = (UINT64_C(1) << 32) % d;
  return (UINT64_C(1) << 32) - (c ? c : d);
}

AVX512 static void band_first_draws(size_t d, const uint64_t *state,
                                    uint64_t *idx) {
  const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);
  const __m512i c2 = _mm512_set1_epi64((long long)band_c2(d));
  const __m512i dv = _mm512_set1_epi64((long long)d);
  const __m512d inv = _mm512_set1_pd(1.0 / (double)d);
  const __m512d half_inv = _mm512_set1_pd(0.5 / (double)d);
  __m512i g = _mm512_loadu_si512((const void *)state), r;
  BAND_DRAW(g, r);
  _mm512_storeu_si512((void *)idx, r);
}

/* One resample of each of the BAND_CHAINS generators state[] (advanced
 * past it): into below[c] the draws under the band, into b->cnt the
 * in-band ones. */
AVX512 static void band_draws(const band *b, uint64_t *state, uint32_t *below) {
  const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);
  const __m512i c2 = _mm512_set1_epi64((long long)b->c2);
  const __m512i dv = _mm512_set1_epi64((long long)b->d);
  const __m512d inv = _mm512_set1_pd(1.0 / (double)b->d);
  const __m512d half_inv = _mm512_set1_pd(0.5 / (double)b->d);
  const __m512i bz = _mm512_loadu_si512((const void *)b->below);
  const __m512i wz = _mm512_loadu_si512((const void *)b->inband);
  const __m512i one = _mm512_set1_epi64(1), minus1 = _mm512_set1_epi64(-1);
  const __m512i lane0 = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i lane1 = _mm512_add_epi64(lane0, _mm512_set1_epi64(8));
  const __m512i lane2 = _mm512_add_epi64(lane0, _mm512_set1_epi64(16));
  const __m512i lane3 = _mm512_add_epi64(lane0, _mm512_set1_epi64(24));
  __m512i g0 = _mm512_loadu_si512((const void *)state);
  __m512i g1 = _mm512_loadu_si512((const void *)(state + 8));
  __m512i g2 = _mm512_loadu_si512((const void *)(state + 16));
  __m512i g3 = _mm512_loadu_si512((const void *)(state + 24));
  __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
  uint16_t *cnt = b->cnt;
  for (size_t k0 = 0; k0 < b->n; k0 += BAND_STRETCH) {
    size_t k1 = b->n - k0 < BAND_STRETCH ? b->n : k0 + BAND_STRETCH;
    uint64_t *p = b->list;
    for (size_t k = k0; k < k1; k++) {
      __m512i r0, r1, r2, r3;
      BAND_DRAW(g0, r0);
      BAND_DRAW(g1, r1);
      BAND_DRAW(g2, r2);
      BAND_DRAW(g3, r3);
      BAND_CLASSIFY(r0, a0, lane0);
      BAND_CLASSIFY(r1, a1, lane1);
      BAND_CLASSIFY(r2, a2, lane2);
      BAND_CLASSIFY(r3, a3, lane3);
    }
    for (const uint64_t *q = b->list; q < p; q++)
      cnt[*q]++;
  }
  _mm512_storeu_si512((void *)state, g0);
  _mm512_storeu_si512((void *)(state + 8), g1);
  _mm512_storeu_si512((void *)(state + 16), g2);
  _mm512_storeu_si512((void *)(state + 24), g3);
  _mm256_storeu_si256((__m256i *)below, _mm512_cvtepi64_epi32(a0));
  _mm256_storeu_si256((__m256i *)(below + 8), _mm512_cvtepi64_epi32(a1));
  _mm256_storeu_si256((__m256i *)(below + 16), _mm512_cvtepi64_epi32(a2));
  _mm256_storeu_si256((__m256i *)(below + 24), _mm512_cvtepi64_epi32(a3));
}

/* The median ranks of the BAND_CHAINS resamples band_draws counted, from
 * the counts below and a walk over the band (which clears its counters):
 * jl[c] = L + #{j in [L, H) : cum(j) <= lo}, the same for hi, where
 * cum(j) is the number of draws of rank <= j; that is the plain path's
 * #{j : cum(j) <= lo}, since every rank under the band has cum <= below
 * <= lo and every rank above it cum > hi. Returns the chains for which
 * those two conditions hold (bit c). */
AVX512 static uint32_t band_walk(const band *b, const uint32_t *below,
                                 uint32_t *jl, uint32_t *jh) {
  const __m512i lo = _mm512_set1_epi32((int)b->lo);
  const __m512i hi = _mm512_set1_epi32((int)b->hi);
  const __m512i minus1 = _mm512_set1_epi32(-1);
  const __m512i zero = _mm512_setzero_si512();
  __m512i b0 = _mm512_loadu_si512((const void *)below);
  __m512i b1 = _mm512_loadu_si512((const void *)(below + 16));
  __m512i cum0 = b0, cum1 = b1, l0 = zero, l1 = zero, h0 = zero, h1 = zero;
  for (size_t j = b->L; j < b->H; j++) {
    uint16_t *p = b->cnt + (size_t)b->index[j - b->L] * BAND_CHAINS;
    cum0 = _mm512_add_epi32(
        cum0, _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)));
    cum1 = _mm512_add_epi32(cum1, _mm512_cvtepu16_epi32(_mm256_loadu_si256(
                                      (const __m256i *)(p + 16))));
    _mm512_storeu_si512((void *)p, zero);
    l0 = _mm512_mask_sub_epi32(l0, _mm512_cmple_epu32_mask(cum0, lo), l0,
                               minus1);
    l1 = _mm512_mask_sub_epi32(l1, _mm512_cmple_epu32_mask(cum1, lo), l1,
                               minus1);
    h0 = _mm512_mask_sub_epi32(h0, _mm512_cmple_epu32_mask(cum0, hi), h0,
                               minus1);
    h1 = _mm512_mask_sub_epi32(h1, _mm512_cmple_epu32_mask(cum1, hi), h1,
                               minus1);
  }
  const __m512i L = _mm512_set1_epi32((int)b->L);
  _mm512_storeu_si512((void *)jl, _mm512_add_epi32(l0, L));
  _mm512_storeu_si512((void *)(jl + 16), _mm512_add_epi32(l1, L));
  _mm512_storeu_si512((void *)jh, _mm512_add_epi32(h0, L));
  _mm512_storeu_si512((void *)(jh + 16), _mm512_add_epi32(h1, L));
  __mmask16 ok0 =
      _mm512_mask_cmpgt_epu32_mask(_mm512_cmple_epu32_mask(b0, lo), cum0, hi);
  __mmask16 ok1 =
      _mm512_mask_cmpgt_epu32_mask(_mm512_cmple_epu32_mask(b1, lo), cum1, hi);
  return (uint32_t)ok0 | (uint32_t)ok1 << 16;
}

/* BAND_CHAINS generators on the median band, each on R / BAND_CHAINS
 * consecutive resamples; the remainder as above from where the last one
 * ends. */
bs_status bs__resample_band(const bs__series *s, uint64_t state, size_t R,
                            size_t width, uint32_t *jl, uint32_t *jh) {
  size_t n = s->n, per = R / BAND_CHAINS;
  if (per == 0)
    return bs__resample_medians_chains(s, BS_RESAMPLE_ENGINE_AVX512, state, R,
                                       jl, jh);
  band b;
  memset(&b, 0, sizeof b);
  /* Half a width of 3.5 standard deviations of the count below a rank
   * near the middle (sqrt(n) / 2): about one resample in 2000 is redone. */
  size_t a = width ? width : (size_t)bs__ceil(1.75 * bs__sqrt((double)n)) + 1;
  b.n = n;
  b.lo = s->lo;
  b.hi = s->hi;
  b.L = s->lo > a ? s->lo - a : 0;
  b.H = s->hi + 1 + a < n ? s->hi + 1 + a : n;
  b.d = n;
  b.c2 = band_c2(n);
  bs__resample_work w = {NULL, NULL};
  bs_status st = BS_ENOMEM;
  b.index = malloc((b.H - b.L) * sizeof *b.index);
  b.cnt = calloc(n * BAND_CHAINS, sizeof *b.cnt);
  b.list = malloc((BAND_STRETCH * BAND_CHAINS + 8) * sizeof *b.list);
  if (!b.index || !b.cnt || !b.list || bs__resample_work_init(&w, n, n))
    goto fail;
  for (size_t j = 0; j < n; j++) {
    size_t i = s->byrank[j] / BS__CHAINS;
    if (j < b.L) {
      b.below[i / 64] |= UINT64_C(1) << (i % 64);
    } else if (j < b.H) {
      b.inband[i / 64] |= UINT64_C(1) << (i % 64);
      b.index[j - b.L] = (uint16_t)i;
    }
  }
  uint64_t gen[BAND_CHAINS], saved[BAND_CHAINS];
  gen[0] = state;
  for (size_t k = 1; k < BAND_CHAINS; k++)
    gen[k] = bs__xorshift_jump(gen[k - 1], (uint64_t)per * (uint64_t)n);
  uint32_t below[BAND_CHAINS], l[BAND_CHAINS], h[BAND_CHAINS];
  for (size_t r = 0; r < per; r++) {
    memcpy(saved, gen, sizeof gen);
    band_draws(&b, gen, below);
    uint32_t ok = band_walk(&b, below, l, h);
    for (size_t k = 0; k < BAND_CHAINS; k++) {
      size_t at = k * per + r;
      if (ok >> k & 1) {
        jl[at] = l[k];
        jh[at] = h[k];
      } else {
        uint64_t g = saved[k];
        bs__resample_one(s, &g, &w, &jl[at], &jh[at]);
      }
    }
  }
  st = bs__resample_medians_chains(
      s, BS_RESAMPLE_ENGINE_AVX512, gen[BAND_CHAINS - 1], R - per * BAND_CHAINS,
      jl + per * BAND_CHAINS, jh + per * BAND_CHAINS);
fail:
  bs__resample_work_release(&w);
  free(b.index);
  free(b.cnt);
  free(b.list);
  return st;
}
#endif

void bs__resample_band_first_draws(size_t d, const uint64_t state[BS__CHAINS],
                                   uint64_t idx[BS__CHAINS]) {
  memset(idx, 0, BS__CHAINS * sizeof *idx);
  if (d < 1)
    return; /* no index to draw */
#if BS__HAVE_SIMD
  band_first_draws(d, state, idx);
#else
  for (size_t c = 0; c < BS__CHAINS; c++) {
    uint64_t g = state[c];
    idx[c] = BS__XS_NEXT(g) % d;
  }
#endif
}
