/* Overflow-checked array growth (after git's ALLOC_GROW). Private.
 *
 *   T *t = BS__GROW(arr, cap, n + 1, 16);
 *   if (!t) ... out of memory, arr still valid and owned ...
 *   arr = t;
 *
 * The capacity doubles (starting at min) until it holds need elements;
 * need * sizeof element never overflows and never passes
 * BS__GROW_MAX_BYTES, which is far above any limit a reader enforces. */
#ifndef BENCHSITE_GROW_H
#define BENCHSITE_GROW_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if SIZE_MAX > 0xffffffffu
#define BS__GROW_MAX_BYTES ((size_t)1 << 36)
#else
#define BS__GROW_MAX_BYTES (SIZE_MAX / 2)
#endif

/* The capacity an array of size-byte elements with capacity cap grows to
 * so that it holds need elements: cap (min when cap is 0) doubled until it
 * does. 0 when need elements would pass BS__GROW_MAX_BYTES. */
static inline size_t bs__grow_cap(size_t cap, size_t need, size_t min,
                                  size_t size) {
  size_t max = BS__GROW_MAX_BYTES / (size ? size : 1);
  if (need > max)
    return 0;
  size_t c = cap ? cap : (min ? min : 1);
  while (c < need)
    c = c > max / 2 ? max : c * 2;
  return c > max ? max : c;
}

/* Makes the array p (capacity *cap elements of size bytes) hold at least
 * need elements (need >= 1). Returns the array, maybe moved, and updates
 * *cap; or NULL on overflow or out of memory, p then unchanged and still
 * the caller's. */
static inline void *bs__grow(void *p, size_t *cap, size_t need, size_t min,
                             size_t size) {
  if (p && need <= *cap)
    return p;
  size_t c = bs__grow_cap(*cap, need, min, size);
  if (!c)
    return NULL;
  void *q = realloc(p, c * size);
  if (!q)
    return NULL;
  *cap = c;
  return q;
}

#define BS__GROW(p, cap, need, min)                                            \
  bs__grow((p), &(cap), (need), (min), sizeof *(p))

#endif
