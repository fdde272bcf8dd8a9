/* The gnuplot driver: octal quoting, one batch process, checked outputs. */
#include "benchsite/plot.h"

#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *quote(const char *s, size_t max) {
  size_t n = bs_plot_quote(s, max, NULL, 0);
  char *q = malloc(n + 1);
  cr_assert_eq(bs_plot_quote(s, max, q, n + 1), n);
  cr_assert_eq(strlen(q), n);
  return q;
}

Test(plot, quote_writes_every_byte_as_octal) {
  char *q = quote("a\"`$", 0);
  cr_expect_str_eq(q, "\"\\141\\042\\140\\044\"");
  free(q);
  q = quote("", 0);
  cr_expect_str_eq(q, "\"\"");
  free(q);
  /* Only quotes, backslashes and digits: nothing gnuplot could expand. */
  q = quote("$(touch x); system(\"rm\") `id` @m !ls\n<script>", 0);
  for (const char *p = q + 1; p[1]; p++)
    cr_expect(*p == '\\' || (*p >= '0' && *p <= '7'), "byte %c", *p);
  free(q);
}

Test(plot, quote_repairs_utf8_and_drops_control_bytes) {
  /* é stays; a stray 0xff becomes U+FFFD; NUL-free controls vanish;
   * newline and tab become spaces; C1 controls vanish. */
  char *q = quote("\xc3\xa9\xff\x01\n\t\xc2\x85z", 0);
  cr_expect_str_eq(q, "\"\\303\\251\\357\\277\\275\\040\\040\\172\"");
  free(q);
  /* Overlong and surrogate encodings are invalid. */
  q = quote("\xc0\xaf\xed\xa0\x80", 0);
  cr_expect_str_eq(q, "\"\\357\\277\\275\\357\\277\\275\\357\\277\\275"
                      "\\357\\277\\275\\357\\277\\275\"");
  free(q);
}

Test(plot, quote_cuts_long_labels_with_an_ellipsis) {
  char *q = quote("abcdef", 3);
  cr_expect_str_eq(q, "\"\\141\\142\\143\\342\\200\\246\"");
  free(q);
  q = quote("abc", 3);
  cr_expect_str_eq(q, "\"\\141\\142\\143\"");
  free(q);
  char small[8];
  size_t need = bs_plot_quote("abcdef", 0, small, sizeof small);
  cr_expect_eq(need, 2 + 6 * 4);
  cr_expect_eq(strlen(small), 7);
}

static const char *const hostile =
    "<script>alert(1)</script> \"q\" 'a' `touch CANARY` $(touch CANARY) ; "
    "system(\"touch CANARY\") ../../x \n@m !ls \xe6\x97\xa5\xe6\x9c\xac";

static void build(bs_plot *p, size_t n) {
  double x[4] = {1, 2, 3, 4}, y[4] = {2, 1, 4, 3}, lo[4] = {1, 0, 3, 2},
         hi[4] = {3, 2, 5, 4}, w[4] = {0.5, 0.5, 0.5, 0.5};
  const double *c2[2] = {x, y}, *c3[3] = {x, lo, hi}, *c4[4] = {x, y, lo, hi},
               *cb[3] = {x, y, w};
  bs_plot_style s = {0};
  s.color = 0x0072b2;
  s.marker = BS_MARK_CIRCLE;
  for (size_t i = 0; i < n; i++) {
    char f[32];
    snprintf(f, sizeof f, "chart-%02zu.svg", i);
    cr_assert_eq(bs_plot_chart(p, f, 400, 300), i);
    bs_plot_title(p, hostile);
    bs_plot_xlabel(p, hostile);
    bs_plot_ylabel(p, "time (µs)");
    bs_plot_key(p, (bs_plot_keypos)(i % 6));
    bs_plot_ytic(p, 2, hostile);
    bs_plot_hline(p, 2.5, &s, hostile);
    bs_plot_vline(p, 2.5, &s, hostile);
    bs_plot_xspan(p, 1.5, 2, &s);
    bs_plot_yspan(p, 1, 1.5, &s);
    bs_plot_label(p, 1, 1, hostile);
    bs_plot_segment(p, 1, 1, 2, 2, &s);
    bs_plot_series(p, BS_PLOT_LINESPOINTS, hostile, &s, c2, 4);
    bs_plot_series(p, BS_PLOT_POINTS, hostile, &s, c2, 4);
    bs_plot_series(p, BS_PLOT_LINES, NULL, &s, c2, 4);
    bs_plot_series(p, BS_PLOT_XERRORBARS, "x", &s, c4, 4);
    bs_plot_series(p, BS_PLOT_YERRORBARS, "y", &s, c4, 4);
    bs_plot_series(p, BS_PLOT_BAND, "band", &s, c3, 4);
    bs_plot_series(p, BS_PLOT_BOXES, "boxes", &s, cb, 4);
    bs_plot_keyentry(p, BS_PLOT_BAND, hostile, &s);
    if (i % 2)
      bs_plot_logscale(p, 1, 1);
  }
}

