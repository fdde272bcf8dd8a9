/* The verdict refinements: p-values, Holm and Benjamini-Hochberg, the
 * significant improvement, the noise-aware gate, the A/A planning figures
 * and decisive tuning, against values computed independently
 * (tests/data/verdicts/make_fixtures.py wrote five.csv, aa.csv, tune.csv
 * and expected.txt; the Holm/BH tables below are worked by hand), and the
 * command-line rules for --level, --threshold, --noise and --family-wise. */
#include <criterion/criterion.h>

#include "benchsite/benchsite.h"
#include "fixtures.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPECTED "verdicts/expected.txt"

static void fini(void) { ts_free_owned(); }
TestSuite(verdicts, .fini = fini);

static bs_log *load(const char *name) {
  bs_log *log = bs_log_new();
  char *path = ts_data(name);
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, path, &err), BS_OK, "%s", err.message);
  free(path);
  return log;
}

static bs_log *parse(const char *csv) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "mem.csv", csv, strlen(csv), &err),
               BS_OK, "%s", err.message);
  return log;
}

static bs_compare_result *gate(const bs_log *log) {
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_compare_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_OK, "%s",
               err.message);
  return r;
}

/* ---- Holm and BH by hand ------------------------------------------------ */

/* K = 5, p = (0.01, 0.04, 0.03, 0.04, 0.005); ascending with the tie
 * between cases 1 and 3 broken by the caller (1 first):
 *   i  case  p      (K-i+1)p  Holm   K p / i   BH
 *   1  4     0.005  0.025     0.025  0.025     0.025
 *   2  0     0.01   0.04      0.04   0.025     0.025
 *   3  2     0.03   0.09      0.09   0.05      0.04
 *   4  1     0.04   0.08      0.09   0.05      0.04
 *   5  3     0.04   0.04      0.09   0.04      0.04
 * Holm keeps the running maximum, BH the running minimum from the end. */
Test(verdicts, holm_and_bh_match_a_hand_worked_table_with_ties) {
  const double p[5] = {0.01, 0.04, 0.03, 0.04, 0.005};
  const size_t order[5] = {4, 0, 2, 1, 3};
  const double holm_want[5] = {0.04, 0.09, 0.09, 0.09, 0.025};
  const double bh_want[5] = {0.025, 0.04, 0.04, 0.04, 0.025};
  double holm[5], bh[5];
  bs_compare_adjust(p, order, 5, holm, bh);
  for (int i = 0; i < 5; i++) {
    cr_expect_leq(fabs(holm[i] - holm_want[i]), 1e-15, "holm %d: %.17g", i,
                  holm[i]);
    cr_expect_leq(fabs(bh[i] - bh_want[i]), 1e-15, "bh %d: %.17g", i, bh[i]);
  }
  /* Both cap at 1: p = (0.5, 0.9): Holm 2(0.5) = 1, max(1, 0.9) = 1;
   * BH q_2 = 2(0.9)/2 = 0.9, q_1 = min(2(0.5)/1, 0.9) = 0.9. */
  const double p2[2] = {0.9, 0.5};
  const size_t o2[2] = {1, 0};
  bs_compare_adjust(p2, o2, 2, holm, bh);
  cr_expect_eq(holm[0], 1.0);
  cr_expect_eq(holm[1], 1.0);
  cr_expect_leq(fabs(bh[0] - 0.9), 1e-15);
  cr_expect_leq(fabs(bh[1] - 0.9), 1e-15);
}

/* ---- compare: p, Holm, BH and the flags against numpy ------------------ */

