/* The resampling engine's median band and small-sample path
 * (src/stats/resample.c, AVX-512) against the definition: each resample drawn
 * index by index from the spec's generator, sorted, and its type-7 median
 * taken. Band widths from 1 (the exact fallback for nearly every resample) to
 * the whole sample (never), every sample size up to 24 (the small-sample path)
 * and sizes either side of the powers of two and the band's limits, ties of
 * every kind, and sample counts that are not multiples of the generators; the
 * bootstrap's interval, theta* and count of theta* <= 0 built from the
 * small path's rank-pair histogram; then the band's own reduction of a draw
 * mod d on the outputs where double precision could go wrong. */
#include <criterion/criterion.h>

#include "benchsite/bootstrap.h"
#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "resample_int.h"

#include <stdlib.h>
#include <string.h>

static int have_avx512(void) {
  return bs__resample_engine(512, BS_RESAMPLE_ENGINE_AVX512) ==
         BS_RESAMPLE_ENGINE_AVX512;
}

/* theta*_r of R resamples by the definition, in the order drawn. */
static void naive_thetas(const double *d, size_t m, size_t R, uint64_t seed,
                         double *th) {
  bs_rng r;
  bs_rng_seed(&r, seed);
  double *res = malloc(m * sizeof *res);
  cr_assert_not_null(res);
  for (size_t k = 0; k < R; k++) {
    for (size_t i = 0; i < m; i++)
      res[i] = d[bs_rng_next(&r) % m];
    bs_sort_doubles(res, m);
    th[k] = bs_quantile_sorted(res, m, 0.5);
  }
  free(res);
}

/* Sample kinds: distinct values, nine values (many ties), one value, two
 * values with one of them rare. */
static void fill(bs_rng *g, double *d, size_t m, int kind) {
  for (size_t i = 0; i < m; i++) {
    uint64_t u = bs_rng_next(g);
    if (kind == 0)
      d[i] = (double)(u >> 11) * 0x1.0p-40 - 2.0;
    else if (kind == 1)
      d[i] = (double)(u % 9) * 0.25 - 1.0;
    else if (kind == 2)
      d[i] = 3.5;
    else
      d[i] = u % 10 ? -0.5 : 7.0;
  }
}

/* Runs every engine this CPU has and every band width on one sample and
 * checks each median against want[] and each rank pair against the plain
 * C engine's. Returns how many medians came from the band. */
static size_t check_all(const double *d, size_t m, size_t R, uint64_t seed,
                        const double *want) {
  bs__series s;
  cr_assert_eq(bs__series_init(&s, d, m, 0), BS_OK);
  uint32_t *jl = malloc(R * sizeof *jl), *jh = malloc(R * sizeof *jh);
  uint32_t *rl = malloc(R * sizeof *rl), *rh = malloc(R * sizeof *rh);
  cr_assert(jl && jh && rl && rh);
  bs_rng rng;
  bs_rng_seed(&rng, seed);
  cr_assert_eq(bs__resample_medians(&s, BS_RESAMPLE_ENGINE_PORTABLE, rng.s, R,
                                    0, rl, rh),
               BS_OK);
  const size_t widths[] = {0, 1, 2, 3, 7, 40, m, BS__WIDTH_PLAIN};
  size_t banded = 0;
  for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
       e++) {
    if ((int)bs__resample_engine(m, (bs_resample_engine)e) != e)
      continue; /* not on this CPU */
    for (size_t w = 0; w < sizeof widths / sizeof widths[0]; w++) {
      memset(jl, 0xff, R * sizeof *jl);
      memset(jh, 0xff, R * sizeof *jh);
      cr_assert_eq(bs__resample_medians(&s, (bs_resample_engine)e, rng.s, R,
                                        widths[w], jl, jh),
                   BS_OK);
      for (size_t r = 0; r < R; r++) {
        cr_assert(jl[r] < m && jh[r] < m && jl[r] <= jh[r],
                  "m %zu R %zu engine %d width %zu: resample %zu ranks %u %u",
                  m, R, e, widths[w], r, jl[r], jh[r]);
        double got = bs__series_median(&s, jl[r], jh[r]);
        cr_assert_eq(memcmp(&got, &want[r], sizeof got), 0,
                     "m %zu R %zu engine %d width %zu: resample %zu median "
                     "%.17g, want %.17g",
                     m, R, e, widths[w], r, got, want[r]);
        cr_assert(jl[r] == rl[r] && jh[r] == rh[r],
                  "m %zu R %zu engine %d width %zu: resample %zu ranks "
                  "(%u, %u), plain C (%u, %u)",
                  m, R, e, widths[w], r, jl[r], jh[r], rl[r], rh[r]);
      }
      if (e == BS_RESAMPLE_ENGINE_AVX512 && m <= 512 && R >= 32 &&
          widths[w] != BS__WIDTH_PLAIN && (widths[w] || m >= 8))
        banded += R - R % 32;
    }
  }
  free(jl);
  free(jh);
  free(rl);
  free(rh);
  bs__series_release(&s);
  return banded;
}

