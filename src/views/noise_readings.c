/* The A/A validation in words, for its text and Markdown views: the
 * suite's planning paragraph, a plain-language reading of each figure of
 * a case, and the figures as both views print them. It phrases what
 * bs_noise_run computed (the drift and false-signal tails included) and
 * computes nothing itself. */
#include "noise_readings.h"

#include "lmath.h"
#include "present.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>

/* Tie rates above this mean the timer is coarse for the batch size. */
#define TIE_RATE_COARSE 0.05

/* A share in percent for a sentence: whole percents from 1 %, one decimal
 * below. */
static double share_pct(double share, int *decimals) {
  double v = 100.0 * share;
  *decimals = v != 0.0 && v < 1.0 ? 1 : 0;
  return v;
}

/* The case that needs the most blocks for the gate (the suite resolves
 * when it does). */
static const bs_noise_case *neediest(const bs_noise_result *r) {
  size_t w = 0;
  for (size_t i = 1; i < r->ncases; i++)
    if (r->cases[i].blocks_for_gate > r->cases[w].blocks_for_gate)
      w = i;
  return r->ncases ? &r->cases[w] : NULL;
}

/* The suite's planning figures in words: how often an unchanged change
 * fails the gate, and how many blocks would let delta = 3 % resolve. The
 * text holds no user input except through `put_case` (escaped by the
 * caller's writer). */
bs_status bs__noise_planning(bs__buf *b, const bs_noise_result *r,
                             bs_status (*put_case)(bs__buf *, const char *,
                                                   const char *)) {
  int dec;
  double v = share_pct(r->suite_false_alarm_rate, &dec);
  const bs_noise_case *w = neediest(r);
  bs__buf_printf(
      b,
      "An unchanged change fails %.*f %% of gates on this setup (the gate "
      "flagged at least one of the %zu case%s in %zu of %zu A/A runs). ",
      dec, v, r->ncases, r->ncases == 1 ? "" : "s", r->suite_flagged_runs,
      r->suite_runs);
  if (!w)
    return bs__buf_status(b);
  if (w->gate_resolves)
    return bs__buf_printf(b,
                          "δ = 3 %% resolves on every case at the present "
                          "%g blocks per run.\n",
                          w->median_pairs);
  bs__buf_printf(b,
                 "About %llu blocks per run (now %g) would let δ = "
                 "3 %% resolve on every case; the most demanding is ",
                 (unsigned long long)w->blocks_for_gate, w->median_pairs);
  put_case(b, w->benchmark, w->dataset);
  char f[48];
  return bs__buf_printf(
      b, " (noise floor %s).\n",
      bs__fmt_floor_plain(f, sizeof f, w->paired_noise_floor_pct));
}

/* The plain-language reading of each figure. `md` wraps option names in
 * code spans. The text holds no user input. */
