/* Output paths against hostile and careless ones: a link or FIFO where
 * JSON goes, an output that is an input or inside the archive, two
 * outputs of one path, `site --out` around the archive, `report --out`
 * over an earlier report holding the user's files. Each test failed before
 * its fix (the note above it says how). */
#include "hostile.h"
#include "support.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

TestSuite(output_hostile, .fini = ts_free_owned);

/* ---- Output paths -------------------------------------------------------- *
 * Before: --json renamed a temporary file over any path, so a symbolic
 * link (as root, /dev/stdout itself) or a FIFO was replaced by a regular
 * file and nothing was printed. Tested on links and a FIFO of our own,
 * never on the real /dev/stdout. */

Test(output_hostile, json_output_never_replaces_a_link_or_fifo) {
  char *dir = ts_own(ts_tmpdir("out_policy"));
  char *log = write_log(dir, "log.csv", "sort", 100, 100);
  char *target = ts_pathf("%s/target.txt", dir);
  cr_assert_eq(ts_write(target, "keep\n"), 0);
  char *link = ts_pathf("%s/link.json", dir);
  cr_assert_eq(symlink(target, link), 0);
  char *fifo = ts_pathf("%s/fifo.json", dir);
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  const char *paths[] = {link, fifo};
  for (int i = 0; i < 2; i++) {
    const char *args[] = {"compare", log,           "--baseline",
                          "base",    "--candidate", "head",
                          "--json",  paths[i],      NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 2, "%s: exit %d: %s", paths[i], r.status, r.err);
    cr_expect(strstr(r.err, "not a regular file"), "%s", r.err);
    ts_run_free(&r);
    struct stat st;
    cr_assert_eq(lstat(paths[i], &st), 0);
    cr_expect(i == 0 ? S_ISLNK(st.st_mode) : S_ISFIFO(st.st_mode),
              "%s was replaced", paths[i]);
  }
  char *t = ts_read(target, NULL);
  cr_expect_str_eq(t, "keep\n");
  free(t);
  /* "-" is standard output, written directly. */
  const char *args[] = {"compare", log,           "--baseline",
                        "base",    "--candidate", "head",
                        "--json",  "-",           NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "\"schema\": \"benchsite.compare/1\""), "%s", r.out);
  cr_expect(!ts_exists(ts_pathf("%s/-", dir)));
  ts_run_free(&r);
}

/* Before: `site --out` holding the archive deleted it in the swap, and one
 * inside the archive wrote into runs/. */
Test(output_hostile, site_out_and_archive_must_be_apart, .timeout = 120) {
  char *work, *id;
  char *archive = one_run_archive("apart", &work, &id);
  const char *outs[] = {work, ts_pathf("%s/runs/web", archive), archive,
                        ts_pathf("%s/web", archive)};
  for (int i = 0; i < 4; i++) {
    const char *site[] = {"site", "--archive", archive, "--out", outs[i], NULL};
    ts_run r = ts_cli(NULL, site);
    cr_expect_eq(r.status, 2, "%s: exit %d: %s", outs[i], r.status, r.err);
    cr_expect(strstr(r.err, "the archive"), "%s", r.err);
    ts_run_free(&r);
  }
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 0, "verify: %s%s", r.out, r.err);
  ts_run_free(&r);
  /* Through a link to the archive's parent: the real paths decide. */
  char *adir = ts_own(ts_tmpdir("apart_link"));
  char *alias = ts_pathf("%s/alias", adir);
  cr_assert_eq(symlink(work, alias), 0);
  const char *site[] = {
      "site", "--archive", archive, "--out", ts_pathf("%s/archive/x", alias),
      NULL};
  r = ts_cli(NULL, site);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  ts_run_free(&r);
}

/* ---- Outputs never overwrite inputs or the archive ----------------------- */

/* Reads the file or "" when absent, for before/after comparisons. */
static char *snapshot(const char *path) {
  char *t = ts_read(path, NULL);
  return t ? t : strdup("");
}

/* Before: `compare LOG --json LOG` replaced the log (an archived log too,
 * after which verify reported damage and every site failed); `--markdown
 * ARCHIVE/acks.csv`, `manifest --out RUN/manifest.csv` and `report --out
 * ARCHIVE/runs/web` wrote into the archive. */
