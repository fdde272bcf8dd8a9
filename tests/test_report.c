/* benchsite report: hostile input stays text, output is deterministic and
 * replaced atomically. Runs the built CLI (no shell anywhere), except the
 * tests of the analysis a report renders, which call bs_report_write. */
#include "support.h"

#include "benchsite/benchsite.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define EXAMPLES BENCHSITE_SOURCE_DIR "/examples/"

/* Case-insensitive substring search (strcasestr is not POSIX). */
static const char *find_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && (hay[i] | 0x20) == (needle[i] | 0x20))
      i++;
    if (i == n)
      return hay;
  }
  return NULL;
}

/* ---- Walking a report ---------------------------------------------------- */

typedef struct tree {
  char **paths; /* relative, sorted */
  size_t n;
} tree;

static int cmp_paths(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk(const char *root, const char *rel, tree *t) {
  char *dir = rel[0] ? ts_path(root, rel) : strdup(root);
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "cannot open %s", dir);
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    char *r = rel[0] ? ts_path(rel, e->d_name) : strdup(e->d_name);
    char *full = ts_path(root, r);
    struct stat st;
    cr_assert_eq(lstat(full, &st), 0);
    cr_expect_not(S_ISLNK(st.st_mode), "symbolic link %s", r);
    /* Names come from indices: nothing of the user's text. */
    for (const char *p = e->d_name; *p; p++)
      cr_expect(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                       "0123456789._-",
                       *p),
                "unexpected byte in file name %s", r);
    if (S_ISDIR(st.st_mode)) {
      walk(root, r, t);
      free(r);
    } else {
      cr_expect(S_ISREG(st.st_mode), "%s is not a regular file", r);
      t->paths = realloc(t->paths, (t->n + 1) * sizeof *t->paths);
      t->paths[t->n++] = r;
    }
    free(full);
  }
  closedir(d);
  free(dir);
  if (!rel[0])
    qsort(t->paths, t->n, sizeof *t->paths, cmp_paths);
}

static void tree_free(tree *t) {
  for (size_t i = 0; i < t->n; i++)
    free(t->paths[i]);
  free(t->paths);
  t->paths = NULL;
  t->n = 0;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && !strcmp(s + a - b, suffix);
}

static ts_run report(const char *cwd, const char *const *args) {
  return ts_cli(cwd, args);
}

/* Every src= and href= is a relative link to a file of the report. */
static void check_links(const char *out, const char *page, const char *html) {
  static const char *const attrs[] = {"src=\"", "href=\""};
  for (int a = 0; a < 2; a++) {
    for (const char *p = strstr(html, attrs[a]); p;
         p = strstr(p + 1, attrs[a])) {
      const char *v = p + strlen(attrs[a]);
      const char *end = strchr(v, '"');
      cr_assert_not_null(end);
      char link[512];
      size_t n = (size_t)(end - v);
      cr_assert(n < sizeof link);
      memcpy(link, v, n);
      link[n] = '\0';
      char *hash = strchr(link, '#');
      if (hash)
        *hash = '\0';
      if (!link[0])
        continue;
      cr_expect_null(strchr(link, ':'), "%s: external link %s", page, link);
      cr_expect_null(strstr(link, ".."), "%s: link %s climbs", page, link);
      cr_expect_neq(link[0], '/', "%s: absolute link %s", page, link);
      char *target = ts_path(out, link);
      cr_expect(ts_exists(target), "%s: broken link %s", page, link);
      free(target);
    }
  }
}

/* ---- Safety -------------------------------------------------------------- */

