/* Tuning: best impl per case and log-log crossovers (SPEC §2.7), checked
 * against values worked by hand. */
#include <criterion/criterion.h>

#include "benchsite/log.h"
#include "benchsite/tune.h"

#include <math.h>
#include <string.h>

static bs_log *parse(const char *csv) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "tune.csv", csv, strlen(csv), &err),
               BS_OK, "%s", err.message);
  return log;
}

Test(tune, best_is_smallest_median_ties_by_byte_order) {
  /* medians: case p: a=2, b=3, B=2 -> tie between "B" and "a"; "B" (0x42)
   * sorts before "a" (0x61). case q: b=1 wins. Calibration rows ignored. */
  const char *csv =
      "benchmark,dataset,impl,block,phase,iterations,per_call_us\n"
      "s,p,a,0,confirm,,1\ns,p,a,1,confirm,,3\n"
      "s,p,b,0,confirm,,3\ns,p,b,1,confirm,,3\n"
      "s,p,B,0,confirm,,2\ns,p,B,1,confirm,,2\n"
      "s,p,a,,calibration,1,0.1\n"
      "s,q,a,0,confirm,,5\ns,q,b,0,confirm,,1\n";
  bs_log *log = parse(csv);
  bs_tune_result *r;
  bs_error err;
  cr_assert_eq(bs_tune_run(log, BS_METRIC_WALL, 0, &r, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(r->ncases, 2);
  cr_expect_str_eq(r->cases[0].dataset, "p");
  cr_expect_str_eq(r->cases[0].best, "B");
  cr_assert_eq(r->cases[0].nmedians, 3);
  cr_expect_str_eq(r->cases[0].medians[0].impl, "B");
  cr_expect_str_eq(r->cases[0].medians[1].impl, "a");
  cr_expect_eq(r->cases[0].medians[1].median_us, 2.0);
  cr_expect_eq(r->cases[0].medians[1].samples, 2);
  cr_expect_str_eq(r->cases[1].best, "b");
  cr_expect_eq(r->ncrossovers, 0);
  bs_tune_result_free(r);
  bs_log_free(log);
}

Test(tune, crossover_by_log_log_interpolation) {
  /* At scale 10: x = 1, y = 2 -> r0 = ln(1/2); at 100: x = 4, y = 2 ->
   * r1 = ln 2. s* = exp(ln 10 + ln 10 * r0/(r0 - r1)) = 10^1.5 by hand.
   * At 1000: x = 8, y = 2 -> no further sign change. */
  const char *csv = "benchmark,dataset,scale,impl,block,per_call_us\n"
                    "sort,n=100,100,x,0,4\nsort,n=100,100,y,0,2\n"
                    "sort,n=10,10,x,0,1\nsort,n=10,10,y,0,2\n"
                    "sort,n=1000,1000,x,0,8\nsort,n=1000,1000,y,0,2\n"
                    "other,n=1,1,x,0,1\n";
  bs_log *log = parse(csv);
  bs_tune_result *r;
  cr_assert_eq(bs_tune_run(log, BS_METRIC_WALL, 0, &r, NULL), BS_OK);
  cr_assert_eq(r->ncrossovers, 1);
  cr_expect_str_eq(r->crossovers[0].benchmark, "sort");
  cr_expect_str_eq(r->crossovers[0].a, "x");
  cr_expect_str_eq(r->crossovers[0].b, "y");
  cr_expect_leq(fabs(r->crossovers[0].scale - pow(10, 1.5)), 1e-12);
  cr_expect_eq(r->crossovers[0].scale_low, 10);
  cr_expect_eq(r->crossovers[0].scale_high, 100);
  bs_tune_result_free(r);
  bs_log_free(log);
}

Test(tune, zero_ratio_counts_as_nonnegative) {
  /* r0 = 0 (equal) then r1 < 0: a crossing at s0 exactly; r0 < 0 then
   * r1 = 0 also crosses (at s1). */
  const char *csv = "benchmark,dataset,scale,impl,block,per_call_us\n"
                    "k,a,2,x,0,3\nk,a,2,y,0,3\n"
                    "k,b,4,x,0,1\nk,b,4,y,0,2\n"
                    "k,c,8,x,0,5\nk,c,8,y,0,5\n";
  bs_log *log = parse(csv);
  bs_tune_result *r;
  cr_assert_eq(bs_tune_run(log, BS_METRIC_WALL, 0, &r, NULL), BS_OK);
  cr_assert_eq(r->ncrossovers, 2);
  cr_expect_eq(r->crossovers[0].scale, 2.0);
  cr_expect_leq(fabs(r->crossovers[1].scale - 8.0), 1e-12);
  bs_tune_result_free(r);
  bs_log_free(log);
}

Test(tune, crossovers_sorted_by_benchmark_pair_and_scale) {
  const char *csv = "benchmark,dataset,scale,impl,block,per_call_us\n"
                    "z,a,1,p,0,1\nz,a,1,q,0,2\nz,b,10,p,0,2\nz,b,10,q,0,1\n"
                    "z,c,100,p,0,1\nz,c,100,q,0,2\n"
                    "m,a,1,p,0,1\nm,a,1,q,0,2\nm,b,10,p,0,2\nm,b,10,q,0,1\n";
  bs_log *log = parse(csv);
  bs_tune_result *r;
  cr_assert_eq(bs_tune_run(log, BS_METRIC_WALL, 0, &r, NULL), BS_OK);
  cr_assert_eq(r->ncrossovers, 3);
  cr_expect_str_eq(r->crossovers[0].benchmark, "m");
  cr_expect_str_eq(r->crossovers[1].benchmark, "z");
  cr_expect_lt(r->crossovers[1].scale, r->crossovers[2].scale);
  /* Equal |r| either side: the crossing is the geometric midpoint. */
  cr_expect_leq(fabs(r->crossovers[0].scale - sqrt(10.0)), 1e-12);
  bs_tune_result_free(r);
  bs_log_free(log);
}
