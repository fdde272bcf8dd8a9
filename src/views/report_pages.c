/* The overview and case pages of a report (the environment's manifests
 * side by side, the table of cases, each compared case's figures and
 * charts) and the build of every page (the tuning and A/A pages are
 * report_tune_aa_pages.c): the data each template renders. Numbers are
 * formatted here (with units); every string reaches the HTML through the
 * template engine's escaping. Page names come from indices. */
#include "compare_notes.h"
#include "report_int.h"
#include "strset.h"

#include "benchsite/manifest.h"
#include "benchsite/quantile.h"

#include "oom.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void case_file(char *buf, size_t n, size_t i) {
  bs__case_page(buf, n, i);
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
    bs_tval_push_str(cols, bs__basename_of(bs_manifest_path(r->mf[m])));
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
  char a[64], b[64];
  bs__fmt_pct_signed(a, sizeof a, bs_compare_lower_pct(c));
  bs__fmt_pct_signed(b, sizeof b, bs_compare_upper_pct(c));
  bs_tval_set_strf(row, "interval_pct", "%s to %s", a, b);
  bs_tval_set_str(row, "level_mark",
                  bs__level_mark(buf, sizeof buf, c, r->level, BS__TYPO_HTML));
  /* The qualifiers beside the verdict, each a badge of its own. */
  static const struct {
    const char *key;
    bs__term q;
  } quals[] = {{"layout", BS__T_LAYOUT}, {"blind", BS__T_BLIND}};
  for (size_t k = 0; k < sizeof quals / sizeof quals[0]; k++) {
    bs__buf q;
    bs__buf_init(&q, BS__CAP_PAGE);
    /* Set, empty, when the case lacks it: a missing key would be looked
     * up in the page around the row. */
    bs__qualifier(&q, quals[k].q, c, r->cmp->options.threshold_pct,
                  BS__TYPO_HTML);
    bs_tval_set_str(row, quals[k].key, q.data ? q.data : "");
    bs__buf_release(&q);
  }
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