Test(report, hostile_names_stay_text) {
  char *work = ts_tmpdir("report_hostile");
  char *out = ts_path(work, "out");
  char *log = ts_data("report/hostile.csv");
  char *env = ts_data("report/hostile-env.csv");
  int evil_before = ts_exists("/tmp/evil");
  const char *args[] = {"report", log, "--manifest", env, "--out", "out", NULL};
  ts_run r = report(work, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  cr_expect_str_eq(r.err, "", "progress or noise on a non-terminal stderr");

  /* Nothing ran: no canary anywhere, nothing beside the report. */
  cr_expect_eq(ts_count_entries(work), 1, "files beside the report");
  cr_expect_eq(ts_exists("/tmp/evil"), evil_before);
  tree t = {0};
  walk(out, "", &t);
  size_t svgs = 0, pages = 0;
  for (size_t i = 0; i < t.n; i++) {
    cr_expect_null(strstr(t.paths[i], "CANARY"), "canary %s", t.paths[i]);
    char *path = ts_path(out, t.paths[i]);
    size_t len;
    char *data = ts_read(path, &len);
    cr_assert_not_null(data);
    cr_expect(len > 0, "%s is empty", t.paths[i]);
    if (ends_with(t.paths[i], ".svg")) {
      svgs++;
      char *argv[] = {(char *)"xmllint", (char *)"--noout", path, NULL};
      cr_expect_eq(ts_run_quiet(argv), 0, "%s is not well-formed XML",
                   t.paths[i]);
      cr_expect_null(find_ci(data, "<script"), "%s", t.paths[i]);
    }
    if (ends_with(t.paths[i], ".html")) {
      pages++;
      cr_expect_null(find_ci(data, "<script"), "markup got through in %s",
                     t.paths[i]);
      cr_expect_null(strstr(data, "<b>bold"), "%s", t.paths[i]);
      cr_expect_null(strstr(data, "<i>"), "%s", t.paths[i]);
      check_links(out, t.paths[i], data);
    }
    free(data);
    free(path);
  }
  cr_expect_geq(svgs, 15);
  cr_expect_geq(pages, 7);
  tree_free(&t);
  char *walk_canary = ts_path(work, "CANARY");
  cr_expect_not(ts_exists(walk_canary));
  free(walk_canary);

  /* The text is there, escaped. */
  char *index = ts_path(out, "index.html");
  char *html = ts_read(index, NULL);
  cr_assert_not_null(html);
  cr_expect(strstr(html, "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"),
            "benchmark name not shown escaped");
  cr_expect(strstr(html, "base&quot;&lt;b&gt;&#39;`touch CANARY`"),
            "impl name not shown escaped");
  cr_expect(strstr(html, "$(touch CANARY); system(&quot;touch CANARY&quot;)"));
  cr_expect(strstr(html, "&lt;script&gt;alert(&quot;m&quot;)&lt;/script&gt;"),
            "manifest value not shown escaped");
  cr_expect(strstr(html, "na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"),
            "non-ASCII text lost");
  cr_expect(strstr(html, "../../../../tmp/evil &amp; "));
  free(html);
  char *svg_path = ts_path(out, "charts/forest.svg");
  char *svg = ts_read(svg_path, NULL);
  cr_assert_not_null(svg);
  cr_expect(strstr(svg, "&lt;script"), "case name missing from the chart");
  free(svg);
  free(svg_path);
  free(index);
  ts_run_free(&r);
  free(log);
  free(env);
  free(out);
  free(work);
}

/* ---- Determinism --------------------------------------------------------- */

static void expect_same_tree(const char *a, const char *b) {
  tree ta = {0}, tb = {0};
  walk(a, "", &ta);
  walk(b, "", &tb);
  cr_assert_eq(ta.n, tb.n, "different file counts");
  for (size_t i = 0; i < ta.n; i++) {
    cr_assert_str_eq(ta.paths[i], tb.paths[i]);
    char *pa = ts_path(a, ta.paths[i]), *pb = ts_path(b, tb.paths[i]);
    size_t la, lb;
    char *x = ts_read(pa, &la), *y = ts_read(pb, &lb);
    cr_expect_eq(la, lb, "%s: sizes differ", ta.paths[i]);
    cr_expect(la == lb && memcmp(x, y, la) == 0, "%s differs", ta.paths[i]);
    free(x);
    free(y);
    free(pa);
    free(pb);
  }
  tree_free(&ta);
  tree_free(&tb);
}

Test(report, same_inputs_give_identical_bytes) {
  char *work = ts_tmpdir("report_det");
  const char *runs[][8] = {
      {"report", EXAMPLES "pr.csv", EXAMPLES "aa.csv", "--manifest",
       EXAMPLES "env.csv", "--manifest", EXAMPLES "aa-env.csv", NULL},
      {"report", EXAMPLES "tune.csv", "--manifest", EXAMPLES "tune-env.csv",
       NULL},
  };
  for (int k = 0; k < 2; k++) {
    char outs[2][64];
    for (int j = 0; j < 2; j++) {
      snprintf(outs[j], sizeof outs[j], "out%d%d", k, j);
      const char *args[16];
      size_t n = 0;
      for (; runs[k][n]; n++)
        args[n] = runs[k][n];
      args[n++] = "--out";
      args[n++] = outs[j];
      args[n] = NULL;
      ts_run r = report(work, args);
      cr_assert_eq(r.status, 0, "stderr: %s", r.err);
      ts_run_free(&r);
    }
    char *a = ts_path(work, outs[0]), *b = ts_path(work, outs[1]);
    expect_same_tree(a, b);
    free(a);
    free(b);
  }
  free(work);
}

/* ---- Atomicity ----------------------------------------------------------- */

static char *render_good(const char *work, const char *outname) {
  const char *args[] = {
      "report", EXAMPLES "pr.csv", "--manifest", EXAMPLES "env.csv",
      "--out",  outname,           NULL};
  ts_run r = report(work, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  char *out = ts_path(work, outname);
  char *index = ts_path(out, "index.html");
  char *html = ts_read(index, NULL);
  cr_assert_not_null(html);
  free(index);
  free(out);
  return html;
}

static void expect_intact(const char *work, const char *outname,
                          const char *html, int entries) {
  char *out = ts_path(work, outname);
  char *index = ts_path(out, "index.html");
  char *now = ts_read(index, NULL);
  cr_assert_not_null(now, "the previous report is gone");
  cr_expect_str_eq(now, html, "the previous report changed");
  cr_expect_eq(ts_count_entries(work), entries,
               "a temporary directory was left behind");
  free(now);
  free(index);
  free(out);
}

static void copy_file(const char *from, const char *to) {
  size_t len;
  char *data = ts_read(from, &len);
  cr_assert_not_null(data, "%s", from);
  cr_assert_eq(ts_write(to, data), 0);
  free(data);
}

Test(report, failed_render_keeps_previous_report) {
  char *work = ts_tmpdir("report_atomic");
  char *html = render_good(work, "out");

  /* Templates with an unbalanced section in the case page. */
  char *tpl = ts_path(work, "tpl");
  cr_assert_eq(mkdir(tpl, 0755), 0);
  static const char *const names[] = {"index.html", "tuning.html",
                                      "aa.html",    "_head.html",
                                      "_foot.html", "_figure.html"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    char *from = ts_path(BENCHSITE_SOURCE_DIR "/templates", names[i]);
    char *to = ts_path(tpl, names[i]);
    copy_file(from, to);
    free(from);
    free(to);
  }
  char *bad = ts_path(tpl, "case.html");
  cr_assert_eq(ts_write(bad, "{{> _head}}\n<h1>x</h1>\n{{#case}}\n<p>\n"
                             "{{> _foot}}\n"),
               0);
  free(bad);
  const char *args[] = {"report",      EXAMPLES "pr.csv",
                        "--manifest",  EXAMPLES "env.csv",
                        "--out",       "out",
                        "--templates", "tpl",
                        NULL};
  ts_run r = report(work, args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "case.html:3:"), "stderr: %s", r.err);
  cr_expect(strstr(r.err, "never closed"), "stderr: %s", r.err);
  ts_run_free(&r);
  expect_intact(work, "out", html, 2);

  /* gnuplot failing halfway: an I/O-class failure, same guarantee. */
  const char *args2[] = {"report",           EXAMPLES "pr.csv", "--manifest",
                         EXAMPLES "env.csv", "--out",           "out",
                         "--gnuplot",        "false",           NULL};
  r = report(work, args2);
  cr_expect_eq(r.status, 3, "stderr: %s", r.err);
  ts_run_free(&r);
  expect_intact(work, "out", html, 2);

  /* A directory that is not a report is never replaced. */
  char *other = ts_path(work, "mine");
  cr_assert_eq(mkdir(other, 0755), 0);
  char *precious = ts_path(other, "precious.txt");
  cr_assert_eq(ts_write(precious, "keep me"), 0);
  const char *args3[] = {"report",     EXAMPLES "pr.csv",
                         "--manifest", EXAMPLES "env.csv",
                         "--out",      "mine",
                         NULL};
  r = report(work, args3);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "not a benchsite report"), "stderr: %s", r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(precious));
  cr_expect_eq(ts_count_entries(work), 3);
  /* Nor is a file. */
  const char *args4[] = {
      "report", EXAMPLES "pr.csv",   "--manifest", EXAMPLES "env.csv",
      "--out",  "mine/precious.txt", NULL};
  r = report(work, args4);
  cr_expect_eq(r.status, 2);
  ts_run_free(&r);
  char *kept = ts_read(precious, NULL);
  cr_expect_str_eq(kept, "keep me");
  free(kept);
  free(precious);
  free(other);

  /* A good render replaces the old report and leaves nothing else. */
  const char *args5[] = {"report",     EXAMPLES "pr.csv",
                         "--manifest", EXAMPLES "env.csv",
                         "--out",      "out/",
                         "--seed",     "7",
                         NULL};
  r = report(work, args5);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(work), 3);
  char *marker = ts_path(work, "out/.benchsite-report");
  cr_expect(ts_exists(marker));
  free(marker);
  free(tpl);
  free(html);
  free(work);
}

