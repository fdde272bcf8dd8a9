/* benchsite: A/A validation — noise floor, tie-split confidence, drift and
 * autocorrelation, the paired extension and the moving block bootstrap
 * (SPEC §2.8). */
#ifndef BENCHSITE_NOISE_H
#define BENCHSITE_NOISE_H

#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/metric.h"
#include "benchsite/resample.h"
#include "benchsite/rng.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BS_NOISE_RESAMPLES 10000
#define BS_NOISE_LEVEL 0.95
/* The quantile of |delta_k| reported as the floor: a quantile converges as
 * runs are added, a maximum grows without limit (seed validate.go). */
#define BS_NOISE_FLOOR_QUANTILE 0.90
/* Significance level of the drift test. */
#define BS_NOISE_DRIFT_LEVEL 0.05
/* Fewer samples than this and a series is not tested for drift. */
#define BS_NOISE_DRIFT_MIN 4
/* Lag-1 autocorrelation above which reports recommend the block bootstrap. */
#define BS_NOISE_AUTOCORR_LIMIT 0.2
/* A/A runs required per case. */
#define BS_NOISE_MIN_RUNS 2

/* How the unpaired confidences resample each series. */
typedef enum bs_block_mode {
  BS_BLOCK_NONE = 0,  /* ordinary bootstrap: one draw per value */
  BS_BLOCK_FIXED = 1, /* moving blocks of block_length values */
  BS_BLOCK_AUTO = 2   /* moving blocks of bs_noise_auto_block_length(n) */
} bs_block_mode;

typedef struct bs_noise_options {
  uint64_t resamples; /* R >= 1, default 10000 */
  double level;       /* a fraction in (0.5, 1), default 0.95 */
  uint64_t seed;      /* default 0 */
  bs_block_mode block_mode;
  size_t block_length; /* L >= 1, used when block_mode is BS_BLOCK_FIXED */
  /* The metric validated (benchsite/metric.h); the *_us fields of the
   * result hold it, in its unit. */
  bs_metric metric;
  /* Called after each case is validated (done of total); a non-zero
   * return stops bs_noise_run with BS_EIO ("cancelled"). May be NULL. */
  int (*progress)(void *ctx, size_t done, size_t total);
  void *progress_ctx;
} bs_noise_options;

/* Defaults: R 10000, level 0.95, seed 0, ordinary bootstrap, wall time. */
void bs_noise_options_init(bs_noise_options *o);

/* BS_EUSAGE unless R >= 1, 0.5 < level < 1 (a level above 1 gets the hint
 * "the level is a fraction here; did you mean 0.95?"), the metric is one
 * of the table (and lower is better) and, for fixed blocks, L >= 1. */
bs_status bs_noise_options_check(const bs_noise_options *o, bs_error *err);

/* --- building blocks (each one checked on its own by the tests) -------- */

/* `auto` block length for n values: round(cbrt(n)) clamped to
 * [1, floor(n/2)] (1 when n < 2). */
size_t bs_noise_auto_block_length(size_t n);

/* One moving-block resample of a series of n values, as indices into it:
 * blocks of L consecutive indices, each block costing one draw with start
 * = draw() % (n - L + 1), appended in draw order and the last one cut so
 * that exactly n indices are written to idx[0..n-1]. Requires
 * 1 <= L <= n. With L = 1 this is the ordinary bootstrap draw for draw. */
void bs_noise_block_indices(bs_rng *rng, size_t n, size_t L, size_t *idx);

/* Unpaired bootstrap confidence at threshold 0 (SPEC §2.8): one generator
 * seeded with `seed`; each of R replicates resamples x (nx draws, or one
 * per block) and then y, and counts when med(x*) == med(y*) or
 * 1 - med(x*)/med(y*) >= 0. *conf = count / R.
 *
 * `lx` and `ly` choose the resampling of x and y: 0 for the ordinary
 * bootstrap (draw() % n per value), L >= 1 for moving blocks of L values
 * in the order given (L = 1 is the ordinary bootstrap draw for draw).
 * Medians are type 7 and bit-identical to sorting each resample. nx, ny,
 * R >= 1 and L <= n (BS_EUSAGE otherwise); BS_ELIMIT past 2^29 samples;
 * BS_ENOMEM. */
bs_status bs_noise_confidence(const double *x, size_t nx, size_t lx,
                              const double *y, size_t ny, size_t ly,
                              uint64_t resamples, uint64_t seed, double *conf,
                              bs_error *err);

/* bs_noise_confidence() with a chosen engine, for tests and benchmarks.
 * An engine this build, this CPU or these series (SIMD needs at most 65536
 * resampling positions) cannot use falls back to the best one below it;
 * *used (may be NULL) receives the engine that ran. */
bs_status bs_noise_confidence_engine(const double *x, size_t nx, size_t lx,
                                     const double *y, size_t ny, size_t ly,
                                     uint64_t resamples, uint64_t seed,
                                     bs_resample_engine engine,
                                     bs_resample_engine *used, double *conf,
                                     bs_error *err);

