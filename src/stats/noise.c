#include "benchsite/noise.h"

#include "benchsite/bootstrap.h"
#include "benchsite/compare.h"
#include "benchsite/quantile.h"
#include "binomial.h"
#include "lmath.h"
#include "oom.h"
#include "orderstat.h"
#include "pairs.h"
#include "resample_int.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bs_noise_options_init(bs_noise_options *o) {
  memset(o, 0, sizeof *o);
  o->resamples = BS_NOISE_RESAMPLES;
  o->level = BS_NOISE_LEVEL;
  o->seed = 0;
  o->block_mode = BS_BLOCK_NONE;
  o->block_length = 0;
}

bs_status bs_noise_options_check(const bs_noise_options *o, bs_error *err) {
  if (!isfinite(o->level))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level must be a fraction between 0.5 and 1");
  if (o->level > 1.0 && o->level < 100.0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level %g: the A/A level is a fraction in (0.5, 1), "
                        "not a percentage; did you mean %g?",
                        o->level, o->level / 100.0);
  if (!(o->level > 0.5 && o->level < 1.0))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "level %g is outside (0.5, 1); the A/A level is a "
                        "fraction such as 0.95",
                        o->level);
  if (o->resamples < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (o->resamples > UINT32_MAX)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "at most %lu resamples are supported",
                        (unsigned long)UINT32_MAX);
  if (o->block_mode == BS_BLOCK_FIXED && o->block_length < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the block length must be at least 1 (or auto)");
  return bs_metric_check_direction(o->metric, err);
}

/* --- resampling -------------------------------------------------------- */

size_t bs_noise_auto_block_length(size_t n) {
  if (n < 2)
    return 1;
  double l = bs__round(bs__cbrt((double)n));
  size_t half = n / 2;
  if (!(l >= 1.0))
    return 1;
  if (l >= (double)half)
    return half;
  return (size_t)l;
}

void bs_noise_block_indices(bs_rng *rng, size_t n, size_t L, size_t *idx) {
  uint64_t starts = (uint64_t)(n - L + 1);
  size_t filled = 0;
  while (filled < n) {
    size_t start = (size_t)bs_rng_index(rng, starts);
    for (size_t t = 0; t < L && filled < n; t++)
      idx[filled++] = start + t;
  }
}

/* The seed's test, literally: a tie counts, so conf(x, y) + conf(y, x) - 1
 * recovers the share of tied replicates. */
static inline int replicate_counts(double mx, double my) {
  return mx == my || 1.0 - mx / my >= 0.0;
}

bs_status bs_noise_confidence(const double *x, size_t nx, size_t lx,
                              const double *y, size_t ny, size_t ly,
                              uint64_t resamples, uint64_t seed, double *conf,
                              bs_error *err) {
  return bs_noise_confidence_engine(x, nx, lx, y, ny, ly, resamples, seed,
                                    BS_RESAMPLE_ENGINE_AUTO, NULL, conf, err);
}

