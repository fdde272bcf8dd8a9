/* benchsite calibrate: argument refusals, the bounds against SciPy, the
 * scaled plants of command mode on logs whose answer is known by hand, the
 * JSON's fields, and a short calibration of a test library. */
#define _GNU_SOURCE /* sched_getaffinity */
#include "benchsite/calibrate.h"

#include "support.h"

#include <criterion/criterion.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *runlib(const char *variant) {
  return ts_pathf("%s/librunlib_%s.so", RUNLIB_DIR, variant);
}

TestSuite(calibrate, .fini = ts_free_owned);

static void cli_refuses(const char *const *args, const char *says) {
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "status %d, stderr: %s", r.status, r.err);
  cr_expect(strstr(r.err, says) != NULL, "stderr lacks \"%s\": %s", says,
            r.err);
  ts_run_free(&r);
}

Test(calibrate, bad_arguments_are_refused_with_status_2) {
  char *lib = runlib("ok");
  char *opt = ts_pathf("base=%s", lib);
  cli_refuses((const char *[]){"calibrate", NULL}, "nothing to measure");
  cli_refuses((const char *[]){"calibrate", "--lib", lib, NULL},
              "is not BASE=PATH.so");
  cli_refuses(
      (const char *[]){"calibrate", "--lib", opt, "--plants", "5,3", NULL},
      "ascending");
  cli_refuses(
      (const char *[]){"calibrate", "--lib", opt, "--plants", "0", NULL},
      "(0, 100]");
  cli_refuses((const char *[]){"calibrate", "--lib", opt, "--plants",
                               "1,2,3,4,5,6,7,8,9", NULL},
              "at most 8");
  cli_refuses((const char *[]){"calibrate", "--lib", opt, "--reps", "0", NULL},
              "--reps must be 1 to 100000");
  cli_refuses((const char *[]){"calibrate", "--lib", opt, "--duet",
                               "--sequential", NULL},
              "exclude each other");
  cli_refuses(
      (const char *[]){"calibrate", "--lib", opt, "--cmd", "b=true", NULL},
      "calibrate one build");
  cli_refuses(
      (const char *[]){"calibrate", "--lib", opt, "--budget", "-1", NULL},
      "--budget");
  cli_refuses(
      (const char *[]){"calibrate", "--lib", opt, "--protocol", "Fast", NULL},
      "--protocol");
}

Test(calibrate, the_library_refuses_other_than_one_impl) {
  bs_calibrate_options o;
  bs_calibrate_options_init(&o);
  bs_run_impl two[2] = {{"a", "x.so", NULL}, {"b", "x.so", NULL}};
  o.run.impls = two;
  o.run.nimpls = 2;
  bs_calibration *c = NULL;
  bs_error err;
  cr_expect_eq(bs_calibrate_run(&o, &c, &err), BS_EUSAGE);
  cr_expect_null(c);
  cr_expect(strstr(err.message, "exactly one impl") != NULL, "%s", err.message);
}

/* k, n, lower, upper: SciPy's (tests/data/calibrate/README.md). */
static const double bounds[][4] = {
    {0, 40, 0, 0.072157524505514548},
    {1, 40, 0.0012815105228752603, 0.11318836094473754},
    {2, 40, 0.0089569455929755914, 0.14915196127321298},
    {20, 40, 0.36109165999833781, 0.63890834000166219},
    {39, 40, 0.8868116390552625, 0.99871848947712472},
    {40, 40, 0.9278424754944854, 1},
    {3, 7, 0.1287563928042427, 0.77467841596755216},
    {0, 1, 0, 0.94999999999999996},
    {1, 1, 0.050000000000000003, 1},
    {5, 360, 0.0054881528836784026, 0.028979724822428256},
};

Test(calibrate, bounds_are_scipys_clopper_pearson) {
  for (size_t i = 0; i < sizeof bounds / sizeof bounds[0]; i++) {
    bs_calibration_rate r;
    bs_calibration_rate_set(&r, (uint64_t)bounds[i][0], (uint64_t)bounds[i][1]);
    cr_expect(fabs(r.low - bounds[i][2]) <= 1e-9,
              "%g of %g: low %.17g != %.17g", bounds[i][0], bounds[i][1], r.low,
              bounds[i][2]);
    cr_expect(fabs(r.high - bounds[i][3]) <= 1e-9,
              "%g of %g: high %.17g != %.17g", bounds[i][0], bounds[i][1],
              r.high, bounds[i][3]);
    cr_expect(fabs(r.rate - bounds[i][0] / bounds[i][1]) < 1e-15);
  }
  bs_calibration_rate r;
  bs_calibration_rate_set(&r, 0, 0);
  cr_expect(isnan(r.rate));
}

