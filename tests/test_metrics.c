/* The measured quantity as a parameter (metric table, log columns,
 * --metric), the resolution rule (inconclusive cases, --fail-inconclusive)
 * and the refusals of the noise-aware gate. Fixtures in tests/data/metrics
 * (make_fixtures.py and README.md say how each was made; the inconclusive
 * cases are worked by hand there). */
#include <criterion/criterion.h>

#include "benchsite/benchsite.h"
#include "support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fini(void) { ts_free_owned(); }
TestSuite(metrics, .fini = fini);

static char *data(const char *name) {
  char path[256];
  snprintf(path, sizeof path, "metrics/%s", name);
  return ts_own(ts_data(path));
}

static bs_log *parse(const char *csv, bs_status want, bs_error *err) {
  bs_log *log = bs_log_new();
  cr_assert_eq(bs_log_read_buffer(log, "m.csv", csv, strlen(csv), err), want,
               "%s", err->message);
  return log;
}

/* ---- the table ----------------------------------------------------------- */

Test(metrics, the_table_names_column_unit_and_direction) {
  static const char *const names[] = {"wall", "cpu", "rss"};
  static const char *const columns[] = {"per_call_us", "cpu_per_call_us",
                                        "max_rss_kib"};
  static const char *const units[] = {"µs", "µs", "KiB"};
  for (int m = 0; m < BS_METRIC_COUNT; m++) {
    const bs_metric_info *mi = bs_metric_get((bs_metric)m);
    cr_assert_not_null(mi);
    cr_expect_eq((int)mi->id, m);
    cr_expect_str_eq(mi->name, names[m]);
    cr_expect_str_eq(mi->column, columns[m]);
    cr_expect_str_eq(mi->unit, units[m]);
    cr_expect(mi->lower_is_better, "SPEC §1.1: lower is better for all");
    cr_expect_eq(bs_metric_by_column(columns[m]), m);
    bs_metric parsed = BS_METRIC_COUNT;
    cr_expect_eq(bs_metric_parse(names[m], &parsed, NULL), BS_OK);
    cr_expect_eq((int)parsed, m);
    cr_expect_str_eq(mi->units[mi->base].name, mi->unit);
  }
  cr_expect_eq(bs_metric_get(BS_METRIC_WALL)->required, 1);
  cr_expect_eq(bs_metric_get(BS_METRIC_CPU)->zero_allowed, 1);
  cr_expect_eq(bs_metric_get(BS_METRIC_RSS)->zero_allowed, 0);
  cr_expect_null(bs_metric_get((bs_metric)BS_METRIC_COUNT));
  bs_error err;
  bs_metric m = BS_METRIC_CPU;
  cr_expect_eq(bs_metric_parse("time", &m, &err), BS_EUSAGE);
  cr_expect_eq(m, BS_METRIC_CPU, "unchanged on error");
  cr_expect_str_eq(err.message, "unknown metric \"time\" (wall, cpu or rss)");
}

Test(metrics, display_units_follow_each_ladder) {
  double f = 0;
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_WALL, 0.5, &f), "ns");
  cr_expect_eq(f, 1e3);
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_CPU, 2500, &f), "ms");
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_WALL, 0, &f), "µs");
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_RSS, 0.5, &f), "B");
  cr_expect_eq(f, 1024.0);
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_RSS, 900, &f), "KiB");
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_RSS, 2048, &f), "MiB");
  cr_expect_eq(f * 2048, 2.0);
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_RSS, 3.0 * 1048576, &f),
                   "GiB");
  cr_expect_str_eq(bs_metric_display_unit(BS_METRIC_RSS, NAN, &f), "KiB");
}

/* ---- the log ------------------------------------------------------------- */

