/* The history model and its chains: values checked against
 * tests/data/history/chains.py and model.py (numpy, scipy, an independent
 * bootstrap), chain breaks and verdict counts worked by hand. */
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
  expect_close(y->creep.creep_pct, 3.4748);
  cr_expect_eq(y->creep.links, 3);
  cr_expect(!y->creep.creeping);

  /* Z: "Z chain 0": three +1.1 % links no gate caught make 3.34 %. */
  cr_assert_eq(z->nentries, 5);
  cr_expect_eq(z->entries[4].run, 5);
  cr_expect(!z->entries[4].link, "a NaN delta is no link");
  expect_close(z->entries[2].chained_index, 1.0333643309999998);
  expect_close(z->creep.creep_pct, 3.3364330999999803);
  cr_expect_eq(z->creep.links, 3);
  cr_expect(z->creep.creeping);
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
  cr_expect(z->drift.drifted);
  cr_expect_eq(h->drifting, 1);
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
