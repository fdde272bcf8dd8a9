/* benchsite: sample quantiles (Hyndman & Fan type 7, SPEC §2.1). */
#ifndef BENCHSITE_QUANTILE_H
#define BENCHSITE_QUANTILE_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Type-7 quantile of sorted values s[0..n-1] at f in [0,1] (clamped).
 * Returns NaN when n == 0. */
double bs_quantile_sorted(const double *s, size_t n, double f);

/* Sorts ascending (total order for finite values). */
void bs_sort_doubles(double *x, size_t n);

/* Type-7 median of x[0..n-1] (unsorted, not modified). Returns NaN when
 * n == 0 or memory runs out. */
double bs_median(const double *x, size_t n);

/* Type-7 quantile of unsorted x; NaN when n == 0 or out of memory. */
double bs_quantile(const double *x, size_t n, double f);

/* Tukey's fences of unsorted x[0..n-1]: *lo = Q1 - 1.5 IQR and
 * *hi = Q3 + 1.5 IQR (type-7 quartiles; the one place they are
 * computed). Returns BS_OK, or BS_ENOMEM with the fences -inf and +inf
 * (nothing outside them), as they are for n == 0. */
bs_status bs_tukey_fences(const double *x, size_t n, double *lo, double *hi);

/* Tukey fences: counts values outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR]
 * (type-7 quartiles). Nothing is removed. */
size_t bs_tukey_outliers(const double *x, size_t n);

#ifdef __cplusplus
}
#endif
#endif
