/* The charts of a report's tuning and A/A pages: per benchmark measured
 * at several scales, each impl's median against the scale with the
 * crossovers marked; per A/A case, the unpaired and paired deltas of each
 * run, and each run's confidence against the band a calibrated one stays
 * in. Each says what it shows in its alt text; every string from the
 * inputs goes through bs_plot's octal quoting. */
#include "report_int.h"

#include "benchsite/quantile.h"
#include "lmath.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Tuning ------------------------------------------------------------- */

static const uint32_t impl_colors[] = {
    BS__C_BLUE,   BS__C_ORANGE, BS__C_GREEN, BS__C_VERMILLION,
    BS__C_PURPLE, BS__C_SKY,    BS__C_BLACK, BS__C_YELLOW};
static const bs_plot_marker impl_markers[] = {
    BS_MARK_CIRCLE, BS_MARK_TRIANGLE_UP, BS_MARK_SQUARE, BS_MARK_DIAMOND,
    BS_MARK_TRIANGLE_DOWN};

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

void bs__tune_chart(bs__report *r, size_t gi) {
  bs__tune_group *g = &r->groups[gi];
  char file[64], title[512];
  snprintf(file, sizeof file, "tune-%03zu.svg", gi + 1);
  size_t k = bs__new_chart(r, file, 760, 420);
  g->chart = k;
  if (k == BS__NO_CHART)
    return;
  char cn[256];
  snprintf(title, sizeof title, "%s: %s against scale",
           bs__clip(cn, sizeof cn, g->benchmark, BS__NAME_CHARS),
           bs__report_quantity(r));
  bs_plot_title(r->plot, title);
  bs_plot_xlabel(r->plot, "scale   (log axis)");
  char ylabel[160];
  snprintf(ylabel, sizeof ylabel, "median %s   (%s, log axis)",
           bs__report_quantity(r), bs_metric_get(bs__report_metric(r))->unit);
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
    xlo = bs__fmin(xlo, tc->scale);
    xhi = bs__fmax(xhi, tc->scale);
    for (size_t q = 0; q < tc->nmedians; q++) {
      ylo = bs__fmin(ylo, tc->medians[q].median_us);
      yhi = bs__fmax(yhi, tc->medians[q].median_us);
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
    bs_plot_style st = bs__chart_style(impl_colors[q % 8]);
    st.marker = impl_markers[q % 5];
    st.dashed = (q / 8) % 2 != 0;
    const double *cc[2] = {xs, ys};
    char im[128];
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS,
                   bs__clip(im, sizeof im, g->impls[q], BS__KEY_CHARS), &st, cc,
                   cnt);
  }
  free(xs);

  /* Crossovers: on the log-log segment of the first impl between the
   * bracketing scales (SPEC §2.7 interpolates the log ratio linearly). */
  size_t nx = 0;
  for (size_t j = 0; j < r->tune->ncrossovers; j++)
    nx += !strcmp(r->tune->crossovers[j].benchmark, g->benchmark);
  bs__buf sb;
  bs__buf_init(&sb, BS__CAP_SVG);
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
        double t = (bs__log(x->scale) - bs__log(x->scale_low)) /
                   (bs__log(x->scale_high) - bs__log(x->scale_low));
        cy[c] = bs__exp(bs__log(m0->median_us) +
                        t * (bs__log(m1->median_us) - bs__log(m0->median_us)));
      }
      c++;
    }
    bs_plot_style xs_style = bs__chart_style(BS__C_BLACK);
    xs_style.marker = BS_MARK_DIAMOND;
    xs_style.open = 1;
    xs_style.point_size = 1.6;
    const double *cc[2] = {cx, cy};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "crossover", &xs_style, cc, c);
    free(cx);
  }

  /* The finding: which impl is fastest over which scales. */
  bs__buf_printf(
      &sb,
      "Log-log chart of median %s against scale for "
      "%s, %zu implementation%s over %zu scales. %c%s: ",
      bs__report_quantity(r), g->benchmark, g->nimpls,
      g->nimpls == 1 ? "" : "s", n,
      toupper((unsigned char)bs_metric_get(bs__report_metric(r))->best[0]),
      bs_metric_get(bs__report_metric(r))->best + 1);
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
      bs__buf_printf(&sb, "%s%s at %s", firstrun ? "" : ", ", tc->best, s0);
    else
      bs__buf_printf(&sb, "%s%s from %s to %s", firstrun ? "" : ", ", tc->best,
                     s0, s1);
    firstrun = 0;
    j = e + 1;
  }
  if (nx) {
    bs__buf_printf(&sb, ". Crossovers: ");
    size_t shown = 0;
    for (size_t q = 0; q < r->tune->ncrossovers; q++) {
      const bs_crossover *x = &r->tune->crossovers[q];
      if (strcmp(x->benchmark, g->benchmark))
        continue;
      if (shown < 8) {
        char s[64];
        bs__buf_printf(&sb, "%s%s and %s at about %s", shown ? "; " : "", x->a,
                       x->b, bs__fmt_num(s, sizeof s, x->scale, 3));
      }
      shown++;
    }
    if (shown > 8)
      bs__buf_printf(&sb, "; and %zu more", shown - 8);
    bs__buf_printf(&sb, ".");
  } else {
    bs__buf_printf(&sb, ". No crossovers.");
  }
  bs__set_alt(r, k, bs__alt_take(&sb));
}

