/* benchsite: Markdown for pull-request comments (SPEC §4.3) and the plain
 * aligned tables printed on stdout. */
#ifndef BENCHSITE_MARKDOWN_H
#define BENCHSITE_MARKDOWN_H

#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
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

/* How a comparison is written (bs_markdown_compare, bs_text_compare,
 * bs_summary_compare). Zeroed: no links. */
typedef struct bs_markdown_options {
  /* Where the HTML report of this comparison is published (benchsite
   * report or compare --html of the same log): an http:// or https://
   * URL of its directory. The comment then links the report,
   * LINK_BASE/index.html, and each case to its page,
   * LINK_BASE/case-NNNN.html, NNNN the case's 1-based position in the
   * report's case order, zero-padded to 4 digits. Every byte outside
   * letters, digits and -._~:/?#@=&+,;% is percent-encoded (a '%' not
   * followed by two hex digits too), so no URL can end a link, break a
   * table or add markup. NULL: no links. */
  const char *link_base;
  /* A line for the comment's footer, written as is (NULL: none): the
   * runner's calibration (bs_calibration_note, which prints only safe
   * text). */
  const char *footer_note;
} bs_markdown_options;

/* BS_OK when `url` can be a link_base: it starts with http:// or https://
 * and has a host; else BS_EUSAGE with a message naming the rule. */
bs_status bs_markdown_check_link_base(const char *url, bs_error *err);

/* A pull-request comment (the marker line first), made to be read in
 * five seconds: line 2 is the headline (bs_summary_compare's line, in
 * Markdown: the gate's outcome, the counts of significant regressions,
 * significant improvements, inconclusive and equivalent cases, the worst
 * regression by name and size, both impls with their commits (the
 * manifest's baseline_commit and commit), the metric, protocol and
 * blocks); then one table of the cases that matter (significant
 * regressions, largest paired delta first; significant improvements;
 * inconclusive cases; changes within the noise floor) in at most four
 * columns; every other case counted in one line and listed in a folded
 * <details> block; warnings one line per kind, the per-case detail
 * folded; the noise floors, the environment and the glossary of the
 * symbols shown folded. At most BS_MARKDOWN_LIMIT bytes: what does not
 * fit is cut, least important first, with a line saying how many cases
 * are left out and where the full report is. User text is escaped so it
 * cannot add markup, links, mentions or break a table. env (the run's
 * manifest) and o may be NULL. *out is malloc'd (caller frees);
 * BS_EUSAGE for a bad o->link_base. */
bs_status bs_markdown_compare(const bs_compare_result *r,
                              const bs_manifest *env,
                              const bs_markdown_options *o, char **out,
                              size_t *len, bs_error *err);
bs_status bs_markdown_tune(const bs_tune_result *r, char **out, size_t *len,
                           bs_error *err);
/* The A/A validation's comment (the marker line first): the suite's
 * planning in words, one row per case, then each case's readings. User
 * text is escaped; what does not fit BS_MARKDOWN_LIMIT is cut and
 * counted. *out is malloc'd. */
bs_status bs_markdown_noise(const bs_noise_result *r, char **out, size_t *len,
                            bs_error *err);

/* The same content as an aligned plain-text table for a terminal: the
 * headline first, then every case in case order. env and o as for
 * bs_markdown_compare. */
bs_status bs_text_compare(const bs_compare_result *r, const bs_manifest *env,
                          const bs_markdown_options *o, char **out, size_t *len,
                          bs_error *err);
bs_status bs_text_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err);
/* The A/A validation's terminal report: the suite's planning in words,
 * then per case the figures of the seed's HarnessValidation.String() and
 * a plain-language reading of each, wrapped at 78 columns. */
bs_status bs_text_noise(const bs_noise_result *r, char **out, size_t *len,
                        bs_error *err);

/* The one line (with its newline) a command prints on stdout when its
 * results go to files. For a comparison it is the headline, the first
 * line of the text report and the second of the comment: "✖ gate failed:
 * 1 significant regression (sum [n=65536] +75.51 %), 1 significant
 * improvement, 0 inconclusive, 2 equivalent — pr vs main, wall time per
 * call, protocol Development, 20 blocks". Names are escaped for a
 * terminal. For tuning: "9 cases tuned, 1 crossover". *out is malloc'd. */
bs_status bs_summary_compare(const bs_compare_result *r, const bs_manifest *env,
                             const bs_markdown_options *o, char **out,
                             size_t *len, bs_error *err);
bs_status bs_summary_tune(const bs_tune_result *r, char **out, size_t *len,
                          bs_error *err);
/* For an A/A validation: the cases, the range of the paired noise floors
 * and how many of them the gate's δ resolves; no user text. */
bs_status bs_summary_noise(const bs_noise_result *r, char **out, size_t *len,
                           bs_error *err);

/* Formats a time in microseconds with 4 significant digits, trailing
 * zeros kept ("10.50 µs"), and a unit (ns, µs, ms, s) into buf, as the
 * text and Markdown views write times. Returns buf. */
char *bs_format_time_us(double us, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
