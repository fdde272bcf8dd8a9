/* The history data, format 2: per-run facts once, in history/runs.json
 * ("benchsite.runs/2"), and per case history/ID.json
 * ("benchsite.history/2": the case, its creep and change points, its
 * newest SHOWN_RUNS runs) with the older runs in history/ID-K.json
 * ("benchsite.history-chunk/2"), CHUNK_RUNS each counted from the oldest,
 * so a full chunk never changes. A case's run is one line: an array of
 * its run's number in runs.json and its numbers, each in the shortest
 * text that reads back to the same double (bs__num_shortest), null where
 * there is none. A build that adds a run reuses the published lines.
 *
 * The same files are the cache of every run's results: the state lists
 * them with their hashes, and the next build reads them back
 * (bs__site_load_history) instead of keeping a copy in the state. */
#include "site_int.h"

#include "grow.h"
#include "jsonread.h"
#include "jsonw.h"
#include "lmath.h"
#include "num.h"
#include "oom.h"
#include "strlist.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK_RUNS BS__SITE_CHUNK_RUNS

/* The fields of a run's line, in order (the files name them). The 13th,
 * the run's scale, is there only where it differs from the file's. */
static const char fields_json[] =
    "[\"run\", \"n\", \"median\", \"ci_low\", \"ci_high\", \"flags\", "
    "\"blocks\", \"delta_pct\", \"delta_low_pct\", \"delta_high_pct\", "
    "\"chain\", \"chained_index\", \"scale\"]";
#define NFIELDS 12 /* without the scale */

/* Flags of a run's line: bits 0-3 significant regression, significant
 * improvement, inconclusive, acknowledged; bits 4-5 the verdict: 0 not
 * compared, 1 faster, 2 equivalent, 3 slower. */
enum {
  FLAG_REGRESSION = 1,
  FLAG_IMPROVEMENT = 2,
  FLAG_INCONCLUSIVE = 4,
  FLAG_ACK = 8,
  FLAG_VERDICT_SHIFT = 4
};

/* ---- Writing --------------------------------------------------------------
 */

static bs_status put_num(bs__buf *b, double v) {
  char t[BS__NUM_SHORTEST];
  size_t n = bs__num_shortest(v, t);
  return n ? bs__buf_append(b, t, n) : bs__buf_puts(b, "null");
}

static bs_status put_opt(bs__buf *b, int has, double v) {
  return has ? put_num(b, v) : bs__buf_puts(b, "null");
}

static unsigned entry_flags(const bs_history_result *r) {
  unsigned f = 0;
  if (r->has_cmp) {
    f |= (unsigned)(r->verdict + 1) << FLAG_VERDICT_SHIFT;
    f |= r->significant_regression ? FLAG_REGRESSION : 0;
    f |= r->significant_improvement ? FLAG_IMPROVEMENT : 0;
    f |= r->inconclusive ? FLAG_INCONCLUSIVE : 0;
  }
  f |= r->ack ? FLAG_ACK : 0;
  return f;
}

/* The scale a file states for its runs: its first run's (0: none). */
static double file_scale(const bs_history_case *hc, size_t from, size_t to) {
  const bs_history_result *r = from < to ? hc->entries[from].result : NULL;
  return r && r->has_scale ? r->scale : 0.0;
}

/* One run of a case, on one line. */
static bs_status json_entry(bs__buf *b, const bs_history_entry *e,
                            double scale) {
  const bs_history_result *r = e->result;
  int m = r->has_median, c = r->has_cmp, l = e->link;
  bs__buf_printf(b, "[%zu,%zu,", e->run, m ? r->n : 0);
  put_opt(b, m, r->median);
  bs__buf_putc(b, ',');
  put_opt(b, m, r->lo);
  bs__buf_putc(b, ',');
  put_opt(b, m, r->hi);
  bs__buf_printf(b, ",%u,", entry_flags(r));
  if (c)
    bs__buf_printf(b, "%zu", r->blocks);
  else
    bs__buf_puts(b, "null");
  bs__buf_putc(b, ',');
  put_opt(b, c, r->delta_pct);
  bs__buf_putc(b, ',');
  put_opt(b, c, r->delta_lo_pct);
  bs__buf_putc(b, ',');
  put_opt(b, c, r->delta_hi_pct);
  if (l)
    bs__buf_printf(b, ",%zu,", e->chain);
  else
    bs__buf_puts(b, ",null,");
  put_opt(b, l, e->chained_index);
  double sc = r->has_scale ? r->scale : 0.0;
  /* The same bits, not the same value: -0 and 0 are different files. */
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
  if (memcmp(&sc, &scale, sizeof sc) != 0) {
    bs__buf_putc(b, ',');
    put_opt(b, r->has_scale, sc);
  }
  return bs__buf_putc(b, ']');
}

