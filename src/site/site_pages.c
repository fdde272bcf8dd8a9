/* The site's pages: the index, a page per run and a page per case, each
 * the history model's numbers put into a template. */
#include "site_int.h"

#include "oom.h"
#include "present.h"
#include "strlist.h"

#include <stdio.h>
#include <stdlib.h>

void bs__site_page_common(const site *s, bs_tval *root, const char *title,
                          const char *current) {
  bs_tval_set_str(root, "title", title);
  bs_tval_set_str(root, "generator", "benchsite " BENCHSITE_VERSION);
  bs_tval *nav = bs_tval_set_list(root, "nav");
  bs_tval *it = bs_tval_push_obj(nav);
  bs_tval_set_str(it, "href", "index.html");
  bs_tval_set_str(it, "label", "Runs and cases");
  bs_tval_set_bool(it, "current", current && !strcmp(current, "index.html"));
  it = bs_tval_push_obj(nav);
  bs_tval_set_str(it, "href", "regressions.html");
  bs_tval_set_str(it, "label", "Regressions");
  bs_tval_set_bool(it, "current",
                   current && !strcmp(current, "regressions.html"));
  /* Every page names the metric it shows and its unit. */
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  bs_tval *m = bs_tval_set_obj(root, "metric");
  bs_tval_set_str(m, "name", mi->name);
  bs_tval_set_str(m, "quantity", mi->quantity);
  bs_tval_set_str(m, "unit", mi->unit);
  bs_tval_set_str(m, "column", mi->column);
}

/* Environment status of run i against the run before it: "first run",
 * "comparable", "differs on protocol, machine"; a target that is not
 * native is called out first. */
static void env_status(const site *s, size_t i, bs_tval *t) {
  const srun *r = &s->runs[i];
  const char *target = bs_manifest_get(r->mf, "target");
  char text[512];
  int flag = 0;
  size_t used = 0;
  text[0] = '\0';
  if (target && strcmp(target, "native")) {
    int w = snprintf(text, sizeof text, "target %s, no performance claims; ",
                     target);
    used = w > 0 && (size_t)w < sizeof text ? (size_t)w : 0;
    flag = 1;
  }
  const char *diff[BS_MANIFEST_NCOMPARABILITY];
  size_t nd = 0;
  if (i == 0) {
    snprintf(text + used, sizeof text - used, "first run");
  } else if (bs_manifest_comparable(s->runs[i - 1].mf, r->mf, diff, &nd)) {
    snprintf(text + used, sizeof text - used, "comparable");
  } else {
    int w = snprintf(text + used, sizeof text - used, "differs on ");
    used += w > 0 ? (size_t)w : 0;
    for (size_t k = 0; k < nd && used < sizeof text; k++) {
      w = snprintf(text + used, sizeof text - used, "%s%s", k ? ", " : "",
                   diff[k]);
      used += w > 0 ? (size_t)w : 0;
    }
    flag = 1;
  }
  bs_tval_set_str(t, "env", text);
  bs_tval_set_bool(t, "env_flag", flag);
}

static void run_counts(bs_tval *t, const bs_history_run *r) {
  /* A run without the metric is drawn without it and says so. */
  bs_tval_set_bool(t, "no_metric", r->no_metric);
  bs_tval_set_bool(t, "compared", r->compared > 0);
  bs_tval_set_strf(t, "open", "%zu", r->open);
  bs_tval_set_bool(t, "has_open", r->open > 0);
  bs_tval_set_strf(t, "acked", "%zu", r->acked);
  bs_tval_set_bool(t, "has_acked", r->acked > 0);
  bs_tval_set_strf(t, "slower", "%zu", r->slower);
  bs_tval_set_strf(t, "equivalent", "%zu", r->equivalent);
  bs_tval_set_strf(t, "faster", "%zu", r->faster);
}

/* A run's page, and its report: a link when it has one; else, as text
 * (never a link), that it has none, with the reason on its own page. */
static void run_links(bs_tval *t, const srun *r) {
  bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
  if (r->report)
    bs_tval_set_strf(t, "report", "runs/%s/index.html", r->ar->id);
  else if (r->no_report)
    bs_tval_set_str(t, "no_report", r->no_report);
  else
    bs_tval_set_bool(t, "compact", 1);
}

/* A run's median and interval (when it has one) and its paired verdict
 * (when it compared), as the runs' and the cases' tables show them. */