bs_status bs_noise_confidence_engine(const double *x, size_t nx, size_t lx,
                                     const double *y, size_t ny, size_t ly,
                                     uint64_t resamples, uint64_t seed,
                                     bs_resample_engine engine,
                                     bs_resample_engine *used, double *conf,
                                     bs_error *err) {
  if (nx == 0 || ny == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "cannot bootstrap an empty sample");
  if (resamples == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "the number of resamples must be at least 1");
  if (lx > nx || ly > ny)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "block length %zu exceeds the %zu samples",
                        lx > nx ? lx : ly, lx > nx ? nx : ny);
  if (nx > UINT32_MAX / BS__CHAINS || ny > UINT32_MAX / BS__CHAINS)
    return bs_error_set(err, BS_ELIMIT, NULL, 0, "too many samples");
  bs__series sx, sy;
  bs__resample_work w = {NULL, NULL};
  bs_status st = BS_OK;
  if (bs__series_init(&sx, x, nx, lx))
    return bs__oom(err);
  if (bs__series_init(&sy, y, ny, ly)) {
    bs__series_release(&sx);
    return bs__oom(err);
  }
  if (bs__resample_work_init(&w, nx > ny ? nx : ny,
                             sx.draws > sy.draws ? sx.draws : sy.draws)) {
    st = bs__oom(err);
    goto done;
  }

  engine = bs__resample_engine(sx.mod > sy.mod ? sx.mod : sy.mod, engine);
  if (used)
    *used = engine;
  bs_rng rng;
  bs_rng_seed(&rng, seed);
  uint64_t count = 0;
  /* Chain c computes replicates [c*per, (c+1)*per) from the state
   * c*per*(draws per replicate) steps into the sequence; the last chain
   * ends where the remaining replicates begin. Every replicate sees
   * exactly the draws the one-generator definition gives it: its x
   * resample, then its y resample. */
  uint64_t per = resamples / BS__CHAINS;
  uint64_t state[BS__CHAINS];
  state[0] = rng.s;
  for (size_t c = 1; c < BS__CHAINS; c++)
    state[c] =
        bs__xorshift_jump(state[c - 1], per * (uint64_t)(sx.draws + sy.draws));
  uint32_t xl[BS__CHAINS], xh[BS__CHAINS], yl[BS__CHAINS], yh[BS__CHAINS];
  for (uint64_t r = 0; r < per; r++) {
    bs__resample_chains(&sx, engine, state, &w, xl, xh);
    bs__resample_chains(&sy, engine, state, &w, yl, yh);
    for (size_t c = 0; c < BS__CHAINS; c++)
      count += (uint64_t)replicate_counts(bs__series_median(&sx, xl[c], xh[c]),
                                          bs__series_median(&sy, yl[c], yh[c]));
  }
  uint64_t g = state[BS__CHAINS - 1];
  for (uint64_t r = per * BS__CHAINS; r < resamples; r++) {
    uint32_t a, b, c, d;
    bs__resample_one(&sx, &g, &w, &a, &b);
    bs__resample_one(&sy, &g, &w, &c, &d);
    count += (uint64_t)replicate_counts(bs__series_median(&sx, a, b),
                                        bs__series_median(&sy, c, d));
  }
  *conf = (double)count / (double)resamples;
done:
  bs__resample_work_release(&w);
  bs__series_release(&sx);
  bs__series_release(&sy);
  return st;
}

/* --- drift and autocorrelation ----------------------------------------- */

bs_status bs_noise_midranks(const double *x, size_t n, double *ranks) {
  if (n == 0)
    return BS_OK;
  bs__ranked *order = malloc(n * sizeof *order);
  if (!order)
    return BS_ENOMEM;
  bs__rank_sort(x, n, order);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && order[j].v == order[i].v)
      j++;
    /* Positions i..j-1 hold ranks i+1..j; ties share their mean. */
    double mid = 0.5 * (double)(i + 1 + j);
    for (size_t k = i; k < j; k++)
      ranks[order[k].i] = mid;
    i = j;
  }
  free(order);
  return BS_OK;
}

double bs_noise_lag1(const double *x, size_t n) {
  if (n < 2)
    return 0.0;
  double sum = 0.0;
  for (size_t i = 0; i < n; i++)
    sum += x[i];
  double mean = sum / (double)n;
  double num = 0.0, den = 0.0;
  for (size_t i = 0; i < n; i++) {
    double d = x[i] - mean;
    den += d * d;
    if (i + 1 < n)
      num += d * (x[i + 1] - mean);
  }
  if (den == 0.0)
    return 0.0;
  return num / den;
}