/* A log of many cases, so a render takes long enough to interrupt. */
static char *big_log(const char *work, size_t cases) {
  char *path = ts_path(work, "big.csv");
  size_t cap = cases * 40 * 80 + 256;
  char *text = malloc(cap);
  size_t len = (size_t)snprintf(
      text, cap, "benchmark,dataset,impl,block,phase,per_call_us\n");
  for (size_t c = 0; c < cases; c++) {
    for (int b = 0; b < 20; b++) {
      for (int k = 0; k < 2; k++) {
        double v =
            10.0 +
            (double)((c * 31 + (size_t)b * 17 + (size_t)k * 7) % 23) / 10.0 +
            (k ? 0.5 : 0.0);
        len += (size_t)snprintf(text + len, cap - len,
                                "bench%03zu,n=%zu,%s,%d,confirm,%.3f\n", c, c,
                                k ? "pr" : "main", b, v);
      }
    }
  }
  cr_assert_eq(ts_write(path, text), 0);
  free(text);
  return path;
}

static pid_t spawn_cli(const char *cwd, char *const argv[]) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char *old = getcwd(NULL, 0);
  cr_assert_eq(chdir(cwd), 0);
  pid_t pid;
  int rc = posix_spawn(&pid, BENCHSITE_BIN, &fa, NULL, argv, environ);
  cr_assert_eq(chdir(old), 0);
  free(old);
  posix_spawn_file_actions_destroy(&fa);
  cr_assert_eq(rc, 0);
  return pid;
}