Test(verdicts, p_values_and_family_adjustments_match_numpy) {
  bs_log *log = load("verdicts/five.csv");
  bs_compare_result *r = gate(log);
  cr_assert_eq(r->ncases, 5);
  size_t fam = 0, imp = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    char prefix[128];
    double w[8];
    snprintf(prefix, sizeof prefix, "compare %s %s", c->benchmark,
             c->dataset[0] ? c->dataset : "-");
    cr_assert_eq(fx_numbers(EXPECTED, prefix, w, 8), 8, "%s", prefix);
    cr_expect_leq(fx_reldiff(c->p_value, w[0]), 1e-12, "%s p %.17g", prefix,
                  c->p_value);
    cr_expect_leq(fx_reldiff(c->holm_p, w[1]), 1e-12, "%s holm %.17g", prefix,
                  c->holm_p);
    cr_expect_leq(fx_reldiff(c->bh_q, w[2]), 1e-12, "%s bh %.17g", prefix,
                  c->bh_q);
    cr_expect_eq(c->significant_regression, (int)w[3], "%s", prefix);
    cr_expect_eq(c->significant_improvement, (int)w[4], "%s", prefix);
    cr_expect_eq(c->family_significant_regression, (int)w[5], "%s", prefix);
    cr_expect_leq(fx_reldiff(c->ci_low_us, w[6]), 1e-9, "%s L", prefix);
    cr_expect_leq(fx_reldiff(c->ci_high_us, w[7]), 1e-9, "%s U", prefix);
    cr_expect_eq(c->effective_threshold_pct, 3.0);
    cr_expect_eq(c->within_noise, 0);
    fam += (size_t)w[5];
    imp += (size_t)w[4];
  }
  cr_expect_eq(r->family_regressions, fam);
  cr_expect_eq(r->improvements, imp);
  cr_expect_eq(fam, 1, "the fixture plants one regression Holm keeps");
  cr_expect_eq(imp, 1, "and one improvement");
  bs_compare_result_free(r);
  bs_log_free(log);
}

/* ---- the family-wise gate on 200 cases of identical code --------------- */

/* A synthetic log of `ncases` cases of identical code (5 % noise on each
 * sample, 12 blocks), plus a case at +20 % when `planted`. */
static char *synthetic(size_t ncases, int planted) {
  bs_rng g;
  bs_rng_seed(&g, 7);
  size_t cap = (ncases + 1) * 12 * 2 * 48 + 64, used = 0;
  char *csv = malloc(cap);
  cr_assert_not_null(csv);
  used += (size_t)snprintf(csv, cap,
                           "benchmark,dataset,impl,block,"
                           "per_call_us\n");
  for (size_t k = 0; k < ncases + (planted != 0); k++) {
    double factor = k == ncases ? 1.20 : 1.0;
    double noise = k == ncases ? 0.01 : 0.05;
    for (int j = 0; j < 12; j++) {
      for (int side = 0; side < 2; side++) {
        /* Irwin-Hall(4) - 2, about unit variance / 3. */
        double u = 0;
        for (int t = 0; t < 4; t++)
          u += (double)(bs_rng_next(&g) >> 11) / 9007199254740992.0;
        double v = 100.0 * (side ? factor : 1.0) * (1 + noise * (u - 2) * 1.7);
        used += (size_t)snprintf(
            csv + used, cap - used, "%s%03zu,,%s,%d,%.6f\n",
            k == ncases ? "planted" : "same", k, side ? "pr" : "main", j, v);
      }
    }
  }
  return csv;
}

Test(verdicts, holm_flags_no_identical_case_that_the_per_case_gate_flags) {
  char *csv = synthetic(200, 0);
  bs_log *log = parse(csv);
  bs_compare_result *r = gate(log);
  cr_assert_eq(r->ncases, 200);
  cr_expect_gt(r->regressions, 0, "the per-case gate flags identical code");
  cr_expect_eq(r->family_regressions, 0, "Holm flags none");
  r->options.family_wise = 1;
  cr_expect_eq(bs_compare_gate_failures(r), 0);
  bs_compare_result_free(r);
  bs_log_free(log);
  free(csv);
}

Test(verdicts, holm_keeps_a_planted_20_percent_regression) {
  char *csv = synthetic(200, 1);
  bs_log *log = parse(csv);
  bs_compare_result *r = gate(log);
  cr_assert_eq(r->ncases, 201);
  const bs_case_compare *c = NULL;
  for (size_t i = 0; i < r->ncases; i++)
    if (!strncmp(r->cases[i].benchmark, "planted", 7))
      c = &r->cases[i];
  cr_assert_not_null(c);
  /* Every theta* > 0: p = 1/10001, Holm 201/10001 <= 0.025. */
  cr_expect_eq(c->p_value, 1.0 / 10001.0);
  cr_expect_leq(fabs(c->holm_p - 201.0 / 10001.0), 1e-15);
  cr_expect(c->family_significant_regression);
  cr_expect_eq(r->family_regressions, 1);
  bs_compare_result_free(r);
  bs_log_free(log);
  free(csv);
}

