/* The log's interned names, its cases, the duplicate checks of confirm
 * rows, and the public case index (log_int.h has the tables). */
#include "log_int.h"

#include "benchsite/order.h"
#include "grow.h"
#include "hash.h"

#include <stdlib.h>
#include <string.h>

/* ---- interning, cases, duplicates ---- */

/* Returns the interned copy of s[0..n-1], or NULL with the reader failed
 * (out of memory or over the memory limit). */
const char *bs__log_intern(reader *r, const char *s, size_t n) {
  bs_log *log = r->log;
  if (n == 0)
    return "";
  if ((log->istr_n + 1) * 2 > log->istr_cap) {
    size_t cap = bs__grow_cap(log->istr_cap, log->istr_cap + 1, 256,
                              sizeof(intern_slot));
    if (!cap || !fits(log, cap * sizeof(intern_slot))) {
      fail_memory_limit(r, r->in.rec_line);
      return NULL;
    }
    bs__big mem = {0};
    if (bs__big_reserve(&mem, cap * sizeof(intern_slot), 1)) {
      fail_nomem(r);
      return NULL;
    }
    intern_slot *t = mem.p;
    for (size_t i = 0; i < log->istr_cap; i++) {
      intern_slot *e = &log->istr[i];
      if (!e->s)
        continue;
      size_t j = (size_t)e->hash & (cap - 1);
      while (t[j].s)
        j = (j + 1) & (cap - 1);
      t[j] = *e;
    }
    bs__big_release(&log->istr_mem);
    log->istr_mem = mem;
    log->istr = t;
    log->istr_cap = cap;
  }
  uint64_t h = bs__hash_bytes(log->seed, s, n);
  size_t mask = log->istr_cap - 1;
  size_t j = (size_t)h & mask;
  for (; log->istr[j].s; j = (j + 1) & mask) {
    intern_slot *e = &log->istr[j];
    if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
      return e->s;
  }
  if (!fits(log, n + 1 + sizeof(max_align_t))) {
    fail_memory_limit(r, r->in.rec_line);
    return NULL;
  }
  char *copy = bs__arena_strndup(&log->arena, s, n);
  if (!copy) {
    fail_nomem(r);
    return NULL;
  }
  log->istr[j].s = copy;
  log->istr[j].len = n;
  log->istr[j].hash = h;
  log->istr_n++;
  return copy;
}

static uint64_t case_hash(const bs_log *log, const char *b, const char *d) {
  return bs__mix64(
      ((uint64_t)(uintptr_t)b * 0x9E3779B97F4A7C15u ^ (uint64_t)(uintptr_t)d) +
      log->seed);
}

static void case_slot_insert(bs_log *log, size_t id) {
  const case_ent *c = &log->cases[id];
  size_t mask = log->cslot_cap - 1;
  size_t j = (size_t)case_hash(log, c->benchmark, c->dataset) & mask;
  while (log->cslot[j])
    j = (j + 1) & mask;
  log->cslot[j] = (uint32_t)(id + 1);
}

void bs__log_case_rehash(bs_log *log) {
  memset(log->cslot, 0, log->cslot_cap * sizeof *log->cslot);
  for (size_t i = 0; i < log->ncases; i++)
    case_slot_insert(log, i);
}

/* Returns the case id of (b, d), adding the case with `row` as its first
 * row when new (*added = 1). EMPTY with the reader failed when out of
 * memory or over the memory limit. */
