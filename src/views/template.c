#include "benchsite/template.h"

#include "arena.h"
#include "buf.h"

#include "benchsite/output.h"
#include "grow.h"
#include "oom.h"
#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Value tree --------------------------------------------------------- */

typedef enum vkind { V_STR, V_BOOL, V_LIST, V_OBJ } vkind;

struct bs_tval {
  bs_tdata *owner;
  vkind kind;
  const char *key; /* member name when the value sits in an object */
  bs_tval *next;   /* next sibling */
  const char *str; /* V_STR */
  int boolean;     /* V_BOOL */
  bs_tval *head, *tail;
  size_t n; /* V_LIST, V_OBJ: children */
};

struct bs_tdata {
  bs__arena arena;
  bs_tval *root;
  bs_status status;
};

bs_tdata *bs_tdata_new(void) {
  bs_tdata *d = calloc(1, sizeof *d);
  if (!d)
    return NULL;
  bs__arena_init(&d->arena);
  d->root = bs__arena_alloc(&d->arena, sizeof *d->root);
  if (!d->root) {
    free(d);
    return NULL;
  }
  memset(d->root, 0, sizeof *d->root);
  d->root->owner = d;
  d->root->kind = V_OBJ;
  return d;
}

void bs_tdata_free(bs_tdata *d) {
  if (!d)
    return;
  bs__arena_release(&d->arena);
  free(d);
}

bs_tval *bs_tdata_root(bs_tdata *d) { return d ? d->root : NULL; }

bs_status bs_tdata_status(const bs_tdata *d) {
  return d ? d->status : BS_EINTERNAL;
}

static bs_tval *fail(bs_tdata *d, bs_status st) {
  if (d && d->status == BS_OK)
    d->status = st;
  return NULL;
}

static void reset_value(bs_tval *v, vkind kind) {
  v->kind = kind;
  v->str = NULL;
  v->boolean = 0;
  v->head = v->tail = NULL;
  v->n = 0;
}

static bs_tval *append(bs_tval *parent, const char *key) {
  bs_tdata *d = parent->owner;
  bs_tval *v = bs__arena_alloc(&d->arena, sizeof *v);
  if (!v)
    return fail(d, BS_ENOMEM);
  memset(v, 0, sizeof *v);
  v->owner = d;
  if (key) {
    v->key = bs__arena_strndup(&d->arena, key, strlen(key));
    if (!v->key)
      return fail(d, BS_ENOMEM);
  }
  if (parent->tail)
    parent->tail->next = v;
  else
    parent->head = v;
  parent->tail = v;
  parent->n++;
  return v;
}

static const bs_tval *member(const bs_tval *obj, const char *key,
                             size_t keylen) {
  for (const bs_tval *m = obj->head; m; m = m->next) {
    if (strlen(m->key) == keylen && !memcmp(m->key, key, keylen))
      return m;
  }
  return NULL;
}

/* The member `key` of obj, reset to `kind`; created when absent. */
static bs_tval *member_slot(bs_tval *obj, const char *key, vkind kind) {
  if (!obj)
    return NULL;
  if (obj->kind != V_OBJ || !key)
    return fail(obj->owner, BS_EINTERNAL);
  bs_tval *m = (bs_tval *)member(obj, key, strlen(key));
  if (!m)
    m = append(obj, key);
  if (m)
    reset_value(m, kind);
  return m;
}

static bs_tval *list_slot(bs_tval *list, vkind kind) {
  if (!list)
    return NULL;
  if (list->kind != V_LIST)
    return fail(list->owner, BS_EINTERNAL);
  bs_tval *v = append(list, NULL);
  if (v)
    reset_value(v, kind);
  return v;
}

static bs_tval *set_string(bs_tval *v, const char *s, size_t n) {
  if (!v)
    return NULL;
  char *copy = bs__arena_strndup(&v->owner->arena, s ? s : "", s ? n : 0);
  if (!copy)
    return fail(v->owner, BS_ENOMEM);
  v->str = copy;
  return v;
}

bs_tval *bs_tval_set_str(bs_tval *obj, const char *key, const char *value) {
  return set_string(member_slot(obj, key, V_STR), value,
                    value ? strlen(value) : 0);
}

