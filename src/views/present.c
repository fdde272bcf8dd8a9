/* Presentation: one formatter per kind of value, in two typographies
 * (see present.h). */
#include "present.h"
#include "lmath.h"
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MINUS "\xe2\x88\x92" /* U+2212 */
#define NBSP "\xc2\xa0"      /* keeps a number and its unit together */

/* The typography of a medium. */
typedef struct style {
  const char *minus; /* before a negative number */
  const char *space; /* between a number and its unit */
} style;

static const style HTML = {MINUS, NBSP};
static const style PLAIN = {"-", " "};

const char *bs__time_unit(double maxabs, double *factor) {
  return bs_metric_display_unit(BS_METRIC_WALL, maxabs, factor);
}

static const char *sign(const style *s, double v, int plus) {
  return v < 0 ? s->minus : (plus && v > 0 ? "+" : "");
}

char *bs__fmt_num(char *buf, size_t n, double v, int sig) {
  char tmp[64];
  if (!isfinite(v)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  if (v == 0)
    v = 0; /* no "-0" */
  snprintf(tmp, sizeof tmp, "%.*g", sig, fabs(v));
  snprintf(buf, n, "%s%s", sign(&HTML, v, 0), tmp);
  return buf;
}

/* Four significant digits, trailing zeros kept ("10.50 µs" beside
 * "9.817 µs"), so a column of times reads at one precision. */
static char *num4(const style *s, char *buf, size_t n, double v, int plus) {
  char tmp[64];
  if (!isfinite(v)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  if (v == 0)
    v = 0;
  snprintf(tmp, sizeof tmp, "%#.4g", fabs(v));
  size_t len = strlen(tmp);
  if (len > 0 && tmp[len - 1] == '.')
    tmp[len - 1] = '\0';
  snprintf(buf, n, "%s%s", sign(s, v, plus), tmp);
  return buf;
}

static char *val4(const style *s, char *buf, size_t n, bs_metric m, double us,
                  int plus) {
  double f;
  const char *unit = bs_metric_display_unit(m, fabs(us), &f);
  char num[64];
  if (!isfinite(us)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  num4(s, num, sizeof num, us * f, plus);
  snprintf(buf, n, "%s%s%s", num, s->space, unit);
  return buf;
}

/* Both ends in the unit of the larger one, joined by `sep`. */
static char *range4(const style *s, char *buf, size_t n, bs_metric m, double lo,
                    double hi, int plus, const char *sep) {
  double f;
  const char *unit =
      bs_metric_display_unit(m, bs__fmax(fabs(lo), fabs(hi)), &f);
  char a[64], b[64];
  if (!isfinite(lo) || !isfinite(hi)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  num4(s, a, sizeof a, lo * f, plus);
  num4(s, b, sizeof b, hi * f, plus);
  snprintf(buf, n, "%s%s%s%s%s", a, sep, b, s->space, unit);
  return buf;
}

static char *pct2(const style *s, char *buf, size_t n, double pct,
                  const char *unit) {
  if (!isfinite(pct)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  /* Past a billion per cent no decimal means anything, and %.2f would
   * print up to 300 digits, cut at the buffer's end into a wrong number
   * (a chain of large changes multiplies past 1e300). */
  if (fabs(pct) >= 1e9) {
    snprintf(buf, n, "%s%.3g%s", pct < 0 ? s->minus : "+", fabs(pct), unit);
    return buf;
  }
  double r = bs__round(pct * 100) / 100;
  if (r == 0)
    snprintf(buf, n, "0.00%s", unit);
  else
    snprintf(buf, n, "%s%.2f%s", r < 0 ? s->minus : "+", fabs(r), unit);
  return buf;
}

char *bs__fmt_val(char *buf, size_t n, bs_metric m, double v) {
  return val4(&HTML, buf, n, m, v, 0);
}

char *bs__fmt_val_signed(char *buf, size_t n, bs_metric m, double v) {
  return val4(&HTML, buf, n, m, v, 1);
}

char *bs__fmt_val_interval(char *buf, size_t n, bs_metric m, double lo,
                           double hi) {
  return range4(&HTML, buf, n, m, lo, hi, 1, " to ");
}

char *bs__fmt_val_range(char *buf, size_t n, bs_metric m, double lo,
                        double hi) {
  return range4(&HTML, buf, n, m, lo, hi, 0, "–");
}

char *bs__fmt_val_plain(char *buf, size_t n, bs_metric m, double v) {
  return val4(&PLAIN, buf, n, m, v, 0);
}

char *bs__fmt_val_signed_plain(char *buf, size_t n, bs_metric m, double v) {
  return val4(&PLAIN, buf, n, m, v, 1);
}

char *bs__metric_phrase(char *buf, size_t n, bs_metric m) {
  const bs_metric_info *mi = bs_metric_get(m);
  if (!mi)
    mi = bs_metric_get(BS_METRIC_WALL);
  snprintf(buf, n, "%s: %s, %s", mi->name, mi->quantity, mi->unit);
  return buf;
}

char *bs__fmt_time(char *buf, size_t n, double us) {
  return bs__fmt_val(buf, n, BS_METRIC_WALL, us);
}

char *bs__fmt_time_signed(char *buf, size_t n, double us) {
  return bs__fmt_val_signed(buf, n, BS_METRIC_WALL, us);
}

char *bs__fmt_time_interval(char *buf, size_t n, double lo, double hi) {
  return bs__fmt_val_interval(buf, n, BS_METRIC_WALL, lo, hi);
}

char *bs__fmt_time_range(char *buf, size_t n, double lo, double hi) {
  return bs__fmt_val_range(buf, n, BS_METRIC_WALL, lo, hi);
}

char *bs__fmt_pct_signed(char *buf, size_t n, double pct) {
  return pct2(&HTML, buf, n, pct, NBSP "%");
}

/* A/A figures: unsigned percentages with a fixed number of decimals. */
static char *pct_fixed(const style *s, char *buf, size_t n, const char *pre,
                       double pct, int decimals) {
  if (!isfinite(pct))
    snprintf(buf, n, "n/a");
  else
    snprintf(buf, n, "%s%.*f%s%%", pre, decimals, pct, s->space);
  return buf;
}

char *bs__fmt_floor(char *buf, size_t n, double pct) {
  return pct_fixed(&HTML, buf, n, "±", pct, 3);
}

char *bs__fmt_floor_plain(char *buf, size_t n, double pct) {
  return pct_fixed(&PLAIN, buf, n, "", pct, 3);
}

char *bs__fmt_rate_plain(char *buf, size_t n, double pct) {
  return pct_fixed(&PLAIN, buf, n, "", pct, 1);
}

char *bs__fmt_above_num(char *buf, size_t n, double pct, double than) {
  if (!isfinite(pct)) {
    snprintf(buf, n, "n/a");
    return buf;
  }
  /* As pct2: %f of a huge figure would print hundreds of digits. */
  if (fabs(pct) >= 1e9) {
    snprintf(buf, n, "%.3g", pct);
    return buf;
  }
  for (int d = 1; d <= 6; d++) {
    double back;
    snprintf(buf, n, "%.*f", d, pct);
    if (!(pct > than) || (!bs__parse_double(buf, &back) && back > than))
      break;
  }
  return buf;
}

char *bs__fmt_time_plain(char *buf, size_t n, double us) {
  return bs__fmt_val_plain(buf, n, BS_METRIC_WALL, us);
}

char *bs__fmt_time_signed_plain(char *buf, size_t n, double us) {
  return bs__fmt_val_signed_plain(buf, n, BS_METRIC_WALL, us);
}

char *bs__fmt_pct_num_plain(char *buf, size_t n, double pct) {
  return pct2(&PLAIN, buf, n, pct, "");
}

char *bs__clip(char *buf, size_t n, const char *s, size_t max_chars) {
  size_t i = 0, chars = 0;
  while (s[i] && chars < max_chars) {
    i++;
    while (((unsigned char)s[i] & 0xc0) == 0x80)
      i++;
    chars++;
  }
  if (!s[i])
    snprintf(buf, n, "%s", s);
  else
    snprintf(buf, n, "%.*s…", (int)i, s);
  return buf;
}

int bs__significance(const bs_case_compare *c) {
  return c->significant_regression ? 1 : c->significant_improvement ? -1 : 0;
}

/* One row per term, in the order of bs__term. The verdict symbols are
 * the shapes the charts draw (square, triangles up and down, circle,
 * diamond), so a legend and a table agree; a symbol appears once in the
 * column. The meanings are what a reader needs to act on the mark. */
/* sym and word are string literals, joined: no parentheses. */
// NOLINTBEGIN(bugprone-macro-parentheses)
#define T(sym, word, cls, meaning)                                             \
  { sym, word, sym[0] ? sym " " word : word, meaning, cls }
// NOLINTEND(bugprone-macro-parentheses)
static const bs__gloss glossary[BS__NTERMS] = {
    [BS__T_REGRESSION] =
        T("■", "significant regression", "regression",
          "paired Δ% at or above δ and the whole interval above zero: the "
          "candidate is slower, and the gate fails on it"),
    [BS__T_SLOWER] = T("▲", "slower, not significant", "slower",
                       "paired Δ% at or above δ, but the interval reaches "
                       "zero: the run cannot show that it is slower"),
    [BS__T_EQUIVALENT] =
        T("●", "equivalent", "equivalent", "paired Δ% between −δ and δ"),
    [BS__T_FASTER] = T("▼", "faster, not significant", "faster",
                       "paired Δ% at or below −δ, but the interval reaches "
                       "zero: the run cannot show that it is faster"),
    [BS__T_IMPROVEMENT] =
        T("◆", "significant improvement", "improvement",
          "paired Δ% at or below −δ and the whole interval below zero: the "
          "candidate is faster"),
    [BS__T_INCONCLUSIVE] =
        T("◐", "inconclusive", "inconclusive",
          "not a significant regression, but the interval's upper end "
          "reaches δ: the run can neither show a regression of δ nor rule "
          "one out; more blocks or a quieter machine would decide it"),
    [BS__T_WITHIN_NOISE] =
        T("≈", "within noise", "noise",
          "the paired Δ% is no larger than the case's noise floor: this "
          "setup's A/A runs of identical code differ as much"),
    [BS__T_LAYOUT] =
        T("↕", "layout-sensitive", "layout",
          "the case's runs disagree by more than δ: the spread (max − min) "
          "of the paired Δ% of each run, each run in fresh measuring "
          "processes with a memory layout of their own; the layout, not "
          "the code, may decide the verdict, and more runs average it "
          "away"),
    [BS__T_BLIND] =
        T("◌", "blind", "blind",
          "the minimum detectable change is above δ: the interval reaches "
          "so far below the paired Δ% (or a noise floor raised the "
          "threshold so high) that this run could not have shown a smaller "
          "regression; more blocks or runs, or a quieter machine, would "
          "sharpen it"),
    [BS__T_WARNING] = T("⚠", "warning", "warning",
                        "something about the measurement to check before "
                        "trusting the verdict"),
    [BS__T_OUTLIER] = T("◇", "Tukey outlier", "outlier",
                        "a paired difference outside the Tukey fences "
                        "(1.5 interquartile ranges beyond the quartiles); "
                        "kept, since the median is robust to it"),
    [BS__T_MEDIANS] =
        T("†", "medians disagree", "medians",
          "the two series' medians differ from the paired Δ% by δ or more: "
          "the machine drifted between blocks, which moves both series; "
          "the paired Δ% compares each block's candidate with its own "
          "baseline and is the figure the verdict uses"),
    [BS__T_GATE_PASSED] = T("✔", "gate passed", "pass",
                            "no significant regression in a confirmatory "
                            "comparison"),
    [BS__T_GATE_FAILED] = T("✖", "gate failed", "fail",
                            "a confirmatory comparison with a significant "
                            "regression: the exit status is 1"),
    [BS__T_HOTSPOT] = T("ℹ", "hotspot", "hotspot",
                        "an exploratory comparison: its verdicts point where "
                        "to look and never fail a build"),
    [BS__T_COMPARABILITY] =
        T("≡", "comparability key", "key",
          "a manifest key that must be equal for two runs to be comparable "
          "(target, profile, dtype, machine, frequency_policy, protocol)"),
    [BS__T_TIE] = T("=", "tie", "tie",
                    "no implementation is decisively fastest: the paired "
                    "interval of med(best − runner-up) reaches zero"),
    [BS__T_PAIRED_DELTA] =
        T("", "paired Δ%", "",
          "100 · med(d) / med(baseline): the median of the per-block "
          "differences d = candidate − baseline over the baseline's median; "
          "what every verdict judges. It can point the other way from the "
          "two series' medians when the machine drifted between blocks, "
          "which pairing by block removes"),
    [BS__T_MED_D] = T("", "med(d)", "",
                      "the median of the paired differences d = candidate "
                      "− baseline, one per block, in the metric's unit"),
    [BS__T_THRESHOLD] = T("", "δ", "",
                          "the practical threshold: the smallest paired Δ% "
                          "that counts as a change (3 % in the gate)"),
    [BS__T_NOISE_FLOOR] =
        T("", "noise floor", "",
          "the 90th percentile of |paired Δ%| over A/A runs of identical "
          "code, paired by block as the gate pairs: the change this setup "
          "produces on its own"),
    [BS__T_UNPAIRED] =
        T("", "unpaired spread", "",
          "the 90th percentile over A/A runs of |u|, u = 1 − med(A)/med(B), "
          "the two series' medians compared without pairing"),
    [BS__T_P_VALUE] = T("", "p", "",
                        "the one-sided bootstrap p-value toward a "
                        "regression, (1 + #{θ* ≤ 0}) / (R + 1)"),
    [BS__T_MDE] =
        T("", "minimum detectable change", "",
          "max(δ, paired Δ% − L%), L% the interval's lower end in per cent "
          "of the baseline median: the smallest true regression this run "
          "would have called significant"),
    [BS__T_LEVEL] =
        T("", "interval level", "",
          "the confidence of a case's interval: the mode's (95 % in the "
          "gate) for a run looked at once; the gate judges each case of an "
          "adaptive run at 96 % after its planned runs and at 99.3 % once "
          "it took extra runs, so that looking again flags identical code "
          "no more often than one look"),
};
#undef T

const bs__gloss *bs__glossary(bs__term t) {
  return (unsigned)t < BS__NTERMS ? &glossary[t] : &glossary[0];
}

bs__term bs__verdict_term(int significant, bs_verdict verdict) {
  if (significant > 0)
    return BS__T_REGRESSION;
  if (significant < 0)
    return BS__T_IMPROVEMENT;
  switch (verdict) {
  case BS_VERDICT_FASTER:
    return BS__T_FASTER;
  case BS_VERDICT_SLOWER:
    return BS__T_SLOWER;
  default:
    return BS__T_EQUIVALENT;
  }
}

const char *bs__verdict_marker(int significant, bs_verdict verdict) {
  return glossary[bs__verdict_term(significant, verdict)].label;
}

const char *bs__verdict_class(int significant, bs_verdict verdict) {
  return glossary[bs__verdict_term(significant, verdict)].cls;
}

char *bs__fmt_p(char *buf, size_t n, double p) {
  if (!isfinite(p))
    snprintf(buf, n, "n/a");
  else if (p < 0.001)
    snprintf(buf, n, "< 0.001");
  else
    snprintf(buf, n, "%.3g", p);
  return buf;
}

char *bs__fmt_p_rel(char *buf, size_t n, double p) {
  char v[32];
  bs__fmt_p(v, sizeof v, p);
  snprintf(buf, n, "%s%s", v[0] == '<' ? "" : "= ", v);
  return buf;
}

double bs__unpaired_pct(const bs_case_compare *c) {
  return 100.0 * (c->median_candidate_us / c->median_baseline_us - 1.0);
}

int bs__medians_disagree(const bs_case_compare *c, double delta_pct) {
  double u = bs__unpaired_pct(c);
  return isfinite(u) && isfinite(c->delta_pct) &&
         fabs(u - c->delta_pct) >= delta_pct;
}

char *bs__case_page(char *buf, size_t n, size_t i) {
  snprintf(buf, n, "case-%04zu.html", i + 1);
  return buf;
}

static bs_tval *facts(bs_tval *run, const bs_manifest *mf) {
  static const char *const keys[] = {"commit", "date",    "machine",
                                     "target", "profile", "protocol"};
  bs_tval *list = bs_tval_set_list(run, "facts");
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
    const char *v = bs_manifest_get(mf, keys[i]);
    if (!v || !v[0])
      continue;
    bs_tval *f = bs_tval_push_obj(list);
    bs_tval_set_str(f, "key", keys[i]);
    bs_tval_set_str(f, "value", v);
  }
  return list;
}

void bs__facts(bs_tval *run, const bs_manifest *mf) { facts(run, mf); }

void bs__facts_metric(bs_tval *run, const bs_manifest *mf, bs_metric m) {
  const bs_metric_info *mi = bs_metric_get(m);
  bs_tval *f = bs_tval_push_obj(facts(run, mf));
  bs_tval_set_str(f, "key", "metric");
  bs_tval_set_strf(f, "value", "%s (%s)", mi ? mi->quantity : "?",
                   mi ? mi->unit : "?");
}
