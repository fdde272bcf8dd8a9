/* benchsite run with a harness (src/run/run_harness.c and its adapters
 * run_gbench.c, run_pytest.c, run_gobench.c) as real projects run it
 * (issue 36): the user's own selection kept, case names that keep the
 * package or module, fields benchsite does not use left unread, output
 * not buffered where the report is a file, reports read within a bound of
 * their size, a failing program quoted, --blocks as pairs, and the duet.
 * Each harness is a stand-in script that records its arguments and prints
 * a report in that harness's format. */
#define _GNU_SOURCE /* sched_setaffinity */
#include <criterion/criterion.h>

#include "benchsite/benchsite.h"

#include "run_harness.h"
#include "support.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static void fini(void) { ts_free_owned(); }
TestSuite(run_harness, .fini = fini);

/* A script in dir: "#!/bin/sh" and body. */
static char *script(const char *dir, const char *name, const char *body) {
  char *path = ts_own(ts_path(dir, name));
  cr_assert_eq(ts_write(path, ts_pathf("#!/bin/sh\n%s", body)), 0);
  cr_assert_eq(chmod(path, 0755), 0);
  return path;
}

/* Sets f to the file pytest-benchmark is told to write. */
#define PYTEST_JSON                                                            \
  "for a; do case $a in --benchmark-json=*) f=${a#--benchmark-json=};; "       \
  "esac; done\n"

#define GB_ENTRY(name)                                                         \
  "{\"name\":\"" name "\",\"run_type\":\"iteration\",\"iterations\":10,"       \
  "\"real_time\":3,\"cpu_time\":2,\"time_unit\":\"ms\"}"
#define PB_ENTRY(name, param)                                                  \
  "{\"name\":\"" name "\",\"param\":" param ",\"stats\":{\"mean\":9e-06,"      \
  "\"median\":1.5e-06,\"rounds\":10,\"iterations\":4}}"

static char *impl(const char *name, const char *target) {
  return ts_pathf("%s=%s", name, target);
}

/* How many times needle occurs in s. */
static size_t occurs(const char *s, const char *needle) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
    n++;
  return n;
}

/* ---- the user's own selection ------------------------------------------- */

/* Each harness's selection flag, given by the user, reaches the harness as
 * written, with no selection of the adapter's after it (go, pytest and
 * Google Benchmark keep the last of a flag given twice), the adapter's
 * words go before go test's -args and pytest's "--", and --filter picks
 * among what the harness reports. */
Test(run_harness, the_users_own_selection_is_kept_and_filter_picks_in_it) {
  static const struct {
    const char *option, *prog, *words, *filter, *args, *keep, *drop;
  } t[] = {
      {"--go-bench", "u.test",
       "-test.bench=^BenchmarkU$ -test.benchtime=50ms -benchdataDir DATA",
       "U/1$",
       "-test.bench=^BenchmarkU$\n-test.benchtime=50ms\n-benchdataDir\nDATA\n"
       "-test.run=^$\n-test.count=1\n-test.benchmem\n",
       "\"BenchmarkU\",\"1\",", "\"10\""},
      {"--go-bench", "go",
       "test -bench Sum -benchtime=20ms ./... -args -benchdataDir DATA", "U/1$",
       "test\n-bench\nSum\n-benchtime=20ms\n./...\n-run=^$\n-count=1\n"
       "-benchmem\n-args\n-benchdataDir\nDATA\n",
       "\"BenchmarkU\",\"1\",", "\"11\""},
      {"--google-benchmark", "gb",
       "--benchmark_filter=BM_U --benchmark_min_time=0.01", "^BM_UFlat/1$",
       "--benchmark_filter=BM_U\n--benchmark_min_time=0.01\n"
       "--benchmark_format=json\n--benchmark_repetitions=1\n",
       "\"BM_UFlat\",\"1\",", "\"10\""},
      {"--pytest-benchmark", "pt", "-k u_1 -q -- tests/", "^test_u/1$", NULL,
       "\"test_u\",\"1\",", "\"10\""},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char *dir = ts_own(ts_tmpdir("run_harness_select"));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *argsf = ts_own(ts_path(dir, "args"));
    const char *report =
        !strcmp(t[i].option, "--go-bench")
            ? "printf 'BenchmarkU/1-2 \\t 10\\t 5 ns/op\\nBenchmarkU/10-2 \\t "
              "10\\t 5 ns/op\\nBenchmarkU/11-2 \\t 10\\t 5 ns/op\\nPASS\\n'\n"
        : !strcmp(t[i].option, "--google-benchmark")
            ? "echo '{\"benchmarks\":[" GB_ENTRY("BM_UFlat/1") "," GB_ENTRY(
                  "BM_UFlat/10") "]}'\n"
            : PYTEST_JSON "echo '{\"benchmarks\":[" PB_ENTRY(
                  "test_u[1]", "\"1\"") "," PB_ENTRY("test_u[10]",
                                                     "\"10\"") "]}' > \"$f\"\n";
    char *prog =
        script(dir, t[i].prog,
               ts_pathf("printf '%%s\\n' \"$@\" > '%s'\n%s", argsf, report));
    const char *args[] = {"run",
                          "--out",
                          log,
                          "--blocks",
                          "1",
                          "--filter",
                          t[i].filter,
                          t[i].option,
                          impl("a", ts_pathf("%s %s", prog, t[i].words)),
                          NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "%zu: %s", i, r.err);
    ts_run_free(&r);
    char *got = ts_exists(argsf) ? ts_own(ts_read(argsf, NULL)) : "";
    if (t[i].args) {
      cr_expect_str_eq(got, t[i].args, "%zu", i);
    } else {
      /* pytest: the user's -k once, benchsite's flags before "--" */
      cr_expect(!strncmp(got, "-k\nu_1\n-q\n--benchmark-json=/", 27), "%s",
                got);
      cr_expect(strstr(got, "/storage\n--\ntests/\n"), "%s", got);
      cr_expect_eq(occurs(got, "-k\n"), 1, "%s", got);
    }
    char *text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
    cr_expect(strstr(text, t[i].keep), "%zu: %s", i, text);
    cr_expect(!strstr(text, t[i].drop), "%zu: %s", i, text);
  }
}