Test(report, interrupted_render_keeps_previous_report) {
  char *work = ts_tmpdir("report_kill");
  char *html = render_good(work, "out");
  char *log = big_log(work, 120);
  char *argv[] = {(char *)BENCHSITE_BIN,
                  (char *)"report",
                  log,
                  (char *)"--manifest",
                  (char *)EXAMPLES "env.csv",
                  (char *)"--out",
                  (char *)"out",
                  NULL};
  int sigs[] = {SIGTERM, SIGINT};
  for (int k = 0; k < 2; k++) {
    pid_t pid = spawn_cli(work, argv);
    struct timespec ts = {0, 150 * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(pid, sigs[k]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    if (WIFSIGNALED(st)) {
      cr_expect_eq(WTERMSIG(st), sigs[k]);
      /* Cancelled: the old report stays and the temporary one is gone. */
      expect_intact(work, "out", html, 2);
    } else {
      /* The render won the race: then it must be complete. */
      cr_expect_eq(WEXITSTATUS(st), 0);
      char *marker = ts_path(work, "out/case-0120.html");
      cr_expect(ts_exists(marker));
      free(marker);
      cr_expect_eq(ts_count_entries(work), 2);
    }
  }
  free(log);
  free(html);
  free(work);
}

/* ---- What gets rendered -------------------------------------------------- */

Test(report, pages_follow_the_inputs) {
  char *work = ts_tmpdir("report_pages");
  const char *tune[] = {"report",     EXAMPLES "tune.csv",
                        "--manifest", EXAMPLES "tune-env.csv",
                        "--out",      "tune",
                        NULL};
  ts_run r = report(work, tune);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  char *p = ts_path(work, "tune/tuning.html");
  cr_expect(ts_exists(p));
  free(p);
  p = ts_path(work, "tune/case-0001.html");
  cr_expect_not(ts_exists(p));
  free(p);
  p = ts_path(work, "tune/charts/tune-001.svg");
  cr_expect(ts_exists(p));
  free(p);

  const char *aa[] = {"report",     EXAMPLES "aa.csv",
                      "--manifest", EXAMPLES "aa-env.csv",
                      "--out",      "aa",
                      NULL};
  r = report(work, aa);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  p = ts_path(work, "aa/aa.html");
  cr_expect(ts_exists(p));
  free(p);
  p = ts_path(work, "aa/tuning.html");
  cr_expect_not(ts_exists(p), "an A/A pair is not a tuning problem");
  free(p);
  p = ts_path(work, "aa/charts/aa-002-confidence.svg");
  cr_expect(ts_exists(p));
  free(p);

  const char *pr[] = {"report",     EXAMPLES "pr.csv",
                      "--manifest", EXAMPLES "env.csv",
                      "--out",      "pr",
                      NULL};
  r = report(work, pr);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  cr_expect(strstr(r.out, "4 cases, 1 significant regression"), "%s", r.out);
  ts_run_free(&r);
  p = ts_path(work, "pr/index.html");
  char *html = ts_read(p, NULL);
  cr_assert_not_null(html);
  cr_expect(strstr(html, "Gate failed"));
  cr_expect(strstr(html, "<table"));
  cr_expect(strstr(html, "scope=\"col\""));
  cr_expect(strstr(html, "<caption>"));
  cr_expect(strstr(html, "alt=\"Forest plot of 4 cases"), "forest alt text");
  free(html);
  free(p);
  for (int i = 1; i <= 4; i++) {
    char name[64];
    snprintf(name, sizeof name, "pr/case-%04d.html", i);
    p = ts_path(work, name);
    char *page = ts_read(p, NULL);
    cr_assert_not_null(page, "%s", name);
    cr_expect(strstr(page, "alt=\"Paired differences"), "%s", name);
    cr_expect(strstr(page, "alt=\"Histogram of 10000 bootstrap medians"), "%s",
              name);
    cr_expect(strstr(page, "alt=\"Wall time per call of"), "%s", name);
    free(page);
    free(p);
  }
  free(work);
}

Test(report, usage_errors_exit_2) {
  char *work = ts_tmpdir("report_usage");
  const char *no_out[] = {"report", EXAMPLES "pr.csv", "--manifest",
                          EXAMPLES "env.csv", NULL};
  ts_run r = report(work, no_out);
  cr_expect_eq(r.status, 2);
  ts_run_free(&r);
  const char *no_manifest[] = {"report", EXAMPLES "pr.csv", "--out", "o", NULL};
  r = report(work, no_manifest);
  cr_expect_eq(r.status, 2);
  ts_run_free(&r);
  const char *half[] = {"report",     EXAMPLES "aa.csv",
                        "--manifest", EXAMPLES "aa-env.csv",
                        "--baseline", "A",
                        "--out",      "o",
                        NULL};
  r = report(work, half);
  cr_expect_eq(r.status, 2);
  ts_run_free(&r);
  char *env = ts_path(work, "cross.csv");
  cr_assert_eq(ts_write(env, "key,value\ntarget,wasm32\nbaseline,main\n"
                             "candidate,pr\n"),
               0);
  const char *cross[] = {
      "report", EXAMPLES "pr.csv", "--manifest", env, "--out", "o", NULL};
  r = report(work, cross);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "native"), "stderr: %s", r.err);
  ts_run_free(&r);
  const char *help[] = {"report", "--help", NULL};
  r = report(work, help);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "--templates"));
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(work), 1, "a failed run left files behind");
  free(env);
  free(work);
}

