/* The compare and tune commands end to end: exit codes, the gate, errors
 * with file:line on stderr, and that a failed run leaves no output file. */
#include <criterion/criterion.h>

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *example(const char *name) {
  return ts_path(BENCHSITE_SOURCE_DIR "/examples", name);
}

Test(cli_compare, examples_regression_exits_1_and_prints_a_table) {
  char *log = example("pr.csv"), *env = example("env.csv");
  const char *args[] = {"compare", log, "--manifest", env, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  cr_expect(strstr(r.out, "REGRESSION") != NULL, "%s", r.out);
  cr_expect(strstr(r.out, "sum [n=65536]") != NULL);
  cr_expect(strstr(r.out, "1 significant regression") != NULL);
  ts_run_free(&r);
  free(log);
  free(env);
}

Test(cli_compare, hotspot_mode_never_fails_the_build) {
  char *log = example("pr.csv"), *env = example("env.csv");
  const char *args[] = {"compare", log,           "--manifest", env, "--mode",
                        "hotspot", "--threshold", "50",         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  free(log);
  free(env);
}

Test(cli_compare, equivalent_only_log_exits_0) {
  char *dir = ts_tmpdir("cli_eq");
  char *log = ts_path(dir, "eq.csv");
  ts_write(log, "benchmark,impl,block,per_call_us\n"
                "a,main,0,10\na,pr,0,10.01\na,main,1,10\na,pr,1,10.02\n"
                "a,main,2,10\na,pr,2,9.99\na,main,3,10\na,pr,3,10\n"
                "a,main,4,10\na,pr,4,10.01\na,main,5,10\na,pr,5,10\n");
  const char *args[] = {"compare",     log,  "--baseline", "main",
                        "--candidate", "pr", NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  cr_expect(strstr(r.out, "equivalent") != NULL);
  ts_run_free(&r);
  free(log);
  free(dir);
}

/* SPEC §3 determinism, byte for byte in the JSON. */
Test(invariants, json_is_byte_identical_run_to_run) {
  char *dir = ts_tmpdir("cli_det");
  char *log = example("pr.csv"), *env = example("env.csv");
  char *j1 = ts_path(dir, "a.json"), *j2 = ts_path(dir, "b.json");
  const char *a1[] = {"compare", log, "--manifest", env, "--json", j1, NULL};
  const char *a2[] = {"compare", log, "--manifest", env, "--json", j2, NULL};
  ts_run r1 = ts_cli(NULL, a1), r2 = ts_cli(NULL, a2);
  cr_assert_eq(r1.status, 1);
  cr_assert_eq(r2.status, 1);
  size_t n1, n2;
  char *t1 = ts_read(j1, &n1), *t2 = ts_read(j2, &n2);
  cr_assert_not_null(t1);
  cr_assert_eq(n1, n2);
  cr_expect_eq(memcmp(t1, t2, n1), 0);
  cr_expect(strstr(t1, "\"schema\": \"benchsite.compare/1\"") != NULL);
  cr_expect(strstr(t1, "\"regressions\": 1") != NULL);
  cr_expect_eq(ts_count_entries(dir), 2, "no temporary files left behind");
  free(t1);
  free(t2);
  ts_run_free(&r1);
  ts_run_free(&r2);
  free(j1);
  free(j2);
  free(log);
  free(env);
  free(dir);
}

Test(cli_compare, markdown_lists_regressions_first) {
  char *dir = ts_tmpdir("cli_md");
  char *log = example("pr.csv"), *env = example("env.csv");
  char *md = ts_path(dir, "c.md");
  const char *args[] = {"compare",    log, "--manifest", env,
                        "--markdown", md,  NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 1, "%s", r.err);
  char *text = ts_read(md, NULL);
  cr_assert_not_null(text);
  char *first = strstr(text, "\n| sum");
  char *other = strstr(text, "\n| dot");
  cr_assert_not_null(first);
  cr_assert_not_null(other);
  cr_expect_lt(first, other, "the regression comes first");
  cr_expect(strstr(text, "❌ significant regression") != NULL);
  cr_expect(strstr(text, "<summary>Environment</summary>") != NULL);
  free(text);
  ts_run_free(&r);
  free(md);
  free(log);
  free(env);
  free(dir);
}

/* Runs compare on `csv` (and `manifest` if not NULL) asking for --json;
 * expects exit 2, stderr containing `want`, and no JSON written. */
static void expect_input_error(const char *tag, const char *csv,
                               const char *manifest, const char *want) {
  char *dir = ts_tmpdir(tag);
  char *log = ts_path(dir, "pr.csv"), *env = ts_path(dir, "env.csv");
  char *json = ts_path(dir, "out.json"), *md = ts_path(dir, "out.md");
  ts_write(log, csv);
  if (manifest)
    ts_write(env, manifest);
  const char *args[] = {"compare",
                        "pr.csv",
                        "--baseline",
                        "main",
                        "--candidate",
                        "pr",
                        "--json",
                        "out.json",
                        "--markdown",
                        "out.md",
                        manifest ? "--manifest" : NULL,
                        "env.csv",
                        NULL};
  ts_run r = ts_cli(dir, args);
  cr_expect_eq(r.status, 2, "[%s] exit %d, stderr: %s", tag, r.status, r.err);
  cr_expect(strstr(r.err, want) != NULL, "[%s] stderr %s lacks %s", tag, r.err,
            want);
  cr_expect(strncmp(r.err, "benchsite: ", 11) == 0, "[%s] %s", tag, r.err);
  cr_expect_not(ts_exists(json), "[%s] JSON written on error", tag);
  cr_expect_not(ts_exists(md), "[%s] Markdown written on error", tag);
  cr_expect_eq(ts_count_entries(dir), manifest ? 2 : 1, "[%s] stray files left",
               tag);
  ts_run_free(&r);
  free(log);
  free(env);
  free(json);
  free(md);
  free(dir);
}

#define GOOD_ROWS "a,main,0,1\na,pr,0,1\n"

Test(cli_errors, missing_required_column) {
  expect_input_error("e_missing", "benchmark,block,per_call_us\na,0,1\n", NULL,
                     "pr.csv:1: missing required column \"impl\"");
}
Test(cli_errors, non_positive_number) {
  expect_input_error(
      "e_neg", "benchmark,impl,block,per_call_us\n" GOOD_ROWS "a,main,1,-3\n",
      NULL,
      "pr.csv:4: column per_call_us: \"-3\" is not a positive "
      "number");
}
Test(cli_errors, unparsable_number) {
  expect_input_error("e_nan",
                     "benchmark,impl,block,per_call_us\na,main,0,fast\n", NULL,
                     "pr.csv:2: column per_call_us: \"fast\" is not a "
                     "positive number");
}
Test(cli_errors, non_finite_number) {
  expect_input_error("e_inf",
                     "benchmark,impl,block,per_call_us\na,main,0,1e400\n", NULL,
                     "pr.csv:2: column per_call_us: \"1e400\"");
  expect_input_error("e_inf2",
                     "benchmark,impl,block,per_call_us\na,main,0,inf\n", NULL,
                     "pr.csv:2: column per_call_us: \"inf\"");
}
Test(cli_errors, negative_block) {
  expect_input_error("e_block",
                     "benchmark,impl,block,per_call_us\na,main,-1,1\n", NULL,
                     "pr.csv:2: column block: \"-1\" is not a non-negative "
                     "integer");
}
Test(cli_errors, unknown_phase) {
  expect_input_error("e_phase",
                     "benchmark,impl,block,phase,per_call_us\n"
                     "a,main,0,warmup,1\n",
                     NULL,
                     "pr.csv:2: column phase: \"warmup\" is not calibration "
                     "or confirm");
}
Test(cli_errors, duplicate_confirm_row) {
  expect_input_error(
      "e_dup", "benchmark,impl,block,per_call_us\n" GOOD_ROWS "a,main,0,2\n",
      NULL, "pr.csv:4: duplicate confirm row");
}
Test(cli_errors, scale_differs_within_a_case) {
  expect_input_error("e_scale",
                     "benchmark,dataset,scale,impl,block,per_call_us\n"
                     "a,n,8,main,0,1\na,n,16,pr,0,1\n",
                     NULL, "pr.csv:3: column scale: \"16\" differs");
}
Test(cli_errors, missing_block_on_a_confirm_row) {
  expect_input_error("e_noblock",
                     "benchmark,impl,block,per_call_us\na,main,,1\n", NULL,
                     "pr.csv:2: column block: missing for a confirm row");
}
Test(cli_errors, mismatched_pairs_names_the_rows) {
  expect_input_error(
      "e_pairs", "benchmark,impl,block,per_call_us\n" GOOD_ROWS "a,main,1,1\n",
      NULL,
      "pr.csv:4: mismatched pairs in case a: 1 row without a "
      "partner: main run 0 block 1 (pr.csv:4)");
}
Test(cli_errors, manifest_without_header) {
  expect_input_error("e_mhead", "benchmark,impl,block,per_call_us\n" GOOD_ROWS,
                     "target,native\n",
                     "env.csv:1: header must be \"key,value\"");
}
Test(cli_errors, manifest_duplicate_key) {
  expect_input_error("e_mdup", "benchmark,impl,block,per_call_us\n" GOOD_ROWS,
                     "key,value\ntarget,native\ntarget,native\n",
                     "env.csv:3: duplicate key \"target\" (first at line 2)");
}
Test(cli_errors, non_native_target_is_refused) {
  expect_input_error("e_native", "benchmark,impl,block,per_call_us\n" GOOD_ROWS,
                     "key,value\ntarget,wasm32\n",
                     "env.csv: target is \"wasm32\", not native");
}
Test(cli_errors, unreadable_log) {
  char *dir = ts_tmpdir("e_nofile");
  const char *args[] = {"compare", "missing.csv", "--baseline",
                        "main",    "--candidate", "pr",
                        "--json",  "o.json",      NULL};
  ts_run r = ts_cli(dir, args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "missing.csv") != NULL, "%s", r.err);
  cr_expect_eq(ts_count_entries(dir), 0);
  ts_run_free(&r);
  free(dir);
}

static void expect_usage_error(const char *const *args, const char *want) {
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, want) != NULL, "stderr %s lacks %s", r.err, want);
  ts_run_free(&r);
}