static bs_status index_page(bs__report *r, bs_templates *t, const char *dir,
                            bs_error *err) {
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs__report_page(r, d, "Benchmark report", "index.html");
  char buf[256];
  int oom = 0;
  if (r->cmp) {
    const bs_compare_result *cmp = r->cmp;
    bs_tval *c = bs_tval_set_obj(root, "compare");
    bs_tval_set_str(c, "baseline", cmp->baseline);
    bs_tval_set_str(c, "candidate", cmp->candidate);
    bs_tval_set_strf(c, "threshold", "%g", cmp->options.threshold_pct);
    bs_tval_set_strf(c, "level", "%g", cmp->options.level_pct);
    {
      /* The levels as the text says them ("95 % interval", or each
       * level of an adaptive run's looks), and the table's header. */
      bs__buf lb;
      bs__buf_init(&lb, BS__CAP_PAGE);
      bs__level_phrase(&lb, cmp, BS__TYPO_HTML);
      bs_tval_set_str(c, "levels", lb.data ? lb.data : "");
      bs__buf_reset(&lb);
      bs__level_header(&lb, cmp, BS__TYPO_HTML);
      bs_tval_set_str(c, "level_header", lb.data ? lb.data : "");
      /* The column's head, capitalised as the others ("Interval (96 %
       * unless marked)"; "95 % interval" starts with its figure). */
      if (lb.data && lb.data[0] >= 'a' && lb.data[0] <= 'z')
        lb.data[0] = (char)(lb.data[0] - 'a' + 'A');
      bs_tval_set_str(c, "level_column", lb.data ? lb.data : "");
      if (bs__buf_status(&lb))
        oom = 1;
      bs__buf_release(&lb);
      /* How the run was measured and what it can see, a paragraph
       * each (compare_notes.h). */
      bs_tval *notes = bs_tval_set_list(c, "notes");
      const bs__notes_in in = {cmp, r->nmf ? r->mf[0] : NULL};
      for (int k = 0; k < BS__NOTES; k++) {
        bs__buf nb;
        bs__buf_init(&nb, BS__CAP_PAGE);
        if (bs__note(&nb, k, &in, BS__TYPO_HTML) && nb.data)
          bs_tval_push_str(notes, nb.data);
        if (bs__buf_status(&nb))
          oom = 1;
        bs__buf_release(&nb);
      }
    }
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
    /* Qualifiers, counted apart from the verdicts as inconclusive is. */
    if (cmp->layout_sensitive)
      bs_tval_set_strf(c, "n_layout", "%zu", cmp->layout_sensitive);
    if (cmp->blind)
      bs_tval_set_strf(c, "n_blind", "%zu", cmp->blind);
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
    bs__report_set_chart(
        r, c, "forest", r->forest,
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
      bs__report_push_chart(r, charts, r->groups[g].chart, NULL);
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
  if (oom || environment(r, root)) {
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
  return bs__report_render(t, "index", d, dir, "index.html", err);
}

/* ---- Case pages ---------------------------------------------------------- */

static bs_status case_page(bs__report *r, bs_templates *t, const char *dir,
                           size_t i, bs_error *err) {
  const bs_compare_result *cmp = r->cmp;
  const bs_case_compare *c = &cmp->cases[i];
  char name[256], buf[256], label[512];
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs__report_page(r, d, name, NULL);
  bs_tval *cv = bs_tval_set_obj(root, "case");
  case_row(r, cv, i);
  bs_tval *sum = bs_tval_set_list(cv, "summary");
  /* The paired figures first, the verdict's; the two medians after them,
   * named as the unpaired view they are, with the mark when they point
   * elsewhere (the glossary's "medians disagree"). */
  bs__report_kv(sum, "Paired Δ% = 100 · med(d) / med(baseline)",
                bs__fmt_pct_signed(buf, sizeof buf, c->delta_pct), 1);
  bs__report_kv(
      sum, "med(d), the median paired difference d = candidate − baseline",
      bs__fmt_val_signed(buf, sizeof buf, r->an->metric, c->median_delta_us),
      1);
  snprintf(label, sizeof label, "%g %% interval of med(d)", c->level_pct);
  bs__report_kv(sum, label,
                bs__fmt_val_interval(buf, sizeof buf, r->an->metric,
                                     c->ci_low_us, c->ci_high_us),
                1);
  snprintf(label, sizeof label, "Baseline median (%s)", cmp->baseline);
  bs__report_kv(
      sum, label,
      bs__fmt_val(buf, sizeof buf, r->an->metric, c->median_baseline_us), 1);
  snprintf(label, sizeof label, "Candidate median (%s)", cmp->candidate);
  bs__report_kv(
      sum, label,
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
    bs__report_kv(sum, "Unpaired change of the medians", buf, 1);
  }
  snprintf(buf, sizeof buf, "%zu", c->blocks);
  bs__report_kv(sum, "Pairs (blocks)", buf, 1);
  if (c->looks > 1)
    snprintf(buf, sizeof buf,
             "%zu, %u looks of an adaptive run: it took extra runs, and "
             "its interval is at %g\xc2\xa0%% so that looking again flags "
             "identical code no more often than one look",
             c->nruns, c->looks, c->level_pct);
  else if (c->looks == 1)
    snprintf(buf, sizeof buf,
             "%zu (an adaptive run's planned runs; interval at "
             "%g\xc2\xa0%%)",
             c->nruns, c->level_pct);
  else
    snprintf(buf, sizeof buf, "%zu", c->nruns);
  bs__report_kv(sum, "Runs", buf, c->looks == 0);
  if (c->nruns < BS_SPREAD_MIN_RUNS) {
    snprintf(buf, sizeof buf, "n/a: fewer than %d runs", BS_SPREAD_MIN_RUNS);
  } else {
    char sp[64];
    snprintf(buf, sizeof buf,
             "%s\xc2\xa0%% (max − min of the runs' paired Δ%%)%s",
             bs__fmt_above_num(sp, sizeof sp, c->between_runs_pct,
                               cmp->options.threshold_pct),
             c->layout_sensitive
                 ? ": layout-sensitive, the runs disagree by more than δ; "
                   "each run draws its own memory layout, so the layout, "
                   "not the code, may decide this case"
                 : ", within δ");
  }
  bs__report_kv(sum, "Between-run spread", buf, 0);
  snprintf(buf, sizeof buf, "%zu", c->outliers);
  bs__report_kv(sum, "Tukey outliers among d (kept)", buf, 1);
  if (c->has_noise_floor) {
    char fl[48];
    snprintf(buf, sizeof buf, "%s%s",
             bs__fmt_floor(fl, sizeof fl, c->noise_floor_pct),
             c->within_noise ? " (this change is within noise)" : "");
    bs__report_kv(sum, "A/A noise floor", buf, 1);
  }
  if (c->effective_threshold_pct > cmp->options.threshold_pct) {
    snprintf(buf, sizeof buf,
             "%.3g\xc2\xa0%%, raised from δ = %g\xc2\xa0%% to the A/A "
             "noise floor (a smaller change cannot be told from noise here)",
             c->effective_threshold_pct, cmp->options.threshold_pct);
    bs__report_kv(sum, "Threshold for significance", buf, 0);
  }
  {
    char md[64];
    bs__fmt_above_num(md, sizeof md, c->mde_pct, cmp->options.threshold_pct);
    if (c->blind)
      snprintf(buf, sizeof buf,
               "%s\xc2\xa0%%: blind, this run could not have seen a change "
               "below it (δ = %g\xc2\xa0%%); more blocks or runs, or a "
               "quieter machine, would sharpen it",
               md, cmp->options.threshold_pct);
    else
      snprintf(buf, sizeof buf,
               "%g\xc2\xa0%% = δ: this run would have called a regression "
               "of δ significant",
               c->mde_pct);
    bs__report_kv(sum, "Minimum detectable change, max(δ, Δ% − L%)", buf, 0);
  }
  bs__report_kv(
      sum, "Significant regression",
      c->significant_regression ? "yes: paired Δ% ≥ δ and L > 0" : "no", 0);
  bs__report_kv(
      sum, "Significant improvement",
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
    bs__report_kv(sum, "Resolution", buf, 0);
  }
  {
    char p1[32], p2[32], p3[32];
    snprintf(buf, sizeof buf, "%s (Holm %s, BH q %s)",
             bs__fmt_p(p1, sizeof p1, c->p_value),
             bs__fmt_p(p2, sizeof p2, c->holm_p),
             bs__fmt_p(p3, sizeof p3, c->bh_q));
  }
  bs__report_kv(sum, "Bootstrap p-value toward a regression", buf, 1);
  if (cmp->options.mode == BS_MODE_HOTSPOT) {
    snprintf(buf, sizeof buf,
             "hotspot (exploratory, does not gate): δ = %g %%, %llu "
             "resamples",
             cmp->options.threshold_pct,
             (unsigned long long)cmp->options.resamples);
    bs__report_kv(sum, "Mode", buf, 0);
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
    bs__report_push_chart(r, charts, r->case_charts[i * BS__CASE_CHARTS + k],
                          caption);
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
  return bs__report_render(t, "case", d, dir, buf, err);
}

bs_status bs__report_pages(bs__report *r, bs_templates *t, const char *dir,
                           size_t *pages, bs_error *err) {
  bs_status st;
  size_t total =
      1 + (r->cmp ? r->cmp->ncases : 0) + (r->tune != NULL) + (r->aa != NULL);
  *pages = 0;
  if (r->cmp)
    r->level = bs__level_common(r->cmp, NULL);
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
    if ((st = bs__report_tuning_page(r, t, dir, err)))
      return st;
    (*pages)++;
  }
  if (r->aa) {
    if ((st = bs__report_aa_page(r, t, dir, err)))
      return st;
    (*pages)++;
  }
  return BS_OK;
}
