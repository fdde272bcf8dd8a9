/* benchsite: reading observation logs (SPEC §1.1) with libcsv, through the
 * feed (csvin.c): every field checked as it arrives, rows stored compact,
 * cases indexed as they appear (log_cases.c). */
#include "benchsite/log.h"

#include "grow.h"
#include "hash.h"
#include "input_int.h"
#include "log_int.h"
#include "oom.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const key_names[COL_METRIC] = {
    "benchmark", "dataset", "scale",      "impl", "run",
    "block",     "phase",   "iterations", "look"};

static const char *col_name(int k) {
  return k < COL_METRIC ? key_names[k]
                        : bs_metric_get((bs_metric)(k - COL_METRIC))->column;
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
  case COL_LOOK:
    r->vst[k] = bs__num_u64(f, len, &r->vint[k]);
    keep = r->vst[k] || (k == COL_ITERATIONS && r->vint[k] == 0) ||
           (k == COL_BLOCK && r->vint[k] > (uint64_t)INT64_MAX) ||
           (k == COL_LOOK && r->vint[k] > BS_LOG_MAX_LOOK);
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
    r->colname[i] = bs__log_intern(r, r->rec + r->hdr[i].ofs, r->hdr[i].len);
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
    } else if (!bs_log_column_extra(r->colname[i]) &&
               add_unknown(log, r->file, r->colname[i], i + 1)) {
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
  const char *p = bs__log_intern(r, v, n);
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
  unsigned look = 0;
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
  if (has(r, COL_LOOK)) {
    if (r->vst[COL_LOOK] != BS__NUM_OK || r->vint[COL_LOOK] > BS_LOG_MAX_LOOK) {
      bad_value(r, COL_LOOK, "is not a look (0 to 3)", "");
      return;
    }
    look = (unsigned)r->vint[COL_LOOK] + 1;
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
    cid = bs__log_case_get(r, benchmark, dataset, id, &added);
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
  row->look = look & 7u;
  row->cid = (uint32_t)cid & 0x00FFFFFFu;
  for (int m = 1; m < BS_METRIC_COUNT; m++)
    if (log->values[m].p)
      ((double *)log->values[m].p)[id] = values[m];
  log->nrows++;
  ce->nrows++;
  if (phase == BS_PHASE_CONFIRM) {
    int failed;
    size_t first = bs__log_track(r, id, &failed);
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
    bs_status st = bs__log_rebuild_index(log);
    if (st == BS_ELIMIT)
      fail_memory_limit(&r, 0);
    else if (st)
      FAIL(&r, st, 0, 0, BS__OOM_TEXT);
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
      bs__log_case_rehash(log);
    bs__log_cases_rebuild(log, old_rows);
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