Test(cli_usage, confirmatory_mode_refuses_threshold_and_level) {
  char *log = example("pr.csv"), *env = example("env.csv");
  const char *a1[] = {"compare",     log, "--manifest", env,
                      "--threshold", "5", NULL};
  expect_usage_error(a1, "--threshold belongs to hotspot mode");
  const char *a2[] = {"compare", log, "--manifest", env, "--level", "90", NULL};
  expect_usage_error(a2, "--level belongs to hotspot mode");
  free(log);
  free(env);
}

Test(cli_usage, level_as_a_fraction_gets_the_hint) {
  char *log = example("pr.csv"), *env = example("env.csv");
  const char *a[] = {"compare", log,       "--manifest", env, "--mode",
                     "hotspot", "--level", "0.95",       NULL};
  expect_usage_error(a, "confidence level is a percentage; did you mean 95?");
  free(log);
  free(env);
}

Test(cli_usage, unknown_option_and_missing_impl) {
  char *log = example("pr.csv");
  const char *a1[] = {"compare", log, "--frobnicate", NULL};
  expect_usage_error(a1, "unknown option \"--frobnicate\"");
  const char *a2[] = {"compare", log, "--baseline", "main", NULL};
  expect_usage_error(a2, "name the candidate with --candidate");
  const char *a3[] = {"compare",     log,    "--baseline", "main",
                      "--candidate", "nope", NULL};
  expect_usage_error(a3, "no case has confirm rows of both");
  const char *a4[] = {"nonsense", NULL};
  expect_usage_error(a4, "unknown command \"nonsense\"");
  free(log);
}

