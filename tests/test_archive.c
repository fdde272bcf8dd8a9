/* The run archive: storage, immutability, verification, ordering, and
 * atomicity under SIGKILL. */
#include "benchsite/archive.h"
#include "benchsite/date.h"

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

TestSuite(archive, .fini = ts_free_owned);

static char *fixture(const char *name) {
  char n[256];
  snprintf(n, sizeof n, "archive/%s", name);
  return ts_own(ts_data(n));
}

/* A manifest for the fixture log with this commit and date. */
static char *write_manifest(const char *dir, const char *name,
                            const char *commit, const char *date) {
  char text[1024];
  snprintf(text, sizeof text,
           "key,value\ntarget,native\nprofile,release\ndtype,f64\n"
           "machine,test-box\nfrequency_policy,performance\n"
           "commit,\"%s\"\ndate,%s\nprotocol,Development\n"
           "baseline,base\ncandidate,head\n",
           commit, date);
  char *p = ts_own(ts_path(dir, name));
  cr_assert_eq(ts_write(p, text), 0);
  return p;
}

static ts_run add(const char *archive, const char *log, const char *manifest) {
  const char *args[] = {"archive", "add",        "--archive", archive,
                        log,       "--manifest", manifest,    NULL};
  return ts_cli(NULL, args);
}

static ts_run verify(const char *archive) {
  const char *args[] = {"archive", "verify", "--archive", archive, NULL};
  return ts_cli(NULL, args);
}

/* The id printed by "added run ID" or "run ID is already archived". */
static void id_of(const ts_run *r, char *id, size_t n) {
  const char *p = strstr(r->out, "run ");
  cr_assert_not_null(p, "no id in: %s", r->out);
  p += 4;
  size_t k = strcspn(p, " \n");
  cr_assert_lt(k, n);
  memcpy(id, p, k);
  id[k] = '\0';
}

static char *run_file(const char *archive, const char *id, const char *name) {
  char rel[512];
  snprintf(rel, sizeof rel, "runs/%s/%s", id, name);
  return ts_own(ts_path(archive, rel));
}

static int file_equals(const char *a, const char *b) {
  size_t la, lb;
  char *x = ts_own(ts_read(a, &la)), *y = ts_own(ts_read(b, &lb));
  int eq = x && y && la == lb && memcmp(x, y, la) == 0;
  return eq;
}

static void flip_byte(const char *path, long offset) {
  int fd = open(path, O_RDWR);
  cr_assert_geq(fd, 0, "cannot open %s", path);
  unsigned char c;
  cr_assert_eq(pread(fd, &c, 1, offset), 1);
  c ^= 0x01;
  cr_assert_eq(pwrite(fd, &c, 1, offset), 1);
  close(fd);
}

static void verify_clean(const char *archive, size_t runs) {
  bs_archive_verify_result res;
  bs_error err;
  bs_archive_verify_result_init(&res);
  cr_assert_eq(bs_archive_verify(archive, &res, &err), BS_OK, "%s",
               err.message);
  for (size_t i = 0; i < res.nproblems; i++)
    cr_log_error("%s", res.problems[i]);
  cr_assert_eq(res.damaged, 0);
  cr_assert_eq(res.nproblems, 0);
  if (runs != (size_t)-1)
    cr_assert_eq(res.runs, runs);
  bs_archive_verify_result_release(&res);
}

/* ---- Storing ------------------------------------------------------------- */

/* Durations as progress lines and bisect's outputs print them, by hand:
 * rounded to whole seconds, minutes and hours with two-digit fields, and
 * anything not a positive finite number as "0 s". */
Test(archive, durations_read_as_seconds_minutes_and_hours) {
  static const struct {
    double s;
    const char *want;
  } t[] = {{0, "0 s"},
           {0.49, "0 s"},
           {41.5, "42 s"},
           {59.4, "59 s"},
           {59.5, "1:00"},
           {185, "3:05"},
           {3599.4, "59:59"},
           {3600, "1:00:00"},
           {3723, "1:02:03"},
           {-3, "0 s"},
           {1.0 / 0.0, "0 s"},
           {0.0 / 0.0, "0 s"},
           {1e13, "277777777:46:39"}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char buf[32];
    cr_expect_str_eq(bs_date_duration(buf, sizeof buf, t[i].s), t[i].want,
                     "%g s", t[i].s);
  }
}

Test(archive, add_stores_logs_manifest_and_checksums) {
  char *dir = ts_own(ts_tmpdir("archive_store"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv"), *env = fixture("env.csv");
  ts_run r = add(archive, log, env);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  char id[BS_ARCHIVE_ID_MAX];
  id_of(&r, id, sizeof id);
  cr_assert(strncmp(r.out, "added run ", 10) == 0, "%s", r.out);
  /* DATE-COMMIT-HASH from date 2026-03-01T12:00:00Z, commit 0123456789ab.. */
  cr_assert_eq(strlen(id), 16 + 1 + 12 + 1 + 12, "%s", id);
  cr_assert(strncmp(id, "20260301T120000Z-0123456789ab-", 30) == 0, "%s", id);

  char *m = run_file(archive, id, "manifest.csv");
  char *l = run_file(archive, id, "log-1.csv");
  char *s = run_file(archive, id, "SHA256SUMS");
  cr_assert(file_equals(m, env));
  cr_assert(file_equals(l, log));
  char *sums = ts_own(ts_read(s, NULL));
  cr_assert_not_null(sums);
  cr_assert(strstr(sums, "  manifest.csv\n") == sums + 64, "%s", sums);
  cr_assert_not_null(strstr(sums, "  log-1.csv\n"));
  char rundir[600];
  snprintf(rundir, sizeof rundir, "%s/runs/%s", archive, id);
  cr_assert_eq(ts_count_entries(rundir), 3);
  cr_assert(ts_exists(ts_own(ts_path(archive, "FORMAT"))));
  /* The archive holds what it stores and nothing else: FORMAT, its
   * identity (ID: its first run) and runs/ (the write lock is on the
   * directory, no lock file is left behind for a git-kept archive to
   * commit). */
  cr_assert_eq(ts_count_entries(archive), 3);
  cr_assert_str_eq(ts_own(ts_read(ts_own(ts_path(archive, "ID")), NULL)),
                   ts_pathf("%s\n", id));

  /* The checksum file is the one coreutils reads: sha256sum -c agrees. */
  pid_t pid = fork();
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    if (chdir(rundir) != 0)
      _exit(126);
    execlp("sha256sum", "sha256sum", "--check", "--strict", "SHA256SUMS",
           (char *)NULL);
    _exit(127);
  }
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
  if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
    cr_log_warn("sha256sum not found; skipped the coreutils cross-check");
  else
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "sha256sum -c failed");

  ts_run v = verify(archive);
  cr_assert_eq(v.status, 0, "%s%s", v.out, v.err);
  cr_assert_not_null(strstr(v.out, "1 run checked, 0 damaged"), "%s", v.out);
  ts_run_free(&v);
  ts_run_free(&r);
}