/* A log of impls A and `cand` over `blocks` blocks of one run: A's block
 * j takes 100 + j us of wall time and 60 + j us of CPU time, cand's
 * (100 + j) * ratio * wait and (60 + j) * ratio (wait: time it spent
 * waiting, which only the wall clock sees). */
static char *cand_log(int blocks, const char *cand, double ratio, double wait) {
  size_t cap = 64 + (size_t)blocks * 160;
  char *s = ts_own(malloc(cap));
  size_t at = (size_t)snprintf(s, cap,
                               "benchmark,dataset,impl,run,block,"
                               "per_call_us,cpu_per_call_us\n");
  for (int j = 0; j < blocks; j++) {
    at += (size_t)snprintf(s + at, cap - at, "sort,n=8,A,0,%d,%.17g,%.17g\n", j,
                           100.0 + j, 60.0 + j);
    at += (size_t)snprintf(s + at, cap - at, "sort,n=8,%s,0,%d,%.17g,%.17g\n",
                           cand, j, (100.0 + j) * ratio * wait,
                           (60.0 + j) * ratio);
  }
  return s;
}

/* Command mode: B waits 10 % longer than A in every block, which the gate
 * does not see (command pairs are gated on CPU time), and calibrate must
 * not either. */
static char *pair_log(int blocks, double ratio) {
  return cand_log(blocks, "B", ratio, 1.10);
}

static bs_calibration *judged(double ratio, int reps) {
  static const double plants[] = {2, 5};
  bs_calibrate_options o;
  bs_calibrate_options_init(&o);
  bs_run_impl base = {"base", "true", NULL};
  o.run.mode = BS_RUN_COMMAND;
  o.run.impls = &base;
  o.run.nimpls = 1;
  o.plants = plants;
  o.nplants = 2;
  o.reps = (uint64_t)reps;
  const char *logs[3];
  size_t lens[3];
  for (int r = 0; r < reps; r++) {
    logs[r] = pair_log(20, ratio);
    lens[r] = strlen(logs[r]);
  }
  bs_calibration *c = NULL;
  bs_error err;
  bs_status st = bs_calibrate_judge_logs(&o, BS_CALIBRATE_SCALED, logs, lens,
                                         (size_t)reps, &c, &err);
  cr_assert_eq(st, BS_OK, "%s", err.message);
  return c;
}

/* Identical CPU times (the metric command pairs are gated on; their wall
 * times are 10 % apart): every pair differs by 0, so the A/A change is
 * 0 %, and a plant of p % makes every pair's difference exactly p % of its
 * baseline: the median change is p % and the interval a point, flagged
 * when p >= 3 (the gate's delta) and not below. Judged on wall time, the
 * A/A change would be 10 % and flagged. */
Test(calibrate, command_mode_scales_the_candidate_by_hand) {
  bs_calibration *c = judged(1.0, 3);
  cr_assert_eq(c->ncases, 1);
  const bs_calibration_case *k = &c->cases[0];
  cr_expect_str_eq(k->benchmark, "sort");
  cr_expect_str_eq(k->dataset, "n=8");
  cr_expect_eq(c->method, BS_CALIBRATE_SCALED);
  cr_expect_eq(k->false_alarms.k, 0);
  cr_expect_eq(k->false_alarms.n, 3);
  cr_expect(fabs(k->aa_median_delta_pct) < 1e-12);
  cr_expect(fabs(k->median_delta_pct[0] - 2) < 1e-9, "%.17g",
            k->median_delta_pct[0]);
  cr_expect(fabs(k->median_delta_pct[1] - 5) < 1e-9, "%.17g",
            k->median_delta_pct[1]);
  cr_expect_eq(k->found[0].k, 0); /* 2 % is below the gate's 3 % */
  cr_expect_eq(k->found[1].k, 3);
  cr_expect_eq(c->suite_false_alarms.k, 0);
  cr_expect_eq(c->suite_found[1].k, 3);
  cr_expect_eq(c->suite_found[1].n, 3);
  bs_calibration_free(c);

  /* B 1 % slower already: the plant multiplies the measured candidate,
   * so +5 % lands at 1.01 x 1.05 - 1 = 6.05 %. */
  c = judged(1.01, 2);
  cr_expect(fabs(c->cases[0].aa_median_delta_pct - 1) < 1e-9);
  cr_expect(fabs(c->cases[0].median_delta_pct[1] - 6.05) < 1e-9, "%.17g",
            c->cases[0].median_delta_pct[1]);
  cr_expect(fabs(c->cases[0].median_delta_pct[0] - 3.02) < 1e-9);
  cr_expect_eq(c->cases[0].found[0].k, 2); /* 3.02 % >= 3 %, a point */
  bs_calibration_free(c);
}

