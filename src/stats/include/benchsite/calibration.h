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

/* An archive's folder of calibrations (benchsite calibrate's files, kept
 * beside runs/), and which of its entries are calibrations: the names
 * ending in .json that are not hidden. compare, the site and archive
 * verify read the same files. */
#define BS_CALIBRATIONS_DIR "calibrations"
int bs_calibration_file_name(const char *name);

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

/* Writes into out (n bytes, NUL-terminated when n > 0) why the
 * calibration does not hold for `run`, the run called `label` ("the
 * newest run"): a missing environment, or every comparability key that
 * differs with both values; "" when it holds. Returns its length (0:
 * comparable). */
size_t bs_calibration_summary_difference(const bs_calibration_summary *s,
                                         const bs_manifest *run,
                                         const char *label, char *out,
                                         size_t n);

/* NULL is a no-op. */
void bs_calibration_summary_free(bs_calibration_summary *s);

/* The choice among the calibrations a directory keeps (an archive's
 * calibrations/, one file a calibration). */
typedef struct bs_calibration_pick {
  size_t read; /* calibrations read (every *.json of the directory) */
  /* The newest (by "date", then by file name) whose environment is
   * comparable with the run, or NULL. */
  bs_calibration_summary *chosen;
  char chosen_name[256]; /* its file name */
  /* When none is comparable and one was read: the newest of them, and
   * why it does not apply (bs_calibration_summary_difference, the run
   * called `label`). */
  bs_calibration_summary *newest;
  char newest_name[256];
  char why[768];
} bs_calibration_pick;

/* Reads every regular *.json file directly in `dir` (none, or no such
 * directory: p->read 0, BS_OK) as a calibration and chooses for `run`.
 * BS_EINPUT naming file and line for a file that is no calibration (a
 * damaged one is never skipped in silence), BS_EIO, BS_ENOMEM. Release p
 * with bs_calibration_pick_release, also after an error. */
bs_status bs_calibration_pick_dir(const char *dir, const bs_manifest *run,
                                  const char *label, bs_calibration_pick *p,
                                  bs_error *err);
void bs_calibration_pick_release(bs_calibration_pick *p);

#ifdef __cplusplus
}
#endif

#endif
