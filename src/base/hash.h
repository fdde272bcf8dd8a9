/* Keyed 64-bit hashing for the private hash tables (the log's name and
 * row indexes, bs__strset). Not cryptographic: the key (seed) comes from
 * addresses, so inputs crafted to collide in one process do not collide in
 * the next. Private. */
#ifndef BENCHSITE_HASH_H
#define BENCHSITE_HASH_H

#include <stddef.h>
#include <stdint.h>

/* splitmix64's finaliser: every input bit reaches every output bit. */
static inline uint64_t bs__mix64(uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9u;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBu;
  x ^= x >> 31;
  return x;
}

/* FNV-1a of s[0..n-1] from a keyed basis, then mixed with the length:
 * keys are short, so a byte loop is fast enough. */
static inline uint64_t bs__hash_bytes(uint64_t seed, const char *s, size_t n) {
  uint64_t h = 0xCBF29CE484222325u ^ seed;
  for (size_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 0x100000001B3u;
  }
  return bs__mix64(h ^ seed ^ (uint64_t)n);
}

#endif
