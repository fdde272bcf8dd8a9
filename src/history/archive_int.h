/* What adding to an archive (archive.c) and reading it (archive_read.c)
 * share: the names of its files and the shape of a run's id. Private. */
#ifndef BENCHSITE_ARCHIVE_INT_H
#define BENCHSITE_ARCHIVE_INT_H

#include "benchsite/archive.h"
#include "benchsite/error.h"

#include "date_int.h"
#include "sha256.h"

#define FORMAT_NAME "FORMAT"
#define FORMAT_LINE "benchsite.archive/1\n"
#define RUNS_NAME "runs"
#define SUMS_NAME "SHA256SUMS"
#define MANIFEST_NAME "manifest.csv"
#define TMP_PREFIX ".tmp-"
#define ACKS_NAME "acks.csv"
#define ID_NAME "ID"
#define HASH_DIGITS 12
#define COMMIT_CHARS 12
#define DATE_CHARS 16 /* YYYYMMDDTHHMMSSZ */

/* A run id's date part (YYYYMMDDTHHMMSSZ) of t, and its commit part: the
 * first COMMIT_CHARS letters and digits of commit ("none" when it has
 * none). */
void bs__archive_id_date(const bs__utc_time *t, char out[DATE_CHARS + 1]);
void bs__archive_id_commit(const char *commit, char out[COMMIT_CHARS + 1]);

/* Splits a well-formed id into its parts; returns 0 when malformed. */
int bs__archive_id_parse(const char *id, char date[DATE_CHARS + 1],
                         char commit[COMMIT_CHARS + 1],
                         char hash[HASH_DIGITS + 1]);

/* The archive's identity, DIR/ID: one well-formed run id and a newline.
 * BS_OK with the id in `id` (room for BS_ARCHIVE_ID_MAX), or "" when the
 * archive has no ID; BS_EINPUT when ID is damaged (not a regular file, or
 * anything else in it; the message, for DIR/ID, quotes none of it); BS_EIO
 * when it cannot be read; BS_ENOMEM. */
bs_status bs__archive_read_identity(const char *dir, char *id, bs_error *err);

/* Checks that the open FORMAT file fd (`format` its path, for messages)
 * holds the format line: BS_OK, BS_EINPUT, BS_EIO. */
bs_status bs__archive_check_format_fd(int fd, const char *format,
                                      bs_error *err);

/* The SHA-256 of the regular file `path` (a symbolic link is refused) in
 * hex: BS_OK, or BS_EIO with *missing 1 when it does not exist. With
 * `keep`, the bytes hashed are also handed over (*keep, malloc'd; at most
 * BS_ARCHIVE_MAX_FILE), so that what is parsed is exactly what was
 * checked; *keep_len (keep_len may be NULL) gets their number. */
bs_status bs__archive_hash_file(const char *path,
                                char hex[BS__SHA256_HEXLEN + 1], int *missing,
                                char **keep, size_t *keep_len);

/* calibrations/ of the archive `archive`, into res (see
 * bs_archive_verify_result): BS_OK with damage as findings, BS_EIO when
 * it cannot be read, BS_ENOMEM. */
bs_status bs__archive_verify_calibrations(const char *archive,
                                          bs_archive_verify_result *res,
                                          bs_error *err);

#endif
