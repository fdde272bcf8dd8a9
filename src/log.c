#include "benchsite/log.h"

#include "arena.h"
#include "benchsite/order.h"
#include "bigmem.h"
#include "csvin.h"
#include "grow.h"
#include "hash.h"
#include "input_int.h"
#include "num.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns SPEC §1.1 knows, in the order their values are checked:
 * the case and its keys, then one column per metric, in the order of the
 * metric table (benchsite/metric.h), which names them. */
enum {
  COL_BENCHMARK,
  COL_DATASET,
  COL_SCALE,
  COL_IMPL,
  COL_RUN,
  COL_BLOCK,
  COL_PHASE,
  COL_ITERATIONS,
  COL_METRIC, /* the first metric column: COL_METRIC + m */
  NKNOWN = COL_METRIC + BS_METRIC_COUNT
};
#define COL_PER_CALL_US (COL_METRIC + BS_METRIC_WALL)

static const char *const key_names[COL_METRIC] = {
    "benchmark", "dataset", "scale", "impl",
    "run",       "block",   "phase", "iterations"};

static const char *col_name(int k) {
  return k < COL_METRIC ? key_names[k]
                        : bs_metric_get((bs_metric)(k - COL_METRIC))->column;
}

#define QBUF BS__QUOTE_BUF
/* Names remembered per column (impl ids alternate block by block). */
#define NRECENT 4
#define EMPTY SIZE_MAX
/* Row ids + 1 are stored in 32 bits (the case index, the duplicate
 * checks). */
#define ROWS_HARD_MAX ((size_t)UINT32_MAX - 1)
/* Case ids fill bs_row.cid. */
#define CASES_MAX (((size_t)1 << 27) - 1)
/* Impls per case whose confirm rows are followed in order (see track). */
#define NTRACK 4

_Static_assert(BS_METRIC_COUNT <= 3, "bs_row.metrics holds 3 bits");
_Static_assert(sizeof(bs_row) == 40, "a row stays compact");

typedef struct intern_slot {
  const char *s; /* NULL when free */
  size_t len;
  uint64_t hash;
} intern_slot;

/* 8 bytes a slot: the row id and 32 more bits of its hash, so most probes
 * never touch the rows. */
typedef struct dup_slot {
  uint32_t row1; /* the row id + 1; 0 when free (calloc'd tables) */
  uint32_t tag;
} dup_slot;

typedef struct case_ent {
  const char *benchmark; /* interned, so cases compare by pointer */
  const char *dataset;
  double scale; /* the first row's: every later row must repeat it */
  uint32_t first_row;
  uint32_t nrows;
  int has_scale;
  /* Duplicate confirm rows, while the log is in order (see track): for
   * up to NTRACK impls, the id + 1 of the impl's latest confirm row in
   * this case (0: free), whose (run, block) every earlier one is below. */
  uint32_t last[NTRACK];
  /* Once the log is out of order (bs_log.hashed), this case's confirm
   * rows keyed by (run, block, impl): one small table per case stays in
   * cache while the case's rows stream past. */
  dup_slot *dup;
  uint32_t dup_cap, dup_n;
} case_ent;

/* The run and block of a row whose values need more than 32 bits. */
typedef struct wide_ent {
  uint64_t run;
  int64_t block;
  size_t row;
} wide_ent;

/* The rows of one file are the ids from first_row up to the next file's. */
typedef struct file_ent {
  const char *name; /* arena copy */
  size_t first_row;
} file_ent;

struct bs_log {
  bs__arena arena;
  bs_log_limits limits;
  /* Keys every hash: from addresses (ASLR), so a log crafted to collide
   * in one run's tables does not collide in another's. It changes no
   * output: nothing is ever listed in hash order. */
  uint64_t seed;

  /* Rows in read order, and parallel to them the values of the other
   * metrics, each only once some file has its column. */
  bs__big rows_mem;
  bs_row *rows;
  bs__big values[BS_METRIC_COUNT]; /* [BS_METRIC_WALL] unused */
  size_t nrows, rows_cap;

  file_ent *files;
  size_t nfiles, files_cap;
  wide_ent *wide; /* in row order */
  size_t nwide, wide_cap;

  /* Interned benchmark, dataset and impl names: equal strings share a
   * pointer, so the tables below hash and compare pointers. */
  bs__big istr_mem;
  intern_slot *istr;
  size_t istr_cap, istr_n;

  /* Cases in first-seen order, found through an open-addressing index. */
  case_ent *cases;
  size_t ncases, cases_cap;
  bs__big cases_mem;
  bs__big cslot_mem;
  uint32_t *cslot; /* case id + 1; 0 when free */
  size_t cslot_cap;

  /* 0 while every case's confirm rows of each impl came in increasing
   * (run, block) order with at most NTRACK impls a case, which rules out
   * duplicates without an index; 1 from the first row that broke that,
   * when every case got a table of its confirm rows (case_ent.dup). */
  int hashed;
  size_t dup_bytes; /* the cases' duplicate tables */

  /* The public case index, rebuilt after every successful read; case_pos
   * maps a case id to its place in it. */
  bs__big index_cases;
  bs_case *index;
  size_t nindex;
  uint32_t *case_pos;
  bs__big index_mem;
  uint32_t *index_rows;
  size_t nindex_rows;

  bs_log_column *unknown;
  size_t nunknown, unknown_cap;

