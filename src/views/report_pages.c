/* The pages of a report: the data each template renders. Numbers are
 * formatted here (with units); every string reaches the HTML through the
 * template engine's escaping. Page names come from indices. */
#include "report_int.h"
#include "strset.h"

#include "benchsite/manifest.h"
#include "benchsite/quantile.h"

#include "fsutil.h"
#include "oom.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCHSITE_VERSION
#define BENCHSITE_VERSION "unknown"
#endif

static void case_file(char *buf, size_t n, size_t i) {
  bs__case_page(buf, n, i);
}

/* The glossary's symbols for the templates: {{g.outlier}} is "◇",
 * {{g.outlier_label}} "◇ Tukey outlier"; with `list`, every entry as
 * {{#glossary}} rows (symbol, word, meaning) for the index's glossary. */
static void glossary(bs_tval *root, int list) {
  static const struct {
    const char *key;
    bs__term t;
  } keys[] = {
      {"regression", BS__T_REGRESSION},
      {"slower", BS__T_SLOWER},
      {"equivalent", BS__T_EQUIVALENT},
      {"faster", BS__T_FASTER},
      {"improvement", BS__T_IMPROVEMENT},
      {"inconclusive", BS__T_INCONCLUSIVE},
      {"within_noise", BS__T_WITHIN_NOISE},
      {"warning", BS__T_WARNING},
      {"outlier", BS__T_OUTLIER},
      {"medians", BS__T_MEDIANS},
      {"gate_passed", BS__T_GATE_PASSED},
      {"gate_failed", BS__T_GATE_FAILED},
      {"hotspot", BS__T_HOTSPOT},
      {"comparability", BS__T_COMPARABILITY},
      {"tie", BS__T_TIE},
  };
  bs_tval *g = bs_tval_set_obj(root, "g");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const bs__gloss *e = bs__glossary(keys[i].t);
    char k[64];
    bs_tval_set_str(g, keys[i].key, e->symbol);
    snprintf(k, sizeof k, "%s_label", keys[i].key);
    bs_tval_set_str(g, k, e->label);
  }
  if (!list)
    return;
  bs_tval *l = bs_tval_set_list(root, "glossary");
  for (int t = 0; t < BS__NTERMS; t++) {
    const bs__gloss *e = bs__glossary((bs__term)t);
    bs_tval *o = bs_tval_push_obj(l);
    bs_tval_set_str(o, "symbol", e->symbol);
    bs_tval_set_str(o, "word", e->word);
    bs_tval_set_str(o, "meaning", e->meaning);
  }
}

static void chart_obj(const bs__report *r, bs_tval *c, size_t k,
                      const char *caption) {
  const bs__rchart *ch = &r->charts[k];
  bs_tval_set_strf(c, "src", "charts/%s", ch->file);
  bs_tval_set_str(c, "alt", ch->alt);
  bs_tval_set_strf(c, "width", "%d", ch->width);
  bs_tval_set_strf(c, "height", "%d", ch->height);
  bs_tval_set_str(c, "caption", caption);
}

static void set_chart(const bs__report *r, bs_tval *obj, const char *key,
                      size_t k, const char *caption) {
  if (k == BS__NO_CHART)
    return;
  chart_obj(r, bs_tval_set_obj(obj, key), k, caption);
}

static void push_chart(const bs__report *r, bs_tval *list, size_t k,
                       const char *caption) {
  if (k == BS__NO_CHART)
    return;
  chart_obj(r, bs_tval_push_obj(list), k, caption);
}

static const char *basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s && s[1] ? s + 1 : path;
}

/* Everything every page shows: title, navigation, the run's identity. */
static bs_tval *page(const bs__report *r, bs_tdata *d, const char *title,
                     const char *current) {
  bs_tval *root = bs_tdata_root(d);
  bs_tval_set_str(root, "title", title);
  bs_tval_set_str(root, "generator", "benchsite " BENCHSITE_VERSION);
  bs_tval *nav = bs_tval_set_list(root, "nav");
  if (r->o->home_href) {
    bs_tval *home = bs_tval_push_obj(nav);
    bs_tval_set_str(home, "href", r->o->home_href);
    bs_tval_set_str(home, "label",
                    r->o->home_label ? r->o->home_label : "All runs");
    bs_tval_set_bool(home, "current", 0);
  }
  static const char *const hrefs[] = {"index.html", "tuning.html", "aa.html"};
  static const char *const labels[] = {"Overview", "Tuning", "A/A noise"};
  int present[] = {1, r->tune != NULL, r->aa != NULL};
  for (int i = 0; i < 3; i++) {
    if (!present[i])
      continue;
    bs_tval *it = bs_tval_push_obj(nav);
    bs_tval_set_str(it, "href", hrefs[i]);
    bs_tval_set_str(it, "label", labels[i]);
    bs_tval_set_bool(it, "current", current && !strcmp(current, hrefs[i]));
  }
  const bs_manifest *env = r->nmf ? r->mf[0] : NULL;
  bs_tval *run = bs_tval_set_obj(root, "run");
  bs__facts_metric(run, env, r->an->metric);
  const bs_metric_info *mi = bs_metric_get(r->an->metric);
  bs_tval *mv = bs_tval_set_obj(root, "metric");
  bs_tval_set_str(mv, "name", mi->name);
  bs_tval_set_str(mv, "quantity", mi->quantity);
  bs_tval_set_str(mv, "unit", mi->unit);
  bs_tval_set_str(mv, "best", mi->best);
  bs_tval_set_strf(mv, "best_title", "%c%s",
                   toupper((unsigned char)mi->best[0]), mi->best + 1);
  if (r->cmp) {
    bs_tval_set_str(run, "baseline", r->cmp->baseline);
    bs_tval_set_str(run, "candidate", r->cmp->candidate);
  }
  bs_tval_set_strf(root, "seed", "%llu", (unsigned long long)r->an->seed);
  glossary(root, current && !strcmp(current, "index.html"));
  return root;
}

