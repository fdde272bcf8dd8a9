/* The admission check of `benchsite archive add` (check_run.c): storage
 * asks it and does not depend on the statistics it runs. Private. */
#ifndef BENCHSITE_CHECK_RUN_H
#define BENCHSITE_CHECK_RUN_H

#include "benchsite/error.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include <stddef.h>

/* Whether the run of `log` (all its logs read into one) with manifest
 * `mf` (read from the file `manifest`, named in messages) may be
 * archived: the checks of `benchsite check` with the target of the
 * manifest's protocol, and, for a manifest naming a baseline and a
 * candidate, a finite delta and speedup for every case of their
 * comparison. Returns BS_OK; BS_EINPUT with the findings appended to
 * *findings (count *nfindings; malloc'd strings "file:line: kind:
 * message", free with bs__strlist_free) and a summary in err, or with
 * the case whose verdict cannot be computed; BS_ENOMEM. */
bs_status bs__check_admission(const bs_log *log, const bs_manifest *mf,
                              const char *manifest, char ***findings,
                              size_t *nfindings, bs_error *err);

#endif
