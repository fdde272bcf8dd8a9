/* Student's t upper tail (src/stats/student_t.c) against scipy's t.sf
 * (tests/data/student_t/make_fixtures.py wrote
 * tests/data/student_t/fixtures.txt; every line of it is checked). */
#include <criterion/criterion.h>

#include "student_t.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

Test(student_t, matches_scipy_on_every_fixture_line) {
  char *path = ts_data("student_t/fixtures.txt");
  char *text = ts_read(path, NULL);
  free(path);
  cr_assert_not_null(text);
  int lines = 0;
  for (char *p = text; *p;) {
    double t, want;
    unsigned long df;
    int used = 0;
    cr_assert_eq(sscanf(p, "%lf %lu %lf%n", &t, &df, &want, &used), 3,
                 "line %d", lines + 1);
    p += used;
    while (*p == '\n')
      p++;
    double got = bs__student_t_sf(t, df);
    cr_expect_leq(fabs(got - want), 1e-10 * want + 1e-300,
                  "t %g df %lu: %.17g, scipy %.17g", t, df, got, want);
    lines++;
  }
  cr_expect_eq(lines, 120);
  free(text);
}

Test(student_t, edges) {
  cr_expect_eq(bs__student_t_sf(HUGE_VAL, 4), 0.0);
  cr_expect_eq(bs__student_t_sf(-HUGE_VAL, 4), 1.0);
  cr_expect_eq(bs__student_t_sf(0.0, 7), 0.5);
  cr_expect(isnan(bs__student_t_sf(NAN, 4)));
  cr_expect(isnan(bs__student_t_sf(1.0, 0)));
}
