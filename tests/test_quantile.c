/* The quantile module (src/stats/quantile.c): the generator (xorshift64*)
 * and the quantiles, fences and sort against independently computed
 * values (tests/data/stats/make_fixtures.py: numpy and a from-the-spec
 * Python xorshift64*) and values worked by hand. */
#include <criterion/criterion.h>

#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "fixtures.h"
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

/* Type-7 quartiles of {1, 2, 3, 4, 100} by hand: h = (n - 1) p gives
 * x[1] = 2 and x[3] = 4, so IQR = 2 and the fences are -1 and 7. */
Test(quantile, tukey_fences_by_hand) {
  double x[5] = {100, 3, 1, 4, 2}, lo, hi;
  cr_assert_eq(bs_tukey_fences(x, 5, &lo, &hi), BS_OK);
  cr_expect_eq(lo, -1.0);
  cr_expect_eq(hi, 7.0);
  cr_expect_eq(bs_tukey_outliers(x, 5), 1);
  cr_assert_eq(bs_tukey_fences(x, 0, &lo, &hi), BS_OK);
  cr_expect(lo < -1e308 && hi > 1e308);
}
