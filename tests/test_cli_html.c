/* compare, noise and tune --html DIR end to end: the report holds that
 * command's analysis alone, with its parameters; the exit status stays the
 * command's; and the outputs are all or nothing -- a failed run (bad
 * input, no gnuplot, a DIR that is not a report) leaves neither DIR nor
 * the --json/--markdown files. Runs the built CLI (no shell). */
#include <criterion/criterion.h>

#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXAMPLES BENCHSITE_SOURCE_DIR "/examples/"

/* dir/name exists. */
static int has(const char *dir, const char *name) {
  char *p = ts_path(dir, name);
  int r = ts_exists(p);
  free(p);
  return r;
}

/* The whole of dir/name, or a failed assertion. */
static char *page(const char *dir, const char *name) {
  char *p = ts_path(dir, name);
  char *text = ts_read(p, NULL);
  cr_assert_not_null(text, "%s is missing", p);
  free(p);
  return text;
}

static void expect_in(const char *hay, const char *needle, const char *what) {
  cr_expect(strstr(hay, needle) != NULL, "%s: no \"%s\"", what, needle);
}

static void expect_not_in(const char *hay, const char *needle,
                          const char *what) {
  cr_expect(strstr(hay, needle) == NULL, "%s: unexpected \"%s\"", what, needle);
}

/* ---- compare ------------------------------------------------------------- */

Test(cli_html, compare_writes_the_comparison_and_still_gates) {
  char *work = ts_tmpdir("html_compare");
  char *out = ts_path(work, "out");
  const char *args[] = {
      "compare", EXAMPLES "pr.csv", "--manifest", EXAMPLES "env.csv", "--html",
      "out",     "--json",          "c.json",     "--markdown",       "c.md",
      NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 1, "the example holds a regression: %s", r.err);
  cr_expect_str_eq(r.out,
                   "✖ gate failed: 1 significant regression (sum [n=65536] "
                   "+75.51 %), 1 significant improvement, 0 inconclusive, 2 "
                   "equivalent — pr vs main, wall time per call, protocol "
                   "Development, 20 blocks\n",
                   "with files, stdout holds the one-line summary only");
  ts_run_free(&r);

  char *index = page(out, "index.html");
  expect_in(index, "<table class=\"data cases\">", "index");
  expect_in(index, "Gate failed", "index");
  /* The level as the text says it, a no-break space before "%". */
  expect_in(index, "10000 resamples, 95\xc2\xa0% interval", "index");
  expect_in(index, "href=\"compare.json\"", "index");
  expect_not_in(index, "href=\"tuning.html\"", "index");
  expect_not_in(index, "href=\"aa.html\"", "index");
  expect_not_in(index, "Hotspot mode", "index");
  free(index);
  for (int i = 1; i <= 4; i++) {
    char name[32];
    snprintf(name, sizeof name, "case-%04d.html", i);
    cr_expect(has(out, name), "%s", name);
  }
  cr_expect_not(has(out, "tuning.html"), "a comparison has no tuning page");
  cr_expect_not(has(out, "aa.html"));
  cr_expect(has(out, ".benchsite-report"));

  /* The report's JSON is the command's JSON. */
  size_t n1, n2;
  char *j1 = page(work, "c.json");
  char *j2 = page(out, "compare.json");
  n1 = strlen(j1);
  n2 = strlen(j2);
  cr_expect_eq(n1, n2);
  cr_expect_str_eq(j1, j2);
  free(j1);
  free(j2);
  cr_expect(has(work, "c.md"));
  cr_expect_eq(ts_count_entries(work), 3, "temporary files left behind");

  /* A second run replaces the earlier report in place. */
  const char *again[] = {"compare",    EXAMPLES "pr.csv",
                         "--manifest", EXAMPLES "env.csv",
                         "--html",     "out/",
                         "--seed",     "9",
                         NULL};
  r = ts_cli(work, again);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  expect_in(r.out, "sum [n=65536]", "the table still goes to stdout");
  ts_run_free(&r);
  char *foot = page(out, "index.html");
  expect_in(foot, "bootstrap seed 9", "index");
  free(foot);
  cr_expect_eq(ts_count_entries(work), 3, "temporary files left behind");
  free(out);
  free(work);
}

