/* Pairing, estimates, verdicts and the gate against numpy reference values
 * (tests/data/compare/make_fixtures.py wrote three.csv and expected.txt),
 * and the SPEC §3 invariants at the library level. */
#include <criterion/criterion.h>

#include "benchsite/compare.h"
#include "benchsite/log.h"
#include "fixtures.h"
#include "support.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bs_log *load(const char *name) {
  bs_log *log = bs_log_new();
  char *path = ts_data(name);
  bs_error err;
  cr_assert_eq(bs_log_read_file(log, path, &err), BS_OK, "%s", err.message);
  free(path);
  return log;
}

static bs_log *parse(const char *csv) {
  bs_log *log = bs_log_new();
  bs_error err;
  cr_assert_eq(bs_log_read_buffer(log, "mem.csv", csv, strlen(csv), &err),
               BS_OK, "%s", err.message);
  return log;
}

static bs_compare_result *run(const bs_log *log, bs_mode mode) {
  bs_compare_options o;
  bs_compare_options_init(&o, mode);
  bs_compare_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_OK, "%s",
               err.message);
  return r;
}

Test(compare, estimates_and_interval_match_numpy) {
  bs_log *log = load("compare/three.csv");
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r->ncases, 3);
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    char prefix[128];
    double w[7];
    snprintf(prefix, sizeof prefix, "%s %s", c->benchmark, c->dataset);
    cr_assert_eq(fx_numbers("compare/expected.txt", prefix, w, 7), 7);
    const double got[7] = {c->median_baseline_us,
                           c->median_candidate_us,
                           c->median_delta_us,
                           c->delta_pct,
                           c->speedup,
                           c->ci_low_us,
                           c->ci_high_us};
    const char *names[7] = {"med(b)",  "med(c)", "med(d)", "delta%",
                            "speedup", "L",      "U"};
    for (int k = 0; k < 7; k++)
      cr_expect_leq(fx_reldiff(got[k], w[k]), 1e-9, "%s %s: %.17g vs %.17g",
                    prefix, names[k], got[k], w[k]);
    cr_expect_eq(c->blocks, 12);
  }
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(compare, verdicts_and_gate_follow_the_definitions) {
  bs_log *log = load("compare/three.csv");
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  /* Cases sorted in byte order: hash, sort, sum. */
  cr_assert_str_eq(r->cases[0].benchmark, "hash");
  cr_assert_str_eq(r->cases[1].benchmark, "sort");
  cr_assert_str_eq(r->cases[2].benchmark, "sum");
  cr_expect_eq(r->cases[0].verdict, BS_VERDICT_EQUIVALENT);
  cr_expect_eq(r->cases[1].verdict, BS_VERDICT_FASTER);
  cr_expect_eq(r->cases[2].verdict, BS_VERDICT_SLOWER);
  cr_expect_not(r->cases[0].significant_regression);
  cr_expect_not(r->cases[1].significant_regression);
  cr_expect(r->cases[2].significant_regression);
  cr_expect_eq(r->regressions, 1);
  for (size_t i = 0; i < 3; i++) {
    const bs_case_compare *c = &r->cases[i];
    cr_expect_eq(c->significant_regression,
                 c->delta_pct >= 3.0 && c->ci_low_us > 0);
  }
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(compare, slower_but_noisy_is_not_a_significant_regression) {
  /* med(d) = +1 (10 %) but half the deltas are far below zero, so the
   * interval reaches below 0: slower, not a significant regression. */
  char csv[4096] = "benchmark,impl,block,per_call_us\n";
  const double d[] = {1, 1, 1, 1, -8, -8, -8, 1, 1, -8, 9, 9};
  for (int j = 0; j < 12; j++) {
    char row[128];
    snprintf(row, sizeof row, "x,main,%d,10\nx,pr,%d,%g\n", j, j, 10 + d[j]);
    strcat(csv, row);
  }
  bs_log *log = parse(csv);
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_expect_eq(r->cases[0].verdict, BS_VERDICT_SLOWER);
  cr_expect_leq(r->cases[0].ci_low_us, 0.0);
  cr_expect_not(r->cases[0].significant_regression);
  cr_expect_eq(r->regressions, 0);
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(compare, threshold_boundaries_are_inclusive) {
  /* Every block: b = 100, c = 103 -> delta exactly +3 %: slower. */
  char csv[4096] = "benchmark,dataset,impl,block,per_call_us\n";
  for (int j = 0; j < 8; j++) {
    char row[160];
    snprintf(row, sizeof row,
             "up,,main,%d,100\nup,,pr,%d,103\n"
             "down,,main,%d,100\ndown,,pr,%d,97\n",
             j, j, j, j);
    strcat(csv, row);
  }
  bs_log *log = parse(csv);
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_str_eq(r->cases[0].benchmark, "down");
  cr_expect_eq(r->cases[0].delta_pct, -3.0);
  cr_expect_eq(r->cases[0].verdict, BS_VERDICT_FASTER);
  cr_expect_eq(r->cases[1].delta_pct, 3.0);
  cr_expect_eq(r->cases[1].verdict, BS_VERDICT_SLOWER);
  cr_expect(r->cases[1].significant_regression);
  cr_expect_eq(r->cases[1].speedup, 100.0 / 103.0);
  bs_compare_result_free(r);
  bs_log_free(log);
}

/* SPEC §3: MismatchedPairs is an error, never a truncation. */
Test(invariants, mismatched_pairs_is_an_error_not_a_truncation) {
  const char *csv = "benchmark,impl,block,per_call_us\n"
                    "a,main,0,1\na,pr,0,1\n"
                    "a,main,1,1\na,pr,1,1\n"
                    "a,main,2,1\n" /* line 6: no pr partner */
                    "a,pr,3,1\n";  /* line 7: no main partner */
  bs_log *log = parse(csv);
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_compare_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_EMISMATCH);
  cr_expect_null(r);
  cr_expect_str_eq(err.path, "mem.csv");
  cr_expect_eq(err.line, 6);
  cr_expect(strstr(err.message, "mismatched pairs in case a") != NULL, "%s",
            err.message);
  cr_expect(strstr(err.message, "main run 0 block 2 (mem.csv:6)") != NULL, "%s",
            err.message);
  cr_expect(strstr(err.message, "pr run 0 block 3 (mem.csv:7)") != NULL, "%s",
            err.message);
  bs_log_free(log);
}

Test(compare, mismatch_names_the_unpaired_row_even_before_pairs) {
  /* The lone row sorts first; the pairs after it must not overwrite it. */
  const char *csv = "benchmark,impl,block,per_call_us\n"
                    "a,main,0,1\n" /* line 2: no pr partner */
                    "a,main,1,1\na,pr,1,1\na,main,2,1\na,pr,2,1\n";
  bs_log *log = parse(csv);
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_compare_result *r = NULL;
  bs_error err;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_EMISMATCH);
  cr_expect_eq(err.line, 2, "error at line %ld: %s", err.line, err.message);
  cr_expect(strstr(err.message, "main run 0 block 0 (mem.csv:2)") != NULL, "%s",
            err.message);
  bs_log_free(log);
}

