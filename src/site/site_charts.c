/* A case's history charts: each described into a plot of its own, whose
 * digest (bs_plot_chart_digest: the script and data gnuplot is given) with
 * the render key (this benchsite and gnuplot) is the cache key, and when
 * that changed, into the gnuplot batch; and their fields on the case page.
 * Nothing is hashed by hand beside the chart, so no change to a chart can
 * leave a stale one.
 *
 * To add a chart to the case page: a describe function and a row of
 * case_charts below (its file, its template field, its alt text and
 * caption), the field in templates/site_case.html, and a test. */
#include "site_int.h"

#include "csvin.h"
#include "lmath.h"
#include "oom.h"
#include "plotsafe.h"
#include "present.h"
#include "strlist.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHART_W 760
#define CHART_H 360
#define KEY_CHARS 40
#define XTICS 8 /* labelled runs on a history chart's x axis */

/* Comparability groups differ in colour and in marker. */
static const uint32_t group_colors[] = {BS__C_BLUE, BS__C_ORANGE, BS__C_PURPLE,
                                        BS__C_SKY,  BS__C_BLACK,  BS__C_GREY};
static const bs_plot_marker group_markers[] = {
    BS_MARK_CIRCLE,      BS_MARK_SQUARE, BS_MARK_DIAMOND,
    BS_MARK_TRIANGLE_UP, BS_MARK_PLUS,   BS_MARK_CROSS};
#define NGROUP_STYLES (sizeof group_colors / sizeof group_colors[0])

/* A commit as an axis label: 7 hex digits of a hash, else the id clipped. */
static void short_commit(char *buf, size_t n, const char *commit) {
  size_t len = strlen(commit), hex = strspn(commit, "0123456789abcdefABCDEF");
  if (len >= 12 && hex == len)
    snprintf(buf, n, "%.7s", commit);
  else
    bs__clip(buf, n, commit, 12);
}

void bs__site_group_label(const site *s, size_t g, char *buf, size_t n) {
  const bs_history *h = s->h;
  size_t used = 0;
  buf[0] = '\0';
  for (size_t k = 0; k < BS_MANIFEST_NCOMPARABILITY; k++) {
    const char *key = bs_manifest_comparability_keys[k];
    const char *v = bs_manifest_comparability_value(h->groups[g].first, key);
    int differs = h->ngroups == 1;
    for (size_t o = 0; o < h->ngroups && !differs; o++) {
      const char *w = bs_manifest_comparability_value(h->groups[o].first, key);
      differs = (!v) != (!w) || (v && w && strcmp(v, w));
    }
    if (!differs)
      continue;
    int r = snprintf(buf + used, n - used, "%s%s=%s", used ? ", " : "", key,
                     v ? v : "(missing)");
    if (r < 0 || (size_t)r >= n - used) {
      buf[bs__utf8_trim(buf, strlen(buf))] = '\0'; /* not inside UTF-8 */
      break;
    }
    used += (size_t)r;
  }
}

static bs_plot_style style(uint32_t color, bs_plot_marker m) {
  bs_plot_style st;
  memset(&st, 0, sizeof st);
  st.color = color;
  st.marker = m;
  return st;
}

/* The x axis of a case's history charts: the shown runs at 1..m, some
 * of them labelled with their commit, the newest always. */
static void run_axis(const site *s, size_t c, bs_plot *p) {
  const bs_history_case *hc = &s->h->cases[c];
  size_t from = s->cases[c].first_shown, m = hc->nentries - from;
  size_t step = m > XTICS ? (m + XTICS - 1) / XTICS : 1;
  bs_plot_xlabel(p, "commit of the run, oldest to newest");
  bs_plot_xrange(p, 0.5, (double)(m ? m : 1) + 0.5);
  for (size_t i = 0; i < m; i++) {
    /* Every step-th run, and the newest unless a label is close by. */
    if (i % step && !(i + 1 == m && (step <= 2 || i % step > step / 2)))
      continue;
    char label[64];
    short_commit(label, sizeof label,
                 s->h->runs[hc->entries[from + i].run].commit);
    bs_plot_xtic(p, (double)(i + 1), label);
  }
}

