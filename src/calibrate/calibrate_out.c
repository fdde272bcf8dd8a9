/* The calibration's views: JSON (benchsite.calibration/1), the text
 * report and the HTML page with its chart. They render; the numbers are
 * the model's (calibrate.c). */
#include "benchsite/calibrate.h"

#include "benchsite/compare.h"
#include "benchsite/output.h"
#include "benchsite/plot.h"
#include "buf.h"
#include "jsonw.h"
#include "manifest_json.h"
#include "markup.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mode_name(bs_run_mode m) {
  const char *h = bs_run_harness_name(m);
  return h ? h : m == BS_RUN_LIBRARY ? "library" : "command";
}

static const char *design_name(const bs_calibration *c) {
  if (c->method != BS_CALIBRATE_REAL_WORK)
    return "pairs";
  return c->duet ? "duet pairs" : "interleaved";
}

/* {"count": k, "runs": n, "rate": r, "low": l, "high": h} on one line. */
static void json_rate(bs__jobj *o, const char *key,
                      const bs_calibration_rate *r) {
  if (!bs__jobj_key(o, key))
    return;
  bs__buf *b = o->b;
  bs__buf_printf(b, "{\"count\": %llu, \"runs\": %llu, \"rate\": ",
                 (unsigned long long)r->k, (unsigned long long)r->n);
  bs__json_number(b, r->rate);
  bs__buf_puts(b, ", \"low\": ");
  bs__json_number(b, r->low);
  bs__buf_puts(b, ", \"high\": ");
  bs__json_number(b, r->high);
  o->st = bs__buf_putc(b, '}');
}

typedef struct plant_ctx {
  const bs_calibration *c;
  const bs_calibration_case *k; /* NULL: the suite's */
} plant_ctx;

static bs_status json_plant(bs__buf *b, const void *ctx, size_t i) {
  const plant_ctx *p = ctx;
  bs__jobj o;
  bs__jobj_begin(&o, b, p->k ? 10 : 8);
  bs__jobj_number(&o, "plant_pct", p->c->plants[i]);
  if (p->k) {
    json_rate(&o, "found", &p->k->found[i]);
    bs__jobj_number(&o, "median_delta_pct", p->k->median_delta_pct[i]);
  } else {
    json_rate(&o, "found", &p->c->suite_found[i]);
    bs__jobj_number(&o, "min_case_rate", p->c->suite_min_found[i]);
  }
  return bs__jobj_end(&o);
}

static bs_status json_case(bs__buf *b, const void *ctx, size_t i) {
  const bs_calibration *c = ctx;
  const bs_calibration_case *k = &c->cases[i];
  bs__jobj o;
  bs__jobj_begin_case(&o, b, 6, k->benchmark, k->dataset);
  json_rate(&o, "false_alarms", &k->false_alarms);
  bs__jobj_number(&o, "aa_median_delta_pct", k->aa_median_delta_pct);
  plant_ctx p = {c, k};
  bs__jobj_objects(&o, "plants", c->nplants, json_plant, &p);
  return bs__jobj_end(&o);
}