Test(cli_html, compare_hotspot_report_states_its_parameters) {
  char *work = ts_tmpdir("html_hotspot");
  char *out = ts_path(work, "hot");
  const char *args[] = {"compare",     EXAMPLES "pr.csv",
                        "--manifest",  EXAMPLES "env.csv",
                        "--mode",      "hotspot",
                        "--threshold", "5",
                        "--level",     "90",
                        "--html",      "hot",
                        NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 0, "hotspot mode does not gate: %s", r.err);
  ts_run_free(&r);
  char *index = page(out, "index.html");
  expect_in(index, "2000 resamples, 90\xc2\xa0% interval", "index");
  expect_in(index, "threshold δ&nbsp;=&nbsp;5&nbsp;%", "index");
  expect_in(index, "Hotspot comparison (exploratory, does not gate)", "index");
  expect_not_in(index, "Gate failed", "index");
  free(index);
  char *c = page(out, "case-0001.html");
  expect_in(c, "Histogram of 2000 bootstrap medians", "case page");
  expect_in(c, "90 % interval of med(d)", "case page");
  expect_in(c, "hotspot (exploratory, does not gate)", "case page");
  free(c);
  free(out);
  free(work);
}

Test(cli_html, compare_noise_file_floors_reach_the_report) {
  char *work = ts_tmpdir("html_noise_floors");
  const char *noise[] = {"noise",       EXAMPLES "aa.csv",
                         "--manifest",  EXAMPLES "aa-env.csv",
                         "--resamples", "200",
                         "--json",      "n.json",
                         NULL};
  ts_run r = ts_cli(work, noise);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  const char *args[] = {
      "compare", EXAMPLES "pr.csv", "--manifest", EXAMPLES "env.csv",
      "--noise", "n.json",          "--html",     "out",
      NULL};
  r = ts_cli(work, args);
  cr_expect_eq(r.status, 1, "stderr: %s", r.err);
  ts_run_free(&r);
  char *out = ts_path(work, "out");
  char *index = page(out, "index.html");
  expect_in(index, "<span class=\"badge noise\">≈ within noise</span>",
            "index");
  expect_in(index, "≈ within noise ±", "index");
  free(index);
  cr_expect_not(has(out, "aa.html"), "the floors came from a file");
  free(out);
  free(work);
}

/* ---- tune ---------------------------------------------------------------- */

