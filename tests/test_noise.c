/* A/A validation (SPEC §2.8) against independently computed values:
 * scipy for Spearman's rho and mid-ranks, hand-worked series for lag-1 and
 * the half medians, a from-the-spec Python reimplementation
 * (tests/data/noise/reference.py) for the bootstrap confidences and every
 * summary figure, and a naive sort-every-resample C version for the fast
 * resampling. Plus the strict JSON reader behind `compare --noise`. */
#include <criterion/criterion.h>

#include "benchsite/bootstrap.h"
#include "benchsite/compare.h"
#include "benchsite/json.h"
#include "benchsite/log.h"
#include "benchsite/markdown.h"
#include "benchsite/noise.h"
#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "jsonread.h"
#include "resample_int.h"
#include "support.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double reldiff(double a, double b) {
  if (a == b)
    return 0;
  return fabs(a - b) / fmax(fabs(a), fabs(b));
}

#define EXPECT_REL(got, want, tol)                                             \
  cr_expect(reldiff((got), (want)) <= (tol), "%s = %.17g, want %.17g", #got,   \
            (double)(got), (double)(want))

/* --- mid-ranks and Spearman ---------------------------------------------- */

/* scipy.stats.rankdata([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5]) (scipy 1.10.1,
 * Debian's /usr/bin/python3). */
Test(noise, midranks_share_the_mean_rank_of_ties) {
  const double x[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
  const double want[] = {4.5, 1.5,  6.0, 1.5, 8.0, 11.0,
                         3.0, 10.0, 8.0, 4.5, 8.0};
  double r[11];
  cr_assert_eq(bs_noise_midranks(x, 11, r), BS_OK);
  for (int i = 0; i < 11; i++)
    cr_expect_eq(r[i], want[i], "rank %d: %g, want %g", i, r[i], want[i]);
}

/* rho, Z and p computed with
 *   from scipy import stats; import numpy as np, math
 *   r = stats.spearmanr(x, np.arange(n)).correlation
 *   z = r * math.sqrt(n - 1); p = math.erfc(abs(z) / math.sqrt(2))
 * (the spec's normal approximation, not scipy's t-based p value). */
typedef struct spearman_case {
  const char *name;
  const double *x;
  size_t n;
  double rho, z, p;
} spearman_case;

static const double ties[] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5};
static const double trend[] = {10.0, 10.2, 10.1, 10.4, 10.3, 10.6, 10.5, 10.9};
static const double down[] = {5.0, 4.0, 4.0, 3.0, 3.0, 3.0, 2.0, 1.0, 1.0};
/* The first 12 A samples of run 0 of sum [n=65536] in examples/aa.csv. */
static const double aa0[] = {
    13.538582887700535, 13.635919786096256, 13.552454545454546,
    13.798379679144386, 13.452949197860963, 13.667703208556148,
    13.520267379679144, 13.606114973262033, 13.857128342245989,
    14.112882352941176, 13.942604278074866, 13.860529411764706};

static const spearman_case spearman_cases[] = {
    {"ties", ties, 11, 0.43782986108274397, 1.3845395886565863,
     0.16619329480034017},
    {"trend", trend, 8, 0.9285714285714287, 2.4567690745599773,
     0.01401927711395995},
    {"down", down, 9, -0.9746794344808964, -2.7568097504180447,
     0.005836830082645424},
    {"aa0", aa0, 12, 0.6643356643356644, 2.203352133452888,
     0.027569939145207424},
};

Test(noise, spearman_rho_and_normal_p_match_scipy) {
  for (size_t i = 0; i < sizeof spearman_cases / sizeof spearman_cases[0];
       i++) {
    const spearman_case *c = &spearman_cases[i];
    bs_drift d;
    cr_assert_eq(bs_noise_drift(c->x, c->n, &d), BS_OK, "%s", c->name);
    cr_expect(reldiff(d.rho, c->rho) <= 1e-12, "%s rho %.17g want %.17g",
              c->name, d.rho, c->rho);
    cr_expect(reldiff(d.z, c->z) <= 1e-12, "%s z %.17g want %.17g", c->name,
              d.z, c->z);
    cr_expect(reldiff(d.p, c->p) <= 1e-12, "%s p %.17g want %.17g", c->name,
              d.p, c->p);
    cr_expect_eq(d.drifted, c->p < 0.05, "%s", c->name);
  }
}

Test(noise, constant_series_has_rho_zero_and_p_one) {
  const double x[] = {2, 2, 2, 2, 2};
  bs_drift d;
  cr_assert_eq(bs_noise_drift(x, 5, &d), BS_OK);
  cr_expect_eq(d.rho, 0.0);
  cr_expect_eq(d.p, 1.0);
  cr_expect_eq(d.drifted, 0);
  cr_expect_eq(d.relative_shift, 0.0);
}

Test(noise, drift_needs_four_samples) {
  const double x[] = {1, 2, 3};
  bs_drift d;
  cr_expect_eq(bs_noise_drift(x, 3, &d), BS_EINPUT);
  cr_expect_eq(bs_noise_drift(x, 0, &d), BS_EINPUT);
}

/* Halves by hand: n = 5 leaves the middle value out. */
Test(noise, half_medians_and_relative_shift_by_hand) {
  const double odd[] = {1, 2, 100, 4, 5};
  bs_drift d;
  cr_assert_eq(bs_noise_drift(odd, 5, &d), BS_OK);
  cr_expect_eq(d.first, 1.5);  /* med(1, 2) */
  cr_expect_eq(d.second, 4.5); /* med(4, 5); 100 is the left-out middle */
  cr_expect_eq(d.relative_shift, 2.0);
  const double even[] = {10, 12, 11, 13};
  cr_assert_eq(bs_noise_drift(even, 4, &d), BS_OK);
  cr_expect_eq(d.first, 11.0);
  cr_expect_eq(d.second, 12.0);
  cr_expect_eq(d.relative_shift, 1.0 / 11.0);
  const double slower[] = {4, 3, 2, 1, 2, 1};
  cr_assert_eq(bs_noise_drift(slower, 6, &d), BS_OK);
  cr_expect_eq(d.first, 3.0);
  cr_expect_eq(d.second, 1.0);
  cr_expect_eq(d.relative_shift, -2.0 / 3.0);
}

/* --- lag-1 autocorrelation ------------------------------------------------ */