/* A chart of case c into `p` (a new chart named `file` in charts/). */
typedef bs_status (*describe_fn)(const site *s, size_t c, const char *file,
                                 bs_plot *p, bs_error *err);

/* The chained-change chart: one line per chain. Its y axis spans the
 * chains and the ±δ lines, and so always 0. */
static bs_status describe_chain(const site *s, size_t c, const char *file,
                                bs_plot *p, bs_error *err) {
  const bs_history_case *hc = &s->h->cases[c];
  size_t cap = hc->nentries ? hc->nentries : 1, from = s->cases[c].first_shown;
  char name[512], clipped[300], title[600];
  bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
  bs__clip(clipped, sizeof clipped, name, BS__NAME_CHARS);
  snprintf(title, sizeof title, "%s: chained change by run", clipped);
  double *cols = malloc(2 * cap * sizeof *cols);
  if (!cols)
    return bs__oom(err);
  double lo = -BS_HISTORY_CREEP_PCT, hi = BS_HISTORY_CREEP_PCT;
  int any = 0;
  for (size_t i = from; i < hc->nentries; i++) {
    if (!hc->entries[i].link)
      continue;
    any = 1;
    double v = 100 * (hc->entries[i].chained_index - 1);
    lo = bs__fmin(lo, v);
    hi = bs__fmax(hi, v);
  }
  double pad = (hi - lo) * 0.08;
  bs_plot_chart(p, file, CHART_W, CHART_H);
  bs_plot_title(p, title);
  bs_plot_ylabel(p, "chained change since the chain began (%)");
  bs_plot_key(p, BS_KEY_BELOW);
  bs_plot_yrange(p, lo - pad, hi + pad);
  bs_plot_style zero = style(BS__C_LIGHT, BS_MARK_NONE);
  zero.line_width = 1;
  bs_plot_hline(p, 0, &zero, NULL);
  bs_plot_style gate = style(BS__C_VERMILLION, BS_MARK_NONE);
  gate.dashed = 1;
  gate.line_width = 1;
  bs_plot_hline(p, BS_HISTORY_CREEP_PCT, &gate, NULL);
  bs_plot_hline(p, -BS_HISTORY_CREEP_PCT, &gate, NULL);
  /* No link shown (runs that are no paired comparisons): no key entry
   * either, since gnuplot fails on a plot of a key entry alone. */
  if (any)
    bs_plot_keyentry(p, BS_PLOT_LINES,
                     "creep threshold (\xc2\xb1"
                     "3 %)",
                     &gate);
  run_axis(s, c, p);
  /* One line per chain, in the colour of its group. */
  size_t titled = 0;
  for (size_t i = from; i < hc->nentries; i++) {
    const bs_history_entry *e = &hc->entries[i];
    if (!e->link || (i > from && hc->entries[i - 1].link &&
                     hc->entries[i - 1].chain == e->chain))
      continue;
    /* Is this the first shown entry of its chain? */
    int seen = 0;
    for (size_t j = from; j < i && !seen; j++)
      seen = hc->entries[j].link && hc->entries[j].chain == e->chain;
    if (seen)
      continue;
    size_t m = 0;
    for (size_t j = i; j < hc->nentries; j++) {
      const bs_history_entry *q = &hc->entries[j];
      if (!q->link || q->chain != e->chain)
        continue;
      cols[m] = (double)(j - from + 1);
      cols[cap + m] = 100 * (q->chained_index - 1);
      m++;
    }
    size_t g = s->h->runs[e->run].group;
    bs_plot_style sty = style(group_colors[g % NGROUP_STYLES],
                              group_markers[g % NGROUP_STYLES]);
    sty.line_width = 1.2;
    const char *key = titled++ ? NULL : "chained change, a line per chain";
    const double *c2[2] = {cols, cols + cap};
    bs_plot_series(p, BS_PLOT_LINESPOINTS, key, &sty, c2, m);
  }
  free(cols);
  return BS_OK;
}