Test(metrics, the_log_reads_the_optional_columns) {
  bs_error err;
  bs_log *log = parse("benchmark,impl,block,per_call_us,cpu_per_call_us,"
                      "max_rss_kib\nx,a,0,2,0,100\nx,b,0,3,-0,1.5\n"
                      "x,a,1,4,,\n",
                      BS_OK, &err);
  const bs_row *r = bs_log_rows(log);
  cr_expect_eq(r[0].per_call_us, 2);
  cr_expect_eq(bs_log_value(log, &r[0], BS_METRIC_WALL), 2);
  cr_expect_eq(bs_log_value(log, &r[0], BS_METRIC_CPU), 0,
               "zero CPU time is allowed");
  cr_expect_eq(bs_log_value(log, &r[0], BS_METRIC_RSS), 100);
  cr_expect_eq(r[0].metrics, 7u);
  cr_expect(!signbit(bs_log_value(log, &r[1], BS_METRIC_CPU)), "-0 reads as 0");
  cr_expect_eq(bs_log_value(log, &r[1], BS_METRIC_RSS), 1.5);
  cr_expect_eq(r[2].metrics, 1u, "empty cells: the row lacks them");
  cr_expect_eq(bs_log_unknown_count(log), 0, "no unknown column");
  cr_expect_null(bs_log_lacking(log, BS_METRIC_WALL));
  cr_expect_eq(bs_log_lacking(log, BS_METRIC_CPU), &r[2]);
  cr_expect_eq(bs_log_require_metric(log, BS_METRIC_RSS, &err), BS_EINPUT);
  cr_expect_str_eq(err.path, "m.csv");
  cr_expect_eq(err.line, 4);
  cr_expect(strstr(err.message, "column max_rss_kib: empty, and metric rss "
                                "(peak resident memory) needs it") != NULL,
            "%s", err.message);
  bs_log_free(log);
}

