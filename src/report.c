/* benchsite report: analysis, then charts and pages into a temporary
 * directory beside the output, then an atomic swap. */
#include "benchsite/report.h"

#include "report_int.h"

#include "benchsite/json.h"
#include "benchsite/markdown.h"
#include "benchsite/output.h"

#include "fsutil.h"
#include "strlist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARKER ".benchsite-report"
#define MARKER_TEXT "benchsite report\n"

void bs_report_options_init(bs_report_options *o) { memset(o, 0, sizeof *o); }

/* ---- Filesystem --------------------------------------------------------- */

static bs_status write_file(const char *dir, const char *name, const char *data,
                            size_t len, bs_error *err) {
  char *path = bs__path_join(dir, name);
  if (!path)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  bs_status st = bs__write_file(path, data, len, 0, err);
  free(path);
  return st;
}

static int safe_asset_name(const char *s) {
  if (!s[0] || s[0] == '.')
    return 0;
  for (; *s; s++) {
    char c = *s;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
      return 0;
  }
  return 1;
}

/* Copies the regular files at the top of assets_dir (names of
 * [A-Za-z0-9._-], not hidden) into dir, in name order. */
static bs_status copy_assets(const char *assets, const char *dir,
                             size_t *copied, bs_error *err) {
  char **names;
  size_t n;
  bs_status st = bs__list_dir(assets, safe_asset_name, &names, &n, err);
  *copied = 0;
  for (size_t i = 0; i < n && !st; i++) {
    char *src = bs__path_join(assets, names[i]);
    struct stat sb;
    if (!src) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      break;
    }
    if (stat(src, &sb) == 0 && S_ISREG(sb.st_mode)) {
      char *data;
      size_t len;
      st = bs_read_file(src, (size_t)64 << 20, &data, &len, err);
      if (!st) {
        st = write_file(dir, names[i], data, len, err);
        free(data);
        (*copied)++;
      }
    }
    free(src);
  }
  bs__strlist_free(names, n);
  return st;
}

/* ---- Analysis ------------------------------------------------------------ */

