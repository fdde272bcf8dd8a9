/* The charts of a report's overview and case pages: what each one shows
 * and the sentence that says what it shows (its alt text), and the build
 * of every chart of a report (the tuning and A/A ones are
 * report_tune_aa_charts.c). Every string from the inputs goes through
 * bs_plot's octal quoting; file names are built from indices. */
#include "report_int.h"

#include "benchsite/quantile.h"

#include "lmath.h"
#include "oom.h"
#include "strlist.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HIST_BINS 40
#define ALT_NAMES 4
/* Chart texts are cut to these many characters (the pages keep all). */
#define LABEL_CHARS 20
#define TICK_CHARS 40

/* ---- 1. Forest plot ----------------------------------------------------- */

/* The forest plot's categories are the verdicts of the glossary, in its
 * order (bs__term): each drawn with the shape its symbol shows, so the
 * legend reads as the table's verdict column. */
#define NCAT 5
#define CAT_REGRESSION ((int)BS__T_REGRESSION)
#define CAT_EQUIV ((int)BS__T_EQUIVALENT)

static int category(const bs_case_compare *c) {
  return (int)bs__verdict_term(bs__significance(c), c->verdict);
}

/* The metric every chart of the report shows (the analysis's). */

static void pct_interval(const bs_case_compare *c, double *lo, double *hi) {
  double b = c->median_baseline_us;
  *lo = 100.0 * c->ci_low_us / b;
  *hi = 100.0 * c->ci_high_us / b;
}

static void alt_list(bs__buf *sb, const bs_compare_result *cmp, int cat) {
  size_t shown = 0, total = 0;
  for (size_t i = 0; i < cmp->ncases; i++) {
    const bs_case_compare *c = &cmp->cases[i];
    if (category(c) != cat)
      continue;
    total++;
    if (shown < ALT_NAMES) {
      char name[256], pct[64];
      bs__buf_printf(
          sb, "%s%s %s", shown ? ", " : " (",
          bs__case_label(name, sizeof name, c->benchmark, c->dataset),
          bs__fmt_pct_signed(pct, sizeof pct, c->delta_pct));
      shown++;
    }
  }
  if (total > shown)
    bs__buf_printf(sb, " and %zu more", total - shown);
  if (shown)
    bs__buf_printf(sb, ")");
}

