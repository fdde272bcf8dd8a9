/* benchsite: JSON results (SPEC §4.2). Every number is printed with %.17g;
 * keys come in a fixed order, so the same inputs give the same bytes. */
#ifndef BENCHSITE_JSON_H
#define BENCHSITE_JSON_H

#include "benchsite/compare.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"
#include "benchsite/tune.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Renders a comparison as `benchsite.compare/1` JSON. `env` (may be NULL)
 * becomes "environment". On success *out is a malloc'd NUL-terminated
 * string of *len bytes (the caller frees it). */
bs_status bs_json_compare(const bs_compare_result *r, const bs_manifest *env,
                          char **out, size_t *len, bs_error *err);

/* Renders tuning results as `benchsite.tune/1` JSON. */
bs_status bs_json_tune(const bs_tune_result *r, char **out, size_t *len,
                       bs_error *err);

/* Renders an A/A validation as `benchsite.noise/1` JSON: cases by
 * benchmark then dataset, "block_length" (a number or "auto") at the top
 * level when a block bootstrap was used, and "environment": the manifest
 * `env` of the A/A run ({} when NULL), which `compare --noise` holds
 * against its own. */
bs_status bs_json_noise(const bs_noise_result *r, const bs_manifest *env,
                        char **out, size_t *len, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