static void result_fields(const site *s, bs_tval *t,
                          const bs_history_result *res) {
  char buf[128];
  bs_metric m = s->o->metric;
  if (res->has_median) {
    bs_tval_set_str(t, "median", bs__fmt_val(buf, sizeof buf, m, res->median));
    bs__fmt_val_range(buf, sizeof buf, m, res->lo, res->hi);
    bs_tval_set_str(t, "interval", buf);
  }
  if (res->has_cmp) {
    int sign = res->significant_regression    ? 1
               : res->significant_improvement ? -1
                                              : 0;
    const char *marker = bs__verdict_marker(sign, (bs_verdict)res->verdict);
    bs_tval_set_str(t, "verdict", marker);
    /* The marker alone (a compact page's legend names it). */
    bs_tval_set_strf(t, "mark", "%.*s", (int)strcspn(marker, " "), marker);
    bs_tval_set_str(t, "verdict_class",
                    bs__verdict_class(sign, (bs_verdict)res->verdict));
    bs_tval_set_str(t, "delta_pct",
                    bs__fmt_pct_signed(buf, sizeof buf, res->delta_pct));
    if (res->delta_lo_pct != 0 || res->delta_hi_pct != 0) {
      char lo[48], hi[48];
      bs__fmt_pct_signed(lo, sizeof lo, res->delta_lo_pct);
      bs__fmt_pct_signed(hi, sizeof hi, res->delta_hi_pct);
      bs_tval_set_strf(t, "delta_interval", "%s to %s", lo, hi);
    }
    bs_tval_set_bool(t, "inconclusive", res->inconclusive);
  }
}

/* A case's drift test, as the index and its history page state it. */
static void drift_fields(bs_tval *dr, const bs_history_case *hc) {
  char buf[64];
  bs_tval_set_bool(dr, "flagged", hc->drift_flagged);
  bs_tval_set_str(
      dr, "shift",
      bs__fmt_pct_signed(buf, sizeof buf, 100 * hc->drift.relative_shift));
  bs_tval_set_strf(dr, "p", "%.2g", hc->drift.p);
  bs_tval_set_strf(dr, "n", "%zu", hc->drift_n);
}

/* A case's creep, as the index and its history page state it: the
 * stretch of its newest chain the scan found (size, interval, links,
 * since which commit), an improvement shown as one. Before the scan has
 * a stretch of two links: the product along the chain. */
static void creep_fields(const site *s, bs_tval *t, const bs_history_case *hc) {
  char buf[64], lo[64], hi[64];
  const bs_history_creep *cr = &hc->creep;
  if (!cr->has_chain)
    return;
  bs_tval *c = bs_tval_set_obj(t, "creep");
  bs_tval_set_bool(c, "flagged", cr->creeping);
  bs_tval_set_strf(c, "chain", "%zu", cr->chain + 1);
  if (cr->has_scan && cr->since < hc->nentries) {
    int down = cr->scan_pct < 0;
    bs_tval_set_str(c, "pct",
                    bs__fmt_pct_signed(buf, sizeof buf, cr->scan_pct));
    bs_tval_set_strf(c, "interval", "%s to %s",
                     bs__fmt_pct_signed(lo, sizeof lo, cr->scan_lo_pct),
                     bs__fmt_pct_signed(hi, sizeof hi, cr->scan_hi_pct));
    bs_tval_set_strf(c, "links", "%zu", cr->scan_links);
    bs_tval_set_strf(c, "z", "%.1f", cr->z);
    const bs_history_run *r = &s->h->runs[hc->entries[cr->since].run];
    bs_tval *since = bs_tval_set_obj(c, "since");
    bs_tval_set_strf(since, "href", "run-%s.html", r->id);
    bs__site_set_commit(since, r->commit);
    bs_tval_set_str(c, "arrow", down ? "⇘" : "⇗");
    bs_tval_set_str(c, "class", down ? "improvement" : "regression");
    bs_tval_set_str(c, "word", down ? "improving" : "creeping");
  } else {
    bs_tval_set_str(c, "pct",
                    bs__fmt_pct_signed(buf, sizeof buf, cr->creep_pct));
    bs_tval_set_strf(c, "links", "%zu", cr->links);
    bs_tval_set_str(c, "arrow", cr->creep_pct < 0 ? "⇘" : "⇗");
    bs_tval_set_str(c, "class",
                    cr->creep_pct < 0 ? "improvement" : "regression");
    bs_tval_set_str(c, "word", cr->creep_pct < 0 ? "improving" : "creeping");
  }
}

/* The link to the run before or after on a run page. */
static void neighbour(bs_tval *root, const char *which, const srun *r) {
  bs_tval *t = bs_tval_set_obj(root, which);
  bs_tval_set_strf(t, "href", "run-%s.html", r->ar->id);
  bs__site_set_commit(t, r->ar->commit);
}

