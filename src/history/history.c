/* The history model: per-run results from their analyses, then groups,
 * cases, chains, creep and drift over all runs (see history.h). */
#include "benchsite/history.h"
#include "benchsite/date.h"

#include "benchsite/bootstrap.h"
#include "benchsite/order.h"
#include "benchsite/quantile.h"

#include "grow.h"
#include "hash.h"
#include "lmath.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Chains -------------------------------------------------------------- */

static int known(const char *s) { return s && s[0]; }

/* s_j of a link (SPEC §2.12), or -1 when its interval is unusable. */
static double link_sd(const bs_history_link *l) {
  if (!isfinite(l->lo_pct) || !isfinite(l->hi_pct) || l->lo_pct > l->hi_pct ||
      1 + l->lo_pct / 100 <= 0)
    return -1;
  return (bs__log1p(l->hi_pct / 100) - bs__log1p(l->lo_pct / 100)) / (2 * 1.96);
}

/* The scan of the trailing stretches of the newest chain: stretch[0..m-1]
 * are its links since the last restart, newest first. Fills the creep's
 * scan fields (since as an index into links) and its size. */
static void scan(const bs_history_link *links, const size_t *stretch, size_t m,
                 bs_history_creep *c) {
  double l = 0, v = 0, lbest = 0, sbest = 0;
  size_t wmax = m < BS_HISTORY_CREEP_MAX_LINKS ? m : BS_HISTORY_CREEP_MAX_LINKS;
  for (size_t w = 1; w <= wmax; w++) {
    const bs_history_link *k = &links[stretch[w - 1]];
    double s = link_sd(k);
    if (s < 0)
      break; /* no stretch reaches past a link without an interval */
    l += bs__log1p(k->delta_pct / 100);
    v += s * s;
    if (w < 2 || !(v > 0))
      continue;
    double z = l / bs__sqrt(v);
    /* Strictly larger: ties keep the shorter stretch. */
    if (!c->has_scan || fabs(z) > fabs(c->z)) {
      c->has_scan = 1;
      c->z = z;
      c->scan_links = w;
      c->since = stretch[w - 1];
      lbest = l;
      sbest = bs__sqrt(v);
    }
  }
  if (!c->has_scan)
    return;
  c->scan_pct = 100 * bs__expm1(lbest);
  c->scan_lo_pct = 100 * bs__expm1(lbest - 1.96 * sbest);
  c->scan_hi_pct = 100 * bs__expm1(lbest + 1.96 * sbest);
}

bs_status bs_history_chain(const bs_history_link *links, size_t n,
                           bs_history_point *points, bs_history_creep *creep,
                           bs_error *err) {
  size_t chains = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_history_link *l = &links[k];
    if (!isfinite(l->delta_pct))
      return bs_error_set(err, BS_EINPUT, NULL, 0,
                          "link %zu of the history has a non-finite delta", k);
    /* The group's previous link: the only one this link can continue. */
    size_t j = k;
    while (j > 0 && links[j - 1].group != l->group)
      j--;
    double step = 1 + l->delta_pct / 100;
    if (j > 0 && known(l->baseline_commit) && known(links[j - 1].commit) &&
        !strcmp(l->baseline_commit, links[j - 1].commit)) {
      const bs_history_point *p = &points[j - 1];
      points[k].chain = p->chain;
      /* An acknowledged link closes its stretch: the product restarts. */
      points[k].chained_index =
          links[j - 1].acknowledged ? step : p->chained_index * step;
    } else {
      points[k].chain = chains++;
      points[k].chained_index = step;
    }
  }
  if (!creep)
    return BS_OK;
  memset(creep, 0, sizeof *creep);
  if (n == 0)
    return BS_OK;
  size_t last = n - 1, chain = points[last].chain;
  creep->has_chain = 1;
  creep->chain = chain;
  creep->index = points[last].chained_index;
  creep->acknowledged = links[last].acknowledged != 0;
  /* The stretch I_last multiplies, newest first: back along the chain to
   * the link after the last acknowledged one. Its indices are kept in
   * the scan's window only (at most BS_HISTORY_CREEP_MAX_LINKS). */
  size_t stretch[BS_HISTORY_CREEP_MAX_LINKS] = {0};
  for (size_t k = n; k-- > 0;) {
    if (points[k].chain != chain)
      continue;
    if (k != last && links[k].acknowledged)
      break;
    if (creep->links < BS_HISTORY_CREEP_MAX_LINKS)
      stretch[creep->links] = k;
    creep->links++;
  }
  scan(links, stretch,
       creep->links < BS_HISTORY_CREEP_MAX_LINKS ? creep->links
                                                 : BS_HISTORY_CREEP_MAX_LINKS,
       creep);
  creep->creep_pct =
      creep->has_scan ? creep->scan_pct : 100 * (creep->index - 1);
  if (!creep->has_scan || creep->acknowledged ||
      !(fabs(creep->z) >= BS_HISTORY_CREEP_Z) ||
      !(fabs(creep->scan_pct) >= BS_HISTORY_CREEP_PCT))
    return BS_OK;
  /* No link of the stretch w* was a change the gate caught in the creep's
   * direction. */
  int up = creep->scan_pct > 0;
  for (size_t w = 0; w < creep->scan_links; w++) {
    const bs_history_link *k = &links[stretch[w]];
    if (up ? k->significant_regression : k->significant_improvement)
      return BS_OK;
  }
  creep->creeping = 1;
  return BS_OK;
}

