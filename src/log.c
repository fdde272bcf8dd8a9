#include "benchsite/log.h"

#include "arena.h"
#include "benchsite/output.h"
#include "buf.h"
#include "num.h"

#include <csv.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The columns SPEC §1.1 knows, in the order their values are checked. */
enum {
  COL_BENCHMARK,
  COL_DATASET,
  COL_SCALE,
  COL_IMPL,
  COL_RUN,
  COL_BLOCK,
  COL_PHASE,
  COL_ITERATIONS,
  COL_PER_CALL_US,
  NKNOWN
};

static const char *const known_names[NKNOWN] = {
    "benchmark", "dataset", "scale",      "impl",       "run",
    "block",     "phase",   "iterations", "per_call_us"};

#define DEFAULT_MAX_FIELD ((size_t)4096)
#define DEFAULT_MAX_COLUMNS ((size_t)256)
#define DEFAULT_MAX_ROWS ((size_t)50000000)
/* Bytes handed to csv_parse at most at once, so an overlong field is noticed
 * while libcsv is still buffering it. */
#define CHUNK_MAX ((size_t)65536)
/* How much of a value an error message quotes. */
#define QUOTE_MAX ((size_t)40)
#define QBUF 256
#define EMPTY SIZE_MAX

typedef struct intern_slot {
  const char *s; /* NULL when free */
  size_t len;
  uint64_t hash;
} intern_slot;

typedef struct case_ent {
  const char *benchmark; /* interned, so cases compare by pointer */
  const char *dataset;
  size_t first_row; /* its scale is the one every later row must repeat */
} case_ent;

typedef struct dup_slot {
  uint64_t hash;
  size_t row; /* EMPTY when free */
} dup_slot;

struct bs_log {
  bs__arena arena;
  bs_log_limits limits;

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

  /* Confirm rows keyed by (case, run, block, impl); the stored hash keeps
   * probes and growth away from the rows themselves. */
  dup_slot *dslot;
  size_t dslot_cap, dslot_n;

  /* The public case index, rebuilt after every successful read. */
  bs_case *index;
  size_t nindex;
  size_t *index_rows;

  bs_log_column *unknown;
  size_t nunknown, unknown_cap;
};

/* ---- hashing ---- */

static uint64_t mix64(uint64_t x) {
  /* splitmix64's finaliser: every input bit reaches every output bit. */
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9u;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBu;
  x ^= x >> 31;
  return x;
}

static uint64_t hash_bytes(const char *s, size_t n) {
  /* FNV-1a; names are short, so a byte loop is fast enough. */
  uint64_t h = 0xCBF29CE484222325u;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001B3u;
  }
  return h;
}

