#include "svgmin.h"

#include "fsutil.h"
#include "grow.h"
#include "oom.h"
#include "plotsafe.h"
#include "strset.h"
#include "xmlload.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* As bs__svg_check parses. */
#define PARSE_OPTIONS                                                          \
  (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |                 \
   XML_PARSE_NOCDATA)

static int is(const xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && n->name &&
         !strcmp((const char *)n->name, name);
}

static int blank(const xmlChar *s) {
  for (; s && *s; s++)
    if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
      return 0;
  return 1;
}

/* Drops comments, and whitespace between elements outside <text> (which
 * is the only element whose text is drawn). */
static void strip(xmlNode *parent, int in_text) {
  xmlNode *n = parent->children;
  while (n) {
    xmlNode *next = n->next;
    if (n->type == XML_COMMENT_NODE ||
        (!in_text && n->type == XML_TEXT_NODE && blank(n->content))) {
      bs__xml.xmlUnlinkNode(n);
      bs__xml.xmlFreeNode(n);
    } else if (n->type == XML_ELEMENT_NODE) {
      strip(n, in_text || is(n, "text"));
    }
    n = next;
  }
}

/* Attributes a group may carry and still be merged with, or dropped when
 * empty: presentation properties each child takes on by itself (no
 * opacity, filter, mask or clipping, which act on the group as a whole,
 * and no id, which something may refer to). */
/* Whether `a` is an attribute without a namespace named one of names[n]. */
static int named(const xmlAttr *a, const char *const *names, size_t n) {
  for (size_t i = 0; !a->ns && i < n; i++)
    if (!strcmp((const char *)a->name, names[i]))
      return 1;
  return 0;
}

static int plain_attr(const xmlAttr *a) {
  static const char *const ok[] = {
      "fill",           "color",           "stroke",       "stroke-width",
      "stroke-linecap", "stroke-linejoin", "font-family",  "font-size",
      "text-anchor",    "transform",       "fill-opacity", "shape-rendering"};
  return named(a, ok, sizeof ok / sizeof ok[0]);
}

static int plain_group(const xmlNode *n) {
  if (!is(n, "g"))
    return 0;
  for (const xmlAttr *a = n->properties; a; a = a->next)
    if (!plain_attr(a))
      return 0;
  return 1;
}

static int same_attrs(const xmlNode *a, const xmlNode *b) {
  const xmlAttr *x = a->properties, *y = b->properties;
  for (; x && y; x = x->next, y = y->next) {
    if (strcmp((const char *)x->name, (const char *)y->name))
      return 0;
    const xmlChar *vx = x->children ? x->children->content : NULL;
    const xmlChar *vy = y->children ? y->children->content : NULL;
    if (!vx || !vy || strcmp((const char *)vx, (const char *)vy))
      return 0;
  }
  return !x && !y;
}

/* Removes groups that hold nothing and merges neighbouring groups with the
 * same plain attributes, bottom up. */
static void groups(xmlNode *parent) {
  for (xmlNode *n = parent->children; n; n = n->next)
    if (n->type == XML_ELEMENT_NODE)
      groups(n);
  xmlNode *n = parent->children;
  while (n) {
    xmlNode *next = n->next;
    if (plain_group(n) && !n->children) {
      bs__xml.xmlUnlinkNode(n);
      bs__xml.xmlFreeNode(n);
      n = next;
      continue;
    }
    if (plain_group(n) && next && plain_group(next) && same_attrs(n, next)) {
      while (next->children) {
        xmlNode *c = next->children;
        bs__xml.xmlUnlinkNode(c);
        bs__xml.xmlAddChild(n, c);
      }
      bs__xml.xmlUnlinkNode(next);
      bs__xml.xmlFreeNode(next);
      continue; /* n again, against its new neighbour */
    }
    n = next;
  }
}

static xmlChar *attr_value(const xmlAttr *a) {
  return a->children && a->children->type == XML_TEXT_NODE
             ? a->children->content
             : NULL;
}

/* Removes the spaces inside "rgb( 85,  85,  85)"; collapses the padding
 * of path data and point lists (where whitespace only separates). */
