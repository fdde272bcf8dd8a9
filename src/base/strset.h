/* A hash map from byte strings to size_t values, for the readers that
 * must find duplicates or look names up among many (acks.csv rows, JSON
 * object keys, noise floors, environment keys): each operation costs
 * O(key length) on average instead of a scan of everything seen so far.
 * Private.
 *
 * The set copies every key it keeps (into its own arena), so callers need
 * not keep theirs. Hashes are keyed from the set's address (ASLR), so keys
 * crafted to collide in one process do not collide in the next. Nothing is
 * ever listed in hash order, so output never depends on the key. */
#ifndef BENCHSITE_STRSET_H
#define BENCHSITE_STRSET_H

#include "arena.h"

#include <stddef.h>
#include <stdint.h>

typedef struct bs__strset_slot {
  const char *key; /* NULL when free */
  size_t len;
  uint64_t hash;
  size_t value;
} bs__strset_slot;

typedef struct bs__strset {
  bs__strset_slot *slots;
  size_t cap, n;
  uint64_t seed;
  bs__arena keys;
} bs__strset;

void bs__strset_init(bs__strset *s);
void bs__strset_release(bs__strset *s);
/* Adds key[0..len-1] with `value` unless it is present. Returns 1 when
 * added, 0 when present (*old, when not NULL, receives its value; the
 * value is not changed), -1 when out of memory. */
int bs__strset_put(bs__strset *s, const char *key, size_t len, size_t value,
                   size_t *old);
/* Finds key[0..len-1], adding it with value 0 when absent (*added, when
 * not NULL, is then 1, else 0). Returns a pointer to its value, valid
 * until the next put or ref; NULL when out of memory. */
size_t *bs__strset_ref(bs__strset *s, const char *key, size_t len, int *added);
/* 1 and *value when key[0..len-1] is present, else 0. */
int bs__strset_get(const bs__strset *s, const char *key, size_t len,
                   size_t *value);
/* The bytes of the set (slots and key copies), for memory limits. */
size_t bs__strset_bytes(const bs__strset *s);

#endif