  /* Per metric, the first confirm row without a value (EMPTY: none), and
   * whether its file has no such column. A failed read forgets rows from
   * old_rows on, and with them any first row among them. */
  size_t lacking[BS_METRIC_COUNT];
  int lacking_column[BS_METRIC_COUNT];
};

/* ---- hashing ---- */

/* ---- memory accounting (bs_log_limits.max_memory_bytes) ---- */

/* Bytes a row takes: itself and its values of the other metrics. */
static size_t row_bytes(const bs_log *log) {
  size_t per = sizeof(bs_row);
  for (int m = 1; m < BS_METRIC_COUNT; m++)
    if (log->values[m].p)
      per += sizeof(double);
  return per;
}

static size_t footprint(const bs_log *log) {
  return log->rows_cap * row_bytes(log) + log->arena.total +
         log->istr_cap * sizeof(intern_slot) +
         log->cases_cap * sizeof(case_ent) + log->cslot_cap * sizeof(uint32_t) +
         log->files_cap * sizeof(file_ent) + log->wide_cap * sizeof(wide_ent) +
         log->dup_bytes + log->nindex * (sizeof(bs_case) + sizeof(uint32_t)) +
         log->nindex_rows * sizeof(uint32_t) +
         log->unknown_cap * sizeof(bs_log_column);
}

/* Whether `extra` more bytes fit the memory limit. */
static int fits(const bs_log *log, size_t extra) {
  size_t now = footprint(log), max = log->limits.max_memory_bytes;
  return now <= max && extra <= max - now;
}

/* ---- the reader's state ---- */

typedef struct span {
  size_t ofs, len;
} span;

typedef struct reader {
  bs__csvin in; /* the feed; in.status is the reader's status */
  bs_log *log;
  const char *file; /* arena copy of the name, for rows */
  int have_header;
  size_t nfields; /* fields of the current record so far */
  size_t ncols;
  const char **colname; /* header names, ncols of them */
  int *colkind;         /* known column id of each header field, or -1 */
  long colof[NKNOWN];   /* header position of each known column, -1 */
  char *rec;            /* copies of fields, each NUL-ended */
  size_t rec_len, rec_cap;
  span *hdr; /* the header record: every field, in rec */
  size_t hdr_cap;
  /* The current data record, parsed as its fields arrive (libcsv reuses
   * its buffer). A value is copied to rec only when a message may quote
   * it: when it is bad, and the scale (for a conflict). */
  size_t vlen[NKNOWN];
  size_t vraw[NKNOWN]; /* offset of the copy in rec, or EMPTY */
  const char *vstr[NKNOWN];
  double vnum[NKNOWN];
  uint64_t vint[NKNOWN];
  bs__num vst[NKNOWN];
  bs_phase phase;
  int phase_ok;
  size_t max_field, max_cols, max_rows, max_case_rows;
  /* Logs repeat names row after row: the last few interned names of each
   * column and the previous row's case are tried before hashing. */
  const char *last[NKNOWN][NRECENT];
  size_t last_len[NKNOWN][NRECENT];
  unsigned last_next[NKNOWN];
  const char *last_b, *last_d;
  size_t last_case;
} reader;

/* on_field gets the feed from libcsv and converts it to its reader. */
_Static_assert(offsetof(reader, in) == 0, "the feed is the reader's start");

#define FAIL(r, st, line, col, ...)                                            \
  bs__csvin_fail(&(r)->in, (st), (line), (col), __VA_ARGS__)

static void fail_nomem(reader *r) {
  FAIL(r, BS_ENOMEM, r->in.rec_line, 0, "out of memory");
}

static void fail_memory_limit(reader *r, long line) {
  FAIL(r, BS_ELIMIT, line, 0, "the log needs more than %zu bytes of memory",
       r->log->limits.max_memory_bytes);
}

/* ---- interning, cases, duplicates ---- */

/* Returns the interned copy of s[0..n-1], or NULL with the reader failed
 * (out of memory or over the memory limit). */
static const char *intern(reader *r, const char *s, size_t n) {
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

static void case_rehash(bs_log *log) {
  memset(log->cslot, 0, log->cslot_cap * sizeof *log->cslot);
  for (size_t i = 0; i < log->ncases; i++)
    case_slot_insert(log, i);
}

/* Returns the case id of (b, d), adding the case with `row` as its first
 * row when new (*added = 1). EMPTY with the reader failed when out of
 * memory or over the memory limit. */
static size_t case_get(reader *r, const char *b, const char *d, size_t row,
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
static void cases_rebuild(bs_log *log, size_t nrows) {
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
static size_t track(reader *r, size_t row, int *failed) {
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

/* ---- messages ---- */

/* Shortest "%.*g" that reads back as the same double. */
static const char *fmt_num(char *out, size_t size, double v) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, v);
    if (strtod(out, NULL) == v)
      break;
  }
  return out;
}

/* "column NAME" for messages, or "header field N" while reading the header. */
static const char *column_label(reader *r, size_t idx, char *out) {
  if (!r->have_header) {
    snprintf(out, QBUF, "header field %zu", idx + 1);
    return out;
  }
  const char *name = r->colname[idx];
  char esc[QBUF];
  if (!*name)
    snprintf(out, QBUF, "column %zu (no name)", idx + 1);
  else
    snprintf(out, QBUF, "column %s",
             bs__csvin_quote(esc, name, strlen(name), 0));
  return out;
}

/* ---- fields and records ---- */

/* Refuses a NUL byte or invalid UTF-8 in field idx. Returns 0 when fine. */
static int check_bytes(reader *r, size_t idx, const char *f, size_t len) {
  const unsigned char *u = (const unsigned char *)f;
  size_t i = 0;
  /* The common case, ASCII without NUL, eight bytes at a time: a byte is
   * 0 or >= 0x80 exactly when (x - 1) or x has its top bit set there. */
  const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
  for (; i + 8 <= len; i += 8) {
    uint64_t x;
    memcpy(&x, u + i, 8);
    if (((x - ones) | x) & highs)
      break;
  }
  while (i < len && (unsigned char)(u[i] - 1) < 0x7F)
    i++;
  if (i == len)
    return 0;
  char label[QBUF];
  if (memchr(f + i, '\0', len - i)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, (long)idx + 1, "%s: contains a NUL byte",
         column_label(r, idx, label));
    return -1;
  }
  size_t bad = i + bs__utf8_invalid_at(u + i, len - i);
  if (bad < len) {
    FAIL(r, BS_EINPUT, r->in.rec_line, (long)idx + 1,
         "%s: invalid UTF-8 at byte %zu of the field",
         column_label(r, idx, label), bad + 1);
    return -1;
  }
  return 0;
}