bs_status bs_noise_drift(const double *x, size_t n, bs_drift *out) {
  memset(out, 0, sizeof *out);
  if (n < BS_NOISE_DRIFT_MIN)
    return BS_EINPUT;
  double *ranks = malloc(n * sizeof *ranks);
  if (!ranks)
    return BS_ENOMEM;
  if (bs_noise_midranks(x, n, ranks)) {
    free(ranks);
    return BS_ENOMEM;
  }
  /* Spearman's rho is Pearson's r of the mid-ranks against positions
   * 0..n-1. Ranks are multiples of 1/2 and their mean is (n+1)/2, so every
   * deviation and product below is exact in double for any n a log holds;
   * only the final division and square root round. */
  double rmean = 0.5 * (double)(n + 1);
  double pmean = 0.5 * (double)(n - 1);
  double sxy = 0.0, syy = 0.0, sxx = 0.0;
  for (size_t i = 0; i < n; i++) {
    double dr = ranks[i] - rmean;
    double dp = (double)i - pmean;
    sxy += dr * dp;
    syy += dr * dr;
    sxx += dp * dp;
  }
  free(ranks);
  out->rho = syy == 0.0 ? 0.0 : sxy / bs__sqrt(sxx * syy);
  /* Normal approximation to the null distribution of rho (as the seed's
   * DetectDrift), not the t distribution scipy uses. */
  out->z = out->rho * bs__sqrt((double)(n - 1));
  out->p = bs__erfc(fabs(out->z) / bs__sqrt(2.0));
  out->drifted = out->p < BS_NOISE_DRIFT_LEVEL;
  size_t half = n / 2;
  out->first = bs_median(x, half);
  out->second = bs_median(x + (n - half), half);
  if (isnan(out->first) || isnan(out->second))
    return BS_ENOMEM;
  out->relative_shift = (out->second - out->first) / out->first;
  return BS_OK;
}

/* --- the validation ---------------------------------------------------- */

static void experiment_free(bs_noise_experiment *e) {
  free(e->a);
  free(e->b);
  free(e->blocks);
}

static void case_free(bs_noise_case *c) {
  for (size_t i = 0; i < c->runs; i++)
    experiment_free(&c->experiments[i]);
  free(c->experiments);
  free(c->deltas);
  free(c->confidences);
  free(c->paired_deltas_pct);
}

void bs_noise_result_free(bs_noise_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->ncases; i++)
    case_free(&r->cases[i]);
  free(r->cases);
  free(r->a);
  free(r->b);
  free(r);
}

/* Pairs the A rows ka[0..na-1] and B rows kb[0..nb-1] of one run (both
 * sorted by block) and fills the experiment's series. */
static bs_status pair_run(const bs_log *log, const char *label, uint64_t run,
                          const bs__keyed *ka, size_t na, const bs__keyed *kb,
                          size_t nb, bs_metric metric, bs_noise_experiment *e,
                          bs_error *err) {
  size_t i = 0, j = 0;
  const bs__keyed *first = NULL;
  char list[600];
  size_t used = 0, listed = 0;
  list[0] = '\0';
  while (i < na || j < nb) {
    int c;
    if (i == na)
      c = 1;
    else if (j == nb)
      c = -1;
    else
      c = (ka[i].block > kb[j].block) - (ka[i].block < kb[j].block);
    if (c == 0) {
      i++;
      j++;
      continue;
    }
    const bs__keyed *lone = c < 0 ? &ka[i++] : &kb[j++];
    if (!first)
      first = lone;
    bs__keyed_describe(list, sizeof list, &used, log, lone, 0, &listed);
  }
  if (first) {
    /* The status spelled out, as below: otherwise the analyser follows
     * this path into analyse_run with no samples. */
    bs_error_set(
        err, BS_EMISMATCH, bs_log_row_file(log, first->row),
        (long)first->row->line,
        "mismatched pairs in case %s, run %llu: %zu row%s without a partner "
        "in the same block: %s%s",
        label, (unsigned long long)run, listed, listed == 1 ? "" : "s", list,
        listed > 8 ? ", ..." : "");
    return BS_EMISMATCH;
  }
  e->run = run;
  e->na = na;
  e->nb = nb;
  e->a = malloc(na * sizeof *e->a);
  e->b = malloc(nb * sizeof *e->b);
  e->blocks = malloc(na * sizeof *e->blocks);
  if (!e->a || !e->b || !e->blocks) {
    /* The status spelled out: clang's analyser cannot see that
     * bs_error_set returns it, and would run analyse_run on this path. */
    bs__oom(err);
    return BS_ENOMEM;
  }
  for (size_t k = 0; k < na; k++) {
    e->a[k] = bs__row_value(log, ka[k].row, metric);
    e->b[k] = bs__row_value(log, kb[k].row, metric);
    e->blocks[k] = ka[k].block;
  }
  return BS_OK;
}

