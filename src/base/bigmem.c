/* Large arrays on transparent huge pages (see bigmem.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* mremap */
#endif
#include "bigmem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

/* A new mapping of n bytes (a multiple of HUGE_PAGE) aligned to
 * HUGE_PAGE, so that the kernel can back it with huge pages, or NULL. */
static void *map_aligned(size_t n) {
  size_t len = n + HUGE_PAGE;
  if (len < n)
    return NULL;
  char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                 -1, 0);
  if (p == MAP_FAILED)
    return NULL;
  /* The first huge-page boundary in the mapping, as an offset into it. */
  size_t head = (size_t)(-(uintptr_t)p & (uintptr_t)(HUGE_PAGE - 1)),
         tail = len - head - n;
  char *a = p + head;
  if (head)
    munmap(p, head);
  if (tail)
    munmap(a + n, tail);
#ifdef MADV_HUGEPAGE
  /* Advice only: without transparent huge pages the mapping still works,
   * a fault per 4 KiB. */
  madvise((void *)a, n, MADV_HUGEPAGE);
#endif
  return (void *)a;
}

int bs__big_reserve(bs__big *b, size_t bytes, int zero_new) {
  if (bytes <= b->cap)
    return 0;
  if (bytes < BS__BIG_MIN) {
    void *q = realloc(b->p, bytes);
    if (!q)
      return -1;
    if (zero_new)
      memset((char *)q + b->cap, 0, bytes - b->cap);
    b->p = q;
    b->cap = bytes;
    return 0;
  }
  size_t n = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  if (n < bytes)
    return -1;
  void *q = map_aligned(n);
  if (!q)
    return -1;
  /* A fresh mapping reads as zero, so zero_new needs nothing more. */
  if (b->mapped) {
#if defined(__linux__) && defined(MREMAP_FIXED)
    /* Move the old pages into the head of the new mapping: page tables
     * move, bytes do not (huge pages stay huge: both are aligned). */
    if (mremap(b->p, b->cap, b->cap, MREMAP_MAYMOVE | MREMAP_FIXED, q) !=
        MAP_FAILED) {
      b->p = q;
      b->cap = n;
      return 0;
    }
#endif
    memcpy(q, b->p, b->cap);
    munmap(b->p, b->cap);
  } else if (b->p) {
    memcpy(q, b->p, b->cap);
    free(b->p);
  }
  b->p = q;
  b->cap = n;
  b->mapped = 1;
  return 0;
}

void bs__big_release(bs__big *b) {
  if (b->mapped)
    munmap(b->p, b->cap);
  else
    free(b->p);
  b->p = NULL;
  b->cap = 0;
  b->mapped = 0;
}