/* ---- One run's results --------------------------------------------------- */

void bs_history_results_free(bs_history_result *res, size_t n) {
  for (size_t k = 0; k < n; k++) {
    free(res[k].benchmark);
    free(res[k].dataset);
  }
  free(res);
}

/* The impl a run's history shows for a case: the candidate when the case
 * has it, else the case's only impl (NULL when it has several). */
static const char *history_impl(const bs_log *log, const bs_case *c,
                                const char *candidate) {
  const bs_row *rows = bs_log_rows(log);
  const char *only = NULL;
  int several = 0, has_candidate = 0;
  for (size_t i = 0; i < c->nrows; i++) {
    const bs_row *r = &rows[c->rows[i]];
    if (r->phase != BS_PHASE_CONFIRM)
      continue;
    if (candidate && !strcmp(r->impl, candidate))
      has_candidate = 1;
    if (!only)
      only = r->impl;
    else if (strcmp(only, r->impl))
      several = 1;
  }
  if (has_candidate)
    return candidate;
  return several ? NULL : only;
}

/* The confirm samples of `impl` in case c, in metric `metric`, into *x
 * (grown as needed). */
static bs_status samples_of(
    const bs_log *log, const bs_case *c, const char *impl, bs_metric metric,
    double **x,
    size_t *cap, // NOLINT(readability-non-const-parameter): BS__GROW writes it
    size_t *m) {
  const bs_row *rows = bs_log_rows(log);
  *m = 0;
  for (size_t k = 0; impl && k < c->nrows; k++) {
    const bs_row *row = &rows[c->rows[k]];
    if (row->phase != BS_PHASE_CONFIRM || strcmp(row->impl, impl))
      continue;
    if (*m == *cap) {
      double *g = BS__GROW(*x, *cap, *m + 1, 64);
      if (!g)
        return BS_ENOMEM;
      *x = g;
    }
    (*x)[(*m)++] = bs_log_value(log, row, metric);
  }
  return BS_OK;
}