static int count_progress;
static size_t last_done, last_total;
static int on_progress(void *ctx, size_t done, size_t total) {
  (void)ctx;
  count_progress++;
  last_done = done;
  last_total = total;
  return 0;
}

Test(plot, renders_hostile_labels_as_text_only) {
  char *dir = ts_tmpdir("plot_hostile");
  char *canary = ts_path(dir, "CANARY");
  bs_plot *p = bs_plot_new();
  build(p, 3);
  cr_assert_eq(bs_plot_count(p), 3);
  bs_plot_run run = {0};
  run.progress = on_progress;
  bs_error err;
  bs_error_clear(&err);
  cr_assert_eq(bs_plot_render(p, dir, &run, &err), BS_OK, "%s", err.message);
  cr_expect_eq(last_done, 3);
  cr_expect_eq(last_total, 3);
  cr_expect(count_progress >= 1);
  cr_expect_not(ts_exists(canary), "a command ran");
  cr_expect_not(ts_exists("CANARY"));
  /* Only the charts remain: the data files are gone. */
  cr_expect_eq(ts_count_entries(dir), 3);
  for (int i = 0; i < 3; i++) {
    char f[32];
    snprintf(f, sizeof f, "chart-%02d.svg", i);
    char *path = ts_path(dir, f);
    size_t len = 0;
    char *svg = ts_read(path, &len);
    cr_assert_not_null(svg);
    cr_expect(len > 1000);
    cr_expect(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") ||
                  strstr(svg, "&lt;script>alert(1)&lt;/script>"),
              "title text missing or unescaped");
    cr_expect_null(strstr(svg, "<script"), "a script element in the SVG");
    cr_expect(strstr(svg, "\xe6\x97\xa5\xe6\x9c\xac"), "UTF-8 text lost");
    char *argv[] = {(char *)"xmllint", (char *)"--noout", path, NULL};
    cr_expect_eq(ts_run_quiet(argv), 0, "%s is not well-formed XML", f);
    free(svg);
    free(path);
  }
  bs_plot_free(p);
  free(canary);
  free(dir);
}

Test(plot, output_is_byte_identical_run_to_run) {
  char *d1 = ts_tmpdir("plot_det1");
  char *d2 = ts_tmpdir("plot_det2");
  for (int k = 0; k < 2; k++) {
    bs_plot *p = bs_plot_new();
    build(p, 4);
    bs_error err;
    cr_assert_eq(bs_plot_render(p, k ? d2 : d1, NULL, &err), BS_OK, "%s",
                 err.message);
    bs_plot_free(p);
  }
  for (int i = 0; i < 4; i++) {
    char f[32];
    snprintf(f, sizeof f, "chart-%02d.svg", i);
    char *a = ts_path(d1, f), *b = ts_path(d2, f);
    size_t la, lb;
    char *x = ts_read(a, &la), *y = ts_read(b, &lb);
    cr_assert_not_null(x);
    cr_assert_not_null(y);
    cr_expect_eq(la, lb);
    cr_expect(memcmp(x, y, la) == 0, "%s differs between runs", f);
    free(x);
    free(y);
    free(a);
    free(b);
  }
  free(d1);
  free(d2);
}

Test(plot, keep_data_leaves_the_data_files) {
  char *dir = ts_tmpdir("plot_keep");
  bs_plot *p = bs_plot_new();
  build(p, 2);
  bs_plot_run run = {0};
  run.keep_data = 1;
  bs_error err;
  cr_assert_eq(bs_plot_render(p, dir, &run, &err), BS_OK, "%s", err.message);
  cr_expect_eq(ts_count_entries(dir), 4);
  char *d = ts_path(dir, "gp000001.dat");
  cr_expect(ts_exists(d));
  free(d);
  bs_plot_free(p);
  free(dir);
}

