/* The site's runs: each run's results for the history (reused from the
 * previous build, or from the run's analysis made on worker threads),
 * which runs get a full report, and those reports. */
#include "pool.h"
#include "site_int.h"

#include "benchsite/report.h"

#include "ahead.h"
#include "archived.h"
#include "oom.h"
#include "strlist.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Reads a run's logs after checking them against their checksums: a
 * damaged archive stops the build instead of being published. */
static bs_status read_run(const site *s, const srun *r, bs_log *log,
                          bs_error *err) {
  bs_archive_verify_result vr;
  bs_archive_verify_result_init(&vr);
  bs_status st =
      bs_archive_read_run(bs_archive_dir(s->ar), r->ar->id, log, &vr, err);
  if (!st && vr.damaged)
    st = bs_error_set(err, BS_EINPUT, bs_archive_dir(s->ar), 0,
                      "%s; run 'benchsite archive verify --archive %s'",
                      vr.problems[0], bs_archive_dir(s->ar));
  bs_archive_verify_result_release(&vr);
  return st;
}

/* The run's analysis, as `benchsite report` makes it; kept going past
 * what stops a report, so the run's verdicts show even without one. */
static bs_status analyse_log(const site *s, const srun *r, const bs_log *log,
                             bs_analysis **an, bs_error *err) {
  const bs_manifest *mfs[1] = {r->mf};
  bs_analysis_options ao;
  bs_analysis_options_init(&ao);
  ao.seed = s->o->seed;
  ao.metric = s->o->metric;
  ao.keep_going = 1;
  return bs_analyse(log, mfs, 1, &ao, an, err);
}

/* A report's link to the history page of a case: runs/ID/ -> the site's
 * case-ID.html. */
static int case_history_href(void *ctx, const char *benchmark,
                             const char *dataset, char *buf, size_t n) {
  (void)ctx;
  char id[BS__SITE_CASE_ID];
  bs__site_case_id(benchmark, dataset, id);
  int w = snprintf(buf, n, "../../case-%s.html", id);
  return w > 0 && (size_t)w < n;
}

/* The run's report, as `benchsite report` makes it, into the build
 * directory's runs/ID/. A run that cannot have one (nothing to report, a
 * non-native comparison) gets the reason instead. */
static bs_status write_report(site *s, srun *r, bs_error *err) {
  bs_log *log = r->kept_log;
  bs_analysis *an = r->kept_an;
  char *dir = NULL;
  bs_status st = BS_OK;
  r->kept_log = NULL;
  r->kept_an = NULL;
  if (s->h->runs[r - s->runs].no_metric) {
    /* Nothing to report in this metric; said in words that name no
     * file, so the page is the same wherever the archive lies. */
    const bs_metric_info *mi = bs_metric_get(s->o->metric);
    char msg[256];
    snprintf(msg, sizeof msg, "it recorded no %s (column %s)", mi->quantity,
             mi->column);
    bs_analysis_free(an);
    bs_log_free(log);
    free(r->no_report);
    if (!(r->no_report = bs__strdup(msg)))
      return bs__oom(err);
    s->sum.reports_built++;
    return BS_OK;
  }
  if (!an) {
    bs_log_free(log);
    if (!(log = bs_log_new()))
      return bs__oom(err);
    s->sum.reports_reanalysed++;
    if ((st = read_run(s, r, log, err)) ||
        (st = analyse_log(s, r, log, &an, err)))
      goto done;
  }
  char rel[BS_ARCHIVE_ID_MAX + 8];
  snprintf(rel, sizeof rel, "runs/%s", r->ar->id);
  if (!(dir = bs__path_join(s->tmp, rel))) {
    st = bs__oom(err);
    goto done;
  }
  bs_report_options ro;
  bs_report_options_init(&ro);
  ro.templates_dir = s->o->templates_dir;
  ro.assets_dir = s->o->assets_dir;
  ro.gnuplot = s->o->gnuplot;
  ro.home_href = "../../index.html"; /* runs/ID/ -> the site index */
  ro.case_history = case_history_href;
  ro.pool = s->pool;
  bs_error rerr;
  bs_error_clear(&rerr);
  bs_status rs = bs_report_write(an, dir, &ro, NULL, &rerr);
  if (rs == BS_EUSAGE || rs == BS_EINPUT || rs == BS_EMISMATCH) {
    char msg[1024];
    bs_error_format(&rerr, msg, sizeof msg);
    free(r->no_report);
    if (!(r->no_report = bs__strdup(msg)))
      st = bs__oom(err);
  } else if (rs) {
    *err = rerr;
    st = rs;
  } else {
    r->report = 1;
    st = bs__site_queue(s, rel, RANK_REPORT, 1, err);
  }
  s->sum.reports_built++;
done:
  free(dir);
  bs_analysis_free(an);
  bs_log_free(log);
  return st;
}

/* What a run's analysis and log are kept in memory for its report at
 * most, all runs together: beyond it, a report analyses its log again. */
#define KEPT_MAX ((size_t)96 << 20)
/* A case's share of an analysis: the gate's 10 000 resampled medians,
 * kept for the report's chart, and about as much again. */
