/* rng, quantile and bootstrap against independently computed values
 * (tests/data/stats/make_fixtures.py: numpy and a from-the-spec Python
 * xorshift64*), plus the SPEC §3 invariants at the bootstrap level. */
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

/* The rng lines hold uint64 values, which doubles cannot carry. */
static int rng_fixture(const char *seed, unsigned long long out[5]) {
  char *path = ts_data(STATS);
  char *text = ts_read(path, NULL);
  free(path);
  cr_assert_not_null(text);
  char prefix[64];
  snprintf(prefix, sizeof prefix, "\nrng %s ", seed);
  char *p = strstr(text, prefix);
  cr_assert_not_null(p, "no fixture for seed %s", seed);
  p += strlen(prefix);
  for (int i = 0; i < 5; i++)
    out[i] = strtoull(p, &p, 10);
  free(text);
  return 0;
}

static void check_rng(const char *seed_text, uint64_t seed) {
  unsigned long long want[5];
  rng_fixture(seed_text, want);
  bs_rng r;
  bs_rng_seed(&r, seed);
  for (int i = 0; i < 5; i++)
    cr_expect_eq(bs_rng_next(&r), (uint64_t)want[i], "seed %s draw %d",
                 seed_text, i);
}

Test(rng, seed_zero_first_five_outputs) { check_rng("0", 0); }
Test(rng, seed_one_first_five_outputs) { check_rng("1", 1); }
Test(rng, seed_two_to_the_63_plus_5_first_five_outputs) {
  check_rng("9223372036854775813", (UINT64_C(1) << 63) + 5);
}

Test(rng, seed_zero_is_replaced_by_the_golden_constant) {
  bs_rng a, b;
  bs_rng_seed(&a, 0);
  bs_rng_seed(&b, BS_RNG_ZERO_SEED);
  for (int i = 0; i < 100; i++)
    cr_assert_eq(bs_rng_next(&a), bs_rng_next(&b));
}

Test(rng, index_is_draw_modulo_m) {
  bs_rng a, b;
  bs_rng_seed(&a, 99);
  bs_rng_seed(&b, 99);
  for (uint64_t m = 1; m < 300; m++)
    cr_assert_eq(bs_rng_index(&a, m), bs_rng_next(&b) % m);
}

Test(quantile, type7_matches_numpy_linear) {
  const double data[] = {3.5, 1.25, 9.0, 4.0, 4.0, 7.75, 2.0};
  double s[7];
  memcpy(s, data, sizeof s);
  bs_sort_doubles(s, 7);
  const char *fs[] = {"0.0", "0.1", "0.25", "0.5", "0.9", "0.975", "1.0"};
  for (size_t i = 0; i < 7; i++) {
    char prefix[32];
    double want;
    snprintf(prefix, sizeof prefix, "quantile %s", fs[i]);
    cr_assert_eq(fx_numbers(STATS, prefix, &want, 1), 1);
    double f = strtod(fs[i], NULL);
    cr_expect_leq(fx_reldiff(bs_quantile_sorted(s, 7, f), want), 1e-15,
                  "Q(%s) = %.17g, numpy %.17g", fs[i],
                  bs_quantile_sorted(s, 7, f), want);
    cr_expect_leq(fx_reldiff(bs_quantile(data, 7, f), want), 1e-15);
  }
}

Test(quantile, median_by_hand) {
  /* Even N averages the middle two; odd N takes the middle value. */
  const double even[] = {4, 1, 3, 2};
  const double odd[] = {5, 1, 3};
  cr_expect_eq(bs_median(even, 4), 2.5);
  cr_expect_eq(bs_median(odd, 3), 3.0);
  const double one[] = {7.0};
  cr_expect_eq(bs_median(one, 1), 7.0);
  cr_expect(isnan(bs_median(NULL, 0)));
  /* R: quantile(c(1,2,3,4), 0.25, type = 7) is 1.75. */
  const double s[] = {1, 2, 3, 4};
  cr_expect_eq(bs_quantile_sorted(s, 4, 0.25), 1.75);
}

Test(quantile, tukey_fences_count_without_removing) {
  /* Q1 = 2.75, Q3 = 6.25, IQR = 3.5: fences [-2.5, 11.5]; 40 and -9 lie
   * outside (hand-worked type-7 quartiles of the sorted values). */
  const double x[] = {1, 2, 3, 4, 5, 6, 7, 40, -9, 3};
  cr_expect_eq(bs_tukey_outliers(x, 10), 2);
  const double calm[] = {1, 2, 3, 4, 5};
  cr_expect_eq(bs_tukey_outliers(calm, 5), 0);
}

/* The reference order: qsort with the comparison bs_sort_doubles has
 * always used. */
static int ref_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* bs_sort_doubles gives exactly qsort's array, bit for bit: random
 * lengths across the insertion/merge boundary, many ties, negative
 * values, runs already in order or reversed, subnormals and huge
 * magnitudes; and with zeros of both signs (where the order of 0 and -0
 * is qsort's to decide) it is qsort's. */
Test(quantile, sort_doubles_gives_qsorts_array) {
  uint64_t x = 0x2545F4914F6CDD1Du;
  static double a[5000], b[5000];
  for (int t = 0; t < 3000; t++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    size_t n = (size_t)(x % (t < 2500 ? 600 : 5000));
    int kind = (int)((x >> 20) % 6);
    for (size_t i = 0; i < n; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      double v = (double)(x >> 11) / 9007199254740992.0 + 1e-3;
      switch (kind) {
      case 0:
        v = (double)(x % 7) + 0.5;
        break; /* many ties */
      case 1:
        v = v - 0.5 + 1e-9;
        break; /* signs */
      case 2:
        v = (double)i + 1;
        break; /* in order */
      case 3:
        v = (double)(n - i);
        break; /* reversed */
      case 4:
        v = (x & 1) ? v * 1e-310 : v * 1e300;
        break; /* extremes */
      default: /* zeros of both signs among ties */
        v = (x % 5 == 0) ? ((x >> 9) & 1 ? -0.0 : 0.0) : (double)(x % 3) - 1;
        if (v == 0 && (x >> 9) & 1)
          v = -0.0;
        break;
      }
      a[i] = b[i] = v;
    }
    bs_sort_doubles(a, n);
    if (n > 1)
      qsort(b, n, sizeof *b, ref_cmp);
    cr_assert(memcmp(a, b, n * sizeof *a) == 0, "case %d (kind %d, n %zu)", t,
              kind, n);
  }
}

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

/* Type-7 quartiles of {1, 2, 3, 4, 100} by hand: h = (n - 1) p gives
 * x[1] = 2 and x[3] = 4, so IQR = 2 and the fences are -1 and 7. */
Test(stats, tukey_fences_by_hand) {
  double x[5] = {100, 3, 1, 4, 2}, lo, hi;
  cr_assert_eq(bs_tukey_fences(x, 5, &lo, &hi), BS_OK);
  cr_expect_eq(lo, -1.0);
  cr_expect_eq(hi, 7.0);
  cr_expect_eq(bs_tukey_outliers(x, 5), 1);
  cr_assert_eq(bs_tukey_fences(x, 0, &lo, &hi), BS_OK);
  cr_expect(lo < -1e308 && hi > 1e308);
}
