#include "benchsite/compare.h"

#include "benchsite/bootstrap.h"
#include "benchsite/quantile.h"
#include "lmath.h"
#include "oom.h"
#include "pairs.h"
#include "strlist.h"
#include "student_t.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *bs_verdict_name(bs_verdict v) {
  switch (v) {
  case BS_VERDICT_FASTER:
    return "faster";
  case BS_VERDICT_SLOWER:
    return "slower";
  case BS_VERDICT_EQUIVALENT:
    break;
  }
  return "equivalent";
}

const char *bs_mode_name(bs_mode m) {
  return m == BS_MODE_HOTSPOT ? "hotspot" : "confirmatory";
}

void bs_compare_options_init(bs_compare_options *o, bs_mode mode) {
  memset(o, 0, sizeof *o);
  o->mode = mode;
  o->threshold_pct = BS_GATE_THRESHOLD_PCT;
  o->level_pct = BS_GATE_LEVEL_PCT;
  o->resamples =
      mode == BS_MODE_HOTSPOT ? BS_HOTSPOT_RESAMPLES : BS_GATE_RESAMPLES;
  o->seed = 0;
}

bs_status bs_compare_options_check(const bs_compare_options *o, bs_error *err) {
  bs_status st = bs_bootstrap_check_level(o->level_pct, err);
  if (st)
    return st;
  if ((st = bs_metric_check_direction(o->metric, err)))
    return st;
  if (!(isfinite(o->threshold_pct) && o->threshold_pct > 0))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "threshold must be a positive percentage");
  if (o->resamples < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (o->mode == BS_MODE_HOTSPOT && o->threshold_pct < BS_MIN_THRESHOLD_PCT)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "threshold %g is a percentage, and below %g %% it is "
                        "probably a fraction; did you mean %g?",
                        o->threshold_pct, BS_MIN_THRESHOLD_PCT,
                        o->threshold_pct * 100.0);
  if (o->mode == BS_MODE_CONFIRMATORY &&
      (o->threshold_pct != BS_GATE_THRESHOLD_PCT ||
       o->level_pct != BS_GATE_LEVEL_PCT || o->resamples != BS_GATE_RESAMPLES))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "confirmatory mode fixes the threshold at 3 %%, the "
                        "level at 95 %% and 10000 resamples; use --mode "
                        "hotspot to change them");
  return BS_OK;
}

static void case_free(bs_case_compare *c) {
  free(c->baseline);
  free(c->candidate);
  free(c->delta);
  free(c->runs);
  free(c->block_ids);
  free(c->thetas);
  bs__strlist_free(c->warnings, c->nwarnings);
}

void bs_compare_result_free(bs_compare_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->ncases; i++)
    case_free(&r->cases[i]);
  free(r->cases);
  free(r->one_sided);
  bs__strlist_free(r->warnings, r->nwarnings);
  free(r->baseline);
  free(r->candidate);
  free(r);
}

/* Pairs the nb > 0 B rows and nc > 0 C rows of case `out` (benchmark and
 * dataset set).
 * Returns BS_OK with out's series filled, or BS_EMISMATCH with the
 * unpaired rows described in err. */
