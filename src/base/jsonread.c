#include "jsonread.h"

#include "arena.h"
#include "buf.h"
#include "grow.h"
#include "oom.h"
#include "strset.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct jparser {
  const char *name;
  const unsigned char *p; /* cursor */
  const unsigned char *start;
  const unsigned char *end;
  long line;
  const unsigned char *line_start;
  bs_error *err;
  bs_status status;
  bs__arena *arena; /* the tree's strings and keys */
  bs__buf scratch;  /* a string being decoded */
  size_t bytes;     /* memory the tree holds so far */
  size_t max_bytes; /* the most it may hold */
  void *ctx;        /* for the filters' `each` */
  int relaxed;      /* bs__json_parse_relaxed: NaN, Infinity, repeated keys */
} jparser;

/* A parsed tree: the root and the arena its strings live in. */
typedef struct jtree {
  bs__jvalue root; /* first: a root pointer is a tree pointer */
  bs__arena arena;
} jtree;

static long column(const jparser *j) {
  /* Columns count code points, as an editor shows them. */
  long col = 1;
  for (const unsigned char *q = j->line_start; q < j->p && q < j->end; q++) {
    if ((*q & 0xC0) != 0x80)
      col++;
  }
  return col;
}

/* fail and nomem spell the status out: clang's analyser cannot see that
 * bs_error_set returns it, and would go on past a failed realloc. */
static bs_status fail(jparser *j, const char *what) {
  if (!j->status) {
    bs_error_set(j->err, BS_EINPUT, j->name, j->line,
                 "invalid JSON at column %ld: %s", column(j), what);
    j->status = BS_EINPUT;
  }
  return j->status;
}

static bs_status nomem(jparser *j) {
  if (!j->status) {
    bs__oom(j->err);
    j->status = BS_ENOMEM;
  }
  return j->status;
}

/* Counts n more bytes of tree; fails past j->max_bytes. */
static bs_status charge(jparser *j, size_t n) {
  if (n > j->max_bytes - j->bytes) {
    if (!j->status) {
      bs_error_set(j->err, BS_ELIMIT, j->name, j->line,
                   "the JSON needs more than %zu bytes of memory",
                   j->max_bytes);
      j->status = BS_ELIMIT;
    }
    return j->status;
  }
  j->bytes += n;
  return BS_OK;
}

static void skip_ws(jparser *j) {
  while (j->p < j->end) {
    unsigned char c = *j->p;
    if (c == '\n') {
      j->line++;
      j->p++;
      j->line_start = j->p;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      j->p++;
    } else {
      break;
    }
  }
}

static int literal(jparser *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
    return 0;
  j->p += n;
  return 1;
}

static int hexval(unsigned char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static int read_hex4(jparser *j, unsigned *out) {
  if (j->end - j->p < 4)
    return -1;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    int h = hexval(j->p[i]);
    if (h < 0)
      return -1;
    v = v * 16 + (unsigned)h;
  }
  j->p += 4;
  *out = v;
  return 0;
}

