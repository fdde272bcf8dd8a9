/* The change-point search's statistic alone, for tests that check it
 * against an independent implementation (tests/data/history/edivisive.py). */
#ifndef BENCHSITE_HISTORY_STEPS_H
#define BENCHSITE_HISTORY_STEPS_H

#include <stddef.h>

/* The largest E-divisive statistic Q̂(τ) (α = 1, see benchsite/history.h)
 * over the splits of x[0..m-1] with each side at least
 * BS_HISTORY_STEP_MIN_RUNS long, and *at its τ (the number of values
 * before the split; the first maximum). NaN (and *at 0) when m is too
 * short or memory runs out. */
double bs__history_edivisive(const double *x, size_t m, size_t *at);

#endif
