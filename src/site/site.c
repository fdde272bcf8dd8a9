/* benchsite site: every run's report, history pages per case and an
 * index, built incrementally beside the output and published into it
 * (see site.h; the parts are named in site_int.h). */
#include "site_int.h"

#include "oom.h"
#include "present.h"
#include "strlist.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bs_site_options_init(bs_site_options *o) {
  memset(o, 0, sizeof *o);
  o->detail_runs = BS_SITE_DETAIL_RUNS;
}

/* Each case's file id (bs__site_case_id) and the newest SHOWN_RUNS runs
 * its page shows. Two cases with one id (64 bits of SHA-256 and the same
 * slug) cannot both have pages: the build stops naming them. */
static bs_status name_cases(site *s, bs_error *err) {
  const bs_history *h = s->h;
  if (!(s->cases = calloc(h->ncases ? h->ncases : 1, sizeof *s->cases)))
    return bs__oom(err);
  bs__strset ids;
  bs__strset_init(&ids);
  bs_status st = BS_OK;
  for (size_t c = 0; c < h->ncases && !st; c++) {
    const bs_history_case *hc = &h->cases[c];
    scase *sc = &s->cases[c];
    bs__site_case_id(hc->benchmark, hc->dataset, sc->id);
    size_t other = 0;
    int put = bs__strset_put(&ids, sc->id, strlen(sc->id), c, &other);
    if (put < 0) {
      st = bs__oom(err);
    } else if (put == 0) {
      char a[512], b[512];
      bs__case_label(a, sizeof a, h->cases[other].benchmark,
                     h->cases[other].dataset);
      bs__case_label(b, sizeof b, hc->benchmark, hc->dataset);
      st = bs_error_set(err, BS_EINPUT, NULL, 0,
                        "cases \"%s\" and \"%s\" share the file id %s; "
                        "rename one",
                        a, b, sc->id);
    }
    sc->first_shown = hc->nentries > BS__SITE_SHOWN_RUNS
                          ? hc->nentries - BS__SITE_SHOWN_RUNS
                          : 0;
  }
  bs__strset_release(&ids);
  return st;
}

/* The history charts: described all, the changed ones rendered on the
 * build's pool while the pages are written. */
static bs_status charts(site *s, bs_error *err) {
  char *dir = bs__path_join(s->tmp, "charts");
  bs_plot *plot = bs_plot_new();
  size_t queued = 0;
  bs_status st = dir && plot ? BS_OK : bs__oom(err);
  for (size_t c = 0; c < s->h->ncases && !st; c++)
    st = bs__site_case_charts(s, c, plot, &queued, err);
  size_t cdone, ctotal; /* progress counts the pool's charts */
  bs_plot_pool_count(s->pool, &cdone, &ctotal);
  if (!st && queued) {
    if (bs__site_stage(s, "charts", cdone, ctotal + queued)) {
      st = bs__site_cancelled(err);
    } else {
      st = bs_plot_pool_submit(s->pool, plot, dir, NULL, NULL, err);
      plot = NULL;
    }
  }
  free(dir);
  bs_plot_free(plot);
  s->sum.charts_rendered = queued;
  return st;
}

/* The pages, each case's history data, the assets and the user's static
 * files. */
static bs_status pages(site *s, bs_error *err) {
  bs_status st;
  size_t npages = 1 + s->nruns + s->h->ncases; /* counted for progress */
  if (bs__site_stage(s, "pages", 0, npages))
    return bs__site_cancelled(err);
  if ((st = bs__site_index_page(s, err)) ||
      (st = bs__site_regressions_page(s, err)) ||
      (st = bs__site_feed(s, err)) || (st = bs__site_index_json(s, err)))
    return st;
  for (size_t i = 0; i < s->nruns; i++)
    if ((st = bs__site_run_page(s, i, err)) ||
        (bs__site_stage(s, "pages", 2 + i, npages) &&
         (st = bs__site_cancelled(err))))
      return st;
  if ((st = bs__site_runs_json(s, err)))
    return st;
  for (size_t c = 0; c < s->h->ncases; c++)
    if ((st = bs__site_case_page(s, c, err)) ||
        (st = bs__site_history_json(s, c, err)) ||
        (bs__site_stage(s, "pages", 2 + s->nruns + c, npages) &&
         (st = bs__site_cancelled(err))))
      return st;
  if ((st = bs__site_copy_files(s, s->o->assets_dir, 0, err)) ||
      (s->o->static_dir &&
       (st = bs__site_copy_files(s, s->o->static_dir, 1, err))))
    return st;
  return BS_OK;
}