static size_t block_length_for(const bs_noise_options *o, size_t n) {
  switch (o->block_mode) {
  case BS_BLOCK_FIXED:
    return o->block_length;
  case BS_BLOCK_AUTO:
    return bs_noise_auto_block_length(n);
  case BS_BLOCK_NONE:
    break;
  }
  return 0;
}

/* Everything of one run: delta, both confidences, drift, lag-1 and the
 * confirmatory gate on the pairs. k is the run's 0-based position. */
static bs_status analyse_run(const char *label, bs_noise_experiment *e,
                             size_t k, const bs_noise_options *o,
                             bs_error *err) {
  size_t n = e->na;
  bs_status st;
  e->median_a_us = bs_median(e->a, n);
  e->median_b_us = bs_median(e->b, n);
  if (isnan(e->median_a_us) || isnan(e->median_b_us))
    return bs__oom(err);
  e->delta = 1.0 - e->median_a_us / e->median_b_us;

  e->block_length_a = block_length_for(o, e->na);
  e->block_length_b = block_length_for(o, e->nb);
  if (e->block_length_a > e->na || e->block_length_b > e->nb)
    return bs_error_set(err, BS_EINPUT, NULL, 0,
                        "case %s, run %llu: block length %zu exceeds the %zu "
                        "samples of the run",
                        label, (unsigned long long)e->run, o->block_length, n);
  /* Seeds per run, modulo 2^64 by unsigned arithmetic. */
  e->seed_ab = o->seed + 2u * (uint64_t)k;
  e->seed_ba = e->seed_ab + 1u;
  st = bs_noise_confidence(e->a, e->na, e->block_length_a, e->b, e->nb,
                           e->block_length_b, o->resamples, e->seed_ab,
                           &e->conf_ab, err);
  if (st)
    return st;
  st = bs_noise_confidence(e->b, e->nb, e->block_length_b, e->a, e->na,
                           e->block_length_a, o->resamples, e->seed_ba,
                           &e->conf_ba, err);
  if (st)
    return st;
  /* Splitting ties: with confAB = P(<) + P(=) and confBA = P(>) + P(=),
   * (confAB + 1 - confBA)/2 = P(<) + P(=)/2 and confAB + confBA - 1 =
   * P(=), up to the Monte Carlo error of two independent bootstraps. */
  e->confidence = (e->conf_ab + 1.0 - e->conf_ba) / 2.0;
  e->tie = bs__fmax(0.0, e->conf_ab + e->conf_ba - 1.0);

  st = bs_noise_drift(e->a, e->na, &e->drift_a);
  if (st == BS_ENOMEM)
    return bs__oom(err);
  e->has_drift_a = st == BS_OK;
  st = bs_noise_drift(e->b, e->nb, &e->drift_b);
  if (st == BS_ENOMEM)
    return bs__oom(err);
  e->has_drift_b = st == BS_OK;
  e->drifted = (e->has_drift_a && e->drift_a.drifted) ||
               (e->has_drift_b && e->drift_b.drifted);
  e->lag1_a = bs_noise_lag1(e->a, e->na);
  e->lag1_b = bs_noise_lag1(e->b, e->nb);

  double *d = malloc(n * sizeof *d);
  if (!d)
    return bs__oom(err);
  for (size_t i = 0; i < n; i++)
    d[i] = e->a[i] - e->b[i];
  e->median_delta_us = bs_median(d, n);
  if (isnan(e->median_delta_us)) {
    free(d);
    return bs__oom(err);
  }
  /* As bs_compare_run does it: B is the baseline, A the candidate. */
  e->paired_delta_pct = 100.0 * e->median_delta_us / e->median_b_us;
  st =
      bs_bootstrap_median_ci(d, n, BS_GATE_RESAMPLES, BS_GATE_LEVEL_PCT,
                             o->seed, &e->ci_low_us, &e->ci_high_us, NULL, err);
  free(d);
  if (st)
    return st;
  e->significant_regression =
      e->paired_delta_pct >= BS_GATE_THRESHOLD_PCT && e->ci_low_us > 0;
  return BS_OK;
}