/* ---- The report renders an analysis ------------------------------------ */

#define REPORT_SEED 3
#define AA_RESAMPLES 1000

/* The combined example run: a comparison, a tuning and an A/A validation. */
typedef struct given {
  bs_log *log;
  bs_manifest *mf[2];
  bs_noise_options no;
} given;

static void given_load(given *g) {
  static const char *const logs[] = {EXAMPLES "pr.csv", EXAMPLES "aa.csv",
                                     EXAMPLES "tune.csv"};
  static const char *const mfs[] = {EXAMPLES "env.csv", EXAMPLES "aa-env.csv"};
  bs_error err;
  bs_error_clear(&err);
  memset(g, 0, sizeof *g);
  g->log = bs_log_new();
  cr_assert_not_null(g->log);
  for (size_t i = 0; i < 3; i++)
    cr_assert_eq(bs_log_read_file(g->log, logs[i], &err), BS_OK, "%s",
                 err.message);
  for (size_t i = 0; i < 2; i++) {
    g->mf[i] = bs_manifest_new();
    cr_assert_eq(bs_manifest_read_file(g->mf[i], mfs[i], &err), BS_OK, "%s",
                 err.message);
  }
  bs_noise_options_init(&g->no);
  g->no.resamples = AA_RESAMPLES;
}