/* Without a -bench of the user's, an anchored --filter that names a go
 * benchmark function, with its package or without, becomes -bench for
 * that function only (a superset of the filter); any other runs every
 * benchmark. A filter that matches none of the names is an error that
 * shows one name as the programs report it. */
Test(run_harness, an_anchored_filter_narrows_go_bench_to_its_function) {
  static const struct {
    const char *filter, *bench;
    int status;
  } t[] = {
      {"^example.com/u.BenchmarkU/1$", "-test.bench=^BenchmarkU$\n", 0},
      {"^example.com/u.BenchmarkU", "-test.bench=^BenchmarkU\n", 0},
      {"^example.com/u.BenchmarkU/1", "-test.bench=^BenchmarkU$\n", 0},
      {"u.BenchmarkU/1$", "-test.bench=.\n", 0},
      /* no case is BenchmarkU itself, nor U-1 */
      {"^example.com/u.BenchmarkU$", "-test.bench=^BenchmarkU$\n", 2},
      {"^example.com/u.Benchmark-U", "-test.bench=.\n", 2},
  };
  char *dir = ts_own(ts_tmpdir("run_harness_gofilter"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *argsf = ts_own(ts_path(dir, "args"));
  char *prog =
      script(dir, "u.test",
             ts_pathf("printf '%%s\\n' \"$@\" > '%s'\n"
                      "printf 'pkg: example.com/u\\nBenchmarkU/1-2 \\t 10\\t 5 "
                      "ns/op\\nBenchmarkU/10-2 \\t 10\\t 5 ns/op\\nPASS\\n'\n",
                      argsf));
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const char *args[] = {
        "run",      "--out",     log,          "--blocks",      "1",
        "--filter", t[i].filter, "--go-bench", impl("a", prog), NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, t[i].status, "%s: %s", t[i].filter, r.err);
    if (t[i].status)
      cr_expect(strstr(r.err, "no benchmark that every program reports "
                              "(given --filter, which matches none of what "
                              "the programs reported, e.g. "
                              "example.com/u.BenchmarkU [1])"),
                "%s", r.err);
    ts_run_free(&r);
    char *got = ts_exists(argsf) ? ts_own(ts_read(argsf, NULL)) : "";
    cr_expect(strstr(got, t[i].bench), "%s: %s", t[i].filter, got);
    cr_expect_eq(occurs(got, "-test.bench="), 1, "%s: %s", t[i].filter, got);
  }
}

/* ---- case names --------------------------------------------------------- */

/* `go test ./...` with BenchmarkSort in two packages, pytest with
 * test_sort in two modules: two cases each, named as the harness prints
 * them, not one "reported twice". */
Test(run_harness, case_names_keep_the_package_and_the_module) {
  char *dir = ts_own(ts_tmpdir("run_harness_names"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *go =
      script(dir, "go.sh",
             "printf 'goos: linux\\ngoarch: amd64\\npkg: example.com/a\\n"
             "BenchmarkSort/n=8-2 \\t 100\\t 50 ns/op\\nPASS\\n"
             "ok  \\texample.com/a\\t0.1s\\n"
             "goos: linux\\ngoarch: amd64\\npkg: example.com/b\\n"
             "BenchmarkSort/n=8-2 \\t 100\\t 60 ns/op\\nPASS\\n"
             "ok  \\texample.com/b\\t0.1s\\n'\n");
  const char *gargs[] = {"run", "--out",      log,           "--blocks",
                         "2",   "--go-bench", impl("a", go), NULL};
  ts_run r = ts_cli(NULL, gargs);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "2 cases"), "%s", r.out);
  ts_run_free(&r);
  char *text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
  cr_expect(strstr(text, "\"example.com/a.BenchmarkSort\",\"n=8\",,\"a\",0,1,"
                         "confirm,100,0.050000000000000003,2,"),
            "%s", text);
  cr_expect(strstr(text, "\"example.com/b.BenchmarkSort\",\"n=8\",,\"a\",0,1,"
                         "confirm,100,0.059999999999999998,2,"),
            "%s", text);

  char *pt = script(
      dir, "pt.sh",
      PYTEST_JSON
      "echo '{\"benchmarks\":["
      "{\"name\":\"test_sort[8]\",\"fullname\":\"a/test_s.py::test_sort[8]\","
      "\"param\":\"8\",\"stats\":{\"median\":2e-06,\"rounds\":5,"
      "\"iterations\":2}},"
      "{\"name\":\"test_sort[8]\",\"fullname\":\"b/test_s.py::test_sort[8]\","
      "\"param\":\"8\",\"stats\":{\"median\":3e-06,\"rounds\":5,"
      "\"iterations\":2}},"
      "{\"name\":\"test_sum\",\"fullname\":\"b/test_s.py::TestK::test_sum\","
      "\"param\":null,\"stats\":{\"median\":4e-06,\"rounds\":5,"
      "\"iterations\":2}}]}' > \"$f\"\n");
  const char *pargs[] = {"run",         "--out", log,
                         "--blocks",    "2",     "--pytest-benchmark",
                         impl("a", pt), NULL};
  r = ts_cli(NULL, pargs);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "3 cases"), "%s", r.out);
  ts_run_free(&r);
  text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
  cr_expect(strstr(text, "\"a/test_s.py::test_sort\",\"8\",,\"a\",0,0,confirm,"
                         "10,"),
            "%s", text);
  cr_expect(strstr(text, "\"b/test_s.py::test_sort\",\"8\",,\"a\",0,0,confirm,"
                         "10,"),
            "%s", text);
  cr_expect(strstr(text, "\"b/test_s.py::TestK::test_sum\",\"\",,\"a\",0,1,"),
            "%s", text);
}

