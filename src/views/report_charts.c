/* The charts of a report: what each one shows and the sentence that says
 * what it shows (its alt text). Every string from the inputs goes through
 * bs_plot's octal quoting; file names are built from indices. */
#include "report_int.h"

#include "benchsite/quantile.h"

#include "buf.h"
#include "grow.h"
#include "oom.h"
#include "strlist.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CASE_W 720
#define CASE_H 340
#define HIST_BINS 40
#define ALT_NAMES 4
/* Chart texts are cut to these many characters (the pages keep all). */
#define IMPL_CHARS 20
#define LABEL_CHARS 20
#define TICK_CHARS 40
#define KEY_CHARS 32

static const uint32_t impl_colors[] = {
    BS__C_BLUE,   BS__C_ORANGE, BS__C_GREEN, BS__C_VERMILLION,
    BS__C_PURPLE, BS__C_SKY,    BS__C_BLACK, BS__C_YELLOW};
static const bs_plot_marker impl_markers[] = {
    BS_MARK_CIRCLE, BS_MARK_TRIANGLE_UP, BS_MARK_SQUARE, BS_MARK_DIAMOND,
    BS_MARK_TRIANGLE_DOWN};

static bs_plot_style style(uint32_t color) {
  bs_plot_style s;
  memset(&s, 0, sizeof s);
  s.color = color;
  return s;
}

/* Registers a new chart with the plot batch; returns its index. */
static size_t new_chart(bs__report *r, const char *file, int w, int h) {
  if (r->st)
    return BS__NO_CHART;
  if (r->ncharts == r->capcharts) {
    bs__rchart *c = BS__GROW(r->charts, r->capcharts, r->ncharts + 1, 32);
    if (!c) {
      r->st = BS_ENOMEM;
      return BS__NO_CHART;
    }
    r->charts = c;
  }
  size_t k = bs_plot_chart(r->plot, file, w, h);
  if (k == (size_t)-1) {
    r->st = BS_EINTERNAL;
    return BS__NO_CHART;
  }
  bs__rchart *c = &r->charts[r->ncharts];
  memset(c, 0, sizeof *c);
  snprintf(c->file, sizeof c->file, "%s", file);
  c->width = w;
  c->height = h;
  return r->ncharts++;
}

static void set_alt(bs__report *r, size_t k, char *alt) {
  if (k == BS__NO_CHART) {
    free(alt);
    return;
  }
  if (!alt) {
    r->st = BS_ENOMEM;
    return;
  }
  free(r->charts[k].alt);
  r->charts[k].alt = alt;
}

/* A growable sentence for alt texts. The status is sticky: after a
 * failure nothing more is added and sb_take gives NULL. */
typedef struct sbuf {
  bs__buf b;
  bs_status st;
} sbuf;

static void sb_init(sbuf *sb) {
  bs__buf_init(&sb->b, BS__CAP_SVG);
  sb->st = BS_OK;
}

