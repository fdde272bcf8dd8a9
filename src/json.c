#include "benchsite/json.h"

#include "buf.h"
#include "jsonw.h"

#include <stdlib.h>

static bs_status string_array(bs__buf *b, char *const *list, size_t n) {
  bs_status st = bs__buf_putc(b, '[');
  for (size_t i = 0; !st && i < n; i++) {
    if (i)
      st = bs__buf_puts(b, ", ");
    if (!st)
      st = bs__json_string(b, list[i]);
  }
  return st ? st : bs__buf_putc(b, ']');
}

static bs_status environment(bs__buf *b, const bs_manifest *env) {
  size_t n = env ? bs_manifest_count(env) : 0;
  bs_status st = bs__buf_putc(b, '{');
  for (size_t i = 0; !st && i < n; i++) {
    if (!st)
      st = bs__json_key(b, 4, i == 0, bs_manifest_key(env, i));
    if (!st)
      st = bs__json_string(b, bs_manifest_value(env, i));
  }
  if (!st && n)
    st = bs__buf_puts(b, "\n  ");
  return st ? st : bs__buf_putc(b, '}');
}

static bs_status compare_case(bs__buf *b, const bs_case_compare *c) {
  bs_status st = bs__buf_puts(b, "    {");
#define KEY(first, name) (st ? st : (st = bs__json_key(b, 6, first, name)))
  KEY(1, "benchmark");
  if (!st)
    st = bs__json_string(b, c->benchmark);
  KEY(0, "dataset");
  if (!st)
    st = bs__json_string(b, c->dataset);
  KEY(0, "blocks");
  if (!st)
    st = bs__json_u64(b, c->blocks);
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
  for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
    KEY(0, names[i]);
    if (!st)
      st = bs__json_number(b, values[i]);
  }
  KEY(0, "verdict");
  if (!st)
    st = bs__json_string(b, bs_verdict_name(c->verdict));
  KEY(0, "significant_regression");
  if (!st)
    st = bs__json_bool(b, c->significant_regression);
  KEY(0, "outliers");
  if (!st)
    st = bs__json_u64(b, c->outliers);
  if (c->has_noise_floor) {
    KEY(0, "noise_floor_pct");
    if (!st)
      st = bs__json_number(b, c->noise_floor_pct);
    KEY(0, "within_noise");
    if (!st)
      st = bs__json_bool(b, c->within_noise);
  }
  KEY(0, "warnings");
  if (!st)
    st = string_array(b, c->warnings, c->nwarnings);
#undef KEY
  return st ? st : bs__buf_puts(b, "\n    }");
}

bs_status bs_json_compare(const bs_compare_result *r, const bs_manifest *env,
                          char **out, size_t *len, bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, 0);
  const bs_compare_options *o = &r->options;
  bs_status st = bs__buf_putc(&b, '{');
#define KEY(first, name) (st ? st : (st = bs__json_key(&b, 2, first, name)))
  KEY(1, "schema");
  if (!st)
    st = bs__json_string(&b, "benchsite.compare/1");
  KEY(0, "baseline");
  if (!st)
    st = bs__json_string(&b, r->baseline);
  KEY(0, "candidate");
  if (!st)
    st = bs__json_string(&b, r->candidate);
  KEY(0, "mode");
  if (!st)
    st = bs__json_string(&b, bs_mode_name(o->mode));
  KEY(0, "threshold_pct");
  if (!st)
    st = bs__json_number(&b, o->threshold_pct);
  KEY(0, "resamples");
  if (!st)
    st = bs__json_u64(&b, o->resamples);
  KEY(0, "level_pct");
  if (!st)
    st = bs__json_number(&b, o->level_pct);
  KEY(0, "seed");
  if (!st)
    st = bs__json_u64(&b, o->seed);
  KEY(0, "regressions");
  if (!st)
    st = bs__json_u64(&b, r->regressions);
  KEY(0, "environment");
  if (!st)
    st = environment(&b, env);
  KEY(0, "cases");
  if (!st)
    st = bs__buf_putc(&b, '[');
  for (size_t i = 0; !st && i < r->ncases; i++) {
    st = bs__buf_puts(&b, i ? ",\n" : "\n");
    if (!st)
      st = compare_case(&b, &r->cases[i]);
  }
  if (!st)
    st = bs__buf_puts(&b, r->ncases ? "\n  ]" : "]");
  KEY(0, "warnings");
  if (!st)
    st = string_array(&b, r->warnings, r->nwarnings);
#undef KEY
  if (!st)
    st = bs__buf_puts(&b, "\n}\n");
  if (st) {
    bs__buf_release(&b);
    return bs_error_set(err, st, NULL, 0, "cannot render JSON: %s",
                        bs_strerror(st));
  }
  *out = bs__buf_detach(&b, len);
  return *out ? BS_OK : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
}

bs_status bs_json_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, 0);
  bs_status st = bs__buf_puts(&b, "{\n  \"schema\": \"benchsite.tune/1\",\n"
                                  "  \"best\": [");
  for (size_t i = 0; !st && i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    st = bs__buf_puts(&b, i ? ",\n    {" : "\n    {");
#define KEY(first, name) (st ? st : (st = bs__json_key(&b, 6, first, name)))
    KEY(1, "benchmark");
    if (!st)
      st = bs__json_string(&b, c->benchmark);
    KEY(0, "dataset");
    if (!st)
      st = bs__json_string(&b, c->dataset);
    KEY(0, "scale");
    if (!st)
      st = c->has_scale ? bs__json_number(&b, c->scale)
                        : bs__buf_puts(&b, "null");
    KEY(0, "best");
    if (!st)
      st = bs__json_string(&b, c->best);
    KEY(0, "medians");
    if (!st)
      st = bs__buf_putc(&b, '{');
    for (size_t u = 0; !st && u < c->nmedians; u++) {
      st = u ? bs__buf_puts(&b, ", ") : BS_OK;
      if (!st)
        st = bs__json_string(&b, c->medians[u].impl);
      if (!st)
        st = bs__buf_puts(&b, ": ");
      if (!st)
        st = bs__json_number(&b, c->medians[u].median_us);
    }
    if (!st)
      st = bs__buf_puts(&b, "}\n    }");
  }
  if (!st)
    st = bs__buf_puts(&b, r->ncases ? "\n  ],\n  \"crossovers\": ["
                                    : "],\n  \"crossovers\": [");
  for (size_t i = 0; !st && i < r->ncrossovers; i++) {
    const bs_crossover *c = &r->crossovers[i];
    st = bs__buf_puts(&b, i ? ",\n    {" : "\n    {");
    KEY(1, "benchmark");
    if (!st)
      st = bs__json_string(&b, c->benchmark);
    KEY(0, "a");
    if (!st)
      st = bs__json_string(&b, c->a);
    KEY(0, "b");
    if (!st)
      st = bs__json_string(&b, c->b);
    KEY(0, "scale");
    if (!st)
      st = bs__json_number(&b, c->scale);
#undef KEY
    if (!st)
      st = bs__buf_puts(&b, "\n    }");
  }
  if (!st)
    st = bs__buf_puts(&b, r->ncrossovers ? "\n  ]\n}\n" : "]\n}\n");
  if (st) {
    bs__buf_release(&b);
    return bs_error_set(err, st, NULL, 0, "cannot render JSON: %s",
                        bs_strerror(st));
  }
  *out = bs__buf_detach(&b, len);
  return *out ? BS_OK : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
}
