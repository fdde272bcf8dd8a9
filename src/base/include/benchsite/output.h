/* benchsite: atomic output. Every file and directory benchsite writes for
 * the user goes through here -- the --json and --markdown files, the HTML
 * report directory, the site -- so that what may be replaced, and how, is
 * decided in one place: output appears whole or not at all.
 *
 * Files: staged one by one into temporary files beside their targets
 * (fsync'd), then renamed into place together; a failure before the
 * renames leaves every target as it was. Directories: built in a fresh
 * directory beside the target, then swapped in. */
#ifndef BENCHSITE_OUTPUT_H
#define BENCHSITE_OUTPUT_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Files replaced together ------------------------------------------- */

typedef struct bs_output_files bs_output_files;

/* An empty set of files; NULL when out of memory. */
bs_output_files *bs_output_files_new(void);
/* Writes `len` bytes of `data` (copied; the caller keeps its buffer) to a
 * new temporary file beside `path` ("PATH.PID.tmp", created exclusively,
 * never following a link) and fsyncs it. `path` is borrowed until the
 * set is committed or freed. An existing `path` that is not a regular
 * file (a directory, a symbolic link, a FIFO, a device) is refused with
 * BS_EUSAGE before anything is written; "-" (standard output) is the
 * caller's to write directly. Returns BS_OK, or BS_EUSAGE, BS_EIO ("cannot
 * create file: reason", "cannot write file: reason" for path) or BS_ENOMEM
 * in err; the set then stays valid and its other files staged. */
bs_status bs_output_files_add(bs_output_files *f, const char *path,
                              const void *data, size_t len, bs_error *err);
/* Renames every staged file into place, in the order added. Returns
 * BS_OK, or BS_EIO ("cannot rename into place: reason" for the path) at
 * the first rename that fails; the files not yet renamed stay staged and
 * bs_output_files_free removes them. */
bs_status bs_output_files_commit(bs_output_files *f, bs_error *err);
/* Removes the files still staged (a set not committed leaves no trace)
 * and frees f. bs_output_files_free(NULL) does nothing. */
void bs_output_files_free(bs_output_files *f);

/* One file: new, add, commit and free in one call. On any failure `path`
 * is left as it was and no temporary file remains. */
bs_status bs_write_file_atomic(const char *path, const void *data, size_t len,
                               bs_error *err);

/* ---- Directories replaced as a whole (report, site) --------------------- */

typedef struct bs_output_dir bs_output_dir;

/* bs_output_dir_open's flags. */
enum { BS_OUTPUT_DIR_LISTED = 1 };

/* Prepares to replace the directory `out` with a new `kind` ("report",
 * "site") of output. An existing `out` must be empty or an earlier output
 * of that kind: one that holds the regular file `marker` (which the caller
 * writes into the new tree). With BS_OUTPUT_DIR_LISTED in `flags` the
 * marker must also list, after a line "files", every file of that output
 * as bs__tree_list writes it, and the directory may hold nothing that
 * list does not name unchanged, so nothing of the user's is deleted
 * (checked again by bs_output_dir_commit). `what` names `out` in
 * messages.
 * Removes the build directories of earlier builds of `out` whose process
 * is gone (putting back a previous output such a build had moved aside).
 * Nothing is created yet: see bs_output_dir_start. On success *d is
 * malloc'd (free with bs_output_dir_free). Errors: BS_EUSAGE (`out` is
 * "", "." or "..", a symbolic link, not a directory, or a directory that
 * is not such an output), BS_EIO, BS_ENOMEM; *d is then NULL. */
bs_status bs_output_dir_open(const char *out, const char *what,
                             const char *kind, const char *marker, int flags,
                             bs_output_dir **d, bs_error *err);
/* Whether `out` existed when opened (an earlier output to replace, which
 * stays readable at `out` until the commit). */
int bs_output_dir_exists(const bs_output_dir *d);
/* Creates the private build directory beside `out` (mode 0755):
 * ".BASE.KIND-PID-XXXXXX" in out's parent. BS_EIO when it cannot. */
bs_status bs_output_dir_start(bs_output_dir *d, bs_error *err);
/* The build directory the caller fills (after bs_output_dir_start; NULL
 * before). */
const char *bs_output_dir_path(const bs_output_dir *d);
/* Puts the build directory in place of `out`: in one atomic exchange where
 * the system has one, else by moving the old tree aside first (`out` is
 * then briefly absent, never half-written). The old tree is removed by
 * bs_output_dir_free. BS_EIO when a rename fails; `out` is then as it was
 * (or, when even putting it back failed, the message says where it is). */
bs_status bs_output_dir_commit(bs_output_dir *d, bs_error *err);
/* Removes the build directory (a build not committed, or the old tree
 * after a commit) and frees d. bs_output_dir_free(NULL) does nothing. */
void bs_output_dir_free(bs_output_dir *d);

/* ---- Reading ------------------------------------------------------------ */

/* Reads a whole file into a malloc'd NUL-terminated buffer (the caller
 * frees it). Fails with BS_ELIMIT past `limit` bytes (0 = no limit) and
 * BS_EIO when it cannot be read. */
bs_status bs_read_file(const char *path, size_t limit, char **data, size_t *len,
                       bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