bs_status bs_history_results(const bs_analysis *an, const char *candidate,
                             bs_history_result **out, size_t *n,
                             bs_error *err) {
  const bs_log *log = an->log;
  const bs_compare_result *cmp = an->compare;
  size_t ncases = bs_log_case_count(log), done = 0, xcap = 0;
  int lacking = bs_log_lacking(log, an->metric) != NULL;
  double *x = NULL;
  bs_status st = BS_OK;
  *out = NULL;
  *n = 0;
  if (ncases == 0)
    return BS_OK;
  bs_history_result *res = calloc(ncases, sizeof *res);
  if (!res)
    return bs__oom(err);
  for (; done < ncases && !st; done++) {
    const bs_case *c = bs_log_case(log, done);
    bs_history_result *r = &res[done];
    r->verdict = -1;
    r->has_scale = c->has_scale;
    r->scale = c->has_scale ? c->scale : 0.0;
    if (!(r->benchmark = bs__strdup(c->benchmark)) ||
        !(r->dataset = bs__strdup(c->dataset))) {
      st = bs__oom(err);
      break;
    }
    size_t m = 0;
    /* A run without the metric on every confirm row has no numbers (its
     * analysis kept that as its problem): no median, no verdict. */
    if (!lacking && samples_of(log, c, history_impl(log, c, candidate),
                               an->metric, &x, &xcap, &m)) {
      st = bs__oom(err);
      break;
    }
    if (m > 0) {
      r->has_median = 1;
      r->n = m;
      r->median = bs_median(x, m);
      if ((st = bs_bootstrap_median_ci(x, m, BS_HISTORY_RESAMPLES,
                                       BS_HISTORY_LEVEL_PCT, an->seed, &r->lo,
                                       &r->hi, NULL, err)))
        break;
    }
    /* The paired verdict: the analysis's confirmatory comparison. */
    for (size_t k = 0; cmp && k < cmp->ncases; k++) {
      const bs_case_compare *cc = &cmp->cases[k];
      if (strcmp(cc->benchmark, c->benchmark) ||
          strcmp(cc->dataset, c->dataset))
        continue;
      r->has_cmp = 1;
      r->verdict = (int)cc->verdict;
      r->significant_regression = cc->significant_regression;
      r->significant_improvement = cc->significant_improvement;
      r->delta_pct = cc->delta_pct;
      /* The interval of med(d) in percent of med(b), as Δ% is. */
      r->delta_lo_pct = 100 * (cc->ci_low_us / cc->median_baseline_us);
      r->delta_hi_pct = 100 * (cc->ci_high_us / cc->median_baseline_us);
      r->blocks = cc->blocks;
    }
  }
  free(x);
  if (st) {
    bs_history_results_free(res, ncases); /* calloc'd: the rest are NULL */
    return st;
  }
  *out = res;
  *n = ncases;
  return BS_OK;
}

/* ---- The model ----------------------------------------------------------- */

bs_history *bs_history_new(size_t nruns) {
  bs_history *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  if (!(h->runs = calloc(nruns ? nruns : 1, sizeof *h->runs))) {
    free(h);
    return NULL;
  }
  h->nruns = nruns;
  return h;
}

void bs_history_free(bs_history *h) {
  if (!h)
    return;
  for (size_t i = 0; i < h->nruns; i++) {
    free(h->runs[i].impl);
    bs_history_results_free(h->runs[i].results, h->runs[i].nresults);
  }
  free(h->runs);
  for (size_t c = 0; c < h->ncases; c++) {
    free(h->cases[c].entries);
    free(h->cases[c].steps);
  }
  free(h->cases);
  free(h->groups);
  free(h->step_refs);
  free(h->open_cases);
  free(h);
}

size_t bs_history_newest(const bs_history *h) {
  if (h->nruns == 0)
    return 0;
  size_t i = h->nruns - 1;
  while (i > 0 && bs_date_in_future(h->runs[i].date))
    i--;
  return i;
}

/* Puts a run's results in case order (benchsite/order.h). */
static bs_status order_results(bs_history_result *res, size_t n) {
  if (n == 0)
    return BS_OK; /* a run of no cases has no array (res is NULL) */
  bs_case_key *keys = malloc(n * sizeof *keys);
  bs_history_result *sorted = malloc(n * sizeof *sorted);
  if (!keys || !sorted) {
    free(keys);
    free(sorted);
    return BS_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    keys[i].benchmark = res[i].benchmark;
    keys[i].dataset = res[i].dataset;
    keys[i].has_scale = res[i].has_scale;
    keys[i].scale = res[i].scale;
    keys[i].id = i;
  }
  bs_case_order(keys, n);
  for (size_t i = 0; i < n; i++)
    sorted[i] = res[keys[i].id];
  memcpy(res, sorted, n * sizeof *res);
  free(keys);
  free(sorted);
  return BS_OK;
}

