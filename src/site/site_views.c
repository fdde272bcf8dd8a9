/* The site's views of what regressed, since when (SPEC §2.13): what is
 * open per case (the index names it above the runs), the regressions
 * page (every significant change, newest first), feed.xml (Atom, the
 * newest 50 of them) and index.json (every case with its files, newest
 * median and what is open), so that tools never scrape HTML.
 *
 * What is open is the history model's (bs_history_open): the site only
 * renders it. */
#include "site_int.h"

#include "grow.h"
#include "jsonw.h"
#include "markup.h"
#include "num.h"
#include "oom.h"
#include "present.h"
#include "strlist.h"

#include <stdio.h>
#include <stdlib.h>

#define FEED_ENTRIES 50

/* ---- Significant changes: the regressions page and the feed ------------- */

typedef struct change {
  size_t run, c;
  size_t entry; /* into the case's entries */
  int step;     /* 1: a change point (index k), 0: a paired regression */
  size_t k;
} change;

typedef struct changes {
  change *v;
  size_t n, cap;
} changes;

static int push(changes *cs, change ch) {
  if (cs->n == cs->cap) {
    change *g = BS__GROW(cs->v, cs->cap, cs->n + 1, 64);
    if (!g)
      return -1;
    cs->v = g;
  }
  cs->v[cs->n++] = ch;
  return 0;
}

/* Newest run first, then case order, paired regressions before steps. */
static int cmp_change(const void *pa, const void *pb) {
  const change *a = pa, *b = pb;
  if (a->run != b->run)
    return a->run > b->run ? -1 : 1;
  if (a->c != b->c)
    return a->c < b->c ? -1 : 1;
  if (a->step != b->step)
    return a->step < b->step ? -1 : 1;
  return a->k < b->k ? -1 : a->k > b->k;
}

/* Every significant regression of a paired run and every significant
 * change point, newest first. 0 or -1 (out of memory). */
static int collect(const site *s, changes *cs) {
  memset(cs, 0, sizeof *cs);
  for (size_t c = 0; c < s->h->ncases; c++) {
    const bs_history_case *hc = &s->h->cases[c];
    for (size_t i = 0; i < hc->nentries; i++) {
      const bs_history_result *r = hc->entries[i].result;
      if (r->has_cmp && r->significant_regression &&
          push(cs, (change){hc->entries[i].run, c, i, 0, 0}))
        return -1;
    }
    for (size_t k = 0; k < hc->nsteps; k++) {
      const bs_history_step *sp = &hc->steps[k];
      if (!sp->significant || sp->entry == 0 || sp->entry >= hc->nentries)
        continue;
      if (push(cs, (change){hc->entries[sp->entry].run, c, sp->entry, 1, k}))
        return -1;
    }
  }
  if (cs->n)
    qsort(cs->v, cs->n, sizeof *cs->v, cmp_change);
  return 0;
}

/* The facts of a change: its case's label, size, the commits it spans
 * (before -> after), acknowledged or not. */
typedef struct change_facts {
  char name[512];
  double pct;
  const char *before, *after;
  int acked;
  const char *kind;
} change_facts;

static void facts_of(const site *s, const change *ch, change_facts *f) {
  const bs_history_case *hc = &s->h->cases[ch->c];
  const bs_history_run *r = &s->h->runs[ch->run];
  bs__case_label(f->name, sizeof f->name, hc->benchmark, hc->dataset);
  f->after = r->commit;
  if (ch->step) {
    const bs_history_step *sp = &hc->steps[ch->k];
    f->pct = sp->size_pct;
    f->before = s->h->runs[hc->entries[sp->entry - 1].run].commit;
    f->acked = sp->acknowledged;
    f->kind = "change point";
  } else {
    const bs_history_result *res = hc->entries[ch->entry].result;
    f->pct = res->delta_pct;
    f->before = r->baseline_commit;
    f->acked = res->ack != NULL;
    f->kind = "paired regression";
  }
}