static void sb_printf(sbuf *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sb_printf(sbuf *sb, const char *fmt, ...) {
  if (sb->st)
    return;
  va_list ap;
  va_start(ap, fmt);
  sb->st = bs__buf_vprintf(&sb->b, fmt, ap);
  va_end(ap);
}

/* The sentence (malloc'd), or NULL after a failure. */
static char *sb_take(sbuf *sb) {
  if (sb->st) {
    bs__buf_release(&sb->b);
    return NULL;
  }
  return bs__buf_detach(&sb->b, NULL);
}

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
static bs_metric metric_of(const bs__report *r) { return r->an->metric; }

static const char *quantity_of(const bs__report *r) {
  return bs_metric_get(metric_of(r))->quantity;
}

static void pct_interval(const bs_case_compare *c, double *lo, double *hi) {
  double b = c->median_baseline_us;
  *lo = 100.0 * c->ci_low_us / b;
  *hi = 100.0 * c->ci_high_us / b;
}

static void alt_list(sbuf *sb, const bs_compare_result *cmp, int cat) {
  size_t shown = 0, total = 0;
  for (size_t i = 0; i < cmp->ncases; i++) {
    const bs_case_compare *c = &cmp->cases[i];
    if (category(c) != cat)
      continue;
    total++;
    if (shown < ALT_NAMES) {
      char name[256], pct[64];
      sb_printf(sb, "%s%s %s", shown ? ", " : " (",
                bs__case_label(name, sizeof name, c->benchmark, c->dataset),
                bs__fmt_pct_signed(pct, sizeof pct, c->delta_pct));
      shown++;
    }
  }
  if (total > shown)
    sb_printf(sb, " and %zu more", total - shown);
  if (shown)
    sb_printf(sb, ")");
}

static void forest(bs__report *r) {
  const bs_compare_result *cmp = r->cmp;
  size_t n = cmp->ncases;
  double delta = cmp->options.threshold_pct;
  int h = 150 + 28 * (int)(n < 2000 ? n : 2000);
  size_t k = new_chart(r, "forest.svg", 760, h);
  r->forest = k;
  if (k == BS__NO_CHART)
    return;
  char title[512], ca[128], ba[128];
  snprintf(title, sizeof title,
           "paired Δ%% per case, %s vs %s, with %g %% intervals",
           bs__clip(ca, sizeof ca, cmp->candidate, IMPL_CHARS),
           bs__clip(ba, sizeof ba, cmp->baseline, IMPL_CHARS),
           cmp->options.level_pct);
  bs_plot_title(r->plot, title);
  char xlabel[160];
  snprintf(xlabel, sizeof xlabel,
           "paired Δ%% of %s = 100 · med(d) / med(baseline)   (%%)",
           quantity_of(r));
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
        xmin = fmin(xmin, v[q]);
        xmax = fmax(xmax, v[q]);
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
  bs_plot_style band = style(BS__C_LIGHT);
  band.opacity = 0.22;
  bs_plot_xspan(r->plot, -delta, delta, &band);
  char bandkey[64];
  snprintf(bandkey, sizeof bandkey, "±δ = %g %%", delta);
  bs_plot_keyentry(r->plot, BS_PLOT_BAND, bandkey, &band);
  bs_plot_style zero = style(BS__C_GREY);
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
    bs_plot_style s = style(colors[cat]);
    s.marker = marks[cat];
    int sig = cat == CAT_REGRESSION || cat == (int)BS__T_IMPROVEMENT;
    s.point_size = sig ? 1.1 : 0.9;
    s.line_width = sig ? 2.2 : 1.5;
    bs_plot_series(r->plot, BS_PLOT_XERRORBARS,
                   bs__glossary((bs__term)cat)->label, &s, cc, count[cat]);
  }
  free(cols);

  sbuf sb;
  sb_init(&sb);
  sb_printf(
      &sb,
      "Forest plot of %zu case%s, %s against %s, shaded band ±%g\u00a0%%: ", n,
      n == 1 ? "" : "s", cmp->candidate, cmp->baseline, delta);
  int first = 1;
  for (int cat = 0; cat < NCAT; cat++) {
    if (!count[cat])
      continue;
    sb_printf(&sb, "%s%zu %s", first ? "" : "; ", count[cat],
              bs__glossary((bs__term)cat)->word);
    if (cat != CAT_EQUIV)
      alt_list(&sb, cmp, cat);
    first = 0;
  }
  sb_printf(&sb, ".");
  set_alt(r, k, sb_take(&sb));
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
      m = fmax(m, fabs(x[i]));
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
  size_t k = new_chart(r, file, CASE_W, CASE_H);
  if (k == BS__NO_CHART)
    return k;
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  double f;
  double big =
      fmax(maxabs(c->delta, m), fmax(fabs(c->ci_low_us), fabs(c->ci_high_us)));
  const char *unit = bs_metric_display_unit(metric_of(r), big, &f);
  char cn[256], ca[128], ba[128];
  snprintf(title, sizeof title, "%s: paired differences by block",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS));
  snprintf(ylabel, sizeof ylabel, "d = %s − %s, %s   (%s)",
           bs__clip(ca, sizeof ca, cmp->candidate, LABEL_CHARS),
           bs__clip(ba, sizeof ba, cmp->baseline, LABEL_CHARS), quantity_of(r),
           unit);
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, x_label(c));
  bs_plot_ylabel(r->plot, ylabel);
  bs_plot_key(r->plot, BS_KEY_BELOW);

  bs_plot_style band = style(BS__C_SKY);
  band.opacity = 0.3;
  bs_plot_yspan(r->plot, c->ci_low_us * f, c->ci_high_us * f, &band);
  bs_plot_style zero = style(BS__C_GREY);
  zero.line_width = 1;
  bs_plot_hline(r->plot, 0, &zero, NULL);
  bs_plot_style med = style(BS__C_BLUE);
  med.line_width = 2;
  char lab[128];
  snprintf(lab, sizeof lab, "med(d) %s",
           bs__fmt_val_signed(a, sizeof a, metric_of(r), c->median_delta_us));
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
  bs_plot_style pts = style(BS__C_BLUE);
  pts.marker = BS_MARK_CIRCLE;
  const double *ci[2] = {ix, iy};
  bs_plot_series(r->plot, BS_PLOT_POINTS, "d per block", &pts, ci, ni);
  bs_plot_style out = style(BS__C_VERMILLION);
  out.marker = BS_MARK_DIAMOND;
  out.open = 1;
  out.point_size = 1.2;
  const double *co[2] = {ox, oy};
  bs_plot_series(r->plot, BS_PLOT_POINTS, "Tukey outlier (kept)", &out, co, no);
  char bandtitle[96];
  snprintf(bandtitle, sizeof bandtitle, "%g %% interval of med(d)",
           cmp->options.level_pct);
  bs_plot_keyentry(r->plot, BS_PLOT_BAND, bandtitle, &band);

  char iv[128];
  set_alt(r, k,
          bs__strdupf(
              "Paired differences %s − %s for %s over %zu blocks: median "
              "%s, %g\u00a0%% interval %s; %zu of %zu blocks above zero%s.",
              cmp->candidate, cmp->baseline, name, m, a, cmp->options.level_pct,
              bs__fmt_val_interval(iv, sizeof iv, metric_of(r), c->ci_low_us,
                                   c->ci_high_us),
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
  size_t k = new_chart(r, file, CASE_W, CASE_H);
  if (k == BS__NO_CHART || !c->thetas)
    return k;
  size_t R = (size_t)cmp->options.resamples;
  const double *th = c->thetas;
  double lo = th[0], hi = th[R - 1];
  double delta_us = cmp->options.threshold_pct / 100.0 * c->median_baseline_us;
  double span = hi - lo;
  if (!(span > 0))
    span = fmax(fabs(lo) * 0.02, 1e-6);
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
      v0 = fmin(v0, v - 0.05 * span);
      v1 = fmax(v1, v + 0.05 * span);
    }
  }
  double f;
  const char *unit =
      bs_metric_display_unit(metric_of(r), fmax(fabs(v0), fabs(v1)), &f);
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  char cn[256];
  snprintf(title, sizeof title,
           "%s: bootstrap distribution of med(d), %zu "
           "resamples",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS), R);
  snprintf(xlabel, sizeof xlabel, "med(d) of a resample, %s   (%s)",
           quantity_of(r), unit);
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
  bs_plot_style bars = style(BS__C_SKY);
  bars.opacity = 0.55;
  const double *cb[3] = {bx, by, bw};
  bs_plot_series(r->plot, BS_PLOT_BOXES, "resampled medians", &bars, cb, nb);

  bs_plot_style ci = style(BS__C_BLUE);
  ci.dashed = 1;
  ci.line_width = 2;
  bs_plot_vline(r->plot, c->ci_low_us * f, &ci, "L");
  bs_plot_vline(r->plot, c->ci_high_us * f, &ci, "U");
  bs_plot_style med = style(BS__C_BLACK);
  med.line_width = 1.5;
  bs_plot_vline(r->plot, c->median_delta_us * f, &med, "med(d)");
  bs_plot_style dl = style(BS__C_VERMILLION);
  dl.dashed = 1;
  dl.line_width = 2;
  if (shown[0])
    bs_plot_vline(r->plot, delta_us * f, &dl, "+δ");
  if (shown[1])
    bs_plot_vline(r->plot, -delta_us * f, &dl, "−δ");
  bs_plot_style zero = style(BS__C_GREY);
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
  set_alt(r, k,
          bs__strdupf(
              "Histogram of %zu bootstrap medians of d for %s: %g\u00a0%% "
              "interval %s, %s, with δ = %g\u00a0%% of the baseline median = "
              "±%s%s. Verdict: %s.",
              R, name, cmp->options.level_pct,
              bs__fmt_val_interval(iv, sizeof iv, metric_of(r), c->ci_low_us,
                                   c->ci_high_us),
              where, cmp->options.threshold_pct,
              bs__fmt_val(dtxt, sizeof dtxt, metric_of(r), delta_us), off,
              bs__verdict_marker(bs__significance(c), c->verdict)));
  return k;
}