Test(noise, lag1_on_hand_worked_series) {
  /* mean 2.5, deviations -1.5 -0.5 0.5 1.5: numerator 0.75 - 0.25 + 0.75
   * = 1.25, denominator 5. */
  const double up[] = {1, 2, 3, 4};
  cr_expect_eq(bs_noise_lag1(up, 4), 0.25);
  /* mean 0: numerator -3, denominator 4. */
  const double alt[] = {1, -1, 1, -1};
  cr_expect_eq(bs_noise_lag1(alt, 4), -0.75);
  /* mean 4, deviations -2 0 2: numerator 0. */
  const double flat_mid[] = {2, 4, 6};
  cr_expect_eq(bs_noise_lag1(flat_mid, 3), 0.0);
  /* mean 3, deviations -2 -1 -1 2 2: numerator 2 + 1 - 2 + 4 = 5,
   * denominator 4 + 1 + 1 + 4 + 4 = 14. */
  const double mixed[] = {1, 2, 2, 5, 5};
  EXPECT_REL(bs_noise_lag1(mixed, 5), 5.0 / 14.0, 1e-15);
  const double constant[] = {7, 7, 7};
  cr_expect_eq(bs_noise_lag1(constant, 3), 0.0);
  cr_expect_eq(bs_noise_lag1(up, 1), 0.0);
  cr_expect_eq(bs_noise_lag1(up, 0), 0.0);
}

/* --- resampling ------------------------------------------------------------
 */

Test(noise, auto_block_length_is_rounded_cube_root_clamped) {
  const size_t n[] = {0, 1, 2, 3, 4, 5, 8, 20, 27, 64, 100, 1000};
  const size_t want[] = {1, 1, 1, 1, 2, 2, 2, 3, 3, 4, 5, 10};
  for (size_t i = 0; i < sizeof n / sizeof n[0]; i++)
    cr_expect_eq(bs_noise_auto_block_length(n[i]), want[i],
                 "n = %zu: %zu, want %zu", n[i],
                 bs_noise_auto_block_length(n[i]), want[i]);
}

Test(noise, block_indices_with_l1_are_the_ordinary_draws) {
  for (uint64_t seed = 0; seed < 5; seed++) {
    bs_rng a, b;
    bs_rng_seed(&a, seed);
    bs_rng_seed(&b, seed);
    size_t idx[37];
    for (int rep = 0; rep < 20; rep++) {
      bs_noise_block_indices(&a, 37, 1, idx);
      for (size_t k = 0; k < 37; k++)
        cr_assert_eq(idx[k], (size_t)bs_rng_index(&b, 37));
    }
  }
}

Test(noise, block_indices_append_blocks_and_cut_the_last) {
  bs_rng a, b;
  bs_rng_seed(&a, 99);
  bs_rng_seed(&b, 99);
  size_t idx[10];
  bs_noise_block_indices(&a, 10, 3, idx);
  /* ceil(10/3) = 4 draws, each a start in 0..7; the fourth block keeps
   * one value. */
  for (size_t blk = 0; blk < 4; blk++) {
    size_t start = (size_t)(bs_rng_next(&b) % 8);
    for (size_t t = 0; t < 3 && blk * 3 + t < 10; t++)
      cr_expect_eq(idx[blk * 3 + t], start + t);
  }
  cr_expect_eq(a.s, b.s, "exactly four draws were used");
}

/* The definition, literally: sort every resample. */
static double naive_conf(const double *x, size_t nx, size_t lx, const double *y,
                         size_t ny, size_t ly, uint64_t R, uint64_t seed) {
  bs_rng g;
  bs_rng_seed(&g, seed);
  double *rx = malloc(nx * sizeof *rx), *ry = malloc(ny * sizeof *ry);
  size_t *ix = malloc(nx * sizeof *ix), *iy = malloc(ny * sizeof *iy);
  uint64_t count = 0;
  for (uint64_t r = 0; r < R; r++) {
    if (lx)
      bs_noise_block_indices(&g, nx, lx, ix);
    else
      for (size_t k = 0; k < nx; k++)
        ix[k] = (size_t)bs_rng_index(&g, nx);
    if (ly)
      bs_noise_block_indices(&g, ny, ly, iy);
    else
      for (size_t k = 0; k < ny; k++)
        iy[k] = (size_t)bs_rng_index(&g, ny);
    for (size_t k = 0; k < nx; k++)
      rx[k] = x[ix[k]];
    for (size_t k = 0; k < ny; k++)
      ry[k] = y[iy[k]];
    bs_sort_doubles(rx, nx);
    bs_sort_doubles(ry, ny);
    double mx = bs_quantile_sorted(rx, nx, 0.5);
    double my = bs_quantile_sorted(ry, ny, 0.5);
    if (mx == my || 1.0 - mx / my >= 0)
      count++;
  }
  free(rx);
  free(ry);
  free(ix);
  free(iy);
  return (double)count / (double)R;
}

static void random_series(bs_rng *g, double *x, size_t n, int quantized) {
  for (size_t i = 0; i < n; i++) {
    double u = (double)(bs_rng_next(g) >> 11) / 9007199254740992.0;
    x[i] = quantized ? 10.0 + (double)(bs_rng_next(g) % 4) : 10.0 + u;
  }
}

/* The fast path runs several generators from jump-ahead states and counts
 * ranks; it must give exactly the one-generator, sort-every-resample
 * answer for every R (multiples of the chain count or not), n, block
 * length and seed. */
Test(noise, fast_confidence_equals_the_naive_definition) {
  bs_rng g;
  bs_rng_seed(&g, 2024);
  const uint64_t Rs[] = {1, 2, 3, 4, 5, 7, 8, 9, 257, 1001};
  const size_t ns[][2] = {{1, 1}, {1, 5},   {2, 2},   {5, 4},
                          {9, 9}, {16, 17}, {40, 31}, {100, 100}};
  int round = 0;
  for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
    for (size_t b = 0; b < sizeof Rs / sizeof Rs[0]; b++, round++) {
      size_t nx = ns[a][0], ny = ns[a][1];
      double x[100], y[100];
      random_series(&g, x, nx, round % 2);
      random_series(&g, y, ny, round % 2);
      size_t lx = (size_t)(round % 3 == 2   ? bs_noise_auto_block_length(nx)
                           : round % 3 == 1 ? 1
                                            : 0);
      size_t ly = (size_t)(round % 3 == 2   ? (ny + 1) / 2
                           : round % 3 == 1 ? 1
                                            : 0);
      uint64_t seed = bs_rng_next(&g);
      double want = naive_conf(x, nx, lx, y, ny, ly, Rs[b], seed);
      for (int e = BS_RESAMPLE_ENGINE_AUTO; e <= BS_RESAMPLE_ENGINE_AVX512;
           e++) {
        double fast;
        bs_resample_engine used;
        cr_assert_eq(bs_noise_confidence_engine(x, nx, lx, y, ny, ly, Rs[b],
                                                seed, (bs_resample_engine)e,
                                                &used, &fast, NULL),
                     BS_OK);
        cr_expect_eq(fast, want,
                     "engine %d (ran %d) nx %zu ny %zu lx %zu ly %zu R %llu: "
                     "%.17g, want %.17g",
                     e, (int)used, nx, ny, lx, ly, (unsigned long long)Rs[b],
                     fast, want);
      }
    }
  }
}

