/* benchsite: the static HTML report of one run (SPEC §4.4, §4.5, §5).
 *
 * By default one call runs every analysis the inputs allow -- the
 * confirmatory comparison (when a baseline and a candidate are named),
 * tuning (when the log has several implementations or scales) and A/A
 * validation (when a manifest names aa_a and aa_b) -- renders the pages
 * from templates, the charts with one gnuplot process, and replaces the
 * output directory atomically. `benchsite report` works that way;
 * `compare`, `noise` and `tune --html` restrict the report to their own
 * analysis, pass their own parameters (bs_report_options.sections and
 * the fields after it) and hand over the result they computed
 * (compare_result, tune_result, noise_result), so the analysis runs once. */
#ifndef BENCHSITE_REPORT_H
#define BENCHSITE_REPORT_H

#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
#include "benchsite/tune.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The analyses of a report, for bs_report_options.sections. */
enum {
  BS_REPORT_COMPARE = 1u << 0, /* the comparison: index table, case pages */
  BS_REPORT_TUNE = 1u << 1,    /* tuning.html */
  BS_REPORT_AA = 1u << 2       /* aa.html */
};

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

  /* ---- Restricting the report to one command's analysis ---------------
   * Zero (as bs_report_options_init leaves them) means what `benchsite
   * report` does. The parameters are the ones the pages and charts then
   * state (mode, delta, level, resamples, block bootstrap), so a report
   * written for `compare --mode hotspot` describes that hotspot run. */

  /* 0: every analysis the inputs allow (see above; tuning only when it
   * adds something). Otherwise a mask of BS_REPORT_*: exactly those
   * analyses, each one required -- its failure fails the report (e.g.
   * BS_EUSAGE when COMPARE is asked for and no baseline is named) -- and
   * no other is run. */
  unsigned sections;
  /* The comparison's parameters (mode, threshold_pct, level_pct,
   * resamples); NULL: the confirmatory gate. Copied; keep_bootstrap is
   * forced on (the case pages chart the bootstrap distribution). */
  const bs_compare_options *compare;
  /* The A/A validation's parameters (resamples, level, block_mode,
   * block_length); NULL: bs_noise_options_init's defaults. Copied. */
  const bs_noise_options *noise;
  /* In both structures the seed field is ignored: `seed` above seeds every
   * analysis, so the one seed the pages show is true for all of them. */
  /* The A/A pair; both or neither. NULL: the first manifest that names
   * both aa_a and aa_b. The A/A page credits a manifest as the source only
   * when it names exactly this pair. */
  const char *aa_a, *aa_b;
  /* Paired noise floors for the comparison when the report runs no A/A
   * validation of its own (`compare --noise FILE`), with the contract of
   * bs_compare_apply_noise's lookup; NULL: none. Ignored when the report
   * runs A/A: its own floors are used. */
  int (*noise_lookup)(void *ctx, const char *benchmark, const char *dataset,
                      double *floor_pct);
  void *noise_ctx;
  /* A link placed first in every page's navigation, e.g. back to the
   * site index ("../../index.html"), labelled `home_label` ("All runs"
   * when NULL); NULL: none. Not user text: callers pass fixed paths. */
  const char *home_href;
  const char *home_label;

  /* ---- Results the caller has already computed ------------------------
   * NULL (as bs_report_options_init leaves them): the report runs that
   * analysis itself. Otherwise the report uses the result instead of
   * running the analysis again. It borrows it: it never modifies or frees
   * it, and the result (with the log it borrows strings from) must stay
   * valid during the call.
   *
   * A result must be exactly what the report would have computed, because
   * the pages state the report's parameters and seed:
   *   compare_result: bs_compare_run on `log` with the report's baseline
   *     and candidate and with `compare` (NULL: the confirmatory gate),
   *     its seed replaced by `seed` and keep_bootstrap on (the case pages
   *     chart `thetas`); then bs_compare_check_environment with these
   *     manifests; then bs_compare_apply_noise with the floors the report
   *     applies: `noise_lookup`, or bs_noise_result_lookup on the report's A/A
   *     validation when it runs one (none at all otherwise).
   *   tune_result: bs_tune_run on `log`.
   *   noise_result: bs_noise_run on `log` with the report's A/A pair and
   *     `noise` (NULL: the defaults), its seed replaced by `seed`.
   * The report checks all of this except that the result comes from
   * `log`, which is the caller's promise: the names, every option, the
   * kept bootstrap distributions, the environment warnings (the last ones
   * of the result) and the noise floors (calling the lookup once per
   * case). A mismatch, or a result for an analysis the report does not
   * run, fails with BS_EUSAGE before anything is written. A report made
   * from results is byte-identical to one that computes them. */
  const bs_compare_result *compare_result;
  const bs_tune_result *tune_result;
  const bs_noise_result *noise_result;
} bs_report_options;

/* Zeroes `o` (seed 0, sections 0, every pointer NULL). */
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
 * (the first is the run's, the others are shown beside it and checked for
 * comparability) into `out_dir`. n may be 0 (`tune --html` without a
 * manifest; `manifests` may then be NULL): the environment table then
 * flags every comparability key as missing.
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
