/* Order statistics shared by the quantile, bootstrap and noise code.
 * Private. */
#ifndef BENCHSITE_ORDERSTAT_H
#define BENCHSITE_ORDERSTAT_H

#include <stddef.h>

/* A value and its position in the input. */
typedef struct bs__ranked {
  double v;
  size_t i;
} bs__ranked;

/* Sets order[k] = (x[k], k) for k < n and sorts it by value, ties by
 * position, so that the order is total and the same on every platform. */
void bs__rank_sort(const double *x, size_t n, bs__ranked *order);

/* Hyndman & Fan (1996) type 7 for the fraction f in [0, 1] of n >= 1
 * sorted values s: h = f(n-1), and the quantile is
 * s[*lo] + frac * (s[*hi] - s[*lo]) with the returned frac. Every type-7
 * quantile in benchsite takes these positions and that expression, so a
 * quantile found by selection or over bins is bit-identical to
 * bs_quantile_sorted on the sorted values. */
double bs__type7(double f, size_t n, size_t *lo, size_t *hi);

#endif
