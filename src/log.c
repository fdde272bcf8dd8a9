#include "benchsite/log.h"

#include "arena.h"
#include "benchsite/order.h"
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
/* Row ids + 1 are stored in 32 bits in the duplicate index. */
#define ROWS_HARD_MAX ((size_t)UINT32_MAX - 1)

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
  size_t first_row; /* its scale is the one every later row must repeat */
  size_t nrows;
  /* This case's confirm rows keyed by (run, block, impl): one small table
   * per case stays in cache while the case's rows stream past, where one
   * table for the whole log would cost a cache miss a row. */
  dup_slot *dup;
  size_t dup_cap, dup_n;
} case_ent;

struct bs_log {
  bs__arena arena;
  bs_log_limits limits;
  /* Keys every hash: from addresses (ASLR), so a log crafted to collide
   * in one run's tables does not collide in another's. It changes no
   * output: nothing is ever listed in hash order. */
  uint64_t seed;

  bs_row *rows;
  size_t *row_case; /* case id of each row, parallel to rows */
  size_t nrows, rows_cap;

  /* Interned benchmark, dataset and impl names: equal strings share a
   * pointer, so the tables below hash and compare pointers. */
  intern_slot *istr;
  size_t istr_cap, istr_n;

  /* Cases in first-seen order, found through an open-addressing index. */
  case_ent *cases;
  size_t ncases, cases_cap;
  size_t *cslot;
  size_t cslot_cap;

  size_t dup_bytes; /* the cases' duplicate tables */

  /* The public case index, rebuilt after every successful read. */
  bs_case *index;
  size_t nindex;
  size_t *index_rows;
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

static size_t footprint(const bs_log *log) {
  return log->rows_cap * (sizeof(bs_row) + sizeof(size_t)) + log->arena.total +
         log->istr_cap * sizeof(intern_slot) +
         log->cases_cap * sizeof(case_ent) + log->cslot_cap * sizeof(size_t) +
         log->dup_bytes + log->nindex * sizeof(bs_case) +
         log->nindex_rows * sizeof(size_t) +
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
    intern_slot *t = calloc(cap, sizeof *t);
    if (!t) {
      fail_nomem(r);
      return NULL;
    }
    for (size_t i = 0; i < log->istr_cap; i++) {
      intern_slot *e = &log->istr[i];
      if (!e->s)
        continue;
      size_t j = (size_t)e->hash & (cap - 1);
      while (t[j].s)
        j = (j + 1) & (cap - 1);
      t[j] = *e;
    }
    free(log->istr);
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
  while (log->cslot[j] != EMPTY)
    j = (j + 1) & mask;
  log->cslot[j] = id;
}

static void case_rehash(bs_log *log) {
  for (size_t i = 0; i < log->cslot_cap; i++)
    log->cslot[i] = EMPTY;
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
    for (size_t j = (size_t)case_hash(log, b, d) & mask; log->cslot[j] != EMPTY;
         j = (j + 1) & mask) {
      const case_ent *c = &log->cases[log->cslot[j]];
      if (c->benchmark == b && c->dataset == d)
        return log->cslot[j];
    }
  }
  if (log->ncases == log->cases_cap) {
    size_t cap =
        bs__grow_cap(log->cases_cap, log->ncases + 1, 64, sizeof(case_ent));
    if (!cap || !fits(log, (cap - log->cases_cap) * sizeof(case_ent))) {
      fail_memory_limit(r, r->in.rec_line);
      return EMPTY;
    }
    case_ent *t = realloc(log->cases, cap * sizeof *t);
    if (!t) {
      fail_nomem(r);
      return EMPTY;
    }
    log->cases = t;
    log->cases_cap = cap;
  }
  if ((log->ncases + 1) * 2 > log->cslot_cap) {
    size_t cap =
        bs__grow_cap(log->cslot_cap, log->cslot_cap + 1, 128, sizeof(size_t));
    if (!cap || !fits(log, cap * sizeof(size_t))) {
      fail_memory_limit(r, r->in.rec_line);
      return EMPTY;
    }
    size_t *t = malloc(cap * sizeof *t);
    if (!t) {
      fail_nomem(r);
      return EMPTY;
    }
    free(log->cslot);
    log->cslot = t;
    log->cslot_cap = cap;
    case_rehash(log);
  }
  size_t id = log->ncases++;
  log->cases[id].benchmark = b;
  log->cases[id].dataset = d;
  log->cases[id].first_row = row;
  log->cases[id].nrows = 0;
  log->cases[id].dup = NULL;
  log->cases[id].dup_cap = 0;
  log->cases[id].dup_n = 0;
  case_slot_insert(log, id);
  *added = 1;
  return id;
}

