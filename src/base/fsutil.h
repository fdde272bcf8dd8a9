/* File-system helpers of the writers of reports, sites, charts and the
 * run archive (report.c, site.c, plot.c, archive.c). Private. */
#ifndef BENCHSITE_FSUTIL_H
#define BENCHSITE_FSUTIL_H

#include "benchsite/error.h"

#include "buf.h"
#include "sha256.h"

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

/* "a/b", malloc'd; NULL when out of memory. */
char *bs__path_join(const char *a, const char *b);
/* Whether path is a regular file (a symbolic link is not). */
int bs__is_regular(const char *path);
/* Whether name is "." or "..". */
int bs__is_dot(const char *name);

/* The type of a directory entry read from the directory open as dirfd:
 * from readdir's d_type where the system has it (no stat per file: a
 * site holds tens of thousands), else from fstatat. Symbolic links are
 * BS__ENT_OTHER. */
enum { BS__ENT_OTHER, BS__ENT_FILE, BS__ENT_DIR };
int bs__entry_type(int dirfd, const struct dirent *e);

/* Removes a tree; symbolic links in it are removed, never followed. Best
 * effort: what cannot be removed stays. */
void bs__remove_tree(const char *path);

/* ---- Reading files an archive holds -------------------------------------
 *
 * Archive files come from a repository a pull request can write to: a
 * FIFO named like a log would block an open() or read() for ever, a
 * device could be read without end, and a symbolic link would read (and
 * quote in messages) a file outside the archive. These open without
 * blocking, never follow a link (BS__OPEN_NOFOLLOW) and accept only a
 * regular file, checked with fstat on the descriptor they read. */
enum { BS__OPEN_NOFOLLOW = 1 };
/* Opens `path` for reading: *fd on BS_OK (a regular file, blocking mode
 * restored). Errors in err for path, none quoting the file's content:
 * BS_EIO "cannot open: reason" (errno kept: ENOENT for a missing file),
 * BS_EINPUT "a symbolic link (not followed)" or "not a regular file (a
 * FIFO)" and the like. */
bs_status bs__open_regular(const char *path, int flags, int *fd, bs_error *err);
/* Reads the regular file `path` (opened as bs__open_regular) into a
 * malloc'd NUL-terminated buffer. BS_ELIMIT past `limit` bytes (0: none),
 * BS_EIO when unreadable, BS_ENOMEM. */
bs_status bs__read_regular(const char *path, int flags, size_t limit,
                           char **data, size_t *len, bs_error *err);
/* The same for a path the user named (bs_read_file): links followed, any
 * file that can be read to its end (a pipe such as /dev/stdin too).
 * BS_EIO "cannot open: reason" or "read error: reason", BS_ELIMIT (a
 * regular file past the limit is refused unread), BS_ENOMEM. Both readers
 * are one loop: the one capped whole-file reader. */
bs_status bs__read_path(const char *path, size_t limit, char **data,
                        size_t *len, bs_error *err);

/* Writes all of p to fd, retrying after EINTR. Returns 0, or -1 with
 * errno set. */
int bs__write_all(int fd, const char *p, size_t len);
/* Creates the file `path`, which must not exist (with `replace`, an
 * existing one is truncated instead; a symbolic link is never followed),
 * and writes data into it. Returns BS_OK, or BS_EIO with "cannot create
 * file: reason" or "cannot write file: reason" for path in err. */
bs_status bs__write_file(const char *path, const char *data, size_t len,
                         int replace, bs_error *err);
/* Copies the file `from` (read with bs__read_path) to the new file `to`
 * (written with bs__write_file). Returns BS_OK or the error of either in
 * err. */
bs_status bs__copy_file(const char *from, const char *to, bs_error *err);

/* The names in directory `dir` that keep(name) accepts (keep NULL: all
 * but "." and ".."), sorted in byte order: *names is malloc'd, as is every
 * name (free with bs__strlist_free(*names, *n)). The one directory listing
 * of the library. Returns BS_OK, or BS_EIO ("cannot open directory:
 * reason" or, when readdir fails part way, "cannot read directory:
 * reason", for dir) or BS_ENOMEM in err, with *names NULL. */