bs_status bs__site_regressions_page(site *s, bs_error *err) {
  changes cs;
  if (collect(s, &cs)) {
    free(cs.v);
    return bs__oom(err);
  }
  bs_tdata *d = bs_tdata_new();
  if (!d) {
    free(cs.v);
    return bs__oom(err);
  }
  bs_tval *root = bs_tdata_root(d);
  bs__site_page_common(s, root, "Regressions", "regressions.html");
  bs_tval_set_strf(root, "count", "%zu", cs.n);
  bs_tval_set_bool(root, "any", cs.n > 0);
  bs__site_calibration_fields(s, root);
  bs_tval *list = bs_tval_set_list(root, "changes");
  char buf[64];
  for (size_t i = 0; i < cs.n; i++) {
    const change *ch = &cs.v[i];
    change_facts f;
    facts_of(s, ch, &f);
    const bs_history_run *r = &s->h->runs[ch->run];
    bs_tval *t = bs_tval_push_obj(list);
    bs_tval_set_strf(t, "number", "%zu", ch->run + 1);
    bs_tval_set_strf(t, "run_href", "run-%s.html", r->id);
    bs_tval_set_str(t, "date", r->date);
    bs_tval_set_str(t, "name", f.name);
    bs_tval_set_strf(t, "href", "case-%s.html", s->cases[ch->c].id);
    bs_tval_set_str(t, "kind", f.kind);
    bs_tval_set_str(t, "size", bs__fmt_pct_signed(buf, sizeof buf, f.pct));
    bs_tval_set_str(t, "class", f.pct > 0 ? "regression" : "improvement");
    if (f.before)
      bs__site_set_commit(bs_tval_set_obj(t, "before"), f.before);
    bs__site_set_commit(bs_tval_set_obj(t, "after"), f.after);
    bs_tval_set_bool(t, "acknowledged", f.acked);
    /* The open one of its case: the command that finds its commit. */
    const bs_history_case *hc = &s->h->cases[ch->c];
    site_open o;
    bs__site_open(s, ch->c, &o);
    if (f.before && f.before[0] &&
        (ch->step ? o.step && o.step_index == ch->k
                  : o.regression && o.regression_entry == ch->entry))
      bs__site_bisect_fields(bs_tval_set_obj(t, "bisect"), f.before, f.after,
                             hc->benchmark, hc->dataset);
  }
  free(cs.v);
  return bs__site_emit_page(s, "site_regressions", d, "regressions.html",
                            RANK_INDEX, err);
}

/* Text as XML character data: the one rule for markup (markup.h), as
 * the pages and the chart labels. */
static bs_status put_xml(bs__buf *b, const char *t) {
  return bs__markup_puts(b, t);
}

bs_status bs__site_feed(site *s, bs_error *err) {
  changes cs;
  if (collect(s, &cs)) {
    free(cs.v);
    return bs__oom(err);
  }
  const bs_history *h = s->h;
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  /* The feed's id: the archive's identity, which never changes. Dates
   * are RFC 3339 as the archive hands them out (bs_archive_run). */
  const char *first = bs_archive_identity(s->ar);
  if (!first)
    first = "empty";
  const char *updated = cs.n ? h->runs[cs.v[0].run].date
                             : (h->nruns ? h->runs[bs_history_newest(h)].date
                                         : "1970-01-01T00:00:00Z");
  bs__buf_puts(
      &b, "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
          "<feed xmlns=\"http://www.w3.org/2005/Atom\">\n"
          "<title>Benchmark regressions</title>\n"
          "<subtitle>Every significant regression and change point, newest "
          "first</subtitle>\n"
          "<link rel=\"alternate\" type=\"text/html\" "
          "href=\"regressions.html\"/>\n"
          "<author><name>benchsite</name></author>\n"
          "<generator>benchsite " BENCHSITE_VERSION "</generator>\n<id>"
          "urn:benchsite:");
  put_xml(&b, first);
  bs__buf_puts(&b, ":regressions</id>\n<updated>");
  put_xml(&b, updated);
  bs__buf_puts(&b, "</updated>\n");
  char buf[64];
  for (size_t i = 0; i < cs.n && i < FEED_ENTRIES; i++) {
    const change *ch = &cs.v[i];
    const bs_history_run *r = &h->runs[ch->run];
    change_facts f;
    facts_of(s, ch, &f);
    bs__fmt_pct_signed(buf, sizeof buf, f.pct);
    bs__buf_puts(&b, "<entry>\n<title>");
    put_xml(&b, f.name);
    bs__buf_printf(&b, ": %s %s%s</title>\n<id>urn:benchsite:", buf, f.kind,
                   f.acked ? " (acknowledged)" : "");
    put_xml(&b, r->id);
    bs__buf_printf(&b, ":%s:%s%zu</id>\n<updated>", s->cases[ch->c].id,
                   ch->step ? "step" : "paired", ch->k);
    put_xml(&b, r->date);
    bs__buf_printf(&b,
                   "</updated>\n<link rel=\"alternate\" "
                   "type=\"text/html\" href=\"case-%s.html\"/>\n"
                   "<summary>",
                   s->cases[ch->c].id);
    put_xml(&b, f.kind);
    bs__buf_printf(&b, " of %s from commit ", buf);
    put_xml(&b, f.before ? f.before : "(none)");
    bs__buf_puts(&b, " to ");
    put_xml(&b, f.after);
    bs__buf_printf(&b, " (run %zu)%s.</summary>\n</entry>\n", ch->run + 1,
                   f.acked ? ", acknowledged" : "");
  }
  bs_status st = bs__buf_puts(&b, "</feed>\n");
  free(cs.v);
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs__site_emit(s, "feed.xml", b.data, b.len, RANK_INDEX, NULL, err);
  bs__buf_release(&b);
  return st;
}