bs_tval *bs_tval_set_strf(bs_tval *obj, const char *key, const char *fmt, ...) {
  bs_tval *v = member_slot(obj, key, V_STR);
  if (!v)
    return NULL;
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return fail(v->owner, BS_EINTERNAL);
  if ((size_t)n < sizeof small)
    return set_string(v, small, (size_t)n);
  char *s = bs__arena_alloc(&v->owner->arena, (size_t)n + 1);
  if (!s)
    return fail(v->owner, BS_ENOMEM);
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  v->str = s;
  return v;
}

bs_tval *bs_tval_set_bool(bs_tval *obj, const char *key, int value) {
  bs_tval *v = member_slot(obj, key, V_BOOL);
  if (v)
    v->boolean = value != 0;
  return v;
}

bs_tval *bs_tval_set_obj(bs_tval *obj, const char *key) {
  return member_slot(obj, key, V_OBJ);
}

bs_tval *bs_tval_set_list(bs_tval *obj, const char *key) {
  return member_slot(obj, key, V_LIST);
}

bs_tval *bs_tval_push_str(bs_tval *list, const char *value) {
  return set_string(list_slot(list, V_STR), value, value ? strlen(value) : 0);
}

bs_tval *bs_tval_push_obj(bs_tval *list) { return list_slot(list, V_OBJ); }

size_t bs_tval_size(const bs_tval *v) {
  return v && (v->kind == V_LIST || v->kind == V_OBJ) ? v->n : 0;
}

/* ---- Parsed templates --------------------------------------------------- */

typedef enum nkind {
  N_TEXT,
  N_VAR,
  N_RAW,
  N_SECTION,
  N_INVERTED,
  N_PARTIAL
} nkind;

typedef struct tnode {
  nkind kind;
  const char *s; /* text (into the source) or the tag name (NUL-ended) */
  size_t len;
  size_t end; /* sections: one past the index of their last child */
  long line;
} tnode;

typedef struct tmpl {
  char name[65];
  char *path; /* for messages */
  char *src;
  bs__arena names;
  tnode *nodes;
  size_t n, cap;
} tmpl;

struct bs_templates {
  char *dir;
  tmpl **items;
  size_t n;
};

#define MAX_DEPTH 64
#define MAX_TEMPLATE_BYTES ((size_t)4 << 20)

static void tmpl_free(tmpl *tp) {
  if (!tp)
    return;
  free(tp->path);
  free(tp->src);
  free(tp->nodes);
  bs__arena_release(&tp->names);
  free(tp);
}

bs_templates *bs_templates_new(const char *dir) {
  bs_templates *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  if (dir) {
    t->dir = strdup(dir);
    if (!t->dir) {
      free(t);
      return NULL;
    }
  }
  return t;
}

void bs_templates_free(bs_templates *t) {
  if (!t)
    return;
  for (size_t i = 0; i < t->n; i++)
    tmpl_free(t->items[i]);
  free(t->items);
  free(t->dir);
  free(t);
}

static int valid_name(const char *name, size_t len) {
  if (len == 0 || len > 64)
    return 0;
  for (size_t i = 0; i < len; i++) {
    char c = name[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_' || c == '-'))
      return 0;
  }
  return 1;
}

static tmpl *find(const bs_templates *t, const char *name, size_t len) {
  for (size_t i = 0; i < t->n; i++) {
    if (strlen(t->items[i]->name) == len &&
        !memcmp(t->items[i]->name, name, len))
      return t->items[i];
  }
  return NULL;
}

static bs_status push_node(tmpl *tp, nkind kind, const char *s, size_t len,
                           long line, bs_error *err) {
  if (tp->n == tp->cap) {
    tnode *p = BS__GROW(tp->nodes, tp->cap, tp->n + 1, 64);
    if (!p)
      return bs_error_set(err, BS_ENOMEM, tp->path, line, BS__OOM_TEXT);
    tp->nodes = p;
  }
  tnode *nd = &tp->nodes[tp->n++];
  nd->kind = kind;
  nd->s = s;
  nd->len = len;
  nd->end = 0;
  nd->line = line;
  return BS_OK;
}

static long count_lines(const char *s, size_t n) {
  long k = 0;
  for (size_t i = 0; i < n; i++)
    k += s[i] == '\n';
  return k;
}

static int is_blank(char c) { return c == ' ' || c == '\t'; }

static const char *find2(const char *s, size_t n, const char *pat) {
  size_t m = strlen(pat);
  for (size_t i = 0; i + m <= n; i++) {
    if (s[i] == pat[0] && !memcmp(s + i, pat, m))
      return s + i;
  }
  return NULL;
}

/* A tag name: no blanks, braces or control bytes inside. */
static int valid_tag_name(const char *s, size_t n) {
  if (n == 0)
    return 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= 0x20 || c == 0x7f || c == '{' || c == '}')
      return 0;
  }
  return 1;
}

