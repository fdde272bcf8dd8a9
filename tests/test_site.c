/* The static site of an archive: pages, ordering, acknowledgements,
 * comparability groups, drift, incremental builds equal to clean ones,
 * hostile names, and a kill at any moment leaving the previous site. */
#include "benchsite/archive.h"
#include "benchsite/site.h"

#include "sha256.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Helpers ------------------------------------------------------------- */

TestSuite(site, .fini = ts_free_owned, .timeout = 600);

typedef struct tcase {
  const char *benchmark, *dataset;
  double base, head; /* per-call microseconds */
} tcase;

static uint64_t noise_state = 0x9E3779B97F4A7C15ULL;
static double jitter(void) {
  uint64_t s = noise_state;
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  noise_state = s;
  return ((double)((s * 0x2545F4914F6CDD1DULL) >> 11) * 0x1.0p-53 - 0.5) *
         0.004;
}

/* A CSV field, quoted per RFC 4180. */
static void field(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* Writes a log and a manifest of one run (impls base and head, 12 rotated
 * blocks, no calibration rows) and adds it to the archive. Returns the run
 * id (owned). */
static char *add_run(const char *archive, const char *work, const char *commit,
                     const char *date, const char *protocol, const tcase *cases,
                     size_t n) {
  char *log = ts_pathf("%s/%s.csv", work, commit);
  char *env = ts_pathf("%s/%s-env.csv", work, commit);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  for (size_t c = 0; c < n; c++) {
    for (int j = 0; j < 12; j++) {
      for (int k = 0; k < 2; k++) {
        int head = (j + k) % 2;
        field(f, cases[c].benchmark);
        fputc(',', f);
        field(f, cases[c].dataset);
        fprintf(f, ",%s,0,%d,confirm,100,%.17g\n", head ? "head" : "base", j,
                (head ? cases[c].head : cases[c].base) * (1 + jitter()));
      }
    }
  }
  cr_assert_eq(fclose(f), 0);
  f = fopen(env, "w");
  cr_assert_not_null(f);
  fprintf(f,
          "key,value\ntarget,native\nprofile,release\ndtype,f64\n"
          "machine,test-box\nfrequency_policy,performance\ncommit,%s\n"
          "date,%s\nprotocol,%s\nbaseline,base\ncandidate,head\n",
          commit, date, protocol);
  cr_assert_eq(fclose(f), 0);
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  const char *p = strstr(r.out, "added run ");
  cr_assert_not_null(p, "%s", r.out);
  p += 10;
  char *id = ts_own(strndup(p, strcspn(p, "\n")));
  ts_run_free(&r);
  return id;
}

static ts_run build(const char *archive, const char *out, int full) {
  const char *args[] = {
      "site", "--archive", archive, "--out", out, full ? "--full" : NULL, NULL};
  return ts_cli(NULL, args);
}

static void build_ok(const char *archive, const char *out, char *summary,
                     size_t n) {
  ts_run r = build(archive, out, 0);
  cr_assert_eq(r.status, 0, "site: %s%s", r.out, r.err);
  if (summary)
    snprintf(summary, n, "%s", r.out);
  ts_run_free(&r);
}

static char *slurp(const char *path) {
  char *s = ts_read(path, NULL);
  cr_assert_not_null(s, "cannot read %s", path);
  return ts_own(s);
}

static ino_t inode(const char *path) {
  struct stat st;
  cr_assert_eq(stat(path, &st), 0, "%s", path);
  return st.st_ino;
}

/* The file of a case: case-HASH.html, HASH from "benchmark\0dataset". */
static char *case_file(const char *benchmark, const char *dataset) {
  bs__sha256 h;
  unsigned char d[BS__SHA256_LEN];
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_init(&h);
  bs__sha256_update(&h, benchmark, strlen(benchmark) + 1);
  bs__sha256_update(&h, dataset, strlen(dataset));
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, hex);
  return ts_pathf("case-%.16s", hex);
}

/* Folds the names and bytes of a tree into a digest (hard links and
 * inodes do not matter, only what a reader sees). */
static void tree_digest(bs__sha256 *h, const char *dir, const char *rel) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  char *names[4096];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    cr_assert_lt(n, 4096);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  for (size_t i = 0; i < n; i++) {
    char full[4096], r[4096];
    snprintf(full, sizeof full, "%s/%s", dir, names[i]);
    snprintf(r, sizeof r, "%s/%s", rel, names[i]);
    struct stat st;
    cr_assert_eq(lstat(full, &st), 0);
    bs__sha256_update(h, r, strlen(r) + 1);
    if (S_ISDIR(st.st_mode)) {
      tree_digest(h, full, r);
    } else {
      FILE *f = fopen(full, "rb");
      cr_assert_not_null(f, "%s", full);
      char buf[65536];
      size_t got;
      while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        bs__sha256_update(h, buf, got);
      fclose(f);
    }
    free(names[i]);
  }
}