/* Entries [from, to) of case c as the lines of a "runs" array. */
static bs_status json_entries(bs__buf *b, const site *s, size_t c, size_t from,
                              size_t to) {
  const bs_history_case *hc = &s->h->cases[c];
  double scale = file_scale(hc, from, to);
  bs__buf_puts(b, "\"runs\": [");
  for (size_t i = from; i < to; i++) {
    bs__buf_puts(b, i > from ? ",\n" : "\n");
    json_entry(b, &hc->entries[i], scale);
  }
  return bs__buf_puts(b, "]}\n");
}

/* What entries [from, to) of case c's history files are made from. */
static void entries_key(const site *s, size_t c, size_t from, size_t to,
                        char out[BS__SHA256_HEXLEN + 1]) {
  const bs_history_case *hc = &s->h->cases[c];
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__site_fp_str(&h, "history entries/2");
  bs__site_fp_str(&h, s->report_key);
  bs__site_fp_str(&h, s->cases[c].id);
  bs__site_fp_size(&h, from);
  bs__site_fp_size(&h, to);
  bs__site_fp_num(&h, file_scale(hc, from, to));
  for (size_t i = from; i < to; i++) {
    const bs_history_entry *e = &hc->entries[i];
    const bs_history_result *r = e->result;
    bs__site_fp_size(&h, e->run);
    bs__site_fp_size(&h, (size_t)r->has_median * 4 + (size_t)e->link * 2 +
                             (size_t)r->has_scale);
    bs__site_fp_size(&h, entry_flags(r));
    bs__site_fp_size(&h, r->n);
    bs__site_fp_size(&h, r->blocks);
    bs__site_fp_num(&h, r->median);
    bs__site_fp_num(&h, r->lo);
    bs__site_fp_num(&h, r->hi);
    bs__site_fp_num(&h, r->delta_pct);
    bs__site_fp_num(&h, r->delta_lo_pct);
    bs__site_fp_num(&h, r->delta_hi_pct);
    bs__site_fp_num(&h, r->scale);
    bs__site_fp_size(&h, e->link ? e->chain : 0);
    bs__site_fp_num(&h, e->link ? e->chained_index : 0.0);
  }
  bs__site_fp_end(&h, out);
}

/* Reads a published file of the site whose bytes the state lists (pf):
 * 1 and *data (malloc'd), *len when it is there with those bytes. A file
 * that is not is known not to be (its hash becomes "-"), so it is
 * written again even when the new bytes are the listed ones. */
static int read_listed(const site *s, prev_file *pf, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  if (!pf || !strcmp(pf->hash, "-"))
    return 0;
  char *path = bs__path_join(s->out, pf->name);
  bs_error ign;
  int ok = path && bs__read_regular(path, BS__OPEN_NOFOLLOW, BS__SITE_CACHE_MAX,
                                    data, len, &ign) == BS_OK;
  free(path);
  char hash[BS__SHA256_HEXLEN + 1];
  if (ok)
    bs__sha256_hex(*data, *len, hash);
  if (!ok || strcmp(hash, pf->hash)) {
    memcpy(pf->hash, "-", 2);
    free(*data);
    *data = NULL;
    *len = 0;
    return 0;
  }
  return 1;
}

/* The published history file `file` into *old (malloc'ed, or NULL), and
 * whether its bytes are the ones the state lists (pf) and end as
 * json_entries ends them. */
static int read_published_json(const site *s, prev_file *pf, char **old,
                               size_t *len) {
  return read_listed(s, pf, old, len) && *len > 3 &&
         !memcmp(*old + *len - 3, "]}\n", 3);
}

