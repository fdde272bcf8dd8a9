/* Charts against hostile input and a misbehaving gnuplot: one that hangs,
 * chatters, closes its output and stays, ignores SIGTERM or prints a long
 * version; SVG that is not well-formed, active or huge; values near
 * DBL_MAX. Each test failed before its fix (the note above it says how). */
#include "benchsite/plot.h"

#include "hostile.h"
#include "plotsafe.h"
#include "support.h"
#include "svgmin.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

TestSuite(plot_hostile, .fini = ts_free_owned);

/* ---- SVG gnuplot writes -------------------------------------------------- */

static int xml_well_formed(const char *path) {
  char *argv[] = {(char *)"xmllint", (char *)"--noout", (char *)path, NULL};
  return ts_run_quiet(argv) == 0;
}

static void check_svg(const char *path) {
  cr_expect(xml_well_formed(path), "not well-formed: %s", path);
}

static size_t check_svgs(const char *dir) {
  static const char *const ends[] = {".svg", NULL};
  return walk_files(dir, ends, check_svg);
}

/* Before: gnuplot copies "&#x..;" and "]]>" into the SVG as they are: 14
 * of 23 charts of such a report were not well-formed XML. */
Test(plot_hostile, names_with_character_references_give_well_formed_svg,
     .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("svg_names"));
  char *log = write_log(dir, "log.csv", "a&#x1;b]]>c&#65;&amp;<", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {
      "report", log,           "--manifest", env,     "--baseline",
      "base",   "--candidate", "head",       "--out", ts_pathf("%s/out", dir),
      NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "report: %s", r.err);
  ts_run_free(&r);
  cr_expect_gt(check_svgs(ts_pathf("%s/out", dir)), 0);
}

/* Before: any non-empty file gnuplot wrote was published, a <script>
 * included. */
Test(plot_hostile, an_svg_with_a_script_is_not_published, .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("gp_script"));
  char *gp = fake_gnuplot(
      dir, "gp",
      "gnuplot \"$@\" || exit $?\n"
      "for f in *.svg; do sed -i 's|</svg>|<script>alert(1)</script></svg>|' "
      "\"$f\"; done");
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *out = ts_pathf("%s/out", dir);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {"report",     log,    "--manifest",  env,
                        "--baseline", "base", "--candidate", "head",
                        "--gnuplot",  gp,     "--out",       out,
                        NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 3, "report: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "<script>"), "%s", r.err);
  cr_expect(!ts_exists(out), "a report was published");
  ts_run_free(&r);
}

/* SVG that is well-formed but active: animation can set href or on*
 * later; entities; links out. gnuplot writes none of them. */
Test(plot_hostile, svg_check_refuses_active_content) {
  static const char *const bad[] = {
      "<svg xmlns='http://www.w3.org/2000/svg'><script>x</script></svg>",
      "<svg xmlns='http://www.w3.org/2000/svg' onload='x'/>",
      "<svg xmlns='http://www.w3.org/2000/svg'><a href='javascript:x'/></svg>",
      "<svg xmlns='http://www.w3.org/2000/svg' "
      "xmlns:xlink='http://www.w3.org/1999/xlink'><use "
      "xlink:href='http://evil/x.svg#a'/></svg>",
      "<svg xmlns='http://www.w3.org/2000/svg'><set attributeName='href' "
      "to='javascript:x'/></svg>",
      "<svg xmlns='http://www.w3.org/2000/svg'><foreignObject/></svg>",
      "<!DOCTYPE svg [<!ENTITY e 'x'>]><svg>&e;</svg>",
      "<svg><text>&#x1;</text></svg>",
      "<svg><text>]]></text></svg>",
      "<html/>",
  };
  bs_error err;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_expect_eq(bs__svg_check_memory("t.svg", bad[i], strlen(bad[i]), &err),
                 BS_EPLOT, "accepted: %s", bad[i]);
  const char *good =
      "<?xml version='1.0'?><svg xmlns='http://www.w3.org/2000/svg' "
      "xmlns:xlink='http://www.w3.org/1999/xlink'><defs><path id='p'/></defs>"
      "<use xlink:href='#p'/><text>a &amp; b &#x41;</text></svg>";
  cr_expect_eq(bs__svg_check_memory("t.svg", good, strlen(good), &err), BS_OK,
               "%s", err.message);
}

/* Before: the check walked from the root element, so a processing
 * instruction before <svg> passed; <style>, style="...url(...)" and
 * presentation attributes with url() of another document passed too. */
