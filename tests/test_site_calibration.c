/* The runner's calibration on the site (site --calibration F, or the
 * archive's calibrations/): shown when it was measured on the newest
 * run's setup, named as not applying otherwise, escaped; a malformed one
 * is bad input with file and line. compare --calibration DIR chooses the
 * same way. */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

TestSuite(site_calibration, .fini = ts_free_owned, .timeout = 300);

static const char shown[] =
    "On this runner: identical code flagged in \u2264 11.3 % of runs, +5 % "
    "found in 92 % (calibrated 2026-12-01, 40 runs)";

/* An archive of one run (examples/pr.csv on examples/env.csv's setup,
 * which tests/data/calibrate/runner.json was measured on). */
static char *one_run_archive(const char *dir) {
  char *archive = ts_pathf("%s/archive", dir);
  char *log = ts_pathf("%s/examples/pr.csv", BENCHSITE_SOURCE_DIR);
  char *env = ts_pathf("%s/examples/env.csv", BENCHSITE_SOURCE_DIR);
  ts_run r =
      ts_cli(NULL, (const char *[]){"archive", "add", "--archive", archive, log,
                                    "--manifest", env, NULL});
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  ts_run_free(&r);
  return archive;
}

static ts_run site(const char *archive, const char *out, const char *cal) {
  return ts_cli(NULL,
                (const char *[]){"site", "--archive", archive, "--out", out,
                                 "--quiet", "--jobs", "1",
                                 cal ? "--calibration" : NULL, cal, NULL});
}

static char *page(const char *out, const char *name) {
  char *s = ts_read(ts_pathf("%s/%s", out, name), NULL);
  cr_assert_not_null(s, "no %s", name);
  return ts_own(s);
}

static void copy(const char *from, const char *to) {
  char *text = ts_read(from, NULL);
  cr_assert_not_null(text);
  cr_assert_eq(ts_write(to, text), 0);
  free(text);
}

Test(site_calibration, a_given_calibration_of_the_setup_is_shown) {
  char *dir = ts_own(ts_tmpdir("sitecal_given"));
  char *archive = one_run_archive(dir), *out = ts_pathf("%s/public", dir);
  ts_run r = site(archive, out, ts_own(ts_data("calibrate/runner.json")));
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *index = page(out, "index.html");
  cr_expect(strstr(index, shown) != NULL, "%s", index);
  cr_expect(strstr(index, "runner.json") != NULL);
  cr_expect(strstr(page(out, "regressions.html"), shown) != NULL);
  /* Without one, no word of it. */
  r = site(archive, out, NULL);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  cr_expect(strstr(page(out, "index.html"), "On this runner") == NULL);
  cr_expect(strstr(page(out, "index.html"), "calibration") == NULL);
}

Test(site_calibration, another_setup_is_named_and_not_shown_as_applying) {
  char *dir = ts_own(ts_tmpdir("sitecal_foreign"));
  char *archive = one_run_archive(dir), *out = ts_pathf("%s/public", dir);
  ts_run r = site(archive, out, ts_own(ts_data("calibrate/foreign.json")));
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err); /* never a failure */
  ts_run_free(&r);
  char *index = page(out, "index.html");
  cr_expect(strstr(index, "On this runner") == NULL);
  cr_expect(strstr(index, "No calibration of this runner applies to the "
                          "newest run") != NULL,
            "%s", index);
  cr_expect(strstr(index, "machine (the newest run &quot;ci-runner-1&quot;, "
                          "the calibration &quot;other-box&quot;)") != NULL,
            "%s", index);
  cr_expect(strstr(page(out, "regressions.html"), "No calibration") != NULL);
}

Test(site_calibration,
     a_malformed_calibration_is_bad_input_and_writes_nothing) {
  char *dir = ts_own(ts_tmpdir("sitecal_bad"));
  char *archive = one_run_archive(dir), *out = ts_pathf("%s/public", dir);
  char *bad = ts_pathf("%s/bad.json", dir);
  cr_assert_eq(ts_write(bad, "{\"schema\": \"benchsite.calibration/1\",\n"
                             "  \"date\": 3}\n"),
               0);
  ts_run r = site(archive, out, bad);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, ts_pathf("%s:1:", bad)) != NULL, "%s", r.err);
  cr_expect(!ts_exists(out));
  ts_run_free(&r);
  /* Not JSON: the line of the fault. */
  cr_assert_eq(ts_write(bad, "{\n\"schema\": \"benchsite.calibration/1\",\n"
                             "\"date\": }\n"),
               0);
  r = site(archive, out, bad);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, ts_pathf("%s:3", bad)) != NULL, "%s", r.err);
  cr_expect(!ts_exists(out));
  ts_run_free(&r);
}

