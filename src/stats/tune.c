#include "benchsite/tune.h"

#include "benchsite/bootstrap.h"
#include "benchsite/order.h"
#include "benchsite/quantile.h"
#include "grow.h"
#include "lmath.h"
#include "oom.h"
#include "pairs.h"
#include "strlist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_median_impl(const void *a, const void *b) {
  return strcmp(((const bs_tune_median *)a)->impl,
                ((const bs_tune_median *)b)->impl);
}

static int cmp_crossover(const void *a, const void *b) {
  const bs_crossover *x = a, *y = b;
  int c = bs_natural_cmp(x->benchmark, y->benchmark);
  if (!c)
    c = strcmp(x->a, y->a);
  if (!c)
    c = strcmp(x->b, y->b);
  if (!c)
    c = (x->scale > y->scale) - (x->scale < y->scale);
  return c;
}

void bs_tune_result_free(bs_tune_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->ncases; i++)
    free(r->cases[i].medians);
  free(r->cases);
  free(r->crossovers);
  bs__strlist_free(r->warnings, r->nwarnings);
  free(r);
}

/* Scores the impls of one case: the median of each impl's confirm samples. */
static bs_status score_case(const bs_log *log, const bs_case *lc,
                            bs_metric metric, bs_tune_case *tc) {
  const bs_row *rows = bs_log_rows(log);
  const char **impls = malloc(lc->nrows * sizeof *impls);
  double *samples = malloc(lc->nrows * sizeof *samples);
  size_t ni = 0;
  double best = 0;
  bs_status st = BS_ENOMEM;
  if (!impls || !samples)
    goto done;
  for (size_t k = 0; k < lc->nrows; k++) {
    const bs_row *row = &rows[lc->rows[k]];
    if (row->phase == BS_PHASE_CONFIRM)
      impls[ni++] = row->impl;
  }
  qsort(impls, ni, sizeof *impls, cmp_str);
  size_t nu = 0;
  for (size_t k = 0; k < ni; k++) {
    if (nu == 0 || strcmp(impls[nu - 1], impls[k]))
      impls[nu++] = impls[k];
  }
  tc->medians = calloc(nu ? nu : 1, sizeof *tc->medians);
  if (!tc->medians)
    goto done;
  for (size_t u = 0; u < nu; u++) {
    size_t ns = 0;
    for (size_t k = 0; k < lc->nrows; k++) {
      const bs_row *row = &rows[lc->rows[k]];
      if (row->phase == BS_PHASE_CONFIRM && !strcmp(row->impl, impls[u]))
        samples[ns++] = bs__row_value(log, row, metric);
    }
    tc->medians[u].impl = impls[u];
    tc->medians[u].samples = ns;
    tc->medians[u].median_us = bs_median(samples, ns);
    if (isnan(tc->medians[u].median_us))
      goto done;
  }
  tc->nmedians = nu;
  qsort(tc->medians, nu, sizeof *tc->medians, cmp_median_impl);
  /* Smallest median wins; impls are in byte order, so keeping the first of
   * equal scores breaks exact ties by impl id. */
  for (size_t u = 0; u < nu; u++) {
    if (u == 0 || tc->medians[u].median_us < best)
      tc->best = tc->medians[u].impl, best = tc->medians[u].median_us;
  }
  st = BS_OK;
done:
  free(impls);
  free(samples);
  return st;
}

static const bs_tune_median *find_median(const bs_tune_case *tc,
                                         const char *impl) {
  for (size_t u = 0; u < tc->nmedians; u++) {
    if (!strcmp(tc->medians[u].impl, impl))
      return &tc->medians[u];
  }
  return NULL;
}

typedef struct scaled {
  double scale;
  double r; /* ln(med_X / med_Y) */
  size_t order;
  size_t ci; /* the case, an index into the result's cases */
} scaled;

static int cmp_scaled(const void *a, const void *b) {
  const scaled *x = a, *y = b;
  if (x->scale != y->scale)
    return x->scale < y->scale ? -1 : 1;
  return (x->order > y->order) - (x->order < y->order);
}

static bs_status push_crossover(bs_tune_result *r, size_t *cap,
                                const bs_crossover *c) {
  if (r->ncrossovers == *cap) {
    bs_crossover *p =
        bs__grow(r->crossovers, cap, r->ncrossovers + 1, 16, sizeof *p);
    if (!p)
      return BS_ENOMEM;
    r->crossovers = p;
  }
  r->crossovers[r->ncrossovers++] = *c;
  return BS_OK;
}