bs_status bs__list_dir(const char *dir, int (*keep)(const char *name),
                       char ***names, size_t *n, bs_error *err);

/* Refuses (BS_EUSAGE) an output directory `out` (named `what` in the
 * message) that is `dir`, lies inside it, or holds it: replacing `out`
 * would then write into, or delete, `dir` (`dir_what`, e.g. "the
 * archive"). Both are compared as real paths (links resolved; a missing
 * `out` by its parent's real path). BS_OK when they are apart or cannot
 * be resolved (the later steps report a missing directory). */
bs_status bs__check_apart(const char *out, const char *what, const char *dir,
                          const char *dir_what, bs_error *err);

/* ---- What an output directory holds ------------------------------------ */

/* Appends to b one line per entry under `dir` other than the top-level
 * file `skip` (NULL: none), in byte order of the relative paths: "SIZE
 * SHA256 PATH" for a regular file (its bytes' hash in hex, "-" when
 * unreadable), "dir PATH" for a directory (descended), "other PATH" for
 * anything else (never followed). PATH has backslashes, control bytes and
 * DEL escaped ("\\", "\xNN"), so every entry is one line. BS_EIO when a
 * directory cannot be read, BS_ENOMEM. */
bs_status bs__tree_list(const char *dir, const char *skip, bs__buf *b);
/* 1 when text[0..n-1] is an archive's FORMAT file: one line
 * "benchsite.archive/N\n" (N a version number; only 1 exists today). */
int bs__archive_format_line(const char *text, size_t n);
/* BS_EUSAGE when `out` (real path; its parent's when it does not exist)
 * is a benchsite archive or lies inside one (a directory holding a
 * regular FORMAT file whose content is bs__archive_format_line's): no
 * output but the archive's own may be written there. */
bs_status bs__check_outside_archive(const char *out, bs_error *err);
/* 1 when `dir` holds exactly what the listing `list` (as bs__tree_list
 * wrote it, skipping `skip`) says: nothing missing, added, changed or
 * replaced by a link; else 0. */
int bs__tree_matches(const char *dir, const char *skip, const char *list,
                     size_t len);

/* What lstat(2) says of a regular file. A file whose stamp is the one it
 * had when its bytes were hashed is taken to hold those bytes: every
 * write changes the ctime, which no call can set back (as git's index
 * and make trust a file's times). */
typedef struct bs__file_stamp {
  uint64_t dev, ino, size;
  long long mtime_ns, ctime_ns;
} bs__file_stamp;

/* A regular file of a listed tree: its path (not escaped), its stamp and
 * the hash of its bytes when it had that stamp. */
typedef struct bs__known_file {
  char *path;
  bs__file_stamp stamp;
  char hash[BS__SHA256_HEXLEN + 1];
} bs__known_file;

/* bs__tree_list, except that a regular file whose path is in `known`
 * (sorted by path in byte order; NULL when nknown is 0) with the same
 * stamp is not read: its known hash is listed. When `seen` is not NULL,
 * *seen is set to (malloc'ed, free with bs__known_free) the regular files
 * listed with their stamp and hash, sorted by path, leaving out those
 * whose mtime or ctime is not before `before_ns` (ns since the epoch): a
 * write within the file system's clock tick may not change such a stamp,
 * so they are read again next time. BS_EIO, BS_ENOMEM. */
bs_status bs__tree_list_known(const char *dir, const char *skip,
                              const bs__known_file *known, size_t nknown,
                              long long before_ns, bs__buf *b,
                              bs__known_file **seen, size_t *nseen);
/* bs__tree_matches with bs__tree_list_known's `known`; on a match, *seen
 * (when not NULL) as bs__tree_list_known gives it, else NULL and 0. */
int bs__tree_matches_known(const char *dir, const char *skip, const char *list,
                           size_t len, const bs__known_file *known,
                           size_t nknown, long long before_ns,
                           bs__known_file **seen, size_t *nseen);
/* Frees n known files and their array; NULL is a no-op. */
void bs__known_free(bs__known_file *k, size_t n);

#endif