static bs_status pair_case(const bs_log *log, bs__keyed *kb, size_t nb,
                           bs__keyed *kc, size_t nc, bs_metric metric,
                           bs_case_compare *out, bs_error *err) {
  qsort(kb, nb, sizeof *kb, bs__keyed_cmp);
  qsort(kc, nc, sizeof *kc, bs__keyed_cmp);
  size_t i = 0, j = 0, m = 0;
  /* The row itself, not a pointer into kb/kc: pairing compacts those
   * arrays in place and may overwrite the slot of an unpaired row. */
  const bs_row *first = NULL;
  size_t unpaired = 0;
  char list[600];
  size_t used = 0, listed = 0;
  list[0] = '\0';
  while (i < nb || j < nc) {
    int c;
    if (i == nb)
      c = 1;
    else if (j == nc)
      c = -1;
    else
      c = bs__keyed_cmp(&kb[i], &kc[j]);
    if (c == 0) {
      kb[m] = kb[i];
      kc[m] = kc[j];
      m++;
      i++;
      j++;
      continue;
    }
    const bs__keyed *lone = c < 0 ? &kb[i++] : &kc[j++];
    if (unpaired++ == 0)
      first = lone->row;
    bs__keyed_describe(list, sizeof list, &used, log, lone, 1, &listed);
  }
  /* Every row is paired or unpaired, and nb, nc > 0: m > 0 from here. */
  if (unpaired) {
    char label[256];
    bs__case_label(label, sizeof label, out->benchmark, out->dataset);
    return bs_error_set(
        err, BS_EMISMATCH, bs_log_row_file(log, first), (long)first->line,
        "mismatched pairs in case %s: %zu row%s without a partner: %s%s", label,
        listed, listed == 1 ? "" : "s", list, listed > 8 ? ", ..." : "");
  }
  out->blocks = m;
  out->baseline = malloc(m * sizeof(double));
  out->candidate = malloc(m * sizeof(double));
  out->delta = malloc(m * sizeof(double));
  out->runs = malloc(m * sizeof(uint64_t));
  out->block_ids = malloc(m * sizeof(int64_t));
  if (!out->baseline || !out->candidate || !out->delta || !out->runs ||
      !out->block_ids)
    return bs__oom(err);
  for (size_t k = 0; k < m; k++) {
    out->baseline[k] = bs__row_value(log, kb[k].row, metric);
    out->candidate[k] = bs__row_value(log, kc[k].row, metric);
    out->delta[k] = out->candidate[k] - out->baseline[k];
    out->runs[k] = kb[k].run;
    out->block_ids[k] = kb[k].block;
  }
  return BS_OK;
}

/* The decisions that depend on the threshold: the gate and its mirror at
 * effective_threshold_pct, the verdict at delta. */
static void decide(bs_case_compare *c, double delta) {
  double eff = c->effective_threshold_pct;
  if (c->delta_pct <= -delta)
    c->verdict = BS_VERDICT_FASTER;
  else if (c->delta_pct >= delta)
    c->verdict = BS_VERDICT_SLOWER;
  else
    c->verdict = BS_VERDICT_EQUIVALENT;
  int up = c->delta_pct >= eff && c->ci_low_us > 0;
  int down = c->delta_pct <= -eff && c->ci_high_us < 0;
  /* A layout-sensitive case's change must also hold over its runs: a
   * one-sided t test at the interval's level. */
  double alpha = (100.0 - c->level_pct) / 200.0;
  c->held_by_layout =
      c->layout_sensitive && ((up && !(c->runs_p_value <= alpha)) ||
                              (down && !(1.0 - c->runs_p_value <= alpha)));
  c->significant_regression = up && !c->held_by_layout;
  c->significant_improvement = down && !c->held_by_layout;
  c->family_significant_regression =
      c->significant_regression && c->holm_p <= BS_FAMILY_ALPHA;
  /* Resolution (SPEC §2.9): U% >= delta_eff, the same threshold the gate
   * uses, so a case either shows a regression of delta_eff, rules one
   * out, or is inconclusive. */
  c->inconclusive =
      !c->significant_regression && bs_compare_upper_pct(c) >= eff;
  /* The minimum detectable change (SPEC §2.15). A true regression of x %
   * moves the whole interval by about x - delta_pct: its lower end clears
   * zero once x > delta_pct - L%, and the gate also wants x >= delta_eff.
   * The largest of the two, with no rounding between the two operands
   * and the subtraction, so that anyone can recompute it from the JSON's
   * delta_pct, ci_low_us and median_baseline_us exactly. */
  double reach = c->delta_pct - bs_compare_lower_pct(c);
  c->mde_pct = !isfinite(reach) ? (double)NAN : reach > eff ? reach : eff;
  c->blind = c->mde_pct > delta && !c->significant_regression &&
             !c->significant_improvement;
}

double bs_compare_look_level(unsigned looks) {
  return looks == 0   ? BS_GATE_LEVEL_PCT
         : looks == 1 ? BS_LOOK0_LEVEL_PCT
                      : BS_LOOK_EXTRA_LEVEL_PCT;
}

double bs_compare_lower_pct(const bs_case_compare *c) {
  return 100.0 * (c->ci_low_us / c->median_baseline_us);
}

double bs_compare_upper_pct(const bs_case_compare *c) {
  return 100.0 * (c->ci_high_us / c->median_baseline_us);
}

