/* The analysis of one run: which analyses the inputs call for, each made
 * once (see analysis.h). */
#include "benchsite/analysis.h"
#include "oom.h"

#include <stdlib.h>
#include <string.h>

void bs_analysis_options_init(bs_analysis_options *o) {
  memset(o, 0, sizeof *o);
}

void bs_analysis_free(bs_analysis *a) {
  if (!a)
    return;
  bs_compare_result_free(a->compare);
  bs_tune_result_free(a->tune);
  bs_noise_result_free(a->aa);
  free((void *)a->manifests);
  free(a);
}

static const char *first_key(const bs_analysis *a, const char *key) {
  for (size_t i = 0; i < a->nmanifests; i++) {
    const char *v = bs_manifest_get(a->manifests[i], key);
    if (v)
      return v;
  }
  return NULL;
}

static int is_aa(const char *a, const char *b, const char *impl) {
  return (a && !strcmp(a, impl)) || (b && !strcmp(b, impl));
}

/* The A/A pair: the options' (crediting a manifest that names exactly
 * that pair) or the first manifest's that names both. */
static bs_status aa_pair(bs_analysis *an, const bs_analysis_options *o,
                         const char **a, const char **b, bs_error *err) {
  *a = *b = NULL;
  if ((o->aa_a != NULL) != (o->aa_b != NULL))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "report: name both impls of the A/A pair or neither");
  for (size_t i = 0; i < an->nmanifests && !*a; i++) {
    const char *ma = bs_manifest_get(an->manifests[i], "aa_a");
    const char *mb = bs_manifest_get(an->manifests[i], "aa_b");
    if (!ma || !mb)
      continue;
    if (o->aa_a && (strcmp(ma, o->aa_a) || strcmp(mb, o->aa_b)))
      continue;
    *a = ma;
    *b = mb;
    an->aa_source = bs_manifest_path(an->manifests[i]);
  }
  if (o->aa_a) {
    *a = o->aa_a;
    *b = o->aa_b;
  }
  return BS_OK;
}

/* Whether a benchmark with at least two scaled cases is measured there by
 * two or more impls other than the A/A pair: the tuning chart of the
 * report then shows a choice. -1 when out of memory. */
static int scaled_choice(const bs_tune_result *t, const char *aa_a,
                         const char *aa_b) {
  size_t i = 0;
  while (i < t->ncases) {
    size_t e = i, scaled = 0, nimpl = 0;
    while (e < t->ncases &&
           !strcmp(t->cases[e].benchmark, t->cases[i].benchmark))
      e++;
    for (size_t j = i; j < e; j++) {
      scaled += t->cases[j].has_scale != 0;
      nimpl += t->cases[j].has_scale ? t->cases[j].nmedians : 0;
    }
    if (scaled >= 2) {
      const char **impls = malloc((nimpl ? nimpl : 1) * sizeof *impls);
      size_t n = 0, other = 0;
      if (!impls)
        return -1;
      for (size_t j = i; j < e; j++) {
        if (!t->cases[j].has_scale)
          continue;
        for (size_t q = 0; q < t->cases[j].nmedians; q++) {
          const char *impl = t->cases[j].medians[q].impl;
          size_t z = 0;
          while (z < n && strcmp(impls[z], impl))
            z++;
          if (z == n) {
            impls[n++] = impl;
            other += !is_aa(aa_a, aa_b, impl);
          }
        }
      }
      free(impls);
      if (other >= 2)
        return 1;
    }
    i = e;
  }
  return 0;
}

/* A problem: fails the analysis, or with keep_going is kept (the first
 * one) and the analysis goes on. Returns the status to return now. */
static bs_status problem(bs_analysis *a, const bs_analysis_options *o,
                         bs_status st, const bs_error *e, bs_error *err) {
  if (st == BS_ENOMEM || !o->keep_going) {
    if (err)
      *err = *e;
    return st;
  }
  if (!a->status) {
    a->status = st;
    a->error = *e;
  }
  return BS_OK;
}

/* The analysis's progress hook, under the stage each analysis reports. */
static int compare_progress(void *ctx, size_t done, size_t total) {
  const bs_analysis_options *o = ctx;
  return o->progress(o->progress_ctx, "compare", done, total);
}

