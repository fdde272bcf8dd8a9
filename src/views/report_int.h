/* Shared state of the report builder. Private. report.c runs the build
 * and calls report_charts.c and report_pages.c, which read this state and
 * format through present.h; they never call back into report.c. */
#ifndef BENCHSITE_REPORT_INT_H
#define BENCHSITE_REPORT_INT_H

#include "benchsite/analysis.h"
#include "benchsite/compare.h"
#include "benchsite/noise.h"
#include "benchsite/plot.h"
#include "benchsite/report.h"
#include "benchsite/template.h"
#include "benchsite/tune.h"

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
} bs__report;

/* The charts of a compared case's page. Adding one: write its function in
 * report_charts.c (it describes the chart with new_chart and the bs_plot
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

/* report_charts.c: describes every chart into r->plot and r->charts. */
bs_status bs__report_charts(bs__report *r, bs_error *err);

/* report_pages.c: renders every page into `dir`. *pages gets the count. */
bs_status bs__report_pages(bs__report *r, bs_templates *t, const char *dir,
                           size_t *pages, bs_error *err);

#endif