static void recount(bs_compare_result *r) {
  r->regressions = r->improvements = r->family_regressions = 0;
  r->inconclusive = r->adaptive = r->layout_sensitive = r->blind = 0;
  r->held_by_layout = 0;
  r->blind_max_mde_pct = NAN;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    if (c->blind &&
        (isnan(r->blind_max_mde_pct) || c->mde_pct > r->blind_max_mde_pct))
      r->blind_max_mde_pct = c->mde_pct;
    r->blind += c->blind != 0;
    r->inconclusive += c->inconclusive != 0;
    r->adaptive += c->looks > 1;
    r->layout_sensitive += c->layout_sensitive != 0;
    r->held_by_layout += c->held_by_layout != 0;
    r->regressions += c->significant_regression != 0;
    r->improvements += c->significant_improvement != 0;
    r->family_regressions += c->family_significant_regression != 0;
  }
}

size_t bs_compare_gate_failures(const bs_compare_result *r) {
  return r->options.family_wise ? r->family_regressions : r->regressions;
}

/* The spread of the per-run paired changes (pairs come in run order), and
 * the number of runs. NaN spread with fewer than BS_SPREAD_MIN_RUNS runs.
 * Allocates a scratch copy of the longest run; BS_ENOMEM. */
static bs_status between_runs(bs_case_compare *c) {
  size_t m = c->blocks, longest = 0;
  c->nruns = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    while (j < m && c->runs[j] == c->runs[i])
      j++;
    longest = j - i > longest ? j - i : longest;
    c->nruns++;
    i = j;
  }
  c->between_runs_pct = NAN;
  c->runs_p_value = NAN;
  c->layout_sensitive = 0;
  if (c->nruns < BS_SPREAD_MIN_RUNS)
    return BS_OK;
  double *scratch = malloc(2 * longest * sizeof *scratch);
  if (!scratch)
    return BS_ENOMEM;
  double lo = HUGE_VAL, hi = -HUGE_VAL, mean = 0.0, ss = 0.0;
  size_t k = 0;
  for (size_t i = 0; i < m;) {
    size_t j = i;
    while (j < m && c->runs[j] == c->runs[i])
      j++;
    memcpy(scratch, c->baseline + i, (j - i) * sizeof *scratch);
    memcpy(scratch + longest, c->delta + i, (j - i) * sizeof *scratch);
    double pct = 100.0 * (bs_median(scratch + longest, j - i) /
                          bs_median(scratch, j - i));
    lo = pct < lo ? pct : lo;
    hi = pct > hi ? pct : hi;
    /* Welford's running mean and sum of squared deviations. */
    k++;
    double dev = pct - mean;
    mean += dev / (double)k;
    ss += dev * (pct - mean);
    i = j;
  }
  free(scratch);
  c->between_runs_pct = hi - lo;
  /* t = mean / (sd / sqrt(k)); runs that all agree exactly (sd 0) confirm
   * the sign of their mean, or neither sign when it is 0. */
  double sd = bs__sqrt(ss / (double)(k - 1));
  double t = sd > 0     ? mean / (sd / bs__sqrt((double)k))
             : mean > 0 ? HUGE_VAL
             : mean < 0 ? -HUGE_VAL
                        : 0.0;
  c->runs_p_value = bs__student_t_sf(t, (unsigned long)(k - 1));
  return BS_OK;
}