static bs_status put_utf8(bs__buf *b, unsigned cp) {
  char s[4];
  size_t n;
  if (cp < 0x80) {
    s[0] = (char)cp;
    n = 1;
  } else if (cp < 0x800) {
    s[0] = (char)(0xC0 | (cp >> 6));
    s[1] = (char)(0x80 | (cp & 0x3F));
    n = 2;
  } else if (cp < 0x10000) {
    s[0] = (char)(0xE0 | (cp >> 12));
    s[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    s[2] = (char)(0x80 | (cp & 0x3F));
    n = 3;
  } else {
    s[0] = (char)(0xF0 | (cp >> 18));
    s[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    s[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    s[3] = (char)(0x80 | (cp & 0x3F));
    n = 4;
  }
  return bs__buf_append(b, s, n);
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF), or 0. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end) {
  unsigned char c = p[0];
  size_t n;
  unsigned cp;
  if (c < 0x80)
    return 1;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
    cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    cp = c & 0x07u;
  } else {
    return 0;
  }
  if ((size_t)(end - p) < n)
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (p[i] & 0x3Fu);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return n;
}

/* Parses a string at the opening quote into a NUL-terminated copy in the
 * tree's arena; with keep 0, only into j->scratch (*out NULL). */
static bs_status parse_string(jparser *j, char **out, size_t *len, int keep) {
  bs__buf b = j->scratch;
  bs__buf_reset(&b);
  j->p++; /* opening quote */
  bs_status st = bs__buf_append(&b, "", 0);
  while (!st) {
    if (j->p >= j->end) {
      st = fail(j, "unterminated string");
      break;
    }
    unsigned char c = *j->p;
    if (c == '"') {
      j->p++;
      break;
    }
    if (c < 0x20) {
      st = fail(j, "control character in a string (escape it)");
      break;
    }
    if (c == '\\') {
      j->p++;
      if (j->p >= j->end) {
        st = fail(j, "unterminated string");
        break;
      }
      unsigned char e = *j->p++;
      const char *simple = NULL;
      switch (e) {
      case '"':
        simple = "\"";
        break;
      case '\\':
        simple = "\\";
        break;
      case '/':
        simple = "/";
        break;
      case 'b':
        simple = "\b";
        break;
      case 'f':
        simple = "\f";
        break;
      case 'n':
        simple = "\n";
        break;
      case 'r':
        simple = "\r";
        break;
      case 't':
        simple = "\t";
        break;
      case 'u': {
        unsigned cp, lo;
        if (read_hex4(j, &cp)) {
          st = fail(j, "\\u needs four hex digits");
          break;
        }
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
          st = fail(j, "unpaired low surrogate in \\u escape");
          break;
        }
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          if (j->end - j->p < 2 || j->p[0] != '\\' || j->p[1] != 'u') {
            st = fail(j, "unpaired high surrogate in \\u escape");
            break;
          }
          j->p += 2;
          if (read_hex4(j, &lo) || lo < 0xDC00 || lo > 0xDFFF) {
            st = fail(j, "unpaired high surrogate in \\u escape");
            break;
          }
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (cp == 0) {
          st = fail(j, "\\u0000 is not allowed in a string");
          break;
        }
        st = put_utf8(&b, cp);
        if (st)
          nomem(j);
        break;
      }
      default:
        st = fail(j, "unknown escape in a string");
        break;
      }
      if (!st && simple && bs__buf_puts(&b, simple))
        st = nomem(j);
      continue;
    }
    size_t n = utf8_seq(j->p, j->end);
    if (n == 0) {
      st = fail(j, "invalid UTF-8 in a string");
      break;
    }
    if (bs__buf_append(&b, j->p, n))
      st = nomem(j);
    j->p += n;
  }
  j->scratch = b;
  if (st)
    return st;
  *len = b.len;
  if (!keep) {
    *out = NULL;
    return BS_OK;
  }
  /* The arena rounds every string up to 16 bytes. */
  if (charge(j, b.len + 16))
    return j->status;
  *out = bs__arena_strndup(j->arena, b.data, b.len);
  *len = b.len;
  return *out ? BS_OK : nomem(j);
}

static bs_status parse_number(jparser *j, double *out) {
  const unsigned char *s = j->p, *q = j->p;
  if (q < j->end && *q == '-')
    q++;
  if (q >= j->end || *q < '0' || *q > '9')
    return fail(j, "expected a value");
  if (*q == '0') {
    q++;
    if (q < j->end && *q >= '0' && *q <= '9')
      return fail(j, "leading zeros are not allowed in a number");
  } else {
    while (q < j->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q < j->end && *q == '.') {
    q++;
    if (q >= j->end || *q < '0' || *q > '9')
      return fail(j, "a digit must follow the decimal point");
    while (q < j->end && *q >= '0' && *q <= '9')
      q++;
  }
  if (q < j->end && (*q == 'e' || *q == 'E')) {
    q++;
    if (q < j->end && (*q == '+' || *q == '-'))
      q++;
    if (q >= j->end || *q < '0' || *q > '9')
      return fail(j, "a digit must follow the exponent");
    while (q < j->end && *q >= '0' && *q <= '9')
      q++;
  }
  char tmp[512];
  size_t n = (size_t)(q - s);
  if (n >= sizeof tmp)
    return fail(j, "number too long");
  memcpy(tmp, s, n);
  tmp[n] = '\0';
  errno = 0;
  char *end = NULL;
  double v = strtod(tmp, &end);
  if (end != tmp + n)
    return fail(j, "bad number");
  if (!isfinite(v) || (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL)))
    return fail(j, "number out of range");
  j->p = q;
  *out = v;
  return BS_OK;
}

