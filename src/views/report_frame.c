/* What every page of a report shows and how it is written: the title,
 * the navigation, the run's identity and metric, the glossary's symbols,
 * charts as the templates embed them, label/value rows, and rendering a
 * page's data with its template into the report's directory. Every
 * string reaches the HTML through the template engine's escaping. */
#include "report_int.h"

#include "fsutil.h"
#include "oom.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCHSITE_VERSION
#define BENCHSITE_VERSION "unknown"
#endif

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
      {"layout", BS__T_LAYOUT},
      {"blind", BS__T_BLIND},
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

void bs__report_set_chart(const bs__report *r, bs_tval *obj, const char *key,
                          size_t k, const char *caption) {
  if (k == BS__NO_CHART)
    return;
  chart_obj(r, bs_tval_set_obj(obj, key), k, caption);
}

void bs__report_push_chart(const bs__report *r, bs_tval *list, size_t k,
                           const char *caption) {
  if (k == BS__NO_CHART)
    return;
  chart_obj(r, bs_tval_push_obj(list), k, caption);
}

const char *bs__basename_of(const char *path) {
  const char *s = strrchr(path, '/');
  return s && s[1] ? s + 1 : path;
}

bs_tval *bs__report_page(const bs__report *r, bs_tdata *d, const char *title,
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

bs_status bs__report_render(bs_templates *t, const char *tmpl, bs_tdata *d,
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

void bs__report_kv(bs_tval *list, const char *label, const char *value,
                   int numeric) {
  bs_tval *o = bs_tval_push_obj(list);
  bs_tval_set_str(o, "label", label);
  bs_tval_set_str(o, "value", value);
  bs_tval_set_bool(o, "num", numeric);
}
