/* Reading the reference values written by tests/data/.../make_fixtures.py. */
#ifndef BENCHSITE_TEST_FIXTURES_H
#define BENCHSITE_TEST_FIXTURES_H

#include <stddef.h>

/* Finds the first line of `file` (under tests/data) whose first
 * whitespace-separated words equal the words of `prefix`, and returns the
 * remaining words parsed as doubles into out[0..max-1]. Returns the count,
 * or -1 when no line matches. */
int fx_numbers(const char *file, const char *prefix, double *out, size_t max);

/* Relative difference |a-b| / max(|a|,|b|), 0 when both are 0. */
double fx_reldiff(double a, double b);

#endif
