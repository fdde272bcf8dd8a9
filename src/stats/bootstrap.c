#include "benchsite/bootstrap.h"

#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "oom.h"
#include "orderstat.h"
#include "resample_int.h"

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

/* k-th smallest (0-based) of t[0..n-1], partially reordering t. */
static double select_kth(double *t, size_t n, size_t k) {
  size_t lo = 0, hi = n - 1;
  while (lo < hi) {
    double pivot = t[lo + (hi - lo) / 2];
    size_t i = lo, j = hi;
    while (i <= j) {
      /* The pivot's value stops both scans inside [lo, hi]; the bounds
       * only say so to the static analyser. */
      while (i < hi && t[i] < pivot)
        i++;
      while (j > lo && t[j] > pivot)
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
  size_t lo, hi;
  double frac = bs__type7(f, n, &lo, &hi);
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
  return a + frac * (b - a);
}

/* Most counters of the rank-pair histogram of theta* (binned_window). */
#define HIST_MAX_BINS 65536

/* A distinct resample median and how often it occurred. */
typedef struct bin {
  double v;
  uint32_t n;
} bin;

static int cmp_bin(const void *a, const void *b) {
  double x = ((const bin *)a)->v, y = ((const bin *)b)->v;
  return (x > y) - (x < y);
}

/* The k-th smallest (0-based) theta* from bins sorted by value. */
static double bin_order_stat(const bin *bins, size_t nb, size_t k) {
  size_t cum = 0;
  for (size_t i = 0; i < nb; i++) {
    cum += bins[i].n;
    if (k < cum)
      return bins[i].v;
  }
  return bins[nb - 1].v;
}

/* Type-7 quantile over the binned theta*, the same expression as
 * bs_quantile_sorted applied to the expanded sorted array. */
static double bin_quantile(const bin *bins, size_t nb, size_t R, double f) {
  size_t lo, hi;
  double frac = bs__type7(f, R, &lo, &hi);
  double a = bin_order_stat(bins, nb, lo);
  double b = bin_order_stat(bins, nb, hi);
  return a + frac * (b - a);
}

static bs_status median_ci(const double *x, size_t m, uint64_t resamples,
                           double level_pct, uint64_t seed,
                           bs_resample_engine want, bs_resample_engine *used,
                           double *low, double *high, double *thetas,
                           uint64_t *nonpositive, bs_error *err);

bs_status bs_bootstrap_median_ci(const double *x, size_t m, uint64_t resamples,
                                 double level_pct, uint64_t seed, double *low,
                                 double *high, double *thetas, bs_error *err) {
  return median_ci(x, m, resamples, level_pct, seed, BS_RESAMPLE_ENGINE_AUTO,
                   NULL, low, high, thetas, NULL, err);
}

bs_status bs_bootstrap_median_ci_count(const double *x, size_t m,
                                       uint64_t resamples, double level_pct,
                                       uint64_t seed, double *low, double *high,
                                       double *thetas, uint64_t *nonpositive,
                                       bs_error *err) {
  return median_ci(x, m, resamples, level_pct, seed, BS_RESAMPLE_ENGINE_AUTO,
                   NULL, low, high, thetas, nonpositive, err);
}

bs_status bs__bootstrap_median_ci_engine(const double *x, size_t m,
                                         uint64_t resamples, double level_pct,
                                         uint64_t seed, bs_resample_engine want,
                                         bs_resample_engine *used, double *low,
                                         double *high, double *thetas,
                                         bs_error *err) {
  return median_ci(x, m, resamples, level_pct, seed, want, used, low, high,
                   thetas, NULL, err);
}

/* The interval from theta* kept as bins of distinct values, in the order
 * of their rank pairs (lo, hi): sorted by value, the two type-7 quantiles,
 * and when asked all R theta* in order. */
static void bins_ci(bin *bins, size_t nb, size_t R, double alpha, double *low,
                    double *high, double *thetas) {
  /* bins[0..nb-1] are set by both callers, nb >= 1 (R > 0 draws land in
   * some bin); cppcheck follows the arrays, not the counts. */
  // cppcheck-suppress uninitvar
  qsort(bins, nb, sizeof *bins, cmp_bin);
  *low = bin_quantile(bins, nb, R, alpha);
  *high = bin_quantile(bins, nb, R, 1.0 - alpha);
  if (thetas) {
    size_t k = 0;
    for (size_t i = 0; i < nb; i++)
      for (uint32_t c = 0; c < bins[i].n; c++)
        thetas[k++] = bins[i].v;
  }
}

/* Whether the rank pairs of theta* are kept as a histogram over their
 * window (rank lo in lmin .. lmax, hi - lo up to dmax): a wider window, or
 * one of more than 64 counters a resample (clearing and scanning them
 * would cost more than a selection), keeps theta* as R doubles. */
static int binned_window(uint32_t lmin, uint32_t lmax, uint32_t dmax,
                         size_t R) {
  size_t wl = (size_t)(lmax - lmin) + 1, wd = (size_t)dmax + 1;
  return wl <= HIST_MAX_BINS / wd && wl * wd <= 64 * R;
}

/* The small-sample path (src/stats/resample.c; at most 24 values): the rank
 * pairs of the R medians only counted, in an m x m histogram on the stack,
 * never stored one by one, and the bins read off it. This is exact: a
 * resample's median is s[a] + frac (s[b] - s[a]) for its rank pair (a, b),
 * a <= b < m (b >= a as hi's position is lo's or the next), computed by
 * bs__series_median from the pair alone, so theta* takes at most
 * m (m + 1) / 2 distinct values, and the pair counts fix the multiset of
 * theta*, which is all the interval, the sorted theta* and the count of
 * theta* <= 0 depend on, whatever order the resamples came in. The bins
 * are even those the general path below builds from the same pairs, in
 * the same order: its window histogram holds the same counts, and walking
 * it by (rank lo, hi - lo) visits the nonzero pairs in the order of
 * (rank lo, rank hi), as this walk over the whole m x m does; so the same
 * qsort gives the same bytes. *done stays 0 when this path does not apply,
 * or when the general path would keep theta* as doubles (R < 9 here),
 * which it then does. Allocates nothing. */
#define SMALL_PAIRS 24
static void small_ci(const bs__series *s, bs_resample_engine engine,
                     uint64_t state, size_t R, double alpha, double *low,
                     double *high, double *thetas, uint64_t *np, int *done) {
  size_t m = s->n;
  *done = 0;
  if (m > SMALL_PAIRS || R > UINT32_MAX || !bs__resample_small(s, engine))
    return;
  uint32_t pairs[SMALL_PAIRS * SMALL_PAIRS];
  memset(pairs, 0, m * m * sizeof *pairs);
  if (bs__resample_pair_hist(s, engine, state, R, pairs))
    return; /* not on the small path after all: the general one */
  uint32_t lmin = UINT32_MAX, lmax = 0, dmax = 0;
  for (uint32_t a = 0; a < m; a++) {
    for (uint32_t b = a; b < m; b++) {
      if (pairs[a * m + b]) {
        lmin = a < lmin ? a : lmin;
        lmax = a;
        dmax = b - a > dmax ? b - a : dmax;
      }
    }
  }
  if (!binned_window(lmin, lmax, dmax, R))
    return;
  bin bins[SMALL_PAIRS * (SMALL_PAIRS + 1) / 2];
  size_t nb = 0;
  *np = 0;
  for (uint32_t a = 0; a < m; a++) {
    for (uint32_t b = a; b < m; b++) {
      uint32_t n = pairs[a * m + b];
      if (!n)
        continue;
      bins[nb].v = bs__series_median(s, a, b);
      bins[nb].n = n;
      if (bins[nb].v <= 0)
        *np += n;
      nb++;
    }
  }
  bins_ci(bins, nb, R, alpha, low, high, thetas);
  *done = 1;
}

static bs_status median_ci(const double *x, size_t m, uint64_t resamples,
                           double level_pct, uint64_t seed,
                           bs_resample_engine want, bs_resample_engine *used,
                           double *low, double *high, double *thetas,
                           uint64_t *nonpositive, bs_error *err) {
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
  if (m > UINT32_MAX / BS__CHAINS)
    return bs_error_set(err, BS_ELIMIT, NULL, 0, "too many samples");

  size_t R = (size_t)resamples;
  bs__series s;
  uint32_t *jl = NULL, *jh = NULL, *hist = NULL;
  bin *bins = NULL;
  double *t = NULL;
  if (bs__series_init(&s, x, m, 0))
    return bs__oom(err);
  bs_resample_engine engine = bs__resample_engine(m, want);
  if (used)
    *used = engine;
  bs_rng rng;
  bs_rng_seed(&rng, seed);
  double alpha = (100.0 - level_pct) / 200.0;
  /* #{r : theta*_r <= 0}, for the one-sided bootstrap p-value. */
  uint64_t np = 0;
  int done;
  small_ci(&s, engine, rng.s, R, alpha, low, high, thetas, &np, &done);
  if (done)
    goto ok;

  /* The rank pairs of all R medians, resample r at r. */
  if (!(jl = malloc(R * sizeof *jl)) || !(jh = malloc(R * sizeof *jh)) ||
      bs__resample_medians(&s, engine, rng.s, R, 0, jl, jh)) {
    st = bs__oom(err);
    goto fail;
  }

  /* A resample median is fixed by the pair of ranks it averages, and the
   * pairs lie in a narrow window around the middle ranks, so theta* is
   * kept as a histogram over (rank lo, rank hi - rank lo) in that window:
   * the interval needs two order statistics of a few hundred distinct
   * values, not a sort or a selection over R doubles. */
  uint32_t lmin = UINT32_MAX, lmax = 0, dmax = 0;
  for (size_t r = 0; r < R; r++) {
    lmin = jl[r] < lmin ? jl[r] : lmin;
    lmax = jl[r] > lmax ? jl[r] : lmax;
    dmax = jh[r] - jl[r] > dmax ? jh[r] - jl[r] : dmax;
  }
  size_t wl = (size_t)(lmax - lmin) + 1, wd = (size_t)dmax + 1;
  int binned = binned_window(lmin, lmax, dmax, R);
  if ((binned &&
       (!(hist = calloc(wl * wd, sizeof *hist)) ||
        !(bins = malloc((wl * wd < R ? wl * wd : R) * sizeof *bins)))) ||
      (!binned && !(t = thetas ? thetas : malloc(R * sizeof *t)))) {
    st = bs__oom(err);
    goto fail;
  }
  for (size_t r = 0; r < R; r++) {
    if (binned)
      hist[(jl[r] - lmin) * wd + (jh[r] - jl[r])]++;
    else
      t[r] = bs__series_median(&s, jl[r], jh[r]);
  }

  if (binned) {
    /* In the order of (rank lo, rank hi), as over the whole m x m. */
    size_t nb = 0;
    for (size_t a = 0; a < wl; a++) {
      for (size_t b = 0; b < wd; b++) {
        uint32_t n = hist[a * wd + b];
        if (!n)
          continue;
        bins[nb].v = bs__series_median(&s, (uint32_t)(lmin + a),
                                       (uint32_t)(lmin + a + b));
        bins[nb].n = n;
        if (bins[nb].v <= 0)
          np += n;
        nb++;
      }
    }
    bins_ci(bins, nb, R, alpha, low, high, thetas);
  } else {
    for (size_t r = 0; r < R; r++)
      np += t[r] <= 0;
    if (thetas) {
      bs_sort_doubles(t, R);
      *low = bs_quantile_sorted(t, R, alpha);
      *high = bs_quantile_sorted(t, R, 1.0 - alpha);
    } else {
      *low = select_quantile(t, R, alpha);
      *high = select_quantile(t, R, 1.0 - alpha);
    }
  }
ok:
  if (nonpositive)
    *nonpositive = np;
  st = BS_OK;
fail:
  bs__series_release(&s);
  free(jl);
  free(jh);
  free(hist);
  free(bins);
  if (t != thetas)
    free(t);
  return st;
}