Test(plot, file_names_must_be_plain) {
  static const char *const bad[] = {"../x.svg", "a/b.svg",  "x.png",    ".svg",
                                    "a b.svg",  "$(x).svg", "x.svg.svg"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    bs_plot *p = bs_plot_new();
    cr_expect_eq(bs_plot_chart(p, bad[i], 100, 100), (size_t)-1, "%s", bad[i]);
    bs_error err;
    bs_error_clear(&err);
    cr_expect_eq(bs_plot_render(p, ".", NULL, &err), BS_EINTERNAL, "%s",
                 bad[i]);
    bs_plot_free(p);
  }
  bs_plot *p = bs_plot_new();
  bs_plot_title(p, "before any chart");
  bs_error err;
  cr_expect_eq(bs_plot_render(p, ".", NULL, &err), BS_EINTERNAL);
  bs_plot_free(p);
  p = bs_plot_new();
  bs_plot_chart(p, "same.svg", 100, 100);
  bs_plot_chart(p, "same.svg", 100, 100);
  cr_expect_eq(bs_plot_render(p, ".", NULL, &err), BS_EINTERNAL);
  bs_plot_free(p);
  bs_plot_free(NULL);
}

Test(plot, a_failing_gnuplot_is_an_error) {
  char *dir = ts_tmpdir("plot_fail");
  bs_plot *p = bs_plot_new();
  build(p, 1);
  bs_plot_run run = {0};
  bs_error err;
  run.gnuplot = "false";
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_EPLOT);
  /* "true" exits 0 without writing: the empty-output check catches it. */
  run.gnuplot = "true";
  bs_error_clear(&err);
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_EPLOT);
  cr_expect(strstr(err.path, "chart-00.svg"), "%s", err.path);
  run.gnuplot = "/nonexistent/gnuplot";
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_EPLOT);
  cr_expect_eq(ts_count_entries(dir), 0, "data files left behind");
  bs_plot_free(p);
  free(dir);
}

Test(plot, gnuplot_reads_its_script_from_a_file_in_parallel_jobs) {
  /* A stand-in gnuplot that succeeds only when it is given a script file
   * and nothing on stdin, and renders each chart the script names. */
  char *dir = ts_tmpdir("plot_file");
  char *fake = ts_path(dir, "fake-gnuplot");
  cr_assert_eq(ts_write(fake,
                        "#!/bin/sh\n"
                        "[ \"$1\" = -d ] && [ -f \"$2\" ] || exit 3\n"
                        "[ \"$(wc -c)\" -eq 0 ] || exit 4\n"
                        "for f in $(grep -o 'chart-[0-9]*.svg' \"$2\"); do\n"
                        "  echo '<svg/>' > \"$f\"; done\n"),
               0);
  cr_assert_eq(chmod(fake, 0755), 0);
  char *out = ts_path(dir, "out");
  cr_assert_eq(mkdir(out, 0755), 0);
  bs_plot *p = bs_plot_new();
  build(p, 5);
  bs_plot_run run = {0};
  run.gnuplot = fake;
  run.jobs = 2;
  bs_error err;
  cr_assert_eq(bs_plot_render(p, out, &run, &err), BS_OK, "%s", err.message);
  /* Five charts, no script or data file left. */
  cr_expect_eq(ts_count_entries(out), 5);
  bs_plot_free(p);
  free(out);
  free(fake);
  free(dir);
}

static int cancel_now(void *ctx, size_t done, size_t total) {
  (void)ctx;
  (void)done;
  (void)total;
  return 1;
}

Test(plot, progress_hook_can_cancel) {
  char *dir = ts_tmpdir("plot_cancel");
  bs_plot *p = bs_plot_new();
  build(p, 2);
  bs_plot_run run = {0};
  run.progress = cancel_now;
  bs_error err;
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "cancelled"), "%s", err.message);
  bs_plot_free(p);
  free(dir);
}

Test(plot, an_empty_batch_renders_nothing) {
  bs_plot *p = bs_plot_new();
  bs_error err;
  cr_expect_eq(bs_plot_render(p, "/nonexistent", NULL, &err), BS_OK);
  bs_plot_free(p);
}

/* What a pool's `done` saw: the order of the calls and their ok. */
typedef struct done_log {
  int order[8], ok[8];
  int n;
} done_log;
typedef struct done_ctx {
  done_log *log;
  int id;
} done_ctx;

