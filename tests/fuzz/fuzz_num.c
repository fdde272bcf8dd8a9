/* libFuzzer target: src/base/num.c against the reference it replaces: accept
 * exactly the strings the old check accepted (only "0123456789+-.eE",
 * consumed whole by strtod, finite, not rounded to zero from a non-zero
 * literal) and return strtod's double bit for bit. This is what makes the
 * fast paths (Clinger's, and the 128-bit exact one) safe to keep. */
#include "num.h"

#include "fuzz_util.h"

#include <errno.h>
#include <math.h>

static int reference(const char *s, double *out) {
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
  if (errno == ERANGE && (isinf(v) || v == 0))
    return -1;
  if (!isfinite(v))
    return -1;
  *out = v;
  return 0;
}

static int reference_u64(const char *s, uint64_t *out) {
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
  *out = v;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 400)
    return 0;
  char *s = malloc(size + 1);
  if (!s)
    return 0;
  memcpy(s, data, size);
  s[size] = '\0';
  if (strlen(s) == size) {
    double a = 0, b = 0;
    int ra = reference(s, &a);
    bs__num st = bs__num_double(s, size, &b);
    FUZZ_CHECK((ra == 0) == (st == BS__NUM_OK), "\"%s\": reference %d, %d", s,
               ra, (int)st);
    if (ra == 0)
      FUZZ_CHECK(memcmp(&a, &b, sizeof a) == 0, "\"%s\": %.17g != %.17g", s, b,
                 a);
    uint64_t u = 0, w = 0;
    int ru = reference_u64(s, &u);
    st = bs__num_u64(s, size, &w);
    FUZZ_CHECK((ru == 0) == (st == BS__NUM_OK), "\"%s\": u64 %d, %d", s, ru,
               (int)st);
    FUZZ_CHECK(ru != 0 || u == w, "\"%s\": %llu != %llu", s,
               (unsigned long long)w, (unsigned long long)u);
  }
  free(s);
  return 0;
}