/* The SIMD engines reduce draw() mod d through doubles; check them at the
 * divisors where that could go wrong (1, powers of two, 2^16 - 1, the 2^16
 * limit) and past the limit, where every engine falls back to plain C. */
Test(noise, every_engine_is_exact_at_the_divisor_limits) {
  const size_t ns[] = {1, 2, 3, 7, 64, 1000, 65535, 65536, 65537};
  bs_rng g;
  bs_rng_seed(&g, 77);
  double *x = malloc(65537 * sizeof *x);
  const double y[] = {10.5, 10.25, 10.75};
  for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
    random_series(&g, x, ns[i], 0);
    double want = naive_conf(x, ns[i], 0, y, 3, 0, 17, 5);
    for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
         e++) {
      double got;
      bs_resample_engine used;
      cr_assert_eq(bs_noise_confidence_engine(x, ns[i], 0, y, 3, 0, 17, 5,
                                              (bs_resample_engine)e, &used,
                                              &got, NULL),
                   BS_OK);
      cr_expect_eq(got, want, "n %zu engine %d (ran %d)", ns[i], e, (int)used);
      if (ns[i] > 65536)
        cr_expect_eq(used, BS_RESAMPLE_ENGINE_PORTABLE);
      cr_expect((int)used <= e);
    }
  }
  free(x);
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

/* The SIMD engines reduce a draw v = hi 2^32 + lo mod d through
 * t = hi (2^32 mod d) + lo in double precision. The hard cases are exact
 * multiples t = q d (where a floor of t / d rounded down would be off by
 * one) with q a power of two (where rounding below q is possible), their
 * neighbours, and the largest t, for divisors up to the SIMD limit. Each
 * engine's own reduction is checked against `%` on outputs built to hit
 * them. */
Test(noise, simd_reduction_is_exact_on_multiples_and_extremes) {
  const uint64_t ds[] = {2,    3,    5,    7,     10,    11,    100,  127,
                         1000, 4093, 4096, 40000, 65521, 65535, 65536};
  const uint64_t two32 = UINT64_C(1) << 32;
  size_t checked = 0;
  for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
    uint64_t d = ds[i], c = two32 % d;
    /* Outputs v and, for each, nothing but v % d is expected. */
    uint64_t vs[512];
    size_t nv = 0;
    for (unsigned k = 0; k < 32; k++) {
      uint64_t q = UINT64_C(1) << k;
      for (int delta = -1; delta <= 1; delta++) {
        /* hi = 0: t = lo = q d + delta, when below 2^32. */
        uint64_t t = q * d + (uint64_t)(int64_t)delta;
        if (q * d + 1 < two32 && t < two32)
          vs[nv++] = t;
        /* hi = 2^32 - 1: t = hi c + lo with lo = q d + delta - hi c. */
        uint64_t hi = two32 - 1, base = hi * c;
        if (q * d >= base + 1 && q * d + 1 - base < two32)
          vs[nv++] = (hi << 32) | (q * d + (uint64_t)(int64_t)delta - base);
      }
    }
    vs[nv++] = UINT64_MAX; /* the largest t */
    vs[nv++] = 0;
    vs[nv++] = (two32 - 1) << 32;
    while (nv % BS__CHAINS)
      vs[nv++] = d - 1;
    for (size_t b = 0; b < nv; b += BS__CHAINS) {
      uint64_t state[BS__CHAINS];
      for (size_t j = 0; j < BS__CHAINS; j++) {
        state[j] = state_before_output(vs[b + j]);
        bs_rng r = {state[j]};
        cr_assert_eq(bs_rng_next(&r), vs[b + j]); /* the inverse is right */
      }
      for (int e = BS_RESAMPLE_ENGINE_PORTABLE; e <= BS_RESAMPLE_ENGINE_AVX512;
           e++) {
        if ((int)bs__resample_engine(d, (bs_resample_engine)e) != e)
          continue; /* not on this CPU */
        uint64_t idx[BS__CHAINS];
        bs__resample_first_draws((bs_resample_engine)e, d, state, idx);
        for (size_t j = 0; j < BS__CHAINS; j++) {
          cr_assert_eq(idx[j], vs[b + j] % d,
                       "engine %d, d %llu, v %#llx: %llu, want %llu", e,
                       (unsigned long long)d, (unsigned long long)vs[b + j],
                       (unsigned long long)idx[j],
                       (unsigned long long)(vs[b + j] % d));
          checked++;
        }
      }
    }
  }
  cr_log_info("simd reduction: %zu draws checked", checked);
  cr_assert_gt(checked, 1000);
}

Test(noise, block_length_one_equals_the_ordinary_bootstrap) {
  bs_rng g;
  bs_rng_seed(&g, 7);
  for (int round = 0; round < 12; round++) {
    double x[23], y[19];
    random_series(&g, x, 23, round % 2);
    random_series(&g, y, 19, round % 2);
    uint64_t R = 997 + (uint64_t)round;
    double plain, blocks;
    cr_assert_eq(bs_noise_confidence(x, 23, 0, y, 19, 0, R, (uint64_t)round,
                                     &plain, NULL),
                 BS_OK);
    cr_assert_eq(bs_noise_confidence(x, 23, 1, y, 19, 1, R, (uint64_t)round,
                                     &blocks, NULL),
                 BS_OK);
    cr_expect_eq(plain, blocks, "round %d", round);
  }
}

Test(noise, confidence_rejects_bad_arguments) {
  const double x[] = {1, 2, 3};
  double c;
  bs_error err;
  cr_expect_eq(bs_noise_confidence(x, 0, 0, x, 3, 0, 10, 0, &c, &err),
               BS_EUSAGE);
  cr_expect_eq(bs_noise_confidence(x, 3, 0, x, 3, 0, 0, 0, &c, &err),
               BS_EUSAGE);
  cr_expect_eq(bs_noise_confidence(x, 3, 4, x, 3, 0, 10, 0, &c, &err),
               BS_EUSAGE);
  cr_expect(strstr(err.message, "block length 4") != NULL, "%s", err.message);
}

/* confAB = P(<) + P(=) over the replicates of its own seed, exactly; and
 * on data with many ties confAB + confBA - 1 (two independent bootstraps)
 * recovers the tie share up to Monte Carlo error, while the plain
 * confidence is lifted by half of it. */