static const char *intern(bs_log *log, const char *s, size_t n) {
  if (n == 0)
    return "";
  if ((log->istr_n + 1) * 2 > log->istr_cap) {
    size_t cap = log->istr_cap ? log->istr_cap * 2 : 256;
    intern_slot *t = calloc(cap, sizeof *t);
    if (!t)
      return NULL;
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
  uint64_t h = hash_bytes(s, n);
  size_t mask = log->istr_cap - 1;
  size_t j = (size_t)h & mask;
  for (; log->istr[j].s; j = (j + 1) & mask) {
    intern_slot *e = &log->istr[j];
    if (e->hash == h && e->len == n && memcmp(e->s, s, n) == 0)
      return e->s;
  }
  char *copy = bs__arena_strndup(&log->arena, s, n);
  if (!copy)
    return NULL;
  log->istr[j].s = copy;
  log->istr[j].len = n;
  log->istr[j].hash = h;
  log->istr_n++;
  return copy;
}

static uint64_t case_hash(const char *b, const char *d) {
  return mix64((uint64_t)(uintptr_t)b * 0x9E3779B97F4A7C15u ^
               (uint64_t)(uintptr_t)d);
}

static void case_slot_insert(bs_log *log, size_t id) {
  const case_ent *c = &log->cases[id];
  size_t mask = log->cslot_cap - 1;
  size_t j = (size_t)case_hash(c->benchmark, c->dataset) & mask;
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
 * row when new (*added = 1). EMPTY when out of memory. */
static size_t case_get(bs_log *log, const char *b, const char *d, size_t row,
                       int *added) {
  *added = 0;
  if (log->cslot_cap) {
    size_t mask = log->cslot_cap - 1;
    for (size_t j = (size_t)case_hash(b, d) & mask; log->cslot[j] != EMPTY;
         j = (j + 1) & mask) {
      const case_ent *c = &log->cases[log->cslot[j]];
      if (c->benchmark == b && c->dataset == d)
        return log->cslot[j];
    }
  }
  if (log->ncases == log->cases_cap) {
    size_t cap = log->cases_cap ? log->cases_cap * 2 : 64;
    case_ent *t = realloc(log->cases, cap * sizeof *t);
    if (!t)
      return EMPTY;
    log->cases = t;
    log->cases_cap = cap;
  }
  if ((log->ncases + 1) * 2 > log->cslot_cap) {
    size_t cap = log->cslot_cap ? log->cslot_cap * 2 : 128;
    size_t *t = malloc(cap * sizeof *t);
    if (!t)
      return EMPTY;
    free(log->cslot);
    log->cslot = t;
    log->cslot_cap = cap;
    case_rehash(log);
  }
  size_t id = log->ncases++;
  log->cases[id].benchmark = b;
  log->cases[id].dataset = d;
  log->cases[id].first_row = row;
  case_slot_insert(log, id);
  *added = 1;
  return id;
}

static uint64_t dup_hash(size_t case_id, const bs_row *r) {
  uint64_t h = mix64((uint64_t)case_id);
  h = mix64(h ^ r->run);
  h = mix64(h ^ (uint64_t)r->block);
  return mix64(h ^ (uint64_t)(uintptr_t)r->impl);
}

static void dup_put(dup_slot *t, size_t cap, uint64_t h, size_t row) {
  size_t mask = cap - 1;
  size_t j = (size_t)h & mask;
  while (t[j].row != EMPTY)
    j = (j + 1) & mask;
  t[j].hash = h;
  t[j].row = row;
}

/* Refills the table from rows [0, nrows): used to forget a failed read. */
static void dup_rehash(bs_log *log, size_t nrows) {
  for (size_t i = 0; i < log->dslot_cap; i++)
    log->dslot[i].row = EMPTY;
  log->dslot_n = 0;
  for (size_t i = 0; i < nrows; i++) {
    if (log->rows[i].phase != BS_PHASE_CONFIRM)
      continue;
    dup_put(log->dslot, log->dslot_cap,
            dup_hash(log->row_case[i], &log->rows[i]), i);
    log->dslot_n++;
  }
}

/* Looks up the confirm row `row` (already stored at log->rows[row]); returns
 * the id of an earlier row with the same key, or EMPTY after inserting it.
 * *nomem is set when the table could not grow. */
static size_t dup_check(bs_log *log, size_t row, int *nomem) {
  *nomem = 0;
  if ((log->dslot_n + 1) * 2 > log->dslot_cap) {
    size_t cap = log->dslot_cap ? log->dslot_cap * 2 : 1024;
    dup_slot *t = malloc(cap * sizeof *t);
    if (!t) {
      *nomem = 1;
      return EMPTY;
    }
    for (size_t i = 0; i < cap; i++)
      t[i].row = EMPTY;
    for (size_t i = 0; i < log->dslot_cap; i++) {
      if (log->dslot[i].row != EMPTY)
        dup_put(t, cap, log->dslot[i].hash, log->dslot[i].row);
    }
    free(log->dslot);
    log->dslot = t;
    log->dslot_cap = cap;
  }
  const bs_row *r = &log->rows[row];
  size_t cid = log->row_case[row];
  uint64_t h = dup_hash(cid, r);
  size_t mask = log->dslot_cap - 1;
  size_t j = (size_t)h & mask;
  for (; log->dslot[j].row != EMPTY; j = (j + 1) & mask) {
    if (log->dslot[j].hash != h)
      continue;
    size_t o = log->dslot[j].row;
    const bs_row *q = &log->rows[o];
    if (log->row_case[o] == cid && q->run == r->run && q->block == r->block &&
        q->impl == r->impl)
      return o;
  }
  log->dslot[j].hash = h;
  log->dslot[j].row = row;
  log->dslot_n++;
  return EMPTY;
}

/* ---- messages ---- */

/* Writes the `n` bytes of `s` for a message: printable text as is, quotes,
 * backslashes and control characters (C0, DEL, C1) escaped, at most
 * QUOTE_MAX input bytes (cut at a character boundary) followed by "...".
 * `s` is valid UTF-8 (fields are checked before they are quoted). */
static const char *escape(char *out, const char *s, size_t n, int quoted) {
  size_t o = 0;
  size_t lim = n;
  if (lim > QUOTE_MAX) {
    lim = QUOTE_MAX;
    while (lim > 0 && ((unsigned char)s[lim] & 0xC0) == 0x80)
      lim--;
  }
  if (quoted)
    out[o++] = '"';
  for (size_t i = 0; i < lim; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c == '\n') {
      out[o++] = '\\';
      out[o++] = 'n';
    } else if (c == '\r') {
      out[o++] = '\\';
      out[o++] = 'r';
    } else if (c == '\t') {
      out[o++] = '\\';
      out[o++] = 't';
    } else if (c < 0x20 || c == 0x7F) {
      o += (size_t)snprintf(out + o, QBUF - o, "\\x%02x", c);
    } else if (c == 0xC2 && i + 1 < lim && (unsigned char)s[i + 1] >= 0x80 &&
               (unsigned char)s[i + 1] <= 0x9F) {
      o += (size_t)snprintf(out + o, QBUF - o, "\\u%04x",
                            (unsigned)(unsigned char)s[i + 1]);
      i++;
    } else {
      out[o++] = (char)c;
    }
  }
  if (lim < n) {
    memcpy(out + o, "...", 3);
    o += 3;
  }
  if (quoted)
    out[o++] = '"';
  out[o] = '\0';
  return out;
}

/* Shortest "%.*g" that reads back as the same double. */
static const char *fmt_num(char *out, size_t size, double v) {
  for (int prec = 6; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, v);
    if (strtod(out, NULL) == v)
      break;
  }
  return out;
}

