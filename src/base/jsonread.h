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
#include <stdint.h>

typedef enum bs__jtype {
  BS__JNULL = 0,
  BS__JBOOL,
  BS__JNUMBER,
  BS__JSTRING,
  BS__JARRAY,
  BS__JOBJECT,
  BS__JNUMBERS /* an array of numbers, packed (bs__jfilter.numbers) */
} bs__jtype;

typedef struct bs__jvalue bs__jvalue;
/* 32 bytes: a 16 MiB file of "[1,1,1,..." (the densest input) needs 16
 * bytes of nodes per input byte; strings and keys live in one arena. */
struct bs__jvalue {
  bs__jtype type;
  int32_t line; /* where the value starts, 1-based */
  union {
    int boolean;
    double number; /* finite (a literal that overflows is an error);
                      NaN or infinite only from bs__json_parse_relaxed */
    struct {
      char *string; /* NUL-terminated UTF-8 (strings) */
      size_t len;   /* string length in bytes */
    };
    /* Arrays and objects: n items; objects also have keys[0..n-1]. */
    struct {
      bs__jvalue *items;
      char **keys;
      size_t n;
    };
    /* BS__JNUMBERS: nnumbers finite numbers. */
    struct {
      double *numbers;
      size_t nnumbers;
    };
  };
};

#define BS__JSON_MAX_DEPTH 64
/* The most memory a parsed tree may take (nodes, key lists, strings):
 * past it the parse fails with BS_ELIMIT. */
#define BS__JSON_MAX_MEMORY ((size_t)512 << 20)

/* Parses text[0..len-1] in time linear in len (duplicate keys are found
 * with a hash set). On success *out is a tree owned by the caller
 * (bs__json_free). On failure BS_EINPUT (bad JSON, with `name`:line and
 * the column in the message), BS_ELIMIT (past BS__JSON_MAX_MEMORY) or
 * BS_ENOMEM, and *out is NULL. */
bs_status bs__json_parse(const char *name, const char *text, size_t len,
                         bs__jvalue **out, bs_error *err);

/* Which parts of a document a reader keeps. Applied to a value: an object
 * keeps only the members named in `keys` (NULL-terminated; NULL keeps
 * every member), member keys[i] filtered by members[i] (`members` NULL, or
 * an entry NULL: kept whole; bs__json_drop: dropped); an array applies
 * `items` to each element (NULL: kept whole); `numbers` makes an array of
 * numbers a packed BS__JNUMBERS value (8 bytes an element instead of a
 * 32-byte node; any other element is an error); `each`, on an array,
 * hands every element, filtered by `items`, to each(ctx, element, err) as
 * soon as it is read and then frees it (the array stays empty): a
 * non-zero return (with err set) stops the parse with that status.
 * Everything else is read and checked as strictly as bs__json_parse
 * checks it, then dropped: the tree's memory follows what is kept, not
 * the length of the text. */
typedef struct bs__jfilter bs__jfilter;
struct bs__jfilter {
  const char *const *keys;
  const bs__jfilter *const *members;
  const bs__jfilter *items;
  int numbers;
  bs_status (*each)(void *ctx, const bs__jvalue *item, bs_error *err);
};

/* A filter that keeps nothing of a value (it is still checked). */
extern const bs__jfilter bs__json_drop;

/* bs__json_parse keeping only what `filter` names (NULL: everything);
 * `ctx` goes to the filters' `each`. The tree may take at most
 * `max_memory` bytes (0: BS__JSON_MAX_MEMORY; never more), counting an
 * element handed to `each` only while it is being read. */
bs_status bs__json_parse_filtered(const char *name, const char *text,
                                  size_t len, const bs__jfilter *filter,
                                  void *ctx, size_t max_memory,
                                  bs__jvalue **out, bs_error *err);

/* bs__json_parse_filtered for JSON as some writers outside RFC 8259
 * write it: NaN, Infinity, -Infinity and -NaN (Python's json module,
 * Google Benchmark's JSON reporter) are numbers (NaN, +-infinity), and an
 * object may repeat a key, whose first value is kept (the others are
 * read and dropped). Everything else is as strict. For the reports of
 * other programs, whose fields benchsite does not use must not fail it. */
bs_status bs__json_parse_relaxed(const char *name, const char *text, size_t len,
                                 const bs__jfilter *filter, void *ctx,
                                 size_t max_memory, bs__jvalue **out,
                                 bs_error *err);

/* NULL is a no-op. */
void bs__json_free(bs__jvalue *v);

/* The member `key` of an object, or NULL (also when v is not an object). */
const bs__jvalue *bs__json_member(const bs__jvalue *v, const char *key);

#endif