Test(metrics, bad_metric_values_name_file_line_and_column) {
  static const struct {
    const char *row, *want;
  } bad[] = {
      {"x,a,0,1,-1,100", "m.csv:2: column cpu_per_call_us: \"-1\" is not a "
                         "non-negative number"},
      {"x,a,0,1,nan,100", "m.csv:2: column cpu_per_call_us: \"nan\" is not a "
                          "non-negative number"},
      {"x,a,0,1,1,0", "m.csv:2: column max_rss_kib: \"0\" is not a positive "
                      "number"},
      {"x,a,0,1,1,inf", "m.csv:2: column max_rss_kib: \"inf\" is not a "
                        "positive number"},
      {"x,a,0,1,1,12k", "m.csv:2: column max_rss_kib: \"12k\" is not a "
                        "positive number"},
      {"x,a,0,1,1e999,5", "m.csv:2: column cpu_per_call_us: \"1e999\" is not "
                          "a non-negative number"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char csv[256], msg[1024];
    snprintf(csv, sizeof csv,
             "benchmark,impl,block,per_call_us,cpu_per_call_us,max_rss_kib\n"
             "%s\n",
             bad[i].row);
    bs_error err;
    bs_log *log = parse(csv, BS_EINPUT, &err);
    bs_error_format(&err, msg, sizeof msg);
    cr_expect(!strncmp(msg, bad[i].want, strlen(bad[i].want)), "%s", msg);
    cr_expect_eq(err.column, i == 0 || i == 1 || i == 5 ? 5 : 6, "%s", msg);
    cr_expect_eq(bs_log_count(log), 0);
    bs_log_free(log);
  }
}

Test(metrics, a_log_without_the_column_names_its_first_confirm_row) {
  bs_error err;
  /* The calibration row does not need it; the first confirm row does. */
  bs_log *log = parse("benchmark,impl,block,phase,per_call_us\n"
                      "x,a,,calibration,1\nx,a,0,confirm,2\nx,b,0,confirm,2\n",
                      BS_OK, &err);
  cr_expect_eq(bs_log_require_metric(log, BS_METRIC_CPU, &err), BS_EINPUT);
  cr_expect_eq(err.line, 3);
  cr_expect(strstr(err.message, "the file has no column cpu_per_call_us") !=
                NULL,
            "%s", err.message);
  cr_expect_eq(bs_log_require_metric(log, BS_METRIC_WALL, &err), BS_OK);
  /* A failed read forgets its rows, and the first lacking row with them. */
  const char *bad = "benchmark,impl,block,per_call_us,cpu_per_call_us\n"
                    "y,a,0,1,\ny,a,1,-5,1\n";
  bs_log *l2 = parse("benchmark,impl,block,per_call_us,cpu_per_call_us\n"
                     "x,a,0,1,1\n",
                     BS_OK, &err);
  cr_expect_eq(bs_log_read_buffer(l2, "bad.csv", bad, strlen(bad), &err),
               BS_EINPUT);
  cr_expect_null(bs_log_lacking(l2, BS_METRIC_CPU));
  bs_log_free(l2);
  bs_log_free(log);
}

/* ---- --metric changes the column read, nothing else ---------------------- */

/* `compare --metric M` of metrics.csv against plain `compare` of the copy
 * whose per_call_us holds M's values (written by make_fixtures.py): the
 * JSON must be the same bytes but for "metric". */
static void same_as_wall_copy(const char *metric, const char *copy,
                              const char *mode) {
  char *dir = ts_own(ts_tmpdir("metrics_same"));
  char *j1 = ts_own(ts_path(dir, "metric.json"));
  char *j2 = ts_own(ts_path(dir, "copy.json"));
  const char *a1[] = {"compare",     data("metrics.csv"),
                      "--baseline",  "main",
                      "--candidate", "pr",
                      "--mode",      mode,
                      "--metric",    metric,
                      "--json",      j1,
                      NULL};
  const char *a2[] = {"compare",     data(copy), "--baseline", "main",
                      "--candidate", "pr",       "--mode",     mode,
                      "--json",      j2,         NULL};
  ts_run r1 = ts_cli(NULL, a1), r2 = ts_cli(NULL, a2);
  cr_assert_eq(r1.status, r2.status, "%s / %s", r1.err, r2.err);
  char *t1 = ts_own(ts_read(j1, NULL)), *t2 = ts_own(ts_read(j2, NULL));
  cr_assert_not_null(t1);
  cr_assert_not_null(t2);
  char want[64];
  snprintf(want, sizeof want, "\"metric\": \"%s\"", metric);
  char *at = strstr(t1, want);
  cr_assert_not_null(at, "%s", t1);
  /* Put "wall" where the metric's name is, then compare every byte. */
  size_t size = strlen(t1) + 8;
  char *norm = ts_own(malloc(size));
  snprintf(norm, size, "%.*s\"metric\": \"wall\"%s", (int)(at - t1), t1,
           at + strlen(want));
  cr_expect_str_eq(norm, t2);
  ts_run_free(&r1);
  ts_run_free(&r2);
}

Test(metrics, cpu_compares_as_if_its_column_were_per_call_us) {
  same_as_wall_copy("cpu", "cpu_as_wall.csv", "confirmatory");
  same_as_wall_copy("cpu", "cpu_as_wall.csv", "hotspot");
}

Test(metrics, rss_compares_as_if_its_column_were_per_call_us) {
  same_as_wall_copy("rss", "rss_as_wall.csv", "confirmatory");
}

Test(metrics, tune_and_noise_read_the_chosen_column) {
  bs_error err;
  bs_log *m = bs_log_new(), *copy = bs_log_new();
  cr_assert_eq(bs_log_read_file(m, data("metrics.csv"), &err), BS_OK);
  cr_assert_eq(bs_log_read_file(copy, data("cpu_as_wall.csv"), &err), BS_OK);
  bs_tune_result *t1 = NULL, *t2 = NULL;
  cr_assert_eq(bs_tune_run(m, BS_METRIC_CPU, 7, &t1, &err), BS_OK, "%s",
               err.message);
  cr_assert_eq(bs_tune_run(copy, BS_METRIC_WALL, 7, &t2, &err), BS_OK);
  cr_assert_eq(t1->ncases, t2->ncases);
  cr_expect_eq(t1->metric, BS_METRIC_CPU);
  for (size_t i = 0; i < t1->ncases; i++) {
    cr_expect_str_eq(t1->cases[i].best, t2->cases[i].best);
    for (size_t u = 0; u < t1->cases[i].nmedians; u++)
      cr_expect_eq(t1->cases[i].medians[u].median_us,
                   t2->cases[i].medians[u].median_us);
    cr_expect_eq(t1->cases[i].ci_high_us, t2->cases[i].ci_high_us);
  }
  char *j1 = NULL, *j2 = NULL;
  size_t n1, n2;
  cr_assert_eq(bs_json_tune(t1, &j1, &n1, NULL), BS_OK);
  cr_assert_eq(bs_json_tune(t2, &j2, &n2, NULL), BS_OK);
  cr_expect(strstr(j1, "\"metric\": \"cpu\"") != NULL);
  cr_expect_eq(n1, n2 - 1, "wall is one byte longer than cpu");
  free(j1);
  free(j2);
  bs_tune_result_free(t1);
  bs_tune_result_free(t2);
  /* An A/A validation of the two impls (one run only: refused for the
   * same reason on both, after the metric is checked). */
  bs_noise_options no;
  bs_noise_options_init(&no);
  no.metric = BS_METRIC_RSS;
  bs_noise_result *nr = NULL;
  cr_expect_eq(bs_noise_run(m, "main", "pr", &no, &nr, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "a noise floor needs at least 2 runs") != NULL,
            "%s", err.message);
  cr_expect_eq(bs_noise_run(copy, "main", "pr", &no, &nr, &err), BS_EINPUT);
  cr_expect(strstr(err.message, "no column max_rss_kib") != NULL, "%s",
            err.message);
  bs_log_free(m);
  bs_log_free(copy);
}

Test(metrics, rss_views_show_memory_units) {
  char *dir = ts_own(ts_tmpdir("metrics_rss"));
  char *json = ts_own(ts_path(dir, "c.json"));
  char *md = ts_own(ts_path(dir, "c.md"));
  const char *text[] = {
      "compare", data("metrics.csv"), "--baseline", "main", "--candidate",
      "pr",      "--metric",          "rss",        NULL};
  ts_run r = ts_cli(NULL, text);
  cr_expect_eq(r.status, 1, "sum's memory grew 25 %%: %s", r.err);
  cr_expect(strstr(r.out, "2.007 MiB") != NULL, "%s", r.out);
  cr_expect(strstr(r.out, "+511.0 KiB") != NULL, "med(d) in KiB: %s", r.out);
  cr_expect(strstr(r.out, "metric rss: peak resident memory, KiB") != NULL,
            "%s", r.out);
  cr_expect(strstr(r.out, "µs") == NULL, "%s", r.out);
  ts_run_free(&r);
  const char *files[] = {"compare",     data("metrics.csv"),
                         "--baseline",  "main",
                         "--candidate", "pr",
                         "--metric",    "rss",
                         "--json",      json,
                         "--markdown",  md,
                         NULL};
  r = ts_cli(NULL, files);
  cr_expect_eq(r.status, 1, "%s", r.err);
  cr_expect(strstr(r.out, ", peak resident memory, 12 blocks\n") != NULL,
            "the one-line summary names it: %s", r.out);
  char *j = ts_own(ts_read(json, NULL)), *m = ts_own(ts_read(md, NULL));
  cr_assert_not_null(j);
  cr_assert_not_null(m);
  cr_expect(strstr(j, "\"metric\": \"rss\"") != NULL);
  cr_expect(strstr(m, ", peak resident memory") != NULL, "%s", m);
  cr_expect(strstr(m, "metric rss: peak resident memory, KiB") != NULL, "%s",
            m);
  cr_expect(strstr(m, "µs") == NULL, "%s", m);
  ts_run_free(&r);
  /* tune: the smallest, in memory units */
  const char *tune[] = {"tune", data("metrics.csv"), "--metric", "rss", NULL};
  r = ts_cli(NULL, tune);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "median peak resident memory") != NULL, "%s", r.out);
  cr_expect(strstr(r.out, "MiB") != NULL, "%s", r.out);
  ts_run_free(&r);
}