/* Appends a field and a NUL to r->rec; returns its offset or EMPTY. The
 * record buffer holds at most NKNOWN (or max_columns, for the header)
 * fields of at most max_field bytes. */
static size_t store(reader *r, const char *f, size_t len) {
  if (r->rec_cap - r->rec_len < len + 1) {
    char *t = BS__GROW(r->rec, r->rec_cap, r->rec_len + len + 1, 256);
    if (!t) {
      fail_nomem(r);
      return EMPTY;
    }
    r->rec = t;
  }
  size_t ofs = r->rec_len;
  if (len)
    memcpy(r->rec + ofs, f, len);
  r->rec[ofs + len] = '\0';
  r->rec_len = ofs + len + 1;
  return ofs;
}

static const char *intern_col(reader *r, int k, const char *v, size_t n);

/* Parses field `f` of known column k of a data record into r->v*[k]. */
static void data_field(reader *r, int k, const char *f, size_t len) {
  r->vlen[k] = len;
  r->vraw[k] = EMPTY;
  if (len == 0)
    return; /* absent: the defaults, or an error in data_record */
  int keep = 0;
  switch (k) {
  case COL_BENCHMARK:
  case COL_DATASET:
  case COL_IMPL:
    r->vstr[k] = intern_col(r, k, f, len);
    return;
  case COL_SCALE:
    r->vst[k] = bs__num_double(f, len, &r->vnum[k]);
    keep = 1;
    break;
  case COL_PHASE:
    r->phase_ok = 1;
    if (len == 7 && memcmp(f, "confirm", 7) == 0) {
      r->phase = BS_PHASE_CONFIRM;
    } else if (len == 11 && memcmp(f, "calibration", 11) == 0) {
      r->phase = BS_PHASE_CALIBRATION;
    } else {
      r->phase_ok = 0;
      keep = 1;
    }
    break;
  case COL_RUN:
  case COL_BLOCK:
  case COL_ITERATIONS:
    r->vst[k] = bs__num_u64(f, len, &r->vint[k]);
    keep = r->vst[k] || (k == COL_ITERATIONS && r->vint[k] == 0) ||
           (k == COL_BLOCK && r->vint[k] > (uint64_t)INT64_MAX);
    break;
  default: /* a metric: a finite number, > 0 or >= 0 as its table says */
    r->vst[k] = bs__num_double(f, len, &r->vnum[k]);
    keep = r->vst[k] ||
           !(r->vnum[k] > 0 ||
             (r->vnum[k] == 0 &&
              bs_metric_get((bs_metric)(k - COL_METRIC))->zero_allowed));
    break;
  }
  if (keep)
    r->vraw[k] = store(r, f, len);
}

/* libcsv's field callback (bs__csvin.raw_field): the feed is the
 * reader's first member. */
static void on_field(void *s_, size_t len, void *in) {
  reader *r = (reader *)in;
  const char *s = s_;
  if (r->in.status)
    return;
  size_t idx = r->nfields++;
  if (len > r->max_field) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0, "field longer than %zu bytes",
         r->max_field);
    return;
  }
  const char *f = s ? s : "";
  if (r->have_header) {
    if (idx >= r->ncols)
      return; /* only counted: the record is refused at its end */
    if (r->in.dirty && check_bytes(r, idx, f, len))
      return;
    int k = r->colkind[idx];
    if (k >= 0)
      data_field(r, k, f, len); /* an unknown column: checked, not kept */
    return;
  }
  if (idx >= r->max_cols) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0, "more than %zu columns", r->max_cols);
    return;
  }
  if (r->in.dirty && check_bytes(r, idx, f, len))
    return;
  if (idx >= r->hdr_cap) {
    span *t = BS__GROW(r->hdr, r->hdr_cap, idx + 1, 16);
    if (!t) {
      fail_nomem(r);
      return;
    }
    r->hdr = t;
  }
  r->hdr[idx].ofs = store(r, f, len);
  r->hdr[idx].len = len;
}

static int add_unknown(bs_log *log, const char *file, const char *name,
                       size_t index) {
  if (log->nunknown == log->unknown_cap) {
    bs_log_column *t =
        BS__GROW(log->unknown, log->unknown_cap, log->nunknown + 1, 8);
    if (!t)
      return -1;
    log->unknown = t;
  }
  bs_log_column *c = &log->unknown[log->nunknown++];
  c->file = file;
  c->name = name;
  c->index = index;
  return 0;
}

