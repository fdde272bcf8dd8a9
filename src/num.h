/* The one place numbers are parsed (strtod/strtoull + end pointer + ERANGE).
 * Private. */
#ifndef BENCHSITE_NUM_H
#define BENCHSITE_NUM_H

#include <stdint.h>

/* Parses a whole string as a finite decimal double. Leading/trailing blanks,
 * hex floats, "inf" and "nan" are refused. Returns 0 on success. */
int bs__parse_double(const char *s, double *out);
/* Parses a whole string as a non-negative decimal integer (no sign, no
 * blanks) that fits in uint64_t. Returns 0 on success. */
int bs__parse_u64(const char *s, uint64_t *out);

#endif