/* ---- overflow-safe delta% ------------------------------------------------ */

Test(verdicts, a_non_finite_change_is_an_input_error_naming_the_case) {
  bs_log *log = parse("benchmark,dataset,impl,block,per_call_us\n"
                      "big,n=2,main,0,1e-300\nbig,n=2,pr,0,1.7e308\n"
                      "big,n=2,main,1,1.7e308\nbig,n=2,pr,1,1e-300\n");
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_compare_result *r = NULL;
  bs_error err;
  cr_expect_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_EINPUT);
  cr_expect_null(r);
  cr_expect(strstr(err.message, "big [n=2]") != NULL, "%s", err.message);
  bs_log_free(log);
}

/* ---- the noise-aware gate ------------------------------------------------ */

/* slow: +5 % (a significant regression at delta 3); fast: -5 %; other:
 * +5 % with no floor in the noise file. */
static const char gate_log[] =
    "benchmark,dataset,impl,block,per_call_us\n"
    "slow,,main,0,100\nslow,,pr,0,105\nslow,,main,1,101\nslow,,pr,1,106\n"
    "slow,,main,2,99\nslow,,pr,2,104\nslow,,main,3,100\nslow,,pr,3,105.2\n"
    "slow,,main,4,100.5\nslow,,pr,4,105.4\nslow,,main,5,99.5\nslow,,pr,5,"
    "104.6\n"
    "fast,,main,0,100\nfast,,pr,0,95\nfast,,main,1,101\nfast,,pr,1,96\n"
    "fast,,main,2,99\nfast,,pr,2,94\nfast,,main,3,100\nfast,,pr,3,95.2\n"
    "fast,,main,4,100.5\nfast,,pr,4,95.4\nfast,,main,5,99.5\nfast,,pr,5,94.6\n"
    "other,,main,0,100\nother,,pr,0,105\nother,,main,1,101\nother,,pr,1,106\n"
    "other,,main,2,99\nother,,pr,2,104\nother,,main,3,100\nother,,pr,3,105.2\n"
    "other,,main,4,100.5\nother,,pr,4,105.4\nother,,main,5,99.5\nother,,pr,5,"
    "104.6\n";

static const char manifest[] =
    "key,value\ntarget,native\nprofile,release\ndtype,f64\nmachine,box\n"
    "frequency_policy,performance\nprotocol,Development\nbaseline,main\n"
    "candidate,pr\n";

static char *floors_json(const char *machine) {
  char buf[2048];
  snprintf(buf, sizeof buf,
           "{\"schema\": \"benchsite.noise/1\", \"environment\": {%s%s%s},\n"
           "\"cases\": [{\"benchmark\": \"slow\", \"dataset\": \"\", "
           "\"paired_deltas_pct\": [8.5, -8.5], "
           "\"paired_noise_floor_pct\": 8.5},\n{\"benchmark\": \"fast\", "
           "\"dataset\": \"\", \"paired_deltas_pct\": [-2, 2], "
           "\"paired_noise_floor_pct\": 2}]}\n",
           machine ? "\"target\": \"native\", \"profile\": \"release\", "
                     "\"dtype\": \"f64\", \"frequency_policy\": "
                     "\"performance\", \"protocol\": \"Development\", "
                     "\"machine\": \""
                   : "",
           machine ? machine : "", machine ? "\"" : "");
  return ts_own(strdup(buf));
}

