/* Large arrays on transparent huge pages. Private.
 *
 * Where a fresh 4 KiB page costs 11-16 µs of CPU in the fault path (the
 * 2-vCPU guests this project is measured on), an array of tens of MB costs
 * more in page faults than in filling it. Past BS__BIG_MIN bytes an array
 * from here lives in an anonymous mapping aligned to 2 MiB and advised
 * MADV_HUGEPAGE: one fault per 2 MiB where the kernel has transparent huge
 * pages (its "madvise" mode and "always"), and growing moves the pages
 * (mremap) instead of copying them. Smaller arrays, and systems without
 * these calls, use malloc and realloc. Pages of the capacity that are
 * never written are never resident. */
#ifndef BENCHSITE_BIGMEM_H
#define BENCHSITE_BIGMEM_H

#include <stddef.h>

/* Arrays below this many bytes stay on the malloc heap. */
#define BS__BIG_MIN ((size_t)1 << 20)

typedef struct bs__big {
  void *p;    /* the array, NULL while empty */
  size_t cap; /* bytes usable at p */
  int mapped; /* p is a mapping (else malloc'd) */
} bs__big;

/* Makes b hold at least `bytes` bytes, keeping the first b->cap bytes of
 * its contents (bytes past them are unspecified unless zero_new). Returns
 * 0, or -1 when out of memory with b unchanged. b->cap may end up larger
 * than asked (a mapping is a whole number of 2 MiB). With zero_new the
 * bytes past the old capacity read as zero. A zeroed bs__big is empty. */
int bs__big_reserve(bs__big *b, size_t bytes, int zero_new);
/* Frees the array; b is empty afterwards. */
void bs__big_release(bs__big *b);

#endif