static void digest_of(const char *dir, char hex[BS__SHA256_HEXLEN + 1]) {
  bs__sha256 h;
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_init(&h);
  tree_digest(&h, dir, "");
  bs__sha256_final(&h, d);
  bs__sha256_tohex(d, hex);
}

static const tcase two[] = {{"sort", "n=1024", 100.0, 100.0},
                            {"sum", "", 10.0, 10.0}};

/* ---- Pages and ordering -------------------------------------------------- */

Test(site, index_lists_runs_newest_first_with_their_pages) {
  char *dir = ts_own(ts_tmpdir("site_index"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  /* Added out of date order: the site orders by date, then id. */
  char *b = add_run(archive, dir, "commit-b", "2026-03-02T00:00:00Z",
                    "Development", two, 2);
  char *a = add_run(archive, dir, "commit-a", "2026-03-01T00:00:00Z",
                    "Development", two, 2);
  char *c = add_run(archive, dir, "commit-c", "2026-03-03T00:00:00Z",
                    "Development", two, 2);
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "3 runs, 2 cases, 1 comparability group"),
                     "%s", summary);
  char *index = slurp(ts_pathf("%s/index.html", out));
  const char *pc = strstr(index, ">commit-c<");
  const char *pb = strstr(index, ">commit-b<");
  const char *pa = strstr(index, ">commit-a<");
  cr_assert(pc && pb && pa && pc < pb && pb < pa, "runs not newest first");
  const char *ids[] = {a, b, c};
  for (int i = 0; i < 3; i++) {
    cr_assert(ts_exists(ts_pathf("%s/run-%s.html", out, ids[i])));
    cr_assert(ts_exists(ts_pathf("%s/runs/%s/index.html", out, ids[i])),
              "the run's report");
    cr_assert_not_null(strstr(index, ts_pathf("runs/%s/index.html", ids[i])));
  }
  char *sort = case_file("sort", "n=1024"), *sum = case_file("sum", "");
  cr_assert(ts_exists(ts_pathf("%s/%s.html", out, sort)));
  cr_assert(ts_exists(ts_pathf("%s/charts/%s-history.svg", out, sort)));
  cr_assert(ts_exists(ts_pathf("%s/%s.html", out, sum)));
  cr_assert(ts_exists(ts_pathf("%s/style.css", out)));
  /* The history lists the runs in date order. */
  char *hist = slurp(ts_pathf("%s/%s.html", out, sort));
  pa = strstr(hist, ">commit-a<");
  pb = strstr(hist, ">commit-b<");
  pc = strstr(hist, ">commit-c<");
  cr_assert(pa && pb && pc && pa < pb && pb < pc, "history not in date order");
  cr_assert_not_null(strstr(hist, "<img src=\"charts/"));
  cr_assert_null(strstr(hist, "<script"));
}