static void values(xmlNode *n) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    for (xmlAttr *a = n->properties; a; a = a->next) {
      xmlChar *v = attr_value(a);
      if (!v)
        continue;
      char *s = (char *)v, *w = s;
      int path = !a->ns && (!strcmp((const char *)a->name, "d") ||
                            !strcmp((const char *)a->name, "points"));
      int in_rgb = 0;
      for (char *r = s; *r; r++) {
        if (!strncmp(r, "rgb(", 4))
          in_rgb = 1;
        if (*r == ')')
          in_rgb = 0;
        int sp = *r == ' ' || *r == '\t' || *r == '\n' || *r == '\r';
        if (sp && in_rgb)
          continue;
        if (sp && path) {
          if (w == s || w[-1] == ' ')
            continue;
          *w++ = ' ';
          continue;
        }
        *w++ = *r;
      }
      if (path && w > s && w[-1] == ' ')
        w--;
      *w = '\0';
    }
    values(n->children);
  }
}

/* Whether every stroke-linecap is "butt" and every stroke-linejoin
 * "miter" (the defaults) and no style sheet or style attribute could set
 * them otherwise. */
static int defaults_only(const xmlNode *n) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (is(n, "style"))
      return 0;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
      const char *an = (const char *)a->name;
      const xmlChar *v = attr_value(a);
      if (!strcmp(an, "style"))
        return 0;
      if (!strcmp(an, "stroke-linecap") &&
          (!v || strcmp((const char *)v, "butt")))
        return 0;
      if (!strcmp(an, "stroke-linejoin") &&
          (!v || strcmp((const char *)v, "miter")))
        return 0;
    }
    if (!defaults_only(n->children))
      return 0;
  }
  return 1;
}

/* Removes, in `n`, its siblings and everything under them, each
 * attribute `drop` says draws nothing. */
static void drop_attrs(xmlNode *n,
                       int (*drop)(const xmlNode *, const xmlAttr *)) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    xmlAttr *a = n->properties;
    while (a) {
      xmlAttr *next = a->next;
      if (!a->ns && drop(n, a))
        bs__xml.xmlRemoveProp(a);
      a = next;
    }
    drop_attrs(n->children, drop);
  }
}

/* Line ends, once defaults_only found them all at their defaults. */
static int line_end(const xmlNode *n, const xmlAttr *a) {
  (void)n;
  return !strcmp((const char *)a->name, "stroke-linecap") ||
         !strcmp((const char *)a->name, "stroke-linejoin");
}

/* Definitions nothing drawn refers to, found in one pass over the
 * document (the fixpoint of "remove what nothing left refers to" took a
 * pass per link of a chain and a walk of the whole document per
 * definition: cubic in their number). Each child of a <defs> with an id is
 * a node; "#id" in any attribute value is a reference to it, from the
 * definition the attribute lies in or from the drawing (a root); a
 * definition is kept when a root reaches it through references. */
typedef struct def_graph {
  bs__strset ids; /* an id -> its slot */
  size_t nslots;
  unsigned char *live; /* per slot */
  size_t *head;        /* per slot: its first edge + 1, 0 for none */
  struct def_edge {
    size_t to, next; /* a slot; the slot's next edge + 1, 0 for none */
  } * edges;
  size_t nedges, cap_slots, cap_edges;
  size_t *stack;
  size_t nstack, cap_stack;
  int oom;
} def_graph;

/* An id a reference can name: one that a terminator of the reference
 * ('\0', ')', ' ', '\'') or a '#' cannot cut (an id holding one is kept,
 * whoever refers to it). */
static int plain_id(const char *id) { return *id && !strpbrk(id, "#) '"); }

/* The id attribute of a <defs> child, NULL when it has none. */
static const char *def_id(const xmlNode *c) {
  if (c->type != XML_ELEMENT_NODE)
    return NULL;
  for (const xmlAttr *a = c->properties; a; a = a->next)
    if (!a->ns && !strcmp((const char *)a->name, "id"))
      return (const char *)attr_value(a);
  return NULL;
}

static int ref_end(char c) {
  return c == '\0' || c == ')' || c == ' ' || c == '\'';
}

