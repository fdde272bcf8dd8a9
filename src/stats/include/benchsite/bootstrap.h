/* benchsite: percentile bootstrap of the median (SPEC §2.4). */
#ifndef BENCHSITE_BOOTSTRAP_H
#define BENCHSITE_BOOTSTRAP_H

#include "benchsite/error.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Percentile bootstrap interval of med(x) for x[0..m-1] (for paired
 * deltas, x = d). One xorshift64* generator seeded with `seed` draws, for
 * r = 1..R in order, m indices `draw() % m`; theta*_r is the type-7 median
 * of the resample; [low, high] = type-7 quantiles of the sorted theta* at
 * alpha = (100 - level_pct)/200 and 1 - alpha.
 *
 * `level_pct` must satisfy 50 < c < 100 (BS_EUSAGE otherwise, with the
 * "did you mean 95?" hint for c <= 1); m >= 1 and resamples >= 1.
 * `thetas` may be NULL; otherwise it receives the R resample medians,
 * sorted ascending. The result is bit-identical to sorting each resample. */
bs_status bs_bootstrap_median_ci(const double *x, size_t m, uint64_t resamples,
                                 double level_pct, uint64_t seed, double *low,
                                 double *high, double *thetas, bs_error *err);

/* bs_bootstrap_median_ci(), and *nonpositive (may be NULL) receives the
 * number of resamples with theta*_r <= 0, from the same theta* as the
 * interval: the one-sided bootstrap p-value toward a regression is
 * (1 + *nonpositive) / (R + 1). */
bs_status bs_bootstrap_median_ci_count(const double *x, size_t m,
                                       uint64_t resamples, double level_pct,
                                       uint64_t seed, double *low, double *high,
                                       double *thetas, uint64_t *nonpositive,
                                       bs_error *err);

/* Checks a confidence level given in percent (50 < c < 100). */
bs_status bs_bootstrap_check_level(double level_pct, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
