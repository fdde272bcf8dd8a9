/* Shared state of the report builder. Private. report.c runs the build
 * and calls report_charts.c and report_pages.c, which read this state and
 * format through present.h; they never call back into report.c. The
 * charts are made with report_figure.c and the pages with
 * report_frame.c; report_charts.c and report_pages.c call
 * report_tune_aa_charts.c and report_tune_aa_pages.c for the tuning and
 * A/A ones. */
#ifndef BENCHSITE_REPORT_INT_H
#define BENCHSITE_REPORT_INT_H

#include "benchsite/analysis.h"
#include "benchsite/compare.h"
#include "benchsite/noise.h"
#include "benchsite/plot.h"
#include "benchsite/report.h"
#include "benchsite/template.h"
#include "benchsite/tune.h"

#include "buf.h"
#include "present.h"
#include "strlist.h"

#include <stddef.h>

#define BS__NO_CHART ((size_t)-1)

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

  /* The analysis the report renders, and its results (borrowed). */
  const bs_analysis *an;
  const bs_compare_result *cmp; /* NULL when no comparison was made */
  const bs_tune_result *tune;   /* NULL when there is no tuning page */
  const bs_noise_result *aa;    /* NULL when no A/A validation was made */

  bs__tune_group *groups;
  size_t ngroups;

  bs_plot *plot;
  bs__rchart *charts; /* parallel to the plot's charts */
  size_t ncharts, capcharts;
  size_t forest;
  size_t *case_charts;    /* per compared case, BS__CASE_CHARTS of them */
  size_t (*aa_charts)[3]; /* per A/A case: deltas, confidences, paired */
  bs_status st;           /* sticky: first out-of-memory */
  /* The interval level the index's table names in its header; cases at
   * another level are marked (bs__level_common). */
  double level;
} bs__report;

/* The charts of a compared case's page. Adding one: write its function in
 * report_charts.c (it describes the chart with bs__new_chart and the bs_plot
 * calls, sets its alt text and returns its index, or BS__NO_CHART), add
 * it with its caption to bs__case_charts[] there and raise
 * BS__CASE_CHARTS; the case page (templates/case.html, {{#charts}})
 * shows every chart of the table in its order, so the template changes
 * only to place it elsewhere; then add a test that the page shows it
 * (tests/test_report.c, pages_follow_the_inputs). Nothing else refers to
 * it. */
#define BS__CASE_CHARTS 3
typedef struct bs__case_scratch {
  const double *x; /* the case's block positions */
  double *work;    /* 4 doubles per block of scratch */
} bs__case_scratch;
typedef struct bs__case_chart {
  /* Chart of compared case i. */
  size_t (*make)(struct bs__report *r, size_t i, const bs__case_scratch *sc);
  const char *caption; /* shown under it on the case page */
} bs__case_chart;
extern const bs__case_chart bs__case_charts[BS__CASE_CHARTS];
/* The bootstrap distribution chart (its page caption adds why it is
 * comb-shaped, with the case's numbers). */
size_t bs__boot_chart(struct bs__report *r, size_t i,
                      const bs__case_scratch *sc);

/* ---- report_figure.c: what every chart is made with -------------------- */

/* A compared case's chart, and the tuning and A/A charts. */
#define BS__CASE_W 720
#define BS__CASE_H 340
/* Chart texts are cut to these many characters (the pages keep all). */
#define BS__IMPL_CHARS 20
#define BS__KEY_CHARS 32

/* The metric the report shows, and its quantity ("wall time per call"). */
static inline bs_metric bs__report_metric(const bs__report *r) {
  return r->an->metric;
}
static inline const char *bs__report_quantity(const bs__report *r) {
  return bs_metric_get(bs__report_metric(r))->quantity;
}

/* A style of colour `color`, everything else the default. */
bs_plot_style bs__chart_style(uint32_t color);
/* Registers a new chart (file inside charts/, w x h pixels) with the plot
 * batch and r->charts; returns its index, or BS__NO_CHART after setting
 * r->st (sticky: once set, no chart is added). */
size_t bs__new_chart(bs__report *r, const char *file, int w, int h);
/* Gives chart k its alt text (malloc'd; taken in every case). NULL marks
 * r->st out of memory; k BS__NO_CHART frees alt. */
void bs__set_alt(bs__report *r, size_t k, char *alt);
/* An alt text written into b (bs__buf_init(b, BS__CAP_SVG)): the sentence
 * (malloc'd), or NULL, b released, when a write failed. */
char *bs__alt_take(bs__buf *b);

/* ---- report_tune_aa_charts.c ------------------------------------------- */

/* The chart of tuning group gi, into r->groups[gi].chart. */
void bs__tune_chart(bs__report *r, size_t gi);
/* The three charts of A/A case i, into r->aa_charts[i]. */
void bs__aa_charts(bs__report *r, size_t i);

/* report_charts.c: describes every chart into r->plot and r->charts. */
bs_status bs__report_charts(bs__report *r, bs_error *err);

/* ---- report_frame.c: what every page shows ---------------------------- */

/* Everything every page shows into d's root (returned): `title`, the
 * navigation (`current` its page, or NULL), the run's identity and metric,
 * the seed and the glossary's symbols (with the glossary's list on the
 * index). */
bs_tval *bs__report_page(const bs__report *r, bs_tdata *d, const char *title,
                         const char *current);
/* Chart k as obj's member `key`, or pushed on `list`, with its caption;
 * nothing for BS__NO_CHART. */
void bs__report_set_chart(const bs__report *r, bs_tval *obj, const char *key,
                          size_t k, const char *caption);
void bs__report_push_chart(const bs__report *r, bs_tval *list, size_t k,
                           const char *caption);
/* A {label, value, num} row pushed on list. */
void bs__report_kv(bs_tval *list, const char *label, const char *value,
                   int numeric);
/* The last component of a path ("a/b.csv": "b.csv"). */
const char *bs__basename_of(const char *path);
/* Renders the page data d with template `tmpl` into dir/file, and frees d
 * in every case. */
bs_status bs__report_render(bs_templates *t, const char *tmpl, bs_tdata *d,
                            const char *dir, const char *file, bs_error *err);

/* ---- report_tune_aa_pages.c -------------------------------------------- */

/* tuning.html and aa.html. */
bs_status bs__report_tuning_page(bs__report *r, bs_templates *t,
                                 const char *dir, bs_error *err);
bs_status bs__report_aa_page(bs__report *r, bs_templates *t, const char *dir,
                             bs_error *err);

/* report_pages.c: renders every page into `dir`. *pages gets the count. */
bs_status bs__report_pages(bs__report *r, bs_templates *t, const char *dir,
                           size_t *pages, bs_error *err);

#endif