static void forest(bs__report *r) {
  const bs_compare_result *cmp = r->cmp;
  size_t n = cmp->ncases;
  double delta = cmp->options.threshold_pct;
  int h = 150 + 28 * (int)(n < 2000 ? n : 2000);
  size_t k = bs__new_chart(r, "forest.svg", 760, h);
  r->forest = k;
  if (k == BS__NO_CHART)
    return;
  char title[512], ca[128], ba[128], lv[64];
  /* An adaptive run's cases have the levels of their looks. */
  double lmin = n ? cmp->cases[0].level_pct : cmp->options.level_pct;
  double lmax = lmin;
  for (size_t i = 1; i < n; i++) {
    lmin = bs__fmin(lmin, cmp->cases[i].level_pct);
    lmax = bs__fmax(lmax, cmp->cases[i].level_pct);
  }
  if (lmin == lmax)
    snprintf(lv, sizeof lv, "%g", lmin);
  else
    snprintf(lv, sizeof lv, "%g–%g", lmin, lmax);
  snprintf(title, sizeof title,
           "paired Δ%% per case, %s vs %s, with %s %% intervals",
           bs__clip(ca, sizeof ca, cmp->candidate, BS__IMPL_CHARS),
           bs__clip(ba, sizeof ba, cmp->baseline, BS__IMPL_CHARS), lv);
  bs_plot_title(r->plot, title);
  char xlabel[160];
  snprintf(xlabel, sizeof xlabel,
           "paired Δ%% of %s = 100 · med(d) / med(baseline)   (%%)",
           bs__report_quantity(r));
  bs_plot_xlabel(r->plot, xlabel);
  bs_plot_key(r->plot, BS_KEY_BELOW);

  double xmin = -delta, xmax = delta;
  size_t count[NCAT] = {0};
  double *cols = malloc((n ? n : 1) * 4 * NCAT * sizeof *cols);
  if (!cols) {
    r->st = BS_ENOMEM;
    return;
  }
  for (size_t i = 0; i < n; i++) {
    const bs_case_compare *c = &cmp->cases[i];
    double lo, hi;
    pct_interval(c, &lo, &hi);
    int cat = category(c);
    size_t j = count[cat]++;
    double *base = cols + (size_t)cat * 4 * n;
    base[j] = c->delta_pct;
    base[n + j] = (double)i;
    base[2 * n + j] = lo;
    base[3 * n + j] = hi;
    const double v[3] = {c->delta_pct, lo, hi};
    for (int q = 0; q < 3; q++) {
      if (isfinite(v[q])) {
        xmin = bs__fmin(xmin, v[q]);
        xmax = bs__fmax(xmax, v[q]);
      }
    }
    char name[256], clipped[256];
    bs_plot_ytic(
        r->plot, (double)i,
        bs__clip(clipped, sizeof clipped,
                 bs__case_label(name, sizeof name, c->benchmark, c->dataset),
                 TICK_CHARS));
  }
  double pad = 0.08 * (xmax - xmin);
  bs_plot_xrange(r->plot, xmin - pad, xmax + pad);
  bs_plot_yrange(r->plot, -0.7, (double)n - 0.3);
  bs_plot_yreverse(r->plot);
  bs_plot_style band = bs__chart_style(BS__C_LIGHT);
  band.opacity = 0.22;
  bs_plot_xspan(r->plot, -delta, delta, &band);
  char bandkey[64];
  snprintf(bandkey, sizeof bandkey, "±δ = %g %%", delta);
  bs_plot_keyentry(r->plot, BS_PLOT_BAND, bandkey, &band);
  bs_plot_style zero = bs__chart_style(BS__C_GREY);
  zero.line_width = 1;
  bs_plot_vline(r->plot, 0, &zero, NULL);

  /* Indexed by the verdict terms, REGRESSION to IMPROVEMENT. */
  static const uint32_t colors[NCAT] = {BS__C_VERMILLION, BS__C_ORANGE,
                                        BS__C_GREY, BS__C_GREEN, BS__C_GREEN};
  static const bs_plot_marker marks[NCAT] = {
      BS_MARK_SQUARE, BS_MARK_TRIANGLE_UP, BS_MARK_CIRCLE,
      BS_MARK_TRIANGLE_DOWN, BS_MARK_DIAMOND};
  for (int cat = 0; cat < NCAT; cat++) {
    if (!count[cat])
      continue;
    double *base = cols + (size_t)cat * 4 * n;
    const double *cc[4] = {base, base + n, base + 2 * n, base + 3 * n};
    bs_plot_style s = bs__chart_style(colors[cat]);
    s.marker = marks[cat];
    int sig = cat == CAT_REGRESSION || cat == (int)BS__T_IMPROVEMENT;
    s.point_size = sig ? 1.1 : 0.9;
    s.line_width = sig ? 2.2 : 1.5;
    bs_plot_series(r->plot, BS_PLOT_XERRORBARS,
                   bs__glossary((bs__term)cat)->label, &s, cc, count[cat]);
  }
  free(cols);

  bs__buf sb;
  bs__buf_init(&sb, BS__CAP_SVG);
  bs__buf_printf(
      &sb,
      "Forest plot of %zu case%s, %s against %s, shaded band ±%g\u00a0%%: ", n,
      n == 1 ? "" : "s", cmp->candidate, cmp->baseline, delta);
  int first = 1;
  for (int cat = 0; cat < NCAT; cat++) {
    if (!count[cat])
      continue;
    bs__buf_printf(&sb, "%s%zu %s", first ? "" : "; ", count[cat],
                   bs__glossary((bs__term)cat)->word);
    if (cat != CAT_EQUIV)
      alt_list(&sb, cmp, cat);
    first = 0;
  }
  bs__buf_printf(&sb, ".");
  bs__set_alt(r, k, bs__alt_take(&sb));
}

/* ---- 2.-4. Per compared case ------------------------------------------- */

/* x positions of a case's pairs: block ids when the case has one run,
 * otherwise positions in (run, block) order. */
static int single_run(const bs_case_compare *c) {
  for (size_t j = 1; j < c->blocks; j++) {
    if (c->runs[j] != c->runs[0])
      return 0;
  }
  return 1;
}

static void x_positions(const bs_case_compare *c, double *x) {
  int one = single_run(c);
  for (size_t j = 0; j < c->blocks; j++)
    x[j] = one ? (double)c->block_ids[j] : (double)j;
}

static const char *x_label(const bs_case_compare *c) {
  return single_run(c) ? "block" : "pair (in run, block order)";
}