/* ---- what benchsite does not use ----------------------------------------- */

/* A negative or NaN custom metric (b.ReportMetric), NaN and Infinity in a
 * Google Benchmark counter or a pytest statistic benchsite does not read
 * (the mean: pytest's time is its median round, 0.25 s here), a key a
 * report repeats, a skipped Google Benchmark entry: none fails the run,
 * and the values benchsite reads are the ones it reads. */
Test(run_harness, fields_benchsite_does_not_use_are_not_checked) {
  static const struct {
    const char *option, *body, *want;
  } t[] = {
      {"--go-bench",
       "printf 'BenchmarkA-2 \\t 100\\t 12 ns/op\\t -3.5 widgets/op\\t NaN "
       "ratio/op\\t 3 B/op\\t 1 allocs/op\\t 12.5 MB/s\\nPASS\\n'\n",
       "\"BenchmarkA\",\"\",,\"a\",0,0,confirm,100,0.012,2,3,1\n"},
      {"--google-benchmark",
       "echo '{\"context\":{\"load_avg\":[Infinity],\"x\":-NaN},"
       "\"benchmarks\":["
       "{\"name\":\"BM_a/1\",\"run_type\":\"iteration\",\"iterations\":10,"
       "\"real_time\":3,\"cpu_time\":2,\"time_unit\":\"ms\",\"items\":NaN,"
       "\"rate\":-Infinity,\"iterations\":-1,\"label\":\"x\"},"
       "{\"name\":\"BM_skip\",\"run_type\":\"iteration\",\"skipped\":true,"
       "\"skip_message\":\"no data\",\"iterations\":0,\"real_time\":0,"
       "\"cpu_time\":0,\"time_unit\":\"ns\"},"
       "{\"name\":\"BM_a/1\",\"run_type\":\"aggregate\",\"iterations\":NaN}"
       "]}'\n",
       "\"BM_a\",\"1\",,\"a\",0,0,confirm,10,3000,2000\n"},
      {"--pytest-benchmark",
       PYTEST_JSON
       "echo '{\"machine_info\":{\"x\":NaN},\"benchmarks\":[{\"name\":"
       "\"test_a\",\"param\":null,\"extra_info\":{\"r\":NaN,\"s\":-Infinity},"
       "\"stats\":{\"min\":NaN,\"median\":0.25,\"ops\":Infinity,\"iqr\":NaN,"
       "\"mean\":NaN,\"rounds\":5,\"iterations\":2,\"median\":9}}]}' > "
       "\"$f\"\n",
       "\"test_a\",\"\",,\"a\",0,0,confirm,10,250000\n"},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char *dir = ts_own(ts_tmpdir("run_harness_unused"));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *prog = script(dir, "h.sh", t[i].body);
    const char *args[] = {"run",       "--out",         log, "--blocks", "1",
                          t[i].option, impl("a", prog), NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "%s: %s", t[i].option, r.err);
    ts_run_free(&r);
    char *text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
    cr_expect(strstr(text, t[i].want), "%s: %s", t[i].option, text);
    cr_expect(!strstr(text, "skip"), "%s", text);
  }
}

