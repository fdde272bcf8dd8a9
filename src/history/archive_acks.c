/* acks.csv: the acknowledgements an archive keeps beside its runs (which
 * regressions of which commits were expected), read and looked up by
 * hash. */
#include "benchsite/archive.h"

#include "archived.h"
#include "buf.h"
#include "csvin.h"
#include "fsutil.h"
#include "oom.h"
#include "strlist.h"
#include "strset.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ACKS_NAME "acks.csv"
#define ACKS_MAX_FILE ((size_t)16 << 20)
#define ACK_MIN_COMMIT 7

struct bs_acks {
  bs_ack *rows;
  size_t nrows, rows_cap;
  char **strings; /* every string the rows point to */
  size_t nstrings;
  /* Hash sets, so neither reading nor looking up scans every row:
   * `exact` holds each row's (commit, benchmark, dataset), for the
   * duplicate check; `bucket` maps (commit key, benchmark, dataset) to the
   * row index + 1 of the last row with that key, and prev[i] chains row i
   * to the row before it with the same key (0: none). A commit's key is
   * its first ACK_MIN_COMMIT characters, or all of it when shorter: the
   * key of every row that may match a commit is the commit's own key. */
  bs__strset exact, bucket;
  size_t *prev;
};

typedef struct acks_reader {
  bs__csvin in;
  bs_acks *acks;
  int col[4];       /* field index of commit, benchmark, dataset, reason */
  char *fields[16]; /* the current record's fields */
  size_t nfields;
  int header_done;
} acks_reader;

static const char *const ack_columns[4] = {"commit", "benchmark", "dataset",
                                           "reason"};

static void acks_field(void *ctx, const char *s, size_t len) {
  acks_reader *r = ctx;
  if (r->nfields >= sizeof r->fields / sizeof r->fields[0]) {
    bs__csvin_fail(&r->in, BS_EINPUT, r->in.rec_line, 0,
                   "too many fields (acks.csv has 4 columns)");
    return;
  }
  char *f = malloc(len + 1);
  if (!f) {
    bs__csvin_fail(&r->in, BS_ENOMEM, 0, 0, BS__OOM_TEXT);
    return;
  }
  if (len)
    memcpy(f, s, len);
  f[len] = '\0';
  r->fields[r->nfields++] = f;
}

static void acks_clear_fields(acks_reader *r) {
  for (size_t i = 0; i < r->nfields; i++)
    free(r->fields[i]);
  r->nfields = 0;
}

static void acks_header(acks_reader *r) {
  long line = r->in.rec_line;
  for (int k = 0; k < 4; k++)
    r->col[k] = -1;
  for (size_t i = 0; i < r->nfields; i++) {
    int k = 0;
    while (k < 4 && strcmp(r->fields[i], ack_columns[k]))
      k++;
    size_t flen = strlen(r->fields[i]);
    if (k == 4 && bs__utf8_invalid_at((const unsigned char *)r->fields[i],
                                      flen) != flen) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                     "header field %zu is not UTF-8 (the columns are commit, "
                     "benchmark, dataset, reason)",
                     i + 1);
      return;
    }
    if (k == 4) {
      char q[BS__QUOTE_BUF];
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                     "unknown column %s (the columns are commit, benchmark, "
                     "dataset, reason)",
                     bs__csvin_quote(q, r->fields[i], strlen(r->fields[i]), 1));
      return;
    }
    if (r->col[k] >= 0) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s given twice",
                     ack_columns[k]);
      return;
    }
    r->col[k] = (int)i;
  }
  for (int k = 0; k < 4; k++) {
    if (r->col[k] < 0) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "missing column %s",
                     ack_columns[k]);
      return;
    }
  }
  r->header_done = 1;
}

/* The length of the part of `commit` that keys its bucket. */
static size_t ack_commit_key(const char *commit) {
  size_t n = strlen(commit);
  return n < ACK_MIN_COMMIT ? n : ACK_MIN_COMMIT;
}

/* commit[0..clen-1], benchmark and dataset into one key, NUL-separated:
 * the parts are C strings, so no part holds the separator. */
static bs_status ack_key(bs__buf *b, const char *commit, size_t clen,
                         const char *benchmark, const char *dataset) {
  bs_status st = bs__buf_append(b, commit, clen);
  if (!st)
    st = bs__buf_append(b, "", 1);
  if (!st)
    st = bs__buf_append(b, benchmark, strlen(benchmark));
  if (!st)
    st = bs__buf_append(b, "", 1);
  if (!st)
    st = bs__buf_append(b, dataset, strlen(dataset));
  return st;
}

static int grow_rows(bs_acks *a) {
  if (a->nrows < a->rows_cap)
    return 0;
  size_t nc = a->rows_cap ? a->rows_cap * 2 : 64;
  bs_ack *rows = realloc(a->rows, nc * sizeof *rows);
  if (rows)
    a->rows = rows;
  size_t *prev = rows ? realloc(a->prev, nc * sizeof *prev) : NULL;
  if (prev)
    a->prev = prev;
  char **strs = prev ? realloc(a->strings, 4 * nc * sizeof *strs) : NULL;
  if (strs)
    a->strings = strs;
  if (!strs)
    return -1;
  a->rows_cap = nc;
  return 0;
}