static const char *first_key(const bs_manifest *const *mf, size_t n,
                             const char *key) {
  for (size_t i = 0; i < n; i++) {
    const char *v = bs_manifest_get(mf[i], key);
    if (v)
      return v;
  }
  return NULL;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Orders case indices by scale, then dataset (insertion sort: a
 * benchmark has few scales, and qsort would need the result as context). */
static void sort_by_scale(const bs_tune_result *t, size_t *idx, size_t n) {
  for (size_t i = 1; i < n; i++) {
    size_t v = idx[i], j = i;
    const bs_tune_case *x = &t->cases[v];
    while (j > 0) {
      const bs_tune_case *y = &t->cases[idx[j - 1]];
      int before = x->scale < y->scale ||
                   (x->scale == y->scale && strcmp(x->dataset, y->dataset) < 0);
      if (!before)
        break;
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = v;
  }
}

/* Benchmarks with at least two scaled cases get a tuning chart. */
static bs_status tune_groups(bs__report *r) {
  const bs_tune_result *t = r->tune;
  size_t i = 0;
  while (i < t->ncases) {
    size_t e = i;
    while (e < t->ncases &&
           !strcmp(t->cases[e].benchmark, t->cases[i].benchmark))
      e++;
    size_t scaled = 0;
    for (size_t j = i; j < e; j++)
      scaled += t->cases[j].has_scale != 0;
    if (scaled >= 2) {
      bs__tune_group *g = realloc(r->groups, (r->ngroups + 1) * sizeof *g);
      if (!g)
        return BS_ENOMEM;
      r->groups = g;
      g = &r->groups[r->ngroups++];
      memset(g, 0, sizeof *g);
      g->benchmark = t->cases[i].benchmark;
      g->chart = BS__NO_CHART;
      size_t nimpl = 0;
      for (size_t j = i; j < e; j++)
        nimpl += t->cases[j].nmedians;
      /* Filled through locals, stored in g (which owns them) when done. */
      size_t *cases = malloc(scaled * sizeof *cases);
      const char **impls = malloc((nimpl ? nimpl : 1) * sizeof *impls);
      g->cases = cases;
      g->impls = impls;
      if (!cases || !impls)
        return BS_ENOMEM;
      size_t ncases = 0, nimpls = 0;
      for (size_t j = i; j < e; j++) {
        if (!t->cases[j].has_scale)
          continue;
        cases[ncases++] = j;
        for (size_t q = 0; q < t->cases[j].nmedians; q++) {
          const char *impl = t->cases[j].medians[q].impl;
          size_t z = 0;
          while (z < nimpls && strcmp(impls[z], impl))
            z++;
          if (z == nimpls)
            impls[nimpls++] = impl;
        }
      }
      sort_by_scale(t, cases, ncases);
      qsort(impls, nimpls, sizeof *impls, cmp_str);
      g->ncases = ncases;
      g->nimpls = nimpls;
    }
    i = e;
  }
  return BS_OK;
}

static void report_release(bs__report *r) {
  bs_compare_result_free(r->own_cmp);
  bs_tune_result_free(r->own_tune);
  bs_noise_result_free(r->own_aa);
  for (size_t i = 0; i < r->ngroups; i++) {
    free(r->groups[i].cases);
    free(r->groups[i].impls);
  }
  free(r->groups);
  bs_plot_free(r->plot);
  for (size_t i = 0; i < r->ncharts; i++)
    free(r->charts[i].alt);
  free(r->charts);
  free(r->case_charts);
  free(r->aa_charts);
}

static int is_aa(const char *a, const char *b, const char *impl) {
  return (a && !strcmp(a, impl)) || (b && !strcmp(b, impl));
}

/* The A/A pair: the options' (crediting a manifest that names exactly
 * that pair) or the first manifest's that names both. */
static bs_status aa_pair(bs__report *r, const char **a, const char **b,
                         bs_error *err) {
  const bs_report_options *o = r->o;
  *a = *b = NULL;
  if ((o->aa_a != NULL) != (o->aa_b != NULL))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "report: name both impls of the A/A pair or neither");
  for (size_t i = 0; i < r->nmf && !*a; i++) {
    const char *ma = bs_manifest_get(r->mf[i], "aa_a");
    const char *mb = bs_manifest_get(r->mf[i], "aa_b");
    if (!ma || !mb)
      continue;
    if (o->aa_a && (strcmp(ma, o->aa_a) || strcmp(mb, o->aa_b)))
      continue;
    *a = ma;
    *b = mb;
    r->aa_source = bs_manifest_path(r->mf[i]);
  }
  if (o->aa_a) {
    *a = o->aa_a;
    *b = o->aa_b;
  }
  return BS_OK;
}

/* ---- Results computed by the caller --------------------------------------
 * The report uses them only when they are what it would compute itself
 * (the contract in report.h); each check names what differs. */

static bs_status not_as_computed(bs_error *err, const char *what,
                                 const char *field) {
  return bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "report: the given %s was not made as the report "
                      "would make it (%s)",
                      what, field);
}

static bs_status unused_result(bs_error *err, const char *what) {
  return bs_error_set(err, BS_EUSAGE, NULL, 0,
                      "report: a %s was given, but the report makes none",
                      what);
}

/* The comparison's parameters and bootstrap distributions. */
static bs_status check_compare(const bs_compare_result *c, const char *base,
                               const char *cand, const bs_compare_options *co,
                               bs_error *err) {
  const char *what = "comparison";
  const bs_compare_options *x = &c->options;
  if (strcmp(c->baseline, base) || strcmp(c->candidate, cand))
    return not_as_computed(err, what, "baseline or candidate");
  if (x->mode != co->mode)
    return not_as_computed(err, what, "mode");
  if (x->threshold_pct != co->threshold_pct)
    return not_as_computed(err, what, "threshold");
  if (x->level_pct != co->level_pct)
    return not_as_computed(err, what, "level");
  if (x->resamples != co->resamples)
    return not_as_computed(err, what, "resamples");
  if (x->seed != co->seed)
    return not_as_computed(err, what, "seed");
  /* The case pages chart every case's bootstrap distribution. */
  int kept = x->keep_bootstrap != 0;
  for (size_t i = 0; i < c->ncases && kept; i++)
    kept = c->cases[i].thetas != NULL;
  if (!kept)
    return not_as_computed(err, what, "no bootstrap distributions kept");
  return BS_OK;
}

/* The environment warnings bs_compare_check_environment adds are the last
 * ones of the result. */