/* A chunk's header: its schema and case, up to its "runs". */
static bs_status chunk_head(bs__buf *b, const site *s, size_t c, size_t from,
                            size_t to) {
  const bs_history_case *hc = &s->h->cases[c];
  bs__buf_puts(b, "{\"schema\": \"benchsite.history-chunk/2\", "
                  "\"benchmark\": ");
  bs__json_string(b, hc->benchmark);
  bs__buf_puts(b, ", \"dataset\": ");
  bs__json_string(b, hc->dataset);
  double scale = file_scale(hc, from, to);
  bs__buf_puts(b, ", \"scale\": ");
  put_opt(b, scale > 0, scale);
  return bs__buf_printf(b, ", \"fields\": %s, ", fields_json);
}

/* The chunk `file` of entries [from, to) when the published one holds
 * [from, to - 1) made from the same inputs (the common change: one run
 * moved out of the newest SHOWN_RUNS): its bytes with the new entry
 * appended, which is what json_entries writes, without formatting the
 * rest again. *done is 0 when the published chunk is anything else. */
static bs_status append_chunk(site *s, size_t c, const char *file, size_t from,
                              size_t to, const char *key, bs__buf *b, int *done,
                              bs_error *err) {
  *done = 0;
  if (to - from < 2)
    return BS_OK;
  const bs_history_case *hc = &s->h->cases[c];
  prev_file *pf = bs__site_find_pfile(s, file);
  char before[BS__SHA256_HEXLEN + 1];
  if (!pf || !strcmp(pf->hash, "-"))
    return BS_OK;
  entries_key(s, c, from, to - 1, before);
  if (strcmp(pf->key, before))
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, pf, &old, &len);
  bs_status st = BS_OK;
  if (ok) {
    b->len = 0;
    bs__buf_append(b, old, len - 3);
    bs__buf_puts(b, ",\n");
    json_entry(b, &hc->entries[to - 1], file_scale(hc, from, to));
    st = bs__buf_puts(b, "]}\n");
    if (st)
      st = bs__oom_as(err, st);
    else
      st = bs__site_emit(s, file, b->data, b->len, RANK_LEAF, key, err);
    *done = !st;
  }
  free(old);
  return st;
}

/* The lines of entries [from, to) of case c's history file after its
 * header (in b, ending in "\"runs\": [") when the published file holds
 * entries [a, b) made from the same inputs with a <= from <= a + 1 and
 * to - 1 <= b <= to (the same runs, or the window moved on by the one new
 * run), and states the same scale: its lines for those, unformatted, and
 * json_entry for the rest. *done is 0 when the published file is anything
 * else. */
static bs_status reuse_entries(site *s, size_t c, const char *file, size_t from,
                               size_t to, bs__buf *b, int *done,
                               bs_error *err) {
  *done = 0;
  const bs_history_case *hc = &s->h->cases[c];
  prev_file *pf = bs__site_find_pfile(s, file);
  if (!pf || !strcmp(pf->hash, "-") || to <= from)
    return BS_OK;
  double scale = file_scale(hc, from, to);
  size_t a = 0, e = 0;
  int found = 0;
  for (int k = 0; k < 3 && !found; k++) {
    /* The same range first: what a build with nothing new finds. */
    a = k == 1 && from > 0 ? from - 1 : from;
    e = k == 0 ? to : to - 1;
    if ((k == 1 && from == 0) || e <= a)
      continue;
    double sc = file_scale(hc, a, e);
    // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison,cert-exp42-c,cert-flp37-c)
    if (memcmp(&sc, &scale, sizeof sc))
      continue; /* its lines state their scales against another */
    char key[BS__SHA256_HEXLEN + 1];
    entries_key(s, c, a, e, key);
    found = !strcmp(key, pf->key);
  }
  if (!found)
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, pf, &old, &len);
  /* Its lines: the header, then one entry a line (JSON strings hold no
   * raw newline), each but the last ending in ",", the last in "]}". */
  const char *p = ok ? memchr(old, '\n', len) : NULL;
  const char *end = old + len;
  size_t i = a;
  size_t start = b->len;
  while (p && p + 1 < end) {
    const char *line = p + 1;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl)
      break;
    size_t n = (size_t)(nl - line);
    int last = nl + 1 == end;
    if (n < (last ? 2u : 1u) || line[n - (last ? 2 : 1)] != (last ? ']' : ','))
      break;
    if (i >= from) {
      bs__buf_puts(b, i > from ? ",\n" : "\n");
      bs__buf_append(b, line, n - (last ? 2 : 1));
    }
    i++;
    p = nl;
    if (last)
      break;
  }
  ok = ok && i == e && p && p + 1 == end;
  for (; ok && i < to; i++) {
    bs__buf_puts(b, i > from ? ",\n" : "\n");
    json_entry(b, &hc->entries[i], scale);
  }
  if (ok)
    bs__buf_puts(b, "]}\n");
  free(old);
  bs_status st = bs__buf_status(b);
  if (st)
    return bs__oom_as(err, st);
  if (!ok)
    b->len = start;
  *done = ok;
  return BS_OK;
}

