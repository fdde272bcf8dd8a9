#include "strset.h"

#include "hash.h"

#include <stdlib.h>
#include <string.h>

void bs__strset_init(bs__strset *s) {
  s->slots = NULL;
  s->cap = s->n = 0;
  s->seed = bs__mix64((uint64_t)(uintptr_t)s ^ 0x9E3779B97F4A7C15u);
  bs__arena_init(&s->keys);
}

void bs__strset_release(bs__strset *s) {
  free(s->slots);
  bs__arena_release(&s->keys);
  s->slots = NULL;
  s->cap = s->n = 0;
}

static size_t find_slot(const bs__strset *s, const char *key, size_t len,
                        uint64_t h) {
  size_t mask = s->cap - 1;
  size_t j = (size_t)h & mask;
  while (s->slots[j].key && !(s->slots[j].hash == h && s->slots[j].len == len &&
                              memcmp(s->slots[j].key, key, len) == 0))
    j = (j + 1) & mask;
  return j;
}

static int grow(bs__strset *s) {
  size_t nc = s->cap ? s->cap * 2 : 16;
  if (nc > SIZE_MAX / sizeof *s->slots)
    return -1;
  bs__strset_slot *ns = calloc(nc, sizeof *ns);
  if (!ns)
    return -1;
  for (size_t i = 0; i < s->cap; i++) {
    if (!s->slots[i].key)
      continue;
    size_t j = (size_t)s->slots[i].hash & (nc - 1);
    while (ns[j].key)
      j = (j + 1) & (nc - 1);
    ns[j] = s->slots[i];
  }
  free(s->slots);
  s->slots = ns;
  s->cap = nc;
  return 0;
}

int bs__strset_put(bs__strset *s, const char *key, size_t len, size_t value,
                   size_t *old) {
  /* Load at most 1/2: short probe runs even for unlucky keys. */
  if ((s->n + 1) * 2 > s->cap && grow(s))
    return -1;
  uint64_t h = bs__hash_bytes(s->seed, key, len);
  size_t j = find_slot(s, key, len, h);
  if (s->slots[j].key) {
    if (old)
      *old = s->slots[j].value;
    return 0;
  }
  char *copy = bs__arena_strndup(&s->keys, key, len);
  if (!copy)
    return -1;
  s->slots[j].key = copy;
  s->slots[j].len = len;
  s->slots[j].hash = h;
  s->slots[j].value = value;
  s->n++;
  return 1;
}

size_t *bs__strset_ref(bs__strset *s, const char *key, size_t len, int *added) {
  size_t old;
  int r = bs__strset_put(s, key, len, 0, &old);
  if (r < 0)
    return NULL;
  if (added)
    *added = r;
  uint64_t h = bs__hash_bytes(s->seed, key, len);
  return &s->slots[find_slot(s, key, len, h)].value;
}

int bs__strset_get(const bs__strset *s, const char *key, size_t len,
                   size_t *value) {
  if (!s->n)
    return 0;
  size_t j = find_slot(s, key, len, bs__hash_bytes(s->seed, key, len));
  if (!s->slots[j].key)
    return 0;
  if (value)
    *value = s->slots[j].value;
  return 1;
}

size_t bs__strset_bytes(const bs__strset *s) {
  return s->cap * sizeof *s->slots + s->keys.total;
}
