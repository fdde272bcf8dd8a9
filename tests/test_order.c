/* Case order: natural order of names (digit runs as numbers), scale within
 * a benchmark when every case has one, and the same order in every output
 * of compare, noise, tune, report and site. */
#include <criterion/criterion.h>

#include "benchsite/order.h"
#include "support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TestSuite(order, .fini = ts_free_owned);

static int sign(int x) { return (x > 0) - (x < 0); }

Test(order, digit_runs_compare_as_numbers) {
  cr_expect_lt(bs_natural_cmp("n=2", "n=16"), 0);
  cr_expect_lt(bs_natural_cmp("n=16", "n=128"), 0);
  cr_expect_lt(bs_natural_cmp("n=64", "n=16384"), 0);
  cr_expect_gt(bs_natural_cmp("n=16384", "n=64"), 0);
  cr_expect_lt(bs_natural_cmp("tokenize_2", "tokenize_10"), 0);
  cr_expect_lt(bs_natural_cmp("tokenize", "tokenize_2"), 0);
  /* Longer than any integer type: still by value. */
  cr_expect_lt(
      bs_natural_cmp("x99999999999999999999999", "x100000000000000000000000"),
      0);
  cr_expect_lt(bs_natural_cmp("a9b", "a10a"), 0);
  cr_expect_lt(bs_natural_cmp("v1.9", "v1.10"), 0);
  /* Equal as numbers, different bytes: byte order decides, never 0. */
  cr_expect_eq(sign(bs_natural_cmp("n=02", "n=2")),
               sign(strcmp("n=02", "n=2")));
  cr_expect_neq(bs_natural_cmp("n=02", "n=2"), 0);
  cr_expect_eq(bs_natural_cmp("same", "same"), 0);
  cr_expect_eq(bs_natural_cmp("", ""), 0);
  cr_expect_lt(bs_natural_cmp("", "a"), 0);
  /* Non-digits compare as bytes (UTF-8 included). */
  cr_expect_lt(bs_natural_cmp("a", "b"), 0);
  cr_expect_lt(bs_natural_cmp("z", "\xc3\xa9"), 0);
}

Test(order, antisymmetric_and_transitive_on_a_sample) {
  const char *s[] = {"",      "0",   "00",   "1",     "01",   "10",
                     "9",     "a",   "a0",   "a00",   "a1",   "a01",
                     "a10",   "a9b", "a10a", "n=2",   "n=16", "n=0128",
                     "n=128", "b",   "x1y2", "x1y10", "x01y3"};
  size_t n = sizeof s / sizeof s[0];
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      int ij = sign(bs_natural_cmp(s[i], s[j]));
      cr_expect_eq(ij, -sign(bs_natural_cmp(s[j], s[i])), "%s %s", s[i], s[j]);
      cr_expect_eq(ij == 0, i == j, "%s %s", s[i], s[j]);
      for (size_t k = 0; k < n; k++)
        if (ij < 0 && bs_natural_cmp(s[j], s[k]) < 0)
          cr_expect_lt(bs_natural_cmp(s[i], s[k]), 0, "%s %s %s", s[i], s[j],
                       s[k]);
    }
}

Test(order, scale_orders_a_benchmark_only_when_every_case_has_one) {
  bs_case_key k[] = {
      /* every case of "scaled" has a scale: by scale, whatever the names */
      {"scaled", "small", 1, 16384, 0, 0},
      {"scaled", "big", 1, 64, 1, 0},
      {"scaled", "n=9", 1, 1024, 2, 0},
      /* "mixed" lacks one: by dataset, natural order */
      {"mixed", "n=16384", 1, 16384, 3, 0},
      {"mixed", "n=64", 1, 64, 4, 0},
      {"mixed", "n=128", 0, 0, 5, 0},
      {"tokenize_10", "", 0, 0, 6, 0},
      {"tokenize_2", "", 0, 0, 7, 0},
      {"mixed", "n=0064", 1, 64, 8, 0},
  };
  size_t n = sizeof k / sizeof k[0];
  bs_case_order(k, n);
  size_t want[] = {8, 4, 5, 3, 1, 2, 0, 7, 6};
  for (size_t i = 0; i < n; i++)
    cr_expect_eq(k[i].id, want[i], "position %zu holds %zu (%s %s)", i, k[i].id,
                 k[i].benchmark, k[i].dataset);
  /* "n=0064" and "n=64" are equal as numbers: byte order puts "n=0064"
   * first; mixed is not by scale, scaled is. */
  cr_expect_eq(k[0].by_scale, 0);
  cr_expect_eq(k[4].by_scale, 1);
}

/* ---- every output -------------------------------------------------------- */

/* Cases in byte order would be: sort n=1024, n=16384, n=64; tokenize_10,
 * tokenize_2. The wanted order is n=64, n=1024, n=16384 (by scale), then
 * tokenize_2, tokenize_10. */
static const char *const bench[] = {"sort", "sort", "sort", "tokenize_10",
                                    "tokenize_2"};
static const char *const data[] = {"n=1024", "n=16384", "n=64", "", ""};
static const int scale[] = {1024, 16384, 64, 0, 0};

