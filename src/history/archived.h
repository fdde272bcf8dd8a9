/* What the archive (archive.c, archive_acks.c) shares with the site that
 * reads it: a run's manifest as the archive read it, the acks parser, and
 * (input_int.h) the readers of the files it holds. Private. */
#ifndef BENCHSITE_ARCHIVED_H
#define BENCHSITE_ARCHIVED_H

#include "benchsite/archive.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include "input_int.h"

/* The manifest of run i (history order) of `a`, as bs_archive_open()
 * read it: owned by `a`; NULL when i is out of range. */
const bs_manifest *bs__archive_manifest(const bs_archive *a, size_t i);

/* Parses the text of an acks.csv (as bs_acks_read() does after reading
 * it); `name` is the file's name for messages. */
bs_status bs__acks_parse(const char *name, const char *data, size_t len,
                         bs_acks **out, bs_error *err);

#endif
