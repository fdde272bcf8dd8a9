/* The presentation module: every view writes numbers by these rules
 * (expected strings written by hand from the rules in present.h). */
#include "present.h"

#include <criterion/criterion.h>

#define MINUS "\xe2\x88\x92"
#define NBSP "\xc2\xa0"

Test(present, times_keep_four_significant_digits_in_both_typographies) {
  char b[64];
  cr_assert_str_eq(bs__fmt_time_plain(b, sizeof b, 10.5), "10.50 µs");
  cr_assert_str_eq(bs__fmt_time_signed_plain(b, sizeof b, 10.5), "+10.50 µs");
  cr_assert_str_eq(bs__fmt_time_signed_plain(b, sizeof b, -0.2017),
                   "-201.7 ns");
  cr_assert_str_eq(bs__fmt_time_plain(b, sizeof b, 1234.5), "1.234 ms");
  cr_assert_str_eq(bs__fmt_time_plain(b, sizeof b, 2.5e6), "2.500 s");
  cr_assert_str_eq(bs__fmt_time(b, sizeof b, 10.5), "10.50" NBSP "µs");
  cr_assert_str_eq(bs__fmt_time_signed(b, sizeof b, -9.817),
                   MINUS "9.817" NBSP "µs");
  cr_assert_str_eq(bs__fmt_time_signed(b, sizeof b, 0), "0.000" NBSP "µs");
  cr_assert_str_eq(bs__fmt_time(b, sizeof b, 1.0 / 0.0), "n/a");
}

Test(present, intervals_and_ranges_share_one_unit) {
  char b[64];
  cr_assert_str_eq(bs__fmt_time_interval(b, sizeof b, 9.817, 10.5),
                   "+9.817 to +10.50" NBSP "µs");
  cr_assert_str_eq(bs__fmt_time_range(b, sizeof b, 70.9, 72.17),
                   "70.90–72.17" NBSP "µs");
  cr_assert_str_eq(bs__fmt_time_range(b, sizeof b, 0.5, 1500),
                   "0.0005000–1.500" NBSP "ms");
}

Test(present, percentages_round_to_two_decimals_without_negative_zero) {
  char b[64];
  cr_assert_str_eq(bs__fmt_pct_num_plain(b, sizeof b, 75.514), "+75.51");
  cr_assert_str_eq(bs__fmt_pct_num_plain(b, sizeof b, -0.001), "0.00");
  cr_assert_str_eq(bs__fmt_pct_signed(b, sizeof b, -54.216),
                   MINUS "54.22" NBSP "%");
  /* Huge figures in three digits, not 300 cut at the buffer's end. */
  cr_assert_str_eq(bs__fmt_pct_signed(b, sizeof b, 3.1933e307),
                   "+3.19e+307" NBSP "%");
  cr_assert_str_eq(bs__fmt_pct_num_plain(b, sizeof b, -1e9), "-1e+09");
  cr_assert_str_eq(bs__fmt_pct_num_plain(b, sizeof b, 999999999.994),
                   "+999999999.99");
}

Test(present, verdicts_and_clipped_names) {
  char b[64];
  cr_assert_str_eq(bs__verdict_marker(1, BS_VERDICT_SLOWER),
                   "■ significant regression");
  cr_assert_str_eq(bs__verdict_class(0, BS_VERDICT_FASTER), "faster");
  cr_assert_str_eq(bs__verdict_markdown(0, BS_VERDICT_SLOWER),
                   "▲ slower, not significant");
  cr_assert_str_eq(bs__verdict_text(1, BS_VERDICT_SLOWER), "REGRESSION");
  /* Symmetric: the improvement mirrors the regression, and a faster case
   * that is not significant says so as a slower one does. */
  cr_assert_str_eq(bs__verdict_marker(-1, BS_VERDICT_FASTER),
                   "◆ significant improvement");
  cr_assert_str_eq(bs__verdict_class(-1, BS_VERDICT_FASTER), "improvement");
  cr_assert_str_eq(bs__verdict_markdown(-1, BS_VERDICT_FASTER),
                   "✅ significant improvement");
  cr_assert_str_eq(bs__verdict_text(-1, BS_VERDICT_FASTER), "IMPROVEMENT");
  cr_assert_str_eq(bs__verdict_marker(0, BS_VERDICT_FASTER),
                   "▼ faster, not significant");
  cr_assert_str_eq(bs__verdict_text(0, BS_VERDICT_FASTER),
                   "faster, not significant");
  cr_assert_str_eq(bs__verdict_text(0, BS_VERDICT_SLOWER),
                   "slower, not significant");
  cr_assert_str_eq(bs__clip(b, sizeof b, "µµµµ", 3), "µµµ…");
  cr_assert_str_eq(bs__clip(b, sizeof b, "abc", 3), "abc");
}
