#include "benchsite/manifest.h"

#include "arena.h"
#include "buf.h"
#include "csvin.h"
#include "grow.h"
#include "input_int.h"
#include "oom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const bs_manifest_comparability_keys[BS_MANIFEST_NCOMPARABILITY] = {
    "target",           "profile",  "dtype", "machine",
    "frequency_policy", "protocol", "duet"};

/* Keys whose absence means a known value: runs before duet mode existed,
 * and sequential runs since, do not record "duet". */
static const struct {
  const char *key, *value;
} comparability_defaults[] = {{"duet", "0"}};

/* Caps for hostile input: a manifest is a handful of short lines, and every
 * entry is shown in every report, so these are far below the log's. */
#define MAX_FIELD ((size_t)65536)
#define MAX_ENTRIES ((size_t)10000)
#define MAX_BYTES ((size_t)16 * 1024 * 1024) /* file size */
#define QBUF BS__QUOTE_BUF
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
    entry *t = BS__GROW(m->ents, m->cap, m->n + 1, 16);
    if (!t)
      return -1;
    m->ents = t;
  }
  if ((m->n + 1) * 2 > m->slot_cap) {
    size_t cap = bs__grow_cap(m->slot_cap, m->slot_cap + 1, 32, sizeof(size_t));
    size_t *t = cap ? malloc(cap * sizeof *t) : NULL;
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

static const char *quote(char *out, const char *s) {
  return bs__csvin_quote(out, s, strlen(s), 1);
}

/* ---- the reader ---- */

typedef struct reader {
  bs__csvin in; /* the feed; in.status is the reader's status */
  bs_manifest *m;
  int have_header;
  size_t nfields;
  bs__buf rec; /* the record's first two fields, each NUL-ended */
  size_t ofs[2], len[2];
} reader;

#define FAIL(r, st, line, ...)                                                 \
  bs__csvin_fail(&(r)->in, (st), (line), 0, __VA_ARGS__)

static const char *const field_name[2] = {"key", "value"};

static void on_field(void *ctx, const char *s, size_t len) {
  reader *r = ctx;
  size_t idx = r->nfields++;
  if (len > MAX_FIELD) {
    FAIL(r, BS_ELIMIT, r->in.rec_line, "field longer than %zu bytes",
         MAX_FIELD);
    return;
  }
  if (idx >= 2)
    return; /* only counted */
  const char *f = len ? s : "";
  if (memchr(f, '\0', len)) {
    FAIL(r, BS_EINPUT, r->in.rec_line, "column %s: contains a NUL byte",
         field_name[idx]);
    return;
  }
  size_t bad = bs__utf8_invalid_at((const unsigned char *)f, len);
  if (bad < len) {
    FAIL(r, BS_EINPUT, r->in.rec_line,
         "column %s: invalid UTF-8 at byte %zu of the field", field_name[idx],
         bad + 1);
    return;
  }
  r->ofs[idx] = r->rec.len;
  r->len[idx] = len;
  if (bs__buf_append(&r->rec, f, len) || bs__buf_putc(&r->rec, '\0'))
    FAIL(r, BS_ENOMEM, r->in.rec_line, BS__OOM_TEXT);
}

static void on_record(void *ctx) {
  reader *r = ctx;
  const char *key = r->rec.data + r->ofs[0];
  const char *value = r->rec.data + r->ofs[1];
  long line = r->in.rec_line;
  if (!r->have_header) {
    if (r->nfields != 2 || strcmp(key, "key") != 0 ||
        strcmp(value, "value") != 0)
      FAIL(r, BS_EINPUT, line, "header must be \"key,value\"");
    r->have_header = 1;
  } else if (r->nfields != 2) {
    FAIL(r, BS_EINPUT, line, "expected 2 fields, found %zu", r->nfields);
  } else if (!*key) {
    FAIL(r, BS_EINPUT, line, "column key: must not be empty");
  } else if (r->m->n >= MAX_ENTRIES) {
    FAIL(r, BS_ELIMIT, line, "more than %zu entries", MAX_ENTRIES);
  } else {
    size_t first = find(r->m, key);
    char q[QBUF];
    if (first != EMPTY)
      FAIL(r, BS_EINPUT, line, "duplicate key %s (first at line %ld)",
           quote(q, key), r->m->ents[first].line);
    else if (add(r->m, key, r->len[0], value, r->len[1], line))
      FAIL(r, BS_ENOMEM, line, BS__OOM_TEXT);
  }
  r->nfields = 0;
  r->ofs[0] = r->ofs[1] = 0;
  bs__buf_reset(&r->rec);
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

static bs_status read_manifest(bs_manifest *m, const char *name, int is_file,
                               const char *data, size_t len, bs_error *err) {
  if (!name)
    name = "";
  release(m);
  reader r;
  memset(&r, 0, sizeof r);
  r.m = m;
  bs__buf_init(&r.rec, BS__CAP_MANIFEST_RECORD);
  if (bs__csvin_init(&r.in, name, err, MAX_FIELD, on_field, on_record, &r) ==
      BS_OK) {
    r.in.max_bytes = MAX_BYTES;
    /* Both fields of a record point at a NUL even when one is missing. */
    if (bs__buf_putc(&r.rec, '\0') != BS_OK)
      FAIL(&r, BS_ENOMEM, 0, BS__OOM_TEXT);
    bs__buf_reset(&r.rec);
    if (is_file) {
      r.in.archived = is_file == 2;
      bs__csvin_feed_file(&r.in, name);
    } else if (bs__csvin_feed(&r.in, data ? data : "", data ? len : 0) == BS_OK)
      bs__csvin_finish(&r.in);
  }
  if (!r.in.status && !r.have_header)
    FAIL(&r, BS_EINPUT, 1, "header must be \"key,value\"");
  if (!r.in.status) {
    m->path = bs__arena_strndup(&m->arena, name, strlen(name));
    if (!m->path)
      FAIL(&r, BS_ENOMEM, 0, BS__OOM_TEXT);
  }
  bs__csvin_release(&r.in);
  bs__buf_release(&r.rec);
  if (r.in.status) {
    release(m);
    return r.in.status;
  }
  bs_error_clear(err);
  return BS_OK;
}

bs_status bs_manifest_read_buffer(bs_manifest *m, const char *name,
                                  const char *data, size_t len, bs_error *err) {
  return read_manifest(m, name, 0, data, len, err);
}

bs_status bs_manifest_read_file(bs_manifest *m, const char *path,
                                bs_error *err) {
  return read_manifest(m, path, 1, NULL, 0, err);
}

bs_status bs_manifest_set(bs_manifest *m, const char *key, const char *value) {
  if (!key[0] || find(m, key) != EMPTY)
    return BS_EINPUT;
  return add(m, key, strlen(key), value, strlen(value), 0) ? BS_ENOMEM : BS_OK;
}

bs_status bs__manifest_read_archived(bs_manifest *m, const char *path,
                                     bs_error *err) {
  return read_manifest(m, path, 2, NULL, 0, err);
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

const char *bs_manifest_comparability_default(const char *key) {
  for (size_t i = 0; key && i < sizeof comparability_defaults /
                                    sizeof comparability_defaults[0];
       i++)
    if (!strcmp(key, comparability_defaults[i].key))
      return comparability_defaults[i].value;
  return NULL;
}

const char *bs_manifest_comparability_value(const bs_manifest *m,
                                            const char *key) {
  const char *v = bs_manifest_get(m, key);
  return v ? v : bs_manifest_comparability_default(key);
}

size_t bs_manifest_unrecorded(const bs_manifest *const *m, size_t n,
                              const char **keys) {
  size_t nk = 0;
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY; i++) {
    const char *key = bs_manifest_comparability_keys[i];
    int seen = bs_manifest_comparability_default(key) != NULL;
    for (size_t j = 0; j < n && !seen; j++)
      seen = bs_manifest_get(m[j], key) != NULL;
    if (!seen)
      keys[nk++] = key;
  }
  return nk;
}

int bs_manifest_comparable(const bs_manifest *a, const bs_manifest *b,
                           const char **differing, size_t *ndiffering) {
  size_t nd = 0;
  for (size_t i = 0; i < BS_MANIFEST_NCOMPARABILITY; i++) {
    const char *key = bs_manifest_comparability_keys[i];
    const char *va = bs_manifest_comparability_value(a, key);
    const char *vb = bs_manifest_comparability_value(b, key);
    /* Absent from both: equal (nobody recorded it; reports say so). */
    if ((!va && !vb) || (va && vb && strcmp(va, vb) == 0))
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
