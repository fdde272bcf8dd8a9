/* Helpers shared by the libFuzzer targets (tests/fuzz/fuzz_*.c). */
#ifndef BENCHSITE_FUZZ_UTIL_H
#define BENCHSITE_FUZZ_UTIL_H

#include "benchsite/error.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A failed property: print and abort, so libFuzzer keeps the input. */
#define FUZZ_CHECK(cond, ...)                                                  \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fuzz property failed: %s (%s:%d): ", #cond, __FILE__,   \
              __LINE__);                                                       \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* 1 when s[0..n-1] is valid UTF-8 (no overlong forms, surrogates or code
 * points past U+10FFFF): written out again here, independent of
 * src/base/csvin.c's validator. */
static inline int fz_utf8_ok(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t len;
    unsigned long cp;
    if (c < 0x80) {
      i++;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07;
    } else {
      return 0;
    }
    if (n - i < len)
      return 0;
    for (size_t k = 1; k < len; k++) {
      if ((s[i + k] & 0xC0) != 0x80)
        return 0;
      cp = cp << 6 | (s[i + k] & 0x3Fu);
    }
    static const unsigned long min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
    i += len;
  }
  return 1;
}

/* s[0..n-1] (NUL-terminated) is one clean line a terminal shows as it
 * is: valid UTF-8, no control bytes (C0, DEL), no C1 controls. */
static inline void fz_check_clean_line(const char *s, size_t n) {
  FUZZ_CHECK(fz_utf8_ok((const unsigned char *)s, n), "not UTF-8: %s", s);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    FUZZ_CHECK(c >= 0x20 && c != 0x7F, "control byte 0x%02x in: %s", c, s);
    if (c == 0xC2 && i + 1 < n)
      FUZZ_CHECK((unsigned char)s[i + 1] < 0x80 ||
                     (unsigned char)s[i + 1] > 0x9F,
                 "C1 control in: %s", s);
  }
}

/* An error message must be one clean line (fz_check_clean_line), not
 * empty. */
static inline void fz_check_message(const bs_error *err) {
  char msg[2048];
  size_t n = bs_error_format(err, msg, sizeof msg);
  if (n >= sizeof msg)
    n = sizeof msg - 1;
  FUZZ_CHECK(n > 0 && err->message[0], "empty message");
  fz_check_clean_line(msg, n);
}

/* Reads fuzz input as a stream of typed values (after LLVM's
 * FuzzedDataProvider, simplified). */
typedef struct fz_in {
  const uint8_t *p;
  size_t n;
} fz_in;

static inline unsigned fz_byte(fz_in *in) {
  if (!in->n)
    return 0;
  in->n--;
  return *in->p++;
}

static inline uint64_t fz_u64(fz_in *in) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | fz_byte(in);
  return v;
}

/* A string of up to `max` bytes, ended by a 0xFF byte or the input; the
 * result is malloc'd and NUL-terminated, *len its length. */
static inline char *fz_str(fz_in *in, size_t max, size_t *len) {
  size_t k = 0;
  while (k < in->n && k < max && in->p[k] != 0xFF)
    k++;
  char *s = malloc(k + 1);
  if (!s)
    abort();
  memcpy(s, in->p, k);
  s[k] = '\0';
  size_t used = k < in->n ? k + 1 : k;
  in->p += used;
  in->n -= used;
  if (len)
    *len = k;
  return s;
}

/* The same, made valid UTF-8 without NUL: bad bytes are dropped. */
static inline char *fz_utf8(fz_in *in, size_t max) {
  size_t n;
  char *s = fz_str(in, max, &n);
  size_t o = 0;
  for (size_t i = 0; i < n;) {
    size_t len = 1;
    unsigned char c = (unsigned char)s[i];
    if (c >= 0xF0)
      len = 4;
    else if (c >= 0xE0)
      len = 3;
    else if (c >= 0xC0)
      len = 2;
    if (c != 0 && i + len <= n &&
        fz_utf8_ok((const unsigned char *)s + i, len)) {
      memmove(s + o, s + i, len);
      o += len;
    }
    i += len;
  }
  s[o] = '\0';
  return s;
}

#endif