/* Library mode side by side: a rep is 1 + plants two-impl logs, A beside
 * B and A beside each Pj, judged each on its own. Rep 0's A/A pair is 4 %
 * apart (a false alarm), rep 1's identical; the plants measure 2 % and 6
 * % (only the second found). */
Test(calibrate, a_duet_rep_is_one_log_per_pair) {
  static const double plants[] = {2, 6};
  bs_calibrate_options o;
  bs_calibrate_options_init(&o);
  bs_run_impl base = {"base", "lib.so", NULL};
  o.run.impls = &base;
  o.run.nimpls = 1;
  o.run.duet = 1;
  o.plants = plants;
  o.nplants = 2;
  o.reps = 2;
  const char *logs[6];
  size_t lens[6];
  for (size_t r = 0; r < 2; r++) {
    logs[3 * r] = cand_log(20, "B", r ? 1.0 : 1.04, 1);
    logs[3 * r + 1] = cand_log(20, "P1", 1.02, 1);
    logs[3 * r + 2] = cand_log(20, "P2", 1.06, 1);
  }
  for (size_t i = 0; i < 6; i++)
    lens[i] = strlen(logs[i]);
  bs_calibration *c = NULL;
  bs_error err;
  cr_assert_eq(bs_calibrate_judge_logs(&o, BS_CALIBRATE_REAL_WORK, logs, lens,
                                       6, &c, &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(c->ncases, 1);
  const bs_calibration_case *k = &c->cases[0];
  cr_expect_eq(c->reps, 2);
  cr_expect_eq(c->duet, 1);
  cr_expect_eq(k->false_alarms.k, 1);
  cr_expect_eq(k->false_alarms.n, 2);
  cr_expect_eq(c->suite_false_alarms.k, 1);
  cr_expect_eq(k->found[0].k, 0);
  cr_expect_eq(k->found[0].n, 2);
  cr_expect_eq(k->found[1].k, 2);
  cr_expect(fabs(k->median_delta_pct[1] - 6) < 1e-9, "%.17g",
            k->median_delta_pct[1]);
  char *json = NULL;
  size_t len = 0;
  cr_assert_eq(bs_calibration_json(c, &json, &len, &err), BS_OK);
  cr_expect(strstr(json, "\"design\": \"duet pairs\"") != NULL, "%s", json);
  cr_expect(strstr(json, "\"duet\": true") != NULL, "%s", json);
  free(json);
  bs_calibration_free(c);

  /* A rep whose runs are not all there is not judged. */
  cr_assert_eq(bs_calibrate_judge_logs(&o, BS_CALIBRATE_REAL_WORK, logs, lens,
                                       5, &c, &err),
               BS_OK, "%s", err.message);
  cr_expect_eq(c->reps, 1);
  bs_calibration_free(c);
}

Test(calibrate, json_names_every_field) {
  bs_calibration *c = judged(1.0, 2);
  char *json = NULL;
  size_t len = 0;
  bs_error err;
  cr_assert_eq(bs_calibration_json(c, &json, &len, &err), BS_OK);
  static const char *const want[] = {
      "\"schema\": \"benchsite.calibration/1\"",
      "\"mode\": \"command\"",
      "\"plant_method\": \"scaled observations\"",
      "\"design\": \"pairs\"",
      "\"threshold_pct\": 3",
      "\"reps_planned\": 2",
      "\"reps\": 2",
      "\"budget_hit\": false",
      "\"plants_pct\": [2, 5]",
      "\"environment\": {}",
      "\"false_alarms\": {\"count\": 0, \"runs\": 2, \"rate\": 0, \"low\": 0, "
      "\"high\": 0.7763932022500",
      "\"plant_pct\": 5",
      "\"found\": {\"count\": 2, \"runs\": 2, \"rate\": 1",
      "\"median_delta_pct\": 5",
      "\"min_case_rate\": 1",
      "\"benchmark\": \"sort\"",
      "\"dataset\": \"n=8\"",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_expect(strstr(json, want[i]) != NULL, "JSON lacks %s:\n%s", want[i],
              json);
  char *text = NULL;
  cr_assert_eq(bs_calibration_text(c, &text, &len, &err), BS_OK);
  cr_expect(strstr(text, "scaled observations") != NULL, "%s", text);
  cr_expect(strstr(text, "+5 % found in 2/2") != NULL, "%s", text);
  free(text);
  free(json);
  bs_calibration_free(c);
}

/* How many CPUs this process may run on. */
static int usable_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* A short calibration of a test library, end to end: two reps of three
 * blocks, one plant, sequential (interleaved). Timings are not asserted,
 * only the shape. */
Test(calibrate, a_library_calibrates_end_to_end, .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("calibrate_e2e"));
  char *json = ts_own(ts_path(dir, "cal.json"));
  char *html = ts_own(ts_path(dir, "page"));
  char *opt = ts_pathf("base=%s", runlib("ok"));
  ts_run r =
      ts_cli(NULL, (const char *[]){"calibrate", "--lib", opt, "--plants", "50",
                                    "--reps", "2", "--protocol", "Development",
                                    "--blocks", "3", "--sequential", "--quiet",
                                    "--json", json, "--html", html, NULL});
  cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "real work") != NULL, "%s", r.out);
  ts_run_free(&r);
  char *text = ts_own(ts_read(json, NULL));
  cr_assert_not_null(text);
  cr_expect(strstr(text, "\"plant_method\": \"real work\"") != NULL);
  cr_expect(strstr(text, "\"design\": \"interleaved\"") != NULL);
  cr_expect(strstr(text, "\"duet\": false") != NULL);
  cr_expect(strstr(text, "\"duet\": \"1\"") == NULL, "%s", text);
  cr_expect(strstr(text, "\"reps\": 2") != NULL);
  cr_expect(strstr(text, "\"protocol\": \"Development\"") != NULL);
  cr_expect(strstr(text, "\"machine\": ") != NULL);
  cr_expect(ts_exists(ts_own(ts_path(html, "index.html"))));
  cr_expect(ts_exists(ts_own(ts_path(html, "calibration.svg"))));
}