static void mark(def_graph *g, size_t slot) {
  if (g->live[slot])
    return;
  size_t *t = BS__GROW(g->stack, g->cap_stack, g->nstack + 1, 64);
  if (!t) {
    g->oom = 1;
    return;
  }
  g->stack = t;
  g->live[slot] = 1;
  g->stack[g->nstack++] = slot;
}

/* The slots of the plain ids of the <defs> children under `n`. */
static void def_ids(def_graph *g, xmlNode *n) {
  for (; n && !g->oom; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (!is(n, "defs")) {
      def_ids(g, n->children);
      continue;
    }
    for (xmlNode *c = n->children; c && !g->oom; c = c->next) {
      const char *id = def_id(c);
      if (!id || !plain_id(id))
        continue;
      int added = 0;
      size_t *v = bs__strset_ref(&g->ids, id, strlen(id), &added);
      unsigned char *l =
          v ? BS__GROW(g->live, g->cap_slots, g->nslots + 1, 64) : NULL;
      if (!l) {
        g->oom = 1;
        break;
      }
      g->live = l;
      if (added)
        *v = g->nslots++;
    }
  }
}

/* Every reference in the attributes of `n`, its siblings and everything
 * under them, from slot `from` (SIZE_MAX: the drawing). For each stretch
 * of a value between two terminators, only what follows its last '#' can
 * be a plain id, so each byte is looked at once. */
static void refs(def_graph *g, const xmlNode *n, size_t from, int siblings,
                 int in_defs_child);

static void refs_in(def_graph *g, const xmlNode *n, size_t from) {
  for (const xmlAttr *a = n->properties; a && !g->oom; a = a->next) {
    const char *v = (const char *)attr_value(a);
    const char *hash = NULL;
    for (const char *p = v; p; p++) {
      if (*p == '#') {
        hash = p;
      } else if (ref_end(*p)) {
        size_t slot;
        if (hash && p > hash + 1 &&
            bs__strset_get(&g->ids, hash + 1, (size_t)(p - hash - 1), &slot) &&
            slot != from) {
          if (from == SIZE_MAX) {
            mark(g, slot);
          } else {
            struct def_edge *e =
                BS__GROW(g->edges, g->cap_edges, g->nedges + 1, 64);
            if (!e) {
              g->oom = 1;
              return;
            }
            g->edges = e;
            e[g->nedges].to = slot;
            e[g->nedges].next = g->head[from];
            g->head[from] = ++g->nedges;
          }
        }
        hash = NULL;
        if (!*p)
          break;
      }
    }
  }
}

static void refs(def_graph *g, const xmlNode *n, size_t from, int siblings,
                 int in_defs_child) {
  for (; n && !g->oom; n = siblings ? n->next : NULL) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    refs_in(g, n, from);
    if (!in_defs_child && is(n, "defs")) {
      for (const xmlNode *c = n->children; c && !g->oom; c = c->next) {
        if (c->type != XML_ELEMENT_NODE)
          continue;
        const char *id = def_id(c);
        size_t slot = SIZE_MAX;
        if (id && plain_id(id))
          bs__strset_get(&g->ids, id, strlen(id), &slot);
        refs(g, c, slot, 0, 1);
      }
      continue;
    }
    refs(g, n->children, from, 1, in_defs_child);
  }
}

/* Removes the children of the <defs> under `n` whose plain id is not
 * live. */
static void sweep(def_graph *g, xmlNode *n) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (!is(n, "defs")) {
      sweep(g, n->children);
      continue;
    }
    xmlNode *c = n->children;
    while (c) {
      xmlNode *next = c->next;
      const char *id = def_id(c);
      size_t slot;
      if (id && plain_id(id) &&
          bs__strset_get(&g->ids, id, strlen(id), &slot) && !g->live[slot]) {
        bs__xml.xmlUnlinkNode(c);
        bs__xml.xmlFreeNode(c);
      }
      c = next;
    }
  }
}

/* Removes the definitions the drawing does not reach. Out of memory, it
 * removes none (the chart draws the same, in more bytes). */