size_t bs__log_case_get(reader *r, const char *b, const char *d, size_t row,
                        int *added) {
  bs_log *log = r->log;
  *added = 0;
  if (log->cslot_cap) {
    size_t mask = log->cslot_cap - 1;
    for (size_t j = (size_t)case_hash(log, b, d) & mask; log->cslot[j];
         j = (j + 1) & mask) {
      const case_ent *c = &log->cases[log->cslot[j] - 1];
      if (c->benchmark == b && c->dataset == d)
        return log->cslot[j] - 1;
    }
  }
  if (log->ncases >= CASES_MAX) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0, "more than %zu cases", CASES_MAX);
    return EMPTY;
  }
  if (log->ncases == log->cases_cap) {
    size_t cap =
        bs__grow_cap(log->cases_cap, log->ncases + 1, 64, sizeof(case_ent));
    if (!cap || !fits(log, (cap - log->cases_cap) * sizeof(case_ent))) {
      fail_memory_limit(r, r->in.rec_line);
      return EMPTY;
    }
    if (bs__big_reserve(&log->cases_mem, cap * sizeof(case_ent), 0)) {
      fail_nomem(r);
      return EMPTY;
    }
    log->cases = log->cases_mem.p;
    log->cases_cap = cap;
  }
  if ((log->ncases + 1) * 2 > log->cslot_cap) {
    size_t cap =
        bs__grow_cap(log->cslot_cap, log->cslot_cap + 1, 128, sizeof(uint32_t));
    if (!cap || !fits(log, cap * sizeof(uint32_t))) {
      fail_memory_limit(r, r->in.rec_line);
      return EMPTY;
    }
    bs__big mem = {0};
    if (bs__big_reserve(&mem, cap * sizeof(uint32_t), 1)) {
      fail_nomem(r);
      return EMPTY;
    }
    bs__big_release(&log->cslot_mem);
    log->cslot_mem = mem;
    log->cslot = mem.p;
    log->cslot_cap = cap;
    /* Fresh, so all free: no clearing. */
    for (size_t i = 0; i < log->ncases; i++)
      case_slot_insert(log, i);
  }
  size_t id = log->ncases++;
  case_ent *c = &log->cases[id];
  memset(c, 0, sizeof *c);
  c->benchmark = b;
  c->dataset = d;
  c->first_row = (uint32_t)row;
  case_slot_insert(log, id);
  *added = 1;
  return id;
}

static uint64_t dup_hash(const bs_log *log, const bs_row *r) {
  /* Two rounds: the second adds block and impl to a value the keyed first
   * round made unpredictable, so chosen runs and blocks cannot be lined
   * up to collide. */
  uint64_t h =
      bs__mix64(log->seed ^ (bs_row_run(log, r) * 0x9E3779B97F4A7C15u));
  return bs__mix64(h ^ (uint64_t)bs_row_block(log, r) ^
                   ((uint64_t)(uintptr_t)r->impl * 0xD6E8FEB86659FD93u));
}

static void dup_put(dup_slot *t, size_t cap, uint64_t h, size_t row) {
  size_t mask = cap - 1;
  size_t j = (size_t)h & mask;
  while (t[j].row1)
    j = (j + 1) & mask;
  t[j].row1 = (uint32_t)(row + 1);
  t[j].tag = (uint32_t)(h >> 32);
}

/* Whether confirm row q comes after p of the same case and impl in
 * (run, block) order. */
static int key_after(const bs_log *log, const bs_row *q, const bs_row *p) {
  if (!q->wide && !p->wide)
    return q->run32 != p->run32 ? q->run32 > p->run32 : q->block32 > p->block32;
  uint64_t qr = bs_row_run(log, q), pr = bs_row_run(log, p);
  return qr != pr ? qr > pr : bs_row_block(log, q) > bs_row_block(log, p);
}

/* Whether rows p and q have the same (run, block). */
static int same_key(const bs_log *log, const bs_row *p, const bs_row *q) {
  if (!q->wide && !p->wide)
    return p->run32 == q->run32 && p->block32 == q->block32;
  return bs_row_run(log, p) == bs_row_run(log, q) &&
         bs_row_block(log, p) == bs_row_block(log, q);
}

/* Refills the in-order state (case_ent.last, nrows) of every case from
 * rows [0, nrows) after the cases past ncases were dropped: used to
 * forget a failed read. With hashed, the cases' tables are refilled
 * instead; they only lose entries here, so this needs no allocation. */
void bs__log_cases_rebuild(bs_log *log, size_t nrows) {
  for (size_t i = 0; i < log->ncases; i++) {
    case_ent *c = &log->cases[i];
    if (c->dup_cap)
      memset(c->dup, 0, c->dup_cap * sizeof *c->dup);
    memset(c->last, 0, sizeof c->last);
    c->dup_n = 0;
    c->nrows = 0;
  }
  for (size_t i = 0; i < nrows; i++) {
    const bs_row *q = &log->rows[i];
    case_ent *c = &log->cases[q->cid];
    c->nrows++;
    if (q->phase != BS_PHASE_CONFIRM)
      continue;
    if (log->hashed) {
      dup_put(c->dup, c->dup_cap, dup_hash(log, q), i);
      c->dup_n++;
      continue;
    }
    /* The rows kept were in order: each impl has its slot. */
    for (int t = 0; t < NTRACK; t++) {
      if (!c->last[t] || log->rows[c->last[t] - 1].impl == q->impl) {
        c->last[t] = (uint32_t)(i + 1);
        break;
      }
    }
  }
}

/* Gives case c a table of cap slots (a power of two above twice its
 * entries), its entries moved over: 0, or -1 with the reader failed. */
