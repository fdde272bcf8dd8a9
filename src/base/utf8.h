/* Strict UTF-8 decoding (RFC 3629) of one character, for the escapers of
 * terminal, CI-log and HTML text. Private. */
#ifndef BENCHSITE_UTF8_H
#define BENCHSITE_UTF8_H

#include <stddef.h>

/* The length (1 to 4) of the valid UTF-8 sequence at s, with its code
 * point in *cp; 0 for an invalid one: a bad lead or continuation byte (a
 * NUL ends the sequence too), an overlong form, a surrogate or a value
 * above U+10FFFF. */
static inline size_t bs__utf8_decode(const unsigned char *s,
                                     unsigned long *cp) {
  unsigned c = s[0];
  size_t n;
  unsigned long v;
  if (c < 0x80) {
    *cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, v = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, v = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, v = c & 0x07;
  else
    return 0;
  for (size_t i = 1; i < n; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    v = v << 6 | (s[i] & 0x3Fu);
  }
  if ((n == 3 && v < 0x800) || (n == 4 && (v < 0x10000 || v > 0x10FFFF)) ||
      (v >= 0xD800 && v <= 0xDFFF))
    return 0;
  *cp = v;
  return n;
}

/* The length of s[0..n-1] without a UTF-8 sequence cut short at its end
 * (what truncating a valid string leaves). */
static inline size_t bs__utf8_trim(const char *s, size_t n) {
  size_t i = n;
  while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80 && n - i < 3)
    i--;
  if (i == 0)
    return n;
  unsigned char c = (unsigned char)s[i - 1];
  size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  return n - (i - 1) < need ? i - 1 : n;
}

#endif
