/* The median resampling engine (resample_int.h explains it): a series
 * sorted once, the portable chains, the AVX2 and AVX-512 draws, the
 * small-sample path, and the choice among them for every resample of a
 * series; the median band, the other AVX-512 path, is resample_band.c. */
#include "benchsite/resample.h"

#include "resample_int.h"

#include "lmath.h"
#include "orderstat.h"
#include "xorshift_jump.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bs_status bs__series_init(bs__series *s, const double *x, size_t n, size_t L) {
  memset(s, 0, sizeof *s);
  bs__ranked *order = malloc(n * sizeof *order);
  s->sorted = malloc(n * sizeof *s->sorted);
  s->byrank = malloc(n * sizeof *s->byrank);
  if (!order || !s->sorted || !s->byrank) {
    free(order);
    bs__series_release(s);
    return BS_ENOMEM;
  }
  bs__rank_sort(x, n, order);
  for (size_t r = 0; r < n; r++) {
    s->sorted[r] = order[r].v;
    s->byrank[r] = (uint32_t)(order[r].i * BS__CHAINS);
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
  double fl = bs__floor(h);
  s->frac = h - fl;
  s->lo = (uint32_t)fl;
  s->hi = (uint32_t)bs__ceil(h);
  return BS_OK;
}

void bs__series_release(bs__series *s) {
  free(s->sorted);
  free(s->byrank);
  memset(s, 0, sizeof *s);
}

bs_status bs__resample_work_init(bs__resample_work *w, size_t n, size_t draws) {
  /* One block, the draws first: with the counters in a block of their
   * own the counting ran up to 10 % slower at n = 20 (how their addresses
   * fell relative to the draws'). */
  size_t ni = BS__CHAINS * draws;
  w->idx = malloc(ni * sizeof *w->idx + BS__CHAINS * n * sizeof *w->counts);
  w->counts = w->idx ? (uint32_t *)(void *)(w->idx + ni) : NULL;
  return w->idx ? BS_OK : BS_ENOMEM;
}

void bs__resample_work_release(bs__resample_work *w) {
  free(w->idx);
  w->counts = NULL;
  w->idx = NULL;
}

/* The transition is linear over GF(2), so n steps are the product of the
 * precomputed T^(2^k) for the set bits of n. */
uint64_t bs__xorshift_jump(uint64_t s, uint64_t n) {
  for (unsigned k = 0; n; k++, n >>= 1) {
    if (!(n & 1))
      continue;
    uint64_t r = 0;
    for (unsigned j = 0; j < 64; j++)
      r ^= bs__xorshift_pow2[k][j] & (0 - ((s >> j) & 1));
    s = r;
  }
  return s;
}

/* Adds one draw's values (one index, or a block of `take` from `start`)
 * to the counters of `chain`. */
static inline void count_draw(uint32_t *counts, size_t chain, size_t start,
                              size_t take) {
  uint32_t *p = counts + start * BS__CHAINS + chain;
  for (size_t t = 0; t < take; t++)
    p[t * BS__CHAINS]++;
}

/* The rank pair of the median of one chain's resample from its counters.
 * The walk is branch-free: a mispredicted exit costs more than finishing
 * it. */