/* Point estimates, interval, p-value and verdict for a paired case. */
static bs_status analyse_case(bs_case_compare *c, const bs_compare_options *o,
                              bs_error *err) {
  size_t m = c->blocks;
  c->median_baseline_us = bs_median(c->baseline, m);
  c->median_candidate_us = bs_median(c->candidate, m);
  c->median_delta_us = bs_median(c->delta, m);
  if (isnan(c->median_baseline_us) || isnan(c->median_delta_us))
    return bs__oom(err);
  /* The ratio first: med(d) and med(b) are finite, and their ratio stays
   * finite where 100 * med(d) could overflow. */
  c->delta_pct = 100.0 * (c->median_delta_us / c->median_baseline_us);
  c->speedup =
      c->median_baseline_us / (c->median_baseline_us + c->median_delta_us);
  if (!isfinite(c->delta_pct) || !isfinite(c->speedup)) {
    char label[256];
    bs__case_label(label, sizeof label, c->benchmark, c->dataset);
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "case %s: the change is not a finite number (delta "
                        "%g %%, speedup %g): the per-call times are too far "
                        "apart to compare",
                        label, c->delta_pct, c->speedup);
  }
  if (o->keep_bootstrap) {
    c->thetas = malloc((size_t)o->resamples * sizeof(double));
    if (!c->thetas)
      return bs__oom(err);
  }
  c->level_pct = o->mode == BS_MODE_CONFIRMATORY
                     ? bs_compare_look_level(c->looks)
                     : o->level_pct;
  uint64_t nonpositive = 0;
  bs_status st = bs_bootstrap_median_ci_count(
      c->delta, m, o->resamples, c->level_pct, o->seed, &c->ci_low_us,
      &c->ci_high_us, c->thetas, &nonpositive, err);
  if (st)
    return st;
  if (between_runs(c))
    return bs__oom(err);
  /* Each run's measuring processes draw their own memory layout: runs
   * that disagree by more than the gate's threshold say the layout, not
   * the code, may decide this case. */
  c->layout_sensitive =
      !isnan(c->between_runs_pct) && c->between_runs_pct > o->threshold_pct;
  if (!c->layout_sensitive)
    c->runs_p_value = NAN;
  c->p_value = (1.0 + (double)nonpositive) / ((double)o->resamples + 1.0);
  c->effective_threshold_pct = o->threshold_pct;
  c->outliers = bs_tukey_outliers(c->delta, m);

  if (m < BS_MIN_RELIABLE_PAIRS &&
      bs__strlist_addf(&c->warnings, &c->nwarnings,
                       "only %zu pair%s: with fewer than %d the interval is "
                       "unreliable",
                       m, m == 1 ? "" : "s", BS_MIN_RELIABLE_PAIRS))
    return bs__oom(err);
  if (c->outliers &&
      bs__strlist_addf(&c->warnings, &c->nwarnings,
                       "%zu of %zu paired differences lie outside the Tukey "
                       "fences (kept; the median is robust to them)",
                       c->outliers, m))
    return bs__oom(err);
  return BS_OK;
}

void bs_compare_adjust(const double *p, const size_t *order, size_t k,
                       double *holm, double *bh) {
  /* Holm: p_(i) -> min(1, max_{j <= i} (K - j + 1) p_(j)), 1-based. */
  double run = 0.0;
  for (size_t i = 0; i < k; i++) {
    double v = (double)(k - i) * p[order[i]];
    if (v > run)
      run = v;
    holm[order[i]] = run < 1.0 ? run : 1.0;
  }
  /* Benjamini-Hochberg: q_(i) = min_{j >= i} min(1, K p_(j) / j). */
  double low = 1.0;
  for (size_t i = k; i-- > 0;) {
    double v = (double)k * p[order[i]] / (double)(i + 1);
    if (v < low)
      low = v;
    bh[order[i]] = low;
  }
}

/* A case in the order of its p-value. */
typedef struct ranked {
  const bs_case_compare *c;
} ranked;

/* Ascending p, ties by benchmark then dataset (byte order). */
static int cmp_p(const void *a, const void *b) {
  const bs_case_compare *x = ((const ranked *)a)->c;
  const bs_case_compare *y = ((const ranked *)b)->c;
  if (x->p_value != y->p_value)
    return x->p_value < y->p_value ? -1 : 1;
  int c = strcmp(x->benchmark, y->benchmark);
  return c ? c : strcmp(x->dataset, y->dataset);
}

/* p-values, Holm and BH over the K compared cases of r. */
static bs_status adjust_family(bs_compare_result *r) {
  size_t k = r->ncases;
  ranked *sorted = malloc(k * sizeof *sorted);
  size_t *order = malloc(k * sizeof *order);
  double *p = malloc(k * sizeof *p), *holm = malloc(k * sizeof *holm),
         *bh = malloc(k * sizeof *bh);
  bs_status st = BS_ENOMEM;
  if (!sorted || !order || !p || !holm || !bh)
    goto done;
  for (size_t i = 0; i < k; i++) {
    sorted[i].c = &r->cases[i];
    p[i] = r->cases[i].p_value;
  }
  qsort(sorted, k, sizeof *sorted, cmp_p);
  for (size_t i = 0; i < k; i++)
    order[i] = (size_t)(sorted[i].c - r->cases);
  bs_compare_adjust(p, order, k, holm, bh);
  for (size_t i = 0; i < k; i++) {
    r->cases[i].holm_p = holm[i];
    r->cases[i].bh_q = bh[i];
  }
  st = BS_OK;
done:
  free(sorted);
  free(order);
  free(p);
  free(holm);
  free(bh);
  return st;
}