/* The groups' legend of the index and the case pages. */
static void group_list(const site *s, bs_tval *root, int with_runs) {
  bs_tval *groups = bs_tval_set_list(root, "groups");
  for (size_t g = 0; g < s->h->ngroups && s->h->ngroups > 1; g++) {
    char label[512];
    bs__site_group_label(s, g, label, sizeof label);
    bs_tval *t = bs_tval_push_obj(groups);
    bs_tval_set_strf(t, "number", "%zu", g + 1);
    bs_tval_set_str(t, "label", label);
    if (with_runs)
      bs_tval_set_strf(t, "runs", "%zu", s->h->groups[g].nruns);
  }
}

/* Renders page `tname` of d (with the footer's seed) into *html. Frees
 * d. */
static bs_status render(site *s, const char *tname, bs_tdata *d, char **html,
                        size_t *len, bs_error *err) {
  bs_tval_set_strf(bs_tdata_root(d), "seed", "%llu",
                   (unsigned long long)s->o->seed);
  bs_status st = bs_tdata_status(d);
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs_templates_render(s->tpl, tname, bs_tdata_root(d), html, len, err);
  bs_tdata_free(d);
  s->sum.pages_rendered++;
  return st;
}

/* The first of a page written twice: rendered from `d` into the staging
 * directory as ".first-FILE" and queued at `rank`, published before the
 * pages it links to so that no link points nowhere in between. */
static bs_status write_first(site *s, const char *tname, bs_tdata *d,
                             const char *file, int rank, bs_error *err) {
  char *html = NULL, first[BS_ARCHIVE_ID_MAX + BS__SITE_CASE_ID + 32];
  size_t len = 0;
  bs_status st = render(s, tname, d, &html, &len, err);
  snprintf(first, sizeof first, ".first-%s", file);
  char *to = st ? NULL : bs__path_join(s->tmp, first);
  if (!st)
    st = to ? bs__write_file(to, html, len, 0, err) : bs__oom(err);
  free(to);
  free(html);
  if (!st)
    st = bs__site_queue(s, file, rank, 0, err);
  if (!st && !(s->queue[s->nqueue - 1].src = bs__strdup(first)))
    st = bs__oom(err);
  return st;
}

/* Renders the page (freeing d) and writes it unless the previous build
 * has the same bytes; `key` (or NULL) names the inputs it was made
 * from. */
static bs_status emit_page(site *s, const char *tname, bs_tdata *d,
                           const char *file, int rank, const char *key,
                           bs_error *err) {
  char *html = NULL;
  size_t len = 0;
  bs_status st = render(s, tname, d, &html, &len, err);
  if (!st)
    st = bs__site_emit(s, file, html, len, rank, key, err);
  free(html);
  return st;
}

typedef struct open_key {
  size_t c, run;
  site_open o;
} open_key;

/* The most recent start first, then case order. */
static int cmp_open(const void *pa, const void *pb) {
  const open_key *a = pa, *b = pb;
  if (a->run != b->run)
    return a->run > b->run ? -1 : 1;
  return a->c < b->c ? -1 : a->c > b->c;
}

static void open_item(const site *s, bs_tval *what, const char *label,
                      double pct) {
  char buf[64];
  (void)s;
  bs_tval *w = bs_tval_push_obj(what);
  bs_tval_set_str(w, "label", label);
  bs_tval_set_str(w, "pct", bs__fmt_pct_signed(buf, sizeof buf, pct));
}

/* The index's "what regressed, since when": the cases with something
 * open (bs__site_open), the most recent start first. -1 when out of
 * memory. */
static int open_cases(const site *s, bs_tval *root) {
  const bs_history *h = s->h;
  open_key *keys = malloc((h->ncases ? h->ncases : 1) * sizeof *keys);
  if (!keys)
    return -1;
  size_t n = 0;
  for (size_t c = 0; c < h->ncases; c++) {
    bs__site_open(s, c, &keys[n].o);
    if (!keys[n].o.any)
      continue;
    keys[n].c = c;
    keys[n].run = h->cases[c].entries[keys[n].o.since].run;
    n++;
  }
  if (n)
    qsort(keys, n, sizeof *keys, cmp_open);
  bs_tval_set_bool(root, "has_open_cases", n > 0);
  bs_tval *list = bs_tval_set_list(root, "open_cases");
  for (size_t k = 0; k < n; k++) {
    const open_key *ok = &keys[k];
    const bs_history_case *hc = &h->cases[ok->c];
    bs_tval *t = bs_tval_push_obj(list);
    char name[512];
    bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
    bs_tval_set_str(t, "name", name);
    bs_tval_set_strf(t, "href", "case-%s.html", s->cases[ok->c].id);
    bs_tval *what = bs_tval_set_list(t, "what");
    if (ok->o.regression)
      open_item(s, what, "■ significant regression", ok->o.regression_pct);
    if (ok->o.step)
      open_item(s, what, "⇧ step up", ok->o.step_pct);
    if (ok->o.creep)
      open_item(s, what, "⇗ creeping", ok->o.creep_pct);
    const bs_history_run *r = &h->runs[ok->run];
    bs_tval *since = bs_tval_set_obj(t, "since");
    bs_tval_set_strf(since, "href", "run-%s.html", r->id);
    bs_tval_set_strf(since, "number", "%zu", ok->run + 1);
    bs_tval_set_str(since, "date", r->date);
    bs__site_set_commit(since, r->commit);
  }
  free(keys);
  return 0;
}

