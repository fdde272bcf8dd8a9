/* benchsite run and benchsite manifest end to end: library mode (private
 * copies, calibration, rotation, digests, faults), command mode (argv with
 * no shell), A/A runs, and that compare, check, noise and archive add take
 * the output as it is. Kept short: the Development protocol and few
 * blocks. */
#include <criterion/criterion.h>

#include "benchsite/benchsite.h"

#include "support.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void fini(void) { ts_free_owned(); }
TestSuite(run, .fini = fini);
TestSuite(run_faults, .fini = fini);
TestSuite(run_cmd, .fini = fini);
TestSuite(manifest, .fini = fini);

static char *lib(const char *variant) {
  return ts_pathf("%s/librunlib_%s.so", RUNLIB_DIR, variant);
}

static char *impl(const char *name, const char *target) {
  return ts_pathf("%s=%s", name, target);
}

/* A row of a log that run wrote: its fields, split at commas outside
 * quotes (the test names hold no comma). */
typedef struct row {
  char f[11][128];
} row;

static size_t read_rows(const char *path, row *rows, size_t max) {
  char *text = ts_own(ts_read(path, NULL));
  size_t n = 0;
  char *line = strchr(text, '\n') + 1; /* the header */
  while (*line && n < max) {
    char *end = strchr(line, '\n');
    cr_assert_not_null(end);
    *end = '\0';
    size_t k = 0, o = 0;
    memset(&rows[n], 0, sizeof rows[n]);
    for (char *p = line; *p; p++) {
      if (*p == '"')
        continue;
      if (*p == ',') {
        k++;
        o = 0;
        cr_assert(k < 11);
        continue;
      }
      if (o < 127)
        rows[n].f[k][o++] = *p;
    }
    n++;
    line = end + 1;
  }
  return n;
}

enum {
  F_BENCH,
  F_DATA,
  F_SCALE,
  F_IMPL,
  F_RUN,
  F_BLOCK,
  F_PHASE,
  F_N,
  F_PC,
  F_CPU,
  F_RSS
};

static ts_run run_cli(const char *cwd, const char *const *args) {
  return ts_cli(cwd, args);
}