/* The y range of the history chart: the shown intervals with a margin,
 * and room above for the verdict markers; from 0 when the data come
 * near it (*from_zero), else fitted to the data so that a step of a few
 * percent is not a few pixels. */
static void history_range(const bs_history_case *hc, size_t from, double *lo,
                          double *hi, double *mark, int *from_zero) {
  double a = HUGE_VAL, b = -HUGE_VAL;
  for (size_t i = from; i < hc->nentries; i++) {
    const bs_history_result *r = hc->entries[i].result;
    if (!r->has_median)
      continue;
    a = bs__fmin(a, r->lo);
    b = bs__fmax(b, r->hi);
  }
  if (!(a <= b)) {
    *lo = 0, *hi = 1, *mark = 0, *from_zero = 1;
    return;
  }
  double span = b - a;
  if (!(span > 0))
    span = b > 0 ? b * 0.02 : 1;
  *mark = span * 0.06;
  *lo = a - span * 0.08;
  *hi = b + *mark + span * 0.1;
  *from_zero = *lo <= span * 0.5;
  if (*from_zero)
    *lo = 0;
}

/* The history chart: per group the medians with their intervals, and
 * the runs' paired verdicts above the bars. */
static bs_status describe_history(const site *s, size_t c, const char *file,
                                  bs_plot *p, bs_error *err) {
  const bs_history *hist = s->h;
  const bs_history_case *hc = &hist->cases[c];
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  size_t cap = hc->nentries ? hc->nentries : 1, from = s->cases[c].first_shown;
  double lo, hi, mark;
  int from_zero;
  history_range(hc, from, &lo, &hi, &mark, &from_zero);
  double f;
  const char *unit = bs_metric_display_unit(s->o->metric, hi, &f);
  char name[512], clipped[300], title[600], ylabel[160];
  bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
  bs__clip(clipped, sizeof clipped, name, BS__NAME_CHARS);
  snprintf(title, sizeof title, "%s: median %s by run", clipped, mi->quantity);
  snprintf(ylabel, sizeof ylabel, "median %s (%s%s)", mi->quantity, unit,
           from_zero ? "" : "; y axis not from 0");
  double *cols = malloc(4 * cap * sizeof *cols);
  if (!cols)
    return bs__oom(err);
  bs_plot_chart(p, file, CHART_W, CHART_H);
  bs_plot_title(p, title);
  bs_plot_ylabel(p, ylabel);
  bs_plot_key(p, BS_KEY_BELOW);
  bs_plot_yrange(p, lo * f, hi * f);
  run_axis(s, c, p);
  /* Per group: the medians with their intervals, joined by a line. */
  for (size_t g = 0; g < hist->ngroups; g++) {
    size_t m = 0;
    for (size_t i = from; i < hc->nentries; i++) {
      const bs_history_entry *e = &hc->entries[i];
      if (!e->result->has_median || hist->runs[e->run].group != g)
        continue;
      cols[m] = (double)(i - from + 1);
      cols[cap + m] = e->result->median * f;
      cols[2 * cap + m] = e->result->lo * f;
      cols[3 * cap + m] = e->result->hi * f;
      m++;
    }
    if (!m)
      continue;
    char key[320];
    if (hist->ngroups > 1) {
      char label[256], cl[200];
      bs__site_group_label(s, g, label, sizeof label);
      bs__clip(cl, sizeof cl, label, KEY_CHARS);
      snprintf(key, sizeof key, "group %zu (%s): median, 95%% interval", g + 1,
               cl);
    } else {
      snprintf(key, sizeof key, "median, 95%% interval");
    }
    bs_plot_style sty = style(group_colors[g % NGROUP_STYLES],
                              group_markers[g % NGROUP_STYLES]);
    bs_plot_style line = sty;
    line.marker = BS_MARK_NONE;
    line.line_width = 1;
    const double *c4[4] = {cols, cols + cap, cols + 2 * cap, cols + 3 * cap};
    bs_plot_series(p, BS_PLOT_LINES, NULL, &line, c4, m);
    bs_plot_series(p, BS_PLOT_YERRORBARS, key, &sty, c4, m);
  }
  /* Above the bars: the runs whose paired verdict was a regression, an
   * acknowledged change or faster. */
  static const struct {
    const char *title;
    uint32_t color;
    bs_plot_marker marker;
    int open;
  } kinds[3] = {
      {"significant regression", BS__C_VERMILLION, BS_MARK_TRIANGLE_UP, 0},
      {"acknowledged change (acks.csv)", BS__C_GREY, BS_MARK_DIAMOND, 1},
      {"faster", BS__C_GREEN, BS_MARK_TRIANGLE_DOWN, 0},
  };
  for (int k = 0; k < 3; k++) {
    size_t m = 0;
    for (size_t i = from; i < hc->nentries; i++) {
      const bs_history_result *r = hc->entries[i].result;
      if (!r->has_median || !r->has_cmp)
        continue;
      int kind = r->ack                            ? 1
                 : r->significant_regression       ? 0
                 : r->verdict == BS_VERDICT_FASTER ? 2
                                                   : -1;
      if (kind != k)
        continue;
      cols[m] = (double)(i - from + 1);
      cols[cap + m] = (r->hi + mark) * f;
      m++;
    }
    if (!m)
      continue;
    bs_plot_style sty = style(kinds[k].color, kinds[k].marker);
    sty.open = kinds[k].open;
    sty.point_size = 1.3;
    const double *c2[2] = {cols, cols + cap};
    bs_plot_series(p, BS_PLOT_POINTS, kinds[k].title, &sty, c2, m);
  }
  free(cols);
  return BS_OK;
}