bs_status bs_calibration_json(const bs_calibration *c, char **out, size_t *len,
                              bs_error *err) {
  bs__buf b;
  bs__jobj j;
  bs__json_doc_begin(&j, &b, "benchsite.calibration/1");
  bs__jobj_string(&j, "impl", c->impl);
  bs__jobj_string(&j, "mode", mode_name(c->mode));
  bs__jobj_string(&j, "plant_method", bs_calibrate_method_name(c->method));
  bs__jobj_string(&j, "design", design_name(c));
  bs__jobj_number(&j, "threshold_pct", BS_GATE_THRESHOLD_PCT);
  bs__jobj_number(&j, "level_pct", BS_GATE_LEVEL_PCT);
  bs__jobj_u64(&j, "resamples", BS_GATE_RESAMPLES);
  bs__jobj_number(&j, "confidence", BS_CALIBRATE_CONFIDENCE);
  bs__jobj_string(&j, "protocol", c->protocol);
  bs__jobj_number(&j, "target_us", c->target_us);
  bs__jobj_u64(&j, "blocks", c->blocks);
  bs__jobj_u64(&j, "runs_per_rep", c->runs_per_rep);
  bs__jobj_bool(&j, "duet", c->duet);
  bs__jobj_u64(&j, "seed", c->seed);
  bs__jobj_u64(&j, "reps_planned", c->reps_planned);
  bs__jobj_u64(&j, "reps", c->reps);
  bs__jobj_bool(&j, "budget_hit", c->budget_hit);
  bs__jobj_number(&j, "seconds", c->seconds);
  bs__jobj_string(&j, "date", c->date);
  if (bs__jobj_key(&j, "plants_pct"))
    j.st = bs__json_number_array(j.b, c->plants, c->nplants);
  if (bs__jobj_key(&j, "environment"))
    j.st = bs__json_manifest(j.b, c->environment, 4);
  if (bs__jobj_key(&j, "suite")) {
    bs__jobj s;
    bs__jobj_begin(&s, j.b, 4);
    json_rate(&s, "false_alarms", &c->suite_false_alarms);
    plant_ctx p = {c, NULL};
    bs__jobj_objects(&s, "plants", c->nplants, json_plant, &p);
    j.st = bs__jobj_end(&s);
  }
  bs__jobj_objects(&j, "cases", c->ncases, json_case, c);
  return bs__json_doc_end(&j, out, len, err);
}

/* ---- text ---------------------------------------------------------------- */

/* "12.5 % (<= 30.1 %)" style figures: a share in percent. */
static void pct(bs__buf *b, double f) {
  if (isfinite(f))
    bs__buf_printf(b, "%.1f %%", 100 * f);
  else
    bs__buf_puts(b, "-");
}

static void text_rate(bs__buf *b, const bs_calibration_rate *r, int upper) {
  bs__buf_printf(b, "%llu/%llu ", (unsigned long long)r->k,
                 (unsigned long long)r->n);
  pct(b, r->rate);
  bs__buf_puts(b, upper ? " (<= " : " (>= ");
  pct(b, upper ? r->high : r->low);
  bs__buf_putc(b, ')');
}

static void describe(bs__buf *b, const bs_calibration *c) {
  bs__buf_printf(b,
                 "benchsite calibrate: what the gate sees on this runner "
                 "(%s mode, ",
                 mode_name(c->mode));
  bs__buf_term(b, c->impl, 0);
  bs__buf_printf(
      b,
      ")\n%llu of %llu runs measured%s in %.0f s (%.1f s a run); "
      "each run: %s%s%llu run%s of %llu blocks%s\n",
      (unsigned long long)c->reps, (unsigned long long)c->reps_planned,
      c->budget_hit ? " (the budget ended it)" : "", c->seconds,
      c->reps ? c->seconds / (double)c->reps : 0.0,
      c->protocol[0] ? c->protocol : "", c->protocol[0] ? " protocol, " : "",
      (unsigned long long)c->runs_per_rep, c->runs_per_rep == 1 ? "" : "s",
      (unsigned long long)c->blocks, c->duet ? ", duet" : "");
  if (c->method == BS_CALIBRATE_REAL_WORK && c->duet)
    bs__buf_printf(b,
                   "plants: real work (the planted copy makes ceil(n p/100) "
                   "more calls per batch of n), each beside the base in a "
                   "duet run of its own, as the A/A pair is (%zu duet runs "
                   "a rep)\n",
                   1 + c->nplants);
  else if (c->method == BS_CALIBRATE_REAL_WORK)
    bs__buf_puts(b, "plants: real work (the planted copy makes ceil(n p/100) "
                    "more calls per batch of n), measured in the same blocks "
                    "as an A/A pair\n");
  else
    bs__buf_puts(b, "plants: scaled observations (the A/A candidate's times "
                    "multiplied by 1 + p/100), not measured work\n");
  bs__buf_printf(b,
                 "judged by the gate (confirmatory, delta %g %%); bounds "
                 "are exact one-sided %g %% (Clopper-Pearson)\n\n",
                 BS_GATE_THRESHOLD_PCT, 100 * BS_CALIBRATE_CONFIDENCE);
}