/* Whether run r is an A/A run: its manifest names the A/A pair and its
 * candidate, if it names one, is of that pair. */
static int aa_run(const bs_history_run *r) {
  const char *a = bs_manifest_get(r->manifest, "aa_a");
  const char *b = bs_manifest_get(r->manifest, "aa_b");
  if (!known(a) || !known(b))
    return 0;
  const char *c = r->impl;
  return !known(c) || !strcmp(c, a) || !strcmp(c, b);
}

/* What a run's results count towards: acknowledgements and verdicts. */
static bs_status tally_run(bs_history *h, bs_history_run *r,
                           const bs_acks *acks) {
  if (order_results(r->results, r->nresults))
    return BS_ENOMEM;
  r->native = bs_manifest_require_native(r->manifest, NULL) == BS_OK;
  r->aa = aa_run(r);
  for (size_t k = 0; k < r->nresults; k++) {
    bs_history_result *res = &r->results[k];
    res->ack = bs_acks_find(acks, r->commit, res->benchmark, res->dataset);
    if (!res->has_cmp || r->aa)
      continue;
    r->compared++;
    if (res->ack)
      r->acked++;
    else if (res->significant_regression && r->native)
      r->open++; /* no performance claims for a target not native */
    else if (res->verdict == BS_VERDICT_SLOWER)
      r->slower++;
    else if (res->verdict == BS_VERDICT_FASTER)
      r->faster++;
    else
      r->equivalent++;
    h->acknowledged += res->ack != NULL;
  }
  return BS_OK;
}

/* Whether manifests a and b hold the same value, or both none, for every
 * comparability key. */
static int same_keys(const bs_manifest *a, const bs_manifest *b) {
  for (size_t k = 0; k < BS_MANIFEST_NCOMPARABILITY; k++) {
    const char *key = bs_manifest_comparability_keys[k];
    const char *x = bs_manifest_get(a, key), *y = bs_manifest_get(b, key);
    if (!((!x && !y) || (x && y && !strcmp(x, y))))
      return 0;
  }
  return 1;
}

static void assign_groups(bs_history *h) {
  for (size_t i = 0; i < h->nruns; i++) {
    bs_history_run *r = &h->runs[i];
    size_t g = 0;
    /* Runs missing a key are comparable with nothing; they group with
     * runs that have exactly the same values (and gaps). */
    while (
        g < h->ngroups &&
        !bs_manifest_comparable(h->groups[g].first, r->manifest, NULL, NULL) &&
        !same_keys(h->groups[g].first, r->manifest))
      g++;
    if (g == h->ngroups) {
      h->groups[g].first = r->manifest;
      h->groups[g].nruns = 0;
      h->ngroups++;
    }
    h->groups[g].nruns++;
    r->group = g;
  }
}

static int cmp_case(const void *pa, const void *pb) {
  const bs_history_case *a = pa, *b = pb;
  int c = strcmp(a->benchmark, b->benchmark);
  return c ? c : strcmp(a->dataset, b->dataset);
}

/* Sorts cases [0, n) and drops repeats; the new count. */
static size_t unique_cases(bs_history_case *v, size_t n) {
  if (n)
    qsort(v, n, sizeof *v, cmp_case);
  size_t u = 0;
  for (size_t i = 0; i < n; i++) {
    if (u && !cmp_case(&v[u - 1], &v[i]))
      continue;
    v[u++] = v[i];
  }
  return u;
}

/* Puts the cases, found in byte order, in case order (benchsite/order.h),
 * each with the scale of its newest result, and points every result at
 * its case's new place. */
