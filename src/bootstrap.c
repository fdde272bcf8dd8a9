#include "benchsite/bootstrap.h"

#include "benchsite/quantile.h"
#include "benchsite/rng.h"
#include "fastdiv.h"
#include "orderstat.h"
#include "xorshift_jump.h"

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

/* Jumps a generator n draws ahead: the transition is linear over GF(2),
 * so A^n is the product of the precomputed A^(2^k) for the set bits of n. */
static uint64_t jump_ahead(uint64_t s, uint64_t n) {
  for (unsigned k = 0; n; k++, n >>= 1) {
    if (!(n & 1))
      continue;
    uint64_t r = 0;
    for (unsigned j = 0; j < 64; j++)
      r ^= bs__xorshift_pow2[k][j] & (0 - ((s >> j) & 1));
    s = r;
  }
  return s;
}

/* x % d for the divisor kinds of bs__fastdiv; `kind` is a literal at each
 * call site, so the inlined code carries no branch. */
static inline uint64_t mod_kind(const bs__fastdiv *dv, int kind, uint64_t n) {
  uint64_t q;
  if (kind == 0) {
    q = n >> dv->shift;
  } else {
    uint64_t h = (uint64_t)(((bs__u128)dv->magic * n) >> 64);
    q = kind == 2 ? (((n - h) >> 1) + h) >> dv->shift : h >> dv->shift;
  }
  return n - q * dv->d;
}

/* Context of the small-sample path. */
typedef struct swar {
  size_t m, nw;
  uint64_t mlo, mhi; /* per byte 0x80 + position (see finish) */
  bs__fastdiv dv;
  uint64_t unit[SWAR_MAX_M];
  unsigned char word_of[SWAR_MAX_M];
  uint32_t *hist;
} swar;

/* Rank pair of the median of one resample from its packed counts: one
 * multiply by 0x0101..01 turns a word of byte counters into prefix sums;
 * 0x80 + pos - p keeps its high bit exactly when p <= pos (p <= 127, so no
 * byte borrows), and the marked bytes are summed by another multiply. */
static inline void finish(const swar *c, const uint64_t *w) {
  uint64_t base = 0, jlo = 0, jhi = 0;
  for (size_t i = 0; i < c->nw; i++) {
    uint64_t p = (w[i] + base) * SWAR_ONES;
    jlo += ((((c->mlo - p) & SWAR_HIGHS) >> 7) * SWAR_ONES) >> 56;
    jhi += ((((c->mhi - p) & SWAR_HIGHS) >> 7) * SWAR_ONES) >> 56;
    base = p >> 56;
  }
  c->hist[jlo * c->m + jhi]++;
}

/* Two resamples at once, from two generators: the second starts where the
 * first half of all draws ends (a jump ahead), so together they make the
 * same draws as one generator, and the out-of-order core overlaps the
 * two dependency chains of xorshift. Counters are bumped with whole-word
 * adds: a word read after byte stores could not be forwarded from the
 * store buffer. Locals, not pointers, hold the state so that no store can
 * alias it. */
static inline void swar_run(const swar *c, int kind, uint64_t sa, uint64_t sb,
                            size_t pairs, size_t extra_b) {
  bs_rng ga = {sa}, gb = {sb};
  const bs__fastdiv dv = c->dv;
  const size_t m = c->m, nw = c->nw;
  uint64_t wa[(SWAR_MAX_M + 7) / 8], wb[(SWAR_MAX_M + 7) / 8];
  for (size_t r = 0; r < pairs; r++) {
    for (size_t i = 0; i < nw; i++)
      wa[i] = wb[i] = 0;
    for (size_t k = 0; k < m; k++) {
      uint64_t ia = mod_kind(&dv, kind, bs_rng_next(&ga));
      uint64_t ib = mod_kind(&dv, kind, bs_rng_next(&gb));
      wa[c->word_of[ia]] += c->unit[ia];
      wb[c->word_of[ib]] += c->unit[ib];
    }
    finish(c, wa);
    finish(c, wb);
  }
  for (size_t r = 0; r < extra_b; r++) {
    for (size_t i = 0; i < nw; i++)
      wb[i] = 0;
    for (size_t k = 0; k < m; k++) {
      uint64_t ib = mod_kind(&dv, kind, bs_rng_next(&gb));
      wb[c->word_of[ib]] += c->unit[ib];
    }
    finish(c, wb);
  }
}

/* Histogram of the rank pairs of all R resample medians (m <= 127). */
static void swar_medians(const size_t *rank, size_t m, size_t R, size_t lo,
                         size_t hi, const bs__fastdiv *div, uint64_t state,
                         uint32_t *hist) {
  swar c;
  c.m = m;
  c.nw = (m + 7) / 8;
  c.mlo = (uint64_t)lo * SWAR_ONES + SWAR_HIGHS;
  c.mhi = (uint64_t)hi * SWAR_ONES + SWAR_HIGHS;
  c.dv = *div;
  c.hist = hist;
  for (size_t i = 0; i < m; i++) {
    c.word_of[i] = (unsigned char)(rank[i] / 8);
    c.unit[i] = (uint64_t)1 << (8 * (rank[i] % 8));
  }
  size_t half = R / 2;
  uint64_t sb = jump_ahead(state, (uint64_t)half * (uint64_t)m);
  size_t extra = R - 2 * half;
  if (c.dv.pow2)
    swar_run(&c, 0, state, sb, half, extra);
  else if (!c.dv.add)
    swar_run(&c, 1, state, sb, half, extra);
  else
    swar_run(&c, 2, state, sb, half, extra);
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
  size_t lo, hi;
  double frac = bs__type7(f, R, &lo, &hi);
  double a = bin_order_stat(bins, nb, lo);
  double b = bin_order_stat(bins, nb, hi);
  return a + frac * (b - a);
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
  bs__ranked *order = malloc(m * sizeof *order);
  double *sorted = malloc(m * sizeof *sorted);
  size_t *rank = malloc(m * sizeof *rank);
  uint32_t *counts = NULL; /* per-rank counts of the general path */
  uint32_t *hist = NULL;
  bin *bins = NULL;
  double *t = NULL;
  if (!order || !sorted || !rank) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto fail;
  }

  /* Sort d once and resample counts over ranks: the median of a resample
   * is then found by walking the counts instead of sorting it. The order
   * statistics found are the same values a sort would put at those
   * positions, so theta* is bit-identical to the sort-based definition. */
  bs__rank_sort(x, m, order);
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
    swar_medians(rank, m, R, lo, hi, &div, rng.s, hist);
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
    counts = calloc(m, sizeof *counts);
    if (!t || !counts) {
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