static void given_free(given *g) {
  bs_manifest_free(g->mf[0]);
  bs_manifest_free(g->mf[1]);
  bs_log_free(g->log);
}

static void given_options(bs_report_options *o) {
  bs_report_options_init(o);
  o->templates_dir = BENCHSITE_SOURCE_DIR "/templates";
  o->assets_dir = BENCHSITE_SOURCE_DIR "/site";
}

/* Every analysis of g with its first `nmf` manifests. */
static bs_analysis *given_analyse(const given *g, size_t nmf, int keep_going) {
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = REPORT_SEED;
  ao.noise = &g->no;
  ao.keep_going = keep_going;
  bs_analysis *a = NULL;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(
      bs_analyse(g->log, (const bs_manifest *const *)g->mf, nmf, &ao, &a, &err),
      BS_OK, "%s", err.message);
  return a;
}

/* A marker put into each result reaches the pages: the report rendered
 * the analysis it was given and made none of its own (a report that
 * analysed the log itself could not know the marker). */
Test(report, the_analysis_is_rendered_not_made_again) {
  char *work = ts_tmpdir("report_analysis_used");
  char *out = ts_path(work, "out");
  given g;
  given_load(&g);
  bs_analysis *a = given_analyse(&g, 2, 0);
  cr_assert(a->compare && a->tune && a->aa);
  cr_expect_eq(a->compare->options.seed, REPORT_SEED);
  cr_expect_eq(a->aa->options.seed, REPORT_SEED);
  cr_expect_eq(a->aa->options.resamples, AA_RESAMPLES);
  a->aa->cases[0].benchmark = "aa-marker";
  a->tune->cases[0].benchmark = "tune-marker";
  char **w =
      realloc(a->compare->warnings, (a->compare->nwarnings + 1) * sizeof *w);
  cr_assert_not_null(w);
  w[a->compare->nwarnings] = strdup("compare-marker");
  a->compare->warnings = w;
  a->compare->nwarnings++;

  bs_report_options o;
  bs_error err;
  bs_error_clear(&err);
  given_options(&o);
  bs_report_summary sum;
  cr_assert_eq(bs_report_write(a, out, &o, &sum, &err), BS_OK, "%s",
               err.message);
  cr_expect(sum.has_compare && sum.has_tuning && sum.has_aa);
  static const char *const pages[][2] = {{"index.html", "compare-marker"},
                                         {"tuning.html", "tune-marker"},
                                         {"aa.html", "aa-marker"}};
  for (size_t i = 0; i < 3; i++) {
    char *p = ts_path(out, pages[i][0]);
    char *html = ts_read(p, NULL);
    cr_assert_not_null(html, "%s", p);
    cr_expect(strstr(html, pages[i][1]), "%s: no %s", pages[i][0], pages[i][1]);
    free(html);
    free(p);
  }
  bs_analysis_free(a);
  bs_analysis_free(NULL);
  given_free(&g);
  free(out);
  free(work);
}