bs_status bs__site_index_page(site *s, bs_error *err) {
  const bs_history *h = s->h;
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs_tdata_root(d);
  bs__site_page_common(s, root, "Benchmark history", "index.html");
  bs_tval *sum = bs_tval_set_obj(root, "summary");
  bs_tval_set_strf(sum, "runs", "%zu", h->nruns);
  bs_tval_set_strf(sum, "cases", "%zu", h->ncases);
  bs_tval_set_strf(sum, "groups", "%zu", h->ngroups);
  bs_tval_set_bool(sum, "several_groups", h->ngroups > 1);
  bs_tval_set_strf(sum, "drifting", "%zu", h->drifting);
  bs_tval_set_bool(sum, "has_drifting", h->drifting > 0);
  bs_tval_set_strf(sum, "creeping", "%zu", h->creeping);
  bs_tval_set_bool(sum, "has_creeping", h->creeping > 0);
  if (h->nruns) {
    size_t ni = bs_history_newest(h);
    bs_tval *nw = bs_tval_set_obj(sum, "newest");
    bs__site_set_commit(nw, h->runs[ni].commit);
    bs_tval_set_str(nw, "date", h->runs[ni].date);
    run_links(nw, &s->runs[ni]);
    run_counts(nw, &h->runs[ni]);
  }
  bs_tval *runs = bs_tval_set_list(root, "runs");
  for (size_t i = h->nruns; i-- > 0;) {
    const bs_history_run *r = &h->runs[i];
    bs_tval *t = bs_tval_push_obj(runs);
    bs_tval_set_str(t, "date", r->date);
    bs__site_set_commit(t, r->commit);
    bs_tval_set_str(t, "id", r->id);
    bs_tval_set_strf(t, "number", "%zu", i + 1);
    bs_tval_set_strf(t, "group", "%zu", r->group + 1);
    run_links(t, &s->runs[i]);
    run_counts(t, r);
    env_status(s, i, t);
  }
  group_list(s, root, 1);
  bs__site_calibration_fields(s, root);
  if (open_cases(s, root)) {
    bs_tdata_free(d);
    return bs__oom(err);
  }
  bs_tval *cases = bs_tval_set_list(root, "cases");
  for (size_t c = 0; c < h->ncases; c++) {
    const bs_history_case *hc = &h->cases[c];
    bs_tval *t = bs_tval_push_obj(cases);
    char name[512], buf[128];
    bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
    bs_tval_set_str(t, "name", name);
    bs_tval_set_strf(t, "href", "case-%s.html", s->cases[c].id);
    bs_tval_set_strf(t, "runs", "%zu", hc->nentries);
    if (hc->newest)
      bs_tval_set_str(
          t, "latest",
          bs__fmt_val(buf, sizeof buf, s->o->metric, hc->newest->median));
    if (hc->has_drift)
      drift_fields(bs_tval_set_obj(t, "drift"), hc);
    else
      bs_tval_set_strf(t, "drift_runs", "%zu", hc->drift_n);
    creep_fields(s, t, hc);
  }
  return emit_page(s, "site_index", d, "index.html", RANK_INDEX, NULL, err);
}

/* What a run page shows comes from: the build, templates and seed (the
 * report key), the run's analysis, its place (number, group, tier, the
 * runs beside it, which also decide its environment status) and the
 * acknowledgements of its cases. */
static void run_page_key(const site *s, size_t i,
                         char out[BS__SHA256_HEXLEN + 1]) {
  const srun *r = &s->runs[i];
  const bs_history_run *hr = &s->h->runs[i];
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__site_fp_str(&h, "run page");
  bs__site_fp_str(&h, s->report_key);
  bs__site_fp_str(&h, r->key);
  bs__site_fp_str(&h, r->ar->id);
  bs__site_fp_size(&h, i);
  bs__site_fp_size(&h, hr->group);
  bs__site_fp_size(&h, (size_t)r->detailed * 4 + (size_t)r->report * 2 +
                           (r->no_report != NULL));
  bs__site_fp_str(&h, r->no_report);
  bs__site_fp_size(&h, (size_t)hr->no_metric);
  bs__site_fp_str(&h, i > 0 ? s->runs[i - 1].ar->id : NULL);
  bs__site_fp_str(&h, i + 1 < s->nruns ? s->runs[i + 1].ar->id : NULL);
  bs__site_fp_size(&h, s->o->seed);
  for (size_t k = 0; k < hr->nresults; k++) {
    const bs_ack *a = hr->results[k].ack;
    bs__site_fp_str(&h, a ? a->reason : NULL);
    bs__site_fp_size(&h, a ? (size_t)a->line + 1 : 0);
  }
  bs__site_fp_end(&h, out);
}

