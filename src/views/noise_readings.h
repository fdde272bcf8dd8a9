/* The A/A validation in words, shared by its text and Markdown views
 * (noise_text.c, noise_markdown.c). Private. */
#ifndef BENCHSITE_NOISE_READINGS_H
#define BENCHSITE_NOISE_READINGS_H

#include "benchsite/noise.h"
#include "buf.h"

#include <stddef.h>

/* The suite's planning figures in words: how often an unchanged change
 * fails the gate, and how many blocks would let delta = 3 % resolve. The
 * text holds no user input except through `put_case` (which writes a
 * case's name escaped for the view), and ends with a newline. */
bs_status bs__noise_planning(bs__buf *b, const bs_noise_result *r,
                             bs_status (*put_case)(bs__buf *, const char *,
                                                   const char *));

/* The plain-language reading of each figure of case c, one sentence a
 * figure, appended to *list (n entries; bs__strlist_free). `md` wraps
 * option names in code spans. The text holds no user input. */
bs_status bs__noise_readings(const bs_noise_result *r, const bs_noise_case *c,
                             int md, char ***list, size_t *n);

/* A case's figures as the text and the Markdown show them. */
typedef struct bs__noise_figures {
  char floor[48], typical[48], worst[48], paired[48], shift[48];
  char flagged[48], ties[48], drifting[48], signals[48];
} bs__noise_figures;
void bs__noise_case_figures(bs__noise_figures *g, const bs_noise_case *c);

/* ", moving blocks of ..." for a block bootstrap, "" for the ordinary
 * one, into buf (n bytes). Returns buf. */
const char *bs__noise_block_mode(const bs_noise_options *o, char *buf,
                                 size_t n);

#endif