/* Compiles tp->src into a flat node list; sections record where their
 * children end, so rendering walks index ranges. A tag that stands alone
 * on its line (blanks around it) takes the whole line with it, as in the
 * Mustache spec, so templates can be indented without stray blank lines. */
static bs_status parse(tmpl *tp, size_t len, bs_error *err) {
  const char *src = tp->src;
  size_t pos = 0, text_start = 0;
  long line = 1;
  size_t open[MAX_DEPTH];
  size_t nopen = 0;
  bs_status st;
  for (;;) {
    const char *p = find2(src + pos, len - pos, "{{");
    if (!p) {
      if (len > text_start && (st = push_node(tp, N_TEXT, src + text_start,
                                              len - text_start, line, err)))
        return st;
      break;
    }
    size_t at = (size_t)(p - src);
    line += count_lines(src + pos, at - pos);
    long tag_line = line;
    size_t q = at + 2, name_start, name_end, tag_end;
    nkind kind = N_VAR;
    int is_close = 0, is_comment = 0;
    if (q < len && src[q] == '{') {
      const char *e = find2(src + q + 1, len - q - 1, "}}}");
      if (!e)
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "unterminated tag \"{{{\"");
      kind = N_RAW;
      name_start = q + 1;
      name_end = (size_t)(e - src);
      tag_end = name_end + 3;
    } else {
      const char *e = find2(src + q, len - q, "}}");
      if (!e)
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "unterminated tag \"{{\"");
      name_start = q + 1;
      name_end = (size_t)(e - src);
      tag_end = name_end + 2;
      switch (q < len ? src[q] : '\0') {
      case '&':
        kind = N_RAW;
        break;
      case '#':
        kind = N_SECTION;
        break;
      case '^':
        kind = N_INVERTED;
        break;
      case '/':
        is_close = 1;
        break;
      case '!':
        is_comment = 1;
        break;
      case '>':
        kind = N_PARTIAL;
        break;
      case '=':
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "set-delimiter tags are not supported");
      default:
        name_start = q;
      }
    }
    while (name_start < name_end && is_blank(src[name_start]))
      name_start++;
    while (name_end > name_start && is_blank(src[name_end - 1]))
      name_end--;
    size_t nlen = name_end - name_start;
    if (!is_comment) {
      int ok = kind == N_PARTIAL ? valid_name(src + name_start, nlen)
                                 : valid_tag_name(src + name_start, nlen);
      if (!ok)
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "bad tag name \"%.*s\"",
                            (int)(nlen > 64 ? 64 : nlen), src + name_start);
    }

    /* Standalone lines. */
    size_t text_end = at, next = tag_end;
    if (is_close || is_comment || kind == N_SECTION || kind == N_INVERTED ||
        kind == N_PARTIAL) {
      size_t ls = at;
      while (ls > text_start && is_blank(src[ls - 1]))
        ls--;
      size_t te = tag_end;
      while (te < len && is_blank(src[te]))
        te++;
      int starts = ls == 0 || src[ls - 1] == '\n';
      int ends = 0;
      if (te == len) {
        ends = 1;
      } else if (src[te] == '\n') {
        ends = 1;
        te++;
      } else if (src[te] == '\r' && te + 1 < len && src[te + 1] == '\n') {
        ends = 1;
        te += 2;
      }
      if (starts && ends) {
        text_end = ls;
        next = te;
      }
    }
    if (text_end > text_start &&
        (st = push_node(tp, N_TEXT, src + text_start, text_end - text_start,
                        tag_line, err)))
      return st;

    if (is_close) {
      if (nopen == 0)
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "\"{{/%.*s}}\" closes no open section",
                            (int)(nlen > 64 ? 64 : nlen), src + name_start);
      tnode *o = &tp->nodes[open[nopen - 1]];
      if (o->len != nlen || memcmp(o->s, src + name_start, nlen))
        return bs_error_set(err, BS_EINPUT, tp->path, tag_line,
                            "\"{{/%.*s}}\" does not close \"{{%c%s}}\" "
                            "opened on line %ld",
                            (int)(nlen > 64 ? 64 : nlen), src + name_start,
                            o->kind == N_SECTION ? '#' : '^', o->s, o->line);
      o->end = tp->n;
      nopen--;
    } else if (!is_comment) {
      char *name = bs__arena_strndup(&tp->names, src + name_start, nlen);
      if (!name)
        return bs_error_set(err, BS_ENOMEM, tp->path, tag_line, BS__OOM_TEXT);
      if (kind == N_SECTION || kind == N_INVERTED) {
        if (nopen == MAX_DEPTH)
          return bs_error_set(err, BS_ELIMIT, tp->path, tag_line,
                              "sections nest deeper than %d", MAX_DEPTH);
        open[nopen++] = tp->n;
      }
      if ((st = push_node(tp, kind, name, nlen, tag_line, err)))
        return st;
    }
    line += count_lines(src + at, next - at);
    pos = text_start = next;
  }
  if (nopen > 0) {
    tnode *o = &tp->nodes[open[nopen - 1]];
    return bs_error_set(err, BS_EINPUT, tp->path, o->line,
                        "section \"{{%c%s}}\" is never closed",
                        o->kind == N_SECTION ? '#' : '^', o->s);
  }
  return BS_OK;
}