Test(archive, several_logs_keep_their_order) {
  char *dir = ts_own(ts_tmpdir("archive_order_logs"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *a = ts_own(ts_path(dir, "a.csv")), *b = ts_own(ts_path(dir, "b.csv"));
  char *log = fixture("run.csv");
  char *text = ts_own(ts_read(log, NULL));
  /* Split the fixture: the sort rows and the sum rows. */
  char *cut = strstr(text, "sum,");
  cr_assert_not_null(cut);
  char header[] =
      "benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n";
  char *second = ts_own(malloc(strlen(header) + strlen(cut) + 1));
  strcpy(second, header);
  strcat(second, cut);
  *cut = '\0';
  cr_assert_eq(ts_write(a, second), 0);
  cr_assert_eq(ts_write(b, text), 0);
  char *env = write_manifest(dir, "env.csv", "c1", "2026-03-01T00:00:00Z");
  const char *args[] = {"archive", "add",        "--archive", archive, a,
                        b,         "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  char id[BS_ARCHIVE_ID_MAX];
  id_of(&r, id, sizeof id);
  char *l1 = run_file(archive, id, "log-1.csv");
  char *l2 = run_file(archive, id, "log-2.csv");
  cr_assert(file_equals(l1, a));
  cr_assert(file_equals(l2, b));

  bs_archive *ar;
  bs_error err;
  cr_assert_eq(bs_archive_open(archive, &ar, &err), BS_OK, "%s", err.message);
  cr_assert_eq(bs_archive_count(ar), 1);
  const bs_archive_run *run = bs_archive_run_at(ar, 0);
  cr_assert_str_eq(run->id, id);
  cr_assert_eq(run->nlogs, 2);
  cr_assert_str_eq(run->logs[0], l1);
  cr_assert_str_eq(run->logs[1], l2);
  cr_assert_str_eq(run->commit, "c1");
  cr_assert_str_eq(run->date, "2026-03-01T00:00:00Z");
  cr_assert_eq(bs_archive_find(ar, id), run);
  cr_assert_null(bs_archive_find(ar, "nope"));
  bs_archive_free(ar);
  ts_run_free(&r);
}

/* ---- Immutability -------------------------------------------------------- */

Test(archive, same_content_again_is_a_no_op) {
  char *dir = ts_own(ts_tmpdir("archive_noop"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv"), *env = fixture("env.csv");
  ts_run r1 = add(archive, log, env);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  char id[BS_ARCHIVE_ID_MAX];
  id_of(&r1, id, sizeof id);
  char *m = run_file(archive, id, "manifest.csv");
  struct stat before, after;
  cr_assert_eq(stat(m, &before), 0);

  ts_run r2 = add(archive, log, env);
  cr_assert_eq(r2.status, 0, "%s", r2.err);
  cr_assert_not_null(strstr(r2.out, "already archived"), "%s", r2.out);
  char id2[BS_ARCHIVE_ID_MAX];
  id_of(&r2, id2, sizeof id2);
  cr_assert_str_eq(id, id2);
  cr_assert_eq(stat(m, &after), 0);
  cr_assert_eq(before.st_ino, after.st_ino, "the run was rewritten");
  char *runs = ts_own(ts_path(archive, "runs"));
  cr_assert_eq(ts_count_entries(runs), 1);

  /* The library says the same. */
  bs_archive_add_result res;
  bs_error err;
  const char *logs[] = {log};
  bs_archive_add_result_init(&res);
  cr_assert_eq(bs_archive_add(archive, env, logs, 1, &res, &err), BS_OK);
  cr_assert_eq(res.added, 0);
  cr_assert_str_eq(res.id, id);
  bs_archive_add_result_release(&res);
  ts_run_free(&r1);
  ts_run_free(&r2);
}

/* Ids of different content differ, so a conflict needs a run planted
 * under the id of other content (what a 48-bit hash collision, or a
 * hand-edited archive, would give). */
Test(archive, different_content_under_an_existing_id_is_refused) {
  char *dir = ts_own(ts_tmpdir("archive_refuse"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv");
  char *env1 = write_manifest(dir, "m1.csv", "abc", "2026-03-01T00:00:00Z");
  char *env2 = write_manifest(dir, "m2.csv", "abc", "2026-03-01T00:00:00Z");
  /* m2 differs from m1 by one manifest value the id does not show. */
  char *t = ts_own(ts_read(env2, NULL));
  char *machine = strstr(t, "test-box");
  machine[0] = 'T';
  cr_assert_eq(ts_write(env2, t), 0);

  ts_run r1 = add(archive, log, env1);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  char id1[BS_ARCHIVE_ID_MAX], id2[BS_ARCHIVE_ID_MAX];
  id_of(&r1, id1, sizeof id1);

  bs_archive_add_result res;
  bs_error err;
  const char *logs[] = {log};
  bs_archive_add_result_init(&res);
  cr_assert_eq(bs_archive_identify(env2, logs, 1, &res, &err), BS_OK, "%s",
               err.message);
  snprintf(id2, sizeof id2, "%s", res.id);
  bs_archive_add_result_release(&res);
  cr_assert_str_neq(id1, id2);

  char from[600], to[600];
  snprintf(from, sizeof from, "%s/runs/%s", archive, id1);
  snprintf(to, sizeof to, "%s/runs/%s", archive, id2);
  cr_assert_eq(rename(from, to), 0);
  char *planted = ts_own(ts_read(ts_own(ts_path(to, "manifest.csv")), NULL));

  ts_run r2 = add(archive, log, env2);
  cr_assert_eq(r2.status, 2, "%s%s", r2.out, r2.err);
  cr_assert_not_null(strstr(r2.err, "different run"), "%s", r2.err);
  cr_assert_not_null(strstr(r2.err, "never change"), "%s", r2.err);
  char *still = ts_own(ts_read(ts_own(ts_path(to, "manifest.csv")), NULL));
  cr_assert_str_eq(still, planted, "the refused add changed the run");
  ts_run_free(&r1);
  ts_run_free(&r2);
}

/* A log is read, hashed and copied in one pass (staged unnamed in the
 * archive's file system): a log named through a symbolic link is read
 * through it, as a user names it, and two runs of the same log in two new
 * archives hold its exact bytes; the second add of it is a no-op. */
Test(archive, logs_named_through_links_are_stored_byte_for_byte) {
  char *dir = ts_own(ts_tmpdir("archive_link_log"));
  char *log = fixture("run.csv"), *env = fixture("env.csv");
  char *link = ts_own(ts_path(dir, "via-link.csv"));
  cr_assert_eq(symlink(log, link), 0);
  const char *names[] = {"a", "nested/b"};
  char *nested = ts_own(ts_path(dir, "nested"));
  cr_assert_eq(mkdir(nested, 0755), 0);
  for (int i = 0; i < 2; i++) {
    char *archive = ts_own(ts_path(dir, names[i]));
    ts_run r = add(archive, link, env);
    cr_assert_eq(r.status, 0, "%s", r.err);
    char id[BS_ARCHIVE_ID_MAX];
    id_of(&r, id, sizeof id);
    char *l = run_file(archive, id, "log-1.csv");
    cr_assert(file_equals(l, log));
    struct stat sb;
    mode_t mask = umask(022);
    umask(mask);
    cr_assert_eq(lstat(l, &sb), 0);
    cr_assert(S_ISREG(sb.st_mode) &&
                  (sb.st_mode & 0777) == (0644 & ~(unsigned)mask),
              "mode %o", (unsigned)sb.st_mode);
    ts_run again = add(archive, log, env);
    cr_assert_eq(again.status, 0, "%s", again.err);
    cr_assert_not_null(strstr(again.out, "same content"), "%s", again.out);
    verify_clean(archive, 1);
    ts_run_free(&again);
    ts_run_free(&r);
  }
}

Test(archive, a_damaged_run_is_not_taken_for_the_same_content) {
  char *dir = ts_own(ts_tmpdir("archive_damaged_readd"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv"), *env = fixture("env.csv");
  ts_run r1 = add(archive, log, env);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  char id[BS_ARCHIVE_ID_MAX];
  id_of(&r1, id, sizeof id);
  flip_byte(run_file(archive, id, "log-1.csv"), 100);
  ts_run r2 = add(archive, log, env);
  cr_assert_eq(r2.status, 3, "%s%s", r2.out, r2.err);
  cr_assert_not_null(strstr(r2.err, "damaged"), "%s", r2.err);
  cr_assert_not_null(strstr(r2.err, "archive verify"), "%s", r2.err);
  ts_run_free(&r1);
  ts_run_free(&r2);
}

/* ---- Validation ---------------------------------------------------------- */

static void expect_refused(const char *log, const char *manifest,
                           const char *needle) {
  char *dir = ts_own(ts_tmpdir("archive_invalid"));
  char *archive = ts_own(ts_path(dir, "a"));
  ts_run r = add(archive, log, manifest);
  cr_assert_eq(r.status, 2, "%s: %s%s", needle, r.out, r.err);
  cr_assert_not_null(strstr(r.err, needle), "want \"%s\" in: %s", needle,
                     r.err);
  cr_assert(!ts_exists(archive), "a refused run created the archive");
  ts_run_free(&r);
}

Test(archive, invalid_runs_are_refused_with_the_reason) {
  char *log = fixture("run.csv"), *env = fixture("env.csv");
  char *bad_log = ts_own(ts_data("log/bad_value.csv"));
  expect_refused(bad_log, env, "bad_value.csv:");
  expect_refused(log, fixture("bad_date.csv"),
                 "key date: \"2026-03-01 12:00\" is not an ISO 8601 UTC time");
  /* A date alone is not the time of a run: refused, not stored as it is
   * (the feed's <updated> copied it), nor given a time of day. */
  char *dd = ts_own(ts_tmpdir("archive_dateonly"));
  expect_refused(log, write_manifest(dd, "m.csv", "abc", "2026-11-30"),
                 "key date: \"2026-11-30\" has no time of day");
  expect_refused(log, fixture("no_commit.csv"), "key commit: missing");
  expect_refused(log, ts_own(ts_data("manifest/dup_key.csv")), "dup_key.csv:");
  expect_refused("/nonexistent/x.csv", env, "/nonexistent/x.csv");

  /* `benchsite check` findings refuse the run and are listed. */
  char *findings = fixture("findings.csv");
  expect_refused(findings, env, "2 check findings");
  expect_refused(findings, env, "findings.csv:4: missing-impl:");
  expect_refused(findings, env, "findings.csv:2: rotation:");

  /* An unknown protocol cannot be checked. */
  char *dir = ts_own(ts_tmpdir("archive_protocol"));
  char *m = ts_own(ts_path(dir, "m.csv"));
  cr_assert_eq(ts_write(m, "key,value\ncommit,a\ndate,2026-03-01T00:00:00Z\n"
                           "protocol,Fast\n"),
               0);
  expect_refused(log, m, "m.csv: protocol \"Fast\"");
}

/* A copy of run.csv with a column cpu_per_call_us: cpu(line, impl, wall)
 * gives each confirm row's cell ("" leaves it empty). */
static char *with_cpu(const char *dir, const char *name,
                      const char *(*cpu)(int line, const char *impl,
                                         const char *wall)) {
  char *in = ts_own(ts_read(fixture("run.csv"), NULL));
  cr_assert_not_null(in);
  char *path = ts_own(ts_path(dir, name));
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  int line = 1;
  for (char *l = in; *l; line++) {
    size_t n = strcspn(l, "\n");
    char *row = ts_own(strndup(l, n));
    if (line == 1) {
      fprintf(f, "%s,cpu_per_call_us\n", row);
    } else {
      const char *wall = strrchr(row, ',') + 1;
      const char *impl = strstr(row, ",head,") ? "head" : "base";
      fprintf(f, "%s,%s\n", row, cpu(line, impl, wall));
    }
    l += n + (l[n] == '\n');
  }
  cr_assert_eq(fclose(f), 0);
  return path;
}

static const char *cpu_half(int line, const char *impl, const char *wall) {
  (void)line;
  (void)impl;
  return ts_pathf("%.17g", strtod(wall, NULL) / 2);
}

static const char *cpu_gap(int line, const char *impl, const char *wall) {
  return line == 5 ? "" : cpu_half(line, impl, wall);
}

static const char *cpu_zero_base(int line, const char *impl, const char *wall) {
  return !strcmp(impl, "base") ? "0" : cpu_half(line, impl, wall);
}

/* archive add checks every metric the run records, not only wall time:
 * a run the site could not analyse with --metric cpu is refused when it
 * is added, not met by every later site build. */
Test(archive, every_metric_the_run_records_is_checked) {
  char *dir = ts_own(ts_tmpdir("archive_metrics"));
  char *env = fixture("env.csv");
  /* A cell left empty. */
  expect_refused(with_cpu(dir, "gap.csv", cpu_gap), env,
                 "gap.csv:5: column cpu_per_call_us: empty, and metric cpu");
  /* Two logs, one with the column and one (run 1) without. */
  char *half = with_cpu(dir, "half.csv", cpu_half);
  char *archive = ts_own(ts_path(dir, "a"));
  char *run1 = ts_own(ts_path(dir, "run1.csv"));
  char *text = ts_own(ts_read(fixture("run.csv"), NULL));
  for (int k = 0; k < 2; k++) /* base,0, and head,0, -> run 1 */
    for (char *p = strstr(text, k ? "head,0," : "base,0,"); p;
         p = strstr(p + 1, k ? "head,0," : "base,0,"))
      p[5] = '1';
  cr_assert_eq(ts_write(run1, text), 0);
  const char *two[] = {"archive", "add",        "--archive", archive, half,
                       run1,      "--manifest", env,         NULL};
  ts_run r = ts_cli(NULL, two);
  cr_expect_eq(r.status, 2, "%s%s", r.out, r.err);
  cr_expect_not_null(strstr(r.err, "the file has no column cpu_per_call_us"),
                     "%s", r.err);
  ts_run_free(&r);
  /* A comparison in CPU time that has no finite delta (the baseline's
   * CPU time is 0). */
  expect_refused(with_cpu(dir, "zero.csv", cpu_zero_base), env,
                 "metric cpu: case sort [n=1024]: the change is not a "
                 "finite number");
  /* The same run with a CPU time on every row, and one without the
   * column at all, are archived. */
  r = add(archive, half, env);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  r = add(archive, fixture("run.csv"), env);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
}

Test(archive, refuses_a_directory_that_is_not_an_archive) {
  char *dir = ts_own(ts_tmpdir("archive_notarchive"));
  char *other = ts_own(ts_path(dir, "notes.txt"));
  cr_assert_eq(ts_write(other, "hello\n"), 0);
  ts_run r = add(dir, fixture("run.csv"), fixture("env.csv"));
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert_not_null(strstr(r.err, "not a benchsite archive"), "%s", r.err);
  cr_assert_eq(ts_count_entries(dir), 1);
  ts_run v = verify(dir);
  cr_assert_eq(v.status, 2, "%s", v.err);
  char *missing = ts_own(ts_path(dir, "missing"));
  ts_run v2 = verify(missing);
  cr_assert_eq(v2.status, 2, "%s", v2.err);
  cr_assert_not_null(strstr(v2.err, "no such archive"), "%s", v2.err);

  /* An existing empty directory becomes an archive. */
  char *empty = ts_own(ts_path(dir, "empty"));
  cr_assert_eq(mkdir(empty, 0755), 0);
  ts_run r2 = add(empty, fixture("run.csv"), fixture("env.csv"));
  cr_assert_eq(r2.status, 0, "%s", r2.err);
  ts_run_free(&r);
  ts_run_free(&r2);
  ts_run_free(&v);
  ts_run_free(&v2);
}

Test(archive, ids_are_safe_file_names_for_hostile_commits) {
  char *dir = ts_own(ts_tmpdir("archive_hostile"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv");
  char *m1 = write_manifest(dir, "m1.csv", "../../x/..; rm -rf / #",
                            "2026-03-01T00:00:00Z");
  char *m2 = write_manifest(dir, "m2.csv", "./../", "2026-03-01T00:00:01Z");
  ts_run r1 = add(archive, log, m1);
  ts_run r2 = add(archive, log, m2);
  cr_assert_eq(r1.status, 0, "%s", r1.err);
  cr_assert_eq(r2.status, 0, "%s", r2.err);
  char id1[BS_ARCHIVE_ID_MAX], id2[BS_ARCHIVE_ID_MAX];
  id_of(&r1, id1, sizeof id1);
  id_of(&r2, id2, sizeof id2);
  cr_assert(strncmp(id1, "20260301T000000Z-xrmrf-", 23) == 0, "%s", id1);
  cr_assert(strncmp(id2, "20260301T000001Z-none-", 22) == 0, "%s", id2);
  for (const char *p = id1; *p; p++)
    cr_assert(strchr("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRS"
                     "TUVWXYZ-",
                     *p),
              "%s", id1);
  cr_assert_eq(ts_count_entries(dir), 3); /* a, m1.csv, m2.csv */
  verify_clean(archive, 2);
  ts_run_free(&r1);
  ts_run_free(&r2);
}

/* ---- Verification -------------------------------------------------------- */

static char *one_run_archive(const char *tag, char *id, size_t n) {
  char *dir = ts_own(ts_tmpdir(tag));
  char *archive = ts_own(ts_path(dir, "a"));
  ts_run r = add(archive, fixture("run.csv"), fixture("env.csv"));
  cr_assert_eq(r.status, 0, "%s", r.err);
  id_of(&r, id, n);
  ts_run_free(&r);
  return archive;
}

static void expect_damage(const char *archive, const char *needle) {
  ts_run v = verify(archive);
  cr_assert_eq(v.status, 1, "want damage \"%s\": %s%s", needle, v.out, v.err);
  cr_assert_not_null(strstr(v.out, needle), "want \"%s\" in: %s", needle,
                     v.out);
  cr_assert_not_null(strstr(v.out, "1 damaged"), "%s", v.out);
  ts_run_free(&v);
}

Test(archive, verify_detects_checksum_damage) {
  char id[BS_ARCHIVE_ID_MAX];
  char *archive = one_run_archive("archive_verify_flip", id, sizeof id);
  verify_clean(archive, 1);
  flip_byte(run_file(archive, id, "log-1.csv"), 200);
  char want[256];
  snprintf(want, sizeof want, "runs/%s/log-1.csv: checksum mismatch", id);
  expect_damage(archive, want);

  archive = one_run_archive("archive_verify_manifest", id, sizeof id);
  flip_byte(run_file(archive, id, "manifest.csv"), 20);
  snprintf(want, sizeof want, "runs/%s/manifest.csv: checksum mismatch", id);
  expect_damage(archive, want);
}

Test(archive, verify_detects_missing_extra_and_rewritten_files) {
  char id[BS_ARCHIVE_ID_MAX], want[256];
  char *archive = one_run_archive("archive_verify_missing", id, sizeof id);
  cr_assert_eq(unlink(run_file(archive, id, "log-1.csv")), 0);
  snprintf(want, sizeof want, "runs/%s/log-1.csv: missing", id);
  expect_damage(archive, want);

  archive = one_run_archive("archive_verify_extra", id, sizeof id);
  cr_assert_eq(ts_write(run_file(archive, id, "notes.txt"), "x"), 0);
  snprintf(want, sizeof want, "runs/%s/notes.txt: not listed in SHA256SUMS",
           id);
  expect_damage(archive, want);

  /* Rewriting a file together with its checksum line still breaks the
   * id's hash, which covers SHA256SUMS. */
  archive = one_run_archive("archive_verify_rewrite", id, sizeof id);
  char *l = run_file(archive, id, "log-1.csv");
  char *s = run_file(archive, id, "SHA256SUMS");
  flip_byte(l, 200);
  size_t len;
  char *text = ts_own(ts_read(l, &len));
  char hex[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(text, len, hex);
  char *sums = ts_own(ts_read(s, NULL));
  char *line = strstr(sums, "  log-1.csv");
  cr_assert_not_null(line);
  memcpy(line - 64, hex, 64);
  cr_assert_eq(ts_write(s, sums), 0);
  snprintf(want, sizeof want, "runs/%s: the id's hash", id);
  expect_damage(archive, want);
  ts_run v = verify(archive);
  cr_assert_null(strstr(v.out, "checksum mismatch"), "%s", v.out);
  ts_run_free(&v);

  /* Malformed SHA256SUMS. */
  archive = one_run_archive("archive_verify_malformed", id, sizeof id);
  cr_assert_eq(ts_write(run_file(archive, id, "SHA256SUMS"), "nonsense\n"), 0);
  snprintf(want, sizeof want, "runs/%s/SHA256SUMS:1: malformed line", id);
  expect_damage(archive, want);

  /* A directory under runs/ that is not a run id. */
  archive = one_run_archive("archive_verify_badname", id, sizeof id);
  char from[600], to[600];
  snprintf(from, sizeof from, "%s/runs/%s", archive, id);
  snprintf(to, sizeof to, "%s/runs/my-run", archive);
  cr_assert_eq(rename(from, to), 0);
  expect_damage(archive, "runs/my-run: not a well-formed run id");
}

/* calibrations/: each *.json must read as a calibration, and one named as
 * the action stores them (DATE-HASH.json) must keep that date and hash.
 * The fixture's name was worked out by hand: its "date" is
 * 2026-12-01T08:00:00Z and `sha256sum tests/data/calibrate/runner.json`
 * begins d7fbd2f73306. */
#define STORED_CAL "20261201T080000Z-d7fbd2f73306.json"

static char *calibration_archive(const char *tag, char *id, size_t n) {
  char *archive = one_run_archive(tag, id, n);
  char *dir = ts_own(ts_path(archive, "calibrations"));
  cr_assert_eq(mkdir(dir, 0755), 0);
  char *text = ts_own(ts_read(ts_own(ts_data("calibrate/runner.json")), NULL));
  cr_assert_not_null(text);
  cr_assert_eq(ts_write(ts_own(ts_path(dir, STORED_CAL)), text), 0);
  /* A file named by hand is read, not held to a name. */
  cr_assert_eq(ts_write(ts_own(ts_path(dir, "weekly.json")), text), 0);
  /* Neither are other files nor hidden ones. */
  cr_assert_eq(ts_write(ts_own(ts_path(dir, "notes.txt")), "x"), 0);
  cr_assert_eq(ts_write(ts_own(ts_path(dir, ".tmp.json")), "{"), 0);
  return dir;
}

static void expect_calibration_damage(const char *archive, const char *needle,
                                      const char *count) {
  ts_run v = verify(archive);
  cr_assert_eq(v.status, 1, "want damage \"%s\": %s%s", needle, v.out, v.err);
  cr_assert_not_null(strstr(v.out, needle), "want \"%s\" in: %s", needle,
                     v.out);
  cr_assert_not_null(strstr(v.out, count), "want \"%s\" in: %s", count, v.out);
  cr_assert_not_null(strstr(v.out, "1 run checked, 0 damaged"), "%s", v.out);
  ts_run_free(&v);
}

Test(archive, verify_checks_the_calibrations) {
  char id[BS_ARCHIVE_ID_MAX];
  char *archive = one_run_archive("archive_cal_none", id, sizeof id);
  ts_run v = verify(archive);
  cr_assert_eq(v.status, 0, "%s%s", v.out, v.err);
  cr_assert_null(strstr(v.out, "calibration"), "none stored: %s", v.out);
  ts_run_free(&v);

  char *dir = calibration_archive("archive_cal_ok", id, sizeof id);
  archive = ts_own(strndup(dir, strlen(dir) - strlen("/calibrations")));
  v = verify(archive);
  cr_assert_eq(v.status, 0, "%s%s", v.out, v.err);
  cr_assert_not_null(
      strstr(v.out, "1 run checked, 0 damaged; 2 calibrations checked, 0 "
                    "damaged\n"),
      "%s", v.out);
  ts_run_free(&v);

  /* Damaged bytes. */
  flip_byte(ts_own(ts_path(dir, STORED_CAL)), 0);
  expect_calibration_damage(archive, "calibrations/" STORED_CAL ": ",
                            "2 calibrations checked, 1 damaged");

  /* Changed after it was stored: its name's hash no longer matches. */
  dir = calibration_archive("archive_cal_edit", id, sizeof id);
  archive = ts_own(strndup(dir, strlen(dir) - strlen("/calibrations")));
  char *path = ts_own(ts_path(dir, STORED_CAL));
  /* Still a calibration (JSON may end in white space), another content. */
  FILE *f = fopen(path, "a");
  cr_assert_not_null(f);
  cr_assert_eq(fputc('\n', f), '\n');
  cr_assert_eq(fclose(f), 0);
  expect_calibration_damage(archive,
                            "calibrations/" STORED_CAL
                            ": checksum mismatch (the name has d7fbd2f73306",
                            "2 calibrations checked, 1 damaged");

  /* The right hash under another date. */
  dir = calibration_archive("archive_cal_date", id, sizeof id);
  archive = ts_own(strndup(dir, strlen(dir) - strlen("/calibrations")));
  char *moved = ts_own(ts_path(dir, "20261202T080000Z-d7fbd2f73306.json"));
  cr_assert_eq(rename(ts_own(ts_path(dir, STORED_CAL)), moved), 0);
  expect_calibration_damage(archive,
                            "calibrations/20261202T080000Z-d7fbd2f73306.json: "
                            "the name's date 20261202T080000Z is not the "
                            "file's 2026-12-01T08:00:00Z",
                            "2 calibrations checked, 1 damaged");

  /* Not a calibration; a link; a directory. */
  dir = calibration_archive("archive_cal_bad", id, sizeof id);
  archive = ts_own(strndup(dir, strlen(dir) - strlen("/calibrations")));
  cr_assert_eq(ts_write(ts_own(ts_path(dir, "weekly.json")),
                        "{\"schema\": \"benchsite.compare/1\"}"),
               0);
  expect_calibration_damage(archive,
                            "calibrations/weekly.json: line 1: not a "
                            "benchsite calibration",
                            "2 calibrations checked, 1 damaged");
  cr_assert_eq(symlink("/etc/hostname", ts_own(ts_path(dir, "link.json"))), 0);
  cr_assert_eq(mkdir(ts_own(ts_path(dir, "d.json")), 0755), 0);
  expect_calibration_damage(archive,
                            "calibrations/link.json: unreadable, too large, "
                            "or not a regular file",
                            "4 calibrations checked, 3 damaged");
  expect_calibration_damage(archive, "calibrations/d.json: unreadable",
                            "4 calibrations checked, 3 damaged");

  /* calibrations/ itself a link. */
  archive = one_run_archive("archive_cal_link", id, sizeof id);
  cr_assert_eq(symlink("/tmp", ts_own(ts_path(archive, "calibrations"))), 0);
  expect_calibration_damage(archive, "calibrations: not a directory",
                            "0 calibrations checked, 1 damaged");
}

/* ---- Ordering ------------------------------------------------------------ */

Test(archive, dates_compare_as_utc_times) {
  cr_assert(bs_date_valid("2026-11-30T10:56:21Z"));
  cr_assert(bs_date_valid("2026-11-30T10:56:21.123Z"));
  cr_assert(bs_date_valid("2026-11-30T10:56:21+00:00"));
  cr_assert(bs_date_valid("2026-11-30"));
  cr_assert(bs_date_valid("2024-02-29T00:00:00Z"));
  cr_assert_not(bs_date_valid("2026-02-29T00:00:00Z"));
  cr_assert_not(bs_date_valid("2026-11-30T10:56:21"));
  cr_assert_not(bs_date_valid("2026-11-30T10:56:21+01:00"));
  cr_assert_not(bs_date_valid("2026-11-30T24:00:00Z"));
  cr_assert_not(bs_date_valid("2026-11-30T10:56Z"));
  cr_assert_not(bs_date_valid("2026-13-01"));
  cr_assert_not(bs_date_valid("2026-11-30T10:56:21.Z"));
  cr_assert_not(bs_date_valid("2026-11-30 10:56:21Z"));
  cr_assert_not(bs_date_valid(""));

  /* One form for every accepted time: RFC 3339 in UTC with Z. */
  const char *forms[][2] = {
      {"2026-11-30T10:56:21Z", "2026-11-30T10:56:21Z"},
      {"2026-11-30T10:56:21+00:00", "2026-11-30T10:56:21Z"},
      {"2026-11-30T10:56:21.500+00:00", "2026-11-30T10:56:21.5Z"},
      {"2026-11-30T10:56:21.000Z", "2026-11-30T10:56:21Z"},
      {"2026-11-30T10:56:21.0625Z", "2026-11-30T10:56:21.0625Z"},
      {"2026-11-30", "2026-11-30T00:00:00Z"},
      {"2016-12-31T23:59:60Z", "2016-12-31T23:59:60Z"},
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    char out[BS_DATE_MAX];
    cr_assert(bs_date_normalise(forms[i][0], out, sizeof out), "%s",
              forms[i][0]);
    cr_assert_str_eq(out, forms[i][1]);
  }
  char out[BS_DATE_MAX];
  cr_assert_not(bs_date_normalise("2026-11-30T10:56:21", out, sizeof out));
  cr_assert_str_eq(out, "");
  cr_assert_not(bs_date_normalise(NULL, out, sizeof out));

  cr_assert_lt(bs_date_cmp("2026-03-01", "2026-03-01T00:00:00.1Z"), 0);
  cr_assert_gt(bs_date_cmp("2026-03-01T00:00:00.5Z", "2026-03-01T00:00:00.25Z"),
               0);
  cr_assert_lt(bs_date_cmp("2026-03-01T00:00:00.05Z", "2026-03-01T00:00:00.5Z"),
               0);
  cr_assert_lt(bs_date_cmp("2025-12-31T23:59:59Z", "2026-01-01"), 0);
  /* Equal times, different text: byte order decides, consistently. */
  int c = bs_date_cmp("2026-03-01T00:00:00.50Z", "2026-03-01T00:00:00.5+00:00");
  cr_assert_neq(c, 0);
  cr_assert_eq(c, -bs_date_cmp("2026-03-01T00:00:00.5+00:00",
                               "2026-03-01T00:00:00.50Z"));
}

Test(archive, runs_are_ordered_by_date_then_id) {
  char *dir = ts_own(ts_tmpdir("archive_ordering"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = fixture("run.csv");
  struct {
    const char *commit, *date;
  } in[] = {
      {"late", "2026-03-02T00:00:00Z"},
      {"half", "2026-03-01T12:00:00.5Z"},
      {"quarter", "2026-03-01T12:00:00.25Z"},
      {"dateonly", "2026-03-01"},
      {"tie2", "2026-03-03T00:00:00Z"},
      {"tie1", "2026-03-03T00:00:00Z"},
      {"early", "2025-12-31T23:59:59Z"},
  };
  size_t n = sizeof in / sizeof in[0];
  for (size_t i = 0; i < n; i++) {
    char name[32];
    snprintf(name, sizeof name, "m%zu.csv", i);
    char *m = write_manifest(dir, name, in[i].commit, in[i].date);
    if (!strcmp(in[i].commit, "dateonly")) {
      /* As an earlier benchsite archived it: add refuses it now. */
      cr_assert_not_null(ts_plant_run(archive, "20260301T000000Z-dateonly",
                                      ts_own(ts_read(m, NULL)),
                                      ts_own(ts_read(log, NULL))));
      continue;
    }
    ts_run r = add(archive, log, m);
    cr_assert_eq(r.status, 0, "%s", r.err);
    ts_run_free(&r);
  }
  verify_clean(archive, n);
  /* Same second: tie1 and tie2 share DATE, so their ids order them. */
  const char *want_commits[] = {"early", "dateonly", "quarter", "half",
                                NULL,    NULL,       NULL};
  bs_archive *ar;
  bs_error err;
  cr_assert_eq(bs_archive_open(archive, &ar, &err), BS_OK, "%s", err.message);
  cr_assert_eq(bs_archive_count(ar), n);
  for (size_t i = 0; i < 4; i++)
    cr_assert_str_eq(bs_archive_run_at(ar, i)->commit, want_commits[i]);
  /* Dates are handed out in one form: the date alone as the midnight it
   * always stood for. */
  cr_assert_str_eq(bs_archive_run_at(ar, 1)->date, "2026-03-01T00:00:00Z");
  cr_assert_str_eq(bs_archive_run_at(ar, 3)->date, "2026-03-01T12:00:00.5Z");
  cr_assert_str_eq(bs_archive_run_at(ar, 4)->commit, "late");
  const bs_archive_run *t1 = bs_archive_run_at(ar, 5);
  const bs_archive_run *t2 = bs_archive_run_at(ar, 6);
  cr_assert_lt(strcmp(t1->id, t2->id), 0);
  cr_assert_str_eq(t1->date, "2026-03-03T00:00:00Z");
  cr_assert_str_eq(t2->date, "2026-03-03T00:00:00Z");
  cr_assert_null(bs_archive_run_at(ar, n));

  /* `archive list` prints the same order. */
  const char *args[] = {"archive", "list", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  const char *p = r.out;
  for (size_t i = 0; i < n; i++) {
    const char *id = bs_archive_run_at(ar, i)->id;
    cr_assert(strncmp(p, id, strlen(id)) == 0, "line %zu: %s", i, p);
    p = strchr(p, '\n');
    cr_assert_not_null(p);
    p++;
  }
  cr_assert_str_eq(p, "");
  ts_run_free(&r);
  bs_archive_free(ar);
}

/* ---- Identity --------------------------------------------------------------
 */

static char *identity_of(const char *archive) {
  bs_archive *ar;
  bs_error err;
  cr_assert_eq(bs_archive_open(archive, &ar, &err), BS_OK, "%s", err.message);
  const char *id = bs_archive_identity(ar);
  char *copy = id ? ts_own(strdup(id)) : NULL;
  bs_archive_free(ar);
  return copy;
}

static char *added(const char *archive, const char *dir, const char *name,
                   const char *commit, const char *date) {
  ts_run r =
      add(archive, fixture("run.csv"), write_manifest(dir, name, commit, date));
  cr_assert_eq(r.status, 0, "%s", r.err);
  char *id = ts_own(malloc(BS_ARCHIVE_ID_MAX));
  id_of(&r, id, BS_ARCHIVE_ID_MAX);
  ts_run_free(&r);
  return id;
}

/* The archive's identity (the feed's id) is its first run, fixed in ID
 * when the archive is made: a run dated earlier, added later, does not
 * change it. */
Test(archive, the_identity_is_the_first_run_and_stays) {
  char *dir = ts_own(ts_tmpdir("archive_identity"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *first = added(archive, dir, "m1.csv", "second", "2026-03-02T00:00:00Z");
  char *idfile = ts_own(ts_path(archive, "ID"));
  char *text = ts_own(ts_read(idfile, NULL));
  cr_assert_not_null(text);
  cr_assert_str_eq(text, ts_pathf("%s\n", first));
  cr_assert_str_eq(identity_of(archive), first);
  char *older = added(archive, dir, "m2.csv", "first", "2026-03-01T00:00:00Z");
  cr_assert_str_neq(older, first);
  cr_assert_str_eq(ts_own(ts_read(idfile, NULL)), text);
  cr_assert_str_eq(identity_of(archive), first);
  verify_clean(archive, 2);
}

/* An archive made before ID: its identity is its oldest run (what the
 * feed's id always was), fixed by the next add before a run dated earlier
 * comes in. */
Test(archive, an_archive_without_identity_gets_its_oldest_run) {
  char *dir = ts_own(ts_tmpdir("archive_identity_old"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *m = write_manifest(dir, "m0.csv", "old", "2026-03-05T00:00:00Z");
  char *oldest =
      ts_plant_run(archive, "20260305T000000Z-old", ts_own(ts_read(m, NULL)),
                   ts_own(ts_read(fixture("run.csv"), NULL)));
  cr_assert_not_null(oldest);
  cr_assert_str_eq(identity_of(archive), oldest);
  char *earlier =
      added(archive, dir, "m1.csv", "earlier", "2026-03-01T00:00:00Z");
  cr_assert_str_neq(earlier, oldest);
  cr_assert_str_eq(ts_own(ts_read(ts_own(ts_path(archive, "ID")), NULL)),
                   ts_pathf("%s\n", oldest));
  cr_assert_str_eq(identity_of(archive), oldest);
  verify_clean(archive, 2);
}

/* A damaged ID is damage: verify names it, readers refuse it. */
Test(archive, a_damaged_identity_is_damage, .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("archive_identity_bad"));
  char *archive = ts_own(ts_path(dir, "a"));
  added(archive, dir, "m1.csv", "one", "2026-03-02T00:00:00Z");
  char *idfile = ts_own(ts_path(archive, "ID"));
  const char *bad[] = {"", "not an id\n", "20260302T000000Z-one-0123\n",
                       "<feed>\n"};
  size_t nbad = sizeof bad / sizeof bad[0];
  for (size_t i = 0; i < nbad + 2; i++) {
    unlink(idfile);
    if (i < nbad)
      cr_assert_eq(ts_write(idfile, bad[i]), 0);
    else if (i == nbad)
      cr_assert_eq(symlink("runs", idfile), 0);
    else /* a FIFO: opened without blocking, never read */
      cr_assert_eq(mkfifo(idfile, 0644), 0);
    ts_run v = verify(archive);
    cr_assert_eq(v.status, 1, "case %zu: %s%s", i, v.out, v.err);
    cr_assert_not_null(strstr(v.out, "ID: "), "case %zu: %s", i, v.out);
    ts_run_free(&v);
    bs_archive *ar = NULL;
    bs_error err;
    cr_assert_eq(bs_archive_open(archive, &ar, &err), BS_EINPUT, "case %zu", i);
    cr_assert_not_null(strstr(err.path, "/ID"), "%s", err.path);
  }
}

/* ---- Atomicity ----------------------------------------------------------- */

static uint64_t rng_state = 0x853c49e6748fea9bULL;
static uint64_t draw(void) {
  uint64_t s = rng_state;
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  rng_state = s;
  return s * 0x2545F4914F6CDD1DULL;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Starts `benchsite archive add`; its stderr goes to `errpath` (or
 * nowhere when NULL). */
static pid_t spawn_add(const char *archive, const char *log,
                       const char *manifest, int dry_run, const char *errpath) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_RDWR);
    int errfd =
        errpath ? open(errpath, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;
    dup2(null, 1);
    dup2(errfd < 0 ? null : errfd, 2);
    execl(BENCHSITE_BIN, BENCHSITE_BIN, "archive", "add", "--archive", archive,
          log, "--manifest", manifest, dry_run ? "--dry-run" : (char *)NULL,
          (char *)NULL);
    _exit(127);
  }
  return pid;
}

static void sleep_us(long us) {
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* A valid log of `blocks` rotated blocks of two impls (about 60 bytes a
 * row): big enough that writing it takes a while. */
static char *write_big_log(const char *dir, int blocks) {
  char *p = ts_own(ts_path(dir, "big.csv"));
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fputs("benchmark,dataset,scale,impl,run,block,phase,iterations,per_call_us\n",
        f);
  for (int j = 0; j < blocks; j++) {
    const char *first = j % 2 ? "head" : "base";
    const char *second = j % 2 ? "base" : "head";
    fprintf(f, "big,n=1,1,%s,0,%d,confirm,100,%d.%03d\n", first, j, 1 + j % 7,
            j % 1000);
    fprintf(f, "big,n=1,1,%s,0,%d,confirm,100,%d.%03d\n", second, j, 2 + j % 5,
            (j * 7) % 1000);
  }
  cr_assert_eq(fclose(f), 0);
  return p;
}

static int count_leftovers(const char *archive) {
  DIR *d = opendir(archive);
  if (!d)
    return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)))
    n += strncmp(e->d_name, ".tmp-", 5) == 0;
  closedir(d);
  return n;
}

/* Kills `archive add` at random moments (fork + exec + SIGKILL after a
 * random delay: half anywhere in an add, half after its validation, where
 * the writing happens), then checks the archive: every visible run is
 * complete and verifies, nothing half-written is visible, and the next add
 * succeeds and sweeps the leftovers. Every twentieth round starts without
 * an archive, so its creation is killed too. */
Test(archive, kill_during_add_leaves_the_archive_valid, .timeout = 600) {
  char *dir = ts_own(ts_tmpdir("archive_kill"));
  char *archive = ts_own(ts_path(dir, "a"));
  char *log = write_big_log(dir, 10000);

  /* How long an add takes here, and how long its validation alone takes
   * (--dry-run): medians of 3. */
  char *scratch = ts_own(ts_path(dir, "scratch"));
  double full = 0, dry = 0;
  for (int pass = 0; pass < 2; pass++) {
    double took[3];
    for (int i = 0; i < 3; i++) {
      char name[32], date[64];
      snprintf(name, sizeof name, "w%d%d.csv", pass, i);
      snprintf(date, sizeof date, "2026-01-01T00:00:%d%dZ", pass, i);
      char *m = write_manifest(dir, name, "warmup", date);
      double t0 = now_ms();
      pid_t p0 = spawn_add(scratch, log, m, pass == 1, NULL);
      int st;
      cr_assert_eq(waitpid(p0, &st, 0), p0);
      cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
      took[i] = now_ms() - t0;
    }
    double lo = took[0] < took[1] ? took[0] : took[1];
    double hi = took[0] < took[1] ? took[1] : took[0];
    double med = took[2] < lo ? lo : took[2] > hi ? hi : took[2];
    *(pass ? &dry : &full) = med;
  }
  /* Half the kills anywhere in an add, half where the writing happens:
   * after validation. */
  uint64_t all_us = (uint64_t)(full * 1000.0 * 1.1) + 1;
  uint64_t write_from = (uint64_t)(dry * 1000.0 * 0.9);
  uint64_t write_us = all_us > write_from ? all_us - write_from : 1;

  /* Start with one run in the archive. */
  char *m0 = write_manifest(dir, "m0.csv", "first", "2026-01-02T00:00:00Z");
  ts_run r0 = add(archive, fixture("run.csv"), m0);
  cr_assert_eq(r0.status, 0, "%s", r0.err);
  ts_run_free(&r0);

  int rounds = 60, visible = 0, before_archive = 0, finished = 0;
  int mid_write = 0;
  size_t expect_runs = 1;
  for (int i = 0; i < rounds; i++) {
    if (i % 20 == 19) {
      /* Start over without an archive: kill during its creation. */
      char fresh[64];
      snprintf(fresh, sizeof fresh, "a%d", i);
      archive = ts_own(ts_path(dir, fresh));
      expect_runs = 0;
    }
    char name[32], date[64];
    snprintf(name, sizeof name, "m%d.csv", i);
    snprintf(date, sizeof date, "2026-02-%02dT%02d:%02d:00Z", 1 + i % 28,
             i % 24, i % 60);
    char *m = write_manifest(dir, name, "kill", date);
    long delay =
        (long)(i % 2 ? write_from + draw() % write_us : draw() % all_us);
    pid_t pid = spawn_add(archive, log, m, 0, NULL);
    sleep_us(delay);
    kill(pid, SIGKILL);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    if (WIFEXITED(st)) {
      cr_assert_eq(WEXITSTATUS(st), 0, "add failed on its own");
      finished++;
    }
    if (!ts_exists(archive)) {
      before_archive++;
      continue;
    }
    mid_write += count_leftovers(archive) > 0;

    /* The run is all there or not there at all. */
    bs_archive_add_result res;
    bs_error err;
    const char *logs[] = {log};
    bs_archive_add_result_init(&res);
    cr_assert_eq(bs_archive_identify(m, logs, 1, &res, &err), BS_OK);
    char *runs = ts_own(ts_path(archive, "runs"));
    char *rundir = ts_own(ts_path(runs, res.id));
    int present = ts_exists(rundir);
    bs_archive_add_result_release(&res);
    char *format = ts_own(ts_path(archive, "FORMAT"));
    if (ts_exists(format)) {
      verify_clean(archive, expect_runs + (size_t)present);
      bs_archive *ar;
      cr_assert_eq(bs_archive_open(archive, &ar, &err), BS_OK, "%s",
                   err.message);
      cr_assert_eq(bs_archive_count(ar), expect_runs + (size_t)present);
      bs_archive_free(ar);
    } else {
      cr_assert_not(present, "a run exists in an archive without FORMAT");
    }
    if (present) {
      visible++;
      expect_runs++;
    }
  }
  cr_log_info("kill test: %d rounds, an add takes %.1f ms; %d finished "
              "before the kill, %d killed while writing a run, %d killed "
              "before a new archive existed; %d runs added",
              rounds, full, finished, mid_write, before_archive, visible);

  /* The next add completes and removes what killed writers left. */
  char *last = write_manifest(dir, "last.csv", "last", "2026-05-01T00:00:00Z");
  ts_run r = add(archive, log, last);
  cr_assert_eq(r.status, 0, "%s", r.err);
  bs_archive_verify_result vr;
  bs_error err;
  bs_archive_verify_result_init(&vr);
  cr_assert_eq(bs_archive_verify(archive, &vr, &err), BS_OK);
  cr_assert_eq(vr.damaged, 0);
  cr_assert_eq(vr.stale, 0, "temporary directories left behind");
  cr_assert_eq(vr.runs, expect_runs + 1);
  bs_archive_verify_result_release(&vr);
  cr_assert_eq(count_leftovers(archive), 0);
  ts_run_free(&r);
}

/* Eight adds started at once into an archive that does not exist yet,
 * several times over: every add succeeds and the archive holds all eight.
 * (Found by CI: an add that saw no FORMAT before taking the lock refused
 * the directory once another add had made it an archive.) */
Test(archive, concurrent_adds_are_serialised, .timeout = 240) {
  char *dir = ts_own(ts_tmpdir("archive_concurrent"));
  char *log = fixture("run.csv");
  enum { N = 8, ROUNDS = 12 };
  char *manifests[N];
  for (int i = 0; i < N; i++) {
    char name[32], date[64];
    snprintf(name, sizeof name, "m%d.csv", i);
    snprintf(date, sizeof date, "2026-03-01T00:00:%02dZ", i);
    manifests[i] = write_manifest(dir, name, "par", date);
  }
  for (int round = 0; round < ROUNDS; round++) {
    char name[32];
    snprintf(name, sizeof name, "a%d", round);
    char *archive = ts_own(ts_path(dir, name));
    pid_t pids[N];
    char *errs[N];
    for (int i = 0; i < N; i++) {
      snprintf(name, sizeof name, "err%d-%d.txt", round, i);
      errs[i] = ts_own(ts_path(dir, name));
      pids[i] = spawn_add(archive, log, manifests[i], 0, errs[i]);
    }
    for (int i = 0; i < N; i++) {
      int st;
      cr_assert_eq(waitpid(pids[i], &st, 0), pids[i]);
      char *msg = ts_own(ts_read(errs[i], NULL));
      cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                "round %d: add %d failed: %s", round, i, msg ? msg : "");
    }
    verify_clean(archive, N);
  }
}

/* ---- Acknowledgements ---------------------------------------------------- */

static bs_status read_acks_text(const char *text, bs_acks **out,
                                bs_error *err) {
  char *dir = ts_own(ts_tmpdir("archive_acks"));
  if (text)
    cr_assert_eq(ts_write(ts_own(ts_path(dir, "acks.csv")), text), 0);
  return bs_acks_read(dir, out, err);
}

static void expect_acks_error(const char *text, const char *needle) {
  bs_acks *a = NULL;
  bs_error err;
  cr_assert_eq(read_acks_text(text, &a, &err), BS_EINPUT, "for: %s", text);
  cr_assert_null(a);
  char msg[2048];
  bs_error_format(&err, msg, sizeof msg);
  cr_assert_not_null(strstr(msg, needle), "want \"%s\" in: %s", needle, msg);
}

Test(archive, acks_are_read_and_matched_by_commit_and_case) {
  bs_acks *a;
  bs_error err;
  cr_assert_eq(read_acks_text(NULL, &a, &err), BS_OK);
  cr_assert_eq(bs_acks_count(a), 0);
  cr_assert_null(bs_acks_find(a, "x", "b", ""));
  bs_acks_free(a);

  cr_assert_eq(read_acks_text("reason,dataset,benchmark,commit\n"
                              "\"known, accepted\",n=4096,hash,series-06\n"
                              "stronger hash,,hash,0123456789abcdef\n"
                              "short commit,,sum,v1\n",
                              &a, &err),
               BS_OK, "%s", err.message);
  cr_assert_eq(bs_acks_count(a), 3);
  const bs_ack *r = bs_acks_at(a, 0);
  cr_assert_str_eq(r->commit, "series-06");
  cr_assert_str_eq(r->benchmark, "hash");
  cr_assert_str_eq(r->dataset, "n=4096");
  cr_assert_str_eq(r->reason, "known, accepted");
  cr_assert_eq(r->line, 2);
  cr_assert_eq(bs_acks_find(a, "series-06", "hash", "n=4096"), r);
  cr_assert_null(bs_acks_find(a, "series-06", "hash", ""));
  cr_assert_null(bs_acks_find(a, "series-07", "hash", "n=4096"));
  /* A prefix of 7 characters or more names the full commit. */
  const bs_ack *full = bs_acks_at(a, 1);
  cr_assert_eq(bs_acks_find(a, "0123456789abcdef0123", "hash", ""), full);
  cr_assert_null(bs_acks_find(a, "0123456789abcdee", "hash", ""));
  /* A shorter one must match exactly. */
  cr_assert_eq(bs_acks_find(a, "v1", "sum", ""), bs_acks_at(a, 2));
  cr_assert_null(bs_acks_find(a, "v10", "sum", ""));
  bs_acks_free(a);
}

Test(archive, bad_acks_are_errors_with_the_line) {
  expect_acks_error("", "empty file");
  expect_acks_error("commit,benchmark,reason\n", "missing column dataset");
  expect_acks_error("commit,benchmark,dataset,reason,who\n",
                    "unknown column \"who\"");
  expect_acks_error("commit,benchmark,dataset,reason\nabc1234,sum,\n",
                    "acks.csv:2: 3 fields, expected 4");
  expect_acks_error("commit,benchmark,dataset,reason\nabc1234,sum,,\n",
                    "acks.csv:2: column reason: empty");
  expect_acks_error("commit,benchmark,dataset,reason\n"
                    "abc1234,sum,,a\nabc1234,sum,,b\n",
                    "acks.csv:3: the same commit and case as line 2");
  expect_acks_error("commit,benchmark,dataset,reason\nabc1234,s\xff,,a\n",
                    "column benchmark: not UTF-8");
}

/* bs_archive_read_run (what the site uses): the logs read from the bytes
 * whose checksums were checked give the same rows as reading the files, in
 * order; a damaged run is not read at all. */
Test(archive, read_run_verifies_and_reads_the_same_bytes) {
  char id[BS_ARCHIVE_ID_MAX];
  char *archive = one_run_archive("archive_read_run", id, sizeof id);
  bs_log *want = bs_log_new(), *got = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_file(want, run_file(archive, id, "log-1.csv"), &err),
               BS_OK, "%s", err.message);
  bs_archive_verify_result res;
  bs_archive_verify_result_init(&res);
  cr_assert_eq(bs_archive_read_run(archive, id, got, &res, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(res.runs, 1);
  cr_assert_eq(res.damaged, 0);
  cr_assert_gt(bs_log_count(want), 0);
  cr_assert_eq(bs_log_count(got), bs_log_count(want));
  const bs_row *a = bs_log_rows(want), *b = bs_log_rows(got);
  for (size_t i = 0; i < bs_log_count(want); i++) {
    cr_assert_str_eq(bs_log_row_case(want, &a[i])->benchmark,
                     bs_log_row_case(got, &b[i])->benchmark);
    cr_assert_str_eq(a[i].impl, b[i].impl);
    cr_assert_str_eq(bs_log_row_file(want, &a[i]), bs_log_row_file(got, &b[i]));
    cr_assert_eq(a[i].line, b[i].line);
    cr_assert_eq(a[i].per_call_us, b[i].per_call_us);
  }
  bs_archive_verify_result_release(&res);
  bs_log_free(got);

  flip_byte(run_file(archive, id, "log-1.csv"), 200);
  got = bs_log_new();
  bs_archive_verify_result_init(&res);
  cr_assert_eq(bs_archive_read_run(archive, id, got, &res, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(res.damaged, 1);
  cr_assert_gt(res.nproblems, 0);
  cr_assert_not_null(strstr(res.problems[0], "checksum mismatch"), "%s",
                     res.problems[0]);
  cr_assert_eq(bs_log_count(got), 0);
  bs_archive_verify_result_release(&res);
  bs_log_free(got);
  bs_log_free(want);
}