static bs_status on_done(void *ctx, int ok, bs_error *err) {
  done_ctx *d = ctx;
  (void)err;
  d->log->order[d->log->n] = d->id;
  d->log->ok[d->log->n++] = ok;
  return BS_OK;
}

Test(plot, a_pool_renders_batches_of_many_directories_then_finishes_them) {
  char *dir = ts_tmpdir("plot_pool");
  bs_plot_run run = {0};
  run.jobs = 2;
  bs_plot_pool *pool = bs_plot_pool_new(&run);
  cr_assert_not_null(pool);
  done_log log = {{0}, {0}, 0};
  done_ctx ctx[5];
  char *dirs[5];
  bs_error err;
  for (int i = 0; i < 5; i++) {
    char name[16];
    snprintf(name, sizeof name, "d%d", i);
    dirs[i] = ts_path(dir, name);
    cr_assert_eq(mkdir(dirs[i], 0755), 0);
    bs_plot *p = bs_plot_new();
    build(p, (size_t)i + 1); /* 1 to 5 charts, one of them log-scaled */
    ctx[i].log = &log;
    ctx[i].id = i;
    cr_assert_eq(bs_plot_pool_submit(pool, p, dirs[i], on_done, &ctx[i], &err),
                 BS_OK, "%s", err.message);
  }
  cr_assert_eq(bs_plot_pool_wait(pool, &err), BS_OK, "%s", err.message);
  /* Every chart there and nothing else; every done called once, in order,
   * after all of them. */
  for (int i = 0; i < 5; i++)
    cr_expect_eq(ts_count_entries(dirs[i]), i + 1, "d%d", i);
  cr_assert_eq(log.n, 5);
  for (int i = 0; i < 5; i++) {
    cr_expect_eq(log.order[i], i);
    cr_expect_eq(log.ok[i], 1);
  }
  /* The bytes are those bs_plot_render writes. */
  char *single = ts_path(dir, "single");
  cr_assert_eq(mkdir(single, 0755), 0);
  bs_plot *p = bs_plot_new();
  build(p, 5);
  cr_assert_eq(bs_plot_render(p, single, NULL, &err), BS_OK, "%s", err.message);
  bs_plot_free(p);
  for (int c = 0; c < 5; c++) {
    char f[32];
    snprintf(f, sizeof f, "chart-%02d.svg", c);
    char *a = ts_path(single, f), *b = ts_path(dirs[4], f);
    size_t la, lb;
    char *da = ts_read(a, &la), *db = ts_read(b, &lb);
    cr_assert(da && db);
    cr_expect(la == lb && !memcmp(da, db, la), "%s differs", f);
    free(da);
    free(db);
    free(a);
    free(b);
  }
  bs_plot_pool_free(pool);
  for (int i = 0; i < 5; i++)
    free(dirs[i]);
  free(single);
  free(dir);
}

Test(plot, a_failing_batch_fails_the_pool_and_abandons_every_batch) {
  /* A stand-in that fails on the chart of one directory only, slowly
   * enough that the other batches are still queued or running. */
  char *dir = ts_tmpdir("plot_pool_fail");
  char *fake = ts_path(dir, "fake-gnuplot");
  cr_assert_eq(ts_write(fake, "#!/bin/sh\n"
                              "case \"$(pwd)\" in */d2) exit 7;; esac\n"
                              "sleep 0.2\n"
                              "exec gnuplot \"$@\"\n"),
               0);
  cr_assert_eq(chmod(fake, 0755), 0);
  bs_plot_run run = {0};
  run.jobs = 2;
  run.gnuplot = fake;
  bs_plot_pool *pool = bs_plot_pool_new(&run);
  cr_assert_not_null(pool);
  done_log log = {{0}, {0}, 0};
  done_ctx ctx[6];
  bs_error err;
  for (int i = 0; i < 6; i++) {
    char name[16];
    snprintf(name, sizeof name, "d%d", i);
    char *d = ts_path(dir, name);
    cr_assert_eq(mkdir(d, 0755), 0);
    bs_plot *p = bs_plot_new();
    build(p, 2);
    ctx[i].log = &log;
    ctx[i].id = i;
    cr_assert_eq(bs_plot_pool_submit(pool, p, d, on_done, &ctx[i], &err), BS_OK,
                 "%s", err.message);
    free(d);
  }
  bs_error_clear(&err);
  cr_expect_eq(bs_plot_pool_wait(pool, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "failed (exit 7)"), "%s", err.message);
  cr_assert_eq(log.n, 6);
  for (int i = 0; i < 6; i++)
    cr_expect_eq(log.ok[i], 0, "batch %d finished after a failure", i);
  /* No script or data file is left in any directory. */
  for (int i = 0; i < 6; i++) {
    char name[16];
    snprintf(name, sizeof name, "d%d", i);
    char *d = ts_path(dir, name);
    char *gp = ts_path(d, "gp000000.gp"), *dat = ts_path(d, "gp000000.dat");
    cr_expect(!ts_exists(gp) && !ts_exists(dat), "d%d", i);
    free(gp);
    free(dat);
    free(d);
  }
  bs_plot_pool_free(pool);
  free(fake);
  free(dir);
}

