/* benchsite report: analysis, then charts and pages into a temporary
 * directory beside the output, then an atomic swap. */
#include "benchsite/report.h"

#include "report_int.h"

#include "benchsite/json.h"
#include "benchsite/markdown.h"
#include "benchsite/output.h"

#include "fsutil.h"
#include "oom.h"
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
    return bs__oom(err);
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
      st = bs__oom(err);
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

/* ---- Tuning charts --------------------------------------------------------
 */

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

/* What the pages need of the analysis beyond its results: the case pages
 * chart every compared case's bootstrap distribution. */
static bs_status check_analysis(bs__report *r, bs_error *err) {
  const bs_compare_result *c = r->cmp;
  for (size_t i = 0; c && i < c->ncases; i++)
    if (!c->cases[i].thetas)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "report: the comparison kept no bootstrap "
                          "distributions (keep_bootstrap)");
  if (!c && !r->tune && !r->aa)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "report: nothing to report");
  if (r->tune && (r->st = tune_groups(r)))
    return bs__oom_as(err, r->st);
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
    if ((st = bs_json_noise(r->aa, env, &data, &len, err)))
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

/* The marker lists every file of the report (size and path), written
 * last: a site reusing this report checks the tree still matches it, so
 * a file deleted or replaced by a link is rebuilt, never trusted. */
static bs_status write_marker(const char *tmp, bs_error *err) {
  bs__buf mk;
  bs__buf_init(&mk, BS__CAP_SITE_FILES);
  bs_status st = bs__buf_puts(&mk, MARKER_TEXT "files\n");
  if (!st)
    st = bs__tree_list(tmp, MARKER, &mk);
  if (st)
    st = bs_error_set(err, st, tmp, 0,
                      st == BS_ENOMEM ? BS__OOM_TEXT : "cannot list");
  else
    st = write_file(tmp, MARKER, mk.data, mk.len, err);
  bs__buf_release(&mk);
  return st;
}

/* The pool's callback, ctx the report's directory: once every chart is
 * there, the file list that makes it a finished report. */
static bs_status finish_queued(void *ctx, int ok, bs_error *err) {
  bs_status st = ok ? write_marker(ctx, err) : BS_OK;
  free(ctx);
  return st;
}

bs_status bs_report_write(const bs_analysis *a, const char *out_dir,
                          const bs_report_options *o,
                          bs_report_summary *summary, bs_error *err) {
  bs__report r;
  memset(&r, 0, sizeof r);
  char *charts = NULL;
  bs_output_dir *od = NULL;
  bs_templates *tpl = NULL;
  bs_status st = BS_OK;
  if (summary)
    memset(summary, 0, sizeof *summary);
  if (!a || !out_dir || !o || !o->templates_dir || !o->assets_dir)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "report: an analysis, an output directory, templates "
                        "and assets are required");
  r.an = a;
  r.log = a->log;
  r.mf = a->manifests;
  r.nmf = a->nmanifests;
  r.o = o;
  r.cmp = a->compare;
  r.tune = a->tune;
  r.aa = a->aa;
  r.forest = BS__NO_CHART;

  if ((st = bs_output_dir_open(out_dir, "the output", "report", MARKER,
                               BS_OUTPUT_DIR_LISTED, &od, err)))
    goto done;
  /* Templates first: a broken template fails before any work is done. */
  tpl = bs_templates_new(o->templates_dir);
  if (!tpl) {
    st = bs__oom(err);
    goto done;
  }
  if ((st = bs_templates_load(tpl, "index", err)))
    goto done;
  if (a->status) {
    /* A partial analysis (keep_going): its first problem is why there is
     * no report. */
    if (err)
      *err = a->error;
    st = a->status;
    goto done;
  }
  if ((st = check_analysis(&r, err)))
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
    st = bs__oom(err);
    goto done;
  }
  if (mkdir(charts, 0755) != 0) {
    st = bs_error_set(err, BS_EIO, charts, 0, "cannot create directory: %s",
                      strerror(errno));
    goto done;
  }

  if ((st = bs__report_charts(&r, err)))
    goto done;
  if (!o->pool) {
    bs_plot_run run;
    memset(&run, 0, sizeof run);
    run.gnuplot = o->gnuplot;
    run.charts_per_process = o->charts_per_process;
    run.progress = plot_progress;
    run.progress_ctx = (void *)o;
    if ((st = bs_plot_render(r.plot, charts, &run, err)))
      goto done;
  }

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
  if (!o->pool) {
    if ((st = write_marker(tmp, err)))
      goto done;
    if (stage(o, "pages", 1, 1)) {
      st = cancelled(err);
      goto done;
    }
  }
  if ((st = bs_output_dir_commit(od, err)))
    goto done;
  if (o->pool) {
    /* The directory is in place (its parent's lock, which every report
     * into that parent takes, is released by the free below), its charts
     * render while the caller goes on, and the pool writes its marker
     * once they are there (finish_queued). */
    char *dir = bs__strdup(out_dir);
    free(charts);
    charts = dir ? bs__path_join(dir, "charts") : NULL;
    bs_plot *plot = r.plot;
    r.plot = NULL;
    if (!charts) {
      bs_plot_free(plot);
      free(dir);
      st = bs__oom(err);
      goto done;
    }
    if ((st = bs_plot_pool_submit(o->pool, plot, charts, finish_queued, dir,
                                  err)))
      goto done;
  }
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