static int aa_progress(void *ctx, size_t done, size_t total) {
  const bs_analysis_options *o = ctx;
  return o->progress(o->progress_ctx, "aa", done, total);
}

static bs_status compare(bs_analysis *a, const bs_analysis_options *o,
                         int required, bs_error *err) {
  bs_error e;
  bs_error_clear(&e);
  bs_status st;
  const char *base = o->baseline ? o->baseline : first_key(a, "baseline");
  const char *cand = o->candidate ? o->candidate : first_key(a, "candidate");
  if ((base != NULL) != (cand != NULL) || (required && !base)) {
    st = bs_error_set(&e, BS_EUSAGE, NULL, 0,
                      "report: name the %s with --%s or the manifest's "
                      "\"%s\" key",
                      base ? "candidate" : "baseline",
                      base ? "candidate" : "baseline",
                      base ? "candidate" : "baseline");
    return problem(a, o, st, &e, err);
  }
  if (!base)
    return BS_OK;
  for (size_t i = 0; i < a->nmanifests; i++) {
    if ((st = bs_manifest_require_native(a->manifests[i], &e))) {
      /* With keep_going the comparison is still made: its verdicts are
       * shown even where no report can be. */
      if ((st = problem(a, o, st, &e, err)))
        return st;
      break;
    }
  }
  bs_compare_options co;
  if (o->compare) {
    co = *o->compare;
  } else {
    bs_compare_options_init(&co, BS_MODE_CONFIRMATORY);
    co.keep_bootstrap = 1;
  }
  co.seed = o->seed;
  co.metric = o->metric;
  co.progress = o->progress ? compare_progress : NULL;
  co.progress_ctx = (void *)o;
  if ((st = bs_compare_run(a->log, base, cand, &co, &a->compare, &e)))
    return problem(a, o, st, &e, err);
  if (bs_compare_check_environment(a->compare, a->manifests, a->nmanifests))
    return bs__oom(err);
  return BS_OK;
}

static bs_status validate(bs_analysis *a, const bs_analysis_options *o,
                          int required, const char **aa_a, const char **aa_b,
                          bs_error *err) {
  bs_error e;
  bs_error_clear(&e);
  bs_status st;
  if ((st = aa_pair(a, o, aa_a, aa_b, &e)))
    return problem(a, o, st, &e, err);
  if (required && !*aa_a) {
    st = bs_error_set(&e, BS_EUSAGE, NULL, 0,
                      "report: name the A/A pair with --a and --b or "
                      "the manifest's \"aa_a\" and \"aa_b\" keys");
    return problem(a, o, st, &e, err);
  }
  if (!*aa_a)
    return BS_OK;
  bs_noise_options no;
  if (o->noise)
    no = *o->noise;
  else
    bs_noise_options_init(&no);
  no.seed = o->seed;
  no.metric = o->metric;
  no.progress = o->progress ? aa_progress : NULL;
  no.progress_ctx = (void *)o;
  if ((st = bs_noise_run(a->log, *aa_a, *aa_b, &no, &a->aa, &e)))
    return problem(a, o, st, &e, err);
  return BS_OK;
}

/* Tuning is kept when it says something the comparison does not: a
 * benchmark measured at several scales, a case with three or more impls,
 * or a log with nothing else to show -- or when asked for. */
