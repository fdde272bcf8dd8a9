/* benchsite noise and compare --noise end to end: the report on the A/A
 * example, the JSON (deterministic, every field, read back by compare),
 * and every input error: its message, exit status 2, and no output file. */
#include <criterion/criterion.h>

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *example(const char *name) {
  return ts_path(BENCHSITE_SOURCE_DIR "/examples", name);
}

Test(cli_noise, example_report_reads_every_figure) {
  char *log = example("aa.csv"), *env = example("aa-env.csv");
  const char *args[] = {"noise", log, "--manifest", env, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  const char *want[] = {"A/A validation of A against B (metric wall: wall "
                        "time per call, µs; 10000 resamples, level 0.95, "
                        "seed 0)",
                        "hash [n=4096]: 20 runs of 20 blocks",
                        "sum [n=65536]: 20 runs of 20 blocks",
                        "  noise floor        ",
                        "  paired floor       ",
                        "  mean confidence    ",
                        "  tied replicates    ",
                        "  drifting runs      ",
                        "  autocorrelation    ",
                        "  false signals      ",
                        "  reading:\n    - noise floor ",
                        "    - tie rate ",
                        "    - autocorrelation ",
                        "    - drifting runs ",
                        "    - false signals ",
                        "    - mean confidence "};
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    cr_expect(strstr(r.out, want[i]) != NULL, "missing \"%s\" in\n%s", want[i],
              r.out);
  ts_run_free(&r);
  free(log);
  free(env);
}

Test(cli_noise, json_is_deterministic_and_compare_reads_it) {
  char *dir = ts_tmpdir("cli_noise_json");
  char *log = example("aa.csv"), *env = example("aa-env.csv");
  char *j1 = ts_path(dir, "a.json"), *j2 = ts_path(dir, "b.json");
  char *md = ts_path(dir, "n.md");
  const char *a1[] = {"noise", log,          "--manifest", env, "--json",
                      j1,      "--markdown", md,           NULL};
  const char *a2[] = {"noise",  log, "--a",        "A", "--b", "B",
                      "--json", j2,  "--manifest", env, NULL};
  ts_run r1 = ts_cli(NULL, a1), r2 = ts_cli(NULL, a2);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  cr_assert_eq(r2.status, 0, "%s", r2.err);
  cr_expect_str_eq(r1.out,
                   "A/A validation of 2 cases (metric wall: wall time per "
                   "call, µs): paired noise floor 0.261 % to "
                   "0.329 %, the gate's delta 3 % resolves 2 of 2\n",
                   "with files, stdout holds the one-line summary only");
  size_t n1, n2;
  char *t1 = ts_read(j1, &n1), *t2 = ts_read(j2, &n2);
  cr_assert_not_null(t1);
  cr_assert_not_null(t2);
  cr_assert_eq(n1, n2);
  cr_expect_eq(memcmp(t1, t2, n1), 0, "byte-identical JSON");
  cr_expect(strstr(t1, "\"schema\": \"benchsite.noise/1\"") != NULL);
  cr_expect(strstr(t1, "\"paired_noise_floor_pct\": ") != NULL);
  cr_expect(strstr(t1, "\"block_length\"") == NULL);
  /* The A/A run's manifest travels with its floors. */
  cr_expect(strstr(t1, "\"environment\": {\n") != NULL, "%s", t1);
  cr_expect(strstr(t1, "\"aa_a\": \"A\"") != NULL);
  cr_expect(strstr(t1, "\"suite_false_alarm_rate\": ") != NULL);
  cr_expect(strstr(t1, "\"blocks_for_gate\": ") != NULL);
  char *m = ts_read(md, NULL);
  cr_assert_not_null(m);
  cr_expect(strstr(m, "### benchsite: A/A noise validation") != NULL);
  cr_expect_eq(ts_count_entries(dir), 3, "no temporary files left behind");

  /* compare --noise: examples/pr.csv has hash [n=4096] at about +0.1 %
   * (within the A/A floor of ~0.3 %) and sum [n=65536] at +75 %. */
  char *pr = example("pr.csv"), *penv = example("env.csv");
  char *cj = ts_path(dir, "compare.json"), *cm = ts_path(dir, "compare.md");
  const char *c[] = {"compare", pr, "--manifest", penv, "--noise", j1,
                     "--json",  cj, "--markdown", cm,   NULL};
  ts_run rc = ts_cli(NULL, c);
  cr_expect_eq(rc.status, 1, "the example holds a regression: %s", rc.err);
  char *ct = ts_read(cj, NULL);
  cr_assert_not_null(ct);
  const char *hash = strstr(ct, "\"benchmark\": \"hash\"");
  const char *sum = strstr(ct, "\"benchmark\": \"sum\"");
  cr_assert(hash && sum);
  const char *hw = strstr(hash, "\"within_noise\": ");
  const char *sw = strstr(sum, "\"within_noise\": ");
  cr_assert(hw && sw);
  cr_expect(strncmp(hw, "\"within_noise\": true", 20) == 0);
  cr_expect(strncmp(sw, "\"within_noise\": false", 21) == 0);
  char *cmt = ts_read(cm, NULL);
  cr_assert_not_null(cmt);
  cr_expect(strstr(cmt, "within noise") != NULL, "%s", cmt);
  /* dot and sort have no floor in the A/A file: a warning, not an error. */
  cr_expect(strstr(rc.err, "no noise floor for 2 of 4 cases") != NULL, "%s",
            rc.err);
  free(ct);
  free(cmt);
  free(cj);
  free(cm);
  free(pr);
  free(penv);
  ts_run_free(&rc);
  free(m);
  free(t1);
  free(t2);
  ts_run_free(&r1);
  ts_run_free(&r2);
  free(j1);
  free(j2);
  free(md);
  free(log);
  free(env);
  free(dir);
}

/* With L = 1 the block bootstrap is the ordinary one draw for draw, so the
 * confidences are the same numbers. */
Test(cli_noise, block_length_1_gives_the_ordinary_confidences) {
  char *dir = ts_tmpdir("cli_noise_l1");
  char *log = ts_data("noise/small.csv");
  char *j0 = ts_path(dir, "plain.json"), *j1 = ts_path(dir, "l1.json");
  const char *a0[] = {"noise",       log,    "--a",    "A", "--b",    "B",
                      "--resamples", "3001", "--seed", "9", "--json", j0,
                      NULL};
  const char *a1[] = {"noise",
                      log,
                      "--a",
                      "A",
                      "--b",
                      "B",
                      "--resamples",
                      "3001",
                      "--seed",
                      "9",
                      "--block-length",
                      "1",
                      "--json",
                      j1,
                      NULL};
  ts_run r0 = ts_cli(NULL, a0), r1 = ts_cli(NULL, a1);
  cr_assert_eq(r0.status, 0, "%s", r0.err);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  char *t0 = ts_read(j0, NULL), *t1 = ts_read(j1, NULL);
  cr_expect(strstr(t1, "\"block_length\": 1,") != NULL);
  const char *p0 = t0, *p1 = t1;
  int n = 0;
  while ((p0 = strstr(p0, "\"confidences\": [")) &&
         (p1 = strstr(p1, "\"confidences\": ["))) {
    size_t l0 = strcspn(p0, "]"), l1 = strcspn(p1, "]");
    cr_expect(l0 == l1 && memcmp(p0, p1, l0) == 0, "%.*s\n%.*s", (int)l0, p0,
              (int)l1, p1);
    p0 += l0;
    p1 += l1;
    n++;
  }
  cr_expect_eq(n, 2);
  const char *auto_args[] = {
      "noise",          log,    "--a",    "A", "--b", "B", "--resamples", "100",
      "--block-length", "auto", "--json", j1,  NULL};
  ts_run ra = ts_cli(NULL, auto_args);
  cr_expect_eq(ra.status, 0, "%s", ra.err);
  char *ta = ts_read(j1, NULL);
  cr_expect(strstr(ta, "\"block_length\": \"auto\"") != NULL);
  cr_expect(strstr(ta, "\"block_length_a\": 2") != NULL); /* round(cbrt 9) */
  free(ta);
  ts_run_free(&ra);
  free(t0);
  free(t1);
  ts_run_free(&r0);
  ts_run_free(&r1);
  free(j0);
  free(j1);
  free(log);
  free(dir);
}

/* The error cases (every bad option and input, an unreadable log, a bad
 * --noise file for compare) are rows of tests/data/cli_errors.txt, run by
 * test_cli_errors.c. */

Test(cli_noise, help_lists_the_options) {
  const char *args[] = {"noise", "--help", NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "--block-length L") != NULL);
  cr_expect(strstr(r.out, "--level PCT") != NULL);
  cr_expect(strstr(r.out, "in percent") != NULL);
  ts_run_free(&r);
}
