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
  cr_expect(strstr(r.out, "■ significant regression") != NULL, "%s", r.out);
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
  cr_expect(strstr(text, "■ significant regression") != NULL);
  cr_expect(strstr(text, "<summary>Environment</summary>") != NULL);
  free(text);
  ts_run_free(&r);
  free(md);
  free(log);
  free(env);
  free(dir);
}

/* The error cases (bad logs and manifests, usage) are rows of
 * tests/data/cli_errors.txt, run by test_cli_errors.c. */

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
