/* Markdown and plain-text emitting helpers on bs__buf: escaped text,
 * links and size-capped documents for the comments, aligned cells and
 * wrapped paragraphs for the terminal. Private. */
#ifndef BENCHSITE_MDW_H
#define BENCHSITE_MDW_H

#include "buf.h"

/* Markdown-escapes untrusted text: every ASCII punctuation character gets
 * a backslash (no markup, links, HTML or @mentions), '<', '>' and '&'
 * become entities, line breaks and other C0 control bytes become spaces,
 * C1 controls and U+2028/U+2029 numeric character references ("&#x2028;":
 * no raw line separator reaches a log that shows the text). */
bs_status bs__md_text(bs__buf *b, const char *s);
/* A case as "bench \[dataset\]", or "bench" for an empty dataset, both
 * escaped as bs__md_text. */
bs_status bs__md_case(bs__buf *b, const char *benchmark, const char *dataset);

/* Appends `row` to `doc` and empties `row` when doc stays within `room`
 * bytes (the document's limit less what its end needs) and no row was cut
 * before (*cut == 0); otherwise counts the row in *cut. */
bs_status bs__md_fit(bs__buf *doc, bs__buf *row, size_t room, size_t *cut);

/* Appends `url` as the destination of a Markdown link, "(url)" without
 * the parentheses: letters, digits and -._~:/?#@=&+,; are kept, a '%'
 * followed by two hex digits is kept, every other byte is
 * percent-encoded ("%7C" for '|', "%29" for ')'), so the link can end
 * nowhere else, cannot break a table cell and carries no markup. */
bs_status bs__md_url(bs__buf *b, const char *url);

/* ---- Plain-text tables (terminal, CI log) -------------------------------
 * Cells are escaped for a terminal or CI log (bs_text_escape): a hostile
 * name cannot start a line, a workflow command or an escape sequence. */

/* The display width of s once escaped with `flags`, in code points. */
size_t bs__text_width(const char *s, int flags);
/* Appends s escaped, padded with spaces to `width`, right-aligned when
 * `right`. */
bs_status bs__text_cell(bs__buf *b, const char *s, size_t width, int right,
                        int flags);

/* Writes `text` (escaped for a terminal or CI log) word-wrapped at `width`
 * columns, with its newline: `first` before the first line, `rest` before
 * the others (both trusted, counted in code points). A number and its unit
 * ("3 %") never part. A word that begins a line after a blank prefix is
 * escaped as a line start, so no wrapped word can become a CI workflow
 * command. */
bs_status bs__text_wrap(bs__buf *b, const char *text, const char *first,
                        const char *rest, size_t width);

#endif
