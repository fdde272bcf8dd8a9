/* benchsite check: the linter end to end on the fixtures in
 * tests/data/check (every finding kind, with file:line), the examples
 * (clean), exit statuses 0/1/2, and the library behind it. The expected
 * calibration steps are worked by hand in the comments. */
#include <criterion/criterion.h>

#include "benchsite/check.h"
#include "benchsite/log.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_DIR BENCHSITE_TEST_DATA "/check"

/* Runs `benchsite check` inside tests/data/check, so that file names in
 * the findings are the bare fixture names. */
static ts_run check(const char *const *args) {
  const char *argv[16] = {"check"};
  size_t n = 1;
  for (; args[n - 1]; n++)
    argv[n] = args[n - 1];
  argv[n] = NULL;
  return ts_cli(CHECK_DIR, argv);
}

static void expect_lines(const char *out, const char *const *lines) {
  const char *p = out;
  for (size_t i = 0; lines[i]; i++) {
    size_t n = strlen(lines[i]);
    cr_expect(strncmp(p, lines[i], n) == 0 && p[n] == '\n',
              "line %zu:\n got: %.*s\nwant: %s", i + 1, (int)strcspn(p, "\n"),
              p, lines[i]);
    p = strchr(p, '\n');
    if (!p)
      return;
    p++;
  }
}

/* T = 5000 µs (Development). X: n0 = 1 took 100 µs, so n1 = max(2,
 * ceil(1 * 5000 / 100)) = 50, not 40; from 40 (4000 µs) the rule gives
 * max(41, 50) = 50, which line 4 has; 50 took 5000 µs = T, so line 5 must
 * not exist. Y: 1 -> max(2, 500) = 500, which took 4500 µs < T, so the
 * rule goes on to max(501, ceil(500 * 5000 / 4500)) = 556. Z has no
 * iterations to check. */
Test(check, calibration_rule_findings_with_file_and_line) {
  const char *args[] = {"calibration.csv", "--manifest", "development_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  const char *want[] = {
      "calibration.csv:3: calibration: case c, run 0, impl X: calibration "
      "step n = 40 breaks the rule: after n = 1 took 100 µs (T = 5000 µs) "
      "the next n is min(n_max, max(n + 1, ceil(n T / t))) = 50",
      "calibration.csv:5: calibration: case c, run 0, impl X: calibration "
      "continues after n = 50 (calibration.csv:4) took 5000 µs; the rule "
      "stops once the batch time reaches T = 5000 µs or n reaches n_max = "
      "1000000000",
      "calibration.csv:7: calibration: case c, run 0, impl Y: calibration "
      "stops at n = 500 with a batch time of 4500 µs, below T = 5000 µs; the "
      "rule continues to n = 556",
      "calibration.csv:8: calibration: case c, run 0, impl Z: calibration "
      "row without iterations; the calibration rule cannot be checked",
      "4 findings in 16 rows of 1 case (calibration checked against T = 5 "
      "ms, protocol Development)",
      NULL};
  expect_lines(r.out, want);
  cr_expect_str_eq(r.err, "");
  ts_run_free(&r);
}

/* RegressionGate: T = 10000 µs, so after n = 1 (100 µs) the next step is
 * ceil(10000 / 100) = 100. */
Test(check, regression_gate_protocol_sets_t_to_10_ms) {
  const char *args[] = {"calibration.csv", "--manifest",
                        "regression_gate_env.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  cr_expect(strstr(r.out,
                   "calibration.csv:3: calibration: case c, run 0, "
                   "impl X: calibration step n = 40 breaks the rule: "
                   "after n = 1 took 100 µs (T = 10000 µs) the next n "
                   "is min(n_max, max(n + 1, ceil(n T / t))) = 100\n") != NULL,
            "%s", r.out);
  cr_expect(strstr(r.out, "protocol RegressionGate)") != NULL);
  ts_run_free(&r);
}

Test(check, unknown_protocol_is_bad_input) {
  const char *args[] = {"calibration.csv", "--manifest", "bad_protocol_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "bad_protocol_env.csv: protocol \"Fast\" is not "
                          "Development, RegressionGate or Shared") != NULL,
            "%s", r.err);
  cr_expect_str_eq(r.out, "");
  ts_run_free(&r);
}