Test(run, library_log_is_calibrated_rotated_and_check_finds_nothing) {
  char *dir = ts_own(ts_tmpdir("run_lib"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *env = ts_own(ts_path(dir, "env.csv"));
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--manifest-out",
                        env,
                        "--blocks",
                        "4",
                        "--seed",
                        "1",
                        "--lib",
                        impl("a", lib("ok")),
                        "--lib",
                        impl("b", lib("ok")),
                        "--lib",
                        impl("c", lib("extra")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  cr_expect(strstr(r.err, "extra [only here]: only impl c has it; skipped"),
            "%s", r.err);
  cr_expect(strstr(r.out, "2 cases, 3 impls, 1 run of 4 blocks"), "%s", r.out);
  ts_run_free(&r);

  char *text = ts_own(ts_read(log, NULL));
  const char *header = "benchmark,dataset,scale,impl,run,block,phase,"
                       "iterations,per_call_us,cpu_per_call_us\n";
  cr_expect(!strncmp(text, header, strlen(header)), "%.200s", text);
  static row rows[4096];
  size_t n = read_rows(log, rows, 4096);
  cr_assert_gt(n, 0);
  /* The rule, recomputed here: n_0 = 1, n' = min(1e9, max(n + 1,
   * ceil(n T / t))) while t < T, T = 5000 us; confirm batches = the
   * largest last step of the three (one batch size per case), unless the
   * fastest steps' per-call times differ by more than 4x (then each its
   * own); block j starts with impl (j + 1) mod 3 (seed 1). */
  const char *impls[] = {"a", "b", "c"};
  size_t i = 0, cases = 0;
  while (i < n) {
    const char *bench = rows[i].f[F_BENCH];
    uint64_t last[3] = {0, 0, 0};
    double fastest[3] = {0, 0, 0};
    for (size_t p = 0; p < 3; p++) {
      size_t want = (1 + p) % 3;
      uint64_t k = 1;
      cr_assert_str_eq(rows[i].f[F_PHASE], "calibration");
      for (;;) {
        cr_assert_str_eq(rows[i].f[F_IMPL], impls[want]);
        cr_assert_str_eq(rows[i].f[F_BENCH], bench);
        cr_assert_str_eq(rows[i].f[F_PHASE], "calibration");
        cr_assert_eq(strtoull(rows[i].f[F_N], NULL, 10), k);
        cr_assert_str_eq(rows[i].f[F_BLOCK], "");
        double t = (double)k * strtod(rows[i].f[F_PC], NULL);
        if (k == 1 || t / (double)k < fastest[want])
          fastest[want] = t / (double)k;
        cr_assert_str_eq(rows[i].f[F_CPU], "", "calibration rows: no CPU");
        i++;
        if (!(t < 5000.0 && k < 1000000000))
          break;
        double next = ceil((double)k * 5000.0 / t);
        k = next > (double)(k + 1) ? (uint64_t)next : k + 1;
        if (k > 1000000000)
          k = 1000000000;
      }
      last[want] = k;
    }
    uint64_t widest = last[0] > last[1] ? last[0] : last[1];
    widest = widest > last[2] ? widest : last[2];
    double lo = fastest[0], hi = fastest[0];
    for (size_t p = 1; p < 3; p++) {
      lo = fastest[p] < lo ? fastest[p] : lo;
      hi = fastest[p] > hi ? fastest[p] : hi;
    }
    int apart = hi > 4 * lo;
    for (size_t j = 0; j < 4; j++) {
      for (size_t p = 0; p < 3; p++, i++) {
        size_t want = (j + 1 + p) % 3;
        cr_assert_str_eq(rows[i].f[F_PHASE], "confirm");
        cr_assert_str_eq(rows[i].f[F_IMPL], impls[want]);
        cr_assert_eq(strtoull(rows[i].f[F_BLOCK], NULL, 10), j);
        cr_assert_eq(strtoull(rows[i].f[F_N], NULL, 10),
                     apart ? last[want] : widest);
        cr_assert_str_eq(rows[i].f[F_RUN], "0");
        char *end;
        double cpu = strtod(rows[i].f[F_CPU], &end);
        cr_assert(end != rows[i].f[F_CPU] && !*end && cpu >= 0, "cpu \"%s\"",
                  rows[i].f[F_CPU]);
      }
    }
    cases++;
  }
  cr_expect_eq(cases, 2);
  cr_expect_str_eq(rows[0].f[F_BENCH], "add");
  cr_expect_str_eq(rows[0].f[F_SCALE], "8");

  const char *chk[] = {"check", log, "--manifest", env, NULL};
  r = run_cli(NULL, chk);
  cr_expect_eq(r.status, 0, "check: %s%s", r.out, r.err);
  cr_expect(strstr(r.out, "0 findings"), "%s", r.out);
  ts_run_free(&r);
}

Test(run, the_same_library_twice_loads_two_independent_copies) {
  /* Each copy's digest counts the setups its own global saw: shared
   * globals would make the two digests differ and the run fail. */
  char *dir = ts_own(ts_tmpdir("run_copies"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--blocks",
                        "2",
                        "--lib",
                        impl("A", lib("ok")),
                        "--lib",
                        impl("B", lib("ok")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  cr_expect(ts_exists(log));
}

Test(run, example_regression_gates_and_outputs_are_accepted_as_they_are) {
  char *dir = ts_own(ts_tmpdir("run_example"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *env = ts_own(ts_path(dir, "env.csv"));
  char *arch = ts_own(ts_path(dir, "archive"));
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--manifest-out",
                        env,
                        "--profile",
                        "release",
                        "--dtype",
                        "u64",
                        "--commit",
                        "abc123",
                        "--blocks",
                        "20",
                        "--lib",
                        impl("base", BENCHLIB_BASE),
                        "--lib",
                        impl("head", BENCHLIB_HEAD),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);

  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(m, env, &err), BS_OK, "%s", err.message);
  cr_expect_str_eq(bs_manifest_get(m, "baseline"), "base");
  cr_expect_str_eq(bs_manifest_get(m, "candidate"), "head");
  cr_expect_str_eq(bs_manifest_get(m, "protocol"), "Development");
  cr_expect_str_eq(bs_manifest_get(m, "target"), "native");
  cr_expect_str_eq(bs_manifest_get(m, "commit"), "abc123");
  cr_expect_null(bs_manifest_get(m, "aa_a"));
  bs_manifest_free(m);

  const char *cmp[] = {"compare", log, "--manifest", env, NULL};
  r = run_cli(NULL, cmp);
  cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
  /* The planted regression; on a busy machine an unchanged case may add a
   * verdict of its own, so only this one is asserted. */
  const char *sum = strstr(r.out, "sum [n=4096]");
  cr_expect(sum && strstr(sum, "REGRESSION") &&
                strstr(sum, "REGRESSION") < strchr(sum, '\n'),
            "%s", r.out);
  ts_run_free(&r);
  const char *chk[] = {"check", log, "--manifest", env, NULL};
  r = run_cli(NULL, chk);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  const char *add[] = {"archive", "add",        "--archive", arch,
                       log,       "--manifest", env,         NULL};
  r = run_cli(NULL, add);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
}

Test(run, aa_runs_give_a_log_noise_reads_directly) {
  char *dir = ts_own(ts_tmpdir("run_aa"));
  char *log = ts_own(ts_path(dir, "aa.csv"));
  char *env = ts_own(ts_path(dir, "aa-env.csv"));
  char *json = ts_own(ts_path(dir, "noise.json"));
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--manifest-out",
                        env,
                        "--runs",
                        "40",
                        "--blocks",
                        "2",
                        "--filter",
                        "mul",
                        "--lib",
                        impl("A", lib("ok")),
                        "--lib",
                        impl("B", lib("ok")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  static row rows[8192];
  size_t n = read_rows(log, rows, 8192);
  cr_expect_str_eq(rows[n - 1].f[F_RUN], "39");
  for (size_t i = 0; i < n; i++)
    cr_assert_str_eq(rows[i].f[F_BENCH], "mul");

  const char *noise[] = {"noise", log, "--manifest", env, "--json", json, NULL};
  r = run_cli(NULL, noise);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
  char *j = ts_own(ts_read(json, NULL));
  cr_expect(strstr(j, "\"runs\": 40"), "%s", j);
  cr_expect(strstr(j, "\"a\": \"A\""), "%s", j);
  const char *chk[] = {"check", log, "--manifest", env, NULL};
  r = run_cli(NULL, chk);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
}

/* ---- faults: a message naming impl and case, the status, and no file -- */

static char *expect_fault(const char *variant, const char *timeout, int status,
                          const char *const *needles) {
  char *dir = ts_own(ts_tmpdir("run_fault"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *env = ts_own(ts_path(dir, "env.csv"));
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--manifest-out",
                        env,
                        "--blocks",
                        "2",
                        "--timeout",
                        timeout,
                        "--lib",
                        impl("good", lib("ok")),
                        "--lib",
                        impl("bad", lib(variant)),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, status, "%s: status %d: %s", variant, r.status, r.err);
  for (size_t i = 0; needles[i]; i++)
    cr_expect(strstr(r.err, needles[i]), "%s: no \"%s\" in: %s", variant,
              needles[i], r.err);
  cr_expect_eq(ts_count_entries(dir), 0, "%s: nothing written", variant);
  char *stderr_text = ts_own(strdup(r.err));
  ts_run_free(&r);
  return stderr_text;
}

Test(run_faults, a_crash_names_impl_and_case) {
  const char *n[] = {"bad: add [n=8]: a calibration batch of 1 calls, run 0",
                     "the measuring process", NULL};
  char *e = expect_fault("crash", "600", 2, n);
  /* Under AddressSanitizer its SEGV handler reports and exits instead. */
  if (!strstr(e, "AddressSanitizer"))
    cr_expect(strstr(e, "crashed: it was killed by signal 11"), "%s", e);
}

Test(run_faults, a_hang_is_killed_at_the_timeout) {
  const char *n[] = {"bad: add [n=8]", "did not finish within 0.5 s", NULL};
  expect_fault("hang", "0.5", 2, n);
}

Test(run_faults, a_library_that_exits_is_reported) {
  const char *n[] = {"bad: add [n=8]", "exited with status 3", NULL};
  expect_fault("exit", "600", 2, n);
}

Test(run_faults, a_wrong_answer_fails_with_status_1) {
  const char *n[] = {"bad computes a different result from good on add [n=8]",
                     NULL};
  expect_fault("wrong", "600", 1, n);
}

Test(run_faults, a_missing_symbol_is_named) {
  const char *n[] = {"bad: the library", "does not define benchsite_cases",
                     NULL};
  expect_fault("nosym", "600", 2, n);
}

Test(run_faults, an_abi_mismatch_is_named) {
  const char *n[] = {"bad: the library", "refuses harness ABI version 1", NULL};
  expect_fault("abi", "600", 2, n);
}

Test(run_faults, a_library_that_does_not_exist) {
  const char *n[] = {"bad: cannot open the library", NULL};
  expect_fault("does_not_exist", "600", 2, n);
}

Test(run_faults, usage_errors_exit_2) {
  char *dir = ts_own(ts_tmpdir("run_usage"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *mixed[] = {"run",   "--out",  log, "--lib", impl("a", lib("ok")),
                         "--cmd", "b=true", NULL};
  const char *twice[] = {"run",
                         "--out",
                         log,
                         "--lib",
                         impl("a", lib("ok")),
                         "--lib",
                         impl("a", lib("ok")),
                         NULL};
  const char *noout[] = {"run", "--lib", impl("a", lib("ok")), NULL};
  const char *proto[] = {
      "run", "--out", log, "--protocol", "Fast", "--lib", impl("a", lib("ok")),
      NULL};
  const char *const *all[] = {mixed, twice, noout, proto};
  for (size_t i = 0; i < 4; i++) {
    ts_run r = run_cli(NULL, all[i]);
    cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
    ts_run_free(&r);
  }
  cr_expect_eq(ts_count_entries(dir), 0);
}

/* ---- command mode -------------------------------------------------------- */

Test(run_cmd, arguments_reach_the_program_as_literal_text) {
  char *dir = ts_own(ts_tmpdir("run_cmd"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *dump = ts_own(ts_path(dir, "argv.txt"));
  ts_write(ts_own(ts_path(dir, "somefile")), "x");
  char *cmd = ts_pathf("A=%s %s $(touch F) `touch G` ; * ~ ~/x $HOME "
                       "'a b  c' \"d \\\"e\\\" \\\\ $f\" g\\ h '' x|y >z",
                       RUN_ARGV_DUMP, dump);
  const char *args[] = {"run",         "--out", log,     "--blocks", "2",
                        "--benchmark", "dump",  "--cmd", cmd,        NULL};
  ts_run r = run_cli(dir, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  char *got = ts_own(ts_read(dump, NULL));
  cr_expect_str_eq(got, "$(touch\nF)\n`touch\nG`\n;\n*\n~\n~/x\n$HOME\n"
                        "a b  c\nd \"e\" \\ $f\ng h\n\nx|y\n>z\n");
  cr_expect(!ts_exists(ts_own(ts_path(dir, "F"))), "no shell ran $(touch F)");
  cr_expect(!ts_exists(ts_own(ts_path(dir, "G"))), "no shell ran `touch G`");
  cr_expect(!ts_exists(ts_own(ts_path(dir, "z"))), "no redirection");
  static row rows[1024];
  size_t n = read_rows(log, rows, 1024);
  cr_expect_str_eq(rows[0].f[F_BENCH], "dump");
  cr_expect_str_eq(rows[n - 1].f[F_PHASE], "confirm");
  const char *chk[] = {"check", log, NULL};
  r = run_cli(NULL, chk);
  cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
  ts_run_free(&r);
}

Test(run_cmd, the_case_defaults_to_the_program_name) {
  char *dir = ts_own(ts_tmpdir("run_cmd_name"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *args[] = {"run",    "--out",     log,           "--blocks",
                        "2",      "--dataset", "nothing",     "--cmd",
                        "a=true", "--cmd",     "b=/bin/true", NULL};
  ts_run r = run_cli(NULL, args);
  cr_assert_eq(r.status, 0, "stderr: %s", r.err);
  ts_run_free(&r);
  static row rows[1024];
  size_t n = read_rows(log, rows, 1024);
  for (size_t i = 0; i < n; i++) {
    cr_assert_str_eq(rows[i].f[F_BENCH], "true");
    cr_assert_str_eq(rows[i].f[F_DATA], "nothing");
  }
}

Test(run_cmd, a_failing_command_names_impl_batch_and_status) {
  char *dir = ts_own(ts_tmpdir("run_cmd_fail"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *args[] = {"run",     "--out", log,        "--cmd",
                        "ok=true", "--cmd", "no=false", NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "no: true: a calibration batch of 1 runs, run 0"),
            "%s", r.err);
  cr_expect(strstr(r.err, "exited with status 1"), "%s", r.err);
  ts_run_free(&r);
  const char *missing[] = {
      "run", "--out", log, "--cmd", "x=benchsite-test-no-such-program", NULL};
  r = run_cli(NULL, missing);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "cannot be started"), "%s", r.err);
  ts_run_free(&r);
  const char *quote[] = {"run", "--out", log, "--cmd", "x=true 'open", NULL};
  r = run_cli(NULL, quote);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "unterminated quote"), "%s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(dir), 0);
}

Test(run_cmd, split_command_rules) {
  char **v;
  size_t n;
  bs_error err;
  cr_assert_eq(bs_run_split_command("  a\t'b c'\"d\"e\\ f  ", &v, &n, &err),
               BS_OK);
  cr_assert_eq(n, 2);
  cr_expect_str_eq(v[0], "a");
  cr_expect_str_eq(v[1], "b cde f");
  cr_expect_null(v[2]);
  free(v);
  cr_expect_eq(bs_run_split_command("   ", &v, &n, &err), BS_EUSAGE);
  cr_expect_eq(bs_run_split_command("a\\", &v, &n, &err), BS_EUSAGE);
  cr_expect_eq(bs_run_split_command("a \"b", &v, &n, &err), BS_EUSAGE);
}

/* ---- manifest ------------------------------------------------------------ */

Test(manifest, hostile_values_round_trip_through_the_reader) {
  char *dir = ts_own(ts_tmpdir("manifest"));
  char *out = ts_own(ts_path(dir, "env.csv"));
  const char *args[] = {"manifest",
                        "--out",
                        out,
                        "--protocol",
                        "RegressionGate",
                        "--aa",
                        "A,B",
                        "--baseline-commit",
                        "b0",
                        "--set",
                        "note=a \"quoted\", comma, \\n and caf\xc3\xa9",
                        "--set",
                        "machine=ci-runner-1",
                        NULL};
  setenv("SOURCE_DATE_EPOCH", "1700000000", 1);
  ts_run r = run_cli(dir, args);
  unsetenv("SOURCE_DATE_EPOCH");
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(m, out, &err), BS_OK, "%s", err.message);
  /* A line break is refused (test_hardening.c): a value is one line. */
  cr_expect_str_eq(bs_manifest_get(m, "note"),
                   "a \"quoted\", comma, \\n and caf\xc3\xa9");
  cr_expect_str_eq(bs_manifest_get(m, "machine"), "ci-runner-1");
  cr_expect_str_eq(bs_manifest_get(m, "date"), "2023-11-14T22:13:20Z");
  cr_expect_str_eq(bs_manifest_get(m, "protocol"), "RegressionGate");
  cr_expect_str_eq(bs_manifest_get(m, "aa_a"), "A");
  cr_expect_str_eq(bs_manifest_get(m, "aa_b"), "B");
  cr_expect_str_eq(bs_manifest_get(m, "baseline_commit"), "b0");
  cr_expect_str_eq(bs_manifest_get(m, "target"), "native");
  /* The test directory lies in the source tree's work tree (when that is a
   * git checkout): `git rev-parse HEAD` gives a hex commit id. */
  const char *commit = bs_manifest_get(m, "commit");
  if (commit)
    cr_expect_eq(strspn(commit, "0123456789abcdef"), strlen(commit), "%s",
                 commit);
  const char *keys[] = {"frequency_policy", "kernel", "cpus", "memory_mib"};
  for (size_t i = 0; i < 4; i++)
    cr_expect_not_null(bs_manifest_get(m, keys[i]), "%s", keys[i]);
  bs_manifest_free(m);
}

Test(manifest, machine_is_arch_model_and_cpus) {
  /* An independent reading of uname and /proc/cpuinfo. */
  char model[256] = "", line[1024];
  long cpus = 0;
  FILE *f = fopen("/proc/cpuinfo", "r");
  cr_assert_not_null(f);
  while (fgets(line, sizeof line, f)) {
    if (!strncmp(line, "processor", 9))
      cpus++;
    char *c = strchr(line, ':');
    if (!model[0] && !strncmp(line, "model name", 10) && c) {
      snprintf(model, sizeof model, "%s", c + 2);
      model[strcspn(model, "\n")] = '\0';
    }
  }
  fclose(f);
  char *dir = ts_own(ts_tmpdir("manifest_machine"));
  char *out = ts_own(ts_path(dir, "env.csv"));
  const char *args[] = {"manifest", "--out", out, NULL};
  ts_run r = run_cli(dir, args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  bs_manifest *m = bs_manifest_new();
  bs_error err;
  cr_assert_eq(bs_manifest_read_file(m, out, &err), BS_OK, "%s", err.message);
  struct utsname u;
  cr_assert_eq(uname(&u), 0);
  char *want = ts_pathf("%s %s \xc3\x97%ld", u.machine, model, cpus);
  cr_expect_str_eq(bs_manifest_get(m, "machine"), want);
  bs_manifest_free(m);
}

Test(manifest, bad_options_exit_2_and_write_nothing) {
  char *dir = ts_own(ts_tmpdir("manifest_bad"));
  char *out = ts_own(ts_path(dir, "env.csv"));
  const char *aa[] = {"manifest", "--out", out, "--aa", "A", NULL};
  const char *set[] = {"manifest", "--out", out, "--set", "=x", NULL};
  const char *proto[] = {"manifest", "--out", out, "--protocol", "x", NULL};
  const char *const *all[] = {aa, set, proto};
  for (size_t i = 0; i < 3; i++) {
    ts_run r = run_cli(NULL, all[i]);
    cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
    ts_run_free(&r);
  }
  cr_expect_eq(ts_count_entries(dir), 0);
}

Test(run_cmd, google_benchmark_faults_name_impl_and_block) {
  char *dir = ts_own(ts_tmpdir("run_gb_fault"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *empty[] = {"run",    "--out", log, "--google-benchmark",
                         "a=true", NULL};
  ts_run r = run_cli(NULL, empty);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "a: block 0 of run 0: the program printed no "
                          "Google Benchmark report"),
            "%s", r.err);
  ts_run_free(&r);
  const char *fails[] = {"run",     "--out", log, "--google-benchmark",
                         "a=false", NULL};
  r = run_cli(NULL, fails);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "a: block 0 of run 0: the program exited with "
                          "status 1"),
            "%s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(dir), 0);
}

Test(run_cmd, out_dash_is_standard_output_and_a_directory_is_refused) {
  char *dir = ts_own(ts_tmpdir("run_stdout"));
  const char *args[] = {"run", "--out", "-",      "--blocks",
                        "2",   "--cmd", "a=true", NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(!strncmp(r.out, "benchmark,dataset,scale,impl,", 29), "%s", r.out);
  cr_expect(strstr(r.err, "rows written to -"), "%s", r.err);
  ts_run_free(&r);
  const char *todir[] = {"run", "--out", dir, "--cmd", "a=true", NULL};
  r = run_cli(NULL, todir);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "exists and is not a regular file"), "%s", r.err);
  ts_run_free(&r);
}

Test(run, help_lists_run_and_manifest) {
  const char *top[] = {"--help", NULL};
  ts_run r = run_cli(NULL, top);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "\n  run      --out LOG"), "%s", r.out);
  cr_expect(strstr(r.out, "\n  manifest [--out M]"), "%s", r.out);
  ts_run_free(&r);
  const char *run[] = {"run", "--help", NULL};
  r = run_cli(NULL, run);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "usage: benchsite run --out LOG"), "%s", r.out);
  ts_run_free(&r);
  const char *mf[] = {"help", "manifest", NULL};
  r = run_cli(NULL, mf);
  cr_expect_eq(r.status, 0);
  cr_expect(strstr(r.out, "usage: benchsite manifest"), "%s", r.out);
  ts_run_free(&r);
}

/* ---- what a hostile or unlucky benchmark does (review of issue 9) -------- */

Test(run_faults, a_library_printing_megabytes_leaves_the_log_on_stdout_clean) {
  const char *args[] = {"run",      "--out", "-",
                        "--blocks", "1",     "--filter",
                        "add",      "--lib", impl("a", lib("print")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  /* Standard output is the log and only the log; the library's output
   * goes to standard error, all of it (no pipe filled up). */
  cr_expect(!strncmp(r.out, "benchmark,dataset,scale,impl,", 29), "%.200s",
            r.out);
  cr_expect(!strstr(r.out, "testlib output"), "%.200s", r.out);
  cr_expect(strstr(r.err, "testlib output line 39999 on stdout"));
  cr_expect(strstr(r.err, "testlib output line 39999 on stderr"));
  ts_run_free(&r);
}

/* Whether process pid is gone (a zombie counts: it runs no more). */
static int process_gone(long pid) {
  char path[64], text[256];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 1;
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  const char *p = strrchr(text, ')');
  return p && (p[2] == 'Z' || p[2] == 'X');
}

Test(run_faults, a_process_a_library_leaves_running_ends_with_the_run) {
  char *dir = ts_own(ts_tmpdir("run_fork"));
  char *pidfile = ts_own(ts_path(dir, "pid"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  setenv("TESTLIB_PIDFILE", pidfile, 1);
  const char *args[] = {"run",      "--out", log,
                        "--blocks", "1",     "--filter",
                        "add",      "--lib", impl("a", lib("fork")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *text = ts_own(ts_read(pidfile, NULL));
  long pid = strtol(text, NULL, 10);
  cr_assert(pid > 1);
  int gone = 0;
  for (int i = 0; i < 200 && !(gone = process_gone(pid)); i++)
    nanosleep(&(struct timespec){0, 10000000}, NULL);
  if (!gone)
    kill((pid_t)pid, SIGKILL);
  cr_expect(gone, "the library's process %ld outlived the run", pid);
}

Test(run_faults, no_writable_tmpdir_is_needed_and_no_copy_is_left) {
  char *dir = ts_own(ts_tmpdir("run_tmpdir"));
  char *tmp = ts_own(ts_path(dir, "tmp"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  /* A TMPDIR that does not exist: the private copies need none. */
  setenv("TMPDIR", tmp, 1);
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--blocks",
                        "1",
                        "--lib",
                        impl("a", lib("ok")),
                        "--lib",
                        impl("b", lib("ok")),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(dir), 1, "only the log");
}

Test(run_faults, an_output_that_is_an_impls_library_or_program_is_refused) {
  char *dir = ts_own(ts_tmpdir("run_own_input"));
  char *copy = ts_own(ts_path(dir, "lib.so"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  size_t len = 0;
  char *bytes = ts_own(ts_read(lib("ok"), &len));
  FILE *f = fopen(copy, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(bytes, 1, len, f), len);
  fclose(f);
  /* The same file under another spelling of its name, as the log or the
   * manifest. */
  char *other = ts_pathf("%s/./lib.so", dir);
  const char *out[] = {"run", "--out", other,           "--blocks",
                       "1",   "--lib", impl("a", copy), NULL};
  const char *mout[] = {"run",      "--out", log,     "--manifest-out", copy,
                        "--blocks", "1",     "--lib", impl("a", copy),  NULL};
  const char *cmd[] = {"run",
                       "--out",
                       RUN_ARGV_DUMP,
                       "--blocks",
                       "1",
                       "--cmd",
                       impl("a", RUN_ARGV_DUMP),
                       NULL};
  const char *const *all[] = {out, mout, cmd};
  for (size_t i = 0; i < 3; i++) {
    ts_run r = run_cli(NULL, all[i]);
    cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
    cr_expect(strstr(r.err, "is what impl a runs: it would be overwritten") ||
                  strstr(r.err, "would destroy"),
              "case %zu: %s", i, r.err);
    ts_run_free(&r);
  }
  size_t now = 0;
  char *after = ts_own(ts_read(copy, &now));
  cr_expect(now == len && !memcmp(after, bytes, len), "the library is intact");
  cr_expect_eq(ts_count_entries(dir), 1);
}

Test(run_faults, an_output_in_a_missing_directory_is_refused_before_measuring) {
  char *dir = ts_own(ts_tmpdir("run_missing_dir"));
  char *log = ts_pathf("%s/no/such/log.csv", dir);
  char *mf = ts_pathf("%s/no/env.csv", dir);
  /* A hanging library: only a refusal before measuring ends quickly. */
  const char *run[] = {
      "run", "--out", log, "--timeout", "30", "--lib", impl("a", lib("hang")),
      NULL};
  const char *man[] = {"manifest", "--out", mf, NULL};
  const char *const *all[] = {run, man};
  for (size_t i = 0; i < 2; i++) {
    ts_run r = run_cli(NULL, all[i]);
    cr_expect_eq(r.status, 2, "case %zu: %s", i, r.err);
    cr_expect(strstr(r.err, "no such directory"), "case %zu: %s", i, r.err);
    ts_run_free(&r);
  }
  cr_expect_eq(ts_count_entries(dir), 0);
}

/* A Google Benchmark stand-in: a script that prints one report and then
 * does `tail` (shell words). */
static char *gb_script(const char *dir, const char *name, const char *tail) {
  char *path = ts_own(ts_path(dir, name));
  char *text =
      ts_pathf("#!/bin/sh\n"
               "echo '{\"benchmarks\":[{\"name\":\"BM_x/8\",\"run_type\":"
               "\"iteration\",\"iterations\":10,\"real_time\":3,\"cpu_time\":"
               "2.5,\"time_unit\":\"ms\"}]}'\n%s\n",
               tail);
  cr_assert_eq(ts_write(path, text), 0);
  cr_assert_eq(chmod(path, 0755), 0);
  return path;
}

Test(run_cmd, google_benchmark_that_closes_its_output_and_hangs_times_out) {
  char *dir = ts_own(ts_tmpdir("run_gb_hang"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *prog = gb_script(dir, "gb.sh", "exec >&-\nexec sleep 30");
  const char *args[] = {"run",           "--out", log,
                        "--timeout",     "0.5",   "--google-benchmark",
                        impl("a", prog), NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s", r.err);
  cr_expect(strstr(r.err, "a: block 0 of run 0: the program did not finish "
                          "within 0.5 s"),
            "%s", r.err);
  ts_run_free(&r);
  cr_expect(!ts_exists(log));
}

Test(run_cmd, google_benchmark_leaving_a_process_behind_is_not_a_hang) {
  char *dir = ts_own(ts_tmpdir("run_gb_bg"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  /* It exits, but what it started still holds its output open. */
  char *prog = gb_script(dir, "gb.sh", "sleep 30 &");
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--timeout",
                        "5",
                        "--blocks",
                        "2",
                        "--google-benchmark",
                        impl("a", prog),
                        NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *text = ts_own(ts_read(log, NULL));
  cr_expect(strstr(text, "\"BM_x\",\"8\",,\"a\",0,1,confirm,10,3000,2500\n"),
            "%s", text);
}

Test(run_cmd, google_benchmark_filter_is_the_same_substring_as_filter) {
  char *dir = ts_own(ts_tmpdir("run_gb_filter"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *args_file = ts_own(ts_path(dir, "args"));
  /* The stand-in keeps its argv; regular expression characters in
   * --filter must reach Google Benchmark escaped (a substring). */
  char *tail = ts_pathf("printf '%%s\\n' \"$@\" > '%s'", args_file);
  char *prog = gb_script(dir, "gb.sh", tail);
  const char *args[] = {"run",
                        "--out",
                        log,
                        "--blocks",
                        "1",
                        "--filter",
                        "M_x/8(.+*?[{|^$\\",
                        "--google-benchmark",
                        impl("a", prog),
                        NULL};
  ts_run r = run_cli(NULL, args);
  ts_run_free(&r);
  char *got = ts_own(ts_read(args_file, NULL));
  cr_expect(strstr(got, "\n--benchmark_filter=M_x/8\\(\\.\\+\\*\\?\\[\\{\\|"
                        "\\^\\$\\\\\n"),
            "%s", got);
}

Test(run_cmd, google_benchmark_with_no_report_says_so) {
  char *dir = ts_own(ts_tmpdir("run_gb_none"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  const char *args[] = {"run",      "--out",   log,
                        "--filter", "nothing", "--google-benchmark",
                        "a=true",   NULL};
  ts_run r = run_cli(NULL, args);
  cr_expect_eq(r.status, 2);
  cr_expect(strstr(r.err, "a: block 0 of run 0: the program printed no Google "
                          "Benchmark report (does --filter match none of its "
                          "benchmarks?)"),
            "%s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(dir), 0);
}
