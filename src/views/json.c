#include "benchsite/json.h"

#include "buf.h"
#include "jsonw.h"
#include "manifest_json.h"

#include <stdlib.h>

static bs_status compare_case(bs__buf *b, const void *cases, size_t i) {
  const bs_case_compare *c = (const bs_case_compare *)cases + i;
  static const char *const names[] = {"median_baseline_us",
                                      "median_candidate_us",
                                      "median_delta_us",
                                      "delta_pct",
                                      "speedup",
                                      "ci_low_us",
                                      "ci_high_us"};
  const double values[] = {c->median_baseline_us,
                           c->median_candidate_us,
                           c->median_delta_us,
                           c->delta_pct,
                           c->speedup,
                           c->ci_low_us,
                           c->ci_high_us};
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 6, c->benchmark, c->dataset);
  bs__jobj_u64(&o, "blocks", c->blocks);
  bs__jobj_numbers(&o, names, values, sizeof values / sizeof values[0]);
  bs__jobj_string(&o, "verdict", bs_verdict_name(c->verdict));
  bs__jobj_bool(&o, "significant_regression", c->significant_regression);
  bs__jobj_bool(&o, "significant_improvement", c->significant_improvement);
  bs__jobj_number(&o, "p_value", c->p_value);
  bs__jobj_number(&o, "holm_p", c->holm_p);
  bs__jobj_number(&o, "bh_q", c->bh_q);
  bs__jobj_bool(&o, "family_significant_regression",
                c->family_significant_regression);
  bs__jobj_number(&o, "effective_threshold_pct", c->effective_threshold_pct);
  bs__jobj_u64(&o, "outliers", c->outliers);
  if (c->has_noise_floor)
    bs__jobj_number(&o, "noise_floor_pct", c->noise_floor_pct);
  bs__jobj_bool(&o, "within_noise", c->within_noise);
  bs__jobj_bool(&o, "inconclusive", c->inconclusive);
  /* Adaptive runs and the between-run spread (SPEC §6), what the gate can
   * see (§2.15); a NaN (no spread under three runs) is null. */
  bs__jobj_u64(&o, "runs", c->nruns);
  bs__jobj_u64(&o, "looks", c->looks);
  bs__jobj_number(&o, "level_pct", c->level_pct);
  bs__jobj_number(&o, "between_runs_pct", c->between_runs_pct);
  bs__jobj_bool(&o, "layout_sensitive", c->layout_sensitive);
  bs__jobj_number(&o, "runs_p_value", c->runs_p_value);
  bs__jobj_bool(&o, "held_by_layout", c->held_by_layout);
  bs__jobj_number(&o, "mde_pct", c->mde_pct);
  bs__jobj_bool(&o, "blind", c->blind);
  if (bs__jobj_key(&o, "warnings"))
    o.st = bs__json_string_array(b, c->warnings, c->nwarnings);
  return bs__jobj_end(&o);
}