static bs_status check_environment(const bs__report *r,
                                   const bs_compare_result *c, bs_error *err) {
  bs_compare_result want;
  memset(&want, 0, sizeof want);
  if (bs_compare_check_environment(&want, r->mf, r->nmf)) {
    bs__strlist_free(want.warnings, want.nwarnings);
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  int same = want.nwarnings <= c->nwarnings;
  for (size_t i = 0; i < want.nwarnings && same; i++)
    same = !strcmp(want.warnings[i],
                   c->warnings[c->nwarnings - want.nwarnings + i]);
  bs__strlist_free(want.warnings, want.nwarnings);
  return same ? BS_OK
              : not_as_computed(err, "comparison", "environment warnings");
}

/* Each case carries the floor `lookup` gives it (bs_compare_apply_noise
 * of a fresh result), or none when there is no lookup. */
static bs_status check_floors(const bs_compare_result *c,
                              int (*lookup)(void *ctx, const char *benchmark,
                                            const char *dataset,
                                            double *floor_pct),
                              void *ctx, bs_error *err) {
  for (size_t i = 0; i < c->ncases; i++) {
    const bs_case_compare *k = &c->cases[i];
    double f = 0;
    int has = lookup && lookup(ctx, k->benchmark, k->dataset, &f);
    if (has != (k->has_noise_floor != 0) ||
        (has && (k->noise_floor_pct != f ||
                 !k->within_noise != !(fabs(k->delta_pct) <= f))))
      return not_as_computed(err, "comparison", "noise floors");
  }
  return BS_OK;
}

static bs_status check_noise(const bs_noise_result *a, const char *aa_a,
                             const char *aa_b, const bs_noise_options *no,
                             bs_error *err) {
  const char *what = "A/A validation";
  const bs_noise_options *x = &a->options;
  if (strcmp(a->a, aa_a) || strcmp(a->b, aa_b))
    return not_as_computed(err, what, "A/A pair");
  if (x->resamples != no->resamples)
    return not_as_computed(err, what, "resamples");
  if (x->level != no->level)
    return not_as_computed(err, what, "level");
  if (x->seed != no->seed)
    return not_as_computed(err, what, "seed");
  if (x->block_mode != no->block_mode || x->block_length != no->block_length)
    return not_as_computed(err, what, "block bootstrap");
  return BS_OK;
}

static bs_status analyse(bs__report *r, bs_error *err) {
  const bs_report_options *o = r->o;
  /* 0: every analysis the inputs allow, tuning only when it adds
   * something; else exactly the named ones, each required. */
  unsigned want = o->sections
                      ? o->sections
                      : BS_REPORT_COMPARE | BS_REPORT_TUNE | BS_REPORT_AA;
  int required = o->sections != 0;
  const char *base = NULL, *cand = NULL;
  bs_status st;
  if (want & BS_REPORT_COMPARE) {
    base = o->baseline ? o->baseline : first_key(r->mf, r->nmf, "baseline");
    cand = o->candidate ? o->candidate : first_key(r->mf, r->nmf, "candidate");
    if ((base != NULL) != (cand != NULL) || (required && !base))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "report: name the %s with --%s or the manifest's "
                          "\"%s\" key",
                          base ? "candidate" : "baseline",
                          base ? "candidate" : "baseline",
                          base ? "candidate" : "baseline");
  }
  if (base) {
    for (size_t i = 0; i < r->nmf; i++) {
      if ((st = bs_manifest_require_native(r->mf[i], err)))
        return st;
    }
    bs_compare_options co;
    if (o->compare)
      co = *o->compare;
    else
      bs_compare_options_init(&co, BS_MODE_CONFIRMATORY);
    co.seed = o->seed;
    co.keep_bootstrap = 1;
    if (o->compare_result) {
      if ((st = check_compare(o->compare_result, base, cand, &co, err)) ||
          (st = check_environment(r, o->compare_result, err)))
        return st;
      r->cmp = o->compare_result;
    } else {
      if ((st = bs_compare_run(r->log, base, cand, &co, &r->own_cmp, err)))
        return st;
      if (bs_compare_check_environment(r->own_cmp, r->mf, r->nmf))
        return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      r->cmp = r->own_cmp;
    }
  } else if (o->compare_result) {
    return unused_result(err, "comparison");
  }
  const char *aa_a = NULL, *aa_b = NULL;
  if (want & BS_REPORT_AA) {
    if ((st = aa_pair(r, &aa_a, &aa_b, err)))
      return st;
    if (required && !aa_a)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "report: name the A/A pair with --a and --b or "
                          "the manifest's \"aa_a\" and \"aa_b\" keys");
  }
  if (aa_a) {
    bs_noise_options no;
    if (o->noise)
      no = *o->noise;
    else
      bs_noise_options_init(&no);
    no.seed = o->seed;
    if (o->noise_result) {
      if ((st = check_noise(o->noise_result, aa_a, aa_b, &no, err)))
        return st;
      r->aa = o->noise_result;
    } else {
      if ((st = bs_noise_run(r->log, aa_a, aa_b, &no, &r->own_aa, err)))
        return st;
      r->aa = r->own_aa;
    }
  } else if (o->noise_result) {
    return unused_result(err, "A/A validation");
  }
  /* The noise floors: the report's own A/A floors, else the caller's. A
   * given comparison must carry them already (it is not modified). */
  int (*lookup)(void *, const char *, const char *, double *) = NULL;
  void *lookup_ctx = NULL;
  if (r->aa) {
    lookup = bs_noise_result_lookup;
    lookup_ctx = (void *)r->aa;
  } else if (o->noise_lookup) {
    lookup = o->noise_lookup;
    lookup_ctx = o->noise_ctx;
  }
  if (r->own_cmp && lookup)
    bs_compare_apply_noise(r->own_cmp, lookup, lookup_ctx);
  else if (r->cmp && !r->own_cmp &&
           (st = check_floors(r->cmp, lookup, lookup_ctx, err)))
    return st;
  if (!(want & BS_REPORT_TUNE)) {
    if (o->tune_result)
      return unused_result(err, "tuning");
    return r->cmp || r->aa ? BS_OK
                           : bs_error_set(err, BS_EUSAGE, NULL, 0,
                                          "report: nothing to report");
  }
  /* Tuning is shown when it says something the comparison does not: a
   * benchmark measured at several scales, a case with three or more
   * impls, or a log with nothing else to report -- or when asked for. */
  bs_error terr;
  bs_error_clear(&terr);
  bs_tune_result *t = NULL;
  const bs_tune_result *tr = o->tune_result;
  st = BS_OK;
  if (!tr) {
    st = bs_tune_run(r->log, &t, &terr);
    if (st == BS_ENOMEM || (st && required)) {
      *err = terr;
      return st;
    }
    tr = t;
  }
  if (!st) {
    /* The A/A pair is one implementation measured twice: it does not
     * count towards "several implementations". */
    int show = required || (!r->cmp && !r->aa);
    for (size_t i = 0; i < tr->ncases && !show; i++) {
      size_t k = 0;
      for (size_t j = 0; j < tr->cases[i].nmedians; j++)
        k += !is_aa(aa_a, aa_b, tr->cases[i].medians[j].impl);
      show = k >= 3;
    }
    r->tune = tr;
    r->own_tune = t;
    if ((st = tune_groups(r)))
      return bs_error_set(err, st, NULL, 0, "out of memory");
    for (size_t g = 0; g < r->ngroups && !show; g++) {
      size_t k = 0;
      for (size_t j = 0; j < r->groups[g].nimpls; j++)
        k += !is_aa(aa_a, aa_b, r->groups[g].impls[j]);
      show = k >= 2;
    }
    if (!show) {
      for (size_t i = 0; i < r->ngroups; i++) {
        free(r->groups[i].cases);
        free(r->groups[i].impls);
      }
      free(r->groups);
      r->groups = NULL;
      r->ngroups = 0;
      bs_tune_result_free(r->own_tune);
      r->own_tune = NULL;
      r->tune = NULL;
    }
  }
  if (!r->cmp && !r->aa && !r->tune) {
    if (st) {
      *err = terr;
      return st;
    }
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "report: nothing to report (no confirm rows)");
  }
  return BS_OK;
}

