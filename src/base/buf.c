#include "buf.h"
#include "grow.h"
#include "oom.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bs__buf_init(bs__buf *b, size_t limit) {
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  b->limit = limit ? limit : BS__BUF_DEFAULT_LIMIT;
  b->err = BS_OK;
}

void bs__buf_release(bs__buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->err = BS_OK;
}

bs_status bs__buf_status(const bs__buf *b) { return b->err; }

bs_status bs__buf_fail(bs__buf *b, bs_status err) {
  if (!b->err)
    b->err = err;
  return b->err;
}

void bs__buf_reset(bs__buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

static bs_status reserve(bs__buf *b, size_t extra) {
  if (b->err)
    return b->err;
  if (extra > b->limit - b->len)
    return b->err = BS_ELIMIT;
  size_t need = b->len + extra + 1;
  if (need <= b->cap)
    return BS_OK;
  char *p = BS__GROW(b->data, b->cap, need, 256);
  if (!p)
    return b->err = BS_ENOMEM;
  b->data = p;
  return BS_OK;
}

bs_status bs__buf_append(bs__buf *b, const void *p, size_t n) {
  bs_status st = reserve(b, n);
  if (st)
    return st;
  if (n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return BS_OK;
}

bs_status bs__buf_puts(bs__buf *b, const char *s) {
  return bs__buf_append(b, s, strlen(s));
}

bs_status bs__buf_putc(bs__buf *b, char c) { return bs__buf_append(b, &c, 1); }

bs_status bs__buf_put_quoted(bs__buf *b, const char *w) {
  bs__buf_putc(b, '\'');
  for (const char *p = w; *p; p++) {
    if (*p == '\'')
      bs__buf_puts(b, "'\\''");
    else
      bs__buf_putc(b, *p);
  }
  return bs__buf_putc(b, '\'');
}

bs_status bs__buf_vprintf(bs__buf *b, const char *fmt, va_list ap) {
  if (b->err)
    return b->err;
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0)
    return b->err = BS_EINTERNAL;
  bs_status st = reserve(b, (size_t)n);
  if (st)
    return st;
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  b->len += (size_t)n;
  return BS_OK;
}

bs_status bs__buf_printf(bs__buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  bs_status st = bs__buf_vprintf(b, fmt, ap);
  va_end(ap);
  return st;
}

char *bs__buf_detach(bs__buf *b, size_t *len) {
  b->err = BS_OK;
  if (!b->data) {
    if (reserve(b, 0) != BS_OK || !b->data)
      return NULL;
    b->data[0] = '\0';
  }
  char *p = b->data;
  if (len)
    *len = b->len;
  b->data = NULL;
  b->len = b->cap = 0;
  return p;
}

bs_status bs__buf_finish(bs__buf *b, bs_status st, const char *what, char **out,
                         size_t *len, bs_error *err) {
  if (!st)
    st = b->err;
  if (st) {
    bs__buf_release(b);
    return bs_error_set(err, st, NULL, 0, "cannot render %s: %s", what,
                        bs_strerror(st));
  }
  *out = bs__buf_detach(b, len);
  return *out ? BS_OK : bs__oom(err);
}

bs_status bs__buf_term(bs__buf *b, const char *s, int flags) {
  if (b->err)
    return b->err;
  size_t need = bs_text_escape(NULL, 0, s, flags);
  if (need >= b->limit || b->len > b->limit - need)
    return b->err = BS_ELIMIT;
  bs_status st = bs__buf_append(b, "", 0);
  char *tmp = st ? NULL : malloc(need + 1);
  if (!tmp)
    return st ? st : (b->err = BS_ENOMEM);
  bs_text_escape(tmp, need + 1, s, flags);
  st = bs__buf_append(b, tmp, need);
  free(tmp);
  return st;
}
