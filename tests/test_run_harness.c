/* The table of harness adapters (src/run/run_harness.c) as the program
 * reads it (bs_run_harness_get): every harness mode once, in order, each
 * named as bs_run_harness_name names its mode, with a title and one line
 * of help; nothing past the last. */
#include <criterion/criterion.h>

#include "benchsite/run.h"

#include <string.h>

Test(run_harness, the_table_enumerates_every_harness_mode_once) {
  static const bs_run_mode want[] = {BS_RUN_GOOGLE_BENCHMARK,
                                     BS_RUN_PYTEST_BENCHMARK, BS_RUN_GO_BENCH};
  static const char *const names[] = {"google-benchmark", "pytest-benchmark",
                                      "go-bench"};
  bs_run_harness h;
  size_t n = 0;
  for (; bs_run_harness_get(n, &h); n++) {
    cr_assert_lt(n, 3, "more harnesses than modes");
    cr_expect_eq(h.mode, want[n], "row %zu", n);
    cr_expect_str_eq(h.name, names[n]);
    cr_expect_str_eq(h.name, bs_run_harness_name(h.mode));
    cr_expect(h.title && h.title[0], "%s has no title", h.name);
    cr_expect(h.help && h.help[0], "%s has no help", h.name);
    cr_expect_null(strchr(h.help, '\n'), "%s: help is one line", h.name);
  }
  cr_expect_eq(n, 3);
}

Test(run_harness, past_the_last_row_is_nothing) {
  bs_run_harness h;
  memset(&h, 0, sizeof h);
  cr_expect_eq(bs_run_harness_get(3, &h), 0);
  cr_expect_eq(bs_run_harness_get((size_t)-1, &h), 0);
  cr_expect_null(h.name, "*out is untouched");
  cr_expect_null(bs_run_harness_name(BS_RUN_LIBRARY));
  cr_expect_null(bs_run_harness_name(BS_RUN_COMMAND));
}
