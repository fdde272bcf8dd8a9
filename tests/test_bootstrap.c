/* The bootstrap (src/stats/bootstrap.c, over resample.c's draws) against
 * independently computed intervals (tests/data/stats/make_fixtures.py:
 * numpy), its rank counting bit for bit against sorting each resample,
 * plus the SPEC §3 invariants at the bootstrap level. */
#include <criterion/criterion.h>

#include "benchsite/bootstrap.h"
#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "fixtures.h"
#include "resample_int.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATS "stats/fixtures.txt"

static size_t load_d(const char *name, double *d, size_t max) {
  int n = fx_numbers(STATS, name, d, max);
  cr_assert_gt(n, 0, "fixture %s missing", name);
  return (size_t)n;
}

static void check_boot(const char *name, uint64_t R, double c, uint64_t seed) {
  double d[64], want[2];
  size_t m = load_d(name, d, 64);
  char prefix[96];
  snprintf(prefix, sizeof prefix, "boot %s %llu %.1f %llu", name,
           (unsigned long long)R, c, (unsigned long long)seed);
  cr_assert_eq(fx_numbers(STATS, prefix, want, 2), 2, "fixture %s", prefix);
  double lo, hi;
  bs_error err;
  cr_assert_eq(bs_bootstrap_median_ci(d, m, R, c, seed, &lo, &hi, NULL, &err),
               BS_OK, "%s", err.message);
  cr_expect_leq(fx_reldiff(lo, want[0]), 1e-12, "%s L %.17g vs %.17g", prefix,
                lo, want[0]);
  cr_expect_leq(fx_reldiff(hi, want[1]), 1e-12, "%s U %.17g vs %.17g", prefix,
                hi, want[1]);
}

Test(bootstrap, matches_numpy_m7_r1000_seed42) {
  check_boot("d7", 1000, 95.0, 42);
}
Test(bootstrap, matches_numpy_m20_r10000_seed0) {
  check_boot("d20", 10000, 95.0, 0);
}
Test(bootstrap, matches_numpy_m20_r2000_level90_seed7) {
  check_boot("d20", 2000, 90.0, 7);
}
Test(bootstrap, matches_numpy_with_ties_level80) {
  check_boot("d6", 500, 80.0, 3);
}

/* The straightforward definition: materialise each resample, sort it, take
 * the type-7 median; sort theta*, take type-7 quantiles. */
static void naive_ci(const double *d, size_t m, size_t R, double c,
                     uint64_t seed, double *lo, double *hi, double *th) {
  bs_rng r;
  bs_rng_seed(&r, seed);
  double *res = malloc(m * sizeof *res);
  for (size_t k = 0; k < R; k++) {
    for (size_t i = 0; i < m; i++)
      res[i] = d[bs_rng_next(&r) % m];
    bs_sort_doubles(res, m);
    th[k] = bs_quantile_sorted(res, m, 0.5);
  }
  free(res);
  bs_sort_doubles(th, R);
  double a = (100.0 - c) / 200.0;
  *lo = bs_quantile_sorted(th, R, a);
  *hi = bs_quantile_sorted(th, R, 1 - a);
}

/* Every sample size path: the rank-pair histogram (m <= 256) and the
 * theta* array above it, on every engine this CPU has (the others fall
 * back to plain C and are checked there). R = 501 is not a multiple of
 * the eight generators, so the hand-over to the last one is exercised. */