/* Returns the offset of the first byte that does not belong to a valid UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF are
 * invalid), or `n` when all of `s` is valid. */
static size_t utf8_invalid_at(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t more;
    uint32_t cp, min;
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1, cp = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (n - i <= more)
      return i;
    for (size_t k = 1; k <= more; k++) {
      unsigned b = s[i + k];
      if ((b & 0xC0) != 0x80)
        return i;
      cp = cp << 6 | (b & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return i;
    i += more + 1;
  }
  return n;
}

/* ---- the reader ---- */

typedef struct span {
  size_t ofs, len;
} span;

typedef struct reader {
  bs_log *log;
  const char *name; /* as given, for messages */
  const char *file; /* arena copy, for rows */
  bs_error *err;
  bs_status status;
  long line;     /* line of the byte being fed */
  long rec_line; /* line where the current record starts */
  int in_record;
  int have_header;
  size_t nfields; /* fields of the current record so far */
  size_t ncols;
  const char **colname; /* header names, ncols of them */
  long colof[NKNOWN];   /* header position of each known column, -1 absent */
  bs__buf rec;          /* the current record's fields, each NUL-ended */
  span *fld;
  size_t fld_cap;
  size_t max_field, max_cols, max_rows;
  /* Logs repeat names row after row: the previous row's interned names and
   * case are tried before hashing. */
  const char *last[NKNOWN];
  size_t last_len[NKNOWN];
  const char *last_b, *last_d;
  size_t last_case;
} reader;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static void
fail(reader *r, bs_status st, long line, long column, const char *fmt, ...) {
  if (r->status)
    return;
  char msg[sizeof r->err->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->status = st;
  bs_error_set(r->err, st, r->name, line, "%s", msg);
  if (r->err)
    r->err->column = column;
}

static void fail_nomem(reader *r) {
  fail(r, BS_ENOMEM, r->rec_line, 0, "out of memory");
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
    snprintf(out, QBUF, "column %s", escape(esc, name, strlen(name), 0));
  return out;
}

static void on_field(void *s, size_t len, void *data) {
  reader *r = data;
  if (r->status)
    return;
  size_t idx = r->nfields++;
  if (len > r->max_field) {
    fail(r, BS_ELIMIT, r->rec_line, 0, "field longer than %zu bytes",
         r->max_field);
    return;
  }
  if (!r->have_header) {
    if (idx >= r->max_cols) {
      fail(r, BS_ELIMIT, r->rec_line, 0, "more than %zu columns", r->max_cols);
      return;
    }
  } else if (idx >= r->ncols) {
    return; /* only counted: the record is refused at its end */
  }
  /* Not CSV_APPEND_NULL: some libcsv releases put that NUL one byte late, so
   * fields are measured by `len` and terminated here. */
  const char *f = s ? s : "";
  const unsigned char *u = (const unsigned char *)f;
  size_t i = 0;
  while (i < len && (unsigned char)(u[i] - 1) < 0x7F)
    i++; /* the common case: ASCII without NUL */
  if (i < len) {
    char label[QBUF];
    if (memchr(f + i, '\0', len - i)) {
      fail(r, BS_EINPUT, r->rec_line, (long)idx + 1, "%s: contains a NUL byte",
           column_label(r, idx, label));
      return;
    }
    size_t bad = i + utf8_invalid_at(u + i, len - i);
    if (bad < len) {
      fail(r, BS_EINPUT, r->rec_line, (long)idx + 1,
           "%s: invalid UTF-8 at byte %zu of the field",
           column_label(r, idx, label), bad + 1);
      return;
    }
  }
  if (idx >= r->fld_cap) {
    size_t cap = r->fld_cap ? r->fld_cap * 2 : 16;
    span *t = realloc(r->fld, cap * sizeof *t);
    if (!t) {
      fail_nomem(r);
      return;
    }
    r->fld = t;
    r->fld_cap = cap;
  }
  r->fld[idx].ofs = r->rec.len;
  r->fld[idx].len = len;
  if (bs__buf_append(&r->rec, f, len) || bs__buf_putc(&r->rec, '\0'))
    fail_nomem(r);
}

static int add_unknown(bs_log *log, const char *file, const char *name,
                       size_t index) {
  if (log->nunknown == log->unknown_cap) {
    size_t cap = log->unknown_cap ? log->unknown_cap * 2 : 8;
    bs_log_column *t = realloc(log->unknown, cap * sizeof *t);
    if (!t)
      return -1;
    log->unknown = t;
    log->unknown_cap = cap;
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
  r->colname = bs__arena_alloc(&log->arena, (n ? n : 1) * sizeof *r->colname);
  if (!r->colname) {
    fail_nomem(r);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    r->colname[i] = intern(log, r->rec.data + r->fld[i].ofs, r->fld[i].len);
    if (!r->colname[i]) {
      fail_nomem(r);
      return;
    }
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
    size_t j = (size_t)mix64((uint64_t)(uintptr_t)name) & (cap - 1);
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
      fail(r, BS_EINPUT, r->rec_line, (long)second + 1,
           "column %s: appears twice in the header",
           escape(esc, name, strlen(name), 0));
    else
      fail(r, BS_EINPUT, r->rec_line, (long)second + 1,
           "column \"\": appears twice in the header");
    return;
  }

  size_t old_unknown = log->nunknown;
  for (size_t k = 0; k < NKNOWN; k++)
    r->colof[k] = -1;
  for (size_t i = 0; i < n; i++) {
    size_t k = 0;
    while (k < NKNOWN && strcmp(r->colname[i], known_names[k]) != 0)
      k++;
    if (k < NKNOWN) {
      r->colof[k] = (long)i;
    } else if (add_unknown(log, r->file, r->colname[i], i + 1)) {
      log->nunknown = old_unknown;
      fail_nomem(r);
      return;
    }
  }
  static const int required[] = {COL_BENCHMARK, COL_IMPL, COL_PER_CALL_US};
  for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
    if (r->colof[required[i]] < 0) {
      fail(r, BS_EINPUT, r->rec_line, 0, "missing required column \"%s\"",
           known_names[required[i]]);
      return;
    }
  }
  span *t = realloc(r->fld, (n ? n : 1) * sizeof *t);
  if (!t) {
    fail_nomem(r);
    return;
  }
  r->fld = t;
  r->fld_cap = n ? n : 1;
}

static const char *intern_col(reader *r, int k, const char *v, size_t n) {
  if (n == 0)
    return "";
  if (r->last[k] && r->last_len[k] == n && memcmp(r->last[k], v, n) == 0)
    return r->last[k];
  const char *p = intern(r->log, v, n);
  r->last[k] = p;
  r->last_len[k] = n;
  return p;
}

/* The value of known column k in the current record, or NULL when the
 * header lacks it. */
static const char *value(reader *r, int k, size_t *len) {
  long c = r->colof[k];
  if (c < 0) {
    *len = 0;
    return NULL;
  }
  *len = r->fld[c].len;
  return r->rec.data + r->fld[c].ofs;
}

static void bad_value(reader *r, int k, const char *v, size_t n,
                      const char *what) {
  char q[QBUF];
  fail(r, BS_EINPUT, r->rec_line, r->colof[k] + 1, "column %s: %s %s",
       known_names[k], escape(q, v, n, 1), what);
}

/* Parses a non-negative integer; "-1" and "x" are "not a non-negative
 * integer", an all-digit value that overflows is "too large". */
static int parse_count(reader *r, int k, const char *v, size_t n, uint64_t max,
                       const char *what, uint64_t *out) {
  if (bs__parse_u64(v, out) == 0 && *out <= max)
    return 0;
  if (n && strspn(v, "0123456789") == n)
    what = "is too large";
  bad_value(r, k, v, n, what);
  return -1;
}

static void data_record(reader *r) {
  bs_log *log = r->log;
  if (r->nfields != r->ncols) {
    fail(r, BS_EINPUT, r->rec_line, 0, "expected %zu field%s, found %zu",
         r->ncols, r->ncols == 1 ? "" : "s", r->nfields);
    return;
  }
  if (log->nrows >= r->max_rows) {
    fail(r, BS_ELIMIT, r->rec_line, 0, "more than %zu rows", r->max_rows);
    return;
  }
  bs_row row;
  memset(&row, 0, sizeof row);
  row.file = r->file;
  row.line = r->rec_line;
  row.block = -1;
  row.phase = BS_PHASE_CONFIRM;

  size_t n;
  const char *v = value(r, COL_BENCHMARK, &n);
  if (!n) {
    fail(r, BS_EINPUT, r->rec_line, r->colof[COL_BENCHMARK] + 1,
         "column benchmark: must not be empty");
    return;
  }
  if (!(row.benchmark = intern_col(r, COL_BENCHMARK, v, n)))
    goto nomem;
  v = value(r, COL_DATASET, &n);
  if (!(row.dataset = intern_col(r, COL_DATASET, v, n)))
    goto nomem;
  v = value(r, COL_SCALE, &n);
  if (n) {
    if (bs__parse_double(v, &row.scale) != 0 || !(row.scale > 0)) {
      bad_value(r, COL_SCALE, v, n, "is not a positive number");
      return;
    }
    row.has_scale = 1;
  }
  v = value(r, COL_IMPL, &n);
  if (!n) {
    fail(r, BS_EINPUT, r->rec_line, r->colof[COL_IMPL] + 1,
         "column impl: must not be empty");
    return;
  }
  if (!(row.impl = intern_col(r, COL_IMPL, v, n)))
    goto nomem;
  v = value(r, COL_RUN, &n);
  if (n && parse_count(r, COL_RUN, v, n, UINT64_MAX,
                       "is not a non-negative integer", &row.run))
    return;
  v = value(r, COL_BLOCK, &n);
  if (n) {
    uint64_t b;
    if (parse_count(r, COL_BLOCK, v, n, (uint64_t)INT64_MAX,
                    "is not a non-negative integer", &b))
      return;
    row.block = (int64_t)b;
  }
  v = value(r, COL_PHASE, &n);
  if (n) {
    if (strcmp(v, "calibration") == 0) {
      row.phase = BS_PHASE_CALIBRATION;
    } else if (strcmp(v, "confirm") != 0) {
      bad_value(r, COL_PHASE, v, n, "is not calibration or confirm");
      return;
    }
  }
  v = value(r, COL_ITERATIONS, &n);
  if (n) {
    if (parse_count(r, COL_ITERATIONS, v, n, UINT64_MAX,
                    "is not a positive integer", &row.iterations))
      return;
    if (row.iterations == 0) {
      bad_value(r, COL_ITERATIONS, v, n, "is not a positive integer");
      return;
    }
  }
  v = value(r, COL_PER_CALL_US, &n);
  if (!n) {
    fail(r, BS_EINPUT, r->rec_line, r->colof[COL_PER_CALL_US] + 1,
         "column per_call_us: must not be empty");
    return;
  }
  if (bs__parse_double(v, &row.per_call_us) != 0 || !(row.per_call_us > 0)) {
    bad_value(r, COL_PER_CALL_US, v, n, "is not a positive number");
    return;
  }
  if (row.phase == BS_PHASE_CONFIRM && row.block < 0) {
    fail(r, BS_EINPUT, r->rec_line, r->colof[COL_BLOCK] + 1,
         "column block: missing for a confirm row");
    return;
  }

  /* Whole-log checks: against every row read so far, in any file. */
  if (log->nrows == log->rows_cap) {
    size_t cap = log->rows_cap ? log->rows_cap * 2 : 1024;
    bs_row *t = realloc(log->rows, cap * sizeof *t);
    if (!t)
      goto nomem;
    log->rows = t;
    size_t *u = realloc(log->row_case, cap * sizeof *u);
    if (!u)
      goto nomem;
    log->row_case = u;
    log->rows_cap = cap;
  }
  size_t id = log->nrows;
  int added = 0;
  size_t cid = r->last_case;
  if (row.benchmark != r->last_b || row.dataset != r->last_d) {
    cid = case_get(log, row.benchmark, row.dataset, id, &added);
    if (cid == EMPTY)
      goto nomem;
    r->last_b = row.benchmark;
    r->last_d = row.dataset;
    r->last_case = cid;
  }
  if (!added) {
    const bs_row *f = &log->rows[log->cases[cid].first_row];
    if (f->has_scale != row.has_scale ||
        (row.has_scale && f->scale != row.scale)) {
      char q[QBUF], num[64];
      long col = r->colof[COL_SCALE] + 1;
      v = value(r, COL_SCALE, &n);
      if (!row.has_scale)
        fail(r, BS_EINPUT, r->rec_line, col,
             "column scale: missing, but %s at %s:%ld (same benchmark and "
             "dataset)",
             fmt_num(num, sizeof num, f->scale), f->file, f->line);
      else if (!f->has_scale)
        fail(r, BS_EINPUT, r->rec_line, col,
             "column scale: %s, but none at %s:%ld (same benchmark and "
             "dataset)",
             escape(q, v, n, 1), f->file, f->line);
      else
        fail(r, BS_EINPUT, r->rec_line, col,
             "column scale: %s differs from %s at %s:%ld (same benchmark "
             "and dataset)",
             escape(q, v, n, 1), fmt_num(num, sizeof num, f->scale), f->file,
             f->line);
      return;
    }
  }
  log->rows[id] = row;
  log->row_case[id] = cid;
  log->nrows++;
  if (row.phase == BS_PHASE_CONFIRM) {
    int nomem;
    size_t first = dup_check(log, id, &nomem);
    if (nomem)
      goto nomem;
    if (first != EMPTY) {
      const bs_row *f = &log->rows[first];
      char qb[QBUF], qd[QBUF], qi[QBUF];
      fail(r, BS_EINPUT, r->rec_line, 0,
           "duplicate confirm row for benchmark %s, dataset %s, run %llu, "
           "block %lld, impl %s (first at %s:%ld)",
           escape(qb, row.benchmark, strlen(row.benchmark), 1),
           escape(qd, row.dataset, strlen(row.dataset), 1),
           (unsigned long long)row.run, (long long)row.block,
           escape(qi, row.impl, strlen(row.impl), 1), f->file, f->line);
      return;
    }
  }
  return;
nomem:
  fail_nomem(r);
}

static void on_record(int c, void *data) {
  (void)c;
  reader *r = data;
  if (!r->status) {
    if (r->have_header)
      data_record(r);
    else
      header_record(r);
  }
  r->nfields = 0;
  r->in_record = 0;
  bs__buf_reset(&r->rec);
}

/* libcsv trims blanks around unquoted fields by default; RFC 4180 keeps
 * them, and " 3" is not a number, so nothing counts as a blank. */
static int no_space(unsigned char c) {
  (void)c;
  return 0;
}

static int is_eol(unsigned char c) { return c == '\n' || c == '\r'; }

/* Feeds `data` to libcsv in pieces that end after each CR or LF, so the line
 * of every byte handed over is known: a record starts on the line of the
 * first piece that begins with something other than a line ending while no
 * record is open. CRLF, LF and a lone CR each end one line. */
static void parse(reader *r, const unsigned char *data, size_t len) {
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    fail(r, BS_ENOMEM, 0, 0, "out of memory");
    return;
  }
  csv_set_space_func(&p, no_space);
  size_t pos = 0;
  if (len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
    pos = 3;
  size_t line_start = pos;
  r->line = 1;
  while (pos < len && !r->status) {
    size_t lim = len - pos > CHUNK_MAX ? pos + CHUNK_MAX : len;
    const unsigned char *nl = memchr(data + pos, '\n', lim - pos);
    size_t end = nl ? (size_t)(nl - data) : lim;
    const unsigned char *cr = memchr(data + pos, '\r', end - pos);
    if (cr)
      end = (size_t)(cr - data);
    if (end < lim)
      end++; /* the line ending goes with its line */
    if (!r->in_record && !is_eol(data[pos])) {
      r->in_record = 1;
      r->rec_line = r->line;
    }
    size_t n = end - pos;
    size_t got = csv_parse(&p, data + pos, n, on_field, on_record, r);
    if (r->status)
      break;
    if (got < n) {
      size_t at = pos + got;
      long col = (long)(at - line_start) + 1;
      int e = csv_error(&p);
      if (e == CSV_ENOMEM)
        fail(r, BS_ENOMEM, r->line, col, "out of memory");
      else if (e == CSV_ETOOBIG)
        fail(r, BS_ELIMIT, r->line, col, "field too large");
      else if (data[at] == '"')
        fail(r, BS_EINPUT, r->line, col,
             "malformed CSV: quote inside an unquoted field (byte %ld of "
             "the line)",
             col);
      else
        fail(r, BS_EINPUT, r->line, col,
             "malformed CSV: text after a closing quote (byte %ld of the "
             "line)",
             col);
      break;
    }
    if (p.entry_pos > r->max_field) {
      fail(r, BS_ELIMIT, r->rec_line, 0, "field longer than %zu bytes",
           r->max_field);
      break;
    }
    unsigned char last = data[end - 1];
    if (last == '\n' || (last == '\r' && (end == len || data[end] != '\n'))) {
      r->line++;
      line_start = end;
    }
    pos = end;
  }
  if (!r->status && csv_fini(&p, on_field, on_record, r) != 0)
    fail(r, BS_EINPUT, r->rec_line, 0,
         "malformed CSV: quoted field not closed at end of file");
  csv_free(&p);
  if (!r->status && !r->have_header)
    fail(r, BS_EINPUT, 0, 0, "empty file: no header row");
}

/* ---- the public case index ---- */

typedef struct sort_ent {
  const char *benchmark, *dataset;
  size_t id;
} sort_ent;

static int cmp_case(const void *a, const void *b) {
  const sort_ent *x = a, *y = b;
  int c = strcmp(x->benchmark, y->benchmark);
  return c ? c : strcmp(x->dataset, y->dataset);
}

static bs_status rebuild_index(bs_log *log) {
  size_t nc = log->ncases, nr = log->nrows;
  sort_ent *ord = malloc((nc ? nc : 1) * sizeof *ord);
  size_t *rank = malloc((nc ? nc : 1) * sizeof *rank);
  size_t *start = calloc(nc + 1, sizeof *start);
  bs_case *index = malloc((nc ? nc : 1) * sizeof *index);
  size_t *rows = malloc((nr ? nr : 1) * sizeof *rows);
  if (!ord || !rank || !start || !index || !rows)
    goto fail;
  for (size_t i = 0; i < nc; i++) {
    ord[i].benchmark = log->cases[i].benchmark;
    ord[i].dataset = log->cases[i].dataset;
    ord[i].id = i;
  }
  qsort(ord, nc, sizeof *ord, cmp_case);
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
  return log;
}

void bs_log_free(bs_log *log) {
  if (!log)
    return;
  bs__arena_release(&log->arena);
  free(log->rows);
  free(log->row_case);
  free(log->istr);
  free(log->cases);
  free(log->cslot);
  free(log->dslot);
  free(log->index);
  free(log->index_rows);
  free(log->unknown);
  free(log);
}

void bs_log_set_limits(bs_log *log, const bs_log_limits *limits) {
  bs_log_limits l = {0, 0, 0};
  if (limits)
    l = *limits;
  log->limits.max_field_bytes =
      l.max_field_bytes ? l.max_field_bytes : DEFAULT_MAX_FIELD;
  log->limits.max_columns = l.max_columns ? l.max_columns : DEFAULT_MAX_COLUMNS;
  log->limits.max_rows = l.max_rows ? l.max_rows : DEFAULT_MAX_ROWS;
}

bs_status bs_log_read_buffer(bs_log *log, const char *name, const char *data,
                             size_t len, bs_error *err) {
  if (!name)
    name = "";
  reader r;
  memset(&r, 0, sizeof r);
  r.log = log;
  r.name = name;
  r.err = err;
  r.max_field = log->limits.max_field_bytes;
  r.max_cols = log->limits.max_columns;
  r.max_rows = log->limits.max_rows;
  bs__buf_init(&r.rec, 0);
  size_t old_rows = log->nrows, old_cases = log->ncases;
  size_t old_unknown = log->nunknown;
  r.file = bs__arena_strndup(&log->arena, name, strlen(name));
  if (!r.file)
    fail(&r, BS_ENOMEM, 0, 0, "out of memory");
  else
    parse(&r, (const unsigned char *)(data ? data : ""), data ? len : 0);
  if (!r.status && rebuild_index(log) != BS_OK)
    fail(&r, BS_ENOMEM, 0, 0, "out of memory");
  if (r.status) {
    /* Forget this file: rows, cases and unknown columns it added. Tables
     * only shrink here, so rebuilding them needs no allocation. */
    log->nrows = old_rows;
    log->ncases = old_cases;
    log->nunknown = old_unknown;
    if (log->cslot_cap)
      case_rehash(log);
    if (log->dslot_cap)
      dup_rehash(log, old_rows);
  } else {
    bs_error_clear(err);
  }
  bs__buf_release(&r.rec);
  free(r.fld);
  return r.status;
}

bs_status bs_log_read_file(bs_log *log, const char *path, bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = bs_read_file(path, 0, &data, &len, err);
  if (st)
    return st;
  st = bs_log_read_buffer(log, path, data, len, err);
  free(data);
  return st;
}

size_t bs_log_count(const bs_log *log) { return log->nrows; }

const bs_row *bs_log_rows(const bs_log *log) { return log->rows; }

size_t bs_log_case_count(const bs_log *log) { return log->nindex; }

const bs_case *bs_log_case(const bs_log *log, size_t i) {
  return i < log->nindex ? &log->index[i] : NULL;
}

size_t bs_log_unknown_count(const bs_log *log) { return log->nunknown; }

const bs_log_column *bs_log_unknown(const bs_log *log, size_t i) {
  return i < log->nunknown ? &log->unknown[i] : NULL;
}
