/* Student's t distribution's upper tail, for the test over runs that a
 * layout-sensitive case's verdict needs. Private to the statistics
 * layer. */
#ifndef BENCHSITE_STUDENT_T_H
#define BENCHSITE_STUDENT_T_H

/* P(T > t) for T ~ Student's t with df >= 1 degrees of freedom: 0.5 at
 * t = 0, 0 at +inf, 1 at -inf; NaN when t is NaN or df is 0. Within 1e-10
 * relative of scipy's for df from 1 to 100000 (tests/test_student_t.c). */
double bs__student_t_sf(double t, unsigned long df);

#endif