/* ---- index.json ---------------------------------------------------------- */

static bs_status put_num(bs__buf *b, double v) {
  char t[BS__NUM_SHORTEST];
  size_t n = bs__num_shortest(v, t);
  return n ? bs__buf_append(b, t, n) : bs__buf_puts(b, "null");
}

/* {"run": ID, "commit": C, "pct": X} of entry e of case c, and with a
 * `good` commit the range a bisection searches, "range": [good, C]. */
static bs_status put_since(bs__buf *b, const site *s, size_t c, size_t e,
                           double pct, const char *good) {
  const bs_history_run *r = &s->h->runs[s->h->cases[c].entries[e].run];
  bs__buf_puts(b, "{\"run\": ");
  bs__json_string(b, r->id);
  bs__buf_puts(b, ", \"commit\": ");
  bs__json_string(b, r->commit);
  bs__buf_puts(b, ", \"pct\": ");
  put_num(b, pct);
  if (good) {
    bs__buf_puts(b, ", \"range\": [");
    bs__json_string(b, good);
    bs__buf_puts(b, ", ");
    bs__json_string(b, r->commit);
    bs__buf_putc(b, ']');
  }
  return bs__buf_putc(b, '}');
}

bs_status bs__site_index_json(site *s, bs_error *err) {
  const bs_history *h = s->h;
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  bs__buf_puts(&b, "{\"schema\": \"benchsite.index/1\", "
                   "\"runs\": \"history/runs.json\", "
                   "\"regressions\": \"regressions.html\", "
                   "\"feed\": \"feed.xml\", \"metric\": ");
  bs__json_string(&b, mi ? mi->name : "");
  bs__buf_printf(&b, ", \"unit\": ");
  bs__json_string(&b, mi ? mi->unit : "");
  bs__buf_puts(&b, ", \"cases\": [");
  for (size_t c = 0; c < h->ncases; c++) {
    const bs_history_case *hc = &h->cases[c];
    site_open o;
    bs__site_open(s, c, &o);
    bs__buf_puts(&b, c ? ",\n{\"benchmark\": " : "\n{\"benchmark\": ");
    bs__json_string(&b, hc->benchmark);
    bs__buf_puts(&b, ", \"dataset\": ");
    bs__json_string(&b, hc->dataset);
    bs__buf_printf(&b,
                   ", \"page\": \"case-%s.html\", \"history\": "
                   "\"history/%s.json\", \"runs\": %zu, "
                   "\"newest_median\": ",
                   s->cases[c].id, s->cases[c].id, hc->nentries);
    if (hc->newest)
      put_num(&b, hc->newest->median);
    else
      bs__buf_puts(&b, "null");
    bs__buf_puts(&b, ", \"open\": {\"regression\": ");
    if (o.regression)
      put_since(&b, s, c, o.regression_entry, o.regression_pct,
                bs__site_open_good(s, c, o.regression_entry, 0));
    else
      bs__buf_puts(&b, "null");
    bs__buf_puts(&b, ", \"change_point\": ");
    if (o.step)
      put_since(&b, s, c, hc->steps[o.step_index].entry, o.step_pct,
                bs__site_open_good(s, c, hc->steps[o.step_index].entry, 1));
    else
      bs__buf_puts(&b, "null");
    bs__buf_puts(&b, ", \"creep\": ");
    if (o.creep)
      put_since(&b, s, c, o.creep_entry, o.creep_pct, NULL);
    else
      bs__buf_puts(&b, "null");
    bs__buf_puts(&b, "}}");
  }
  bs_status st = bs__buf_puts(&b, "]}\n");
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs__site_emit(s, "index.json", b.data, b.len, RANK_INDEX, NULL, err);
  bs__buf_release(&b);
  return st;
}