Test(plot_hostile, svg_check_refuses_stylesheets_and_outside_urls) {
  static const char *const bad[] = {
      "<?xml-stylesheet href='https://evil/x.css'?><svg/>",
      "<?xml version='1.0'?><?xml-stylesheet type='text/css' "
      "href='https://evil/x.css'?>\n<svg/>",
      "<?other x?><svg/>",
      "<svg><?xml-stylesheet href='https://evil/x.css'?></svg>",
      "<svg/><?xml-stylesheet href='https://evil/x.css'?>",
      "<svg><style>@import url(https://evil/x.css);</style></svg>",
      "<svg><style>rect{fill:red}</style></svg>",
      "<svg><rect style='fill:url(https://evil/p.svg#g)'/></svg>",
      "<svg><rect style='background:URL( \"//evil/x\" )'/></svg>",
      "<svg><rect style='fill:\\75rl(https://evil/x)'/></svg>",
      "<svg><rect style='fill:image-set(\"https://evil/x\" 1x)'/></svg>",
      "<svg><rect fill='url(https://evil/p.svg#g)'/></svg>",
      "<svg><rect fill='&#x75;rl(https://evil/p.svg#g)'/></svg>",
      "<svg><g filter=\"url('http://evil/f.svg#f')\"/></svg>",
      "<svg><g clip-path='url(//evil/c.svg#c)'/></svg>",
      "<svg><g mask='url(data:image/svg+xml,x)'/></svg>",
      "<svg><path marker-end='url(evil.svg#m)'/></svg>",
  };
  bs_error err;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_expect_eq(bs__svg_check_memory("t.svg", bad[i], strlen(bad[i]), &err),
                 BS_EPLOT, "accepted: %s", bad[i]);
  const char *good =
      "<?xml version='1.0' encoding='utf-8' standalone='no'?><svg "
      "xmlns='http://www.w3.org/2000/svg'><defs><filter id='textbox'/>"
      "<clipPath id='c'/></defs><g filter='url(#textbox)' clip-path=\"url( "
      "'#c' )\" fill='rgb( 85,  85,  85)'><text>url(https://x) a(b)</text>"
      "</g><!-- a comment --></svg>";
  cr_expect_eq(bs__svg_check_memory("t.svg", good, strlen(good), &err), BS_OK,
               "%s", err.message);
}

/* Before: an SVG was read back whole (up to 1 GiB) and parsed: a gnuplot
 * writing 300 MB drove benchsite to 1.2 GB. Above 16 MiB it is refused
 * before it is read (a sparse file: nothing is written to disk). */
Test(plot_hostile, an_svg_over_16_mib_is_refused_unread) {
  char *dir = ts_own(ts_tmpdir("svg_big"));
  char *path = ts_pathf("%s/big.svg", dir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, "<svg>", 5), 5);
  cr_assert_eq(ftruncate(fd, (off_t)17 << 20), 0);
  cr_assert_eq(close(fd), 0);
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  bs_error err;
  cr_expect_eq(bs__svg_check(path, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "16 MiB"), "%s", err.message);
  /* What rendering runs: compaction, then the check. */
  cr_expect_eq(bs__svg_check_compact(path, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "16 MiB"), "%s", err.message);
  getrusage(RUSAGE_SELF, &after);
  cr_expect_lt(after.ru_maxrss - before.ru_maxrss, 32 * 1024,
               "reading it grew the process by %ld KiB",
               after.ru_maxrss - before.ru_maxrss);
}

/* ---- Values at the edge of double ---------------------------------------- */

/* Before: gnuplot refused charts whose values (any finite double is a
 * valid per-call time) made its ranges and box widths overflow, so
 * `report` exited 3 and every later `site` of an archive holding such a
 * run failed. */
