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
  const char *want[] = {"A/A validation of A against B (10000 resamples, "
                        "level 0.95, seed 0)",
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
  const char *a2[] = {"noise", log, "--a", "A", "--b", "B", "--json", j2, NULL};
  ts_run r1 = ts_cli(NULL, a1), r2 = ts_cli(NULL, a2);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  cr_assert_eq(r2.status, 0, "%s", r2.err);
  cr_expect_str_eq(r1.out, "", "no table when files are written");
  size_t n1, n2;
  char *t1 = ts_read(j1, &n1), *t2 = ts_read(j2, &n2);
  cr_assert_not_null(t1);
  cr_assert_not_null(t2);
  cr_assert_eq(n1, n2);
  cr_expect_eq(memcmp(t1, t2, n1), 0, "byte-identical JSON");
  cr_expect(strstr(t1, "\"schema\": \"benchsite.noise/1\"") != NULL);
  cr_expect(strstr(t1, "\"paired_noise_floor_pct\": ") != NULL);
  cr_expect(strstr(t1, "\"block_length\"") == NULL);
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

/* Every input error: exit 2, the message on stderr, nothing on stdout and
 * no output file (the directory stays empty). */
typedef struct bad_case {
  const char *name;
  const char *log;      /* contents, or NULL to use small.csv */
  const char *extra[8]; /* options after the log */
  const char *message;  /* a substring of stderr */
} bad_case;

static const bad_case bad_cases[] = {
    {"level as a percentage",
     NULL,
     {"--level", "95"},
     "noise: --level 95: the A/A level is a fraction in (0.5, 1), not a "
     "percentage; did you mean 0.95?"},
    {"level 0.5", NULL, {"--level", "0.5"}, "--level 0.5 is outside (0.5, 1)"},
    {"level 1", NULL, {"--level", "1"}, "--level 1 is outside (0.5, 1)"},
    {"level 100", NULL, {"--level", "100"}, "--level 100 is outside (0.5, 1)"},
    {"level text",
     NULL,
     {"--level", "high"},
     "--level: \"high\" is not a "
     "number"},
    {"resamples 0",
     NULL,
     {"--resamples", "0"},
     "--resamples must be at least "
     "1"},
    {"resamples text",
     NULL,
     {"--resamples", "many"},
     "--resamples: \"many\" is not a non-negative integer"},
    {"negative seed",
     NULL,
     {"--seed", "-1"},
     "--seed: \"-1\" is not a "
     "non-negative integer"},
    {"block length 0",
     NULL,
     {"--block-length", "0"},
     "--block-length must be at least 1"},
    {"block length text",
     NULL,
     {"--block-length", "big"},
     "--block-length \"big\" is not a positive integer or auto"},
    {"block length beyond a run",
     NULL,
     {"--block-length", "9"},
     "case parse, run 1: block length 9 exceeds the 8 samples"},
    {"no a or b",
     NULL,
     {NULL},
     "noise: name A with --a or the manifest's "
     "\"aa_a\" key"},
    {"a equals b", NULL, {"--a", "A", "--b", "A"}, "A and B are both \"A\""},
    {"one run",
     "benchmark,dataset,impl,run,block,per_call_us\nq,n=2,A,3,0,1\n"
     "q,n=2,B,3,0,1\n",
     {NULL},
     "case q [n=2]: only 1 A/A run (run 3); a noise floor needs at least 2 "
     "runs"},
    {"run without B",
     "benchmark,impl,run,block,per_call_us\ns,A,0,0,1\ns,B,0,0,1\n"
     "s,A,1,0,1\n",
     {NULL},
     ":4: case s, run 1: no confirm rows of B \"B\""},
    {"mismatched blocks",
     "benchmark,impl,run,block,per_call_us\ns,A,0,0,1\ns,B,0,0,1\n"
     "s,A,1,0,1\ns,B,1,1,1\n",
     {NULL},
     "mismatched pairs in case s, run 1"},
    {"no case with A or B",
     "benchmark,impl,block,per_call_us\ns,C,0,1\n",
     {NULL},
     "no case has confirm rows of \"A\" or \"B\""},
    {"bad log",
     "benchmark,impl,block,per_call_us\ns,A,0,-3\n",
     {NULL},
     ":2: column per_call_us: \"-3\" is not a positive number"},
    {"unknown option", NULL, {"--bogus"}, "unknown option \"--bogus\""},
};

static void run_bad(const bad_case *c, const char *manifest) {
  char *dir = ts_tmpdir("cli_noise_bad");
  char *out = ts_path(dir, "out");
  cr_assert_eq(mkdir(out, 0755), 0);
  char *log;
  if (c->log) {
    log = ts_path(dir, "log.csv");
    ts_write(log, c->log);
  } else {
    log = ts_data("noise/small.csv");
  }
  char *json = ts_path(out, "n.json"), *md = ts_path(out, "n.md");
  const char *args[24] = {"noise", log};
  size_t n = 2;
  int named = 0;
  for (size_t i = 0; i < 8 && c->extra[i]; i++) {
    args[n++] = c->extra[i];
    named |= !strcmp(c->extra[i], "--a");
  }
  if (!named && strcmp(c->name, "no a or b") != 0) {
    args[n++] = "--a";
    args[n++] = "A";
    args[n++] = "--b";
    args[n++] = "B";
  }
  if (manifest) {
    args[n++] = "--manifest";
    args[n++] = manifest;
  }
  args[n++] = "--json";
  args[n++] = json;
  args[n++] = "--markdown";
  args[n++] = md;
  args[n] = NULL;
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s: status %d, stderr %s", c->name, r.status,
               r.err);
  cr_expect(strstr(r.err, c->message) != NULL, "%s: stderr\n%s\nwant %s",
            c->name, r.err, c->message);
  cr_expect(strncmp(r.err, "benchsite: ", 11) == 0, "%s", r.err);
  cr_expect_str_eq(r.out, "", "%s", c->name);
  cr_expect_eq(ts_count_entries(out), 0, "%s: an output file was written",
               c->name);
  ts_run_free(&r);
  free(json);
  free(md);
  free(log);
  free(out);
  free(dir);
}