Test(site_calibration,
     the_archive_keeps_calibrations_and_the_newest_of_the_setup_is_shown) {
  char *dir = ts_own(ts_tmpdir("sitecal_archive"));
  char *archive = one_run_archive(dir), *out = ts_pathf("%s/public", dir);
  char *cals = ts_pathf("%s/calibrations", archive);
  cr_assert_eq(mkdir(cals, 0777), 0);
  /* Only another setup's: named, not shown. */
  copy(ts_own(ts_data("calibrate/foreign.json")),
       ts_pathf("%s/20261201T080000Z-b.json", cals));
  ts_run r = site(archive, out, NULL);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *index = page(out, "index.html");
  cr_expect(strstr(index, "calibrations/20261201T080000Z-b.json") != NULL, "%s",
            index);
  cr_expect(strstr(index, "No calibration of this runner applies") != NULL);
  /* One of this setup beside it: that one, though the other sorts later. */
  copy(ts_own(ts_data("calibrate/runner.json")),
       ts_pathf("%s/20261201T080000Z-a.json", cals));
  r = site(archive, out, NULL);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  index = page(out, "index.html");
  cr_expect(strstr(index, shown) != NULL, "%s", index);
  cr_expect(strstr(index, "calibrations/20261201T080000Z-a.json") != NULL);
  /* The archive stays valid with them. */
  r = ts_cli(NULL,
             (const char *[]){"archive", "verify", "--archive", archive, NULL});
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  /* A damaged one is no silent skip: file and line. */
  cr_assert_eq(ts_write(ts_pathf("%s/20261202T000000Z-c.json", cals), "[\n"),
               0);
  r = site(archive, out, NULL);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "20261202T000000Z-c.json:") != NULL, "%s", r.err);
  ts_run_free(&r);
}

Test(site_calibration, names_and_values_are_escaped) {
  char *dir = ts_own(ts_tmpdir("sitecal_escape"));
  char *archive = one_run_archive(dir), *out = ts_pathf("%s/public", dir);
  char *text = ts_own(ts_read(ts_own(ts_data("calibrate/foreign.json")), NULL));
  char *p = strstr(text, "other-box");
  cr_assert_not_null(p);
  char *hostile =
      ts_pathf("%.*s<script>x&y</script>%s", (int)(p - text), text, p + 9);
  char *name = ts_pathf("%s/<b>cal.json", dir);
  cr_assert_eq(ts_write(name, hostile), 0);
  ts_run r = site(archive, out, name);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *index = page(out, "index.html");
  cr_expect(strstr(index, "<script>") == NULL);
  cr_expect(strstr(index, "<b>cal") == NULL);
  cr_expect(strstr(index, "&lt;script&gt;x&amp;y&lt;/script&gt;") != NULL, "%s",
            index);
  cr_expect(strstr(index, "&lt;b&gt;cal.json") != NULL);
}

Test(site_calibration, an_archive_may_begin_with_its_calibrations) {
  char *dir = ts_own(ts_tmpdir("sitecal_first"));
  char *archive = ts_pathf("%s/archive", dir);
  cr_assert_eq(mkdir(archive, 0777), 0);
  cr_assert_eq(mkdir(ts_pathf("%s/calibrations", archive), 0777), 0);
  copy(ts_own(ts_data("calibrate/runner.json")),
       ts_pathf("%s/calibrations/20261201T080000Z-a.json", archive));
  char *log = ts_pathf("%s/examples/pr.csv", BENCHSITE_SOURCE_DIR);
  char *env = ts_pathf("%s/examples/env.csv", BENCHSITE_SOURCE_DIR);
  ts_run r =
      ts_cli(NULL, (const char *[]){"archive", "add", "--archive", archive, log,
                                    "--manifest", env, NULL});
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
}

/* compare --calibration DIR: the newest of the run's setup; none of it
 * is a warning, never a refusal of the verdict. */
Test(site_calibration, compare_chooses_from_a_directory) {
  char *dir = ts_own(ts_tmpdir("sitecal_compare"));
  char *cals = ts_pathf("%s/calibrations", dir);
  cr_assert_eq(mkdir(cals, 0777), 0);
  char *log = ts_pathf("%s/examples/pr.csv", BENCHSITE_SOURCE_DIR);
  char *env = ts_pathf("%s/examples/env.csv", BENCHSITE_SOURCE_DIR);
  const char *args[] = {"compare",       log,  "--manifest", env,
                        "--calibration", cals, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 1, "%s", r.err); /* pr.csv regresses */
  cr_expect(strstr(r.err, "no calibration there") != NULL, "%s", r.err);
  ts_run_free(&r);
  copy(ts_own(ts_data("calibrate/foreign.json")),
       ts_pathf("%s/2-foreign.json", cals));
  r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 1, "%s", r.err);
  cr_expect(strstr(r.err, "none of its 1 calibration was measured") != NULL,
            "%s", r.err);
  cr_expect(strstr(r.out, "on this runner") == NULL);
  ts_run_free(&r);
  copy(ts_own(ts_data("calibrate/runner.json")),
       ts_pathf("%s/1-runner.json", cals));
  r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 1, "%s", r.err);
  cr_expect(strstr(r.out, "on this runner: identical code flagged") != NULL,
            "%s", r.out);
  cr_expect_str_eq(r.err, "");
  ts_run_free(&r);
}
