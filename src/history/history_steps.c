/* Change points of a case's medians: E-divisive by binary segmentation
 * with a permutation test (see history.h for the method, its references
 * and its false-alarm rate). */
#include "benchsite/history.h"

#include "benchsite/quantile.h"
#include "benchsite/rng.h"

#include "hash.h"
#include "history_steps.h"
#include "oom.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Scratch for one series: a segment's values in sorted order and their
 * prefix sums, each position's rank, and a Fenwick tree over ranks of
 * the count and the sum of the values already on the left. */
typedef struct work {
  double *val;     /* sorted values of the segment */
  double *pre;     /* pre[k] = val[0] + ... + val[k-1] */
  double *dall;    /* dall[k] = Σ_j |val[k] − val[j]| */
  double total;    /* Σ_{i<j} |val[i] − val[j]| */
  double *wl, *wr; /* per split a: b/(a−1) and a/(b−1), b = m − a */
  uint32_t *rank;
  uint32_t *cnt; /* Fenwick tree of counts over ranks 1..m */
  double *sum;   /* Fenwick tree of sums over ranks 1..m */
} work;

typedef struct split {
  size_t at; /* index of the first value after the step */
  double p;
} split;

/* Scratch for series of up to n values; 0 when out of memory (then
 * work_release frees what was allocated). */
static int work_init(work *w, size_t n) {
  w->val = malloc(n * sizeof *w->val);
  w->pre = malloc((n + 1) * sizeof *w->pre);
  w->dall = malloc(n * sizeof *w->dall);
  w->wl = malloc(n * sizeof *w->wl);
  w->wr = malloc(n * sizeof *w->wr);
  w->rank = malloc(n * sizeof *w->rank);
  w->cnt = malloc((n + 1) * sizeof *w->cnt);
  w->sum = malloc((n + 1) * sizeof *w->sum);
  return w->val && w->pre && w->dall && w->wl && w->wr && w->rank && w->cnt &&
         w->sum;
}

static void work_release(work *w) {
  free(w->val);
  free(w->pre);
  free(w->dall);
  free(w->wl);
  free(w->wr);
  free(w->rank);
  free(w->cnt);
  free(w->sum);
}

/* The largest Q̂(τ) over the splits of a segment of m values (each side
 * at least BS_HISTORY_STEP_MIN_RUNS long, κ = m), the values taken in the
 * order rank[0..m-1] (val[rank[t]] is the t-th); *at its τ (the first
 * maximum). Matteson & James's statistic with α = 1: within each side the
 * mean pairwise distance over C(k, 2) pairs, between them over all
 * pairs. Every sum is updated as one value moves from the right side to
 * the left: O(m log m). */
static double sweep(const work *w, size_t m, size_t *at) {
  memset(w->cnt, 0, (m + 1) * sizeof *w->cnt);
  memset(w->sum, 0, (m + 1) * sizeof *w->sum);
  double left = 0, right = w->total, leftsum = 0, best = -HUGE_VAL;
  *at = 0;
  for (size_t t = 0; t + 1 < m; t++) {
    uint32_t rk = w->rank[t];
    double z = w->val[rk];
    uint32_t c = 0;
    double below = 0;
    for (uint32_t i = rk; i > 0; i &= i - 1) {
      c += w->cnt[i];
      below += w->sum[i];
    }
    /* Distances from z to the left side; the rest are on the right. */
    double dl = z * (double)c - below + (leftsum - below) - z * (double)(t - c);
    left += dl;
    right -= w->dall[rk] - dl;
    for (uint32_t i = rk + 1; i <= m; i += i & (~i + 1)) {
      w->cnt[i]++;
      w->sum[i] += z;
    }
    leftsum += z;
    size_t a = t + 1, b = m - a;
    if (a < BS_HISTORY_STEP_MIN_RUNS || b < BS_HISTORY_STEP_MIN_RUNS)
      continue;
    /* Q̂·m/2 = between − b/(a−1)·left − a/(b−1)·right. */
    double q = (w->total - left - right) - w->wl[a] * left - w->wr[a] * right;
    if (q > best) {
      best = q;
      *at = a;
    }
  }
  return 2 * best / (double)m;
}

/* A value and its position: ranks break ties in position order. */
typedef struct keyed {
  double v;
  size_t i;
} keyed;

