/* The archive against hostile content: files that are not regular files
 * or are links, acks.csv damaged or huge, runs dated in the future or
 * whose deltas overflow, names that would inject lines into findings,
 * `archive verify` and `archive list`. Each test failed before its fix
 * (the note above it says how). */
#include "benchsite/archive.h"

#include "hostile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

TestSuite(archive_hostile, .fini = ts_free_owned);

/* ---- Archive files that are not regular files ---------------------------- *
 * Before: every archive file was opened with a blocking open() and no type
 * check, so a FIFO hung `archive verify`, `site` and `archive add`. */

Test(archive_hostile, a_fifo_log_is_damage_not_a_hang, .timeout = 60) {
  char *work, *id;
  char *archive = one_run_archive("fifo_log", &work, &id);
  char *log = ts_pathf("%s/runs/%s/log-1.csv", archive, id);
  cr_assert_eq(unlink(log), 0);
  cr_assert_eq(mkfifo(log, 0644), 0);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 1, "verify: exit %d: %s%s", r.status, r.out, r.err);
  cr_expect(strstr(r.out, "log-1.csv: unreadable or not a regular file"), "%s",
            r.out);
  ts_run_free(&r);
  const char *site[] = {
      "site", "--archive", archive, "--out", ts_pathf("%s/web", work), NULL};
  r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "site: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "log-1.csv: unreadable or not a regular file"), "%s",
            r.err);
  ts_run_free(&r);
  /* A second add of the same run meets the FIFO too. */
  const char *add[] = {"archive",
                       "add",
                       "--archive",
                       archive,
                       ts_pathf("%s/3f9a2c1d0b7e.csv", work),
                       "--manifest",
                       ts_pathf("%s/3f9a2c1d0b7e-env.csv", work),
                       NULL};
  r = ts_cli(NULL, add);
  cr_expect_eq(r.status, 3, "add: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

Test(archive_hostile, fifos_for_format_manifest_and_acks_do_not_block,
     .timeout = 60) {
  char *work, *id;
  char *archive = one_run_archive("fifo_more", &work, &id);
  char *acks = ts_pathf("%s/acks.csv", archive);
  cr_assert_eq(mkfifo(acks, 0644), 0);
  bs_acks *a = NULL;
  bs_error err;
  cr_expect_eq(bs_acks_read(archive, &a, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "FIFO"), "%s", err.message);
  const char *site[] = {
      "site", "--archive", archive, "--out", ts_pathf("%s/web", work), NULL};
  ts_run r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "site: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  cr_assert_eq(unlink(acks), 0);

  char *mf = ts_pathf("%s/runs/%s/manifest.csv", archive, id);
  cr_assert_eq(unlink(mf), 0);
  cr_assert_eq(mkfifo(mf, 0644), 0);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 1, "verify: exit %d: %s%s", r.status, r.out, r.err);
  ts_run_free(&r);
  const char *list[] = {"archive", "list", "--archive", archive, NULL};
  r = ts_cli(NULL, list);
  cr_expect_eq(r.status, 2, "list: exit %d: %s", r.status, r.err);
  ts_run_free(&r);

  char *format = ts_pathf("%s/FORMAT", archive);
  cr_assert_eq(unlink(format), 0);
  cr_assert_eq(mkfifo(format, 0644), 0);
  r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 2, "verify: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "not a benchsite archive"), "%s", r.err);
  ts_run_free(&r);
}

/* Before: acks.csv was followed through a symbolic link and the error
 * quoted the target's first line (/etc/passwd's, in a CI log). */
Test(archive_hostile, acks_csv_is_never_followed_through_a_link) {
  char *work, *id;
  char *archive = one_run_archive("acks_link", &work, &id);
  char *secret = ts_pathf("%s/secret.txt", work);
  cr_assert_eq(ts_write(secret, "root:x:0:0:SECRET-LINE\n"), 0);
  cr_assert_eq(symlink(secret, ts_pathf("%s/acks.csv", archive)), 0);
  bs_acks *a = NULL;
  bs_error err;
  cr_assert_eq(bs_acks_read(archive, &a, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "symbolic link"), "%s", err.message);
  cr_expect(!strstr(err.message, "SECRET"), "%s", err.message);
  const char *site[] = {
      "site", "--archive", archive, "--out", ts_pathf("%s/web", work), NULL};
  ts_run r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "site: exit %d: %s", r.status, r.err);
  cr_expect(!strstr(r.err, "SECRET"), "%s", r.err);
  ts_run_free(&r);
}

/* ---- Quadratic work ------------------------------------------------------ *
 * Before: each acks row was compared with every earlier one (120 000 rows
 * ran for minutes). The timeout is far above the linear time (well under
 * a second) and far below the quadratic one. */