Test(cli_usage, help_and_version_exit_0) {
  const char *a1[] = {"--help", NULL};
  ts_run r = ts_cli(NULL, a1);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "compare") != NULL);
  ts_run_free(&r);
  const char *a2[] = {"compare", "--help", NULL};
  r = ts_cli(NULL, a2);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "--baseline") != NULL);
  ts_run_free(&r);
  const char *a3[] = {"--version", NULL};
  r = ts_cli(NULL, a3);
  cr_expect_eq(r.status, 0);
  cr_expect(strncmp(r.out, "benchsite ", 10) == 0);
  ts_run_free(&r);
}

Test(cli_tune, example_has_the_crossover_it_was_built_for) {
  char *dir = ts_tmpdir("cli_tune");
  char *log = example("tune.csv"), *json = ts_path(dir, "t.json");
  const char *args[] = {"tune", log, "--json", json, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  char *text = ts_read(json, NULL);
  cr_assert_not_null(text);
  cr_expect(strstr(text, "\"schema\": \"benchsite.tune/1\"") != NULL);
  /* insertion sort wins small inputs, something else the large ones. */
  cr_expect(strstr(text, "\"dataset\": \"n=8\",\n      \"scale\": 8,\n"
                         "      \"best\": \"insertion\"") != NULL,
            "%s", text);
  cr_expect(strstr(text, "\"a\": \"insertion\"") != NULL);
  free(text);
  ts_run_free(&r);
  free(json);
  free(log);
  free(dir);
}