/* ---- JSON files beside the pages ---------------------------------------- */

static bs_status write_json(bs__report *r, const char *dir, bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = BS_OK;
  const bs_manifest *env = r->nmf ? r->mf[0] : NULL;
  if (r->cmp) {
    if ((st = bs_json_compare(r->cmp, env, &data, &len, err)))
      return st;
    st = write_file(dir, "compare.json", data, len, err);
    free(data);
    if (st)
      return st;
  }
  if (r->tune) {
    if ((st = bs_json_tune(r->tune, &data, &len, err)))
      return st;
    st = write_file(dir, "tune.json", data, len, err);
    free(data);
    if (st)
      return st;
  }
  if (r->aa) {
    if ((st = bs_json_noise(r->aa, &data, &len, err)))
      return st;
    st = write_file(dir, "noise.json", data, len, err);
    free(data);
  }
  return st;
}

/* ---- The whole report ---------------------------------------------------- */

static int plot_progress(void *ctx, size_t done, size_t total) {
  const bs_report_options *o = ctx;
  return o->progress ? o->progress(o->progress_ctx, "charts", done, total) : 0;
}

static int stage(const bs_report_options *o, const char *what, size_t done,
                 size_t total) {
  return o->progress ? o->progress(o->progress_ctx, what, done, total) : 0;
}