/* The older chunks of case c (k = 0 .. nchunks - 1). */
static bs_status history_chunks(site *s, size_t c, size_t nchunks, bs__buf *b,
                                bs_error *err) {
  const char *id = s->cases[c].id;
  size_t older = s->cases[c].first_shown;
  bs_status st = BS_OK;
  for (size_t k = 0; k < nchunks && !st; k++) {
    size_t from = k * CHUNK_RUNS;
    size_t to = from + CHUNK_RUNS < older ? from + CHUNK_RUNS : older;
    char key[BS__SHA256_HEXLEN + 1], file[BS__SITE_CASE_ID + 48];
    int kept;
    snprintf(file, sizeof file, "history/%s-%zu.json", id, k);
    entries_key(s, c, from, to, key);
    if ((st = bs__site_keep_keyed(s, file, key, &kept, err)) ||
        (!kept &&
         (st = append_chunk(s, c, file, from, to, key, b, &kept, err))))
      break;
    if (kept)
      continue;
    b->len = 0;
    chunk_head(b, s, c, from, to);
    st = json_entries(b, s, c, from, to);
    if (st)
      st = bs__oom_as(err, st);
    else
      st = bs__site_emit(s, file, b->data, b->len, RANK_LEAF, key, err);
  }
  return st;
}

/* The case's creep and change points, as members of its file. */
static bs_status history_signals(bs__buf *b, const bs_history_case *hc) {
  const bs_history_creep *cr = &hc->creep;
  int scan = cr->has_scan && cr->since < hc->nentries;
  bs__buf_printf(b, ", \"creeping\": %s, \"creep_pct\": ",
                 cr->creeping ? "true" : "false");
  /* The scan's stretch; a model without one (fewer than two links) has
   * at most the product along the chain. */
  if (scan)
    put_num(b, cr->scan_pct);
  else
    put_opt(b, cr->has_chain, cr->creep_pct);
  bs__buf_puts(b, ", \"creep_interval_pct\": ");
  if (scan) {
    bs__buf_putc(b, '[');
    put_num(b, cr->scan_lo_pct);
    bs__buf_puts(b, ", ");
    put_num(b, cr->scan_hi_pct);
    bs__buf_putc(b, ']');
  } else {
    bs__buf_puts(b, "null");
  }
  bs__buf_puts(b, ", \"creep_z\": ");
  put_opt(b, scan, cr->z);
  if (scan)
    bs__buf_printf(b, ", \"creep_links\": %zu, \"creep_since\": %zu",
                   cr->scan_links, hc->entries[cr->since].run);
  else if (cr->has_chain)
    bs__buf_printf(b, ", \"creep_links\": %zu, \"creep_since\": null",
                   cr->links);
  else
    bs__buf_puts(b, ", \"creep_links\": null, \"creep_since\": null");
  bs__buf_puts(b, ", \"change_points\": [");
  for (size_t k = 0, n = 0; k < hc->nsteps; k++) {
    const bs_history_step *sp = &hc->steps[k];
    if (sp->entry >= hc->nentries)
      continue;
    bs__buf_printf(b, "%s{\"run\": %zu, \"before\": ", n++ ? ", " : "",
                   hc->entries[sp->entry].run);
    put_num(b, sp->before);
    bs__buf_puts(b, ", \"after\": ");
    put_num(b, sp->after);
    bs__buf_puts(b, ", \"size_pct\": ");
    put_num(b, sp->size_pct);
    bs__buf_puts(b, ", \"p_value\": ");
    put_num(b, sp->p_value);
    bs__buf_printf(b, ", \"significant\": %s, \"acknowledged\": %s}",
                   sp->significant ? "true" : "false",
                   sp->acknowledged ? "true" : "false");
  }
  return bs__buf_putc(b, ']');
}