#define KEPT_PER_CASE ((size_t)2 * 10000 * sizeof(double))

/* Whether a case of run hr is a significant regression. */
static int has_regression(const bs_history_run *hr) {
  for (size_t c = 0; c < hr->nresults; c++)
    if (hr->results[c].has_cmp && hr->results[c].significant_regression)
      return 1;
  return 0;
}

/* Keeps the analysis of run i (the log it points into too) for its report
 * when the run will surely have one (one of the newest --detail-runs, or
 * a significant regression) and the memory kept so far allows: a rough
 * count of the rows and the bootstrap distributions a report keeps. */
static void keep_for_report(const site *s, size_t i, bs_log **log,
                            bs_analysis **an, atomic_size_t *kept) {
  size_t n = bs_archive_count(s->ar);
  if (!kept || !(i + s->o->detail_runs >= n || has_regression(&s->h->runs[i])))
    return;
  size_t need = bs_log_count(*log) * 2 * sizeof(bs_row) +
                bs_log_case_count(*log) * KEPT_PER_CASE;
  size_t cur = atomic_load(kept);
  do {
    if (need > KEPT_MAX || cur > KEPT_MAX - need)
      return;
  } while (!atomic_compare_exchange_weak(kept, &cur, cur + need));
  s->runs[i].kept_log = *log;
  s->runs[i].kept_an = *an;
  *log = NULL;
  *an = NULL;
}

/* The comparison's resolution of each compared case into its result
 * (a field of the comparison the history's results carry as they are). */
static void copy_inconclusive(const bs_analysis *an, bs_history_run *hr) {
  const bs_compare_result *cmp = an->compare;
  for (size_t k = 0; cmp && k < hr->nresults; k++) {
    bs_history_result *r = &hr->results[k];
    if (!r->has_cmp)
      continue;
    for (size_t j = 0; j < cmp->ncases; j++)
      if (!strcmp(cmp->cases[j].benchmark, r->benchmark) &&
          !strcmp(cmp->cases[j].dataset, r->dataset)) {
        r->inconclusive = cmp->cases[j].inconclusive;
        break;
      }
  }
}

/* Run i's results from its analysis, into the history. Runs on any thread
 * (see analyse_runs): it writes only run i's slots and err. */
static bs_status analyse_fresh(const site *s, size_t i, atomic_size_t *kept,
                               bs_error *err) {
  srun *r = &s->runs[i];
  bs_history_run *hr = &s->h->runs[i];
  bs_status st = BS_OK;
  bs_log *log = bs_log_new();
  bs_analysis *an = NULL;
  if (!log)
    return bs__oom(err);
  if ((st = read_run(s, r, log, err)) ||
      (st = analyse_log(s, r, log, &an, err)))
    goto done;
  const char *candidate = bs_manifest_get(r->mf, "candidate");
  if (!(hr->impl = bs__strdup(candidate ? candidate : ""))) {
    st = bs__oom(err);
    goto done;
  }
  /* A run without the site's metric is that run's note (its analysis
   * kept it as its problem), never the build's failure. */
  hr->no_metric = bs_log_lacking(log, s->o->metric) != NULL;
  if ((st =
           bs_history_results(an, candidate, &hr->results, &hr->nresults, err)))
    goto done;
  copy_inconclusive(an, hr);
  keep_for_report(s, i, &log, &an, kept);
done:
  bs_analysis_free(an);
  bs_log_free(log);
  return st;
}

/* Takes the results of an unchanged run from the previous build: its
 * history data read back whole, made with this build's analysis key. */
static int reuse(site *s, size_t i, prev_run *p) {
  srun *r = &s->runs[i];
  bs_history_run *hr = &s->h->runs[i];
  if (!p || !p->results_ok)
    return 0;
  hr->impl = p->impl;
  hr->results = p->res;
  hr->nresults = p->nres;
  hr->no_metric = p->no_metric;
  p->impl = NULL;
  p->res = NULL;
  p->nres = 0;
  r->reused = 1;
  s->sum.analyses_reused++;
  return 1;
}

/* The runs to analyse afresh, computed ahead on worker threads (ahead.h):
 * task t is the run todo[t]; its outcome lands in slot t % window, which
 * task t + window reuses only after the consumer has moved past t. */
typedef struct fresh_slot {
  bs_status st;
  bs_error err;
} fresh_slot;

typedef struct fresh_tasks {
  const site *s;
  const size_t *todo;
  fresh_slot *slots;
  size_t window;
  atomic_size_t kept; /* bytes of analyses kept for reports */
} fresh_tasks;

static void fresh_task(void *ctx, size_t t) {
  fresh_tasks *ft = ctx;
  fresh_slot *f = &ft->slots[t % ft->window];
  bs_error_clear(&f->err);
  f->st = analyse_fresh(ft->s, ft->todo[t], &ft->kept, &f->err);
}