static void acks_record(void *ctx) {
  acks_reader *r = ctx;
  long line = r->in.rec_line;
  bs_acks *a = r->acks;
  if (!r->header_done) {
    acks_header(r);
    acks_clear_fields(r);
    return;
  }
  if (r->nfields != 4) {
    bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "%zu fields, expected 4",
                   r->nfields);
    acks_clear_fields(r);
    return;
  }
  const char *v[4];
  for (int k = 0; k < 4; k++)
    v[k] = r->fields[r->col[k]];
  for (int k = 0; k < 4; k++) {
    if (k != 2 && !v[k][0]) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s: empty",
                     ack_columns[k]);
      acks_clear_fields(r);
      return;
    }
    if (bs__utf8_invalid_at((const unsigned char *)v[k], strlen(v[k])) !=
        strlen(v[k])) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s: not UTF-8",
                     ack_columns[k]);
      acks_clear_fields(r);
      return;
    }
  }
  bs__buf key;
  bs__buf_init(&key, 0);
  size_t old = 0, *lastp = NULL;
  int added = -1;
  if (!ack_key(&key, v[0], strlen(v[0]), v[1], v[2]))
    added = bs__strset_put(&a->exact, key.data, key.len, a->nrows, &old);
  if (added == 0) {
    bs__buf_release(&key);
    bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                   "the same commit and case as line %ld", a->rows[old].line);
    acks_clear_fields(r);
    return;
  }
  if (added == 1) {
    bs__buf_reset(&key);
    if (!ack_key(&key, v[0], ack_commit_key(v[0]), v[1], v[2]))
      lastp = bs__strset_ref(&a->bucket, key.data, key.len, NULL);
  }
  bs__buf_release(&key);
  if (!lastp || grow_rows(a)) {
    bs__csvin_fail(&r->in, BS_ENOMEM, 0, 0, BS__OOM_TEXT);
    acks_clear_fields(r);
    return;
  }
  a->prev[a->nrows] = *lastp;
  *lastp = a->nrows + 1;
  /* The row takes the field strings over. */
  bs_ack *row = &a->rows[a->nrows++];
  row->commit = v[0];
  row->benchmark = v[1];
  row->dataset = v[2];
  row->reason = v[3];
  row->line = line;
  for (size_t i = 0; i < 4; i++)
    a->strings[a->nstrings++] = r->fields[i];
  r->nfields = 0;
}

void bs_acks_free(bs_acks *a) {
  if (!a)
    return;
  bs__strlist_free(a->strings, a->nstrings);
  free(a->rows);
  free(a->prev);
  bs__strset_release(&a->exact);
  bs__strset_release(&a->bucket);
  free(a);
}

static bs_acks *acks_new(void) {
  bs_acks *a = calloc(1, sizeof *a);
  if (a) {
    bs__strset_init(&a->exact);
    bs__strset_init(&a->bucket);
  }
  return a;
}

bs_status bs__acks_parse(const char *name, const char *data, size_t len,
                         bs_acks **out, bs_error *err) {
  *out = NULL;
  bs_acks *a = acks_new();
  if (!a)
    return bs__oom(err);
  acks_reader r;
  memset(&r, 0, sizeof r);
  r.acks = a;
  bs_status st;
  if ((st = bs__csvin_init(&r.in, name, err, 65536, acks_field, acks_record,
                           &r)) == BS_OK) {
    if (bs__csvin_feed(&r.in, data, len) == BS_OK)
      bs__csvin_finish(&r.in);
    st = r.in.status;
    if (st == BS_OK && !r.header_done)
      st = bs_error_set(err, BS_EINPUT, r.in.name, 1,
                        "empty file; the header is commit,benchmark,dataset,"
                        "reason");
  }
  acks_clear_fields(&r);
  bs__csvin_release(&r.in);
  if (st) {
    bs_acks_free(a);
    return st;
  }
  *out = a;
  return BS_OK;
}

bs_status bs_acks_read(const char *dir, bs_acks **out, bs_error *err) {
  *out = NULL;
  char *path = bs__path_join(dir, ACKS_NAME);
  char *data = NULL;
  size_t len = 0;
  bs_status st;
  if (!path)
    return bs__oom(err);
  struct stat sb;
  if (lstat(path, &sb) != 0 && errno == ENOENT) {
    free(path);
    return (*out = acks_new()) ? BS_OK : bs__oom(err);
  }
  /* Never through a link: its target's first line would be quoted in an
   * error message (a CI log), and it is outside the archive anyway. */
  if ((st = bs__read_regular(path, BS__OPEN_NOFOLLOW, ACKS_MAX_FILE, &data,
                             &len, err)) == BS_OK)
    st = bs__acks_parse(path, data, len, out, err);
  free(data);
  free(path);
  return st;
}

size_t bs_acks_count(const bs_acks *a) { return a ? a->nrows : 0; }

const bs_ack *bs_acks_at(const bs_acks *a, size_t i) {
  return a && i < a->nrows ? &a->rows[i] : NULL;
}

static int commit_matches(const char *ack, const char *commit) {
  size_t n = strlen(ack);
  if (!strcmp(ack, commit))
    return 1;
  return n >= ACK_MIN_COMMIT && strncmp(ack, commit, n) == 0;
}

const bs_ack *bs_acks_find(const bs_acks *a, const char *commit,
                           const char *benchmark, const char *dataset) {
  if (!a || !commit || !a->nrows)
    return NULL;
  if (!dataset)
    dataset = "";
  bs__buf key;
  bs__buf_init(&key, 0);
  size_t last = 0;
  const bs_ack *found = NULL;
  if (!ack_key(&key, commit, ack_commit_key(commit), benchmark, dataset) &&
      bs__strset_get(&a->bucket, key.data, key.len, &last)) {
    /* The chain runs from the last row back: the first match in file
     * order is the last one met. */
    for (size_t i = last; i; i = a->prev[i - 1]) {
      const bs_ack *r = &a->rows[i - 1];
      if (!strcmp(r->benchmark, benchmark) && !strcmp(r->dataset, dataset) &&
          commit_matches(r->commit, commit))
        found = r;
    }
  }
  bs__buf_release(&key);
  return found;
}
