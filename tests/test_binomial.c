/* Binomial tails and Clopper-Pearson bounds (src/stats/binomial.c) against
 * scipy's binom.sf and beta.ppf (tests/data/binomial/make_fixtures.py
 * wrote tests/data/binomial/fixtures.txt; every line of it is checked). */
#include <criterion/criterion.h>

#include "binomial.h"
#include "support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "binomial/fixtures.txt"

static double reldiff(double a, double b) {
  double m = fmax(fabs(a), fabs(b));
  return m == 0 ? 0 : fabs(a - b) / m;
}

/* Calls check(kind, values, count) for every fixture line of `kind`;
 * returns how many lines there were. */
static int each_line(const char *kind, void (*check)(const double *v, int nv)) {
  char *path = ts_data(FIXTURES);
  char *text = ts_read(path, NULL);
  free(path);
  cr_assert_not_null(text);
  size_t klen = strlen(kind);
  int lines = 0;
  for (char *line = text; line && *line;) {
    char *next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    if (!strncmp(line, kind, klen) && line[klen] == ' ') {
      double v[8];
      int nv = 0;
      char *p = line + klen, *end;
      while (nv < 8 && (v[nv] = strtod(p, &end), end != p)) {
        nv++;
        p = end;
      }
      check(v, nv);
      lines++;
    }
    line = next;
  }
  free(text);
  return lines;
}

static void check_tail(const double *v, int nv) {
  cr_assert_eq(nv, 4);
  size_t n = (size_t)v[0], k = (size_t)v[1];
  double got = bs__binomial_tail(n, k, v[2]);
  cr_expect_leq(reldiff(got, v[3]), 1e-10,
                "P(X >= %zu), n %zu, p %g: %.17g, scipy %.17g", k, n, v[2], got,
                v[3]);
}

Test(binomial, tail_matches_scipy_binom_sf) {
  cr_expect_geq(each_line("tail", check_tail), 10);
}

static void check_upper(const double *v, int nv) {
  cr_assert_eq(nv, 4);
  size_t k = (size_t)v[0], n = (size_t)v[1];
  double got = bs__clopper_pearson_upper(k, n, v[2]);
  cr_expect_leq(reldiff(got, v[3]), 1e-11,
                "upper bound of %zu of %zu at %g: %.17g, scipy %.17g", k, n,
                v[2], got, v[3]);
}

static void check_lower(const double *v, int nv) {
  cr_assert_eq(nv, 4);
  size_t k = (size_t)v[0], n = (size_t)v[1];
  double got = bs__clopper_pearson_lower(k, n, v[2]);
  cr_expect_leq(reldiff(got, v[3]), 1e-11,
                "lower bound of %zu of %zu at %g: %.17g, scipy %.17g", k, n,
                v[2], got, v[3]);
}

Test(binomial, clopper_pearson_upper_matches_scipy_beta_ppf) {
  cr_expect_geq(each_line("upper", check_upper), 40);
}

Test(binomial, clopper_pearson_lower_matches_scipy_beta_ppf) {
  cr_expect_geq(each_line("lower", check_lower), 40);
}

/* By hand: Binomial(2, 1/2) gives P(X >= 1) = 3/4 and P(X >= 2) = 1/4; k
 * of n = 0 of n has the upper bound 1 - (1 - conf)^(1/n), n of n the lower
 * bound (1 - conf)^(1/n). */
Test(binomial, edges_by_hand) {
  cr_expect_eq(bs__binomial_tail(2, 1, 0.5), 0.75);
  cr_expect_eq(bs__binomial_tail(2, 2, 0.5), 0.25);
  cr_expect_eq(bs__binomial_tail(5, 0, 0.0), 1.0);
  cr_expect_eq(bs__binomial_tail(5, 1, 0.0), 0.0);
  cr_expect_eq(bs__binomial_tail(5, 1, 1.0), 1.0);
  cr_expect_eq(bs__binomial_tail(5, 6, 0.5), 0.0);
  cr_expect_leq(
      reldiff(bs__clopper_pearson_upper(0, 10, 0.95), 1.0 - pow(0.05, 0.1)),
      1e-12);
  cr_expect_leq(
      reldiff(bs__clopper_pearson_lower(10, 10, 0.95), pow(0.05, 0.1)), 1e-12);
  cr_expect_eq(bs__clopper_pearson_upper(10, 10, 0.95), 1.0);
  cr_expect_eq(bs__clopper_pearson_lower(0, 10, 0.95), 0.0);
  cr_expect_eq(bs__clopper_pearson_upper(0, 0, 0.95), 1.0);
  cr_expect(isnan(bs__clopper_pearson_upper(11, 10, 0.95)));
  cr_expect(isnan(bs__clopper_pearson_lower(11, 10, 0.95)));
  cr_expect(isnan(bs__clopper_pearson_upper(1, 10, 1.0)));
  cr_expect(isnan(bs__clopper_pearson_lower(1, 10, 0.0)));
}

/* The bounds bracket the observed rate, and the tail at each bound is
 * the confidence's complement (the defining equations). */
Test(binomial, bounds_solve_their_equations) {
  for (size_t n = 1; n <= 60; n += 7)
    for (size_t k = 0; k <= n; k++) {
      double up = bs__clopper_pearson_upper(k, n, 0.95);
      double lo = bs__clopper_pearson_lower(k, n, 0.95);
      double rate = (double)k / (double)n;
      cr_expect(lo <= rate && rate <= up, "%zu of %zu: [%g, %g]", k, n, lo, up);
      if (k < n)
        cr_expect_leq(fabs(1.0 - bs__binomial_tail(n, k + 1, up) - 0.05),
                      1e-12);
      if (k > 0)
        cr_expect_leq(fabs(bs__binomial_tail(n, k, lo) - 0.05), 1e-12);
    }
}
