/* benchsite: the static HTML report of one run (SPEC §4.4, §4.5, §5): a
 * view of a bs_analysis (analysis.h). It renders the pages of the analyses
 * made -- the comparison (index table, a page per case), tuning
 * (tuning.html), A/A validation (aa.html) -- from templates, the charts
 * with one gnuplot process, and replaces the output directory atomically
 * (output.h). It never analyses: `benchsite report` makes every analysis
 * the inputs allow, `compare`, `noise` and `tune --html` only their own,
 * and the pages state the parameters the analysis was made with.
 *
 * Adding a chart to the case page touches the chart (its function and
 * its row in bs__case_charts, src/views/report_charts.c), the page template
 * only to place it elsewhere than after the others (templates/case.html)
 * and a test (tests/test_report.c); src/views/report_int.h says how. */
#ifndef BENCHSITE_REPORT_H
#define BENCHSITE_REPORT_H

#include "benchsite/analysis.h"
#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
#include "benchsite/plot.h"
#include "benchsite/tune.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_report_options {
  const char *templates_dir; /* required: index.html, case.html, ... */
  const char *assets_dir;    /* required: files copied verbatim (style.css) */
  const char *gnuplot;       /* NULL: "gnuplot" from PATH */
  size_t charts_per_process; /* 0: one gnuplot for all (see bs_plot_run) */
  /* Called with a stage name ("charts", "pages") and progress within it;
   * a non-zero return cancels the report (BS_EIO, "cancelled") and leaves
   * the previous output untouched. May be NULL. */
  int (*progress)(void *ctx, const char *stage, size_t done, size_t total);
  void *progress_ctx;
  /* A link placed first in every page's navigation, e.g. back to the
   * site index ("../../index.html"), labelled `home_label` ("All runs"
   * when NULL); NULL: none. Not user text: callers pass fixed paths. */
  const char *home_href;
  const char *home_label;
  /* Where a case's history is (a site's page of the case): NULL, or
   * called for each compared case's page with its names, writing a
   * relative href from the report's directory into buf (size n; fixed
   * text, never user text: the site's "../../case-ID.html") and
   * returning 1, or returning 0 for no link. */
  int (*case_history)(void *ctx, const char *benchmark, const char *dataset,
                      char *buf, size_t n);
  void *case_history_ctx;
  /* NULL: the charts are rendered before bs_report_write returns. Else
   * they are queued in this pool (progress then covers the pages only):
   * out_dir is swapped into place with its pages but without its charts
   * and its marker, which the pool's bs_plot_pool_wait writes once every
   * chart of the pool is rendered. Only for an out_dir nobody reads until
   * then (a site's build directory, published as a whole afterwards): if
   * the pool fails or is freed first, out_dir stays without them and is
   * no report a later build may replace or reuse. */
  bs_plot_pool *pool;
} bs_report_options;

/* Zeroes `o` (every pointer NULL). */
void bs_report_options_init(bs_report_options *o);

/* What a report contains. */
typedef struct bs_report_summary {
  size_t cases;       /* compared cases (one page each) */
  size_t regressions; /* significant regressions among them */
  size_t charts;      /* SVG files rendered */
  size_t pages;       /* HTML files written */
  int has_compare, has_tuning, has_aa;
} bs_report_summary;

/* Builds the report of the analysis `a` (borrowed; its log and manifests
 * must stay valid) into `out_dir`: the environment table shows its
 * manifests (the first is the run's; none flags every comparability key
 * as missing), the pages its seed. A compared case's page charts its
 * bootstrap distribution, so a comparison must have been made with
 * keep_bootstrap (bs_analyse's default).
 *
 * Everything is written into a fresh directory beside out_dir (same
 * parent, unique name) that is swapped into place at the end. On any
 * failure the temporary directory is removed and out_dir is left as it
 * was. An existing out_dir must be empty or an earlier report (it holds
 * the marker file ".benchsite-report"); anything else is refused.
 *
 * File names come from indices, never from user text; every user string
 * is HTML-escaped by the templates and octal-escaped for gnuplot. Same
 * analysis gives a byte-identical directory.
 *
 * Errors: BS_EUSAGE (bad options, an out_dir that is not a report, a
 * comparison without its bootstrap distributions), the problem a partial
 * analysis kept (bs_analysis.status, after the templates are checked),
 * BS_EIO, BS_EPLOT, BS_ENOMEM; templates report BS_EINPUT with file and
 * line. `summary` may be NULL. */
bs_status bs_report_write(const bs_analysis *a, const char *out_dir,
                          const bs_report_options *o,
                          bs_report_summary *summary, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
