/* Smaller SVG for the same picture (plot.c): gnuplot's SVG terminal
 * writes an empty group per line type and axis, keeps a dozen unused
 * point definitions and pads attributes with spaces; half of a chart's
 * bytes draw nothing. Private. */
#ifndef BENCHSITE_SVGMIN_H
#define BENCHSITE_SVGMIN_H

#include "benchsite/error.h"

#include <stddef.h>

/* Rewrites an SVG document so that it draws exactly what it drew, in fewer
 * bytes: whitespace between elements outside <text> goes, as do comments,
 * groups with nothing in them, definitions nothing refers to and the
 * default stroke-linecap="butt" / stroke-linejoin="miter" (when nothing in
 * the document sets another value); neighbouring groups with the same
 * plain presentation attributes become one; "rgb( 85,  85,  85)" becomes
 * "rgb(85,85,85)"; path data and point lists lose padding. Parsed as
 * bs__svg_check parses (no network, no entities, no DTD).
 *
 * On BS_OK *out (malloc'd, the caller frees it) holds the new document and
 * *outlen its length. BS_EPLOT when `data` is not well-formed XML (name in
 * the message), BS_ENOMEM when out of memory; *out is then NULL. */
bs_status bs__svg_compact(const char *name, const char *data, size_t len,
                          char **out, size_t *outlen, bs_error *err);

/* Compacts the SVG file at `path` in place, then checks what it now holds
 * as bs__svg_check does (so what is published is what was checked), and
 * writes it over the file. BS_OK, BS_EPLOT, BS_EIO or BS_ENOMEM. */
bs_status bs__svg_check_compact(const char *path, bs_error *err);

#endif