static int cmp_keyed(const void *pa, const void *pb) {
  const keyed *a = pa, *b = pb;
  if (a->v != b->v)
    return a->v < b->v ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* Ranks the segment x[0..m-1] into w. */
static void rank_segment(work *w, keyed *k, const double *x, size_t m) {
  for (size_t i = 0; i < m; i++)
    k[i] = (keyed){x[i], i};
  qsort(k, m, sizeof *k, cmp_keyed);
  w->pre[0] = 0;
  w->total = 0;
  for (size_t r = 0; r < m; r++) {
    w->val[r] = k[r].v;
    w->rank[k[r].i] = (uint32_t)r;
    w->pre[r + 1] = w->pre[r] + k[r].v;
    w->total += k[r].v * (2 * (double)r - (double)m + 1);
  }
  for (size_t a = BS_HISTORY_STEP_MIN_RUNS; a + BS_HISTORY_STEP_MIN_RUNS <= m;
       a++) {
    w->wl[a] = (double)(m - a) / (double)(a - 1);
    w->wr[a] = (double)a / (double)(m - a - 1);
  }
  for (size_t r = 0; r < m; r++) {
    double z = w->val[r];
    w->dall[r] = z * (double)r - w->pre[r] + (w->pre[m] - w->pre[r + 1]) -
                 z * (double)(m - 1 - r);
  }
}

double bs__history_edivisive(const double *x, size_t m, size_t *at) {
  *at = 0;
  if (m < 2 * (size_t)BS_HISTORY_STEP_MIN_RUNS)
    return NAN;
  work w;
  keyed *k = malloc(m * sizeof *k);
  double q = NAN;
  if (work_init(&w, m) && k) {
    rank_segment(&w, k, x, m);
    q = sweep(&w, m, at);
  }
  work_release(&w);
  free(k);
  return q;
}

/* The candidate split of segment x[0..m-1] and its permutation p-value
 * (Besag & Clifford's sequential stop after BS_HISTORY_STEP_EXCEED
 * shuffles reach it). */
static split test_segment(work *w, keyed *k, const double *x, size_t m,
                          uint64_t seed) {
  split sp;
  rank_segment(w, k, x, m);
  double q = sweep(w, m, &sp.at);
  bs_rng rng;
  bs_rng_seed(&rng, seed);
  size_t b = 0, drawn = 0;
  while (drawn < BS_HISTORY_STEP_PERMUTATIONS && b < BS_HISTORY_STEP_EXCEED) {
    /* Fisher-Yates; an index by multiply-shift of the draw's high 32
     * bits (Lemire 2019; its bias, under m/2^32, is far below the
     * test's resolution) instead of a division a draw. */
    for (size_t i = m - 1; i > 0; i--) {
      uint64_t hi = bs_rng_next(&rng) >> 32;
      size_t j = (size_t)((hi * ((uint64_t)i + 1)) >> 32);
      uint32_t t = w->rank[i];
      w->rank[i] = w->rank[j];
      w->rank[j] = t;
    }
    size_t at;
    drawn++;
    b += sweep(w, m, &at) >= q;
  }
  sp.p = b >= BS_HISTORY_STEP_EXCEED
             ? (double)b / (double)drawn
             : (double)(b + 1) / (double)(BS_HISTORY_STEP_PERMUTATIONS + 1);
  return sp;
}

static int cmp_split(const void *pa, const void *pb) {
  const split *a = pa, *b = pb;
  return a->at < b->at ? -1 : a->at > b->at;
}

/* The median of x[from, to) (type 7), using tmp. */
static double level(const double *x, size_t from, size_t to, double *tmp) {
  memcpy(tmp, x + from, (to - from) * sizeof *tmp);
  bs_sort_doubles(tmp, to - from);
  return bs_quantile_sorted(tmp, to - from, 0.5);
}

bs_status bs_history_detect_steps(const double *x, size_t n, uint64_t seed,
                                  bs_history_step **steps, size_t *nsteps,
                                  bs_error *err) {
  *steps = NULL;
  *nsteps = 0;
  if (n < 2 * (size_t)BS_HISTORY_STEP_MIN_RUNS)
    return BS_OK;
  work w;
  int ok = work_init(&w, n);
  keyed *k = malloc(n * sizeof *k);
  /* Segments still to search, first in first out (the coarsest splits
   * first), and the splits found. */
  size_t cap = BS_HISTORY_STEPS_MAX + 1;
  size_t(*queue)[2] = malloc(2 * cap * sizeof *queue);
  split *found = malloc(cap * sizeof *found);
  bs_status st = BS_OK;
  if (!ok || !k || !queue || !found) {
    st = bs__oom(err);
    goto done;
  }
  size_t head = 0, tail = 0, nfound = 0;
  queue[tail][0] = 0;
  queue[tail++][1] = n;
  while (head < tail && nfound < BS_HISTORY_STEPS_MAX) {
    size_t s = queue[head][0], e = queue[head++][1], m = e - s;
    if (m < 2 * (size_t)BS_HISTORY_STEP_MIN_RUNS)
      continue;
    /* Seeded by the segment's bounds: a segment is tested alike whatever
     * was found elsewhere. */
    uint64_t sseed = bs__mix64(seed ^ bs__mix64(((uint64_t)s << 32) ^ e));
    split sp = test_segment(&w, k, x + s, m, sseed);
    if (!(sp.p <= BS_HISTORY_STEP_ALPHA))
      continue;
    sp.at += s;
    found[nfound++] = sp;
    queue[tail][0] = s;
    queue[tail++][1] = sp.at;
    queue[tail][0] = sp.at;
    queue[tail++][1] = e;
  }
  if (nfound == 0)
    goto done;
  qsort(found, nfound, sizeof *found, cmp_split);
  if (!(*steps = calloc(nfound, sizeof **steps))) {
    st = bs__oom(err);
    goto done;
  }
  for (size_t i = 0; i < nfound; i++) {
    size_t from = i ? found[i - 1].at : 0;
    size_t to = i + 1 < nfound ? found[i + 1].at : n;
    bs_history_step *sp = &(*steps)[i];
    sp->entry = found[i].at;
    sp->entry_before = found[i].at - 1;
    sp->before = level(x, from, found[i].at, w.val);
    sp->after = level(x, found[i].at, to, w.val);
    sp->size_pct = 100 * (sp->after / sp->before - 1);
    sp->p_value = found[i].p;
    sp->significant = found[i].p <= BS_HISTORY_STEP_ALPHA;
  }
  *nsteps = nfound;
done:
  work_release(&w);
  free(k);
  free(queue);
  free(found);
  return st;
}
