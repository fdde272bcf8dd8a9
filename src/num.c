#include "num.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int bs__parse_double(const char *s, double *out) {
  /* strtod accepts "inf", "nan", hex floats and leading blanks; a log must
   * hold plain decimal numbers, so check the characters first. */
  if (!*s)
    return -1;
  for (const char *p = s; *p; p++) {
    if (!strchr("0123456789+-.eE", *p))
      return -1;
  }
  errno = 0;
  char *end = NULL;
  double v = strtod(s, &end);
  if (end == s || *end != '\0')
    return -1;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
    return -1;
  if (!isfinite(v))
    return -1;
  *out = v;
  return 0;
}

int bs__parse_u64(const char *s, uint64_t *out) {
  if (!*s)
    return -1;
  for (const char *p = s; *p; p++) {
    if (*p < '0' || *p > '9')
      return -1;
  }
  errno = 0;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end != '\0' || errno == ERANGE)
    return -1;
  *out = (uint64_t)v;
  return 0;
}