static bs_status order_cases(bs_history *h) {
  size_t n = h->ncases;
  bs_case_key *keys = malloc((n ? n : 1) * sizeof *keys);
  bs_history_case *sorted = malloc((n ? n : 1) * sizeof *sorted);
  size_t *where = malloc((n ? n : 1) * sizeof *where);
  bs_status st = keys && sorted && where ? BS_OK : BS_ENOMEM;
  for (size_t c = 0; c < n && !st; c++) {
    const bs_history_case *hc = &h->cases[c];
    const bs_history_result *newest =
        hc->nentries ? hc->entries[hc->nentries - 1].result : NULL;
    keys[c].benchmark = hc->benchmark;
    keys[c].dataset = hc->dataset;
    keys[c].has_scale = newest && newest->has_scale;
    keys[c].scale = newest ? newest->scale : 0.0;
    keys[c].id = c;
  }
  if (!st) {
    bs_case_order(keys, n);
    for (size_t i = 0; i < n; i++) {
      sorted[i] = h->cases[keys[i].id];
      where[keys[i].id] = i;
    }
    memcpy(h->cases, sorted, n * sizeof *sorted);
    for (size_t i = 0; i < h->nruns; i++)
      for (size_t k = 0; k < h->runs[i].nresults; k++)
        h->runs[i].results[k].case_idx = where[h->runs[i].results[k].case_idx];
  }
  free(keys);
  free(sorted);
  free(where);
  return st;
}

static bs_history_case *find_case(const bs_history *h, size_t n,
                                  const bs_history_result *r) {
  bs_history_case key = {0}; /* only the compared fields matter */
  key.benchmark = r->benchmark;
  key.dataset = r->dataset;
  return n ? bsearch(&key, h->cases, n, sizeof *h->cases, cmp_case) : NULL;
}

/* The distinct cases and, per case, its runs in date order. */
static bs_status collect_cases(bs_history *h, bs_error *err) {
  size_t cap = 0;
  for (size_t i = 0; i < h->nruns; i++)
    cap += h->runs[i].nresults;
  if (!(h->cases = calloc(cap ? cap : 1, sizeof *h->cases)))
    return bs__oom(err);
  /* Distinct (benchmark, dataset) pairs, byte order. Runs mostly measure
   * the cases of the run before: only a run's cases not found yet are
   * added and sorted in, not every result of the archive. */
  for (size_t i = 0; i < h->nruns; i++) {
    size_t known_cases = h->ncases;
    for (size_t k = 0; k < h->runs[i].nresults; k++) {
      const bs_history_result *r = &h->runs[i].results[k];
      if (find_case(h, known_cases, r))
        continue;
      h->cases[h->ncases].benchmark = r->benchmark;
      h->cases[h->ncases].dataset = r->dataset;
      h->ncases++;
    }
    if (h->ncases > known_cases)
      h->ncases = unique_cases(h->cases, h->ncases);
  }
  /* Entries: each case's results in date order, counted first. */
  for (size_t i = 0; i < h->nruns; i++) {
    for (size_t k = 0; k < h->runs[i].nresults; k++) {
      bs_history_result *r = &h->runs[i].results[k];
      bs_history_case *hc = find_case(h, h->ncases, r);
      if (!hc)
        return bs_error_set(err, BS_EINTERNAL, NULL, 0, "lost a case");
      r->case_idx = (size_t)(hc - h->cases);
      hc->nentries++;
    }
  }
  for (size_t c = 0; c < h->ncases; c++) {
    bs_history_case *hc = &h->cases[c];
    size_t n = hc->nentries ? hc->nentries : 1;
    if (!(hc->entries = calloc(n, sizeof *hc->entries)))
      return bs__oom(err);
    hc->nentries = 0;
  }
  for (size_t i = 0; i < h->nruns; i++) {
    for (size_t k = 0; k < h->runs[i].nresults; k++) {
      const bs_history_result *r = &h->runs[i].results[k];
      bs_history_case *hc = &h->cases[r->case_idx];
      hc->entries[hc->nentries].run = i;
      hc->entries[hc->nentries].result = r;
      hc->nentries++;
    }
  }
  return order_cases(h) ? bs__oom(err) : BS_OK;
}

/* Spearman drift over the medians of the last BS_HISTORY_DRIFT_RUNS runs
 * of the newest group that measured the case, and its calibrated flag. */