bs_status bs__site_history_json(site *s, size_t c, bs_error *err) {
  const bs_history_case *hc = &s->h->cases[c];
  const char *id = s->cases[c].id;
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  char file[BS__SITE_CASE_ID + 48];
  size_t older = s->cases[c].first_shown;
  size_t nchunks = (older + CHUNK_RUNS - 1) / CHUNK_RUNS;
  bs_status st = history_chunks(s, c, nchunks, &b, err);
  if (st)
    goto done;
  b.len = 0;
  bs__buf_puts(&b, "{\"schema\": \"benchsite.history/2\", "
                   "\"benchmark\": ");
  bs__json_string(&b, hc->benchmark);
  bs__buf_puts(&b, ", \"dataset\": ");
  bs__json_string(&b, hc->dataset);
  double scale = file_scale(hc, older, hc->nentries);
  bs__buf_puts(&b, ", \"scale\": ");
  put_opt(&b, scale > 0, scale);
  bs__buf_puts(&b, ", \"metric\": ");
  bs__json_string(&b, mi ? mi->name : "");
  bs__buf_puts(&b, ", \"unit\": ");
  bs__json_string(&b, mi ? mi->unit : "");
  bs__buf_puts(&b, ", \"runs_file\": \"runs.json\", \"older\": [");
  for (size_t k = 0; k < nchunks; k++)
    bs__buf_printf(&b, "%s\"%s-%zu.json\"", k ? ", " : "", id, k);
  bs__buf_putc(&b, ']');
  history_signals(&b, hc);
  bs__buf_printf(&b, ", \"fields\": %s, ", fields_json);
  snprintf(file, sizeof file, "history/%s.json", id);
  /* Listed with the key of its entries, by which the next build knows
   * which of its lines it can take as they are. */
  char key[BS__SHA256_HEXLEN + 1];
  size_t head = b.len;
  int reused = 0;
  entries_key(s, c, older, hc->nentries, key);
  st = bs__buf_puts(&b, "\"runs\": [");
  /* reuse_entries reads the published file and reports its own errors */
  if (!st &&
      (st = reuse_entries(s, c, file, older, hc->nentries, &b, &reused, err)))
    goto done;
  if (!reused) {
    b.len = head;
    json_entries(&b, s, c, older, hc->nentries);
  }
  st = bs__buf_status(&b);
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs__site_emit(s, file, b.data, b.len, RANK_LEAF, key, err);
done:
  bs__buf_release(&b);
  return st;
}

bs_status bs__site_runs_json(site *s, bs_error *err) {
  const bs_history *h = s->h;
  const bs_metric_info *mi = bs_metric_get(s->o->metric);
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  bs__buf_puts(&b, "{\"schema\": \"benchsite.runs/2\", \"fields\": "
                   "[\"id\", \"commit\", \"baseline_commit\", \"date\", "
                   "\"group\", \"metric\"], \"runs\": [");
  for (size_t i = 0; i < h->nruns; i++) {
    const bs_history_run *r = &h->runs[i];
    bs__buf_puts(&b, i ? ",\n[" : "\n[");
    bs__json_string(&b, r->id);
    bs__buf_putc(&b, ',');
    bs__json_string(&b, r->commit ? r->commit : "");
    bs__buf_putc(&b, ',');
    if (r->baseline_commit)
      bs__json_string(&b, r->baseline_commit);
    else
      bs__buf_puts(&b, "null");
    bs__buf_putc(&b, ',');
    bs__json_string(&b, r->date ? r->date : "");
    bs__buf_printf(&b, ",%zu,", r->group + 1);
    /* null: the run did not record the metric (bs_history_run). */
    if (r->no_metric)
      bs__buf_puts(&b, "null");
    else
      bs__json_string(&b, mi ? mi->name : "");
    bs__buf_putc(&b, ']');
  }
  bs_status st = bs__buf_puts(&b, "]}\n");
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs__site_emit(s, "history/runs.json", b.data, b.len, RANK_LEAF, NULL,
                       err);
  bs__buf_release(&b);
  return st;
}

/* ---- Reading back ---------------------------------------------------------
 * The files were written by this program and their bytes are the ones
 * the state lists, so anything unexpected means the cache is not usable
 * for the runs concerned: they are analysed again. The reader is strict
 * all the same (bs__json_parse_filtered), and never trusts a number. */

typedef struct ids_reader {
  char **ids;
  unsigned char *nometric;
  size_t n, cap, fcap;
} ids_reader;