/* ---- A/A ---------------------------------------------------------------- */

void bs__aa_charts(bs__report *r, size_t i) {
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
  size_t k1 = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
  r->aa_charts[i][0] = k1;
  if (k1 != BS__NO_CHART) {
    char cn[256], ca[128], cb[128];
    snprintf(title, sizeof title,
             "%s: unpaired A/A difference u per run (%s vs %s)",
             bs__clip(cn, sizeof cn, name, BS__NAME_CHARS),
             bs__clip(ca, sizeof ca, aa->a, BS__IMPL_CHARS),
             bs__clip(cb, sizeof cb, aa->b, BS__IMPL_CHARS));
    bs_plot_title(r->plot, title);
    bs_plot_xlabel(r->plot, "run");
    bs_plot_ylabel(r->plot, "u = 1 − med(A)/med(B)   (%)");
    bs_plot_key(r->plot, BS_KEY_BELOW);
    bs_plot_style zero = bs__chart_style(BS__C_GREY);
    zero.line_width = 1;
    bs_plot_hline(r->plot, 0, &zero, NULL);
    char lab[96], pct[64];
    bs_plot_style f1 = bs__chart_style(BS__C_BLUE);
    f1.dashed = 1;
    snprintf(lab, sizeof lab, "unpaired spread ±%s %%",
             bs__fmt_num(pct, sizeof pct, 100.0 * nc->noise_floor, 3));
    bs_plot_hline(r->plot, 100.0 * nc->noise_floor, &f1, lab);
    bs_plot_hline(r->plot, -100.0 * nc->noise_floor, &f1, NULL);
    bs_plot_style s1 = bs__chart_style(BS__C_BLUE);
    s1.marker = BS_MARK_CIRCLE;
    s1.line_width = 1;
    const double *c1[2] = {x, y1};
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS, "u of one run", &s1, c1, n);
    char a[64], b[64];
    bs__set_alt(
        r, k1,
        bs__strdupf(
            "Unpaired A/A differences u of %s over %zu runs: unpaired "
            "spread (90th percentile of |u|) %s\u00a0%%, largest "
            "%s\u00a0%%.",
            name, n, bs__fmt_num(a, sizeof a, 100.0 * nc->noise_floor, 3),
            bs__fmt_num(b, sizeof b, 100.0 * nc->max_observed_noise, 3)));
  }

  snprintf(file, sizeof file, "aa-%03zu-paired.svg", i + 1);
  size_t k3 = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
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
    bs_plot_style zero = bs__chart_style(BS__C_GREY);
    zero.line_width = 1;
    bs_plot_hline(r->plot, 0, &zero, NULL);
    char lab[96], pct[64];
    bs_plot_style f2 = bs__chart_style(BS__C_ORANGE);
    f2.dashed = 1;
    snprintf(lab, sizeof lab, "noise floor ±%s %%",
             bs__fmt_num(pct, sizeof pct, nc->paired_noise_floor_pct, 3));
    bs_plot_hline(r->plot, nc->paired_noise_floor_pct, &f2, lab);
    bs_plot_hline(r->plot, -nc->paired_noise_floor_pct, &f2, NULL);
    bs_plot_style s2 = bs__chart_style(BS__C_ORANGE);
    s2.marker = BS_MARK_TRIANGLE_UP;
    s2.line_width = 1;
    const double *c2[2] = {x, y2};
    bs_plot_series(r->plot, BS_PLOT_LINESPOINTS, "paired Δ% of one run", &s2,
                   c2, n);
    char c[64];
    bs__set_alt(
        r, k3,
        bs__strdupf("Paired Δ%% of %s over %zu runs: noise floor "
                    "(90th percentile of |paired Δ%%|) %s\u00a0%%, which "
                    "the "
                    "gate's 3\u00a0%% threshold %s.",
                    name, n,
                    bs__fmt_num(c, sizeof c, nc->paired_noise_floor_pct, 3),
                    nc->gate_resolves ? "clears" : "does not clear"));
  }

  snprintf(file, sizeof file, "aa-%03zu-confidence.svg", i + 1);
  size_t k2 = bs__new_chart(r, file, BS__CASE_W, BS__CASE_H);
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
    bs_plot_style band = bs__chart_style(BS__C_GREEN);
    band.opacity = 0.15;
    bs_plot_yspan(r->plot, 1 - level, level, &band);
    bs_plot_style half = bs__chart_style(BS__C_GREY);
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
    bs_plot_style si = bs__chart_style(BS__C_BLUE);
    si.marker = BS_MARK_CIRCLE;
    const double *ci[2] = {xin, yin};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "confidence", &si, ci, ni);
    bs_plot_style so = bs__chart_style(BS__C_VERMILLION);
    so.marker = BS_MARK_SQUARE;
    so.point_size = 1.1;
    const double *co[2] = {xout, yout};
    bs_plot_series(r->plot, BS_PLOT_POINTS, "false signal (outside band)", &so,
                   co, no);
    char a[64], b[64], c[64], d[64];
    bs__set_alt(
        r, k2,
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
