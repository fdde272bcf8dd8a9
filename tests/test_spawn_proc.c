/* The spawn module: file actions, process groups, limits, reaping, and
 * the containment of descendants that leave the group (setsid). */
#include "spawn_proc.h"

#include "benchsite/plot.h"

#include "support.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

TestSuite(spawn, .fini = ts_free_owned);

static void nap(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0 && errno == EINTR)
    ;
}

/* The process id written (whole: renamed into place) to `file`, waiting
 * up to 5 s for it. */
static long pid_in(const char *file) {
  char *text = NULL;
  for (int i = 0; i < 500 && !text; i++) {
    text = ts_read(file, NULL);
    if (!text)
      nap(10);
  }
  cr_assert_not_null(text, "%s was never written", file);
  long pid = strtol(text, NULL, 10);
  free(text);
  cr_assert_gt(pid, 1);
  return pid;
}

/* 1 when process `pid` is gone or a zombie, waiting up to ms for it. */
static int dead_within(long pid, int ms) {
  for (int i = 0; i <= ms / 10; i++) {
    char *stat = ts_read(ts_pathf("/proc/%ld/stat", pid), NULL);
    const char *paren = stat ? strrchr(stat, ')') : NULL;
    int dead = !stat || (paren && paren[1] == ' ' &&
                         (paren[2] == 'Z' || paren[2] == 'X'));
    free(stat);
    if (dead)
      return 1;
    nap(10);
  }
  return 0;
}

static bs_status sh(bs__child *ch, const char *script, bs_error *err) {
  const char *argv[] = {"/bin/sh", "-c", script, NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  return bs__spawn(ch, &o, err);
}

Test(spawn, a_child_that_ignores_sigterm_is_killed, .timeout = 30) {
  bs__child ch;
  bs_error err;
  cr_assert_eq(sh(&ch,
                  "trap '' TERM; echo ready; "
                  "while :; do sleep 0.05; done",
                  &err),
               BS_OK, "%s", err.message);
  char buf[16];
  cr_assert_eq(bs__fd_read_within(ch.fd[1], buf, 6, 5000), 0);
  long long t0 = bs__now_ms();
  bs__child_end end;
  cr_assert_eq(bs__child_stop(&ch, 200, &end), BS_OK);
  long long ms = bs__now_ms() - t0;
  cr_expect(end.timed_out, "SIGTERM was obeyed?");
  cr_expect(WIFSIGNALED(end.status) && WTERMSIG(end.status) == SIGKILL,
            "status %d", end.status);
  cr_expect_lt(ms, 3000, "took %lld ms", ms);
  cr_expect_eq(ch.pid, -1);
  cr_expect_eq(ch.fd[1], -1);
}

/* The child starts a shell in a session of its own (setsid leaves the
 * process group, so a group kill misses it) which starts a sleep, and
 * exits: both are re-parented to us and must be killed and reaped. */
Test(spawn, a_descendant_that_calls_setsid_is_killed, .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("spawn_setsid"));
  char *script = ts_pathf("setsid sh -c 'sleep 30 & echo $! > %s/p.tmp; "
                          "mv %s/p.tmp %s/pid; wait' & "
                          "while [ ! -s %s/pid ]; do sleep 0.01; done",
                          dir, dir, dir, dir);
  bs__child ch;
  bs_error err;
  cr_assert_eq(sh(&ch, script, &err), BS_OK, "%s", err.message);
  long sleeper = pid_in(ts_pathf("%s/pid", dir));
  bs__child_end end;
  cr_assert_eq(bs__child_wait(&ch, 10000, &end), BS_OK);
  cr_expect(!end.timed_out);
  cr_expect(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0);
  cr_expect_geq(end.orphans, 2, "orphans %zu", end.orphans);
  /* Reaped, not only killed: the id no longer exists. */
  cr_expect(kill((pid_t)sleeper, 0) != 0 && errno == ESRCH,
            "the sleep (%ld) is still running", sleeper);
}