Test(cli_html, tune_writes_the_tuning_page_only) {
  char *work = ts_tmpdir("html_tune");
  char *out = ts_path(work, "t");
  const char *args[] = {
      "tune", EXAMPLES "tune.csv", "--html", "t", "--markdown", "t.md", NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  cr_expect(has(out, "tuning.html"));
  cr_expect(has(out, "tune.json"));
  cr_expect(has(out, "charts/tune-001.svg"));
  cr_expect_not(has(out, "case-0001.html"));
  cr_expect_not(has(out, "aa.html"));
  char *index = page(out, "index.html");
  expect_in(index, "href=\"tuning.html\"", "index");
  expect_not_in(index, "<table class=\"data cases\">", "index");
  expect_in(index, "No environment manifest was given", "index");
  free(index);
  char *tp = page(out, "tuning.html");
  expect_in(tp, "Crossover", "tuning page");
  free(tp);
  cr_expect(has(work, "t.md"));

  /* With a manifest the environment is shown. */
  const char *with_env[] = {"tune",       EXAMPLES "tune.csv",
                            "--manifest", EXAMPLES "tune-env.csv",
                            "--html",     "t",
                            NULL};
  r = ts_cli(work, with_env);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  index = page(out, "index.html");
  expect_in(index, "ci-runner-1", "index");
  free(index);
  cr_expect_eq(ts_count_entries(work), 2, "temporary files left behind");
  free(out);
  free(work);
}

/* ---- noise --------------------------------------------------------------- */

Test(cli_html, noise_writes_the_aa_page_with_its_parameters) {
  char *work = ts_tmpdir("html_noise");
  char *out = ts_path(work, "n");
  const char *args[] = {"noise",
                        EXAMPLES "aa.csv",
                        "--manifest",
                        EXAMPLES "aa-env.csv",
                        "--resamples",
                        "500",
                        "--level",
                        "90",
                        "--block-length",
                        "4",
                        "--html",
                        "n",
                        "--json",
                        "n.json",
                        NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  cr_expect(has(out, "aa.html"));
  cr_expect(has(out, "noise.json"));
  cr_expect(has(out, "charts/aa-002-confidence.svg"));
  cr_expect_not(has(out, "tuning.html"));
  cr_expect_not(has(out, "case-0001.html"));
  char *index = page(out, "index.html");
  expect_in(index, "A/A noise floor", "index");
  expect_not_in(index, "<table class=\"data cases\">", "index");
  free(index);
  char *aa = page(out, "aa.html");
  expect_in(aa, "500 bootstrap resamples at level 0.9", "aa page");
  expect_in(aa, "moving blocks of 4 samples", "aa page");
  expect_in(aa, "named by aa-env.csv", "aa page");
  free(aa);
  char *j1 = page(work, "n.json");
  char *j2 = page(out, "noise.json");
  cr_expect_str_eq(j1, j2, "the report's JSON is the command's JSON");
  free(j1);
  free(j2);

  /* The pair from --a/--b, no manifest: nothing is credited to one. */
  const char *ids[] = {"noise", EXAMPLES "aa.csv", "--a", "A",      "--b",
                       "B",     "--resamples",     "200", "--html", "n",
                       NULL};
  r = ts_cli(work, ids);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  expect_in(r.out, "A/A validation of A against B", "stdout table");
  ts_run_free(&r);
  aa = page(out, "aa.html");
  expect_in(aa, "200 bootstrap resamples", "aa page");
  expect_not_in(aa, "named by", "aa page");
  free(aa);
  cr_expect_eq(ts_count_entries(work), 2, "temporary files left behind");
  free(out);
  free(work);
}

/* ---- all or nothing ------------------------------------------------------ */

Test(cli_html, bad_input_leaves_no_output) {
  char *work = ts_tmpdir("html_bad");
  char *bad = ts_path(work, "bad.csv");
  cr_assert_eq(ts_write(bad, "benchmark,impl,block,per_call_us\n"
                             "a,main,0,10\na,pr,0,-3\n"),
               0);
  const char *cmp[] = {"compare",     "bad.csv", "--baseline", "main",
                       "--candidate", "pr",      "--html",     "out",
                       "--json",      "o.json",  NULL};
  const char *tune[] = {"tune",   "bad.csv", "--html", "out",
                        "--json", "o.json",  NULL};
  const char *noise[] = {"noise",  "bad.csv", "--a",    "main",   "--b", "pr",
                         "--html", "out",     "--json", "o.json", NULL};
  /* A/A needs two runs: valid CSV, failing analysis. */
  const char *one_run[] = {
      "noise", EXAMPLES "pr.csv", "--a",    "main", "--b", "pr", "--html",
      "out",   "--json",          "o.json", NULL};
  /* A baseline that is not in the log. */
  const char *no_case[] = {
      "compare", EXAMPLES "pr.csv", "--baseline", "nope",   "--candidate",
      "pr",      "--html",          "out",        "--json", "o.json",
      NULL};
  const char *empty_dir[] = {
      "tune", EXAMPLES "tune.csv", "--html", "", "--json", "o.json", NULL};
  const char *const *runs[] = {cmp, tune, noise, one_run, no_case, empty_dir};
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    ts_run r = ts_cli(work, runs[i]);
    cr_expect_eq(r.status, 2, "run %zu (%s): status %d, stderr: %s", i,
                 runs[i][0], r.status, r.err);
    ts_run_free(&r);
    cr_expect_not(has(work, "out"), "run %zu left the report", i);
    cr_expect_not(has(work, "o.json"), "run %zu left the JSON", i);
    cr_expect_eq(ts_count_entries(work), 1, "run %zu left files", i);
  }
  free(bad);
  free(work);
}

Test(cli_html, a_directory_that_is_not_a_report_is_refused) {
  char *work = ts_tmpdir("html_mine");
  char *mine = ts_path(work, "mine");
  cr_assert_eq(mkdir(mine, 0755), 0);
  char *precious = ts_path(mine, "precious.txt");
  cr_assert_eq(ts_write(precious, "keep me"), 0);
  const char *args[] = {
      "compare", EXAMPLES "pr.csv", "--manifest", EXAMPLES "env.csv", "--html",
      "mine",    "--json",          "o.json",     "--markdown",       "o.md",
      NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 2, "stderr: %s", r.err);
  expect_in(r.err, "not a benchsite report", "stderr");
  ts_run_free(&r);
  char *kept = ts_read(precious, NULL);
  cr_expect_str_eq(kept, "keep me");
  free(kept);
  cr_expect_eq(ts_count_entries(mine), 1);
  cr_expect_eq(ts_count_entries(work), 1, "no --json or --markdown file");
  free(precious);
  free(mine);
  free(work);
}

/* gnuplot is looked up on PATH: without it the report fails (exit 3, even
 * for a comparison that found a regression), no output file appears and
 * an earlier report stays as it was. */
Test(cli_html, missing_gnuplot_fails_with_3_and_writes_nothing) {
  char *work = ts_tmpdir("html_nognuplot");
  const char *first[] = {"tune", EXAMPLES "tune.csv", "--html", "out", NULL};
  ts_run r = ts_cli(work, first);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  char *out = ts_path(work, "out");
  char *before = page(out, "index.html");

  const char *cmp[] = {
      "compare", EXAMPLES "pr.csv", "--manifest", EXAMPLES "env.csv", "--html",
      "out",     "--json",          "o.json",     "--markdown",       "o.md",
      NULL};
  const char *tune[] = {
      "tune", EXAMPLES "tune.csv", "--html", "out", "--json", "o.json", NULL};
  const char *noise[] = {"noise",       EXAMPLES "aa.csv",
                         "--manifest",  EXAMPLES "aa-env.csv",
                         "--resamples", "100",
                         "--html",      "out",
                         "--markdown",  "o.md",
                         NULL};
  const char *fresh[] = {
      "tune", EXAMPLES "tune.csv", "--html", "new", "--json", "o.json", NULL};
  const char *const *runs[] = {cmp, tune, noise, fresh};
  char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
  cr_assert_eq(setenv("PATH", "/nonexistent", 1), 0);
  for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
    r = ts_cli(work, runs[i]);
    cr_expect_eq(r.status, 3, "run %zu (%s): status %d, stderr: %s", i,
                 runs[i][0], r.status, r.err);
    expect_in(r.err, "gnuplot", "stderr");
    cr_expect_str_eq(r.out, "", "run %zu printed a table", i);
    ts_run_free(&r);
    cr_expect_eq(ts_count_entries(work), 1, "run %zu left files", i);
    char *now = page(out, "index.html");
    cr_expect_str_eq(now, before, "run %zu changed the earlier report", i);
    free(now);
  }
  if (path) {
    setenv("PATH", path, 1);
    free(path);
  }
  free(before);
  free(out);
  free(work);
}