Test(cli_noise, every_input_error_exits_2_without_output) {
  for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++)
    run_bad(&bad_cases[i], NULL);
}

Test(cli_noise, unreadable_log_and_non_native_target_exit_2) {
  char *dir = ts_tmpdir("cli_noise_io");
  char *json = ts_path(dir, "n.json");
  char *env = ts_path(dir, "env.csv");
  ts_write(env, "key,value\ntarget,wasm32\naa_a,A\naa_b,B\n");
  const char *a1[] = {
      "noise", "/nonexistent/aa.csv", "--a", "A", "--b", "B", "--json", json,
      NULL};
  ts_run r = ts_cli(NULL, a1);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "/nonexistent/aa.csv") != NULL, "%s", r.err);
  ts_run_free(&r);
  char *log = ts_data("noise/small.csv");
  const char *a2[] = {"noise", log, "--manifest", env, "--json", json, NULL};
  r = ts_cli(NULL, a2);
  cr_expect_eq(r.status, 2, "%s", r.err);
  cr_expect(strstr(r.err, "native") != NULL, "%s", r.err);
  cr_expect_eq(ts_count_entries(dir), 1, "only env.csv");
  ts_run_free(&r);
  free(log);
  free(env);
  free(json);
  free(dir);
}

Test(cli_noise, compare_rejects_a_bad_noise_file) {
  char *dir = ts_tmpdir("cli_noise_cmp");
  char *pr = example("pr.csv"), *penv = example("env.csv");
  char *bad = ts_path(dir, "bad.json"), *wrong = ts_path(dir, "wrong.json");
  char *cj = ts_path(dir, "compare.json");
  ts_write(bad, "{\"schema\": \"benchsite.noise/1\",\n \"cases\": [1,]}\n");
  ts_write(wrong, "{\"schema\": \"benchsite.compare/1\", \"cases\": []}\n");
  const char *files[] = {bad, wrong, "/nonexistent/noise.json"};
  const char *msgs[] = {"bad.json:2: invalid JSON at column 14: trailing "
                        "comma in an array",
                        "wrong.json:1: not a benchsite noise file",
                        "/nonexistent/noise.json"};
  for (int i = 0; i < 3; i++) {
    const char *c[] = {"compare", pr,       "--manifest", penv, "--noise",
                       files[i],  "--json", cj,           NULL};
    ts_run r = ts_cli(NULL, c);
    cr_expect_eq(r.status, 2, "%s", r.err);
    cr_expect(strstr(r.err, msgs[i]) != NULL, "%s", r.err);
    cr_expect(!ts_exists(cj));
    ts_run_free(&r);
  }
  free(pr);
  free(penv);
  free(bad);
  free(wrong);
  free(cj);
  free(dir);
}

Test(cli_noise, help_lists_the_options) {
  const char *args[] = {"noise", "--help", NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "--block-length L") != NULL);
  cr_expect(strstr(r.out, "a fraction in") != NULL);
  ts_run_free(&r);
}