/* Progress while the build waits for its charts. */
static int chart_progress(void *ctx, size_t done, size_t total) {
  return bs__site_stage(ctx, "charts", done, total);
}

/* The new state into the build directory (once every chart is rendered),
 * unless it is the published one byte for byte with nothing to move
 * (quiet); the stamps beside it. */
static bs_status finish_state(site *s, bs_error *err) {
  bs_status st;
  if ((st = bs__buf_append(&s->state, s->files.data ? s->files.data : "",
                           s->files.len)))
    return bs__oom_as(err, st);
  /* Every chart rendered and checked, every report swapped into place. */
  if ((st = bs_plot_pool_wait_progress(s->pool, chart_progress, s, err)))
    return st;
  s->body_len = s->state.len;
  if ((st = bs__site_put_sum(&s->state, s->body_len)))
    return bs__oom_as(err, st);
  s->quiet = s->out_exists && s->nqueue == 0 && s->prev_text &&
             s->prev_len == s->state.len &&
             !memcmp(s->prev_text, s->state.data, s->state.len);
  for (size_t i = 0; i < s->npfiles && s->quiet; i++)
    s->quiet = s->pfiles[i].kept;
  if (!s->quiet) {
    char *marker = bs__path_join(s->tmp, BS__SITE_MARKER);
    st = marker ? bs__write_file(marker, s->state.data, s->state.len, 0, err)
                : bs__oom(err);
    free(marker);
  }
  if (!st && s->out_exists)
    st = bs__site_write_stamps(s, &s->write_stamps, err);
  return st;
}

/* Opens the output, the archive and the templates, and reads the previous
 * build's state; then the build directory and the chart pool. */
static bs_status start(site *s, const char *archive_dir, bs_error *err) {
  const bs_site_options *o = s->o;
  bs_status st;
  if ((st =
           bs__check_apart(s->out, "--out", archive_dir, "the archive", err)) ||
      (st = bs_output_dir_open(s->out, "--out", "site", BS__SITE_MARKER, 0,
                               &s->od, err)))
    return st;
  s->out_exists = bs_output_dir_exists(s->od);
  if ((st = bs_archive_open(archive_dir, &s->ar, err)) ||
      (st = bs_acks_read(archive_dir, &s->acks, err)))
    return st;
  /* Templates first: a broken template fails before any work. */
  if (!(s->tpl = bs_templates_new(o->templates_dir)))
    return bs__oom(err);
  static const char *const tnames[] = {"site_index", "site_run",
                                       "site_run_compact", "site_case",
                                       "site_regressions"};
  for (size_t i = 0; i < sizeof tnames / sizeof tnames[0]; i++)
    if ((st = bs_templates_load(s->tpl, tnames[i], err)))
      return st;
  if ((st = bs__site_make_keys(s, err)))
    return st;
  struct timespec now;
  if (clock_gettime(CLOCK_REALTIME, &now) == 0)
    s->stamp_before_ns =
        ((long long)now.tv_sec - 1) * 1000000000LL + (long long)now.tv_nsec;
  if (s->out_exists && !o->full) {
    bs__site_load_state(s);
    bs__site_load_history(s);
  }
  if ((st = bs_output_dir_start(s->od, err)))
    return st;
  s->tmp = bs_output_dir_path(s->od);
  static const char *const dirs[] = {"charts", "history", "runs"};
  for (size_t i = 0; i < 3; i++)
    if ((st = bs__site_ensure_dir(s->tmp, dirs[i], err)))
      return st;
  /* Charts: one pool of --jobs gnuplot processes for the whole build. */
  bs_plot_run pr;
  memset(&pr, 0, sizeof pr);
  pr.gnuplot = o->gnuplot;
  pr.jobs = o->jobs;
  if (!(s->pool = bs_plot_pool_new(&pr)))
    return bs__oom(err);
  if ((st = bs__site_state_begin(s)))
    return bs__oom_as(err, st);
  return BS_OK;
}

