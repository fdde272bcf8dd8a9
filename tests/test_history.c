/* The history model and its chains: values checked against
 * tests/data/history/chains.py, scan.py and model.py (numpy, scipy, an
 * independent bootstrap), chain breaks, verdict counts and what is open
 * worked by hand. The flags' calibration on synthetic histories is
 * tests/test_history_signals.c. */
#include <criterion/criterion.h>

#include "benchsite/history.h"

#include "history_steps.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define N 10

/* Commits "c0".."c79"; link k has baseline c(k-1) (link 0: "base"), and
 * the interval Δ% ± 0.9 %. */
static char commits[81][24];

static void chain_links(bs_history_link *l, size_t n, const double *delta) {
  snprintf(commits[0], sizeof commits[0], "base");
  for (size_t k = 0; k < n; k++) {
    snprintf(commits[k + 1], sizeof commits[k + 1], "c%zu", k);
    memset(&l[k], 0, sizeof l[k]);
    l[k].commit = commits[k + 1];
    l[k].baseline_commit = commits[k];
    l[k].delta_pct = delta[k];
    l[k].lo_pct = delta[k] - 0.9;
    l[k].hi_pct = delta[k] + 0.9;
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
  expect_close(c.index, 1.082942308472839);
  /* scan.py "rising": the whole stretch, z = 5.53. */
  cr_expect(c.has_scan);
  cr_expect_eq(c.scan_links, N);
  cr_expect_eq(c.since, 0);
  expect_close(c.z, 5.531222452225766);
  expect_close(c.scan_pct, 8.294230847283867);
  expect_close(c.scan_lo_pct, 5.279267529467497);
  expect_close(c.scan_hi_pct, 11.395535987389547);
  expect_close(c.creep_pct, c.scan_pct);
  cr_expect(c.creeping, "8.3 %% over ten links of 0.8 %% is creep");
  /* Links whose noise explains the change: no creep. */
  for (int k = 0; k < N; k++) {
    l[k].lo_pct = d[k] - 8;
    l[k].hi_pct = d[k] + 8;
  }
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  cr_expect(c.has_scan);
  cr_expect_lt(fabs(c.z), 3.3);
  cr_expect(!c.creeping, "z %g", c.z);
}

Test(history, the_scan_matches_numpy) {
  /* scan.py "mixed": twelve links, uneven intervals (U = Δ + 0.8·half). */
  static const double d[12] = {0.3, -0.2, 1.1, 0.6, -1.4, 0.9,
                               1.2, 0.7,  1.0, 0.4, 0.8,  0.5};
  static const double half[12] = {0.5, 0.7, 0.4, 0.9, 0.6, 0.5,
                                  0.3, 0.8, 0.6, 0.4, 0.7, 0.5};
  bs_history_link l[80];
  bs_history_point p[80];
  bs_history_creep c;
  chain_links(l, 12, d);
  for (int k = 0; k < 12; k++) {
    l[k].lo_pct = d[k] - half[k];
    l[k].hi_pct = d[k] + 0.8 * half[k];
  }
  cr_assert_eq(bs_history_chain(l, 12, p, &c, NULL), BS_OK);
  cr_expect_eq(c.scan_links, 7);
  cr_expect_eq(c.since, 5, "the stretch's first link");
  expect_close(c.z, 8.024456133201225);
  expect_close(c.scan_pct, 5.62891765814977);
  expect_close(c.scan_lo_pct, 4.225453811723023);
  expect_close(c.scan_hi_pct, 7.051280062425783);
  cr_expect(c.creeping);
  /* A significant regression inside the stretch w* excludes it; one
   * before it does not. */
  l[4].significant_regression = 1;
  cr_assert_eq(bs_history_chain(l, 12, p, &c, NULL), BS_OK);
  cr_expect(c.creeping);
  l[6].significant_regression = 1;
  cr_assert_eq(bs_history_chain(l, 12, p, &c, NULL), BS_OK);
  cr_expect(!c.creeping);

  /* scan.py "long": 80 links, only the newest 50 are scanned (over all
   * 80, the whole chain would have the largest |z|). */
  static const double ld[80] = {
      0.751,  0.899, 0.613,  0.305,  0.523,  0.254,  0.78,   1.42,   0.504,
      0.44,   0.995, 0.928,  0.803,  0.285,  0.735,  1.098,  0.078,  0.521,
      -0.201, 0.105, -0.171, 0.632,  0.116,  0.886,  0.828,  0.657,  -0.508,
      0.481,  0.726, 0.807,  -0.615, -0.089, -0.339, -0.254, 0.68,   -0.254,
      0.134,  0.592, -0.142, 0.094,  0.205,  0.182,  -0.463, 0.188,  0.829,
      -0.624, 0.58,  0.21,   -0.171, 1.15,   0.531,  -0.45,  0.187,  0.438,
      0.056,  0.491, 0.117,  0.484,  0.869,  -0.188, 0.252,  -0.082, 0.214,
      -0.444, -0.14, 0.052,  0.599,  0.723,  -0.512, -0.247, 0.473,  -0.846,
      -0.082, 0.101, 0.779,  0.495,  -0.014, -0.034, 0.025,  0.912};
  static const double lh[80] = {
      1.064, 0.876, 0.69,  1.042, 0.921, 0.885, 0.788, 0.805, 0.72,  0.619,
      1.038, 0.834, 0.874, 0.761, 0.976, 0.613, 0.786, 0.615, 0.661, 1.084,
      0.929, 0.814, 0.862, 1.036, 0.772, 0.895, 0.942, 0.778, 0.86,  0.983,
      1.055, 0.676, 1.067, 0.603, 0.976, 1.005, 0.668, 0.809, 1.008, 0.607,
      0.914, 0.997, 0.857, 0.963, 0.713, 0.699, 0.782, 0.69,  0.773, 1.074,
      0.887, 0.77,  0.736, 1.076, 0.822, 1.09,  0.858, 0.861, 1.048, 0.971,
      0.89,  0.813, 1.039, 0.806, 1.061, 0.634, 0.815, 0.86,  1.075, 0.725,
      1.003, 0.938, 0.959, 0.915, 1.086, 0.766, 0.799, 0.701, 0.625, 0.706};
  chain_links(l, 80, ld);
  for (int k = 0; k < 80; k++) {
    l[k].lo_pct = ld[k] - lh[k];
    l[k].hi_pct = ld[k] + lh[k];
  }
  cr_assert_eq(bs_history_chain(l, 80, p, &c, NULL), BS_OK);
  cr_expect_eq(c.links, 80);
  cr_expect_eq(c.scan_links, 46);
  cr_expect_eq(c.since, 34);
  expect_close(c.z, 2.6044971372752204);
  expect_close(c.scan_pct, 8.218252665216239);
  expect_close(c.scan_lo_pct, 1.9736234892806646);
  expect_close(c.scan_hi_pct, 14.845288508784302);
  cr_expect(!c.creeping, "8.2 %% but z = 2.6: noise explains it");
}

Test(history, a_link_without_an_interval_ends_the_stretches) {
  double d[N];
  for (int k = 0; k < N; k++)
    d[k] = 0.8;
  bs_history_link l[N];
  bs_history_point p[N];
  bs_history_creep c;
  chain_links(l, N, d);
  l[7].lo_pct = NAN; /* links 8 and 9 remain: w = 2 only */
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  cr_expect(c.has_scan);
  cr_expect_eq(c.scan_links, 2);
  cr_expect_eq(c.links, N, "the chain itself is whole");
  expect_close(c.scan_pct, 100 * (1.008 * 1.008 - 1));
  cr_expect(!c.creeping, "1.6 %% is under δ");
  l[8].hi_pct = l[8].lo_pct - 1; /* L > U: no stretch at all */
  cr_assert_eq(bs_history_chain(l, N, p, &c, NULL), BS_OK);
  cr_expect(!c.has_scan);
  cr_expect_eq(c.z, 0);
  cr_expect_eq(c.scan_links, 0);
  expect_close(c.creep_pct, 100 * (c.index - 1));
  cr_expect(!c.creeping);
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
  expect_close(c.index, 0.9996800409573786);
  cr_expect(c.has_scan);
  cr_expect_lt(fabs(c.scan_pct), 3);
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
  cr_expect_eq(c.scan_links, 3, "the stretch since the restart");
  cr_expect_eq(c.since, 3);
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
  /* An acknowledged newest link closes the stretch: known, no creep. */
  l[4].significant_regression = 0;
  l[5].acknowledged = 1;
  cr_assert_eq(bs_history_chain(l, 6, p, &c, NULL), BS_OK);
  cr_expect(c.acknowledged);
  cr_expect(c.has_scan);
  cr_expect(!c.creeping);
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
  cr_expect_lt(c.creep_pct, 0, "an improvement keeps its sign");
  cr_expect_lt(c.z, -3.3);
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
    l[k].lo_pct = l[k].delta_pct - 0.9;
    l[k].hi_pct = l[k].delta_pct + 0.9;
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

/* ---- The model ----------------------------------------------------------
 * Eight runs built in memory; the expected chains, creep and drift are
 * tests/data/history/model.py's (numpy, scipy), the counts worked by
 * hand from the table below. */

#include "archived.h"

#include <stdlib.h>

typedef struct rspec {
  const char *benchmark, *dataset;
  double median;
  int cmp; /* 0: not compared */
  double delta;
  int verdict, sig, imp;
} rspec;

#define EQ BS_VERDICT_EQUIVALENT
#define SLOW BS_VERDICT_SLOWER
#define FAST BS_VERDICT_FASTER

typedef struct runspec {
  const char *commit, *baseline, *date;
  int manifest; /* 0: machine a, 1: machine b, 2: target cross, no machine */
  rspec res[3];
} runspec;

/* X = sort/n=1024, Y = sum, Z = zip; each run lists its cases in another
 * order than case order. */
static const runspec history8[8] = {
    {"c0",
     NULL,
     "2026-01-01T00:00:00Z",
     0,
     {{"zip", "", 10.0, 1, 1.1, EQ, 0, 0},
      {"sum", "", 5.0, 0, 0, 0, 0, 0},
      {"sort", "n=1024", 10.0, 1, 1.0, EQ, 0, 0}}},
    {"c1",
     "c0",
     "2026-01-02T00:00:00Z",
     0,
     {{"sort", "n=1024", 10.1, 1, 2.0, SLOW, 0, 0},
      {"sum", "", 5.2, 1, -1.0, FAST, 0, 0},
      {"zip", "", 10.1, 1, 1.1, EQ, 0, 0}}},
    {"c2",
     "c1",
     "2026-01-03T00:00:00Z",
     1,
     {{"sort", "n=1024", 20.0, 1, 0.5, EQ, 0, 0}}},
    {"c3",
     "c1",
     "2026-01-04T00:00:00Z",
     0,
     {{"zip", "", 10.3, 1, 1.1, EQ, 0, 0},
      {"sort", "n=1024", 10.2, 1, 1.5, SLOW, 0, 0}, /* acknowledged */
      {"sum", "", 5.1, 1, 4.0, SLOW, 1, 0}}},
    {"c4",
     "c3",
     "2026-01-05T00:00:00Z",
     0,
     {{"sort", "n=1024", 10.4, 0, 0, 0, 0, 0}, /* an A/A run: no link */
      {"sum", "", 5.2, 1, 0.5, EQ, 0, 0},
      {"zip", "", 10.4, 0, 0, 0, 0, 0}}},
    {"c5",
     "c3",
     "2026-01-06T00:00:00Z",
     0,
     {{"sort", "n=1024", 10.3, 1, 1.2, EQ, 0, 0},
      {"zip", "", 10.8, 1, NAN, EQ, 0, 0}}}, /* no finite delta: no link */
    {"c6",
     "c5",
     "2026-01-07T00:00:00Z",
     2,
     {{"sort", "n=1024", 11.0, 1, 0.3, EQ, 0, 0}}},
    {"c7",
     "c6",
     "2999-01-01T00:00:00Z", /* dated ahead: never the newest */
     2,
     {{"sort", "n=1024", 11.5, 1, 5.0, SLOW, 1, 0}}},
};

static bs_manifest *manifests[3];
static bs_acks *acks;

static bs_history *history_of(const runspec *spec, size_t n) {
  static const char *const keys[] = {"target", "profile", "dtype",
                                     "frequency_policy", "protocol"};
  static const char *const values[] = {"native", "release", "f64",
                                       "performance", "Development"};
  for (int m = 0; m < 3; m++) {
    manifests[m] = bs_manifest_new();
    cr_assert_not_null(manifests[m]);
    for (int k = 0; k < 5; k++)
      cr_assert_eq(bs_manifest_set(manifests[m], keys[k],
                                   m == 2 && k == 0 ? "cross" : values[k]),
                   BS_OK);
    if (m < 2)
      cr_assert_eq(bs_manifest_set(manifests[m], "machine", m ? "b" : "a"),
                   BS_OK);
  }
  static const char text[] = "commit,benchmark,dataset,reason\n"
                             "c3,sort,n=1024,known change\n";
  cr_assert_eq(bs__acks_parse("acks.csv", text, sizeof text - 1, &acks, NULL),
               BS_OK);
  bs_history *h = bs_history_new(n);
  cr_assert_not_null(h);
  for (size_t i = 0; i < n; i++) {
    bs_history_run *r = &h->runs[i];
    r->id = spec[i].commit;
    r->commit = spec[i].commit;
    r->baseline_commit = spec[i].baseline;
    r->date = spec[i].date;
    r->manifest = manifests[spec[i].manifest];
    r->impl = strdup("head");
    size_t k = 0;
    while (k < 3 && spec[i].res[k].benchmark)
      k++;
    r->results = calloc(k ? k : 1, sizeof *r->results);
    r->nresults = k;
    for (size_t j = 0; j < k; j++) {
      const rspec *rs = &spec[i].res[j];
      bs_history_result *res = &r->results[j];
      res->benchmark = strdup(rs->benchmark);
      res->dataset = strdup(rs->dataset);
      res->has_median = 1;
      res->n = 12;
      res->median = rs->median;
      res->lo = rs->median * 0.99;
      res->hi = rs->median * 1.01;
      res->verdict = -1;
      if (rs->cmp) {
        res->has_cmp = 1;
        res->delta_pct = rs->delta;
        res->delta_lo_pct = rs->delta - 0.9;
        res->delta_hi_pct = rs->delta + 0.9;
        res->verdict = rs->verdict;
        res->significant_regression = rs->sig;
        res->significant_improvement = rs->imp;
        res->blocks = 12;
      }
    }
  }
  cr_assert_eq(bs_history_finish(h, acks, NULL), BS_OK);
  return h;
}

static void history_free(bs_history *h) {
  bs_history_free(h);
  for (int m = 0; m < 3; m++)
    bs_manifest_free(manifests[m]);
  bs_acks_free(acks);
}

Test(history, runs_are_grouped_counted_and_put_in_case_order) {
  bs_history *h = history_of(history8, 8);
  static const size_t group[8] = {0, 0, 1, 0, 0, 0, 2, 2};
  cr_assert_eq(h->ngroups, 3);
  cr_expect_eq(h->groups[0].nruns, 5);
  cr_expect_eq(h->groups[1].nruns, 1);
  cr_expect_eq(h->groups[2].nruns, 2, "the same keys missing: one group");
  cr_expect_eq(h->groups[2].first, manifests[2]);
  /* compared, open, acked, slower, equivalent, faster (by hand). */
  static const size_t counts[8][6] = {{2, 0, 0, 0, 2, 0}, {3, 0, 0, 1, 1, 1},
                                      {1, 0, 0, 0, 1, 0}, {3, 1, 1, 0, 1, 0},
                                      {1, 0, 0, 0, 1, 0}, {2, 0, 0, 0, 2, 0},
                                      {1, 0, 0, 0, 1, 0}, {1, 0, 0, 1, 0, 0}};
  for (size_t i = 0; i < 8; i++) {
    const bs_history_run *r = &h->runs[i];
    cr_expect_eq(r->group, group[i], "run %zu", i);
    size_t got[6] = {r->compared, r->open,       r->acked,
                     r->slower,   r->equivalent, r->faster};
    for (int k = 0; k < 6; k++)
      cr_expect_eq(got[k], counts[i][k], "run %zu count %d", i, k);
    cr_expect_eq(r->native, group[i] != 2, "run %zu", i);
    /* Results in case order, each pointing at its case. */
    for (size_t k = 0; k < r->nresults; k++) {
      const bs_history_case *c = &h->cases[r->results[k].case_idx];
      cr_expect_str_eq(c->benchmark, r->results[k].benchmark);
      if (k)
        cr_expect_lt(r->results[k - 1].case_idx, r->results[k].case_idx);
    }
  }
  cr_expect_str_eq(h->runs[0].results[0].benchmark, "sort");
  cr_expect_str_eq(h->runs[0].results[2].benchmark, "zip");
  cr_expect_eq(h->acknowledged, 1);
  cr_expect_not_null(h->runs[3].results[0].ack);
  cr_expect_str_eq(h->runs[3].results[0].ack->reason, "known change");
  cr_expect_eq(bs_history_newest(h), 6, "run 7 is dated ahead");
  history_free(h);
}

Test(history, each_case_has_its_runs_chains_creep_and_range) {
  bs_history *h = history_of(history8, 8);
  cr_assert_eq(h->ncases, 3);
  const bs_history_case *x = &h->cases[0], *y = &h->cases[1], *z = &h->cases[2];
  cr_expect_str_eq(x->benchmark, "sort");
  cr_expect_str_eq(x->dataset, "n=1024");
  cr_expect_str_eq(y->benchmark, "sum");
  cr_expect_str_eq(z->benchmark, "zip");

  /* X: model.py "X chain 0/1/2"; r4 (an A/A run) is no link, r5 restarts
   * after the acknowledged r3, r2 and r6 start chains in their groups. */
  static const int xlink[8] = {1, 1, 1, 1, 0, 1, 1, 1};
  static const size_t xchain[8] = {0, 0, 1, 0, 0, 0, 2, 2};
  static const double xindex[8] = {1.01, 1.0302, 1.005, 1.045653,
                                   0,    1.012,  1.003, 1.05315};
  cr_assert_eq(x->nentries, 8);
  for (size_t i = 0; i < 8; i++) {
    const bs_history_entry *e = &x->entries[i];
    cr_expect_eq(e->run, i);
    cr_expect_eq(e->result, &h->runs[i].results[0]);
    cr_expect_eq(e->link, xlink[i], "X run %zu", i);
    if (xlink[i]) {
      cr_expect_eq(e->chain, xchain[i], "X run %zu", i);
      expect_close(e->chained_index, xindex[i]);
    } else {
      cr_expect_eq(e->chain, 0, "no link: zero, not whatever was there");
      cr_expect_eq(e->chained_index, 0);
    }
  }
  cr_expect(x->creep.has_chain);
  cr_expect_eq(x->creep.chain, 2);
  cr_expect_eq(x->creep.links, 2);
  expect_close(x->creep.creep_pct, 5.315000000000003);
  cr_expect(!x->creep.creeping, "run 7 was a significant regression");
  cr_expect_eq(x->measured, 8);
  cr_expect_eq(x->min_median, 10.0);
  cr_expect_eq(x->max_median, 20.0);
  cr_expect_eq(x->newest, &h->runs[7].results[0]);

  /* Y: "Y chain 0"; 3.47 % up, but r3's link was a significant
   * regression. */
  static const size_t yrun[4] = {0, 1, 3, 4};
  static const double yindex[4] = {0, 0.99, 1.0296, 1.034748};
  cr_assert_eq(y->nentries, 4);
  for (size_t i = 0; i < 4; i++) {
    cr_expect_eq(y->entries[i].run, yrun[i]);
    cr_expect_eq(y->entries[i].link, i > 0);
    if (i)
      expect_close(y->entries[i].chained_index, yindex[i]);
  }
  expect_close(y->creep.index, 1.034748);
  cr_expect_eq(y->creep.links, 3);
  /* The scan's stretch: the two newest links (z = 9.6 beats 6.1). */
  cr_expect_eq(y->creep.scan_links, 2);
  cr_expect_eq(y->creep.since, 2, "entry 2: run 3's link");
  expect_close(y->creep.creep_pct, 100 * (1.04 * 1.005 - 1));
  cr_expect(!y->creep.creeping, "run 3's link was a significant regression");

  /* Z: "Z chain 0": three +1.1 % links no gate caught make 3.34 %. */
  cr_assert_eq(z->nentries, 5);
  cr_expect_eq(z->entries[4].run, 5);
  cr_expect(!z->entries[4].link, "a NaN delta is no link");
  expect_close(z->entries[2].chained_index, 1.0333643309999998);
  expect_close(z->creep.creep_pct, 3.3364330999999803);
  cr_expect_eq(z->creep.links, 3);
  cr_expect_eq(z->creep.scan_links, 3);
  cr_expect_eq(z->creep.since, 0);
  cr_expect(z->creep.creeping);
  /* An upward creep is open since its first link; nothing else is. */
  cr_expect(z->open.creep && z->open.any);
  cr_expect_eq(z->open.since, 0);
  cr_expect(!z->open.regression && !z->open.step);
  /* X's open regression: run 7 (dated ahead, still a run) regressed in
   * a target that is not native: no performance claim, nothing open. */
  cr_expect(!x->open.regression);
  cr_expect_eq(h->creeping, 1);
  cr_expect_eq(z->newest->median, 10.8);
  history_free(h);
}

Test(history, drift_tests_the_newest_group_of_each_case) {
  bs_history *h = history_of(history8, 8);
  const bs_history_case *x = &h->cases[0], *y = &h->cases[1], *z = &h->cases[2];
  /* X's newest group (2) has two medians: too few to test. */
  cr_expect(!x->has_drift);
  cr_expect_eq(x->drift_n, 2);
  cr_expect_eq(x->drift_group, 2);
  /* model.py "Y drift" (scipy spearmanr, a tie among the medians). */
  cr_expect(y->has_drift);
  cr_expect_eq(y->drift_n, 4);
  cr_expect_eq(y->drift_group, 0);
  expect_close(y->drift.rho, 0.632455532033676);
  expect_close(y->drift.p, 0.27332167829229814);
  expect_close(y->drift.relative_shift, 0.009803921568627591);
  cr_expect(!y->drift.drifted);
  /* "Z drift": five rising medians, p = erfc(2 / sqrt 2) < 0.05. */
  cr_expect(z->has_drift);
  cr_expect_eq(z->drift_n, 5);
  expect_close(z->drift.rho, 0.9999999999999999);
  expect_close(z->drift.p, 0.04550026389635847);
  expect_close(z->drift.first, 10.05);
  expect_close(z->drift.second, 10.600000000000001);
  expect_close(z->drift.relative_shift, 0.05472636815920405);
  cr_expect(z->drift.drifted, "Spearman's p < 0.05");
  /* The calibrated flag wants p < 0.01: five runs cannot reach it. */
  cr_expect(!z->drift_flagged);
  cr_expect_eq(h->drifting, 0);
  history_free(h);
}

Test(history, an_empty_history_is_a_model_too) {
  bs_history *h = bs_history_new(0);
  cr_assert_not_null(h);
  cr_expect_eq(bs_history_finish(h, NULL, NULL), BS_OK);
  cr_expect_eq(h->ncases, 0);
  cr_expect_eq(h->ngroups, 0);
  cr_expect_eq(bs_history_newest(h), 0);
  bs_history_free(h);
  bs_history_free(NULL);
}

/* ---- One run's results from its analysis ------------------------------- */

/* tests/data/history/model.py "sort head" and "solo other": numpy's
 * median and an independent bootstrap (R = 2000, 95 %, seed 7). */
Test(history, a_runs_results_are_its_candidates_medians_and_verdicts) {
  static const double head[12] = {100.5, 99.8,  101.2, 100.1, 100.9, 99.5,
                                  100.3, 100.7, 99.9,  100.2, 101.0, 100.4};
  static const double solo[5] = {3.0, 3.2, 2.9, 3.1, 3.05};
  char csv[8192];
  size_t used = (size_t)snprintf(
      csv, sizeof csv,
      "benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n");
  for (int j = 0; j < 12; j++) {
    for (int k = 0; k < 2; k++) {
      int is_head = (j + k) % 2;
      used += (size_t)snprintf(csv + used, sizeof csv - used,
                               "sort,n=1024,%s,0,%d,confirm,100,%.17g\n",
                               is_head ? "head" : "base", j,
                               is_head ? head[j] : head[j] * 1.02);
      /* Two impls, neither the candidate: no median to show. */
      used +=
          (size_t)snprintf(csv + used, sizeof csv - used,
                           "pair,,%s,0,%d,confirm,100,7\n", k ? "x" : "y", j);
    }
  }
  for (int j = 0; j < 5; j++)
    used +=
        (size_t)snprintf(csv + used, sizeof csv - used,
                         "solo,,other,0,%d,confirm,100,%.17g\n", j, solo[j]);
  cr_assert_lt(used, sizeof csv);
  bs_log *log = bs_log_new();
  cr_assert_eq(bs_log_read_buffer(log, "log.csv", csv, used, NULL), BS_OK);
  bs_manifest *m = bs_manifest_new();
  cr_assert_eq(bs_manifest_set(m, "baseline", "base"), BS_OK);
  cr_assert_eq(bs_manifest_set(m, "candidate", "head"), BS_OK);
  const bs_manifest *mfs[1] = {m};
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = 7;
  ao.keep_going = 1;
  bs_analysis *an = NULL;
  bs_error err;
  cr_assert_eq(bs_analyse(log, mfs, 1, &ao, &an, &err), BS_OK, "%s",
               err.message);

  bs_history_result *res = NULL;
  size_t n = 0;
  cr_assert_eq(bs_history_results(an, "head", &res, &n, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(n, bs_log_case_count(log));
  int seen = 0;
  for (size_t i = 0; i < n; i++) {
    const bs_history_result *r = &res[i];
    cr_expect_str_eq(r->benchmark, bs_log_case(log, i)->benchmark);
    if (!strcmp(r->benchmark, "sort")) {
      seen |= 1;
      cr_expect(r->has_median);
      cr_expect_eq(r->n, 12);
      expect_close(r->median, 100.35);
      expect_close(r->lo, 100.0);
      expect_close(r->hi, 100.80000000000001);
      /* The verdict is the analysis's comparison, as it stands. */
      cr_assert_not_null(an->compare);
      const bs_case_compare *cc = NULL;
      for (size_t k = 0; k < an->compare->ncases; k++)
        if (!strcmp(an->compare->cases[k].benchmark, "sort"))
          cc = &an->compare->cases[k];
      cr_assert_not_null(cc);
      cr_expect(r->has_cmp);
      cr_expect_eq(r->verdict, (int)cc->verdict);
      cr_expect_eq(r->delta_pct, cc->delta_pct);
      cr_expect_eq(r->significant_improvement, cc->significant_improvement);
      cr_expect_eq(r->blocks, 12);
      /* The paired interval in percent of med(b), as Δ% is. */
      expect_close(r->delta_lo_pct,
                   100 * (cc->ci_low_us / cc->median_baseline_us));
      expect_close(r->delta_hi_pct,
                   100 * (cc->ci_high_us / cc->median_baseline_us));
      cr_expect_leq(r->delta_lo_pct, r->delta_pct);
      cr_expect_geq(r->delta_hi_pct, r->delta_pct);
      cr_expect_lt(r->delta_pct, 0, "head is 2 %% faster than base");
    } else if (!strcmp(r->benchmark, "solo")) {
      seen |= 2;
      cr_expect(r->has_median, "the only impl is shown");
      cr_expect_eq(r->n, 5);
      expect_close(r->median, 3.05);
      expect_close(r->lo, 2.9);
      expect_close(r->hi, 3.2);
      cr_expect(!r->has_cmp);
      cr_expect_eq(r->verdict, -1);
    } else {
      seen |= 4;
      cr_expect_str_eq(r->benchmark, "pair");
      cr_expect(!r->has_median);
      cr_expect_eq(r->n, 0);
      cr_expect(!r->has_cmp);
    }
    cr_expect_eq(r->case_idx, 0);
    cr_expect_null(r->ack);
  }
  cr_expect_eq(seen, 7);
  bs_history_results_free(res, n);
  bs_analysis_free(an);
  bs_manifest_free(m);
  bs_log_free(log);
}

/* The log of the test above with a CPU time per call of half the wall
 * time on every row (none: no column), analysed for `metric`. */
static bs_analysis *half_cpu_run(bs_log **log, bs_manifest **m,
                                 bs_metric metric, int with_cpu) {
  static const double head[12] = {100.5, 99.8,  101.2, 100.1, 100.9, 99.5,
                                  100.3, 100.7, 99.9,  100.2, 101.0, 100.4};
  char csv[8192];
  size_t used = (size_t)snprintf(
      csv, sizeof csv,
      "benchmark,dataset,impl,run,block,phase,iterations,per_call_us%s\n",
      with_cpu ? ",cpu_per_call_us" : "");
  for (int j = 0; j < 12; j++) {
    for (int k = 0; k < 2; k++) {
      int is_head = (j + k) % 2;
      double v = is_head ? head[j] : head[j] * 1.02;
      used += (size_t)snprintf(csv + used, sizeof csv - used,
                               "sort,n=1024,%s,0,%d,confirm,100,%.17g",
                               is_head ? "head" : "base", j, v);
      if (with_cpu)
        used +=
            (size_t)snprintf(csv + used, sizeof csv - used, ",%.17g", v / 2);
      used += (size_t)snprintf(csv + used, sizeof csv - used, "\n");
    }
  }
  cr_assert_lt(used, sizeof csv);
  *log = bs_log_new();
  cr_assert_eq(bs_log_read_buffer(*log, "log.csv", csv, used, NULL), BS_OK);
  *m = bs_manifest_new();
  cr_assert_eq(bs_manifest_set(*m, "baseline", "base"), BS_OK);
  cr_assert_eq(bs_manifest_set(*m, "candidate", "head"), BS_OK);
  const bs_manifest *mfs[1] = {*m};
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = 7;
  ao.metric = metric;
  ao.keep_going = 1;
  bs_analysis *an = NULL;
  bs_error err;
  cr_assert_eq(bs_analyse(*log, mfs, 1, &ao, &an, &err), BS_OK, "%s",
               err.message);
  return an;
}

/* The medians are of the metric analysed (they were wall time whatever
 * the site's --metric): CPU time at half the wall time gives exactly half
 * the medians and interval of the test above (the bootstrap draws
 * indices, and halving is exact in binary). */
Test(history, a_runs_results_are_of_the_analysed_metric) {
  bs_log *log;
  bs_manifest *m;
  bs_analysis *an = half_cpu_run(&log, &m, BS_METRIC_CPU, 1);
  bs_history_result *res = NULL;
  size_t n = 0;
  bs_error err;
  cr_assert_eq(bs_history_results(an, "head", &res, &n, &err), BS_OK);
  cr_assert_eq(n, 1);
  cr_expect(res[0].has_median);
  cr_expect_eq(res[0].median, 100.35 / 2);
  cr_expect_eq(res[0].lo, 100.0 / 2);
  cr_expect_eq(res[0].hi, 100.80000000000001 / 2);
  cr_expect(res[0].has_cmp);
  bs_history_results_free(res, n);
  bs_analysis_free(an);
  bs_manifest_free(m);
  bs_log_free(log);
}

/* A run without the metric's column is that run's problem (the site goes
 * on): its analysis keeps the reason, and its results carry no numbers. */
Test(history, a_run_without_the_metric_has_results_without_numbers) {
  bs_log *log;
  bs_manifest *m;
  bs_analysis *an = half_cpu_run(&log, &m, BS_METRIC_CPU, 0);
  cr_expect_eq(an->status, BS_EINPUT);
  cr_expect(strstr(an->error.message, "cpu_per_call_us") != NULL, "%s",
            an->error.message);
  cr_expect_null(an->compare);
  bs_history_result *res = NULL;
  size_t n = 0;
  bs_error err;
  cr_assert_eq(bs_history_results(an, "head", &res, &n, &err), BS_OK);
  cr_assert_eq(n, 1);
  cr_expect(!res[0].has_median);
  cr_expect_eq(res[0].n, 0);
  cr_expect(!res[0].has_cmp);
  bs_history_results_free(res, n);
  bs_analysis_free(an);
  bs_manifest_free(m);
  bs_log_free(log);
}

/* ---- A/A runs, drift flags, change points, what is open ----------------
 * Models of one or two cases built from series worked by hand. */

typedef struct series {
  const char *benchmark;
  double median; /* the run's median */
  int cmp;       /* compared (a link unless the run is A/A) */
  double delta;  /* Δ%, interval Δ ± 0.5 */
  int sig;       /* significant regression */
} series;

/* A model of n runs: run k has commit "r<k>", baseline the commit of run
 * k-1; runs in `aa` (k-th entry nonzero) are A/A runs at the commit of the
 * run before (manifest aa_a/aa_b, impl "A"),
 * yet carry a finite comparison, as a run comparing A with B would. Each
 * run has `per` results, s[k*per + j]. `acked` names a commit and case
 * for acks.csv (NULL: none). */
typedef struct model {
  bs_history *h;
  bs_manifest *paired, *aa;
  bs_acks *acks;
} model;

static char rcommits[64][24];

static bs_history *model_of(model *md, const series *s, size_t n, size_t per,
                            const int *aa, const char *acked) {
  bs_manifest *mf_paired, *mf_aa;
  bs_acks *acks2;
  mf_paired = bs_manifest_new();
  mf_aa = bs_manifest_new();
  cr_assert(mf_paired && mf_aa);
  cr_assert_eq(bs_manifest_set(mf_paired, "target", "native"), BS_OK);
  cr_assert_eq(bs_manifest_set(mf_aa, "target", "native"), BS_OK);
  cr_assert_eq(bs_manifest_set(mf_aa, "aa_a", "A"), BS_OK);
  cr_assert_eq(bs_manifest_set(mf_aa, "aa_b", "B"), BS_OK);
  char text[256];
  int len = snprintf(text, sizeof text, "commit,benchmark,dataset,reason\n%s%s",
                     acked ? acked : "", acked ? ",,known\n" : "");
  cr_assert_eq(bs__acks_parse("acks.csv", text, (size_t)len, &acks2, NULL),
               BS_OK);
  bs_history *h = bs_history_new(n);
  cr_assert_not_null(h);
  cr_assert_leq(n, 64);
  for (size_t k = 0; k < n; k++) {
    /* An A/A run measures the commit of the run before. */
    snprintf(rcommits[k], sizeof rcommits[k], "r%zu",
             aa && aa[k] && k ? k - 1 : k);
    bs_history_run *r = &h->runs[k];
    r->id = r->commit = rcommits[k];
    r->baseline_commit = k ? rcommits[k - 1] : NULL;
    r->date = "2026-01-01T00:00:00Z";
    r->manifest = aa && aa[k] ? mf_aa : mf_paired;
    r->impl = strdup(aa && aa[k] ? "A" : "head");
    r->results = calloc(per, sizeof *r->results);
    r->nresults = per;
    for (size_t j = 0; j < per; j++) {
      const series *e = &s[k * per + j];
      bs_history_result *res = &r->results[j];
      res->benchmark = strdup(e->benchmark);
      res->dataset = strdup("");
      res->has_median = 1;
      res->n = 10;
      res->median = e->median;
      res->lo = e->median * 0.995;
      res->hi = e->median * 1.005;
      res->verdict = -1;
      if (e->cmp) {
        res->has_cmp = 1;
        res->delta_pct = e->delta;
        res->delta_lo_pct = e->delta - 0.5;
        res->delta_hi_pct = e->delta + 0.5;
        res->significant_regression = e->sig;
        res->verdict = e->sig ? SLOW : EQ;
      }
    }
  }
  cr_assert_eq(bs_history_finish(h, acks2, NULL), BS_OK);
  md->h = h;
  md->paired = mf_paired;
  md->aa = mf_aa;
  md->acks = acks2;
  return h;
}

static void model_free(model *md) {
  bs_history_free(md->h);
  bs_manifest_free(md->paired);
  bs_manifest_free(md->aa);
  bs_acks_free(md->acks);
}

/* A fixed "noise" for hand-made series: small, deterministic. */
static double wiggle(size_t k) { return 0.02 * (double)((k * 7) % 5) - 0.04; }

Test(history, a_and_a_runs_are_no_links_and_the_model_is_deterministic) {
  /* Twelve runs of one case; runs 3 and 7 are A/A runs at the commit of
   * the run before, with a finite comparison of A against B (+40 %, a
   * would-be regression). Each paired run after one continues the chain:
   * its baseline is the A/A run's commit, the previous link's. */
  series s[12];
  int aa[12] = {0};
  for (size_t k = 0; k < 12; k++)
    s[k] = (series){"x", 10 + wiggle(k), k > 0, 1.1, 0};
  aa[3] = aa[7] = 1;
  s[3].delta = s[7].delta = 40;
  s[3].sig = s[7].sig = 1;
  model mh, mg;
  bs_history *h = model_of(&mh, s, 12, 1, aa, NULL);
  const bs_history_case *x = &h->cases[0];
  cr_expect(h->runs[3].aa && h->runs[7].aa && !h->runs[4].aa);
  cr_expect_eq(h->runs[3].compared, 0, "an A/A run counts for nothing");
  cr_expect_eq(h->runs[3].open, 0);
  size_t links = 0;
  for (size_t i = 0; i < x->nentries; i++) {
    const bs_history_entry *e = &x->entries[i];
    if (i == 3 || i == 7 || i == 0) {
      cr_expect(!e->link, "entry %zu", i);
      cr_expect_eq(e->chain, 0);
      cr_expect_eq(e->chained_index, 0);
    } else {
      cr_expect(e->link);
      cr_expect_eq(e->chain, 0, "entry %zu: one chain across A/A runs", i);
      links++;
    }
  }
  cr_expect_eq(links, 9);
  cr_expect_eq(x->creep.links, 9);
  expect_close(x->creep.index, pow(1.011, 9));
  cr_expect(!x->open.regression, "an A/A run's comparison is no regression");

  /* The same inputs give the same model, field by field. */
  bs_history *g = model_of(&mg, s, 12, 1, aa, NULL);
  const bs_history_case *y = &g->cases[0];
  cr_assert_eq(y->nentries, x->nentries);
  for (size_t i = 0; i < x->nentries; i++) {
    cr_expect_eq(x->entries[i].link, y->entries[i].link);
    cr_expect_eq(x->entries[i].chain, y->entries[i].chain);
    cr_expect_eq(x->entries[i].chained_index, y->entries[i].chained_index);
  }
  cr_expect_eq(memcmp(&x->creep, &y->creep, sizeof x->creep), 0);
  cr_expect_eq(memcmp(&x->open, &y->open, sizeof x->open), 0);
  cr_expect_eq(x->nsteps, y->nsteps);
  for (size_t k = 0; k < x->nsteps && k < y->nsteps; k++)
    cr_expect_eq(memcmp(&x->steps[k], &y->steps[k], sizeof x->steps[k]), 0);
  model_free(&mg);
  model_free(&mh);
}

Test(history, drift_is_flagged_on_size_and_significance) {
  /* Ten runs rising steadily: Spearman ρ = 1, z = 3, p = 0.0027. */
  series s[10];
  for (size_t k = 0; k < 10; k++)
    s[k] = (series){"x", 10 * (1 + 0.006 * (double)k), 0, 0, 0};
  model md;
  bs_history *h = model_of(&md, s, 10, 1, NULL, NULL);
  const bs_history_case *x = &h->cases[0];
  cr_expect(x->has_drift);
  expect_close(x->drift.p, 0.0026997960632601965);
  /* Halves: med(10, 10.06, .., 10.24) = 10.12, med(10.3, .., 10.54) =
   * 10.42: +2.96 %, under the 3 % a drift must reach. */
  expect_close(x->drift.relative_shift, 10.42 / 10.12 - 1);
  cr_expect(!x->drift_flagged, "a steady −0.11 %% or +2.96 %% is no alarm");
  cr_expect_eq(h->drifting, 0);
  model_free(&md);
  for (size_t k = 0; k < 10; k++)
    s[k].median = 10 * (1 + 0.008 * (double)k);
  h = model_of(&md, s, 10, 1, NULL, NULL);
  x = &h->cases[0];
  cr_expect(x->drift_flagged, "+3.9 %% at p = 0.0027");
  cr_expect_eq(h->drifting, 1);
  model_free(&md);
}

Test(history, steps_are_found_named_and_listed_newest_first) {
  /* Two cases over 30 runs. "up": +10 % from run 12, that run a
   * significant regression. "ack": +8 % from run 20, acknowledged. */
  series s[60];
  for (size_t k = 0; k < 30; k++) {
    double w = wiggle(k);
    s[2 * k] = (series){"up", (k >= 12 ? 11 : 10) + w, k > 0,
                        k == 12 ? 10 : 0.2, k == 12};
    s[2 * k + 1] = (series){"ack", (k >= 20 ? 10.8 : 10) + w, k > 0,
                            k == 20 ? 8 : -0.2, k == 20};
  }
  model md;
  bs_history *h = model_of(&md, s, 30, 2, NULL, "r20,ack");
  const bs_history_case *ack = &h->cases[0], *up = &h->cases[1];
  cr_assert_str_eq(up->benchmark, "up");
  cr_assert_eq(up->nsteps, 1);
  const bs_history_step *st = &up->steps[0];
  cr_expect_eq(st->entry, 12);
  cr_expect_eq(st->entry_before, 11);
  expect_close(st->before, 10.0);
  expect_close(st->after, 11.0);
  expect_close(st->size_pct, 10.000000000000009);
  cr_expect_leq(st->p_value, BS_HISTORY_STEP_ALPHA);
  cr_expect(st->significant && !st->acknowledged);
  cr_expect_eq(up->steps_n, 30);
  /* Open: the regression (links 12..29 multiply to 1.1 · 1.002^17) and
   * the step, both since entry 12. */
  cr_expect(up->open.regression && up->open.step && up->open.any);
  cr_expect_eq(up->open.regression_entry, 12);
  expect_close(up->open.regression_pct, 100 * (1.1 * pow(1.002, 17) - 1));
  cr_expect_eq(up->open.step_index, 0);
  expect_close(up->open.step_pct, 10.000000000000009);
  cr_expect_eq(up->open.since, 12);

  cr_assert_eq(ack->nsteps, 1);
  cr_expect_eq(ack->steps[0].entry, 20);
  cr_expect(ack->steps[0].acknowledged);
  cr_expect(!ack->open.any, "acknowledged: nothing open");

  /* The lists: every step newest first, the open cases. */
  cr_assert_eq(h->nstep_refs, 2);
  cr_expect_eq(h->step_refs[0].case_idx, 0, "run 20's step first");
  cr_expect_eq(h->step_refs[1].case_idx, 1);
  cr_assert_eq(h->nopen_cases, 1);
  cr_expect_eq(h->open_cases[0], 1);
  cr_expect_eq(h->open_regressions, 1);
  cr_expect_eq(h->open_steps, 1);
  cr_expect_eq(h->open_creeps, 0);
  model_free(&md);
}

Test(history, change_points_of_a_series) {
  bs_history_step *st = NULL;
  size_t n = 9;
  double x[90] = {0};
  /* Too short, or constant: nothing. */
  cr_assert_eq(bs_history_detect_steps(x, 0, 1, &st, &n, NULL), BS_OK);
  cr_expect_eq(n, 0);
  cr_expect_null(st);
  for (size_t k = 0; k < 90; k++)
    x[k] = 5;
  cr_assert_eq(bs_history_detect_steps(x, 90, 1, &st, &n, NULL), BS_OK);
  cr_expect_eq(n, 0, "a constant series has no step");
  /* Three levels: 10, then 12 from 30, then 9 from 60. */
  for (size_t k = 0; k < 90; k++)
    x[k] = (k >= 60 ? 9 : k >= 30 ? 12 : 10) + wiggle(k);
  cr_assert_eq(bs_history_detect_steps(x, 90, 1, &st, &n, NULL), BS_OK);
  cr_assert_eq(n, 2);
  cr_expect_eq(st[0].entry, 30);
  cr_expect_eq(st[1].entry, 60);
  expect_close(st[0].before, 10);
  expect_close(st[0].after, 12);
  expect_close(st[1].after, 9);
  expect_close(st[1].size_pct, 100 * (9.0 / 12 - 1));
  /* Nothing beat the observed split in 99 shuffles: p = 1/100. */
  expect_close(st[0].p_value, 0.01);
  /* Seeded: the same seed gives the same steps. */
  bs_history_step *again = NULL;
  size_t m = 0;
  cr_assert_eq(bs_history_detect_steps(x, 90, 1, &again, &m, NULL), BS_OK);
  cr_assert_eq(m, n);
  cr_expect_eq(memcmp(st, again, n * sizeof *st), 0);
  free(again);
  free(st);
}

/* The change-point search's statistic against a brute-force numpy one
 * (tests/data/history/edivisive.py, pasted as printed): the largest
 * E-divisive Q over the splits and its first split, on a step, a series
 * of ties, a noisy series with two shifts and the shortest series. */
static const double ed_step[30] = {10.2058,
                                   10.3284,
                                   10.2293,
                                   9.8054000000000006,
                                   9.7213999999999992,
                                   10.013400000000001,
                                   10.1723,
                                   10.101800000000001,
                                   10.3621,
                                   10.1502,
                                   10.128,
                                   9.8536999999999999,
                                   9.7784999999999993,
                                   10.296900000000001,
                                   10.0098,
                                   10.1623,
                                   9.7247000000000003,
                                   9.9126999999999992,
                                   10.7418,
                                   10.844900000000001,
                                   11.1806,
                                   10.703900000000001,
                                   10.8932,
                                   11.0328,
                                   10.866300000000001,
                                   10.9495,
                                   10.9556,
                                   11.083600000000001,
                                   10.9137,
                                   11.054500000000001};
/* step: Q = 9.7499520855615014 at tau = 18 */
static const double ed_ties[17] = {2, 3, 2, 1, 2, 3, 2, 2, 2,
                                   2, 2, 3, 1, 3, 1, 1, 1};
/* ties: Q = 3.9095022624434383 at tau = 14 */
static const double ed_two[40] = {4.5605000000000002,
                                  4.6124000000000001,
                                  3.6113,
                                  2.9018000000000002,
                                  5.6342999999999996,
                                  3.8347000000000002,
                                  5.7782999999999998,
                                  6.8482000000000003,
                                  4.8852000000000002,
                                  3.8734000000000002,
                                  5.3941999999999997,
                                  5.7617000000000003,
                                  4.7382,
                                  5.0175000000000001,
                                  6.3353000000000002,
                                  7.2655000000000003,
                                  6.71,
                                  5.1336000000000004,
                                  5.9462999999999999,
                                  6.6029,
                                  5.7881,
                                  5.3899999999999997,
                                  5.2346000000000004,
                                  5.3680000000000003,
                                  5.3284000000000002,
                                  4.0488999999999997,
                                  5.6456999999999997,
                                  3.6993999999999998,
                                  5.3868999999999998,
                                  4.9176000000000002,
                                  4.6397000000000004,
                                  3.6726000000000001,
                                  4.0433000000000003,
                                  6.4736000000000002,
                                  4.5991,
                                  5.0381999999999998,
                                  5.1630000000000003,
                                  5.5556000000000001,
                                  4.2625000000000002,
                                  3.8898000000000001};
/* two: Q = 2.8843734285714286 at tau = 4 */
static const double ed_four[4] = {3, 1, 4, 1.5};
/* four: Q = -1.5 at tau = 2 */

Test(history, the_edivisive_statistic_matches_numpy) {
  static const struct {
    const double *x;
    size_t m;
    double q;
    size_t at;
  } want[] = {
      {ed_step, 30, 9.7499520855615014, 18},
      {ed_ties, 17, 3.9095022624434383, 14},
      {ed_two, 40, 2.8843734285714286, 4},
      {ed_four, 4, -1.5, 2},
  };
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    size_t at = 0;
    double q = bs__history_edivisive(want[k].x, want[k].m, &at);
    cr_expect_eq(at, want[k].at, "series %zu: split at %zu", k, at);
    cr_expect(fabs(q - want[k].q) <= 1e-12 * fabs(want[k].q),
              "series %zu: Q %.17g, numpy %.17g", k, q, want[k].q);
  }
  size_t at = 7;
  cr_expect(isnan(bs__history_edivisive(ed_four, 3, &at)) && at == 0,
            "three values: no split");
}
