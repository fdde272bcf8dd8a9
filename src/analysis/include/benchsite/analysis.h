/* benchsite: the analysis of one run -- every analysis a log and its
 * environment manifests call for, made once, into a bs_analysis that
 * every view renders: the text tables, JSON and Markdown (from its
 * results), the HTML report (bs_report_write) and the site's run pages.
 * No view runs an analysis of its own, so what the views show is one
 * computation, stated with the parameters it was made with.
 *
 * The layers, bottom to top: input (log, manifest) -> statistics
 * (compare, tune, noise) -> analysis (this) -> views (json, markdown,
 * report) -> site -> the command line. */
#ifndef BENCHSITE_ANALYSIS_H
#define BENCHSITE_ANALYSIS_H

#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/metric.h"
#include "benchsite/noise.h"
#include "benchsite/tune.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The analyses, for bs_analysis_options.sections. */
enum {
  BS_ANALYSE_COMPARE = 1u << 0, /* the paired comparison */
  BS_ANALYSE_TUNE = 1u << 1,    /* tuning and crossovers */
  BS_ANALYSE_AA = 1u << 2       /* A/A validation */
};

typedef struct bs_analysis_options {
  /* 0: every analysis the inputs allow -- the comparison when a baseline
   * and a candidate are named, A/A validation when a manifest names aa_a
   * and aa_b, and tuning when it adds something to those (a benchmark
   * measured at several scales by two or more impls, a case with three or
   * more impls, the A/A pair counting as none; or nothing else to show).
   * Otherwise a mask of BS_ANALYSE_*: exactly those analyses, each one
   * required (its failure fails bs_analyse), no other. */
  unsigned sections;
  const char *baseline;  /* NULL: the first manifest's "baseline" key */
  const char *candidate; /* NULL: the first manifest's "candidate" key */
  uint64_t seed;         /* seeds every analysis (the one seed shown) */
  /* The metric every analysis uses (benchsite/metric.h; 0: wall time).
   * A metric some confirm row of the log lacks fails bs_analyse with
   * BS_EINPUT naming the row; with keep_going, that is the analysis's
   * problem (status and error) and no analysis is made. */
  bs_metric metric;
  /* The comparison's parameters; NULL: the confirmatory gate with
   * keep_bootstrap on (the report's case pages chart the bootstrap
   * distributions; give keep_bootstrap when a report is to be made).
   * Copied; its seed and metric are replaced by `seed` and `metric`. */
  const bs_compare_options *compare;
  /* The A/A validation's parameters; NULL: bs_noise_options_init's.
   * Copied; its seed and metric are replaced by `seed` and `metric`. */
  const bs_noise_options *noise;
  /* The A/A pair, both or neither; NULL: the first manifest naming both
   * aa_a and aa_b. A manifest is credited as the source (aa_source) only
   * when it names exactly this pair. */
  const char *aa_a, *aa_b;
  /* Paired noise floors for the comparison when no A/A validation is made
   * (`compare --noise FILE`), as bs_compare_apply_noise's lookup; NULL:
   * none. With an A/A validation its own floors are used. */
  int (*noise_lookup)(void *ctx, const char *benchmark, const char *dataset,
                      double *floor_pct);
  void *noise_ctx;
  /* 0: the first problem fails bs_analyse. 1 (the site, which shows the
   * verdicts of runs it cannot report on): a problem that makes the run
   * unfit for a report (bad input or usage: a target that is not native,
   * an A/A validation that fails, nothing to report) is kept in
   * bs_analysis.status and .error and bs_analyse goes on with what can
   * still be computed (the comparison above all); only running out of
   * memory fails it. */
  int keep_going;
  /* Called as the analyses go: stage "compare" after each compared case,
   * "aa" after each A/A case (done of total); a non-zero return cancels
   * (BS_EIO, "cancelled"). NULL: none. Replaces the compare and noise
   * options' own hooks. */
  int (*progress)(void *ctx, const char *stage, size_t done, size_t total);
  void *progress_ctx;
} bs_analysis_options;

/* Zeroes `o`: every analysis, seed 0, the confirmatory gate. */
void bs_analysis_options_init(bs_analysis_options *o);

/* One run's analysis. Results are owned by it; the log and the manifests
 * are borrowed and must outlive it (results borrow their strings). */
typedef struct bs_analysis {
  const bs_log *log;
  const bs_manifest *const *manifests; /* the array is the analysis's own */
  size_t nmanifests;
  uint64_t seed;
  bs_metric metric;           /* what every result holds */
  bs_compare_result *compare; /* NULL when no comparison was made */
  bs_tune_result *tune;       /* NULL when tuning adds nothing */
  bs_noise_result *aa;        /* NULL when no A/A validation was made */
  const char *aa_source;      /* path of the manifest naming the pair */
  /* BS_OK, or (keep_going only) the first problem and its message: the
   * views that need a whole analysis (bs_report_write) refuse it with
   * them. */
  bs_status status;
  bs_error error;
} bs_analysis;

/* Runs the analyses `o` asks for (NULL: bs_analysis_options_init's) on
 * `log` with the environment manifests[0..n-1] (n may be 0, `manifests`
 * then NULL). For the comparison, every manifest must be for the native
 * target (bs_manifest_require_native), the environment warnings
 * (bs_compare_check_environment) are added and the noise floors applied.
 *
 * On success *out is the analysis (free with bs_analysis_free). Errors:
 * BS_EUSAGE (a baseline without a candidate, a required analysis with
 * nothing to name it, nothing to analyse), BS_EINPUT and the errors of
 * bs_compare_run, bs_tune_run and bs_noise_run, BS_ENOMEM; *out is then
 * NULL. */
bs_status bs_analyse(const bs_log *log, const bs_manifest *const *manifests,
                     size_t n, const bs_analysis_options *o, bs_analysis **out,
                     bs_error *err);

/* Frees the analysis and its results (not the log or the manifests).
 * bs_analysis_free(NULL) does nothing. */
void bs_analysis_free(bs_analysis *a);

#ifdef __cplusplus
}
#endif
#endif
