/* The static site of an archive: pages, ordering, acknowledgements,
 * comparability groups, drift, incremental builds equal to clean ones,
 * hostile names, and a kill at any moment leaving the previous site. */
#include "benchsite/archive.h"
#include "benchsite/site.h"

#include "jsonread.h"
#include "sha256.h"
#include "site_int.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* The baseline_commit the next add_run writes into its manifest (none
 * when NULL); add_run clears it. */
static const char *next_baseline_commit;

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
  if (next_baseline_commit)
    fprintf(f, "baseline_commit,%s\n", next_baseline_commit);
  next_baseline_commit = NULL;
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

/* A case's file id, SLUG-HASH (bs__site_case_id; its stability is
 * checked against names worked out independently in
 * case_ids_are_a_slug_and_a_hash_of_the_exact_name). */
static char *case_id(const char *benchmark, const char *dataset) {
  char id[BS__SITE_CASE_ID];
  bs__site_case_id(benchmark, dataset, id);
  return ts_pathf("%s", id);
}

/* The page of a case without ".html": case-ID. */
static char *case_file(const char *benchmark, const char *dataset) {
  return ts_pathf("case-%s", case_id(benchmark, dataset));
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
    /* The stamps of the files a build found in place: inodes and times,
     * which differ from one directory to another by nature. */
    if (!rel[0] && !strcmp(e->d_name, ".benchsite-site.stamps"))
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

/* Stable URLs: the ids below were worked out outside benchsite (Python:
 * hashlib.sha256(benchmark + b"\0" + dataset).hexdigest()[:16], and the
 * slug by hand: ASCII letters lowercased, digits kept, any other run of
 * bytes one '-', none at either end, at most 24 bytes, "case" when
 * empty). They must never change: published links depend on them. */
Test(site, case_ids_are_a_slug_and_a_hash_of_the_exact_name) {
  static const struct {
    const char *benchmark, *dataset, *id;
  } want[] = {
      {"sort", "n=1024", "sort-n-1024-0da0f4301f3ca919"},
      {"Matrix::Multiply<f64>", "n = 65536",
       "matrix-multiply-f64-n-65-f3b120dae55fd9af"},
      {"\xc3\xbc"
       "n\xc3\xaf"
       "code",
       "", "n-code-557ed400ae71ed3a"},
      {"a_very_long_benchmark_name_indeed", "dataset=large",
       "a-very-long-benchmark-na-0720a21e72103a0a"},
      {"+++", "", "case-9651f23de3f7d394"},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    char id[BS__SITE_CASE_ID];
    bs__site_case_id(want[i].benchmark, want[i].dataset, id);
    cr_expect_str_eq(id, want[i].id, "case %zu", i);
  }
  /* The hash is of the exact name: names with one slug differ. */
  char a[BS__SITE_CASE_ID], b[BS__SITE_CASE_ID];
  bs__site_case_id("sort", "n=1024", a);
  bs__site_case_id("Sort", "n=1024", b);
  cr_expect_str_neq(a, b);
  cr_expect_eq(strncmp(a, b, 12), 0);
}

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
  cr_assert(ts_exists(
      ts_pathf("%s/charts/%s-history.svg", out, case_id("sort", "n=1024"))));
  cr_assert(ts_exists(ts_pathf("%s/%s.html", out, sum)));
  cr_assert(ts_exists(ts_pathf("%s/style.css", out)));
  /* The history lists the runs newest first too. */
  char *hist = slurp(ts_pathf("%s/%s.html", out, sort));
  pa = strstr(hist, ">commit-a<");
  pb = strstr(hist, ">commit-b<");
  pc = strstr(hist, ">commit-c<");
  cr_assert(pa && pb && pc && pc < pb && pb < pa, "history not newest first");
  cr_assert_not_null(strstr(hist, "<img src=\"charts/"));
  cr_assert_null(strstr(hist, "<script"));
}

static bs__jvalue *json_file(const char *path) {
  size_t len;
  char *text = ts_read(path, &len);
  cr_assert_not_null(text, "cannot read %s", path);
  bs__jvalue *v = NULL;
  bs_error err;
  cr_assert_eq(bs__json_parse(path, text, len, &v, &err), BS_OK, "%s",
               err.message);
  free(text);
  return v;
}

static const bs__jvalue *member(const bs__jvalue *v, const char *key,
                                bs__jtype type) {
  const bs__jvalue *m = bs__json_member(v, key);
  cr_assert_not_null(m, "no member %s", key);
  cr_assert_eq(m->type, type, "member %s has type %d", key, (int)m->type);
  return m;
}

/* Member `name` of a run's line in a history file of format 2, by the
 * file's own "fields" (NULL when the line has no such element). */
static const bs__jvalue *field_of(const bs__jvalue *file,
                                  const bs__jvalue *entry, const char *name) {
  const bs__jvalue *fields = member(file, "fields", BS__JARRAY);
  cr_assert_eq(entry->type, BS__JARRAY);
  for (size_t k = 0; k < fields->n; k++)
    if (!strcmp(fields->items[k].string, name))
      return k < entry->n ? &entry->items[k] : NULL;
  cr_assert_fail("no field %s", name);
  return NULL;
}

static const bs__jvalue *hfield(const bs__jvalue *file, const bs__jvalue *entry,
                                const char *name, bs__jtype type) {
  const bs__jvalue *m = field_of(file, entry, name);
  cr_assert_not_null(m, "no element %s", name);
  cr_assert_eq(m->type, type, "field %s has type %d", name, (int)m->type);
  return m;
}

/* The run a history line names, from history/runs.json (its array). */
static const bs__jvalue *run_of(const bs__jvalue *runs_json,
                                const bs__jvalue *file,
                                const bs__jvalue *entry) {
  const bs__jvalue *runs = member(runs_json, "runs", BS__JARRAY);
  double k = hfield(file, entry, "run", BS__JNUMBER)->number;
  cr_assert(k >= 0 && k < (double)runs->n, "run %g of %zu", k, runs->n);
  return &runs->items[(size_t)k];
}