Test(noise, tie_split_algebra_on_data_with_many_ties) {
  /* Three distinct values: medians tie often. */
  const double a[] = {2.00, 2.05, 2.00, 1.95, 2.00, 2.05,
                      2.00, 2.00, 1.95, 2.00, 2.05};
  const double b[] = {2.00, 2.00, 2.05, 2.00, 1.95, 2.00,
                      2.05, 2.00, 2.00, 1.95, 2.00};
  const uint64_t R = 20000;
  double cab, cba;
  cr_assert_eq(bs_noise_confidence(a, 11, 0, b, 11, 0, R, 10, &cab, NULL),
               BS_OK);
  cr_assert_eq(bs_noise_confidence(b, 11, 0, a, 11, 0, R, 11, &cba, NULL),
               BS_OK);
  /* Count <, = and > on the replicates of seed 10 by the definition. */
  bs_rng g;
  bs_rng_seed(&g, 10);
  uint64_t less = 0, equal = 0, greater = 0;
  double ra[11], rb[11];
  for (uint64_t r = 0; r < R; r++) {
    for (int k = 0; k < 11; k++)
      ra[k] = a[bs_rng_index(&g, 11)];
    for (int k = 0; k < 11; k++)
      rb[k] = b[bs_rng_index(&g, 11)];
    bs_sort_doubles(ra, 11);
    bs_sort_doubles(rb, 11);
    double ma = ra[5], mb = rb[5];
    less += ma < mb;
    equal += ma == mb;
    greater += ma > mb;
  }
  cr_assert_eq(less + equal + greater, R);
  cr_expect_eq(cab, (double)(less + equal) / (double)R);
  double tie = (double)equal / (double)R;
  cr_expect(tie > 0.3, "the fixture must tie often (%g)", tie);
  double recovered = cab + cba - 1.0;
  /* Two independent estimates: standard error below 0.005 at R = 20000. */
  cr_expect(fabs(recovered - tie) < 0.02, "recovered %g, direct %g", recovered,
            tie);
  double split = (cab + 1.0 - cba) / 2.0;
  cr_expect(fabs(split - ((double)less / (double)R + tie / 2.0)) < 0.01,
            "split %g", split);
  cr_expect(cab - split > 0.1, "ties lift the plain confidence by ~tie/2");
}

/* --- the whole validation against reference.py ------------------------ */

static bs_log *load(const char *name) {
  char *path = ts_data(name);
  bs_log *log = bs_log_new();
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_log_read_file(log, path, &err), BS_OK, "%s: %s", path,
               err.message);
  free(path);
  return log;
}

static bs__jvalue *load_json(const char *name) {
  char *path = ts_data(name);
  size_t len;
  char *text = ts_read(path, &len);
  cr_assert_not_null(text, "%s", path);
  bs__jvalue *v = NULL;
  bs_error err;
  cr_assert_eq(bs__json_parse(path, text, len, &v, &err), BS_OK, "%s",
               err.message);
  free(text);
  free(path);
  return v;
}

static double jnum(const bs__jvalue *obj, const char *key) {
  const bs__jvalue *v = bs__json_member(obj, key);
  cr_assert(v && v->type == BS__JNUMBER, "no number %s", key);
  return v->number;
}

static void expect_drift(const bs_drift *d, int has, const bs__jvalue *j,
                         const char *what) {
  cr_assert_not_null(j);
  if (j->type == BS__JNULL) {
    cr_expect_eq(has, 0, "%s", what);
    return;
  }
  cr_assert(has, "%s", what);
  cr_expect(reldiff(d->rho, jnum(j, "rho")) <= 1e-12, "%s rho", what);
  cr_expect(reldiff(d->p, jnum(j, "p")) <= 1e-12, "%s p", what);
  cr_expect(reldiff(d->relative_shift, jnum(j, "relative_shift")) <= 1e-12,
            "%s shift", what);
}

/* Compares every figure of `r` with the reference JSON printed by
 *   /usr/bin/python3 tests/data/noise/reference.py small.csv A B \
 *       --resamples 2000 [--seed 18446744073709551615 --block-length 2]
 * (kept in tests/data/noise/small_ref_*.json). */
static void expect_reference(const bs_noise_result *r, const char *ref) {
  bs__jvalue *root = load_json(ref);
  const bs__jvalue *cases = bs__json_member(root, "cases");
  cr_assert_gt(cases->n, 0, "%s has no case", ref);
  cr_assert_eq(r->ncases, cases->n);
  static const char *const fields[] = {"noise_floor",
                                       "max_observed_noise",
                                       "typical_noise",
                                       "mean_confidence",
                                       "median_confidence",
                                       "tie_rate",
                                       "false_signal_rate",
                                       "drift_rate",
                                       "median_drift_shift",
                                       "autocorrelation",
                                       "paired_noise_floor_pct",
                                       "false_regression_rate"};
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    const bs__jvalue *jc = &cases->items[i];
    cr_expect_str_eq(c->benchmark, bs__json_member(jc, "benchmark")->string);
    cr_expect_str_eq(c->dataset, bs__json_member(jc, "dataset")->string);
    cr_assert_eq(c->runs, (size_t)jnum(jc, "runs"));
    const double got[] = {c->noise_floor,
                          c->max_observed_noise,
                          c->typical_noise,
                          c->mean_confidence,
                          c->median_confidence,
                          c->tie_rate,
                          c->false_signal_rate,
                          c->drift_rate,
                          c->median_drift_shift,
                          c->autocorrelation,
                          c->paired_noise_floor_pct,
                          c->false_regression_rate};
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
      cr_expect(reldiff(got[f], jnum(jc, fields[f])) <= 1e-12,
                "%s %s: %.17g, want %.17g", c->benchmark, fields[f], got[f],
                jnum(jc, fields[f]));
    cr_expect_eq(c->gate_resolves,
                 bs__json_member(jc, "gate_resolves")->boolean);
    const bs__jvalue *jd = bs__json_member(jc, "deltas");
    const bs__jvalue *jf = bs__json_member(jc, "confidences");
    const bs__jvalue *jp = bs__json_member(jc, "paired_deltas_pct");
    const bs__jvalue *je = bs__json_member(jc, "experiments");
    for (size_t k = 0; k < c->runs; k++) {
      const bs_noise_experiment *e = &c->experiments[k];
      const bs__jvalue *x = &je->items[k];
      cr_expect(reldiff(c->deltas[k], jd->items[k].number) <= 1e-12);
      cr_expect(reldiff(c->confidences[k], jf->items[k].number) <= 1e-12);
      cr_expect(reldiff(c->paired_deltas_pct[k], jp->items[k].number) <= 1e-12);
      cr_expect_eq(e->run, (uint64_t)jnum(x, "run"));
      /* count / R: exact. */
      cr_expect_eq(e->conf_ab, jnum(x, "conf_ab"), "%s run %llu", c->benchmark,
                   (unsigned long long)e->run);
      cr_expect_eq(e->conf_ba, jnum(x, "conf_ba"), "%s run %llu", c->benchmark,
                   (unsigned long long)e->run);
      cr_expect(reldiff(e->lag1_a, jnum(x, "lag1_a")) <= 1e-12);
      cr_expect(reldiff(e->lag1_b, jnum(x, "lag1_b")) <= 1e-12);
      expect_drift(&e->drift_a, e->has_drift_a, bs__json_member(x, "drift_a"),
                   "drift_a");
      expect_drift(&e->drift_b, e->has_drift_b, bs__json_member(x, "drift_b"),
                   "drift_b");
    }
  }
  bs__json_free(root);
}

