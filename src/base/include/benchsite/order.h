/* benchsite: the one order in which every output lists cases (SPEC §4.6):
 * benchmarks in natural order; within a benchmark by scale when every case
 * of it has one, otherwise by dataset in natural order; then by dataset
 * bytes. */
#ifndef BENCHSITE_ORDER_H
#define BENCHSITE_ORDER_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Natural order of two NUL-terminated strings: runs of ASCII digits
 * compare as numbers ("n=2" < "n=16" < "n=128", "tokenize_2" <
 * "tokenize_10"), everything else byte by byte; strings equal that way
 * ("n=02", "n=2") fall back to byte order, so 0 means equal strings.
 * Returns <0, 0 or >0 as strcmp. Neither may be NULL. */
int bs_natural_cmp(const char *a, const char *b);

/* One case to order. `id` is the caller's (an index, say), carried along
 * so the caller can tell where each case went; `by_scale` is filled by
 * bs_case_order. */
typedef struct bs_case_key {
  const char *benchmark;
  const char *dataset;
  int has_scale;
  double scale;
  size_t id;
  int by_scale; /* every case of this benchmark among the keys has a scale */
} bs_case_key;

/* Compares two keys whose by_scale is set (as bs_case_order sets it). */
int bs_case_key_cmp(const bs_case_key *a, const bs_case_key *b);

/* Sorts keys[0..n-1] into case order, first setting each key's by_scale
 * from all the keys of its benchmark. Keys for the same (benchmark,
 * dataset) should not repeat. Never fails. */
void bs_case_order(bs_case_key *keys, size_t n);

#ifdef __cplusplus
}
#endif
#endif