Test(compare, pairs_runs_and_blocks_past_32_bits) {
  /* Equal in their low 32 bits, different in full: never paired. */
  const char *csv = "benchmark,impl,run,block,per_call_us\n"
                    "a,main,4294967296,0,1\na,pr,4294967296,0,2\n"
                    "a,main,0,4294967297,3\na,pr,0,4294967297,5\n"
                    "a,main,0,1,4\na,pr,0,1,7\n";
  bs_log *log = parse(csv);
  bs_compare_result *r = run(log, BS_MODE_HOTSPOT);
  const bs_case_compare *c = &r->cases[0];
  cr_assert_eq(c->blocks, 3);
  cr_expect_eq(c->runs[0], 0);
  cr_expect_eq(c->block_ids[0], 1);
  cr_expect_eq(c->delta[0], 3);
  cr_expect_eq(c->block_ids[1], 4294967297);
  cr_expect_eq(c->delta[1], 2);
  cr_expect_eq(c->runs[2], 4294967296);
  cr_expect_eq(c->delta[2], 1);
  bs_compare_result_free(r);
  bs_log_free(log);
  log = parse("benchmark,impl,run,block,per_call_us\n"
              "a,main,4294967296,0,1\na,pr,0,0,2\n");
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  bs_error err;
  r = NULL;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_EMISMATCH);
  cr_expect(strstr(err.message, "main run 4294967296 block 0 (mem.csv:2)") !=
                NULL,
            "%s", err.message);
  bs_log_free(log);
}