static double maxabs(const double *x, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    if (isfinite(x[i]))
      m = bs__fmax(m, fabs(x[i]));
  }
  return m;
}

static size_t deltas_chart(bs__report *r, size_t i,
                           const bs__case_scratch *sc) {
  const double *x = sc->x;
  double *work = sc->work;
  const bs_case_compare *c = &r->cmp->cases[i];
  const bs_compare_result *cmp = r->cmp;
  size_t m = c->blocks;
  char file[64], name[256], title[640], ylabel[320], a[64];
  snprintf(file, sizeof file, "case-%04zu-deltas.svg", i + 1);
  size_t k = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
  if (k == BS__NO_CHART)
    return k;
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  double f;
  double big = bs__fmax(maxabs(c->delta, m),
                        bs__fmax(fabs(c->ci_low_us), fabs(c->ci_high_us)));
  const char *unit = bs_metric_display_unit(bs__report_metric(r), big, &f);
  char cn[256], ca[128], ba[128];
  snprintf(title, sizeof title, "%s: paired differences by block",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS));
  snprintf(ylabel, sizeof ylabel, "d = %s − %s, %s   (%s)",
           bs__clip(ca, sizeof ca, cmp->candidate, LABEL_CHARS),
           bs__clip(ba, sizeof ba, cmp->baseline, LABEL_CHARS),
           bs__report_quantity(r), unit);
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, x_label(c));
  bs_plot_ylabel(r->plot, ylabel);
  bs_plot_key(r->plot, BS_KEY_BELOW);

  bs_plot_style band = bs__chart_style(BS__C_SKY);
  band.opacity = 0.3;
  bs_plot_yspan(r->plot, c->ci_low_us * f, c->ci_high_us * f, &band);
  bs_plot_style zero = bs__chart_style(BS__C_GREY);
  zero.line_width = 1;
  bs_plot_hline(r->plot, 0, &zero, NULL);
  bs_plot_style med = bs__chart_style(BS__C_BLUE);
  med.line_width = 2;
  char lab[128];
  snprintf(lab, sizeof lab, "med(d) %s",
           bs__fmt_val_signed(a, sizeof a, bs__report_metric(r),
                              c->median_delta_us));
  bs_plot_hline(r->plot, c->median_delta_us * f, &med, lab);

  /* Tukey fences (type-7 quartiles): outliers are marked, never removed. */
  double lo_f, hi_f;
  bs_tukey_fences(c->delta, m, &lo_f, &hi_f);
  double *ix = work, *iy = work + m, *ox = work + 2 * m, *oy = work + 3 * m;
  size_t ni = 0, no = 0, above = 0;
  for (size_t j = 0; j < m; j++) {
    double d = c->delta[j];
    above += d > 0;
    if (d < lo_f || d > hi_f) {
      ox[no] = x[j];
      oy[no++] = d * f;
    } else {
      ix[ni] = x[j];
      iy[ni++] = d * f;
    }
  }
  bs_plot_style pts = bs__chart_style(BS__C_BLUE);
  pts.marker = BS_MARK_CIRCLE;
  const double *ci[2] = {ix, iy};
  bs_plot_series(r->plot, BS_PLOT_POINTS, "d per block", &pts, ci, ni);
  bs_plot_style out = bs__chart_style(BS__C_VERMILLION);
  out.marker = BS_MARK_DIAMOND;
  out.open = 1;
  out.point_size = 1.2;
  const double *co[2] = {ox, oy};
  bs_plot_series(r->plot, BS_PLOT_POINTS, "Tukey outlier (kept)", &out, co, no);
  char bandtitle[96];
  snprintf(bandtitle, sizeof bandtitle, "%g %% interval of med(d)",
           c->level_pct);
  bs_plot_keyentry(r->plot, BS_PLOT_BAND, bandtitle, &band);

  char iv[128];
  bs__set_alt(
      r, k,
      bs__strdupf("Paired differences %s − %s for %s over %zu blocks: median "
                  "%s, %g\u00a0%% interval %s; %zu of %zu blocks above zero%s.",
                  cmp->candidate, cmp->baseline, name, m, a, c->level_pct,
                  bs__fmt_val_interval(iv, sizeof iv, bs__report_metric(r),
                                       c->ci_low_us, c->ci_high_us),
                  above, m,
                  no ? (no == 1 ? "; one Tukey outlier, marked and kept"
                                : "; Tukey outliers marked and kept")
                     : ""));
  return k;
}