/* Keeps values of metric m beside the rows from now on (a file has its
 * column): 0, or -1 with the reader failed. Rows read before have none. */
static int keep_values(reader *r, int m) {
  bs_log *log = r->log;
  if (log->values[m].p)
    return 0;
  size_t cap = log->rows_cap ? log->rows_cap : 1;
  if (!fits(log, cap * sizeof(double))) {
    fail_memory_limit(r, r->in.rec_line);
    return -1;
  }
  if (bs__big_reserve(&log->values[m], cap * sizeof(double), 1)) {
    fail_nomem(r);
    return -1;
  }
  return 0;
}

static void header_record(reader *r) {
  bs_log *log = r->log;
  size_t n = r->nfields;
  size_t need = (n ? n : 1) * (sizeof *r->colname + sizeof(int)) + 64;
  if (!fits(log, need)) {
    fail_memory_limit(r, r->in.rec_line);
    return;
  }
  r->colname = bs__arena_alloc(&log->arena, (n ? n : 1) * sizeof *r->colname);
  r->colkind = bs__arena_alloc(&log->arena, (n ? n : 1) * sizeof *r->colkind);
  if (!r->colname || !r->colkind) {
    fail_nomem(r);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    r->colname[i] = intern(r, r->rec + r->hdr[i].ofs, r->hdr[i].len);
    if (!r->colname[i])
      return;
  }
  r->ncols = n;
  r->have_header = 1;

  /* Names are interned, so a duplicate is a repeated pointer; the one
   * reported is the first column whose name appeared before. */
  size_t cap = 16;
  while (cap < 2 * n)
    cap *= 2;
  const char **seen = calloc(cap, sizeof *seen);
  if (!seen) {
    fail_nomem(r);
    return;
  }
  size_t second = EMPTY;
  for (size_t i = 0; i < n && second == EMPTY; i++) {
    const char *name = r->colname[i];
    size_t j = (size_t)bs__mix64((uint64_t)(uintptr_t)name) & (cap - 1);
    while (seen[j] && seen[j] != name)
      j = (j + 1) & (cap - 1);
    if (seen[j])
      second = i;
    seen[j] = name;
  }
  free(seen);
  if (second != EMPTY) {
    const char *name = r->colname[second];
    char esc[QBUF];
    if (*name)
      FAIL(r, BS_EINPUT, r->in.rec_line, (long)second + 1,
           "column %s: appears twice in the header",
           bs__csvin_quote(esc, name, strlen(name), 0));
    else
      FAIL(r, BS_EINPUT, r->in.rec_line, (long)second + 1,
           "column \"\": appears twice in the header");
    return;
  }

  size_t old_unknown = log->nunknown;
  for (size_t k = 0; k < NKNOWN; k++)
    r->colof[k] = -1;
  for (size_t i = 0; i < n; i++) {
    int k = 0;
    while (k < NKNOWN && strcmp(r->colname[i], col_name(k)) != 0)
      k++;
    r->colkind[i] = k < NKNOWN ? k : -1;
    if (k < NKNOWN) {
      r->colof[k] = (long)i;
    } else if (add_unknown(log, r->file, r->colname[i], i + 1)) {
      log->nunknown = old_unknown;
      fail_nomem(r);
      return;
    }
  }
  for (int m = 1; m < BS_METRIC_COUNT; m++)
    if (r->colof[COL_METRIC + m] >= 0 && keep_values(r, m))
      return;
  for (int k = 0; k < NKNOWN; k++) {
    int required = k == COL_BENCHMARK || k == COL_IMPL ||
                   (k >= COL_METRIC &&
                    bs_metric_get((bs_metric)(k - COL_METRIC))->required);
    if (required && r->colof[k] < 0) {
      FAIL(r, BS_EINPUT, r->in.rec_line, 0, "missing required column \"%s\"",
           col_name(k));
      return;
    }
  }
}

/* memcmp(a, b, n) == 0 inlined: names are short, and this runs for every
 * name field, where a call into libc cost more than the comparison. */
static int same_text(const char *a, const char *b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    if (x != y)
      return 0;
  }
  for (; n > 0; n--)
    if (*a++ != *b++)
      return 0;
  return 1;
}

static const char *intern_col(reader *r, int k, const char *v, size_t n) {
  for (int i = 0; i < NRECENT; i++) {
    const char *p = r->last[k][i];
    if (p && r->last_len[k][i] == n && same_text(p, v, n))
      return p;
  }
  const char *p = intern(r, v, n);
  if (p) {
    unsigned i = r->last_next[k]++ % NRECENT;
    r->last[k][i] = p;
    r->last_len[k][i] = n;
  }
  return p;
}

/* The copy of known column k's value kept for messages. */
static const char *raw(reader *r, int k) {
  return r->vraw[k] == EMPTY ? "" : r->rec + r->vraw[k];
}

static void bad_value(reader *r, int k, const char *what, const char *why) {
  char q[QBUF];
  FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[k] + 1, "column %s: %s %s%s",
       col_name(k), bs__csvin_quote(q, raw(r, k), r->vlen[k], 1), what, why);
}

/* A positive finite number. */
static int check_positive(reader *r, int k) {
  if (r->vst[k] == BS__NUM_OK && r->vnum[k] > 0)
    return 0;
  bad_value(r, k, "is not a positive number", bs__num_reason(r->vst[k]));
  return -1;
}