Test(compare, pairs_by_run_then_block) {
  /* Rows out of order and two runs sharing block ids: pairing is by
   * (run, block), never by position. */
  const char *csv = "benchmark,impl,run,block,per_call_us\n"
                    "a,pr,1,0,40\na,main,0,1,2\na,pr,0,0,11\n"
                    "a,main,1,0,4\na,pr,0,1,22\na,main,0,0,1\n";
  bs_log *log = parse(csv);
  bs_compare_result *r = run(log, BS_MODE_HOTSPOT);
  const bs_case_compare *c = &r->cases[0];
  cr_assert_eq(c->blocks, 3);
  const double b[] = {1, 2, 4}, cc[] = {11, 22, 40};
  for (int k = 0; k < 3; k++) {
    cr_expect_eq(c->baseline[k], b[k]);
    cr_expect_eq(c->candidate[k], cc[k]);
    cr_expect_eq(c->delta[k], cc[k] - b[k]);
  }
  cr_expect_eq(c->runs[2], 1);
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(compare, warns_about_few_pairs_outliers_and_one_sided_cases) {
  const char *csv = "benchmark,impl,block,per_call_us\n"
                    "few,main,0,1\nfew,pr,0,1.1\nfew,main,1,1\nfew,pr,1,1.1\n"
                    "new,pr,0,5\nnew,pr,1,5\n"
                    "gone,main,0,5\n";
  bs_log *log = parse(csv);
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r->ncases, 1);
  cr_assert_eq(r->cases[0].nwarnings, 1);
  cr_expect(strstr(r->cases[0].warnings[0], "only 2 pairs") != NULL);
  cr_assert_eq(r->n_one_sided, 2);
  cr_expect_str_eq(r->one_sided[0].benchmark, "gone");
  cr_expect_str_eq(r->one_sided[0].present, "main");
  cr_expect_str_eq(r->one_sided[1].benchmark, "new");
  cr_expect_str_eq(r->one_sided[1].present, "pr");
  cr_assert_eq(r->nwarnings, 2);
  cr_expect(strstr(r->warnings[1], "only for candidate \"pr\"") != NULL, "%s",
            r->warnings[1]);
  bs_compare_result_free(r);

  char big[4096] = "benchmark,impl,block,per_call_us\n";
  for (int j = 0; j < 10; j++) {
    char row[96];
    snprintf(row, sizeof row, "o,main,%d,10\no,pr,%d,%s\n", j, j,
             j == 4 ? "30" : (j % 2 ? "10.1" : "10.2"));
    strcat(big, row);
  }
  bs_log *log2 = parse(big);
  r = run(log2, BS_MODE_CONFIRMATORY);
  cr_expect_eq(r->cases[0].outliers, 1);
  cr_expect_eq(r->cases[0].blocks, 10, "outliers are never removed");
  cr_assert_eq(r->cases[0].nwarnings, 1);
  cr_expect(strstr(r->cases[0].warnings[0], "1 of 10 paired differences") !=
            NULL);
  bs_compare_result_free(r);
  bs_log_free(log2);
  bs_log_free(log);
}