static void unused_defs(xmlNode *root) {
  def_graph g;
  memset(&g, 0, sizeof g);
  bs__strset_init(&g.ids);
  def_ids(&g, root);
  if (!g.oom && g.nslots) {
    memset(g.live, 0, g.nslots);
    g.head = calloc(g.nslots, sizeof *g.head);
    g.oom = !g.head;
  }
  if (!g.oom && g.nslots)
    refs(&g, root, SIZE_MAX, 0, 0);
  while (!g.oom && g.nstack) {
    size_t s = g.stack[--g.nstack];
    for (size_t e = g.head[s]; e && !g.oom; e = g.edges[e - 1].next)
      mark(&g, g.edges[e - 1].to);
  }
  if (!g.oom && g.nslots)
    sweep(&g, root);
  bs__strset_release(&g.ids);
  free(g.live);
  free(g.head);
  free(g.edges);
  free(g.stack);
}

/* Moves the attributes of a plain group that holds one element onto that
 * element and puts the element in the group's place: each property the
 * group gave it is inherited the same way from the element itself, one the
 * element sets already wins as it did, and a transform of both is the
 * group's followed by the element's (what nesting draws). Bottom up. */
static void hoist(xmlNode *parent) {
  xmlNode *n = parent->children;
  while (n) {
    xmlNode *next = n->next;
    if (n->type != XML_ELEMENT_NODE) {
      n = next;
      continue;
    }
    hoist(n);
    xmlNode *c = n->children;
    /* (Not onto a nested <svg>, which SVG 1.1 gives no transform.) */
    if (!plain_group(n) || !c || c->next || c->type != XML_ELEMENT_NODE ||
        is(c, "svg")) {
      n = next;
      continue;
    }
    int ok = 1;
    for (const xmlAttr *a = n->properties; a && ok; a = a->next) {
      const xmlChar *v = attr_value(a);
      xmlChar *cv = bs__xml.xmlGetNoNsProp(c, a->name);
      if (!v) {
        ok = 0;
      } else if (!strcmp((const char *)a->name, "transform") && cv) {
        size_t lv = strlen((const char *)v), lc = strlen((const char *)cv);
        char *both = malloc(lv + lc + 2);
        if (both) {
          memcpy(both, v, lv);
          both[lv] = ' ';
          memcpy(both + lv + 1, cv, lc + 1);
          ok = bs__xml.xmlSetProp(c, a->name, (const xmlChar *)both) != NULL;
        } else {
          ok = 0;
        }
        free(both);
      } else if (!cv) {
        ok = bs__xml.xmlSetProp(c, a->name, v) != NULL;
      }
      (*bs__xml.xmlFree)(cv);
    }
    if (ok) { /* else the group stays (out of memory: it still draws) */
      bs__xml.xmlUnlinkNode(c);
      bs__xml.xmlAddPrevSibling(n, c);
      bs__xml.xmlUnlinkNode(n);
      bs__xml.xmlFreeNode(n);
    }
    n = next;
  }
}

/* Whether anything in `n` or under it takes the colour property: a value
 * naming currentColor, or a <use>, whose copy inherits it. */
static int uses_color(const xmlNode *n, int siblings) {
  for (; n; n = siblings ? n->next : NULL) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    if (is(n, "use"))
      return 1;
    for (const xmlAttr *a = n->properties; a; a = a->next) {
      const char *v = (const char *)attr_value(a);
      for (const char *p = v; p && *p; p++)
        if (!strncasecmp(p, "currentcolor", 12))
          return 1;
    }
    if (uses_color(n->children, 1))
      return 1;
  }
  return 0;
}

/* The colour property where nothing takes it, and class names (gnuplot's
 * "gridline"), which only a style sheet could select: a chart is shown by
 * <img>, which no style of the page reaches. */
static int unused_color_class(const xmlNode *n, const xmlAttr *a) {
  const char *an = (const char *)a->name;
  return (!strcmp(an, "color") && !uses_color(n, 0)) || !strcmp(an, "class");
}

/* Whether an attribute holds numbers only (lengths, coordinates, path
 * data, transforms), where "2.50" and "2.5" are the same number. */
static int numeric_attr(const xmlAttr *a) {
  static const char *const num[] = {
      "d",  "points", "transform", "stroke-width", "font-size", "fill-opacity",
      "x",  "y",      "width",     "height",       "viewBox",   "cx",
      "cy", "r",      "x1",        "y1",           "x2",        "y2"};
  return named(a, num, sizeof num / sizeof num[0]);
}

