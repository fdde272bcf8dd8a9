/* Markdown emitting helpers on bs__buf (markdown.c, noise_out.c).
 * Private. */
#ifndef BENCHSITE_MDW_H
#define BENCHSITE_MDW_H

#include "buf.h"

/* Markdown-escapes untrusted text: every ASCII punctuation character gets
 * a backslash (no markup, links, HTML or @mentions), '<', '>' and '&'
 * become entities, line breaks and other control bytes become spaces. */
bs_status bs__md_text(bs__buf *b, const char *s);
/* A case as "bench \[dataset\]", or "bench" for an empty dataset, both
 * escaped as bs__md_text. */
bs_status bs__md_case(bs__buf *b, const char *benchmark, const char *dataset);

#endif