static bs_status tune(bs_analysis *a, const bs_analysis_options *o,
                      int required, const char *aa_a, const char *aa_b,
                      bs_error *err) {
  bs_error e;
  bs_error_clear(&e);
  bs_tune_result *t = NULL;
  bs_status st = bs_tune_run(a->log, a->metric, a->seed, &t, &e);
  if (st == BS_ENOMEM || (st && required))
    return problem(a, o, st, &e, err);
  if (!st) {
    /* The A/A pair is one implementation measured twice: it does not
     * count towards "several implementations". */
    int show = required || (!a->compare && !a->aa);
    for (size_t i = 0; i < t->ncases && !show; i++) {
      size_t k = 0;
      for (size_t j = 0; j < t->cases[i].nmedians; j++)
        k += !is_aa(aa_a, aa_b, t->cases[i].medians[j].impl);
      show = k >= 3;
    }
    int choice = show ? 0 : scaled_choice(t, aa_a, aa_b);
    if (choice < 0) {
      bs_tune_result_free(t);
      return bs__oom(err);
    }
    if (show || choice)
      a->tune = t;
    else
      bs_tune_result_free(t);
  }
  if (!a->compare && !a->aa && !a->tune) {
    if (st)
      return problem(a, o, st, &e, err);
    st = bs_error_set(&e, BS_EUSAGE, NULL, 0,
                      "report: nothing to report (no confirm rows)");
    return problem(a, o, st, &e, err);
  }
  return BS_OK;
}

bs_status bs_analyse(const bs_log *log, const bs_manifest *const *manifests,
                     size_t n, const bs_analysis_options *opts,
                     bs_analysis **out, bs_error *err) {
  bs_analysis_options defaults;
  const bs_analysis_options *o = opts;
  *out = NULL;
  if (!o) {
    bs_analysis_options_init(&defaults);
    o = &defaults;
  }
  if (!log || (!manifests && n) ||
      (o->sections &
       ~(unsigned)(BS_ANALYSE_COMPARE | BS_ANALYSE_TUNE | BS_ANALYSE_AA)))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "analysis: a log and known sections are required");
  bs_analysis *a = calloc(1, sizeof *a);
  /* An array of pointers, one per manifest. */
  const bs_manifest **mf = calloc(n ? n : 1, sizeof(const bs_manifest *));
  if (!a || !mf) {
    free(a);
    free(mf);
    return bs__oom(err);
  }
  for (size_t i = 0; i < n; i++)
    mf[i] = manifests[i];
  a->log = log;
  a->manifests = mf;
  a->nmanifests = n;
  a->seed = o->seed;
  a->metric = o->metric;
  bs_error_clear(&a->error);
  /* A metric the log cannot give leaves no analysis to make: it fails,
   * or with keep_going (a site: the run's problem, never the build's) it
   * is the analysis's kept problem and nothing is computed. */
  bs_status mst = bs_metric_check_direction(o->metric, err);
  if (mst) {
    bs_analysis_free(a);
    return mst;
  }
  bs_error me;
  bs_error_clear(&me);
  if ((mst = bs_log_require_metric(log, o->metric, &me))) {
    if ((mst = problem(a, o, mst, &me, err))) {
      bs_analysis_free(a);
      return mst;
    }
    *out = a;
    return BS_OK;
  }

  unsigned want = o->sections
                      ? o->sections
                      : BS_ANALYSE_COMPARE | BS_ANALYSE_TUNE | BS_ANALYSE_AA;
  int required = o->sections != 0;
  const char *aa_a = NULL, *aa_b = NULL;
  bs_status st = BS_OK;
  if (want & BS_ANALYSE_COMPARE)
    st = compare(a, o, required, err);
  /* After a kept problem only the comparison matters (see keep_going). */
  if (!st && !a->status && (want & BS_ANALYSE_AA))
    st = validate(a, o, required, &aa_a, &aa_b, err);
  if (!st && !a->status && a->compare) {
    /* The noise floors: the A/A validation's own, else the caller's. */
    bs_status ns = BS_OK;
    if (a->aa)
      ns = bs_compare_apply_noise(a->compare, bs_noise_result_lookup, a->aa);
    else if (o->noise_lookup)
      ns = bs_compare_apply_noise(a->compare, o->noise_lookup, o->noise_ctx);
    if (ns)
      st = bs__oom(err);
  }
  if (!st && !a->status) {
    if (want & BS_ANALYSE_TUNE) {
      st = tune(a, o, required, aa_a, aa_b, err);
    } else if (!a->compare && !a->aa) {
      bs_error e;
      st = bs_error_set(&e, BS_EUSAGE, NULL, 0, "report: nothing to report");
      st = problem(a, o, st, &e, err);
    }
  }
  if (st) {
    bs_analysis_free(a);
    return st;
  }
  *out = a;
  return BS_OK;
}