/* The alt text of a history chart: what it shows, in words. NULL when out
 * of memory. */
static char *history_alt(const site *s, size_t c) {
  const bs_history_case *hc = &s->h->cases[c];
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  bs_metric m = s->o->metric;
  size_t n = hc->measured, groups = s->h->ngroups;
  char name[512], lo[64], hi[64], last[64];
  bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
  if (!hc->newest)
    return bs__strdupf("History of %s: no run measured it.", name);
  return bs__strdupf("History of %s over %zu run%s in %zu comparability "
                     "group%s: the median %s ranges from %s to %s; the "
                     "newest run measured %s.",
                     name, n, n == 1 ? "" : "s", groups, groups == 1 ? "" : "s",
                     mi->quantity,
                     bs__fmt_val(lo, sizeof lo, m, hc->min_median),
                     bs__fmt_val(hi, sizeof hi, m, hc->max_median),
                     bs__fmt_val(last, sizeof last, m, hc->newest->median));
}

/* The alt text of a chained-change chart. */
static char *chain_alt(const site *s, size_t c) {
  const bs_history_case *hc = &s->h->cases[c];
  char name[512], pct[64];
  bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
  if (!hc->creep.has_chain)
    return bs__strdupf("Chained change of %s: no run compared it.", name);
  return bs__strdupf(
      "Chained change of %s: along its newest chain the %zu latest paired "
      "changes multiply to %s%s.",
      name, hc->creep.has_scan ? hc->creep.scan_links : hc->creep.links,
      bs__fmt_pct_signed(pct, sizeof pct, hc->creep.creep_pct),
      hc->creep.creeping ? ", a creep no single gate caught" : "");
}

/* The charts of a case page, in the page's order. */
static const struct case_chart {
  const char *kind;  /* charts/ID-KIND.svg (lowercase letters) */
  const char *field; /* its object in the case page's template data */
  describe_fn describe;
  char *(*alt)(const site *s, size_t c);
  const char *caption;
} case_charts[] = {
    {"history", "chart", describe_history, history_alt,
     "Each point is one run's median of the impl the run measured as its "
     "candidate, with the 95 % percentile bootstrap interval of the median "
     "(2000 resamples). Markers above the bars show the run's paired "
     "verdict against its own baseline. The y axis fits the data: it starts "
     "at 0 only when the data come near it."},
    {"chain", "chain_chart", describe_chain, chain_alt,
     "The paired changes of consecutive runs multiplied along a chain: a run "
     "continues the chain when its baseline commit is the commit of the run "
     "before it in the same environment, and an acknowledged change starts "
     "the product again. Unlike the medians above, this does not move when "
     "the machine gets faster or slower."},
};
#define NCASE_CHARTS (sizeof case_charts / sizeof case_charts[0])