static void half_medians(const double *x, size_t n, double *first,
                         double *second) {
  size_t h = n / 2;
  *first = bs_median(x, h);
  *second = bs_median(x + (n - h), h);
}

static void drift_words(const bs__report *r, sbuf *sb, const char *impl,
                        const double *v, size_t n) {
  double first, second;
  char a[64], b[64], md[64];
  half_medians(v, n, &first, &second);
  sb_printf(
      sb, "%s median %s, first half %s, second half %s (%s)", impl,
      bs__fmt_val(md, sizeof md, metric_of(r), bs_median(v, n)),
      bs__fmt_val(a, sizeof a, metric_of(r), first),
      bs__fmt_val(b, sizeof b, metric_of(r), second),
      bs__fmt_pct_signed(md, sizeof md, 100.0 * (second - first) / first));
  bs_drift d;
  char pv[32];
  if (n >= BS_NOISE_DRIFT_MIN && bs_noise_drift(v, n, &d) == BS_OK)
    sb_printf(sb,
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
  size_t k = new_chart(r, file, CASE_W, CASE_H);
  if (k == BS__NO_CHART)
    return k;
  double f;
  const char *unit = bs_metric_display_unit(
      metric_of(r), fmax(maxabs(c->baseline, m), maxabs(c->candidate, m)), &f);
  bs__case_label(name, sizeof name, c->benchmark, c->dataset);
  char cn[256];
  snprintf(title, sizeof title, "%s: %s by block, with half medians",
           bs__clip(cn, sizeof cn, name, BS__NAME_CHARS), quantity_of(r));
  snprintf(ylabel, sizeof ylabel, "%s   (%s)", quantity_of(r), unit);
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
    bs_plot_style st = style(colors[s]);
    st.marker = marks[s];
    st.line_width = 1;
    const double *cc[2] = {x, y};
    char im[128];
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS,
                   bs__clip(im, sizeof im, impls[s], KEY_CHARS), &st, cc, m);
    if (m >= 2) {
      double first, second;
      half_medians(series[s], m, &first, &second);
      size_t h = m / 2;
      bs_plot_style hs = style(colors[s]);
      hs.dashed = 1;
      hs.line_width = 2.5;
      bs_plot_segment(r->plot, x[0], first * f, x[h - 1], first * f, &hs);
      bs_plot_segment(r->plot, x[m - h], second * f, x[m - 1], second * f, &hs);
    }
  }
  /* A key entry for the dashed half-median segments. */
  bs_plot_style hk = style(BS__C_GREY);
  hk.dashed = 1;
  hk.line_width = 2.5;
  bs_plot_keyentry(r->plot, BS_PLOT_LINES, "half medians", &hk);
  free(ys);

  sbuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%c%s of %s by block over %zu blocks: ",
            toupper((unsigned char)quantity_of(r)[0]), quantity_of(r) + 1, name,
            m);
  drift_words(r, &sb, cmp->baseline, c->baseline, m);
  sb_printf(&sb, "; ");
  drift_words(r, &sb, cmp->candidate, c->candidate, m);
  sb_printf(&sb, ".");
  set_alt(r, k, sb_take(&sb));
  return k;
}

