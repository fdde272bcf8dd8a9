#include "benchsite/error.h"

#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *bs_strerror(bs_status status) {
  switch (status) {
#define BS_STATUS_CASE(name, msg)                                              \
  case BS_##name:                                                              \
    return msg;
    BS_STATUS_MAP(BS_STATUS_CASE)
#undef BS_STATUS_CASE
  case BS_STATUS_COUNT:
    break;
  }
  return "unknown error";
}

void bs_error_clear(bs_error *err) {
  if (!err)
    return;
  err->status = BS_OK;
  err->path[0] = '\0';
  err->line = 0;
  err->column = 0;
  err->message[0] = '\0';
}

bs_status bs_error_set(bs_error *err, bs_status status, const char *path,
                       long line, const char *fmt, ...) {
  if (!err)
    return status;
  err->status = status;
  err->line = line;
  err->column = 0;
  if (path) {
    size_t n = strlen(path);
    if (n >= sizeof err->path)
      n = sizeof err->path - 1;
    memcpy(err->path, path, n);
    err->path[n] = '\0';
  } else {
    err->path[0] = '\0';
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return status;
}

size_t bs_error_format(const bs_error *err, char *buf, size_t n) {
  int len;
  if (err->path[0] && err->line > 0)
    len = snprintf(buf, n, "%s:%ld: %s", err->path, err->line, err->message);
  else if (err->path[0])
    len = snprintf(buf, n, "%s: %s", err->path, err->message);
  else
    len = snprintf(buf, n, "%s", err->message);
  return len < 0 ? 0 : (size_t)len;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629), or 0. */
static size_t utf8_len(const unsigned char *p) {
  unsigned long cp;
  size_t n = bs__utf8_decode(p, &cp);
  if (n <= 1)
    return n;
  /* C1 controls, the Unicode line and paragraph separators, and the
   * bidirectional formatting characters, which reorder the rest of a
   * terminal line (marks U+061C, U+200E, U+200F; embeddings and overrides
   * U+202A..U+202E; isolates U+2066..U+2069). */
  if ((cp >= 0x80 && cp <= 0x9F) || cp == 0x2028 || cp == 0x2029 ||
      cp == 0x061C || cp == 0x200E || cp == 0x200F ||
      (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
    return 0;
  return n;
}

size_t bs_text_escape(char *out, size_t n, const char *s, int flags) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *p = (const unsigned char *)s;
  size_t need = 0, used = 0;
  int full = 0; /* out holds no more: everything after is only counted */
  for (size_t i = 0; p[i];) {
    size_t len = utf8_len(p + i);
    int esc = len == 0 || p[i] < 0x20 || p[i] == 0x7F;
    if (!esc && i == 0 && (flags & BS_TEXT_LINE_START) &&
        (p[0] == ' ' || p[0] == ':' || p[0] == '#'))
      esc = 1;
    if (!esc && p[i] == '#' && p[i + 1] == '#' && p[i + 2] == '[')
      esc = 1;
    if (esc)
      len = 1; /* one byte at a time: an invalid sequence is bytes */
    size_t w = esc ? 4 : len;
    if (!full && used + w < n) {
      if (esc) {
        out[used++] = '\\';
        out[used++] = 'x';
        out[used++] = hex[p[i] >> 4];
        out[used++] = hex[p[i] & 15];
      } else {
        memcpy(out + used, p + i, len);
        used += len;
      }
    } else {
      full = 1;
    }
    need += w;
    i += len;
  }
  if (n)
    out[used] = '\0';
  return need;
}