bs_status bs_compare_run(const bs_log *log, const char *baseline,
                         const char *candidate, const bs_compare_options *opt,
                         bs_compare_result **out, bs_error *err) {
  *out = NULL;
  bs_status st = bs_compare_options_check(opt, err);
  if (st)
    return st;
  if (!strcmp(baseline, candidate))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "baseline and candidate are both \"%s\"", baseline);
  if ((st = bs_log_require_metric(log, opt->metric, err)))
    return st;

  bs_compare_result *r = calloc(1, sizeof *r);
  size_t ncase = bs_log_case_count(log);
  bs__pairs bc = {0};
  if (!r)
    return bs__oom(err);
  r->options = *opt;
  /* The hook is the caller's for this call, not the result's. */
  r->options.progress = NULL;
  r->options.progress_ctx = NULL;
  r->baseline = bs__strdup(baseline);
  r->candidate = bs__strdup(candidate);
  r->cases = calloc(ncase ? ncase : 1, sizeof *r->cases);
  r->one_sided = calloc(ncase ? ncase : 1, sizeof *r->one_sided);
  if (!r->baseline || !r->candidate || !r->cases || !r->one_sided) {
    st = bs__oom(err);
    goto fail;
  }

  for (size_t ci = 0; ci < ncase; ci++) {
    const bs_case *lc = bs_log_case(log, ci);
    if ((st = bs__pairs_gather(&bc, log, lc, baseline, candidate, err)))
      goto fail;
    size_t nb = bc.nx, nc = bc.ny;
    if (nb == 0 && nc == 0)
      continue;
    if (nb == 0 || nc == 0) {
      bs_one_sided *os = &r->one_sided[r->n_one_sided++];
      os->benchmark = lc->benchmark;
      os->dataset = lc->dataset;
      os->present = nb ? baseline : candidate;
      char label[256];
      bs__case_label(label, sizeof label, lc->benchmark, lc->dataset);
      if (bs__strlist_addf(&r->warnings, &r->nwarnings,
                           "case %s has rows only for %s \"%s\" (%s "
                           "benchmark?); left out of the comparison",
                           label, nb ? "baseline" : "candidate",
                           nb ? baseline : candidate, nb ? "removed" : "new")) {
        st = bs__oom(err);
        goto fail;
      }
      continue;
    }
    bs_case_compare *c = &r->cases[r->ncases++];
    c->benchmark = lc->benchmark;
    c->dataset = lc->dataset;
    c->looks = lc->looks;
    st = pair_case(log, bc.x, nb, bc.y, nc, opt->metric, c, err);
    if (st)
      goto fail;
    st = analyse_case(c, opt, err);
    if (st)
      goto fail;
    if (opt->progress && opt->progress(opt->progress_ctx, ci + 1, ncase)) {
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto fail;
    }
  }
  if (r->ncases == 0) {
    st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "no case has confirm rows of both \"%s\" and \"%s\"",
                      baseline, candidate);
    goto fail;
  }
  if (adjust_family(r)) {
    st = bs__oom(err);
    goto fail;
  }
  for (size_t i = 0; i < r->ncases; i++)
    decide(&r->cases[i], opt->threshold_pct);
  recount(r);
  bs__pairs_release(&bc);
  *out = r;
  return BS_OK;
fail:
  bs__pairs_release(&bc);
  bs_compare_result_free(r);
  return st;
}