Test(resample, median_band_is_bit_identical_to_sorting_each_resample) {
  const size_t ms[] = {1,   2,   3,   4,   5,   6,   7,   8,   9,   10,  11,
                       12,  13,  14,  15,  16,  17,  18,  19,  20,  21,  22,
                       23,  24,  25,  31,  32,  33,  63,  64,  65,  100, 127,
                       128, 129, 255, 256, 257, 380, 511, 512, 513, 700};
  const size_t Rs[] = {1, 31, 32, 33, 95};
  bs_rng g;
  bs_rng_seed(&g, 4242);
  double *d = malloc(700 * sizeof *d);
  double *want = malloc(95 * sizeof *want);
  cr_assert(d && want);
  size_t banded = 0;
  for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
    for (int kind = 0; kind < 4; kind++) {
      size_t m = ms[mi];
      fill(&g, d, m, kind);
      for (size_t ri = 0; ri < sizeof Rs / sizeof Rs[0]; ri++) {
        uint64_t seed = m * 131 + (uint64_t)kind * 7 + ri;
        naive_thetas(d, m, Rs[ri], seed, want);
        banded += check_all(d, m, Rs[ri], seed, want);
      }
    }
  }
  free(d);
  free(want);
  cr_log_info("median band: %zu medians from the band engine", banded);
  if (have_avx512())
    cr_assert_gt(banded, 50000);
}

/* compare's shape: 380 pairs, R = 10 000 at the default width, where the
 * fallback is rare but happens. */
Test(resample, median_band_at_compare_size) {
  enum { M = 380, R = 10000 };
  bs_rng g;
  bs_rng_seed(&g, 77);
  double *d = malloc(M * sizeof *d), *want = malloc(R * sizeof *want);
  cr_assert(d && want);
  fill(&g, d, M, 0);
  naive_thetas(d, M, R, 0, want);
  bs__series s;
  cr_assert_eq(bs__series_init(&s, d, M, 0), BS_OK);
  uint32_t *jl = malloc(R * sizeof *jl), *jh = malloc(R * sizeof *jh);
  cr_assert(jl && jh);
  bs_rng rng;
  bs_rng_seed(&rng, 0);
  bs_resample_engine e = bs__resample_engine(M, BS_RESAMPLE_ENGINE_AUTO);
  cr_assert_eq(bs__resample_medians(&s, e, rng.s, R, 0, jl, jh), BS_OK);
  for (size_t r = 0; r < R; r++) {
    double got = bs__series_median(&s, jl[r], jh[r]);
    cr_assert_eq(memcmp(&got, &want[r], sizeof got), 0,
                 "engine %d: resample %zu median %.17g, want %.17g", (int)e, r,
                 got, want[r]);
  }
  free(jl);
  free(jh);
  free(d);
  free(want);
  bs__series_release(&s);
}

/* The small-sample path's rank-pair histogram (what the bootstrap reads)
 * holds the pairs the plain engine finds, resample by resample, and the
 * bootstrap built on it gives the definition's interval, theta* (bit for
 * bit) and count of theta* <= 0, for every sample size it takes, every kind
 * of ties, resample counts either side of its 32 generators and of the
 * window rule that keeps theta* as doubles below 9 resamples, and levels
 * where the quantiles fall between two bins. */