/* report's run over metrics.csv, main against pr, into `out` with the
 * manifest `env` and --metric `metric` (none when NULL): its index.html,
 * or NULL when gnuplot is not installed. */
static char *report_index(const char *out, const char *env,
                          const char *metric) {
  const char *args[] = {"report",
                        data("metrics.csv"),
                        "--manifest",
                        env,
                        "--baseline",
                        "main",
                        "--candidate",
                        "pr",
                        "--out",
                        out,
                        metric ? "--metric" : NULL,
                        metric,
                        NULL};
  ts_run r = ts_cli(NULL, args);
  if (r.status == 3 && strstr(r.err, "gnuplot")) {
    ts_run_free(&r);
    return NULL;
  }
  cr_assert_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  char *index = ts_own(ts_read(ts_own(ts_path(out, "index.html")), NULL));
  cr_assert_not_null(index, "report wrote no %s/index.html", out);
  return index;
}

/* The HTML report names the metric on its pages and chart axes. */
Test(metrics, report_pages_and_charts_name_the_metric) {
  char *dir = ts_own(ts_tmpdir("metrics_report"));
  char *out = ts_own(ts_path(dir, "rep"));
  char *index = report_index(out, data("env.csv"), "cpu");
  if (!index)
    cr_skip_test("gnuplot is not installed");
  cr_expect(strstr(index, "<dt>metric</dt><dd>CPU time per call (µs)</dd>") !=
                NULL,
            "the header names it");
  cr_expect(strstr(index, "Confirmatory gate on CPU time per call (µs)") !=
            NULL);
  char *page = ts_own(ts_read(ts_own(ts_path(out, "case-0001.html")), NULL));
  cr_assert_not_null(page);
  cr_expect(strstr(page, "median paired difference of CPU time per call") !=
            NULL);
  char *svg = ts_own(
      ts_read(ts_own(ts_path(out, "charts/case-0001-deltas.svg")), NULL));
  cr_assert_not_null(svg);
  cr_expect(strstr(svg, "CPU time per call") != NULL, "the axis names it");
}

/* Without --metric, report takes the metric the run's manifest says the
 * gate reads (gate_metric,cpu: command pairs, Google Benchmark), as
 * compare does, so the report a PR comment links shows the verdicts the
 * gate gave; --metric still chooses. */