size_t bs__boot_chart(bs__report *r, size_t i, const bs__case_scratch *sc) {
  (void)sc;
  const bs_case_compare *c = &r->cmp->cases[i];
  const bs_compare_result *cmp = r->cmp;
  char file[64], name[256], title[512], xlabel[192];
  snprintf(file, sizeof file, "case-%04zu-bootstrap.svg", i + 1);
  size_t k = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
  if (k == BS__NO_CHART || !c->thetas)
    return k;
  size_t R = (size_t)cmp->options.resamples;
  const double *th = c->thetas;
  double lo = th[0], hi = th[R - 1];
  double delta_us = cmp->options.threshold_pct / 100.0 * c->median_baseline_us;
  double span = hi - lo;
  if (!(span > 0))
    span = bs__fmax(fabs(lo) * 0.02, 1e-6);
  /* The view covers the distribution and pulls in the ±δ lines and zero
   * when they are near enough to stay readable; far ones are named in
   * the alt text instead of squashing the histogram into a spike. */
  double v0 = lo - 0.15 * span, v1 = hi + 0.15 * span;
  const double marks[3] = {delta_us, -delta_us, 0.0};
  int shown[3];
  for (int q = 0; q < 3; q++) {
    double v = marks[q];
    shown[q] = v >= v0 - 1.5 * span && v <= v1 + 1.5 * span;
    if (shown[q]) {
      v0 = bs__fmin(v0, v - 0.05 * span);
      v1 = bs__fmax(v1, v + 0.05 * span);
    }
  }
  double f;
  const char *unit = bs_metric_display_unit(bs__report_metric(r),
                                            bs__fmax(fabs(v0), fabs(v1)), &f);
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  char cn[256];
  snprintf(title, sizeof title,
           "%s: bootstrap distribution of med(d), %zu "
           "resamples",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS), R);
  snprintf(xlabel, sizeof xlabel, "med(d) of a resample, %s   (%s)",
           bs__report_quantity(r), unit);
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, xlabel);
  bs_plot_ylabel(r->plot, "resamples per bin");
  bs_plot_key(r->plot, BS_KEY_BELOW);
  bs_plot_xrange(r->plot, v0 * f, v1 * f);

  double bx[HIST_BINS], by[HIST_BINS], bw[HIST_BINS];
  double width = (hi - lo) / HIST_BINS;
  size_t nb = HIST_BINS;
  if (!(width > 0)) {
    nb = 1;
    width = span / 20;
    bx[0] = lo;
    by[0] = (double)R;
  } else {
    for (size_t j = 0; j < nb; j++) {
      bx[j] = lo + ((double)j + 0.5) * width;
      by[j] = 0;
    }
    for (size_t j = 0; j < R; j++) {
      size_t bin = (size_t)((th[j] - lo) / width);
      by[bin < nb ? bin : nb - 1] += 1;
    }
  }
  for (size_t j = 0; j < nb; j++) {
    bx[j] *= f;
    bw[j] = width * f;
  }
  bs_plot_style bars = bs__chart_style(BS__C_SKY);
  bars.opacity = 0.55;
  const double *cb[3] = {bx, by, bw};
  bs_plot_series(r->plot, BS_PLOT_BOXES, "resampled medians", &bars, cb, nb);

  bs_plot_style ci = bs__chart_style(BS__C_BLUE);
  ci.dashed = 1;
  ci.line_width = 2;
  bs_plot_vline(r->plot, c->ci_low_us * f, &ci, "L");
  bs_plot_vline(r->plot, c->ci_high_us * f, &ci, "U");
  bs_plot_style med = bs__chart_style(BS__C_BLACK);
  med.line_width = 1.5;
  bs_plot_vline(r->plot, c->median_delta_us * f, &med, "med(d)");
  bs_plot_style dl = bs__chart_style(BS__C_VERMILLION);
  dl.dashed = 1;
  dl.line_width = 2;
  if (shown[0])
    bs_plot_vline(r->plot, delta_us * f, &dl, "+δ");
  if (shown[1])
    bs_plot_vline(r->plot, -delta_us * f, &dl, "−δ");
  bs_plot_style zero = bs__chart_style(BS__C_GREY);
  zero.line_width = 1;
  if (shown[2])
    bs_plot_vline(r->plot, 0, &zero, NULL);

  char iv[128], dtxt[64];
  const char *where;
  if (c->ci_low_us > delta_us)
    where = "entirely above +δ";
  else if (c->ci_high_us < -delta_us)
    where = "entirely below −δ";
  else if (c->ci_low_us > 0)
    where = "above zero but not clear of +δ";
  else if (c->ci_high_us < 0)
    where = "below zero but not clear of −δ";
  else
    where = "straddling zero";
  const char *off = "";
  if (!shown[0] || !shown[1])
    off = " (the δ lines lie off the chart)";
  bs__set_alt(
      r, k,
      bs__strdupf(
          "Histogram of %zu bootstrap medians of d for %s: %g\u00a0%% "
          "interval %s, %s, with δ = %g\u00a0%% of the baseline median = "
          "±%s%s. Verdict: %s.",
          R, name, c->level_pct,
          bs__fmt_val_interval(iv, sizeof iv, bs__report_metric(r),
                               c->ci_low_us, c->ci_high_us),
          where, cmp->options.threshold_pct,
          bs__fmt_val(dtxt, sizeof dtxt, bs__report_metric(r), delta_us), off,
          bs__verdict_marker(bs__significance(c), c->verdict)));
  return k;
}