Test(resample, small_path_histogram_and_bootstrap_match_the_definition) {
  const size_t Rs[] = {1, 2, 8, 9, 31, 32, 33, 95, 501};
  const double levels[] = {95.0, 90.0, 99.9};
  bs_rng g;
  bs_rng_seed(&g, 2412);
  double d[24], lo, hi, lo2, hi2;
  double *want = malloc(501 * sizeof *want), *th = malloc(501 * sizeof *th);
  uint32_t *jl = malloc(501 * sizeof *jl), *jh = malloc(501 * sizeof *jh);
  cr_assert(want && th && jl && jh);
  size_t small = 0;
  for (size_t m = 1; m <= 24; m++) {
    for (int kind = 0; kind < 4; kind++) {
      fill(&g, d, m, kind);
      bs__series s;
      cr_assert_eq(bs__series_init(&s, d, m, 0), BS_OK);
      bs_resample_engine e = bs__resample_engine(m, BS_RESAMPLE_ENGINE_AUTO);
      small += (size_t)bs__resample_small(&s, e);
      for (size_t ri = 0; ri < sizeof Rs / sizeof Rs[0]; ri++) {
        size_t R = Rs[ri];
        uint64_t seed = m * 1009 + (uint64_t)kind * 17 + ri;
        bs_rng rng;
        bs_rng_seed(&rng, seed);
        /* The histogram against the plain engine's pairs. */
        uint32_t hist[24 * 24] = {0}, plain[24 * 24] = {0};
        cr_assert_eq(bs__resample_medians(&s, BS_RESAMPLE_ENGINE_PORTABLE,
                                          rng.s, R, 0, jl, jh),
                     BS_OK);
        for (size_t r = 0; r < R; r++)
          plain[jl[r] * m + jh[r]]++;
        cr_assert_eq(bs__resample_pair_hist(&s, e, rng.s, R, hist), BS_OK);
        for (size_t p = 0; p < m * m; p++)
          cr_assert_eq(hist[p], plain[p],
                       "m %zu kind %d R %zu: pair (%zu, %zu) counted %u times, "
                       "plain %u",
                       m, kind, R, p / m, p % m, hist[p], plain[p]);
        /* The bootstrap against the definition. */
        naive_thetas(d, m, R, seed, want);
        uint64_t np = 0;
        for (size_t r = 0; r < R; r++)
          np += want[r] <= 0;
        bs_sort_doubles(want, R);
        for (size_t li = 0; li < sizeof levels / sizeof levels[0]; li++) {
          double a = (100.0 - levels[li]) / 200.0;
          lo = bs_quantile_sorted(want, R, a);
          hi = bs_quantile_sorted(want, R, 1.0 - a);
          uint64_t np2 = UINT64_MAX;
          cr_assert_eq(bs_bootstrap_median_ci_count(d, m, R, levels[li], seed,
                                                    &lo2, &hi2, th, &np2, NULL),
                       BS_OK);
          cr_assert_eq(memcmp(th, want, R * sizeof *th), 0,
                       "m %zu kind %d R %zu: theta* differ", m, kind, R);
          cr_assert(!memcmp(&lo, &lo2, sizeof lo) &&
                        !memcmp(&hi, &hi2, sizeof hi) && np == np2,
                    "m %zu kind %d R %zu level %g: [%.17g, %.17g] %llu, want "
                    "[%.17g, %.17g] %llu",
                    m, kind, R, levels[li], lo2, hi2, (unsigned long long)np2,
                    lo, hi, (unsigned long long)np);
          np2 = UINT64_MAX;
          cr_assert_eq(bs_bootstrap_median_ci_count(d, m, R, levels[li], seed,
                                                    &lo2, &hi2, NULL, &np2,
                                                    NULL),
                       BS_OK);
          cr_assert(!memcmp(&lo, &lo2, sizeof lo) &&
                        !memcmp(&hi, &hi2, sizeof hi) && np == np2,
                    "m %zu kind %d R %zu level %g, no theta*: [%.17g, %.17g] "
                    "%llu, want [%.17g, %.17g] %llu",
                    m, kind, R, levels[li], lo2, hi2, (unsigned long long)np2,
                    lo, hi, (unsigned long long)np);
        }
      }
      bs__series_release(&s);
    }
  }
  free(want);
  free(th);
  free(jl);
  free(jh);
  cr_log_info("small-sample path: %zu of 96 samples", small);
  if (have_avx512() && bs__resample_engine(24, BS_RESAMPLE_ENGINE_AUTO) ==
                           BS_RESAMPLE_ENGINE_AVX512) {
    bs__series s;
    cr_assert_eq(bs__series_init(&s, d, 24, 0), BS_OK);
    int on = bs__resample_small(&s, BS_RESAMPLE_ENGINE_AVX512);
    bs__series_release(&s);
    if (on)
      cr_assert_eq(small, 96);
  }
}