static void chain_ranks(const bs__series *s, const uint32_t *counts,
                        size_t chain, uint32_t *jl, uint32_t *jh) {
  uint32_t cum = 0, l = 0, h = 0;
  for (size_t j = 0; j < s->n; j++) {
    cum += counts[s->byrank[j] + chain];
    l += cum <= s->lo;
    h += cum <= s->hi;
  }
  *jl = l;
  *jh = h;
}

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
  static void name(const bs__series *s, uint64_t *state, uint32_t *counts,     \
                   size_t base) {                                              \
    size_t n = s->n, L = s->L;                                                 \
    const bs__fastdiv dv = s->div;                                             \
    uint64_t g0 = state[base], g1 = state[base + 1], g2 = state[base + 2],     \
             g3 = state[base + 3];                                             \
    uint64_t i0, i1, i2, i3;                                                   \
    uint32_t *cb = counts + base;                                              \
    if (L == 0) {                                                              \
      for (size_t k = 0; k < n; k++) {                                         \
        MOD(kind, dv, BS__XS_NEXT(g0), i0);                                    \
        MOD(kind, dv, BS__XS_NEXT(g1), i1);                                    \
        MOD(kind, dv, BS__XS_NEXT(g2), i2);                                    \
        MOD(kind, dv, BS__XS_NEXT(g3), i3);                                    \
        cb[i0 * BS__CHAINS]++;                                                 \
        cb[i1 * BS__CHAINS + 1]++;                                             \
        cb[i2 * BS__CHAINS + 2]++;                                             \
        cb[i3 * BS__CHAINS + 3]++;                                             \
      }                                                                        \
    } else {                                                                   \
      for (size_t filled = 0; filled < n; filled += L) {                       \
        size_t take = n - filled < L ? n - filled : L;                         \
        MOD(kind, dv, BS__XS_NEXT(g0), i0);                                    \
        MOD(kind, dv, BS__XS_NEXT(g1), i1);                                    \
        MOD(kind, dv, BS__XS_NEXT(g2), i2);                                    \
        MOD(kind, dv, BS__XS_NEXT(g3), i3);                                    \
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

/* Portable path: one resample per chain. */
static void resample_scalar(const bs__series *s, uint64_t *state,
                            uint32_t *counts, uint32_t *jl, uint32_t *jh) {
  memset(counts, 0, BS__CHAINS * s->n * sizeof *counts);
  for (size_t base = 0; base < BS__CHAINS; base += 4) {
    if (s->kind == 0)
      draw4_pow2(s, state, counts, base);
    else if (s->kind == 1)
      draw4_magic(s, state, counts, base);
    else
      draw4_add(s, state, counts, base);
  }
  for (size_t c = 0; c < BS__CHAINS; c++)
    chain_ranks(s, counts, c, &jl[c], &jh[c]);
}

void bs__resample_one(const bs__series *s, uint64_t *state,
                      bs__resample_work *w, uint32_t *jl, uint32_t *jh) {
  uint32_t *counts = w->counts;
  uint64_t g = *state;
  size_t step = s->L ? s->L : 1;
  memset(counts, 0, BS__CHAINS * s->n * sizeof *counts);
  for (size_t filled = 0; filled < s->n; filled += step) {
    size_t take = s->n - filled < step ? s->n - filled : step;
    count_draw(counts, 0, (size_t)bs__fastdiv_mod(&s->div, BS__XS_NEXT(g)),
               take);
  }
  *state = g;
  chain_ranks(s, counts, 0, jl, jh);
}

/* --- AVX2 path (x86-64 with GCC or Clang, chosen at run time) ------------
 * Eight generators in two vectors. The multiply of xorshift64* is done in
 * 32-bit halves; draw() % d is reduced exactly: with v = hi 2^32 + lo,
 * t = hi (2^32 mod d) + lo is congruent to v, and t <= (2^32 - 1) d, so
 * t / d < 2^32. The quotient is q = floor((t + 1/2) / d): the fraction of
 * (t + 1/2) / d lies in [1/(2d), 1 - 1/(2d)], at least 2^-17 from an
 * integer for d <= 2^16, while (t + 1/2) * fl(1/d), rounded once more, is
 * within 2^32 * 2^-52 = 2^-20 of the true value. So floor() of it is q
 * exactly, t - q d is the remainder with no correction, and the index is
 * the same as `draw() % d`, bit for bit. t + 1/2 is exact in double
 * (t < 2^49). */
#if BS__HAVE_SIMD
#define HAVE_AVX2 1
#include <immintrin.h>
/* Which instructions this CPU (and its OS) lets us use. glibc 2.33 and
 * later answer from the table its dynamic loader filled at start-up;
 * libgcc's __builtin_cpu_supports links in a constructor that asks the CPU
 * again with a dozen CPUID instructions in every process, each a trap to
 * the hypervisor on a virtual machine: a sixth of a one-case `compare`'s
 * CPU time on the project's 2-vCPU guest. */
#if defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
/* x86_cpu_active is what CPU_FEATURE_ACTIVE expands to; called directly so
 * that names such as AVX2, a macro of this file, are pasted, not expanded. */
#define CPU_HAS(glibc, gcc) x86_cpu_active(x86_cpu_##glibc)
#endif
#endif
#ifndef CPU_HAS
#define CPU_HAS(glibc, gcc) (__builtin_cpu_init(), __builtin_cpu_supports(gcc))
#endif

/* Largest divisor the double reduction is exact for (see above). */
#define AVX2_MAX_MOD 65536u

#define AVX2 __attribute__((target("avx2")))

AVX2 static inline __m256i xs_vec(__m256i s) {
  s = _mm256_xor_si256(s, _mm256_srli_epi64(s, 12));
  s = _mm256_xor_si256(s, _mm256_slli_epi64(s, 25));
  return _mm256_xor_si256(s, _mm256_srli_epi64(s, 27));
}

typedef struct avx2_mod {
  __m256i c;   /* 2^32 mod d */
  __m256i d;   /* d */
  __m256d inv; /* 1/d */
} avx2_mod;

/* The output of xorshift64* (s * 0x2545F4914F6CDD1D mod 2^64) reduced
 * mod d. The product is formed in 32-bit halves, and only as far as t
 * needs it: its low half is that of lo = s_lo * M_lo; its high half is
 * the low 32 bits of mid = (lo >> 32) + s_hi * M_lo + s_lo * M_hi, which
 * is all _mm256_mul_epu32 reads of it. */
AVX2 static inline __m256i mod_vec(__m256i s, const avx2_mod *m) {
  const __m256i mlo = _mm256_set1_epi64x(0x4F6CDD1D);
  const __m256i mhi = _mm256_set1_epi64x(0x2545F491);
  const __m256i low32 = _mm256_set1_epi64x(0xFFFFFFFF);
  const __m256i bits52 = _mm256_set1_epi64x(0x4330000000000000);
  const __m256d two52 = _mm256_set1_pd(4503599627370496.0);
  const __m256d two52_less_half = _mm256_set1_pd(4503599627370495.5);
  __m256i lo = _mm256_mul_epu32(s, mlo);
  __m256i mid = _mm256_add_epi64(
      _mm256_add_epi64(_mm256_mul_epu32(_mm256_srli_epi64(s, 32), mlo),
                       _mm256_mul_epu32(s, mhi)),
      _mm256_srli_epi64(lo, 32));
  __m256i t = _mm256_add_epi64(_mm256_mul_epu32(mid, m->c),
                               _mm256_and_si256(lo, low32));
  /* (2^52 + t) - (2^52 - 1/2) = t + 1/2, exactly. */
  __m256d th = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(t, bits52)),
                             two52_less_half);
  __m256d q = _mm256_floor_pd(_mm256_mul_pd(th, m->inv));
  __m256i qi =
      _mm256_xor_si256(_mm256_castpd_si256(_mm256_add_pd(q, two52)), bits52);
  return _mm256_sub_epi64(t, _mm256_mul_epu32(qi, m->d));
}

/* The draws of BS__CHAINS resamples of s: idx[k * BS__CHAINS + c] is the k-th
 * draw of chain c, reduced mod d, times BS__CHAINS: the offset of its
 * counter less c (the counting adds c, for free in the address). */
AVX2 static void draws_avx2(const bs__series *s, uint64_t *state,
                            uint64_t *idx) {
  avx2_mod m;
  uint64_t d = (uint64_t)s->mod;
  m.c = _mm256_set1_epi64x((long long)((UINT64_C(1) << 32) % d));
  m.d = _mm256_set1_epi64x((long long)d);
  m.inv = _mm256_set1_pd(1.0 / (double)d);
  __m256i s0 = _mm256_loadu_si256((const __m256i *)state);
  __m256i s1 = _mm256_loadu_si256((const __m256i *)(state + 4));
  for (size_t k = 0; k < s->draws; k++) {
    s0 = xs_vec(s0);
    s1 = xs_vec(s1);
    __m256i r0 = mod_vec(s0, &m), r1 = mod_vec(s1, &m);
    _mm256_storeu_si256((__m256i *)(idx + k * BS__CHAINS),
                        _mm256_slli_epi64(r0, 3));
    _mm256_storeu_si256((__m256i *)(idx + k * BS__CHAINS + 4),
                        _mm256_slli_epi64(r1, 3));
  }
  _mm256_storeu_si256((__m256i *)state, s0);
  _mm256_storeu_si256((__m256i *)(state + 4), s1);
}

/* The same with AVX-512 (F + DQ): all eight generators in one register, a
 * native 64-bit multiply and exact unsigned conversions. */
#define AVX512 __attribute__((target("avx512f,avx512dq")))

AVX512 static void draws_avx512(const bs__series *s, uint64_t *state,
                                uint64_t *idx) {
  uint64_t d = (uint64_t)s->mod;
  const __m512i c = _mm512_set1_epi64((long long)((UINT64_C(1) << 32) % d));
  const __m512i dv = _mm512_set1_epi64((long long)d);
  const __m512d inv = _mm512_set1_pd(1.0 / (double)d);
  const __m512d half_inv = _mm512_set1_pd(0.5 / (double)d);
  const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);
  const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF);
  __m512i g = _mm512_loadu_si512((const void *)state);
  for (size_t k = 0; k < s->draws; k++) {
    g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 12));
    g = _mm512_xor_si512(g, _mm512_slli_epi64(g, 25));
    g = _mm512_xor_si512(g, _mm512_srli_epi64(g, 27));
    __m512i v = _mm512_mullo_epi64(g, mult);
    __m512i t = _mm512_add_epi64(_mm512_mul_epu32(_mm512_srli_epi64(v, 32), c),
                                 _mm512_and_si512(v, low32));
    /* q = floor((t + 1/2) / d) as on the AVX2 path; one rounding:
     * fma(t, 1/d, 1/(2d)) = fl((t + 1/2) fl(1/d)), 1/(2d) being exact. */
    __m512d q =
        _mm512_floor_pd(_mm512_fmadd_pd(_mm512_cvtepu64_pd(t), inv, half_inv));
    __m512i r =
        _mm512_sub_epi64(t, _mm512_mul_epu32(_mm512_cvttpd_epu64(q), dv));
    _mm512_storeu_si512((void *)(idx + k * BS__CHAINS),
                        _mm512_slli_epi64(r, 3));
  }
  _mm512_storeu_si512((void *)state, g);
}

