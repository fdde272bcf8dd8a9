#include "benchsite/manifest.h"

#include "arena.h"
#include "benchsite/output.h"
#include "buf.h"

#include <csv.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bs_manifest_comparability_keys[BS_MANIFEST_NCOMPARABILITY] = {
    "target", "profile", "dtype", "machine", "frequency_policy", "protocol"};

/* Caps for hostile input: a manifest is a handful of short lines. */
#define MAX_FIELD ((size_t)65536)
#define MAX_ENTRIES ((size_t)100000)
#define MAX_FILE ((size_t)64 * 1024 * 1024)
#define CHUNK_MAX ((size_t)65536)
#define QUOTE_MAX ((size_t)40)
#define QBUF 256
#define EMPTY SIZE_MAX

typedef struct entry {
  const char *key, *value;
  long line;
} entry;

struct bs_manifest {
  bs__arena arena;
  const char *path;
  entry *ents;
  size_t n, cap;
  size_t *slot; /* open-addressing index of ents by key */
  size_t slot_cap;
};

static uint64_t hash_str(const char *s) {
  uint64_t h = 0xCBF29CE484222325u; /* FNV-1a */
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001B3u;
  }
  return h;
}

/* Returns the entry id holding `key`, or EMPTY. */
static size_t find(const bs_manifest *m, const char *key) {
  if (!m->slot_cap)
    return EMPTY;
  size_t mask = m->slot_cap - 1;
  for (size_t j = (size_t)hash_str(key) & mask; m->slot[j] != EMPTY;
       j = (j + 1) & mask) {
    if (strcmp(m->ents[m->slot[j]].key, key) == 0)
      return m->slot[j];
  }
  return EMPTY;
}

static void slot_insert(bs_manifest *m, size_t id) {
  size_t mask = m->slot_cap - 1;
  size_t j = (size_t)hash_str(m->ents[id].key) & mask;
  while (m->slot[j] != EMPTY)
    j = (j + 1) & mask;
  m->slot[j] = id;
}

static int add(bs_manifest *m, const char *key, size_t klen, const char *value,
               size_t vlen, long line) {
  if (m->n == m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 16;
    entry *t = realloc(m->ents, cap * sizeof *t);
    if (!t)
      return -1;
    m->ents = t;
    m->cap = cap;
  }
  if ((m->n + 1) * 2 > m->slot_cap) {
    size_t cap = m->slot_cap ? m->slot_cap * 2 : 32;
    size_t *t = malloc(cap * sizeof *t);
    if (!t)
      return -1;
    free(m->slot);
    m->slot = t;
    m->slot_cap = cap;
    for (size_t i = 0; i < cap; i++)
      m->slot[i] = EMPTY;
    for (size_t i = 0; i < m->n; i++)
      slot_insert(m, i);
  }
  entry *e = &m->ents[m->n];
  e->key = bs__arena_strndup(&m->arena, key, klen);
  e->value = bs__arena_strndup(&m->arena, value, vlen);
  e->line = line;
  if (!e->key || !e->value)
    return -1;
  slot_insert(m, m->n++);
  return 0;
}

static void init(bs_manifest *m) {
  memset(m, 0, sizeof *m);
  bs__arena_init(&m->arena);
  m->path = "";
}

static void release(bs_manifest *m) {
  bs__arena_release(&m->arena);
  free(m->ents);
  free(m->slot);
  init(m);
}

/* ---- messages ---- */

/* Quotes `s` for a message: escapes quotes, backslashes and control bytes,
 * keeps at most QUOTE_MAX bytes (cut at a character boundary) plus "...". */