/* A child of this process that started before the spawned one is no
 * orphan of it, and survives. */
Test(spawn, an_older_unrelated_child_is_left_alone, .timeout = 30) {
  pid_t other = fork();
  cr_assert_geq(other, 0);
  if (other == 0) {
    nap(20000);
    _exit(0);
  }
  nap(50); /* a later clock tick */
  bs__child ch;
  bs_error err;
  cr_assert_eq(sh(&ch, "exit 3", &err), BS_OK, "%s", err.message);
  bs__child_end end;
  cr_assert_eq(bs__child_wait(&ch, 10000, &end), BS_OK);
  cr_expect(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 3);
  cr_expect_eq(end.orphans, 0);
  int st;
  cr_expect_eq(waitpid(other, &st, WNOHANG), 0, "the older child was reaped");
  kill(other, SIGKILL);
  waitpid(other, &st, 0);
}

Test(spawn, a_program_not_found_is_an_error, .timeout = 30) {
  const char *names[] = {"/nonexistent/benchsite-prog",
                         "benchsite-no-such-program-here"};
  for (size_t i = 0; i < 2; i++) {
    const char *argv[] = {names[i], NULL};
    bs__spawn_opts o;
    bs__spawn_opts_init(&o, argv);
    o.io[1] = BS__IO_PIPE;
    o.fail_status = BS_EPLOT;
    bs__child ch;
    bs_error err;
    cr_expect_eq(bs__spawn(&ch, &o, &err), BS_EPLOT);
    cr_expect(strstr(err.message, "cannot run ") &&
                  strstr(err.message, names[i]) &&
                  strstr(err.message, "No such file"),
              "%s", err.message);
    cr_expect_eq(ch.pid, -1);
    cr_expect_eq(ch.fd[1], -1);
  }
}

static int open_fds(void) { return ts_count_entries("/proc/self/fd"); }