/* ---- Environment: manifests side by side --------------------------------- */

static int is_comparability_key(const char *k) {
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY; i++) {
    if (!strcmp(bs_manifest_comparability_keys[i], k))
      return 1;
  }
  return 0;
}

static bs_status environment(const bs__report *r, bs_tval *root) {
  bs_tval *env = bs_tval_set_obj(root, "environment");
  bs_tval *cols = bs_tval_set_list(env, "columns");
  for (size_t m = 0; m < r->nmf; m++)
    bs_tval_push_str(cols, basename_of(bs_manifest_path(r->mf[m])));
  bs_tval_set_bool(env, "several", r->nmf > 1);
  bs_tval *rows = bs_tval_set_list(env, "rows");
  /* Keys: the comparability keys first, then every other key in the
   * order the manifests list them. */
  size_t cap = BS_MANIFEST_NCOMPARABILITY;
  for (size_t m = 0; m < r->nmf; m++)
    cap += bs_manifest_count(r->mf[m]);
  const char **keys = malloc(cap * sizeof *keys);
  if (!keys)
    return BS_ENOMEM;
  size_t nk = 0;
  /* A hash set of the keys listed so far: manifests may hold 10 000 keys
   * each, and a scan per key would be quadratic. */
  bs__strset seen;
  bs__strset_init(&seen);
  int added = 1;
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY && added >= 0; i++) {
    keys[nk++] = bs_manifest_comparability_keys[i];
    added = bs__strset_put(&seen, keys[i], strlen(keys[i]), i, NULL);
  }
  for (size_t m = 0; m < r->nmf && added >= 0; m++) {
    for (size_t i = 0; i < bs_manifest_count(r->mf[m]) && added >= 0; i++) {
      const char *k = bs_manifest_key(r->mf[m], i);
      added = bs__strset_put(&seen, k, strlen(k), nk, NULL);
      if (added == 1)
        keys[nk++] = k;
    }
  }
  bs__strset_release(&seen);
  if (added < 0) {
    free(keys);
    return BS_ENOMEM;
  }
  /* SPEC §1.2: a comparability key absent from every manifest counts as
   * equal, and the report names it; one present in some only differs. A
   * key with a default (duet) that nobody records is its default, and is
   * not listed. */
  size_t ndiff = 0, nunrec = 0;
  char unrec[256] = "";
  size_t uused = 0;
  for (size_t i = 0; i < nk; i++) {
    int comp = is_comparability_key(keys[i]);
    int recorded = 0;
    for (size_t m = 0; m < r->nmf && !recorded; m++)
      recorded = bs_manifest_get(r->mf[m], keys[i]) != NULL;
    if (comp && !recorded && bs_manifest_comparability_default(keys[i]))
      continue;
    bs_tval *row = bs_tval_push_obj(rows);
    bs_tval_set_str(row, "key", keys[i]);
    bs_tval_set_bool(row, "comparability", comp);
    bs_tval *cells = bs_tval_set_list(row, "cells");
    const char *first =
        r->nmf ? bs_manifest_comparability_value(r->mf[0], keys[i]) : NULL;
    int differs = 0;
    for (size_t m = 0; m < r->nmf; m++) {
      const char *v = bs_manifest_get(r->mf[m], keys[i]);
      const char *cv = bs_manifest_comparability_value(r->mf[m], keys[i]);
      bs_tval *c = bs_tval_push_obj(cells);
      if (v)
        bs_tval_set_str(c, "value", v);
      else
        bs_tval_set_bool(c, "missing", 1);
      if ((cv == NULL) != (first == NULL) || (cv && first && strcmp(cv, first)))
        differs = 1;
    }
    int unrecorded = comp && !recorded;
    /* Differences matter for the keys that decide comparability; others
     * (commit, date) are expected to differ between runs. */
    bs_tval_set_bool(row, "differs", differs && r->nmf > 1);
    bs_tval_set_bool(row, "flag", comp && (differs || unrecorded));
    if (unrecorded)
      bs_tval_set_str(row, "note", "nobody recorded it: counts as equal");
    else if (comp && differs && r->nmf > 1)
      bs_tval_set_str(row, "note", "differs: not comparable");
    else
      bs_tval_set_str(row, "note", "");
    ndiff += comp && differs;
    if (unrecorded) {
      int w = snprintf(unrec + uused, sizeof unrec - uused, "%s%s",
                       nunrec ? ", " : "", keys[i]);
      if (w > 0 && (size_t)w < sizeof unrec - uused)
        uused += (size_t)w;
      nunrec++;
    }
  }
  free(keys);
  if (r->nmf == 0)
    bs_tval_set_str(env, "verdict",
                    "No environment manifest was given (--manifest): nobody "
                    "recorded the setup, so nothing shows which runs this "
                    "one can be compared with.");
  else if (r->nmf > 1 && ndiff)
    bs_tval_set_str(env, "verdict",
                    "The runs are not comparable: flagged keys differ (a "
                    "key recorded by one manifest only counts as "
                    "different).");
  else if (r->nmf > 1 && nunrec)
    bs_tval_set_strf(env, "verdict",
                     "The runs are comparable on the keys they record; "
                     "nobody recorded %s, which count%s as equal.",
                     unrec, nunrec == 1 ? "s" : "");
  else if (r->nmf > 1)
    bs_tval_set_str(env, "verdict",
                    "The runs are comparable: every comparability key is "
                    "present and equal.");
  else if (nunrec)
    bs_tval_set_strf(env, "verdict",
                     "Nobody recorded %s: %s as equal, so a run that differs "
                     "there cannot be told apart from this one.",
                     unrec, nunrec == 1 ? "it counts" : "they count");
  else
    bs_tval_set_str(env, "verdict", "");
  return BS_OK;
}

