/* One merge sort, instantiated per element type with its comparison
 * inlined (qsort's indirect call per comparison cost a tenth of `check`
 * and of the medians of `compare` and `archive add`). Stable; linear on
 * runs already in order (logs mostly are); insertion sort below 17
 * elements. Private.
 *
 *   static int less(const T *x, const T *y) { ... }
 *   BS__MERGE_SORT(static, sort_ts, T, less)
 *
 * defines `static void sort_ts(T *a, T *tmp, size_t n)`, which sorts
 * a[0..n-1] by less with tmp[0..n/2] as scratch. */
#ifndef BENCHSITE_MSORT_H
#define BENCHSITE_MSORT_H

#include <stddef.h>
#include <string.h>

/* T is a type name: it cannot be parenthesised. */
// NOLINTBEGIN(bugprone-macro-parentheses)
#define BS__MERGE_SORT(linkage, name, T, less)                                 \
  linkage void name(T *a, T *tmp, size_t n) {                                  \
    if (n <= 16) {                                                             \
      for (size_t i = 1; i < n; i++) {                                         \
        T v = a[i];                                                            \
        size_t j = i;                                                          \
        for (; j > 0 && less(&v, &a[j - 1]); j--)                              \
          a[j] = a[j - 1];                                                     \
        a[j] = v;                                                              \
      }                                                                        \
      return;                                                                  \
    }                                                                          \
    size_t h = n / 2;                                                          \
    name(a, tmp, h);                                                           \
    name(a + h, tmp, n - h);                                                   \
    if (!less(&a[h], &a[h - 1]))                                               \
      return; /* already in order */                                           \
    memcpy(tmp, a, h * sizeof *a);                                             \
    size_t i = 0, j = h, o = 0;                                                \
    while (i < h && j < n)                                                     \
      a[o++] = less(&a[j], &tmp[i]) ? a[j++] : tmp[i++];                       \
    while (i < h)                                                              \
      a[o++] = tmp[i++];                                                       \
  }
// NOLINTEND(bugprone-macro-parentheses)

#endif