bs_status bs_calibration_text(const bs_calibration *c, char **out, size_t *len,
                              bs_error *err) {
  bs__buf b;
  bs__buf_init(&b, BS__CAP_TEXT);
  describe(&b, c);
  bs__buf_puts(&b, "suite: identical code flagged in ");
  text_rate(&b, &c->suite_false_alarms, 1);
  bs__buf_puts(&b, " of runs\n");
  for (size_t p = 0; p < c->nplants; p++) {
    bs__buf_printf(&b, "suite: +%g %% found in ", c->plants[p]);
    text_rate(&b, &c->suite_found[p], 0);
    bs__buf_puts(&b, " of case-runs; weakest case ");
    pct(&b, c->suite_min_found[p]);
    bs__buf_putc(&b, '\n');
  }
  for (size_t i = 0; i < c->ncases; i++) {
    const bs_calibration_case *k = &c->cases[i];
    bs__buf_putc(&b, '\n');
    bs__buf_term(&b, k->benchmark, 0);
    if (k->dataset[0]) {
      bs__buf_puts(&b, " [");
      bs__buf_term(&b, k->dataset, 0);
      bs__buf_putc(&b, ']');
    }
    bs__buf_puts(&b, "\n  A/A flagged  ");
    text_rate(&b, &k->false_alarms, 1);
    bs__buf_printf(&b, "; median change %+.2f %%\n", k->aa_median_delta_pct);
    for (size_t p = 0; p < c->nplants; p++) {
      bs__buf_printf(&b, "  +%-5g found  ", c->plants[p]);
      text_rate(&b, &k->found[p], 0);
      bs__buf_printf(&b, "; measured %+.2f %%\n", k->median_delta_pct[p]);
    }
  }
  return bs__buf_finish(&b, BS_OK, "the calibration", out, len, err);
}

/* ---- the page ------------------------------------------------------------ */

static void html_rate(bs__buf *b, const bs_calibration_rate *r, int upper) {
  bs__buf_puts(b, "<td>");
  text_rate(b, r, upper);
  bs__buf_puts(b, "</td>");
}

