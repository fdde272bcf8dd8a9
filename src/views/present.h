/* Presentation: how every view writes a number, a time, a percentage, an
 * interval, a verdict and a name -- the text tables, the Markdown comments,
 * the report's pages and charts and the site's pages. One rule for each,
 * so the views agree: four significant digits with trailing zeros kept
 * ("10.50 µs" beside "9.817 µs"), the unit chosen for the value, and a
 * percentage rounded to two decimals (never "-0.00"). Two typographies of
 * the same text: HTML (a true minus sign U+2212, a no-break space between
 * a number and its unit) and plain (ASCII '-' and ' ', for terminals, CI
 * logs and Markdown). Private; depends on nothing above the statistics.
 *
 * Each bs__fmt_* writes a NUL-terminated string into buf (n bytes) and
 * returns buf; a value that is not finite is "n/a". */
#ifndef BENCHSITE_PRESENT_H
#define BENCHSITE_PRESENT_H

#include "benchsite/compare.h"
#include "benchsite/manifest.h"
#include "benchsite/metric.h"
#include "benchsite/template.h"

#include <stddef.h>

/* Okabe & Ito's colour-blind-safe palette, for the report's charts and
 * the site's; every series also differs in marker or dash, so colour is
 * never the only cue. */
#define BS__C_BLUE 0x0072b2u
#define BS__C_ORANGE 0xe69f00u
#define BS__C_GREEN 0x009e73u
#define BS__C_VERMILLION 0xd55e00u
#define BS__C_SKY 0x56b4e9u
#define BS__C_PURPLE 0xcc79a7u
#define BS__C_YELLOW 0xf0e442u
#define BS__C_GREY 0x6b6b6bu
#define BS__C_LIGHT 0x9a9a9au
#define BS__C_BLACK 0x222222u

/* Chart texts cut names to this many characters (the pages keep all). */
#define BS__NAME_CHARS 56

/* The unit that suits values up to `maxabs` us: "ns", "µs", "ms", "s",
 * and the factor that converts microseconds into it (wall time's ladder,
 * bs_metric_display_unit). */
const char *bs__time_unit(double maxabs, double *factor);

/* ---- Values of a metric ------------------------------------------------
 * A value of metric m (in its unit: µs for times, KiB for memory) in the
 * unit of its ladder that suits it (bs_metric_display_unit): "13.54 µs",
 * "1.250 MiB". The bs__fmt_time* functions below are these for wall time.
 */

/* HTML: "13.54 µs", "+10.21 µs", "+10.10 to +10.32 µs", "162.8–187.7 µs". */
char *bs__fmt_val(char *buf, size_t n, bs_metric m, double v);
char *bs__fmt_val_signed(char *buf, size_t n, bs_metric m, double v);
char *bs__fmt_val_interval(char *buf, size_t n, bs_metric m, double lo,
                           double hi);
char *bs__fmt_val_range(char *buf, size_t n, bs_metric m, double lo, double hi);
/* Plain: "13.54 µs", "-0.2017 µs". */
char *bs__fmt_val_plain(char *buf, size_t n, bs_metric m, double v);
char *bs__fmt_val_signed_plain(char *buf, size_t n, bs_metric m, double v);
/* How every view names the metric it shows (after "metric "): "wall:
 * wall time per call, µs", "rss: peak resident memory, KiB". */
char *bs__metric_phrase(char *buf, size_t n, bs_metric m);

/* ---- HTML typography (pages, charts, alt texts) ------------------------ */

/* A number with `sig` significant digits and a true minus sign. */
char *bs__fmt_num(char *buf, size_t n, double v, int sig);
/* "13.54 µs". */
char *bs__fmt_time(char *buf, size_t n, double us);
/* "+10.21 µs", "−0.2017 µs", "0.000 µs". */
char *bs__fmt_time_signed(char *buf, size_t n, double us);
/* A signed interval, both ends in one unit: "+10.10 to +10.32 µs". */
char *bs__fmt_time_interval(char *buf, size_t n, double lo, double hi);
/* An unsigned range, both ends in one unit: "162.8–187.7 µs". */
char *bs__fmt_time_range(char *buf, size_t n, double lo, double hi);
/* "+75.47 %", "−54.21 %", "0.00 %". */
char *bs__fmt_pct_signed(char *buf, size_t n, double pct);

/* An A/A noise floor (a |delta %| no change exceeds), three decimals:
 * "±0.853 %". The plain form below is "0.853 %"; every view shows floors
 * so. */
char *bs__fmt_floor(char *buf, size_t n, double pct);

/* ---- Plain typography (text tables, Markdown) -------------------------- */

/* "13.54 µs". */
char *bs__fmt_time_plain(char *buf, size_t n, double us);
/* "+10.50 µs", "-0.2017 µs". */
char *bs__fmt_time_signed_plain(char *buf, size_t n, double us);
/* The number of a signed percentage, without the sign "%": "+75.47",
 * "-54.21", "0.00". */
char *bs__fmt_pct_num_plain(char *buf, size_t n, double pct);

/* A noise floor as bs__fmt_floor, plain: "0.853 %". */
char *bs__fmt_floor_plain(char *buf, size_t n, double pct);
/* A rate in percent (ties, flagged runs, drifting runs), one decimal:
 * "12.5 %". */
char *bs__fmt_rate_plain(char *buf, size_t n, double pct);