bs_status bs__noise_readings(const bs_noise_result *r, const bs_noise_case *c,
                             int md, char ***list, size_t *n) {
  const char *q = md ? "`" : "";
  const bs_noise_options *o = &r->options;
  bs_status st;
  size_t flagged =
      (size_t)bs__llround(c->false_regression_rate * (double)c->runs);
  char f[48], r1[48], r2[48], pv[32];
  bs__fmt_floor_plain(f, sizeof f, c->paired_noise_floor_pct);

  if (c->gate_resolves)
    st = bs__strlist_addf(
        list, n,
        "noise floor %s (90th percentile of |paired Δ%%| between "
        "identical code): below the gate's δ = 3 %%, so the gate can tell a "
        "3 %% change from this setup's own noise; a |paired Δ%%| at or below "
        "%s is within noise (write this floor with %s--json%s and give it "
        "to %scompare --noise%s)",
        f, f, q, q, q, q);
  else
    st = bs__strlist_addf(
        list, n,
        "noise floor %s (90th percentile of |paired Δ%%| between "
        "identical code): at or above the gate's δ = 3 %%, so on this setup "
        "the gate cannot tell a 3 %% change from noise; use longer batches, "
        "more blocks or a quieter machine before trusting it",
        f);
  if (st)
    return st;
  if (c->gate_resolves)
    st = bs__strlist_addf(list, n,
                          "blocks for the gate %llu (now %g per run): the "
                          "setup has room to spare at δ = 3 %%",
                          (unsigned long long)c->blocks_for_gate,
                          c->median_pairs);
  else
    st = bs__strlist_addf(
        list, n,
        "blocks for the gate %llu (now %g per run): about that many blocks "
        "per run would let δ = 3 %% resolve, if the noise of the paired Δ%% "
        "falls as "
        "1/√blocks; until then %scompare --noise%s raises this case's "
        "threshold to its floor",
        (unsigned long long)c->blocks_for_gate, c->median_pairs, q, q);
  if (st)
    return st;
  if (flagged &&
      (st = bs__strlist_addf(list, n,
                             "the gate flagged %zu of %zu runs of identical "
                             "code as significant regressions: it raises "
                             "false alarms on this setup",
                             flagged, c->runs)))
    return st;

  if (c->tie_rate >= TIE_RATE_COARSE)
    st = bs__strlist_addf(
        list, n,
        "tie rate %s: bootstrap medians often come out exactly equal, "
        "so the timer is coarse for these batches; use longer batches (a "
        "larger target batch time), more blocks do not help",
        bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->tie_rate));
  else
    st = bs__strlist_addf(
        list, n,
        "tie rate %s: the timer resolution is fine for "
        "these batches",
        bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->tie_rate));
  if (st)
    return st;

  if (c->autocorrelation > BS_NOISE_AUTOCORR_LIMIT) {
    if (o->block_mode == BS_BLOCK_NONE)
      st = bs__strlist_addf(
          list, n,
          "autocorrelation %+.2f: above 0.2, use %s--block-length auto%s "
          "(neighbouring blocks resemble each other, so the ordinary "
          "bootstrap is overconfident)",
          c->autocorrelation, q, q);
    else
      st = bs__strlist_addf(list, n,
                            "autocorrelation %+.2f: above 0.2; the moving "
                            "block bootstrap in use accounts for it",
                            c->autocorrelation);
  } else {
    st = bs__strlist_addf(list, n,
                          "autocorrelation %+.2f: at most 0.2, the ordinary "
                          "bootstrap is fine",
                          c->autocorrelation);
  }
  if (st)
    return st;

  if (!c->drift_tested) {
    st = bs__strlist_addf(list, n,
                          "drift not tested: runs have fewer than %d blocks",
                          BS_NOISE_DRIFT_MIN);
  } else {
    size_t k = c->drift_runs;
    double p = c->drift_p;
    bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->drift_rate);
    bs__fmt_rate_plain(r2, sizeof r2, 100.0 * c->drift_chance_rate);
    if (p >= 0.05)
      st = bs__strlist_addf(
          list, n,
          "drifting runs %s (%zu of %zu): within what chance gives "
          "against the %s expected from a 5 %% test on each series "
          "(p %s); the machine held still",
          r1, k, c->runs, r2, bs__fmt_p_rel(pv, sizeof pv, p));
    else
      st = bs__strlist_addf(
          list, n,
          "drifting runs %s (%zu of %zu): more than the %s "
          "expected by chance (p %s); the machine changed during runs "
          "(frequency, temperature, background load), by a median "
          "|shift| of %s; shorten runs, pin the CPU frequency or quiet "
          "the machine",
          r1, k, c->runs, r2, bs__fmt_p_rel(pv, sizeof pv, p),
          bs__fmt_floor_plain(f, sizeof f, 100.0 * c->median_drift_shift));
  }
  if (st)
    return st;

  size_t fs = c->false_signal_runs;
  double pfs = c->false_signal_p;
  bs__fmt_rate_plain(r1, sizeof r1, 100.0 * c->false_signal_rate);
  bs__fmt_rate_plain(r2, sizeof r2, 100.0 * c->false_signal_expected);
  if (pfs < 0.05)
    st = bs__strlist_addf(
        list, n,
        "false signals %s (%zu of %zu runs) against %s expected "
        "at level %.2f: more than chance explains (p %s); the unpaired "
        "bootstrap is overconfident on this setup (see drift and "
        "autocorrelation)",
        r1, fs, c->runs, r2, o->level, bs__fmt_p_rel(pv, sizeof pv, pfs));
  else
    st = bs__strlist_addf(
        list, n,
        "false signals %s (%zu of %zu runs) against %s expected "
        "at level %.2f: within what chance gives (p %s); the "
        "confidences look calibrated",
        r1, fs, c->runs, r2, o->level, bs__fmt_p_rel(pv, sizeof pv, pfs));
  if (st)
    return st;

  if (fabs(c->mean_confidence - 0.5) > 0.1)
    st = bs__strlist_addf(
        list, n,
        "mean confidence %.3f: away from 0.5, the measurement favours %s; "
        "check that impls rotate through the block positions (%sbenchsite "
        "check%s)",
        c->mean_confidence,
        c->mean_confidence > 0.5 ? "A (measured faster)"
                                 : "B (measured faster)",
        q, q);
  else
    st = bs__strlist_addf(list, n,
                          "mean confidence %.3f: close to the 0.5 of an "
                          "unbiased setup; neither position is favoured",
                          c->mean_confidence);
  return st;
}

void bs__noise_case_figures(bs__noise_figures *g, const bs_noise_case *c) {
  bs__fmt_floor_plain(g->floor, sizeof g->floor, 100.0 * c->noise_floor);
  bs__fmt_floor_plain(g->typical, sizeof g->typical, 100.0 * c->typical_noise);
  bs__fmt_floor_plain(g->worst, sizeof g->worst, 100.0 * c->max_observed_noise);
  bs__fmt_floor_plain(g->paired, sizeof g->paired, c->paired_noise_floor_pct);
  bs__fmt_floor_plain(g->shift, sizeof g->shift, 100.0 * c->median_drift_shift);
  bs__fmt_rate_plain(g->flagged, sizeof g->flagged,
                     100.0 * c->false_regression_rate);
  bs__fmt_rate_plain(g->ties, sizeof g->ties, 100.0 * c->tie_rate);
  bs__fmt_rate_plain(g->drifting, sizeof g->drifting, 100.0 * c->drift_rate);
  bs__fmt_rate_plain(g->signals, sizeof g->signals,
                     100.0 * c->false_signal_rate);
}

const char *bs__noise_block_mode(const bs_noise_options *o, char *buf,
                                 size_t n) {
  if (o->block_mode == BS_BLOCK_AUTO)
    snprintf(buf, n, ", moving blocks of round(cbrt(n))");
  else if (o->block_mode == BS_BLOCK_FIXED)
    snprintf(buf, n, ", moving blocks of %zu", o->block_length);
  else
    buf[0] = '\0';
  return buf;
}
