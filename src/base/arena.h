/* String arena: all strings of one loaded log, freed in one call. Private. */
#ifndef BENCHSITE_ARENA_H
#define BENCHSITE_ARENA_H

#include <stddef.h>

typedef struct bs__arena_chunk bs__arena_chunk;
typedef struct bs__arena {
  bs__arena_chunk *head;
  size_t used;  /* bytes used in head */
  size_t total; /* bytes handed out, for limits */
} bs__arena;

void bs__arena_init(bs__arena *a);
void bs__arena_release(bs__arena *a);
/* Copies n bytes plus a NUL; returns NULL when out of memory. */
char *bs__arena_strndup(bs__arena *a, const char *s, size_t n);
void *bs__arena_alloc(bs__arena *a, size_t n);

#endif