static void half_medians(const double *x, size_t n, double *first,
                         double *second) {
  size_t h = n / 2;
  *first = bs_median(x, h);
  *second = bs_median(x + (n - h), h);
}

static void drift_words(const bs__report *r, bs__buf *sb, const char *impl,
                        const double *v, size_t n) {
  double first, second;
  char a[64], b[64], md[64];
  half_medians(v, n, &first, &second);
  bs__buf_printf(
      sb, "%s median %s, first half %s, second half %s (%s)", impl,
      bs__fmt_val(md, sizeof md, bs__report_metric(r), bs_median(v, n)),
      bs__fmt_val(a, sizeof a, bs__report_metric(r), first),
      bs__fmt_val(b, sizeof b, bs__report_metric(r), second),
      bs__fmt_pct_signed(md, sizeof md, 100.0 * (second - first) / first));
  bs_drift d;
  char pv[32];
  if (n >= BS_NOISE_DRIFT_MIN && bs_noise_drift(v, n, &d) == BS_OK)
    bs__buf_printf(sb,
                   d.drifted ? ", drifted (Spearman p %s)"
                             : ", no drift detected (Spearman p %s)",
                   bs__fmt_p_rel(pv, sizeof pv, d.p));
}

static size_t drift_chart(bs__report *r, size_t i, const bs__case_scratch *sc) {
  const double *x = sc->x;
  const bs_case_compare *c = &r->cmp->cases[i];
  const bs_compare_result *cmp = r->cmp;
  size_t m = c->blocks;
  char file[64], name[256], title[512], ylabel[160];
  snprintf(file, sizeof file, "case-%04zu-drift.svg", i + 1);
  size_t k = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
  if (k == BS__NO_CHART)
    return k;
  double f;
  const char *unit = bs_metric_display_unit(
      bs__report_metric(r),
      bs__fmax(maxabs(c->baseline, m), maxabs(c->candidate, m)), &f);
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  char cn[256];
  snprintf(title, sizeof title, "%s: %s by block, with half medians",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS),
           bs__report_quantity(r));
  snprintf(ylabel, sizeof ylabel, "%s   (%s)", bs__report_quantity(r), unit);
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, x_label(c));
  bs_plot_ylabel(r->plot, ylabel);
  bs_plot_key(r->plot, BS_KEY_BELOW);
  double *ys = malloc(2 * m * sizeof *ys);
  if (!ys) {
    r->st = BS_ENOMEM;
    return k;
  }
  const double *series[2] = {c->baseline, c->candidate};
  const char *impls[2] = {cmp->baseline, cmp->candidate};
  const uint32_t colors[2] = {BS__C_BLUE, BS__C_ORANGE};
  const bs_plot_marker marks[2] = {BS_MARK_CIRCLE, BS_MARK_TRIANGLE_UP};
  for (int s = 0; s < 2; s++) {
    double *y = ys + (size_t)s * m;
    for (size_t j = 0; j < m; j++)
      y[j] = series[s][j] * f;
    bs_plot_style st = bs__chart_style(colors[s]);
    st.marker = marks[s];
    st.line_width = 1;
    const double *cc[2] = {x, y};
    char im[128];
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS,
                   bs__clip(im, sizeof im, impls[s], BS__KEY_CHARS), &st, cc,
                   m);
    if (m >= 2) {
      double first, second;
      half_medians(series[s], m, &first, &second);
      size_t h = m / 2;
      bs_plot_style hs = bs__chart_style(colors[s]);
      hs.dashed = 1;
      hs.line_width = 2.5;
      bs_plot_segment(r->plot, x[0], first * f, x[h - 1], first * f, &hs);
      bs_plot_segment(r->plot, x[m - h], second * f, x[m - 1], second * f, &hs);
    }
  }
  /* A key entry for the dashed half-median segments. */
  bs_plot_style hk = bs__chart_style(BS__C_GREY);
  hk.dashed = 1;
  hk.line_width = 2.5;
  bs_plot_keyentry(r->plot, BS_PLOT_LINES, "half medians", &hk);
  free(ys);

  bs__buf sb;
  bs__buf_init(&sb, BS__CAP_SVG);
  bs__buf_printf(&sb, "%c%s of %s by block over %zu blocks: ",
                 toupper((unsigned char)bs__report_quantity(r)[0]),
                 bs__report_quantity(r) + 1, name, m);
  drift_words(r, &sb, cmp->baseline, c->baseline, m);
  bs__buf_printf(&sb, "; ");
  drift_words(r, &sb, cmp->candidate, c->candidate, m);
  bs__buf_printf(&sb, ".");
  bs__set_alt(r, k, bs__alt_take(&sb));
  return k;
}