Test(metrics, report_takes_the_manifests_gate_metric) {
  char *dir = ts_own(ts_tmpdir("metrics_gate_metric"));
  char *env = ts_own(ts_path(dir, "env.csv"));
  cr_assert_eq(ts_write(env, "key,value\nprotocol,Development\n"
                             "gate_metric,cpu\n"),
               0);
  char *index = report_index(ts_own(ts_path(dir, "cpu")), env, NULL);
  if (!index)
    cr_skip_test("gnuplot is not installed");
  cr_expect(strstr(index, "Confirmatory gate on CPU time per call (µs)") !=
                NULL,
            "the manifest's gate_metric is the default");
  index = report_index(ts_own(ts_path(dir, "wall")), env, "wall");
  cr_assert_not_null(index);
  cr_expect(strstr(index, "Confirmatory gate on wall time per call (µs)") !=
                NULL,
            "--metric wall still chooses");
  cr_expect(strstr(index, "CPU time per call") == NULL);
  index = report_index(ts_own(ts_path(dir, "plain")), data("env.csv"), NULL);
  cr_assert_not_null(index);
  cr_expect(strstr(index, "Confirmatory gate on wall time per call (µs)") !=
                NULL,
            "without gate_metric: wall time");
}

/* ---- refusals: exit 2, nothing written ----------------------------------- */

static void refused(const char *const *args, const char *out,
                    const char *message) {
  ts_run r = ts_cli(NULL, args);
  cr_expect_eq(r.status, 2, "%s: %s", args[0], r.err);
  cr_expect(strstr(r.err, message) != NULL, "stderr %s\nwant %s", r.err,
            message);
  if (out)
    cr_expect_eq(ts_exists(out), 0, "%s written", out);
  ts_run_free(&r);
}

Test(metrics, a_metric_the_log_lacks_is_refused_everywhere) {
  char *dir = ts_own(ts_tmpdir("metrics_lacks"));
  char *json = ts_own(ts_path(dir, "o.json"));
  char *html = ts_own(ts_path(dir, "rep"));
  char *log = data("cpu_as_wall.csv");
  const char *c[] = {"compare",     log,  "--baseline", "main",
                     "--candidate", "pr", "--metric",   "rss",
                     "--json",      json, NULL};
  refused(c, json,
          "cpu_as_wall.csv:4: confirm row has no max_rss_kib: the "
          "file has no column max_rss_kib, and metric rss (peak "
          "resident memory) needs it on every confirm row");
  const char *t[] = {"tune", log, "--metric", "cpu", "--json", json, NULL};
  refused(t, json, "no column cpu_per_call_us");
  const char *n[] = {"noise",    log,   "--a",    "main", "--b", "pr",
                     "--metric", "cpu", "--json", json,   NULL};
  refused(n, json, "no column cpu_per_call_us");
  const char *rp[] = {"report",        log,        "--manifest",
                      data("env.csv"), "--metric", "rss",
                      "--out",         html,       NULL};
  refused(rp, html, "no column max_rss_kib");
  const char *u[] = {"compare", log,        "--baseline", "main", "--candidate",
                     "pr",      "--metric", "memory",     NULL};
  refused(u, NULL, "unknown metric \"memory\" (wall, cpu or rss)");
}

/* ---- inconclusive: worked by hand in tests/data/metrics/README.md ----------
 */

static const bs_case_compare *find(const bs_compare_result *r,
                                   const char *name) {
  for (size_t i = 0; i < r->ncases; i++)
    if (!strcmp(r->cases[i].benchmark, name))
      return &r->cases[i];
  cr_assert_fail("no case %s", name);
  return NULL;
}

static bs_compare_result *compare_files(const char *a, const char *b,
                                        bs_mode mode, double threshold,
                                        bs_log **logp) {
  bs_log *log = *logp = bs_log_new();
  cr_assert_not_null(log);
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, data(a), &err), BS_OK, "%s", err.message);
  if (b)
    cr_assert_eq(bs_log_read_file(log, data(b), &err), BS_OK);
  bs_compare_options o;
  bs_compare_options_init(&o, mode);
  if (threshold > 0)
    o.threshold_pct = threshold;
  bs_compare_result *r = NULL;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_OK, "%s",
               err.message);
  return r;
}

