#include "benchsite/quantile.h"

#include "orderstat.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double bs_quantile_sorted(const double *s, size_t n, double f) {
  if (n == 0)
    return NAN;
  if (!(f > 0.0))
    f = 0.0;
  if (f > 1.0)
    f = 1.0;
  /* Hyndman & Fan (1996) type 7: linear between the order statistics
   * either side of h = f(N-1); the bootstrap reproduces it bit for bit. */
  size_t lo, hi;
  double frac = bs__type7(f, n, &lo, &hi);
  return s[lo] + frac * (s[hi] - s[lo]);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bs_sort_doubles(double *x, size_t n) {
  if (n > 1)
    qsort(x, n, sizeof *x, cmp_double);
}

double bs_quantile(const double *x, size_t n, double f) {
  if (n == 0)
    return NAN;
  double *s = malloc(n * sizeof *s);
  if (!s)
    return NAN;
  memcpy(s, x, n * sizeof *s);
  bs_sort_doubles(s, n);
  double q = bs_quantile_sorted(s, n, f);
  free(s);
  return q;
}

double bs_median(const double *x, size_t n) { return bs_quantile(x, n, 0.5); }

size_t bs_tukey_outliers(const double *x, size_t n) {
  if (n < 4)
    return 0;
  double *s = malloc(n * sizeof *s);
  if (!s)
    return 0;
  memcpy(s, x, n * sizeof *s);
  bs_sort_doubles(s, n);
  double q1 = bs_quantile_sorted(s, n, 0.25);
  double q3 = bs_quantile_sorted(s, n, 0.75);
  double iqr = q3 - q1;
  double lo = q1 - 1.5 * iqr, hi = q3 + 1.5 * iqr;
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < lo || s[i] > hi)
      count++;
  }
  free(s);
  return count;
}