static bs_status runs_item(void *ctx, const bs__jvalue *v, bs_error *err) {
  ids_reader *rd = ctx;
  if (v->type != BS__JARRAY || v->n != 6 || v->items[0].type != BS__JSTRING ||
      (v->items[5].type != BS__JSTRING && v->items[5].type != BS__JNULL))
    return bs_error_set(err, BS_EINPUT, NULL, 0, "not a run");
  if (rd->n == rd->cap) {
    char **g = BS__GROW(rd->ids, rd->cap, rd->n + 1, 256);
    if (!g)
      return bs__oom(err);
    rd->ids = g;
  }
  unsigned char *f = BS__GROW(rd->nometric, rd->fcap, rd->n + 1, 256);
  if (!f)
    return bs__oom(err);
  rd->nometric = f;
  if (!(rd->ids[rd->n] = bs__strdup(v->items[0].string)))
    return bs__oom(err);
  rd->nometric[rd->n] = v->items[5].type == BS__JNULL;
  rd->n++;
  return BS_OK;
}

int bs__site_read_runs(const char *text, size_t len, char ***ids,
                       unsigned char **nometric, size_t *n) {
  static const bs__jfilter item = {NULL, NULL, NULL, 0, runs_item};
  static const char *const keys[] = {"schema", "runs", NULL};
  static const bs__jfilter *const members[] = {NULL, &item};
  static const bs__jfilter top = {keys, members, NULL, 0, NULL};
  ids_reader rd = {NULL, NULL, 0, 0, 0};
  bs__jvalue *v = NULL;
  bs_error ign;
  *ids = NULL;
  *nometric = NULL;
  *n = 0;
  int ok = bs__json_parse_filtered("runs.json", text, len, &top, &rd, 0, &v,
                                   &ign) == BS_OK;
  const bs__jvalue *schema = ok ? bs__json_member(v, "schema") : NULL;
  ok = ok && schema && schema->type == BS__JSTRING &&
       !strcmp(schema->string, "benchsite.runs/2") &&
       bs__json_member(v, "runs");
  bs__json_free(v);
  if (!ok) {
    bs__strlist_free(rd.ids, rd.n);
    free(rd.nometric);
    return 0;
  }
  *ids = rd.ids;
  *nometric = rd.nometric;
  *n = rd.n;
  return 1;
}

/* One run's line of a history file, read. */
typedef struct read_entry {
  size_t run;
  bs_history_result r;
  int has_own_scale;
} read_entry;

typedef struct history_reader {
  read_entry *e;
  size_t n, cap;
  size_t nids;
} history_reader;

/* Whether v is a number that is a whole count (as json_entry writes
 * one). */
static int get_count(const bs__jvalue *v, size_t *out) {
  if (v->type != BS__JNUMBER || !(v->number >= 0) ||
      v->number > 9007199254740992.0 || v->number != bs__floor(v->number))
    return 0;
  *out = (size_t)v->number;
  return 1;
}

static int get_opt(const bs__jvalue *v, int has, double *out) {
  if (!has)
    return v->type == BS__JNULL;
  if (v->type != BS__JNUMBER)
    return 0;
  *out = v->number;
  return 1;
}