/* ---- output and reports ---------------------------------------------------
 */

/* A pytest suite that prints 300 MB: what it prints is not the report
 * (that is a file), so it is not kept and the report's limit does not
 * apply to it. */
Test(run_harness, a_chatty_pytest_suite_is_not_buffered) {
  char *dir = ts_own(ts_tmpdir("run_harness_chatty"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *prog = script(
      dir, "pt.sh",
      PYTEST_JSON
      "yes 'collected 1 item, and much more to say' | head -c "
      "300000000\n"
      "echo '{\"benchmarks\":[" PB_ENTRY("test_a", "null") "]}' > \"$f\"\n");
  const char *args[] = {"run",           "--out", log,
                        "--blocks",      "1",     "--pytest-benchmark",
                        impl("a", prog), NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
  cr_expect(strstr(text, "\"test_a\",\"\",,\"a\",0,0,confirm,40,"), "%s", text);
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* The peak resident memory of this process, in bytes. */
static double peak_bytes(void) {
  struct rusage u;
  cr_assert_eq(getrusage(RUSAGE_SELF, &u), 0);
  return (double)u.ru_maxrss * 1024.0;
}

/* A report of about `bytes` in the format of `mode`: distinct entries
 * with counters, as a large suite writes. */
static char *big_report(bs_run_mode mode, size_t bytes, size_t *len) {
  size_t cap = bytes + 4096;
  char *s = malloc(cap);
  cr_assert_not_null(s);
  size_t n = (size_t)snprintf(s, cap,
                              "{\"context\":{\"x\":1},"
                              "\"benchmarks\":[");
  for (size_t i = 0; n + 600 < bytes; i++) {
    n += (size_t)snprintf(
        s + n, cap - n,
        mode == BS_RUN_GOOGLE_BENCHMARK
            ? "%s{\"name\":\"BM_case_%zu/4096\",\"family_index\":%zu,"
              "\"per_family_instance_index\":0,\"run_name\":\"BM_case_%zu/"
              "4096\",\"run_type\":\"iteration\",\"repetitions\":1,"
              "\"repetition_index\":0,\"threads\":1,\"iterations\":1000,"
              "\"real_time\":1.5e+03,\"cpu_time\":1.4e+03,\"time_unit\":"
              "\"ns\",\"bytes_per_second\":2.7e+09,\"items\":1.0e+03}"
            : "%s{\"group\":null,\"name\":\"test_case_%zu[4096]\",\"fullname\":"
              "\"t/test_x.py::test_case_%zu[4096]\",\"params\":{\"n\":4096},"
              "\"param\":\"4096\",\"extra_info\":{},\"stats\":{\"min\":1e-06,"
              "\"max\":2e-06,\"mean\":1.5e-06,\"stddev\":1e-07,\"rounds\":10,"
              "\"median\":1.5e-06,\"iqr\":1e-07,\"ops\":666666.6,"
              "\"total\":1.5e-05,\"iterations\":%zu}}",
        i ? "," : "", i, i, mode == BS_RUN_GOOGLE_BENCHMARK ? i : (size_t)4);
  }
  n += (size_t)snprintf(s + n, cap - n, "]}");
  *len = n;
  return s;
}

/* Reading a report takes memory within a bound of its size: 4x in all
 * (the report is held once; the rows taken from it are a fraction of
 * it), not a JSON tree many times its size. bench/bench_harness_memory.sh
 * measures the same for a whole run. Under AddressSanitizer (whose
 * allocator keeps freed memory in quarantine) only the parse is checked. */
Test(run_harness, a_report_is_read_within_a_bound_of_its_size) {
  static const bs_run_mode modes[] = {BS_RUN_GOOGLE_BENCHMARK,
                                      BS_RUN_PYTEST_BENCHMARK};
  for (size_t m = 0; m < 2; m++) {
    size_t len;
    char *text = big_report(modes[m], (size_t)24 << 20, &len);
    memset(text + len, 0, 64); /* every page of it resident */
    double before = peak_bytes();
    size_t rows = 0;
    bs_error err;
    bs_status st = bs__harness_parse(modes[m], text, len, NULL, &rows, &err);
    double grew = peak_bytes() - before;
    cr_expect_eq(st, BS_OK, "%s", err.message);
    cr_expect_gt(rows, 30000);
#ifndef UNDER_ASAN
    cr_expect_leq(grew, 3.0 * (double)len,
                  "mode %d: reading %zu bytes took %.0f bytes more",
                  (int)modes[m], len, grew);
#else
    (void)grew;
#endif
    free(text);
  }
}

/* ---- a failing program ----------------------------------------------------
 */

/* Whether s holds no byte a terminal or a CI log would act on (control
 * bytes other than newlines, "##["). */
static int clean_text(const char *s) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p < 0x20 && *p != '\n') || *p == 0x7f)
      return 0;
  return !strstr(s, "##[");
}

/* The error names the impl, the block and the exit status and quotes the
 * program's last 20 lines of output (its standard output and error),
 * escaped, after it; the lines before are not quoted. */
Test(run_harness, a_failing_program_is_quoted_by_its_last_20_lines) {
  static const char *const options[] = {"--go-bench", "--google-benchmark",
                                        "--pytest-benchmark"};
  for (size_t i = 0; i < 3; i++) {
    char *dir = ts_own(ts_tmpdir("run_harness_fail"));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *prog = script(
        dir, "h.sh",
        "i=1; while [ $i -le 30 ]; do echo \"line $i\"; i=$((i+1)); done\n"
        "printf 'evil \\033[31mred ::error::x ##[group]\\n' >&2\n"
        "printf 'with\\ttab\\n\\n   \\n'\n"
        "exit 3\n");
    const char *args[] = {"run",      "--out",         log, "--blocks", "2",
                          options[i], impl("a", prog), NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 2, "%s: %s", options[i], r.err);
    cr_expect(strstr(r.err, "benchsite: a: block 0 of run 0: the program "
                            "exited with status 3; nothing was written (its "
                            "last 20 lines of output follow)\n"),
              "%s: %s", options[i], r.err);
    cr_expect_eq(occurs(r.err, "\nbenchsite: | "), 20, "%s: %s", options[i],
                 r.err);
    for (int k = 13; k <= 30; k++)
      cr_expect(strstr(r.err, ts_pathf("benchsite: | line %d\n", k)),
                "%s: line %d: %s", options[i], k, r.err);
    cr_expect(!strstr(r.err, "| line 12\n"), "%s: %s", options[i], r.err);
    cr_expect(strstr(r.err, "benchsite: | evil \\x1b[31mred ::error::x "
                            "\\x23#[group]\n"),
              "%s: %s", options[i], r.err);
    cr_expect(strstr(r.err, "benchsite: | with tab\n"), "%s: %s", options[i],
              r.err);
    cr_expect(clean_text(r.err), "%s: %s", options[i], r.err);
    ts_run_free(&r);
    cr_expect(!ts_exists(log));
  }
}

/* --show-output streams what the harness prints, standard output and
 * error (to benchsite's standard error: the log may be standard output),
 * and the report is read all the same. */
Test(run_harness, show_output_streams_what_the_harness_prints) {
  char *dir = ts_own(ts_tmpdir("run_harness_show"));
  char *prog = script(dir, "go.sh",
                      "echo ERR-MARK >&2\n"
                      "printf 'OUT-MARK\\nBenchmarkA-2 \\t 100\\t 12 ns/op\\n"
                      "PASS\\n'\n");
  const char *args[] = {
      "run",     "--out",         "-",          "--blocks",      "1",
      "--quiet", "--show-output", "--go-bench", impl("a", prog), NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.err, "ERR-MARK\n"), "%s", r.err);
  cr_expect(strstr(r.err, "OUT-MARK\nBenchmarkA-2"), "%s", r.err);
  cr_expect(!strstr(r.out, "MARK"), "%s", r.out);
  cr_expect(strstr(r.out, "\"BenchmarkA\",\"\",,\"a\",0,0,confirm,100,"), "%s",
            r.out);
  ts_run_free(&r);
}