/* The conf_ab / conf_ba pairs reference.py printed for small.csv at
 * R = 2000, seed 0 (runs 0, 1, 5 are k = 0, 1, 2: seeds 0/1, 2/3, 4/5):
 *   parse [(0, 0.874, 0.872), (1, 0.5965, 0.9825), (5, 0.4105, 0.8675)]
 *   sort  [(0, 0.448, 0.645), (1, 0.924, 0.1155), (5, 0.6495, 0.4555)] */
Test(noise, small_fixture_matches_the_python_reference) {
  bs_log *log = load("noise/small.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 2000;
  bs_noise_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(r->ncases, 2);
  const double want[2][3][2] = {
      {{0.874, 0.872}, {0.5965, 0.9825}, {0.4105, 0.8675}},
      {{0.448, 0.645}, {0.924, 0.1155}, {0.6495, 0.4555}}};
  const uint64_t runs[] = {0, 1, 5};
  for (int c = 0; c < 2; c++) {
    cr_assert_eq(r->cases[c].runs, 3);
    for (int k = 0; k < 3; k++) {
      const bs_noise_experiment *e = &r->cases[c].experiments[k];
      cr_expect_eq(e->run, runs[k]);
      cr_expect_eq(e->seed_ab, (uint64_t)(2 * k));
      cr_expect_eq(e->seed_ba, (uint64_t)(2 * k + 1));
      cr_expect_eq(e->conf_ab, want[c][k][0], "case %d run %d: %.17g", c, k,
                   e->conf_ab);
      cr_expect_eq(e->conf_ba, want[c][k][1], "case %d run %d: %.17g", c, k,
                   e->conf_ba);
      cr_expect_eq(e->confidence, (e->conf_ab + 1 - e->conf_ba) / 2);
      cr_expect_eq(e->tie, fmax(0, e->conf_ab + e->conf_ba - 1));
    }
  }
  cr_expect_str_eq(r->cases[0].benchmark, "parse");
  cr_expect_str_eq(r->cases[1].benchmark, "sort");
  expect_reference(r, "noise/small_ref_R2000_seed0.json");
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* Seed 2^64 - 1: run 0 uses 2^64 - 1 and 0 (mod 2^64, and 0 means the
 * golden constant); blocks of 2. reference.py printed:
 *   parse [(0, 0.9235, 0.7755), (1, 0.6765, 0.992), (5, 0.358, 0.9145)]
 *   sort  [(0, 0.5345, 0.538), (1, 0.923, 0.1135), (5, 0.5525, 0.6235)] */
Test(noise, seeds_wrap_modulo_2_64_and_blocks_match_the_reference) {
  bs_log *log = load("noise/small.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 2000;
  o.seed = UINT64_MAX;
  o.block_mode = BS_BLOCK_FIXED;
  o.block_length = 2;
  bs_noise_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, &err), BS_OK, "%s",
               err.message);
  const double want[2][3][2] = {
      {{0.9235, 0.7755}, {0.6765, 0.992}, {0.358, 0.9145}},
      {{0.5345, 0.538}, {0.923, 0.1135}, {0.5525, 0.6235}}};
  for (int c = 0; c < 2; c++) {
    for (int k = 0; k < 3; k++) {
      const bs_noise_experiment *e = &r->cases[c].experiments[k];
      cr_expect_eq(e->conf_ab, want[c][k][0]);
      cr_expect_eq(e->conf_ba, want[c][k][1]);
      cr_expect_eq(e->block_length_a, 2);
    }
  }
  cr_expect_eq(r->cases[0].experiments[0].seed_ab, UINT64_MAX);
  cr_expect_eq(r->cases[0].experiments[0].seed_ba, 0);
  cr_expect_eq(r->cases[0].experiments[1].seed_ab, 1);
  expect_reference(r, "noise/small_ref_R2000_seedmax_L2.json");
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* Drifting runs and false signals against chance, computed once by
 * bs_noise_run for the views to read: on examples/aa.csv (20 runs a case;
 * 2 and 5 drifting runs, 3 and 4 false signals) against what
 *   /usr/bin/python3 tests/data/noise/reference.py examples/aa.csv A B \
 *       --resamples 2000 --no-gate
 * printed (1 - 0.95^s and scipy's binom.sf; kept in
 * tests/data/noise/aa_ref_R2000_seed0_nogate.json). */
Test(noise, drift_and_false_signals_against_chance_match_the_reference) {
  bs_log *log = load("../../examples/aa.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 2000;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  bs__jvalue *root = load_json("noise/aa_ref_R2000_seed0_nogate.json");
  const bs__jvalue *cases = bs__json_member(root, "cases");
  cr_assert_gt(cases->n, 0, "the reference has no case");
  cr_assert_eq(r->ncases, cases->n);
  size_t drifting = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    const bs__jvalue *j = &cases->items[i];
    cr_expect_str_eq(c->benchmark, bs__json_member(j, "benchmark")->string);
    cr_expect_eq(c->drift_tested, bs__json_member(j, "drift_tested")->boolean);
    cr_expect_eq(c->drift_runs, (size_t)jnum(j, "drift_runs"));
    cr_expect_eq(c->false_signal_runs, (size_t)jnum(j, "false_signal_runs"));
    const char *names[] = {"drift_chance_rate", "drift_p",
                           "false_signal_expected", "false_signal_p"};
    const double got[] = {c->drift_chance_rate, c->drift_p,
                          c->false_signal_expected, c->false_signal_p};
    for (size_t f = 0; f < 4; f++)
      cr_expect(reldiff(got[f], jnum(j, names[f])) <= 1e-10,
                "%s %s: %.17g, want %.17g", c->benchmark, names[f], got[f],
                jnum(j, names[f]));
    drifting += c->drift_runs;
  }
  cr_expect_gt(drifting, 0, "no drifting run: the fixture tests nothing");
  bs__json_free(root);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* Runs of 3 blocks test no drift: chance gives no drifting run and the
 * tail of 0 runs is 1. */
Test(noise, untested_drift_has_no_chance) {
  bs_log *log = bs_log_new();
  const char text[] = "benchmark,impl,run,block,per_call_us\n"
                      "x,A,0,0,1\nx,B,0,0,1.1\nx,A,0,1,1.2\nx,B,0,1,1\n"
                      "x,A,0,2,1\nx,B,0,2,1\n"
                      "x,A,1,0,1\nx,B,1,0,1.1\nx,A,1,1,1.2\nx,B,1,1,1\n"
                      "x,A,1,2,1\nx,B,1,2,1\n";
  cr_assert_eq(
      bs_log_read_buffer(log, "short.csv", text, sizeof text - 1, NULL), BS_OK);
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 100;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  const bs_noise_case *c = &r->cases[0];
  cr_expect_eq(c->drift_tested, 0);
  cr_expect_eq(c->drift_runs, 0);
  cr_expect_eq(c->drift_chance_rate, 0.0);
  cr_expect_eq(c->drift_p, 1.0);
  EXPECT_REL(c->false_signal_expected, 0.1, 1e-12);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* The paired extension is the confirmatory gate itself, run per run: each
 * experiment's paired delta, 95 % interval (10000 resamples, the run's
 * seed) and regression flag against the values reference.py computed on
 * its own, printed by
 *   /usr/bin/python3 tests/data/noise/reference.py small.csv A B \
 *       --resamples 500 --seed 3
 * (kept in tests/data/noise/small_ref_R500_seed3.json). A fixture with no
 * case or no experiment fails. */
Test(noise, paired_extension_is_the_confirmatory_gate_per_run) {
  bs_log *log = load("noise/small.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 500;
  o.seed = 3;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  bs__jvalue *root = load_json("noise/small_ref_R500_seed3.json");
  const bs__jvalue *cases = bs__json_member(root, "cases");
  cr_assert_gt(cases->n, 0, "the reference has no case");
  cr_assert_eq(r->ncases, cases->n);
  size_t checked = 0;
  for (size_t c = 0; c < r->ncases; c++) {
    const bs__jvalue *jx = bs__json_member(&cases->items[c], "experiments");
    cr_assert_eq(r->cases[c].runs, jx->n);
    for (size_t k = 0; k < r->cases[c].runs; k++) {
      const bs_noise_experiment *e = &r->cases[c].experiments[k];
      const bs__jvalue *j = &jx->items[k];
      const char *b = r->cases[c].benchmark;
      cr_expect(reldiff(e->paired_delta_pct, jnum(j, "paired_delta_pct")) <=
                    1e-12,
                "%s run %zu delta %.17g, want %.17g", b, k, e->paired_delta_pct,
                jnum(j, "paired_delta_pct"));
      cr_expect(reldiff(e->ci_low_us, jnum(j, "ci_low_us")) <= 1e-12,
                "%s run %zu low %.17g, want %.17g", b, k, e->ci_low_us,
                jnum(j, "ci_low_us"));
      cr_expect(reldiff(e->ci_high_us, jnum(j, "ci_high_us")) <= 1e-12,
                "%s run %zu high %.17g, want %.17g", b, k, e->ci_high_us,
                jnum(j, "ci_high_us"));
      cr_expect_eq(e->significant_regression,
                   bs__json_member(j, "significant_regression")->boolean,
                   "%s run %zu", b, k);
      checked++;
    }
  }
  cr_assert_gt(checked, 0, "no experiment was checked");
  bs__json_free(root);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* The floor is the 0.90 quantile, not the maximum. */
Test(noise, noise_floor_is_the_90th_percentile_not_the_maximum) {
  bs_log *log = bs_log_new();
  /* Eleven runs; in run k, B is 1.0 and A is 1 - delta_k with |delta_k|
   * = 0.001 k, except run 10 with 0.05: max 0.05, Q(0.9) = 0.009. */
  char text[8192];
  size_t len = (size_t)snprintf(text, sizeof text,
                                "benchmark,impl,run,block,per_call_us\n");
  for (int k = 0; k <= 10; k++) {
    double d = k == 10 ? 0.05 : 0.001 * k;
    for (int j = 0; j < 4; j++)
      len += (size_t)snprintf(text + len, sizeof text - len,
                              "x,A,%d,%d,%.17g\nx,B,%d,%d,1\n", k, j, 1.0 - d,
                              k, j);
  }
  cr_assert_eq(bs_log_read_buffer(log, "floor.csv", text, len, NULL), BS_OK);
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 100;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  const bs_noise_case *c = &r->cases[0];
  EXPECT_REL(c->max_observed_noise, 0.05, 1e-12);
  /* sorted |delta| 0, .001, ..., .009, .05: h = 0.9 * 10 = 9 -> 0.009. */
  EXPECT_REL(c->noise_floor, 0.009, 1e-12);
  EXPECT_REL(c->typical_noise, 0.005, 1e-12);
  /* Paired: d = -delta_k, med(b) = 1, so Δ% = -100 delta_k. */
  EXPECT_REL(c->paired_noise_floor_pct, 0.9, 1e-12);
  cr_expect(c->gate_resolves);
  cr_expect_eq(c->false_regression_rate, 0.0);
  bs_noise_result_free(r);
  bs_log_free(log);
}

Test(noise, gate_does_not_resolve_when_the_paired_floor_reaches_3) {
  bs_log *log = bs_log_new();
  char text[4096];
  size_t len = (size_t)snprintf(text, sizeof text,
                                "benchmark,impl,run,block,per_call_us\n");
  /* A is 4 % slower in every run: paired floor 4 %, and the gate (which
   * sees a constant 4 % difference) flags every run. */
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 6; j++)
      len += (size_t)snprintf(text + len, sizeof text - len,
                              "x,A,%d,%d,1.04\nx,B,%d,%d,1\n", k, j, k, j);
  cr_assert_eq(bs_log_read_buffer(log, "slow.csv", text, len, NULL), BS_OK);
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 100;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  EXPECT_REL(r->cases[0].paired_noise_floor_pct, 4.0, 1e-12);
  cr_expect_eq(r->cases[0].gate_resolves, 0);
  cr_expect_eq(r->cases[0].false_regression_rate, 1.0);
  /* conf(A, B) counts med(A) <= med(B): never; so confidence 0, a false
   * signal in every run. */
  cr_expect_eq(r->cases[0].mean_confidence, 0.0);
  cr_expect_eq(r->cases[0].false_signal_rate, 1.0);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* --- determinism and the JSON ---------------------------------------- */

Test(noise, json_is_deterministic_and_has_every_field) {
  bs_log *log = load("noise/small.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 300;
  o.block_mode = BS_BLOCK_AUTO;
  bs_noise_result *r1 = NULL, *r2 = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r1, NULL), BS_OK);
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r2, NULL), BS_OK);
  char *j1, *j2;
  size_t n1, n2;
  cr_assert_eq(bs_json_noise(r1, NULL, &j1, &n1, NULL), BS_OK);
  cr_assert_eq(bs_json_noise(r2, NULL, &j2, &n2, NULL), BS_OK);
  cr_assert_eq(n1, n2);
  cr_expect_eq(memcmp(j1, j2, n1), 0);
  bs__jvalue *root = NULL;
  cr_assert_eq(bs__json_parse("noise.json", j1, n1, &root, NULL), BS_OK);
  cr_expect_str_eq(bs__json_member(root, "schema")->string,
                   "benchsite.noise/1");
  cr_expect_str_eq(bs__json_member(root, "block_length")->string, "auto");
  const char *top[] = {"a", "b", "resamples", "level", "seed", "cases"};
  for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
    cr_expect_not_null(bs__json_member(root, top[i]), "%s", top[i]);
  const char *per_case[] = {"benchmark",
                            "dataset",
                            "runs",
                            "noise_floor",
                            "max_observed_noise",
                            "typical_noise",
                            "mean_confidence",
                            "median_confidence",
                            "tie_rate",
                            "false_signal_rate",
                            "drift_rate",
                            "median_drift_shift",
                            "autocorrelation",
                            "deltas",
                            "confidences",
                            "paired_deltas_pct",
                            "paired_noise_floor_pct",
                            "false_regression_rate",
                            "gate_resolves"};
  const bs__jvalue *cases = bs__json_member(root, "cases");
  cr_assert_eq(cases->n, 2);
  for (size_t c = 0; c < cases->n; c++)
    for (size_t i = 0; i < sizeof per_case / sizeof per_case[0]; i++)
      cr_expect_not_null(bs__json_member(&cases->items[c], per_case[i]), "%s",
                         per_case[i]);
  cr_expect_eq(bs__json_member(&cases->items[0], "deltas")->n, 3);
  /* And it reads back as a floor table. */
  bs_noise_floors *f = NULL;
  cr_assert_eq(bs_noise_floors_parse("noise.json", j1, n1, &f, NULL), BS_OK);
  cr_expect_eq(bs_noise_floors_count(f), 2);
  double floor_pct = -1;
  cr_expect(bs_noise_floors_lookup(f, "sort", "n=64", &floor_pct));
  cr_expect_eq(floor_pct, r1->cases[1].paired_noise_floor_pct);
  cr_expect(!bs_noise_floors_lookup(f, "sort", "n=65", &floor_pct));
  bs_noise_floors_free(f);
  bs__json_free(root);
  free(j1);
  free(j2);
  bs_noise_result_free(r1);
  bs_noise_result_free(r2);
  bs_log_free(log);
}

Test(noise, renderers_escape_names_and_read_the_figures) {
  bs_log *log = bs_log_new();
  const char *text = "benchmark,impl,run,block,per_call_us\n"
                     "\"x|<b>@y\",A,0,0,1\n\"x|<b>@y\",B,0,0,1\n"
                     "\"x|<b>@y\",A,1,0,1\n\"x|<b>@y\",B,1,0,1\n";
  cr_assert_eq(bs_log_read_buffer(log, "t.csv", text, strlen(text), NULL),
               BS_OK);
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 10;
  bs_noise_result *r = NULL;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, NULL), BS_OK);
  char *md, *txt;
  size_t n;
  cr_assert_eq(bs_markdown_noise(r, &md, &n, NULL), BS_OK);
  cr_expect(strstr(md, "x\\|&lt;b&gt;\\@y") != NULL, "%s", md);
  cr_expect(strstr(md, "<b>") == NULL);
  cr_expect(strstr(md, "drift not tested") != NULL);
  cr_assert_eq(bs_text_noise(r, &txt, &n, NULL), BS_OK);
  cr_expect(strstr(txt, "noise floor") != NULL);
  cr_expect(strstr(txt, "reading:") != NULL);
  free(md);
  free(txt);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* --- input errors ----------------------------------------------------- */

static bs_status run_text(const char *text, bs_error *err) {
  bs_log *log = bs_log_new();
  cr_assert_eq(bs_log_read_buffer(log, "e.csv", text, strlen(text), NULL),
               BS_OK);
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 10;
  bs_noise_result *r = NULL;
  bs_error_clear(err);
  bs_status st = bs_noise_run(log, "A", "B", &o, &r, err);
  cr_expect_null(r);
  bs_noise_result_free(r);
  bs_log_free(log);
  return st;
}

Test(noise, one_run_is_an_input_error_naming_case_and_run) {
  bs_error err;
  cr_expect_eq(run_text("benchmark,dataset,impl,run,block,per_call_us\n"
                        "s,n=1,A,4,0,1\ns,n=1,B,4,0,1\n",
                        &err),
               BS_EINPUT);
  cr_expect(strstr(err.message, "s [n=1]") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "run 4") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "at least 2") != NULL, "%s", err.message);
}