/* 1-based mid-ranks of x[0..n-1] into ranks[0..n-1]: tied values share the
 * mean of the ranks they span. BS_ENOMEM. */
bs_status bs_noise_midranks(const double *x, size_t n, double *ranks);

/* Lag-1 autocorrelation:
 * sum_{i<n-1} (x_i - mean)(x_{i+1} - mean) / sum_i (x_i - mean)^2,
 * 0 when n < 2 or the denominator is 0. */
double bs_noise_lag1(const double *x, size_t n);

/* Drift of a series against its position (SPEC §2.8). */
typedef struct bs_drift {
  double rho;            /* Spearman: Pearson(mid-ranks, 0..n-1) */
  double z;              /* rho * sqrt(n - 1) */
  double p;              /* erfc(|z| / sqrt 2), two-sided normal */
  int drifted;           /* p < 0.05 */
  double first, second;  /* medians of the first and last floor(n/2) */
  double relative_shift; /* (second - first) / first */
} bs_drift;

/* Spearman drift test of x in the order given. BS_EINPUT when
 * n < BS_NOISE_DRIFT_MIN (the series is skipped, not an error for the
 * caller to report), BS_ENOMEM. */
bs_status bs_noise_drift(const double *x, size_t n, bs_drift *out);

/* --- the A/A validation ------------------------------------------------ */

/* One A/A run of one case. a and b are the confirm samples of A and B in
 * block order; pairs are (A, B) with equal block ids. */
typedef struct bs_noise_experiment {
  uint64_t run;       /* the log's run value */
  size_t na, nb;      /* samples of A and of B */
  double *a, *b;      /* in block order */
  int64_t *blocks;    /* block ids of the pairs (na == nb entries) */
  double median_a_us; /* med(a) */
  double median_b_us; /* med(b) */
  double delta;       /* 1 - med(a)/med(b), a fraction */
  uint64_t seed_ab;   /* seed + 2k */
  uint64_t seed_ba;   /* seed + 2k + 1 */
  size_t block_length_a, block_length_b; /* 0: ordinary bootstrap */
  double conf_ab;                        /* conf(a, b, seed + 2k) */
  double conf_ba;                        /* conf(b, a, seed + 2k + 1) */
  double confidence;            /* tie-split: (conf_ab + 1 - conf_ba) / 2 */
  double tie;                   /* max(0, conf_ab + conf_ba - 1) */
  int has_drift_a, has_drift_b; /* 0 when the series is shorter than 4 */
  bs_drift drift_a, drift_b;
  int drifted; /* a or b drifted */
  double lag1_a, lag1_b;
  /* Paired extension: d_j = a_j - b_j (B baseline, A candidate), the
   * confirmatory gate (delta 3 %, R 10000, c 95, the caller's seed — the
   * seed a `compare` of this run would use). */
  double median_delta_us;
  double paired_delta_pct; /* 100 med(d) / med(b) */
  double ci_low_us, ci_high_us;
  int significant_regression; /* paired_delta_pct >= 3 and ci_low_us > 0 */
} bs_noise_experiment;

/* The summary of one case (SPEC §2.8 table and paired extension). */
typedef struct bs_noise_case {
  const char *benchmark;
  const char *dataset;
  size_t runs;
  bs_noise_experiment *experiments; /* `runs` entries, ascending run */
  double noise_floor;               /* Q(0.90) of |delta_k| */
  double max_observed_noise;        /* max |delta_k| */
  double typical_noise;             /* med |delta_k| */
  double mean_confidence, median_confidence;
  double tie_rate;          /* med of tie_k */
  double false_signal_rate; /* conf_k > level or conf_k < 1 - level */
  double drift_rate;        /* share of runs where a or b drifted */
  double
      median_drift_shift; /* med |relative_shift|, tested series; 0 if none */
  double autocorrelation; /* med lag-1 over both series of every run */
  double *deltas;         /* delta_k in run order */
  double *confidences;    /* conf_k in run order */
  double *paired_deltas_pct;     /* paired Δ%_k in run order */
  double paired_noise_floor_pct; /* Q(0.90) of |paired Δ%_k| */
  double false_regression_rate;  /* share of runs the gate flagged */
  int gate_resolves;             /* 3 > paired_noise_floor_pct */
  /* Planning: with m the median number of pairs per run,
   * ceil(m (paired_noise_floor_pct / 3)^2), the blocks per run at which
   * the floor would drop to the gate's delta if the noise of delta% falls
   * as 1/sqrt(m). */
  double median_pairs; /* m */
  uint64_t blocks_for_gate;
  /* Drift against chance. drift_tested: 1 when some series of some run
   * was long enough to test (BS_NOISE_DRIFT_MIN); drift_runs: the runs in
   * which A or B drifted (drift_rate = drift_runs / runs);
   * drift_chance_rate: the share of runs in which at least one tested
   * series drifts by chance alone, 1 - (1 - BS_NOISE_DRIFT_LEVEL)^s, s
   * the mean number of tested series per run (0 when none was tested);
   * drift_p: P(X >= drift_runs), X ~ Binomial(runs, drift_chance_rate),
   * how often chance alone gives that many (1 when drift_runs is 0). */
  int drift_tested;
  size_t drift_runs;
  double drift_chance_rate;
  double drift_p;
  /* False signals against chance. false_signal_runs: the runs whose
   * confidence left [1 - level, level] (false_signal_rate =
   * false_signal_runs / runs); false_signal_expected: 2 (1 - level), the
   * rate a calibrated confidence gives; false_signal_p: P(X >=
   * false_signal_runs), X ~ Binomial(runs, false_signal_expected). */
  size_t false_signal_runs;
  double false_signal_expected;
  double false_signal_p;
} bs_noise_case;