static bs_status load_partials(bs_templates *t, const tmpl *tp, bs_error *err);

static bs_status insert(bs_templates *t, tmpl *tp) {
  for (size_t i = 0; i < t->n; i++) {
    if (!strcmp(t->items[i]->name, tp->name)) {
      tmpl_free(t->items[i]);
      t->items[i] = tp;
      return BS_OK;
    }
  }
  tmpl **p = realloc(t->items, (t->n + 1) * sizeof(tmpl *));
  if (!p)
    return BS_ENOMEM;
  t->items = p;
  t->items[t->n++] = tp;
  return BS_OK;
}

/* Takes ownership of `src`. */
static bs_status add_source(bs_templates *t, const char *name, char *src,
                            size_t len, const char *path, bs_error *err) {
  tmpl *tp = calloc(1, sizeof *tp);
  bs_status st;
  if (!tp) {
    free(src);
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  }
  bs__arena_init(&tp->names);
  memcpy(tp->name, name, strlen(name) + 1);
  tp->src = src;
  tp->path = strdup(path);
  if (!tp->path) {
    tmpl_free(tp);
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  }
  if ((st = parse(tp, len, err))) {
    tmpl_free(tp);
    return st;
  }
  /* Registered before its partials load, so recursive partials end. */
  if (insert(t, tp)) {
    tmpl_free(tp);
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  }
  return load_partials(t, tp, err);
}

bs_status bs_templates_add(bs_templates *t, const char *name, const char *text,
                           size_t len, bs_error *err) {
  if (!t || !name || !valid_name(name, strlen(name)))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "template name \"%s\" is not 1 to 64 characters of "
                        "[A-Za-z0-9_-]",
                        name ? name : "(null)");
  if (len > MAX_TEMPLATE_BYTES)
    return bs_error_set(err, BS_ELIMIT, name, 0,
                        "template larger than %zu "
                        "bytes",
                        MAX_TEMPLATE_BYTES);
  char *src = malloc(len + 1);
  if (!src)
    return bs_error_set(err, BS_ENOMEM, name, 0, BS__OOM_TEXT);
  if (len)
    memcpy(src, text, len);
  src[len] = '\0';
  return add_source(t, name, src, len, name, err);
}

static bs_status load_file(bs_templates *t, const char *name, long from_line,
                           const char *from_path, bs_error *err) {
  size_t plen = strlen(t->dir) + strlen(name) + 8;
  char *path = malloc(plen);
  if (!path)
    return bs_error_set(err, BS_ENOMEM, from_path, from_line, BS__OOM_TEXT);
  snprintf(path, plen, "%s/%s.html", t->dir, name);
  char *src = NULL;
  size_t len = 0;
  bs_error rerr;
  bs_error_clear(&rerr);
  bs_status st = bs_read_file(path, MAX_TEMPLATE_BYTES, &src, &len, &rerr);
  if (st) {
    if (from_path)
      bs_error_set(err, st, from_path, from_line, "partial \"%s\": %s: %s",
                   name, path, rerr.message);
    else
      bs_error_set(err, st, path, 0, "%s", rerr.message);
    free(path);
    return st;
  }
  st = add_source(t, name, src, len, path, err);
  free(path);
  return st;
}