static const char *quote(char *out, const char *s) {
  size_t n = strlen(s), lim = n, o = 0;
  if (lim > QUOTE_MAX) {
    lim = QUOTE_MAX;
    while (lim > 0 && ((unsigned char)s[lim] & 0xC0) == 0x80)
      lim--;
  }
  out[o++] = '"';
  for (size_t i = 0; i < lim; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') {
      out[o++] = '\\';
      out[o++] = (char)c;
    } else if (c == '\n' || c == '\r' || c == '\t') {
      out[o++] = '\\';
      out[o++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
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
  out[o++] = '"';
  out[o] = '\0';
  return out;
}

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

typedef struct reader {
  bs_manifest *m;
  const char *name;
  bs_error *err;
  bs_status status;
  long line, rec_line;
  int in_record, have_header;
  size_t nfields;
  bs__buf rec; /* the record's first two fields, each NUL-ended */
  size_t ofs[2], len[2];
} reader;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static void
fail(reader *r, bs_status st, long line, const char *fmt, ...) {
  if (r->status)
    return;
  char msg[sizeof r->err->message];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  r->status = st;
  bs_error_set(r->err, st, r->name, line, "%s", msg);
}

static const char *const field_name[2] = {"key", "value"};

static void on_field(void *s, size_t len, void *data) {
  reader *r = data;
  if (r->status)
    return;
  size_t idx = r->nfields++;
  if (len > MAX_FIELD) {
    fail(r, BS_ELIMIT, r->rec_line, "field longer than %zu bytes", MAX_FIELD);
    return;
  }
  if (idx >= 2)
    return; /* only counted */
  const char *f = len ? s : "";
  if (memchr(f, '\0', len)) {
    fail(r, BS_EINPUT, r->rec_line, "column %s: contains a NUL byte",
         field_name[idx]);
    return;
  }
  size_t bad = utf8_invalid_at((const unsigned char *)f, len);
  if (bad < len) {
    fail(r, BS_EINPUT, r->rec_line,
         "column %s: invalid UTF-8 at byte %zu of the field", field_name[idx],
         bad + 1);
    return;
  }
  r->ofs[idx] = r->rec.len;
  r->len[idx] = len;
  if (bs__buf_append(&r->rec, f, len) || bs__buf_putc(&r->rec, '\0'))
    fail(r, BS_ENOMEM, r->rec_line, "out of memory");
}

static void on_record(int c, void *data) {
  (void)c;
  reader *r = data;
  const char *key = r->rec.data + r->ofs[0];
  const char *value = r->rec.data + r->ofs[1];
  if (r->status) {
    /* already failed */
  } else if (!r->have_header) {
    if (r->nfields != 2 || strcmp(key, "key") != 0 ||
        strcmp(value, "value") != 0)
      fail(r, BS_EINPUT, r->rec_line, "header must be \"key,value\"");
    r->have_header = 1;
  } else if (r->nfields != 2) {
    fail(r, BS_EINPUT, r->rec_line, "expected 2 fields, found %zu", r->nfields);
  } else if (!*key) {
    fail(r, BS_EINPUT, r->rec_line, "column key: must not be empty");
  } else if (r->m->n >= MAX_ENTRIES) {
    fail(r, BS_ELIMIT, r->rec_line, "more than %zu entries", MAX_ENTRIES);
  } else {
    size_t first = find(r->m, key);
    char q[QBUF];
    if (first != EMPTY)
      fail(r, BS_EINPUT, r->rec_line, "duplicate key %s (first at line %ld)",
           quote(q, key), r->m->ents[first].line);
    else if (add(r->m, key, r->len[0], value, r->len[1], r->rec_line))
      fail(r, BS_ENOMEM, r->rec_line, "out of memory");
  }
  r->nfields = 0;
  r->in_record = 0;
  r->ofs[0] = r->ofs[1] = 0;
  bs__buf_reset(&r->rec);
}

static int no_space(unsigned char c) {
  (void)c;
  return 0;
}

static int is_eol(unsigned char c) { return c == '\n' || c == '\r'; }

/* The same line-tracking feed as the log reader (log.c): libcsv gets pieces
 * that end after each line ending, so every record's first line is known. */
static void parse(reader *r, const unsigned char *data, size_t len) {
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI) != 0) {
    fail(r, BS_ENOMEM, 0, "out of memory");
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
    size_t end = pos;
    while (end < lim && !is_eol(data[end]))
      end++;
    if (end < lim)
      end++;
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
        fail(r, BS_ENOMEM, r->line, "out of memory");
      else if (e == CSV_ETOOBIG)
        fail(r, BS_ELIMIT, r->line, "field too large");
      else if (data[at] == '"')
        fail(r, BS_EINPUT, r->line,
             "malformed CSV: quote inside an unquoted field (byte %ld of "
             "the line)",
             col);
      else
        fail(r, BS_EINPUT, r->line,
             "malformed CSV: text after a closing quote (byte %ld of the "
             "line)",
             col);
      break;
    }
    if (p.entry_pos > MAX_FIELD) {
      fail(r, BS_ELIMIT, r->rec_line, "field longer than %zu bytes", MAX_FIELD);
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
    fail(r, BS_EINPUT, r->rec_line,
         "malformed CSV: quoted field not closed at end of file");
  csv_free(&p);
  if (!r->status && !r->have_header)
    fail(r, BS_EINPUT, 1, "header must be \"key,value\"");
}

/* ---- public API ---- */

bs_manifest *bs_manifest_new(void) {
  bs_manifest *m = malloc(sizeof *m);
  if (m)
    init(m);
  return m;
}

void bs_manifest_free(bs_manifest *m) {
  if (!m)
    return;
  release(m);
  free(m);
}

bs_status bs_manifest_read_buffer(bs_manifest *m, const char *name,
                                  const char *data, size_t len, bs_error *err) {
  if (!name)
    name = "";
  release(m);
  reader r;
  memset(&r, 0, sizeof r);
  r.m = m;
  r.name = name;
  r.err = err;
  bs__buf_init(&r.rec, 0);
  /* Both fields of a record point at a NUL even when a field is missing. */
  if (bs__buf_putc(&r.rec, '\0') != BS_OK)
    fail(&r, BS_ENOMEM, 0, "out of memory");
  bs__buf_reset(&r.rec);
  if (!r.status)
    parse(&r, (const unsigned char *)(data ? data : ""), data ? len : 0);
  if (!r.status) {
    m->path = bs__arena_strndup(&m->arena, name, strlen(name));
    if (!m->path)
      fail(&r, BS_ENOMEM, 0, "out of memory");
  }
  bs__buf_release(&r.rec);
  if (r.status) {
    release(m);
    return r.status;
  }
  bs_error_clear(err);
  return BS_OK;
}

bs_status bs_manifest_read_file(bs_manifest *m, const char *path,
                                bs_error *err) {
  char *data = NULL;
  size_t len = 0;
  bs_status st = bs_read_file(path, MAX_FILE, &data, &len, err);
  if (st) {
    release(m);
    return st;
  }
  st = bs_manifest_read_buffer(m, path, data, len, err);
  free(data);
  return st;
}

const char *bs_manifest_path(const bs_manifest *m) { return m->path; }

size_t bs_manifest_count(const bs_manifest *m) { return m->n; }

const char *bs_manifest_key(const bs_manifest *m, size_t i) {
  return i < m->n ? m->ents[i].key : NULL;
}

const char *bs_manifest_value(const bs_manifest *m, size_t i) {
  return i < m->n ? m->ents[i].value : NULL;
}

const char *bs_manifest_get(const bs_manifest *m, const char *key) {
  if (!m || !key)
    return NULL;
  size_t i = find(m, key);
  return i == EMPTY ? NULL : m->ents[i].value;
}

int bs_manifest_comparable(const bs_manifest *a, const bs_manifest *b,
                           const char **differing, size_t *ndiffering) {
  size_t nd = 0;
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY; i++) {
    const char *key = bs_manifest_comparability_keys[i];
    const char *va = bs_manifest_get(a, key), *vb = bs_manifest_get(b, key);
    if (va && vb && strcmp(va, vb) == 0)
      continue;
    if (differing)
      differing[nd] = key;
    nd++;
  }
  if (ndiffering)
    *ndiffering = nd;
  return nd == 0;
}

bs_status bs_manifest_require_native(const bs_manifest *m, bs_error *err) {
  const char *target = bs_manifest_get(m, "target");
  if (!target || strcmp(target, "native") == 0)
    return BS_OK;
  char q[QBUF];
  return bs_error_set(err, BS_EINPUT, m->path, 0,
                      "target is %s, not native; benchsite makes performance "
                      "claims only for native builds",
                      quote(q, target));
}