/* Side by side, as `run` measures two impls by default: a duet run per
 * pair, the manifest's duet,1 -- so compare --calibration takes it for a
 * duet run's manifest, and refuses a sequential calibration for it. */
Test(calibrate, a_library_calibrates_side_by_side, .timeout = 180) {
  if (usable_cpus() < 2)
    cr_skip_test("duet needs two usable CPUs");
  char *dir = ts_own(ts_tmpdir("calibrate_duet"));
  char *json = ts_own(ts_path(dir, "cal.json"));
  char *seq = ts_own(ts_path(dir, "seq.json"));
  char *log = ts_own(ts_path(dir, "run.csv"));
  char *env = ts_own(ts_path(dir, "env.csv"));
  char *lib = runlib("ok");
  char *opt = ts_pathf("base=%s", lib);
  const char *common[] = {"--plants", "50",         "--reps",
                          "2",        "--protocol", "Development",
                          "--blocks", "3",          "--quiet"};
  const char *args[32];
  size_t n = 0;
  args[n++] = "calibrate";
  args[n++] = "--lib";
  args[n++] = opt;
  for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
    args[n++] = common[i];
  args[n++] = "--duet";
  args[n++] = "--json";
  args[n++] = json;
  args[n] = NULL;
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
  cr_expect(strstr(r.out, ", duet") != NULL, "%s", r.out);
  ts_run_free(&r);
  char *text = ts_own(ts_read(json, NULL));
  cr_assert_not_null(text);
  cr_expect(strstr(text, "\"design\": \"duet pairs\"") != NULL, "%s", text);
  cr_expect(strstr(text, "\"duet\": true") != NULL, "%s", text);
  cr_expect(strstr(text, "\"duet\": \"1\"") != NULL, "%s", text);
  cr_expect(strstr(text, "\"reps\": 2") != NULL, "%s", text);
  cr_expect(strstr(text, "\"runs\": 2") != NULL, "%s", text);
  args[n - 3] = "--sequential";
  args[n - 1] = seq;
  r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
  ts_run_free(&r);

  /* A run with run's defaults on this machine: duet. */
  char *a = ts_pathf("a=%s", lib);
  char *b = ts_pathf("b=%s", lib);
  r = ts_cli(NULL,
             (const char *[]){"run", "--out", log, "--lib", a, "--lib", b,
                              "--protocol", "Development", "--blocks", "3",
                              "--quiet", "--manifest-out", env, NULL});
  cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
  ts_run_free(&r);
  char *m = ts_own(ts_read(env, NULL));
  cr_assert_not_null(m);
  cr_expect(strstr(m, "\"duet\",\"1\"") != NULL, "%s", m);
  r = ts_cli(NULL, (const char *[]){"compare", log, "--manifest", env,
                                    "--baseline", "a", "--candidate", "b",
                                    "--calibration", json, NULL});
  cr_expect(r.status == 0 || r.status == 1, "%d: %s", r.status, r.err);
  cr_expect(strstr(r.out, "on this runner: identical code flagged") != NULL,
            "%s\n%s", r.out, r.err);
  ts_run_free(&r);
  r = ts_cli(NULL, (const char *[]){"compare", log, "--manifest", env,
                                    "--baseline", "a", "--candidate", "b",
                                    "--calibration", seq, NULL});
  cr_expect_eq(r.status, 2, "%d: %s", r.status, r.out);
  cr_expect(strstr(r.err, "not comparable") != NULL, "%s", r.err);
  cr_expect(strstr(r.err, "duet") != NULL, "%s", r.err);
  ts_run_free(&r);
}

