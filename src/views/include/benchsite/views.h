/* benchsite: the views of one run's analysis, in one table (after Google
 * Benchmark's reporters and hyperfine's exporters): a row per command and
 * format names the function that renders that command's result in that
 * format. The program renders through it, so a new format or command is
 * a row here and its renderer, not a switch in each command. */
#ifndef BENCHSITE_VIEWS_H
#define BENCHSITE_VIEWS_H

#include "benchsite/analysis.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/markdown.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bs_view_format {
  BS_VIEW_TEXT,     /* the report printed on stdout */
  BS_VIEW_SUMMARY,  /* the one line printed on stdout when results go to
                     * files */
  BS_VIEW_JSON,     /* written to --json F */
  BS_VIEW_MARKDOWN, /* written to --markdown F: a pull-request comment */
  BS_VIEW_FORMATS   /* the number of formats */
} bs_view_format;

/* Renders the result of `an` that its command made (an->compare, an->aa
 * or an->tune) into *out (malloc'd, NUL-terminated, *len bytes; the
 * caller frees it). env is the run's manifest (may be NULL), o the
 * comment's options (may be NULL: no links; only compare uses them).
 * BS_EUSAGE when the analysis holds no such result, or the renderer's
 * own errors. */
typedef bs_status (*bs_view_fn)(const bs_analysis *an, const bs_manifest *env,
                                const bs_markdown_options *o, char **out,
                                size_t *len, bs_error *err);

typedef struct bs_view {
  const char *command; /* "compare", "noise", "tune" */
  bs_view_format format;
  bs_view_fn render;
} bs_view;

/* Every view; *n (not NULL) receives the number of rows. */
const bs_view *bs_views(size_t *n);

/* The view of `command` in `format`; NULL when there is none (an unknown
 * command or format, or command NULL). */
const bs_view *bs_view_find(const char *command, bs_view_format format);

/* The name of a format: "text", "summary", "json", "markdown"; a format
 * written to a file is given by the option of that name ("--json F").
 * NULL for a value that is not a format. */
const char *bs_view_format_name(bs_view_format format);

/* 1 when `format` is written to a file named on the command line (json,
 * markdown), 0 when it is printed on stdout (text, summary) or is not a
 * format. */
int bs_view_format_is_file(bs_view_format format);

#ifdef __cplusplus
}
#endif
#endif
