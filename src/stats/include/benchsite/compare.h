/* benchsite: pairing, paired median bootstrap, verdicts and the regression
 * gate (SPEC §2.3, §2.5). */
#ifndef BENCHSITE_COMPARE_H
#define BENCHSITE_COMPARE_H

#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bs_mode {
  BS_MODE_CONFIRMATORY = 0, /* the gate: delta 3 %, R 10000, c 95, fixed */
  BS_MODE_HOTSPOT = 1       /* exploratory: caller's delta, R 2000, c 95 */
} bs_mode;

typedef enum bs_verdict {
  BS_VERDICT_FASTER = 0,
  BS_VERDICT_EQUIVALENT = 1,
  BS_VERDICT_SLOWER = 2
} bs_verdict;

/* "faster", "equivalent", "slower". */
const char *bs_verdict_name(bs_verdict v);
/* "confirmatory", "hotspot". */
const char *bs_mode_name(bs_mode m);

#define BS_GATE_THRESHOLD_PCT 3.0
#define BS_GATE_RESAMPLES 10000
#define BS_GATE_LEVEL_PCT 95.0
#define BS_HOTSPOT_RESAMPLES 2000
/* Family-wise error rate of the Holm step-down over the cases of a run. */
#define BS_FAMILY_ALPHA 0.025
/* A hotspot threshold below this is probably a fraction, not a percentage. */
#define BS_MIN_THRESHOLD_PCT 0.5
/* Fewer pairs than this make the interval unreliable (a warning). */
#define BS_MIN_RELIABLE_PAIRS 6
/* Adaptive runs: `benchsite run` looks at each case after its planned
 * runs (look 0) and measures the cases it could not decide again, in up to
 * BS_LOG_MAX_LOOK rounds (looks 1-3, at two, three and four times the
 * planned runs by default). Each look spends part of the gate's one-sided
 * 2.5 %: the planned look 2 % (a 96 % interval), every extra look 0.35 %
 * (a 99.3 % interval). That is the group-sequential boundary for four
 * looks at 1, 2, 3 and 4 times the planned runs, the looks' statistics
 * correlated as sqrt(i/j) (cumulative data): the chance that identical
 * code is flagged at some look, whatever rule stopped it, stays 2.5 %, a
 * single look's (tests/data/compare/looks.py recomputes it with scipy).
 * Looks closer together are more correlated and spend less. */
#define BS_LOOK0_LEVEL_PCT 96.0
#define BS_LOOK_EXTRA_LEVEL_PCT 99.3
/* Between-run spread: per-run paired changes further apart than delta
 * mark a case layout-sensitive; fewer runs than this say nothing. */
#define BS_SPREAD_MIN_RUNS 3