/* compare --calibration: the runner's figures in the text and the
 * comment's footer; a calibration of another machine is refused (status
 * 2, naming the key), as a noise file is. */
Test(calibrate, compare_shows_the_runner_and_refuses_a_foreign_calibration) {
  char *log = ts_pathf("%s/examples/pr.csv", BENCHSITE_SOURCE_DIR);
  char *env = ts_pathf("%s/examples/env.csv", BENCHSITE_SOURCE_DIR);
  char *mine = ts_own(ts_data("calibrate/runner.json"));
  char *foreign = ts_own(ts_data("calibrate/foreign.json"));
  const char *line = "on this runner: identical code flagged in \u2264 11.3 % "
                     "of runs, +5 % found in 92 % (calibrated 2026-12-01, 40 "
                     "runs)";
  ts_run r = ts_cli(NULL, (const char *[]){"compare", log, "--manifest", env,
                                           "--calibration", mine, NULL});
  cr_expect_eq(r.status, 1, "%d: %s", r.status, r.err); /* pr.csv regresses */
  cr_expect(strstr(r.out, line) != NULL, "%s", r.out);
  ts_run_free(&r);
  r = ts_cli(NULL,
             (const char *[]){"compare", log, "--manifest", env,
                              "--calibration", mine, "--markdown", "-", NULL});
  char *sub = ts_pathf("<sub>%s</sub>", line);
  cr_expect(strstr(r.out, sub) != NULL, "%s", r.out);
  ts_run_free(&r);
  r = ts_cli(NULL, (const char *[]){"compare", log, "--manifest", env,
                                    "--calibration", foreign, NULL});
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "not comparable") != NULL, "%s", r.err);
  cr_expect(strstr(r.err, "machine") != NULL, "%s", r.err);
  cr_expect_str_eq(r.out, "");
  ts_run_free(&r);
  /* Not a calibration at all: a noise file. */
  char *aa = ts_pathf("%s/examples/aa.csv", BENCHSITE_SOURCE_DIR);
  r = ts_cli(NULL, (const char *[]){"compare", log, "--manifest", env,
                                    "--calibration", aa, NULL});
  cr_expect_eq(r.status, 2);
  ts_run_free(&r);
}