static int dup_resize(reader *r, case_ent *c, size_t cap) {
  bs_log *log = r->log;
  if (cap > UINT32_MAX || !fits(log, cap * sizeof(dup_slot))) {
    fail_memory_limit(r, r->in.rec_line);
    return -1;
  }
  dup_slot *t = calloc(cap, sizeof *t);
  if (!t) {
    fail_nomem(r);
    return -1;
  }
  /* Rehash from the rows (recent, so cached): a slot keeps only half of
   * its hash. */
  for (size_t i = 0; i < c->dup_cap; i++) {
    if (c->dup[i].row1) {
      size_t o = c->dup[i].row1 - 1;
      dup_put(t, cap, dup_hash(log, &log->rows[o]), o);
    }
  }
  free(c->dup);
  log->dup_bytes += (cap - c->dup_cap) * sizeof(dup_slot);
  c->dup = t;
  c->dup_cap = (uint32_t)cap;
  return 0;
}

/* Leaves the in-order state for good: every case's confirm rows among
 * rows [0, nrows) go into its table. 0, or -1 with the reader failed (the
 * log then stays in order, as it was). */
static int go_hashed(reader *r, size_t nrows) {
  bs_log *log = r->log;
  /* Count first, so that each table is sized once. */
  for (size_t i = 0; i < nrows; i++)
    if (log->rows[i].phase == BS_PHASE_CONFIRM)
      log->cases[log->rows[i].cid].dup_n++;
  int failed = 0;
  for (size_t i = 0; i < log->ncases; i++) {
    case_ent *c = &log->cases[i];
    size_t n = c->dup_n, cap = 16;
    c->dup_n = 0;
    while (cap < 2 * (n + 1))
      cap *= 2;
    if (n && !failed)
      failed = dup_resize(r, c, cap);
  }
  if (failed) {
    for (size_t i = 0; i < log->ncases; i++) {
      case_ent *c = &log->cases[i];
      free(c->dup);
      log->dup_bytes -= c->dup_cap * sizeof(dup_slot);
      c->dup = NULL;
      c->dup_cap = 0;
    }
    return -1;
  }
  log->hashed = 1;
  for (size_t i = 0; i < nrows; i++) {
    const bs_row *q = &log->rows[i];
    if (q->phase != BS_PHASE_CONFIRM)
      continue;
    case_ent *c = &log->cases[q->cid];
    dup_put(c->dup, c->dup_cap, dup_hash(log, q), i);
    c->dup_n++;
  }
  return 0;
}

/* Looks up the confirm row `row` (already stored at log->rows[row]) in its
 * case's table; returns the id of an earlier row with the same key, or
 * EMPTY after inserting it. *failed is set (and the reader failed) when
 * the table could not grow. */
static size_t dup_check(reader *r, size_t row, int *failed) {
  bs_log *log = r->log;
  const bs_row *q = &log->rows[row];
  case_ent *c = &log->cases[q->cid];
  *failed = 0;
  if ((size_t)(c->dup_n + 1) * 2 > c->dup_cap &&
      dup_resize(r, c, c->dup_cap ? (size_t)c->dup_cap * 2 : 16)) {
    *failed = 1;
    return EMPTY;
  }
  uint64_t h = dup_hash(log, q);
  uint32_t tag = (uint32_t)(h >> 32);
  size_t mask = c->dup_cap - 1;
  size_t j = (size_t)h & mask;
  for (; c->dup[j].row1; j = (j + 1) & mask) {
    if (c->dup[j].tag != tag)
      continue;
    size_t o = c->dup[j].row1 - 1;
    const bs_row *p = &log->rows[o];
    if (p->impl == q->impl && same_key(log, p, q))
      return o;
  }
  c->dup[j].row1 = (uint32_t)(row + 1);
  c->dup[j].tag = tag;
  c->dup_n++;
  return EMPTY;
}

/* The duplicate check of confirm row `row` (stored at log->rows[row]):
 * the id of an earlier confirm row with the same (run, block, impl) in
 * its case, or EMPTY. Logs come in measurement order, where each impl's
 * confirm rows of a case have increasing (run, block): while every row
 * so far did, a row after its impl's latest one (or its impl's first)
 * cannot repeat a key, and no index is needed. The first row that does
 * not fit that (or a fifth impl in a case) moves the log to per-case
 * tables (go_hashed), which answer the same question for any order.
 * *failed as dup_check. */
