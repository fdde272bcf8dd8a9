/* The site's runs (src/site/site_runs.c): one run's problem is that run's
 * note, never the site's failure. Every --lib run lacks max_rss_kib and
 * pytest and go runs lack cpu_per_call_us, and archive add takes them:
 * `site --metric cpu|rss` over such an archive draws them without the
 * metric and says so on every page where they would have figured; its
 * medians are the metric's own. */
#include "support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(site_runs, .fini = ts_free_owned, .timeout = 300);

/* Which metric columns a run's log has. */
enum { CPU = 1, RSS = 2 };

/* Adds a run of case sum [n=1] (head `slow` times base in wall time, CPU
 * time half the wall time, memory 1000 + block KiB) with the metric
 * columns `cols`. */
static void add_run(const char *archive, const char *work, const char *commit,
                    const char *date, double slow, int cols) {
  char *log = ts_pathf("%s/%s.csv", work, commit);
  char *env = ts_pathf("%s/%s-env.csv", work, commit);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fprintf(
      f, "benchmark,dataset,impl,run,block,phase,iterations,per_call_us%s%s\n",
      cols & CPU ? ",cpu_per_call_us" : "", cols & RSS ? ",max_rss_kib" : "");
  for (int j = 0; j < 12; j++) {
    for (int k = 0; k < 2; k++) {
      int head = (j + k) % 2;
      double v = (head ? slow : 1.0) * (100.0 + (j * 7 % 5) * 0.25);
      fprintf(f, "sum,n=1,%s,0,%d,confirm,100,%.17g", head ? "head" : "base", j,
              v);
      if (cols & CPU)
        fprintf(f, ",%.17g", v / 2);
      if (cols & RSS)
        fprintf(f, ",%d", 1000 + j);
      fputc('\n', f);
    }
  }
  cr_assert_eq(fclose(f), 0);
  cr_assert_eq(ts_write(env, ts_pathf("key,value\ntarget,native\n"
                                      "profile,release\ndtype,f64\n"
                                      "machine,test-box\n"
                                      "frequency_policy,performance\n"
                                      "commit,%s\ndate,%s\n"
                                      "protocol,Development\nbaseline,base\n"
                                      "candidate,head\n",
                                      commit, date)),
               0);
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  ts_run_free(&r);
}

static ts_run site(const char *archive, const char *out, const char *metric) {
  const char *args[] = {"site",     "--archive", archive,   "--out", out,
                        "--metric", metric,      "--quiet", NULL};
  return ts_cli(NULL, args);
}

static char *slurp(const char *path) {
  char *s = ts_read(path, NULL);
  cr_assert_not_null(s, "cannot read %s", path);
  return ts_own(s);
}

/* Three runs as the harnesses write them: c1 as --lib (CPU time, no
 * memory), c2 as --cmd (both; head 25 % slower), c3 as pytest or go
 * (neither). */
static void harness_archive(const char *dir, const char *archive) {
  add_run(archive, dir, "c1", "2026-11-20T10:00:00Z", 1.0, CPU);
  add_run(archive, dir, "c2", "2026-11-21T10:00:00Z", 1.25, CPU | RSS);
  add_run(archive, dir, "c3", "2026-11-22T10:00:00Z", 1.0, 0);
}

/* The id of the run of `commit`, from runs.json, and its line there. */
static char *run_id(const char *runs, const char *commit, char **line) {
  const char *p = strstr(runs, ts_pathf("Z-%s-", commit));
  cr_assert_not_null(p, "no run of %s in %s", commit, runs);
  const char *q = p;
  while (q > runs && q[-1] != '"')
    q--;
  const char *l = q;
  while (l > runs && l[-1] != '\n')
    l--;
  *line = ts_own(strndup(l, strcspn(l, "\n")));
  return ts_own(strndup(q, strcspn(q, "\"")));
}

#define CASE_PAGE "case-sum-n-1-7e96bd9b9eb587d8.html"
#define CASE_DATA "history/sum-n-1-7e96bd9b9eb587d8.json"

