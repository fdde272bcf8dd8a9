/* Atomic output: the one place that decides how benchsite's outputs are
 * replaced (see output.h). */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* renameat2(RENAME_EXCHANGE): an atomic swap */
#endif
#include "benchsite/output.h"

#include "buf.h"
#include "fsutil.h"
#include "grow.h"
#include "oom.h"
#include "strlist.h"
#include "strset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- Files replaced together ------------------------------------------- */

typedef struct staged {
  const char *path;
  char *tmp; /* NULL once renamed into place */
} staged;

struct bs_output_files {
  staged *v;
  size_t n, cap;
};

bs_output_files *bs_output_files_new(void) {
  return calloc(1, sizeof(bs_output_files));
}

bs_status bs_output_files_add(bs_output_files *f, const char *path,
                              const void *data, size_t len, bs_error *err) {
  struct stat sb;
  /* Only a regular file (or nothing) is replaced. A directory in the way
   * would only fail at the rename, after the caller's later steps; a
   * symbolic link, FIFO or device would be replaced by a regular file
   * (`--json /dev/stdout` would swap the system's /dev/stdout link for a
   * file and print nothing): refused before anything is written. */
  if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode))
    return bs_error_set(err, BS_EUSAGE, path, 0, "%s",
                        S_ISDIR(sb.st_mode)
                            ? "is a directory"
                            : "exists and is not a regular file (a symbolic "
                              "link, FIFO or device is never replaced); give "
                              "- for standard output");
  bs_status inside = bs__check_outside_archive(path, err);
  if (inside)
    return inside;
  staged *v = BS__GROW(f->v, f->cap, f->n + 1, 4);
  if (!v)
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  f->v = v;
  size_t n = strlen(path) + 32;
  char *tmp = malloc(n);
  if (!tmp)
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  /* A fixed suffix plus the pid: unique among concurrent benchsite runs,
   * and O_EXCL refuses to follow or reuse anything already there. */
  snprintf(tmp, n, "%s.%ld.tmp", path, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return bs_error_set(err, BS_EIO, path, 0, "cannot create file: %s",
                        strerror(e));
  }
  if (bs__write_all(fd, data, len) != 0 || fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    free(tmp);
    return bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                        strerror(e));
  }
  if (close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    return bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                        strerror(e));
  }
  f->v[f->n].path = path;
  f->v[f->n].tmp = tmp;
  f->n++;
  return BS_OK;
}

bs_status bs_output_files_commit(bs_output_files *f, bs_error *err) {
  for (size_t i = 0; i < f->n; i++) {
    if (!f->v[i].tmp)
      continue;
    if (rename(f->v[i].tmp, f->v[i].path) != 0)
      return bs_error_set(err, BS_EIO, f->v[i].path, 0,
                          "cannot rename into place: %s", strerror(errno));
    free(f->v[i].tmp);
    f->v[i].tmp = NULL;
  }
  return BS_OK;
}

void bs_output_files_free(bs_output_files *f) {
  if (!f)
    return;
  for (size_t i = 0; i < f->n; i++) {
    if (f->v[i].tmp) {
      unlink(f->v[i].tmp);
      free(f->v[i].tmp);
    }
  }
  free(f->v);
  free(f);
}

bs_status bs_write_file_atomic(const char *path, const void *data, size_t len,
                               bs_error *err) {
  bs_output_files *f = bs_output_files_new();
  if (!f)
    return bs_error_set(err, BS_ENOMEM, path, 0, BS__OOM_TEXT);
  bs_status st = bs_output_files_add(f, path, data, len, err);
  if (!st)
    st = bs_output_files_commit(f, err);
  bs_output_files_free(f);
  return st;
}

/* ---- Directories replaced as a whole ------------------------------------ */

struct bs_output_dir {
  char *out, *parent, *base, *kind, *marker;
  int listed;  /* BS_OUTPUT_DIR_LISTED */
  char *build; /* the build directory; after a commit, the old tree */
  int exists;
  int lock; /* flock'd ".BASE.KIND.lock" beside out, held until freed */
};

/* Serialises builds into one `out`: the second waits for the first to
 * commit or fail instead of finding the tree it reuses deleted under it.
 * The lock is an flock on out's parent directory itself, so nothing is
 * created beside `out` (builds into other directories of the same parent
 * wait too; they are rare and short). */