/* ---- blocks are pairs ------------------------------------------------------
 */

/* A harness starts anew every block: --blocks counts its pairs (under the
 * default protocol, Shared, whose 5 runs it does not multiply), the
 * default is the protocol's blocks x runs in one run, and --runs N
 * still gives N runs. */
Test(run_harness, blocks_count_pairs) {
  char *dir = ts_own(ts_tmpdir("run_harness_pairs"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  char *prog = script(dir, "go.sh",
                      "printf 'BenchmarkA-2 \\t 100\\t 12 ns/op\\nPASS\\n'\n");
  static const struct {
    const char *blocks, *runs, *summary;
    size_t rows, last_run;
  } t[] = {
      {"3", NULL, "1 run of 3 blocks: 3 rows", 3, 0},
      {NULL, NULL, "1 run of 50 blocks: 50 rows", 50, 0},
      {"3", "2", "2 runs of 3 blocks: 6 rows", 6, 1},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    const char *args[12] = {"run", "--out", log, "--go-bench", impl("a", prog)};
    size_t n = 5;
    if (t[i].blocks) {
      args[n++] = "--blocks";
      args[n++] = t[i].blocks;
    }
    if (t[i].runs) {
      args[n++] = "--runs";
      args[n++] = t[i].runs;
    }
    args[n] = NULL;
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "%zu: %s", i, r.err);
    cr_expect(strstr(r.out, t[i].summary), "%zu: %s", i, r.out);
    ts_run_free(&r);
    char *text = ts_exists(log) ? ts_own(ts_read(log, NULL)) : "";
    cr_expect_eq(occurs(text, "confirm"), t[i].rows, "%zu: %s", i, text);
    cr_expect(strstr(text, ts_pathf(",\"a\",%zu,", t[i].last_run)), "%zu", i);
    cr_expect(!strstr(text, ts_pathf(",\"a\",%zu,", t[i].last_run + 1)), "%zu",
              i);
  }
}

/* ---- duet --------------------------------------------------------------- */

static int usable_cpus(void) {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}

/* One start of a stand-in: which impl, when (ns), on which CPUs. */
typedef struct start {
  char impl[8];
  double t;
  char cpus[64];
} start;

static size_t read_starts(const char *path, start *s, size_t max) {
  char *text = ts_exists(path) ? ts_own(ts_read(path, NULL)) : "";
  size_t n = 0;
  for (char *line = text; *line && n < max;) {
    char *end = strchr(line, '\n');
    cr_assert_not_null(end);
    *end = '\0';
    char *a = strchr(line, ' '), *b = a ? strchr(a + 1, ' ') : NULL;
    cr_assert(a && b, "%s", line);
    *a = *b = '\0';
    snprintf(s[n].impl, sizeof s[n].impl, "%s", line);
    s[n].t = strtod(a + 1, NULL) / 1e9;
    snprintf(s[n].cpus, sizeof s[n].cpus, "%s", b + 1);
    n++;
    line = end + 1;
  }
  return n;
}

/* A stand-in program in dir that appends "IMPL START_NS CPUS" to starts
 * (IMPL its first argument, CPUS those it may run on), runs 1 s and then
 * runs the shell text report. */
static char *timed_script(const char *dir, const char *starts,
                          const char *report) {
  return script(dir, "prog.sh",
                ts_pathf("t=$(date +%%s%%N)\n"
                         "c=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "
                         "/proc/self/status)\n"
                         "echo \"$1 $t $c\" >> '%s'\n"
                         "sleep 1\n%s",
                         starts, report));
}

static int by_time(const void *a, const void *b) {
  double x = ((const start *)a)->t, y = ((const start *)b)->t;
  return (x > y) - (x < y);
}

/* With --duet, each block starts the two programs together (from a
 * barrier: well within the 0.4 s each runs), each pinned to one CPU of
 * its own, the CPUs swapped every block; the manifest records duet and
 * the harness. Without it (the default for go test, which reports no CPU
 * time) they run one after the other, unpinned. */
Test(run_harness, duet_starts_both_programs_together_pinned_and_swapped) {
  if (usable_cpus() < 2)
    cr_skip_test("needs two CPUs");
  for (int duet = 1; duet >= 0; duet--) {
    char *dir = ts_own(ts_tmpdir("run_harness_duet"));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *env = ts_own(ts_path(dir, "env.csv"));
    char *starts = ts_own(ts_path(dir, "starts"));
    char *prog = timed_script(
        dir, starts, "printf 'BenchmarkA-2 \\t 100\\t 12 ns/op\\nPASS\\n'\n");
    const char *args[] = {"run",        "--out",
                          log,          "--manifest-out",
                          env,          "--blocks",
                          "4",          duet ? "--duet" : "--quiet",
                          "--go-bench", impl("a", ts_pathf("%s a", prog)),
                          "--go-bench", impl("b", ts_pathf("%s b", prog)),
                          NULL};
    ts_run r = ts_cli(NULL, args);
    cr_expect_eq(r.status, 0, "duet %d: %s", duet, r.err);
    ts_run_free(&r);
    start s[8];
    cr_assert_eq(read_starts(starts, s, 8), 8);
    qsort(s, 8, sizeof s[0], by_time);
    const char *a_cpu = NULL;
    for (size_t j = 0; j < 4; j++) {
      start *x = &s[2 * j], *y = &s[2 * j + 1];
      cr_expect_str_neq(x->impl, y->impl, "duet %d, block %zu", duet, j);
      if (duet) {
        /* Together: well under the 1 s a program runs, even on a
         * loaded machine, where the script's own forks before it reads
         * the clock took 0.22 s once (CI). */
        cr_expect_lt(y->t - x->t, 0.5, "block %zu: started %.3f s apart", j,
                     y->t - x->t);
        cr_expect(!strchr(x->cpus, '-') && !strchr(x->cpus, ','), "%s",
                  x->cpus);
        cr_expect_str_neq(x->cpus, y->cpus, "block %zu", j);
        const char *mine = !strcmp(x->impl, "a") ? x->cpus : y->cpus;
        if (a_cpu)
          cr_expect_str_neq(mine, a_cpu, "block %zu: a not swapped", j);
        a_cpu = ts_pathf("%s", mine);
      } else {
        cr_expect_geq(y->t - x->t, 0.95, "block %zu: %.3f s apart", j,
                      y->t - x->t);
        cr_expect(strchr(x->cpus, '-') || strchr(x->cpus, ','), "%s", x->cpus);
      }
    }
    char *m = ts_exists(env) ? ts_own(ts_read(env, NULL)) : "";
    cr_expect(strstr(m, "\"harness\",\"go-bench\""), "%s", m);
    if (duet)
      cr_expect(strstr(m, "\"duet\",\"1\""), "%s", m);
    else
      cr_expect(!strstr(m, "\"duet\""), "%s", m);
  }
}

/* What run does for two programs when told nothing: Google Benchmark
 * programs, which report CPU time, side by side (started together, each
 * pinned to a CPU of its own) and gated on CPU time (the manifest's
 * gate_metric, which compare takes); go test programs, which report no
 * CPU time, one after the other, unpinned, gated on wall time. And
 * --sequential keeps a Google Benchmark pair one after the other, still
 * gated on CPU time. */
Test(run_harness, by_default_only_harnesses_with_cpu_time_go_side_by_side) {
  if (usable_cpus() < 2)
    cr_skip_test("needs two CPUs");
  static const struct {
    const char *option, *report, *flag;
    int duet, cpu;
  } t[] = {
      {"--google-benchmark", "echo '{\"benchmarks\":[" GB_ENTRY("BM_A") "]}'\n",
       "--quiet", 1, 1},
      {"--google-benchmark", "echo '{\"benchmarks\":[" GB_ENTRY("BM_A") "]}'\n",
       "--sequential", 0, 1},
      {"--go-bench", "printf 'BenchmarkA-2 \\t 100\\t 12 ns/op\\nPASS\\n'\n",
       "--quiet", 0, 0},
  };
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char *dir = ts_own(ts_tmpdir("run_harness_default"));
    char *log = ts_own(ts_path(dir, "log.csv"));
    char *env = ts_own(ts_path(dir, "env.csv"));
    char *starts = ts_own(ts_path(dir, "starts"));
    char *prog = timed_script(dir, starts, t[i].report);
    const char *args[] = {"run",       "--out",
                          log,         "--manifest-out",
                          env,         "--blocks",
                          "2",         t[i].flag,
                          t[i].option, impl("a", ts_pathf("%s a", prog)),
                          t[i].option, impl("b", ts_pathf("%s b", prog)),
                          NULL};
    ts_run r = ts_cli(NULL, args);
    cr_assert_eq(r.status, 0, "%zu: %s", i, r.err);
    ts_run_free(&r);
    start s[4];
    cr_assert_eq(read_starts(starts, s, 4), 4, "%zu", i);
    qsort(s, 4, sizeof s[0], by_time);
    for (size_t j = 0; j < 2; j++) {
      start *x = &s[2 * j], *y = &s[2 * j + 1];
      int pinned = !strchr(x->cpus, '-') && !strchr(x->cpus, ',');
      cr_expect_eq(pinned, t[i].duet, "%zu, block %zu: %s", i, j, x->cpus);
      if (t[i].duet)
        cr_expect_lt(y->t - x->t, 0.5, "%zu, block %zu", i, j);
      else
        cr_expect_geq(y->t - x->t, 0.95, "%zu, block %zu", i, j);
    }
    char *m = ts_exists(env) ? ts_own(ts_read(env, NULL)) : "";
    cr_expect_eq(strstr(m, "\"duet\",\"1\"") != NULL, t[i].duet, "%zu: %s", i,
                 m);
    cr_expect_eq(strstr(m, "\"gate_metric\",\"cpu\"") != NULL, t[i].cpu,
                 "%zu: %s", i, m);
    const char *cmp[] = {"compare",     log,          "--manifest",
                         env,           "--baseline", "a",
                         "--candidate", "b",          NULL};
    r = ts_cli(NULL, cmp);
    cr_expect_neq(r.status, 2, "%zu: %s", i, r.err);
    cr_expect(strstr(r.out, t[i].cpu ? "metric cpu" : "metric wall"), "%zu: %s",
              i, r.out);
    ts_run_free(&r);
  }
}

