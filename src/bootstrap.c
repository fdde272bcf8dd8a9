#include "benchsite/bootstrap.h"

#include "benchsite/quantile.h"
#include "benchsite/rng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bs_status bs_bootstrap_check_level(double level_pct, bs_error *err) {
  if (!isfinite(level_pct))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "confidence level must be a number between 50 and "
                        "100 (percent)");
  if (level_pct <= 1.0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "confidence level is a percentage; did you mean 95?");
  if (!(level_pct > 50.0 && level_pct < 100.0))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "confidence level %g is outside (50, 100) percent",
                        level_pct);
  return BS_OK;
}

/* Remainder by an invariant divisor without a hardware divide (Lemire,
 * Kaser & Kurz, "Faster remainder by direct computation", 2019): with
 * M = ceil(2^128 / d), a % d is the high word of (M*a mod 2^128) * d. Exact
 * for every 64-bit a and d, so draws stay identical to `draw() % m`. */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 u128;
typedef struct fastmod {
  u128 M;
  uint64_t d;
} fastmod;

static fastmod fastmod_init(uint64_t d) {
  fastmod f;
  f.d = d;
  f.M = ((u128)-1) / d + 1;
  return f;
}

static inline uint64_t fastmod_apply(const fastmod *f, uint64_t a) {
  u128 low = f->M * a;
  u128 bottom = ((low & UINT64_MAX) * f->d) >> 64;
  u128 top = (low >> 64) * f->d;
  return (uint64_t)((bottom + top) >> 64);
}
#else
typedef struct fastmod {
  uint64_t d;
} fastmod;
static fastmod fastmod_init(uint64_t d) {
  fastmod f = {d};
  return f;
}
static inline uint64_t fastmod_apply(const fastmod *f, uint64_t a) {
  return a % f->d;
}
#endif

typedef struct ranked {
  double v;
  size_t i;
} ranked;

static int cmp_ranked(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->v < y->v)
    return -1;
  if (x->v > y->v)
    return 1;
  return (x->i > y->i) - (x->i < y->i);
}

/* k-th smallest (0-based) of t[0..n-1], partially reordering t. */
static double select_kth(double *t, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = t[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      while (t[i] < pivot)
        i++;
      while (t[j] > pivot)
        j--;
      if (i <= j) {
        double tmp = t[i];
        t[i] = t[j];
        t[j] = tmp;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return t[k];
  }
  return t[k];
}

/* Type-7 quantile of t without sorting it all: the two order statistics
 * either side of h, by selection. Same expression as bs_quantile_sorted. */
static double select_quantile(double *t, size_t n, double f) {
  double h = f * (double)(n - 1);
  double fl = floor(h);
  size_t lo = (size_t)fl;
  size_t hi = (size_t)ceil(h);
  if (hi >= n)
    hi = n - 1;
  double a = select_kth(t, n, lo);
  double b = a;
  if (hi != lo) {
    /* After selection everything right of lo is >= t[lo]. */
    b = t[hi];
    for (size_t i = lo + 1; i < n; i++) {
      if (t[i] < b)
        b = t[i];
    }
  }
  return a + (h - fl) * (b - a);
}

bs_status bs_bootstrap_median_ci(const double *x, size_t m, uint64_t resamples,
                                 double level_pct, uint64_t seed, double *low,
                                 double *high, double *thetas, bs_error *err) {
  bs_status st = bs_bootstrap_check_level(level_pct, err);
  if (st)
    return st;
  if (m == 0)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "cannot bootstrap an empty sample");
  if (resamples == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (resamples > (uint64_t)SIZE_MAX / sizeof(double))
    return bs_error_set(err, BS_ELIMIT, NULL, 0, "too many resamples");

  size_t R = (size_t)resamples;
  ranked *order = malloc(m * sizeof *order);
  double *sorted = malloc(m * sizeof *sorted);
  size_t *rank = malloc(m * sizeof *rank);
  uint32_t *counts = calloc(m, sizeof *counts);
  double *t = thetas ? thetas : malloc(R * sizeof *t);
  if (!order || !sorted || !rank || !counts || !t) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto fail;
  }

  /* Sort d once and resample counts over ranks: the median of a resample
   * is then found by walking the counts instead of sorting it. The order
   * statistics found are the same values a sort would put at those
   * positions, so theta* is bit-identical to the sort-based definition. */
  for (size_t i = 0; i < m; i++) {
    order[i].v = x[i];
    order[i].i = i;
  }
  qsort(order, m, sizeof *order, cmp_ranked);
  for (size_t r = 0; r < m; r++) {
    sorted[r] = order[r].v;
    rank[order[r].i] = r;
  }

  double h = 0.5 * (double)(m - 1);
  double fl = floor(h);
  double frac = h - fl;
  size_t lo = (size_t)fl;
  size_t hi = (size_t)ceil(h);
  fastmod fm = fastmod_init((uint64_t)m);
  bs_rng rng;
  bs_rng_seed(&rng, seed);

  for (size_t r = 0; r < R; r++) {
    memset(counts, 0, m * sizeof *counts);
    for (size_t k = 0; k < m; k++)
      counts[rank[fastmod_apply(&fm, bs_rng_next(&rng))]]++;
    size_t cum = 0, j = 0;
    while (cum + counts[j] <= lo)
      cum += counts[j++];
    size_t jlo = j;
    while (cum + counts[j] <= hi)
      cum += counts[j++];
    double a = sorted[jlo], b = sorted[j];
    t[r] = a + frac * (b - a);
  }

  double alpha = (100.0 - level_pct) / 200.0;
  if (thetas) {
    bs_sort_doubles(t, R);
    *low = bs_quantile_sorted(t, R, alpha);
    *high = bs_quantile_sorted(t, R, 1.0 - alpha);
  } else {
    *low = select_quantile(t, R, alpha);
    *high = select_quantile(t, R, 1.0 - alpha);
  }
  st = BS_OK;
fail:
  free(order);
  free(sorted);
  free(rank);
  free(counts);
  if (t != thetas)
    free(t);
  return st;
}
