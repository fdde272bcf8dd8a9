/* Binomial tails and exact (Clopper-Pearson) bounds of a rate: how often
 * chance alone gives k or more of n runs, and what rate k of n runs can
 * still come from. Private to the statistics layer. */
#ifndef BENCHSITE_BINOMIAL_H
#define BENCHSITE_BINOMIAL_H

#include <stddef.h>

/* P(X >= k) for X ~ Binomial(n, p): 1 when k == 0; else 0 when k > n
 * or p <= 0, 1 when p >= 1. Summed in logs, so (1 - p)^n does not
 * underflow for large n. */
double bs__binomial_tail(size_t n, size_t k, double p);

/* The exact one-sided Clopper-Pearson upper bound of a rate observed as k
 * of n at confidence `conf` (0 < conf < 1, e.g. 0.95): the rate p at
 * which P(X <= k) = 1 - conf, i.e. the `conf` quantile of Beta(k + 1,
 * n - k). 1 when k == n (n == 0 included); NaN when k > n or conf is
 * outside (0, 1). */
double bs__clopper_pearson_upper(size_t k, size_t n, double conf);

/* The exact one-sided Clopper-Pearson lower bound: the rate p at which
 * P(X >= k) = 1 - conf, i.e. the 1 - conf quantile of Beta(k,
 * n - k + 1). 0 when k == 0; NaN when k > n or conf is outside (0, 1). */
double bs__clopper_pearson_lower(size_t k, size_t n, double conf);

#endif