/* Crossovers of one benchmark (cases [lo, hi) of r). SPEC §2.7: for each
 * pair X < Y, r(s) = ln(med_X(s)/med_Y(s)) over the cases with a scale and
 * both impls, and a log-log interpolated root wherever r changes sign. */
static bs_status benchmark_crossovers(bs_tune_result *r, size_t lo, size_t hi,
                                      size_t *cap) {
  size_t total = 0;
  for (size_t i = lo; i < hi; i++)
    total += r->cases[i].nmedians;
  const char **impls = malloc((total ? total : 1) * sizeof *impls);
  scaled *pts = malloc((hi - lo) * sizeof *pts);
  bs_status st = BS_ENOMEM;
  if (!impls || !pts)
    goto done;
  size_t ni = 0;
  for (size_t i = lo; i < hi; i++)
    for (size_t u = 0; u < r->cases[i].nmedians; u++)
      impls[ni++] = r->cases[i].medians[u].impl;
  qsort(impls, ni, sizeof *impls, cmp_str);
  size_t nu = 0;
  for (size_t k = 0; k < ni; k++)
    if (nu == 0 || strcmp(impls[nu - 1], impls[k]))
      impls[nu++] = impls[k];
  for (size_t x = 0; x < nu; x++) {
    for (size_t y = x + 1; y < nu; y++) {
      size_t np = 0;
      for (size_t i = lo; i < hi; i++) {
        const bs_tune_case *tc = &r->cases[i];
        const bs_tune_median *mx = find_median(tc, impls[x]);
        const bs_tune_median *my = find_median(tc, impls[y]);
        if (!tc->has_scale || !mx || !my)
          continue;
        pts[np].scale = tc->scale;
        pts[np].r = bs__log(mx->median_us / my->median_us);
        pts[np].order = np;
        pts[np].ci = i;
        np++;
      }
      qsort(pts, np, sizeof *pts, cmp_scaled);
      for (size_t k = 0; k + 1 < np; k++) {
        double s0 = pts[k].scale, s1 = pts[k + 1].scale;
        double r0 = pts[k].r, r1 = pts[k + 1].r;
        if (!(s0 < s1))
          continue;
        if (!((r0 < 0 && r1 >= 0) || (r0 >= 0 && r1 < 0)))
          continue;
        bs_crossover c;
        c.benchmark = r->cases[lo].benchmark;
        c.a = impls[x];
        c.b = impls[y];
        c.scale =
            bs__exp(bs__log(s0) + (bs__log(s1) - bs__log(s0)) * r0 / (r0 - r1));
        c.scale_low = s0;
        c.scale_high = s1;
        c.dataset_low = r->cases[pts[k].ci].dataset;
        c.dataset_high = r->cases[pts[k + 1].ci].dataset;
        c.decisive = 0;
        if (push_crossover(r, cap, &c))
          goto done;
      }
    }
  }
  st = BS_OK;
done:
  free(impls);
  free(pts);
  return st;
}

/* The paired interval of med(y - x) in case lc, rows paired by (run,
 * block) as a comparison pairs them (x baseline, y candidate). *tested is
 * 0 (and a warning added to r) when the rows do not pair. */
static bs_status paired_interval(bs_tune_result *r, const bs_log *log,
                                 const bs_case *lc, const char *x,
                                 const char *y, bs_metric metric, uint64_t seed,
                                 bs__pairs *p, double *lo, double *hi,
                                 int *tested, bs_error *err) {
  double *d = NULL;
  size_t m = 0;
  char label[256];
  bs_error perr;
  bs_error_clear(&perr);
  *tested = 0;
  bs_status st = bs__pairs_gather(p, log, lc, x, y, err);
  if (st)
    return st;
  bs__case_label(label, sizeof label, lc->benchmark, lc->dataset);
  st = bs__pairs_deltas(p, metric, label, &d, &m, &perr);
  if (st == BS_EMISMATCH) {
    char msg[1024];
    bs_error_format(&perr, msg, sizeof msg);
    return bs__strlist_addf(&r->warnings, &r->nwarnings,
                            "%s / %s not tested for noise (counted as a tie): "
                            "%s",
                            x, y, msg)
               ? bs__oom(err)
               : BS_OK;
  }
  if (st) {
    *err = perr;
    return st;
  }
  st = bs_bootstrap_median_ci(d, m, BS_TUNE_RESAMPLES, BS_TUNE_LEVEL_PCT, seed,
                              lo, hi, NULL, err);
  free(d);
  *tested = !st;
  return st;
}

/* The runner-up of a scored case: the smallest (median, impl) after the
 * best's. */