size_t bs__site_chart_kinds(void) { return NCASE_CHARTS; }

bs_status bs__site_chart_describe(const site *s, size_t c, size_t k, bs_plot *p,
                                  bs_error *err) {
  char file[BS__SITE_CASE_ID + 32];
  snprintf(file, sizeof file, "%s-%s.svg", s->cases[c].id, case_charts[k].kind);
  return case_charts[k].describe(s, c, file, p, err);
}

bs_status bs__site_chart_key(const site *s, const bs_plot *p, size_t index,
                             char out[BS__SHA256_HEXLEN + 1], bs_error *err) {
  char digest[65];
  bs_status st = bs_plot_chart_digest(p, index, digest);
  if (st)
    return st == BS_ENOMEM ? bs__oom(err)
                           : bs_error_set(err, st, NULL, 0,
                                          "cannot describe a history chart");
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__site_fp_str(&h, "history chart");
  bs__site_fp_str(&h, s->render_key);
  bs__site_fp_str(&h, digest);
  bs__site_fp_end(&h, out);
  return BS_OK;
}

/* Queues chart k of case c into `plot`, or keeps the previous build's
 * SVG when its key (what gnuplot would be given, and by which gnuplot and
 * benchsite) is unchanged. */
static bs_status case_chart(site *s, size_t c, size_t k, bs_plot *plot,
                            size_t *queued, bs_error *err) {
  char rel[BS__SITE_CASE_ID + 48], key[BS__SHA256_HEXLEN + 1];
  snprintf(rel, sizeof rel, "charts/%s-%s.svg", s->cases[c].id,
           case_charts[k].kind);
  bs_plot *one = bs_plot_new();
  if (!one)
    return bs__oom(err);
  bs_status st = bs__site_chart_describe(s, c, k, one, err);
  if (!st)
    st = bs__site_chart_key(s, one, 0, key, err);
  bs_plot_free(one);
  if (st || (st = bs__site_list_file(s, rel, key, NULL, err)))
    return st;
  if (bs__site_unchanged(s, rel, key)) {
    s->sum.charts_reused++;
    return BS_OK;
  }
  if ((st = bs__site_chart_describe(s, c, k, plot, err)) ||
      (st = bs__site_queue(s, rel, RANK_LEAF, 0, err)))
    return st;
  (*queued)++;
  return BS_OK;
}

bs_status bs__site_case_charts(site *s, size_t c, bs_plot *plot, size_t *queued,
                               bs_error *err) {
  bs_status st = BS_OK;
  for (size_t k = 0; k < NCASE_CHARTS && !st; k++)
    st = case_chart(s, c, k, plot, queued, err);
  return st;
}

bs_status bs__site_chart_fields(const site *s, size_t c, bs_tval *root,
                                bs_error *err) {
  for (size_t k = 0; k < NCASE_CHARTS; k++) {
    const struct case_chart *cc = &case_charts[k];
    char *alt = cc->alt(s, c);
    if (!alt)
      return bs__oom(err);
    bs_tval *fig = bs_tval_set_obj(root, cc->field);
    bs_tval_set_strf(fig, "src", "charts/%s-%s.svg", s->cases[c].id, cc->kind);
    bs_tval_set_str(fig, "alt", alt);
    bs_tval_set_strf(fig, "width", "%d", CHART_W);
    bs_tval_set_strf(fig, "height", "%d", CHART_H);
    bs_tval_set_str(fig, "caption", cc->caption);
    free(alt);
  }
  return BS_OK;
}