Test(bootstrap, rank_counting_is_bit_identical_to_sorting_each_resample) {
  bs_rng g;
  bs_rng_seed(&g, 2024);
  const size_t R = 501;
  const size_t ms[] = {1,   2,   3,   4,   5,   6,   7,   8,   9,  10,
                       11,  12,  13,  16,  17,  20,  25,  33,  41, 64,
                       127, 128, 200, 255, 256, 257, 300, 380, 600};
  double *th = malloc(R * sizeof *th), *th2 = malloc(R * sizeof *th2);
  double *d = malloc(600 * sizeof *d);
  for (size_t mi = 0; mi < sizeof ms / sizeof ms[0]; mi++) {
    size_t m = ms[mi];
    for (size_t i = 0; i < m; i++) /* coarse values: many ties */
      d[i] = (double)(bs_rng_next(&g) % 9) * 0.25 - 1.0;
    double lo, hi, lo2, hi2;
    naive_ci(d, m, R, 95.0, m, &lo, &hi, th);
    for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
         e++) {
      bs_resample_engine used;
      cr_assert_eq(bs__bootstrap_median_ci_engine(d, m, R, 95.0, m,
                                                  (bs_resample_engine)e, &used,
                                                  &lo2, &hi2, th2, NULL),
                   BS_OK);
      cr_assert_eq(memcmp(th, th2, R * sizeof *th), 0,
                   "theta* differ, m=%zu engine %d", m, (int)used);
      cr_assert_eq(lo, lo2);
      cr_assert_eq(hi, hi2);
      /* The selection path (no theta output) gives the same interval. */
      cr_assert_eq(bs__bootstrap_median_ci_engine(d, m, R, 95.0, m,
                                                  (bs_resample_engine)e, &used,
                                                  &lo2, &hi2, NULL, NULL),
                   BS_OK);
      cr_assert_eq(lo, lo2, "m=%zu engine %d", m, (int)used);
      cr_assert_eq(hi, hi2, "m=%zu engine %d", m, (int)used);
    }
  }
  free(d);
  free(th);
  free(th2);
}

Test(bootstrap, chained_generators_make_the_same_draws_for_any_r) {
  /* Eight generators each draw R/8 resamples from their own stretch of
   * the sequence (jumped ahead), the last one also the R % 8 left over;
   * tiny and odd R exercise the hand-over. */
  const double d[] = {0.5, -1, 2, 2, 3.25, 0, 7, -2, 1, 1, 4};
  const size_t Rs[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 1000, 1001};
  for (size_t i = 0; i < sizeof Rs / sizeof Rs[0]; i++) {
    size_t R = Rs[i];
    double *th = malloc(R * sizeof *th), *th2 = malloc(R * sizeof *th2);
    double lo, hi, lo2, hi2;
    naive_ci(d, 11, R, 90.0, 31 + R, &lo, &hi, th);
    cr_assert_eq(
        bs_bootstrap_median_ci(d, 11, R, 90.0, 31 + R, &lo2, &hi2, th2, NULL),
        BS_OK);
    cr_expect_eq(memcmp(th, th2, R * sizeof *th), 0, "R=%zu", R);
    cr_expect_eq(lo, lo2, "R=%zu", R);
    cr_expect_eq(hi, hi2, "R=%zu", R);
    free(th);
    free(th2);
  }
}

/* The jump ahead against stepping the generator. */
Test(bootstrap, jump_ahead_equals_stepping) {
  const uint64_t ns[] = {0, 1, 2, 3, 63, 64, 1000, 12345, 25000};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    bs_rng r;
    bs_rng_seed(&r, 99);
    uint64_t start = r.s;
    for (uint64_t k = 0; k < ns[i]; k++)
      bs_rng_next(&r);
    cr_assert_eq(bs__xorshift_jump(start, ns[i]), r.s, "n=%llu",
                 (unsigned long long)ns[i]);
  }
}

