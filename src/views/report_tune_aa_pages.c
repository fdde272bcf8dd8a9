/* The tuning page of a report (per benchmark, each case's best impl and
 * the others' ratios, with the chart of the medians against the scale)
 * and its A/A page (per case the noise floor, the figures of SPEC's A/A
 * table and their charts). Numbers are formatted here; every string
 * reaches the HTML through the template engine's escaping. */
#include "report_int.h"

#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tuning -------------------------------------------------------------- */

static const bs__tune_group *group_of(const bs__report *r,
                                      const char *benchmark) {
  for (size_t g = 0; g < r->ngroups; g++) {
    if (!strcmp(r->groups[g].benchmark, benchmark))
      return &r->groups[g];
  }
  return NULL;
}

bs_status bs__report_tuning_page(bs__report *r, bs_templates *t,
                                 const char *dir, bs_error *err) {
  const bs_tune_result *tr = r->tune;
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs__report_page(r, d, "Tuning", "tuning.html");
  bs_tval *bl = bs_tval_set_list(root, "benchmarks");
  size_t i = 0;
  char buf[256];
  while (i < tr->ncases) {
    size_t e = i;
    while (e < tr->ncases &&
           !strcmp(tr->cases[e].benchmark, tr->cases[i].benchmark))
      e++;
    bs_tval *b = bs_tval_push_obj(bl);
    bs_tval_set_str(b, "benchmark", tr->cases[i].benchmark);
    const bs__tune_group *g = group_of(r, tr->cases[i].benchmark);
    if (g) {
      char caption[256];
      snprintf(caption, sizeof caption,
               "Median %s of each implementation against scale (both axes "
               "logarithmic); diamonds mark crossovers.",
               bs_metric_get(r->an->metric)->quantity);
      bs__report_set_chart(r, b, "chart", g->chart, caption);
    }
    /* Columns: every impl measured in this benchmark, byte order. */
    const char **impls = NULL;
    size_t ni = 0, cap = 0;
    for (size_t j = i; j < e; j++)
      cap += tr->cases[j].nmedians;
    impls = malloc((cap ? cap : 1) * sizeof *impls);
    if (!impls) {
      bs_tdata_free(d);
      return bs__oom(err);
    }
    for (size_t j = i; j < e; j++) {
      for (size_t q = 0; q < tr->cases[j].nmedians; q++) {
        const char *im = tr->cases[j].medians[q].impl;
        size_t z = 0;
        while (z < ni && strcmp(impls[z], im))
          z++;
        if (z == ni) {
          size_t at = ni++;
          while (at > 0 && strcmp(impls[at - 1], im) > 0) {
            impls[at] = impls[at - 1];
            at--;
          }
          impls[at] = im;
        }
      }
    }
    bs_tval *cols = bs_tval_set_list(b, "impls");
    for (size_t z = 0; z < ni; z++)
      bs_tval_push_str(cols, impls[z]);
    /* Rows in scale order when the group orders them, else log order. */
    bs_tval *rows = bs_tval_set_list(b, "rows");
    size_t nrows = e - i;
    for (size_t q = 0; q < nrows; q++) {
      size_t ci;
      if (g && q < g->ncases) {
        ci = g->cases[q];
      } else if (g) {
        /* unscaled cases of a scaled benchmark, after the scaled ones */
        size_t seen = 0;
        ci = i;
        for (size_t j = i; j < e; j++) {
          if (tr->cases[j].has_scale)
            continue;
          if (seen++ == q - g->ncases) {
            ci = j;
            break;
          }
        }
      } else {
        ci = i + q;
      }
      const bs_tune_case *tc = &tr->cases[ci];
      bs_tval *row = bs_tval_push_obj(rows);
      bs_tval_set_str(row, "dataset", tc->dataset);
      bs_tval_set_str(
          row, "scale",
          tc->has_scale ? bs__fmt_num(buf, sizeof buf, tc->scale, 10) : "");
      bs_tval_set_str(row, "best", tc->best);
      if (tc->runner_up) {
        char lo[64], hi[64];
        bs_tval_set_str(row, "runner_up", tc->runner_up);
        bs_tval_set_bool(row, "decisive", tc->decisive);
        bs_tval_set_strf(
            row, "win_interval", "%s to %s",
            bs__fmt_val_signed(lo, sizeof lo, r->an->metric, tc->ci_low_us),
            bs__fmt_val_signed(hi, sizeof hi, r->an->metric, tc->ci_high_us));
      }
      double best_us = NAN;
      for (size_t z = 0; z < tc->nmedians; z++) {
        if (!strcmp(tc->medians[z].impl, tc->best))
          best_us = tc->medians[z].median_us;
      }
      bs_tval *cells = bs_tval_set_list(row, "cells");
      for (size_t z = 0; z < ni; z++) {
        bs_tval *cell = bs_tval_push_obj(cells);
        const bs_tune_median *md = NULL;
        for (size_t y = 0; y < tc->nmedians; y++) {
          if (!strcmp(tc->medians[y].impl, impls[z]))
            md = &tc->medians[y];
        }
        int best = md && !strcmp(md->impl, tc->best);
        bs_tval_set_bool(cell, "missing", md == NULL);
        bs_tval_set_bool(cell, "best", best);
        bs_tval_set_str(
            cell, "value",
            md ? bs__fmt_val(buf, sizeof buf, r->an->metric, md->median_us)
               : "");
        if (md && !best && best_us > 0)
          bs_tval_set_strf(cell, "ratio", "×%.2f", md->median_us / best_us);
        else
          bs_tval_set_str(cell, "ratio", "");
      }
    }
    free(impls);
    size_t nx = 0, nties = 0;
    bs_tval *xs = bs_tval_set_list(b, "crossovers");
    bs_tval *ties = bs_tval_set_list(b, "tie_crossovers");
    for (size_t q = 0; q < tr->ncrossovers; q++) {
      const bs_crossover *x = &tr->crossovers[q];
      if (strcmp(x->benchmark, tr->cases[i].benchmark))
        continue;
      /* Non-decisive crossovers are listed apart: a tie within noise. */
      if (x->decisive)
        nx++;
      else
        nties++;
      bs_tval *o = bs_tval_push_obj(x->decisive ? xs : ties);
      bs_tval_set_str(o, "a", x->a);
      bs_tval_set_str(o, "b", x->b);
      bs_tval_set_str(o, "scale", bs__fmt_num(buf, sizeof buf, x->scale, 3));
      char lo[64], hi[64];
      bs_tval_set_strf(o, "between", "%s and %s",
                       bs__fmt_num(lo, sizeof lo, x->scale_low, 10),
                       bs__fmt_num(hi, sizeof hi, x->scale_high, 10));
    }
    bs_tval_set_bool(b, "has_crossovers", nx > 0);
    bs_tval_set_bool(b, "has_tie_crossovers", nties > 0);
    bs_tval_set_bool(b, "has_chart", g != NULL);
    i = e;
  }
  return bs__report_render(t, "tuning", d, dir, "tuning.html", err);
}

