#include "benchsite/bootstrap.h"

#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "fastdiv.h"

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

/* Small samples (m <= 127, the usual 10-40 blocks): byte counters packed
 * in 64-bit words. One multiply by 0x0101..01 turns a word of counts into
 * its prefix sums, and a borrow-free subtraction marks the bytes whose
 * cumulative count is <= a position, so the walk costs a few operations
 * per 8 ranks. Identical results to the plain walk. */
#define SWAR_MAX_M 127
#define SWAR_ONES UINT64_C(0x0101010101010101)
#define SWAR_HIGHS UINT64_C(0x8080808080808080)

static int little_endian(void) {
  const uint16_t one = 1;
  unsigned char first;
  memcpy(&first, &one, 1);
  return first == 1;
}

/* One resample's draws, counted per rank into byte counters. The divisor
 * kind (power of two, 64- or 65-bit magic) is a compile-time constant in
 * each instance, so the inner loop carries no branches. */
#define SWAR_DRAW(kind, idx)                                                   \
  do {                                                                         \
    uint64_t n_ = bs_rng_next(&g), q_;                                         \
    if ((kind) == 0) {                                                         \
      q_ = n_ >> dv.shift;                                                     \
    } else {                                                                   \
      uint64_t h_ = (uint64_t)(((bs__u128)dv.magic * n_) >> 64);               \
      q_ = (kind) == 2 ? (((n_ - h_) >> 1) + h_) >> dv.shift : h_ >> dv.shift; \
    }                                                                          \
    (idx) = n_ - q_ * dv.d;                                                    \
  } while (0)

static void swar_medians(const size_t *rank, size_t m, size_t R, size_t lo,
                         size_t hi, const bs__fastdiv *div, bs_rng *rng,
                         uint32_t *hist) {
  /* Local copies: byte stores may alias anything reached through a
   * pointer, which would put a store-to-load round trip into the
   * generator's dependency chain. */
  bs_rng g = *rng;
  const bs__fastdiv dv = *div;
  const int kind = dv.pow2 ? 0 : dv.add ? 2 : 1;
  /* Counters are bumped with whole-word adds (word index and the byte's
   * unit per original index): a word read after byte stores to it could
   * not be forwarded from the store buffer and would stall every resample.
   */
  uint64_t words[(SWAR_MAX_M + 7) / 8];
  uint64_t unit[SWAR_MAX_M];
  unsigned char word_of[SWAR_MAX_M];
  size_t nw = (m + 7) / 8;
  for (size_t i = 0; i < m; i++) {
    word_of[i] = (unsigned char)(rank[i] / 8);
    unit[i] = (uint64_t)1 << (8 * (rank[i] % 8));
  }
  /* Per byte 0x80 + pos; minus a prefix sum p <= 127 it keeps its
   * high bit exactly when p <= pos. */
  const uint64_t mlo = (uint64_t)lo * SWAR_ONES + SWAR_HIGHS;
  const uint64_t mhi = (uint64_t)hi * SWAR_ONES + SWAR_HIGHS;
  for (size_t r = 0; r < R; r++) {
    for (size_t w = 0; w < nw; w++)
      words[w] = 0;
    uint64_t idx;
    if (kind == 0) {
      for (size_t k = 0; k < m; k++) {
        SWAR_DRAW(0, idx);
        words[word_of[idx]] += unit[idx];
      }
    } else if (kind == 1) {
      for (size_t k = 0; k < m; k++) {
        SWAR_DRAW(1, idx);
        words[word_of[idx]] += unit[idx];
      }
    } else {
      for (size_t k = 0; k < m; k++) {
        SWAR_DRAW(2, idx);
        words[word_of[idx]] += unit[idx];
      }
    }
    uint64_t base = 0, jlo = 0, jhi = 0;
    for (size_t w = 0; w < nw; w++) {
      uint64_t p = (words[w] + base) * SWAR_ONES;
      jlo += ((((mlo - p) & SWAR_HIGHS) >> 7) * SWAR_ONES) >> 56;
      jhi += ((((mhi - p) & SWAR_HIGHS) >> 7) * SWAR_ONES) >> 56;
      base = p >> 56;
    }
    hist[jlo * m + jhi]++;
  }
  *rng = g;
}

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
  double h = f * (double)(R - 1);
  double fl = floor(h);
  size_t lo = (size_t)fl;
  size_t hi = (size_t)ceil(h);
  if (hi >= R)
    hi = R - 1;
  double a = bin_order_stat(bins, nb, lo);
  double b = bin_order_stat(bins, nb, hi);
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
  uint32_t *hist = NULL;
  bin *bins = NULL;
  double *t = NULL;
  if (!order || !sorted || !rank || !counts) {
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
  bs__fastdiv div = bs__fastdiv_init((uint64_t)m);
  bs_rng rng;
  bs_rng_seed(&rng, seed);

  double alpha = (100.0 - level_pct) / 200.0;
  if (m <= SWAR_MAX_M && little_endian()) {
    /* A resample median is fixed by the pair of ranks it averages, so
     * theta* is kept as a histogram over (rank lo, rank hi): the interval
     * needs two order statistics of a few hundred distinct values, not a
     * sort or a selection over R doubles. */
    hist = calloc(m * m, sizeof *hist);
    bins = malloc(m * m * sizeof *bins);
    if (!hist || !bins) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto fail;
    }
    swar_medians(rank, m, R, lo, hi, &div, &rng, hist);
    size_t nb = 0;
    for (size_t jl = 0; jl < m; jl++) {
      for (size_t jh = jl; jh < m; jh++) {
        uint32_t n = hist[jl * m + jh];
        if (!n)
          continue;
        double a = sorted[jl], b = sorted[jh];
        bins[nb].v = a + frac * (b - a);
        bins[nb].n = n;
        nb++;
      }
    }
    qsort(bins, nb, sizeof *bins, cmp_bin);
    *low = bin_quantile(bins, nb, R, alpha);
    *high = bin_quantile(bins, nb, R, 1.0 - alpha);
    if (thetas) {
      size_t k = 0;
      for (size_t i = 0; i < nb; i++)
        for (uint32_t c = 0; c < bins[i].n; c++)
          thetas[k++] = bins[i].v;
    }
  } else {
    t = thetas ? thetas : malloc(R * sizeof *t);
    if (!t) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto fail;
    }
    for (size_t r = 0; r < R; r++) {
      memset(counts, 0, m * sizeof *counts);
      for (size_t k = 0; k < m; k++)
        counts[rank[bs__fastdiv_mod(&div, bs_rng_next(&rng))]]++;
      /* Branch-free walk: the first rank whose cumulative count passes a
       * position is the number of ranks whose cumulative count does not.
       * Mispredicted exits would flush the generator's dependency chain. */
      size_t cum = 0, jlo = 0, jhi = 0;
      for (size_t j = 0; j < m; j++) {
        cum += counts[j];
        jlo += cum <= lo;
        jhi += cum <= hi;
      }
      double a = sorted[jlo], b = sorted[jhi];
      t[r] = a + frac * (b - a);
    }
    if (thetas) {
      bs_sort_doubles(t, R);
      *low = bs_quantile_sorted(t, R, alpha);
      *high = bs_quantile_sorted(t, R, 1.0 - alpha);
    } else {
      *low = select_quantile(t, R, alpha);
      *high = select_quantile(t, R, 1.0 - alpha);
    }
  }
  st = BS_OK;
fail:
  free(order);
  free(sorted);
  free(rank);
  free(counts);
  free(hist);
  free(bins);
  if (t != thetas)
    free(t);
  return st;
}