/* Median of v[0..n-1] (reordered), 0 when n == 0 (the seed's
 * medianOrZero). */
static double median_or_zero(double *v, size_t n) {
  if (n == 0)
    return 0.0;
  bs_sort_doubles(v, n);
  return bs_quantile_sorted(v, n, 0.5);
}

/* How the case's drifting runs and false signals compare with what
 * chance alone gives: each run is a Bernoulli trial, so the count of
 * runs is binomial and its upper tail says how surprising it is. */
static void chance(bs_noise_case *c, const bs_noise_options *o,
                   size_t false_signals, size_t drifted) {
  size_t n = c->runs;
  double series = 0;
  c->drift_tested = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_noise_experiment *e = &c->experiments[k];
    series += e->has_drift_a + e->has_drift_b;
    c->drift_tested |= e->has_drift_a || e->has_drift_b;
  }
  series /= (double)n;
  /* 1 - (1 - 0.05)^s: at least one of s series drifts at the 5 % level */
  c->drift_chance_rate = 1.0 - bs__pow(1.0 - BS_NOISE_DRIFT_LEVEL, series);
  c->drift_runs = drifted;
  c->drift_p = bs__binomial_tail(n, drifted, c->drift_chance_rate);
  /* A calibrated confidence falls outside [1 - level, level] in 2 (1 -
   * level) of the runs. */
  c->false_signal_expected = 2.0 * (1.0 - o->level);
  c->false_signal_runs = false_signals;
  c->false_signal_p =
      bs__binomial_tail(n, false_signals, c->false_signal_expected);
}

static bs_status summarise(bs_noise_case *c, const bs_noise_options *o,
                           bs_error *err) {
  size_t n = c->runs;
  c->deltas = malloc(n * sizeof(double));
  c->confidences = malloc(n * sizeof(double));
  c->paired_deltas_pct = malloc(n * sizeof(double));
  double *s = malloc(2 * n * sizeof *s);
  if (!c->deltas || !c->confidences || !c->paired_deltas_pct || !s) {
    free(s);
    return bs__oom(err);
  }
  double sum = 0.0;
  size_t false_signals = 0, drifted = 0, regressions = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_noise_experiment *e = &c->experiments[k];
    c->deltas[k] = e->delta;
    c->confidences[k] = e->confidence;
    c->paired_deltas_pct[k] = e->paired_delta_pct;
    sum += e->confidence;
    if (e->confidence > o->level || e->confidence < 1.0 - o->level)
      false_signals++;
    drifted += e->drifted != 0;
    regressions += e->significant_regression != 0;
  }

  for (size_t k = 0; k < n; k++)
    s[k] = fabs(c->deltas[k]);
  bs_sort_doubles(s, n);
  c->noise_floor = bs_quantile_sorted(s, n, BS_NOISE_FLOOR_QUANTILE);
  c->max_observed_noise = s[n - 1];
  c->typical_noise = bs_quantile_sorted(s, n, 0.5);

  c->mean_confidence = sum / (double)n;
  memcpy(s, c->confidences, n * sizeof *s);
  c->median_confidence = median_or_zero(s, n);
  for (size_t k = 0; k < n; k++)
    s[k] = c->experiments[k].tie;
  c->tie_rate = median_or_zero(s, n);
  c->false_signal_rate = (double)false_signals / (double)n;
  c->drift_rate = (double)drifted / (double)n;
  chance(c, o, false_signals, drifted);

  size_t m = 0;
  for (size_t k = 0; k < n; k++) {
    const bs_noise_experiment *e = &c->experiments[k];
    if (e->has_drift_a)
      s[m++] = fabs(e->drift_a.relative_shift);
    if (e->has_drift_b)
      s[m++] = fabs(e->drift_b.relative_shift);
  }
  c->median_drift_shift = median_or_zero(s, m);
  for (size_t k = 0; k < n; k++) {
    s[2 * k] = c->experiments[k].lag1_a;
    s[2 * k + 1] = c->experiments[k].lag1_b;
  }
  c->autocorrelation = median_or_zero(s, 2 * n);

  for (size_t k = 0; k < n; k++)
    s[k] = fabs(c->paired_deltas_pct[k]);
  bs_sort_doubles(s, n);
  c->paired_noise_floor_pct = bs_quantile_sorted(s, n, BS_NOISE_FLOOR_QUANTILE);
  c->false_regression_rate = (double)regressions / (double)n;
  c->gate_resolves = BS_GATE_THRESHOLD_PCT > c->paired_noise_floor_pct;

  /* Planning: if the noise of delta% falls as 1/sqrt(m), the floor F at m
   * pairs per run becomes delta at m (F/delta)^2 pairs. */
  for (size_t k = 0; k < n; k++)
    s[k] = (double)c->experiments[k].na;
  c->median_pairs = median_or_zero(s, n);
  double ratio = c->paired_noise_floor_pct / BS_GATE_THRESHOLD_PCT;
  double blocks = bs__ceil(c->median_pairs * (ratio * ratio));
  c->blocks_for_gate =
      blocks < 18446744073709549568.0 ? (uint64_t)blocks : UINT64_MAX;
  free(s);
  return BS_OK;
}

