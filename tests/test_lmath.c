/* The library's mathematics without libm at start-up (src/base/lmath.c)
 * against libm's own functions, which this test links: the exact
 * operations give the same bits (the sign of a zero, NaN and infinities
 * included) on edge cases and on a million doubles of every magnitude;
 * the transcendental ones are libm's, each bound to its own name. libm's
 * functions are called through volatile pointers, so the compiler cannot
 * put its own expansion in their place. */
#include <criterion/criterion.h>

#include "lmath.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* The same double: bit for bit, or both NaN. */
static int same(double a, double b) {
  return (isnan(a) && isnan(b)) || !memcmp(&a, &b, sizeof a);
}

static double (*volatile libm_floor)(double) = floor;
static double (*volatile libm_ceil)(double) = ceil;
static double (*volatile libm_round)(double) = round;
static double (*volatile libm_trunc)(double) = trunc;
static long long (*volatile libm_llround)(double) = llround;
static double (*volatile libm_fmin)(double, double) = fmin;
static double (*volatile libm_fmax)(double, double) = fmax;
static double (*volatile libm_sqrt)(double) = sqrt;

static const double edges[] = {0.0,
                               -0.0,
                               0.5,
                               -0.5,
                               0.49999999999999994,
                               -0.49999999999999994,
                               1.0,
                               -1.0,
                               1.5,
                               -1.5,
                               2.5,
                               -2.5,
                               0.9999999999999999,
                               -0.9999999999999999,
                               4503599627370495.5,
                               -4503599627370495.5,
                               4503599627370496.0,
                               -4503599627370496.0,
                               4503599627370497.0,
                               9007199254740993.0,
                               1e300,
                               -1e300,
                               DBL_MAX,
                               -DBL_MAX,
                               DBL_MIN,
                               -DBL_MIN,
                               4.9406564584124654e-324,
                               -4.9406564584124654e-324,
                               1e-300,
                               -1e-300,
                               123.456,
                               -123.456,
                               INFINITY,
                               -INFINITY,
                               NAN};
#define NEDGES (sizeof edges / sizeof edges[0])

/* Doubles of every exponent and sign (xorshift64 bits), NaN and infinity
 * among them. */
static double random_double(uint64_t *s) {
  *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
  double d;
  uint64_t bits = *s;
  /* Half of them near the integers, where rounding decides. */
  if (bits & 1) {
    d = (double)(int64_t)(bits >> 20) / 1024.0;
    return bits & 2 ? -d : d;
  }
  memcpy(&d, &bits, sizeof d);
  return d;
}

static void check_one(double x) {
  cr_assert(same(bs__floor(x), libm_floor(x)), "floor(%a): %a, libm %a", x,
            bs__floor(x), libm_floor(x));
  cr_assert(same(bs__ceil(x), libm_ceil(x)), "ceil(%a): %a, libm %a", x,
            bs__ceil(x), libm_ceil(x));
  cr_assert(same(bs__round(x), libm_round(x)), "round(%a): %a, libm %a", x,
            bs__round(x), libm_round(x));
  cr_assert(same(bs__trunc(x), libm_trunc(x)), "trunc(%a): %a, libm %a", x,
            bs__trunc(x), libm_trunc(x));
  if (fabs(x) < 0x1p62)
    cr_assert_eq(bs__llround(x), libm_llround(x), "llround(%a)", x);
  cr_assert(same(bs__sqrt(x), libm_sqrt(x)), "sqrt(%a): %a, libm %a", x,
            bs__sqrt(x), libm_sqrt(x));
}

Test(lmath, exact_operations_give_libms_bits) {
  for (size_t i = 0; i < NEDGES; i++)
    check_one(edges[i]);
  uint64_t s = 0x9E3779B97F4A7C15u;
  for (int i = 0; i < 1000000; i++)
    check_one(random_double(&s));
}

Test(lmath, fmin_and_fmax_give_libms_bits_zeros_and_nan_included) {
  for (size_t i = 0; i < NEDGES; i++)
    for (size_t j = 0; j < NEDGES; j++) {
      double x = edges[i], y = edges[j];
      cr_assert(same(bs__fmax(x, y), libm_fmax(x, y)), "fmax(%a, %a): %a, %a",
                x, y, bs__fmax(x, y), libm_fmax(x, y));
      cr_assert(same(bs__fmin(x, y), libm_fmin(x, y)), "fmin(%a, %a): %a, %a",
                x, y, bs__fmin(x, y), libm_fmin(x, y));
    }
  uint64_t s = 12345;
  for (int i = 0; i < 200000; i++) {
    double x = random_double(&s), y = random_double(&s);
    cr_assert(same(bs__fmax(x, y), libm_fmax(x, y)), "fmax(%a, %a)", x, y);
    cr_assert(same(bs__fmin(x, y), libm_fmin(x, y)), "fmin(%a, %a)", x, y);
  }
}

static double (*volatile libm_exp)(double) = exp;
static double (*volatile libm_expm1)(double) = expm1;
static double (*volatile libm_log)(double) = log;
static double (*volatile libm_log1p)(double) = log1p;
static double (*volatile libm_pow)(double, double) = pow;
static double (*volatile libm_cbrt)(double) = cbrt;
static double (*volatile libm_erfc)(double) = erfc;

Test(lmath, transcendental_functions_are_libms_each_under_its_name) {
  uint64_t s = 777;
  for (int i = 0; i < 100000; i++) {
    double x = random_double(&s), y = random_double(&s);
    cr_assert(same(bs__exp(x), libm_exp(x)), "exp(%a)", x);
    cr_assert(same(bs__expm1(x), libm_expm1(x)), "expm1(%a)", x);
    cr_assert(same(bs__log(x), libm_log(x)), "log(%a)", x);
    cr_assert(same(bs__log1p(x), libm_log1p(x)), "log1p(%a)", x);
    cr_assert(same(bs__pow(x, y), libm_pow(x, y)), "pow(%a, %a)", x, y);
    cr_assert(same(bs__cbrt(x), libm_cbrt(x)), "cbrt(%a)", x);
    cr_assert(same(bs__erfc(x), libm_erfc(x)), "erfc(%a)", x);
  }
  /* And values by hand, so a binding to the wrong function shows. */
  cr_expect_eq(bs__exp(0.0), 1.0);
  cr_expect_eq(bs__log(1.0), 0.0);
  cr_expect_eq(bs__pow(2.0, 10.0), 1024.0);
  cr_expect_eq(bs__cbrt(8.0), 2.0);
  cr_expect_eq(bs__erfc(0.0), 1.0);
  cr_expect_eq(bs__expm1(0.0), 0.0);
  cr_expect_eq(bs__log1p(0.0), 0.0);
}