/* Every run's results, in history order. The manifests are read and the
 * unchanged runs reused first; the rest are analysed by --jobs threads
 * (no chart is rendering yet: the reports come after) a few runs ahead of
 * this one, which takes them in order, so that output, and the error a
 * bad run stops the build with, are those of one run after another: the
 * first failure in history order wins, whichever thread met it. */
bs_status bs__site_analyse_runs(site *s, bs_error *err) {
  size_t n = bs_archive_count(s->ar);
  s->h = bs_history_new(n);
  s->runs = calloc(n ? n : 1, sizeof *s->runs);
  size_t *todo = malloc((n ? n : 1) * sizeof *todo);
  if (!s->h || !s->runs || !todo) {
    free(todo);
    return bs__oom(err);
  }
  size_t ntodo = 0;
  for (size_t i = 0; i < n; i++) {
    srun *r = &s->runs[i];
    bs_history_run *hr = &s->h->runs[i];
    r->ar = bs_archive_run_at(s->ar, i);
    s->nruns++;
    r->mf = bs__archive_manifest(s->ar, i);
    hr->id = r->ar->id;
    hr->commit = r->ar->commit;
    hr->date = r->ar->date;
    hr->manifest = r->mf;
    hr->baseline_commit = bs_manifest_get(r->mf, "baseline_commit");
    bs__site_run_key(s->analysis_key, r->ar->id, r->key);
    if (!reuse(s, i, bs__site_find_prev(s, r->ar->id)))
      todo[ntodo++] = i;
  }
  /* A few runs ahead per thread keep every thread busy while this one
   * catches up; what is done and not yet taken stays that bounded. */
  size_t jobs = bs__jobs(s->o->jobs),
         window = jobs < ntodo / 4 ? 4 * jobs : ntodo;
  if (window == 0)
    window = 1;
  fresh_slot *slots = calloc(window, sizeof *slots);
  fresh_tasks ft = {s, todo, slots, window, 0};
  bs__ahead *a = NULL;
  if (!slots || (ntodo && !(a = bs__ahead_start(ntodo, jobs - 1, window,
                                                fresh_task, &ft)))) {
    free(slots);
    free(todo);
    return bs__oom(err);
  }
  bs_status st = BS_OK;
  for (size_t i = 0, t = 0; i < n && !st; i++) {
    if (bs__site_stage(s, "runs", i, n)) {
      st = bs__site_cancelled(err);
    } else if (t < ntodo && todo[t] == i) {
      bs__ahead_wait(a, t);
      const fresh_slot *f = &slots[t++ % window];
      if ((st = f->st) && err)
        *err = f->err;
      else if (!st)
        s->sum.analyses_built++;
    }
  }
  /* Runs still being analysed finish into their own run (freed with the
   * site) before the build goes on or fails. */
  bs__ahead_stop(a);
  free(todo);
  free(slots);
  return st;
}

/* The newest K runs, every run with a significant regression or an
 * acknowledgement and the newest run of each group get a full report. */
void bs__site_choose_detail(site *s) {
  const bs_history *h = s->h;
  size_t k = s->o->detail_runs;
  for (size_t i = 0; i < s->nruns; i++)
    s->runs[i].detailed = i + k >= s->nruns || has_regression(&h->runs[i]) ||
                          h->runs[i].acked > 0;
  for (size_t g = 0; g < h->ngroups; g++)
    for (size_t i = s->nruns; i-- > 0;)
      if (h->runs[i].group == g) {
        s->runs[i].detailed = 1;
        break;
      }
}

/* Keeps the published report of a detailed run when its inputs are
 * unchanged, else writes it again. */
bs_status bs__site_reports(site *s, bs_error *err) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    if (bs__site_stage(s, "runs", i, s->nruns))
      return bs__site_cancelled(err);
    bs_status st = BS_OK;
    if (r->detailed) {
      prev_run *p = bs__site_find_prev(s, r->ar->id);
      char rel[BS_ARCHIVE_ID_MAX + 32];
      snprintf(rel, sizeof rel, "runs/%s/.benchsite-report", r->ar->id);
      char *marker = s->out_exists ? bs__path_join(s->out, rel) : NULL;
      if (s->out_exists && !marker)
        return bs__oom(err);
      int same = p && p->report && !strcmp(s->prev_report_key, s->report_key);
      char *pub = marker ? bs__path_join(s->out, rel) : NULL;
      if (pub)
        pub[strlen(pub) - strlen("/.benchsite-report")] = '\0';
      bs_status ist = BS_OK;
      if (same && !p->no_report && marker && pub &&
          bs__site_report_intact(s, r->ar->id, pub, marker, &ist)) {
        r->report = 1;
        p->kept = 1;
        s->sum.reports_reused++;
      } else if (same && p->no_report) {
        free(r->no_report);
        r->no_report = p->no_report;
        p->no_report = NULL;
        s->sum.reports_reused++;
      } else {
        st = write_report(s, r, err);
      }
      if (ist)
        st = bs__oom_as(err, ist);
      free(pub);
      free(marker);
    }
    if (!st && (st = bs__site_state_run(s, i)))
      st = bs__oom_as(err, st);
    if (st)
      return st;
  }
  return BS_OK;
}