static bs_status drift(bs_history *h, bs_history_case *hc) {
  double x[BS_HISTORY_DRIFT_RUNS];
  size_t n = 0;
  size_t g = (size_t)-1;
  for (size_t i = hc->nentries; i-- > 0 && n < BS_HISTORY_DRIFT_RUNS;) {
    const bs_history_entry *e = &hc->entries[i];
    if (!e->result->has_median)
      continue;
    if (g == (size_t)-1)
      g = h->runs[e->run].group;
    if (h->runs[e->run].group != g)
      continue;
    x[n++] = e->result->median;
  }
  /* x holds newest first: the test wants date order. */
  for (size_t i = 0; i < n / 2; i++) {
    double t = x[i];
    x[i] = x[n - 1 - i];
    x[n - 1 - i] = t;
  }
  hc->drift_n = n;
  hc->drift_group = g;
  if (n < BS_NOISE_DRIFT_MIN)
    return BS_OK;
  bs_status st = bs_noise_drift(x, n, &hc->drift);
  if (st == BS_ENOMEM)
    return st;
  hc->has_drift = st == BS_OK;
  /* The rank test alone is calibrated (its noise is the medians' own
   * spread); the size keeps a tiny but steady drift from being flagged. */
  hc->drift_flagged =
      hc->has_drift && hc->drift.p < BS_HISTORY_DRIFT_ALPHA &&
      100 * fabs(hc->drift.relative_shift) >= BS_HISTORY_DRIFT_MIN_PCT;
  h->drifting += hc->drift_flagged != 0;
  return BS_OK;
}

/* The open significant regression of a case (bs_history_open): links
 * [0, n) with their points, at[k] the entry of link k. */
static void open_regression(const bs_history *h, bs_history_case *hc,
                            const bs_history_link *links,
                            const bs_history_point *pts, const size_t *at,
                            size_t n) {
  if (n == 0 || links[n - 1].acknowledged)
    return; /* an acknowledged newest link closes the stretch */
  size_t chain = pts[n - 1].chain, first = n - 1;
  for (size_t k = n - 1; k-- > 0;) {
    if (pts[k].chain != chain)
      continue;
    if (links[k].acknowledged)
      break;
    first = k;
  }
  /* ln of the product from each link to the newest, oldest first: the
   * oldest regression whose change still stands is where it began. */
  double rest = 0;
  for (size_t k = first; k < n; k++)
    if (pts[k].chain == chain)
      rest += bs__log1p(links[k].delta_pct / 100);
  for (size_t k = first; k < n; k++) {
    if (pts[k].chain != chain)
      continue;
    const bs_history_entry *e = &hc->entries[at[k]];
    if (links[k].significant_regression && h->runs[e->run].native &&
        rest >= bs__log1p(BS_HISTORY_CREEP_PCT / 100)) {
      hc->open.regression = 1;
      hc->open.regression_entry = at[k];
      hc->open.regression_pct = 100 * bs__expm1(rest);
      return;
    }
    rest -= bs__log1p(links[k].delta_pct / 100);
  }
}

/* The chains and creep of a case (its links: the runs that compared it
 * with a finite Δ%, A/A runs apart) and its open regression. */
static bs_status chain_case(bs_history *h, bs_history_case *hc, bs_error *err) {
  size_t cap = hc->nentries ? hc->nentries : 1;
  bs_history_link *links = calloc(cap, sizeof *links);
  bs_history_point *pts = calloc(cap, sizeof *pts);
  size_t *at = calloc(cap, sizeof *at);
  bs_status st = BS_OK;
  if (!links || !pts || !at) {
    st = bs__oom(err);
    goto done;
  }
  size_t n = 0;
  for (size_t i = 0; i < hc->nentries; i++) {
    bs_history_entry *e = &hc->entries[i];
    const bs_history_run *r = &h->runs[e->run];
    const bs_history_result *res = e->result;
    /* Not a link: nothing of a chain stays in the entry. */
    e->link = 0;
    e->chain = 0;
    e->chained_index = 0;
    if (!res->has_cmp || r->aa || !isfinite(res->delta_pct))
      continue;
    links[n].commit = r->commit;
    links[n].baseline_commit = r->baseline_commit;
    links[n].group = r->group;
    links[n].delta_pct = res->delta_pct;
    links[n].lo_pct = res->delta_lo_pct;
    links[n].hi_pct = res->delta_hi_pct;
    links[n].significant_regression = res->significant_regression;
    links[n].significant_improvement = res->significant_improvement;
    links[n].acknowledged = res->ack != NULL;
    at[n++] = i;
  }
  if ((st = bs_history_chain(links, n, pts, &hc->creep, err)))
    goto done;
  for (size_t k = 0; k < n; k++) {
    bs_history_entry *e = &hc->entries[at[k]];
    e->link = 1;
    e->chain = pts[k].chain;
    e->chained_index = pts[k].chained_index;
  }
  if (hc->creep.has_scan)
    hc->creep.since = at[hc->creep.since];
  h->creeping += hc->creep.creeping != 0;
  open_regression(h, hc, links, pts, at, n);
done:
  free(links);
  free(pts);
  free(at);
  return st;
}