Test(noise, run_without_b_is_an_input_error_naming_case_and_run) {
  bs_error err;
  cr_expect_eq(run_text("benchmark,impl,run,block,per_call_us\n"
                        "s,A,0,0,1\ns,B,0,0,1\ns,A,1,0,1\ns,C,1,0,1\n",
                        &err),
               BS_EINPUT);
  cr_expect(strstr(err.message, "case s, run 1") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "B \"B\"") != NULL, "%s", err.message);
  cr_expect_str_eq(err.path, "e.csv");
  cr_expect_eq(err.line, 4);
}

Test(noise, unpaired_blocks_are_mismatched_pairs) {
  bs_error err;
  cr_expect_eq(run_text("benchmark,impl,run,block,per_call_us\n"
                        "s,A,0,0,1\ns,B,0,0,1\ns,A,1,0,1\ns,B,1,0,1\n"
                        "s,A,1,1,1\n",
                        &err),
               BS_EMISMATCH);
  cr_expect(strstr(err.message, "run 1") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "e.csv:6") != NULL, "%s", err.message);
}

Test(noise, no_case_with_a_or_b_and_a_equal_b_are_usage_errors) {
  bs_error err;
  cr_expect_eq(run_text("benchmark,impl,block,per_call_us\ns,C,0,1\n", &err),
               BS_EUSAGE);
  bs_log *log = bs_log_new();
  bs_noise_options o;
  bs_noise_options_init(&o);
  bs_noise_result *r = NULL;
  cr_expect_eq(bs_noise_run(log, "A", "A", &o, &r, &err), BS_EUSAGE);
  bs_log_free(log);
}