Test(compare, confirmatory_parameters_are_fixed) {
  bs_compare_options o;
  bs_error err;
  bs_compare_options_init(&o, BS_MODE_CONFIRMATORY);
  cr_expect_eq(o.threshold_pct, 3.0);
  cr_expect_eq(o.resamples, 10000);
  cr_expect_eq(o.level_pct, 95.0);
  cr_expect_eq(bs_compare_options_check(&o, &err), BS_OK);
  o.threshold_pct = 5;
  cr_expect_eq(bs_compare_options_check(&o, &err), BS_EUSAGE);
  bs_compare_options_init(&o, BS_MODE_HOTSPOT);
  cr_expect_eq(o.resamples, 2000);
  o.threshold_pct = 5;
  o.level_pct = 90;
  cr_expect_eq(bs_compare_options_check(&o, &err), BS_OK);
  o.level_pct = 0.95;
  cr_expect_eq(bs_compare_options_check(&o, &err), BS_EUSAGE);
  cr_expect_str_eq(err.message,
                   "confidence level is a percentage; did you mean 95?");
}

/* Builds three.csv with every per_call_us multiplied by lambda. */
static bs_log *scaled(double lambda) {
  bs_log *src = load("compare/three.csv");
  size_t n = bs_log_count(src);
  const bs_row *rows = bs_log_rows(src);
  size_t cap = 64 + n * 96;
  char *csv = malloc(cap);
  size_t used =
      (size_t)snprintf(csv, cap, "benchmark,dataset,impl,block,per_call_us\n");
  for (size_t i = 0; i < n; i++)
    used += (size_t)snprintf(
        csv + used, cap - used, "%s,%s,%s,%lld,%.17g\n",
        bs_log_row_case(src, &rows[i])->benchmark,
        bs_log_row_case(src, &rows[i])->dataset, rows[i].impl,
        (long long)bs_row_block(src, &rows[i]), rows[i].per_call_us * lambda);
  bs_log *log = parse(csv);
  free(csv);
  bs_log_free(src);
  return log;
}

static void check_scale(double lambda, double tol) {
  bs_log *a = scaled(1.0), *b = scaled(lambda);
  bs_compare_result *ra = run(a, BS_MODE_CONFIRMATORY);
  bs_compare_result *rb = run(b, BS_MODE_CONFIRMATORY);
  cr_assert_eq(ra->ncases, rb->ncases);
  for (size_t i = 0; i < ra->ncases; i++) {
    const bs_case_compare *x = &ra->cases[i], *y = &rb->cases[i];
    cr_expect_leq(fx_reldiff(y->median_delta_us, lambda * x->median_delta_us),
                  tol);
    cr_expect_leq(fx_reldiff(y->ci_low_us, lambda * x->ci_low_us), tol);
    cr_expect_leq(fx_reldiff(y->ci_high_us, lambda * x->ci_high_us), tol);
    cr_expect_leq(fx_reldiff(y->delta_pct, x->delta_pct), tol);
    cr_expect_eq(y->verdict, x->verdict);
    cr_expect_eq(y->significant_regression, x->significant_regression);
  }
  bs_compare_result_free(ra);
  bs_compare_result_free(rb);
  bs_log_free(a);
  bs_log_free(b);
}

/* SPEC §3: scale invariance, exact for powers of two. */
Test(invariants, scale_invariance_exact_for_powers_of_two) {
  check_scale(8.0, 0.0);
  check_scale(0.25, 0.0);
}

Test(invariants, scale_invariance_to_1e12_otherwise) {
  check_scale(1.7, 1e-12);
  check_scale(1e-3, 1e-12);
}

/* SPEC §3: the same observations and seed give the same numbers. */
Test(invariants, compare_is_deterministic) {
  bs_log *a = load("compare/three.csv");
  bs_compare_result *r1 = run(a, BS_MODE_CONFIRMATORY);
  bs_compare_result *r2 = run(a, BS_MODE_CONFIRMATORY);
  for (size_t i = 0; i < r1->ncases; i++) {
    cr_expect_eq(memcmp(&r1->cases[i].ci_low_us, &r2->cases[i].ci_low_us,
                        sizeof(double)),
                 0);
    cr_expect_eq(memcmp(&r1->cases[i].ci_high_us, &r2->cases[i].ci_high_us,
                        sizeof(double)),
                 0);
  }
  bs_compare_result_free(r1);
  bs_compare_result_free(r2);
  bs_log_free(a);
}

