/* benchsite: the runner's calibration in one line, beside a verdict. */
#include "benchsite/calibration_note.h"

#include <stdio.h>
#include <string.h>

size_t bs_calibration_note(const bs_calibration_summary *s, char *out,
                           size_t n) {
  char plant[96] = "";
  if (s->has_plant)
    snprintf(plant, sizeof plant, ", +%g %% found in %.0f %%%s", s->plant_pct,
             100 * s->found_rate, s->scaled ? " (scaled)" : "");
  /* The day is enough: the date was validated as ISO 8601 when read. */
  int w = snprintf(out, n,
                   "on this runner: identical code flagged in \u2264 %.1f %% "
                   "of runs%s (calibrated %.10s, %llu runs)",
                   100 * s->false_alarm_high, plant, s->date,
                   (unsigned long long)s->reps);
  return w < 0 ? 0 : (size_t)w;
}