static uint64_t dup_hash(const bs_log *log, const bs_row *r) {
  /* Two rounds: the second adds block and impl to a value the keyed first
   * round made unpredictable, so chosen runs and blocks cannot be lined
   * up to collide. */
  uint64_t h = bs__mix64(log->seed ^ (r->run * 0x9E3779B97F4A7C15u));
  return bs__mix64(h ^ (uint64_t)r->block ^
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

/* Refills the cases' tables from rows [0, nrows) after the cases past
 * ncases were dropped: used to forget a failed read. Tables only lose
 * entries here, so this needs no allocation. */
static void dup_rebuild(bs_log *log, size_t nrows) {
  for (size_t i = 0; i < log->ncases; i++) {
    case_ent *c = &log->cases[i];
    if (c->dup_cap)
      memset(c->dup, 0, c->dup_cap * sizeof *c->dup);
    c->dup_n = 0;
    c->nrows = 0;
  }
  for (size_t i = 0; i < nrows; i++) {
    case_ent *c = &log->cases[log->row_case[i]];
    c->nrows++;
    if (log->rows[i].phase != BS_PHASE_CONFIRM)
      continue;
    dup_put(c->dup, c->dup_cap, dup_hash(log, &log->rows[i]), i);
    c->dup_n++;
  }
}

/* Looks up the confirm row `row` (already stored at log->rows[row]) in its
 * case's table; returns the id of an earlier row with the same key, or
 * EMPTY after inserting it. *failed is set (and the reader failed) when
 * the table could not grow. */
static size_t dup_check(reader *r, size_t row, int *failed) {
  bs_log *log = r->log;
  case_ent *c = &log->cases[log->row_case[row]];
  *failed = 0;
  if ((c->dup_n + 1) * 2 > c->dup_cap) {
    size_t cap = bs__grow_cap(c->dup_cap, c->dup_cap + 1, 16, sizeof(dup_slot));
    if (!cap || !fits(log, cap * sizeof(dup_slot))) {
      fail_memory_limit(r, r->in.rec_line);
      *failed = 1;
      return EMPTY;
    }
    dup_slot *t = calloc(cap, sizeof *t);
    if (!t) {
      fail_nomem(r);
      *failed = 1;
      return EMPTY;
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
    c->dup_cap = cap;
  }
  const bs_row *q = &log->rows[row];
  uint64_t h = dup_hash(log, q);
  uint32_t tag = (uint32_t)(h >> 32);
  size_t mask = c->dup_cap - 1;
  size_t j = (size_t)h & mask;
  for (; c->dup[j].row1; j = (j + 1) & mask) {
    if (c->dup[j].tag != tag)
      continue;
    size_t o = c->dup[j].row1 - 1;
    const bs_row *p = &log->rows[o];
    if (p->run == q->run && p->block == q->block && p->impl == q->impl)
      return o;
  }
  c->dup[j].row1 = (uint32_t)(row + 1);
  c->dup[j].tag = tag;
  c->dup_n++;
  return EMPTY;
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

/* Grows rows and row_case for one more row, within max_memory_bytes: the
 * capacity doubles, or takes what the limit leaves. */
static int grow_rows(reader *r) {
  bs_log *log = r->log;
  size_t per = sizeof(bs_row) + sizeof(size_t);
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
  bs_row *t = realloc(log->rows, cap * sizeof *t);
  if (!t) {
    fail_nomem(r);
    return -1;
  }
  log->rows = t;
  size_t *u = realloc(log->row_case, cap * sizeof *u);
  if (!u) {
    fail_nomem(r);
    return -1;
  }
  log->row_case = u;
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
  bs_row row;
  memset(&row, 0, sizeof row);
  row.file = r->file;
  row.line = r->in.rec_line;
  row.block = -1;
  row.phase = BS_PHASE_CONFIRM;

  if (!has(r, COL_BENCHMARK)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[COL_BENCHMARK] + 1,
         "column benchmark: must not be empty");
    return;
  }
  row.benchmark = r->vstr[COL_BENCHMARK];
  row.dataset = has(r, COL_DATASET) ? r->vstr[COL_DATASET] : "";
  if (has(r, COL_SCALE)) {
    if (check_positive(r, COL_SCALE))
      return;
    row.scale = r->vnum[COL_SCALE];
    row.has_scale = 1;
  }
  if (!has(r, COL_IMPL)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, r->colof[COL_IMPL] + 1,
         "column impl: must not be empty");
    return;
  }
  row.impl = r->vstr[COL_IMPL];
  if (has(r, COL_RUN)) {
    if (check_count(r, COL_RUN, UINT64_MAX, "is not a non-negative integer"))
      return;
    row.run = r->vint[COL_RUN];
  }
  if (has(r, COL_BLOCK)) {
    if (check_count(r, COL_BLOCK, (uint64_t)INT64_MAX,
                    "is not a non-negative integer"))
      return;
    row.block = (int64_t)r->vint[COL_BLOCK];
  }
  if (has(r, COL_PHASE)) {
    if (!r->phase_ok) {
      bad_value(r, COL_PHASE, "is not calibration or confirm", "");
      return;
    }
    row.phase = r->phase;
  }
  if (has(r, COL_ITERATIONS)) {
    if (check_count(r, COL_ITERATIONS, UINT64_MAX, "is not a positive integer"))
      return;
    row.iterations = r->vint[COL_ITERATIONS];
    if (row.iterations == 0) {
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
    row.values[m] = r->vnum[k] + 0.0; /* no -0 */
    row.metrics |= 1u << m;
  }
  if (row.phase == BS_PHASE_CONFIRM && row.block < 0) {
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
  if (row.benchmark != r->last_b || row.dataset != r->last_d) {
    cid = case_get(r, row.benchmark, row.dataset, id, &added);
    if (cid == EMPTY)
      return;
    r->last_b = row.benchmark;
    r->last_d = row.dataset;
    r->last_case = cid;
  }
  case_ent *ce = &log->cases[cid];
  if (ce->nrows >= r->max_case_rows) {
    char qb[QBUF], qd[QBUF];
    FAIL(r, BS_ELIMIT, r->in.rec_line, 0,
         "more than %zu rows for benchmark %s, dataset %s", r->max_case_rows,
         bs__csvin_quote(qb, row.benchmark, strlen(row.benchmark), 1),
         bs__csvin_quote(qd, row.dataset, strlen(row.dataset), 1));
    return;
  }
  if (!added && ce->nrows > 0) {
    const bs_row *f = &log->rows[ce->first_row];
    if (f->has_scale != row.has_scale ||
        (row.has_scale && f->scale != row.scale)) {
      char q[QBUF], num[64], path[BS__PATH_BUF];
      long col = r->colof[COL_SCALE] + 1;
      const char *file = bs__csvin_path(path, f->file);
      const char *v = raw(r, COL_SCALE);
      size_t n = r->vlen[COL_SCALE];
      if (!row.has_scale)
        FAIL(r, BS_EINPUT, r->in.rec_line, col,
             "column scale: missing, but %s at %s:%ld (same benchmark and "
             "dataset)",
             fmt_num(num, sizeof num, f->scale), file, f->line);
      else if (!f->has_scale)
        FAIL(r, BS_EINPUT, r->in.rec_line, col,
             "column scale: %s, but none at %s:%ld (same benchmark and "
             "dataset)",
             bs__csvin_quote(q, v, n, 1), file, f->line);
      else
        FAIL(r, BS_EINPUT, r->in.rec_line, col,
             "column scale: %s differs from %s at %s:%ld (same benchmark "
             "and dataset)",
             bs__csvin_quote(q, v, n, 1), fmt_num(num, sizeof num, f->scale),
             file, f->line);
      return;
    }
  }
  if (ce->nrows == 0)
    ce->first_row = id;
  for (int m = 0; m < BS_METRIC_COUNT && row.phase == BS_PHASE_CONFIRM; m++) {
    if (!(row.metrics & (1u << m)) && log->lacking[m] == EMPTY) {
      log->lacking[m] = id;
      log->lacking_column[m] = r->colof[COL_METRIC + m] < 0;
    }
  }
  log->rows[id] = row;
  log->row_case[id] = cid;
  log->nrows++;
  ce->nrows++;
  if (row.phase == BS_PHASE_CONFIRM) {
    int failed;
    size_t first = dup_check(r, id, &failed);
    if (failed)
      return;
    if (first != EMPTY) {
      const bs_row *f = &log->rows[first];
      char qb[QBUF], qd[QBUF], qi[QBUF], path[BS__PATH_BUF];
      FAIL(r, BS_EINPUT, r->in.rec_line, 0,
           "duplicate confirm row for benchmark %s, dataset %s, run %llu, "
           "block %lld, impl %s (first at %s:%ld)",
           bs__csvin_quote(qb, row.benchmark, strlen(row.benchmark), 1),
           bs__csvin_quote(qd, row.dataset, strlen(row.dataset), 1),
           (unsigned long long)row.run, (long long)row.block,
           bs__csvin_quote(qi, row.impl, strlen(row.impl), 1),
           bs__csvin_path(path, f->file), f->line);
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
  size_t need =
      nc * (sizeof(bs_case_key) + 2 * sizeof(size_t) + sizeof(bs_case)) +
      nr * sizeof(size_t);
  if (!fits(log, need))
    return BS_ELIMIT;
  bs_case_key *ord = malloc((nc ? nc : 1) * sizeof *ord);
  size_t *rank = malloc((nc ? nc : 1) * sizeof *rank);
  size_t *start = calloc(nc + 1, sizeof *start);
  bs_case *index = malloc((nc ? nc : 1) * sizeof *index);
  size_t *rows = malloc((nr ? nr : 1) * sizeof *rows);
  if (!ord || !rank || !start || !index || !rows)
    goto fail;
  /* The index is in case order, so every analysis of the log lists its
   * cases in the order the outputs show them. */
  for (size_t i = 0; i < nc; i++) {
    const bs_row *first = &log->rows[log->cases[i].first_row];
    ord[i].benchmark = log->cases[i].benchmark;
    ord[i].dataset = log->cases[i].dataset;
    ord[i].has_scale = first->has_scale;
    ord[i].scale = first->has_scale ? first->scale : 0.0;
    ord[i].id = i;
  }
  bs_case_order(ord, nc);
  for (size_t i = 0; i < nc; i++)
    rank[ord[i].id] = i;
  for (size_t i = 0; i < nr; i++)
    start[rank[log->row_case[i]] + 1]++;
  for (size_t i = 0; i < nc; i++)
    start[i + 1] += start[i];
  for (size_t i = 0; i < nc; i++) {
    const case_ent *c = &log->cases[ord[i].id];
    const bs_row *first = &log->rows[c->first_row];
    index[i].benchmark = c->benchmark;
    index[i].dataset = c->dataset;
    index[i].rows = rows + start[i];
    index[i].nrows = 0;
    index[i].has_scale = first->has_scale;
    index[i].scale = first->has_scale ? first->scale : 0.0;
  }
  for (size_t i = 0; i < nr; i++) {
    bs_case *c = &index[rank[log->row_case[i]]];
    rows[start[rank[log->row_case[i]]] + c->nrows++] = i;
  }
  free(ord);
  free(rank);
  free(start);
  free(log->index);
  free(log->index_rows);
  log->index = index;
  log->index_rows = rows;
  log->nindex = nc;
  log->nindex_rows = nr;
  return BS_OK;
fail:
  free(ord);
  free(rank);
  free(start);
  free(index);
  free(rows);
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
  free(log->rows);
  free(log->row_case);
  free(log->istr);
  for (size_t i = 0; i < log->ncases; i++)
    free(log->cases[i].dup);
  free(log->cases);
  free(log->cslot);
  free(log->index);
  free(log->index_rows);
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

typedef enum { SRC_BUFFER, SRC_FILE, SRC_ARCHIVED } source;

static bs_status read_log(bs_log *log, const char *name, source src,
                          const char *data, size_t len, bs_error *err) {
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
  size_t old_unknown = log->nunknown;
  if (bs__csvin_init(&r.in, name, err, r.max_field, NULL, on_record, &r) ==
      BS_OK) {
    r.in.raw_field = on_field;
    if (!fits(log, strlen(name) + 1 + sizeof(max_align_t)))
      fail_memory_limit(&r, 0);
    else if (!(r.file = bs__arena_strndup(&log->arena, name, strlen(name))))
      fail_nomem(&r);
    else if (src != SRC_BUFFER) {
      r.in.archived = src == SRC_ARCHIVED;
      bs__csvin_feed_file(&r.in, name);
    } else if (bs__csvin_feed(&r.in, data ? data : "", data ? len : 0) == BS_OK)
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
    if (log->cslot_cap)
      case_rehash(log);
    dup_rebuild(log, old_rows);
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
  return read_log(log, name, SRC_BUFFER, data, len, err);
}

bs_status bs_log_read_file(bs_log *log, const char *path, bs_error *err) {
  return read_log(log, path, SRC_FILE, NULL, 0, err);
}

bs_status bs__log_read_archived(bs_log *log, const char *path, bs_error *err) {
  return read_log(log, path, SRC_ARCHIVED, NULL, 0, err);
}

size_t bs_log_count(const bs_log *log) { return log->nrows; }

const bs_row *bs_log_rows(const bs_log *log) { return log->rows; }

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
    return bs_error_set(err, BS_EINPUT, bs__csvin_path(path, row->file),
                        row->line,
                        "confirm row has no %s: the file has no column %s, "
                        "and metric %s (%s) needs it on every confirm row",
                        mi->column, mi->column, mi->name, mi->quantity);
  return bs_error_set(err, BS_EINPUT, bs__csvin_path(path, row->file),
                      row->line,
                      "column %s: empty, and metric %s (%s) needs it on "
                      "every confirm row",
                      mi->column, mi->name, mi->quantity);
}

size_t bs_log_unknown_count(const bs_log *log) { return log->nunknown; }

const bs_log_column *bs_log_unknown(const bs_log *log, size_t i) {
  return i < log->nunknown ? &log->unknown[i] : NULL;
}
