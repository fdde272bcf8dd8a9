/* Small JSON emitting helpers on bs__buf. Private. */
#ifndef BENCHSITE_JSONW_H
#define BENCHSITE_JSONW_H

#include "buf.h"

#include <stdint.h>

/* A JSON string literal: quotes, backslash, control bytes, C1 controls
 * and U+2028/U+2029 escaped. Other bytes >= 0x80 are copied (inputs are
 * validated UTF-8). */
bs_status bs__json_string(bs__buf *b, const char *s);
/* A number with %.17g; non-finite values become null. */
bs_status bs__json_number(bs__buf *b, double v);
bs_status bs__json_u64(bs__buf *b, uint64_t v);
bs_status bs__json_bool(bs__buf *b, int v);
/* Arrays on one line: ["a", "b"] and [1, 2] (numbers as bs__json_number). */
bs_status bs__json_string_array(bs__buf *b, char *const *list, size_t n);
bs_status bs__json_number_array(bs__buf *b, const double *v, size_t n);

/* An object written member by member, each on a line of its own `indent`
 * spaces in, the lines joined by ",". The status is sticky: after the
 * first failure every call does nothing, and bs__jobj_end returns that
 * failure. */
typedef struct bs__jobj {
  bs__buf *b;
  int indent;
  size_t members;
  bs_status st;
} bs__jobj;

/* Writes "{". */
void bs__jobj_begin(bs__jobj *o, bs__buf *b, int indent);
/* bs__jobj_begin, then the members that name a case: "benchmark" and
 * "dataset". */
void bs__jobj_begin_case(bs__jobj *o, bs__buf *b, int indent,
                         const char *benchmark, const char *dataset);
/* Writes `"key": ` of the next member; returns 1 when the caller is to
 * write the value (into o->b, its status into o->st), 0 after a failure. */
int bs__jobj_key(bs__jobj *o, const char *key);
void bs__jobj_string(bs__jobj *o, const char *key, const char *v);
void bs__jobj_number(bs__jobj *o, const char *key, double v);
void bs__jobj_u64(bs__jobj *o, const char *key, uint64_t v);
void bs__jobj_bool(bs__jobj *o, const char *key, int v);
/* n number members, keys[i]: v[i]. */
void bs__jobj_numbers(bs__jobj *o, const char *const *keys, const double *v,
                      size_t n);
/* A member whose value is an array of n objects, one a line two spaces
 * further in than o's members: item(b, ctx, i) writes element i from its
 * "{" on (its members o->indent + 4 spaces in). */
void bs__jobj_objects(bs__jobj *o, const char *key, size_t n,
                      bs_status (*item)(bs__buf *b, const void *ctx, size_t i),
                      const void *ctx);
/* Writes the closing "}" on a line of its own, two spaces left of the
 * members ("}" right after the "{" when there are none), and returns the
 * status. */
bs_status bs__jobj_end(bs__jobj *o);

/* A JSON document: bs__json_doc_begin initialises b and opens the
 * top-level object (members 2 spaces in) with its "schema" member;
 * bs__json_doc_end closes it, adds a final newline and hands the text to
 * the caller as bs__buf_finish does ("cannot render JSON: ..."). */
void bs__json_doc_begin(bs__jobj *o, bs__buf *b, const char *schema);
bs_status bs__json_doc_end(bs__jobj *o, char **out, size_t *len, bs_error *err);

#endif
