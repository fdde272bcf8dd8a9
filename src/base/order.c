#include "benchsite/order.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Natural comparison without the byte-order tie-break: a digit run is
 * compared by value (leading zeros skipped, then length, then digits), so
 * numbers of any length compare exactly. */
static int natural(const unsigned char *a, const unsigned char *b) {
  while (*a && *b) {
    if (is_digit(*a) && is_digit(*b)) {
      while (*a == '0' && is_digit(a[1]))
        a++;
      while (*b == '0' && is_digit(b[1]))
        b++;
      size_t na = 0, nb = 0;
      while (is_digit(a[na]))
        na++;
      while (is_digit(b[nb]))
        nb++;
      if (na != nb)
        return na < nb ? -1 : 1;
      int c = memcmp(a, b, na);
      if (c)
        return c;
      a += na;
      b += nb;
    } else {
      if (*a != *b)
        return *a < *b ? -1 : 1;
      a++;
      b++;
    }
  }
  return (*a != 0) - (*b != 0);
}

int bs_natural_cmp(const char *a, const char *b) {
  int c = natural((const unsigned char *)a, (const unsigned char *)b);
  return c ? c : strcmp(a, b);
}

int bs_case_key_cmp(const bs_case_key *a, const bs_case_key *b) {
  int c = bs_natural_cmp(a->benchmark, b->benchmark);
  if (c)
    return c;
  if (a->by_scale && b->by_scale && a->scale != b->scale)
    return a->scale < b->scale ? -1 : 1;
  return bs_natural_cmp(a->dataset, b->dataset);
}

static int cmp_key(const void *a, const void *b) {
  return bs_case_key_cmp(a, b);
}

void bs_case_order(bs_case_key *keys, size_t n) {
  /* With by_scale clear the comparison groups each benchmark together;
   * then each group learns whether all of it has a scale. */
  for (size_t i = 0; i < n; i++)
    keys[i].by_scale = 0;
  if (n < 2) {
    for (size_t i = 0; i < n; i++)
      keys[i].by_scale = keys[i].has_scale != 0;
    return;
  }
  qsort(keys, n, sizeof *keys, cmp_key);
  for (size_t lo = 0; lo < n;) {
    size_t hi = lo + 1;
    while (hi < n && !strcmp(keys[hi].benchmark, keys[lo].benchmark))
      hi++;
    int all = 1;
    for (size_t i = lo; i < hi; i++)
      all &= keys[i].has_scale != 0;
    for (size_t i = lo; i < hi; i++)
      keys[i].by_scale = all;
    if (all && hi - lo > 1)
      qsort(keys + lo, hi - lo, sizeof *keys, cmp_key);
    lo = hi;
  }
}