Test(compare, a_case_does_not_depend_on_the_other_cases) {
  /* Every bootstrap reseeds: dropping cases leaves a case's interval. */
  bs_log *all = load("compare/three.csv");
  bs_compare_result *r1 = run(all, BS_MODE_CONFIRMATORY);
  char *path = ts_data("compare/three.csv");
  char *text = ts_read(path, NULL);
  free(path);
  /* Keep the header and the sum rows only. */
  char *only = malloc(strlen(text) + 1);
  strcpy(only, "benchmark,dataset,impl,block,per_call_us\n");
  for (char *line = strchr(text, '\n') + 1; *line;) {
    char *next = strchr(line, '\n');
    if (!strncmp(line, "sum,", 4))
      strncat(only, line, (size_t)(next - line + 1));
    line = next + 1;
  }
  bs_log *one = parse(only);
  bs_compare_result *r2 = run(one, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r2->ncases, 1);
  cr_expect_eq(r2->cases[0].ci_low_us, r1->cases[2].ci_low_us);
  cr_expect_eq(r2->cases[0].ci_high_us, r1->cases[2].ci_high_us);
  free(text);
  free(only);
  bs_compare_result_free(r1);
  bs_compare_result_free(r2);
  bs_log_free(all);
  bs_log_free(one);
}

/* `archive add` skips its finiteness check (pairing every case) when all
 * per-call times of a log lie within a factor 2^40 of each other, normal
 * and at most 2^1000, on the argument in src/history/archive.c (times_close)
 * that such times always give a finite delta and speedup, the speedup below
 * 2^42. This tries to break that argument: pairs at the two ends of the
 * range, arranged to make med(b) + med(d) cancel (a slow baseline, a fast
 * candidate), for odd and even m, at both ends of the double range. */
Test(compare, times_within_2_to_the_40_give_finite_estimates) {
  const double bases[] = {DBL_MIN, 1e-300, 1.0, 0x1p960};
  unsigned long long s = 0x9E3779B97F4A7C15ull;
  for (size_t bi = 0; bi < sizeof bases / sizeof *bases; bi++) {
    double lo = bases[bi], hi = ldexp(lo, 40);
    const double vals[] = {lo, hi, nextafter(hi, 0), lo * 2, hi / 2};
    for (int m = 1; m <= 6; m++)
      for (int trial = 0; trial < 200; trial++) {
        char *csv = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&csv, &len);
        cr_assert_not_null(f);
        fputs("benchmark,dataset,impl,run,block,phase,iterations,"
              "per_call_us\n",
              f);
        for (int j = 0; j < m; j++) {
          s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
          unsigned long long r = s * 0x2545F4914F6CDD1Dull;
          /* Mostly the cancelling arrangement, sometimes any pair. */
          double b = trial % 4 ? hi : vals[r % 5];
          double c = trial % 4 ? lo : vals[(r >> 8) % 5];
          if (trial % 4 && (r >> 16) % 3 == 0)
            b = vals[(r >> 24) % 5];
          fprintf(
              f, "k,n,main,0,%d,confirm,1,%.17g\nk,n,pr,0,%d,confirm,1,%.17g\n",
              j, b, j, c);
        }
        cr_assert_eq(fclose(f), 0);
        bs_log *log = parse(csv);
        free(csv);
        bs_compare_options o;
        bs_compare_options_init(&o, BS_MODE_HOTSPOT);
        o.resamples = 1;
        bs_compare_result *res = NULL;
        bs_error err;
        cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &res, &err), BS_OK,
                     "lo %a m %d trial %d: %s", lo, m, trial, err.message);
        const bs_case_compare *c = &res->cases[0];
        cr_expect(isfinite(c->delta_pct) && isfinite(c->speedup) &&
                      c->speedup > 0 && c->speedup < 0x1p42,
                  "lo %a m %d trial %d: delta %a speedup %a", lo, m, trial,
                  c->delta_pct, c->speedup);
        bs_compare_result_free(res);
        bs_log_free(log);
      }
  }
}

/* An adaptive run's log: each case's interval at the level of its last
 * look, and the spread of its per-run changes, against numpy
 * (tests/data/compare/make_looks.py wrote looks.csv and
 * looks_expected.txt). */