Test(site_runs, a_run_without_the_metric_is_its_note_not_a_failure) {
  char *dir = ts_own(ts_tmpdir("site_runs_note"));
  char *archive = ts_pathf("%s/archive", dir);
  harness_archive(dir, archive);
  static const struct {
    const char *metric, *quantity, *column;
    const char *without[3]; /* the commits of the runs that lack it */
  } m[] = {{"cpu", "CPU time per call", "cpu_per_call_us", {"c3", NULL}},
           {"rss", "peak resident memory", "max_rss_kib", {"c1", "c3", NULL}}};
  for (size_t k = 0; k < 2; k++) {
    char *out = ts_pathf("%s/site-%s", dir, m[k].metric);
    ts_run r = site(archive, out, m[k].metric);
    cr_assert_eq(r.status, 0, "site --metric %s: %s%s", m[k].metric, r.out,
                 r.err);
    ts_run_free(&r);
    char *index = slurp(ts_pathf("%s/index.html", out));
    char *runs = slurp(ts_pathf("%s/history/runs.json", out));
    char *cpage = slurp(ts_pathf("%s/" CASE_PAGE, out));
    const char *note = ts_pathf("no %s recorded", m[k].quantity);
    size_t want = 0;
    for (size_t w = 0; m[k].without[w]; w++, want++) {
      char *line;
      char *id = run_id(runs, m[k].without[w], &line);
      /* Its run page says so, naming the column. */
      char *page = slurp(ts_pathf("%s/run-%s.html", out, id));
      cr_expect(
          strstr(page,
                 ts_pathf("This run recorded no %s (column <code>%s</code>)",
                          m[k].quantity, m[k].column)),
          "--metric %s: the run page of %s:\n%s", m[k].metric, m[k].without[w],
          page);
      /* ... in words that name no file (the page is the same wherever
       * the archive lies). */
      cr_expect_null(strstr(page, "log-1.csv"), "%s", page);
      /* runs.json: no metric for it. */
      cr_expect(strstr(line, ",null]"), "--metric %s: %s", m[k].metric, line);
    }
    /* The index's row and the case's history row of each such run. */
    size_t n = 0;
    for (const char *p = strstr(index, note); p; p = strstr(p + 1, note))
      n++;
    cr_expect_eq(n, want, "--metric %s: the index says %zu times: %s",
                 m[k].metric, n, index);
    n = 0;
    for (const char *p = strstr(cpage, note); p; p = strstr(p + 1, note))
      n++;
    cr_expect_eq(n, want, "--metric %s: the case page says %zu times: %s",
                 m[k].metric, n, cpage);
    /* A run that has the metric says nothing of the kind. */
    char *line;
    char *id = run_id(runs, "c2", &line);
    cr_expect_null(strstr(slurp(ts_pathf("%s/run-%s.html", out, id)),
                          "This run recorded no"));
    cr_expect_null(strstr(line, "null]"), "%s", line);
  }
}

/* The history's medians are of the metric the site shows: c2's head in
 * CPU time is 62.8125 µs (half its wall time, 125.625 µs: the median of
 * 1.25 (100 + {0, 0, 0, .25, .25, .5, .5, .5, .75, .75, 1, 1}) is
 * 1.25 * 100.5). */
Test(site_runs, the_history_shows_the_metric_it_names) {
  char *dir = ts_own(ts_tmpdir("site_runs_medians"));
  char *archive = ts_pathf("%s/archive", dir);
  harness_archive(dir, archive);
  char *out = ts_pathf("%s/site", dir);
  ts_run r = site(archive, out, "cpu");
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *data = slurp(ts_pathf("%s/" CASE_DATA, out));
  cr_expect_not_null(strstr(data, "62.8125"), "%s", data);
  cr_expect_null(strstr(data, "125.625"), "%s", data);
  r = site(archive, ts_pathf("%s/wall", dir), "wall");
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  data = slurp(ts_pathf("%s/wall/" CASE_DATA, dir));
  cr_expect_not_null(strstr(data, "125.625"), "%s", data);
}

/* The note comes back with the run's results from the previous build: a
 * rebuild after a new run equals a clean build of the same archive. */
Test(site_runs, the_note_survives_an_incremental_build) {
  char *dir = ts_own(ts_tmpdir("site_runs_incremental"));
  char *archive = ts_pathf("%s/archive", dir);
  harness_archive(dir, archive);
  char *out = ts_pathf("%s/site", dir);
  ts_run r = site(archive, out, "cpu");
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  add_run(archive, dir, "c4", "2026-11-23T10:00:00Z", 1.0, CPU);
  const char *args[] = {"site", "--archive", archive, "--out",
                        out,    "--metric",  "cpu",   NULL};
  r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  cr_expect_not_null(strstr(r.out, "analyses 1 built, 3 reused"), "%s", r.out);
  ts_run_free(&r);
  char *clean = ts_pathf("%s/clean", dir);
  r = site(archive, clean, "cpu");
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *argv[] = {"diff", "-r",  "-x", ".benchsite-site.stamps",
                  out,    clean, NULL};
  cr_expect_eq(ts_run_quiet(argv), 0,
               "the rebuilt site differs from a "
               "clean build");
}