/* Drops the trailing zeros of each decimal fraction in `s`, in place:
 * "0.550000" "11.00" ".0" become "0.55" "11" "0" (never one followed by
 * an exponent). */
static void trim_zeros(char *s) {
  char *w = s;
  for (const char *r = s; *r;) {
    if (!((*r >= '0' && *r <= '9') || *r == '.')) {
      *w++ = *r++;
      continue;
    }
    const char *end = r, *dot = NULL;
    for (; (*end >= '0' && *end <= '9') || *end == '.'; end++)
      if (*end == '.')
        dot = dot ? dot : end;
    size_t keep = (size_t)(end - r);
    if (dot && *end != 'e' && *end != 'E') {
      while (keep > (size_t)(dot - r) && r[keep - 1] == '0')
        keep--;
      if (keep == (size_t)(dot - r) + 1)
        keep--; /* the point itself */
    }
    if (keep == 0) {
      *w++ = '0';
    } else {
      memmove(w, r, keep);
      w += keep;
    }
    r = end;
  }
  *w = '\0';
}

/* Path data of M, L and Z commands with at most two decimals per number
 * (what gnuplot writes), rewritten shorter and exactly: no blanks between
 * commands, and a line that keeps its y (x) as Hx (Vy), compared in
 * integer hundredths, so every point stays where it was. Anything else
 * (another command, more decimals, an exponent) leaves the data as it
 * is. */
static int path_num(const char **p, long long *v) {
  const char *s = *p;
  int neg = 0;
  if (*s == '-' || *s == '+')
    neg = *s++ == '-';
  long long ip = 0, fp = 0;
  int di = 0, df = 0;
  for (; *s >= '0' && *s <= '9' && di < 12; s++, di++)
    ip = ip * 10 + (*s - '0');
  if (*s == '.') {
    for (s++; *s >= '0' && *s <= '9'; s++, df++) {
      if (df == 2)
        return 0;
      fp = fp * 10 + (*s - '0');
    }
  }
  if ((di == 0 && df == 0) || (*s >= '0' && *s <= '9') || *s == 'e' ||
      *s == 'E' || *s == '.')
    return 0;
  if (df == 1)
    fp *= 10;
  *v = (ip * 100 + fp) * (neg ? -1 : 1);
  *p = s;
  return 1;
}

static void skip_sep(const char **p) {
  while (**p == ' ' || **p == ',' || **p == '\t' || **p == '\n' || **p == '\r')
    (*p)++;
}

/* Writes v hundredths as "-0.5", "12", "3.25" (a leading zero kept). */
static size_t put_hundredths(char *w, long long v) {
  char t[32];
  long long a = v < 0 ? -v : v;
  int n = snprintf(t, sizeof t, "%s%lld", v < 0 ? "-" : "", a / 100);
  long long f = a % 100;
  if (f)
    n += snprintf(t + n, sizeof t - (size_t)n, f % 10 ? ".%02lld" : ".%lld",
                  f % 10 ? f : f / 10);
  memcpy(w, t, (size_t)n);
  return (size_t)n;
}

