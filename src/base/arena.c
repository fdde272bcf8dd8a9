#include "arena.h"

#include <stdlib.h>
#include <string.h>

struct bs__arena_chunk {
  bs__arena_chunk *next;
  size_t size;
  /* data follows, aligned for any type */
  max_align_t data[];
};

#define CHUNK_SIZE ((size_t)64 * 1024)

void bs__arena_init(bs__arena *a) {
  a->head = NULL;
  a->used = 0;
  a->total = 0;
}

void bs__arena_release(bs__arena *a) {
  bs__arena_chunk *c = a->head;
  while (c) {
    bs__arena_chunk *next = c->next;
    free(c);
    c = next;
  }
  bs__arena_init(a);
}

void *bs__arena_alloc(bs__arena *a, size_t n) {
  size_t align = sizeof(max_align_t);
  n = (n + align - 1) / align * align;
  if (!a->head || a->head->size - a->used < n) {
    size_t size = n > CHUNK_SIZE ? n : CHUNK_SIZE;
    bs__arena_chunk *c = malloc(sizeof *c + size);
    if (!c)
      return NULL;
    c->next = a->head;
    c->size = size;
    a->head = c;
    a->used = 0;
  }
  void *p = (char *)a->head->data + a->used;
  a->used += n;
  a->total += n;
  return p;
}

char *bs__arena_strndup(bs__arena *a, const char *s, size_t n) {
  char *p = bs__arena_alloc(a, n + 1);
  if (!p)
    return NULL;
  if (n)
    memcpy(p, s, n);
  p[n] = '\0';
  return p;
}