Test(archive_hostile, acks_of_120000_rows_read_in_linear_time, .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("acks_big"));
  FILE *f = fopen(ts_pathf("%s/acks.csv", dir), "w");
  cr_assert_not_null(f);
  fputs("commit,benchmark,dataset,reason\n", f);
  for (int i = 0; i < 120000; i++)
    fprintf(f, "c%07d,bench%d,n=%d,known\n", i, i % 1000, i);
  cr_assert_eq(fclose(f), 0);
  bs_acks *a = NULL;
  bs_error err;
  cr_assert_eq(bs_acks_read(dir, &a, &err), BS_OK, "%s", err.message);
  cr_expect_eq(bs_acks_count(a), 120000);
  for (int i = 0; i < 120000; i += 7) {
    char c[32], b[32], d[32];
    snprintf(c, sizeof c, "c%07dffff", i);
    snprintf(b, sizeof b, "bench%d", i % 1000);
    snprintf(d, sizeof d, "n=%d", i);
    const bs_ack *k = bs_acks_find(a, c, b, d);
    cr_assert_not_null(k, "row %d", i);
    cr_assert_eq(k->line, i + 2);
  }
  cr_expect_null(bs_acks_find(a, "c0000001", "bench2", "n=1"));
  bs_acks_free(a);
}

/* ---- Archive add refuses future dates ------------------------------------ */

Test(archive_hostile, archive_add_refuses_a_date_more_than_a_day_ahead) {
  char *dir = ts_own(ts_tmpdir("future"));
  char *archive = ts_pathf("%s/archive", dir);
  char *log = write_log(dir, "log.csv", "sort", 100, 100);
  char *env = write_env(dir, "env.csv", "abc1234", "2999-01-01T00:00:00Z");
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "more than a day in the future"), "%s", r.err);
  cr_expect(!ts_exists(ts_pathf("%s/runs", archive)) ||
                ts_count_entries(ts_pathf("%s/runs", archive)) == 0,
            "a run was stored");
  ts_run_free(&r);
  /* Twelve hours ahead (a clock set wrong by a time zone) is accepted. */
  time_t soon = time(NULL) + 12 * 3600;
  struct tm tm;
  gmtime_r(&soon, &tm);
  char date[32];
  strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  env = write_env(dir, "env2.csv", "abc1234", date);
  const char *args2[] = {"archive", "add",        "--archive", archive,
                         log,       "--manifest", env,         NULL};
  r = ts_cli(NULL, args2);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

/* ---- Findings and problems in the CI log --------------------------------- *
 * Before: names were printed raw in archive add's findings: "\n::error::"
 * or "::add-mask::" started workflow commands in a GitHub Actions log. */

Test(archive_hostile, archive_add_findings_and_verify_problems_are_escaped) {
  char *dir = ts_own(ts_tmpdir("ci_findings"));
  /* A block whose head row is missing: a `check` finding that quotes the
   * case. */
  char *log = ts_pathf("%s/log.csv", dir);
  FILE *f = fopen(log, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,impl,run,block,phase,iterations,per_call_us\n", f);
  for (int j = 0; j < 12; j++)
    for (int k = 0; k < 2; k++) {
      if (j == 1 && (j + k) % 2)
        continue;
      field(f, HOSTILE);
      fprintf(f, ",,%s,0,%d,confirm,100,%d\n", (j + k) % 2 ? "head" : "base", j,
              100 + j % 3);
    }
  cr_assert_eq(fclose(f), 0);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {
      "archive", "add",        "--archive", ts_pathf("%s/archive", dir),
      log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "add: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "\\x0a::error::pwned"), "%s", r.err);
  ci_safe("add findings", r.err);
  ts_run_free(&r);
  const char *check[] = {"check", log, "--manifest", env, NULL};
  r = ts_cli(NULL, check);
  ci_safe("check", r.out);
  ts_run_free(&r);

  /* A run directory named to inject lines into verify's report. */
  char *work, *id;
  char *archive = one_run_archive("ci_verify", &work, &id);
  cr_assert_eq(
      mkdir(ts_pathf("%s/runs/x\n::error::pwned\x1b[31m", archive), 0755), 0);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 1, "verify: %s%s", r.out, r.err);
  cr_expect(strstr(r.out, "not a well-formed run id"), "%s", r.out);
  ci_safe("verify", r.out);
  ts_run_free(&r);
  const char *site[] = {
      "site", "--archive", archive, "--out", ts_pathf("%s/web", work), NULL};
  r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "site: %s", r.err);
  ci_safe("site", r.err);
  ts_run_free(&r);
}

/* ---- Values at the edge of double ---------------------------------------- */

/* Before: a run whose delta overflows (medians 1e-300 apart from 1e308)
 * was archived, and every later site analysed it again. */
