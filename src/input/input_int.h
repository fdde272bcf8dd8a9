/* Reading the logs and manifests an archive holds (archive.c, site.c): as
 * bs_log_read_file() and bs_manifest_read_file(), but only a regular
 * file, opened without blocking and never through a symbolic link (see
 * bs__open_regular in fsutil.h); anything else is BS_EINPUT. Defined by
 * the readers themselves (log.c, manifest.c). Private. */
#ifndef BENCHSITE_INPUT_INT_H
#define BENCHSITE_INPUT_INT_H

#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include "csvin.h"

bs_status bs__log_read_archived(bs_log *log, const char *path, bs_error *err);
/* Reads the log `path` as bs_log_read_file() does, but only a regular file
 * (symbolic links followed, as a user names a log), refused unread with
 * BS_ELIMIT when longer than max_bytes (0: no limit), and with every
 * block read handed to `tee` (which may be NULL) before it is parsed:
 * `archive add` hashes and copies a log in the one pass that parses it.
 * A failure `tee` returns ends the read with that status. */
bs_status bs__log_read_teed(bs_log *log, const char *path, uint64_t max_bytes,
                            bs__csvin_tee_fn tee, void *ctx, bs_error *err);
bs_status bs__manifest_read_archived(bs_manifest *m, const char *path,
                                     bs_error *err);

#endif