static void write_log(const char *dir) {
  char *path = ts_own(ts_path(dir, "log.csv"));
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fprintf(f, "benchmark,dataset,scale,impl,run,block,per_call_us\n");
  for (int c = 0; c < 5; c++)
    for (int run = 0; run < 3; run++)
      for (int b = 0; b < 8; b++) {
        double base = 10.0 * (c + 1) * (1 + ((b * 7 + run * 3) % 5) / 500.0);
        const char *sc = scale[c] ? (c == 0   ? "1024"
                                     : c == 1 ? "16384"
                                              : "64")
                                  : "";
        /* rotated: block b runs main first when b is even */
        for (int k = 0; k < 2; k++) {
          int pr = (b + k) % 2;
          fprintf(f, "%s,%s,%s,%s,%d,%d,%.6f\n", bench[c], data[c], sc,
                  pr ? "pr" : "main", run, b,
                  base * (pr ? (c == 2 ? 1.2 : 1.001) : 1.0));
        }
      }
  fclose(f);
}

/* The needles appear in text in this order (each after the previous). */
static void expect_order(const char *text, const char *const *needles, size_t n,
                         const char *what) {
  cr_assert_not_null(text, "%s: no output", what);
  const char *at = text;
  for (size_t i = 0; i < n; i++) {
    const char *p = strstr(at, needles[i]);
    cr_expect_not_null(p, "%s: \"%s\" missing or before \"%s\"", what,
                       needles[i], i ? needles[i - 1] : "the start");
    if (!p)
      return;
    at = p + strlen(needles[i]);
  }
}

static char *run_out(const char *dir, const char *const *args, int want) {
  ts_run r = ts_cli(dir, args);
  cr_expect_eq(r.status, want, "%s: exit %d: %s", args[0], r.status, r.err);
  char *out = ts_own(strdup(r.out));
  ts_run_free(&r);
  return out;
}

static char *file(const char *dir, const char *name) {
  char *p = ts_path(dir, name);
  char *t = ts_read(p, NULL);
  free(p);
  cr_assert_not_null(t, "%s missing", name);
  return ts_own(t);
}

Test(order, every_output_lists_cases_in_case_order) {
  char *dir = ts_own(ts_tmpdir("order_outputs"));
  write_log(dir);
  char *env = ts_own(ts_path(dir, "env.csv"));
  ts_write(env, "key,value\ntarget,native\nprofile,release\ndtype,f64\n"
                "machine,m\nfrequency_policy,performance\nprotocol,"
                "Development\nbaseline,main\ncandidate,pr\naa_a,main\n"
                "aa_b,pr\ndate,2026-01-01T00:00:00Z\ncommit,c1\n");
  const char *text[] = {"sort [n=64]", "sort [n=1024]", "sort [n=16384]",
                        "tokenize_2", "tokenize_10"};
  const char *json[] = {"\"n=64\"", "\"n=1024\"", "\"n=16384\"",
                        "\"tokenize_2\"", "\"tokenize_10\""};
  const char *md[] = {"sort \\[n\\=64\\]", "sort \\[n\\=1024\\]",
                      "sort \\[n\\=16384\\]", "tokenize\\_2", "tokenize\\_10"};
  const char *html[] = {"n=64", "n=1024", "n=16384", "tokenize_2",
                        "tokenize_10"};

  /* compare: the regression (n=64) comes first anyway; the text and JSON
   * keep case order. */
  const char *c1[] = {"compare", "log.csv", "--manifest", "env.csv", NULL};
  expect_order(run_out(dir, c1, 1), text, 5, "compare text");
  const char *c2[] = {"compare",    "log.csv", "--manifest",
                      "env.csv",    "--json",  "c.json",
                      "--markdown", "c.md",    NULL};
  run_out(dir, c2, 1);
  expect_order(file(dir, "c.json"), json, 5, "compare JSON");
  expect_order(file(dir, "c.md"), md + 1, 4,
               "compare Markdown (after the "
               "regression)");

  const char *n1[] = {"noise",       "log.csv", "--manifest", "env.csv",
                      "--resamples", "200",     NULL};
  expect_order(run_out(dir, n1, 0), text, 5, "noise text");
  const char *n2[] = {"noise",       "log.csv", "--manifest", "env.csv",
                      "--resamples", "200",     "--json",     "n.json",
                      "--markdown",  "n.md",    NULL};
  run_out(dir, n2, 0);
  expect_order(file(dir, "n.json"), json, 5, "noise JSON");
  expect_order(file(dir, "n.md"), md, 5, "noise Markdown");

  const char *t1[] = {"tune", "log.csv", NULL};
  expect_order(run_out(dir, t1, 0), text, 5, "tune text");
  const char *t2[] = {"tune",       "log.csv", "--json", "t.json",
                      "--markdown", "t.md",    NULL};
  run_out(dir, t2, 0);
  expect_order(file(dir, "t.json"), json, 5, "tune JSON");
  expect_order(file(dir, "t.md"), md, 5, "tune Markdown");

  const char *rp[] = {"report", "log.csv", "--manifest", "env.csv",
                      "--out",  "rep",     NULL};
  run_out(dir, rp, 0);
  char *rdir = ts_own(ts_path(dir, "rep"));
  char *index = file(rdir, "index.html");
  const char *tbody = strstr(index, "<tbody>");
  cr_assert_not_null(tbody, "the report has no table");
  expect_order(tbody, html, 5, "report index");

  const char *add[] = {"archive", "add",        "--archive", "A",
                       "log.csv", "--manifest", "env.csv",   NULL};
  run_out(dir, add, 0);
  const char *site[] = {"site", "--archive", "A", "--out", "site", NULL};
  run_out(dir, site, 0);
  char *sdir = ts_own(ts_path(dir, "site"));
  char *sidx = file(sdir, "index.html");
  const char *cases = strstr(sidx, "n=64");
  cr_assert_not_null(cases, "the site index lists no case");
  expect_order(sidx, html, 5, "site index");
}
