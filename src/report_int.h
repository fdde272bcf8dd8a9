/* Shared state of the report builder (report.c, report_charts.c,
 * report_pages.c). Private. */
#ifndef BENCHSITE_REPORT_INT_H
#define BENCHSITE_REPORT_INT_H

#include "benchsite/compare.h"
#include "benchsite/noise.h"
#include "benchsite/plot.h"
#include "benchsite/report.h"
#include "benchsite/template.h"
#include "benchsite/tune.h"

#include "strlist.h"

#include <stddef.h>

#define BS__NO_CHART ((size_t)-1)

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

/* A chart as the pages embed it. */
typedef struct bs__rchart {
  char file[72]; /* inside charts/ */
  char *alt;     /* the finding, in words (malloc'd) */
  int width, height;
} bs__rchart;

/* A benchmark whose scaled cases get a tuning chart. */
typedef struct bs__tune_group {
  const char *benchmark;
  size_t *cases; /* indices into tune->cases with a scale, by scale */
  size_t ncases;
  const char **impls; /* every impl measured in those cases, byte order */
  size_t nimpls;
  size_t chart;
} bs__tune_group;

typedef struct bs__report {
  const bs_log *log;
  const bs_manifest *const *mf;
  size_t nmf;
  const bs_report_options *o;

  const bs_compare_result *cmp; /* NULL when no comparison was made */
  const bs_tune_result *tune;   /* NULL when there is no tuning page */
  const bs_noise_result *aa;    /* NULL when no A/A validation was made */
  /* The results the report computed itself, freed with it; the others
   * are borrowed from the options (compare_result, ...). */
  bs_compare_result *own_cmp;
  bs_tune_result *own_tune;
  bs_noise_result *own_aa;
  const char *aa_source; /* path of the manifest naming aa_a/aa_b */

  bs__tune_group *groups;
  size_t ngroups;

  bs_plot *plot;
  bs__rchart *charts; /* parallel to the plot's charts */
  size_t ncharts, capcharts;
  size_t forest;
  size_t (*case_charts)[3]; /* per compared case: deltas, bootstrap, drift */
  size_t (*aa_charts)[2];   /* per A/A case: deltas, confidences */
  bs_status st;             /* sticky: first out-of-memory */
} bs__report;

/* report_charts.c: describes every chart into r->plot and r->charts. */
bs_status bs__report_charts(bs__report *r, bs_error *err);

/* report_pages.c: renders every page into `dir`. *pages gets the count. */
bs_status bs__report_pages(bs__report *r, bs_templates *t, const char *dir,
                           size_t *pages, bs_error *err);

/* report.c: creates dir/name (which must not exist) with the bytes. */
bs_status bs__report_write_file(const char *dir, const char *name,
                                const char *data, size_t len, bs_error *err);

/* report.c: number formatting shared by charts and pages. Each writes a
 * NUL-terminated string into buf and returns buf. */
/* The unit that suits values up to `maxabs` us: "ns", "µs", "ms", "s",
 * and the factor that converts microseconds into it. */
const char *bs__time_unit(double maxabs, double *factor);
/* "13.54 µs" (4 significant digits, unit chosen for the value). */
char *bs__fmt_time(char *buf, size_t n, double us);
/* "+10.21 µs", "−0.2017 µs" (a true minus sign), "0 µs". */
char *bs__fmt_time_signed(char *buf, size_t n, double us);
/* "+10.1 to +10.32 µs": both ends in one unit. */
char *bs__fmt_time_interval(char *buf, size_t n, double lo, double hi);
/* "+75.47 %" / "−54.21 %" (two decimals, a true minus sign). */
char *bs__fmt_pct_signed(char *buf, size_t n, double pct);
/* A number with `sig` significant digits and a true minus sign. */
char *bs__fmt_num(char *buf, size_t n, double v, int sig);
/* s cut to max_chars code points, with "…" when cut (for chart texts;
 * the pages and alt texts keep the whole name). */
char *bs__clip(char *buf, size_t n, const char *s, size_t max_chars);
/* The marker and word of a verdict, "■ significant regression" when
 * `significant` (a significant regression), else "▲ slower",
 * "● equivalent" or "▼ faster"; and its CSS class ("regression",
 * "slower", ...). */
const char *bs__verdict_marker(int significant, bs_verdict verdict);
const char *bs__verdict_class(int significant, bs_verdict verdict);
/* The list "facts" under `run`: the manifest's commit, date, machine,
 * target, profile and protocol that are set (the header of every report
 * and site run page). mf may be NULL. */
void bs__report_facts(bs_tval *run, const bs_manifest *mf);

#endif