Test(verdicts, the_noise_aware_gate_raises_delta_to_the_floor) {
  bs_log *log = parse(gate_log);
  bs_compare_result *r = gate(log);
  cr_assert_eq(r->ncases, 3); /* fast, other, slow */
  cr_expect_eq(r->regressions, 2, "the plain gate flags slow and other");
  const char *json = floors_json("box");
  bs_noise_floors *f = NULL;
  bs_error err;
  cr_assert_eq(bs_noise_floors_parse("n.json", json, strlen(json), &f, &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(bs_compare_apply_noise(r, bs_noise_floors_lookup, f), BS_OK);
  const bs_case_compare *fast = &r->cases[0], *other = &r->cases[1],
                        *slow = &r->cases[2];
  cr_assert_str_eq(slow->benchmark, "slow");
  cr_expect_eq(slow->effective_threshold_pct, 8.5);
  cr_expect_eq(slow->verdict, BS_VERDICT_SLOWER, "the verdict keeps delta");
  cr_expect_eq(slow->significant_regression, 0);
  cr_expect_eq(slow->within_noise, 1);
  cr_expect_eq(fast->effective_threshold_pct, 3.0, "delta_eff never lowers");
  cr_expect_eq(fast->significant_improvement, 1);
  cr_expect_eq(other->has_noise_floor, 0);
  cr_expect_eq(other->significant_regression, 1);
  cr_expect_eq(r->regressions, 1);
  cr_expect_eq(r->raised, 1);
  cr_expect_eq(r->without_floor, 1);
  int named = 0;
  for (size_t i = 0; i < r->nwarnings; i++)
    named |= strstr(r->warnings[i], "no A/A noise floor for 1 of 3 cases "
                                    "(other)") != NULL;
  cr_expect(named, "the cases without a floor are named");
  cr_expect_gt(slow->nwarnings, 0, "the raised threshold is explained");
  bs_noise_floors_free(f);
  bs_compare_result_free(r);
  bs_log_free(log);
}

typedef struct gate_files {
  char *dir, *log, *mf, *noise, *other, *none, *json;
} gate_files;

static gate_files write_gate_files(const char *tag) {
  gate_files g;
  g.dir = ts_own(ts_tmpdir(tag));
  g.log = ts_own(ts_path(g.dir, "pr.csv"));
  g.mf = ts_own(ts_path(g.dir, "env.csv"));
  g.noise = ts_own(ts_path(g.dir, "noise.json"));
  g.other = ts_own(ts_path(g.dir, "other.json"));
  g.none = ts_own(ts_path(g.dir, "none.json"));
  g.json = ts_own(ts_path(g.dir, "out.json"));
  cr_assert_eq(ts_write(g.log, gate_log), 0);
  cr_assert_eq(ts_write(g.mf, manifest), 0);
  cr_assert_eq(ts_write(g.noise, floors_json("box")), 0);
  cr_assert_eq(ts_write(g.other, floors_json("laptop")), 0);
  cr_assert_eq(ts_write(g.none, floors_json(NULL)), 0);
  return g;
}

Test(verdicts, cli_noise_aware_gate_passes_what_the_plain_gate_fails) {
  gate_files g = write_gate_files("verdicts_gate");
  /* Without "other" the plain gate still fails on slow; with the floors
   * it passes. */
  const char *plain[] = {"compare", g.log, "--manifest", g.mf, NULL};
  ts_run r = ts_cli(NULL, plain);
  cr_expect_eq(r.status, 1, "%s", r.err);
  ts_run_free(&r);
  const char *aware[] = {"compare", g.log,    "--manifest", g.mf, "--noise",
                         g.noise,   "--json", g.json,       NULL};
  r = ts_cli(NULL, aware);
  cr_expect_eq(r.status, 1, "other has no floor and still regresses: %s",
               r.err);
  cr_expect(strstr(r.err, "no noise floor for 1 of 3 cases") != NULL, "%s",
            r.err);
  char *j = ts_own(ts_read(g.json, NULL));
  cr_assert_not_null(j);
  const char *slow = strstr(j, "\"benchmark\": \"slow\"");
  cr_assert_not_null(slow);
  cr_expect(strstr(slow, "\"effective_threshold_pct\": 8.5") != NULL, "%s",
            slow);
  cr_expect(strstr(slow, "\"within_noise\": true") != NULL);
  cr_expect(strstr(slow, "\"significant_regression\": false") != NULL);
  cr_expect(strstr(j, "\"regressions\": 1,") != NULL);
  ts_run_free(&r);
  /* The text says why the threshold was raised. */
  const char *text[] = {"compare", g.log,   "--manifest", g.mf,
                        "--noise", g.noise, NULL};
  r = ts_cli(NULL, text);
  cr_expect(strstr(r.out, "threshold raised from 3 % to 8.5 %") != NULL, "%s",
            r.out);
  cr_expect(strstr(r.out, "noise-aware gate: 1 of 3 cases had its threshold "
                          "raised") != NULL,
            "%s", r.out);
  /* It names the cases without a floor once, on stdout; stderr does not
   * repeat it. */
  cr_expect(strstr(r.out, "no A/A noise floor for 1 of 3 cases") != NULL, "%s",
            r.out);
  cr_expect(strstr(r.err, "noise floor") == NULL, "%s", r.err);
  ts_run_free(&r);
  /* And the pull-request comment. */
  char *md = ts_own(ts_path(g.dir, "c.md"));
  const char *mdargs[] = {"compare",    g.log,     "--manifest",
                          g.mf,         "--noise", g.noise,
                          "--markdown", md,        NULL};
  r = ts_cli(NULL, mdargs);
  char *m = ts_own(ts_read(md, NULL));
  cr_assert_not_null(m);
  cr_expect(strstr(m, "Noise-aware gate: 1 of 3 cases had its threshold "
                      "raised") != NULL,
            "%s", m);
  cr_expect(strstr(m, "1 had no floor and kept δ = 3 %") != NULL);
  cr_expect(strstr(m, "Family-wise: 1 of 1 significant regression survives "
                      "Holm's correction at 2.5 %") != NULL);
  cr_expect(strstr(m, "| ≈ within noise (floor ") != NULL, "%s", m);
  cr_expect(strstr(m, "◆ significant improvement") != NULL);
  ts_run_free(&r);
}

Test(verdicts, cli_refuses_a_noise_file_from_another_setup) {
  gate_files g = write_gate_files("verdicts_env");
  const char *args[] = {"compare", g.log,    "--manifest", g.mf, "--noise",
                        g.other,   "--json", g.json,       NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s", r.err);
  cr_expect(strstr(r.err, "machine (this run \"box\", the A/A run "
                          "\"laptop\")") != NULL,
            "%s", r.err);
  cr_expect_eq(ts_exists(g.json), 0, "no output on refusal");
  ts_run_free(&r);
  /* A noise file without an environment cannot be checked, and an
   * unknown setup is never assumed comparable: refused (issue 23; main at
   * eb6f279 accepted it and its floors raised the thresholds). */
  const char *none[] = {"compare", g.log,    "--manifest", g.mf, "--noise",
                        g.none,    "--json", g.json,       NULL};
  r = ts_cli(NULL, none);
  cr_expect_eq(r.status, 2, "%s", r.err);
  cr_expect(strstr(r.err, "records no environment") != NULL, "%s", r.err);
  cr_expect_eq(ts_exists(g.json), 0, "no output on refusal");
  ts_run_free(&r);
}

/* ---- --level, --threshold, --family-wise --------------------------------- */

static void expect_refused(const char *const *args, const char *message) {
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s: %s", args[2], r.err);
  cr_expect(strstr(r.err, message) != NULL, "stderr %s\nwant %s", r.err,
            message);
  ts_run_free(&r);
}

Test(verdicts, fractions_are_refused_with_a_hint) {
  gate_files g = write_gate_files("verdicts_level");
  const char *t[] = {"compare", g.log,         "--manifest", g.mf, "--mode",
                     "hotspot", "--threshold", "0.05",       NULL};
  expect_refused(t, "did you mean 5?");
  const char *l[] = {"compare", g.log,     "--manifest", g.mf, "--mode",
                     "hotspot", "--level", "0.95",       NULL};
  expect_refused(l, "did you mean 95?");
  const char *c1[] = {"compare",     g.log, "--manifest", g.mf,
                      "--threshold", "5",   NULL};
  expect_refused(c1, "--threshold cannot be used with --mode confirmatory");
  const char *c2[] = {"compare", g.log, "--manifest", g.mf,
                      "--level", "90",  NULL};
  expect_refused(c2, "--level cannot be used with --mode confirmatory");
  char *aa = ts_own(ts_data("verdicts/aa.csv"));
  const char *n1[] = {"noise", aa,        "--a",  "A", "--b",
                      "B",     "--level", "0.95", NULL};
  expect_refused(n1, "did you mean 95?");
  /* A hotspot threshold of 0.5 % is allowed. */
  const char *ok[] = {"compare", g.log,         "--manifest", g.mf, "--mode",
                      "hotspot", "--threshold", "0.5",        NULL};
  ts_run r = ts_cli(NULL, ok);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
}

Test(verdicts, family_wise_sets_the_exit_status) {
  char *dir = ts_own(ts_tmpdir("verdicts_fw"));
  char *log = ts_own(ts_path(dir, "same.csv"));
  char *json = ts_own(ts_path(dir, "out.json"));
  char *csv = synthetic(200, 0);
  cr_assert_eq(ts_write(log, csv), 0);
  free(csv);
  const char *plain[] = {"compare",     log,  "--baseline", "main",
                         "--candidate", "pr", NULL};
  ts_run r = ts_cli(NULL, plain);
  cr_expect_eq(r.status, 1, "the per-case gate fails identical code");
  cr_expect(strstr(r.out, "significant regressions survive Holm's correction "
                          "at 2.5 %") != NULL,
            "%s", r.out);
  ts_run_free(&r);
  const char *fw[] = {"compare",     log,  "--baseline",    "main",
                      "--candidate", "pr", "--family-wise", "--json",
                      json,          NULL};
  r = ts_cli(NULL, fw);
  cr_expect_eq(r.status, 0, "Holm passes it: %s", r.err);
  char *j = ts_own(ts_read(json, NULL));
  cr_assert_not_null(j);
  cr_expect(strstr(j, "\"family_regressions\": 0,") != NULL);
  cr_expect(strstr(j, "\"family_wise\": true,") != NULL);
  ts_run_free(&r);
}

/* ---- A/A planning figures ---------------------------------------------- */

Test(verdicts, planning_figures_match_numpy) {
  bs_log *log = load("verdicts/aa.csv");
  bs_noise_options o;
  bs_noise_options_init(&o);
  o.resamples = 200; /* the unpaired confidences play no part here */
  bs_noise_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_noise_run(log, "A", "B", &o, &r, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(r->ncases, 3);
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_noise_case *c = &r->cases[i];
    char prefix[128];
    double w[3];
    snprintf(prefix, sizeof prefix, "noise %s %s", c->benchmark,
             c->dataset[0] ? c->dataset : "-");
    cr_assert_eq(fx_numbers(EXPECTED, prefix, w, 3), 3, "%s", prefix);
    cr_expect_leq(fx_reldiff(c->paired_noise_floor_pct, w[0]), 1e-12,
                  "%s floor %.17g", prefix, c->paired_noise_floor_pct);
    cr_expect_eq(c->median_pairs, w[1], "%s", prefix);
    cr_expect_eq((double)c->blocks_for_gate, w[2], "%s blocks %llu", prefix,
                 (unsigned long long)c->blocks_for_gate);
  }
  double s;
  cr_assert_eq(fx_numbers(EXPECTED, "suite", &s, 1), 1);
  cr_expect_eq(r->suite_false_alarm_rate, s);
  cr_expect_eq(r->suite_runs, 6);
  char *text = NULL;
  size_t n;
  cr_assert_eq(bs_text_noise(r, &text, &n, NULL), BS_OK);
  cr_expect(strstr(text, "An unchanged change fails 50 % of gates on this "
                         "setup") != NULL,
            "%s", text);
  /* (wrapped at 78 columns) */
  cr_expect(strstr(text, "About 68 blocks per run (now 10)\nwould let δ = 3 % "
                         "resolve") != NULL,
            "%s", text);
  free(text);
  bs_noise_result_free(r);
  bs_log_free(log);
}

/* ---- decisive tuning ----------------------------------------------------- */

Test(verdicts, tuning_decisiveness_matches_numpy) {
  bs_log *log = load("verdicts/tune.csv");
  bs_tune_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_tune_run(log, BS_METRIC_WALL, 0, &r, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(r->ncases, 3);
  size_t decisive = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_tune_case *c = &r->cases[i];
    char prefix[128];
    double w[3];
    cr_assert_not_null(c->runner_up);
    snprintf(prefix, sizeof prefix, "tune %s %s %s %s", c->benchmark,
             c->dataset, c->best, c->runner_up);
    cr_assert_eq(fx_numbers(EXPECTED, prefix, w, 3), 3, "no line \"%s\"",
                 prefix);
    cr_expect_leq(fx_reldiff(c->ci_low_us, w[0]), 1e-9, "%s L", prefix);
    cr_expect_leq(fx_reldiff(c->ci_high_us, w[1]), 1e-9, "%s U", prefix);
    cr_expect_eq(c->decisive, (int)w[2], "%s", prefix);
    decisive += c->decisive != 0;
  }
  cr_expect_eq(decisive, 1, "one win is decisive, two are ties");
  cr_assert_eq(r->ncrossovers, 2);
  for (size_t i = 0; i < r->ncrossovers; i++) {
    const bs_crossover *x = &r->crossovers[i];
    char prefix[128];
    double w;
    snprintf(prefix, sizeof prefix, "cross %s %s %s", x->benchmark, x->a, x->b);
    cr_assert_eq(fx_numbers(EXPECTED, prefix, &w, 1), 1, "no line \"%s\"",
                 prefix);
    cr_expect_eq(x->decisive, (int)w, "%s", prefix);
  }
  char *text = NULL;
  size_t n;
  cr_assert_eq(bs_text_tune(r, &text, &n, NULL), BS_OK);
  cr_expect(strstr(text, "= tie with") != NULL, "%s", text);
  free(text);
  bs_tune_result_free(r);
  bs_log_free(log);
}

/* ---- the pages say it too ----------------------------------------------- */

static char *page_of(const char *dir, const char *file) {
  char *p = ts_own(ts_path(dir, file));
  char *html = ts_own(ts_read(p, NULL));
  cr_assert_not_null(html, "%s", p);
  return html;
}

Test(verdicts, pages_state_the_refined_verdicts) {
  gate_files g = write_gate_files("verdicts_pages");
  char *cmp = ts_own(ts_path(g.dir, "cmp"));
  const char *c[] = {"compare", g.log,    "--manifest", g.mf, "--noise",
                     g.noise,   "--html", cmp,          NULL};
  ts_run r = ts_cli(NULL, c);
  cr_expect_eq(r.status, 1, "%s", r.err);
  ts_run_free(&r);
  const char *index = page_of(cmp, "index.html");
  cr_expect(strstr(index, "Noise-aware gate: 1 of 3 cases had their "
                          "threshold raised") != NULL);
  cr_expect(strstr(index, "1 case had no floor in the noise file") != NULL);
  cr_expect(strstr(index, "1 of 1 significant regression survives Holm") !=
            NULL);
  cr_expect(strstr(index, "◆ significant improvement") != NULL);
  cr_expect(strstr(index, "▲ slower, not significant") != NULL);

  char *aa = ts_own(ts_data("verdicts/aa.csv"));
  char *nd = ts_own(ts_path(g.dir, "aa"));
  const char *n[] = {"noise",       aa,    "--a",    "A", "--b", "B",
                     "--resamples", "200", "--html", nd,  NULL};
  r = ts_cli(NULL, n);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  const char *aap = page_of(nd, "aa.html");
  cr_expect(strstr(aap, "An unchanged change fails 50\xc2\xa0% of gates on "
                        "this setup") != NULL);
  cr_expect(strstr(aap, "About 68 blocks per run (now 10)") != NULL);

  char *tl = ts_own(ts_data("verdicts/tune.csv"));
  char *td = ts_own(ts_path(g.dir, "tune"));
  const char *t[] = {"tune", tl, "--html", td, NULL};
  r = ts_cli(NULL, t);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  const char *tp = page_of(td, "tuning.html");
  cr_expect(strstr(tp, "= tie</span> with") != NULL);
  cr_expect(strstr(tp, "decisive over") != NULL);
  cr_expect(strstr(tp, "that are ties (not decisive") != NULL);
}