static bs_status history_item(void *ctx, const bs__jvalue *v, bs_error *err) {
  history_reader *rd = ctx;
  if (v->type != BS__JARRAY || (v->n != NFIELDS && v->n != NFIELDS + 1))
    return bs_error_set(err, BS_EINPUT, NULL, 0, "not a run");
  const bs__jvalue *it = v->items;
  if (rd->n == rd->cap) {
    read_entry *g = BS__GROW(rd->e, rd->cap, rd->n + 1, 64);
    if (!g)
      return bs__oom(err);
    rd->e = g;
  }
  read_entry *e = &rd->e[rd->n];
  memset(e, 0, sizeof *e);
  bs_history_result *r = &e->r;
  size_t flags, chain;
  double idx;
  if (!get_count(&it[0], &e->run) || e->run >= rd->nids ||
      !get_count(&it[1], &r->n) || !get_count(&it[5], &flags) || flags > 63)
    return BS_EINPUT;
  unsigned verdict = (unsigned)flags >> FLAG_VERDICT_SHIFT;
  r->has_median = it[2].type != BS__JNULL;
  r->has_cmp = verdict != 0;
  int link = it[10].type != BS__JNULL;
  if ((!r->has_median && r->n) || (r->has_median && !r->n) ||
      !get_opt(&it[2], r->has_median, &r->median) ||
      !get_opt(&it[3], r->has_median, &r->lo) ||
      !get_opt(&it[4], r->has_median, &r->hi) ||
      (r->has_cmp ? !get_count(&it[6], &r->blocks) : it[6].type != BS__JNULL) ||
      !get_opt(&it[7], r->has_cmp, &r->delta_pct) ||
      !get_opt(&it[8], r->has_cmp, &r->delta_lo_pct) ||
      !get_opt(&it[9], r->has_cmp, &r->delta_hi_pct) ||
      (link && (!r->has_cmp || !get_count(&it[10], &chain))) ||
      !get_opt(&it[11], link, &idx) ||
      (!r->has_cmp &&
       (flags & (FLAG_REGRESSION | FLAG_IMPROVEMENT | FLAG_INCONCLUSIVE))))
    return BS_EINPUT;
  r->verdict = r->has_cmp ? (int)verdict - 1 : -1;
  r->significant_regression = (flags & FLAG_REGRESSION) != 0;
  r->significant_improvement = (flags & FLAG_IMPROVEMENT) != 0;
  r->inconclusive = (flags & FLAG_INCONCLUSIVE) != 0;
  if (v->n == NFIELDS + 1) {
    double sc = 0;
    e->has_own_scale = 1;
    if (it[12].type != BS__JNULL && (!get_opt(&it[12], 1, &sc) || !(sc > 0)))
      return bs_error_set(err, BS_EINPUT, NULL, 0, "not a run");
    r->has_scale = sc > 0;
    r->scale = sc;
  }
  rd->n++;
  return BS_OK;
}

int bs__site_read_history(site *s, const char *name, const char *text,
                          size_t len, char *const *ids, size_t nids,
                          size_t *last) {
  static const bs__jfilter item = {NULL, NULL, NULL, 0, history_item};
  static const char *const keys[] = {"schema", "benchmark", "dataset",
                                     "scale",  "runs",      NULL};
  static const bs__jfilter *const members[] = {NULL, NULL, NULL, NULL, &item};
  static const bs__jfilter top = {keys, members, NULL, 0, NULL};
  history_reader rd = {NULL, 0, 0, nids};
  bs__jvalue *v = NULL;
  bs_error ign;
  int ok =
      bs__json_parse_filtered(name, text, len, &top, &rd, 0, &v, &ign) == BS_OK;
  const bs__jvalue *schema = ok ? bs__json_member(v, "schema") : NULL,
                   *bench = ok ? bs__json_member(v, "benchmark") : NULL,
                   *data = ok ? bs__json_member(v, "dataset") : NULL,
                   *scale = ok ? bs__json_member(v, "scale") : NULL;
  /* history/ID.json or history/ID-K.json, of the case it names. */
  int chunk = 0;
  ok = ok && schema && bench && data && scale && bs__json_member(v, "runs") &&
       schema->type == BS__JSTRING && bench->type == BS__JSTRING &&
       data->type == BS__JSTRING && bench->len == strlen(bench->string) &&
       data->len == strlen(data->string) &&
       (scale->type == BS__JNULL ||
        (scale->type == BS__JNUMBER && scale->number > 0));
  if (ok) {
    chunk = !strcmp(schema->string, "benchsite.history-chunk/2");
    ok = chunk || !strcmp(schema->string, "benchsite.history/2");
  }
  if (ok) {
    char id[BS__SITE_CASE_ID];
    bs__site_case_id(bench->string, data->string, id);
    size_t il = strlen(id);
    const char *tail =
        !strncmp(name, "history/", 8) && !strncmp(name + 8, id, il)
            ? name + 8 + il
            : "";
    if (chunk) {
      size_t d = *tail == '-' ? strspn(tail + 1, "0123456789") : 0;
      ok = d > 0 && !strcmp(tail + 1 + d, ".json");
    } else {
      ok = !strcmp(tail, ".json");
    }
  }
  /* Runs in date order: numbers rising, within the file and from the
   * case's file before it. */
  for (size_t i = 0; i < rd.n && ok; i++) {
    ok = (*last == SIZE_MAX || rd.e[i].run > *last);
    *last = rd.e[i].run;
  }
  double fs = ok && scale->type == BS__JNUMBER ? scale->number : 0.0;
  for (size_t i = 0; i < rd.n && ok; i++) {
    read_entry *e = &rd.e[i];
    prev_run *p = bs__site_find_prev(s, ids[e->run]);
    if (!p)
      continue; /* not a run of the state: its results are not wanted */
    if (!e->has_own_scale) {
      e->r.has_scale = fs > 0;
      e->r.scale = fs;
    }
    if (p->nres == p->cap) {
      bs_history_result *g = BS__GROW(p->res, p->cap, p->nres + 1, 8);
      if (!g) {
        ok = 0;
        break;
      }
      p->res = g;
    }
    bs_history_result *r = &p->res[p->nres];
    *r = e->r;
    r->benchmark = bs__strdup(bench->string);
    r->dataset = bs__strdup(data->string);
    p->nres++;
    ok = r->benchmark && r->dataset;
  }
  free(rd.e);
  bs__json_free(v);
  return ok;
}