/* ---- Index --------------------------------------------------------------- */

static void case_row(const bs__report *r, bs_tval *row, size_t i) {
  const bs_case_compare *c = &r->cmp->cases[i];
  char buf[256];
  case_file(buf, sizeof buf, i);
  bs_tval_set_str(row, "href", buf);
  bs_tval_set_str(row, "name",
                  bs__case_label(buf, sizeof buf, c->benchmark, c->dataset));
  bs_tval_set_str(row, "benchmark", c->benchmark);
  bs_tval_set_str(row, "dataset", c->dataset);
  bs_tval_set_strf(row, "blocks", "%zu", c->blocks);
  bs_tval_set_str(
      row, "baseline",
      bs__fmt_val(buf, sizeof buf, r->an->metric, c->median_baseline_us));
  bs_tval_set_str(
      row, "candidate",
      bs__fmt_val(buf, sizeof buf, r->an->metric, c->median_candidate_us));
  bs_tval_set_str(
      row, "delta",
      bs__fmt_val_signed(buf, sizeof buf, r->an->metric, c->median_delta_us));
  bs_tval_set_str(row, "delta_pct",
                  bs__fmt_pct_signed(buf, sizeof buf, c->delta_pct));
  bs_tval_set_str(row, "interval",
                  bs__fmt_val_interval(buf, sizeof buf, r->an->metric,
                                       c->ci_low_us, c->ci_high_us));
  double lo = 100.0 * c->ci_low_us / c->median_baseline_us;
  double hi = 100.0 * c->ci_high_us / c->median_baseline_us;
  char a[64], b[64];
  bs__fmt_pct_signed(a, sizeof a, lo);
  bs__fmt_pct_signed(b, sizeof b, hi);
  bs_tval_set_strf(row, "interval_pct", "%s to %s", a, b);
  /* The two medians stand last, after the paired figures, with the mark
   * when they point elsewhere than the paired Δ%. */
  bs__fmt_val(a, sizeof a, r->an->metric, c->median_baseline_us);
  bs__fmt_val(b, sizeof b, r->an->metric, c->median_candidate_us);
  bs_tval_set_strf(row, "medians", "%s → %s", a, b);
  bs_tval_set_str(row, "unpaired_pct",
                  bs__fmt_pct_signed(buf, sizeof buf, bs__unpaired_pct(c)));
  bs_tval_set_bool(row, "medians_disagree",
                   bs__medians_disagree(c, r->cmp->options.threshold_pct));
  bs_tval_set_strf(row, "speedup", "×%.3f", c->speedup);
  bs_tval_set_str(row, "verdict",
                  bs__verdict_marker(bs__significance(c), c->verdict));
  bs_tval_set_str(row, "verdict_class",
                  bs__verdict_class(bs__significance(c), c->verdict));
  bs_tval_set_bool(row, "regression", c->significant_regression);
  char fl[48];
  if (c->has_noise_floor)
    bs_tval_set_str(row, "noise_floor",
                    bs__fmt_floor(fl, sizeof fl, c->noise_floor_pct));
  else
    bs_tval_set_str(row, "noise_floor", "");
  bs_tval_set_bool(row, "within_noise", c->has_noise_floor && c->within_noise);
  bs_tval_set_bool(row, "inconclusive", c->inconclusive);
  bs_tval_set_bool(row, "has_warnings", c->nwarnings > 0);
}