Test(plot, freeing_a_busy_pool_stops_it_and_releases_every_batch) {
  char *dir = ts_tmpdir("plot_pool_free");
  bs_plot_run run = {0};
  run.jobs = 1;
  bs_plot_pool *pool = bs_plot_pool_new(&run);
  done_log log = {{0}, {0}, 0};
  done_ctx ctx[3];
  bs_error err;
  for (int i = 0; i < 3; i++) {
    bs_plot *p = bs_plot_new();
    build(p, 3);
    ctx[i].log = &log;
    ctx[i].id = i;
    cr_assert_eq(bs_plot_pool_submit(pool, p, dir, on_done, &ctx[i], &err),
                 BS_OK);
  }
  bs_plot_pool_free(pool);
  cr_assert_eq(log.n, 3);
  for (int i = 0; i < 3; i++)
    cr_expect_eq(log.ok[i], 0);
  free(dir);
}

/* One chart with a title, an x range and a series of three points. */
static bs_plot *digest_chart(const char *title, double lo, double y2) {
  bs_plot *p = bs_plot_new();
  bs_plot_chart(p, "c.svg", 400, 300);
  bs_plot_title(p, title);
  bs_plot_xrange(p, lo, 10);
  double x[3] = {1, 2, 3}, y[3] = {4, 5, y2};
  const double *cols[2] = {x, y};
  bs_plot_series(p, BS_PLOT_LINES, "s", NULL, cols, 3);
  return p;
}

static void digest_of(bs_plot *p, size_t i, char out[65]) {
  cr_assert_eq(bs_plot_chart_digest(p, i, out), BS_OK);
  cr_assert_eq(strlen(out), 64);
  bs_plot_free(p);
}

Test(plot, a_chart_digest_covers_its_script_and_data) {
  char base[65], same[65], d[65];
  digest_of(digest_chart("title", 0, 6), 0, base);
  digest_of(digest_chart("title", 0, 6), 0, same);
  cr_expect_str_eq(base, same);
  digest_of(digest_chart("titlf", 0, 6), 0, d); /* one byte of a title */
  cr_expect_str_neq(base, d);
  digest_of(digest_chart("title", 0, 7), 0, d); /* a data value */
  cr_expect_str_neq(base, d);
  digest_of(digest_chart("title", 1, 6), 0, d); /* a range */
  cr_expect_str_neq(base, d);
  /* The same chart second in a batch, after another: the same digest. */
  bs_plot *p = bs_plot_new();
  bs_plot_chart(p, "a.svg", 400, 300);
  bs_plot_title(p, "other");
  bs_plot_chart(p, "c.svg", 400, 300);
  bs_plot_title(p, "title");
  bs_plot_xrange(p, 0, 10);
  double x[3] = {1, 2, 3}, y[3] = {4, 5, 6};
  const double *cols[2] = {x, y};
  bs_plot_series(p, BS_PLOT_LINES, "s", NULL, cols, 3);
  digest_of(p, 1, d);
  cr_expect_str_eq(base, d);
  /* Out of range, and a batch whose builder failed. */
  p = digest_chart("title", 0, 6);
  cr_expect_eq(bs_plot_chart_digest(p, 1, d), BS_EINTERNAL);
  cr_expect_str_empty(d);
  bs_plot_free(p);
  p = bs_plot_new();
  bs_plot_title(p, "before any chart");
  cr_expect_neq(bs_plot_chart_digest(p, 0, d), BS_OK);
  bs_plot_free(p);
}