Test(output_hostile, outputs_never_replace_inputs_or_write_into_the_archive,
     .timeout = 120) {
  char *work, *id;
  char *archive = one_run_archive("out_in", &work, &id);
  char *run = ts_pathf("%s/runs/%s", archive, id);
  char *log = ts_pathf("%s/log-1.csv", run);
  char *mf = ts_pathf("%s/manifest.csv", run);
  cr_assert(ts_exists(log) && ts_exists(mf), "%s", run);
  char *acks = ts_pathf("%s/acks.csv", archive);
  cr_assert_eq(ts_write(acks, "benchmark,dataset,commit,reason\n"), 0);
  char *logv = snapshot(log), *mfv = snapshot(mf), *acksv = snapshot(acks);

  /* A copy outside the archive, as an input that must survive too. */
  char *own = ts_pathf("%s/own.csv", work);
  cr_assert_eq(ts_write(own, logv), 0);
  char *ownmf = ts_pathf("%s/own-env.csv", work);
  cr_assert_eq(ts_write(ownmf, mfv), 0);
  char *ownlink = ts_pathf("%s/own-link.csv", work);
  cr_assert_eq(symlink(own, ownlink), 0);

  const char *cases[][12] = {
      {"compare", own, "--manifest", ownmf, "--json", own, NULL},
      {"compare", own, "--manifest", ownmf, "--markdown", ownlink, NULL},
      {"compare", own, "--manifest", ownmf, "--json", ownmf, NULL},
      {"check", own, "--manifest", ownmf, "--json", own, NULL},
      {"compare", log, "--manifest", mf, "--json", log, NULL},
      {"compare", own, "--manifest", ownmf, "--markdown", acks, NULL},
      {"compare", own, "--manifest", ownmf, "--json",
       ts_pathf("%s/new.json", run), NULL},
      {"manifest", "--out", mf, NULL},
      {"manifest", "--out", ts_pathf("%s/runs/new.csv", archive), NULL},
      {"report", own, "--manifest", ownmf, "--out",
       ts_pathf("%s/runs/web", archive), NULL},
      {"report", own, "--manifest", ownmf, "--out", ts_pathf("%s/web", run),
       NULL},
      {"report", own, "--manifest", ownmf, "--out", archive, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    ts_run r = ts_cli(work, cases[k]);
    cr_expect_eq(r.status, 2, "case %zu (%s): exit %d: %s", k, cases[k][0],
                 r.status, r.err);
    ts_run_free(&r);
  }
  char *now = snapshot(own);
  cr_expect_str_eq(now, logv, "own.csv was changed");
  free(now);
  now = snapshot(ownmf);
  cr_expect_str_eq(now, mfv, "own-env.csv was changed");
  free(now);
  cr_expect(!ts_exists(ts_pathf("%s/runs/web", archive)));
  cr_expect(!ts_exists(ts_pathf("%s/web", run)));
  cr_expect(!ts_exists(ts_pathf("%s/new.json", run)));
  cr_expect(!ts_exists(ts_pathf("%s/runs/new.csv", archive)));
  now = snapshot(acks);
  cr_expect_str_eq(now, acksv);
  free(now);
  const char *verify[] = {"archive", "verify", "--archive", archive, NULL};
  ts_run r = ts_cli(NULL, verify);
  cr_expect_eq(r.status, 0, "verify: exit %d: %s%s", r.status, r.out, r.err);
  ts_run_free(&r);
  free(logv);
  free(mfv);
  free(acksv);
}

static ts_run report_into(const char *log, const char *env, const char *out) {
  const char *args[] = {"report",     log,    "--manifest",  env,
                        "--baseline", "base", "--candidate", "head",
                        "--out",      out,    NULL};
  return ts_cli(NULL, args);
}

/* Before: an input inside an output directory was deleted with the old
 * directory (`compare --noise NZ/noise.json --html NZ`); two outputs of
 * one path failed late with exit 3 and left the HTML directory behind; a
 * script a --cmd runs could be overwritten by --manifest-out. */
Test(output_hostile, outputs_never_swallow_an_input_or_each_other,
     .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("out_swallow"));
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *rep = ts_pathf("%s/rep", dir);
  ts_run r = report_into(log, env, rep);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *inside = ts_pathf("%s/index.html", rep);
  char *x = ts_pathf("%s/x", dir);
  char *script = ts_pathf("%s/x.sh", dir);
  cr_assert_eq(ts_write(script, "true\n"), 0);
  char *cmd = ts_pathf("A=/bin/sh %s", script);
  const char *cases[][14] = {
      {"compare", inside, "--manifest", env, "--baseline", "base",
       "--candidate", "head", "--html", rep, NULL},
      {"compare", log, "--manifest", env, "--baseline", "base", "--candidate",
       "head", "--json", x, "--markdown", ts_pathf("%s/./x", dir), NULL},
      {"compare", log, "--manifest", env, "--baseline", "base", "--candidate",
       "head", "--json", x, "--html", x, NULL},
      {"run", "--cmd", cmd, "--cmd", "B=true", "--out",
       ts_pathf("%s/o.csv", dir), "--manifest-out", script, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    r = ts_cli(dir, cases[k]);
    cr_expect_eq(r.status, 2, "case %zu: exit %d: %s", k, r.status, r.err);
    ts_run_free(&r);
  }
  cr_expect(ts_exists(inside));
  cr_expect(!ts_exists(x), "an output was written");
  char *s = ts_read(script, NULL);
  cr_expect(s && !strcmp(s, "true\n"), "the script was overwritten");
  free(s);
}

/* ---- report --out over an earlier report --------------------------------- */

/* Before: `report --out OUT` over an earlier report swapped the whole
 * directory, deleting whatever the user had put inside it. Now a file
 * the report did not write, or one changed since, stops the build with
 * status 2 and stays; files gone from it do not. */
Test(output_hostile, report_out_never_deletes_files_the_report_did_not_write,
     .timeout = 180) {
  char *dir = ts_own(ts_tmpdir("report_keep"));
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *out = ts_pathf("%s/out", dir);
  ts_run r = report_into(log, env, out);
  cr_assert_eq(r.status, 0, "report: %s", r.err);
  ts_run_free(&r);
  /* An unchanged earlier report is replaced. */
  r = report_into(log, env, out);
  cr_assert_eq(r.status, 0, "report again: %s", r.err);
  ts_run_free(&r);

  /* A note the user saved inside it. */
  char *note = ts_pathf("%s/charts/my-notes.txt", out);
  cr_assert_eq(ts_write(note, "three weeks of analysis\n"), 0);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "my-notes.txt"), "%s", r.err);
  ts_run_free(&r);
  char *kept = ts_read(note, NULL);
  cr_expect(kept && !strcmp(kept, "three weeks of analysis\n"));
  free(kept);
  cr_assert_eq(unlink(note), 0);

  /* A directory of the user's. */
  char *sub = ts_pathf("%s/drafts", out);
  cr_assert_eq(mkdir(sub, 0755), 0);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(sub));
  cr_assert_eq(rmdir(sub), 0);

  /* A page the user edited. */
  char *index = ts_pathf("%s/index.html", out);
  FILE *f = fopen(index, "a");
  cr_assert_not_null(f);
  fputs("<!-- reviewed -->\n", f);
  cr_assert_eq(fclose(f), 0);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  char *page = ts_read(index, NULL);
  cr_expect(page && strstr(page, "<!-- reviewed -->"));
  free(page);

  /* A file deleted from it is nobody's loss: the report is rebuilt. */
  cr_assert_eq(unlink(index), 0);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(index));

  /* An edit that keeps the size (the list holds each file's hash). */
  char *page2 = ts_read(index, NULL);
  cr_assert_not_null(page2);
  char *t = strstr(page2, "<title>");
  cr_assert_not_null(t);
  memcpy(t, "<TITLE>", 7);
  cr_assert_eq(ts_write(index, page2), 0);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 2, "same-size edit: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  char *kept2 = ts_read(index, NULL);
  cr_expect(kept2 && strstr(kept2, "<TITLE>"), "the edit was lost");
  free(kept2);
  free(page2);
  cr_assert_eq(unlink(index), 0);

  /* A name holding a newline and a forged listing line: a copy of
   * index.html named "index.html\ndir charts" would list as two lines the
   * list holds, were names not escaped. */
  r = report_into(log, env, out);
  cr_assert_eq(r.status, 0, "rebuilt: %s", r.err);
  ts_run_free(&r);
  char *copy = ts_read(index, NULL);
  cr_assert_not_null(copy);
  char *forged = ts_pathf("%s/index.html\ndir charts", out);
  cr_assert_eq(ts_write(forged, copy), 0);
  free(copy);
  r = report_into(log, env, out);
  cr_expect_eq(r.status, 2, "forged name: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(forged));
}