static bs_status lock_out(bs_output_dir *d, bs_error *err) {
  if (!d->parent)
    return BS_OK;
  int fd = open(d->parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return BS_OK; /* the build reports the missing parent */
  int r;
  while ((r = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
    ;
  if (r != 0) {
    int e = errno;
    close(fd);
    return bs_error_set(err, BS_EIO, d->out, 0, "cannot lock: %s", strerror(e));
  }
  d->lock = fd;
  return BS_OK;
}

/* Splits `out` into its parent and last component, trailing slashes
 * removed; "", "." and ".." as the last component are refused. */
static bs_status split_out(const char *out, const char *what, char **parent,
                           char **base, bs_error *err) {
  size_t n = strlen(out);
  while (n > 1 && out[n - 1] == '/')
    n--;
  size_t s = n;
  while (s > 0 && out[s - 1] != '/')
    s--;
  size_t blen = n - s;
  if (blen == 0 || (blen == 1 && out[s] == '.') ||
      (blen == 2 && out[s] == '.' && out[s + 1] == '.'))
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "%s must name a directory to create or replace", what);
  *base = strndup(out + s, blen);
  if (s == 0)
    *parent = strdup(".");
  else if (s == 1)
    *parent = strdup("/");
  else
    *parent = strndup(out, s - 1);
  if (!*base || !*parent) {
    free(*base);
    free(*parent);
    *base = *parent = NULL;
    return bs__oom(err);
  }
  return BS_OK;
}

/* An earlier output whose marker lists its files ("files" and then one
 * line each, as bs__tree_list writes them: size, SHA-256, path) may be
 * replaced only while it holds nothing else: a file the user put inside
 * it, or a file of it the user changed, would be deleted by the swap, so
 * the first such entry is refused with BS_EUSAGE. Files gone from it are
 * not data anyone loses. A marker without a list (an older version's, or
 * an empty file anyone can create) proves nothing and is refused too. */
static bs_status foreign_files(const char *out, const char *mpath,
                               const char *marker, const char *kind,
                               bs_error *err) {
  char *text = NULL;
  size_t len = 0;
  bs_error ignore;
  if (bs__read_regular(mpath, BS__OPEN_NOFOLLOW, BS__CAP_SITE_FILES, &text,
                       &len, &ignore) != BS_OK)
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "refusing to replace: its %s file is unreadable",
                        marker);
  const char *list = strstr(text, "\nfiles\n");
  if (!list) {
    free(text);
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "refusing to replace: its %s file does not list the "
                        "%s's files (an older benchsite's, or not benchsite's "
                        "at all), so files of yours in it cannot be told "
                        "apart; remove it yourself or choose another "
                        "directory",
                        marker, kind);
  }
  list += strlen("\nfiles\n");
  bs__strset listed;
  bs__strset_init(&listed);
  bs_status st = BS_OK;
  for (const char *p = list; *p && !st;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (bs__strset_put(&listed, p, n, 0, NULL) < 0)
      st = bs__oom(err);
    p += n + (nl != NULL);
  }
  bs__buf now;
  bs__buf_init(&now, BS__CAP_SITE_FILES);
  if (!st && bs__tree_list(out, marker, &now) != BS_OK)
    st = bs_error_set(err, BS_EIO, out, 0, "cannot list");
  for (size_t i = 0; !st && i < now.len;) {
    const char *p = now.data + i;
    const char *nl = memchr(p, '\n', now.len - i);
    size_t n = nl ? (size_t)(nl - p) : now.len - i;
    i += n + 1;
    if (bs__strset_get(&listed, p, n, NULL))
      continue;
    /* "SIZE SHA256 PATH", "dir PATH" or "other PATH": the path. */
    const char *name = memchr(p, ' ', n);
    name = name ? name + 1 : p;
    if (p[0] >= '0' && p[0] <= '9') {
      const char *h = memchr(name, ' ', (size_t)(p + n - name));
      name = h ? h + 1 : name;
    }
    st = bs_error_set(err, BS_EUSAGE, out, 0,
                      "refusing to replace this earlier benchsite %s: it "
                      "holds %.*s, which the %s did not write or which was "
                      "changed since; move it out or choose another "
                      "directory",
                      kind, (int)(p + n - name), name, kind);
  }
  bs__buf_release(&now);
  bs__strset_release(&listed);
  free(text);
  return st;
}

/* Whether `out` may be replaced: absent (*exists 0), or an empty
 * directory or an earlier output holding the regular file `marker`. */
