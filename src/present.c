/* Presentation: one formatter per kind of value, in two typographies
 * (see present.h). */
#include "present.h"

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
  const char *unit = bs_metric_display_unit(m, fmax(fabs(lo), fabs(hi)), &f);
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
  double r = round(pct * 100) / 100;
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

/* Symmetric words: a slower or faster case that is not significant says
 * so, and a significant improvement mirrors the regression. */
const char *bs__verdict_marker(int significant, bs_verdict verdict) {
  if (significant > 0)
    return "■ significant regression";
  if (significant < 0)
    return "◆ significant improvement";
  switch (verdict) {
  case BS_VERDICT_FASTER:
    return "▼ faster, not significant";
  case BS_VERDICT_SLOWER:
    return "▲ slower, not significant";
  default:
    return "● equivalent";
  }
}

const char *bs__verdict_class(int significant, bs_verdict verdict) {
  if (significant > 0)
    return "regression";
  if (significant < 0)
    return "improvement";
  switch (verdict) {
  case BS_VERDICT_FASTER:
    return "faster";
  case BS_VERDICT_SLOWER:
    return "slower";
  default:
    return "equivalent";
  }
}

const char *bs__verdict_markdown(int significant, bs_verdict verdict) {
  if (significant > 0)
    return "❌ significant regression";
  if (significant < 0)
    return "✅ significant improvement";
  switch (verdict) {
  case BS_VERDICT_SLOWER:
    return "▲ slower, not significant";
  case BS_VERDICT_FASTER:
    return "▼ faster, not significant";
  default:
    return "≈ equivalent";
  }
}

const char *bs__verdict_text(int significant, bs_verdict verdict) {
  if (significant > 0)
    return "REGRESSION";
  if (significant < 0)
    return "IMPROVEMENT";
  switch (verdict) {
  case BS_VERDICT_SLOWER:
    return "slower, not significant";
  case BS_VERDICT_FASTER:
    return "faster, not significant";
  default:
    return "equivalent";
  }
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