Test(site, refuses_to_replace_a_directory_that_is_not_a_site) {
  char *dir = ts_own(ts_tmpdir("site_refuse"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  cr_assert_eq(mkdir(out, 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/notes.txt", out), "mine\n"), 0);
  ts_run r = build(archive, out, 0);
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert_not_null(strstr(r.err, "not a benchsite site"), "%s", r.err);
  cr_assert_str_eq(slurp(ts_pathf("%s/notes.txt", out)), "mine\n");
  ts_run_free(&r);
  ts_run r2 = build(ts_pathf("%s/nope", dir), ts_pathf("%s/o2", dir), 0);
  cr_assert_eq(r2.status, 2, "%s", r2.err);
  cr_assert_not_null(strstr(r2.err, "no such archive"), "%s", r2.err);
  ts_run_free(&r2);
}

Test(site, a_damaged_run_stops_the_build_and_keeps_the_site) {
  char *dir = ts_own(ts_tmpdir("site_damaged"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  build_ok(archive, out, NULL, 0);
  char before[BS__SHA256_HEXLEN + 1], after[BS__SHA256_HEXLEN + 1];
  digest_of(out, before);
  char *id = add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development",
                     two, 2);
  char *log = ts_pathf("%s/runs/%s/log-1.csv", archive, id);
  char *text = slurp(log);
  char *digit = strstr(text, ",confirm,100,") + 13;
  *digit = *digit == '9' ? '8' : (char)(*digit + 1);
  cr_assert_eq(ts_write(log, text), 0);
  ts_run r = build(archive, out, 0);
  cr_assert_eq(r.status, 2, "%s%s", r.out, r.err);
  cr_assert_not_null(strstr(r.err, "log-1.csv: checksum mismatch"), "%s",
                     r.err);
  cr_assert_not_null(strstr(r.err, "benchsite archive verify"), "%s", r.err);
  ts_run_free(&r);
  digest_of(out, after);
  cr_assert_str_eq(before, after, "the site changed");
}

/* ---- Incremental --------------------------------------------------------- */

Test(site, incremental_rebuild_touches_only_what_changed) {
  char *dir = ts_own(ts_tmpdir("site_incremental"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  char *r1 = add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development",
                     two, 2);
  add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two, 2);
  char *r3 = add_run(archive, dir, "c3", "2026-03-03T00:00:00Z", "Development",
                     two, 2);
  build_ok(archive, out, NULL, 0);
  char *sort = case_file("sort", "n=1024"), *sum = case_file("sum", "");
  char *r1_report = ts_pathf("%s/runs/%s/index.html", out, r1);
  char *r1_chart = ts_pathf("%s/runs/%s/charts/case-0001-deltas.svg", out, r1);
  char *r1_page = ts_pathf("%s/run-%s.html", out, r1);
  char *r3_page = ts_pathf("%s/run-%s.html", out, r3);
  char *sum_page = ts_pathf("%s/%s.html", out, sum);
  char *sum_chart = ts_pathf("%s/charts/%s-history.svg", out, sum);
  char *sort_page = ts_pathf("%s/%s.html", out, sort);
  char *sort_chart = ts_pathf("%s/charts/%s-history.svg", out, sort);
  char *index = ts_pathf("%s/index.html", out);
  ino_t i_r1_report = inode(r1_report), i_r1_chart = inode(r1_chart),
        i_r1_page = inode(r1_page), i_r3_page = inode(r3_page),
        i_sum_page = inode(sum_page), i_sum_chart = inode(sum_chart),
        i_sort_page = inode(sort_page), i_sort_chart = inode(sort_chart),
        i_index = inode(index);

  /* Nothing new: nothing is rebuilt, written or rendered. */
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 0 built, 3 reused"), "%s",
                     summary);
  cr_assert_not_null(strstr(summary, "history charts 0 rendered, 2 reused"),
                     "%s", summary);
  cr_assert_not_null(strstr(summary, "pages 0 written"), "%s", summary);
  cr_assert_eq(inode(index), i_index);

  /* One new run that measures only sort. */
  static const tcase only_sort[] = {{"sort", "n=1024", 100.0, 120.0}};
  char *r4 = add_run(archive, dir, "c4", "2026-03-04T00:00:00Z", "Development",
                     only_sort, 1);
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 1 built, 3 reused"), "%s",
                     summary);
  cr_assert_not_null(strstr(summary, "history charts 1 rendered, 1 reused"),
                     "%s", summary);
  /* Untouched: the old runs' reports and pages, and everything of sum. */
  cr_assert_eq(inode(r1_report), i_r1_report);
  cr_assert_eq(inode(r1_chart), i_r1_chart);
  cr_assert_eq(inode(r1_page), i_r1_page);
  cr_assert_eq(inode(sum_page), i_sum_page);
  cr_assert_eq(inode(sum_chart), i_sum_chart);
  /* Rewritten: what the new run changes. */
  cr_assert_neq(inode(sort_page), i_sort_page);
  cr_assert_neq(inode(sort_chart), i_sort_chart);
  cr_assert_neq(inode(index), i_index);
  cr_assert_neq(inode(r3_page), i_r3_page, "its 'newer' link changed");
  cr_assert(ts_exists(ts_pathf("%s/runs/%s/index.html", out, r4)));

  /* The same bytes as a clean build. */
  char *clean = ts_pathf("%s/clean", dir);
  build_ok(archive, clean, NULL, 0);
  char h1[BS__SHA256_HEXLEN + 1], h2[BS__SHA256_HEXLEN + 1];
  digest_of(out, h1);
  digest_of(clean, h2);
  cr_assert_str_eq(h1, h2, "incremental and clean builds differ");
  /* --full ignores the state and gives the same bytes again. */
  ts_run r = build(archive, out, 1);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert_not_null(strstr(r.out, "reports 4 built, 0 reused"), "%s", r.out);
  ts_run_free(&r);
  digest_of(out, h1);
  cr_assert_str_eq(h1, h2);
}

/* ---- Acknowledgements ---------------------------------------------------- */

Test(site, acknowledged_changes_are_shown_and_not_counted_as_open) {
  char *dir = ts_own(ts_tmpdir("site_acks"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  static const tcase slower[] = {{"sort", "n=1024", 100.0, 100.0},
                                 {"sum", "", 10.0, 15.0}};
  char *r2 = add_run(archive, dir, "c2-slow", "2026-03-02T00:00:00Z",
                     "Development", slower, 2);
  build_ok(archive, out, NULL, 0);
  char *index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_not_null(strstr(index, "1 open significant regression"), "%s",
                     index);

  cr_assert_eq(ts_write(ts_pathf("%s/acks.csv", archive),
                        "commit,benchmark,dataset,reason\n"
                        "c2-slow,sum,,\"checked input, <accepted>\"\n"),
               0);
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 0 built, 2 reused"),
                     "acks change pages, not reports: %s", summary);
  cr_assert_not_null(strstr(summary, "0 open regressions"), "%s", summary);
  index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_not_null(strstr(index, "no open significant regression"), "%s",
                     index);
  char *run = slurp(ts_pathf("%s/run-%s.html", out, r2));
  cr_assert_not_null(strstr(run, "checked input, &lt;accepted&gt;"));
  cr_assert_not_null(strstr(run, "acks.csv line 2"));
  char *hist = slurp(ts_pathf("%s/%s.html", out, case_file("sum", "")));
  cr_assert_not_null(strstr(hist, "acknowledged"));
  cr_assert_not_null(strstr(hist, "checked input, &lt;accepted&gt;"));
  char *svg =
      slurp(ts_pathf("%s/charts/%s-history.svg", out, case_file("sum", "")));
  cr_assert_not_null(strstr(svg, "acknowledged change"));

  /* A broken acks.csv fails the build with its line, and the site stays. */
  cr_assert_eq(ts_write(ts_pathf("%s/acks.csv", archive),
                        "commit,benchmark,dataset,reason\nc2,sum\n"),
               0);
  ts_run r = build(archive, out, 0);
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert_not_null(strstr(r.err, "acks.csv:2:"), "%s", r.err);
  ts_run_free(&r);
  cr_assert_str_eq(slurp(ts_pathf("%s/index.html", out)), index);
}

/* ---- Comparability ------------------------------------------------------- */

Test(site, runs_of_different_environments_are_separate_series) {
  char *dir = ts_own(ts_tmpdir("site_groups"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "d1", "2026-03-01T00:00:00Z", "Development", two, 2);
  add_run(archive, dir, "d2", "2026-03-02T00:00:00Z", "Development", two, 2);
  char *g1 = add_run(archive, dir, "g1", "2026-03-03T00:00:00Z",
                     "RegressionGate", two, 2);
  add_run(archive, dir, "g2", "2026-03-04T00:00:00Z", "RegressionGate", two, 2);
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "2 comparability groups"), "%s", summary);
  char *index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_not_null(strstr(index, "differs on protocol"));
  cr_assert_not_null(strstr(index, "protocol=Development"));
  cr_assert_not_null(strstr(index, "protocol=RegressionGate"));
  char *hist = slurp(ts_pathf("%s/%s.html", out, case_file("sort", "n=1024")));
  cr_assert_not_null(strstr(hist, "Group 1: protocol=Development"));
  cr_assert_not_null(strstr(hist, "Group 2: protocol=RegressionGate"));
  char *svg = slurp(
      ts_pathf("%s/charts/%s-history.svg", out, case_file("sort", "n=1024")));
  cr_assert_not_null(strstr(svg, "group 1 (protocol=Development)"));
  cr_assert_not_null(strstr(svg, "group 2 (protocol=RegressionGate)"));
  char *run = slurp(ts_pathf("%s/run-%s.html", out, g1));
  cr_assert_not_null(strstr(run, "differs on protocol"));
}

/* ---- Drift --------------------------------------------------------------- */

Test(site, gradual_drift_is_flagged_with_its_shift) {
  char *dir = ts_own(ts_tmpdir("site_drift"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  /* sort creeps up 1 % a run: never a regression against the parent, a
   * clear trend over 8 runs. sum stays put. */
  double v = 100.0;
  for (int i = 0; i < 8; i++) {
    tcase cs[2] = {{"sort", "n=1024", v, v * 1.01}, {"sum", "", 10.0, 10.0}};
    v *= 1.01;
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "creep-%d", i);
    snprintf(date, sizeof date, "2026-03-%02dT00:00:00Z", i + 1);
    add_run(archive, dir, commit, date, "Development", cs, 2);
  }
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "1 drifting case"), "%s", summary);
  char *index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_not_null(strstr(index, "drifting +"), "%s", index);
  char *hist = slurp(ts_pathf("%s/%s.html", out, case_file("sort", "n=1024")));
  cr_assert_not_null(strstr(hist, "<strong>Drift:</strong>"));
  char *flat = slurp(ts_pathf("%s/%s.html", out, case_file("sum", "")));
  cr_assert_not_null(strstr(flat, "No drift"));
}

/* ---- Hostile names ------------------------------------------------------- */

Test(site, hostile_names_are_escaped_and_never_file_names) {
  char *dir = ts_own(ts_tmpdir("site_hostile"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  static const tcase evil[] = {
      {"<script>alert(1)</script>", "../../x\"; system(\"touch pwned\")", 10.0,
       10.0},
      {"`touch pwned2` @x", "set output \"|touch pwned3\"", 5.0, 5.0}};
  add_run(archive, dir, "c<b>1", "2026-03-01T00:00:00Z", "Development", evil,
          2);
  build_ok(archive, out, NULL, 0);
  cr_assert(!ts_exists(ts_pathf("%s/pwned", out)));
  cr_assert(!ts_exists("pwned") && !ts_exists("pwned2") &&
            !ts_exists("pwned3"));
  cr_assert(!ts_exists(ts_pathf("%s/charts/pwned", out)));
  char *index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_null(strstr(index, "<script>"));
  cr_assert_not_null(strstr(index, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  cr_assert_not_null(strstr(index, "c&lt;b&gt;1"));
  /* File names: fixed words, run ids and hex only. */
  DIR *d = opendir(out);
  struct dirent *e;
  while ((e = readdir(d)))
    for (const char *p = e->d_name; *p; p++)
      cr_assert(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789.-_",
                       *p),
                "file name %s", e->d_name);
  closedir(d);
}

/* ---- Atomicity ----------------------------------------------------------- */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static pid_t spawn_site(const char *archive, const char *out, int full) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    dup2(null, 1);
    dup2(null, 2);
    execl(BENCHSITE_BIN, BENCHSITE_BIN, "site", "--archive", archive, "--out",
          out, full ? "--full" : (char *)NULL, (char *)NULL);
    _exit(127);
  }
  return pid;
}

static int count_build_dirs(const char *parent) {
  DIR *d = opendir(parent);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += strncmp(e->d_name, ".public.site-", 13) == 0;
  closedir(d);
  return n;
}

/* Kills `benchsite site` at random moments while it rebuilds a site for a
 * grown archive: afterwards the output is exactly the previous site or
 * exactly the new one (never a mix, never missing), and the archive still
 * verifies. A finished build is reset to the old site for the next round. */
Test(site, kill_during_site_leaves_the_previous_site_intact) {
  char *dir = ts_own(ts_tmpdir("site_kill"));
  char *old_archive = ts_pathf("%s/old", dir),
       *new_archive = ts_pathf("%s/new", dir);
  char *out = ts_pathf("%s/public", dir);
  for (int i = 0; i < 3; i++) {
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "k%d", i);
    snprintf(date, sizeof date, "2026-03-%02dT00:00:00Z", i + 1);
    noise_state = 42 + (uint64_t)i; /* the same logs in both archives */
    add_run(old_archive, dir, commit, date, "Development", two, 2);
    noise_state = 42 + (uint64_t)i;
    add_run(new_archive, dir, commit, date, "Development", two, 2);
  }
  add_run(new_archive, dir, "k3", "2026-03-04T00:00:00Z", "Development", two,
          2);
  char old_hex[BS__SHA256_HEXLEN + 1], new_hex[BS__SHA256_HEXLEN + 1];
  char *ref = ts_pathf("%s/ref", dir);
  build_ok(new_archive, ref, NULL, 0);
  digest_of(ref, new_hex);
  build_ok(old_archive, out, NULL, 0);
  digest_of(out, old_hex);
  cr_assert_str_neq(old_hex, new_hex);

  /* How long an incremental and a full build take. */
  double t_inc = 0, t_full = 0;
  for (int full = 0; full < 2; full++) {
    double t0 = now_ms();
    pid_t p = spawn_site(new_archive, out, full);
    int st;
    cr_assert_eq(waitpid(p, &st, 0), p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    *(full ? &t_full : &t_inc) = now_ms() - t0;
    build_ok(old_archive, out, NULL, 0); /* back to the old site */
  }

  uint64_t rng = 0x853c49e6748fea9bULL;
  int rounds = 24, finished = 0, killed = 0;
  for (int i = 0; i < rounds; i++) {
    int full = i % 2;
    double span = (full ? t_full : t_inc) * 1.2;
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    long delay_us = (long)((double)((rng * 0x2545F4914F6CDD1DULL) >> 11) *
                           0x1.0p-53 * span * 1000.0);
    pid_t pid = spawn_site(new_archive, out, full);
    struct timespec ts = {delay_us / 1000000, (delay_us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
      ;
    kill(pid, SIGKILL);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st)) {
      cr_assert_eq(WEXITSTATUS(st), 0, "site failed on its own");
      finished++;
    } else {
      killed++;
    }
    cr_assert(ts_exists(out), "round %d: the site is missing", i);
    char hex[BS__SHA256_HEXLEN + 1];
    digest_of(out, hex);
    cr_assert(!strcmp(hex, old_hex) || !strcmp(hex, new_hex),
              "round %d (%s, killed after %ld us): the site is neither the "
              "old nor the new one",
              i, full ? "full" : "incremental", delay_us);
    if (!strcmp(hex, new_hex))
      build_ok(old_archive, out, NULL, 0);
  }
  cr_log_info("site kill test: %d rounds, %d killed, %d finished first; "
              "incremental %.0f ms, full %.0f ms",
              rounds, killed, finished, t_inc, t_full);

  /* The archives are untouched, and the next build sweeps the leftovers. */
  const char *vargs[] = {"archive", "verify", "--archive", new_archive, NULL};
  ts_run v = ts_cli(NULL, vargs);
  cr_assert_eq(v.status, 0, "%s", v.out);
  ts_run_free(&v);
  build_ok(new_archive, out, NULL, 0);
  char hex[BS__SHA256_HEXLEN + 1];
  digest_of(out, hex);
  cr_assert_str_eq(hex, new_hex);
  cr_assert_eq(count_build_dirs(dir), 0, "build directories left behind");
}

/* ---- Library ------------------------------------------------------------- */

Test(site, library_reports_usage_errors) {
  bs_site_options o;
  bs_site_options_init(&o);
  bs_error err;
  cr_assert_eq(bs_site_build("a", "b", &o, NULL, &err), BS_EUSAGE);
  o.templates_dir = BENCHSITE_SOURCE_DIR "/templates";
  o.assets_dir = BENCHSITE_SOURCE_DIR "/site";
  cr_assert_eq(bs_site_build("a", ".", &o, NULL, &err), BS_EUSAGE);
}

/* A run no report can be made of (its target is not native) still shows
 * its paired verdicts: the site analyses it once, keeps going past what
 * stops the report, and says on the run page why there is none. */
Test(site, a_run_without_a_report_keeps_its_verdicts) {
  char *dir = ts_own(ts_tmpdir("site_no_report"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir), *env = ts_pathf("%s/env.csv", dir);
  cr_assert_eq(ts_write(env, "key,value\ntarget,wasm32\nprofile,release\n"
                             "machine,test-box\ncommit,c1\n"
                             "date,2026-03-01T00:00:00Z\n"
                             "protocol,Development\nbaseline,main\n"
                             "candidate,pr\n"),
               0);
  char *log = ts_own(ts_data("../../examples/pr.csv"));
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "archive add: %s", r.err);
  ts_run_free(&r);
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  /* examples/pr.csv has one significant regression (sum). */
  cr_assert_not_null(strstr(summary, "1 open regression in the newest run"),
                     "%s", summary);
  DIR *d = opendir(out);
  cr_assert_not_null(d);
  struct dirent *e;
  char *page = NULL;
  while ((e = readdir(d)))
    if (!strncmp(e->d_name, "run-", 4))
      page = slurp(ts_pathf("%s/%s", out, e->d_name));
  closedir(d);
  cr_assert_not_null(page, "no run page");
  cr_expect_not_null(strstr(page, "No report for this run:"));
  cr_expect_not_null(strstr(page, "not native"));
  cr_expect_not_null(strstr(page, "significant regression"));
}