static bs_status check_out(const char *out, const char *marker,
                           const char *kind, int listed, int *exists,
                           bs_error *err) {
  struct stat st;
  *exists = 0;
  if (lstat(out, &st) != 0) {
    if (errno == ENOENT)
      return BS_OK;
    return bs_error_set(err, BS_EIO, out, 0, "cannot inspect: %s",
                        strerror(errno));
  }
  if (S_ISLNK(st.st_mode))
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "is a symbolic link; give the real directory");
  if (!S_ISDIR(st.st_mode))
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "exists and is not a directory");
  *exists = 1;
  char *path = bs__path_join(out, marker);
  if (!path)
    return bs__oom(err);
  int has_marker = bs__is_regular(path);
  if (has_marker) {
    bs_status fs = listed ? foreign_files(out, path, marker, kind, err) : 0;
    free(path);
    return fs;
  }
  free(path);
  char **names;
  size_t n;
  bs_status ls = bs__list_dir(out, NULL, &names, &n, err);
  if (ls)
    return ls;
  bs__strlist_free(names, n);
  if (n)
    return bs_error_set(err, BS_EUSAGE, out, 0,
                        "refusing to replace a directory that is not a "
                        "benchsite %s (no %s file)",
                        kind, marker);
  return BS_OK;
}

/* Cleans up after builds that were killed: their build directories
 * ".BASE.KIND-PID-*" in the parent, where PID is gone, are removed. A
 * "-old" one is the previous output a two-rename swap had moved aside:
 * when `out` is missing it is put back first. */
static void sweep_stale(const bs_output_dir *d) {
  DIR *dir = d->parent ? opendir(d->parent) : NULL;
  if (!dir)
    return;
  char prefix[512];
  snprintf(prefix, sizeof prefix, ".%s.%s-", d->base, d->kind);
  size_t pn = strlen(prefix);
  struct dirent *e;
  while ((e = readdir(dir))) {
    if (strncmp(e->d_name, prefix, pn))
      continue;
    char *end;
    long pid = strtol(e->d_name + pn, &end, 10);
    if (pid <= 0 || *end != '-' || pid == (long)getpid())
      continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue; /* alive, or not ours to judge */
    char *p = bs__path_join(d->parent, e->d_name);
    struct stat st;
    if (p && !strcmp(end, "-old") && lstat(d->out, &st) != 0 &&
        errno == ENOENT && rename(p, d->out) == 0) {
      free(p);
      continue;
    }
    if (p)
      bs__remove_tree(p);
    free(p);
  }
  closedir(dir);
}

bs_status bs_output_dir_open(const char *out, const char *what,
                             const char *kind, const char *marker, int flags,
                             bs_output_dir **dp, bs_error *err) {
  *dp = NULL;
  bs_output_dir *d = calloc(1, sizeof *d);
  if (d)
    d->lock = -1;
  /* Without its trailing slashes: "LINK/" would otherwise follow a
   * symbolic link that the rename at the end then refuses. */
  size_t olen = strlen(out);
  while (olen > 1 && out[olen - 1] == '/')
    olen--;
  if (!d || !(d->out = strndup(out, olen)) || !(d->kind = strdup(kind)) ||
      !(d->marker = strdup(marker))) {
    bs_output_dir_free(d);
    return bs__oom(err);
  }
  bs_status st = split_out(d->out, what, &d->parent, &d->base, err);
  if (!st)
    st = bs__check_outside_archive(d->out, err);
  if (!st)
    st = lock_out(d, err);
  if (!st) {
    sweep_stale(d);
    d->listed = (flags & BS_OUTPUT_DIR_LISTED) != 0;
    st = check_out(d->out, marker, kind, d->listed, &d->exists, err);
  }
  if (st) {
    bs_output_dir_free(d);
    return st;
  }
  *dp = d;
  return BS_OK;
}

int bs_output_dir_exists(const bs_output_dir *d) { return d->exists; }

const char *bs_output_dir_path(const bs_output_dir *d) { return d->build; }

bs_status bs_output_dir_start(bs_output_dir *d, bs_error *err) {
  size_t n = strlen(d->parent) + strlen(d->base) + strlen(d->kind) + 48;
  char *b = malloc(n);
  if (!b)
    return bs__oom(err);
  snprintf(b, n, "%s/.%s.%s-%ld-XXXXXX", d->parent, d->base, d->kind,
           (long)getpid());
  if (!mkdtemp(b)) {
    int e = errno;
    free(b);
    return bs_error_set(err, BS_EIO, d->out, 0,
                        "cannot create a temporary directory beside it: %s",
                        strerror(e));
  }
  d->build = b;
  if (chmod(b, 0755) != 0)
    return bs_error_set(err, BS_EIO, b, 0, "cannot set permissions: %s",
                        strerror(errno));
  return BS_OK;
}

/* Whether the earlier output, now at `dir`, holds anything its list does
 * not name unchanged. */
