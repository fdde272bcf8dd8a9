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

/* A pull-request comment: one row per case, significant regressions first,
 * then warnings (environment differences, one-sided cases) and the noise
 * floor when known. User text is escaped so it cannot add markup, links or
 * mentions. *out is malloc'd (caller frees). */
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

/* Formats a time in microseconds with 4 significant digits, trailing
 * zeros kept ("10.50 µs"), and a unit (ns, µs, ms, s) into buf, as the
 * text and Markdown views write times. Returns buf. */
char *bs_format_time_us(double us, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
