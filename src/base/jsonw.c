#include "jsonw.h"

#include "utf8.h"

#include <math.h>
#include <stdio.h>

bs_status bs__json_string(bs__buf *b, const char *s) {
  bs_status st = bs__buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; !st && *p; p++) {
    unsigned long cp;
    size_t n = *p >= 0x80 ? bs__utf8_decode(p, &cp) : 0;
    /* C1 controls and U+2028/U+2029 escaped too: JSON printed to a CI log
     * holds no raw line separator (and it is valid JavaScript). */
    if (n > 1 && ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)) {
      st = bs__buf_printf(b, "\\u%04lx", cp);
      p += n - 1;
      continue;
    }
    switch (*p) {
    case '"':
      st = bs__buf_puts(b, "\\\"");
      break;
    case '\\':
      st = bs__buf_puts(b, "\\\\");
      break;
    case '\n':
      st = bs__buf_puts(b, "\\n");
      break;
    case '\r':
      st = bs__buf_puts(b, "\\r");
      break;
    case '\t':
      st = bs__buf_puts(b, "\\t");
      break;
    default:
      if (*p < 0x20 || *p == 0x7f)
        st = bs__buf_printf(b, "\\u%04x", (unsigned)*p);
      else
        st = bs__buf_putc(b, (char)*p);
    }
  }
  return st ? st : bs__buf_putc(b, '"');
}

bs_status bs__json_number(bs__buf *b, double v) {
  if (!isfinite(v))
    return bs__buf_puts(b, "null");
  return bs__buf_printf(b, "%.17g", v);
}

bs_status bs__json_u64(bs__buf *b, uint64_t v) {
  return bs__buf_printf(b, "%llu", (unsigned long long)v);
}

bs_status bs__json_bool(bs__buf *b, int v) {
  return bs__buf_puts(b, v ? "true" : "false");
}

bs_status bs__json_string_array(bs__buf *b, char *const *list, size_t n) {
  bs_status st = bs__buf_putc(b, '[');
  for (size_t i = 0; !st && i < n; i++) {
    if (i)
      st = bs__buf_puts(b, ", ");
    if (!st)
      st = bs__json_string(b, list[i]);
  }
  return st ? st : bs__buf_putc(b, ']');
}

bs_status bs__json_number_array(bs__buf *b, const double *v, size_t n) {
  bs_status st = bs__buf_putc(b, '[');
  for (size_t i = 0; !st && i < n; i++) {
    if (i)
      st = bs__buf_puts(b, ", ");
    if (!st)
      st = bs__json_number(b, v[i]);
  }
  return st ? st : bs__buf_putc(b, ']');
}

static bs_status spaces(bs__buf *b, int n) {
  bs_status st = BS_OK;
  for (int i = 0; !st && i < n; i++)
    st = bs__buf_putc(b, ' ');
  return st;
}

/* Before element i of a list with one element a line, indent spaces in. */
static bs_status item_start(bs__buf *b, int indent, size_t i) {
  bs_status st = bs__buf_puts(b, i ? ",\n" : "\n");
  return st ? st : spaces(b, indent);
}

/* After the n elements of such a list: `close` on a line of its own, two
 * spaces left of them, or right after the opening one when n is 0. */
static bs_status list_end(bs__buf *b, int indent, size_t n, char close) {
  bs_status st = BS_OK;
  if (n) {
    st = bs__buf_putc(b, '\n');
    if (!st)
      st = spaces(b, indent - 2);
  }
  return st ? st : bs__buf_putc(b, close);
}

void bs__jobj_begin(bs__jobj *o, bs__buf *b, int indent) {
  o->b = b;
  o->indent = indent;
  o->members = 0;
  o->st = bs__buf_putc(b, '{');
}

void bs__jobj_begin_case(bs__jobj *o, bs__buf *b, int indent,
                         const char *benchmark, const char *dataset) {
  bs__jobj_begin(o, b, indent);
  bs__jobj_string(o, "benchmark", benchmark);
  bs__jobj_string(o, "dataset", dataset);
}

int bs__jobj_key(bs__jobj *o, const char *key) {
  if (!o->st)
    o->st = item_start(o->b, o->indent, o->members++);
  if (!o->st)
    o->st = bs__json_string(o->b, key);
  if (!o->st)
    o->st = bs__buf_puts(o->b, ": ");
  return !o->st;
}

void bs__jobj_string(bs__jobj *o, const char *key, const char *v) {
  if (bs__jobj_key(o, key))
    o->st = bs__json_string(o->b, v);
}

void bs__jobj_number(bs__jobj *o, const char *key, double v) {
  if (bs__jobj_key(o, key))
    o->st = bs__json_number(o->b, v);
}

void bs__jobj_u64(bs__jobj *o, const char *key, uint64_t v) {
  if (bs__jobj_key(o, key))
    o->st = bs__json_u64(o->b, v);
}

void bs__jobj_bool(bs__jobj *o, const char *key, int v) {
  if (bs__jobj_key(o, key))
    o->st = bs__json_bool(o->b, v);
}

void bs__jobj_numbers(bs__jobj *o, const char *const *keys, const double *v,
                      size_t n) {
  for (size_t i = 0; i < n; i++)
    bs__jobj_number(o, keys[i], v[i]);
}

void bs__jobj_objects(bs__jobj *o, const char *key, size_t n,
                      bs_status (*item)(bs__buf *b, const void *ctx, size_t i),
                      const void *ctx) {
  if (bs__jobj_key(o, key))
    o->st = bs__buf_putc(o->b, '[');
  for (size_t i = 0; !o->st && i < n; i++) {
    o->st = item_start(o->b, o->indent + 2, i);
    if (!o->st)
      o->st = item(o->b, ctx, i);
  }
  if (!o->st)
    o->st = list_end(o->b, o->indent + 2, n, ']');
}

bs_status bs__jobj_end(bs__jobj *o) {
  if (!o->st)
    o->st = list_end(o->b, o->indent, o->members, '}');
  return o->st;
}

void bs__json_doc_begin(bs__jobj *o, bs__buf *b, const char *schema) {
  bs__buf_init(b, BS__CAP_JSON);
  bs__jobj_begin(o, b, 2);
  bs__jobj_string(o, "schema", schema);
}

bs_status bs__json_doc_end(bs__jobj *o, char **out, size_t *len,
                           bs_error *err) {
  bs_status st = bs__jobj_end(o);
  if (!st)
    st = bs__buf_putc(o->b, '\n');
  return bs__buf_finish(o->b, st, "JSON", out, len, err);
}