/* ---- All charts -----------------------------------------------------------
 */

/* The charts of a case page, in page order (see report_int.h). */
const bs__case_chart bs__case_charts[BS__CASE_CHARTS] = {
    {deltas_chart,
     "Each point is one block's d = candidate − baseline; the line is "
     "med(d), the band its interval."},
    {bs__boot_chart, "The bootstrap distribution of med(d): L and U bound the "
                     "interval; ±δ mark the practical threshold."},
    {drift_chart, "Both implementations' values of the metric in block "
                  "order; dashed segments are the medians of each half, to "
                  "spot drift."},
};

bs_status bs__report_charts(bs__report *r, bs_error *err) {
  r->forest = BS__NO_CHART;
  r->plot = bs_plot_new();
  if (!r->plot)
    return bs__oom(err);
  if (r->cmp && r->cmp->ncases > 0) {
    size_t n = r->cmp->ncases;
    r->case_charts = malloc(n * BS__CASE_CHARTS * sizeof *r->case_charts);
    size_t maxm = 1;
    for (size_t i = 0; i < n; i++)
      maxm = r->cmp->cases[i].blocks > maxm ? r->cmp->cases[i].blocks : maxm;
    double *x = malloc(maxm * sizeof *x);
    double *work = malloc(4 * maxm * sizeof *work);
    if (!r->case_charts || !x || !work) {
      free(x);
      free(work);
      return bs__oom(err);
    }
    forest(r);
    for (size_t i = 0; i < n * BS__CASE_CHARTS; i++)
      r->case_charts[i] = BS__NO_CHART;
    bs__case_scratch sc = {x, work};
    for (size_t i = 0; i < n && !r->st; i++) {
      x_positions(&r->cmp->cases[i], x);
      for (size_t k = 0; k < BS__CASE_CHARTS && !r->st; k++)
        r->case_charts[i * BS__CASE_CHARTS + k] =
            bs__case_charts[k].make(r, i, &sc);
    }
    free(x);
    free(work);
  }
  for (size_t g = 0; g < r->ngroups && !r->st; g++)
    bs__tune_chart(r, g);
  if (r->aa && r->aa->ncases > 0) {
    r->aa_charts = malloc(r->aa->ncases * sizeof *r->aa_charts);
    if (!r->aa_charts)
      return bs__oom(err);
    for (size_t i = 0; i < r->aa->ncases && !r->st; i++) {
      r->aa_charts[i][0] = r->aa_charts[i][1] = r->aa_charts[i][2] =
          BS__NO_CHART;
      bs__aa_charts(r, i);
    }
  }
  if (r->st)
    return bs_error_set(err, r->st, NULL, 0,
                        r->st == BS_ENOMEM ? BS__OOM_TEXT
                                           : "cannot describe the charts");
  for (size_t i = 0; i < r->ncharts; i++) {
    if (!r->charts[i].alt)
      return bs__oom(err);
  }
  return BS_OK;
}