typedef struct bs_noise_result {
  char *a, *b;
  bs_noise_options options;
  bs_noise_case *cases; /* in case order (benchsite/order.h) */
  size_t ncases;
  /* Share of the run ids (present in at least one case) in which the gate
   * flagged at least one case: how often an unchanged change fails. */
  size_t suite_runs, suite_flagged_runs;
  double suite_false_alarm_rate;
} bs_noise_result;

/* Validates every case of `log` that has confirm rows of A or B. Each
 * distinct `run` of those rows is one experiment; k counts them from 0 in
 * ascending run order.
 *
 * Errors: BS_EUSAGE for bad options, A == B, or no case with rows of A or
 * B; BS_EINPUT naming the case (and run) when a case has fewer than 2
 * runs, a run lacks A or B, or a fixed block length exceeds a series, and
 * naming the first confirm row without the options' metric;
 * BS_EMISMATCH naming the case, run and file:line of each row of A or B
 * without a partner in the same block; BS_ENOMEM. On success *out is owned
 * by the caller (bs_noise_result_free) and borrows strings from `log`. */
bs_status bs_noise_run(const bs_log *log, const char *a, const char *b,
                       const bs_noise_options *opt, bs_noise_result **out,
                       bs_error *err);

/* NULL is a no-op. */
void bs_noise_result_free(bs_noise_result *r);

/* --- reading a noise JSON back (for `compare --noise`) ----------------- */

typedef struct bs_noise_floors bs_noise_floors;

/* Parses `benchsite.noise/1` JSON (strict RFC 8259) and keeps each case's
 * paired_noise_floor_pct, the "metric" (absent: wall, as every file written
 * before metrics existed) and the "environment" object (absent or {}:
 * none). It reads case by case and keeps only those, so its memory is a
 * small fraction of the text's (the experiments, nearly all of a file,
 * are checked and dropped). `name` is used in messages. BS_EINPUT with
 * name:line for malformed JSON, a wrong schema, an unknown metric, an
 * environment that is not an object of strings, or a case without a
 * benchmark, dataset, non-negative floor or at least 2 paired_deltas_pct
 * above -100 %, or whose floor is not the 90th percentile of its
 * |paired_deltas_pct| (a floor no A/A run of the file gives, such as
 * 1e300 %); BS_ELIMIT, BS_ENOMEM. On success *out is freed with
 * bs_noise_floors_free. */
bs_status bs_noise_floors_parse(const char *name, const char *text, size_t len,
                                bs_noise_floors **out, bs_error *err);
/* NULL is a no-op. */
void bs_noise_floors_free(bs_noise_floors *f);
size_t bs_noise_floors_count(const bs_noise_floors *f);
/* The manifest of the A/A run the file records (empty when it has none);
 * owned by f. */
const bs_manifest *bs_noise_floors_environment(const bs_noise_floors *f);
/* The metric the floors were measured on. */
bs_metric bs_noise_floors_metric(const bs_noise_floors *f);
/* BS_EINPUT naming `name` and both metrics when the floors are not of
 * `metric`: a floor of wall time says nothing about CPU time. */
bs_status bs_noise_floors_check_metric(const bs_noise_floors *f,
                                       const char *name, bs_metric metric,
                                       bs_error *err);
/* BS_OK only when `run` and the floors' environment are both non-empty and
 * comparable (bs_manifest_comparable): a noise floor measured elsewhere,
 * or on an unknown setup, says nothing about this run (SPEC §2.9).
 * Otherwise BS_EINPUT naming `name` and the problem: the file records no
 * environment, the run has none (`run` NULL or empty), or every differing
 * comparability key with both values. */
bs_status bs_noise_floors_check_environment(const bs_noise_floors *f,
                                            const char *name,
                                            const bs_manifest *run,
                                            bs_error *err);
/* A lookup for bs_compare_apply_noise(): ctx is a bs_noise_floors *.
 * Returns 1 and sets *floor_pct when the case is known, else 0. */
int bs_noise_floors_lookup(void *ctx, const char *benchmark,
                           const char *dataset, double *floor_pct);
/* The same from a validation just run: ctx is a const bs_noise_result *.
 * Returns 1 and sets *floor_pct when the case has a finite paired noise
 * floor, else 0. */
int bs_noise_result_lookup(void *ctx, const char *benchmark,
                           const char *dataset, double *floor_pct);

#ifdef __cplusplus
}
#endif
#endif