Test(compare, looks_and_between_run_spread_match_numpy) {
  bs_log *log = load("compare/looks.csv");
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r->ncases, 4);
  const unsigned looks[] = {1, 0, 3, 2}; /* once, plain, thrice, twice */
  const size_t nruns[] = {5, 2, 20, 10};
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    double w[4];
    cr_assert_eq(fx_numbers("compare/looks_expected.txt", c->benchmark, w, 4),
                 4, "%s", c->benchmark);
    cr_expect_eq(c->looks, looks[i], "%s", c->benchmark);
    cr_expect_eq(c->nruns, nruns[i], "%s", c->benchmark);
    cr_expect_eq(c->level_pct, w[0], "%s: level %g", c->benchmark,
                 c->level_pct);
    cr_expect_leq(fx_reldiff(c->ci_low_us, w[1]), 1e-9, "%s L %.17g vs %.17g",
                  c->benchmark, c->ci_low_us, w[1]);
    cr_expect_leq(fx_reldiff(c->ci_high_us, w[2]), 1e-9, "%s U %.17g vs %.17g",
                  c->benchmark, c->ci_high_us, w[2]);
    if (isnan(w[3])) {
      cr_expect(isnan(c->between_runs_pct), "%s", c->benchmark);
      cr_expect_not(c->layout_sensitive);
    } else {
      cr_expect_leq(fx_reldiff(c->between_runs_pct, w[3]), 1e-9,
                    "%s spread %.17g vs %.17g", c->benchmark,
                    c->between_runs_pct, w[3]);
      cr_expect_eq(c->layout_sensitive, w[3] > 3.0, "%s", c->benchmark);
    }
  }
  cr_expect_eq(r->adaptive, 2);
  cr_expect_eq(r->layout_sensitive, 3);
  bs_compare_result_free(r);
  bs_log_free(log);
}

/* A layout-sensitive case's change must hold over its runs too: an
 * interval clear of 0 is not enough when one run in five says the
 * opposite (tests/data/compare/make_layout_held.py wrote the log and
 * scipy's t test p-values). */
Test(compare, layout_sensitive_changes_must_hold_over_runs) {
  bs_log *log = load("compare/layout_held.csv");
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r->ncases, 5);
  size_t held = 0;
  for (size_t i = 0; i < r->ncases; i++) {
    const bs_case_compare *c = &r->cases[i];
    double w[5];
    cr_assert_eq(
        fx_numbers("compare/layout_held_expected.txt", c->benchmark, w, 5), 5,
        "%s", c->benchmark);
    cr_expect_eq(c->nruns, 5, "%s", c->benchmark);
    cr_expect_leq(fx_reldiff(c->between_runs_pct, w[0]), 1e-12, "%s",
                  c->benchmark);
    if (isnan(w[1]))
      cr_expect(isnan(c->runs_p_value), "%s: p %g", c->benchmark,
                c->runs_p_value);
    else
      cr_expect_leq(fx_reldiff(c->runs_p_value, w[1]), 1e-10,
                    "%s: p %.17g vs %.17g", c->benchmark, c->runs_p_value,
                    w[1]);
    cr_expect_eq(c->held_by_layout, (int)w[2], "%s", c->benchmark);
    cr_expect_eq(c->significant_regression, (int)w[3], "%s", c->benchmark);
    cr_expect_eq(c->significant_improvement, (int)w[4], "%s", c->benchmark);
    /* Held: it can neither show a change nor rule one out. */
    if (c->held_by_layout)
      cr_expect(c->inconclusive || c->significant_improvement == 0, "%s",
                c->benchmark);
    held += c->held_by_layout != 0;
  }
  cr_expect_eq(r->held_by_layout, held);
  cr_expect_eq(held, 2);
  bs_compare_result_free(r);
  bs_log_free(log);
}

Test(compare, look_levels_follow_the_spending_rule) {
  cr_assert_eq(bs_compare_look_level(0), 95.0);
  cr_assert_eq(bs_compare_look_level(1), 96.0);
  cr_assert_eq(bs_compare_look_level(2), 99.3);
  cr_assert_eq(bs_compare_look_level(4), 99.3);
}