/* The change points of a case over the medians of its drift group (the
 * newest BS_HISTORY_STEP_RUNS of them), seeded from its name so that the
 * same history gives the same steps whatever else the archive holds. */
static bs_status steps_case(const bs_history *h, bs_history_case *hc,
                            bs_error *err) {
  size_t g = hc->drift_group, n = 0;
  if (g == (size_t)-1)
    return BS_OK;
  size_t first = hc->nentries;
  for (size_t i = hc->nentries; i-- > 0 && n < BS_HISTORY_STEP_RUNS;) {
    const bs_history_entry *e = &hc->entries[i];
    if (e->result->has_median && h->runs[e->run].group == g) {
      n++;
      first = i;
    }
  }
  double *x = malloc((n ? n : 1) * sizeof *x);
  size_t *at = calloc(n ? n : 1, sizeof *at);
  if (!x || !at) {
    free(x);
    free(at);
    return bs__oom(err);
  }
  size_t m = 0;
  for (size_t i = first; i < hc->nentries; i++) {
    const bs_history_entry *e = &hc->entries[i];
    if (e->result->has_median && h->runs[e->run].group == g) {
      x[m] = e->result->median;
      at[m++] = i;
    }
  }
  uint64_t seed =
      bs__hash_bytes(bs__hash_bytes(0, hc->benchmark, strlen(hc->benchmark)),
                     hc->dataset, strlen(hc->dataset));
  bs_status st =
      bs_history_detect_steps(x, m, seed, &hc->steps, &hc->nsteps, err);
  for (size_t k = 0; !st && k < hc->nsteps; k++) {
    bs_history_step *sp = &hc->steps[k];
    /* Acknowledged when acks.csv covers its run or the series' run just
     * before or after it: the split is found to ±1 run. */
    size_t i = sp->entry;
    for (size_t j = i ? i - 1 : 0; j <= i + 1 && j < m; j++)
      sp->acknowledged |= hc->entries[at[j]].result->ack != NULL;
    sp->entry = at[i];
    sp->entry_before = at[sp->entry_before];
  }
  hc->steps_n = m;
  free(x);
  free(at);
  return st;
}

/* The open change point and creep of a case, and the earliest of all. */
static void open_case(bs_history *h, bs_history_case *hc) {
  bs_history_open *o = &hc->open;
  if (hc->nsteps) {
    double newest = hc->steps[hc->nsteps - 1].after;
    for (size_t k = 0; k < hc->nsteps; k++) {
      const bs_history_step *sp = &hc->steps[k];
      double still = 100 * (newest / sp->before - 1);
      if (!sp->acknowledged && sp->size_pct >= BS_HISTORY_CREEP_PCT &&
          still >= BS_HISTORY_CREEP_PCT) {
        o->step = 1;
        o->step_index = k;
        o->step_pct = still;
        break;
      }
    }
  }
  o->creep = hc->creep.creeping && hc->creep.creep_pct > 0;
  size_t since = (size_t)-1;
  if (o->regression)
    since = o->regression_entry;
  if (o->step && hc->steps[o->step_index].entry < since)
    since = hc->steps[o->step_index].entry;
  if (o->creep && hc->creep.since < since)
    since = hc->creep.since;
  o->any = since != (size_t)-1;
  o->since = o->any ? since : 0;
  h->open_regressions += o->regression != 0;
  h->open_steps += o->step != 0;
  h->open_creeps += o->creep != 0;
}