/* A finite number >= 0. */
static int check_nonnegative(reader *r, int k) {
  if (r->vst[k] == BS__NUM_OK && r->vnum[k] >= 0)
    return 0;
  bad_value(r, k, "is not a non-negative number", bs__num_reason(r->vst[k]));
  return -1;
}

/* A non-negative integer up to `max`; "-1" and "x" are "not a
 * non-negative integer", an all-digit value past `max` is "too large". */
static int check_count(reader *r, int k, uint64_t max, const char *what) {
  bs__num st = r->vst[k];
  if (st == BS__NUM_OK && r->vint[k] <= max)
    return 0;
  if (st == BS__NUM_OK || st == BS__NUM_OVERFLOW)
    what = "is too large";
  bad_value(r, k, what, "");
  return -1;
}

/* Whether known column k has a value in this record. */
static int has(const reader *r, int k) {
  return r->colof[k] >= 0 && r->vlen[k] > 0;
}

/* Grows the rows (and the values of the other metrics kept beside them)
 * for one more row, within max_memory_bytes: the capacity doubles, or
 * takes what the limit leaves. */
static int grow_rows(reader *r) {
  bs_log *log = r->log;
  size_t per = row_bytes(log);
  size_t cap = bs__grow_cap(log->rows_cap, log->nrows + 1, 1024, per);
  if (!cap || cap > r->max_rows)
    cap = r->max_rows;
  size_t others = footprint(log) - log->rows_cap * per;
  size_t max = log->limits.max_memory_bytes;
  if (others > max || (max - others) / per < log->nrows + 1) {
    fail_memory_limit(r, r->in.rec_line);
    return -1;
  }
  if (cap > (max - others) / per)
    cap = (max - others) / per;
  if (bs__big_reserve(&log->rows_mem, cap * sizeof(bs_row), 0)) {
    fail_nomem(r);
    return -1;
  }
  log->rows = log->rows_mem.p;
  for (int m = 1; m < BS_METRIC_COUNT; m++) {
    if (log->values[m].p &&
        bs__big_reserve(&log->values[m], cap * sizeof(double), 1)) {
      fail_nomem(r);
      return -1;
    }
  }
  log->rows_cap = cap;
  return 0;
}