typedef struct run_flag {
  uint64_t run;
  int flagged;
} run_flag;

static int cmp_run_flag(const void *a, const void *b) {
  uint64_t x = ((const run_flag *)a)->run, y = ((const run_flag *)b)->run;
  return (x > y) - (x < y);
}

/* suite_false_alarm_rate: over the run ids present in at least one case,
 * the share in which the gate flagged at least one case. */
static bs_status suite_rate(bs_noise_result *r) {
  size_t total = 0;
  for (size_t i = 0; i < r->ncases; i++)
    total += r->cases[i].runs;
  run_flag *v = malloc((total ? total : 1) * sizeof *v);
  if (!v)
    return BS_ENOMEM;
  size_t n = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    for (size_t k = 0; k < r->cases[i].runs; k++) {
      const bs_noise_experiment *e = &r->cases[i].experiments[k];
      v[n].run = e->run;
      v[n].flagged = e->significant_regression != 0;
      n++;
    }
  }
  qsort(v, n, sizeof *v, cmp_run_flag);
  r->suite_runs = r->suite_flagged_runs = 0;
  for (size_t i = 0; i < n;) {
    int flagged = 0;
    size_t j = i;
    for (; j < n && v[j].run == v[i].run; j++)
      flagged |= v[j].flagged;
    r->suite_runs++;
    r->suite_flagged_runs += flagged != 0;
    i = j;
  }
  r->suite_false_alarm_rate =
      r->suite_runs ? (double)r->suite_flagged_runs / (double)r->suite_runs
                    : 0.0;
  free(v);
  return BS_OK;
}

/* Splits the case's A and B rows (sorted by run, block) into runs and
 * analyses each. */