static void shorter_path(char *d) {
  size_t len = strlen(d);
  char *out = malloc(2 * len + 64); /* ".5" grows to "0.5" */
  if (!out)
    return; /* out of memory: the data stays as it is, and draws */
  const char *p = d;
  char *w = out;
  long long cx = 0, cy = 0, sx = 0, sy = 0;
  int started = 0;
  skip_sep(&p);
  while (*p) {
    char cmd = *p++;
    skip_sep(&p);
    if (cmd == 'Z' || cmd == 'z') {
      *w++ = 'Z';
      cx = sx;
      cy = sy;
      continue;
    }
    if (cmd != 'M' && cmd != 'L')
      goto keep;
    long long x, y;
    int first = 1;
    /* A command may repeat its coordinates; after M they are L's. */
    do {
      if (!path_num(&p, &x))
        goto keep;
      skip_sep(&p);
      if (!path_num(&p, &y))
        goto keep;
      skip_sep(&p);
      if (cmd == 'M' && first) {
        *w++ = 'M';
        w += put_hundredths(w, x);
        *w++ = ',';
        w += put_hundredths(w, y);
        sx = x;
        sy = y;
        started = 1;
      } else {
        if (!started)
          goto keep;
        /* Absolute steps only: a relative one is summed in the
         * renderer's floating point, and a long chain of them moves the
         * last points by a fraction of a pixel (measured: a few pixels of
         * antialiasing differ). */
        char opt[80];
        size_t ol = 0;
        if (y == cy && x != cx) {
          opt[ol++] = 'H';
          ol += put_hundredths(opt + ol, x);
        } else if (x == cx && y != cy) {
          opt[ol++] = 'V';
          ol += put_hundredths(opt + ol, y);
        } else {
          opt[ol++] = 'L';
          ol += put_hundredths(opt + ol, x);
          opt[ol++] = ',';
          ol += put_hundredths(opt + ol, y);
        }
        memcpy(w, opt, ol);
        w += ol;
      }
      cx = x;
      cy = y;
      first = 0;
    } while (*p &&
             ((*p >= '0' && *p <= '9') || *p == '-' || *p == '+' || *p == '.'));
  }
  *w = '\0';
  if ((size_t)(w - out) < len)
    memcpy(d, out, (size_t)(w - out) + 1);
keep:
  free(out);
}

static void numbers(xmlNode *n) {
  for (; n; n = n->next) {
    if (n->type != XML_ELEMENT_NODE)
      continue;
    for (xmlAttr *a = n->properties; a; a = a->next) {
      xmlChar *v = attr_value(a);
      if (v && numeric_attr(a)) {
        trim_zeros((char *)v);
        if (!strcmp((const char *)a->name, "d"))
          shorter_path((char *)v);
      }
    }
    numbers(n->children);
  }
}

bs_status bs__svg_compact(const char *name, const char *data, size_t len,
                          char **out, size_t *outlen, bs_error *err) {
  *out = NULL;
  *outlen = 0;
  if (len > (size_t)1 << 30)
    return bs_error_set(err, BS_EPLOT, name, 0, "the SVG is too large");
  bs_status st = bs__xml_load(err);
  if (st)
    return st;
  xmlDoc *doc =
      bs__xml.xmlReadMemory(data, (int)len, NULL, NULL, PARSE_OPTIONS);
  xmlNode *root = doc ? bs__xml.xmlDocGetRootElement(doc) : NULL;
  if (!root) {
    bs__xml.xmlFreeDoc(doc);
    return bs_error_set(err, BS_EPLOT, name, 0,
                        "gnuplot wrote an SVG that is not well-formed XML");
  }
  strip(root, 0);
  groups(root);
  values(root);
  numbers(root);
  hoist(root);
  if (defaults_only(root)) { /* no style sheet either */
    drop_attrs(root, line_end);
    drop_attrs(root, unused_color_class);
  }
  unused_defs(root);
  xmlChar *mem = NULL;
  int size = 0;
  bs__xml.xmlDocDumpMemory(doc, &mem, &size);
  bs__xml.xmlFreeDoc(doc);
  if (!mem || size <= 0) {
    (*bs__xml.xmlFree)(mem);
    return bs__oom(err);
  }
  char *s = malloc((size_t)size + 1);
  if (s) {
    memcpy(s, mem, (size_t)size);
    s[size] = '\0';
  }
  (*bs__xml.xmlFree)(mem);
  if (!s)
    return bs__oom(err);
  *out = s;
  *outlen = (size_t)size;
  return BS_OK;
}

bs_status bs__svg_check_compact(const char *path, bs_error *err) {
  char *data = NULL, *small = NULL;
  size_t len = 0, slen = 0;
  bs_status st = bs__svg_read(path, &data, &len, err); /* size capped */
  if (st)
    return st;
  /* The compaction only removes: what it writes is checked (the
   * published bytes are the checked ones). */
  if (!(st = bs__svg_compact(path, data, len, &small, &slen, err)) &&
      !(st = bs__svg_check_memory(path, small, slen, err)))
    st = bs__write_file(path, small, slen, 1, err);
  free(data);
  free(small);
  return st;
}