static void data_record(reader *r) {
  bs_log *log = r->log;
  if (r->nfields != r->ncols) {
    FAIL(r, BS_EINPUT, r->in.rec_line, 0, "expected %zu field%s, found %zu",
         r->ncols, r->ncols == 1 ? "" : "s", r->nfields);
    return;
  }
  if (log->nrows >= r->max_rows) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0, "more than %zu rows", r->max_rows);
    return;
  }
  if (r->in.rec_line > (long)UINT32_MAX) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0, "line number past %lu",
         (unsigned long)UINT32_MAX);
    return;
  }
  uint64_t run = 0, iterations = 0;
  int64_t block = -1;
  bs_phase phase = BS_PHASE_CONFIRM;
  double scale = 0, values[BS_METRIC_COUNT] = {0};
  unsigned metrics = 0;
  int has_scale = 0;

  if (!has(r, COL_BENCHMARK)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[COL_BENCHMARK] + 1,
         "column benchmark: must not be empty");
    return;
  }
  const char *benchmark = r->vstr[COL_BENCHMARK];
  const char *dataset = has(r, COL_DATASET) ? r->vstr[COL_DATASET] : "";
  if (has(r, COL_SCALE)) {
    if (check_positive(r, COL_SCALE))
      return;
    scale = r->vnum[COL_SCALE];
    has_scale = 1;
  }
  if (!has(r, COL_IMPL)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[COL_IMPL] + 1,
         "column impl: must not be empty");
    return;
  }
  const char *impl = r->vstr[COL_IMPL];
  if (has(r, COL_RUN)) {
    if (check_count(r, COL_RUN, UINT64_MAX, "is not a non-negative integer"))
      return;
    run = r->vint[COL_RUN];
  }
  if (has(r, COL_BLOCK)) {
    if (check_count(r, COL_BLOCK, (uint64_t)INT64_MAX,
                    "is not a non-negative integer"))
      return;
    block = (int64_t)r->vint[COL_BLOCK];
  }
  if (has(r, COL_PHASE)) {
    if (!r->phase_ok) {
      bad_value(r, COL_PHASE, "is not calibration or confirm", "");
      return;
    }
    phase = r->phase;
  }
  if (has(r, COL_ITERATIONS)) {
    if (check_count(r, COL_ITERATIONS, UINT64_MAX, "is not a positive integer"))
      return;
    iterations = r->vint[COL_ITERATIONS];
    if (iterations == 0) {
      bad_value(r, COL_ITERATIONS, "is not a positive integer", "");
      return;
    }
  }
  for (int m = 0; m < BS_METRIC_COUNT; m++) {
    const bs_metric_info *mi = bs_metric_get((bs_metric)m);
    int k = COL_METRIC + m;
    if (!has(r, k)) {
      if (!mi->required)
        continue; /* a row without it: refused only by an analysis of m */
      FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[k] + 1,
           "column %s: must not be empty", mi->column);
      return;
    }
    if (mi->zero_allowed ? check_nonnegative(r, k) : check_positive(r, k))
      return;
    values[m] = r->vnum[k] + 0.0; /* no -0 */
    metrics |= 1u << m;
  }
  if (phase == BS_PHASE_CONFIRM && block < 0) {
    FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[COL_BLOCK] + 1,
         "column block: missing for a confirm row");
    return;
  }

  /* Whole-log checks: against every row read so far, in any file. */
  if (log->nrows == log->rows_cap && grow_rows(r))
    return;
  size_t id = log->nrows;
  int added = 0;
  size_t cid = r->last_case;
  if (benchmark != r->last_b || dataset != r->last_d) {
    cid = case_get(r, benchmark, dataset, id, &added);
    if (cid == EMPTY)
      return;
    r->last_b = benchmark;
    r->last_d = dataset;
    r->last_case = cid;
  }
  case_ent *ce = &log->cases[cid];
  if (ce->nrows >= r->max_case_rows) {
    char qb[QBUF], qd[QBUF];
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0,
         "more than %zu rows for benchmark %s, dataset %s", r->max_case_rows,
         bs__csvin_quote(qb, benchmark, strlen(benchmark), 1),
         bs__csvin_quote(qd, dataset, strlen(dataset), 1));
    return;
  }
  if (ce->nrows == 0) {
    ce->first_row = (uint32_t)id;
    ce->has_scale = has_scale;
    ce->scale = scale;
  } else if (ce->has_scale != has_scale || (has_scale && ce->scale != scale)) {
    const bs_row *f = &log->rows[ce->first_row];
    char q[QBUF], num[64], path[BS__PATH_BUF];
    long col = r->colof[COL_SCALE] + 1;
    const char *file = bs__csvin_path(path, bs_log_row_file(log, f));
    const char *v = raw(r, COL_SCALE);
    size_t n = r->vlen[COL_SCALE];
    long fline = (long)f->line;
    if (!has_scale)
      FAIL(r, BS_EINPUT, r->in.rec_line, col,
           "column scale: missing, but %s at %s:%ld (same benchmark and "
           "dataset)",
           fmt_num(num, sizeof num, ce->scale), file, fline);
    else if (!ce->has_scale)
      FAIL(r, BS_EINPUT, r->in.rec_line, col,
           "column scale: %s, but none at %s:%ld (same benchmark and "
           "dataset)",
           bs__csvin_quote(q, v, n, 1), file, fline);
    else
      FAIL(r, BS_EINPUT, r->in.rec_line, col,
           "column scale: %s differs from %s at %s:%ld (same benchmark "
           "and dataset)",
           bs__csvin_quote(q, v, n, 1), fmt_num(num, sizeof num, ce->scale),
           file, fline);
    return;
  }
  for (int m = 0; m < BS_METRIC_COUNT && phase == BS_PHASE_CONFIRM; m++) {
    if (!(metrics & (1u << m)) && log->lacking[m] == EMPTY) {
      log->lacking[m] = id;
      log->lacking_column[m] = r->colof[COL_METRIC + m] < 0;
    }
  }
  int wide = run > UINT32_MAX || block > INT32_MAX;
  if (wide) {
    if (log->nwide == log->wide_cap) {
      size_t cap =
          bs__grow_cap(log->wide_cap, log->nwide + 1, 16, sizeof(wide_ent));
      if (!cap || !fits(log, (cap - log->wide_cap) * sizeof(wide_ent))) {
        fail_memory_limit(r, r->in.rec_line);
        return;
      }
      wide_ent *t = realloc(log->wide, cap * sizeof *t);
      if (!t) {
        fail_nomem(r);
        return;
      }
      log->wide = t;
      log->wide_cap = cap;
    }
    log->wide[log->nwide].run = run;
    log->wide[log->nwide].block = block;
    log->wide[log->nwide].row = id;
    log->nwide++;
  }
  bs_row *row = &log->rows[id];
  row->per_call_us = values[BS_METRIC_WALL];
  row->iterations = iterations;
  row->impl = impl;
  row->line = (uint32_t)r->in.rec_line;
  row->run32 = wide ? 0 : (uint32_t)run;
  row->block32 = wide ? 0 : (int32_t)block;
  row->phase = phase == BS_PHASE_CALIBRATION;
  row->metrics = metrics & 7u;
  row->wide = (unsigned)wide & 1u;
  row->cid = (uint32_t)cid & 0x07FFFFFFu;
  for (int m = 1; m < BS_METRIC_COUNT; m++)
    if (log->values[m].p)
      ((double *)log->values[m].p)[id] = values[m];
  log->nrows++;
  ce->nrows++;
  if (phase == BS_PHASE_CONFIRM) {
    int failed;
    size_t first = track(r, id, &failed);
    if (failed)
      return;
    if (first != EMPTY) {
      const bs_row *f = &log->rows[first];
      char qb[QBUF], qd[QBUF], qi[QBUF], path[BS__PATH_BUF];
      FAIL(r, BS_EINPUT, r->in.rec_line, 0,
           "duplicate confirm row for benchmark %s, dataset %s, run %llu, "
           "block %lld, impl %s (first at %s:%ld)",
           bs__csvin_quote(qb, benchmark, strlen(benchmark), 1),
           bs__csvin_quote(qd, dataset, strlen(dataset), 1),
           (unsigned long long)run, (long long)block,
           bs__csvin_quote(qi, impl, strlen(impl), 1),
           bs__csvin_path(path, bs_log_row_file(log, f)), (long)f->line);
      return;
    }
  }
}

static void on_record(void *ctx) {
  reader *r = ctx;
  if (r->have_header)
    data_record(r);
  else
    header_record(r);
  r->nfields = 0;
  r->rec_len = 0;
}