Test(plot_hostile, charts_of_values_near_dbl_max_render, .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("dbl_max"));
  bs_plot *p = bs_plot_new();
  double x[3] = {1e-300, 1e300, 1.7976931348623157e308};
  double y[3] = {1, 1.7976931348623157e308, 2};
  double w[3] = {1e308, 1e308, 1e308};
  const double *cols[3] = {x, y, w};
  bs_plot_chart(p, "a.svg", 300, 200);
  bs_plot_series(p, BS_PLOT_BOXES, "boxes", NULL, cols, 3);
  bs_plot_hline(p, 1.7976931348623157e308, NULL, "max");
  bs_plot_yrange(p, 0, 1.7976931348623157e308 * 1.08);
  bs_plot_chart(p, "b.svg", 300, 200);
  double big[2] = {1.7976931348623157e308, 1.7e308};
  const double *cols2[2] = {big, big};
  bs_plot_series(p, BS_PLOT_LINES, "nothing to place", NULL, cols2, 2);
  bs_error err;
  cr_expect_eq(bs_plot_render(p, dir, NULL, &err), BS_OK, "%s", err.message);
  bs_plot_free(p);
  cr_expect(xml_well_formed(ts_pathf("%s/a.svg", dir)));
  cr_expect(xml_well_formed(ts_pathf("%s/b.svg", dir)));

  /* The same through `report`: deltas of up to 1.7e308. */
  char *log =
      edge_log(dir, "edge.csv", 1e300, 1e300, 1.7976931348623157e308, 1e304);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {
      "report", log,           "--manifest", env,     "--baseline",
      "base",   "--candidate", "head",       "--out", ts_pathf("%s/out", dir),
      NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "report: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

/* ---- A gnuplot that misbehaves ------------------------------------------- */

/* Before: nothing bounded gnuplot's time; a hung gnuplot hung report and
 * site for ever. */
Test(plot_hostile, a_hanging_gnuplot_is_killed, .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("gp_hang"));
  char *gp = fake_gnuplot(dir, "gp", "exec sleep 1000");
  bs_plot *p = bs_plot_new();
  size_t c = bs_plot_chart(p, "c.svg", 300, 200);
  (void)c;
  double x[2] = {1, 2}, y[2] = {1, 2};
  const double *cols[2] = {x, y};
  bs_plot_series(p, BS_PLOT_LINES, "a", NULL, cols, 2);
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  run.gnuplot = gp;
  run.idle_timeout_ms = 1500;
  bs_error err;
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "was killed"), "%s", err.message);
  bs_plot_free(p);
}

/* Before: `--gnuplot ./gp` was looked up after gnuplot's change into the
 * output directory, and `gnuplot --version` was read into a small buffer
 * and then waited for: one that printed more than a pipe holds blocked
 * `site` for ever. */