static void site_release(site *s) {
  for (size_t i = 0; i < s->nruns; i++) {
    srun *r = &s->runs[i];
    free(r->no_report);
    bs_analysis_free(r->kept_an);
    bs_log_free(r->kept_log);
  }
  free(s->runs);
  free(s->cases);
  bs_history_free(s->h);
  for (size_t i = 0; i < s->nqueue; i++) {
    free(s->queue[i].rel);
    free(s->queue[i].src);
  }
  free(s->queue);
  bs__site_state_release(s);
  bs__buf_release(&s->state);
  bs__strset_release(&s->listed);
  bs__buf_release(&s->files);
  bs__buf_release(&s->seen);
  bs_templates_free(s->tpl);
  bs_calibration_pick_release(&s->cal_pick);
  bs_acks_free(s->acks);
  bs_archive_free(s->ar);
}

bs_status bs_site_build(const char *archive_dir, const char *out_dir,
                        const bs_site_options *o, bs_site_summary *summary,
                        bs_error *err) {
  if (summary)
    memset(summary, 0, sizeof *summary);
  if (!archive_dir || !out_dir || !o || !o->templates_dir || !o->assets_dir)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "site: an archive, --out, templates and assets are "
                        "required");
  site s;
  memset(&s, 0, sizeof s);
  s.o = o;
  s.out = out_dir;
  bs__buf_init(&s.state, BS__CAP_SITE_STATE);
  bs__buf_init(&s.files, BS__CAP_SITE_FILES);
  bs__strset_init(&s.listed);
  bs__buf_init(&s.seen, BS__CAP_SITE_FILES);
  bs_status st;
  /* The runs into the history model, which the pages render. */
  if ((st = start(&s, archive_dir, err)) ||
      (st = bs__site_analyse_runs(&s, err)) ||
      (st = bs_history_finish(s.h, s.acks, err)) ||
      (st = name_cases(&s, err)) ||
      (st = bs__site_calibration(&s, archive_dir, err)))
    goto done;
  bs__site_choose_detail(&s);
  if ((st = bs__site_reports(&s, err)))
    goto done;
  if (bs__site_stage(&s, "runs", s.nruns, s.nruns)) {
    st = bs__site_cancelled(err);
    goto done;
  }
  if ((st = charts(&s, err)) || (st = pages(&s, err)) ||
      (st = finish_state(&s, err)))
    goto done;
  if (bs__site_stage(&s, "pages", 1, 1)) {
    st = bs__site_cancelled(err);
    goto done;
  }
  if ((st = bs__site_publish(&s, err)))
    goto done;
  s.sum.runs = s.nruns;
  s.sum.cases = s.h->ncases;
  s.sum.groups = s.h->ngroups;
  s.sum.acknowledged = s.h->acknowledged;
  s.sum.drifting = s.h->drifting;
  s.sum.creeping = s.h->creeping;
  if (s.nruns)
    s.sum.open_regressions = s.h->runs[bs_history_newest(s.h)].open;
  for (size_t i = 0; i < s.nruns; i++)
    s.sum.compact += !s.runs[i].detailed;
  if (summary)
    *summary = s.sum;
done:
  /* No gnuplot may still write into the build directory when it goes. */
  bs_plot_pool_free(s.pool);
  /* The failed build, or what a build replaced; then the lock goes. */
  bs_output_dir_free(s.od);
  if (!st)
    bs__site_sweep_staging(out_dir);
  site_release(&s);
  return st;
}