/* An analysis kept going past a problem (as the site makes them) still
 * has its comparison, but no report is made of it: the report fails with
 * the problem and writes nothing. So does a comparison that kept no
 * bootstrap distributions for the case pages. */
Test(report, an_incomplete_analysis_is_refused) {
  char *work = ts_tmpdir("report_analysis_refused");
  char *out = ts_path(work, "out");
  given g;
  given_load(&g);
  bs_error err;
  bs_error_clear(&err);
  static const char wasm[] = "key,value\ntarget,wasm32\nbaseline,main\n"
                             "candidate,pr\n";
  bs_manifest_free(g.mf[0]);
  g.mf[0] = bs_manifest_new();
  cr_assert_eq(
      bs_manifest_read_buffer(g.mf[0], "wasm.csv", wasm, sizeof wasm - 1, &err),
      BS_OK, "%s", err.message);
  bs_analysis *a = given_analyse(&g, 2, 1);
  cr_assert_eq(a->status, BS_EINPUT);
  cr_assert_not_null(a->compare, "keep_going keeps the comparison");
  bs_report_options o;
  given_options(&o);
  cr_expect_eq(bs_report_write(a, out, &o, NULL, &err), BS_EINPUT);
  cr_expect_str_eq(err.message, a->error.message);
  bs_analysis_free(a);

  /* Without keep_going the same problem fails the analysis. */
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  a = (bs_analysis *)1;
  cr_expect_eq(
      bs_analyse(g.log, (const bs_manifest *const *)g.mf, 2, &ao, &a, &err),
      BS_EINPUT);
  cr_expect_null(a);

  /* A comparison made without its bootstrap distributions. */
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_CONFIRMATORY);
  ao.sections = BS_ANALYSE_COMPARE;
  ao.baseline = "main";
  ao.candidate = "pr";
  ao.compare = &co;
  cr_assert_eq(bs_analyse(g.log, NULL, 0, &ao, &a, &err), BS_OK, "%s",
               err.message);
  cr_expect_eq(bs_report_write(a, out, &o, NULL, &err), BS_EUSAGE);
  cr_expect(strstr(err.message, "bootstrap"), "%s", err.message);
  bs_analysis_free(a);
  cr_expect_eq(ts_count_entries(work), 0, "a refused report wrote files");
  given_free(&g);
  free(out);
  free(work);
}