bs_status bs_json_compare(const bs_compare_result *r, const bs_manifest *env,
                          char **out, size_t *len, bs_error *err) {
  bs__buf b;
  const bs_compare_options *o = &r->options;
  bs__jobj j;
  bs__json_doc_begin(&j, &b, "benchsite.compare/1");
  bs__jobj_string(&j, "baseline", r->baseline);
  bs__jobj_string(&j, "candidate", r->candidate);
  bs__jobj_string(&j, "metric", bs_metric_get(o->metric)->name);
  bs__jobj_string(&j, "mode", bs_mode_name(o->mode));
  bs__jobj_number(&j, "threshold_pct", o->threshold_pct);
  bs__jobj_u64(&j, "resamples", o->resamples);
  bs__jobj_number(&j, "level_pct", o->level_pct);
  bs__jobj_u64(&j, "seed", o->seed);
  bs__jobj_u64(&j, "regressions", r->regressions);
  bs__jobj_u64(&j, "family_regressions", r->family_regressions);
  bs__jobj_bool(&j, "family_wise",
                o->family_wise && o->mode == BS_MODE_CONFIRMATORY);
  bs__jobj_u64(&j, "inconclusive", r->inconclusive);
  /* The headline's counts (bs_summary_compare): significant improvements,
   * and equivalent cases that are neither significant nor inconclusive. */
  size_t equivalent = 0;
  for (size_t i = 0; i < r->ncases; i++)
    equivalent += r->cases[i].verdict == BS_VERDICT_EQUIVALENT &&
                  !r->cases[i].significant_regression &&
                  !r->cases[i].significant_improvement &&
                  !r->cases[i].inconclusive;
  bs__jobj_u64(&j, "improvements", r->improvements);
  bs__jobj_u64(&j, "equivalent", equivalent);
  bs__jobj_u64(&j, "adaptive", r->adaptive);
  bs__jobj_u64(&j, "layout_sensitive", r->layout_sensitive);
  bs__jobj_u64(&j, "held_by_layout", r->held_by_layout);
  bs__jobj_u64(&j, "blind", r->blind);
  bs__jobj_number(&j, "blind_max_mde_pct", r->blind_max_mde_pct);
  if (bs__jobj_key(&j, "environment"))
    j.st = bs__json_manifest(&b, env, 4);
  bs__jobj_objects(&j, "cases", r->ncases, compare_case, r->cases);
  if (bs__jobj_key(&j, "warnings"))
    j.st = bs__json_string_array(&b, r->warnings, r->nwarnings);
  return bs__json_doc_end(&j, out, len, err);
}

static bs_status tune_case(bs__buf *b, const void *cases, size_t i) {
  const bs_tune_case *c = (const bs_tune_case *)cases + i;
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 6, c->benchmark, c->dataset);
  if (bs__jobj_key(&o, "scale"))
    o.st =
        c->has_scale ? bs__json_number(b, c->scale) : bs__buf_puts(b, "null");
  bs__jobj_string(&o, "best", c->best);
  if (bs__jobj_key(&o, "medians"))
    o.st = bs__buf_putc(b, '{');
  for (size_t u = 0; !o.st && u < c->nmedians; u++) {
    o.st = u ? bs__buf_puts(b, ", ") : BS_OK;
    if (!o.st)
      o.st = bs__json_string(b, c->medians[u].impl);
    if (!o.st)
      o.st = bs__buf_puts(b, ": ");
    if (!o.st)
      o.st = bs__json_number(b, c->medians[u].median_us);
  }
  if (!o.st)
    o.st = bs__buf_putc(b, '}');
  if (bs__jobj_key(&o, "runner_up"))
    o.st = c->runner_up ? bs__json_string(b, c->runner_up)
                        : bs__buf_puts(b, "null");
  bs__jobj_bool(&o, "decisive", c->decisive);
  bs__jobj_number(&o, "ci_low_us", c->ci_low_us);
  bs__jobj_number(&o, "ci_high_us", c->ci_high_us);
  return bs__jobj_end(&o);
}

static bs_status crossover(bs__buf *b, const void *crossovers, size_t i) {
  const bs_crossover *c = (const bs_crossover *)crossovers + i;
  bs__jobj o;
  bs__jobj_begin(&o, b, 6);
  bs__jobj_string(&o, "benchmark", c->benchmark);
  bs__jobj_string(&o, "a", c->a);
  bs__jobj_string(&o, "b", c->b);
  bs__jobj_number(&o, "scale", c->scale);
  bs__jobj_bool(&o, "decisive", c->decisive);
  return bs__jobj_end(&o);
}

bs_status bs_json_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err) {
  bs__buf b;
  bs__jobj j;
  bs__json_doc_begin(&j, &b, "benchsite.tune/1");
  bs__jobj_string(&j, "metric", bs_metric_get(r->metric)->name);
  bs__jobj_objects(&j, "best", r->ncases, tune_case, r->cases);
  bs__jobj_objects(&j, "crossovers", r->ncrossovers, crossover, r->crossovers);
  return bs__json_doc_end(&j, out, len, err);
}
