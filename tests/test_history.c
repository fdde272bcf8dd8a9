/* History chains and creep: chained indices checked against
 * tests/data/history/chains.py (numpy), chain breaks worked by hand. */
#include <criterion/criterion.h>

#include "benchsite/history.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 10

/* Commits "c0".."c9"; link k has baseline c(k-1) (link 0: "base"). */
static char commits[N + 1][24];

static void chain_links(bs_history_link *l, size_t n, const double *delta) {
  snprintf(commits[0], sizeof commits[0], "base");
  for (size_t k = 0; k < n; k++) {
    snprintf(commits[k + 1], sizeof commits[k + 1], "c%zu", k);
    memset(&l[k], 0, sizeof l[k]);
    l[k].commit = commits[k + 1];
    l[k].baseline_commit = commits[k];
    l[k].delta_pct = delta[k];
  }
}

static void expect_close(double got, double want) {
  cr_expect(fabs(got - want) <= 1e-12 * fabs(want), "got %.17g, want %.17g",
            got, want);
}

Test(history, ten_small_regressions_creep) {
  /* numpy: cumprod of ten 1.008 (tests/data/history/chains.py). */
  static const double want[N] = {1.008,
                                 1.016064,
                                 1.0241925120000002,
                                 1.0323860520960002,
                                 1.0406451405127681,
                                 1.0489703016368703,
                                 1.0573620640499652,
                                 1.065820960562365,
                                 1.074347528246864,
                                 1.082942308472839};
  double d[N];
  for (int k = 0; k < N; k++)
    d[k] = 0.8;
  bs_history_link l[N];
  bs_history_point p[N];
  bs_history_creep c;
  chain_links(l, N, d);
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  for (int k = 0; k < N; k++) {
    cr_expect_eq(p[k].chain, 0);
    expect_close(p[k].chained_index, want[k]);
  }
  cr_expect(c.has_chain);
  cr_expect_eq(c.chain, 0);
  cr_expect_eq(c.links, N);
  expect_close(c.creep_pct, 8.29423084728389);
  cr_expect(c.creeping, "8.3 %% over ten links of 0.8 %% is creep");
}

Test(history, alternating_changes_do_not_creep) {
  static const double want[N] = {1.008,
                                 0.999936,
                                 1.007935488,
                                 0.999872004096,
                                 1.007870980128768,
                                 0.9998080122877379,
                                 1.0078064763860397,
                                 0.9997440245749514,
                                 1.007741976771551,
                                 0.9996800409573786};
  double d[N];
  for (int k = 0; k < N; k++)
    d[k] = k % 2 ? -0.8 : 0.8;
  bs_history_link l[N];
  bs_history_point p[N];
  bs_history_creep c;
  chain_links(l, N, d);
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  for (int k = 0; k < N; k++)
    expect_close(p[k].chained_index, want[k]);
  expect_close(c.creep_pct, -0.03199590426213872);
  cr_expect(!c.creeping);
}

Test(history, a_broken_link_starts_a_new_chain) {
  double d[N];
  for (int k = 0; k < N; k++)
    d[k] = 1;
  bs_history_link l[N];
  bs_history_point p[N];
  bs_history_creep c;
  chain_links(l, N, d);
  l[3].baseline_commit = "C2"; /* case differs from "c2": no match */
  l[6].baseline_commit = NULL; /* no baseline_commit */
  l[8].baseline_commit = "";
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  static const size_t chain[N] = {0, 0, 0, 1, 1, 1, 2, 2, 3, 3};
  static const size_t pos[N] = {1, 2, 3, 1, 2, 3, 1, 2, 1, 2};
  for (int k = 0; k < N; k++) {
    cr_expect_eq(p[k].chain, chain[k], "link %d", k);
    expect_close(p[k].chained_index, pow(1.01, (double)pos[k]));
  }
  cr_expect_eq(c.chain, 3);
  cr_expect_eq(c.links, 2);
  cr_expect(!c.creeping);
}

Test(history, an_acknowledged_link_restarts_the_product) {
  /* numpy (chains.py "ack"): the third link is acknowledged. */
  static const double d[6] = {1.0, 2.0, 1.5, 1.2, 1.1, 0.9};
  static const double want[6] = {1.01,  1.0302,   1.045653,
                                 1.012, 1.023132, 1.0323401879999998};
  bs_history_link l[6];
  bs_history_point p[6];
  bs_history_creep c;
  chain_links(l, 6, d);
  l[2].acknowledged = 1;
  cr_assert_eq(bs_history_chain(l, 6, p, &c, NULL), BS_OK);
  for (int k = 0; k < 6; k++) {
    cr_expect_eq(p[k].chain, 0);
    expect_close(p[k].chained_index, want[k]);
  }
  cr_expect_eq(c.links, 3);
  expect_close(c.creep_pct, 3.2340187999999825);
  cr_expect(c.creeping);
  /* A significant regression before the acknowledgement does not count;
   * one after it does. */
  l[1].significant_regression = 1;
  cr_assert_eq(bs_history_chain(l, 6, p, &c, NULL), BS_OK);
  cr_expect(c.creeping);
  l[4].significant_regression = 1;
  cr_assert_eq(bs_history_chain(l, 6, p, &c, NULL), BS_OK);
  cr_expect(!c.creeping, "a gate caught part of this stretch");
}

Test(history, a_significant_change_in_the_stretch_is_no_creep) {
  double d[N];
  for (int k = 0; k < N; k++)
    d[k] = -0.8;
  bs_history_link l[N];
  bs_history_point p[N];
  bs_history_creep c;
  chain_links(l, N, d);
  /* Downwards: only a significant improvement excludes. */
  l[5].significant_regression = 1;
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  expect_close(c.creep_pct, 100 * (pow(0.992, N) - 1));
  cr_expect(c.creeping);
  l[5].significant_improvement = 1;
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  cr_expect(!c.creeping);
}

Test(history, groups_chain_apart) {
  /* Two environments interleaved: each link continues its own group's
   * previous link. */
  bs_history_link l[4];
  memset(l, 0, sizeof l);
  const char *cm[4] = {"a", "x", "b", "y"}, *bm[4] = {"0", "0", "a", "x"};
  for (int k = 0; k < 4; k++) {
    l[k].commit = cm[k];
    l[k].baseline_commit = bm[k];
    l[k].group = (size_t)(k % 2);
    l[k].delta_pct = k < 2 ? 2 : 3;
  }
  bs_history_point p[4];
  bs_history_creep c;
  cr_assert_eq(bs_history_chain(l, 4, p, &c, NULL), BS_OK);
  cr_expect_eq(p[0].chain, 0);
  cr_expect_eq(p[1].chain, 1);
  cr_expect_eq(p[2].chain, 0);
  cr_expect_eq(p[3].chain, 1);
  expect_close(p[3].chained_index, 1.02 * 1.03);
  cr_expect_eq(c.chain, 1);
  expect_close(c.creep_pct, 100 * (1.02 * 1.03 - 1));
  cr_expect(c.creeping);
}

Test(history, a_non_finite_delta_is_an_error) {
  bs_history_link l[1];
  memset(l, 0, sizeof l);
  l[0].delta_pct = NAN;
  bs_history_point p[1];
  bs_error err;
  cr_expect_eq(bs_history_chain(l, 1, p, NULL, &err), BS_EINPUT);
  cr_expect_eq(bs_history_chain(NULL, 0, NULL, NULL, NULL), BS_OK);
}
