/* Binomial tails and the exact Clopper-Pearson bounds built on them
 * (Clopper & Pearson 1934). The tail is summed term by term from the
 * pmf's ratio, in logs, which needs no lgamma (and so no signgam global)
 * and is exact enough for the run counts of an A/A validation; a bound
 * is the rate at which that tail reaches 1 - conf, found by bisection,
 * since the tail grows monotonically with the rate. */
#include "binomial.h"
#include "lmath.h"

#include <math.h>

double bs__binomial_tail(size_t n, size_t k, double p) {
  if (k == 0)
    return 1.0;
  if (k > n || p <= 0.0)
    return 0.0;
  if (p >= 1.0)
    return 1.0;
  /* log pmf by the ratio pmf(i+1)/pmf(i) = (n-i)/(i+1) p/(1-p), in logs
   * so that (1-p)^n cannot underflow (and without lgamma's global). */
  double logpmf = (double)n * bs__log1p(-p), odds = bs__log(p) - bs__log1p(-p);
  double tail = 0.0;
  for (size_t i = 0; i <= n; i++) {
    if (i >= k)
      tail += bs__exp(logpmf);
    if (i < n)
      logpmf += bs__log((double)(n - i) / (double)(i + 1)) + odds;
  }
  return tail > 1.0 ? 1.0 : tail;
}

/* The rate p in (0, 1) at which P(X >= k) = target, k in [1, n]: the tail
 * rises from 0 to 1 as p does, so halve the interval until it is one
 * double wide. */
static double tail_inverse(size_t n, size_t k, double target) {
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 2100; i++) {
    double mid = lo + (hi - lo) / 2.0;
    if (mid <= lo || mid >= hi)
      break;
    if (bs__binomial_tail(n, k, mid) < target)
      lo = mid;
    else
      hi = mid;
  }
  return lo + (hi - lo) / 2.0;
}

double bs__clopper_pearson_upper(size_t k, size_t n, double conf) {
  if (k > n || !(conf > 0.0 && conf < 1.0))
    return NAN;
  if (k == n)
    return 1.0;
  /* P(X <= k) = 1 - conf  <=>  P(X >= k + 1) = conf */
  return tail_inverse(n, k + 1, conf);
}

double bs__clopper_pearson_lower(size_t k, size_t n, double conf) {
  if (k > n || !(conf > 0.0 && conf < 1.0))
    return NAN;
  if (k == 0)
    return 0.0;
  return tail_inverse(n, k, 1.0 - conf);
}