/* The generator state whose next output (xorshift64*) is v: the multiply
 * by its inverse mod 2^64, then each xorshift undone. */
static uint64_t state_before_output(uint64_t v) {
  const uint64_t m = UINT64_C(0x2545F4914F6CDD1D);
  uint64_t inv = m; /* Newton: each step doubles the correct low bits */
  for (int i = 0; i < 6; i++)
    inv *= 2 - m * inv;
  uint64_t s = v * inv;
  s ^= (s >> 27) ^ (s >> 54);
  s ^= (s << 25) ^ (s << 50);
  s ^= (s >> 12) ^ (s >> 24) ^ (s >> 36) ^ (s >> 48) ^ (s >> 60);
  return s;
}

/* The band reduces v = hi 2^32 + lo through t = lo + hi c, c = 2^32 mod d,
 * or d when that is 0 (powers of two), in double precision. The hard cases:
 * exact multiples t = q d (a quotient rounded down is off by one) with q a
 * power of two, their neighbours, and the largest t. */
Test(resample, band_reduction_is_exact_on_multiples_and_extremes) {
  if (!have_avx512())
    cr_skip_test("no AVX-512 on this CPU");
  const uint64_t ds[] = {1,    2,    3,     5,     7,     10,   11,  64,
                         100,  127,  128,   256,   380,   511,  512, 1000,
                         4093, 4096, 40000, 65521, 65535, 65536};
  const uint64_t two32 = UINT64_C(1) << 32;
  size_t checked = 0;
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    uint64_t d = ds[i], c = two32 % d ? two32 % d : d;
    uint64_t vs[512];
    size_t nv = 0;
    for (unsigned k = 0; k < 34; k++) {
      uint64_t q = UINT64_C(1) << k;
      for (int delta = -1; delta <= 1; delta++) {
        uint64_t want_t = q * d + (uint64_t)(int64_t)delta;
        /* hi = 0: t = lo. */
        if (q * d + 1 < two32 && want_t < two32)
          vs[nv++] = want_t;
        /* hi = 2^32 - 1: lo = t - hi c. */
        uint64_t hi = two32 - 1, base = hi * c;
        if (q * d >= base + 1 && q * d + 1 - base < two32)
          vs[nv++] = (hi << 32) | (want_t - base);
      }
    }
    vs[nv++] = UINT64_MAX; /* the largest t */
    vs[nv++] = 0;
    vs[nv++] = (two32 - 1) << 32;
    vs[nv++] = two32 - 1;
    while (nv % BS__CHAINS)
      vs[nv++] = d - 1;
    for (size_t b = 0; b < nv; b += BS__CHAINS) {
      uint64_t state[BS__CHAINS], idx[BS__CHAINS];
      for (size_t j = 0; j < BS__CHAINS; j++) {
        state[j] = state_before_output(vs[b + j]);
        bs_rng r = {state[j]};
        cr_assert_eq(bs_rng_next(&r), vs[b + j]); /* the inverse is right */
      }
      bs__resample_band_first_draws(d, state, idx);
      for (size_t j = 0; j < BS__CHAINS; j++) {
        cr_assert_eq(idx[j], vs[b + j] % d, "d %llu, v %#llx: %llu, want %llu",
                     (unsigned long long)d, (unsigned long long)vs[b + j],
                     (unsigned long long)idx[j],
                     (unsigned long long)(vs[b + j] % d));
        checked++;
      }
    }
  }
  cr_log_info("band reduction: %zu draws checked", checked);
  cr_assert_gt(checked, 1000);
}