static const char *runner_up(const bs_tune_case *tc) {
  const bs_tune_median *w = NULL;
  for (size_t u = 0; u < tc->nmedians; u++) {
    const bs_tune_median *c = &tc->medians[u];
    if (c->impl == tc->best)
      continue;
    /* Impls are in byte order: keeping the first of equal medians breaks
     * exact ties by impl id. */
    if (!w || c->median_us < w->median_us)
      w = c;
  }
  return w ? w->impl : NULL;
}

static int is_decisive_interval(double lo, double hi) {
  return lo > 0 || hi < 0;
}

/* Decisiveness of every win and every crossover. cases[i] was scored from
 * log case log_case[i]. */
static bs_status decide(const bs_log *log, bs_tune_result *r,
                        const size_t *log_case, uint64_t seed, bs_error *err) {
  bs__pairs p = {0};
  bs_status st = BS_OK;
  for (size_t i = 0; i < r->ncases && !st; i++) {
    bs_tune_case *tc = &r->cases[i];
    tc->runner_up = runner_up(tc);
    tc->ci_low_us = tc->ci_high_us = NAN;
    if (!tc->runner_up)
      continue;
    int tested = 0;
    st = paired_interval(r, log, bs_log_case(log, log_case[i]), tc->runner_up,
                         tc->best, r->metric, seed, &p, &tc->ci_low_us,
                         &tc->ci_high_us, &tested, err);
    tc->decisive = !st && tested && tc->ci_high_us < 0;
  }
  for (size_t k = 0; k < r->ncrossovers && !st; k++) {
    bs_crossover *c = &r->crossovers[k];
    int decisive = 1;
    for (size_t i = 0; i < r->ncases && !st; i++) {
      const bs_tune_case *tc = &r->cases[i];
      if (strcmp(tc->benchmark, c->benchmark) ||
          (tc->dataset != c->dataset_low && tc->dataset != c->dataset_high))
        continue;
      double lo = 0, hi = 0;
      int tested = 0;
      st = paired_interval(r, log, bs_log_case(log, log_case[i]), c->a, c->b,
                           r->metric, seed, &p, &lo, &hi, &tested, err);
      decisive = decisive && !st && tested && is_decisive_interval(lo, hi);
    }
    c->decisive = !st && decisive;
  }
  bs__pairs_release(&p);
  return st;
}

bs_status bs_tune_run(const bs_log *log, bs_metric metric, uint64_t seed,
                      bs_tune_result **out, bs_error *err) {
  *out = NULL;
  bs_status mst = bs_metric_check_direction(metric, err);
  if (!mst)
    mst = bs_log_require_metric(log, metric, err);
  if (mst)
    return mst;
  bs_tune_result *r = calloc(1, sizeof *r);
  size_t ncase = bs_log_case_count(log);
  size_t cap = 0;
  size_t *log_case = calloc(ncase ? ncase : 1, sizeof *log_case);
  if (!r || !log_case) {
    free(r);
    free(log_case);
    return bs__oom(err);
  }
  r->metric = metric;
  r->cases = calloc(ncase ? ncase : 1, sizeof *r->cases);
  if (!r->cases)
    goto nomem;
  for (size_t i = 0; i < ncase; i++) {
    const bs_case *lc = bs_log_case(log, i);
    bs_tune_case *tc = &r->cases[r->ncases];
    memset(tc, 0, sizeof *tc);
    tc->benchmark = lc->benchmark;
    tc->dataset = lc->dataset;
    tc->has_scale = lc->has_scale;
    tc->scale = lc->scale;
    if (score_case(log, lc, metric, tc)) {
      free(tc->medians);
      goto nomem;
    }
    if (tc->nmedians == 0) {
      free(tc->medians);
      continue;
    }
    log_case[r->ncases++] = i;
  }
  if (r->ncases == 0) {
    bs_tune_result_free(r);
    free(log_case);
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "no case has confirm rows to tune");
  }
  /* Cases come sorted by benchmark: crossovers per run of one benchmark. */
  for (size_t lo = 0; lo < r->ncases;) {
    size_t hi = lo + 1;
    while (hi < r->ncases &&
           !strcmp(r->cases[hi].benchmark, r->cases[lo].benchmark))
      hi++;
    if (benchmark_crossovers(r, lo, hi, &cap))
      goto nomem;
    lo = hi;
  }
  if (r->ncrossovers > 1)
    qsort(r->crossovers, r->ncrossovers, sizeof *r->crossovers, cmp_crossover);
  bs_status st = decide(log, r, log_case, seed, err);
  free(log_case);
  if (st) {
    bs_tune_result_free(r);
    return st;
  }
  *out = r;
  return BS_OK;
nomem:
  bs_tune_result_free(r);
  free(log_case);
  return bs__oom(err);
}
