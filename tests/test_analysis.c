/* bs_analyse: which analyses a run's inputs call for, each made once with
 * the given parameters, and what keep_going keeps. The statistics
 * themselves are checked in test_compare, test_tune and test_noise; here
 * only which results exist and how they were made. */
#include "benchsite/analysis.h"

#include "support.h"

#include <criterion/criterion.h>
#include <string.h>

#define EXAMPLES BENCHSITE_SOURCE_DIR "/examples/"

TestSuite(analysis, .fini = ts_free_owned);

typedef struct inputs {
  bs_log *log;
  bs_manifest *mf[2];
  size_t nmf;
} inputs;

static void load(inputs *in, const char *const *logs, size_t nlogs,
                 const char *const *mfs, size_t nmf) {
  bs_error err;
  bs_error_clear(&err);
  memset(in, 0, sizeof *in);
  in->log = bs_log_new();
  cr_assert_not_null(in->log);
  for (size_t i = 0; i < nlogs; i++)
    cr_assert_eq(bs_log_read_file(in->log, logs[i], &err), BS_OK, "%s",
                 err.message);
  for (size_t i = 0; i < nmf; i++) {
    in->mf[i] = bs_manifest_new();
    cr_assert_eq(bs_manifest_read_file(in->mf[i], mfs[i], &err), BS_OK, "%s",
                 err.message);
  }
  in->nmf = nmf;
}

static void unload(inputs *in) {
  for (size_t i = 0; i < in->nmf; i++)
    bs_manifest_free(in->mf[i]);
  bs_log_free(in->log);
}

static bs_status analyse(const inputs *in, const bs_analysis_options *o,
                         bs_analysis **a, bs_error *err) {
  bs_error_clear(err);
  return bs_analyse(in->log, (const bs_manifest *const *)in->mf, in->nmf, o, a,
                    err);
}

static const char *const all_logs[] = {EXAMPLES "pr.csv", EXAMPLES "aa.csv",
                                       EXAMPLES "tune.csv"};
static const char *const all_mfs[] = {EXAMPLES "env.csv",
                                      EXAMPLES "aa-env.csv"};

/* The combined example: a baseline and candidate, an A/A pair and a
 * benchmark with three impls at several scales call for all three. */
Test(analysis, every_analysis_the_inputs_allow_is_made_once) {
  inputs in;
  load(&in, all_logs, 3, all_mfs, 2);
  bs_analysis_options o;
  bs_analysis_options_init(&o);
  o.seed = 7;
  bs_noise_options no;
  bs_noise_options_init(&no);
  no.resamples = 500;
  no.seed = 99; /* replaced by o.seed */
  o.noise = &no;
  bs_analysis *a = NULL;
  bs_error err;
  cr_assert_eq(analyse(&in, &o, &a, &err), BS_OK, "%s", err.message);
  cr_assert_not_null(a->compare);
  cr_assert_not_null(a->tune);
  cr_assert_not_null(a->aa);
  cr_expect_eq(a->status, BS_OK);
  cr_expect_eq(a->seed, 7);
  cr_expect_str_eq(a->compare->baseline, "main");
  cr_expect_str_eq(a->compare->candidate, "pr");
  cr_expect_eq(a->compare->options.mode, BS_MODE_CONFIRMATORY);
  cr_expect_eq(a->compare->options.seed, 7);
  cr_expect(a->compare->cases[0].thetas != NULL, "bootstrap kept by default");
  cr_expect_str_eq(a->aa->a, "A");
  cr_expect_eq(a->aa->options.resamples, 500);
  cr_expect_eq(a->aa->options.seed, 7);
  cr_expect_str_eq(a->aa_source, EXAMPLES "aa-env.csv");
  cr_expect_eq(a->nmanifests, 2);
  cr_expect_eq(a->log, in.log);
  /* The A/A floors reach the compared cases the validation covers. */
  size_t floors = 0;
  for (size_t i = 0; i < a->compare->ncases; i++)
    floors += a->compare->cases[i].has_noise_floor != 0;
  cr_expect_eq(floors, 2);
  bs_analysis_free(a);
  bs_analysis_free(NULL);
  unload(&in);
}

/* A comparison of two impls at one scale each: tuning adds nothing. */
Test(analysis, tuning_only_when_it_adds_something) {
  static const char *const logs[] = {EXAMPLES "pr.csv"};
  static const char *const mfs[] = {EXAMPLES "env.csv"};
  inputs in;
  load(&in, logs, 1, mfs, 1);
  bs_analysis *a = NULL;
  bs_error err;
  cr_assert_eq(analyse(&in, NULL, &a, &err), BS_OK, "%s", err.message);
  cr_expect_not_null(a->compare);
  cr_expect_null(a->tune);
  cr_expect_null(a->aa);
  bs_analysis_free(a);
  /* Asked for, it is made. */
  bs_analysis_options o;
  bs_analysis_options_init(&o);
  o.sections = BS_ANALYSE_TUNE;
  cr_assert_eq(analyse(&in, &o, &a, &err), BS_OK, "%s", err.message);
  cr_expect_null(a->compare);
  cr_expect_not_null(a->tune);
  bs_analysis_free(a);
  unload(&in);
}

