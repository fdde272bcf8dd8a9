/* Untrusted text in markup (markup.h). */
#include "markup.h"

#include <string.h>

/* Decodes one UTF-8 sequence (RFC 3629) of at most len bytes: its length
 * and code point, or 0 when it is invalid (a bad lead or continuation
 * byte, cut short, overlong, a surrogate, above U+10FFFF). */
static size_t decode(const unsigned char *s, size_t len, unsigned long *cp) {
  unsigned c = s[0];
  size_t n;
  unsigned long v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, v = c & 0x1F, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, v = c & 0x0F, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, v = c & 0x07, min = 0x10000;
  else
    return 0;
  if (len < n)
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    v = v << 6 | (s[i] & 0x3Fu);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

bs__markup_kind bs__markup_char(const char *s, size_t len, size_t *n) {
  unsigned long cp;
  *n = decode((const unsigned char *)s, len, &cp);
  if (!*n) {
    *n = 1;
    return BS__MARKUP_INVALID;
  }
  if (cp == '\t' || cp == '\n' || cp == '\r')
    return BS__MARKUP_BREAK;
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) ||
      (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE)
    return BS__MARKUP_CONTROL;
  return BS__MARKUP_TEXT;
}

bs_status bs__markup_put(bs__buf *b, const char *s, size_t len) {
  const char *run = s, *end = s + len;
  while (s < end) {
    const char *rep;
    size_t n = 1;
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
    default:
      if (bs__markup_char(s, (size_t)(end - s), &n) <= BS__MARKUP_BREAK) {
        s += n;
        continue;
      }
      rep = "\xef\xbf\xbd"; /* U+FFFD */
    }
    bs__buf_append(b, run, (size_t)(s - run));
    bs__buf_puts(b, rep);
    s += n;
    run = s;
  }
  bs__buf_append(b, run, (size_t)(s - run));
  return bs__buf_status(b);
}

bs_status bs__markup_puts(bs__buf *b, const char *s) {
  return s ? bs__markup_put(b, s, strlen(s)) : bs__buf_status(b);
}