/* The medians of a case: how many, their range and the newest. */
static void median_range(bs_history_case *hc) {
  double lo = HUGE_VAL, hi = -HUGE_VAL;
  for (size_t i = 0; i < hc->nentries; i++) {
    const bs_history_result *r = hc->entries[i].result;
    if (!r->has_median)
      continue;
    hc->measured++;
    hc->newest = r;
    lo = bs__fmin(lo, r->median);
    hi = bs__fmax(hi, r->median);
  }
  hc->min_median = hc->measured ? lo : 0.0;
  hc->max_median = hc->measured ? hi : 0.0;
}

/* A list item with its sort key: the run (date order) where it began,
 * then its case and step. Keys are unique, so qsort's order is total. */
typedef struct listed {
  size_t run, case_idx, step;
} listed;

static int cmp_listed(const void *pa, const void *pb) {
  const listed *a = pa, *b = pb;
  if (a->run != b->run)
    return a->run > b->run ? -1 : 1; /* newest first */
  if (a->case_idx != b->case_idx)
    return a->case_idx < b->case_idx ? -1 : 1;
  return a->step > b->step ? -1 : a->step < b->step;
}

/* The model's lists of steps and open cases (see bs_history). */
static bs_status model_lists(bs_history *h, bs_error *err) {
  size_t nsteps = 0, nopen = 0;
  for (size_t c = 0; c < h->ncases; c++) {
    nsteps += h->cases[c].nsteps;
    nopen += h->cases[c].open.any != 0;
  }
  size_t most = nsteps > nopen ? nsteps : nopen;
  listed *v = malloc((most ? most : 1) * sizeof *v);
  if (!v)
    return bs__oom(err);
  /* One element at least, so that neither list is NULL. */
  if (!(h->step_refs = malloc((nsteps ? nsteps : 1) * sizeof *h->step_refs)) ||
      !(h->open_cases = malloc((nopen ? nopen : 1) * sizeof *h->open_cases))) {
    free(v);
    return bs__oom(err);
  }
  size_t m = 0;
  for (size_t c = 0; c < h->ncases; c++) {
    const bs_history_case *hc = &h->cases[c];
    for (size_t k = 0; k < hc->nsteps; k++)
      v[m++] = (listed){hc->entries[hc->steps[k].entry].run, c, k};
  }
  if (m)
    qsort(v, m, sizeof *v, cmp_listed);
  for (size_t i = 0; i < m; i++) {
    h->step_refs[i].case_idx = v[i].case_idx;
    h->step_refs[i].step = v[i].step;
  }
  h->nstep_refs = m;
  m = 0;
  for (size_t c = 0; c < h->ncases; c++) {
    const bs_history_case *hc = &h->cases[c];
    if (hc->open.any && hc->entries)
      v[m++] = (listed){hc->entries[hc->open.since].run, c, 0};
  }
  if (m)
    qsort(v, m, sizeof *v, cmp_listed);
  for (size_t i = 0; i < m; i++)
    h->open_cases[i] = v[i].case_idx;
  h->nopen_cases = m;
  free(v);
  return BS_OK;
}

bs_status bs_history_finish(bs_history *h, const bs_acks *acks, bs_error *err) {
  for (size_t i = 0; i < h->nruns; i++)
    if (tally_run(h, &h->runs[i], acks))
      return bs__oom(err);
  if (!(h->groups = calloc(h->nruns ? h->nruns : 1, sizeof *h->groups)))
    return bs__oom(err);
  assign_groups(h);
  bs_status st = collect_cases(h, err);
  for (size_t c = 0; c < h->ncases && !st; c++) {
    bs_history_case *hc = &h->cases[c];
    if (drift(h, hc))
      st = bs__oom(err);
    else if (!(st = chain_case(h, hc, err)) && !(st = steps_case(h, hc, err)))
      open_case(h, hc);
    median_range(hc);
  }
  return st ? st : model_lists(h, err);
}
