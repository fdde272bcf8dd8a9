#include "benchsite/quantile.h"

#include "msort.h"

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

static int double_less(const double *x, const double *y) { return *x < *y; }

/* Sorts a[0..n-1] ascending with tmp[0..n/2] as scratch. */
BS__MERGE_SORT(static, merge_sort, double, double_less)

void bs_sort_doubles(double *x, size_t n) {
  if (n <= 1)
    return;
  /* Doubles that compare equal have the same bits, except 0 and -0 (and
   * a NaN compares with nothing), so without those every correct sort
   * gives one and the same array: qsort's, with no call per comparison
   * (the medians of `compare` and `archive add` spent a tenth of their
   * time in qsort's callback). With a zero or a NaN, qsort as always. */
  int plain = 1;
  for (size_t i = 0; i < n; i++)
    plain &= x[i] == x[i] && x[i] != 0;
  double *tmp = plain ? malloc((n / 2 + 1) * sizeof *tmp) : NULL;
  if (!tmp) {
    qsort(x, n, sizeof *x, cmp_double);
    return;
  }
  merge_sort(x, tmp, n);
  free(tmp);
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

/* Tukey's fences of sorted s[0..n-1] (n > 0). */
static void fences_sorted(const double *s, size_t n, double *lo, double *hi) {
  double q1 = bs_quantile_sorted(s, n, 0.25);
  double q3 = bs_quantile_sorted(s, n, 0.75);
  double iqr = q3 - q1;
  *lo = q1 - 1.5 * iqr;
  *hi = q3 + 1.5 * iqr;
}

bs_status bs_tukey_fences(const double *x, size_t n, double *lo, double *hi) {
  *lo = -HUGE_VAL;
  *hi = INFINITY;
  if (n == 0)
    return BS_OK;
  double *s = malloc(n * sizeof *s);
  if (!s)
    return BS_ENOMEM;
  memcpy(s, x, n * sizeof *s);
  bs_sort_doubles(s, n);
  fences_sorted(s, n, lo, hi);
  free(s);
  return BS_OK;
}

size_t bs_tukey_outliers(const double *x, size_t n) {
  if (n < 4)
    return 0;
  double *s = malloc(n * sizeof *s);
  if (!s)
    return 0;
  memcpy(s, x, n * sizeof *s);
  bs_sort_doubles(s, n);
  double lo, hi;
  fences_sorted(s, n, &lo, &hi);
  size_t count = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < lo || s[i] > hi)
      count++;
  }
  free(s);
  return count;
}