static bs_status load_partials(bs_templates *t, const tmpl *tp, bs_error *err) {
  if (!t->dir)
    return BS_OK; /* in-memory sets: missing partials render empty */
  for (size_t i = 0; i < tp->n; i++) {
    const tnode *nd = &tp->nodes[i];
    if (nd->kind != N_PARTIAL || find(t, nd->s, nd->len))
      continue;
    bs_status st = load_file(t, nd->s, nd->line, tp->path, err);
    if (st)
      return st;
  }
  return BS_OK;
}

bs_status bs_templates_load(bs_templates *t, const char *name, bs_error *err) {
  if (!t || !name || !valid_name(name, strlen(name)))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "template name \"%s\" is not 1 to 64 characters of "
                        "[A-Za-z0-9_-]",
                        name ? name : "(null)");
  if (find(t, name, strlen(name)))
    return BS_OK;
  if (!t->dir)
    return bs_error_set(err, BS_EUSAGE, name, 0,
                        "no template \"%s\" and no template directory", name);
  return load_file(t, name, 0, NULL, err);
}

/* ---- Rendering ---------------------------------------------------------- */

/* The most template nodes one render visits: partials that include
 * others twice, 28 deep, would expand 2^28 times while writing nothing
 * (so the output cap never stops them). Real pages visit a few hundred
 * thousand. */
#define MAX_STEPS ((unsigned long)1 << 25)

typedef struct rstate {
  bs_templates *t;
  bs__buf *out;
  unsigned long steps;
  const bs_tval *stack[MAX_DEPTH + 2];
  size_t nstack;
  int depth;
  bs_error *err;
} rstate;

static const bs_tval *lookup(const rstate *rs, const char *name) {
  if (!strcmp(name, "."))
    return rs->nstack ? rs->stack[rs->nstack - 1] : NULL;
  const char *dot = strchr(name, '.');
  size_t seg = dot ? (size_t)(dot - name) : strlen(name);
  const bs_tval *v = NULL;
  /* The first segment resolves up the context stack; the rest inside it. */
  for (size_t i = rs->nstack; i-- > 0;) {
    const bs_tval *c = rs->stack[i];
    if (c && c->kind == V_OBJ && (v = member(c, name, seg)))
      break;
  }
  while (v && dot) {
    name = dot + 1;
    dot = strchr(name, '.');
    seg = dot ? (size_t)(dot - name) : strlen(name);
    v = v->kind == V_OBJ ? member(v, name, seg) : NULL;
  }
  return v;
}

static int truthy(const bs_tval *v) {
  if (!v)
    return 0;
  switch (v->kind) {
  case V_STR:
    return v->str[0] != '\0';
  case V_BOOL:
    return v->boolean;
  case V_LIST:
    return v->n > 0;
  case V_OBJ:
    return 1;
  }
  return 0;
}

/* The length of the UTF-8 character at s when it may appear in HTML as
 * text, else 0: an invalid sequence, a C0 control other than tab and line
 * breaks, DEL, a C1 control, U+FFFE or U+FFFF (what the gnuplot labels
 * drop too). */
static size_t html_char(const unsigned char *s, size_t *bad) {
  unsigned c = s[0];
  *bad = 1; /* an invalid sequence is replaced byte by byte */
  if (c < 0x80)
    return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f ? 0
                                                                          : 1;
  unsigned long cp;
  size_t n = bs__utf8_decode(s, &cp);
  if (!n)
    return 0;
  if (cp <= 0x9F || cp == 0xFFFE || cp == 0xFFFF) {
    *bad = n; /* one character, one replacement */
    return 0;
  }
  return n;
}

static bs_status put_escaped(bs__buf *b, const char *s) {
  const char *run = s;
  while (*s && !bs__buf_status(b)) {
    const char *rep;
    size_t skip = 1;
    switch (*s) {
    case '&':
      rep = "&amp;";
      break;
    case '<':
      rep = "&lt;";
      break;
    case '>':
      rep = "&gt;";
      break;
    case '"':
      rep = "&quot;";
      break;
    case '\'':
      rep = "&#39;";
      break;
    default: {
      /* Control characters are not allowed in HTML, not even as character
       * references, nor are noncharacters and bytes that are not UTF-8: a
       * hostile name shows U+FFFD in their place. Tab and line breaks are
       * text. */
      size_t n = html_char((const unsigned char *)s, &skip);
      if (n) {
        s += n;
        continue;
      }
      rep = "\xef\xbf\xbd";
      break;
    }
    }
    bs__buf_append(b, run, (size_t)(s - run));
    bs__buf_puts(b, rep);
    s += skip;
    run = s;
  }
  return bs__buf_append(b, run, strlen(run));
}

