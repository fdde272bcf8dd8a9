/* benchsite: Markdown for pull-request comments (SPEC §4.3) and the plain
 * aligned tables printed on stdout. */
#ifndef BENCHSITE_MARKDOWN_H
#define BENCHSITE_MARKDOWN_H

#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/tune.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest comment written, in bytes (GitHub refuses comments over
 * 65 536 characters; a byte count is never below the character count). */
#define BS_MARKDOWN_LIMIT 60000

/* The first line of each comment, so that a CI step can find and update
 * the comment it wrote before. */
#define BS_MARKDOWN_MARKER_COMPARE "<!-- benchsite:compare -->"
#define BS_MARKDOWN_MARKER_NOISE "<!-- benchsite:noise -->"
#define BS_MARKDOWN_MARKER_TUNE "<!-- benchsite:tune -->"

/* A pull-request comment: the marker line, one row per case (significant
 * regressions first), then warnings (environment differences, one-sided
 * cases), the noise floor when known and the environment. At most
 * BS_MARKDOWN_LIMIT bytes: when the whole table does not fit, cases with
 * no significant change fold into a <details> block and what still does
 * not fit is cut with a line saying how many cases are left out. User text
 * is escaped so it cannot add markup, links, mentions or break a table.
 * *out is malloc'd (caller frees). */
bs_status bs_markdown_compare(const bs_compare_result *r,
                              const bs_manifest *env, char **out, size_t *len,
                              bs_error *err);
bs_status bs_markdown_tune(const bs_tune_result *r, char **out, size_t *len,
                           bs_error *err);

/* The same content as an aligned plain-text table for a terminal. */
bs_status bs_text_compare(const bs_compare_result *r, char **out, size_t *len,
                          bs_error *err);
bs_status bs_text_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err);

/* The one-line summary (with its newline) a command prints on stdout
 * when its results go to files: "4 cases, 1 significant regression (...)"
 * and "9 cases tuned, 1 crossover". No user text. *out is malloc'd. */
bs_status bs_summary_compare(const bs_compare_result *r, char **out,
                             size_t *len, bs_error *err);
bs_status bs_summary_tune(const bs_tune_result *r, char **out, size_t *len,
                          bs_error *err);

/* Formats a time in microseconds with 4 significant digits, trailing
 * zeros kept ("10.50 µs"), and a unit (ns, µs, ms, s) into buf, as the
 * text and Markdown views write times. Returns buf. */
char *bs_format_time_us(double us, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