Test(archive_hostile, archive_add_refuses_a_run_whose_delta_overflows) {
  char *dir = ts_own(ts_tmpdir("delta_inf"));
  char *log =
      edge_log(dir, "edge.csv", 1e-300, 1e-300, 1.7976931348623157e308, 1e304);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {
      "archive", "add",        "--archive", ts_pathf("%s/archive", dir),
      log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "add: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "not a finite number") ||
                strstr(r.err, "not finite") || strstr(r.err, "finite"),
            "%s", r.err);
  ts_run_free(&r);
}

/* `archive add` pairs a run's cases to check its deltas and speedups
 * only when its per-call times are more than a factor 2^40 apart (closer
 * ones are always finite). Here they are 10^18 apart with finite medians:
 * 0.01 - 1e16 rounds to -1e16, so med(b) + med(d) is 0 and the speedup
 * infinite. A looser shortcut would archive the run. */
Test(archive_hostile, archive_add_refuses_a_run_whose_speedup_is_infinite) {
  char *dir = ts_own(ts_tmpdir("speedup_inf"));
  char *log = edge_log(dir, "edge.csv", 1e16, 0, 0.01, 0);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  const char *args[] = {
      "archive", "add",        "--archive", ts_pathf("%s/archive", dir),
      log,       "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "add: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "not a finite number"), "%s", r.err);
  ts_run_free(&r);
}

/* ---- Links into or out of the archive ------------------------------------ */

/* A run directory, or runs/ itself, that is a link to a tree elsewhere:
 * its files would be read from outside the archive. */
Test(archive_hostile, linked_run_directories_are_not_followed, .timeout = 60) {
  char *work, *id;
  char *archive = one_run_archive("linked_run", &work, &id);
  char *rd = ts_pathf("%s/runs/%s", archive, id);
  char *moved = ts_pathf("%s/elsewhere", work);
  cr_assert_eq(rename(rd, moved), 0);
  cr_assert_eq(symlink(moved, rd), 0);
  const char *list[] = {"archive", "list", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, list);
  cr_expect_eq(r.status, 2, "list: exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "not a run directory"), "%s", r.err);
  ts_run_free(&r);
  cr_assert_eq(unlink(rd), 0);
  cr_assert_eq(rename(moved, rd), 0);
  char *runs = ts_pathf("%s/runs", archive);
  char *runs2 = ts_pathf("%s/runs-elsewhere", work);
  cr_assert_eq(rename(runs, runs2), 0);
  cr_assert_eq(symlink(runs2, runs), 0);
  r = ts_cli(NULL, list);
  cr_expect_eq(r.status, 2, "list: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 2, "verify: exit %d: %s%s", r.status, r.out, r.err);
  ts_run_free(&r);
}

/* ---- archive verify reads acks.csv; list keeps its tabs ------------------ */

/* Before: an acks.csv that every later site refuses (a FIFO, a link to
 * /etc/passwd, a duplicate row) passed `archive verify` with "0 damaged",
 * exit 0. */
Test(archive_hostile, verify_reports_a_damaged_acks_csv, .timeout = 60) {
  char *work, *id;
  char *archive = one_run_archive("verify_acks", &work, &id);
  char *acks = ts_pathf("%s/acks.csv", archive);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  for (int k = 0; k < 4; k++) {
    unlink(acks);
    if (k == 0)
      cr_assert_eq(ts_write(acks, "benchmark,dataset,commit,reason\n"
                                  "sort,n=8,3f9a2c1d0b7e,known\n"
                                  "sort,n=8,3f9a2c1d0b7e,known\n"),
                   0);
    else if (k == 1)
      cr_assert_eq(symlink("/etc/passwd", acks), 0);
    else if (k == 2)
      cr_assert_eq(mkfifo(acks, 0644), 0);
    else
      cr_assert_eq(ts_write(acks, "not,a header\n"), 0);
    ts_run r = ts_cli(NULL, verify);
    cr_expect_eq(r.status, 1, "acks %d: exit %d: %s%s", k, r.status, r.out,
                 r.err);
    cr_expect(strstr(r.out, "acks.csv"), "acks %d: %s", k, r.out);
    cr_expect(!strstr(r.out, "root:"), "%s", r.out);
    ts_run_free(&r);
  }
  unlink(acks);
  ts_run r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 0, "no acks.csv: exit %d: %s", r.status, r.out);
  ts_run_free(&r);
}

/* Before: `archive list` escaped its own field separators (tabs) as \x09
 * along with the commit. */
Test(archive_hostile, archive_list_keeps_its_tabs_and_escapes_the_commit,
     .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("list_tabs"));
  char *archive = ts_pathf("%s/archive", dir);
  add_run(archive, dir, "a\tb", "2026-11-30T10:56:21Z");
  const char *list[] = {"archive", "list", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, list);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "\t2026-11-30T10:56:21Z\ta\\x09b\n"), "%s", r.out);
  ts_run_free(&r);
}
