/* The history model: per-run results from their analyses, then groups,
 * cases, chains, creep and drift over all runs (see history.h). */
#include "benchsite/history.h"

#include "benchsite/bootstrap.h"
#include "benchsite/order.h"
#include "benchsite/quantile.h"

#include "grow.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Chains -------------------------------------------------------------- */

static int known(const char *s) { return s && s[0]; }

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
  creep->creep_pct = 100 * (creep->index - 1);
  /* The stretch I_last multiplies: back along the chain to the link after
   * the last acknowledged one. */
  int up = creep->creep_pct > 0, excluded = 0;
  for (size_t k = n; k-- > 0;) {
    if (points[k].chain != chain)
      continue;
    if (k != last && links[k].acknowledged)
      break;
    creep->links++;
    if (up ? links[k].significant_regression : links[k].significant_improvement)
      excluded = 1;
  }
  creep->creeping = fabs(creep->creep_pct) >= BS_HISTORY_CREEP_PCT && !excluded;
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

/* The confirm samples of `impl` in case c into *x (grown as needed). */
static bs_status samples_of(const bs_log *log, const bs_case *c,
                            const char *impl, double **x, size_t *cap,
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
    (*x)[(*m)++] = row->per_call_us;
  }
  return BS_OK;
}

bs_status bs_history_results(const bs_analysis *an, const char *candidate,
                             bs_history_result **out, size_t *n,
                             bs_error *err) {
  const bs_log *log = an->log;
  const bs_compare_result *cmp = an->compare;
  size_t ncases = bs_log_case_count(log), done = 0, xcap = 0;
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
    if (samples_of(log, c, history_impl(log, c, candidate), &x, &xcap, &m)) {
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
  free(h);
}

size_t bs_history_newest(const bs_history *h) {
  if (h->nruns == 0)
    return 0;
  size_t i = h->nruns - 1;
  while (i > 0 && bs_archive_date_in_future(h->runs[i].date))
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

/* What a run's results count towards: acknowledgements and verdicts. */
static bs_status tally_run(bs_history *h, bs_history_run *r,
                           const bs_acks *acks) {
  if (order_results(r->results, r->nresults))
    return BS_ENOMEM;
  r->native = bs_manifest_require_native(r->manifest, NULL) == BS_OK;
  for (size_t k = 0; k < r->nresults; k++) {
    bs_history_result *res = &r->results[k];
    res->ack = bs_acks_find(acks, r->commit, res->benchmark, res->dataset);
    if (!res->has_cmp)
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
  bs_history_case key;
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
 * of the newest group that measured the case. */
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
  h->drifting += hc->has_drift && hc->drift.drifted;
  return BS_OK;
}

/* The chains and creep of a case (its links: the runs that compared it
 * with a finite Δ%). */
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
    const bs_history_entry *e = &hc->entries[i];
    const bs_history_run *r = &h->runs[e->run];
    const bs_history_result *res = e->result;
    if (!res->has_cmp || !isfinite(res->delta_pct))
      continue;
    links[n].commit = r->commit;
    links[n].baseline_commit = r->baseline_commit;
    links[n].group = r->group;
    links[n].delta_pct = res->delta_pct;
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
  h->creeping += hc->creep.creeping != 0;
done:
  free(links);
  free(pts);
  free(at);
  return st;
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
    lo = fmin(lo, r->median);
    hi = fmax(hi, r->median);
  }
  hc->min_median = hc->measured ? lo : 0.0;
  hc->max_median = hc->measured ? hi : 0.0;
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
    else
      st = chain_case(h, hc, err);
    median_range(hc);
  }
  return st;
}