Test(site, creep_along_a_chain_is_flagged_with_its_size) {
  char *dir = ts_own(ts_tmpdir("site_creep"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  /* Ten commits, each 0.8 % slower than the one before in "creep" and
   * alternately 0.8 % slower and faster in "wobble"; each run's baseline
   * is the previous commit. No single run is a significant change. */
  for (int k = 1; k <= 10; k++) {
    tcase cs[2] = {{"creep", "", 100.0, 100.8},
                   {"wobble", "", 100.0, k % 2 ? 100.8 : 99.2}};
    char commit[32], date[32], parent[32];
    snprintf(commit, sizeof commit, "commit-%02d", k);
    snprintf(parent, sizeof parent, "commit-%02d", k - 1);
    snprintf(date, sizeof date, "2026-03-%02dT00:00:00Z", k);
    next_baseline_commit = parent;
    add_run(archive, dir, commit, date, "Development", cs, 2);
  }
  build_ok(archive, out, NULL, 0);
  char *creep = case_file("creep", "");
  char *index = slurp(ts_pathf("%s/index.html", out));
  cr_assert_not_null(strstr(index, "1 case(s) creep"), "%s", index);
  cr_assert_not_null(strstr(index, "⇗ creeping +"), "%s", index);
  char *creep_id = case_id("creep", ""), *wobble_id = case_id("wobble", "");
  bs__jvalue *rj = json_file(ts_pathf("%s/history/runs.json", out));
  cr_expect_str_eq(member(rj, "schema", BS__JSTRING)->string,
                   "benchsite.runs/2");
  bs__jvalue *v = json_file(ts_pathf("%s/history/%s.json", out, creep_id));
  cr_expect_str_eq(member(v, "schema", BS__JSTRING)->string,
                   "benchsite.history/2");
  cr_expect_str_eq(member(v, "benchmark", BS__JSTRING)->string, "creep");
  cr_expect(member(v, "creeping", BS__JBOOL)->boolean);
  cr_expect_eq(member(v, "older", BS__JARRAY)->n, 0);
  const bs__jvalue *runs = member(v, "runs", BS__JARRAY);
  cr_assert_eq(runs->n, 10);
  /* The chained index is the product of (1 + delta/100) along the chain,
   * formed here from the file's own deltas; the run's facts are in
   * runs.json, once. */
  double product = 1;
  for (size_t k = 0; k < runs->n; k++) {
    const bs__jvalue *r = &runs->items[k];
    const bs__jvalue *run = run_of(rj, v, r);
    cr_assert_eq(run->type, BS__JARRAY);
    cr_assert_eq(run->n, 6);
    char want[32];
    snprintf(want, sizeof want, "commit-%02zu", k + 1);
    cr_expect_str_eq(run->items[1].string, want);
    snprintf(want, sizeof want, "commit-%02zu", k);
    cr_expect_str_eq(run->items[2].string, want);
    cr_expect_str_eq(run->items[5].string, "wall");
    cr_expect_eq(hfield(v, r, "chain", BS__JNUMBER)->number, 0);
    double flags = hfield(v, r, "flags", BS__JNUMBER)->number;
    cr_expect(((unsigned)flags & 1) == 0, "flagged a regression");
    double d = hfield(v, r, "delta_pct", BS__JNUMBER)->number;
    cr_expect(fabs(d - 0.8) < 0.3, "delta %g", d);
    product *= 1 + d / 100;
    double ci = hfield(v, r, "chained_index", BS__JNUMBER)->number;
    cr_expect(fabs(ci - product) <= 1e-12, "link %zu: %.17g != %.17g", k, ci,
              product);
    hfield(v, r, "median", BS__JNUMBER);
    hfield(v, r, "ci_low", BS__JNUMBER);
    hfield(v, r, "ci_high", BS__JNUMBER);
  }
  double creep_pct = member(v, "creep_pct", BS__JNUMBER)->number;
  cr_expect(creep_pct > 6 && creep_pct < 11, "creep %g", creep_pct);
  bs__json_free(v);
  v = json_file(ts_pathf("%s/history/%s.json", out, wobble_id));
  cr_expect(!member(v, "creeping", BS__JBOOL)->boolean);
  cr_expect(fabs(member(v, "creep_pct", BS__JNUMBER)->number) < 1.5);
  bs__json_free(v);
  bs__json_free(rj);
  char *page = slurp(ts_pathf("%s/%s.html", out, creep));
  cr_assert_not_null(strstr(page, "creeping +"), "%s", page);
  cr_assert_not_null(strstr(page, ts_pathf("charts/%s-chain.svg", creep_id)));
  cr_assert_not_null(strstr(page, ts_pathf("history/%s.json", creep_id)));
  cr_assert(ts_exists(ts_pathf("%s/charts/%s-chain.svg", out, creep_id)));
  /* The chart's x axis names commits, not run numbers. */
  char *svg = slurp(ts_pathf("%s/charts/%s-chain.svg", out, creep_id));
  cr_assert_not_null(strstr(svg, "commit-10"));
  /* A broken link: without baseline_commit the next run starts a chain. */
  tcase cs[2] = {{"creep", "", 100.0, 100.8}, {"wobble", "", 100.0, 100.0}};
  add_run(archive, dir, "commit-11", "2026-03-11T00:00:00Z", "Development", cs,
          2);
  build_ok(archive, out, NULL, 0);
  v = json_file(ts_pathf("%s/history/%s.json", out, creep_id));
  rj = json_file(ts_pathf("%s/history/runs.json", out));
  cr_expect(!member(v, "creeping", BS__JBOOL)->boolean);
  runs = member(v, "runs", BS__JARRAY);
  cr_assert_eq(runs->n, 11);
  cr_expect_eq(hfield(v, &runs->items[10], "chain", BS__JNUMBER)->number, 1);
  cr_expect_eq(run_of(rj, v, &runs->items[10])->items[2].type, BS__JNULL);
  bs__json_free(v);
  bs__json_free(rj);
}

static size_t check_links(const char *root);

static ts_run build_with(const char *archive, const char *out,
                         const char *const *extra) {
  const char *args[16] = {"site", "--archive", archive, "--out", out};
  size_t n = 5;
  for (; extra && *extra && n < 15; extra++)
    args[n++] = *extra;
  args[n] = NULL;
  return ts_cli(NULL, args);
}

static long file_size(const char *path) {
  struct stat st;
  cr_assert_eq(stat(path, &st), 0, "%s", path);
  return (long)st.st_size;
}

Test(site, detail_tiers_keep_reports_for_new_flagged_and_newest_runs) {
  char *dir = ts_own(ts_tmpdir("site_tiers"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  /* Twenty cases with realistic names; run 3 has a significant
   * regression; runs 9-10 are in another environment. */
  tcase cs[20], reg[20];
  char names[20][48];
  for (int c = 0; c < 20; c++) {
    snprintf(names[c], sizeof names[c], "matrix_multiply_blocked_%02d", c);
    cs[c] = (tcase){names[c], "n=65536", 100.0 + c, 100.0 + c};
    reg[c] = cs[c];
  }
  reg[7].head = reg[7].base * 1.2;
  char *ids[10];
  for (int k = 0; k < 10; k++) {
    char commit[48], date[32];
    snprintf(commit, sizeof commit, "%040d", k);
    snprintf(date, sizeof date, "2026-04-%02dT00:00:00Z", k + 1);
    ids[k] = add_run(archive, dir, commit, date,
                     k >= 8 ? "RegressionGate" : "Development",
                     k == 2 ? reg : cs, 20);
  }
  const char *k2[] = {"--detail-runs", "1", NULL};
  ts_run r = build_with(archive, out, k2);
  cr_assert_eq(r.status, 0, "%s", r.err);
  /* Detailed: run 3 (regression), run 8 (newest of its group), run 10
   * (newest, and newest of its group). */
  cr_assert_not_null(strstr(r.out, "(7 compact runs)"), "%s", r.out);
  ts_run_free(&r);
  for (int k = 0; k < 10; k++) {
    int detailed = k == 2 || k == 7 || k == 9;
    char *report = ts_pathf("%s/runs/%s/index.html", out, ids[k]);
    cr_expect_eq(ts_exists(report), detailed, "run %d", k + 1);
    char *page = slurp(ts_pathf("%s/run-%s.html", out, ids[k]));
    cr_expect_eq(strstr(page, ts_pathf("runs/%s/index.html", ids[k])) != NULL,
                 detailed);
    if (!detailed) {
      /* The compact page: every case's verdict and interval, small: a
       * row of a 36-character name is about 150 bytes (60 of them the
       * link to the case's page, named by its slug and hash), the page
       * around it about 2 KB: 263 bytes a case measured. The slug costs
       * about 25 bytes a row and the trimmed page won them back, so the
       * bound stays where it was (400 before the rows lost their
       * per-cell classes and the page its repeated facts). */
      cr_expect_not_null(strstr(page, "benchsite report"));
      cr_expect_not_null(strstr(page, "matrix_multiply_blocked_19"));
      cr_expect_not_null(strstr(page, "<td>●<td>"));
      long bytes = file_size(ts_pathf("%s/run-%s.html", out, ids[k]));
      cr_expect_lt(bytes / 20, 270, "run %d: %ld bytes for 20 cases", k + 1,
                   bytes);
    }
  }
  cr_assert_gt(check_links(out), 100);
  /* More detail: the reports come back; less: they go. */
  const char *k10[] = {"--detail-runs", "10", NULL};
  r = build_with(archive, out, k10);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert_not_null(strstr(r.out, "(0 compact runs)"), "%s", r.out);
  ts_run_free(&r);
  for (int k = 0; k < 10; k++)
    cr_expect(ts_exists(ts_pathf("%s/runs/%s/index.html", out, ids[k])));
  r = build_with(archive, out, k2);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  cr_expect(!ts_exists(ts_pathf("%s/runs/%s", out, ids[0])));
  cr_assert_gt(check_links(out), 100);
}

Test(site, static_files_survive_every_rebuild) {
  char *dir = ts_own(ts_tmpdir("site_static"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir), *st = ts_pathf("%s/static", dir);
  cr_assert_eq(mkdir(st, 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/CNAME", st), "bench.example.org\n"), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/.nojekyll", st), ""), 0);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  const char *extra[] = {"--static", st, NULL};
  for (int round = 0; round < 3; round++) {
    if (round == 1)
      add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two,
              2);
    ts_run r = build_with(
        archive, out,
        round == 2 ? (const char *[]){"--static", st, "--full", NULL} : extra);
    cr_assert_eq(r.status, 0, "%s", r.err);
    ts_run_free(&r);
    cr_assert_str_eq(slurp(ts_pathf("%s/CNAME", out)), "bench.example.org\n");
    cr_assert(ts_exists(ts_pathf("%s/.nojekyll", out)));
  }
  /* A static file never replaces a page of the site. */
  cr_assert_eq(ts_write(ts_pathf("%s/index.html", st), "mine"), 0);
  ts_run r = build_with(archive, out, extra);
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert_not_null(strstr(r.err, "may not replace"), "%s", r.err);
  ts_run_free(&r);
  cr_assert_neq(strcmp(slurp(ts_pathf("%s/index.html", out)), "mine"), 0);
}

/* Before (issue 23): a --static file whose name held a blank or a newline
 * was written raw into the line-based state, which the next build could
 * not parse: every build after it was a full rebuild, silently. Now the
 * name is one encoded token and the next build reuses every analysis. */
Test(site, a_static_file_with_a_blank_or_newline_keeps_the_site_incremental) {
  char *dir = ts_own(ts_tmpdir("site_static_names"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir), *st = ts_pathf("%s/static", dir);
  cr_assert_eq(mkdir(st, 0755), 0);
  static const char *const names[] = {"logo v2.png", "line\nbreak", "50%-%41",
                                      "-"};
  for (size_t i = 0; i < 4; i++)
    cr_assert_eq(ts_write(ts_pathf("%s/%s", st, names[i]), names[i]), 0);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two, 2);
  const char *extra[] = {"--static", st, NULL};
  for (int round = 0; round < 2; round++) {
    ts_run r = build_with(archive, out, extra);
    cr_assert_eq(r.status, 0, "%s", r.err);
    if (round == 1)
      cr_expect_not_null(strstr(r.out, "analyses 0 built, 2 reused"), "%s",
                         r.out);
    ts_run_free(&r);
    for (size_t i = 0; i < 4; i++)
      cr_expect_str_eq(slurp(ts_pathf("%s/%s", out, names[i])), names[i]);
  }
  char *state = slurp(ts_pathf("%s/.benchsite-site", out));
  cr_expect_not_null(strstr(state, "\nfile logo%20v2.png "), "%s", state);
  cr_expect_not_null(strstr(state, "\nfile line%0Abreak "), "%s", state);
  cr_expect_not_null(strstr(state, "\nfile 50%25-%2541 "), "%s", state);
  cr_expect_not_null(strstr(state, "\nfile %2D "), "%s", state);
}

/* Copies the installed templates into dir/tpl. */
static char *copy_templates(const char *dir) {
  char *tpl = ts_pathf("%s/tpl", dir);
  char *src = ts_pathf("%s/templates", BENCHSITE_SOURCE_DIR);
  char *const argv[] = {"cp", "-R", src, tpl, NULL};
  cr_assert_eq(ts_run_quiet(argv), 0);
  return tpl;
}

Test(site, a_template_change_rebuilds_what_it_affects) {
  char *dir = ts_own(ts_tmpdir("site_tpl"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  char *tpl = copy_templates(dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two, 2);
  const char *extra[] = {"--templates", tpl, NULL};
  ts_run r = build_with(archive, out, extra);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *sort = ts_pathf("%s/%s.html", out, case_file("sort", "n=1024"));
  ino_t before = inode(ts_pathf("%s/index.html", out));
  /* A history page string changes: the case pages follow, the analyses
   * and reports are reused and the index keeps its bytes. */
  char *case_tpl = ts_pathf("%s/site_case.html", tpl);
  char *text = slurp(case_tpl);
  char *at = strstr(text, "runs measured this case.");
  cr_assert_not_null(at);
  /* Built whole (ts_pathf would cut the template at 4 KiB). */
  const char *rest = at + strlen("runs measured this case.");
  const char *edit = "runs measured this case (edited).";
  char *changed =
      ts_own(malloc((size_t)(at - text) + strlen(edit) + strlen(rest) + 1));
  size_t head = (size_t)(at - text), el = strlen(edit);
  memcpy(changed, text, head);
  memcpy(changed + head, edit, el);
  memcpy(changed + head + el, rest, strlen(rest) + 1);
  cr_assert_eq(ts_write(case_tpl, changed), 0);
  r = build_with(archive, out, extra);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert_not_null(strstr(r.out, "analyses 0 built, 2 reused"), "%s", r.out);
  ts_run_free(&r);
  cr_assert_not_null(strstr(slurp(sort), "(edited)"));
  cr_assert_eq(inode(ts_pathf("%s/index.html", out)), before);
  /* A report template changes: the reports are made again. */
  char *report_tpl = ts_pathf("%s/index.html", tpl);
  cr_assert_eq(
      ts_write(report_tpl, ts_pathf("%s<!-- edited -->\n", slurp(report_tpl))),
      0);
  r = build_with(archive, out, extra);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert_not_null(strstr(r.out, "reports 2 built, 0 reused"), "%s", r.out);
  ts_run_free(&r);
}

Test(site, history_json_keeps_the_newest_200_and_chunks_the_rest) {
  char *dir = ts_own(ts_tmpdir("site_chunks"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  static const tcase one[] = {{"sort", "n=1024", 100.0, 100.0}};
  for (int k = 0; k < 205; k++) {
    char commit[32], date[32], parent[32];
    snprintf(commit, sizeof commit, "c%03d", k);
    snprintf(parent, sizeof parent, "c%03d", k - 1);
    snprintf(date, sizeof date, "2026-%02d-%02dT%02d:00:00Z", 1 + k / 240,
             1 + k / 24 % 10, k % 24);
    next_baseline_commit = parent;
    add_run(archive, dir, commit, date, "Development", one, 1);
  }
  const char *k1[] = {"--detail-runs", "1", NULL};
  ts_run r = build_with(archive, out, k1);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *sort = case_file("sort", "n=1024"),
       *sort_id = case_id("sort", "n=1024");
  bs__jvalue *rj = json_file(ts_pathf("%s/history/runs.json", out));
  bs__jvalue *v = json_file(ts_pathf("%s/history/%s.json", out, sort_id));
  const bs__jvalue *older = member(v, "older", BS__JARRAY);
  cr_assert_eq(older->n, 1);
  cr_expect_str_eq(older->items[0].string, ts_pathf("%s-0.json", sort_id));
  const bs__jvalue *runs = member(v, "runs", BS__JARRAY);
  cr_assert_eq(runs->n, 200);
  cr_expect_str_eq(run_of(rj, v, &runs->items[0])->items[1].string, "c005");
  cr_expect_str_eq(run_of(rj, v, &runs->items[199])->items[1].string, "c204");
  cr_expect_eq(hfield(v, &runs->items[199], "chain", BS__JNUMBER)->number, 0);
  bs__json_free(v);
  v = json_file(ts_pathf("%s/history/%s-0.json", out, sort_id));
  cr_expect_str_eq(member(v, "schema", BS__JSTRING)->string,
                   "benchsite.history-chunk/2");
  runs = member(v, "runs", BS__JARRAY);
  cr_assert_eq(runs->n, 5);
  cr_expect_str_eq(run_of(rj, v, &runs->items[0])->items[1].string, "c000");
  bs__json_free(v);
  bs__json_free(rj);
  /* The history page's table lists the newest 200 only. */
  char *page = slurp(ts_pathf("%s/%s.html", out, sort));
  cr_expect_null(strstr(page, ">c004<"));
  cr_expect_not_null(strstr(page, ">c005<"));
  cr_expect_not_null(strstr(page, "The newest 200 runs"));
  /* One more run moves c005 into the chunk, which grows by one line (the
   * rest is its old bytes), and the newest 200 move on by one (199 of
   * their lines are the published file's): the same bytes as a clean
   * build's. */
  next_baseline_commit = "c204";
  add_run(archive, dir, "c205", "2026-01-10T00:00:00Z", "Development", one, 1);
  r = build_with(archive, out, k1);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  rj = json_file(ts_pathf("%s/history/runs.json", out));
  v = json_file(ts_pathf("%s/history/%s-0.json", out, sort_id));
  runs = member(v, "runs", BS__JARRAY);
  cr_assert_eq(runs->n, 6);
  cr_expect_str_eq(run_of(rj, v, &runs->items[5])->items[1].string, "c005");
  bs__json_free(v);
  bs__json_free(rj);
  char *clean = ts_pathf("%s/clean", dir);
  r = build_with(archive, clean, k1);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  static const char *const same[] = {"%s/history/%s-0.json",
                                     "%s/history/%s.json"};
  for (int k = 0; k < 2; k++)
    cr_expect_str_eq(slurp(ts_pathf(same[k], out, sort_id)),
                     slurp(ts_pathf(same[k], clean, sort_id)));
  cr_expect_str_eq(slurp(ts_pathf("%s/history/runs.json", out)),
                   slurp(ts_pathf("%s/history/runs.json", clean)));
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

/* Lines of `text` that start with `prefix`; the longest in *longest. */
static size_t count_lines(const char *text, const char *prefix,
                          size_t *longest) {
  size_t n = 0, pl = strlen(prefix);
  *longest = 0;
  for (const char *p = text; *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len >= pl && !strncmp(p, prefix, pl)) {
      n++;
      if (len > *longest)
        *longest = len;
    }
    p += len + (nl != NULL);
  }
  return n;
}

/* The site's state keeps each case of a run in one short line that names
 * the case by its number in a table listed once; a rebuild copies the
 * lines of the runs it reuses without repeating the table, and a state
 * whose line names no case of the table only costs a full build. */
static char *resealed(const char *state);
static char *textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The state holds no results (the history data does) and a short line a
 * run; the results read back from the history data are exactly the
 * analysed ones (the site equals a clean build's); a history file whose
 * bytes are not the listed ones, or a run short of results, means those
 * runs are analysed again. */
Test(site, the_state_keeps_no_results_and_reads_them_from_the_history_data) {
  char *dir = ts_own(ts_tmpdir("site_state"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir), *clean = ts_pathf("%s/clean", dir);
  tcase cs[20];
  char names[20][48];
  for (int c = 0; c < 20; c++) {
    snprintf(names[c], sizeof names[c], "matrix_multiply_blocked_%02d", c);
    cs[c] = (tcase){names[c], "n=65536", 100.0 + c, 100.0 + c};
  }
  char *ids[5];
  for (int k = 0; k < 4; k++) {
    char commit[48], date[32];
    snprintf(commit, sizeof commit, "%040d", k);
    snprintf(date, sizeof date, "2026-05-%02dT00:00:00Z", k + 1);
    ids[k] = add_run(archive, dir, commit, date, "Development", cs, 20);
  }
  build_ok(archive, out, NULL, 0);
  char *marker = ts_pathf("%s/.benchsite-site", out);
  size_t longest;
  const char *state = slurp(marker);
  cr_expect_eq(count_lines(state, "run ", &longest), 4);
  cr_expect_leq(longest, 80, "%s", state);
  cr_expect_eq(count_lines(state, "r ", &longest), 0);
  cr_expect_eq(count_lines(state, "case ", &longest), 0);
  cr_expect_null(strstr(state, "matrix_multiply"), "a case name in the state");

  /* A new run: the old runs' results come from the history data, and the
   * state is the one a clean build writes. */
  ids[4] = add_run(archive, dir, ts_pathf("%040d", 4), "2026-05-05T00:00:00Z",
                   "Development", cs, 20);
  char summary[2048];
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "analyses 1 built, 4 reused"), "%s",
                     summary);
  build_ok(archive, out, NULL, 0);
  state = slurp(marker);
  cr_expect_eq(count_lines(state, "run ", &longest), 5);
  build_ok(archive, clean, NULL, 0);
  cr_expect_str_eq(state, slurp(ts_pathf("%s/.benchsite-site", clean)));
  char h1[BS__SHA256_HEXLEN + 1], h2[BS__SHA256_HEXLEN + 1];
  digest_of(out, h1);
  digest_of(clean, h2);
  cr_expect_str_eq(h1, h2);

  /* A run line counting one result more than the history data holds:
   * that run is analysed again, the others not. */
  char *line = strstr(state, ts_pathf("run %s 20 ", ids[2]));
  cr_assert_not_null(line, "%s", state);
  char *edited = textf("%.*srun %s 21 %s", (int)(line - state), state, ids[2],
                       line + strlen(ts_pathf("run %s 20 ", ids[2])));
  cr_assert_eq(ts_write(marker, resealed(edited)), 0);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "analyses 1 built, 4 reused"), "%s",
                     summary);
  digest_of(out, h1);
  cr_expect_str_eq(h1, h2);

  /* A history file changed after the build (a number edited): its runs
   * are analysed again (every run: each has a result in it), and the
   * site is the clean build's once more. */
  char *hist = ts_pathf("%s/history/%s.json", out,
                        case_id("matrix_multiply_blocked_07", "n=65536"));
  char *text = slurp(hist);
  char *nl = strchr(text, '\n');
  cr_assert_not_null(nl);
  nl[2] = nl[2] == '0' ? '1' : '0'; /* "[0,20,..." -> "[1,20,..." */
  cr_assert_eq(ts_write(hist, text), 0);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "analyses 5 built, 0 reused"), "%s",
                     summary);
  digest_of(out, h1);
  cr_expect_str_eq(h1, h2);
}

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
  char *sum_chart =
      ts_pathf("%s/charts/%s-history.svg", out, case_id("sum", ""));
  char *sort_page = ts_pathf("%s/%s.html", out, sort);
  char *sort_chart =
      ts_pathf("%s/charts/%s-history.svg", out, case_id("sort", "n=1024"));
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
  cr_assert_not_null(strstr(summary, "history charts 0 rendered, 4 reused"),
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
  cr_assert_not_null(strstr(summary, "history charts 2 rendered, 2 reused"),
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
  /* What regressed, since when: named above the runs with its commit, on
   * the regressions page, in the feed and in index.json. */
  const char *open = strstr(index, "What regressed, since when");
  const char *runs_h2 = strstr(index, "<h2 id=\"runs\">");
  cr_assert(open && runs_h2 && open < runs_h2, "%s", index);
  const char *named = strstr(open, ">sum</a>");
  cr_assert(named && named < runs_h2, "%s", index);
  cr_expect(strstr(named, "<code>c2-slow</code>") < runs_h2);
  cr_expect_not_null(strstr(named, "significant regression +"));
  char *regs = slurp(ts_pathf("%s/regressions.html", out));
  cr_expect_not_null(strstr(regs, ">sum</a>"), "%s", regs);
  cr_expect_not_null(strstr(regs, "not acknowledged"), "%s", regs);
  cr_expect_null(strstr(regs, ">sort [n=1024]</a>"), "%s", regs);
  char *feed = slurp(ts_pathf("%s/feed.xml", out));
  cr_expect_not_null(
      strstr(feed, "<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
  cr_expect_not_null(strstr(feed, "<title>sum: +"), "%s", feed);
  cr_expect_not_null(strstr(feed, "to c2-slow (run 2)"), "%s", feed);
  bs__jvalue *ij = json_file(ts_pathf("%s/index.json", out));
  const bs__jvalue *jc = member(ij, "cases", BS__JARRAY);
  cr_assert_eq(jc->n, 2);
  for (size_t k = 0; k < 2; k++) {
    const bs__jvalue *c = &jc->items[k];
    int is_sum = !strcmp(member(c, "benchmark", BS__JSTRING)->string, "sum");
    const bs__jvalue *o = member(c, "open", BS__JOBJECT);
    cr_expect(ts_exists(
        ts_pathf("%s/%s", out, member(c, "history", BS__JSTRING)->string)));
    cr_expect(ts_exists(
        ts_pathf("%s/%s", out, member(c, "page", BS__JSTRING)->string)));
    if (!is_sum) {
      member(o, "regression", BS__JNULL);
      continue;
    }
    const bs__jvalue *rg = member(o, "regression", BS__JOBJECT);
    cr_expect_str_eq(member(rg, "commit", BS__JSTRING)->string, "c2-slow");
    cr_expect_str_eq(member(rg, "run", BS__JSTRING)->string, r2);
    double pct = member(rg, "pct", BS__JNUMBER)->number;
    cr_expect(pct > 40 && pct < 60, "%g", pct);
  }
  bs__json_free(ij);

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
  cr_expect_not_null(strstr(index, "Nothing open"), "%s", index);
  regs = slurp(ts_pathf("%s/regressions.html", out));
  cr_expect_not_null(strstr(regs, ">sum</a>"), "%s", regs);
  cr_expect_not_null(strstr(regs, "✓ acknowledged"), "%s", regs);
  cr_expect_not_null(
      strstr(slurp(ts_pathf("%s/feed.xml", out)), "(acknowledged)</title>"));
  ij = json_file(ts_pathf("%s/index.json", out));
  jc = member(ij, "cases", BS__JARRAY);
  for (size_t k = 0; k < jc->n; k++)
    member(member(&jc->items[k], "open", BS__JOBJECT), "regression", BS__JNULL);
  bs__json_free(ij);
  char *run = slurp(ts_pathf("%s/run-%s.html", out, r2));
  cr_assert_not_null(strstr(run, "checked input, &lt;accepted&gt;"));
  cr_assert_not_null(strstr(run, "acks.csv line 2"));
  char *hist = slurp(ts_pathf("%s/%s.html", out, case_file("sum", "")));
  cr_assert_not_null(strstr(hist, "acknowledged"));
  cr_assert_not_null(strstr(hist, "checked input, &lt;accepted&gt;"));
  char *svg =
      slurp(ts_pathf("%s/charts/%s-history.svg", out, case_id("sum", "")));
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

/* The text of every <code class="cmd">...</code> of a page, its entities
 * decoded (the five the templates write), into cmds[] (up to max). */
static size_t commands_of(const char *page, char **cmds, size_t max) {
  size_t n = 0;
  static const char open_tag[] = "<code class=\"cmd\">";
  for (const char *p = strstr(page, open_tag); p && n < max;
       p = strstr(p, open_tag)) {
    p += strlen(open_tag);
    const char *end = strstr(p, "</code>");
    cr_assert_not_null(end);
    char *c = ts_own(calloc((size_t)(end - p) + 1, 1));
    size_t k = 0;
    while (p < end) {
      static const char *const ent[][2] = {{"&amp;", "&"},
                                           {"&lt;", "<"},
                                           {"&gt;", ">"},
                                           {"&quot;", "\""},
                                           {"&#39;", "'"}};
      size_t e = 0;
      while (e < 5 && strncmp(p, ent[e][0], strlen(ent[e][0])))
        e++;
      if (e < 5) {
        c[k++] = ent[e][1][0];
        p += strlen(ent[e][0]);
      } else {
        cr_assert_neq(*p, '&', "an entity the templates do not write: %.10s",
                      p);
        c[k++] = *p++;
      }
    }
    cmds[n++] = c;
  }
  return n;
}

/* The words a POSIX shell makes of `cmd`, run by /bin/sh in `dir` with
 * its program replaced by printf: each word on a line of its own. */
static char *shell_words(const char *cmd, const char *dir) {
  const char *prog = "benchsite bisect ";
  cr_assert_eq(strncmp(cmd, prog, strlen(prog)), 0, "%s", cmd);
  char *script = ts_pathf("printf '%%s\\n' %s", cmd + strlen(prog));
  char *out = ts_pathf("%s/words.txt", dir);
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (chdir(dir) != 0 || !freopen(out, "w", stdout))
      _exit(127);
    execl("/bin/sh", "sh", "-c", script, (char *)NULL);
    _exit(127);
  }
  int status;
  cr_assert_eq(waitpid(pid, &status, 0), pid);
  cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", script);
  return slurp(out);
}

Test(site, open_changes_show_the_bisect_command_for_their_range) {
  char *dir = ts_own(ts_tmpdir("site_bisect"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  /* The commit before the step: archive text that a shell would run, and
   * HTML would take as markup, were it copied as it is. */
  static const char hostile[] = "c8'$(touch pwned)`touch pwned2`;&|<b>";
  /* sum steps from 10 to 15 us at the 9th run: the 9th run's paired
   * change is an open regression (from its baseline commit), and the
   * medians' change point is open (from the 8th run's commit). */
  const char *prev = NULL;
  for (int i = 1; i <= 16; i++) {
    char commit[64], date[32];
    snprintf(commit, sizeof commit, "c%d", i);
    snprintf(date, sizeof date, "2026-04-%02dT00:00:00Z", i);
    double before = i <= 9 ? 10.0 : 15.0, after = i <= 8 ? 10.0 : 15.0;
    const tcase one[] = {{"sum", "", before, after}};
    next_baseline_commit = prev;
    add_run(archive, dir, i == 8 ? hostile : commit, date, "Development", one,
            1);
    prev = i == 8 ? hostile : ts_pathf("%s", commit);
  }
  build_ok(archive, out, NULL, 0);
  char *page = slurp(ts_pathf("%s/%s.html", out, case_file("sum", "")));
  char *cmds[4];
  size_t n = commands_of(page, cmds, 4);
  cr_assert_eq(n, 2, "the open regression and the open step: %s", page);
  cr_assert_not_null(strstr(page, "The open significant regression lies "
                                  "between <code title=\"commit c8&#39;"),
                     "%s", page);
  cr_assert_not_null(strstr(page, "The open step up lies between"), "%s", page);
  for (size_t k = 0; k < n; k++) {
    cr_assert_null(strstr(page, hostile), "the commit is escaped in HTML");
    /* As a shell reads it: the commits are words, nothing runs. */
    char *words = shell_words(cmds[k], dir);
    cr_assert_str_eq(words, ts_pathf("--good\n%s\n--bad\nc9\n--filter\n"
                                     "^sum$\n--build\nCMD\n--lib\nPATH\n",
                                     hostile));
    cr_assert(!ts_exists(ts_pathf("%s/pwned", dir)) &&
                  !ts_exists(ts_pathf("%s/pwned2", dir)),
              "nothing in the commit ran");
  }
  /* The regressions page: the command on the open rows. */
  char *regs = slurp(ts_pathf("%s/regressions.html", out));
  n = commands_of(regs, cmds, 4);
  cr_assert_eq(n, 2, "%s", regs);
  for (size_t k = 0; k < n; k++)
    cr_assert_str_eq(shell_words(cmds[k], dir),
                     ts_pathf("--good\n%s\n--bad\nc9\n--filter\n^sum$\n"
                              "--build\nCMD\n--lib\nPATH\n",
                              hostile));
  /* index.json: the range of each open change. */
  bs__jvalue *ij = json_file(ts_pathf("%s/index.json", out));
  const bs__jvalue *jc = member(ij, "cases", BS__JARRAY);
  const bs__jvalue *o = member(&jc->items[0], "open", BS__JOBJECT);
  static const char *const kinds[] = {"regression", "change_point"};
  for (size_t k = 0; k < 2; k++) {
    const bs__jvalue *range =
        member(member(o, kinds[k], BS__JOBJECT), "range", BS__JARRAY);
    cr_assert_eq(range->n, 2);
    cr_assert_str_eq(range->items[0].string, hostile);
    cr_assert_str_eq(range->items[1].string, "c9");
  }
  member(o, "creep", BS__JNULL);
  bs__json_free(ij);
}

Test(site, nothing_open_shows_no_bisect_command) {
  char *dir = ts_own(ts_tmpdir("site_no_bisect"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  next_baseline_commit = "c1";
  add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two, 2);
  build_ok(archive, out, NULL, 0);
  static const char *const files[] = {"index.html", "regressions.html",
                                      "index.json"};
  for (size_t k = 0; k < 3; k++) {
    char *text = slurp(ts_pathf("%s/%s", out, files[k]));
    cr_assert_null(strstr(text, "bisect"), "%s: %s", files[k], text);
    cr_assert_null(strstr(text, "range"), "%s: %s", files[k], text);
  }
  char *page = slurp(ts_pathf("%s/%s.html", out, case_file("sum", "")));
  cr_assert_null(strstr(page, "Which commit"), "%s", page);
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
      ts_pathf("%s/charts/%s-history.svg", out, case_id("sort", "n=1024")));
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
       15.0},
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
  /* The regressions page, the feed (XML) and index.json (JSON) carry the
   * regressing name escaped, and index.json gives it back exactly. */
  char *regs = slurp(ts_pathf("%s/regressions.html", out));
  cr_assert_null(strstr(regs, "<script>"));
  cr_assert_not_null(strstr(regs, "&lt;script&gt;alert(1)&lt;/script&gt;"));
  char *feed = slurp(ts_pathf("%s/feed.xml", out));
  cr_assert_null(strstr(feed, "<script>"));
  cr_assert_null(strstr(feed, "c<b>1"));
  cr_assert_not_null(
      strstr(feed, "<title>&lt;script&gt;alert(1)&lt;/script&gt;"), "%s", feed);
  cr_assert_not_null(strstr(feed, "x&quot;; system(&quot;touch pwned&quot;)"));
  bs__jvalue *ij = json_file(ts_pathf("%s/index.json", out));
  const bs__jvalue *jc = member(ij, "cases", BS__JARRAY);
  int found = 0;
  for (size_t k = 0; k < jc->n; k++)
    found += !strcmp(member(&jc->items[k], "benchmark", BS__JSTRING)->string,
                     evil[0].benchmark) &&
             !strcmp(member(&jc->items[k], "dataset", BS__JSTRING)->string,
                     evil[0].dataset);
  cr_expect_eq(found, 1);
  bs__json_free(ij);
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
          out, "--detail-runs", "2", full ? "--full" : (char *)NULL,
          (char *)NULL);
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

/* Every href and src of every page under `root` (quoted or not) that is
 * a relative link resolves to a file or directory. Returns the number of
 * links checked; fails the test naming the first broken one. */
static size_t check_links_in(const char *root, const char *dir) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  size_t checked = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    char *full = ts_pathf("%s/%s", dir, e->d_name);
    struct stat st;
    if (lstat(full, &st) != 0)
      continue; /* moved away meanwhile */
    if (S_ISDIR(st.st_mode)) {
      checked += check_links_in(root, full);
      continue;
    }
    size_t n = strlen(e->d_name);
    if (n < 5 || strcmp(e->d_name + n - 5, ".html"))
      continue;
    char *text = ts_read(full, NULL);
    if (!text)
      continue;
    static const char *const attrs[] = {"href=", "src="};
    for (int k = 0; k < 2; k++) {
      for (const char *p = text; (p = strstr(p, attrs[k]));) {
        p += strlen(attrs[k]);
        char quote = *p == '"' || *p == '\'' ? *p++ : 0;
        size_t len = quote ? strcspn(p, quote == '"' ? "\"" : "'")
                           : strcspn(p, " >\t\n");
        char *link = strndup(p, len);
        p += len;
        link[strcspn(link, "#?")] = '\0';
        if (!link[0] || strstr(link, "://") || !strncmp(link, "mailto:", 7)) {
          free(link);
          continue;
        }
        char *target = ts_pathf("%s/%s", dir, link);
        cr_assert(ts_exists(target), "%s links %s, which is missing",
                  full + strlen(root), link);
        checked++;
        free(link);
      }
    }
    free(text);
  }
  closedir(d);
  return checked;
}

static size_t check_links(const char *root) {
  return check_links_in(root, root);
}

/* Kills `benchsite site` at random moments while it rebuilds a site for a
 * grown archive (with the compact tier, so reports come and go): after
 * every kill each link of every page resolves, the next build completes
 * the site, and at the end it equals a clean build and the archive still
 * verifies. */
Test(site, kill_during_site_keeps_every_link_resolving) {
  char *dir = ts_own(ts_tmpdir("site_kill"));
  char *old_archive = ts_pathf("%s/old", dir),
       *new_archive = ts_pathf("%s/new", dir);
  char *out = ts_pathf("%s/public", dir);
  static const tcase slow[] = {{"sort", "n=1024", 100.0, 100.0},
                               {"sum", "", 10.0, 15.0}};
  for (int i = 0; i < 4; i++) {
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "k%d", i);
    snprintf(date, sizeof date, "2026-03-%02dT00:00:00Z", i + 1);
    noise_state = 42 + (uint64_t)i; /* the same logs in both archives */
    add_run(old_archive, dir, commit, date, "Development", i == 1 ? slow : two,
            2);
    noise_state = 42 + (uint64_t)i;
    add_run(new_archive, dir, commit, date, "Development", i == 1 ? slow : two,
            2);
  }
  add_run(new_archive, dir, "k4", "2026-03-05T00:00:00Z", "Development", two,
          2);
  add_run(new_archive, dir, "k5", "2026-03-06T00:00:00Z", "Development", two,
          2);
  char new_hex[BS__SHA256_HEXLEN + 1], hex[BS__SHA256_HEXLEN + 1];
  char *ref = ts_pathf("%s/ref", dir);
  const char *rargs[] = {"site", "--archive",     new_archive, "--out",
                         ref,    "--detail-runs", "2",         NULL};
  ts_run r = ts_cli(NULL, rargs);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  digest_of(ref, new_hex);
  cr_assert_gt(check_links(ref), 20);

  /* How long an incremental and a full build take. */
  double t_inc = 0, t_full = 0;
  for (int full = 0; full < 2; full++) {
    build_ok(old_archive, out, NULL, 0);
    double t0 = now_ms();
    pid_t p = spawn_site(new_archive, out, full);
    int st;
    cr_assert_eq(waitpid(p, &st, 0), p);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    *(full ? &t_full : &t_inc) = now_ms() - t0;
  }

  uint64_t rng = 0x853c49e6748fea9bULL;
  int rounds = 24, finished = 0, killed = 0;
  for (int i = 0; i < rounds; i++) {
    int full = i % 2;
    build_ok(old_archive, out, NULL, 0); /* from the old site each time */
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
    cr_assert(ts_exists(ts_pathf("%s/index.html", out)),
              "round %d: the site is missing", i);
    check_links(out);
    /* The next build completes whatever the kill interrupted. */
    const char *nargs[] = {"site", "--archive",     new_archive, "--out",
                           out,    "--detail-runs", "2",         NULL};
    r = ts_cli(NULL, nargs);
    cr_assert_eq(r.status, 0, "%s", r.err);
    ts_run_free(&r);
    digest_of(out, hex);
    cr_assert_str_eq(hex, new_hex,
                     "round %d (%s, killed after %ld us): the build after "
                     "the kill differs from a clean one",
                     i, full ? "full" : "incremental", delay_us);
  }
  cr_log_info("site kill test: %d rounds, %d killed, %d finished first; "
              "incremental %.0f ms, full %.0f ms",
              rounds, killed, finished, t_inc, t_full);

  const char *vargs[] = {"archive", "verify", "--archive", new_archive, NULL};
  ts_run v = ts_cli(NULL, vargs);
  cr_assert_eq(v.status, 0, "%s", v.out);
  ts_run_free(&v);
  cr_assert_eq(count_build_dirs(dir), 0, "build directories left behind");
}

/* A build directory named as a site build of `out` names it, in `parent`,
 * holding a chart and a report page as a killed build leaves them. */
static char *plant_build_dir(const char *parent, const char *name) {
  char *p = ts_pathf("%s/%s", parent, name);
  cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
  cr_assert_eq(mkdir(ts_pathf("%s/charts", p), 0755), 0);
  cr_assert_eq(mkdir(ts_pathf("%s/runs", p), 0755), 0);
  cr_assert_eq(mkdir(ts_pathf("%s/runs/r", p), 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/charts/case-x-history.svg", p), "<svg/>"),
               0);
  cr_assert_eq(ts_write(ts_pathf("%s/runs/r/index.html", p), "<p>"), 0);
  return p;
}

/* Before: the build directory of a build killed at its last moment
 * survived every later build whenever its process id was in use again
 * (the opening sweep judges a build dead by its id), which the kill test
 * met now and then as "build directories left behind". Here the id is
 * this test's own, alive for sure: a finished build, seeing by the lock
 * that no build runs, removes that directory (and a site moved aside,
 * "-old", while the site is there), and nothing that is not a site build
 * directory of its own --out. */
Test(site, a_finished_build_removes_the_build_directories_of_dead_builds) {
  char *dir = ts_own(ts_tmpdir("site_stale"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "s0", "2026-05-01T00:00:00Z", "Development", two, 2);
  build_ok(archive, out, NULL, 0);
  long me = (long)getpid();
  char *stale[] = {
      plant_build_dir(dir, ts_pathf(".public.site-%ld-AbC123", me)),
      plant_build_dir(dir, ts_pathf(".public.site-%ld-old", me)),
  };
  /* Another kind, another --out, other shapes: never a build directory
   * of this site. */
  char *kept[] = {
      plant_build_dir(dir, ts_pathf(".public.report-%ld-AbC123", me)),
      plant_build_dir(dir, ts_pathf(".other.site-%ld-AbC123", me)),
      plant_build_dir(dir, ts_pathf(".public.site-%ld-AbC12", me)),
      plant_build_dir(dir, ts_pathf(".public.site-%ld-AbC1234", me)),
      plant_build_dir(dir, ts_pathf(".public.site-x%ld-AbC123", me)),
      plant_build_dir(dir, ts_pathf("public.site-%ld-AbC123", me)),
      plant_build_dir(dir, ts_pathf(".public.site-%ld-AbC123.d", me)),
  };
  /* A file and a link of that name are not build directories either;
   * the link is not followed. */
  char *file = ts_pathf("%s/.public.site-%ld-FiLe12", dir, me);
  cr_assert_eq(ts_write(file, "mine\n"), 0);
  char *outside = plant_build_dir(dir, "outside");
  char *link = ts_pathf("%s/.public.site-%ld-LiNk12", dir, me);
  cr_assert_eq(symlink(outside, link), 0);

  build_ok(archive, out, NULL, 0);
  for (size_t i = 0; i < sizeof stale / sizeof stale[0]; i++)
    cr_expect(!ts_exists(stale[i]), "%s was left behind", stale[i]);
  for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
    cr_expect(ts_exists(ts_pathf("%s/runs/r/index.html", kept[i])),
              "%s was touched", kept[i]);
  cr_expect(ts_exists(file), "a file was removed");
  struct stat sb;
  cr_expect(lstat(link, &sb) == 0 && S_ISLNK(sb.st_mode), "the link went");
  cr_expect(ts_exists(ts_pathf("%s/charts/case-x-history.svg", outside)),
            "removed through a link");
  cr_expect(ts_exists(ts_pathf("%s/index.html", out)));
}

/* A failed build sweeps nothing: only a build that has published its
 * site knows its own directories are gone. */
Test(site, a_failed_build_leaves_other_build_directories) {
  char *dir = ts_own(ts_tmpdir("site_stale_fail"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "s0", "2026-05-01T00:00:00Z", "Development", two, 2);
  build_ok(archive, out, NULL, 0);
  char *stale =
      plant_build_dir(dir, ts_pathf(".public.site-%ld-AbC123", (long)getpid()));
  /* Templates that fail once the build has begun (a section left open). */
  char *bad = ts_pathf("%s/templates", dir);
  char *const cp[] = {"cp", "-R", (char *)BENCHSITE_SOURCE_DIR "/templates",
                      bad, NULL};
  cr_assert_eq(ts_run_quiet(cp), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/site_case.html", bad), "{{#case}}\n"), 0);
  const char *args[] = {"site", "--archive",   archive, "--out",
                        out,    "--templates", bad,     NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(stale), "a failed build removed %s", stale);
}

/* While a build holds the lock, its build directory is alive whatever its
 * name says: the sweep leaves every one; once the lock is free it goes. */
Test(site, build_directories_stay_while_the_lock_is_held) {
  char *dir = ts_own(ts_tmpdir("site_stale_lock"));
  char *out = ts_pathf("%s/public", dir);
  cr_assert_eq(mkdir(out, 0755), 0);
  char *busy = plant_build_dir(dir, ".public.site-1-AbC123");
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  cr_assert_geq(fd, 0);
  cr_assert_eq(flock(fd, LOCK_EX), 0);
  bs__site_sweep_staging(out);
  cr_expect(ts_exists(ts_pathf("%s/charts/case-x-history.svg", busy)),
            "removed while a build held the lock");
  close(fd);
  bs__site_sweep_staging(ts_pathf("%s/", out)); /* a trailing slash too */
  cr_expect(!ts_exists(busy), "left behind with the lock free");
}

/* ---- Charts: one pool for the whole build -------------------------------- */

Test(site, a_gnuplot_failing_mid_build_keeps_the_site_and_fails_with_3) {
  char *dir = ts_own(ts_tmpdir("site_pool"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  for (int i = 0; i < 8; i++) {
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "p%d", i);
    snprintf(date, sizeof date, "2026-04-%02dT00:00:00Z", i + 1);
    add_run(archive, dir, commit, date, "Development", two, 2);
  }
  /* Every run's report gets every chart, rendered by two gnuplot
   * processes shared by all the runs, and is marked finished. */
  const char *args[] = {"site", "--archive", archive, "--out", out, "--jobs",
                        "2",    "--full",    NULL,    NULL,    NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  DIR *d = opendir(ts_pathf("%s/runs", out));
  cr_assert_not_null(d);
  struct dirent *e;
  int reports = 0;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.')
      continue;
    char *charts = ts_pathf("%s/runs/%s/charts", out, e->d_name);
    cr_expect_gt(ts_count_entries(charts), 2, "%s", e->d_name);
    cr_expect(
        ts_exists(ts_pathf("%s/runs/%s/.benchsite-report", out, e->d_name)),
        "%s has no marker", e->d_name);
    cr_expect(!ts_exists(ts_pathf("%s/gp000000.gp", charts)));
    reports++;
  }
  closedir(d);
  cr_expect_eq(reports, 8);
  char before[BS__SHA256_HEXLEN + 1], after[BS__SHA256_HEXLEN + 1];
  digest_of(out, before);

  /* A gnuplot that fails on its fifth start, the others still running or
   * queued: the build fails with 3 and the published site stays as it
   * was, with no build directory left. */
  char *fake = ts_pathf("%s/fake-gnuplot", dir);
  char *starts = ts_pathf("%s/starts", dir);
  cr_assert_eq(mkdir(starts, 0755), 0);
  char *script = ts_pathf("#!/bin/sh\n"
                          "[ \"$1\" = --version ] && exec gnuplot --version\n"
                          "i=1\n"
                          "while ! mkdir \"%s/$i\" 2>/dev/null; do\n"
                          "  i=$((i + 1)); done\n"
                          "[ $i -eq 5 ] && exit 9\n"
                          "exec gnuplot \"$@\"\n",
                          starts);
  cr_assert_eq(ts_write(fake, script), 0);
  cr_assert_eq(chmod(fake, 0755), 0);
  add_run(archive, dir, "p8", "2026-04-09T00:00:00Z", "Development", two, 2);
  args[8] = "--gnuplot";
  args[9] = fake;
  r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 3, "%s%s", r.out, r.err);
  cr_expect_not_null(strstr(r.err, "failed (exit 9)"), "%s", r.err);
  ts_run_free(&r);
  cr_expect_gt(ts_count_entries(starts), 4);
  digest_of(out, after);
  cr_assert_str_eq(before, after, "the site changed");
  cr_assert_eq(count_build_dirs(dir), 0, "build directories left behind");
}

/* An archive of n runs whose cases differ from run to run (so a result
 * given to the wrong run shows), with the given dates' month. */
static void varied_runs(const char *archive, const char *dir, int n) {
  for (int i = 0; i < n; i++) {
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "v%02d", i);
    snprintf(date, sizeof date, "2026-05-%02dT00:00:00Z", i + 1);
    const tcase cases[] = {{"sort", "n=1024", 100.0, 100.0 + 2.0 * i},
                           {"sum", "", 10.0, 10.0 - 0.3 * i},
                           {"scan", "n=64", 5.0 + i, 5.0 + i}};
    add_run(archive, dir, commit, date, "Development", cases, 3);
  }
}

static ts_run build_jobs(const char *archive, const char *out,
                         const char *jobs) {
  const char *args[] = {"site",   "--archive", archive,  "--out",         out,
                        "--jobs", jobs,        "--full", "--detail-runs", "3",
                        NULL};
  return ts_cli(NULL, args);
}

/* The runs are analysed by several threads at once and taken in history
 * order: the site is the same, byte for byte, whatever --jobs says. */
Test(site, a_build_on_several_jobs_equals_one_on_one_job) {
  char *dir = ts_own(ts_tmpdir("site_jobs"));
  char *archive = ts_pathf("%s/archive", dir);
  varied_runs(archive, dir, 14);
  static const char *const jobs[] = {"1", "2", "5"};
  char digest[3][BS__SHA256_HEXLEN + 1];
  char *summary[3];
  for (int k = 0; k < 3; k++) {
    char *out = ts_pathf("%s/public-%s", dir, jobs[k]);
    ts_run r = build_jobs(archive, out, jobs[k]);
    cr_assert_eq(r.status, 0, "--jobs %s: %s%s", jobs[k], r.out, r.err);
    cr_assert_not_null(strstr(r.out, "analyses 14 built, 0 reused"), "%s",
                       r.out);
    /* The summary names the output directory: compare what follows it. */
    summary[k] = ts_own(strdup(strstr(r.out, ": ")));
    ts_run_free(&r);
    digest_of(out, digest[k]);
  }
  for (int k = 1; k < 3; k++) {
    cr_expect_str_eq(digest[k], digest[0], "--jobs %s differs from --jobs 1",
                     jobs[k]);
    cr_expect_str_eq(summary[k], summary[0]);
  }
}

/* A run that fails to analyse stops the build with the error it gives on
 * one job, even when later runs (one of them bad too) were being analysed
 * on other threads meanwhile: the first bad run in history order is the
 * one named, the status is 2 and the published site stays as it was. */
Test(site, an_analysis_error_in_a_later_run_fails_the_build_cleanly) {
  char *dir = ts_own(ts_tmpdir("site_jobs_error"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  varied_runs(archive, dir, 4);
  ts_run r = build_jobs(archive, out, "2");
  cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char before[BS__SHA256_HEXLEN + 1], after[BS__SHA256_HEXLEN + 1];
  digest_of(out, before);
  char *ids[12];
  for (int i = 4; i < 12; i++) {
    char commit[32], date[64];
    snprintf(commit, sizeof commit, "w%02d", i);
    snprintf(date, sizeof date, "2026-06-%02dT00:00:00Z", i + 1);
    const tcase cases[] = {{"sort", "n=1024", 100.0, 101.0 + i}};
    ids[i] = add_run(archive, dir, commit, date, "Development", cases, 1);
  }
  /* Runs 8 and 10 of 12 damaged: their logs no longer match their
   * checksums. */
  for (int i = 8; i <= 10; i += 2) {
    char *log = ts_pathf("%s/runs/%s/log-1.csv", archive, ids[i]);
    char *text = slurp(log);
    char *digit = strstr(text, ",confirm,100,") + 13;
    *digit = *digit == '9' ? '8' : (char)(*digit + 1);
    cr_assert_eq(ts_write(log, text), 0);
  }
  char *want = ts_pathf("%s/log-1.csv: checksum mismatch", ids[8]);
  char *first_err = NULL;
  static const char *const jobs[] = {"1", "2", "7"};
  for (int k = 0; k < 3; k++) {
    r = build_jobs(archive, out, jobs[k]);
    cr_assert_eq(r.status, 2, "--jobs %s: %s%s", jobs[k], r.out, r.err);
    cr_expect_not_null(strstr(r.err, want), "--jobs %s: %s", jobs[k], r.err);
    cr_expect_null(strstr(r.err, ids[10]), "--jobs %s: %s", jobs[k], r.err);
    cr_expect_str_eq(r.out, "");
    if (!first_err)
      first_err = ts_own(strdup(r.err));
    else
      cr_expect_str_eq(r.err, first_err, "--jobs %s", jobs[k]);
    ts_run_free(&r);
    digest_of(out, after);
    cr_assert_str_eq(before, after, "--jobs %s changed the site", jobs[k]);
    cr_assert_eq(count_build_dirs(dir), 0, "build directories left behind");
  }
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
  /* examples/pr.csv has one significant regression (sum), but no
   * performance claim is made for a target that is not native: it is
   * shown, not counted as an open regression. */
  cr_assert_not_null(strstr(summary, "0 open regressions in the newest run"),
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

/* ---- Consistency at every rename ----------------------------------------- */

/* test_site links with --wrap=rename: while `watched` is set, every
 * rename the library makes into that directory is followed by a check
 * that each link of every page there resolves. */
static const char *watched;
static size_t renames_checked;
int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to) {
  int r = __real_rename(from, to);
  size_t n = watched ? strlen(watched) : 0;
  if (r == 0 && watched && !strncmp(to, watched, n) && to[n] == '/') {
    check_links(watched);
    renames_checked++;
  }
  return r;
}

static void lib_build(const char *archive, const char *out,
                      bs_site_summary *sum) {
  bs_site_options o;
  bs_site_options_init(&o);
  o.templates_dir = BENCHSITE_SOURCE_DIR "/templates";
  o.assets_dir = BENCHSITE_SOURCE_DIR "/site";
  o.jobs = 1;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_site_build(archive, out, &o, sum, &err), BS_OK, "%s",
               err.message);
}

/* A report is rendered from the analysis the build made of its run, not
 * from a second analysis of the same log; only a report rebuilt while its
 * run's analysis comes from the cache analyses the log again. */
Test(site, a_report_takes_the_builds_analysis_of_its_run, .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("kept_analysis"));
  char *archive = ts_pathf("%s/archive", dir), *out = ts_pathf("%s/out", dir);
  char *ids[3];
  for (int i = 0; i < 3; i++)
    ids[i] = add_run(archive, dir, ts_pathf("c0ffee%d", i),
                     ts_pathf("2026-11-2%dT10:00:00Z", i + 1), "Development",
                     two, 2);
  bs_site_summary sum;
  memset(&sum, 0, sizeof sum);
  lib_build(archive, out, &sum);
  cr_expect_eq(sum.analyses_built, 3);
  cr_expect_eq(sum.reports_built, 3);
  cr_expect_eq(sum.reports_reanalysed, 0);
  cr_assert_eq(remove(ts_pathf("%s/runs/%s/index.html", out, ids[2])), 0);
  memset(&sum, 0, sizeof sum);
  lib_build(archive, out, &sum);
  cr_expect_eq(sum.analyses_reused, 3);
  cr_expect_eq(sum.reports_built, 1);
  cr_expect_eq(sum.reports_reanalysed, 1);
}

/* A new run with a new case: its page and the case's page link each
 * other, and both are new; two new runs link each other too. Before any
 * of them is published, the run pages go out without those links, then
 * the case page, then the run pages whole. */
Test(site, every_rename_keeps_every_link_resolving) {
  char *dir = ts_own(ts_tmpdir("site_renames"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development", two, 2);
  add_run(archive, dir, "c2", "2026-03-02T00:00:00Z", "Development", two, 2);
  lib_build(archive, out, NULL);
  static const tcase grown[] = {{"sort", "n=1024", 100.0, 100.0},
                                {"merge", "n=64", 50.0, 50.0}};
  add_run(archive, dir, "c3", "2026-03-03T00:00:00Z", "Development", grown, 2);
  add_run(archive, dir, "c4", "2026-03-04T00:00:00Z", "Development", grown, 2);
  watched = out;
  renames_checked = 0;
  lib_build(archive, out, NULL);
  watched = NULL;
  cr_expect_gt(renames_checked, 10, "%zu renames", renames_checked);
  cr_expect(ts_exists(ts_pathf("%s/%s.html", out, case_file("merge", "n=64"))));
  /* No copy left behind, and the result is a clean build's. */
  cr_expect_eq(count_build_dirs(dir), 0);
  cr_expect(!ts_exists(ts_pathf("%s/.first-run-c3.html", out)));
  char *clean = ts_pathf("%s/clean", dir);
  lib_build(archive, clean, NULL);
  char h1[BS__SHA256_HEXLEN + 1], h2[BS__SHA256_HEXLEN + 1];
  digest_of(out, h1);
  digest_of(clean, h2);
  cr_expect_str_eq(h1, h2);
}

/* A rebuild after one new run renders only the pages that run changes:
 * the index and the regressions page (both made from every run), its own
 * page, the page of the run before it (its "newer"
 * link) and the pages of its cases; every other run page stays as it is,
 * unrendered (the build knows it is made from the same inputs). */
Test(site, a_new_run_renders_only_the_pages_it_changes) {
  char *dir = ts_own(ts_tmpdir("site_rendered"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  char *ids[12];
  for (int k = 0; k < 12; k++) {
    char commit[16], date[32];
    snprintf(commit, sizeof commit, "c%02d", k);
    snprintf(date, sizeof date, "2026-03-%02dT00:00:00Z", k + 1);
    ids[k] = add_run(archive, dir, commit, date, "Development", two, 2);
  }
  bs_site_summary sum;
  lib_build(archive, out, &sum);
  cr_assert_eq(sum.pages_rendered, 2 + 12 + 2);
  char *old = ts_pathf("%s/run-%s.html", out, ids[3]);
  struct stat before;
  cr_assert_eq(stat(old, &before), 0);
  add_run(archive, dir, "c12", "2026-03-13T00:00:00Z", "Development", two, 2);
  lib_build(archive, out, &sum);
  cr_expect_eq(sum.pages_rendered, 2 + 2 + 2, "%zu pages rendered",
               sum.pages_rendered);
  struct stat after;
  cr_assert_eq(stat(old, &after), 0);
  cr_expect_eq(after.st_ino, before.st_ino);
  cr_expect_eq(after.st_mtim.tv_sec, before.st_mtim.tv_sec);
  cr_expect_eq(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  /* Nothing new: nothing rendered at all but the index, the regressions
   * page and case pages, whose bytes are then found unchanged. */
  lib_build(archive, out, &sum);
  cr_expect_eq(sum.pages_written, 0);
  cr_expect_leq(sum.pages_rendered, 2 + 2);
  cr_expect_gt(check_links(out), 20);
}

/* The stamps file's line for `rel` of the report runs/ID/ (whose list of
 * files is `marker`): the stamps follow "seen ID DEV MARKER_HASH", one
 * per regular file of the list in its order. NULL when there is none. */
static char *stamp_line(const char *stamps, const char *id, const char *marker,
                        const char *rel) {
  const char *files = strstr(marker, "\nfiles\n");
  if (!files)
    return NULL;
  size_t k = 0;
  int found = 0;
  for (const char *l = files + 7; *l && !found;) {
    const char *end = strchr(l, '\n');
    size_t len = end ? (size_t)(end - l) : strlen(l);
    if (l[0] >= '0' && l[0] <= '9') {
      const char *path = l + len - strlen(rel);
      found = len > strlen(rel) && path[-1] == ' ' &&
              !strncmp(path, rel, strlen(rel));
      k += !found;
    }
    l = end ? end + 1 : l + len;
  }
  const char *at = strstr(stamps, ts_pathf("seen %s ", id));
  if (!found || !at)
    return NULL;
  const char *l = strchr(at, '\n');
  for (size_t i = 0; l && i < k; i++)
    l = strchr(l + 1, '\n');
  if (!l || !l[1] || !strncmp(l + 1, "seen ", 5))
    return NULL;
  const char *end = strchr(l + 1, '\n');
  return ts_pathf("%.*s", (int)(end ? end - l - 1 : (long)strlen(l + 1)),
                  l + 1);
}

/* A reused report is checked against its list of files on every build;
 * a file is read for that unless its stamp (inode, size, times) is the
 * one it had when a build last read it. An edit in place changes the
 * ctime, which nothing sets back, so it is found however the mtime and
 * the size are kept. */
Test(site, a_reused_report_is_hashed_only_where_its_files_changed,
     .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("site_stamps"));
  char *archive = ts_pathf("%s/archive", dir),
       *out = ts_pathf("%s/public", dir);
  char *id = add_run(archive, dir, "c1", "2026-03-01T00:00:00Z", "Development",
                     two, 2);
  char *stamps = ts_pathf("%s/.benchsite-site.stamps", out);
  char summary[2048];
  build_ok(archive, out, NULL, 0);
  /* A first build hashes nothing it finds in place: no stamps yet. */
  cr_expect(!ts_exists(stamps));
  /* Stamps younger than a second are not kept: a write within the file
   * system's clock tick may not change them. */
  struct timespec pause = {1, 200000000};
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
    ;
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 0 built, 1 reused"), "%s",
                     summary);
  char *text = slurp(stamps);
  cr_assert(!strncmp(text, "benchsite-stamps 2\n", 19), "%s", text);
  char *page = ts_pathf("%s/runs/%s/index.html", out, id);
  char *mpath = ts_pathf("%s/runs/%s/.benchsite-report", out, id);
  char *marker = slurp(mpath);
  char mhash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(marker, strlen(marker), mhash);
  cr_expect_not_null(strstr(text, ts_pathf("seen %s ", id)), "%s", text);
  cr_expect_not_null(strstr(text, ts_pathf(" %s\n", mhash)), "%s", text);
  char *line = stamp_line(text, id, marker, "index.html");
  cr_assert_not_null(line, "%s", text);
  struct stat sb;
  cr_assert_eq(lstat(page, &sb), 0);
  char *bytes = slurp(page);
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(bytes, strlen(bytes), hash);
  char *want = ts_pathf(
      "%llu %llu %lld %lld", (unsigned long long)sb.st_ino,
      (unsigned long long)sb.st_size,
      (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec,
      (long long)sb.st_ctim.tv_sec * 1000000000LL + sb.st_ctim.tv_nsec);
  cr_expect_str_eq(line, want, "%s", text);
  /* ... and the list holds the hash the stamp vouches for. */
  cr_expect_not_null(strstr(marker, ts_pathf(" %s index.html\n", hash)));
  char *svg = stamp_line(text, id, marker, "charts/case-0001-deltas.svg");
  cr_expect(svg && strcmp(svg, "-"), "%s", text);
  /* Unchanged: the same stamps, nothing rewritten. */
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 0 built, 1 reused"), "%s",
                     summary);
  cr_expect_str_eq(slurp(stamps), text);

  /* The stamp is trusted: a file whose stamp matches is not read. With a
   * wrong hash for index.html in the report's list, and the stamps
   * recorded with that list, the report passes as unchanged (it would be
   * built again had the file been read); the same wrong list without
   * stamps for it is found out. */
  char *forged = ts_own(strdup(marker));
  char *h = strstr(forged, hash);
  cr_assert_not_null(h);
  h[0] = h[0] == '0' ? '1' : '0';
  char fhash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(forged, strlen(forged), fhash);
  char *fstamps = ts_own(strdup(text));
  char *m = strstr(fstamps, mhash);
  cr_assert_not_null(m);
  memcpy(m, fhash, BS__SHA256_HEXLEN);
  cr_assert_eq(ts_write(mpath, forged), 0);
  cr_assert_eq(ts_write(stamps, fstamps), 0);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "reports 0 built, 1 reused"), "%s",
                     summary);
  cr_assert_eq(ts_write(mpath, forged), 0);
  cr_assert_eq(unlink(stamps), 0);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "reports 1 built, 0 reused"), "%s",
                     summary);

  /* An edit in place that keeps the size and the mtime. */
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
    ;
  build_ok(archive, out, summary, sizeof summary);
  cr_assert_not_null(strstr(summary, "reports 0 built, 1 reused"), "%s",
                     summary);
  char *sl = stamp_line(slurp(stamps), id, slurp(mpath), "index.html");
  cr_assert(sl && strcmp(sl, "-"));
  char *orig = slurp(page);
  cr_assert_eq(lstat(page, &sb), 0);
  char *edited = ts_own(strdup(orig));
  char *t = strstr(edited, "<title>");
  cr_assert_not_null(t);
  memcpy(t, "<TITLE>", 7);
  int fd = open(page, O_WRONLY);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, edited, strlen(edited)), (ssize_t)strlen(edited));
  cr_assert_eq(close(fd), 0);
  struct timespec times[2] = {sb.st_atim, sb.st_mtim};
  cr_assert_eq(utimensat(AT_FDCWD, page, times, 0), 0);
  struct stat now;
  cr_assert_eq(lstat(page, &now), 0);
  cr_assert_eq(now.st_size, sb.st_size);
  cr_assert_eq(now.st_mtim.tv_nsec, sb.st_mtim.tv_nsec);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "reports 1 built, 0 reused"), "%s",
                     summary);
  cr_expect_str_eq(slurp(page), orig, "the edited page was kept");

  /* A copy with the same bytes (a new inode) is read, found the same and
   * kept. */
  while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
    ;
  build_ok(archive, out, NULL, 0);
  char *copy = ts_pathf("%s.copy", page);
  cr_assert_eq(ts_write(copy, orig), 0);
  cr_assert_eq(rename(copy, page), 0);
  build_ok(archive, out, summary, sizeof summary);
  cr_expect_not_null(strstr(summary, "reports 0 built, 1 reused"), "%s",
                     summary);
  cr_expect_eq(check_links(out) > 0, 1);
}

/* ---- A state altered by hand ------------------------------------------- */

#define EXAMPLE_RUN "20261130T111657Z-series01-7a21ab577fc8"

/* dir/arc2, a copy of the example archive (never the original); its site
 * dir/s2 and a second build of it, dir/clean. */
static void example_site(const char *dir) {
  char *arc = ts_pathf("%s/arc2", dir);
  char *const cp[] = {
      "cp", "-R", (char *)BENCHSITE_SOURCE_DIR "/examples/archive", arc, NULL};
  cr_assert_eq(ts_run_quiet(cp), 0);
  build_ok(arc, ts_pathf("%s/s2", dir), NULL, 0);
  build_ok(arc, ts_pathf("%s/clean", dir), NULL, 0);
}

/* printf into a string of any length, kept by ts_own. */
static char *textf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *textf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  cr_assert_geq(n, 0);
  char *s = ts_own(malloc((size_t)n + 1));
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* The state with its last line, when it is a "sum" line, made the hash of
 * the new text before it: a state altered by someone who knows its
 * format. */
static char *resealed(const char *state) {
  size_t n = strlen(state);
  const char *last = n ? state + n - 1 : state;
  while (last > state && last[-1] != '\n')
    last--;
  if (strncmp(last, "sum ", 4))
    return ts_own(strdup(state));
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(state, (size_t)(last - state), hex);
  return textf("%.*ssum %s\n", (int)(last - state), state, hex);
}

/* The state with `line` after its first line, resealed. */
static char *with_line(const char *state, const char *line) {
  const char *nl = strchr(state, '\n');
  cr_assert_not_null(nl);
  return resealed(
      textf("%.*s%s\n%s", (int)(nl + 1 - state), state, line, nl + 1));
}

/* The state with the line starting at `at` twice, resealed. */
static char *doubled(const char *state, const char *at) {
  const char *nl = strchr(at, '\n');
  cr_assert_not_null(nl);
  int to = (int)(nl + 1 - state);
  return resealed(
      textf("%.*s%.*s%s", to, state, (int)(nl + 1 - at), at, nl + 1));
}

static void expect_same_site(const char *a, const char *b, const char *what) {
  char h1[BS__SHA256_HEXLEN + 1], h2[BS__SHA256_HEXLEN + 1];
  digest_of(a, h1);
  digest_of(b, h2);
  cr_expect_str_eq(h1, h2, "%s: the site differs from a clean build", what);
}

static void expect_verified(const char *archive) {
  const char *args[] = {"archive", "verify", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "archive verify: %s%s", r.out, r.err);
  ts_run_free(&r);
}

/* Before: the state's names were not checked, and the files the new site
 * did not keep were removed by them, out of the site too (an archived
 * log: a damaged archive). */
Test(site, a_state_naming_a_path_out_of_the_site_deletes_nothing) {
  char *dir = ts_own(ts_tmpdir("site_escape"));
  example_site(dir);
  char *arc = ts_pathf("%s/arc2", dir), *out = ts_pathf("%s/s2", dir);
  char *marker = ts_pathf("%s/.benchsite-site", out);
  cr_assert_eq(mkdir(ts_pathf("%s/sub", dir), 0755), 0);
  const char *names[][2] = {
      {"../arc2/runs/" EXAMPLE_RUN "/log-1.csv",
       "arc2/runs/" EXAMPLE_RUN "/log-1.csv"},
      {"../victim.txt", "victim.txt"},
      {"charts/../../victim4.txt", "victim4.txt"},
      {"../sub/v3.txt", "sub/v3.txt"},
      {"/VICTIM/v5.txt", "VICTIM/v5.txt"},
      {"charts//case-0123456789abcdef-chain.svg", NULL},
      {"./index.html", NULL},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char *victim = names[i][1] ? ts_pathf("%s/%s", dir, names[i][1]) : NULL;
    char *abs = NULL;
    if (names[i][0][0] == '/') {
      /* An absolute name: dir/VICTIM/v5.txt in full. */
      cr_assert_eq(mkdir(ts_pathf("%s/VICTIM", dir), 0755), 0);
      abs = ts_pathf("%s/VICTIM/v5.txt", dir);
    }
    if (victim && strncmp(names[i][1], "arc2/", 5))
      cr_assert_eq(ts_write(victim, "not the site's\n"), 0);
    const char *state = slurp(marker);
    const char *name = abs ? abs : names[i][0];
    cr_assert_eq(
        ts_write(marker, with_line(state, ts_pathf("file %s - -", name))), 0);
    ts_run r = build(arc, out, 0);
    cr_expect_eq(r.status, 0, "%s: %s%s", name, r.out, r.err);
    cr_expect(strstr(r.out, "analyses 13 built, 0 reused"),
              "%s: the state was used: %s", name, r.out);
    ts_run_free(&r);
    if (victim)
      cr_expect(ts_exists(victim), "%s was deleted", victim);
  }
  expect_verified(arc);
  expect_same_site(out, ts_pathf("%s/clean", dir), "after the bad names");
  char summary[2048];
  build_ok(arc, out, summary, sizeof summary);
  cr_expect(strstr(summary, "analyses 0 built, 13 reused"), "%s", summary);
}

/* Before: a directory of the site replaced by a link to one outside it
 * was written and deleted through. */
Test(site, a_linked_directory_of_the_site_is_not_followed) {
  char *dir = ts_own(ts_tmpdir("site_linked_dir"));
  example_site(dir);
  char *arc = ts_pathf("%s/arc2", dir), *out = ts_pathf("%s/s2", dir);
  char *marker = ts_pathf("%s/.benchsite-site", out);
  const char *dirs[] = {"charts", "history"};
  const char *files[] = {"case-0123456789abcdef-history.svg",
                         "case-0123456789abcdef.json"};
  int counts[2];
  char *state = (char *)slurp(marker);
  for (int i = 0; i < 2; i++) {
    char *in = ts_pathf("%s/%s", out, dirs[i]);
    char *outside = ts_pathf("%s/outside-%s", dir, dirs[i]);
    cr_assert_eq(rename(in, outside), 0);
    cr_assert_eq(symlink(outside, in), 0);
    cr_assert_eq(ts_write(ts_pathf("%s/%s", outside, files[i]), "outside\n"),
                 0);
    counts[i] = ts_count_entries(outside);
    state = with_line(state, ts_pathf("file %s/%s - -", dirs[i], files[i]));
  }
  cr_assert_eq(ts_write(marker, state), 0);
  ts_run r = build(arc, out, 0);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  for (int i = 0; i < 2; i++) {
    char *outside = ts_pathf("%s/outside-%s", dir, dirs[i]);
    cr_expect(ts_exists(ts_pathf("%s/%s", outside, files[i])),
              "deleted through the link %s", dirs[i]);
    cr_expect_eq(ts_count_entries(outside), counts[i], "%s", dirs[i]);
    struct stat sb;
    cr_expect(lstat(ts_pathf("%s/%s", out, dirs[i]), &sb) == 0 &&
                  S_ISDIR(sb.st_mode),
              "%s is still a link", dirs[i]);
  }
  expect_verified(arc);
  expect_same_site(out, ts_pathf("%s/clean", dir), "after the links");
}

/* The example archive's site, as a user opens it from file://: every
 * relative link and image of every page (the index, run pages, case
 * pages, every report's pages under runs/) resolves inside the site, and
 * so does every older chunk a history file names. */
Test(site, the_example_site_has_every_link_resolving) {
  char *dir = ts_own(ts_tmpdir("site_example_links"));
  example_site(dir);
  char *out = ts_pathf("%s/s2", dir);
  cr_expect_gt(check_links(out), 300);
  char *text = slurp(ts_pathf("%s/index.html", out));
  cr_expect_null(strstr(text, "<script"));
  bs__jvalue *rj = json_file(ts_pathf("%s/history/runs.json", out));
  cr_expect_eq(member(rj, "runs", BS__JARRAY)->n, 13);
  bs__json_free(rj);
  DIR *d = opendir(ts_pathf("%s/history", out));
  cr_assert_not_null(d);
  size_t cases = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 6 || strcmp(e->d_name + n - 5, ".json") ||
        !strcmp(e->d_name, "runs.json"))
      continue;
    bs__jvalue *v = json_file(ts_pathf("%s/history/%s", out, e->d_name));
    const bs__jvalue *older = member(v, "older", BS__JARRAY);
    for (size_t k = 0; k < older->n; k++)
      cr_expect(
          ts_exists(ts_pathf("%s/history/%s", out, older->items[k].string)));
    cases += !strcmp(member(v, "schema", BS__JSTRING)->string,
                     "benchsite.history/2");
    bs__json_free(v);
  }
  closedir(d);
  cr_expect_eq(cases, 4);
}

/* Before: a case listed twice moved the later cases' numbers, and a
 * result listed twice counted twice ("14 runs measured this case"). */
Test(site, a_state_listing_a_run_or_a_file_twice_is_not_used) {
  char *dir = ts_own(ts_tmpdir("site_doubled"));
  example_site(dir);
  char *arc = ts_pathf("%s/arc2", dir), *out = ts_pathf("%s/s2", dir);
  char *marker = ts_pathf("%s/.benchsite-site", out);
  const char *lines[] = {"\nrun ", "\nfile "};
  for (int i = 0; i < 2; i++) {
    const char *state = slurp(marker);
    const char *at = strstr(state, lines[i]);
    cr_assert_not_null(at);
    cr_assert_eq(ts_write(marker, doubled(state, at + 1)), 0);
    ts_run r = build(arc, out, 0);
    cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
    cr_expect(strstr(r.out, "analyses 13 built, 0 reused"),
              "%s twice: the state was used: %s", lines[i] + 1, r.out);
    ts_run_free(&r);
    expect_same_site(out, ts_pathf("%s/clean", dir), lines[i] + 1);
  }
}

/* Before: well-formed values changed in the state (a median, a sample
 * size of 2^64 - 1, flags no comparison writes) were shown as results.
 * Now the results are the history data's; a state altered and sealed
 * again is used only as far as it still tells the truth: a run counting
 * results its history data does not hold is analysed again, and a line
 * the site never writes (a report flag of 2, an impl with an escape it
 * never writes, another analysis key) leaves nothing reused from it. */
Test(site, a_state_altered_anywhere_is_not_used) {
  char *dir = ts_own(ts_tmpdir("site_altered"));
  example_site(dir);
  char *arc = ts_pathf("%s/arc2", dir), *out = ts_pathf("%s/s2", dir);
  char *marker = ts_pathf("%s/.benchsite-site", out);
  /* Token `tok` of the first line starting `line` becomes `to`; `built`
   * is the build's count of analyses then. */
  static const struct {
    const char *line;
    int tok;
    const char *to;
    const char *built;
  } edits[] = {
      {"run ", 2, "18446744073709551615", "analyses 1 built, 12 reused"},
      {"run ", 2, "3", "analyses 1 built, 12 reused"},
      {"run ", 5, "2", "analyses 13 built, 0 reused"},
      {"run ", 3, "he%61d", "analyses 13 built, 0 reused"},
      {"site ", 1,
       "0000000000000000000000000000000000000000000000000000000000000000",
       "analyses 13 built, 0 reused"},
      {"file ", 2, "-", "analyses 0 built, 13 reused"},
  };
  for (size_t i = 0; i < sizeof edits / sizeof edits[0]; i++) {
    char *state = ts_own(strdup(slurp(marker)));
    char *r = strstr(state, ts_pathf("\n%s", edits[i].line));
    cr_assert_not_null(r);
    char *p = r + 1;
    for (int k = 0; k < edits[i].tok; k++) {
      p = strchr(p, ' ');
      cr_assert_not_null(p);
      p++;
    }
    char *edited = textf("%.*s%s%s", (int)(p - state), state, edits[i].to,
                         p + strcspn(p, " \n"));
    cr_assert_eq(ts_write(marker, resealed(edited)), 0);
    ts_run run = build(arc, out, 0);
    cr_expect_eq(run.status, 0, "%s%s", run.out, run.err);
    cr_expect(strstr(run.out, edits[i].built), "alteration %zu: %s", i,
              run.out);
    ts_run_free(&run);
    expect_same_site(out, ts_pathf("%s/clean", dir),
                     ts_pathf("alteration %zu", i));
  }
}