/* Whether the published site has the page of run i. */
static int run_published(const site *s, size_t i) {
  char file[BS_ARCHIVE_ID_MAX + 16];
  snprintf(file, sizeof file, "run-%s.html", s->runs[i].ar->id);
  return bs__site_published(s, file);
}

/* Whether the published site has the page of case c. */
static int case_published(const site *s, size_t c) {
  char file[BS__SITE_CASE_ID + 16];
  snprintf(file, sizeof file, "case-%s.html", s->cases[c].id);
  return bs__site_published(s, file);
}

/* Whether run i's new page links a page the published site does not have
 * yet (a new case's page, a new run beside it). */
static int links_unpublished(const site *s, size_t i) {
  const bs_history_run *hr = &s->h->runs[i];
  for (size_t k = 0; k < hr->nresults; k++)
    if (!case_published(s, hr->results[k].case_idx))
      return 1;
  return (i > 0 && !run_published(s, i - 1)) ||
         (i + 1 < s->nruns && !run_published(s, i + 1));
}

/* The tier of a result on a run page: significant regressions, then
 * inconclusive cases, then the rest. */
static int severity(const bs_history_result *r) {
  if (r->has_cmp && r->significant_regression)
    return 0;
  return r->has_cmp && r->inconclusive ? 1 : 2;
}

typedef struct severity_key {
  const bs_history_result *r;
  size_t k;
} severity_key;

static int cmp_severity(const void *pa, const void *pb) {
  const severity_key *a = pa, *b = pb;
  int ta = severity(a->r), tb = severity(b->r);
  if (ta != tb)
    return ta < tb ? -1 : 1;
  /* Regressions largest first; otherwise, and on ties, case order. */
  if (ta == 0 && a->r->delta_pct != b->r->delta_pct)
    return a->r->delta_pct > b->r->delta_pct ? -1 : 1;
  return a->k < b->k ? -1 : a->k > b->k;
}

/* The order a run page lists the run's results in (indices into
 * hr->results, which are in case order): by severity. NULL when out of
 * memory. */
static size_t *severity_order(const bs_history_run *hr) {
  size_t n = hr->nresults;
  severity_key *keys = malloc((n ? n : 1) * sizeof *keys);
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!keys || !order) {
    free(keys);
    free(order);
    return NULL;
  }
  for (size_t k = 0; k < n; k++) {
    keys[k].r = &hr->results[k];
    keys[k].k = k;
  }
  if (n)
    qsort(keys, n, sizeof *keys, cmp_severity);
  for (size_t k = 0; k < n; k++)
    order[k] = keys[k].k;
  free(keys);
  return order;
}

/* The data of run i's page; `first` leaves out the links to what the
 * published site does not have yet. NULL when out of memory. */
