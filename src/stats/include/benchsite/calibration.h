/* benchsite: a calibration read back (`compare --calibration`, `site
 * --calibration`): what `benchsite calibrate` measured on a runner, the
 * figures a report shows beside its verdicts, and the setup they hold
 * for. */
#ifndef BENCHSITE_CALIBRATION_H
#define BENCHSITE_CALIBRATION_H

#include "benchsite/error.h"
#include "benchsite/manifest.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_calibration_summary {
  char date[32]; /* when it was calibrated: a valid ISO 8601 date */
  uint64_t reps; /* runs measured */
  int scaled;    /* plants were scaled observations, not real work */
  /* The suite's runs that flagged identical code: share and exact
   * one-sided 95 % upper bound (fractions). */
  double false_alarm_rate, false_alarm_high;
  /* The plant shown: 5 % when calibrated, else the one nearest 5 %; the
   * share of case-runs found and its lower bound. has_plant 0: none. */
  int has_plant;
  double plant_pct, found_rate, found_low;
  bs_manifest *environment; /* never NULL; may be empty */
} bs_calibration_summary;

/* Reads a benchsite.calibration/1 JSON (`name` in messages). BS_EINPUT
 * naming name:line for anything else (a wrong schema, a missing or
 * mistyped field, a date that is not one); BS_ENOMEM. *out is malloc'd
 * (bs_calibration_summary_free), NULL on error. */
bs_status bs_calibration_summary_parse(const char *name, const char *text,
                                       size_t len, bs_calibration_summary **out,
                                       bs_error *err);

/* BS_OK when the calibration's environment and `run` (a run's manifest)
 * are comparable (bs_manifest_comparable); BS_EINPUT naming every
 * comparability key that differs with both values, or when either has no
 * environment (an unknown setup is never assumed comparable). */
bs_status
bs_calibration_summary_check_environment(const bs_calibration_summary *s,
                                         const char *name,
                                         const bs_manifest *run, bs_error *err);

/* NULL is a no-op. */
void bs_calibration_summary_free(bs_calibration_summary *s);

#ifdef __cplusplus
}
#endif

#endif