static bs_status cancelled(bs_error *err) {
  return bs_error_set(err, BS_EIO, NULL, 0, "report cancelled");
}

bs_status bs_report_write(const bs_log *log,
                          const bs_manifest *const *manifests, size_t n,
                          const char *out_dir, const bs_report_options *o,
                          bs_report_summary *summary, bs_error *err) {
  bs__report r;
  memset(&r, 0, sizeof r);
  char *charts = NULL;
  bs_output_dir *od = NULL;
  bs_templates *tpl = NULL;
  bs_status st = BS_OK;
  if (summary)
    memset(summary, 0, sizeof *summary);
  if (!log || (!manifests && n) || !out_dir || !o || !o->templates_dir ||
      !o->assets_dir ||
      (o->sections &
       ~(unsigned)(BS_REPORT_COMPARE | BS_REPORT_TUNE | BS_REPORT_AA)))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "report: a log, an output directory, templates and "
                        "assets are required");
  r.log = log;
  r.mf = manifests;
  r.nmf = n;
  r.o = o;
  r.forest = BS__NO_CHART;

  if ((st = bs_output_dir_open(out_dir, "the output", "report", MARKER, &od,
                               err)))
    goto done;
  /* Templates first: a broken template fails before any work is done. */
  tpl = bs_templates_new(o->templates_dir);
  if (!tpl) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  if ((st = bs_templates_load(tpl, "index", err)))
    goto done;
  if (stage(o, "analysing", 0, 1)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = analyse(&r, err)))
    goto done;
  if (r.cmp && r.cmp->ncases && (st = bs_templates_load(tpl, "case", err)))
    goto done;
  if (r.tune && (st = bs_templates_load(tpl, "tuning", err)))
    goto done;
  if (r.aa && (st = bs_templates_load(tpl, "aa", err)))
    goto done;

  /* The new report grows in a private directory beside the old one. */
  if ((st = bs_output_dir_start(od, err)))
    goto done;
  const char *tmp = bs_output_dir_path(od);
  charts = bs__path_join(tmp, "charts");
  if (!charts) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  if (mkdir(charts, 0755) != 0) {
    st = bs_error_set(err, BS_EIO, charts, 0, "cannot create directory: %s",
                      strerror(errno));
    goto done;
  }

  if ((st = bs__report_charts(&r, err)))
    goto done;
  bs_plot_run run;
  memset(&run, 0, sizeof run);
  run.gnuplot = o->gnuplot;
  run.charts_per_process = o->charts_per_process;
  run.progress = plot_progress;
  run.progress_ctx = (void *)o;
  if ((st = bs_plot_render(r.plot, charts, &run, err)))
    goto done;

  size_t pages = 0, assets = 0;
  if (stage(o, "pages", 0, 1)) {
    st = cancelled(err);
    goto done;
  }
  if ((st = bs__report_pages(&r, tpl, tmp, &pages, err)))
    goto done;
  if ((st = write_json(&r, tmp, err)))
    goto done;
  if ((st = copy_assets(o->assets_dir, tmp, &assets, err)))
    goto done;
  if ((st = write_file(tmp, MARKER, MARKER_TEXT, strlen(MARKER_TEXT), err)))
    goto done;
  if (stage(o, "pages", 1, 1)) {
    st = cancelled(err);
    goto done;
  }

  if ((st = bs_output_dir_commit(od, err)))
    goto done;
  if (summary) {
    summary->cases = r.cmp ? r.cmp->ncases : 0;
    summary->regressions = r.cmp ? r.cmp->regressions : 0;
    summary->charts = r.ncharts;
    summary->pages = pages;
    summary->has_compare = r.cmp != NULL;
    summary->has_tuning = r.tune != NULL;
    summary->has_aa = r.aa != NULL;
  }
done:
  bs_output_dir_free(od);
  free(charts);
  bs_templates_free(tpl);
  report_release(&r);
  return st;
}