static bs_tdata *run_page_data(const site *s, size_t i, int first) {
  const srun *r = &s->runs[i];
  const bs_history_run *hr = &s->h->runs[i];
  bs_tdata *d = bs_tdata_new();
  if (!d)
    return NULL;
  bs_tval *root = bs_tdata_root(d);
  char title[300];
  snprintf(title, sizeof title, "Run %zu: %s", i + 1, r->ar->commit);
  bs__site_page_common(s, root, title, NULL);
  bs_tval *rv = bs_tval_set_obj(root, "run");
  bs__facts_metric(rv, r->mf, s->o->metric);
  const char *baseline = bs_manifest_get(r->mf, "baseline");
  const char *candidate = bs_manifest_get(r->mf, "candidate");
  if (baseline && candidate) {
    bs_tval_set_str(rv, "baseline", baseline);
    bs_tval_set_str(rv, "candidate", candidate);
  }
  bs_tval *t = bs_tval_set_obj(root, "this");
  bs_tval_set_str(t, "id", r->ar->id);
  bs__site_set_commit(t, r->ar->commit);
  bs_tval_set_str(t, "date", r->ar->date);
  bs_tval_set_strf(t, "number", "%zu", i + 1);
  bs_tval_set_strf(t, "group", "%zu", hr->group + 1);
  if (hr->impl && hr->impl[0])
    bs_tval_set_str(t, "impl", hr->impl);
  run_links(t, r);
  run_counts(t, hr);
  env_status(s, i, t);
  if (i > 0 && (!first || run_published(s, i - 1)))
    neighbour(root, "prev", &s->runs[i - 1]);
  if (i + 1 < s->nruns && (!first || run_published(s, i + 1)))
    neighbour(root, "next", &s->runs[i + 1]);
  bs_tval *env = bs_tval_set_list(root, "environment");
  for (size_t k = 0; k < bs_manifest_count(r->mf); k++) {
    bs_tval *e = bs_tval_push_obj(env);
    bs_tval_set_str(e, "key", bs_manifest_key(r->mf, k));
    bs_tval_set_str(e, "value", bs_manifest_value(r->mf, k));
    bs_tval_set_bool(e, "more", k + 1 < bs_manifest_count(r->mf));
  }
  size_t *order = severity_order(hr);
  if (!order) {
    bs_tdata_free(d);
    return NULL;
  }
  bs_tval *cases = bs_tval_set_list(root, "cases");
  for (size_t o = 0; o < hr->nresults; o++) {
    const bs_history_result *res = &hr->results[order[o]];
    bs_tval *c = bs_tval_push_obj(cases);
    char name[512];
    bs__case_label(name, sizeof name, res->benchmark, res->dataset);
    bs_tval_set_str(c, "name", name);
    bs_tval_set_strf(c, "href", "case-%s.html", s->cases[res->case_idx].id);
    bs_tval_set_bool(c, "linked", !first || case_published(s, res->case_idx));
    result_fields(s, c, res);
    bs_tval_set_bool(c, "regression",
                     res->has_cmp && res->significant_regression);
    if (res->ack) {
      bs_tval *a = bs_tval_set_obj(c, "ack");
      bs_tval_set_str(a, "reason", res->ack->reason);
      bs_tval_set_strf(a, "line", "%ld", res->ack->line);
    }
  }
  free(order);
  return d;
}

/* A run's page, unless the published one was made from the same inputs.
 * A new page that links a page the published site does not have yet
 * (its new case's page, which links it back, or a new run beside it) is
 * published twice: first without those links, among the new files, then
 * whole, after every new page. */
bs_status bs__site_run_page(site *s, size_t i, bs_error *err) {
  const srun *r = &s->runs[i];
  const char *tname = r->detailed ? "site_run" : "site_run_compact";
  char key[BS__SHA256_HEXLEN + 1], file[BS_ARCHIVE_ID_MAX + 16];
  snprintf(file, sizeof file, "run-%s.html", r->ar->id);
  run_page_key(s, i, key);
  int kept;
  bs_status st = bs__site_keep_keyed(s, file, key, &kept, err);
  if (st || kept)
    return st;
  int twice =
      s->out_exists && !bs__site_published(s, file) && links_unpublished(s, i);
  if (twice) {
    bs_tdata *d = run_page_data(s, i, 1);
    if (!d)
      return bs__oom(err);
    if ((st = write_first(s, tname, d, file, RANK_RUN, err)))
      return st;
  }
  bs_tdata *d = run_page_data(s, i, 0);
  if (!d)
    return bs__oom(err);
  size_t before = s->nqueue;
  st = emit_page(s, tname, d, file, RANK_RUN, key, err);
  if (!st && twice && s->nqueue > before)
    s->queue[s->nqueue - 1].fresh = 0; /* after the new pages */
  return st;
}

/* The report's page of the result `res` of run i: runs/ID/case-NNNN.html,
 * NNNN its place among the run's compared cases (the report numbers
 * them in the order the run's results are in). 0 when it has none. */
static int report_case_href(const site *s, size_t i,
                            const bs_history_result *res, char *buf, size_t n) {
  const bs_history_run *hr = &s->h->runs[i];
  if (!s->runs[i].report || !res->has_cmp)
    return 0;
  size_t k = 0;
  for (const bs_history_result *r = hr->results; r < res; r++)
    k += r->has_cmp != 0;
  int w = snprintf(buf, n, "runs/%s/case-%04zu.html", s->runs[i].ar->id, k + 1);
  return w > 0 && (size_t)w < n;
}

/* Whether the page of case c links a page the published site does not
 * have yet: a run page, or a run's report. */
static int case_links_unpublished(const site *s, size_t c) {
  const bs_history_case *hc = &s->h->cases[c];
  for (size_t i = s->cases[c].first_shown; i < hc->nentries; i++) {
    size_t run = hc->entries[i].run;
    char rel[BS_ARCHIVE_ID_MAX + 16];
    if (!run_published(s, run))
      return 1;
    snprintf(rel, sizeof rel, "runs/%s", s->runs[run].ar->id);
    if (s->runs[run].report && hc->entries[i].result->has_cmp &&
        !bs__site_published(s, rel))
      return 1;
  }
  return 0;
}

