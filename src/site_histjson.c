/* A case's history data: history/case-ID.json holds its newest
 * SHOWN_RUNS runs, history/case-ID-K.json the older ones, CHUNK_RUNS each
 * counted from the oldest (a full chunk never changes). One run a line,
 * so that a build that adds a run reuses the published lines. */
#include "site_int.h"

#include "jsonw.h"
#include "oom.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHUNK_RUNS 1000 /* runs per history chunk file */

/* One run of a case's history JSON, on one line, without the spaces the
 * other JSON outputs put after ":" and "," (it is most of the site that
 * grows with the archive). */
static bs_status json_entry(bs__buf *b, const site *s,
                            const bs_history_entry *e) {
  const bs_history_run *r = &s->h->runs[e->run];
  const bs_history_result *res = e->result;
  bs_status st = bs__buf_puts(b, "{\"id\":");
  if (!st)
    st = bs__json_string(b, r->id);
  if (!st)
    st = bs__buf_puts(b, ",\"commit\":");
  if (!st)
    st = bs__json_string(b, r->commit);
  if (!st)
    st = bs__buf_puts(b, ",\"baseline_commit\":");
  if (!st)
    st = r->baseline_commit ? bs__json_string(b, r->baseline_commit)
                            : bs__buf_puts(b, "null");
  if (!st)
    st = bs__buf_puts(b, ",\"date\":");
  if (!st)
    st = bs__json_string(b, r->date);
  if (!st)
    st = bs__buf_printf(b, ",\"group\":%zu,\"median_us\":", r->group + 1);
  if (!st)
    st = bs__json_number(b, res->has_median ? res->median : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"ci_low_us\":");
  if (!st)
    st = bs__json_number(b, res->has_median ? res->lo : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"ci_high_us\":");
  if (!st)
    st = bs__json_number(b, res->has_median ? res->hi : (double)NAN);
  if (!st)
    st = bs__buf_puts(b, ",\"delta_pct\":");
  if (!st)
    st = bs__json_number(b, res->has_cmp ? res->delta_pct : (double)NAN);
  if (!st)
    st = bs__buf_printf(b, ",\"significant_regression\":%s,\"chain\":",
                        res->has_cmp && res->significant_regression ? "true"
                                                                    : "false");
  if (!st)
    st = e->link ? bs__buf_printf(b, "%zu", e->chain) : bs__buf_puts(b, "null");
  if (!st)
    st = bs__buf_puts(b, ",\"chained_index\":");
  if (!st)
    st = bs__json_number(b, e->link ? e->chained_index : (double)NAN);
  if (!st)
    st = bs__buf_putc(b, '}');
  return st;
}

/* Entries [from, to) of case c as the lines of a "runs" array. */
static bs_status json_entries(bs__buf *b, const site *s, size_t c, size_t from,
                              size_t to) {
  const bs_history_case *hc = &s->h->cases[c];
  bs_status st = bs__buf_puts(b, "\"runs\": [");
  for (size_t i = from; i < to && !st; i++) {
    st = bs__buf_puts(b, i > from ? ",\n" : "\n");
    if (!st)
      st = json_entry(b, s, &hc->entries[i]);
  }
  if (!st)
    st = bs__buf_puts(b, "]}\n");
  return st;
}

/* What entries [from, to) of case c's history JSON are made from. */
static void entries_key(const site *s, size_t c, size_t from, size_t to,
                        char out[BS__SHA256_HEXLEN + 1]) {
  const bs_history_case *hc = &s->h->cases[c];
  bs__sha256 h;
  bs__sha256_init(&h);
  bs__site_fp_str(&h, "history points");
  bs__site_fp_str(&h, s->report_key);
  bs__site_fp_str(&h, s->cases[c].id);
  bs__site_fp_size(&h, from);
  bs__site_fp_size(&h, to);
  for (size_t i = from; i < to; i++) {
    const bs_history_entry *e = &hc->entries[i];
    const bs_history_result *r = e->result;
    bs__site_fp_str(&h, s->h->runs[e->run].id);
    bs__site_fp_size(&h, s->h->runs[e->run].group);
    bs__site_fp_size(&h, (size_t)r->has_median * 8 + (size_t)r->has_cmp * 4 +
                             (size_t)r->significant_regression * 2 +
                             (size_t)e->link);
    bs__site_fp_num(&h, r->median);
    bs__site_fp_num(&h, r->lo);
    bs__site_fp_num(&h, r->hi);
    bs__site_fp_num(&h, r->delta_pct);
    bs__site_fp_size(&h, e->chain);
    bs__site_fp_num(&h, e->chained_index);
  }
  bs__site_fp_end(&h, out);
}