Test(bootstrap, large_m_uses_exact_remainders) {
  /* m well above 2^16 and not a power of two exercises the fast
   * remainder across the whole 64-bit range of draws. */
  size_t m = 100003;
  double *d = malloc(m * sizeof *d);
  for (size_t i = 0; i < m; i++)
    d[i] = (double)((i * 7919) % m);
  double th[3], th2[3], lo, hi, lo2, hi2;
  naive_ci(d, m, 3, 95.0, 5, &lo, &hi, th);
  cr_assert_eq(bs_bootstrap_median_ci(d, m, 3, 95.0, 5, &lo2, &hi2, th2, NULL),
               BS_OK);
  cr_expect_eq(memcmp(th, th2, sizeof th), 0);
  cr_expect_eq(lo, lo2);
  cr_expect_eq(hi, hi2);
  /* Too few resamples for a histogram of their window: theta* is kept
   * as doubles, and without a theta output the quantiles are selected. */
  for (size_t R = 1; R <= 9; R++) {
    double *tr = malloc(R * sizeof *tr);
    naive_ci(d, m, R, 90.0, 17 + R, &lo, &hi, tr);
    cr_assert_eq(
        bs_bootstrap_median_ci(d, m, R, 90.0, 17 + R, &lo2, &hi2, NULL, NULL),
        BS_OK);
    cr_expect_eq(lo, lo2, "R=%zu", R);
    cr_expect_eq(hi, hi2, "R=%zu", R);
    free(tr);
  }
  free(d);
}

Test(bootstrap, level_given_as_a_fraction_is_rejected) {
  double d[] = {1, 2, 3}, lo, hi;
  bs_error err;
  cr_assert_eq(bs_bootstrap_median_ci(d, 3, 100, 0.95, 0, &lo, &hi, NULL, &err),
               BS_EUSAGE);
  cr_expect_str_eq(err.message,
                   "confidence level is a percentage; did you mean 95?");
  cr_expect_eq(bs_bootstrap_median_ci(d, 3, 100, 50.0, 0, &lo, &hi, NULL, &err),
               BS_EUSAGE);
  cr_expect_eq(
      bs_bootstrap_median_ci(d, 3, 100, 100.0, 0, &lo, &hi, NULL, &err),
      BS_EUSAGE);
  cr_expect_eq(bs_bootstrap_median_ci(d, 3, 100, 50.5, 0, &lo, &hi, NULL, &err),
               BS_OK);
}

/* SPEC §3: L <= U for every c in (50, 100). */
Test(invariants, interval_is_ordered_for_every_level) {
  double d[64];
  size_t m = load_d("d20", d, 64);
  for (double c = 50.25; c < 100.0; c += 0.25) {
    double lo, hi;
    cr_assert_eq(bs_bootstrap_median_ci(d, m, 400, c, 11, &lo, &hi, NULL, NULL),
                 BS_OK);
    cr_assert_leq(lo, hi, "c = %g: L %.17g > U %.17g", c, lo, hi);
  }
}

/* SPEC §3: seed 0 and seed 0x9E3779B97F4A7C15 give identical intervals. */
Test(invariants, seed_zero_equals_golden_seed) {
  double d[64], lo0, hi0, lo1, hi1;
  size_t m = load_d("d20", d, 64);
  bs_bootstrap_median_ci(d, m, 10000, 95, 0, &lo0, &hi0, NULL, NULL);
  bs_bootstrap_median_ci(d, m, 10000, 95, BS_RNG_ZERO_SEED, &lo1, &hi1, NULL,
                         NULL);
  cr_expect_eq(lo0, lo1);
  cr_expect_eq(hi0, hi1);
  /* ...and a different seed really does change the resamples. */
  double t0[200], t1[200], lo2, hi2;
  bs_bootstrap_median_ci(d, m, 200, 95, 0, &lo2, &hi2, t0, NULL);
  bs_bootstrap_median_ci(d, m, 200, 95, 1, &lo2, &hi2, t1, NULL);
  cr_expect_neq(memcmp(t0, t1, sizeof t0), 0);
}

/* SPEC §3: determinism at the library level (same input, same bits). */
Test(invariants, bootstrap_is_deterministic) {
  double d[64], a[2], b[2];
  size_t m = load_d("d7", d, 64);
  bs_bootstrap_median_ci(d, m, 3000, 95, 77, &a[0], &a[1], NULL, NULL);
  bs_bootstrap_median_ci(d, m, 3000, 95, 77, &b[0], &b[1], NULL, NULL);
  cr_expect_eq(memcmp(a, b, sizeof a), 0);
}
