/* What a comparison says beside its verdicts, written once for every view
 * (the text report, the pull-request comment, the report's pages): the
 * level of each case's interval where it differs from the table's, the
 * qualifiers beside a verdict (layout-sensitive, blind), and the notes
 * under the table about how the run was measured and what it can see
 * (adaptive runs, layout-sensitive cases, blind cases). Each in three
 * typographies: a terminal (user text escaped for it), Markdown (escaped
 * as Markdown) and HTML (user text as it is, for the template engine to
 * escape). They render figures the statistics computed; nothing here is
 * a statistic. Private. */
#ifndef BENCHSITE_COMPARE_NOTES_H
#define BENCHSITE_COMPARE_NOTES_H

#include "buf.h"
#include "present.h"

#include "benchsite/compare.h"
#include "benchsite/manifest.h"

#include <stddef.h>

typedef enum bs__typo {
  BS__TYPO_TERM, /* a terminal or CI log: plain figures, bs__buf_term */
  BS__TYPO_MD,   /* Markdown: plain figures, bs__md_text */
  BS__TYPO_HTML  /* a page: no-break spaces, user text for the template */
} bs__typo;

/* Appends user text s, or the label "bench [dataset]" of case c, in
 * typography t. */
bs_status bs__typo_user(bs__buf *b, bs__typo t, const char *s);
bs_status bs__typo_case(bs__buf *b, bs__typo t, const bs_case_compare *c);

/* ---- Interval levels -----------------------------------------------------
 * An adaptive run judges its cases at the levels of their looks (96 %,
 * 99.3 %), so one comparison can hold several. A table names the level
 * most of its cases share in its header and marks the others. */

/* The level most cases of r share; of levels tied for most, the mode's,
 * else the lowest. *others (may be NULL) is the number of cases at
 * another level. */
double bs__level_common(const bs_compare_result *r, size_t *others);
/* "95 % interval" when every case shares one level; else "interval (96 %
 * unless marked)". The HTML form has no-break spaces. */
bs_status bs__level_header(bs__buf *b, const bs_compare_result *r, bs__typo t);
/* The mark of a case whose level is not `common`: "99.3 %" (no-break
 * space in HTML), or "" into buf. Returns buf. */
char *bs__level_mark(char *buf, size_t n, const bs_case_compare *c,
                     double common, bs__typo t);
/* The levels of the method line: "95 % interval", or "intervals at 96 %
 * (3 cases) and 99.3 % (2 cases, measured again by the adaptive run)". */
bs_status bs__level_phrase(bs__buf *b, const bs_compare_result *r, bs__typo t);

/* ---- Qualifiers beside a verdict ----------------------------------------- */

/* Qualifier q (BS__T_LAYOUT or BS__T_BLIND) of case c, when it has it:
 * "↕ layout-sensitive: runs disagree by 17.3 %", "◌ blind below 20.6 %";
 * returns 1, or 0 with nothing written. delta is the mode's threshold. */
int bs__qualifier(bs__buf *b, bs__term q, const bs_case_compare *c,
                  double delta, bs__typo t);
/* " · ↕ layout-sensitive: runs disagree by 17.3 %" and " · ◌ blind below
 * 20.6 %" for the qualifiers case c has (nothing for none), each after
 * `sep`. delta is the mode's threshold. */
bs_status bs__qualifiers(bs__buf *b, const bs_case_compare *c, double delta,
                         const char *sep, bs__typo t);
/* The same into a fixed buffer (a text cell), appended after what buf
 * holds and cut to fit. */
void bs__qualifiers_cell(char *buf, size_t n, const bs_case_compare *c,
                         double delta);

/* ---- Notes under the table -----------------------------------------------
 * One line each, in this order, every view the same: the adaptive runs
 * (how many cases took extra runs, how many runs and how long: the
 * manifest's extra_runs, adaptive_cases, extra_seconds and max_runs
 * written by `benchsite run`, or the looks of the log when the manifest
 * has none), the layout-sensitive cases, the blind cases (the worst first,
 * named with their figure). A new note is a new row of the table in
 * compare_notes.c. */
enum { BS__NOTE_ADAPTIVE, BS__NOTE_LAYOUT, BS__NOTE_BLIND, BS__NOTES };

/* What the notes are written from: a note that needs more (another
 * file's figures) is a field here and a row in compare_notes.c. */
typedef struct bs__notes_in {
  const bs_compare_result *r;
  const bs_manifest *env; /* the run's manifest; may be NULL */
} bs__notes_in;

/* Writes note k into b (no line end) when it has something to say and
 * returns 1; returns 0 and writes nothing otherwise. */
int bs__note(bs__buf *b, int k, const bs__notes_in *in, bs__typo t);

/* The headline's count of blind cases, after the verdict counts: "; 1
 * blind below 20.6 %", "; 3 blind below 4.80–20.6 %"; nothing when none
 * is. */
bs_status bs__blind_count(bs__buf *b, const bs_compare_result *r);

/* Lines the comment and the text report share (compare_notes.c), each
 * written into b with no line end: Holm's correction ("2 of 5 significant
 * regressions survive Holm's correction at 2.5 % over 40 cases"), what
 * --noise did, the inconclusive cases, and the method ("confirmatory
 * gate: δ = 3 %, 95 % interval, 10000 bootstrap resamples of med(d), seed
 * 0; metric ..."). */
bs_status bs__family_line(bs__buf *b, const bs_compare_result *r);
bs_status bs__noise_line(bs__buf *b, const bs_compare_result *r);
bs_status bs__inconclusive_line(bs__buf *b, const bs_compare_result *r);
bs_status bs__method_line(bs__buf *b, const bs_compare_result *r);

#endif