typedef struct bs_compare_options {
  bs_mode mode;
  double threshold_pct; /* delta */
  double level_pct;     /* c */
  uint64_t resamples;   /* R */
  uint64_t seed;
  int keep_bootstrap; /* keep the sorted theta* of every case */
  /* The gate (exit status) counts family_significant_regression instead
   * of significant_regression; it can only make the gate stricter. */
  int family_wise;
  /* The metric compared (benchsite/metric.h); every *_us field of the
   * result holds it, in its unit (µs for times, KiB for memory). */
  bs_metric metric;
  /* Called after each case is compared (done of total); a non-zero
   * return stops bs_compare_run with BS_EIO ("cancelled"). May be NULL;
   * it prints nothing itself (the caller's display). */
  int (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} bs_compare_options;

/* Fills the parameters the mode fixes (SPEC §2.5 table); seed 0, wall
 * time. */
void bs_compare_options_init(bs_compare_options *o, bs_mode mode);

/* BS_EUSAGE when the options break the mode's rules (or name no metric
 * of the table, or one where higher is better): confirmatory mode
 * must keep delta 3, R 10000, c 95; every mode needs 50 < c < 100 (a
 * level <= 1 gets "did you mean 95?"), R >= 1 and a finite threshold > 0;
 * a hotspot threshold below 0.5 is refused as probably a fraction (with
 * "did you mean 5?" for 0.05). */
bs_status bs_compare_options_check(const bs_compare_options *o, bs_error *err);

/* The outcome for one case. Strings point into the log. */
typedef struct bs_case_compare {
  const char *benchmark;
  const char *dataset;
  size_t blocks; /* m, the number of pairs */
  size_t nruns;  /* distinct runs among the pairs */
  /* How often an adaptive run looked at the case (bs_case.looks): 0 for a
   * log without looks (a single look at the mode's level), else 1 + its
   * last look. */
  unsigned looks;
  /* The level of this case's interval: the mode's, or in confirmatory
   * mode the level of its last look (bs_compare_look_level). */
  double level_pct;
  /* The spread (max - min) of the per-run paired changes, 100 med(d_r) /
   * med(b_r) over the pairs of each run r, when the case has at least
   * BS_SPREAD_MIN_RUNS runs; NaN otherwise. */
  double between_runs_pct;
  /* between_runs_pct > delta: the runs disagree by more than the gate's
   * threshold (each fresh measuring process draws its own memory layout),
   * a qualifier beside the verdict, like inconclusive. */
  int layout_sensitive;
  /* Layout-sensitive cases: the one-sided p-value, toward a regression, of
   * Student's t test of the per-run changes (those of between_runs_pct)
   * against 0, with runs - 1 degrees of freedom: when the runs disagree,
   * the runs, each a draw of the layout, are the evidence, not the pairs
   * within them. NaN for a case that is not layout-sensitive. */
  double runs_p_value;
  /* The interval calls a layout-sensitive case a significant regression
   * (or improvement), and its runs do not: runs_p_value is above
   * (100 - level_pct) / 200 (or, for an improvement, 1 - runs_p_value
   * is). Such a case is neither a significant regression nor a
   * significant improvement, so it is inconclusive. */
  int held_by_layout;
  /* Pairs in (run, block) order, m entries each. */
  double *baseline;
  double *candidate;
  double *delta; /* d_j = c_j - b_j */
  uint64_t *runs;
  int64_t *block_ids;
  double median_baseline_us;
  double median_candidate_us;
  double median_delta_us;
  double delta_pct; /* 100 (med(d) / med(b)) */
  double speedup;   /* med(b) / (med(b) + med(d)) */
  double ci_low_us;
  double ci_high_us;
  bs_verdict verdict; /* against delta, never against the raised one */
  /* delta_pct >= effective_threshold_pct and ci_low_us > 0 */
  int significant_regression;
  /* delta_pct <= -effective_threshold_pct and ci_high_us < 0 */
  int significant_improvement;
  /* Resolution: not a significant regression, and the interval's upper
   * end as a percentage, 100 ci_high_us / median_baseline_us, at or above
   * effective_threshold_pct -- the run can neither show a regression of
   * that size nor rule one out. */
  int inconclusive;
  /* One-sided bootstrap p-value toward a regression,
   * (1 + #{theta*_r <= 0}) / (R + 1), from the theta* of the interval. */
  double p_value;
  double holm_p; /* Holm-adjusted p over the cases of the result */
  double bh_q;   /* Benjamini-Hochberg q-value over the same cases */
  /* significant_regression and holm_p <= BS_FAMILY_ALPHA */
  int family_significant_regression;
  /* delta, or max(delta, noise_floor_pct) when the case has a floor */
  double effective_threshold_pct;
  /* The minimum detectable change (SPEC §2.15): the smallest true
   * regression this run would have called significant,
   * max(effective_threshold_pct, delta_pct - L%), L% the interval's lower
   * end in percent of the baseline median, 100 (ci_low_us /
   * median_baseline_us). A case whose interval reaches 10 % below its
   * delta_pct cannot see less than 10 %. NaN when the case has no finite
   * interval. */
  double mde_pct;
  /* mde_pct > delta (the mode's threshold, options.threshold_pct): this
   * run could not have seen a regression of delta, because its interval
   * is too wide below its delta_pct or a noise floor raised its
   * threshold. A qualifier beside the verdict, like inconclusive. A
   * significant change is never blind: the run saw it, and "could not
   * have seen a change below X" would only confuse its reader. */
  int blind;
  size_t outliers; /* Tukey-fence outliers among d (never removed) */
  double *thetas;  /* sorted bootstrap medians (R) when keep_bootstrap */
  /* Set by bs_compare_apply_noise(): */
  int has_noise_floor;
  double noise_floor_pct;
  int within_noise; /* has_noise_floor and |delta_pct| <= noise_floor_pct */
  /* Plain-text warnings about this case, in this order: too few pairs
   * (when blocks < BS_MIN_RELIABLE_PAIRS), the Tukey outliers (when
   * outliers > 0), then the others (a threshold raised to the noise
   * floor). Views that summarise a kind across cases skip its entry. */
  char **warnings;
  size_t nwarnings;
} bs_case_compare;

/* A case with confirm rows of only one of the two impls. */
typedef struct bs_one_sided {
  const char *benchmark;
  const char *dataset;
  const char *present; /* the impl that has rows */
} bs_one_sided;

typedef struct bs_compare_result {
  char *baseline;
  char *candidate;
  bs_compare_options options;
  bs_case_compare *cases; /* in case order (benchsite/order.h) */
  size_t ncases;
  bs_one_sided *one_sided;
  size_t n_one_sided;
  char **warnings; /* run-level warnings (environment, one-sided cases) */
  size_t nwarnings;
  size_t regressions;        /* cases with significant_regression */
  size_t improvements;       /* cases with significant_improvement */
  size_t family_regressions; /* cases with family_significant_regression */
  size_t inconclusive;       /* cases with inconclusive */
  size_t raised;             /* cases whose threshold a noise floor raised */
  size_t adaptive;           /* cases looked at more than once (looks > 1) */
  size_t layout_sensitive;   /* cases with layout_sensitive */
  size_t held_by_layout;     /* cases with held_by_layout */
  size_t blind;              /* cases with blind */
  double blind_max_mde_pct;  /* the largest mde_pct of a blind case; NaN
                                when none is blind */
  size_t without_floor;      /* after bs_compare_apply_noise: cases it had
                                no floor for (they keep delta) */
  int noise_applied;         /* bs_compare_apply_noise() ran */
} bs_compare_result;

/* The number of cases that fail the gate: family_regressions with
 * options.family_wise, else regressions. */
size_t bs_compare_gate_failures(const bs_compare_result *r);

/* The interval level of a case an adaptive run looked at `looks` times
 * in confirmatory mode: BS_GATE_LEVEL_PCT for 0 (no looks recorded),
 * BS_LOOK0_LEVEL_PCT for 1, BS_LOOK_EXTRA_LEVEL_PCT beyond. */
double bs_compare_look_level(unsigned looks);

/* The interval's lower end as a percentage of the baseline median,
 * 100 ci_low_us / median_baseline_us (L%, the ratio first). */
double bs_compare_lower_pct(const bs_case_compare *c);

/* The interval's upper end as a percentage of the baseline median,
 * 100 ci_high_us / median_baseline_us (the ratio first, as delta_pct):
 * the largest change the run cannot rule out. */
double bs_compare_upper_pct(const bs_case_compare *c);

/* Pairs baseline and candidate in every case of `log` that has confirm rows
 * of both, bootstraps med(d) of the options' metric (at each case's look
 * level in confirmatory mode, bs_compare_look_level) and applies the
 * verdicts and the gate, the p-values and the family-wise adjustments
 * (Holm, Benjamini-Hochberg) over the compared cases.
 * Fails with BS_EMISMATCH naming the case and every unpaired row as
 * file:line, BS_EINPUT naming the case when its delta_pct or speedup is
 * not finite or naming the first confirm row without the metric
 * (bs_log_require_metric), BS_EUSAGE for bad options or when no case has
 * both impls, BS_ENOMEM. On success *out is owned by the caller
 * (bs_compare_result_free); it borrows strings from `log`, which must
 * outlive it. */
bs_status bs_compare_run(const bs_log *log, const char *baseline,
                         const char *candidate, const bs_compare_options *opt,
                         bs_compare_result **out, bs_error *err);

/* Adds run-level warnings about the environment: no manifest at all,
 * comparability keys nobody recorded (SPEC §1.2: they count as equal, so
 * they are named), and manifests[1..n-1] not comparable with the first
 * (naming the keys and both values). n may be 0. */
bs_status bs_compare_check_environment(bs_compare_result *r,
                                       const bs_manifest *const *manifests,
                                       size_t n);

/* The noise-aware gate. `lookup` is called per case and returns 1 with
 * *floor_pct set when a paired noise floor F is known for that
 * (benchmark, dataset). Such a case gets effective_threshold_pct =
 * max(delta, F) for its significance decisions (the verdict keeps delta),
 * within_noise = |delta_pct| <= F, and a warning when its threshold was
 * raised; cases without a floor keep delta and are named in one run-level
 * warning. The counts of r are recomputed. BS_ENOMEM (r stays usable). */
bs_status bs_compare_apply_noise(bs_compare_result *r,
                                 int (*lookup)(void *ctx, const char *benchmark,
                                               const char *dataset,
                                               double *floor_pct),
                                 void *ctx);

/* Holm step-down adjusted p-values and Benjamini-Hochberg q-values of
 * p[0..k-1], in place into holm[] and bh[]; order[] (k entries) is the
 * ascending order of p with ties already broken by the caller, as indices
 * into p. K = k. Allocates nothing. */
void bs_compare_adjust(const double *p, const size_t *order, size_t k,
                       double *holm, double *bh);

/* NULL is a no-op. */
void bs_compare_result_free(bs_compare_result *r);

#ifdef __cplusplus
}
#endif
#endif