Test(noise, level_is_a_fraction) {
  bs_noise_options o;
  bs_error err;
  bs_noise_options_init(&o);
  cr_expect_eq(bs_noise_options_check(&o, &err), BS_OK);
  o.level = 95;
  cr_expect_eq(bs_noise_options_check(&o, &err), BS_EUSAGE);
  cr_expect(strstr(err.message, "did you mean 0.95?") != NULL, "%s",
            err.message);
  const double bad[] = {0.5, 1.0, 0.2, -0.95, 100, NAN};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    o.level = bad[i];
    cr_expect_eq(bs_noise_options_check(&o, &err), BS_EUSAGE, "%g", bad[i]);
  }
  o.level = 0.9;
  o.resamples = 0;
  cr_expect_eq(bs_noise_options_check(&o, &err), BS_EUSAGE);
  o.resamples = 10;
  o.block_mode = BS_BLOCK_FIXED;
  o.block_length = 0;
  cr_expect_eq(bs_noise_options_check(&o, &err), BS_EUSAGE);
}

Test(noise, block_length_longer_than_a_run_is_an_input_error) {
  bs_log *log = load("noise/small.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 10;
  o.block_mode = BS_BLOCK_FIXED;
  o.block_length = 9; /* run 1 has 8 blocks */
  bs_noise_result *r = NULL;
  bs_error err;
  cr_expect_eq(bs_noise_run(log, "A", "B", &o, &r, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "run 1") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "block length 9") != NULL, "%s", err.message);
  bs_log_free(log);
}

