#include "benchsite/error.h"

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