Test(check, confirm_batches_must_match_the_last_calibration_step) {
  const char *args[] = {"batch.csv", "--manifest", "development_env.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  const char *want[] = {
      "batch.csv:5: batch-size: case b [n=8], run 0, impl Q: confirm batch "
      "of 2 iterations differs from the last calibration step n = 1 "
      "(batch.csv:3) (and 1 more confirm row)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

Test(check, blocks_and_runs_missing_an_impl) {
  const char *args[] = {"missing.csv", "--manifest", "development_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  const char *want[] = {
      "missing.csv:4: missing-impl: case m, run 0, block 1: missing impl A",
      "missing.csv:7: missing-impl: case m, run 1: no confirm rows of impl "
      "B, which other runs of the case have",
      "2 findings in 7 rows of 1 case (calibration checked against T = 5 "
      "ms, protocol Development)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

/* Blocks 0-3 are two whole cycles of K = 2; A runs first in all four.
 * Block 4 (an incomplete cycle, B first) is not counted. */
Test(check, unbalanced_first_positions_over_whole_cycles) {
  const char *args[] = {"rotation.csv", "--manifest", "development_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  const char *want[] = {
      "rotation.csv:2: rotation: case r, run 0: impl A runs first in 4 of "
      "the 4 blocks of 2 whole rotation cycles, impl B in 0 (a rotation (j + "
      "o) mod 2 gives each impl 2)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

Test(check, unknown_columns_are_reported_on_the_header_line) {
  const char *args[] = {"unknown.csv", "--manifest", "development_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  const char *want[] = {
      "unknown.csv:1: unknown-column: unknown column \"host\" (column 5) is "
      "ignored",
      "unknown.csv:1: unknown-column: unknown column \"note\" (column 6) is "
      "ignored",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

/* A: 1 took 1000 µs -> max(2, 5) = 5, which took 5500 µs >= T: stop.
 * B: 1 took 2500 -> max(2, 2) = 2; 4800 -> max(3, ceil(2 * 5000 / 4800)
 * = 3) = 3; 6000 >= T: stop. Blocks rotate A, B, A first. */
Test(check, clean_log_exits_0) {
  const char *args[] = {"clean.csv", "--manifest", "development_env.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 0, "%s", r.out);
  cr_expect(strncmp(r.out, "0 findings in 11 rows of 1 case", 31) == 0, "%s",
            r.out);
  ts_run_free(&r);
}

Test(check, examples_are_clean) {
  const char *logs[][2] = {{"aa.csv", "aa-env.csv"},
                           {"pr.csv", "env.csv"},
                           {"tune.csv", "tune-env.csv"}};
  for (size_t i = 0; i < 3; i++) {
    char *log = ts_path(BENCHSITE_SOURCE_DIR "/examples", logs[i][0]);
    char *env = ts_path(BENCHSITE_SOURCE_DIR "/examples", logs[i][1]);
    const char *args[] = {"check", log, "--manifest", env, NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "%s: %s%s", logs[i][0], r.out, r.err);
    cr_expect(strncmp(r.out, "0 findings", 10) == 0, "%s", r.out);
    ts_run_free(&r);
    free(log);
    free(env);
  }
}

/* Input that breaks SPEC §1.1 is invalid, not a finding: exit 2, and every
 * broken file is named. */
Test(check, invalid_logs_exit_2_naming_each_file) {
  const char *args[] = {"bad_value.csv", "bad_header.csv", "clean.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "benchsite: bad_value.csv:3: column per_call_us: "
                          "\"-3\" is not a positive number\n") != NULL,
            "%s", r.err);
  cr_expect(strstr(r.err, "benchsite: bad_header.csv:1: ") != NULL, "%s",
            r.err);
  cr_expect_str_eq(r.out, "");
  ts_run_free(&r);
}

Test(check, unreadable_log_and_no_log_exit_2) {
  const char *args[] = {"no-such-file.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "no-such-file.csv") != NULL, "%s", r.err);
  ts_run_free(&r);
  const char *none[] = {NULL};
  r = check(none);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "no observation log") != NULL, "%s", r.err);
  ts_run_free(&r);
}

/* Duplicates across files are only visible in the combined log. */
Test(check, duplicates_across_files_exit_2) {
  const char *args[] = {"missing.csv", "missing.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "duplicate confirm row") != NULL, "%s", r.err);
  ts_run_free(&r);
}

/* --- the library ------------------------------------------------------ */

static bs_check_result *lint(const char *text, const bs_check_options *o) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "t.csv", text, strlen(text), &err),
               BS_OK, "%s", err.message);
  bs_check_result *r = NULL;
  cr_assert_eq(bs_check_run(log, o, &r, &err), BS_OK);
  /* Findings point into the log: copy what the tests look at. */
  for (size_t i = 0; i < r->nfindings; i++)
    r->findings[i].file = "t.csv";
  bs_log_free(log);
  return r;
}

/* n_max caps a step: from n = 1 (1 µs) the rule wants 5000 but n_max = 10
 * gives 10, after which calibration stops because n reached n_max. */
Test(check, n_max_caps_and_stops_calibration) {
  const char *text = "benchmark,impl,block,phase,iterations,per_call_us\n"
                     "x,A,,calibration,1,1\nx,A,,calibration,10,1\n"
                     "x,A,0,confirm,10,1\n";
  bs_check_options o;
  bs_check_options_init(&o);
  o.n_max = 10;
  bs_check_result *r = lint(text, &o);
  cr_expect_eq(r->nfindings, 0);
  bs_check_result_free(r);
  bs_check_options_init(&o);
  r = lint(text, &o);
  cr_assert_eq(r->nfindings, 2);
  cr_expect_eq(r->findings[0].kind, BS_CHECK_CALIBRATION);
  cr_expect_eq(r->findings[0].line, 3);
  cr_expect(strstr(r->findings[0].message, "= 5000") != NULL, "%s",
            r->findings[0].message);
  cr_expect(strstr(r->findings[1].message, "stops at n = 10") != NULL, "%s",
            r->findings[1].message);
  bs_check_result_free(r);
}

Test(check, protocol_targets_and_kind_names) {
  double t = 0;
  /* None named: run's default, Shared. */
  cr_expect_eq(bs_check_protocol_target(NULL, &t, NULL), BS_OK);
  cr_expect_eq(t, 500.0);
  cr_expect_eq(bs_check_protocol_target("Development", &t, NULL), BS_OK);
  cr_expect_eq(t, 5000.0);
  cr_expect_eq(bs_check_protocol_target("RegressionGate", &t, NULL), BS_OK);
  cr_expect_eq(t, 10000.0);
  cr_expect_eq(bs_check_protocol_target("development", &t, NULL), BS_EINPUT);
  cr_expect_str_eq(bs_check_kind_name(BS_CHECK_ROTATION), "rotation");
  cr_expect_str_eq(bs_check_kind_name(BS_CHECK_MISSING_IMPL), "missing-impl");
  bs_check_options o;
  bs_check_options_init(&o);
  o.target_us = 0;
  bs_log *log = bs_log_new();
  bs_check_result *r = NULL;
  cr_expect_eq(bs_check_run(log, &o, &r, NULL), BS_EUSAGE);
  bs_log_free(log);
}

/* Three impls rotating (j + o) mod 3 over six blocks: balanced; the same
 * log with block 4 in the order of block 3 is not. */
Test(check, rotation_of_three_impls) {
  const char *ok = "benchmark,impl,block,per_call_us\n"
                   "r,A,0,1\nr,B,0,1\nr,C,0,1\n"
                   "r,B,1,1\nr,C,1,1\nr,A,1,1\n"
                   "r,C,2,1\nr,A,2,1\nr,B,2,1\n"
                   "r,A,3,1\nr,B,3,1\nr,C,3,1\n"
                   "r,B,4,1\nr,C,4,1\nr,A,4,1\n"
                   "r,C,5,1\nr,A,5,1\nr,B,5,1\n";
  bs_check_options o;
  bs_check_options_init(&o);
  bs_check_result *r = lint(ok, &o);
  cr_expect_eq(r->nfindings, 0);
  bs_check_result_free(r);
  const char *bad = "benchmark,impl,block,per_call_us\n"
                    "r,A,0,1\nr,B,0,1\nr,C,0,1\n"
                    "r,B,1,1\nr,C,1,1\nr,A,1,1\n"
                    "r,C,2,1\nr,A,2,1\nr,B,2,1\n"
                    "r,A,3,1\nr,B,3,1\nr,C,3,1\n"
                    "r,A,4,1\nr,B,4,1\nr,C,4,1\n"
                    "r,C,5,1\nr,A,5,1\nr,B,5,1\n";
  r = lint(bad, &o);
  cr_assert_eq(r->nfindings, 1);
  cr_expect_eq(r->findings[0].kind, BS_CHECK_ROTATION);
  cr_expect(strstr(r->findings[0].message, "impl A runs first in 3 of the 6 "
                                           "blocks") != NULL,
            "%s", r->findings[0].message);
  cr_expect(strstr(r->findings[0].message, "impl B in 1") != NULL, "%s",
            r->findings[0].message);
  bs_check_result_free(r);
}

/* One batch size per case (batch_rule,per-case in the manifest), worked by
 * hand, T = 5000 us. "within": P calibrates 1 (3000 us, so next
 * max(2, ceil(5000/3000)) = 2) then 2 (6000 us: stop); Q 1 (1000 us, next
 * max(2, 5) = 5) then 5 (5000 us: stop). Fastest per-call times 3000 and
 * 1000 are within 4x, so both use the largest last step, 5: clean.
 * "narrow": the same calibration, but P's confirm batches keep its own 2.
 * "apart": P 1 (6000 us: stop), Q 1 (100 us, next 50) then 50 (stop);
 * 6000 / 100 = 60 > 4, so each keeps its own, and P's 50 is wrong. */
Test(check, per_case_rule_holds_every_impl_to_the_largest_calibrated_n) {
  const char *args[] = {"per_case.csv", "--manifest", "per_case_env.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  const char *want[] = {
      "per_case.csv:14: batch-size: case narrow, run 0, impl P: confirm "
      "batch of 2 iterations differs from the case's one batch size n = 5, "
      "the largest last calibration step (impl Q, per_case.csv:13; "
      "batch_rule per-case: the calibrated per-call times are within 4x) "
      "(and 1 more confirm row)",
      "per_case.csv:21: batch-size: case apart, run 0, impl P: confirm batch "
      "of 50 iterations differs from its own last calibration step n = 1 "
      "(per_case.csv:18; batch_rule per-case: the calibrated per-call times "
      "differ by more than 4x, so each impl keeps its own) (and 1 more "
      "confirm row)",
      "2 findings in 23 rows of 3 cases (calibration checked against T = 5 "
      "ms, protocol Development; one batch size per case)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

/* The same log with a manifest that lacks the key keeps the earlier rule: each
 * impl's confirm batches equal its own last step, so "within" (P's 5, not
 * its 2) is the finding and "narrow" is clean. */
Test(check, a_log_whose_manifest_lacks_batch_rule_keeps_the_earlier_rule) {
  const char *args[] = {"per_case.csv", "--manifest", "development_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  const char *want[] = {
      "per_case.csv:6: batch-size: case within, run 0, impl P: confirm batch "
      "of 5 iterations differs from the last calibration step n = 2 "
      "(per_case.csv:3) (and 1 more confirm row)",
      "per_case.csv:21: batch-size: case apart, run 0, impl P: confirm batch "
      "of 50 iterations differs from the last calibration step n = 1 "
      "(per_case.csv:18) (and 1 more confirm row)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
}

Test(check, an_unknown_batch_rule_is_bad_input) {
  const char *args[] = {"per_case.csv", "--manifest", "bad_batch_rule_env.csv",
                        NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "bad_batch_rule_env.csv: batch_rule \"per-impl\" is "
                          "not least-of-three or per-case"),
            "%s", r.err);
  cr_expect_str_eq(r.out, "");
  ts_run_free(&r);
}

/* Shared: T = 500 us, so after n = 1 (100 us) the next step is
 * ceil(500 / 100) = 5, not 6; the metric columns are not unknown. */
Test(check, shared_protocol_sets_t_to_half_a_millisecond) {
  const char *args[] = {"shared.csv", "--manifest", "shared_env.csv", NULL};
  ts_run r = check(args);
  cr_expect_eq(r.status, 1);
  const char *want[] = {
      "shared.csv:3: calibration: case s, run 0, impl A: calibration step n "
      "= 6 breaks the rule: after n = 1 took 100 µs (T = 500 µs) the next n "
      "is min(n_max, max(n + 1, ceil(n T / t))) = 5",
      "1 finding in 3 rows of 1 case (calibration checked against T = 0.5 "
      "ms, protocol Shared; one batch size per case)",
      NULL};
  expect_lines(r.out, want);
  ts_run_free(&r);
  bs_check_batch_rule rule;
  cr_expect_eq(bs_check_batch_rule_named(NULL, &rule, NULL), BS_OK);
  cr_expect_eq(rule, BS_CHECK_BATCH_PER_IMPL);
  cr_expect_eq(bs_check_batch_rule_named("per-case", &rule, NULL), BS_OK);
  cr_expect_eq(rule, BS_CHECK_BATCH_PER_CASE);
  double t = 0;
  cr_expect_eq(bs_check_protocol_target("Shared", &t, NULL), BS_OK);
  cr_expect_eq(t, 500.0);
}

/* batch_rule least-of-three, worked by hand, T = 5000 us. In "pre" P's one
 * calibration step (n = 1) lost its CPU: 6000 us of wall time, 40 us of CPU
 * time; Q calibrates 1 (45 us, next max(2, ceil(5000 / 45)) = 112) then
 * 112 (44.8 us a call: 5017.6 us, stop). Wall times 6000 and 44.8 are 134x
 * apart, CPU times 40 and 44 (Q's least of 44 and 44.5) are not: one batch
 * size, the largest last step, 112, and P's 112 is right. The earlier
 * per-case rule, on wall time alone, lets each keep its own and finds P's
 * 112 wrong. In "real" P's CPU time is 5900 us too: apart both ways, each
 * keeps its own (P 1, Q 112), clean under either rule. */
Test(check, least_of_three_needs_cpu_time_apart_too) {
  const char *text =
      "benchmark,impl,block,phase,iterations,per_call_us,cpu_per_call_us\n"
      "pre,P,,calibration,1,6000,40\n"
      "pre,Q,,calibration,1,45,44\n"
      "pre,Q,,calibration,112,44.8,44.5\n"
      "pre,P,0,confirm,112,45,44\n"
      "pre,Q,0,confirm,112,45,44\n"
      "pre,Q,1,confirm,112,45,44\n"
      "pre,P,1,confirm,112,45,44\n"
      "real,P,,calibration,1,6000,5900\n"
      "real,Q,,calibration,1,45,44\n"
      "real,Q,,calibration,112,44.8,44.5\n"
      "real,P,0,confirm,1,6000,5900\n"
      "real,Q,0,confirm,112,45,44\n"
      "real,Q,1,confirm,112,45,44\n"
      "real,P,1,confirm,1,6000,5900\n";
  bs_check_options o;
  bs_check_options_init(&o);
  o.batch_rule = BS_CHECK_BATCH_LEAST_OF_THREE;
  bs_check_result *r = lint(text, &o);
  cr_expect_eq(r->nfindings, 0, "%s",
               r->nfindings ? r->findings[0].message : "");
  bs_check_result_free(r);
  o.batch_rule = BS_CHECK_BATCH_PER_CASE;
  r = lint(text, &o);
  cr_assert_eq(r->nfindings, 1);
  cr_expect_eq(r->findings[0].kind, BS_CHECK_BATCH_SIZE);
  cr_expect(strstr(r->findings[0].message, "case pre, run 0, impl P"), "%s",
            r->findings[0].message);
  bs_check_result_free(r);
  bs_check_batch_rule rule;
  cr_expect_eq(bs_check_batch_rule_named("least-of-three", &rule, NULL), BS_OK);
  cr_expect_eq(rule, BS_CHECK_BATCH_LEAST_OF_THREE);
}