/* Renders the page data d with template `tmpl` into dir/file, and frees
 * d in every case. */
static bs_status render_to(bs_templates *t, const char *tmpl, bs_tdata *d,
                           const char *dir, const char *file, bs_error *err) {
  char *html = NULL;
  size_t len;
  bs_status st = bs_tdata_status(d);
  if (st)
    st = bs__oom_as(err, st);
  else if (!(st = bs_templates_render(t, tmpl, bs_tdata_root(d), &html, &len,
                                      err))) {
    char *path = bs__path_join(dir, file);
    st = path ? bs__write_file(path, html, len, 0, err) : bs__oom(err);
    free(path);
  }
  free(html);
  bs_tdata_free(d);
  return st;
}

static bs_status index_page(bs__report *r, bs_templates *t, const char *dir,
                            bs_error *err) {
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = page(r, d, "Benchmark report", "index.html");
  char buf[256];
  if (r->cmp) {
    const bs_compare_result *cmp = r->cmp;
    bs_tval *c = bs_tval_set_obj(root, "compare");
    bs_tval_set_str(c, "baseline", cmp->baseline);
    bs_tval_set_str(c, "candidate", cmp->candidate);
    bs_tval_set_strf(c, "threshold", "%g", cmp->options.threshold_pct);
    bs_tval_set_strf(c, "level", "%g", cmp->options.level_pct);
    bs_tval_set_strf(c, "resamples", "%llu",
                     (unsigned long long)cmp->options.resamples);
    int hotspot = cmp->options.mode == BS_MODE_HOTSPOT;
    bs_tval_set_str(c, "mode", bs_mode_name(cmp->options.mode));
    bs_tval_set_bool(c, "hotspot", hotspot);
    bs_tval_set_bool(c, "confirmatory", !hotspot);
    /* Disjoint counts: a significant regression is not counted again as
     * slower, so the four numbers add up to the cases. */
    size_t counts[5] = {0}, within = 0, floors = 0;
    for (size_t i = 0; i < cmp->ncases; i++) {
      const bs_case_compare *cc = &cmp->cases[i];
      if (cc->significant_regression)
        counts[3]++;
      else if (cc->significant_improvement)
        counts[4]++;
      else
        counts[cc->verdict]++;
      within += cc->has_noise_floor && cc->within_noise;
      floors += cc->has_noise_floor != 0;
    }
    size_t failures = bs_compare_gate_failures(cmp);
    bs_tval_set_bool(c, "pass", failures == 0);
    bs_tval_set_strf(c, "improvements", "%zu", counts[4]);
    if (cmp->regressions)
      bs_tval_set_strf(
          c, "family",
          "%zu of %zu significant regression%s survive%s Holm's "
          "correction at 2.5\xc2\xa0%% over the %zu cases%s.",
          cmp->family_regressions, cmp->regressions,
          cmp->regressions == 1 ? "" : "s", cmp->regressions == 1 ? "s" : "",
          cmp->ncases,
          cmp->options.family_wise ? " (the gate counts only these)" : "");
    else
      bs_tval_set_strf(c, "family",
                       "No significant regression, so none for Holm's "
                       "correction at 2.5\xc2\xa0%% over the %zu cases.",
                       cmp->ncases);
    if (cmp->noise_applied && !cmp->raised)
      bs_tval_set_str(c, "noise_gate",
                      "Noise-aware gate: no case's A/A noise floor is above "
                      "δ, so no threshold was raised.");
    else if (cmp->noise_applied)
      bs_tval_set_strf(
          c, "noise_gate",
          "Noise-aware gate: %zu of %zu cases had their threshold raised to "
          "their A/A noise floor, above δ, because a smaller change cannot "
          "be told from noise on this setup (the verdict keeps δ; a case "
          "between δ and its floor is marked within noise and does not "
          "gate).",
          cmp->raised, cmp->ncases);
    if (cmp->noise_applied && cmp->without_floor)
      bs_tval_set_strf(c, "no_floor",
                       "%zu case%s had no floor in the noise file and kept "
                       "δ\xc2\xa0=\xc2\xa0%g\xc2\xa0%% (see the warnings).",
                       cmp->without_floor, cmp->without_floor == 1 ? "" : "s",
                       cmp->options.threshold_pct);
    if (failures)
      bs_tval_set_strf(c, "gate", "%zu significant regression%s", failures,
                       failures == 1 ? "" : "s");
    else
      bs_tval_set_str(c, "gate", "no significant regression");
    bs_tval_set_strf(c, "ncases", "%zu", cmp->ncases);
    if (cmp->inconclusive) {
      /* Counted apart from the verdicts: an inconclusive case keeps its
       * verdict word (SPEC §2.9 Resolution). */
      bs_tval_set_strf(c, "inconclusive", "%zu", cmp->inconclusive);
      bs_tval_set_strf(
          c, "resolution",
          "%zu of %zu cases are inconclusive: a %g\xc2\xa0%% regression "
          "could not be ruled out%s. Their interval reaches δ, so the run "
          "can neither show a regression of δ nor rule one out; more blocks "
          "or a quieter machine would decide them.",
          cmp->inconclusive, cmp->ncases, cmp->options.threshold_pct,
          cmp->raised ? " (nor, where a case's A/A noise floor is higher, "
                        "one of that size)"
                      : "");
    }
    bs_tval_set_strf(c, "faster", "%zu", counts[BS_VERDICT_FASTER]);
    bs_tval_set_strf(c, "equivalent", "%zu", counts[BS_VERDICT_EQUIVALENT]);
    bs_tval_set_strf(c, "slower", "%zu", counts[BS_VERDICT_SLOWER]);
    bs_tval_set_strf(c, "regressions", "%zu", counts[3]);
    /* Floors come from the report's own A/A runs or from a noise file
     * (compare --noise). */
    if (r->aa || floors)
      bs_tval_set_strf(c, "within_noise", "%zu", within);
    /* The counts in the glossary's order and words, each case once. */
    const size_t nv[5] = {counts[3], counts[BS_VERDICT_SLOWER],
                          counts[BS_VERDICT_EQUIVALENT],
                          counts[BS_VERDICT_FASTER], counts[4]};
    bs_tval *cl = bs_tval_set_list(c, "counts");
    for (int v = 0; v < 5; v++) {
      const bs__gloss *e = bs__glossary((bs__term)(BS__T_REGRESSION + v));
      bs_tval *o = bs_tval_push_obj(cl);
      bs_tval_set_strf(o, "n", "%zu", nv[v]);
      bs_tval_set_str(o, "label", e->label);
      bs_tval_set_str(o, "cls", e->cls);
    }
    set_chart(r, c, "forest", r->forest,
              "Each row is a case: the marker is its paired Δ%, the bar its "
              "interval, the shape its verdict; the shaded band is ±δ.");
    bs_tval *rows = bs_tval_set_list(c, "cases");
    for (size_t i = 0; i < cmp->ncases; i++)
      case_row(r, bs_tval_push_obj(rows), i);
    bs_tval *warn = bs_tval_set_list(c, "warnings");
    for (size_t i = 0; i < cmp->nwarnings; i++)
      bs_tval_push_str(warn, cmp->warnings[i]);
    bs_tval_set_bool(c, "has_warnings", cmp->nwarnings > 0);
  }
  if (r->tune) {
    bs_tval *tv = bs_tval_set_obj(root, "tuning");
    bs_tval_set_strf(tv, "ncases", "%zu", r->tune->ncases);
    bs_tval_set_strf(tv, "ncrossovers", "%zu", r->tune->ncrossovers);
    bs_tval *charts = bs_tval_set_list(tv, "charts");
    for (size_t g = 0; g < r->ngroups && g < 2; g++)
      push_chart(r, charts, r->groups[g].chart, NULL);
  }
  if (r->aa) {
    bs_tval *av = bs_tval_set_obj(root, "aa");
    bs_tval_set_str(av, "a", r->aa->a);
    bs_tval_set_str(av, "b", r->aa->b);
    bs_tval *rows = bs_tval_set_list(av, "cases");
    for (size_t i = 0; i < r->aa->ncases; i++) {
      const bs_noise_case *nc = &r->aa->cases[i];
      bs_tval *row = bs_tval_push_obj(rows);
      bs_tval_set_str(
          row, "name",
          bs__case_label(buf, sizeof buf, nc->benchmark, nc->dataset));
      bs_tval_set_strf(row, "runs", "%zu", nc->runs);
      char fl[48];
      bs_tval_set_str(row, "paired_floor",
                      bs__fmt_floor(fl, sizeof fl, nc->paired_noise_floor_pct));
      bs_tval_set_bool(row, "resolves", nc->gate_resolves);
    }
  }
  if (environment(r, root)) {
    bs_tdata_free(d);
    return bs__oom(err);
  }
  bs_tval *files = bs_tval_set_list(root, "files");
  if (r->cmp)
    bs_tval_push_str(files, "compare.json");
  if (r->tune)
    bs_tval_push_str(files, "tune.json");
  if (r->aa)
    bs_tval_push_str(files, "noise.json");
  return render_to(t, "index", d, dir, "index.html", err);
}