/* Relaxed: NaN, Infinity, -Infinity or -NaN at the cursor, read into
 * *out (1), or nothing read (0). */
static int nonfinite(jparser *j, double *out) {
  const unsigned char *at = j->p;
  int minus = j->p < j->end && *j->p == '-';
  j->p += minus;
  if (literal(j, "NaN")) {
    *out = minus ? -(double)NAN : (double)NAN;
    return 1;
  }
  if (literal(j, "Infinity")) {
    *out = minus ? -(double)INFINITY : (double)INFINITY;
    return 1;
  }
  j->p = at;
  return 0;
}

/* The filter of a value that is read and dropped. */
const bs__jfilter bs__json_drop;
#define DISCARD bs__json_drop

static bs_status parse_value(jparser *j, bs__jvalue *v, int depth,
                             const bs__jfilter *f);

static bs_status grow(jparser *j, bs__jvalue *v, size_t *cap, int keys) {
  if (v->n < *cap)
    return BS_OK;
  size_t per = sizeof *v->items + (keys ? sizeof *v->keys : 0);
  size_t nc = bs__grow_cap(*cap, v->n + 1, 4, per);
  if (!nc)
    return nomem(j);
  if (charge(j, (nc - *cap) * per))
    return j->status;
  bs__jvalue *items = realloc(v->items, nc * sizeof *items);
  if (!items)
    return nomem(j);
  v->items = items;
  if (keys) {
    char **k = realloc(v->keys, nc * sizeof *k);
    if (!k)
      return nomem(j);
    v->keys = k;
  }
  *cap = nc;
  return BS_OK;
}

/* Gives back the unused room of a closed array or object. */
static void shrink(jparser *j, bs__jvalue *v, size_t cap) {
  if (v->n == cap || !v->n)
    return;
  bs__jvalue *items = realloc(v->items, v->n * sizeof *items);
  if (items)
    v->items = items;
  if (v->keys) {
    char **k = realloc(v->keys, v->n * sizeof *k);
    if (k)
      v->keys = k;
  }
  j->bytes -=
      (cap - v->n) * (sizeof *v->items + (v->keys ? sizeof *v->keys : 0));
}

/* After an element of an array or a member of an object closed by
 * `close`: 1 past a ',' with another one to follow, 0 past `close`, or -1
 * after failing with `trailing` (a ',' right before `close`) or
 * `expected` (anything else). */
static int after_item(jparser *j, int close, const char *trailing,
                      const char *expected) {
  skip_ws(j);
  if (j->p < j->end && *j->p == ',') {
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
      fail(j, trailing);
      return -1;
    }
    return 1;
  }
  if (j->p < j->end && *j->p == close) {
    j->p++;
    return 0;
  }
  fail(j, expected);
  return -1;
}

static void release(bs__jvalue *v);

/* Reads one element of an array whose filter has `each`, hands it over and
 * frees it: its strings go to an arena of their own, so nothing of it
 * stays. */
static bs_status each_item(jparser *j, int depth, const bs__jfilter *f) {
  bs__jvalue tmp;
  memset(&tmp, 0, sizeof tmp);
  bs__arena item_arena, *tree_arena = j->arena;
  bs__arena_init(&item_arena);
  j->arena = &item_arena;
  size_t bytes = j->bytes;
  bs_status st = parse_value(j, &tmp, depth + 1, f->items);
  j->arena = tree_arena;
  if (!st && (st = f->each(j->ctx, &tmp, j->err)))
    j->status = st;
  release(&tmp);
  bs__arena_release(&item_arena);
  j->bytes = bytes;
  return j->status;
}

