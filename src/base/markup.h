/* Untrusted text in markup: the HTML pages, the Atom feed (XML) and the
 * chart labels (SVG, which gnuplot writes from them). One rule decides
 * what is text, for every writer, so a name that one of them accepts no
 * other can turn into a document a parser refuses. Private.
 *
 * Text is valid UTF-8 without what XML 1.0 forbids and HTML calls a parse
 * error in its input: NUL and the other C0 controls but tab, line feed and
 * carriage return, DEL, the C1 controls and the Unicode noncharacters
 * (U+FDD0..U+FDEF, and the last two code points of every plane, U+FFFE and
 * U+FFFF among them). */
#ifndef BENCHSITE_MARKUP_H
#define BENCHSITE_MARKUP_H

#include "buf.h"

#include <stddef.h>

typedef enum bs__markup_kind {
  BS__MARKUP_TEXT,    /* a character of text */
  BS__MARKUP_BREAK,   /* tab, line feed or carriage return: text in a page
                         or the feed, a blank in a label of one line */
  BS__MARKUP_CONTROL, /* valid UTF-8 that is not text (above) */
  BS__MARKUP_INVALID  /* a byte that begins no valid UTF-8 sequence */
} bs__markup_kind;

/* The kind of the character at the start of s[0..len-1] (len > 0; no byte
 * past them is read) and its length in *n: the length of its UTF-8
 * sequence, or 1 for BS__MARKUP_INVALID (each such byte is a character of
 * its own, as a decoder replaces it). */
bs__markup_kind bs__markup_char(const char *s, size_t len, size_t *n);

/* Appends s[0..len-1] to b as HTML or XML character data or as an
 * attribute value in either quotes: & < > " ' as character references,
 * what is not text (a control, a noncharacter, a byte that is not UTF-8)
 * as U+FFFD, the rest as it is. Returns b's status (bs__buf: sticky). */
bs_status bs__markup_put(bs__buf *b, const char *s, size_t len);
/* The same for a NUL-terminated string; NULL appends nothing. */
bs_status bs__markup_puts(bs__buf *b, const char *s);

#endif
