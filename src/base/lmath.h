/* The mathematics of the library, without libm mapped at start-up.
 * Private.
 *
 * A program linked with libm has the dynamic loader map it, relocate it
 * and run its resolvers before main, in every process: ten page faults
 * and about a tenth of /bin/true's CPU time on the microVMs this project
 * is measured on (bench/README.md), though `--help`, `compare` and `check`
 * call none of its functions. So the library does not link it:
 *  - the exact operations (floor, ceil, round, trunc, fmin, fmax, sqrt)
 *    are written here and give libm's results bit for bit, zeros'
 *    signs, NaN and infinities included (tests/test_lmath.c holds them to
 *    libm's);
 *  - the transcendental functions are libm's own, opened by its soname
 *    the first time one is called (lmath.c), so every number is the one
 *    it was when libm was linked. A C library without that soname (one
 *    whose math is in libc) has them called directly.
 * Every function may be called from any thread. */
#ifndef BENCHSITE_LMATH_H
#define BENCHSITE_LMATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* copysign without a call at any optimisation level (libc exports it, but
 * a program should not count on that). */
#if defined(__GNUC__)
#define BS__COPYSIGN __builtin_copysign
#else
#define BS__COPYSIGN copysign
#endif

/* libm's exp, expm1, log, log1p, pow, cbrt and erfc. When libm cannot be
 * opened (the C library is incomplete), the process ends as the dynamic
 * loader ends it when a linked library is missing: a message on standard
 * error and status 127. */
double bs__exp(double x);
double bs__expm1(double x);
double bs__log(double x);
double bs__log1p(double x);
double bs__pow(double x, double y);
double bs__cbrt(double x);
double bs__erfc(double x);

/* x rounded toward zero: x itself when it is already an integer (|x| >=
 * 2^52), NaN or infinite; the sign of a zero result is x's. */
static inline double bs__trunc(double x) {
  if (!(fabs(x) < 4503599627370496.0))
    return x;
  return BS__COPYSIGN((double)(long long)x, x);
}

static inline double bs__floor(double x) {
  double t = bs__trunc(x);
  return t > x ? t - 1.0 : t;
}

static inline double bs__ceil(double x) {
  double t = bs__trunc(x);
  return t < x ? t + 1.0 : t;
}

/* Halfway cases away from zero. x - trunc(x) is exact below 2^52. */
static inline double bs__round(double x) {
  double t = bs__trunc(x);
  return fabs(x - t) >= 0.5 ? t + BS__COPYSIGN(1.0, x) : t;
}

/* round(x) as a long long, for |x| < 2^63. */
static inline long long bs__llround(double x) {
  return (long long)bs__round(x);
}

/* Whether x is a NaN and a signaling one (its quiet bit, the mantissa's
 * top bit, clear). */
static inline int bs__signaling(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return isnan(x) && !(b & (UINT64_C(1) << 51));
}

/* A NaN argument to fmax or fmin, as glibc's on x86-64 treats it: the
 * other argument when only one is a quiet NaN, else x + y (a quiet NaN). */
static inline double bs__fminmax_nan(double x, double y) {
  if (!isnan(x) && !bs__signaling(y))
    return x;
  if (!isnan(y) && !bs__signaling(x))
    return y;
  return x + y;
}

/* As glibc's on x86-64 (maxsd, minsd): the larger (smaller), and y when
 * they compare equal, so fmax(+0.0, -0.0) is -0.0 and fmax(-0.0, +0.0) is
 * +0.0. */
static inline double bs__fmax(double x, double y) {
  if (isnan(x) || isnan(y))
    return bs__fminmax_nan(x, y);
  return x > y ? x : y;
}

static inline double bs__fmin(double x, double y) {
  if (isnan(x) || isnan(y))
    return bs__fminmax_nan(x, y);
  return x < y ? x : y;
}

/* The square root, correctly rounded (IEEE 754): one instruction, which
 * lmath.c has the compiler emit without libm's call for errno. */
double bs__sqrt(double x);

#endif