Test(metrics, inconclusive_against_hand_worked_intervals) {
  bs_log *log = NULL;
  bs_compare_result *r = compare_files("inconclusive.csv", "regression.csv",
                                       BS_MODE_CONFIRMATORY, 0, &log);
  const bs_case_compare *wide = find(r, "wide"), *wider = find(r, "wider"),
                        *narrow = find(r, "narrow"), *fast = find(r, "fast"),
                        *slow = find(r, "slow");
  /* L = d1 and U = d2 exactly (README.md). */
  cr_expect_eq(wide->ci_low_us, -1);
  cr_expect_eq(wide->ci_high_us, 5);
  cr_expect_eq(wider->ci_high_us, 8);
  cr_expect_eq(narrow->ci_high_us, 2.5);
  cr_expect_eq(fast->ci_high_us, -9);
  cr_expect_eq(slow->ci_low_us, 4);
  cr_expect_eq(wide->delta_pct, 2);
  cr_expect_eq(wide->verdict, BS_VERDICT_EQUIVALENT);
  cr_expect_eq(wider->verdict, BS_VERDICT_SLOWER);
  cr_expect(fabs(bs_compare_upper_pct(wide) - 5) < 1e-12);
  cr_expect(wide->inconclusive, "U%% 5 >= 3, not significant");
  cr_expect(wider->inconclusive, "U%% 8 >= 3");
  cr_expect(!narrow->inconclusive, "U%% 2.5 < 3 rules out 3 %%");
  cr_expect(!fast->inconclusive);
  cr_expect(fast->significant_improvement);
  cr_expect(slow->significant_regression);
  cr_expect(!slow->inconclusive, "a significant regression is conclusive");
  cr_expect_eq(r->inconclusive, 2);
  cr_expect_eq(r->regressions, 1);
  /* The noise-aware gate: delta_eff 6 for wide and wider. */
  bs_error err;
  size_t len = 0;
  char *json = ts_own(ts_read(data("floors.json"), &len));
  bs_noise_floors *f = NULL;
  cr_assert_eq(bs_noise_floors_parse("floors.json", json, len, &f, &err), BS_OK,
               "%s", err.message);
  cr_assert_eq(bs_compare_apply_noise(r, bs_noise_floors_lookup, f), BS_OK);
  cr_expect_eq(wide->effective_threshold_pct, 6);
  cr_expect(!wide->inconclusive, "U%% 5 < delta_eff 6");
  cr_expect(wide->within_noise);
  cr_expect(wider->inconclusive, "U%% 8 >= delta_eff 6");
  cr_expect_eq(narrow->effective_threshold_pct, 3, "a floor only raises");
  cr_expect(!narrow->inconclusive);
  cr_expect_eq(r->inconclusive, 1);
  bs_noise_floors_free(f);
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(metrics, inconclusive_at_the_threshold_exactly) {
  bs_log *log = NULL;
  bs_compare_result *r =
      compare_files("boundary.csv", NULL, BS_MODE_HOTSPOT, 25, &log);
  const bs_case_compare *edge = find(r, "edge"), *below = find(r, "below");
  cr_expect_eq(edge->ci_high_us, 1);
  cr_expect_eq(bs_compare_upper_pct(edge), 25, "1/4 is exact");
  cr_expect(edge->inconclusive, "U%% = delta: inconclusive (>=)");
  cr_expect_eq(below->ci_high_us, 0.9921875);
  cr_expect(!below->inconclusive, "U%% 24.8 < 25");
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(metrics, every_view_marks_and_counts_inconclusive_cases) {
  char *dir = ts_own(ts_tmpdir("metrics_views"));
  char *json = ts_own(ts_path(dir, "c.json"));
  char *md = ts_own(ts_path(dir, "c.md"));
  char *log = data("inconclusive.csv");
  const char *text[] = {"compare",     log,  "--baseline", "main",
                        "--candidate", "pr", NULL};
  ts_run r = ts_cli(NULL, text);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strstr(r.out, "● equivalent · ◐ inconclusive") != NULL, "%s",
            r.out);
  cr_expect(strstr(r.out, "▲ slower, not significant · ◐ inconclusive") != NULL,
            "%s", r.out);
  cr_expect(strstr(r.out, "✔ gate passed: no significant regression, 1 "
                          "significant improvement, 2 inconclusive (a 3 % "
                          "regression could not be ruled out), 1 "
                          "equivalent") == r.out,
            "the headline first: %s", r.out);
  cr_expect(strstr(r.out, "\n◐ 2 of 4 cases inconclusive: a 3 % regression "
                          "could not be ruled out") != NULL,
            "%s", r.out);
  ts_run_free(&r);
  const char *files[] = {"compare",     log,  "--baseline", "main",
                         "--candidate", "pr", "--json",     json,
                         "--markdown",  md,   NULL};
  r = ts_cli(NULL, files);
  cr_expect_eq(r.status, 0, "%s", r.err);
  cr_expect(strchr(r.out, '\n') == r.out + strlen(r.out) - 1, "one line: %s",
            r.out);
  cr_expect(strstr(r.out, "2 inconclusive (a 3 % regression could not be "
                          "ruled out)") != NULL,
            "%s", r.out);
  char *j = ts_own(ts_read(json, NULL)), *m = ts_own(ts_read(md, NULL));
  cr_assert_not_null(j);
  cr_assert_not_null(m);
  cr_expect(strstr(j, "\"inconclusive\": 2,") != NULL, "%s", j);
  const char *wide = strstr(j, "\"benchmark\": \"wide\"");
  const char *narrow = strstr(j, "\"benchmark\": \"narrow\"");
  cr_assert_not_null(wide);
  cr_assert_not_null(narrow);
  cr_expect(strstr(wide, "\"inconclusive\": true") != NULL);
  cr_expect(strstr(narrow, "\"inconclusive\": false") <
                strstr(narrow, "\"inconclusive\": true") ||
            !strstr(narrow, "\"inconclusive\": true"));
  cr_expect(strstr(m, ", 2 inconclusive (a 3 % regression could not be "
                      "ruled out)") != NULL,
            "%s", m);
  cr_expect(strstr(m, "| wide | +2.00 % \\[-1.00, +5.00\\] | ◐ "
                      "inconclusive |") != NULL,
            "%s", m);
  cr_expect(strstr(m, "◐ 2 of 4 cases inconclusive") != NULL, "%s", m);
  ts_run_free(&r);
}

Test(metrics, fail_inconclusive_exits_4_and_a_regression_still_1) {
  char *log = data("inconclusive.csv"), *slow = data("regression.csv");
  const char *plain[] = {"compare",     log,  "--baseline", "main",
                         "--candidate", "pr", NULL};
  ts_run r = ts_cli(NULL, plain);
  cr_expect_eq(r.status, 0, "inconclusive alone does not fail: %s", r.err);
  ts_run_free(&r);
  const char *fail[] = {"compare",     log,  "--baseline",          "main",
                        "--candidate", "pr", "--fail-inconclusive", NULL};
  r = ts_cli(NULL, fail);
  cr_expect_eq(r.status, 4, "%s", r.err);
  ts_run_free(&r);
  const char *both[] = {"compare", log,           slow, "--baseline",
                        "main",    "--candidate", "pr", "--fail-inconclusive",
                        NULL};
  r = ts_cli(NULL, both);
  cr_expect_eq(r.status, 1, "a significant regression still gives 1: %s",
               r.err);
  ts_run_free(&r);
  /* With the floors, wider stays inconclusive: still 4. */
  const char *aware[] = {"compare",
                         log,
                         "--baseline",
                         "main",
                         "--candidate",
                         "pr",
                         "--manifest",
                         data("env.csv"),
                         "--noise",
                         data("floors.json"),
                         "--fail-inconclusive",
                         NULL};
  r = ts_cli(NULL, aware);
  cr_expect_eq(r.status, 4, "%s", r.err);
  cr_expect(strstr(r.out, "1 of 4 cases inconclusive") != NULL, "%s", r.out);
  ts_run_free(&r);
}

/* ---- the noise-aware gate's refusals (issue 23) ----------------------------
 * Main at eb6f279 accepted a noise file without a manifest and floors of any
 * size: with them a +75 % regression passed as "within noise". */

static const char big_regression[] =
    "benchmark,dataset,impl,block,per_call_us\n"
    "sum,,main,0,10\nsum,,pr,0,17.5\nsum,,main,1,10.1\nsum,,pr,1,17.6\n"
    "sum,,main,2,9.9\nsum,,pr,2,17.4\nsum,,main,3,10\nsum,,pr,3,17.55\n"
    "sum,,main,4,10.05\nsum,,pr,4,17.5\nsum,,main,5,10\nsum,,pr,5,17.45\n";

static const char env_json[] =
    "{\"target\": \"native\", \"profile\": \"release\", \"dtype\": \"f64\", "
    "\"machine\": \"box\", \"frequency_policy\": \"performance\", "
    "\"protocol\": \"Development\"}";

/* A noise file for case sum with the given floor, deltas and environment
 * ("" for no "environment" key). */
static char *noise_file(const char *dir, const char *name, const char *env,
                        const char *floor, const char *deltas,
                        const char *metric) {
  char text[2048];
  snprintf(text, sizeof text,
           "{\"schema\": \"benchsite.noise/1\", %s%s%s%s%s%s"
           "\"cases\": [{\"benchmark\": \"sum\", \"dataset\": \"\", "
           "\"paired_deltas_pct\": %s, \"paired_noise_floor_pct\": %s}]}\n",
           metric ? "\"metric\": \"" : "", metric ? metric : "",
           metric ? "\", " : "", env[0] ? "\"environment\": " : "", env,
           env[0] ? ", " : "", deltas, floor);
  char *path = ts_own(ts_path(dir, name));
  cr_assert_eq(ts_write(path, text), 0);
  return path;
}

Test(metrics, noise_refusals_leave_nothing_written) {
  char *dir = ts_own(ts_tmpdir("metrics_noise"));
  char *log = ts_own(ts_path(dir, "pr.csv"));
  char *env = data("env.csv");
  char *json = ts_own(ts_path(dir, "out.json"));
  cr_assert_eq(ts_write(log, big_regression), 0);
  char *good = noise_file(dir, "good.json", env_json, "80", "[80, -80]", NULL);
  char *empty = noise_file(dir, "empty.json", "{}", "80", "[80, -80]", NULL);
  char *nokey = noise_file(dir, "nokey.json", "", "80", "[80, -80]", NULL);
  char *huge =
      noise_file(dir, "huge.json", env_json, "1e300", "[1, 2, 3]", NULL);
  char *lie = noise_file(dir, "lie.json", env_json, "80", "[1, -2, 3]", NULL);
  char *cpu = noise_file(dir, "cpu.json", env_json, "80", "[80, 80]", "cpu");
  /* The floor of 80 % is what the file's deltas give: accepted, and the
   * +75 % regression is then within noise (the gate passes). */
  const char *ok[] = {"compare",     log,  "--baseline", "main",
                      "--candidate", "pr", "--manifest", env,
                      "--noise",     good, NULL};
  ts_run r = ts_cli(NULL, ok);
  cr_expect_eq(r.status, 0, "%s", r.err);
  ts_run_free(&r);
  const struct {
    const char *noise;
    int with_manifest;
    const char *message;
  } cases[] = {
      {empty, 1, "records no environment"},
      {nokey, 1, "records no environment"},
      {good, 0, "this run has no environment manifest"},
      {huge, 1, "paired_noise_floor_pct 1e+300 is not the 90th percentile"},
      {lie, 1,
       "paired_noise_floor_pct 80 is not the 90th percentile of its 3 "
       "paired_deltas_pct (2.8)"},
      {cpu, 1,
       "the noise floors are of metric cpu (CPU time per call), not "
       "of metric wall"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const char *with[] = {"compare",     log,  "--baseline", "main",
                          "--candidate", "pr", "--noise",    cases[i].noise,
                          "--json",      json, "--manifest", env,
                          NULL};
    if (!cases[i].with_manifest)
      with[10] = NULL;
    refused(with, json, cases[i].message);
  }
}

/* The paired deltas themselves must be possible: each above -100 %. */
Test(metrics, impossible_paired_deltas_are_refused) {
  const char *text = "{\"schema\": \"benchsite.noise/1\", \"cases\": ["
                     "{\"benchmark\": \"a\", \"dataset\": \"\", "
                     "\"paired_deltas_pct\": [-150, 1], "
                     "\"paired_noise_floor_pct\": 135.1}]}";
  bs_noise_floors *f = NULL;
  bs_error err;
  cr_expect_eq(bs_noise_floors_parse("n.json", text, strlen(text), &f, &err),
               BS_EINPUT);
  cr_expect(strstr(err.message, "at or below -100 %") != NULL, "%s",
            err.message);
  cr_expect_null(f);
  const char *one = "{\"schema\": \"benchsite.noise/1\", \"cases\": ["
                    "{\"benchmark\": \"a\", \"dataset\": \"\", "
                    "\"paired_deltas_pct\": [1], "
                    "\"paired_noise_floor_pct\": 1}]}";
  cr_expect_eq(bs_noise_floors_parse("n.json", one, strlen(one), &f, &err),
               BS_EINPUT);
  cr_expect(strstr(err.message, "at least 2 numbers") != NULL, "%s",
            err.message);
}

/* `check` knows the metric columns (it reported them as unknown before). */
Test(metrics, check_does_not_report_the_metric_columns) {
  const char *args[] = {"check", data("metrics.csv"), NULL};
  ts_run r = ts_cli(NULL, args);
  cr_expect(strstr(r.out, "unknown column") == NULL, "%s", r.out);
  ts_run_free(&r);
}
