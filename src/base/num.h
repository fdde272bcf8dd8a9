/* The one place numbers are parsed (strtod/strtoull + end pointer + ERANGE,
 * behind an exact fast path). Private. */
#ifndef BENCHSITE_NUM_H
#define BENCHSITE_NUM_H

#include <stddef.h>
#include <stdint.h>

/* Why a string is not a number; BS__NUM_OK (0) when it is. */
typedef enum bs__num {
  BS__NUM_OK = 0,
  BS__NUM_SYNTAX,    /* not a plain decimal number ("", " 3", "1e", "1,5") */
  BS__NUM_NONFINITE, /* "nan", "inf", "infinity" in any case, with a sign */
  BS__NUM_HEX,       /* a hexadecimal number ("0x10", "0x1p3") */
  BS__NUM_OVERFLOW,  /* beyond the largest double, or beyond UINT64_MAX */
  BS__NUM_UNDERFLOW, /* a non-zero decimal that rounds to zero */
  BS__NUM_NOMEM      /* no memory for a copy of a very long number */
} bs__num;

/* Parses s[0..n-1] (no NUL needed) as a finite decimal double:
 * [+-]? (D+ | D+ . D* | . D+) ([eE] [+-]? D+)? and nothing else, so no
 * blanks, hex floats, "inf" or "nan". Overflow and underflow to zero are
 * errors; a subnormal result is kept. The result equals strtod's (correctly
 * rounded, round-to-nearest) bit for bit, "-0" giving -0.0: exact fast
 * paths cover up to 19 significant digits with a small exponent, strtod
 * the rest. *out is set only on success. */
bs__num bs__num_double(const char *s, size_t n, double *out);

/* Parses s[0..n-1] (no NUL needed) as a non-negative decimal integer:
 * digits only, no sign or blanks; BS__NUM_OVERFLOW past UINT64_MAX. */
bs__num bs__num_u64(const char *s, size_t n, uint64_t *out);

/* What bs__num_double() would say, worded for a message: "" for
 * BS__NUM_OK and BS__NUM_SYNTAX, else a parenthesised reason with a
 * leading space, e.g. " (out of range for a double)". */
const char *bs__num_reason(bs__num why);

/* The same on NUL-terminated strings; 0 on success, -1 otherwise. */
int bs__parse_double(const char *s, double *out);
int bs__parse_u64(const char *s, uint64_t *out);

/* Room for any bs__num_shortest text and its NUL. */
#define BS__NUM_SHORTEST 32

/* Writes into out the shortest decimal text that reads back (strtod,
 * bs__num_double) to exactly v, and returns its length: the fewest
 * significant digits that do, and of two candidates with that many the
 * one nearer v (the digits Python's repr and David Gay's shortest mode
 * choose). Written plainly ("0.001", "123.5", "-0", "12300") or with an
 * exponent ("1.5e-7", "1e300", "5e-324"), whichever is shorter (plain on
 * a tie); valid JSON number syntax. Not finite: out is "" and the length
 * 0 (the caller writes null or refuses). */
size_t bs__num_shortest(double v, char out[BS__NUM_SHORTEST]);

#endif