/* The change points of case c, newest first. */
static void step_fields(const site *s, size_t c, bs_tval *root) {
  const bs_history_case *hc = &s->h->cases[c];
  bs_tval *steps = bs_tval_set_list(root, "steps");
  bs_tval_set_bool(root, "has_steps", hc->nsteps > 0);
  for (size_t k = hc->nsteps; k-- > 0;) {
    const bs_history_step *sp = &hc->steps[k];
    if (sp->entry == 0 || sp->entry >= hc->nentries)
      continue;
    const bs_history_run *before = &s->h->runs[hc->entries[sp->entry - 1].run],
                         *after = &s->h->runs[hc->entries[sp->entry].run];
    bs_tval *t = bs_tval_push_obj(steps);
    char buf[64];
    bs_tval_set_strf(t, "number", "%zu", hc->entries[sp->entry].run + 1);
    bs_tval_set_strf(t, "href", "run-%s.html", after->id);
    bs__site_set_commit(bs_tval_set_obj(t, "before"), before->commit);
    bs__site_set_commit(bs_tval_set_obj(t, "after"), after->commit);
    bs_tval_set_str(t, "size",
                    bs__fmt_pct_signed(buf, sizeof buf, sp->size_pct));
    bs_tval_set_str(t, "before_level",
                    bs__fmt_val(buf, sizeof buf, s->o->metric, sp->before));
    bs_tval_set_str(t, "after_level",
                    bs__fmt_val(buf, sizeof buf, s->o->metric, sp->after));
    bs_tval_set_strf(t, "p", "%.2g", sp->p_value);
    bs_tval_set_bool(t, "significant", sp->significant);
    bs_tval_set_bool(t, "acknowledged", sp->acknowledged);
    bs_tval_set_str(t, "class",
                    !sp->significant   ? "equivalent"
                    : sp->size_pct > 0 ? "regression"
                                       : "improvement");
  }
}

/* "Which commit?": the open regression and the open change point of case
 * c, each with the bisect command over its commits (none: no list). */
static void bisect_fields(const site *s, size_t c, bs_tval *root) {
  const bs_history_case *hc = &s->h->cases[c];
  const bs_history_open *op = &hc->open;
  bs_tval *list = NULL;
  for (int step = 0; step < 2; step++) {
    if (step ? !op->step || op->step_index >= hc->nsteps : !op->regression)
      continue;
    size_t e = step ? hc->steps[op->step_index].entry : op->regression_entry;
    const char *good = bs__site_open_good(s, c, e, step);
    if (!good)
      continue;
    if (!list)
      list = bs_tval_set_list(root, "bisect");
    bs_tval *t = bs_tval_push_obj(list);
    bs_tval_set_str(t, "what", step ? "step up" : "significant regression");
    bs__site_bisect_fields(t, good, s->h->runs[hc->entries[e].run].commit,
                           hc->benchmark, hc->dataset);
  }
}

/* The data of case c's page into *out; `first` leaves out the links to
 * what the published site does not have yet. */