/* ---- A/A ----------------------------------------------------------------- */

static char *pct(char *buf, size_t n, double fraction_or_pct, int is_fraction) {
  double v = is_fraction ? 100.0 * fraction_or_pct : fraction_or_pct;
  if (!isfinite(v))
    snprintf(buf, n, "n/a");
  else
    snprintf(buf, n, "%.2f\xc2\xa0%%", v);
  return buf;
}

bs_status bs__report_aa_page(bs__report *r, bs_templates *t, const char *dir,
                             bs_error *err) {
  const bs_noise_result *aa = r->aa;
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs__report_page(r, d, "A/A noise", "aa.html");
  bs_tval *av = bs_tval_set_obj(root, "aa");
  char buf[256];
  bs_tval_set_str(av, "a", aa->a);
  bs_tval_set_str(av, "b", aa->b);
  if (r->an->aa_source)
    bs_tval_set_str(av, "source", bs__basename_of(r->an->aa_source));
  bs_tval_set_strf(av, "resamples", "%llu",
                   (unsigned long long)aa->options.resamples);
  bs_tval_set_strf(av, "level", "%g", aa->options.level);
  /* The planning figures in words: how often an unchanged change fails,
   * and how far the setup is from resolving delta = 3 %. */
  size_t w = 0;
  for (size_t i = 1; i < aa->ncases; i++)
    if (aa->cases[i].blocks_for_gate > aa->cases[w].blocks_for_gate)
      w = i;
  double rate = 100.0 * aa->suite_false_alarm_rate;
  bs_tval_set_strf(av, "suite",
                   "An unchanged change fails %.*f\xc2\xa0%% of gates on this "
                   "setup: the gate flagged at least one of the %zu cases in "
                   "%zu of %zu A/A runs.",
                   rate != 0.0 && rate < 1.0 ? 1 : 0, rate, aa->ncases,
                   aa->suite_flagged_runs, aa->suite_runs);
  if (aa->ncases) {
    const bs_noise_case *need = &aa->cases[w];
    if (need->gate_resolves)
      bs_tval_set_strf(av, "plan",
                       "δ\xc2\xa0=\xc2\xa0"
                       "3\xc2\xa0%% resolves on every case at the "
                       "present "
                       "%g blocks per run.",
                       need->median_pairs);
    else
      bs_tval_set_strf(
          av, "plan",
          "About %llu blocks per run (now %g) would let "
          "δ\xc2\xa0=\xc2\xa0"
          "3\xc2\xa0%% resolve "
          "on every case, if the noise of Δ%% falls as 1/√blocks; the most "
          "demanding case is %s (noise floor %.3g\xc2\xa0%%).",
          (unsigned long long)need->blocks_for_gate, need->median_pairs,
          bs__case_label(buf, sizeof buf, need->benchmark, need->dataset),
          need->paired_noise_floor_pct);
  }
  bs_tval *cases = bs_tval_set_list(av, "cases");
  for (size_t i = 0; i < aa->ncases; i++) {
    const bs_noise_case *nc = &aa->cases[i];
    bs_tval *c = bs_tval_push_obj(cases);
    bs_tval_set_str(
        c, "name", bs__case_label(buf, sizeof buf, nc->benchmark, nc->dataset));
    bs_tval_set_strf(c, "anchor", "aa-%zu", i + 1);
    bs_tval_set_strf(c, "runs", "%zu", nc->runs);
    bs_tval *rows = bs_tval_set_list(c, "rows");
    bs__report_kv(rows, "Noise floor (90th percentile of |paired Δ%|)",
                  pct(buf, sizeof buf, nc->paired_noise_floor_pct, 0), 1);
    bs__report_kv(
        rows, "Unpaired spread (90th percentile of |u|, u = 1 − med(A)/med(B))",
        pct(buf, sizeof buf, nc->noise_floor, 1), 1);
    bs__report_kv(rows, "Largest |u| observed",
                  pct(buf, sizeof buf, nc->max_observed_noise, 1), 1);
    bs__report_kv(rows, "Typical |u| (median)",
                  pct(buf, sizeof buf, nc->typical_noise, 1), 1);
    char m1[64], m2[64];
    snprintf(buf, sizeof buf, "%s / %s",
             bs__fmt_num(m1, sizeof m1, nc->mean_confidence, 3),
             bs__fmt_num(m2, sizeof m2, nc->median_confidence, 3));
    bs__report_kv(rows, "Mean / median confidence (0.5 expected)", buf, 1);
    bs__report_kv(rows, "Tie rate (median)",
                  pct(buf, sizeof buf, nc->tie_rate, 1), 1);
    bs__report_kv(rows, "False signal rate",
                  pct(buf, sizeof buf, nc->false_signal_rate, 1), 1);
    bs__report_kv(rows, "Runs with drift (Spearman, p < 0.05)",
                  pct(buf, sizeof buf, nc->drift_rate, 1), 1);
    bs__report_kv(rows, "Median drift shift between halves",
                  pct(buf, sizeof buf, nc->median_drift_shift, 1), 1);
    bs__report_kv(rows, "Lag-1 autocorrelation (median)",
                  bs__fmt_num(buf, sizeof buf, nc->autocorrelation, 3), 1);
    bs__report_kv(rows, "Runs the gate flagged as a regression",
                  pct(buf, sizeof buf, nc->false_regression_rate, 1), 1);
    bs__report_kv(rows, "Gate threshold clears the noise",
                  nc->gate_resolves ? "yes: 3 % > noise floor"
                                    : "⚠ no: noise floor ≥ 3 %",
                  0);
    snprintf(buf, sizeof buf, "%llu (now %g)",
             (unsigned long long)nc->blocks_for_gate, nc->median_pairs);
    bs__report_kv(rows, "Blocks per run at which δ = 3 % would resolve", buf,
                  1);
    int blocks = aa->options.block_mode != BS_BLOCK_NONE;
    if (blocks) {
      /* The lengths actually used (auto: per series, from its size). */
      size_t lo = SIZE_MAX, hi = 0;
      for (size_t k = 0; k < nc->runs; k++) {
        const bs_noise_experiment *e = &nc->experiments[k];
        size_t la = e->block_length_a, lb = e->block_length_b;
        lo = la < lo ? la : lo;
        lo = lb < lo ? lb : lo;
        hi = la > hi ? la : hi;
        hi = lb > hi ? lb : hi;
      }
      const char *how =
          aa->options.block_mode == BS_BLOCK_AUTO ? " (auto)" : "";
      if (lo >= hi)
        snprintf(buf, sizeof buf, "moving blocks of %zu samples%s", hi, how);
      else
        snprintf(buf, sizeof buf, "moving blocks of %zu to %zu samples%s", lo,
                 hi, how);
      bs__report_kv(rows, "Bootstrap of each series", buf, 0);
    }
    bs_tval_set_bool(c, "resolves", nc->gate_resolves);
    /* The page recommends the block bootstrap; not when it is in use. */
    bs_tval_set_bool(c, "autocorrelated",
                     !blocks && nc->autocorrelation > BS_NOISE_AUTOCORR_LIMIT);
    bs_tval *charts = bs_tval_set_list(c, "charts");
    if (r->aa_charts) {
      bs__report_push_chart(
          r, charts, r->aa_charts[i][2],
          "Per-run paired Δ% of two ids of the same code, paired by "
          "block as the gate pairs them; the dashed lines are the "
          "noise floor, the one a comparison's paired Δ% is held "
          "against.");
      bs__report_push_chart(
          r, charts, r->aa_charts[i][0],
          "Per-run unpaired difference u = 1 − med(A)/med(B); the "
          "dashed lines are its unpaired spread (90th percentile of "
          "|u|). The gate does not use it: it pairs by block.");
      bs__report_push_chart(
          r, charts, r->aa_charts[i][1],
          "Per-run confidence that A is not slower than B; outside the "
          "shaded band a run would have signalled a difference.");
    }
  }
  return bs__report_render(t, "aa", d, dir, "aa.html", err);
}