bs_status bs_compare_check_environment(bs_compare_result *r,
                                       const bs_manifest *const *manifests,
                                       size_t n) {
  if (n == 0)
    return bs__strlist_addf(&r->warnings, &r->nwarnings,
                            "no environment manifest: nobody can later tell "
                            "whether this run is comparable");
  const bs_manifest *first = manifests[0];
  const char *unrec[BS_MANIFEST_NCOMPARABILITY];
  size_t nu = bs_manifest_unrecorded(manifests, n, unrec);
  char missing[256] = "";
  size_t used = 0;
  for (size_t k = 0; k < nu; k++) {
    int w = snprintf(missing + used, sizeof missing - used, "%s%s",
                     used ? ", " : "", unrec[k]);
    if (w > 0 && (size_t)w < sizeof missing - used)
      used += (size_t)w;
  }
  if (nu && n == 1 &&
      bs__strlist_addf(&r->warnings, &r->nwarnings,
                       "manifest %s lacks comparability keys: %s (a key "
                       "nobody recorded counts as equal, so runs that "
                       "differ in it cannot be told apart)",
                       bs_manifest_path(first), missing))
    return BS_ENOMEM;
  if (nu && n > 1 &&
      bs__strlist_addf(&r->warnings, &r->nwarnings,
                       "comparability keys nobody recorded: %s (no manifest "
                       "has them, so they count as equal)",
                       missing))
    return BS_ENOMEM;
  for (size_t i = 1; i < n; i++) {
    const char *diff[BS_MANIFEST_NCOMPARABILITY];
    size_t nd = 0;
    if (bs_manifest_comparable(first, manifests[i], diff, &nd))
      continue;
    char keys[256] = "";
    size_t ku = 0;
    for (size_t k = 0; k < nd; k++) {
      const char *va = bs_manifest_comparability_value(first, diff[k]);
      const char *vb = bs_manifest_comparability_value(manifests[i], diff[k]);
      int w = snprintf(keys + ku, sizeof keys - ku, "%s%s (\"%s\" vs \"%s\")",
                       ku ? ", " : "", diff[k], va ? va : "missing",
                       vb ? vb : "missing");
      if (w > 0 && (size_t)w < sizeof keys - ku)
        ku += (size_t)w;
    }
    if (bs__strlist_addf(&r->warnings, &r->nwarnings,
                         "manifests %s and %s are not comparable: %s",
                         bs_manifest_path(first),
                         bs_manifest_path(manifests[i]), keys))
      return BS_ENOMEM;
  }
  return BS_OK;
}

bs_status bs_compare_apply_noise(bs_compare_result *r,
                                 int (*lookup)(void *ctx, const char *benchmark,
                                               const char *dataset,
                                               double *floor_pct),
                                 void *ctx) {
  double delta = r->options.threshold_pct;
  char missing[512] = "";
  size_t used = 0;
  r->raised = r->without_floor = 0;
  r->noise_applied = 1;
  for (size_t i = 0; i < r->ncases; i++) {
    bs_case_compare *c = &r->cases[i];
    double f;
    c->has_noise_floor = 0;
    c->noise_floor_pct = 0;
    c->within_noise = 0;
    c->effective_threshold_pct = delta;
    if (lookup(ctx, c->benchmark, c->dataset, &f)) {
      c->has_noise_floor = 1;
      c->noise_floor_pct = f;
      c->within_noise = fabs(c->delta_pct) <= f;
      /* delta_eff only ever raises delta: the gate cannot be weakened. */
      if (f > delta) {
        c->effective_threshold_pct = f;
        r->raised++;
        if (bs__strlist_addf(&c->warnings, &c->nwarnings,
                             "threshold raised from %g %% to %.3g %%: this "
                             "case's A/A paired noise floor is above it, so "
                             "a smaller change cannot be told from noise "
                             "here",
                             delta, f))
          return BS_ENOMEM;
      }
    } else {
      char label[256];
      bs__case_label(label, sizeof label, c->benchmark, c->dataset);
      if (r->without_floor < 8) {
        int w = snprintf(missing + used, sizeof missing - used, "%s%s",
                         used ? ", " : "", label);
        if (w > 0 && (size_t)w < sizeof missing - used)
          used += (size_t)w;
      }
      r->without_floor++;
    }
    decide(c, delta);
  }
  recount(r);
  if (r->without_floor &&
      bs__strlist_addf(&r->warnings, &r->nwarnings,
                       "no A/A noise floor for %zu of %zu case%s (%s%s): "
                       "%s the plain threshold of %g %%",
                       r->without_floor, r->ncases, r->ncases == 1 ? "" : "s",
                       missing, r->without_floor > 8 ? ", ..." : "",
                       r->without_floor == 1 ? "it keeps" : "they keep", delta))
    return BS_ENOMEM;
  return BS_OK;
}
