/* The admission check of `benchsite archive add`: what a run must pass
 * before it is stored for ever. */
#include "check_run.h"

#include "benchsite/check.h"
#include "benchsite/compare.h"

#include "csvin.h"
#include "oom.h"
#include "strlist.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Lists the check findings in res and refuses the run. */
static bs_status refuse_findings(const bs_check_result *cr, char ***findings,
                                 size_t *nfindings, bs_error *err) {
  for (size_t i = 0; i < cr->nfindings; i++) {
    const bs_finding *f = &cr->findings[i];
    if (bs__strlist_addf(findings, nfindings, "%s:%ld: %s: %s", f->file,
                         f->line, bs_check_kind_name(f->kind), f->message))
      return bs__oom(err);
  }
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "the logs have %zu check finding%s (see 'benchsite "
                      "check'); the run is not archived",
                      cr->nfindings, cr->nfindings == 1 ? "" : "s");
}

/* A run is archived for ever and the site analyses it on every build: its
 * comparison (the manifest's baseline against its candidate, as the site
 * computes it) must give a finite delta and speedup for every case. Values
 * the reader accepts (any finite per-call time) can still make them
 * overflow; such a run is refused here rather than poisoning every later
 * report and site. Runs without both keys, or whose impls do not pair
 * (the site then shows no verdicts), are not this check's business. */
/* Whether every per-call time of the log lies in [lo, hi] with
 * DBL_MIN <= lo, hi <= 2^40 lo and hi <= 2^1000: then no pairing of its
 * rows can give a non-finite delta or speedup, and finite_verdicts need
 * not pair anything (nearly every real log: 2^40 is a factor of 10^12).
 *
 * Why, in exact arithmetic first. For paired b_j, c_j >= lo and
 * d_j = c_j - b_j, med(b) + med(d) >= lo. Odd m, k = (m+1)/2: at least k
 * of the d_j are <= d_(k), and for each of those b_j = c_j - d_j >=
 * lo - d_(k), so b_(k) >= lo - d_(k). Even m, k = m/2: at least k+1 of the
 * d_j are <= d_(k+1), so b_(k) >= lo - d_(k+1); at least k are <= d_(k),
 * so b_(k+1) >= lo - d_(k); the two medians are the averages of those.
 * In doubles (u = 2^-53, every |d_j| < hi): each d_j is off by at most
 * u hi, so are its order statistics; the type-7 median adds at most
 * 2 u hi (a difference of at most 2 hi halved, then a sum), and med(b)
 * is off by at most 2 u hi. So the computed med(b) + med(d) is at least
 * lo - 6 u hi >= lo (1 - 6 * 2^-13) > lo / 2, the speedup is at most
 * 2 hi (1 + 2u) / lo < 2^42, and |delta| at most 100 * 2^42: all finite,
 * with no overflow on the way (hi <= 2^1000; lo normal, so no subnormal
 * rounding). */
static int times_close(const bs_log *log, bs_metric m) {
  const bs_row *rows = bs_log_rows(log);
  size_t n = bs_log_count(log);
  double lo = INFINITY, hi = 0.0;
  for (size_t i = 0; i < n; i++) {
    if (rows[i].phase != BS_PHASE_CONFIRM)
      continue; /* (every confirm row has a value of m: checked before) */
    double t = bs_log_value(log, &rows[i], m);
    lo = t < lo ? t : lo;
    hi = t > hi ? t : hi;
  }
  return n > 0 && lo >= DBL_MIN && hi <= 0x1p1000 && hi <= lo * 0x1p40;
}

/* The same for metric m's values (every metric the run records is
 * analysed by some site: --metric). */
static bs_status finite_verdicts(const bs_log *log, const bs_manifest *mf,
                                 bs_metric m, const char *manifest,
                                 bs_error *err) {
  const char *baseline = bs_manifest_get(mf, "baseline");
  const char *candidate = bs_manifest_get(mf, "candidate");
  if (!baseline || !candidate || times_close(log, m))
    return BS_OK;
  /* Only the point estimates matter here, and bs_compare_run computes a
   * case's delta and speedup from its three medians (and refuses a
   * non-finite one, BS_EINPUT) before it bootstraps anything; the pairing
   * before that does not depend on the options either. So one resample in
   * hotspot mode (the gate's threshold and level, which that mode accepts)
   * reaches the same verdict with the same message as the confirmatory
   * 10 000, without their cost: the bootstrap of a single resample fails
   * only where the full one would (out of memory aside). */
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_HOTSPOT);
  co.threshold_pct = BS_GATE_THRESHOLD_PCT;
  co.level_pct = BS_GATE_LEVEL_PCT;
  co.resamples = 1;
  co.metric = m;
  const bs_metric_info *mi = bs_metric_get(m);
  bs_compare_result *cmp = NULL;
  bs_error e;
  bs_error_clear(&e);
  bs_status st = bs_compare_run(log, baseline, candidate, &co, &cmp, &e);
  if (st == BS_EINPUT) {
    if (err) {
      *err = e;
      if (m != BS_METRIC_WALL) /* which of the metrics */
        snprintf(err->message, sizeof err->message, "metric %s: %.700s",
                 mi->name, e.message);
    }
    return st;
  }
  if (st == BS_ENOMEM)
    return bs__oom_as(err, st);
  st = BS_OK;
  for (size_t i = 0; cmp && i < cmp->ncases && !st; i++) {
    const bs_case_compare *c = &cmp->cases[i];
    if (isfinite(c->delta_pct) && isfinite(c->speedup))
      continue;
    char label[256], q[BS__QUOTE_BUF];
    bs__case_label(label, sizeof label, c->benchmark, c->dataset);
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "case %s: %s%s%sthe delta of \"%s\" against \"%s\" is "
                      "not a finite number (%s too far apart); such a run "
                      "cannot be compared and is not archived",
                      bs__csvin_quote(q, label, strlen(label), 0),
                      m == BS_METRIC_WALL ? "" : "metric ",
                      m == BS_METRIC_WALL ? "" : mi->name,
                      m == BS_METRIC_WALL ? "" : ": ", candidate, baseline,
                      m == BS_METRIC_WALL ? "per-call times" : "its values");
  }
  bs_compare_result_free(cmp);
  return st;
}

bs_status bs__check_admission(const bs_log *log, const bs_manifest *mf,
                              const char *manifest, char ***findings,
                              size_t *nfindings, bs_error *err) {
  bs_check_options co;
  bs_check_options_init(&co);
  bs_status st;
  if ((st = bs_check_protocol_target(bs_manifest_get(mf, "protocol"),
                                     &co.target_us, err)) ||
      (st = bs_check_batch_rule_named(bs_manifest_get(mf, "batch_rule"),
                                      &co.batch_rule, err))) {
    if (err)
      snprintf(err->path, sizeof err->path, "%s", manifest);
    return st;
  }
  bs_check_result *cr = NULL;
  if ((st = bs_check_run(log, &co, &cr, err)))
    return st;
  if (cr->nfindings)
    st = refuse_findings(cr, findings, nfindings, err);
  bs_check_result_free(cr);
  /* Every metric the run records, on every confirm row, with verdicts that
   * can be computed: a site of any --metric can then analyse it (a metric
   * the run does not record at all is a note on its pages). */
  for (int m = 0; m < BS_METRIC_COUNT && !st; m++) {
    if (!bs_log_records(log, (bs_metric)m))
      continue;
    if (!(st = bs_log_require_metric(log, (bs_metric)m, err)))
      st = finite_verdicts(log, mf, (bs_metric)m, manifest, err);
  }
  return st;
}
