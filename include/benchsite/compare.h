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
/* Fewer pairs than this make the interval unreliable (a warning). */
#define BS_MIN_RELIABLE_PAIRS 6

typedef struct bs_compare_options {
  bs_mode mode;
  double threshold_pct; /* delta */
  double level_pct;     /* c */
  uint64_t resamples;   /* R */
  uint64_t seed;
  int keep_bootstrap; /* keep the sorted theta* of every case */
} bs_compare_options;

/* Fills the parameters the mode fixes (SPEC §2.5 table); seed 0. */
void bs_compare_options_init(bs_compare_options *o, bs_mode mode);

/* BS_EUSAGE when the options break the mode's rules: confirmatory mode
 * must keep delta 3, R 10000, c 95; every mode needs 50 < c < 100, R >= 1
 * and a finite threshold > 0. */
bs_status bs_compare_options_check(const bs_compare_options *o, bs_error *err);

/* The outcome for one case. Strings point into the log. */
typedef struct bs_case_compare {
  const char *benchmark;
  const char *dataset;
  size_t blocks; /* m, the number of pairs */
  /* Pairs in (run, block) order, m entries each. */
  double *baseline;
  double *candidate;
  double *delta; /* d_j = c_j - b_j */
  uint64_t *runs;
  int64_t *block_ids;
  double median_baseline_us;
  double median_candidate_us;
  double median_delta_us;
  double delta_pct;
  double speedup;
  double ci_low_us;
  double ci_high_us;
  bs_verdict verdict;
  int significant_regression;
  size_t outliers; /* Tukey-fence outliers among d (never removed) */
  double *thetas;  /* sorted bootstrap medians (R) when keep_bootstrap */
  /* Set by bs_compare_apply_noise(): */
  int has_noise_floor;
  double noise_floor_pct;
  int within_noise;
  char **warnings; /* plain-text warnings about this case */
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
  bs_case_compare *cases; /* sorted by benchmark, then dataset */
  size_t ncases;
  bs_one_sided *one_sided;
  size_t n_one_sided;
  char **warnings; /* run-level warnings (environment, one-sided cases) */
  size_t nwarnings;
  size_t regressions; /* cases with significant_regression */
} bs_compare_result;

/* Pairs baseline and candidate in every case of `log` that has confirm rows
 * of both, bootstraps med(d) and applies the verdicts and the gate.
 * Fails with BS_EMISMATCH naming the case and every unpaired row as
 * file:line, BS_EUSAGE for bad options or when no case has both impls,
 * BS_ENOMEM. On success *out is owned by the caller
 * (bs_compare_result_free); it borrows strings from `log`, which must
 * outlive it. */
bs_status bs_compare_run(const bs_log *log, const char *baseline,
                         const char *candidate, const bs_compare_options *opt,
                         bs_compare_result **out, bs_error *err);

/* Adds run-level warnings about the environment: manifests[0..n-1] not
 * comparable with the first (naming the keys) and comparability keys
 * missing from the first. n may be 0. */
bs_status bs_compare_check_environment(bs_compare_result *r,
                                       const bs_manifest *const *manifests,
                                       size_t n);

/* Marks cases whose |delta_pct| <= floor as within noise. `lookup` is
 * called per case and returns 1 with *floor_pct set when a floor is
 * known for that (benchmark, dataset). */
void bs_compare_apply_noise(bs_compare_result *r,
                            int (*lookup)(void *ctx, const char *benchmark,
                                          const char *dataset,
                                          double *floor_pct),
                            void *ctx);

/* NULL is a no-op. */
void bs_compare_result_free(bs_compare_result *r);

#ifdef __cplusplus
}
#endif
#endif