static int floor_of_two(void *ctx, const char *benchmark, const char *dataset,
                        double *floor_pct) {
  (void)dataset;
  ++*(int *)ctx;
  if (strcmp(benchmark, "sum"))
    return 0;
  *floor_pct = 2.0;
  return 1;
}

/* Exactly the named analyses, with the caller's parameters and floors. */
Test(analysis, sections_make_exactly_what_is_asked) {
  inputs in;
  load(&in, all_logs, 3, all_mfs, 2);
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_HOTSPOT);
  co.threshold_pct = 5;
  bs_analysis_options o;
  bs_analysis_options_init(&o);
  o.sections = BS_ANALYSE_COMPARE;
  o.compare = &co;
  int calls = 0;
  o.noise_lookup = floor_of_two;
  o.noise_ctx = &calls;
  bs_analysis *a = NULL;
  bs_error err;
  cr_assert_eq(analyse(&in, &o, &a, &err), BS_OK, "%s", err.message);
  cr_assert_not_null(a->compare);
  cr_expect_null(a->tune);
  cr_expect_null(a->aa);
  cr_expect_eq(a->compare->options.mode, BS_MODE_HOTSPOT);
  cr_expect_eq(a->compare->options.threshold_pct, 5);
  cr_expect_null(a->compare->cases[0].thetas, "keep_bootstrap as given");
  cr_expect_eq(calls, (int)a->compare->ncases);
  for (size_t i = 0; i < a->compare->ncases; i++) {
    const bs_case_compare *c = &a->compare->cases[i];
    cr_expect_eq(c->has_noise_floor, !strcmp(c->benchmark, "sum"));
  }
  bs_analysis_free(a);

  /* A required analysis with nothing to name it fails. */
  o.sections = BS_ANALYSE_AA;
  in.nmf = 1; /* without aa-env.csv */
  a = (bs_analysis *)1;
  cr_expect_eq(analyse(&in, &o, &a, &err), BS_EUSAGE);
  cr_expect(strstr(err.message, "A/A pair"), "%s", err.message);
  cr_expect_null(a);
  in.nmf = 2;
  o.sections = BS_ANALYSE_COMPARE;
  o.baseline = "main";
  o.candidate = NULL;
  bs_manifest *keep = in.mf[0];
  in.mf[0] = in.mf[1]; /* aa-env.csv names no candidate */
  in.nmf = 1;
  cr_expect_eq(analyse(&in, &o, &a, &err), BS_EUSAGE);
  cr_expect(strstr(err.message, "candidate"), "%s", err.message);
  in.mf[0] = keep;
  in.nmf = 2;
  unload(&in);
}

/* keep_going keeps the first problem and still makes the comparison (the
 * site shows the verdicts of a run it cannot report on); without it the
 * problem fails the analysis. */
Test(analysis, keep_going_keeps_the_problem_and_the_comparison) {
  static const char *const logs[] = {EXAMPLES "pr.csv"};
  static const char wasm[] =
      "key,value\ntarget,wasm32\nbaseline,main\ncandidate,pr\n";
  inputs in;
  load(&in, logs, 1, NULL, 0);
  bs_error err;
  bs_error_clear(&err);
  in.mf[0] = bs_manifest_new();
  cr_assert_eq(bs_manifest_read_buffer(in.mf[0], "wasm.csv", wasm,
                                       sizeof wasm - 1, &err),
               BS_OK, "%s", err.message);
  in.nmf = 1;
  bs_analysis *a = NULL;
  cr_expect_eq(analyse(&in, NULL, &a, &err), BS_EINPUT);
  cr_expect_null(a);
  char strict[sizeof err.message];
  memcpy(strict, err.message, sizeof strict);
  bs_analysis_options o;
  bs_analysis_options_init(&o);
  o.keep_going = 1;
  cr_assert_eq(analyse(&in, &o, &a, &err), BS_OK, "%s", err.message);
  cr_expect_eq(a->status, BS_EINPUT);
  cr_expect_str_eq(a->error.message, strict);
  cr_assert_not_null(a->compare);
  cr_expect_eq(a->compare->ncases, 4);
  cr_expect_eq(a->compare->regressions, 1);
  bs_analysis_free(a);
  unload(&in);
}