/* ---- Case pages ---------------------------------------------------------- */

static void kv(bs_tval *list, const char *label, const char *value,
               int numeric) {
  bs_tval *o = bs_tval_push_obj(list);
  bs_tval_set_str(o, "label", label);
  bs_tval_set_str(o, "value", value);
  bs_tval_set_bool(o, "num", numeric);
}

static bs_status case_page(bs__report *r, bs_templates *t, const char *dir,
                           size_t i, bs_error *err) {
  const bs_compare_result *cmp = r->cmp;
  const bs_case_compare *c = &cmp->cases[i];
  char name[256], buf[256], label[512];
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = page(r, d, name, NULL);
  bs_tval *cv = bs_tval_set_obj(root, "case");
  case_row(r, cv, i);
  bs_tval *sum = bs_tval_set_list(cv, "summary");
  /* The paired figures first, the verdict's; the two medians after them,
   * named as the unpaired view they are, with the mark when they point
   * elsewhere (the glossary's "medians disagree"). */
  kv(sum, "Paired Δ% = 100 · med(d) / med(baseline)",
     bs__fmt_pct_signed(buf, sizeof buf, c->delta_pct), 1);
  kv(sum, "med(d), the median paired difference d = candidate − baseline",
     bs__fmt_val_signed(buf, sizeof buf, r->an->metric, c->median_delta_us), 1);
  snprintf(label, sizeof label, "%g %% interval of med(d)",
           cmp->options.level_pct);
  kv(sum, label,
     bs__fmt_val_interval(buf, sizeof buf, r->an->metric, c->ci_low_us,
                          c->ci_high_us),
     1);
  snprintf(label, sizeof label, "Baseline median (%s)", cmp->baseline);
  kv(sum, label,
     bs__fmt_val(buf, sizeof buf, r->an->metric, c->median_baseline_us), 1);
  snprintf(label, sizeof label, "Candidate median (%s)", cmp->candidate);
  kv(sum, label,
     bs__fmt_val(buf, sizeof buf, r->an->metric, c->median_candidate_us), 1);
  {
    char u[64];
    bs__fmt_pct_signed(u, sizeof u, bs__unpaired_pct(c));
    if (bs__medians_disagree(c, cmp->options.threshold_pct))
      snprintf(buf, sizeof buf,
               "%s %s: %s from the paired Δ%% by δ or more; the machine "
               "drifted between blocks, and the paired Δ%% is the figure "
               "to trust",
               u, bs__glossary(BS__T_MEDIANS)->symbol,
               bs__glossary(BS__T_MEDIANS)->word);
    else
      snprintf(buf, sizeof buf, "%s", u);
    kv(sum, "Unpaired change of the medians", buf, 1);
  }
  snprintf(buf, sizeof buf, "%zu", c->blocks);
  kv(sum, "Pairs (blocks)", buf, 1);
  snprintf(buf, sizeof buf, "%zu", c->outliers);
  kv(sum, "Tukey outliers among d (kept)", buf, 1);
  if (c->has_noise_floor) {
    char fl[48];
    snprintf(buf, sizeof buf, "%s%s",
             bs__fmt_floor(fl, sizeof fl, c->noise_floor_pct),
             c->within_noise ? " (this change is within noise)" : "");
    kv(sum, "A/A noise floor", buf, 1);
  }
  if (c->effective_threshold_pct > cmp->options.threshold_pct) {
    snprintf(buf, sizeof buf,
             "%.3g\xc2\xa0%%, raised from δ = %g\xc2\xa0%% to the A/A "
             "noise floor (a smaller change cannot be told from noise here)",
             c->effective_threshold_pct, cmp->options.threshold_pct);
    kv(sum, "Threshold for significance", buf, 0);
  }
  kv(sum, "Significant regression",
     c->significant_regression ? "yes: paired Δ% ≥ δ and L > 0" : "no", 0);
  kv(sum, "Significant improvement",
     c->significant_improvement ? "yes: paired Δ% ≤ −δ and U < 0" : "no", 0);
  if (c->inconclusive) {
    char u[64];
    snprintf(buf, sizeof buf,
             "inconclusive: the interval's upper end U is %s of the baseline "
             "median, at or above the threshold of %.3g\xc2\xa0%%, so this "
             "run can neither show a regression of that size nor rule one "
             "out",
             bs__fmt_pct_signed(u, sizeof u, bs_compare_upper_pct(c)),
             c->effective_threshold_pct);
    kv(sum, "Resolution", buf, 0);
  }
  {
    char p1[32], p2[32], p3[32];
    snprintf(buf, sizeof buf, "%s (Holm %s, BH q %s)",
             bs__fmt_p(p1, sizeof p1, c->p_value),
             bs__fmt_p(p2, sizeof p2, c->holm_p),
             bs__fmt_p(p3, sizeof p3, c->bh_q));
  }
  kv(sum, "Bootstrap p-value toward a regression", buf, 1);
  if (cmp->options.mode == BS_MODE_HOTSPOT) {
    snprintf(buf, sizeof buf,
             "hotspot (exploratory, does not gate): δ = %g %%, %llu "
             "resamples",
             cmp->options.threshold_pct,
             (unsigned long long)cmp->options.resamples);
    kv(sum, "Mode", buf, 0);
  }

  bs_tval *warn = bs_tval_set_list(cv, "warnings");
  for (size_t j = 0; j < c->nwarnings; j++)
    bs_tval_push_str(warn, c->warnings[j]);

  bs_tval *charts = bs_tval_set_list(cv, "charts");
  /* The histogram of a median over few pairs is a comb, not a bell: the
   * bootstrap chart's caption says why, with this case's numbers. */
  size_t distinct = 0;
  size_t R = (size_t)cmp->options.resamples;
  for (size_t j = 0; c->thetas && j < R; j++)
    distinct += j == 0 || c->thetas[j] != c->thetas[j - 1];
  char hist[768], many[96] = "";
  if (distinct)
    snprintf(many, sizeof many,
             ": here %zu distinct values among %zu resamples", distinct, R);
  for (size_t k = 0; k < BS__CASE_CHARTS; k++) {
    const char *caption = bs__case_charts[k].caption;
    if (bs__case_charts[k].make == bs__boot_chart) {
      snprintf(hist, sizeof hist,
               "%s It is comb-shaped, not smooth, because with %zu pairs the "
               "median of a resample can only be one of the %zu values of "
               "d%s, so the resamples pile up on a few values%s.",
               caption, c->blocks, c->blocks,
               c->blocks % 2 ? "" : " or the midpoint of two of them", many);
      caption = hist;
    }
    push_chart(r, charts, r->case_charts[i * BS__CASE_CHARTS + k], caption);
  }

  /* The data behind the charts. */
  double lo_f, hi_f;
  bs_tukey_fences(c->delta, c->blocks, &lo_f, &hi_f);
  bs_tval *rows = bs_tval_set_list(cv, "pairs");
  for (size_t j = 0; j < c->blocks; j++) {
    bs_tval *o = bs_tval_push_obj(rows);
    bs_tval_set_strf(o, "run", "%llu", (unsigned long long)c->runs[j]);
    bs_tval_set_strf(o, "block", "%lld", (long long)c->block_ids[j]);
    bs_tval_set_str(
        o, "baseline",
        bs__fmt_val(buf, sizeof buf, r->an->metric, c->baseline[j]));
    bs_tval_set_str(
        o, "candidate",
        bs__fmt_val(buf, sizeof buf, r->an->metric, c->candidate[j]));
    bs_tval_set_str(
        o, "delta",
        bs__fmt_val_signed(buf, sizeof buf, r->an->metric, c->delta[j]));
    bs_tval_set_bool(o, "outlier", c->delta[j] < lo_f || c->delta[j] > hi_f);
  }
  if (i > 0) {
    bs_tval *p = bs_tval_set_obj(cv, "prev");
    case_file(buf, sizeof buf, i - 1);
    bs_tval_set_str(p, "href", buf);
    bs_tval_set_str(p, "name",
                    bs__case_label(buf, sizeof buf, cmp->cases[i - 1].benchmark,
                                   cmp->cases[i - 1].dataset));
  }
  if (i + 1 < cmp->ncases) {
    bs_tval *p = bs_tval_set_obj(cv, "next");
    case_file(buf, sizeof buf, i + 1);
    bs_tval_set_str(p, "href", buf);
    bs_tval_set_str(p, "name",
                    bs__case_label(buf, sizeof buf, cmp->cases[i + 1].benchmark,
                                   cmp->cases[i + 1].dataset));
  }
  if (r->o->case_history &&
      r->o->case_history(r->o->case_history_ctx, c->benchmark, c->dataset, buf,
                         sizeof buf))
    bs_tval_set_str(cv, "history", buf);
  case_file(buf, sizeof buf, i);
  return render_to(t, "case", d, dir, buf, err);
}