static int holds_foreign(const bs_output_dir *d, const char *dir) {
  char *mpath = bs__path_join(dir, d->marker);
  bs_error ignore;
  int foreign =
      !mpath || foreign_files(dir, mpath, d->marker, d->kind, &ignore) != BS_OK;
  free(mpath);
  return foreign;
}

/* The earlier output is back at d->out: the refusal, naming what it
 * holds. */
static bs_status refused_after_all(const bs_output_dir *d, bs_error *err) {
  int exists;
  bs_status st = check_out(d->out, d->marker, d->kind, d->listed, &exists, err);
  if (st)
    return st;
  return bs_error_set(err, BS_EUSAGE, d->out, 0,
                      "changed while the %s was built; it is kept as it is",
                      d->kind);
}

bs_status bs_output_dir_commit(bs_output_dir *d, bs_error *err) {
  /* Again just before the swap: a file put into the earlier output while
   * this one was built must not be deleted either. */
  int exists;
  bs_status again =
      check_out(d->out, d->marker, d->kind, d->listed, &exists, err);
  if (again)
    return again;
  if (exists != d->exists)
    return bs_error_set(err, BS_EUSAGE, d->out, 0,
                        "appeared or went away while the %s was built",
                        d->kind);
  if (!d->exists) {
    if (rename(d->build, d->out) != 0)
      return bs_error_set(err, BS_EIO, d->out, 0,
                          "cannot rename into place: %s", strerror(errno));
    free(d->build);
    d->build = NULL;
    return BS_OK;
  }
#if defined(__linux__) && defined(RENAME_EXCHANGE)
  if (renameat2(AT_FDCWD, d->build, AT_FDCWD, d->out, RENAME_EXCHANGE) == 0) {
    /* The old tree is now at d->build, about to be deleted: a file put
     * into it between the check above and the swap is found here, and
     * the old tree goes back. */
    if (!d->listed || !holds_foreign(d, d->build))
      return BS_OK;
    if (renameat2(AT_FDCWD, d->build, AT_FDCWD, d->out, RENAME_EXCHANGE) == 0)
      return refused_after_all(d, err);
    bs_status kept = bs_error_set(
        err, BS_EIO, d->out, 0,
        "the earlier %s gained files of yours while this one was built; it "
        "could not be put back and is kept in %s",
        d->kind, d->build);
    free(d->build);
    d->build = NULL; /* never deleted */
    return kept;
  }
#endif
  size_t n = strlen(d->parent) + strlen(d->base) + strlen(d->kind) + 48;
  char *aside = malloc(n);
  if (!aside)
    return bs__oom(err);
  snprintf(aside, n, "%s/.%s.%s-%ld-old", d->parent, d->base, d->kind,
           (long)getpid());
  bs_status st = BS_OK;
  if (rename(d->out, aside) != 0) {
    st = bs_error_set(err, BS_EIO, d->out, 0,
                      "cannot move the previous %s aside: %s", d->kind,
                      strerror(errno));
  } else if (d->listed && holds_foreign(d, aside)) {
    if (rename(aside, d->out) == 0) {
      st = refused_after_all(d, err);
    } else {
      st = bs_error_set(err, BS_EIO, d->out, 0,
                        "the earlier %s gained files of yours while this one "
                        "was built; it could not be put back and is kept in "
                        "%s",
                        d->kind, aside);
      free(aside);
      return st; /* kept where the message says */
    }
  } else if (rename(d->build, d->out) != 0) {
    int e = errno;
    if (rename(aside, d->out) != 0) {
      st = bs_error_set(err, BS_EIO, d->out, 0,
                        "cannot rename into place: %s; the previous %s "
                        "could not be put back and is kept in %s",
                        strerror(e), d->kind, aside);
      free(aside);
      return st; /* kept where the message says */
    }
    st = bs_error_set(err, BS_EIO, d->out, 0, "cannot rename into place: %s",
                      strerror(e));
  } else if (rename(aside, d->build) != 0) {
    bs__remove_tree(aside);
  }
  free(aside);
  return st;
}

void bs_output_dir_free(bs_output_dir *d) {
  if (!d)
    return;
  if (d->build) {
    bs__remove_tree(d->build);
    free(d->build);
  }
  if (d->lock >= 0)
    close(d->lock); /* releases the flock */
  free(d->out);
  free(d->parent);
  free(d->base);
  free(d->kind);
  free(d->marker);
  free(d);
}

/* ---- Reading ------------------------------------------------------------ */

bs_status bs_read_file(const char *path, size_t limit, char **data, size_t *len,
                       bs_error *err) {
  return bs__read_path(path, limit, data, len, err);
}
