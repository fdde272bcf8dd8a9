/* benchsite: the one line a report shows of a runner's calibration. */
#ifndef BENCHSITE_CALIBRATION_NOTE_H
#define BENCHSITE_CALIBRATION_NOTE_H

#include "benchsite/calibration.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes into out (n bytes, always NUL-terminated when n > 0) "on this
 * runner: identical code flagged in <= X % of runs, +5 % found in Y %
 * (calibrated DATE, N runs)": X the suite's upper bound, Y the plant's
 * share (the plant nearest 5 %, named as it is; "scaled" when the plants
 * were scaled observations). Only digits, the date (validated when read)
 * and fixed words: safe as is in text, Markdown and HTML. Returns the
 * length the whole line needs, as snprintf. */
size_t bs_calibration_note(const bs_calibration_summary *s, char *out,
                           size_t n);

#ifdef __cplusplus
}
#endif

#endif
