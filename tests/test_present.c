/* The presentation module: every view writes numbers by these rules
 * (expected strings written by hand from the rules in present.h). */
#include "present.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

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
  cr_assert_str_eq(bs__verdict_marker(0, BS_VERDICT_SLOWER),
                   "▲ slower, not significant");
  /* Symmetric: the improvement mirrors the regression, and a faster case
   * that is not significant says so as a slower one does. */
  cr_assert_str_eq(bs__verdict_marker(-1, BS_VERDICT_FASTER),
                   "◆ significant improvement");
  cr_assert_str_eq(bs__verdict_class(-1, BS_VERDICT_FASTER), "improvement");
  cr_assert_str_eq(bs__verdict_marker(0, BS_VERDICT_FASTER),
                   "▼ faster, not significant");
  cr_assert_str_eq(bs__verdict_marker(0, BS_VERDICT_EQUIVALENT),
                   "● equivalent");
  cr_assert_str_eq(bs__clip(b, sizeof b, "µµµµ", 3), "µµµ…");
  cr_assert_str_eq(bs__clip(b, sizeof b, "abc", 3), "abc");
}

/* One meaning per symbol and per word: the glossary holds each once, and
 * every label is its symbol, a space and its word. Written out here by
 * hand, so that a change of a symbol is a change of this test too. */
Test(present, glossary_gives_each_symbol_and_word_one_meaning) {
  static const struct {
    bs__term t;
    const char *label;
  } want[] = {
      {BS__T_REGRESSION, "■ significant regression"},
      {BS__T_SLOWER, "▲ slower, not significant"},
      {BS__T_EQUIVALENT, "● equivalent"},
      {BS__T_FASTER, "▼ faster, not significant"},
      {BS__T_IMPROVEMENT, "◆ significant improvement"},
      {BS__T_INCONCLUSIVE, "◐ inconclusive"},
      {BS__T_WITHIN_NOISE, "≈ within noise"},
      {BS__T_LAYOUT, "↕ layout-sensitive"},
      {BS__T_BLIND, "◌ blind"},
      {BS__T_WARNING, "⚠ warning"},
      {BS__T_OUTLIER, "◇ Tukey outlier"},
      {BS__T_MEDIANS, "† medians disagree"},
      {BS__T_GATE_PASSED, "✔ gate passed"},
      {BS__T_GATE_FAILED, "✖ gate failed"},
      {BS__T_HOTSPOT, "ℹ hotspot"},
      {BS__T_COMPARABILITY, "≡ comparability key"},
      {BS__T_TIE, "= tie"},
      {BS__T_PAIRED_DELTA, "paired Δ%"},
      {BS__T_MED_D, "med(d)"},
      {BS__T_THRESHOLD, "δ"},
      {BS__T_NOISE_FLOOR, "noise floor"},
      {BS__T_UNPAIRED, "unpaired spread"},
      {BS__T_P_VALUE, "p"},
      {BS__T_MDE, "minimum detectable change"},
      {BS__T_LEVEL, "interval level"},
  };
  cr_assert_eq(sizeof want / sizeof want[0], (size_t)BS__NTERMS);
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    const bs__gloss *g = bs__glossary(want[i].t);
    char label[128];
    snprintf(label, sizeof label, "%s%s%s", g->symbol, g->symbol[0] ? " " : "",
             g->word);
    cr_expect_str_eq(g->label, want[i].label);
    cr_expect_str_eq(g->label, label);
    cr_expect(strlen(g->meaning) > 20, "%s has no meaning", g->word);
    for (size_t k = 0; k < i; k++) {
      const bs__gloss *h = bs__glossary(want[k].t);
      cr_expect(!g->symbol[0] || strcmp(g->symbol, h->symbol),
                "%s and %s share the symbol %s", g->word, h->word, g->symbol);
      cr_expect(strcmp(g->word, h->word), "the word %s twice", g->word);
    }
  }
  /* δ is the threshold and nothing else. */
  for (int t = 0; t < BS__NTERMS; t++)
    if (t != BS__T_THRESHOLD && t != BS__T_PAIRED_DELTA &&
        t != BS__T_NOISE_FLOOR)
      cr_expect(!strstr(bs__glossary((bs__term)t)->word, "δ"));
  /* The verdicts every view writes are the glossary's. */
  cr_expect_str_eq(bs__verdict_marker(1, BS_VERDICT_SLOWER),
                   bs__glossary(BS__T_REGRESSION)->label);
  cr_expect_str_eq(bs__verdict_marker(-1, BS_VERDICT_FASTER),
                   bs__glossary(BS__T_IMPROVEMENT)->label);
}

/* p-values: "< 0.001" below a thousandth (never "9.999e-05"), else three
 * significant digits without trailing zeros. */
Test(present, p_values_read_as_three_digits_or_below_a_thousandth) {
  char b[32];
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 9.999e-05), "< 0.001");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.000999), "< 0.001");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.001), "0.001");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.0380), "0.038");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.73853), "0.739");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.98465), "0.985");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 1.0), "1");
  cr_assert_str_eq(bs__fmt_p(b, sizeof b, 0.0 / 0.0), "n/a");
  cr_assert_str_eq(bs__fmt_p_rel(b, sizeof b, 0.0380), "= 0.038");
  cr_assert_str_eq(bs__fmt_p_rel(b, sizeof b, 1e-9), "< 0.001");
}

/* The case: "faster −3.22 %" beside medians 106.9 → 117.4 µs (an
 * unpaired +9.82 %) is marked; medians that agree within δ are not. */
Test(present, medians_that_point_elsewhere_are_marked) {
  bs_case_compare c;
  memset(&c, 0, sizeof c);
  c.median_baseline_us = 106.9;
  c.median_candidate_us = 117.4;
  c.delta_pct = -3.22;
  cr_expect_float_eq(bs__unpaired_pct(&c), 9.822263798, 1e-6);
  cr_expect(bs__medians_disagree(&c, 3.0));
  c.median_candidate_us = 104.0; /* -2.71 % beside -3.22 %: they agree */
  cr_expect(!bs__medians_disagree(&c, 3.0));
  char b[32];
  cr_expect_str_eq(bs__case_page(b, sizeof b, 0), "case-0001.html");
  cr_expect_str_eq(bs__case_page(b, sizeof b, 41), "case-0042.html");
}
