#include "strlist.h"

#include "utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *bs__strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p)
    memcpy(p, s, n);
  return p;
}

/* The formatted string, malloc'd; NULL with *st set to BS_ENOMEM, or to
 * BS_EINTERNAL when vsnprintf refuses the format. */
static char *vformat(bs_status *st, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
static char *vformat(bs_status *st, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (len < 0) {
    *st = BS_EINTERNAL;
    return NULL;
  }
  char *s = malloc((size_t)len + 1);
  if (!s) {
    *st = BS_ENOMEM;
    return NULL;
  }
  vsnprintf(s, (size_t)len + 1, fmt, ap);
  *st = BS_OK;
  return s;
}

char *bs__strdupf(const char *fmt, ...) {
  bs_status st;
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(&st, fmt, ap);
  va_end(ap);
  return s;
}

bs_status bs__strlist_addf(char ***list, size_t *n, const char *fmt, ...) {
  bs_status st;
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(&st, fmt, ap);
  va_end(ap);
  if (!s)
    return st;
  char **grown = realloc(*list, (*n + 1) * sizeof *grown);
  if (!grown) {
    free(s);
    return BS_ENOMEM;
  }
  grown[(*n)++] = s;
  *list = grown;
  return BS_OK;
}

void bs__strlist_free(char **list, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(list[i]);
  free(list);
}

char *bs__case_label(char *buf, size_t n, const char *benchmark,
                     const char *dataset) {
  int r;
  if (dataset && dataset[0])
    r = snprintf(buf, n, "%s [%s]", benchmark, dataset);
  else
    r = snprintf(buf, n, "%s", benchmark);
  /* Cut short: never inside a UTF-8 sequence (pages must stay UTF-8). */
  if (n && (r < 0 || (size_t)r >= n))
    buf[bs__utf8_trim(buf, n - 1)] = '\0'; /* snprintf kept n - 1 bytes */
  return buf;
}
