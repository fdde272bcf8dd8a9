/* Student's t upper tail through the regularized incomplete beta function:
 * P(T > t) = I_x(df/2, 1/2) / 2 for t >= 0, x = df / (df + t^2) (Abramowitz
 * & Stegun 26.7.1 with 26.5.27). I_x(a, b) by its continued fraction,
 * evaluated with the modified Lentz method (Press et al., Numerical
 * Recipes, 6.4), on the side of the symmetry I_x(a, b) = 1 - I_{1-x}(b, a)
 * where it converges fast. The beta function's logarithm needs the
 * gamma function only at multiples of 1/2, which are products: no lgamma
 * (and so no signgam global). */
#include "student_t.h"
#include "lmath.h"

#include <math.h>

/* log Gamma(k / 2), k >= 1: Gamma(1) = 1, Gamma(1/2) = sqrt(pi), and
 * Gamma(z + 1) = z Gamma(z); past z = 50, Stirling's series (its error
 * there below 1e-16 relative). */
static double log_gamma_half(unsigned long k) {
  double z = (double)k / 2.0;
  if (z > 50.0) {
    double z2 = z * z;
    return (z - 0.5) * bs__log(z) - z + 0.91893853320467274178 +
           (1.0 / 12.0 - (1.0 / 360.0 - 1.0 / (1260.0 * z2)) / z2) / z;
  }
  double s = k % 2 ? 0.5 * bs__log(3.14159265358979323846) : 0.0;
  for (unsigned long j = k % 2 ? 1 : 2; j + 2 <= k; j += 2)
    s += bs__log((double)j / 2.0);
  return s;
}

/* The continued fraction of I_x(a, b) (without its prefactor). */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300, eps = 1e-15;
  double qab = a + b, qap = a + 1.0, qam = a - 1.0;
  double c = 1.0, d = 1.0 - qab * x / qap;
  if (fabs(d) < tiny)
    d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 100000; m++) {
    double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1.0 + aa * d;
    d = fabs(d) < tiny ? tiny : d;
    c = 1.0 + aa / c;
    c = fabs(c) < tiny ? tiny : c;
    d = 1.0 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1.0 + aa * d;
    d = fabs(d) < tiny ? tiny : d;
    c = 1.0 + aa / c;
    c = fabs(c) < tiny ? tiny : c;
    d = 1.0 / d;
    double del = d * c;
    h *= del;
    if (fabs(del - 1.0) < eps)
      break;
  }
  return h;
}

/* I_x(df/2, 1/2), 0 <= x <= 1. */
static double ibeta_t(unsigned long df, double x) {
  if (x <= 0.0)
    return 0.0;
  if (x >= 1.0)
    return 1.0;
  double a = (double)df / 2.0, b = 0.5;
  double lbeta =
      log_gamma_half(df) + log_gamma_half(1) - log_gamma_half(df + 1);
  double front = bs__exp(a * bs__log(x) + b * bs__log1p(-x) - lbeta);
  if (x < (a + 1.0) / (a + b + 2.0))
    return front * beta_cf(a, b, x) / a;
  return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double bs__student_t_sf(double t, unsigned long df) {
  if (isnan(t) || df == 0)
    return NAN;
  if (isinf(t))
    return t > 0 ? 0.0 : 1.0;
  double x = (double)df / ((double)df + t * t);
  double half = 0.5 * ibeta_t(df, x);
  return t >= 0 ? half : 1.0 - half;
}