/* One more packed number in v (BS__JNUMBERS). */
static bs_status push_number(jparser *j, bs__jvalue *v, size_t *cap, double x) {
  if (v->nnumbers == *cap) {
    size_t nc = bs__grow_cap(*cap, v->nnumbers + 1, 16, sizeof(double));
    if (!nc)
      return nomem(j);
    if (charge(j, (nc - *cap) * sizeof(double)))
      return j->status;
    double *t = realloc(v->numbers, nc * sizeof *t);
    if (!t)
      return nomem(j);
    v->numbers = t;
    *cap = nc;
  }
  v->numbers[v->nnumbers++] = x;
  return BS_OK;
}

static bs_status parse_array(jparser *j, bs__jvalue *v, int depth,
                             const bs__jfilter *f) {
  size_t cap = 0;
  int discard = f == &DISCARD, packed = f && !discard && f->numbers;
  /* Elements dropped one by one leave an empty array, not empty nodes. */
  int drop_items = f && !discard && !packed && f->items == &DISCARD;
  v->type = packed ? BS__JNUMBERS : BS__JARRAY;
  j->p++;
  skip_ws(j);
  if (j->p < j->end && *j->p == ']') {
    j->p++;
    return BS_OK;
  }
  for (;;) {
    skip_ws(j);
    if (!discard && !packed && f && f->each) {
      if (each_item(j, depth, f))
        return j->status;
    } else if (discard || packed || drop_items) {
      /* Nothing of the element stays in the tree but a packed number. */
      bs__jvalue tmp;
      memset(&tmp, 0, sizeof tmp);
      if (packed &&
          !(j->p < j->end && (*j->p == '-' || (*j->p >= '0' && *j->p <= '9'))))
        return fail(j, "expected a number in an array of numbers");
      if (parse_value(j, &tmp, depth + 1, &DISCARD))
        return j->status;
      if (packed && push_number(j, v, &cap, tmp.number))
        return j->status;
    } else {
      if (grow(j, v, &cap, 0))
        return j->status;
      bs__jvalue *item = &v->items[v->n];
      memset(item, 0, sizeof *item);
      v->n++;
      if (parse_value(j, item, depth + 1, f ? f->items : NULL))
        return j->status;
    }
    int more = after_item(j, ']', "trailing comma in an array",
                          "expected ',' or ']' in an array");
    if (more <= 0) {
      if (!more && !discard && !packed && v->items)
        shrink(j, v, cap);
      return more ? j->status : BS_OK;
    }
  }
}

/* Objects of more keys than this find duplicates with a hash set. */
#define FEW_KEYS 8

static bs_status parse_members(jparser *j, bs__jvalue *v, int depth,
                               size_t *cap, bs__strset *seen) {
  for (;;) {
    skip_ws(j);
    if (j->p >= j->end || *j->p != '"')
      return fail(j, "expected a string key in an object");
    if (grow(j, v, cap, 1))
      return j->status;
    char *key = NULL;
    size_t klen = 0;
    if (parse_string(j, &key, &klen, 1))
      return j->status;
    if (!key)
      return nomem(j);
    int dup = 0;
    if (v->n < FEW_KEYS) {
      for (size_t i = 0; i < v->n && !dup; i++)
        dup = !strcmp(v->keys[i], key);
    } else {
      if (v->n == FEW_KEYS) {
        for (size_t i = 0; i < v->n; i++)
          if (bs__strset_put(seen, v->keys[i], strlen(v->keys[i]), i, NULL) < 0)
            return nomem(j);
      }
      /* Keys compare as C strings (a key cannot hold U+0000). */
      int r = bs__strset_put(seen, key, strlen(key), v->n, NULL);
      if (r < 0)
        return nomem(j);
      dup = r == 0;
    }
    if (dup && !j->relaxed)
      return fail(j, "duplicate key in an object");
    /* Relaxed, a repeated key's value is read and dropped: the first
     * stays. */
    bs__jvalue tmp, *item = &tmp;
    memset(&tmp, 0, sizeof tmp);
    if (!dup) {
      item = &v->items[v->n];
      memset(item, 0, sizeof *item);
      v->keys[v->n] = key;
      v->n++;
    }
    skip_ws(j);
    if (j->p >= j->end || *j->p != ':')
      return fail(j, "expected ':' after a key");
    j->p++;
    skip_ws(j);
    if (parse_value(j, item, depth + 1, dup ? &DISCARD : NULL))
      return j->status;
    int more = after_item(j, '}', "trailing comma in an object",
                          "expected ',' or '}' in an object");
    if (more <= 0) {
      if (!more)
        shrink(j, v, *cap);
      return more ? j->status : BS_OK;
    }
  }
}