/* Counts the draws in idx and returns the rank pairs of the BS__CHAINS
 * medians. */
AVX2 static void count_and_walk_avx2(const bs__series *s, const uint64_t *idx,
                                     uint32_t *counts, uint32_t *jlo,
                                     uint32_t *jhi) {
  size_t n = s->n, draws = s->draws;
  memset(counts, 0, BS__CHAINS * n * sizeof *counts);
  if (s->L == 0) {
    for (size_t k = 0; k < draws * BS__CHAINS; k += BS__CHAINS) {
      const uint64_t *ik = idx + k;
      counts[ik[0]]++;
      counts[ik[1] + 1]++;
      counts[ik[2] + 2]++;
      counts[ik[3] + 3]++;
      counts[ik[4] + 4]++;
      counts[ik[5] + 5]++;
      counts[ik[6] + 6]++;
      counts[ik[7] + 7]++;
    }
  } else {
    for (size_t k = 0, filled = 0; k < draws; k++, filled += s->L) {
      size_t take = n - filled < s->L ? n - filled : s->L;
      for (size_t c = 0; c < BS__CHAINS; c++) {
        uint32_t *p = counts + idx[k * BS__CHAINS + c] + c;
        for (size_t t = 0; t < take; t++)
          p[t * BS__CHAINS]++;
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
  _mm256_storeu_si256((__m256i *)jlo, jl);
  _mm256_storeu_si256((__m256i *)jhi, jh);
}

/* --- Small samples (AVX-512 F, DQ, BW and IFMA; n <= 24) ------------------
 * compare's usual case, 20 pairs, where the median band spans nearly every
 * rank. Thirty-two generators (four vectors of eight, interleaved) each
 * draw one whole resample a round, and the resample's counts per rank
 * stay in registers: word w of a lane holds the counts of ranks 8w ..
 * 8w + 7, a byte each (a count is at most n <= 24: a byte never
 * overflows). A draw i is counted by spreading its byte over the lane and
 * comparing it with a constant word whose byte j is the index of rank
 * 8w + j (0xFF past the last rank): exactly one byte, that of i's rank,
 * matches and goes up by one. Nothing is stored per draw.
 *
 * After the n draws of a round, the cumulative counts by rank:
 * multiplying a word by 0x0101010101010101 leaves in byte j the sum of
 * its bytes 0..j (no partial sum exceeds n < 256, so no byte carries into
 * the next), and the word's total, its top byte after the multiply, is
 * added to byte 0 of the next word before that word's multiply. With
 * cum(j) the number of draws of rank <= j, the median's ranks are
 * jl = #{j : cum(j) <= lo} and jh = #{j : cum(j) <= hi}, as the plain
 * path's walk counts them (chain_ranks); a byte past the last rank holds
 * cum = n > hi and counts for neither. A byte compare and a sum of
 * absolute differences count them for all eight lanes at once.
 *
 * The draw mod n, exactly: with v = hi 2^32 + lo the generator's output
 * and c = 2^32 mod n, t = lo + hi c is congruent to v and
 * t <= (2^32 - 1) n < 2^37. IFMA's vpmadd52luq adds the low 52 bits of a
 * product of two 52-bit numbers, vpmadd52huq the high 52, so hi c < 2^37
 * is exact and t costs one, and t mod n two (Lemire, Kaser and Kurz,
 * "Faster remainder by direct computation", 2019, Theorem 1, with F = 52
 * and N = 37: for M = ceil(2^52 / n), M n - 2^52 < n <= 2^(52 - 37), so
 * t mod n = ((M t mod 2^52) n) >> 52 for every t < 2^37). For n >= 2,
 * M <= 2^51 fits 52 bits; for n = 1, M = 2^52 enters as 0 and every draw
 * as 0, which is t mod 1. tests/test_resample.c checks every median of
 * this path against sorting each resample, for every n up to 24. */
#define SMALL_MAX_N 24u
#define SMALL_CHAINS 32u
#define SMALL __attribute__((target("avx512f,avx512dq,avx512bw,avx512ifma")))

typedef struct small {
  size_t n;
  uint64_t c, M;    /* 2^32 mod n, ceil(2^52 / n) */
  uint64_t word[3]; /* byte j of word w: the index of rank 8w + j */
  uint8_t lo, hi;   /* the median's positions */
} small;

static void small_init(small *k, const bs__series *s) {
  size_t n = s->n;
  memset(k, 0, sizeof *k);
  k->n = n;
  k->c = (UINT64_C(1) << 32) % n;
  k->M = ((UINT64_C(1) << 52) + n - 1) / n;
  for (size_t j = 0; j < 24; j++) {
    uint64_t i = j < n ? s->byrank[j] / BS__CHAINS : 0xFF;
    k->word[j / 8] |= i << (8 * (j % 8));
  }
  k->lo = (uint8_t)s->lo;
  k->hi = (uint8_t)s->hi;
}

/* One draw of the generators g, counted into the words a, b, e. */
#define SMALL_DRAW(g, a, b, e)                                                 \
  do {                                                                         \
    (g) = _mm512_xor_si512((g), _mm512_srli_epi64((g), 12));                   \
    (g) = _mm512_xor_si512((g), _mm512_slli_epi64((g), 25));                   \
    (g) = _mm512_xor_si512((g), _mm512_srli_epi64((g), 27));                   \
    __m512i v_ = _mm512_mullo_epi64((g), mult);                                \
    __m512i t_ = _mm512_madd52lo_epu64(_mm512_and_si512(v_, low32),            \
                                       _mm512_srli_epi64(v_, 32), cv);         \
    __m512i r_ =                                                               \
        _mm512_madd52hi_epu64(zero, _mm512_madd52lo_epu64(zero, t_, mv), nv);  \
    __m512i s_ = _mm512_shuffle_epi8(r_, spread);                              \
    (a) = _mm512_mask_sub_epi8((a), _mm512_cmpeq_epi8_mask(s_, w0), (a),       \
                               minus1);                                        \
    if (W > 1)                                                                 \
      (b) = _mm512_mask_sub_epi8((b), _mm512_cmpeq_epi8_mask(s_, w1), (b),     \
                                 minus1);                                      \
    if (W > 2)                                                                 \
      (e) = _mm512_mask_sub_epi8((e), _mm512_cmpeq_epi8_mask(s_, w2), (e),     \
                                 minus1);                                      \
  } while (0)

/* The median ranks of the eight resamples counted in a, b, e, as 32-bit
 * integers at jl, jh. */
#define SMALL_RANKS(a, b, e, jl, jh)                                           \
  do {                                                                         \
    __m512i p0_ = _mm512_mullo_epi64((a), bytesum), p1_ = zero, p2_ = zero;    \
    if (W > 1)                                                                 \
      p1_ = _mm512_mullo_epi64(                                                \
          _mm512_add_epi64((b), _mm512_srli_epi64(p0_, 56)), bytesum);         \
    if (W > 2)                                                                 \
      p2_ = _mm512_mullo_epi64(                                                \
          _mm512_add_epi64((e), _mm512_srli_epi64(p1_, 56)), bytesum);         \
    __m512i l_ = _mm512_maskz_mov_epi8(_mm512_cmple_epu8_mask(p0_, lov), one); \
    __m512i h_ = _mm512_maskz_mov_epi8(_mm512_cmple_epu8_mask(p0_, hiv), one); \
    if (W > 1) {                                                               \
      l_ =                                                                     \
          _mm512_mask_add_epi8(l_, _mm512_cmple_epu8_mask(p1_, lov), l_, one); \
      h_ =                                                                     \
          _mm512_mask_add_epi8(h_, _mm512_cmple_epu8_mask(p1_, hiv), h_, one); \
    }                                                                          \
    if (W > 2) {                                                               \
      l_ =                                                                     \
          _mm512_mask_add_epi8(l_, _mm512_cmple_epu8_mask(p2_, lov), l_, one); \
      h_ =                                                                     \
          _mm512_mask_add_epi8(h_, _mm512_cmple_epu8_mask(p2_, hiv), h_, one); \
    }                                                                          \
    _mm256_storeu_si256((__m256i *)(jl),                                       \
                        _mm512_cvtepi64_epi32(_mm512_sad_epu8(l_, zero)));     \
    _mm256_storeu_si256((__m256i *)(jh),                                       \
                        _mm512_cvtepi64_epi32(_mm512_sad_epu8(h_, zero)));     \
  } while (0)

/* One round: a resample from each of the SMALL_CHAINS generators gen[]
 * (advanced past it), its median's ranks into jl[c], jh[c]. W = ceil(n / 8)
 * words a lane, a constant in each caller. */
SMALL static inline __attribute__((always_inline)) void
small_round(const small *k, uint64_t *gen, uint32_t *jl, uint32_t *jh,
            const int W) {
  const __m512i mult = _mm512_set1_epi64(0x2545F4914F6CDD1D);
  const __m512i low32 = _mm512_set1_epi64(0xFFFFFFFF);
  const __m512i cv = _mm512_set1_epi64((long long)k->c);
  const __m512i mv = _mm512_set1_epi64((long long)k->M);
  const __m512i nv = _mm512_set1_epi64((long long)k->n);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i minus1 = _mm512_set1_epi8(-1), one = _mm512_set1_epi8(1);
  /* Byte 0 of each 64-bit lane to all eight of its bytes. */
  const __m512i spread =
      _mm512_set4_epi64(0x0808080808080808, 0, 0x0808080808080808, 0);
  const __m512i w0 = _mm512_set1_epi64((long long)k->word[0]);
  const __m512i w1 = _mm512_set1_epi64((long long)k->word[1]);
  const __m512i w2 = _mm512_set1_epi64((long long)k->word[2]);
  const __m512i bytesum = _mm512_set1_epi64(0x0101010101010101);
  const __m512i lov = _mm512_set1_epi8((char)k->lo);
  const __m512i hiv = _mm512_set1_epi8((char)k->hi);
  __m512i g0 = _mm512_loadu_si512((const void *)gen);
  __m512i g1 = _mm512_loadu_si512((const void *)(gen + 8));
  __m512i g2 = _mm512_loadu_si512((const void *)(gen + 16));
  __m512i g3 = _mm512_loadu_si512((const void *)(gen + 24));
  __m512i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
  __m512i b0 = zero, b1 = zero, b2 = zero, b3 = zero;
  __m512i e0 = zero, e1 = zero, e2 = zero, e3 = zero;
  for (size_t j = 0; j < k->n; j++) {
    SMALL_DRAW(g0, a0, b0, e0);
    SMALL_DRAW(g1, a1, b1, e1);
    SMALL_DRAW(g2, a2, b2, e2);
    SMALL_DRAW(g3, a3, b3, e3);
  }
  _mm512_storeu_si512((void *)gen, g0);
  _mm512_storeu_si512((void *)(gen + 8), g1);
  _mm512_storeu_si512((void *)(gen + 16), g2);
  _mm512_storeu_si512((void *)(gen + 24), g3);
  SMALL_RANKS(a0, b0, e0, jl, jh);
  SMALL_RANKS(a1, b1, e1, jl + 8, jh + 8);
  SMALL_RANKS(a2, b2, e2, jl + 16, jh + 16);
  SMALL_RANKS(a3, b3, e3, jl + 24, jh + 24);
}

SMALL static void small_round1(const small *k, uint64_t *gen, uint32_t *jl,
                               uint32_t *jh) {
  small_round(k, gen, jl, jh, 1);
}
SMALL static void small_round2(const small *k, uint64_t *gen, uint32_t *jl,
                               uint32_t *jh) {
  small_round(k, gen, jl, jh, 2);
}
SMALL static void small_round3(const small *k, uint64_t *gen, uint32_t *jl,
                               uint32_t *jh) {
  small_round(k, gen, jl, jh, 3);
}

/* S (eight generator states) advanced by `dist` draws, each by the
 * product of the T^(2^k) for the set bits k of dist, as bs__xorshift_jump
 * does one state: a column of the matrix is xored in where a state has its
 * bit. */
SMALL static __m512i small_jump(__m512i S, uint64_t dist) {
  for (unsigned k = 0; dist; k++, dist >>= 1) {
    if (!(dist & 1))
      continue;
    __m512i r = _mm512_setzero_si512();
    for (unsigned j = 0; j < 64; j++)
      r = _mm512_mask_xor_epi64(
          r,
          _mm512_test_epi64_mask(
              S, _mm512_set1_epi64((long long)(UINT64_C(1) << j))),
          r, _mm512_set1_epi64((long long)bs__xorshift_pow2[k][j]));
    S = r;
  }
  return S;
}

/* gen[c] = the state D c draws after g0, for the SMALL_CHAINS generators:
 * lanes b .. 2b - 1 are lanes 0 .. b - 1 advanced by b D, for b = 1, 2, 4
 * within a vector, then 8 and 16 across vectors; six vectors jumped, not
 * 31 states one by one. */
SMALL static void small_jumps(uint64_t g0, uint64_t D, uint64_t *gen) {
  __m512i v0 = _mm512_set1_epi64((long long)g0);
  v0 = _mm512_mask_mov_epi64(v0, 0x02,
                             _mm512_alignr_epi64(small_jump(v0, D), v0, 7));
  v0 = _mm512_mask_mov_epi64(v0, 0x0C,
                             _mm512_alignr_epi64(small_jump(v0, 2 * D), v0, 6));
  v0 = _mm512_mask_mov_epi64(v0, 0xF0,
                             _mm512_alignr_epi64(small_jump(v0, 4 * D), v0, 4));
  __m512i v1 = small_jump(v0, 8 * D);
  _mm512_storeu_si512((void *)gen, v0);
  _mm512_storeu_si512((void *)(gen + 8), v1);
  _mm512_storeu_si512((void *)(gen + 16), small_jump(v0, 16 * D));
  _mm512_storeu_si512((void *)(gen + 24), small_jump(v1, 16 * D));
}

/* Whether this CPU has the small path's instructions (AVX-512 F and DQ are
 * the caller's engine). */
static int small_cpu(void) {
  return CPU_HAS(AVX512BW, "avx512bw") && CPU_HAS(AVX512_IFMA, "avx512ifma");
}

/* R resamples of s (n <= SMALL_MAX_N, no blocks) from the generator at
 * `state`: generator c draws resamples c per .. c per + per - 1, per =
 * ceil(R / SMALL_CHAINS), and the ones from R on are drawn and dropped.
 * Their median's ranks into jl[r], jh[r], or when hist is not NULL, only
 * counted: hist[jl * n + jh] += 1. */
void bs__resample_medians_small(const bs__series *s, uint64_t state, size_t R,
                                uint32_t *jl, uint32_t *jh, uint32_t *hist) {
  small k;
  small_init(&k, s);
  size_t n = s->n, per = (R + SMALL_CHAINS - 1) / SMALL_CHAINS;
  uint64_t gen[SMALL_CHAINS];
  size_t valid[SMALL_CHAINS]; /* how many of its resamples are below R */
  for (size_t c = 0; c < SMALL_CHAINS; c++) {
    size_t first = c * per;
    valid[c] = first >= R ? 0 : R - first < per ? R - first : per;
  }
  small_jumps(state, (uint64_t)per * n, gen);
  void (*round)(const small *, uint64_t *, uint32_t *, uint32_t *) =
      n <= 8    ? small_round1
      : n <= 16 ? small_round2
                : small_round3;
  /* The rounds in which every generator's resample is below R. */
  size_t full = valid[SMALL_CHAINS - 1];
  /* Four histograms, generator c counting into h4[c % 4], so that the
   * counts of one round do not wait on each other (most rounds count the
   * same few pairs many times), added up at the end. */
  uint32_t h4[4][SMALL_MAX_N * SMALL_MAX_N];
  if (hist)
    memset(h4, 0, sizeof h4);
  uint32_t l[SMALL_CHAINS], h[SMALL_CHAINS];
  for (size_t r = 0; r < per; r++) {
    round(&k, gen, l, h);
    if (hist && r < full) {
      for (size_t c = 0; c < SMALL_CHAINS; c += 4) {
        h4[0][l[c] * n + h[c]]++;
        h4[1][l[c + 1] * n + h[c + 1]]++;
        h4[2][l[c + 2] * n + h[c + 2]]++;
        h4[3][l[c + 3] * n + h[c + 3]]++;
      }
      continue;
    }
    for (size_t c = 0; c < SMALL_CHAINS; c++) {
      if (r >= valid[c])
        continue;
      if (hist) {
        h4[0][l[c] * n + h[c]]++;
      } else {
        jl[c * per + r] = l[c];
        jh[c * per + r] = h[c];
      }
    }
  }
  if (hist)
    for (size_t p = 0; p < n * n; p++)
      hist[p] += h4[0][p] + h4[1][p] + h4[2][p] + h4[3][p];
}

bs_resample_engine bs__resample_engine(size_t max_mod,
                                       bs_resample_engine want) {
  if (want == BS_RESAMPLE_ENGINE_PORTABLE || max_mod > AVX2_MAX_MOD)
    return BS_RESAMPLE_ENGINE_PORTABLE;
  if (!CPU_HAS(AVX2, "avx2"))
    return BS_RESAMPLE_ENGINE_PORTABLE;
  if (want != BS_RESAMPLE_ENGINE_AVX2 && CPU_HAS(AVX512F, "avx512f") &&
      CPU_HAS(AVX512DQ, "avx512dq"))
    return BS_RESAMPLE_ENGINE_AVX512;
  return BS_RESAMPLE_ENGINE_AVX2;
}
#else
#define HAVE_AVX2 0
bs_resample_engine bs__resample_engine(size_t max_mod,
                                       bs_resample_engine want) {
  (void)max_mod;
  (void)want;
  return BS_RESAMPLE_ENGINE_PORTABLE;
}
#endif

void bs__resample_chains(const bs__series *s, bs_resample_engine engine,
                         uint64_t state[BS__CHAINS], bs__resample_work *w,
                         uint32_t jl[BS__CHAINS], uint32_t jh[BS__CHAINS]) {
#if HAVE_AVX2
  if (engine != BS_RESAMPLE_ENGINE_PORTABLE) {
    if (engine == BS_RESAMPLE_ENGINE_AVX512)
      draws_avx512(s, state, w->idx);
    else
      draws_avx2(s, state, w->idx);
    count_and_walk_avx2(s, w->idx, w->counts, jl, jh);
    return;
  }
#else
  (void)engine;
#endif
  resample_scalar(s, state, w->counts, jl, jh);
}

void bs__resample_first_draws(bs_resample_engine engine, size_t d,
                              const uint64_t state[BS__CHAINS],
                              uint64_t idx[BS__CHAINS]) {
  memset(idx, 0, BS__CHAINS * sizeof *idx);
  if (d < 1)
    return; /* no index to draw */
  bs__series s;
  memset(&s, 0, sizeof s);
  s.mod = d;
  s.draws = 1;
  s.div = bs__fastdiv_init((uint64_t)d);
  uint64_t g[BS__CHAINS];
  memcpy(g, state, sizeof g);
#if HAVE_AVX2
  if (engine == BS_RESAMPLE_ENGINE_AVX512 ||
      engine == BS_RESAMPLE_ENGINE_AVX2) {
    if (engine == BS_RESAMPLE_ENGINE_AVX512)
      draws_avx512(&s, g, idx);
    else
      draws_avx2(&s, g, idx);
    for (size_t c = 0; c < BS__CHAINS; c++)
      idx[c] /= BS__CHAINS;
    return;
  }
#else
  (void)engine;
#endif
  for (size_t c = 0; c < BS__CHAINS; c++)
    idx[c] = bs__fastdiv_mod(&s.div, BS__XS_NEXT(g[c]));
}

/* --- Every resample of one series ---------------------------------------- */

bs_status bs__resample_medians_chains(const bs__series *s,
                                      bs_resample_engine engine, uint64_t state,
                                      size_t R, uint32_t *jl, uint32_t *jh) {
  bs__resample_work w = {NULL, NULL};
  if (bs__resample_work_init(&w, s->n, s->draws))
    return BS_ENOMEM;
  size_t per = R / BS__CHAINS;
  uint64_t st[BS__CHAINS];
  st[0] = state;
  for (size_t c = 1; c < BS__CHAINS; c++)
    st[c] = bs__xorshift_jump(st[c - 1], (uint64_t)per * (uint64_t)s->draws);
  uint32_t a[BS__CHAINS], b[BS__CHAINS];
  for (size_t r = 0; r < per; r++) {
    bs__resample_chains(s, engine, st, &w, a, b);
    for (size_t c = 0; c < BS__CHAINS; c++) {
      jl[c * per + r] = a[c];
      jh[c * per + r] = b[c];
    }
  }
  uint64_t g = st[BS__CHAINS - 1];
  for (size_t r = per * BS__CHAINS; r < R; r++)
    bs__resample_one(s, &g, &w, &jl[r], &jh[r]);
  bs__resample_work_release(&w);
  return BS_OK;
}

int bs__resample_small(const bs__series *s, bs_resample_engine engine) {
#if HAVE_AVX2
  return engine == BS_RESAMPLE_ENGINE_AVX512 && s->L == 0 &&
         s->n <= SMALL_MAX_N && small_cpu();
#else
  (void)s;
  (void)engine;
  return 0;
#endif
}