/* ---- the public case index ---- */

static bs_status rebuild_index(bs_log *log) {
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
    at += c->nrows;
  }
  /* The sort's keys go before the row index comes: a lower peak. */
  bs__big_release(&ord_mem);
  if (bs__big_reserve(&mem, (nr ? nr : 1) * sizeof(uint32_t), 0))
    goto fail;
  uint32_t *rows = mem.p;
  for (size_t i = 0, ofs = 0; i < nc; ofs += index[i].nrows, i++)
    index[i].rows = rows + ofs;
  /* Each case's rows in read order: one pass over the rows. */
  for (size_t i = 0; i < nr; i++)
    rows[next[log->rows[i].cid]++] = (uint32_t)i;
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

/* ---- public API ---- */

bs_log *bs_log_new(void) {
  bs_log *log = calloc(1, sizeof *log);
  if (!log)
    return NULL;
  bs__arena_init(&log->arena);
  bs_log_set_limits(log, NULL);
  for (int m = 0; m < BS_METRIC_COUNT; m++)
    log->lacking[m] = EMPTY;
  int local = 0;
  log->seed = bs__mix64((uint64_t)(uintptr_t)log ^
                        bs__mix64((uint64_t)(uintptr_t)&local) ^
                        (uint64_t)(uintptr_t)&bs_log_new);
  return log;
}

void bs_log_free(bs_log *log) {
  if (!log)
    return;
  bs__arena_release(&log->arena);
  bs__big_release(&log->rows_mem);
  for (int m = 0; m < BS_METRIC_COUNT; m++)
    bs__big_release(&log->values[m]);
  free(log->files);
  free(log->wide);
  bs__big_release(&log->istr_mem);
  for (size_t i = 0; i < log->ncases; i++)
    free(log->cases[i].dup);
  bs__big_release(&log->cases_mem);
  bs__big_release(&log->cslot_mem);
  bs__big_release(&log->index_cases);
  free(log->case_pos);
  bs__big_release(&log->index_mem);
  free(log->unknown);
  free(log);
}

void bs_log_set_limits(bs_log *log, const bs_log_limits *limits) {
  bs_log_limits l;
  memset(&l, 0, sizeof l);
  if (limits)
    l = *limits;
  bs_log_limits *o = &log->limits;
  o->max_field_bytes =
      l.max_field_bytes ? l.max_field_bytes : BS_LOG_DEFAULT_MAX_FIELD_BYTES;
  o->max_columns = l.max_columns ? l.max_columns : BS_LOG_DEFAULT_MAX_COLUMNS;
  o->max_rows = l.max_rows ? l.max_rows : BS_LOG_DEFAULT_MAX_ROWS;
  if (o->max_rows > ROWS_HARD_MAX)
    o->max_rows = ROWS_HARD_MAX;
  o->max_case_rows =
      l.max_case_rows ? l.max_case_rows : BS_LOG_DEFAULT_MAX_CASE_ROWS;
  o->max_memory_bytes =
      l.max_memory_bytes ? l.max_memory_bytes : BS_LOG_DEFAULT_MAX_MEMORY_BYTES;
}

typedef enum { SRC_BUFFER, SRC_FILE, SRC_ARCHIVED, SRC_TEED } source;

/* Where read_log's bytes come from: a buffer, or a file read in blocks
 * (for SRC_TEED a regular file at most max_bytes long, each block handed
 * to tee before it is parsed). */
typedef struct input {
  source src;
  const char *data;
  size_t len;
  uint64_t max_bytes;
  bs__csvin_tee_fn tee;
  void *tee_ctx;
} input;

/* Starts the rows of the file `name` (an arena copy): 0, or -1 when out
 * of memory. */
static int add_file(bs_log *log, const char *name) {
  if (log->nfiles == log->files_cap) {
    file_ent *t = BS__GROW(log->files, log->files_cap, log->nfiles + 1, 4);
    if (!t)
      return -1;
    log->files = t;
  }
  log->files[log->nfiles].name = name;
  log->files[log->nfiles].first_row = log->nrows;
  log->nfiles++;
  return 0;
}