static bs_status analyse_case(const bs_log *log, bs_noise_case *c,
                              const char *a, const char *b, bs__keyed *ka,
                              size_t na, bs__keyed *kb, size_t nb,
                              const bs_noise_options *o, bs_error *err) {
  char label[256];
  bs__case_label(label, sizeof label, c->benchmark, c->dataset);
  qsort(ka, na, sizeof *ka, bs__keyed_cmp);
  qsort(kb, nb, sizeof *kb, bs__keyed_cmp);

  /* Distinct runs of either impl, ascending; each must have both. */
  size_t runs = 0;
  size_t i = 0, j = 0;
  while (i < na || j < nb) {
    uint64_t run;
    if (j == nb || (i < na && ka[i].run <= kb[j].run))
      run = ka[i].run;
    else
      run = kb[j].run;
    size_t i0 = i, j0 = j;
    while (i < na && ka[i].run == run)
      i++;
    while (j < nb && kb[j].run == run)
      j++;
    if (i == i0 || j == j0) {
      const bs__keyed *other = i == i0 ? &kb[j0] : &ka[i0];
      return bs_error_set(err, BS_EINPUT, bs_log_row_file(log, other->row),
                          (long)other->row->line,
                          "case %s, run %llu: no confirm rows of %s \"%s\" "
                          "(an A/A run needs samples of both \"%s\" and "
                          "\"%s\")",
                          label, (unsigned long long)run, i == i0 ? "A" : "B",
                          i == i0 ? a : b, a, b);
    }
    runs++;
  }
  if (runs < BS_NOISE_MIN_RUNS)
    return bs_error_set(
        err, BS_EINPUT, bs_log_row_file(log, ka[0].row), (long)ka[0].row->line,
        "case %s: only 1 A/A run (run %llu); a noise floor "
        "needs at least %d runs",
        label, (unsigned long long)ka[0].run, BS_NOISE_MIN_RUNS);

  c->experiments = calloc(runs, sizeof *c->experiments);
  if (!c->experiments)
    return bs__oom(err);
  i = j = 0;
  for (size_t k = 0; k < runs; k++) {
    uint64_t run = ka[i].run;
    size_t i0 = i, j0 = j;
    while (i < na && ka[i].run == run)
      i++;
    while (j < nb && kb[j].run == run)
      j++;
    c->runs = k + 1; /* so that a failure frees what was built */
    bs_status st = pair_run(log, label, run, ka + i0, i - i0, kb + j0, j - j0,
                            o->metric, &c->experiments[k], err);
    if (!st)
      st = analyse_run(label, &c->experiments[k], k, o, err);
    if (st)
      return st;
  }
  return summarise(c, o, err);
}

bs_status bs_noise_run(const bs_log *log, const char *a, const char *b,
                       const bs_noise_options *opt, bs_noise_result **out,
                       bs_error *err) {
  *out = NULL;
  bs_status st = bs_noise_options_check(opt, err);
  if (st)
    return st;
  if (!strcmp(a, b))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "A and B are both \"%s\"; an A/A validation needs "
                        "the same code under two impl ids",
                        a);
  if ((st = bs_log_require_metric(log, opt->metric, err)))
    return st;
  bs_noise_result *r = calloc(1, sizeof *r);
  size_t ncase = bs_log_case_count(log);
  bs__pairs ab = {0};
  if (!r)
    return bs__oom(err);
  r->options = *opt;
  /* The hook is the caller's for this call, not the result's. */
  r->options.progress = NULL;
  r->options.progress_ctx = NULL;
  r->a = bs__strdup(a);
  r->b = bs__strdup(b);
  r->cases = calloc(ncase ? ncase : 1, sizeof *r->cases);
  if (!r->a || !r->b || !r->cases) {
    st = bs__oom(err);
    goto fail;
  }
  for (size_t ci = 0; ci < ncase; ci++) {
    const bs_case *lc = bs_log_case(log, ci);
    if ((st = bs__pairs_gather(&ab, log, lc, a, b, err)))
      goto fail;
    size_t na = ab.nx, nb = ab.ny;
    if (na == 0 && nb == 0)
      continue;
    bs_noise_case *c = &r->cases[r->ncases++];
    c->benchmark = lc->benchmark;
    c->dataset = lc->dataset;
    st = analyse_case(log, c, a, b, ab.x, na, ab.y, nb, opt, err);
    if (st)
      goto fail;
    if (opt->progress && opt->progress(opt->progress_ctx, ci + 1, ncase)) {
      st = bs_error_set(err, BS_EIO, NULL, 0, "cancelled");
      goto fail;
    }
  }
  if (r->ncases == 0) {
    st = bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "no case has confirm rows of \"%s\" or \"%s\"", a, b);
    goto fail;
  }
  if (suite_rate(r)) {
    st = bs__oom(err);
    goto fail;
  }
  bs__pairs_release(&ab);
  *out = r;
  return BS_OK;
fail:
  bs__pairs_release(&ab);
  bs_noise_result_free(r);
  return st;
}