/* ---- 5. Tuning ---------------------------------------------------------- */

static const bs_tune_median *median_of(const bs_tune_case *tc,
                                       const char *impl) {
  for (size_t j = 0; j < tc->nmedians; j++) {
    if (!strcmp(tc->medians[j].impl, impl))
      return &tc->medians[j];
  }
  return NULL;
}

static const bs_tune_case *case_at_scale(const bs__report *r,
                                         const bs__tune_group *g, double s) {
  for (size_t j = 0; j < g->ncases; j++) {
    const bs_tune_case *tc = &r->tune->cases[g->cases[j]];
    if (tc->scale == s)
      return tc;
  }
  return NULL;
}

static void tune_chart(bs__report *r, size_t gi) {
  bs__tune_group *g = &r->groups[gi];
  char file[64], title[512];
  snprintf(file, sizeof file, "tune-%03zu.svg", gi + 1);
  size_t k = new_chart(r, file, 760, 420);
  g->chart = k;
  if (k == BS__NO_CHART)
    return;
  char cn[256];
  snprintf(title, sizeof title, "%s: %s against scale",
           bs__clip(cn, sizeof cn, g->benchmark, BS__NAME_CHARS),
           quantity_of(r));
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, "scale   (log axis)");
  char ylabel[160];
  snprintf(ylabel, sizeof ylabel, "median %s   (%s, log axis)", quantity_of(r),
           bs_metric_get(metric_of(r))->unit);
  bs_plot_ylabel(r->plot, ylabel);
  bs_plot_logscale(r->plot, 1, 1);
  bs_plot_key(r->plot, BS_KEY_TOP_LEFT);
  size_t n = g->ncases;
  double *xs = malloc(2 * (n ? n : 1) * sizeof *xs);
  if (!xs) {
    r->st = BS_ENOMEM;
    return;
  }
  double *ys = xs + n;
  /* Tight log ranges: gnuplot would widen them to whole decades. */
  double xlo = HUGE_VAL, xhi = -HUGE_VAL, ylo = HUGE_VAL, yhi = -HUGE_VAL;
  for (size_t j = 0; j < n; j++) {
    const bs_tune_case *tc = &r->tune->cases[g->cases[j]];
    xlo = fmin(xlo, tc->scale);
    xhi = fmax(xhi, tc->scale);
    for (size_t q = 0; q < tc->nmedians; q++) {
      ylo = fmin(ylo, tc->medians[q].median_us);
      yhi = fmax(yhi, tc->medians[q].median_us);
    }
  }
  if (xlo > 0 && xhi > xlo)
    bs_plot_xrange(r->plot, xlo / 1.3, xhi * 1.3);
  if (ylo > 0 && yhi > ylo)
    bs_plot_yrange(r->plot, ylo / 1.5, yhi * 1.5);
  for (size_t q = 0; q < g->nimpls; q++) {
    size_t cnt = 0;
    for (size_t j = 0; j < n; j++) {
      const bs_tune_case *tc = &r->tune->cases[g->cases[j]];
      const bs_tune_median *md = median_of(tc, g->impls[q]);
      if (md) {
        xs[cnt] = tc->scale;
        ys[cnt++] = md->median_us;
      }
    }
    bs_plot_style st = style(impl_colors[q % 8]);
    st.marker = impl_markers[q % 5];
    st.dashed = (q / 8) % 2 != 0;
    const double *cc[2] = {xs, ys};
    char im[128];
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS,
                   bs__clip(im, sizeof im, g->impls[q], KEY_CHARS), &st, cc,
                   cnt);
  }
  free(xs);

  /* Crossovers: on the log-log segment of the first impl between the
   * bracketing scales (SPEC §2.7 interpolates the log ratio linearly). */
  size_t nx = 0;
  for (size_t j = 0; j < r->tune->ncrossovers; j++)
    nx += !strcmp(r->tune->crossovers[j].benchmark, g->benchmark);
  sbuf sb;
  sb_init(&sb);
  if (nx) {
    double *cx = malloc(2 * nx * sizeof *cx);
    if (!cx) {
      r->st = BS_ENOMEM;
      return;
    }
    double *cy = cx + nx;
    size_t c = 0;
    for (size_t j = 0; j < r->tune->ncrossovers; j++) {
      const bs_crossover *x = &r->tune->crossovers[j];
      if (strcmp(x->benchmark, g->benchmark))
        continue;
      const bs_tune_case *c0 = case_at_scale(r, g, x->scale_low);
      const bs_tune_case *c1 = case_at_scale(r, g, x->scale_high);
      const bs_tune_median *m0 = c0 ? median_of(c0, x->a) : NULL;
      const bs_tune_median *m1 = c1 ? median_of(c1, x->a) : NULL;
      cx[c] = x->scale;
      cy[c] = NAN;
      if (m0 && m1 && x->scale_high > x->scale_low) {
        double t = (log(x->scale) - log(x->scale_low)) /
                   (log(x->scale_high) - log(x->scale_low));
        cy[c] = exp(log(m0->median_us) +
                    t * (log(m1->median_us) - log(m0->median_us)));
      }
      c++;
    }
    bs_plot_style xs_style = style(BS__C_BLACK);
    xs_style.marker = BS_MARK_DIAMOND;
    xs_style.open = 1;
    xs_style.point_size = 1.6;
    const double *cc[2] = {cx, cy};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "crossover", &xs_style, cc, c);
    free(cx);
  }

  /* The finding: which impl is fastest over which scales. */
  sb_printf(&sb,
            "Log-log chart of median %s against scale for "
            "%s, %zu implementation%s over %zu scales. %c%s: ",
            quantity_of(r), g->benchmark, g->nimpls, g->nimpls == 1 ? "" : "s",
            n, toupper((unsigned char)bs_metric_get(metric_of(r))->best[0]),
            bs_metric_get(metric_of(r))->best + 1);
  size_t j = 0;
  int firstrun = 1;
  while (j < n) {
    const bs_tune_case *tc = &r->tune->cases[g->cases[j]];
    size_t e = j;
    while (e + 1 < n && !strcmp(r->tune->cases[g->cases[e + 1]].best, tc->best))
      e++;
    char s0[64], s1[64];
    bs__fmt_num(s0, sizeof s0, tc->scale, 6);
    bs__fmt_num(s1, sizeof s1, r->tune->cases[g->cases[e]].scale, 6);
    if (e == j)
      sb_printf(&sb, "%s%s at %s", firstrun ? "" : ", ", tc->best, s0);
    else
      sb_printf(&sb, "%s%s from %s to %s", firstrun ? "" : ", ", tc->best, s0,
                s1);
    firstrun = 0;
    j = e + 1;
  }
  if (nx) {
    sb_printf(&sb, ". Crossovers: ");
    size_t shown = 0;
    for (size_t q = 0; q < r->tune->ncrossovers; q++) {
      const bs_crossover *x = &r->tune->crossovers[q];
      if (strcmp(x->benchmark, g->benchmark))
        continue;
      if (shown < 8) {
        char s[64];
        sb_printf(&sb, "%s%s and %s at about %s", shown ? "; " : "", x->a, x->b,
                  bs__fmt_num(s, sizeof s, x->scale, 3));
      }
      shown++;
    }
    if (shown > 8)
      sb_printf(&sb, "; and %zu more", shown - 8);
    sb_printf(&sb, ".");
  } else {
    sb_printf(&sb, ". No crossovers.");
  }
  set_alt(r, k, sb_take(&sb));
}