/* The members of an object read through filter f (or dropped, for
 * DISCARD): every key goes through `seen` to find duplicates, only the
 * kept members enter v. */
static bs_status parse_members_filtered(jparser *j, bs__jvalue *v, int depth,
                                        const bs__jfilter *f, size_t *cap,
                                        bs__strset *seen) {
  int discard = f == &DISCARD;
  for (;;) {
    skip_ws(j);
    if (j->p >= j->end || *j->p != '"')
      return fail(j, "expected a string key in an object");
    char *unused = NULL;
    size_t klen = 0;
    if (parse_string(j, &unused, &klen, 0))
      return j->status;
    /* The key is in j->scratch until the next string is read. */
    const char *key = j->scratch.data ? j->scratch.data : "";
    int r = bs__strset_put(seen, key, klen, 0, NULL);
    if (r < 0)
      return nomem(j);
    if (r == 0 && !j->relaxed)
      return fail(j, "duplicate key in an object");
    /* Relaxed, a repeated key's value is read and dropped: the first
     * stays. */
    const bs__jfilter *mf = &DISCARD;
    if (!discard && r != 0) {
      mf = NULL;
      if (f->keys) {
        mf = &DISCARD;
        for (size_t i = 0; f->keys[i]; i++) {
          if (strlen(f->keys[i]) == klen && !memcmp(f->keys[i], key, klen)) {
            mf = f->members ? f->members[i] : NULL;
            break;
          }
        }
      }
    }
    bs__jvalue tmp, *item = &tmp;
    memset(&tmp, 0, sizeof tmp);
    if (mf != &DISCARD) {
      if (grow(j, v, cap, 1) || charge(j, klen + 16))
        return j->status;
      char *copy = bs__arena_strndup(j->arena, key, klen);
      if (!copy)
        return nomem(j);
      item = &v->items[v->n];
      memset(item, 0, sizeof *item);
      v->keys[v->n] = copy;
      v->n++;
    }
    skip_ws(j);
    if (j->p >= j->end || *j->p != ':')
      return fail(j, "expected ':' after a key");
    j->p++;
    skip_ws(j);
    if (parse_value(j, item, depth + 1, mf))
      return j->status;
    int more = after_item(j, '}', "trailing comma in an object",
                          "expected ',' or '}' in an object");
    if (more <= 0) {
      if (!more && !discard)
        shrink(j, v, *cap);
      return more ? j->status : BS_OK;
    }
  }
}

static bs_status parse_object(jparser *j, bs__jvalue *v, int depth,
                              const bs__jfilter *f) {
  size_t cap = 0;
  v->type = BS__JOBJECT;
  j->p++;
  skip_ws(j);
  if (j->p < j->end && *j->p == '}') {
    j->p++;
    return BS_OK;
  }
  bs__strset seen;
  bs__strset_init(&seen);
  bs_status st = f ? parse_members_filtered(j, v, depth, f, &cap, &seen)
                   : parse_members(j, v, depth, &cap, &seen);
  bs__strset_release(&seen);
  return st;
}