size_t bs__log_track(reader *r, size_t row, int *failed) {
  bs_log *log = r->log;
  *failed = 0;
  if (!log->hashed) {
    const bs_row *q = &log->rows[row];
    case_ent *c = &log->cases[q->cid];
    for (int t = 0; t < NTRACK; t++) {
      if (!c->last[t]) {
        c->last[t] = (uint32_t)(row + 1);
        return EMPTY;
      }
      const bs_row *p = &log->rows[c->last[t] - 1];
      if (p->impl != q->impl)
        continue;
      if (!key_after(log, q, p))
        break;
      c->last[t] = (uint32_t)(row + 1);
      return EMPTY;
    }
    if (go_hashed(r, row)) {
      *failed = 1;
      return EMPTY;
    }
  }
  return dup_check(r, row, failed);
}

/* ---- the public case index ---- */

bs_status bs__log_rebuild_index(bs_log *log) {
  size_t nc = log->ncases, nr = log->nrows;
  /* The new index plus the sort's scratch, while the old index lives. */
  size_t need = nc * (sizeof(bs_case_key) + sizeof(size_t) + sizeof(uint32_t) +
                      sizeof(bs_case)) +
                nr * sizeof(uint32_t);
  if (!fits(log, need))
    return BS_ELIMIT;
  bs__big ord_mem = {0}, index_mem = {0}, mem = {0};
  uint32_t *rank = malloc((nc ? nc : 1) * sizeof *rank);
  size_t *next = malloc((nc ? nc : 1) * sizeof *next);
  if (!rank || !next ||
      bs__big_reserve(&ord_mem, (nc ? nc : 1) * sizeof(bs_case_key), 0) ||
      bs__big_reserve(&index_mem, (nc ? nc : 1) * sizeof(bs_case), 0))
    goto fail;
  bs_case_key *ord = ord_mem.p;
  bs_case *index = index_mem.p;
  /* The index is in case order, so every analysis of the log lists its
   * cases in the order the outputs show them. */
  for (size_t i = 0; i < nc; i++) {
    const case_ent *c = &log->cases[i];
    ord[i].benchmark = c->benchmark;
    ord[i].dataset = c->dataset;
    ord[i].has_scale = c->has_scale;
    ord[i].scale = c->has_scale ? c->scale : 0.0;
    ord[i].id = i;
  }
  bs_case_order(ord, nc);
  size_t at = 0;
  for (size_t i = 0; i < nc; i++) {
    const case_ent *c = &log->cases[ord[i].id];
    rank[ord[i].id] = (uint32_t)i;
    next[ord[i].id] = at;
    index[i].benchmark = c->benchmark;
    index[i].dataset = c->dataset;
    index[i].nrows = c->nrows;
    index[i].has_scale = c->has_scale;
    index[i].scale = c->has_scale ? c->scale : 0.0;
    index[i].looks = 0;
    at += c->nrows;
  }
  /* The sort's keys go before the row index comes: a lower peak. */
  bs__big_release(&ord_mem);
  if (bs__big_reserve(&mem, (nr ? nr : 1) * sizeof(uint32_t), 0))
    goto fail;
  uint32_t *rows = mem.p;
  for (size_t i = 0, ofs = 0; i < nc; ofs += index[i].nrows, i++)
    index[i].rows = rows + ofs;
  /* Each case's rows in read order, and its looks: one pass over the
   * rows. */
  for (size_t i = 0; i < nr; i++) {
    const bs_row *row = &log->rows[i];
    bs_case *c = &index[rank[row->cid]];
    rows[next[row->cid]++] = (uint32_t)i;
    if (row->look > c->looks)
      c->looks = row->look;
  }
  free(next);
  bs__big_release(&log->index_cases);
  free(log->case_pos);
  bs__big_release(&log->index_mem);
  log->index_cases = index_mem;
  log->index = index;
  log->case_pos = rank;
  log->index_mem = mem;
  log->index_rows = rows;
  log->nindex = nc;
  log->nindex_rows = nr;
  return BS_OK;
fail:
  bs__big_release(&ord_mem);
  bs__big_release(&index_mem);
  free(rank);
  free(next);
  bs__big_release(&mem);
  return BS_ENOMEM;
}

/* ---- Runs and blocks wider than 32 bits --------------------------------- */

/* The wide entry of row (which has one). */
static const wide_ent *wide_of(const bs_log *log, const bs_row *row) {
  size_t id = (size_t)(row - log->rows), lo = 0, hi = log->nwide;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (log->wide[mid].row <= id)
      lo = mid;
    else
      hi = mid;
  }
  return &log->wide[lo];
}

uint64_t bs_log_wide_run(const bs_log *log, const bs_row *row) {
  return row->wide ? wide_of(log, row)->run : row->run32;
}

int64_t bs_log_wide_block(const bs_log *log, const bs_row *row) {
  return row->wide ? wide_of(log, row)->block : row->block32;
}