/* ---- 6. A/A ------------------------------------------------------------- */

static void aa_charts(bs__report *r, size_t i) {
  const bs_noise_case *nc = &r->aa->cases[i];
  const bs_noise_result *aa = r->aa;
  size_t n = nc->runs;
  char file[64], name[256], title[512];
  bs__case_label(name, sizeof name, nc->benchmark, nc->dataset);
  /* Columns: run, u in %, paired Δ%, and the confidences split into
   * those inside the expected band and the false signals. */
  double *x = malloc(7 * (n ? n : 1) * sizeof *x);
  if (!x) {
    r->st = BS_ENOMEM;
    return;
  }
  double *y1 = x + n, *y2 = x + 2 * n;
  double *xin = x + 3 * n, *yin = x + 4 * n, *xout = x + 5 * n,
         *yout = x + 6 * n;
  for (size_t k = 0; k < n; k++) {
    x[k] = (double)nc->experiments[k].run;
    y1[k] = 100.0 * nc->deltas[k];
    y2[k] = nc->paired_deltas_pct[k];
  }

  /* Two panels: the unpaired difference u with its spread, and the paired
   * Δ% (what the gate sees) with the noise floor. Only the paired figure
   * is called a noise floor (the glossary), and never δ, the threshold. */
  snprintf(file, sizeof file, "aa-%03zu-deltas.svg", i + 1);
  size_t k1 = new_chart(r, file, CASE_W, CASE_H);
  r->aa_charts[i][0] = k1;
  if (k1 != BS__NO_CHART) {
    char cn[256], ca[128], cb[128];
    snprintf(title, sizeof title,
             "%s: unpaired A/A difference u per run (%s vs %s)",
             bs__clip(cn, sizeof cn, name, BS__NAME_CHARS),
             bs__clip(ca, sizeof ca, aa->a, IMPL_CHARS),
             bs__clip(cb, sizeof cb, aa->b, IMPL_CHARS));
    bs_plot_title(r->plot, title);
    bs_plot_xlabel(r->plot, "run");
    bs_plot_ylabel(r->plot, "u = 1 − med(A)/med(B)   (%)");
    bs_plot_key(r->plot, BS_KEY_BELOW);
    bs_plot_style zero = style(BS__C_GREY);
    zero.line_width = 1;
    bs_plot_hline(r->plot, 0, &zero, NULL);
    char lab[96], pct[64];
    bs_plot_style f1 = style(BS__C_BLUE);
    f1.dashed = 1;
    snprintf(lab, sizeof lab, "unpaired spread ±%s %%",
             bs__fmt_num(pct, sizeof pct, 100.0 * nc->noise_floor, 3));
    bs_plot_hline(r->plot, 100.0 * nc->noise_floor, &f1, lab);
    bs_plot_hline(r->plot, -100.0 * nc->noise_floor, &f1, NULL);
    bs_plot_style s1 = style(BS__C_BLUE);
    s1.marker = BS_MARK_CIRCLE;
    s1.line_width = 1;
    const double *c1[2] = {x, y1};
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS, "u of one run", &s1, c1, n);
    char a[64], b[64];
    set_alt(r, k1,
            bs__strdupf(
                "Unpaired A/A differences u of %s over %zu runs: unpaired "
                "spread (90th percentile of |u|) %s\u00a0%%, largest "
                "%s\u00a0%%.",
                name, n, bs__fmt_num(a, sizeof a, 100.0 * nc->noise_floor, 3),
                bs__fmt_num(b, sizeof b, 100.0 * nc->max_observed_noise, 3)));
  }

  snprintf(file, sizeof file, "aa-%03zu-paired.svg", i + 1);
  size_t k3 = new_chart(r, file, CASE_W, CASE_H);
  r->aa_charts[i][2] = k3;
  if (k3 != BS__NO_CHART) {
    char cn[256];
    snprintf(title, sizeof title,
             "%s: paired Δ%% per run, as the gate pairs it",
             bs__clip(cn, sizeof cn, name, BS__NAME_CHARS));
    bs_plot_title(r->plot, title);
    bs_plot_xlabel(r->plot, "run");
    bs_plot_ylabel(r->plot, "paired Δ% of A against B   (%)");
    bs_plot_key(r->plot, BS_KEY_BELOW);
    bs_plot_style zero = style(BS__C_GREY);
    zero.line_width = 1;
    bs_plot_hline(r->plot, 0, &zero, NULL);
    char lab[96], pct[64];
    bs_plot_style f2 = style(BS__C_ORANGE);
    f2.dashed = 1;
    snprintf(lab, sizeof lab, "noise floor ±%s %%",
             bs__fmt_num(pct, sizeof pct, nc->paired_noise_floor_pct, 3));
    bs_plot_hline(r->plot, nc->paired_noise_floor_pct, &f2, lab);
    bs_plot_hline(r->plot, -nc->paired_noise_floor_pct, &f2, NULL);
    bs_plot_style s2 = style(BS__C_ORANGE);
    s2.marker = BS_MARK_TRIANGLE_UP;
    s2.line_width = 1;
    const double *c2[2] = {x, y2};
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS, "paired Δ% of one run", &s2,
                   c2, n);
    char c[64];
    set_alt(r, k3,
            bs__strdupf("Paired Δ%% of %s over %zu runs: noise floor "
                        "(90th percentile of |paired Δ%%|) %s\u00a0%%, which "
                        "the "
                        "gate's 3\u00a0%% threshold %s.",
                        name, n,
                        bs__fmt_num(c, sizeof c, nc->paired_noise_floor_pct, 3),
                        nc->gate_resolves ? "clears" : "does not clear"));
  }

  snprintf(file, sizeof file, "aa-%03zu-confidence.svg", i + 1);
  size_t k2 = new_chart(r, file, CASE_W, CASE_H);
  r->aa_charts[i][1] = k2;
  if (k2 != BS__NO_CHART) {
    double level = aa->options.level;
    char cn[256];
    snprintf(title, sizeof title, "%s: tie-split confidence per run",
             bs__clip(cn, sizeof cn, name, BS__NAME_CHARS));
    bs_plot_title(r->plot, title);
    bs_plot_xlabel(r->plot, "run");
    bs_plot_ylabel(r->plot, "confidence that A is not slower");
    bs_plot_key(r->plot, BS_KEY_BELOW);
    bs_plot_yrange(r->plot, 0, 1);
    bs_plot_style band = style(BS__C_GREEN);
    band.opacity = 0.15;
    bs_plot_yspan(r->plot, 1 - level, level, &band);
    bs_plot_style half = style(BS__C_GREY);
    half.line_width = 1;
    bs_plot_hline(r->plot, 0.5, &half, "0.5 expected");
    size_t ni = 0, no = 0;
    for (size_t k = 0; k < n; k++) {
      double cf = nc->confidences[k];
      if (cf > level || cf < 1 - level) {
        xout[no] = x[k];
        yout[no++] = cf;
      } else {
        xin[ni] = x[k];
        yin[ni++] = cf;
      }
    }
    bs_plot_style si = style(BS__C_BLUE);
    si.marker = BS_MARK_CIRCLE;
    const double *ci[2] = {xin, yin};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "confidence", &si, ci, ni);
    bs_plot_style so = style(BS__C_VERMILLION);
    so.marker = BS_MARK_SQUARE;
    so.point_size = 1.1;
    const double *co[2] = {xout, yout};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "false signal (outside band)", &so,
                   co, no);
    char a[64], b[64], c[64], d[64];
    set_alt(r, k2,
            bs__strdupf(
                "Tie-split confidence of %s per run: median %s (0.5 "
                "expected); %zu of %zu runs outside [%s, %s] (false signal "
                "rate %s\u00a0%%).",
                name, bs__fmt_num(a, sizeof a, nc->median_confidence, 3), no, n,
                bs__fmt_num(b, sizeof b, 1 - level, 3),
                bs__fmt_num(c, sizeof c, level, 3),
                bs__fmt_num(d, sizeof d, 100.0 * nc->false_signal_rate, 3)));
  }
  free(x);
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
    tune_chart(r, g);
  if (r->aa && r->aa->ncases > 0) {
    r->aa_charts = malloc(r->aa->ncases * sizeof *r->aa_charts);
    if (!r->aa_charts)
      return bs__oom(err);
    for (size_t i = 0; i < r->aa->ncases && !r->st; i++) {
      r->aa_charts[i][0] = r->aa_charts[i][1] = r->aa_charts[i][2] =
          BS__NO_CHART;
      aa_charts(r, i);
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
