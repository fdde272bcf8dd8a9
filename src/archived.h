/* Reading the logs and manifests a run archive holds (archive.c,
 * site.c): as bs_log_read_file() and bs_manifest_read_file(), but only a
 * regular file, opened without blocking and never through a symbolic link
 * (see bs__open_regular in fsutil.h); anything else is BS_EINPUT. Private. */
#ifndef BENCHSITE_ARCHIVED_H
#define BENCHSITE_ARCHIVED_H

#include "benchsite/archive.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"

bs_status bs__log_read_archived(bs_log *log, const char *path, bs_error *err);
bs_status bs__manifest_read_archived(bs_manifest *m, const char *path,
                                     bs_error *err);

/* The manifest of run i (history order) of `a`, as bs_archive_open()
 * read it: owned by `a`; NULL when i is out of range. */
const bs_manifest *bs__archive_manifest(const bs_archive *a, size_t i);

/* Parses the text of an acks.csv (as bs_acks_read() does after reading
 * it); `name` is the file's name for messages. */
bs_status bs__acks_parse(const char *name, const char *data, size_t len,
                         bs_acks **out, bs_error *err);

#endif