/* --- the strict JSON reader ------------------------------------------- */

Test(jsonread, accepts_rfc8259_and_decodes_escapes) {
  const char *t = " {\"a\": [1, -0.5, 2e3, true, false, null],\n"
                  "  \"s\": \"\\u00e9\\ud83d\\ude00\\n\\\"\", \"e\": {}} ";
  bs__jvalue *v = NULL;
  bs_error err;
  cr_assert_eq(bs__json_parse("t", t, strlen(t), &v, &err), BS_OK, "%s",
               err.message);
  const bs__jvalue *a = bs__json_member(v, "a");
  cr_assert_eq(a->n, 6);
  cr_expect_eq(a->items[1].number, -0.5);
  cr_expect_eq(a->items[2].number, 2000);
  cr_expect_eq(a->items[3].boolean, 1);
  cr_expect_eq(a->items[5].type, BS__JNULL);
  cr_expect_str_eq(bs__json_member(v, "s")->string,
                   "\xc3\xa9\xf0\x9f\x98\x80\n\"");
  cr_expect_eq(bs__json_member(v, "s")->line, 2);
  bs__json_free(v);
}

Test(jsonread, rejects_everything_that_is_not_strict_json) {
  const char *bad[] = {
      "",
      "{\"a\": 1,}",
      "[1, 2,]",
      "{\"a\": 01}",
      "{\"a\": .5}",
      "{\"a\": 1.}",
      "{\"a\": NaN}",
      "{\"a\": Infinity}",
      "{\"a\": 1e999}",
      "{\"a\": \"\\x\"}",
      "{\"a\": \"\\ud800\"}",
      "{\"a\": \"\\udc00\"}",
      "{\"a\": \"\\u0000\"}",
      "{\"a\": \"tab\there\"}",
      "{\"a\": \"\xff\"}",
      "{\"a\": \"\xc0\xaf\"}",
      "{\"a\": \"\xed\xa0\x80\"}",
      "{\"a\": 1, \"a\": 2}",
      "{\"a\": 1} x",
      "{a: 1}",
      "{'a': 1}",
      "[1 2]",
      "// c\n{}",
      "\xef\xbb\xbf{}",
      "tru",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bs__jvalue *v = NULL;
    bs_error err;
    bs_error_clear(&err);
    cr_expect_eq(bs__json_parse("bad.json", bad[i], strlen(bad[i]), &v, &err),
                 BS_EINPUT, "accepted case %zu: %s", i, bad[i]);
    cr_expect_null(v);
    cr_expect_str_eq(err.path, "bad.json");
  }
}

Test(jsonread, depth_is_limited) {
  char deep[400];
  for (int i = 0; i < 200; i++)
    deep[i] = '[';
  for (int i = 0; i < 200; i++)
    deep[200 + i] = ']';
  bs__jvalue *v = NULL;
  bs_error err;
  cr_expect_eq(bs__json_parse("deep", deep, sizeof deep, &v, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "nested too deeply") != NULL);
}

Test(jsonread, errors_name_line_and_column) {
  const char *t = "{\n  \"a\": [1,\n   2,]\n}";
  bs__jvalue *v = NULL;
  bs_error err;
  cr_assert_eq(bs__json_parse("f.json", t, strlen(t), &v, &err), BS_EINPUT);
  cr_expect_eq(err.line, 3);
  cr_expect(strstr(err.message, "column 6") != NULL, "%s", err.message);
  cr_expect(strstr(err.message, "trailing comma") != NULL, "%s", err.message);
}

Test(noise, floors_reject_files_that_are_not_noise_output) {
  const char *bad[] = {
      "{\"schema\": \"benchsite.compare/1\", \"cases\": []}",
      "{\"schema\": \"benchsite.noise/1\"}",
      "{\"schema\": \"benchsite.noise/1\", \"cases\": [{\"benchmark\": "
      "\"x\", \"dataset\": \"\"}]}",
      "{\"schema\": \"benchsite.noise/1\", \"cases\": [{\"benchmark\": "
      "\"x\", \"dataset\": \"\", \"paired_noise_floor_pct\": -1}]}",
      "{\"schema\": \"benchsite.noise/1\", \"cases\": [{\"benchmark\": "
      "\"x\", \"dataset\": \"\", \"paired_noise_floor_pct\": 1}, "
      "{\"benchmark\": \"x\", \"dataset\": \"\", "
      "\"paired_noise_floor_pct\": 2}]}",
      "[]",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bs_noise_floors *f = NULL;
    bs_error err;
    cr_expect_eq(
        bs_noise_floors_parse("n.json", bad[i], strlen(bad[i]), &f, &err),
        BS_EINPUT, "case %zu", i);
    cr_expect_null(f);
  }
}

/* compare uses the floor: |Δ%| at or below it is within noise. */
Test(noise, compare_marks_cases_within_the_paired_floor) {
  const char *json = "{\"schema\": \"benchsite.noise/1\", \"cases\": ["
                     "{\"benchmark\": \"a\", \"dataset\": \"\", "
                     "\"paired_deltas_pct\": [1.0, -1.0], "
                     "\"paired_noise_floor_pct\": 1.0},"
                     "{\"benchmark\": \"b\", \"dataset\": \"\", "
                     "\"paired_deltas_pct\": [1.0, 1.0], "
                     "\"paired_noise_floor_pct\": 1.0}]}";
  bs_noise_floors *f = NULL;
  cr_assert_eq(bs_noise_floors_parse("n.json", json, strlen(json), &f, NULL),
               BS_OK);
  bs_log *log = bs_log_new();
  const char *text = "benchmark,impl,block,per_call_us\n"
                     "a,main,0,10\na,pr,0,10.1\na,main,1,10\na,pr,1,10.1\n"
                     "b,main,0,10\na,pr,2,10.1\na,main,2,10\nb,pr,0,10.5\n"
                     "c,main,0,10\nc,pr,0,10\n";
  cr_assert_eq(bs_log_read_buffer(log, "c.csv", text, strlen(text), NULL),
               BS_OK);
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_compare_result *r = NULL;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, NULL), BS_OK);
  bs_compare_apply_noise(r, bs_noise_floors_lookup, f);
  cr_assert_eq(r->ncases, 3);
  /* a: Δ% = 1.0 exactly at the floor -> within; b: 5 % -> not. */
  cr_expect(r->cases[0].has_noise_floor);
  cr_expect(r->cases[0].within_noise, "a: %.17g", r->cases[0].delta_pct);
  cr_expect(r->cases[1].has_noise_floor);
  cr_expect(!r->cases[1].within_noise);
  cr_expect(!r->cases[2].has_noise_floor);
  bs_compare_result_free(r);
  bs_log_free(log);
  bs_noise_floors_free(f);
}