static bs_status parse_value(jparser *j, bs__jvalue *v, int depth,
                             const bs__jfilter *f) {
  if (depth > BS__JSON_MAX_DEPTH)
    return fail(j, "nested too deeply");
  v->line = (int32_t)j->line;
  if (charge(j, 0))
    return j->status;
  if (j->p >= j->end)
    return fail(j, "unexpected end of input");
  switch (*j->p) {
  case '{':
    return parse_object(j, v, depth, f);
  case '[':
    return parse_array(j, v, depth, f);
  case '"':
    v->type = BS__JSTRING;
    return parse_string(j, &v->string, &v->len, f != &DISCARD);
  case 't':
  case 'f':
  case 'n':
    if (literal(j, "true")) {
      v->type = BS__JBOOL;
      v->boolean = 1;
    } else if (literal(j, "false")) {
      v->type = BS__JBOOL;
      v->boolean = 0;
    } else if (literal(j, "null")) {
      v->type = BS__JNULL;
    } else {
      return fail(j, "expected a value");
    }
    return BS_OK;
  default:
    v->type = BS__JNUMBER;
    if (j->relaxed && nonfinite(j, &v->number))
      return BS_OK;
    return parse_number(j, &v->number);
  }
}

static void release(bs__jvalue *v) {
  if (v->type == BS__JNUMBERS) {
    free(v->numbers);
    return;
  }
  if (v->type != BS__JARRAY && v->type != BS__JOBJECT)
    return;
  for (size_t i = 0; i < v->n; i++)
    release(&v->items[i]);
  free(v->items);
  free(v->keys);
}

void bs__json_free(bs__jvalue *v) {
  if (!v)
    return;
  jtree *t = (jtree *)(void *)v;
  release(&t->root);
  bs__arena_release(&t->arena);
  free(t);
}

bs_status bs__json_parse(const char *name, const char *text, size_t len,
                         bs__jvalue **out, bs_error *err) {
  return bs__json_parse_filtered(name, text, len, NULL, NULL, 0, out, err);
}

static bs_status parse_doc(const char *name, const char *text, size_t len,
                           const bs__jfilter *filter, void *ctx,
                           size_t max_memory, int relaxed, bs__jvalue **out,
                           bs_error *err) {
  *out = NULL;
  jparser j;
  j.relaxed = relaxed;
  j.name = name;
  j.start = j.p = j.line_start = (const unsigned char *)text;
  j.end = j.p + len;
  j.line = 1;
  j.err = err;
  j.status = BS_OK;
  j.bytes = 0;
  j.max_bytes = max_memory && max_memory < BS__JSON_MAX_MEMORY
                    ? max_memory
                    : BS__JSON_MAX_MEMORY;
  j.ctx = ctx;
  jtree *t = calloc(1, sizeof *t);
  if (!t)
    return bs__oom(err);
  bs__arena_init(&t->arena);
  j.arena = &t->arena;
  bs__buf_init(&j.scratch, BS__CAP_JSON_STRING);
  bs__jvalue *v = &t->root;
  /* A UTF-8 byte order mark is not JSON (RFC 8259 §8.1 lets a parser
   * ignore it; strict means refusing it). */
  skip_ws(&j);
  if (!parse_value(&j, v, 0, filter)) {
    skip_ws(&j);
    if (j.p != j.end)
      fail(&j, "unexpected text after the JSON value");
  }
  bs__buf_release(&j.scratch);
  if (j.status) {
    bs__json_free(v);
    return j.status;
  }
  *out = v;
  return BS_OK;
}

bs_status bs__json_parse_filtered(const char *name, const char *text,
                                  size_t len, const bs__jfilter *filter,
                                  void *ctx, size_t max_memory,
                                  bs__jvalue **out, bs_error *err) {
  return parse_doc(name, text, len, filter, ctx, max_memory, 0, out, err);
}

bs_status bs__json_parse_relaxed(const char *name, const char *text, size_t len,
                                 const bs__jfilter *filter, void *ctx,
                                 size_t max_memory, bs__jvalue **out,
                                 bs_error *err) {
  return parse_doc(name, text, len, filter, ctx, max_memory, 1, out, err);
}

const bs__jvalue *bs__json_member(const bs__jvalue *v, const char *key) {
  if (!v || v->type != BS__JOBJECT)
    return NULL;
  for (size_t i = 0; i < v->n; i++) {
    if (!strcmp(v->keys[i], key))
      return &v->items[i];
  }
  return NULL;
}
