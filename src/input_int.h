/* Reading the logs and manifests an archive holds (archive.c, site.c): as
 * bs_log_read_file() and bs_manifest_read_file(), but only a regular
 * file, opened without blocking and never through a symbolic link (see
 * bs__open_regular in fsutil.h); anything else is BS_EINPUT. Defined by
 * the readers themselves (log.c, manifest.c). Private. */
#ifndef BENCHSITE_INPUT_INT_H
#define BENCHSITE_INPUT_INT_H

#include "benchsite/log.h"
#include "benchsite/manifest.h"

bs_status bs__log_read_archived(bs_log *log, const char *path, bs_error *err);
bs_status bs__manifest_read_archived(bs_manifest *m, const char *path,
                                     bs_error *err);

#endif