static bs_status case_page_data(site *s, size_t c, int first, bs_tdata **out,
                                bs_error *err) {
  const bs_history *h = s->h;
  const bs_history_case *hc = &h->cases[c];
  const scase *sc = &s->cases[c];
  bs_tdata *d = *out = bs_tdata_new();
  if (!d)
    return bs__oom(err);
  bs_tval *root = bs_tdata_root(d);
  char name[512];
  bs__case_label(name, sizeof name, hc->benchmark, hc->dataset);
  bs__site_page_common(s, root, name, NULL);
  bs_tval *cv = bs_tval_set_obj(root, "case");
  bs_tval_set_str(cv, "benchmark", hc->benchmark);
  bs_tval_set_str(cv, "dataset", hc->dataset);
  bs_tval_set_strf(cv, "runs", "%zu", hc->nentries);
  bs_status st = bs__site_chart_fields(s, c, root, err);
  if (st) {
    bs_tdata_free(d);
    *out = NULL;
    return st;
  }
  creep_fields(s, root, hc);
  step_fields(s, c, root);
  bisect_fields(s, c, root);
  bs_tval_set_strf(root, "json", "history/%s.json", sc->id);
  bs_tval_set_strf(root, "shown", "%zu", hc->nentries - sc->first_shown);
  bs_tval_set_bool(root, "truncated", sc->first_shown > 0);
  if (hc->has_drift) {
    bs_tval *dr = bs_tval_set_obj(root, "drift");
    drift_fields(dr, hc);
    bs_tval_set_strf(dr, "rho", "%.3f", hc->drift.rho);
    bs_tval_set_strf(dr, "group", "%zu", hc->drift_group + 1);
  } else {
    bs_tval_set_strf(root, "drift_skipped", "%zu", hc->drift_n);
  }
  group_list(s, root, 0);
  bs_tval_set_bool(root, "several_groups", h->ngroups > 1);
  /* Newest first, as every history table of the site. */
  bs_tval *rows = bs_tval_set_list(root, "rows");
  for (size_t i = hc->nentries; i-- > sc->first_shown;) {
    const bs_history_entry *e = &hc->entries[i];
    const bs_history_run *r = &h->runs[e->run];
    const bs_history_result *res = e->result;
    bs_tval *t = bs_tval_push_obj(rows);
    if (e->link) {
      bs_tval_set_strf(t, "chain", "%zu", e->chain + 1);
      char buf[64];
      bs_tval_set_str(
          t, "chained",
          bs__fmt_pct_signed(buf, sizeof buf, 100 * (e->chained_index - 1)));
    }
    bs_tval_set_strf(t, "number", "%zu", e->run + 1);
    bs_tval_set_str(t, "date", r->date);
    bs__site_set_commit(t, r->commit);
    int linked = !first || run_published(s, e->run);
    if (linked)
      bs_tval_set_strf(t, "href", "run-%s.html", r->id);
    char rep[BS_ARCHIVE_ID_MAX + 48], rel[BS_ARCHIVE_ID_MAX + 16];
    snprintf(rel, sizeof rel, "runs/%s", r->id);
    if (report_case_href(s, e->run, res, rep, sizeof rep) &&
        (!first || bs__site_published(s, rel)))
      bs_tval_set_str(t, "report", rep);
    bs_tval_set_strf(t, "group", "%zu", r->group + 1);
    if (i > sc->first_shown &&
        h->runs[hc->entries[i - 1].run].group != r->group)
      bs_tval_set_bool(t, "group_change", 1);
    result_fields(s, t, res);
    bs_tval_set_bool(t, "no_metric", r->no_metric);
    if (res->has_median) {
      bs_tval_set_strf(t, "n", "%zu", res->n);
      bs_tval_set_str(t, "impl", r->impl ? r->impl : "");
    }
    if (res->ack)
      bs_tval_set_str(t, "ack", res->ack->reason);
  }
  return BS_OK;
}

/* A case's page. A new page that links a page the published site does
 * not have yet (its new runs' pages and reports, which link it back) is
 * published twice: first without those links, before the reports, then
 * whole, after every new page. */
bs_status bs__site_case_page(site *s, size_t c, bs_error *err) {
  char file[BS__SITE_CASE_ID + 16];
  snprintf(file, sizeof file, "case-%s.html", s->cases[c].id);
  bs_status st;
  int twice = s->out_exists && !bs__site_published(s, file) &&
              case_links_unpublished(s, c);
  bs_tdata *d;
  if (twice) {
    if ((st = case_page_data(s, c, 1, &d, err)))
      return st;
    if ((st = write_first(s, "site_case", d, file, RANK_CASE_FIRST, err)))
      return st;
  }
  if ((st = case_page_data(s, c, 0, &d, err)))
    return st;
  size_t before = s->nqueue;
  st = emit_page(s, "site_case", d, file, RANK_CASE, NULL, err);
  if (!st && twice && s->nqueue > before)
    s->queue[s->nqueue - 1].fresh = 0; /* after the new pages */
  return st;
}

bs_status bs__site_emit_page(site *s, const char *tname, bs_tdata *d,
                             const char *file, int rank, bs_error *err) {
  return emit_page(s, tname, d, file, rank, NULL, err);
}

/* What is open for case c, as the index and the views show it: the
 * history model's bs_history_open, with the creep's size and start. */
void bs__site_open(const site *s, size_t c, site_open *o) {
  const bs_history_case *hc = &s->h->cases[c];
  const bs_history_open *op = &hc->open;
  memset(o, 0, sizeof *o);
  o->regression = op->regression;
  o->regression_entry = op->regression_entry;
  o->regression_pct = op->regression_pct;
  o->step = op->step;
  o->step_index = op->step_index;
  o->step_pct = op->step_pct;
  const bs_history_creep *cr = &hc->creep;
  if (op->creep) {
    o->creep = 1;
    o->creep_pct = cr->has_scan ? cr->scan_pct : cr->creep_pct;
    o->creep_entry =
        cr->has_scan && cr->since < hc->nentries
            ? cr->since
            : (hc->nentries > cr->links ? hc->nentries - cr->links : 0);
  }
  o->any = op->any;
  o->since = op->any ? op->since : 0;
}