/* ---- The minimum detectable change (SPEC §2.15), worked by hand ---------
 * Every baseline batch takes 100 µs.
 *   wide:   two pairs, d = 0 and 10 µs. med(d) = 5, delta_pct = 5. A
 *           resample of two draws has median 0 (both draws the first
 *           pair) a quarter of the time, so the 2.5 % quantile of 10 000
 *           medians is 0: L = 0, L% = 0, and mde = max(3, 5 - 0) = 5.
 *   narrow: six pairs, d = 1 µs each: every resample's median is 1, L = 1,
 *           L% = delta_pct = 1, and mde = max(3, 0) = 3, the gate's delta.
 * With a noise floor of 8 % on wide, its threshold is 8 and mde =
 * max(8, 5) = 8; a floor of 2 % (below delta) leaves narrow at 3. A
 * hotspot delta of 6 makes wide's mde 6, not above delta: not blind. */
static const char mde_log[] = "benchmark,impl,block,per_call_us\n"
                              "wide,main,0,100\nwide,pr,0,100\n"
                              "wide,main,1,100\nwide,pr,1,110\n"
                              "narrow,main,0,100\nnarrow,pr,0,101\n"
                              "narrow,main,1,100\nnarrow,pr,1,101\n"
                              "narrow,main,2,100\nnarrow,pr,2,101\n"
                              "narrow,main,3,100\nnarrow,pr,3,101\n"
                              "narrow,main,4,100\nnarrow,pr,4,101\n"
                              "narrow,main,5,100\nnarrow,pr,5,101\n";

static int mde_floors(void *ctx, const char *benchmark, const char *dataset,
                      double *floor_pct) {
  (void)ctx;
  (void)dataset;
  *floor_pct = !strcmp(benchmark, "wide") ? 8.0 : 2.0;
  return 1;
}

Test(compare, minimum_detectable_change_by_hand) {
  bs_log *log = parse(mde_log);
  bs_compare_result *r = run(log, BS_MODE_CONFIRMATORY);
  cr_assert_eq(r->ncases, 2);
  const bs_case_compare *narrow = &r->cases[0], *wide = &r->cases[1];
  cr_assert_str_eq(narrow->benchmark, "narrow");
  cr_assert_str_eq(wide->benchmark, "wide");
  cr_expect_eq(wide->ci_low_us, 0.0);
  cr_expect_eq(wide->delta_pct, 5.0);
  cr_expect_eq(wide->mde_pct, 5.0, "%.17g", wide->mde_pct);
  cr_expect(wide->blind);
  cr_expect_eq(narrow->mde_pct, 3.0, "%.17g", narrow->mde_pct);
  cr_expect_not(narrow->blind);
  cr_expect_eq(r->blind, 1);
  cr_expect_eq(r->blind_max_mde_pct, 5.0);

  /* The noise-aware gate raises the threshold the mde starts from. */
  cr_assert_eq(bs_compare_apply_noise(r, mde_floors, NULL), BS_OK);
  cr_expect_eq(wide->mde_pct, 8.0, "%.17g", wide->mde_pct);
  cr_expect(wide->blind);
  cr_expect_eq(narrow->mde_pct, 3.0, "%.17g", narrow->mde_pct);
  cr_expect_not(narrow->blind);
  cr_expect_eq(r->blind, 1);
  cr_expect_eq(r->blind_max_mde_pct, 8.0);
  bs_compare_result_free(r);

  /* Blind means above delta, not at it. */
  bs_compare_options o;
  bs_compare_options_init(&o, BS_MODE_HOTSPOT);
  o.threshold_pct = 6.0;
  bs_error err;
  cr_assert_eq(bs_compare_run(log, "main", "pr", &o, &r, &err), BS_OK, "%s",
               err.message);
  cr_expect_eq(r->cases[1].mde_pct, 6.0);
  cr_expect_not(r->cases[1].blind);
  cr_expect_eq(r->blind, 0);
  cr_expect(isnan(r->blind_max_mde_pct));
  bs_compare_result_free(r);
  bs_log_free(log);
}
