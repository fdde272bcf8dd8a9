#include "jsonw.h"

#include <math.h>
#include <stdio.h>

bs_status bs__json_string(bs__buf *b, const char *s) {
  bs_status st = bs__buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; !st && *p; p++) {
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

bs_status bs__json_key(bs__buf *b, int indent, int first, const char *key) {
  bs_status st = bs__buf_puts(b, first ? "\n" : ",\n");
  for (int i = 0; !st && i < indent; i++)
    st = bs__buf_putc(b, ' ');
  if (!st)
    st = bs__json_string(b, key);
  return st ? st : bs__buf_puts(b, ": ");
}