Test(cli_html, help_documents_html) {
  static const char *const cmds[] = {"compare", "noise", "tune"};
  for (size_t i = 0; i < 3; i++) {
    const char *args[] = {cmds[i], "--help", NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0);
    expect_in(r.out, "--html DIR", cmds[i]);
    ts_run_free(&r);
  }
}

/* ---- adaptive runs, levels, layout-sensitive and blind cases ------------ */

/* The pages of views_fixture.h's comparison (its figures worked by hand
 * there): the column's level and the mark of the other, the qualifiers as
 * badges, the notes, the case pages' rows; the hostile name escaped. */
#include "views_fixture.h"

Test(cli_html, compare_pages_state_levels_qualifiers_and_extra_runs) {
  char *work = ts_tmpdir("html_qualifiers");
  char *log = ts_path(work, "log.csv"), *env = ts_path(work, "env.csv");
  char *out = ts_path(work, "out");
  cr_assert_eq(ts_write(log, views_log_csv), 0);
  cr_assert_eq(ts_write(env, views_manifest_csv), 0);
  const char *args[] = {"compare",    "log.csv", "--manifest",  "env.csv",
                        "--baseline", "main",    "--candidate", "pr",
                        "--html",     "out",     NULL};
  ts_run r = ts_cli(work, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);

  char *index = page(out, "index.html");
  expect_in(index,
            "<th scope=\"col\" class=\"num\">Interval (96\xc2\xa0% "
            "unless marked)</th>",
            "index");
  expect_in(index, "<span class=\"level-mark\">at 99.3\xc2\xa0%</span> ",
            "index");
  expect_in(index,
            "<span class=\"badge v-slower\">↕ layout-sensitive: runs "
            "disagree by 6.0\xc2\xa0%</span>",
            "index");
  expect_in(index,
            "<span class=\"badge v-slower\">◌ blind below 5.0\xc2\xa0%</span>",
            "index");
  expect_in(index,
            "<p class=\"method\">Adaptive runs: 1 of 4 cases took extra "
            "runs (1 run, 2.5 s; at most 8 runs in all).</p>",
            "index");
  expect_in(index,
            "intervals at 96\xc2\xa0% (3 cases) and 99.3\xc2\xa0% (1 "
            "case, measured again by the adaptive run)",
            "index");
  expect_in(index,
            "<span class=\"n\">1</span> <span class=\"badge v-slower\">◌ "
            "blind</span>",
            "index");
  /* Each qualifier once, on its own case's row, and nowhere else. */
  const char *once[] = {"◌ blind below", "↕ layout-sensitive: runs"};
  for (size_t i = 0; i < 2; i++) {
    const char *p = strstr(index, once[i]);
    cr_expect(p && !strstr(p + 1, once[i]), "index: \"%s\" not once", once[i]);
  }
  expect_not_in(index, "<span class=\"badge v-slower\">1</span>", "index");
  expect_in(index, "wide|&lt;img src=x&gt;", "index");
  expect_not_in(index, "<img src=x>", "index");
  free(index);

  char *layout = page(out, "case-0001.html");
  expect_in(layout, "99.3 % interval of med(d)", "layout's page");
  expect_in(layout, "<th scope=\"row\">Between-run spread</th>",
            "layout's page");
  expect_in(layout,
            "6.0\xc2\xa0% (max − min of the runs&#39; paired Δ%): "
            "layout-sensitive",
            "layout's page");
  free(layout);
  char *wide = page(out, "case-0004.html");
  expect_in(wide,
            "5.0\xc2\xa0%: blind, this run could not have seen a "
            "change below it",
            "wide's page");
  expect_not_in(wide, "<img src=x>", "wide's page");
  free(wide);
  free(out);
  free(env);
  free(log);
  free(work);
}