/* A duet of harness programs needs two CPUs: on one it is refused, and
 * nothing is written. */
Test(run_harness, duet_on_one_cpu_is_refused) {
  char *dir = ts_own(ts_tmpdir("run_harness_duet1"));
  char *log = ts_own(ts_path(dir, "log.csv"));
  cpu_set_t one, old;
  cr_assert_eq(sched_getaffinity(0, sizeof old, &old), 0);
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  cr_assert_eq(sched_setaffinity(0, sizeof one, &one), 0);
  const char *args[] = {"run",        "--out",      log,
                        "--duet",     "--go-bench", "a=true",
                        "--go-bench", "b=true",     NULL};
  ts_run r = ts_cli(NULL, args);
  sched_setaffinity(0, sizeof old, &old);
  cr_expect_eq(r.status, 2, "%s", r.err);
  cr_expect(strstr(r.err, "--duet needs two CPUs and this process may use "
                          "only one"),
            "%s", r.err);
  ts_run_free(&r);
  cr_expect_eq(ts_count_entries(dir), 0);
}

/* ---- the table of adapters (bs_run_harness_get) -------------------------- */

/* Every harness mode once, in order, each named as bs_run_harness_name
 * names its mode, with a title and one line of help; nothing past the
 * last. */
Test(run_harness, the_table_enumerates_every_harness_mode_once) {
  static const bs_run_mode want[] = {BS_RUN_GOOGLE_BENCHMARK,
                                     BS_RUN_PYTEST_BENCHMARK, BS_RUN_GO_BENCH};
  static const char *const names[] = {"google-benchmark", "pytest-benchmark",
                                      "go-bench"};
  bs_run_harness h;
  size_t n = 0;
  for (; bs_run_harness_get(n, &h); n++) {
    cr_assert_lt(n, 3, "more harnesses than modes");
    cr_expect_eq(h.mode, want[n], "row %zu", n);
    cr_expect_str_eq(h.name, names[n]);
    cr_expect_str_eq(h.name, bs_run_harness_name(h.mode));
    cr_expect(h.title && h.title[0], "%s has no title", h.name);
    cr_expect(h.help && h.help[0], "%s has no help", h.name);
    cr_expect_null(strchr(h.help, '\n'), "%s: help is one line", h.name);
  }
  cr_expect_eq(n, 3);
}

Test(run_harness, past_the_last_row_is_nothing) {
  bs_run_harness h;
  memset(&h, 0, sizeof h);
  cr_expect_eq(bs_run_harness_get(3, &h), 0);
  cr_expect_eq(bs_run_harness_get((size_t)-1, &h), 0);
  cr_expect_null(h.name, "*out is untouched");
  cr_expect_null(bs_run_harness_name(BS_RUN_LIBRARY));
  cr_expect_null(bs_run_harness_name(BS_RUN_COMMAND));
}
