/* benchsite: fastest implementation per case and crossovers across scales
 * (SPEC §2.7). */
#ifndef BENCHSITE_TUNE_H
#define BENCHSITE_TUNE_H

#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/metric.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The paired bootstrap that says whether a win or a crossover is more
 * than noise (R, c; the caller's seed). */
#define BS_TUNE_RESAMPLES 2000
#define BS_TUNE_LEVEL_PCT 95.0

typedef struct bs_tune_median {
  const char *impl;
  double median_us; /* median of all its confirm samples in the case */
  size_t samples;
} bs_tune_median;

typedef struct bs_tune_case {
  const char *benchmark;
  const char *dataset;
  int has_scale;
  double scale;
  const char *best;        /* smallest median; exact ties by impl byte order */
  bs_tune_median *medians; /* sorted by impl, byte order */
  size_t nmedians;
  /* The second-smallest median (ties by impl id), NULL with one impl. The
   * best is paired with it block by block (best = candidate) and
   * [ci_low_us, ci_high_us] is the interval of med(best - runner-up). */
  const char *runner_up;
  double ci_low_us, ci_high_us;
  int decisive; /* runner_up and ci_high_us < 0; else a tie within noise */
} bs_tune_case;

typedef struct bs_crossover {
  const char *benchmark;
  const char *a; /* a < b in byte order */
  const char *b;
  double scale;                 /* s*, log-log interpolated */
  double scale_low, scale_high; /* the adjacent scales that bracket it */
  const char *dataset_low, *dataset_high; /* the cases at those scales */
  /* At both scales the paired interval of med(b - a) excludes zero. */
  int decisive;
} bs_crossover;

typedef struct bs_tune_result {
  bs_metric metric;    /* what the medians hold, in its unit */
  bs_tune_case *cases; /* in case order (benchsite/order.h) */
  size_t ncases;
  bs_crossover *crossovers; /* by benchmark (natural order), a, b, scale */
  size_t ncrossovers;
  /* Wins and crossovers that could not be tested because the two impls
   * do not share their (run, block) keys (they are not decisive). */
  char **warnings;
  size_t nwarnings;
} bs_tune_result;

/* Scores every case of `log` that has confirm rows by `metric` (the
 * smallest median wins), finds the crossovers, and decides which wins and
 * crossovers are decisive with the paired bootstrap (BS_TUNE_RESAMPLES,
 * BS_TUNE_LEVEL_PCT, `seed`). Two impls whose rows do not pair by (run,
 * block) cannot be tested: that win or crossover is not decisive and a
 * warning names the unpaired rows. BS_EUSAGE when no case has confirm rows
 * or `metric` is not a lower-is-better metric of the table; BS_EINPUT
 * naming the first confirm row without the metric; BS_ENOMEM. *out
 * borrows strings from `log`. */
bs_status bs_tune_run(const bs_log *log, bs_metric metric, uint64_t seed,
                      bs_tune_result **out, bs_error *err);

/* NULL is a no-op. */
void bs_tune_result_free(bs_tune_result *r);

#ifdef __cplusplus
}
#endif
#endif