Test(plot_hostile, a_relative_and_verbose_gnuplot_works_for_site,
     .timeout = 180) {
  char *work, *id;
  char *archive = one_run_archive("gp_verbose", &work, &id);
  fake_gnuplot(work, "gp",
               "if [ \"$1\" = --version ]; then\n"
               "  head -c 1000000 /dev/zero | tr '\\000' x; echo; exit 0\n"
               "fi\nexec gnuplot \"$@\"");
  const char *site[] = {"site", "--archive", archive, "--out",
                        "web",  "--gnuplot", "./gp",  NULL};
  ts_run r = ts_cli(work, site);
  cr_expect_eq(r.status, 0, "site: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  const char *report[] = {
      "report",      ts_pathf("%s/3f9a2c1d0b7e.csv", work),
      "--manifest",  ts_pathf("%s/3f9a2c1d0b7e-env.csv", work),
      "--baseline",  "base",
      "--candidate", "head",
      "--gnuplot",   "./gp",
      "--out",       "rep",
      NULL};
  r = ts_cli(work, report);
  cr_expect_eq(r.status, 0, "report: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

/* A one-chart batch for a fake gnuplot `gp`, rendered with short limits
 * (idle 600 ms); returns the status and how long it took in *ms. */
static bs_status render_with(const char *dir, const char *gp, long long *ms,
                             int (*progress)(void *, size_t, size_t),
                             bs_error *err) {
  bs_plot *p = bs_plot_new();
  bs_plot_chart(p, "c.svg", 300, 200);
  double x[2] = {1, 2}, y[2] = {1, 2};
  const double *cols[2] = {x, y};
  bs_plot_series(p, BS_PLOT_LINES, "a", NULL, cols, 2);
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  run.gnuplot = gp;
  run.idle_timeout_ms = 600;
  run.progress = progress;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bs_status st = bs_plot_render(p, dir, &run, err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *ms = (t1.tv_sec - t0.tv_sec) * 1000LL + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  bs_plot_free(p);
  return st;
}

static void nap_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

/* 1 when the process whose id is in file `pidfile` is gone (or a zombie
 * nobody reaps), waiting up to 3 s for it. */
static int gone(const char *pidfile) {
  char *text = NULL;
  for (int i = 0; i < 300 && !(text && strchr(text, '\n')); i++) {
    free(text);
    text = ts_read(pidfile, NULL);
    if (!(text && strchr(text, '\n')))
      nap_ms(10);
  }
  cr_assert_not_null(text, "%s was not written", pidfile);
  long pid = strtol(text, NULL, 10);
  free(text);
  cr_assert_gt(pid, 1);
  for (int i = 0; i < 300; i++) {
    char *stat = ts_read(ts_pathf("/proc/%ld/stat", pid), NULL);
    const char *close_paren = stat ? strrchr(stat, ')') : NULL;
    int dead = !stat || (close_paren && close_paren[1] == ' ' &&
                         (close_paren[2] == 'Z' || close_paren[2] == 'X'));
    free(stat);
    if (dead)
      return 1;
    nap_ms(10);
  }
  kill((pid_t)pid, SIGKILL); /* do not leave it behind */
  return 0;
}

/* Before: once gnuplot had closed its output the wait for it to exit had
 * no limit: a gnuplot doing `exec >&- 2>&-; sleep 1000` hung report. Now it
 * gets a bounded time (the idle limit, at most 10 s) and then its whole
 * process group is killed, the sleep included. */
Test(plot_hostile, a_gnuplot_that_closes_its_output_and_stays_is_killed,
     .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("gp_linger"));
  char *gp = fake_gnuplot(
      dir, "gp",
      ts_pathf("exec >&- 2>&-; sleep 1000 & echo $! > %s/pid; wait", dir));
  long long ms;
  bs_error err;
  cr_expect_eq(render_with(dir, gp, &ms, NULL, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "did not exit"), "%s", err.message);
  cr_expect_lt(ms, 5000, "took %lld ms", ms);
  cr_expect(gone(ts_pathf("%s/pid", dir)), "its sleep is still running");
}

/* Before: every line gnuplot wrote on stderr restarted the idle timer, so
 * one that printed a warning every 5 s was never killed. Only a finished
 * chart counts as progress now. */
Test(plot_hostile, gnuplot_stderr_chatter_is_not_progress, .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("gp_chatter"));
  char *gp = fake_gnuplot(dir, "gp",
                          "while :; do echo 'warning: still here' >&2; "
                          "echo >&2; sleep 0.1; done");
  long long ms;
  bs_error err;
  cr_expect_eq(render_with(dir, gp, &ms, NULL, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "was killed"), "%s", err.message);
  cr_expect_lt(ms, 5000, "took %lld ms", ms);
  /* Blank lines on stdout beyond the charts asked for are no progress
   * either. */
  gp = fake_gnuplot(dir, "gp2", "while :; do echo; sleep 0.1; done");
  cr_expect_eq(render_with(dir, gp, &ms, NULL, &err), BS_EPLOT);
  cr_expect_lt(ms, 5000, "took %lld ms", ms);
}

static int cancel_now(void *ctx, size_t done, size_t total) {
  (void)ctx, (void)done, (void)total;
  return 1;
}

/* Before: a cancelled or failed batch sent SIGTERM and waited for ever: a
 * gnuplot ignoring SIGTERM hung it. */
Test(plot_hostile, a_gnuplot_ignoring_sigterm_is_killed_on_cancel,
     .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("gp_term"));
  char *gp =
      fake_gnuplot(dir, "gp",
                   ts_pathf("trap '' TERM; sleep 1000 & echo $! > %s/pid; "
                            "while :; do wait; done",
                            dir));
  long long ms;
  bs_error err;
  cr_expect_eq(render_with(dir, gp, &ms, cancel_now, &err), BS_EPLOT);
  cr_expect(strstr(err.message, "cancelled"), "%s", err.message);
  cr_expect_lt(ms, 5000, "took %lld ms", ms);
  cr_expect(gone(ts_pathf("%s/pid", dir)), "its sleep is still running");
}

/* Before: `gnuplot --version` killed at its limit left its children (a
 * stand-in's `sleep`) running, and one that closed its output and stayed
 * was waited for without a limit. */
Test(plot_hostile, the_version_probe_kills_its_whole_process_group,
     .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("gp_version"));
  char *gp = fake_gnuplot(dir, "gp",
                          ts_pathf("sleep 1000 & echo $! > %s/pid; wait", dir));
  char buf[64];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bs__gnuplot_version_within(gp, buf, sizeof buf, 500);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cr_expect_str_empty(buf);
  cr_expect_lt(t1.tv_sec - t0.tv_sec, 4);
  cr_expect(gone(ts_pathf("%s/pid", dir)), "its sleep is still running");
  gp = fake_gnuplot(dir, "gp2",
                    ts_pathf("echo gnuplot 9.9; exec >&-; sleep 1000 & echo "
                             "$! > %s/pid2; wait",
                             dir));
  clock_gettime(CLOCK_MONOTONIC, &t0);
  bs__gnuplot_version_within(gp, buf, sizeof buf, 500);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  cr_expect_lt(t1.tv_sec - t0.tv_sec, 4);
  cr_expect(gone(ts_pathf("%s/pid2", dir)), "its sleep is still running");
  gp = fake_gnuplot(dir, "gp3", "echo 'gnuplot 5.4 patchlevel 4'");
  bs__gnuplot_version_within(gp, buf, sizeof buf, 2000);
  cr_expect_str_eq(buf, "gnuplot 5.4 patchlevel 4");
}