static bs_status render_range(rstate *rs, const tmpl *tp, size_t from,
                              size_t to);

static bs_status oom(rstate *rs, const tmpl *tp, const tnode *nd,
                     bs_status st) {
  return bs_error_set(rs->err, st, tp->path, nd->line,
                      st == BS_ELIMIT ? "output too large" : BS__OOM_TEXT);
}

static bs_status render_range(rstate *rs, const tmpl *tp, size_t from,
                              size_t to) {
  bs_status st = BS_OK;
  for (size_t i = from; i < to && !st;) {
    const tnode *nd = &tp->nodes[i];
    if (++rs->steps > MAX_STEPS)
      return bs_error_set(rs->err, BS_ELIMIT, tp->path, nd->line,
                          "the template expands too far (more than %lu "
                          "steps): do its partials or sections fan out?",
                          MAX_STEPS);
    switch (nd->kind) {
    case N_TEXT:
      if ((st = bs__buf_append(rs->out, nd->s, nd->len)))
        return oom(rs, tp, nd, st);
      i++;
      break;
    case N_VAR:
    case N_RAW: {
      const bs_tval *v = lookup(rs, nd->s);
      if (v && v->kind == V_STR) {
        st = nd->kind == N_VAR ? put_escaped(rs->out, v->str)
                               : bs__buf_puts(rs->out, v->str);
        if (st)
          return oom(rs, tp, nd, st);
      }
      i++;
      break;
    }
    case N_SECTION:
    case N_INVERTED: {
      const bs_tval *v = lookup(rs, nd->s);
      int show = truthy(v) != (nd->kind == N_INVERTED);
      if (show) {
        if (rs->depth >= MAX_DEPTH)
          return bs_error_set(rs->err, BS_ELIMIT, tp->path, nd->line,
                              "sections and partials nest deeper than %d",
                              MAX_DEPTH);
        rs->depth++;
        if (nd->kind == N_INVERTED) {
          st = render_range(rs, tp, i + 1, nd->end);
        } else if (v->kind == V_LIST) {
          for (const bs_tval *item = v->head; item && !st; item = item->next) {
            rs->stack[rs->nstack++] = item;
            st = render_range(rs, tp, i + 1, nd->end);
            rs->nstack--;
          }
        } else {
          rs->stack[rs->nstack++] = v;
          st = render_range(rs, tp, i + 1, nd->end);
          rs->nstack--;
        }
        rs->depth--;
      }
      i = nd->end;
      break;
    }
    case N_PARTIAL: {
      const tmpl *p = find(rs->t, nd->s, nd->len);
      if (!p && rs->t->dir) {
        if ((st = load_file(rs->t, nd->s, nd->line, tp->path, rs->err)))
          return st;
        p = find(rs->t, nd->s, nd->len);
      }
      if (p) {
        if (rs->depth >= MAX_DEPTH)
          return bs_error_set(rs->err, BS_ELIMIT, tp->path, nd->line,
                              "sections and partials nest deeper than %d",
                              MAX_DEPTH);
        rs->depth++;
        st = render_range(rs, p, 0, p->n);
        rs->depth--;
      }
      i++;
      break;
    }
    }
  }
  return st;
}

bs_status bs_templates_render(bs_templates *t, const char *name,
                              const bs_tval *ctx, char **out, size_t *len,
                              bs_error *err) {
  *out = NULL;
  if (len)
    *len = 0;
  bs_status st = bs_templates_load(t, name, err);
  if (st)
    return st;
  const tmpl *tp = find(t, name, strlen(name));
  bs__buf b;
  bs__buf_init(&b, BS__CAP_PAGE);
  rstate rs;
  rs.t = t;
  rs.out = &b;
  rs.nstack = 0;
  rs.depth = 0;
  rs.steps = 0;
  rs.err = err;
  if (ctx)
    rs.stack[rs.nstack++] = ctx;
  if ((st = render_range(&rs, tp, 0, tp->n))) {
    bs__buf_release(&b);
    return st;
  }
  if (!b.data && (st = bs__buf_append(&b, "", 0)))
    return bs_error_set(err, st, tp->path, 0, BS__OOM_TEXT);
  *out = bs__buf_detach(&b, len);
  return BS_OK;
}