/* ---- Tuning -------------------------------------------------------------- */

static const bs__tune_group *group_of(const bs__report *r,
                                      const char *benchmark) {
  for (size_t g = 0; g < r->ngroups; g++) {
    if (!strcmp(r->groups[g].benchmark, benchmark))
      return &r->groups[g];
  }
  return NULL;
}

static bs_status tuning_page(bs__report *r, bs_templates *t, const char *dir,
                             bs_error *err) {
  const bs_tune_result *tr = r->tune;
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = page(r, d, "Tuning", "tuning.html");
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
      set_chart(r, b, "chart", g->chart, caption);
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
  return render_to(t, "tuning", d, dir, "tuning.html", err);
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

static bs_status aa_page(bs__report *r, bs_templates *t, const char *dir,
                         bs_error *err) {
  const bs_noise_result *aa = r->aa;
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = page(r, d, "A/A noise", "aa.html");
  bs_tval *av = bs_tval_set_obj(root, "aa");
  char buf[256];
  bs_tval_set_str(av, "a", aa->a);
  bs_tval_set_str(av, "b", aa->b);
  if (r->an->aa_source)
    bs_tval_set_str(av, "source", basename_of(r->an->aa_source));
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
    kv(rows, "Noise floor (90th percentile of |paired Δ%|)",
       pct(buf, sizeof buf, nc->paired_noise_floor_pct, 0), 1);
    kv(rows, "Unpaired spread (90th percentile of |u|, u = 1 − med(A)/med(B))",
       pct(buf, sizeof buf, nc->noise_floor, 1), 1);
    kv(rows, "Largest |u| observed",
       pct(buf, sizeof buf, nc->max_observed_noise, 1), 1);
    kv(rows, "Typical |u| (median)", pct(buf, sizeof buf, nc->typical_noise, 1),
       1);
    char m1[64], m2[64];
    snprintf(buf, sizeof buf, "%s / %s",
             bs__fmt_num(m1, sizeof m1, nc->mean_confidence, 3),
             bs__fmt_num(m2, sizeof m2, nc->median_confidence, 3));
    kv(rows, "Mean / median confidence (0.5 expected)", buf, 1);
    kv(rows, "Tie rate (median)", pct(buf, sizeof buf, nc->tie_rate, 1), 1);
    kv(rows, "False signal rate",
       pct(buf, sizeof buf, nc->false_signal_rate, 1), 1);
    kv(rows, "Runs with drift (Spearman, p < 0.05)",
       pct(buf, sizeof buf, nc->drift_rate, 1), 1);
    kv(rows, "Median drift shift between halves",
       pct(buf, sizeof buf, nc->median_drift_shift, 1), 1);
    kv(rows, "Lag-1 autocorrelation (median)",
       bs__fmt_num(buf, sizeof buf, nc->autocorrelation, 3), 1);
    kv(rows, "Runs the gate flagged as a regression",
       pct(buf, sizeof buf, nc->false_regression_rate, 1), 1);
    kv(rows, "Gate threshold clears the noise",
       nc->gate_resolves ? "yes: 3 % > noise floor" : "⚠ no: noise floor ≥ 3 %",
       0);
    snprintf(buf, sizeof buf, "%llu (now %g)",
             (unsigned long long)nc->blocks_for_gate, nc->median_pairs);
    kv(rows, "Blocks per run at which δ = 3 % would resolve", buf, 1);
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
      kv(rows, "Bootstrap of each series", buf, 0);
    }
    bs_tval_set_bool(c, "resolves", nc->gate_resolves);
    /* The page recommends the block bootstrap; not when it is in use. */
    bs_tval_set_bool(c, "autocorrelated",
                     !blocks && nc->autocorrelation > BS_NOISE_AUTOCORR_LIMIT);
    bs_tval *charts = bs_tval_set_list(c, "charts");
    if (r->aa_charts) {
      push_chart(r, charts, r->aa_charts[i][2],
                 "Per-run paired Δ% of two ids of the same code, paired by "
                 "block as the gate pairs them; the dashed lines are the "
                 "noise floor, the one a comparison's paired Δ% is held "
                 "against.");
      push_chart(r, charts, r->aa_charts[i][0],
                 "Per-run unpaired difference u = 1 − med(A)/med(B); the "
                 "dashed lines are its unpaired spread (90th percentile of "
                 "|u|). The gate does not use it: it pairs by block.");
      push_chart(r, charts, r->aa_charts[i][1],
                 "Per-run confidence that A is not slower than B; outside the "
                 "shaded band a run would have signalled a difference.");
    }
  }
  return render_to(t, "aa", d, dir, "aa.html", err);
}

bs_status bs__report_pages(bs__report *r, bs_templates *t, const char *dir,
                           size_t *pages, bs_error *err) {
  bs_status st;
  size_t total =
      1 + (r->cmp ? r->cmp->ncases : 0) + (r->tune != NULL) + (r->aa != NULL);
  *pages = 0;
  if ((st = index_page(r, t, dir, err)))
    return st;
  (*pages)++;
  for (size_t i = 0; r->cmp && i < r->cmp->ncases; i++) {
    if ((st = case_page(r, t, dir, i, err)))
      return st;
    (*pages)++;
    if (r->o->progress && (i % 16 == 15) &&
        r->o->progress(r->o->progress_ctx, "pages", *pages, total))
      return bs_error_set(err, BS_EIO, NULL, 0, "report cancelled");
  }
  if (r->tune) {
    if ((st = tuning_page(r, t, dir, err)))
      return st;
    (*pages)++;
  }
  if (r->aa) {
    if ((st = aa_page(r, t, dir, err)))
      return st;
    (*pages)++;
  }
  return BS_OK;
}