bs_status bs_calibration_html(const bs_calibration *c, const char *dir,
                              const char *gnuplot, bs_error *err) {
  bs_status st = BS_OK;
  bs_plot *plot = bs_plot_new();
  double *x = malloc((c->nplants + 1) * sizeof *x);
  double *y = malloc((c->nplants + 1) * sizeof *y);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_PAGE);
  if (!plot || !x || !y) {
    st = bs__oom(err);
    goto done;
  }
  /* Detection against plant size, one line per case; plant 0 is the A/A
   * pair (its "detection" is the false-alarm rate). */
  bs_plot_chart(plot, "calibration.svg", 760, 420);
  bs_plot_title(plot, "Share of runs the gate flagged, by planted slowdown");
  bs_plot_xlabel(plot, "planted slowdown (%; 0 = identical code)");
  bs_plot_ylabel(plot, "runs flagged (%)");
  bs_plot_yrange(plot, 0, 100);
  bs_plot_xrange(plot, -0.5, c->plants[c->nplants - 1] * 1.05 + 0.5);
  bs_plot_key(plot, BS_KEY_BELOW);
  bs_plot_hline(
      plot, 2.5,
      &(bs_plot_style){.color = 0x888888, .line_width = 1, .dashed = 1},
      "2.5 % (the gate's one-sided level)");
  for (size_t i = 0; i < c->ncases; i++) {
    const bs_calibration_case *k = &c->cases[i];
    x[0] = 0;
    y[0] = 100 * k->false_alarms.rate;
    for (size_t p = 0; p < c->nplants; p++) {
      x[p + 1] = c->plants[p];
      y[p + 1] = 100 * k->found[p].rate;
    }
    char title[600];
    snprintf(title, sizeof title, "%s%s%s%s", k->benchmark,
             k->dataset[0] ? " [" : "", k->dataset, k->dataset[0] ? "]" : "");
    const double *cols[] = {x, y};
    bs_plot_series(plot, BS_PLOT_LINESPOINTS, title,
                   &(bs_plot_style){.marker = (bs_plot_marker)(1 + i % 7)},
                   cols, c->nplants + 1);
  }
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  run.gnuplot = gnuplot;
  if ((st = bs_plot_render(plot, dir, &run, err)))
    goto done;

  bs__buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta "
                   "charset=\"utf-8\"><title>Calibration: ");
  bs__markup_puts(&b, c->impl);
  bs__buf_puts(&b, "</title>\n<style>body{font-family:sans-serif;max-width:"
                   "60em;margin:2em auto}table{border-collapse:collapse}"
                   "td,th{padding:.2em .6em;border-bottom:1px solid #ddd;"
                   "text-align:left}</style></head><body>\n<h1>What the gate "
                   "sees on this runner</h1>\n<pre>");
  bs__buf d;
  bs__buf_init(&d, BS__CAP_TEXT);
  describe(&d, c);
  if (bs__buf_status(&d))
    bs__buf_fail(&b, bs__buf_status(&d));
  else
    bs__markup_put(&b, d.data, d.len);
  bs__buf_release(&d);
  bs__buf_puts(&b, "</pre>\n<p>Identical code flagged in ");
  text_rate(&b, &c->suite_false_alarms, 1);
  bs__buf_puts(&b, " of runs.</p>\n<p><img src=\"calibration.svg\" "
                   "alt=\"share of runs flagged against the planted "
                   "slowdown, per case\" width=\"760\" height=\"420\"></p>\n"
                   "<table><tr><th>case</th><th>A/A flagged</th>");
  for (size_t p = 0; p < c->nplants; p++)
    bs__buf_printf(&b, "<th>+%g %% found</th>", c->plants[p]);
  bs__buf_puts(&b, "</tr>\n<tr><td><b>suite</b></td>");
  html_rate(&b, &c->suite_false_alarms, 1);
  for (size_t p = 0; p < c->nplants; p++)
    html_rate(&b, &c->suite_found[p], 0);
  bs__buf_puts(&b, "</tr>\n");
  for (size_t i = 0; i < c->ncases; i++) {
    const bs_calibration_case *k = &c->cases[i];
    bs__buf_puts(&b, "<tr><td>");
    bs__markup_puts(&b, k->benchmark);
    if (k->dataset[0]) {
      bs__buf_puts(&b, " [");
      bs__markup_puts(&b, k->dataset);
      bs__buf_putc(&b, ']');
    }
    bs__buf_puts(&b, "</td>");
    html_rate(&b, &k->false_alarms, 1);
    for (size_t p = 0; p < c->nplants; p++)
      html_rate(&b, &k->found[p], 0);
    bs__buf_puts(&b, "</tr>\n");
  }
  bs__buf_puts(&b, "</table>\n</body></html>\n");
  if ((st = bs__buf_status(&b))) {
    st = bs__oom_as(err, st);
    goto done;
  }
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/index.html", dir) >=
      sizeof path) {
    st = bs_error_set(err, BS_EIO, dir, 0, "path too long");
    goto done;
  }
  st = bs_write_file_atomic(path, b.data, b.len, err);
done:
  bs__buf_release(&b);
  bs_plot_free(plot);
  free(x);
  free(y);
  return st;
}