/* The published history JSON `file` into *old (malloc'ed, or NULL), and
 * whether its bytes are the ones the state lists (pf) and end as
 * json_entries ends them. */
static int read_published_json(const site *s, const char *file,
                               const prev_file *pf, char **old, size_t *len) {
  char *path = bs__path_join(s->out, file);
  bs_error ign;
  int ok = path && bs__read_regular(path, BS__OPEN_NOFOLLOW, (size_t)1 << 30,
                                    old, len, &ign) == BS_OK;
  free(path);
  if (!ok)
    return 0;
  char hash[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(*old, *len, hash);
  return !strcmp(hash, pf->hash) && *len > 3 &&
         !memcmp(*old + *len - 3, "]}\n", 3);
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
  prev_file *pf = bs__site_find_pfile(s, file);
  char before[BS__SHA256_HEXLEN + 1];
  if (!pf || !strcmp(pf->hash, "-"))
    return BS_OK;
  entries_key(s, c, from, to - 1, before);
  if (strcmp(pf->key, before))
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, file, pf, &old, &len);
  bs_status st = BS_OK;
  if (ok) {
    b->len = 0;
    st = bs__buf_append(b, old, len - 3);
    if (!st)
      st = bs__buf_puts(b, ",\n");
    if (!st)
      st = json_entry(b, s, &s->h->cases[c].entries[to - 1]);
    if (!st)
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

/* The lines of entries [from, to) of case c's history JSON after its
 * header (in b, ending in "\"runs\": [") when the published file holds
 * entries [a, b) made from the same inputs with a <= from <= a + 1 and
 * to - 1 <= b <= to (the same runs, or the window moved on by the one new
 * run): its lines for those, unformatted, and json_entry for the rest.
 * *done is 0 when the published file is anything else. */
static bs_status reuse_entries(site *s, size_t c, const char *file, size_t from,
                               size_t to, bs__buf *b, int *done,
                               bs_error *err) {
  *done = 0;
  prev_file *pf = bs__site_find_pfile(s, file);
  if (!pf || !strcmp(pf->hash, "-") || to <= from)
    return BS_OK;
  size_t a = 0, e = 0;
  int found = 0;
  for (int k = 0; k < 3 && !found; k++) {
    /* The same range first: what a build with nothing new finds. */
    a = k == 1 && from > 0 ? from - 1 : from;
    e = k == 0 ? to : to - 1;
    if ((k == 1 && from == 0) || e <= a)
      continue;
    char key[BS__SHA256_HEXLEN + 1];
    entries_key(s, c, a, e, key);
    found = !strcmp(key, pf->key);
  }
  if (!found)
    return BS_OK;
  char *old = NULL;
  size_t len = 0;
  int ok = read_published_json(s, file, pf, &old, &len);
  /* Its lines: the header, then one entry a line (JSON strings hold no
   * raw newline), each but the last ending in ",", the last in "]}". */
  const char *p = ok ? memchr(old, '\n', len) : NULL;
  const char *end = old + len;
  size_t i = a;
  bs_status st = BS_OK;
  size_t start = b->len;
  while (p && p + 1 < end && !st) {
    const char *line = p + 1;
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    if (!nl)
      break;
    size_t n = (size_t)(nl - line);
    int last = nl + 1 == end;
    if (n < (last ? 2u : 1u) || line[n - (last ? 2 : 1)] != (last ? ']' : ','))
      break;
    if (i >= from) {
      st = bs__buf_puts(b, i > from ? ",\n" : "\n");
      if (!st)
        st = bs__buf_append(b, line, n - (last ? 2 : 1));
    }
    i++;
    p = nl;
    if (last)
      break;
  }
  ok = ok && !st && i == e && p && p + 1 == end;
  for (; ok && i < to && !st; i++) {
    st = bs__buf_puts(b, i > from ? ",\n" : "\n");
    if (!st)
      st = json_entry(b, s, &s->h->cases[c].entries[i]);
  }
  if (ok && !st)
    st = bs__buf_puts(b, "]}\n");
  free(old);
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
    char key[BS__SHA256_HEXLEN + 1], file[96];
    int kept;
    snprintf(file, sizeof file, "history/case-%s-%zu.json", id, k);
    entries_key(s, c, from, to, key);
    if ((st = bs__site_keep_keyed(s, file, key, &kept, err)) ||
        (!kept &&
         (st = append_chunk(s, c, file, from, to, key, b, &kept, err))))
      break;
    if (kept)
      continue;
    b->len = 0;
    st = bs__buf_puts(b, "{\"schema\": \"benchsite.history-chunk/1\", ");
    if (!st)
      st = json_entries(b, s, c, from, to);
    if (st)
      st = bs__oom_as(err, st);
    else
      st = bs__site_emit(s, file, b->data, b->len, RANK_LEAF, key, err);
  }
  return st;
}

bs_status bs__site_history_json(site *s, size_t c, bs_error *err) {
  const bs_history_case *hc = &s->h->cases[c];
  const char *id = s->cases[c].id;
  bs__buf b;
  bs__buf_init(&b, BS__CAP_JSON);
  char file[96];
  size_t older = s->cases[c].first_shown;
  size_t nchunks = (older + CHUNK_RUNS - 1) / CHUNK_RUNS;
  bs_status st = history_chunks(s, c, nchunks, &b, err);
  if (st)
    goto done;
  b.len = 0;
  st = bs__buf_puts(&b, "{\"schema\": \"benchsite.history/1\", "
                        "\"benchmark\": ");
  if (!st)
    st = bs__json_string(&b, hc->benchmark);
  if (!st)
    st = bs__buf_puts(&b, ", \"dataset\": ");
  if (!st)
    st = bs__json_string(&b, hc->dataset);
  if (!st)
    st = bs__buf_printf(&b, ", \"creeping\": %s, \"creep_pct\": ",
                        hc->creep.creeping ? "true" : "false");
  if (!st)
    st = bs__json_number(&b, hc->creep.has_chain ? hc->creep.creep_pct
                                                 : (double)NAN);
  if (!st)
    st = bs__buf_puts(&b, ", \"older\": [");
  for (size_t k = 0; k < nchunks && !st; k++)
    st = bs__buf_printf(&b, "%s\"case-%s-%zu.json\"", k ? ", " : "", id, k);
  if (!st)
    st = bs__buf_puts(&b, "], ");
  snprintf(file, sizeof file, "history/case-%s.json", id);
  /* Listed with the key of its entries, by which the next build knows
   * which of its lines it can take as they are. */
  char key[BS__SHA256_HEXLEN + 1];
  size_t head = b.len;
  int reused = 0;
  entries_key(s, c, older, hc->nentries, key);
  if (!st && (st = bs__buf_puts(&b, "\"runs\": [")) == BS_OK &&
      (st = reuse_entries(s, c, file, older, hc->nentries, &b, &reused, err)))
    goto done;
  if (!st && !reused) {
    b.len = head;
    st = json_entries(&b, s, c, older, hc->nentries);
  }
  if (st)
    st = bs__oom_as(err, st);
  else
    st = bs__site_emit(s, file, b.data, b.len, RANK_LEAF, key, err);
done:
  bs__buf_release(&b);
  return st;
}
