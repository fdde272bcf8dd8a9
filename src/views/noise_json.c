/* The A/A validation as `benchsite.noise/1` JSON (SPEC §4.2): the
 * options, the environment manifest, then per case its figures, its
 * per-run arrays and every experiment with both drift tests, in a fixed
 * key order, every number with %.17g. It writes what bs_noise_run
 * computed and nothing else, so `compare --noise` reads back exactly the
 * floors the A/A run found (noise_file.c). */
#include "benchsite/json.h"

#include "benchsite/noise.h"
#include "buf.h"
#include "jsonw.h"
#include "manifest_json.h"

static bs_status drift_object(bs__buf *b, int has, const bs_drift *d) {
  if (!has)
    return bs__buf_puts(b, "null");
  bs__buf_puts(b, "{\"rho\": ");
  bs__json_number(b, d->rho);
  bs__buf_puts(b, ", \"z\": ");
  bs__json_number(b, d->z);
  bs__buf_puts(b, ", \"p\": ");
  bs__json_number(b, d->p);
  bs__buf_puts(b, ", \"drifted\": ");
  bs__json_bool(b, d->drifted);
  bs__buf_puts(b, ", \"first\": ");
  bs__json_number(b, d->first);
  bs__buf_puts(b, ", \"second\": ");
  bs__json_number(b, d->second);
  bs__buf_puts(b, ", \"relative_shift\": ");
  bs__json_number(b, d->relative_shift);
  return bs__buf_putc(b, '}');
}

/* A case's experiments, and whether their JSON has block lengths. */
typedef struct experiments {
  const bs_noise_experiment *e;
  int blocks;
} experiments;

static bs_status experiment_json(bs__buf *b, const void *ctx, size_t k) {
  const experiments *ex = ctx;
  const bs_noise_experiment *e = &ex->e[k];
  bs__jobj o;
  bs__jobj_begin(&o, b, 10);
  bs__jobj_u64(&o, "run", e->run);
  bs__jobj_u64(&o, "samples_a", e->na);
  bs__jobj_u64(&o, "samples_b", e->nb);
  bs__jobj_number(&o, "median_a_us", e->median_a_us);
  bs__jobj_number(&o, "median_b_us", e->median_b_us);
  bs__jobj_number(&o, "delta", e->delta);
  bs__jobj_u64(&o, "seed_ab", e->seed_ab);
  bs__jobj_u64(&o, "seed_ba", e->seed_ba);
  if (ex->blocks) {
    bs__jobj_u64(&o, "block_length_a", e->block_length_a);
    bs__jobj_u64(&o, "block_length_b", e->block_length_b);
  }
  bs__jobj_number(&o, "conf_ab", e->conf_ab);
  bs__jobj_number(&o, "conf_ba", e->conf_ba);
  bs__jobj_number(&o, "confidence", e->confidence);
  bs__jobj_number(&o, "tie", e->tie);
  if (bs__jobj_key(&o, "drift_a"))
    o.st = drift_object(b, e->has_drift_a, &e->drift_a);
  if (bs__jobj_key(&o, "drift_b"))
    o.st = drift_object(b, e->has_drift_b, &e->drift_b);
  bs__jobj_bool(&o, "drifted", e->drifted);
  bs__jobj_number(&o, "lag1_a", e->lag1_a);
  bs__jobj_number(&o, "lag1_b", e->lag1_b);
  bs__jobj_number(&o, "median_delta_us", e->median_delta_us);
  bs__jobj_number(&o, "paired_delta_pct", e->paired_delta_pct);
  bs__jobj_number(&o, "ci_low_us", e->ci_low_us);
  bs__jobj_number(&o, "ci_high_us", e->ci_high_us);
  bs__jobj_bool(&o, "significant_regression", e->significant_regression);
  return bs__jobj_end(&o);
}

static bs_status case_json(bs__buf *b, const void *result, size_t i) {
  const bs_noise_result *r = result;
  const bs_noise_case *c = &r->cases[i];
  experiments ex = {c->experiments, r->options.block_mode != BS_BLOCK_NONE};
  static const char *const names[] = {
      "noise_floor",       "max_observed_noise", "typical_noise",
      "mean_confidence",   "median_confidence",  "tie_rate",
      "false_signal_rate", "drift_rate",         "median_drift_shift",
      "autocorrelation"};
  const double values[] = {c->noise_floor,        c->max_observed_noise,
                           c->typical_noise,      c->mean_confidence,
                           c->median_confidence,  c->tie_rate,
                           c->false_signal_rate,  c->drift_rate,
                           c->median_drift_shift, c->autocorrelation};
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 6, c->benchmark, c->dataset);
  bs__jobj_u64(&o, "runs", c->runs);
  bs__jobj_numbers(&o, names, values, sizeof values / sizeof values[0]);
  if (bs__jobj_key(&o, "deltas"))
    o.st = bs__json_number_array(b, c->deltas, c->runs);
  if (bs__jobj_key(&o, "confidences"))
    o.st = bs__json_number_array(b, c->confidences, c->runs);
  if (bs__jobj_key(&o, "paired_deltas_pct"))
    o.st = bs__json_number_array(b, c->paired_deltas_pct, c->runs);
  bs__jobj_number(&o, "paired_noise_floor_pct", c->paired_noise_floor_pct);
  bs__jobj_number(&o, "false_regression_rate", c->false_regression_rate);
  bs__jobj_bool(&o, "gate_resolves", c->gate_resolves);
  bs__jobj_u64(&o, "blocks_for_gate", c->blocks_for_gate);
  bs__jobj_objects(&o, "experiments", c->runs, experiment_json, &ex);
  return bs__jobj_end(&o);
}

bs_status bs_json_noise(const bs_noise_result *r, const bs_manifest *env,
                        char **out, size_t *len, bs_error *err) {
  bs__buf b;
  const bs_noise_options *o = &r->options;
  int blocks = o->block_mode != BS_BLOCK_NONE;
  bs__jobj j;
  bs__json_doc_begin(&j, &b, "benchsite.noise/1");
  bs__jobj_string(&j, "a", r->a);
  bs__jobj_string(&j, "b", r->b);
  bs__jobj_string(&j, "metric", bs_metric_get(o->metric)->name);
  bs__jobj_u64(&j, "resamples", o->resamples);
  bs__jobj_number(&j, "level", o->level);
  bs__jobj_u64(&j, "seed", o->seed);
  if (blocks && bs__jobj_key(&j, "block_length"))
    j.st = o->block_mode == BS_BLOCK_AUTO ? bs__json_string(&b, "auto")
                                          : bs__json_u64(&b, o->block_length);
  bs__jobj_number(&j, "suite_false_alarm_rate", r->suite_false_alarm_rate);
  if (bs__jobj_key(&j, "environment"))
    j.st = bs__json_manifest(&b, env, 4);
  bs__jobj_objects(&j, "cases", r->ncases, case_json, r);
  return bs__json_doc_end(&j, out, len, err);
}