static bs_status read_log(bs_log *log, const char *name, const input *src,
                          bs_error *err) {
  if (!name)
    name = "";
  reader r;
  memset(&r, 0, sizeof r);
  r.log = log;
  r.max_field = log->limits.max_field_bytes;
  r.max_cols = log->limits.max_columns;
  r.max_rows = log->limits.max_rows;
  r.max_case_rows = log->limits.max_case_rows;
  size_t old_rows = log->nrows, old_cases = log->ncases;
  size_t old_unknown = log->nunknown, old_files = log->nfiles;
  if (bs__csvin_init(&r.in, name, err, r.max_field, NULL, on_record, &r) ==
      BS_OK) {
    r.in.raw_field = on_field;
    if (!fits(log, strlen(name) + 1 + sizeof(max_align_t) + sizeof(file_ent)))
      fail_memory_limit(&r, 0);
    else if (!(r.file = bs__arena_strndup(&log->arena, name, strlen(name))) ||
             add_file(log, r.file))
      fail_nomem(&r);
    else if (src->src != SRC_BUFFER) {
      r.in.archived = src->src == SRC_ARCHIVED;
      r.in.regular = src->src == SRC_TEED;
      r.in.max_bytes = src->max_bytes;
      r.in.tee = src->tee;
      r.in.tee_ctx = src->tee_ctx;
      bs__csvin_feed_file(&r.in, name);
    } else if (bs__csvin_feed(&r.in, src->data ? src->data : "",
                              src->data ? src->len : 0) == BS_OK)
      bs__csvin_finish(&r.in);
  }
  if (!r.in.status && !r.have_header)
    FAIL(&r, BS_EINPUT, 0, 0, "empty file: no header row");
  if (!r.in.status) {
    bs_status st = rebuild_index(log);
    if (st == BS_ELIMIT)
      fail_memory_limit(&r, 0);
    else if (st)
      FAIL(&r, st, 0, 0, "out of memory");
  }
  bs_status status = r.in.status;
  if (status) {
    /* Forget this file: rows, cases and unknown columns it added. Tables
     * only shrink here, so rebuilding them needs no allocation. */
    for (size_t i = old_cases; i < log->ncases; i++) {
      free(log->cases[i].dup);
      log->dup_bytes -= log->cases[i].dup_cap * sizeof(dup_slot);
    }
    for (int m = 0; m < BS_METRIC_COUNT; m++)
      if (log->lacking[m] != EMPTY && log->lacking[m] >= old_rows)
        log->lacking[m] = EMPTY;
    log->nrows = old_rows;
    log->ncases = old_cases;
    log->nunknown = old_unknown;
    log->nfiles = old_files;
    while (log->nwide > 0 && log->wide[log->nwide - 1].row >= old_rows)
      log->nwide--;
    if (log->cslot_cap)
      case_rehash(log);
    cases_rebuild(log, old_rows);
  } else {
    bs_error_clear(err);
  }
  bs__csvin_release(&r.in);
  free(r.rec);
  free(r.hdr);
  return status;
}

bs_status bs_log_read_buffer(bs_log *log, const char *name, const char *data,
                             size_t len, bs_error *err) {
  input in = {SRC_BUFFER, data, len, 0, NULL, NULL};
  return read_log(log, name, &in, err);
}

bs_status bs_log_read_file(bs_log *log, const char *path, bs_error *err) {
  input in = {SRC_FILE, NULL, 0, 0, NULL, NULL};
  return read_log(log, path, &in, err);
}

bs_status bs__log_read_archived(bs_log *log, const char *path, bs_error *err) {
  input in = {SRC_ARCHIVED, NULL, 0, 0, NULL, NULL};
  return read_log(log, path, &in, err);
}

bs_status bs__log_read_teed(bs_log *log, const char *path, uint64_t max_bytes,
                            bs__csvin_tee_fn tee, void *ctx, bs_error *err) {
  input in = {SRC_TEED, NULL, 0, max_bytes, tee, ctx};
  return read_log(log, path, &in, err);
}

size_t bs_log_count(const bs_log *log) { return log->nrows; }

const bs_row *bs_log_rows(const bs_log *log) { return log->rows; }

const char *bs_log_row_file(const bs_log *log, const bs_row *row) {
  size_t id = (size_t)(row - log->rows);
  /* The last file whose rows start at or before id. */
  size_t lo = 0, hi = log->nfiles;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (log->files[mid].first_row <= id)
      lo = mid;
    else
      hi = mid;
  }
  return log->nfiles ? log->files[lo].name : "";
}

const bs_case *bs_log_row_case(const bs_log *log, const bs_row *row) {
  return &log->index[log->case_pos[row->cid]];
}

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

double bs_log_value(const bs_log *log, const bs_row *row, bs_metric m) {
  if (m == BS_METRIC_WALL)
    return row->per_call_us;
  if ((unsigned)m >= BS_METRIC_COUNT || !(row->metrics & (1u << m)) ||
      !log->values[m].p)
    return 0.0;
  return ((const double *)log->values[m].p)[row - log->rows];
}

size_t bs_log_case_count(const bs_log *log) { return log->nindex; }

const bs_case *bs_log_case(const bs_log *log, size_t i) {
  return i < log->nindex ? &log->index[i] : NULL;
}

const bs_row *bs_log_lacking(const bs_log *log, bs_metric m) {
  if ((unsigned)m >= BS_METRIC_COUNT || log->lacking[m] == EMPTY)
    return NULL;
  return &log->rows[log->lacking[m]];
}

bs_status bs_log_require_metric(const bs_log *log, bs_metric m, bs_error *err) {
  const bs_metric_info *mi = bs_metric_get(m);
  if (!mi)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric %d", (int)m);
  const bs_row *row = bs_log_lacking(log, m);
  if (!row)
    return BS_OK;
  char path[BS__PATH_BUF];
  if (log->lacking_column[m])
    return bs_error_set(err, BS_EINPUT,
                        bs__csvin_path(path, bs_log_row_file(log, row)),
                        (long)row->line,
                        "confirm row has no %s: the file has no column %s, "
                        "and metric %s (%s) needs it on every confirm row",
                        mi->column, mi->column, mi->name, mi->quantity);
  return bs_error_set(err, BS_EINPUT,
                      bs__csvin_path(path, bs_log_row_file(log, row)),
                      (long)row->line,
                      "column %s: empty, and metric %s (%s) needs it on "
                      "every confirm row",
                      mi->column, mi->name, mi->quantity);
}

size_t bs_log_unknown_count(const bs_log *log) { return log->nunknown; }

const bs_log_column *bs_log_unknown(const bs_log *log, size_t i) {
  return i < log->nunknown ? &log->unknown[i] : NULL;
}