/* The number of an unsigned percentage shown as exceeding a threshold
 * `than` (a minimum detectable change or a between-run spread beside δ),
 * without its "%": one decimal, more (up to six) while the figure as
 * written would not read above `than`, so that 3.0001 beside δ = 3 is
 * "3.0001", never "3.0": "11.4", "3.04". */
char *bs__fmt_above_num(char *buf, size_t n, double pct, double than);

/* ---- Names and verdicts -------------------------------------------------- */

/* s cut to max_chars code points, with "…" when cut (for chart texts;
 * the pages and alt texts keep the whole name). */
char *bs__clip(char *buf, size_t n, const char *s, size_t max_chars);

/* ---- The glossary ---------------------------------------------------------
 * Every symbol and every word a view uses for a verdict, a mark or a
 * statistic, with its one meaning: the text report, the Markdown comments,
 * the report's pages and charts and the site's pages all take them from
 * this table, so a symbol means the same thing wherever it appears and no
 * two meanings share one. */
typedef enum bs__term {
  /* Verdicts of a compared case; each case has exactly one. */
  BS__T_REGRESSION,  /* ■ significant regression */
  BS__T_SLOWER,      /* ▲ slower, not significant */
  BS__T_EQUIVALENT,  /* ● equivalent */
  BS__T_FASTER,      /* ▼ faster, not significant */
  BS__T_IMPROVEMENT, /* ◆ significant improvement */
  /* Marks beside a verdict. */
  BS__T_INCONCLUSIVE, /* ◐ inconclusive */
  BS__T_WITHIN_NOISE, /* ≈ within noise */
  BS__T_LAYOUT,       /* ↕ layout-sensitive */
  BS__T_BLIND,        /* ◌ blind */
  BS__T_WARNING,      /* ⚠ warning */
  BS__T_OUTLIER,      /* ◇ Tukey outlier */
  BS__T_MEDIANS,      /* † medians disagree */
  /* The gate of one run. */
  BS__T_GATE_PASSED, /* ✔ gate passed */
  BS__T_GATE_FAILED, /* ✖ gate failed */
  BS__T_HOTSPOT,     /* ℹ hotspot */
  /* Environments and tuning. */
  BS__T_COMPARABILITY, /* ≡ comparability key */
  BS__T_TIE,           /* = tie */
  /* Statistics (no symbol of their own but their letters). */
  BS__T_PAIRED_DELTA, /* paired Δ% */
  BS__T_MED_D,        /* med(d) */
  BS__T_THRESHOLD,    /* δ */
  BS__T_NOISE_FLOOR,  /* noise floor */
  BS__T_UNPAIRED,     /* unpaired spread */
  BS__T_P_VALUE,      /* p */
  BS__T_MDE,          /* minimum detectable change */
  BS__T_LEVEL,        /* interval level */
  BS__NTERMS
} bs__term;

typedef struct bs__gloss {
  const char *symbol;  /* "■"; "" for a word without one */
  const char *word;    /* "significant regression" */
  const char *label;   /* symbol, a space and word: "■ significant
                          regression" (the word alone when no symbol) */
  const char *meaning; /* one sentence, plain text */
  const char *cls;     /* the pages' CSS class ("regression"), or "" */
} bs__gloss;

/* The entry of term t (never NULL; an unknown t gives the first). */
const bs__gloss *bs__glossary(bs__term t);

/* The term of a case's verdict: significant regression or improvement
 * first, else its verdict word. `significant` as bs__significance. */
bs__term bs__verdict_term(int significant, bs_verdict verdict);
/* A verdict as every view writes it, bs__glossary(...)->label: "■
 * significant regression", "◆ significant improvement", "▲ slower, not
 * significant", "● equivalent", "▼ faster, not significant"; its CSS
 * class: "regression", "improvement", "slower", "equivalent", "faster". */
const char *bs__verdict_marker(int significant, bs_verdict verdict);
const char *bs__verdict_class(int significant, bs_verdict verdict);
/* The `significant` of the bs__verdict_* functions for a case. */
int bs__significance(const bs_case_compare *c);

/* A p-value as every view writes it: "< 0.001" below 0.001, else three
 * significant digits ("0.0380" is "0.038", 1 is "1"); "n/a" when not
 * finite. */
char *bs__fmt_p(char *buf, size_t n, double p);
/* The same after "p ": "= 0.038", "< 0.001". */
char *bs__fmt_p_rel(char *buf, size_t n, double p);

/* 100 · (med(candidate)/med(baseline) − 1): the change the two series'
 * medians show, unpaired. */
double bs__unpaired_pct(const bs_case_compare *c);
/* Whether the two medians shown beside a paired Δ% could mislead: their
 * unpaired change differs from the paired Δ% by δ or more (the mark
 * BS__T_MEDIANS). */
int bs__medians_disagree(const bs_case_compare *c, double delta_pct);

/* The page of compared case i (0-based) in a report: "case-0001.html".
 * The Markdown comment links it under --link-base, so the two agree. */
char *bs__case_page(char *buf, size_t n, size_t i);

/* The list "facts" under `run`: the manifest's commit, date, machine,
 * target, profile and protocol that are set (the header of every report
 * and site run page). mf may be NULL. */
void bs__facts(bs_tval *run, const bs_manifest *mf);
/* bs__facts, then the metric the page shows: "metric: wall time per call
 * (µs)". */
void bs__facts_metric(bs_tval *run, const bs_manifest *mf, bs_metric m);

#endif