static void drop_results(prev_run *p) {
  bs_history_results_free(p->res, p->nres);
  p->res = NULL;
  p->nres = p->cap = 0;
}

static int cmp_result_case(const void *a, const void *b) {
  const bs_history_result *x = a, *y = b;
  int c = strcmp(x->benchmark, y->benchmark);
  return c ? c : strcmp(x->dataset, y->dataset);
}

void bs__site_load_history(site *s) {
  if (!s->nprev || strcmp(s->prev_analysis_key, s->analysis_key))
    return;
  char *text = NULL, **ids = NULL;
  unsigned char *nometric = NULL;
  size_t len = 0, nids = 0;
  if (!read_listed(s, bs__site_find_pfile(s, "history/runs.json"), &text,
                   &len) ||
      !bs__site_read_runs(text, len, &ids, &nometric, &nids)) {
    free(text);
    return;
  }
  free(text);
  for (size_t i = 0; i < nids; i++) {
    prev_run *p = bs__site_find_prev(s, ids[i]);
    if (p)
      p->no_metric = nometric[i];
  }
  free(nometric);
  /* Each case's files: its chunks, then its newest runs. A file that is
   * not as listed, or a case whose files do not read back, leaves its
   * runs short of results. The state lists names sorted; a case's chunk
   * K sorts by the text of K, so chunks are taken by number. */
  for (size_t f = 0; f < s->npfiles; f++) {
    const char *name = s->pfiles[f].name;
    size_t nl = strlen(name);
    if (strncmp(name, "history/", 8) || !strcmp(name, "history/runs.json") ||
        nl < 14 || !bs__site_file_name(name))
      continue;
    /* The newest file, history/ID.json, is the one whose chunks are
     * history/ID-0.json, ... up to the first that is not listed. */
    char chunk[BS__SITE_CASE_ID + 48];
    const char *stem = name + 8;
    size_t sl = nl - 8 - 5;
    if (sl + 1 >= BS__SITE_CASE_ID || sl <= BS__SITE_CASE_HASH ||
        stem[sl - BS__SITE_CASE_HASH - 1] != '-' ||
        strspn(stem + sl - BS__SITE_CASE_HASH, "0123456789abcdef") <
            BS__SITE_CASE_HASH)
      continue; /* a chunk: read with its case */
    size_t last = SIZE_MAX;
    int ok = 1;
    for (size_t k = 0; ok; k++) {
      snprintf(chunk, sizeof chunk, "history/%.*s-%zu.json", (int)sl, stem, k);
      prev_file *pf = bs__site_find_pfile(s, chunk);
      if (!pf)
        break;
      ok = read_listed(s, pf, &text, &len) &&
           bs__site_read_history(s, chunk, text, len, ids, nids, &last);
      free(text);
    }
    if (ok && read_listed(s, &s->pfiles[f], &text, &len)) {
      bs__site_read_history(s, name, text, len, ids, nids, &last);
      free(text);
    }
  }
  bs__strlist_free(ids, nids);
  /* A run keeps its results only when every one is there, each case
   * once. */
  for (size_t i = 0; i < s->nprev; i++) {
    prev_run *p = &s->prev[i];
    int ok = p->nres == p->listed;
    if (ok && p->nres > 1) {
      qsort(p->res, p->nres, sizeof *p->res, cmp_result_case);
      for (size_t k = 1; k < p->nres && ok; k++)
        ok = cmp_result_case(&p->res[k - 1], &p->res[k]) != 0;
    }
    if (!ok)
      drop_results(p);
    p->results_ok = ok;
  }
}
