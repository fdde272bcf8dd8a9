/* A small strict JSON reader (RFC 8259) producing a tree. Private.
 *
 * Strict means: one value with optional surrounding whitespace, no
 * comments, no trailing commas, no leading zeros or bare '.', no NaN or
 * Infinity, valid UTF-8 only, \u escapes with correctly paired surrogates,
 * no U+0000 inside strings, no duplicate keys in an object, and a nesting
 * depth limit. Errors name the 1-based line and column. */
#ifndef BENCHSITE_JSONREAD_H
#define BENCHSITE_JSONREAD_H

#include "benchsite/error.h"

#include <stddef.h>

typedef enum bs__jtype {
  BS__JNULL = 0,
  BS__JBOOL,
  BS__JNUMBER,
  BS__JSTRING,
  BS__JARRAY,
  BS__JOBJECT
} bs__jtype;

typedef struct bs__jvalue bs__jvalue;
struct bs__jvalue {
  bs__jtype type;
  long line; /* where the value starts, 1-based */
  int boolean;
  double number; /* finite; a literal that overflows is an error */
  char *string;  /* NUL-terminated UTF-8 (strings) */
  size_t len;    /* string length in bytes */
  /* Arrays and objects: n items; objects also have keys[0..n-1]. */
  bs__jvalue *items;
  char **keys;
  size_t n;
};

#define BS__JSON_MAX_DEPTH 64

/* Parses text[0..len-1]. On success *out is a tree owned by the caller
 * (bs__json_free). On failure BS_EINPUT (bad JSON, with `name`:line and
 * the column in the message) or BS_ENOMEM, and *out is NULL. */
bs_status bs__json_parse(const char *name, const char *text, size_t len,
                         bs__jvalue **out, bs_error *err);

/* NULL is a no-op. */
void bs__json_free(bs__jvalue *v);

/* The member `key` of an object, or NULL (also when v is not an object). */
const bs__jvalue *bs__json_member(const bs__jvalue *v, const char *key);

#endif
