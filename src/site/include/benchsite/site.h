/* benchsite: the static site of a whole run archive (`benchsite site`).
 *
 * Layout of the output directory OUT:
 *
 *   index.html              runs newest first (date, then id), with commit,
 *                           environment status and verdict counts; cases
 *                           with their latest median and drift flag
 *   run-ID.html             one page per run: environment, verdicts with
 *                           acknowledgements, a link to its full report
 *   runs/ID/                the run's `benchsite report` (bs_report_write)
 *   case-HASH.html          one history page per case: median and 95 %
 *                           bootstrap interval per run, in date order, one
 *                           series per comparability group, paired verdicts
 *   charts/case-HASH-*.svg  the history charts
 *   style.css               the assets
 *
 * The index and regressions pages show the runner's calibration
 * (calibrations/NAME.json in the archive, or one given): what the gate
 * sees on the setup of the newest run.
 *   .benchsite-site         the marker and the state of the incremental
 *                           build (hashes and cached per-run results)
 *
 * HASH is the first 16 hex digits of the SHA-256 of "benchmark\0dataset";
 * ID is the archive's run id. No file name holds user text.
 *
 * History: per run and case, the median of the confirm samples of the
 * run's candidate (the manifest's `candidate`, else the case's only impl)
 * with a single-sample percentile bootstrap interval of the median (R =
 * 2000, 95 %, the site's seed); the paired verdict is the confirmatory
 * gate of the run's baseline against its candidate. Runs whose manifests
 * differ on a comparability key (SPEC §1.2) form separate groups, drawn as
 * separate series; the keys that differ are shown. Drift: per case,
 * Spearman's test (SPEC §2.8) over the medians of the last 30 runs of the
 * newest group, flagged when p < 0.05, with its relative shift.
 * Acknowledgements come from the archive's acks.csv. All of it is the
 * history model's (benchsite/history.h); the site renders it.
 *
 * Incremental: a run's report and results are reused from the previous
 * build when the run id (its content hash) and the inputs that shape the
 * output (templates, assets, seed, benchsite and gnuplot versions) are
 * unchanged; a chart is rendered only when the hash of its data and
 * settings changed; a page is written only when its bytes changed.
 * Reused files are hard links to the previous build's, so an unchanged
 * file keeps its inode. The result is byte-identical to a clean build.
 *
 * Atomic: the new site is built in a directory beside OUT and swapped in
 * (renameat2 RENAME_EXCHANGE where the system has it, else two renames);
 * a failure or a kill leaves the previous site in place. */
#ifndef BENCHSITE_SITE_H
#define BENCHSITE_SITE_H

#include "benchsite/calibration.h"
#include "benchsite/error.h"
#include "benchsite/history.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The history's parameters (benchsite/history.h): runs the drift test
 * looks at, newest first; resamples and level of the intervals. */
#define BS_SITE_DRIFT_RUNS BS_HISTORY_DRIFT_RUNS
#define BS_SITE_RESAMPLES BS_HISTORY_RESAMPLES
#define BS_SITE_LEVEL_PCT BS_HISTORY_LEVEL_PCT
/* Runs that get full reports by default (newest first). */
#define BS_SITE_DETAIL_RUNS 30

typedef struct bs_site_options {
  const char *templates_dir; /* required: the report's and site_*.html */
  const char *assets_dir;    /* required: copied verbatim (style.css) */
  uint64_t seed;             /* bootstrap seed (default 0) */
  /* The metric every run is analysed with (benchsite/metric.h; 0: wall
   * time), in every comparability group. A run whose log lacks it on a
   * confirm row fails the build (BS_EINPUT, naming the run and the row):
   * a history that skipped runs would chain across them. */
  bs_metric metric;
  const char *gnuplot; /* NULL: "gnuplot" from PATH */
  int full;            /* 1: ignore the previous build's state */
  /* Runs that get a full report besides those with a significant
   * regression or an acknowledgement and the newest of each group
   * (bs_site_options_init sets BS_SITE_DETAIL_RUNS). */
  size_t detail_runs;
  /* Files copied into the site on every build (CNAME, .nojekyll, a
   * logo): the regular files directly in this directory, dot files
   * included. NULL: none. */
  const char *static_dir;
  /* The runner's calibration (`benchsite calibrate --json`) the index and
   * regressions pages show, named `calibration_name` there; NULL: the
   * newest of the archive's calibrations/ *.json measured on the newest
   * run's setup, if any. Shown as applying only when its environment is
   * comparable with the newest run's manifest; otherwise the pages say
   * why instead (never an error). */
  const bs_calibration_summary *calibration;
  const char *calibration_name;
  /* CPUs the build uses: threads analysing runs at once (before any
   * chart renders), then gnuplot processes rendering at once; 0: the
   * online CPUs. The output does not depend on it. */
  size_t jobs;
  /* Called with a stage ("runs", "charts", "pages") and progress in it;
   * a non-zero return cancels the build (BS_EIO, "cancelled") and leaves
   * the previous site untouched. May be NULL. */
  int (*progress)(void *ctx, const char *stage, size_t done, size_t total);
  void *progress_ctx;
} bs_site_options;

/* Zeroes `o` and sets detail_runs to BS_SITE_DETAIL_RUNS. */
void bs_site_options_init(bs_site_options *o);

typedef struct bs_site_summary {
  size_t runs;
  size_t cases;
  size_t groups; /* comparability groups */
  size_t analyses_built, analyses_reused;
  size_t reports_built, reports_reused;
  size_t reports_reanalysed; /* built from a second analysis of their run's
                               log (its analysis was reused from the cache,
                               or not kept); the rest take this build's */
  size_t compact;            /* runs with a compact page only */
  size_t charts_rendered, charts_reused;
  size_t pages_written, pages_reused;
  size_t pages_rendered;   /* from templates; a page made from the same
                              inputs as the published one is not */
  size_t open_regressions; /* in the newest run, not acknowledged */
  size_t acknowledged;     /* acknowledged cases over all runs */
  size_t drifting;         /* cases whose drift test is significant */
  size_t creeping;         /* cases creeping along their newest chain */
} bs_site_summary;

/* Builds the site of the archive `archive_dir` into `out_dir`. An existing
 * out_dir must be empty or an earlier site (it holds ".benchsite-site");
 * anything else is refused. Errors: BS_EUSAGE (bad options, an out_dir
 * that is not a site), BS_EINPUT (an archive, acks.csv or template
 * problem, with file and line), BS_EIO, BS_EPLOT, BS_ENOMEM. A run whose
 * report cannot be made (nothing to report, a non-native comparison) is
 * listed with the reason instead of failing the build. `summary` may be
 * NULL. */
bs_status bs_site_build(const char *archive_dir, const char *out_dir,
                        const bs_site_options *o, bs_site_summary *summary,
                        bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