/* Before: any file named .benchsite-report made a directory "an earlier
 * report", and everything else in it was deleted. */
Test(output_hostile, a_marker_without_a_file_list_proves_nothing,
     .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("report_forged"));
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *out = ts_pathf("%s/thesis", dir);
  cr_assert_eq(mkdir(out, 0755), 0);
  cr_assert_eq(ts_write(ts_pathf("%s/thesis.tex", out), "precious\n"), 0);
  const char *markers[] = {"", "benchsite report\n", "hello\n"};
  for (size_t k = 0; k < 3; k++) {
    cr_assert_eq(ts_write(ts_pathf("%s/.benchsite-report", out), markers[k]),
                 0);
    ts_run r = report_into(log, env, out);
    cr_expect_eq(r.status, 2, "marker %zu: exit %d: %s", k, r.status, r.err);
    ts_run_free(&r);
    cr_expect(ts_exists(ts_pathf("%s/thesis.tex", out)));
  }
}

/* Before: the directory was checked only at the start, so a file put
 * into the earlier report while the new one rendered was deleted. */
Test(output_hostile, a_file_added_while_a_report_builds_is_kept,
     .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("report_during"));
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *out = ts_pathf("%s/out", dir);
  ts_run r = report_into(log, env, out);
  cr_assert_eq(r.status, 0, "report: %s", r.err);
  ts_run_free(&r);
  char *slow = fake_gnuplot(dir, "slowgp", "sleep 2; exec gnuplot \"$@\"");
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(BENCHSITE_BIN, BENCHSITE_BIN, "report", log, "--manifest", env,
          "--baseline", "base", "--candidate", "head", "--out", out,
          "--gnuplot", slow, (char *)NULL);
    _exit(127);
  }
  nanosleep(&(struct timespec){1, 0}, NULL);
  char *notes = ts_pathf("%s/notes.txt", out);
  cr_assert_eq(ts_write(notes, "written during the build\n"), 0);
  int status = wait_exit(pid);
  cr_expect_eq(status, 2, "exit %d", status);
  cr_expect(ts_exists(notes), "the note was deleted");
}

/* Before: `report --out LINK/` followed the link through the trailing
 * slash, built the whole report and failed at the rename (exit 3). */
Test(output_hostile,
     report_out_link_with_a_trailing_slash_is_refused_up_front) {
  char *dir = ts_own(ts_tmpdir("out_link_slash"));
  char *log = write_log(dir, "log.csv", "sort", 100, 110);
  char *env = write_env(dir, "env.csv", "abc1234", "2026-11-30T10:56:21Z");
  char *target = ts_pathf("%s/target", dir);
  cr_assert_eq(mkdir(target, 0755), 0);
  char *link = ts_pathf("%s/link", dir);
  cr_assert_eq(symlink(target, link), 0);
  ts_run r = report_into(log, env, ts_pathf("%s/", link));
  cr_expect_eq(r.status, 2, "exit %d: %s", r.status, r.err);
  cr_expect(strstr(r.err, "symbolic link"), "%s", r.err);
  ts_run_free(&r);
  DIR *d = opendir(target);
  cr_assert_not_null(d);
  struct dirent *e;
  size_t n = 0;
  while ((e = readdir(d)))
    n += e->d_name[0] != '.';
  closedir(d);
  cr_expect_eq(n, 0, "the link's target was written");
}