Test(spawn, a_failing_file_action_is_an_error_and_leaks_nothing,
     .timeout = 30) {
  const char *argv[] = {"/bin/true", NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  o.io[2] = BS__IO_PIPE;
  o.io[3] = BS__IO_SOCKET;
  o.dir = "/nonexistent/benchsite-dir";
  int before = open_fds();
  bs__child ch;
  bs_error err;
  cr_expect_eq(bs__spawn(&ch, &o, &err), BS_EIO);
  cr_expect(strstr(err.message, "No such file"), "%s", err.message);
  cr_expect_eq(ch.pid, -1);
  cr_expect_eq(open_fds(), before);
  /* A descriptor that is not open. */
  o.dir = NULL;
  o.io[3] = BS__IO_FD;
  o.fd[3] = -1;
  cr_expect_eq(bs__spawn(&ch, &o, &err), BS_EIO);
  cr_expect_eq(open_fds(), before);
}

Test(spawn, output_is_read_within_a_limit_and_capped, .timeout = 30) {
  bs__child ch;
  bs_error err;
  char buf[16];
  size_t len;
  cr_assert_eq(sh(&ch, "printf hello", &err), BS_OK);
  cr_expect_eq(
      bs__child_collect(&ch, 1, buf, sizeof buf, &len, bs__now_ms() + 5000), 0);
  cr_expect_str_eq(buf, "hello");
  cr_expect_eq(bs__child_wait(&ch, 5000, NULL), BS_OK);
  /* More than a pipe holds: read to the end, the start kept. */
  cr_assert_eq(sh(&ch, "head -c 1000000 /dev/zero | tr '\\000' x", &err),
               BS_OK);
  cr_expect_eq(
      bs__child_collect(&ch, 1, buf, sizeof buf, &len, bs__now_ms() + 10000),
      0);
  cr_expect_eq(len, 15);
  cr_expect_str_eq(buf, "xxxxxxxxxxxxxxx");
  bs__child_end end;
  cr_expect_eq(bs__child_wait(&ch, 5000, &end), BS_OK);
  cr_expect(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 0);
  /* Silent and staying: the deadline ends the read. */
  cr_assert_eq(sh(&ch, "exec sleep 30", &err), BS_OK);
  long long t0 = bs__now_ms();
  cr_expect_eq(bs__child_collect(&ch, 1, buf, sizeof buf, &len, t0 + 300), 2);
  cr_expect_eq(bs__child_wait(&ch, 0, &end), BS_OK);
  cr_expect(end.timed_out);
  cr_expect_lt(bs__now_ms() - t0, 3000);
}

Test(spawn, the_minimal_environment_and_directory_apply, .timeout = 30) {
  char *dir = ts_own(ts_tmpdir("spawn_env"));
  const char *argv[] = {"/bin/sh", "-c", "env | sort; pwd", NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  o.minimal_env = 1;
  o.dir = dir;
  bs__child ch;
  bs_error err;
  cr_assert_eq(bs__spawn(&ch, &o, &err), BS_OK, "%s", err.message);
  char buf[4096];
  size_t len;
  cr_expect_eq(
      bs__child_collect(&ch, 1, buf, sizeof buf, &len, bs__now_ms() + 5000), 0);
  cr_expect_eq(bs__child_wait(&ch, 5000, NULL), BS_OK);
  /* sh adds PWD (and may add SHLVL, _) of its own; nothing of ours. */
  cr_expect(strstr(buf, "LC_ALL=C.UTF-8\n"), "%s", buf);
  cr_expect(strstr(buf, "PATH=/usr/bin:/bin\n"), "%s", buf);
  cr_expect(!strstr(buf, "HOME="), "%s", buf);
  cr_expect(strstr(buf, ts_pathf("\n%s\n", dir)), "%s", buf);
}

Test(spawn, a_pinned_child_runs_on_one_cpu, .timeout = 30) {
  const char *argv[] = {"/bin/sh", "-c",
                        "grep Cpus_allowed_list /proc/self/status", NULL};
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, argv);
  o.io[1] = BS__IO_PIPE;
  o.cpu = 0;
  bs__child ch;
  bs_error err;
  cr_assert_eq(bs__spawn(&ch, &o, &err), BS_OK, "%s", err.message);
  char buf[256];
  size_t len;
  bs__child_collect(&ch, 1, buf, sizeof buf, &len, bs__now_ms() + 5000);
  bs__child_wait(&ch, 5000, NULL);
  cr_expect(strstr(buf, ":\t0\n"), "%s", buf);
  /* Our own mask is back. */
  char *status = ts_read("/proc/self/status", NULL);
  const char *mine = strstr(status, "Cpus_allowed_list:");
  cr_assert_not_null(mine);
  if (sysconf(_SC_NPROCESSORS_ONLN) > 1)
    cr_expect(strncmp(mine, "Cpus_allowed_list:\t0\n", 21) != 0);
  free(status);
}

/* What the runner needs: code of ours in a child that answers on a
 * socket, reads with a limit, and its CPU time and memory. */
static int echo_and_spin(void *ctx) {
  (void)ctx;
  char c[4];
  if (bs__fd_read_within(3, c, sizeof c, 5000))
    return 1;
  volatile double x = 0;
  for (long i = 0; i < 60000000L; i++)
    x += (double)i;
  return bs__fd_write_within(3, c, sizeof c, 5000) ? 2 : 7;
}

Test(spawn, a_forked_child_talks_on_a_socket_and_reports_rusage,
     .timeout = 60) {
  bs__spawn_opts o;
  bs__spawn_opts_init(&o, NULL);
  o.io[3] = BS__IO_SOCKET;
  bs__child ch;
  bs_error err;
  cr_assert_eq(bs__spawn_fork(&ch, &o, echo_and_spin, NULL, &err), BS_OK, "%s",
               err.message);
  char got[4];
  /* Nothing asked yet: the read times out. */
  cr_expect_eq(bs__fd_read_within(ch.fd[3], got, sizeof got, 100), 2);
  cr_assert_eq(bs__fd_write_within(ch.fd[3], "ping", 4, 5000), 0);
  cr_expect_eq(bs__fd_read_within(ch.fd[3], got, sizeof got, 30000), 0);
  cr_expect_eq(memcmp(got, "ping", 4), 0);
  bs__child_end end;
  cr_assert_eq(bs__child_wait(&ch, 10000, &end), BS_OK);
  cr_expect(WIFEXITED(end.status) && WEXITSTATUS(end.status) == 7, "status %d",
            end.status);
  cr_expect_gt(end.user_s + end.sys_s, 0.01, "cpu %g", end.user_s);
  cr_expect_gt(end.maxrss_kib, 0);
}

/* Before: gnuplot's process group was killed, but a descendant that
 * called setsid() outlived `report`. */
Test(spawn, report_leaves_no_gnuplot_descendant_running, .timeout = 120) {
  char *dir = ts_own(ts_tmpdir("spawn_report"));
  char *gp = ts_pathf("%s/gp", dir);
  cr_assert_eq(
      ts_write(gp, ts_pathf("#!/bin/sh\n"
                            "setsid sh -c 'sleep 30 & echo $! > %s/p.tmp; "
                            "mv %s/p.tmp %s/pid; wait' >/dev/null 2>&1 &\n"
                            "while [ ! -s %s/pid ]; do sleep 0.01; done\n"
                            "exec gnuplot \"$@\"\n",
                            dir, dir, dir, dir)),
      0);
  cr_assert_eq(chmod(gp, 0755), 0);
  const char *args[] = {"report",     BENCHSITE_SOURCE_DIR "/examples/pr.csv",
                        "--manifest", BENCHSITE_SOURCE_DIR "/examples/env.csv",
                        "--gnuplot",  gp,
                        "--out",      ts_pathf("%s/out", dir),
                        NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "report: exit %d: %s", r.status, r.err);
  ts_run_free(&r);
  long sleeper = pid_in(ts_pathf("%s/pid", dir));
  int dead = dead_within(sleeper, 1000);
  if (!dead)
    kill((pid_t)sleeper, SIGKILL); /* do not leave it behind */
  cr_expect(dead, "gnuplot's setsid descendant (%ld) outlived report", sleeper);
}

/* A descendant that keeps gnuplot's output open (here in a session of its
 * own) no longer holds the render until the idle limit: once gnuplot has
 * exited, what is left is killed. */
Test(spawn, a_descendant_holding_gnuplots_output_does_not_hold_the_render,
     .timeout = 60) {
  char *dir = ts_own(ts_tmpdir("spawn_hold"));
  char *gp = ts_pathf("%s/gp", dir);
  cr_assert_eq(ts_write(gp, ts_pathf("#!/bin/sh\n"
                                     "setsid sleep 30 &\n"
                                     "echo $! > %s/pid\n"
                                     "exec gnuplot \"$@\"\n",
                                     dir)),
               0);
  cr_assert_eq(chmod(gp, 0755), 0);
  bs_plot *p = bs_plot_new();
  bs_plot_chart(p, "c.svg", 300, 200);
  double x[2] = {1, 2}, y[2] = {1, 2};
  const double *cols[2] = {x, y};
  bs_plot_series(p, BS_PLOT_LINES, "a", NULL, cols, 2);
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  run.gnuplot = gp;
  run.idle_timeout_ms = 20000;
  bs_error err;
  long long t0 = bs__now_ms();
  cr_expect_eq(bs_plot_render(p, dir, &run, &err), BS_OK, "%s", err.message);
  long long ms = bs__now_ms() - t0;
  bs_plot_free(p);
  cr_expect_lt(ms, 10000, "took %lld ms", ms);
  long sleeper = pid_in(ts_pathf("%s/pid", dir));
  int dead = dead_within(sleeper, 1000);
  if (!dead)
    kill((pid_t)sleeper, SIGKILL);
  cr_expect(dead, "the sleep (%ld) outlived the render", sleeper);
}
