/* benchsite: the static HTML report of one run (SPEC §4.4, §4.5, §5).
 *
 * One call runs every analysis the inputs allow -- the confirmatory
 * comparison (when a baseline and a candidate are named), tuning (when the
 * log has several implementations or scales) and A/A validation (when a
 * manifest names aa_a and aa_b) -- renders the pages from templates, the
 * charts with one gnuplot process, and replaces the output directory
 * atomically. */
#ifndef BENCHSITE_REPORT_H
#define BENCHSITE_REPORT_H

#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_report_options {
  const char *templates_dir; /* required: index.html, case.html, ... */
  const char *assets_dir;    /* required: files copied verbatim (style.css) */
  const char *baseline;      /* NULL: the manifests' "baseline" key */
  const char *candidate;     /* NULL: the manifests' "candidate" key */
  uint64_t seed;             /* bootstrap seed (default 0) */
  const char *gnuplot;       /* NULL: "gnuplot" from PATH */
  size_t charts_per_process; /* 0: one gnuplot for all (see bs_plot_run) */
  /* Called with a stage name ("analysing", "charts", "pages") and
   * progress within it; a non-zero return cancels the report (BS_EIO,
   * "cancelled") and leaves the previous output untouched. May be NULL. */
  int (*progress)(void *ctx, const char *stage, size_t done, size_t total);
  void *progress_ctx;
} bs_report_options;

/* Zeroes `o` (seed 0, every pointer NULL). */
void bs_report_options_init(bs_report_options *o);

/* What a report contains. */
typedef struct bs_report_summary {
  size_t cases;       /* compared cases (one page each) */
  size_t regressions; /* significant regressions among them */
  size_t charts;      /* SVG files rendered */
  size_t pages;       /* HTML files written */
  int has_compare, has_tuning, has_aa;
} bs_report_summary;

/* Builds the report of `log` with the environment manifests[0..n-1]
 * (n >= 1; the first is the run's, the others are shown beside it and
 * checked for comparability) into `out_dir`.
 *
 * Everything is written into a fresh directory beside out_dir (same
 * parent, unique name) that is renamed into place at the end; an existing
 * out_dir is renamed away first and removed last. On any failure the
 * temporary directory is removed and out_dir is left as it was. An
 * existing out_dir must be empty or an earlier report (it holds the
 * marker file ".benchsite-report"); anything else is refused.
 *
 * File names come from indices, never from user text; every user string
 * is HTML-escaped by the templates and octal-escaped for gnuplot. Same
 * inputs give a byte-identical directory.
 *
 * Errors: BS_EUSAGE (nothing to report, bad options, an out_dir that is
 * not a report), BS_EINPUT (a manifest's target is not native when a
 * comparison is made, A/A input problems), BS_EMISMATCH, BS_EIO,
 * BS_EPLOT, BS_ENOMEM; templates report BS_EINPUT with file and line.
 * `summary` may be NULL. */
bs_status bs_report_write(const bs_log *log,
                          const bs_manifest *const *manifests, size_t n,
                          const char *out_dir, const bs_report_options *o,
                          bs_report_summary *summary, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
