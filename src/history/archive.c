/* Adding a run to an archive: validated (with check's admission check),
 * identified, stored complete or not at all under the archive's lock.
 * Reading and verifying is archive_read.c, acks archive_acks.c. */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH: logs staged unnamed */
#endif
#include "benchsite/archive.h"

#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/output.h"

#include "archive_int.h"
#include "archived.h"
#include "buf.h"
#include "check_run.h"
#include "csvin.h"
#include "date_int.h"
#include "fsutil.h"
#include "grow.h"
#include "input_int.h"
#include "oom.h"
#include "sha256.h"
#include "strlist.h"
#include "strset.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- Small helpers ------------------------------------------------------- */

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* fsync a directory, so a rename or a new entry in it survives a crash. */
static int fsync_dir(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return -1;
  int rc = fsync(fd);
  int e = errno;
  close(fd);
  errno = e;
  return rc;
}

/* Creates `path` (which must not exist), writes it and fsyncs it. */
static int write_new_file(const char *path, const char *data, size_t len) {
  int fd =
      open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0)
    return -1;
  if (bs__write_all(fd, data, len) || fsync(fd)) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return close(fd);
}

/* Gives the staged (unnamed) file fd the new name `path`, synced; where
 * it cannot be linked (no /proc, another file system), copies it. */
static int link_staged(int fd, const char *path) {
  if (fsync(fd))
    return -1;
#ifdef AT_EMPTY_PATH
  if (linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
    return 0;
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
    return 0;
#endif
  int out =
      open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (out < 0)
    return -1;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    ssize_t r = pread(fd, buf, sizeof buf, at);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0 || (r > 0 && bs__write_all(out, buf, (size_t)r)))
      break;
    if (r == 0) {
      if (fsync(out))
        break;
      return close(out);
    }
    at += r;
  }
  int e = errno;
  close(out);
  errno = e;
  return -1;
}

/* ---- Results ------------------------------------------------------------- */

void bs_archive_add_result_init(bs_archive_add_result *r) {
  memset(r, 0, sizeof *r);
}

void bs_archive_add_result_release(bs_archive_add_result *r) {
  if (!r)
    return;
  bs__strlist_free(r->findings, r->nfindings);
  memset(r, 0, sizeof *r);
}

void bs_archive_verify_result_init(bs_archive_verify_result *r) {
  memset(r, 0, sizeof *r);
}

void bs_archive_verify_result_release(bs_archive_verify_result *r) {
  if (!r)
    return;
  bs__strlist_free(r->problems, r->nproblems);
  memset(r, 0, sizeof *r);
}

/* ---- A run, validated and ready to store --------------------------------- */

/* A file of the run: its bytes in memory (data), or, for a log, staged
 * in an unnamed file of the archive's file system (fd) written while the
 * log was parsed, or neither (bs_archive_identify only hashes). */
typedef struct run_file {
  char name[32]; /* manifest.csv, log-N.csv */
  char *data;
  int fd; /* the staged copy (O_TMPFILE), or -1 */
  size_t len;
  char hex[BS__SHA256_HEXLEN + 1];
} run_file;

typedef struct prepared {
  run_file *files; /* manifest first, then the logs */
  size_t nfiles;
  bs__buf sums; /* the SHA256SUMS text */
} prepared;

static void prepared_release(prepared *p) {
  for (size_t i = 0; i < p->nfiles; i++) {
    free(p->files[i].data);
    if (p->files[i].fd >= 0)
      close(p->files[i].fd);
  }
  free(p->files);
  bs__buf_release(&p->sums);
  memset(p, 0, sizeof *p);
}

/* An unnamed file (O_TMPFILE) on the file system of the archive `dir`
 * (in dir, or in its parent while dir does not exist yet), to be linked
 * into the run when it is stored: nothing is left behind if we are
 * killed. -1 where the system or file system has no such files. */
static int stage_open(const char *dir) {
#ifdef O_TMPFILE
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  if (fd >= 0 || errno != ENOENT)
    return fd;
  char *parent = strdup(dir);
  if (!parent)
    return -1;
  size_t n = strlen(parent);
  while (n > 1 && parent[n - 1] == '/') /* "a/b/" is "a/b" */
    parent[--n] = '\0';
  char *slash = strrchr(parent, '/');
  const char *at = parent;
  if (!slash)
    at = ".";
  else if (slash == parent)
    parent[1] = '\0';
  else
    *slash = '\0';
  fd = open(at, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644);
  free(parent);
  return fd;
#else
  (void)dir;
  return -1;
#endif
}

/* Logs staged at most: each holds a descriptor until the run is stored,
 * and a run may have BS_ARCHIVE_MAX_LOGS of them; later ones are read
 * into memory. */
#define STAGED_MAX 64

/* What the tee of a log's read does with each block: hashes it and, when
 * fd >= 0, writes it to the staged copy. */
typedef struct teeing {
  bs__sha256 sha;
  int fd;
  size_t len;
  const char *dir; /* for messages */
} teeing;

static bs_status tee_block(void *ctx, const char *data, size_t len,
                           bs_error *err) {
  teeing *t = ctx;
  bs__sha256_update(&t->sha, data, len);
  t->len += len;
  if (t->fd >= 0 && bs__write_all(t->fd, data, len))
    return bs_error_set(err, BS_EIO, t->dir, 0, "cannot write file: %s",
                        strerror(errno));
  return BS_OK;
}

/* Reads the log `path` into `log` as the run's file f: in one pass that
 * parses, hashes and (with dir and `stage`) copies it to a staged file,
 * so the log is never held whole in memory. Without dir it is only
 * hashed (bs_archive_identify). Where no file can be staged, it is read
 * into memory (f->data) and parsed from there. */
static bs_status read_run_log(bs_log *log, const char *dir, int stage,
                              const char *path, run_file *f, bs_error *err) {
  teeing t;
  t.fd = dir && stage ? stage_open(dir) : -1;
  if (dir && t.fd < 0) {
    bs_status st =
        bs__read_regular(path, 0, BS_ARCHIVE_MAX_FILE, &f->data, &f->len, err);
    if (!st)
      st = bs_log_read_buffer(log, path, f->data, f->len, err);
    if (!st)
      bs__sha256_hex(f->data, f->len, f->hex);
    return st;
  }
  bs__sha256_init(&t.sha);
  t.len = 0;
  t.dir = dir;
  f->fd = t.fd;
  bs_status st =
      bs__log_read_teed(log, path, BS_ARCHIVE_MAX_FILE, tee_block, &t, err);
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(&t.sha, d);
  bs__sha256_tohex(d, f->hex);
  f->len = t.len;
  return st;
}

static bs_status prepare(const char *dir, const char *manifest,
                         const char *const *logs, size_t nlogs, prepared *p,
                         bs_archive_add_result *res, bs_error *err) {
  bs_status st = BS_OK;
  bs_log *log = NULL;
  bs_manifest *mf = NULL;
  memset(p, 0, sizeof *p);
  bs__buf_init(&p->sums, BS__CAP_SUMS);
  res->id[0] = '\0';
  res->added = 0;
  res->refused = 0;
  if (nlogs == 0)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "no observation log given");
  if (nlogs > BS_ARCHIVE_MAX_LOGS)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "%zu logs given; a run holds at most %d", nlogs,
                        BS_ARCHIVE_MAX_LOGS);
  if (!manifest)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "an archived run needs its manifest");
  p->files = calloc(nlogs + 1, sizeof *p->files);
  log = bs_log_new();
  mf = bs_manifest_new();
  if (!p->files || !log || !mf) {
    st = bs__oom(err);
    goto fail;
  }
  for (size_t i = 0; i <= nlogs; i++)
    p->files[i].fd = -1;
  for (size_t i = 0; i <= nlogs; i++) {
    run_file *f = &p->files[i];
    const char *path = i == 0 ? manifest : logs[i - 1];
    if (i == 0)
      snprintf(f->name, sizeof f->name, "%s", MANIFEST_NAME);
    else
      snprintf(f->name, sizeof f->name, "log-%zu.csv", i);
    p->nfiles = i + 1;
    size_t rows = bs_log_count(log);
    if (i == 0) {
      if (!(st = bs__read_regular(path, 0, BS_ARCHIVE_MAX_FILE, &f->data,
                                  &f->len, err)) &&
          !(st = bs_manifest_read_buffer(mf, path, f->data, f->len, err)))
        bs__sha256_hex(f->data, f->len, f->hex);
    } else if (!(st = read_run_log(log, dir, i <= STAGED_MAX, path, f, err)) &&
               bs_log_count(log) == rows)
      st = bs_error_set(err, BS_EINPUT, path, 0,
                        "no observation rows (only a header); the run is "
                        "not archived");
    if (st)
      goto fail;
    if ((st = bs__buf_printf(&p->sums, "%s  %s\n", f->hex, f->name))) {
      st = bs__oom_as(err, st);
      goto fail;
    }
  }

  const char *commit = bs_manifest_get(mf, "commit");
  const char *date = bs_manifest_get(mf, "date");
  bs__utc_time t;
  if (!commit || !commit[0]) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key commit: missing or empty; an archived run needs "
                      "the commit it measured");
    goto fail;
  }
  if (!date) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: missing; an archived run needs the UTC time "
                      "it was measured, e.g. 2026-11-30T10:56:21Z");
    goto fail;
  }
  if (!bs__utc_parse(date, &t)) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" is not an ISO 8601 UTC time such as "
                      "2026-11-30T10:56:21Z",
                      date);
    goto fail;
  }
  if (!t.has_time) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" has no time of day; an archived run "
                      "needs the UTC time it was measured, e.g. "
                      "2026-11-30T10:56:21Z",
                      date);
    goto fail;
  }
  if (t.year < 1970) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" is before 1970; an archived run "
                      "needs the UTC time it was measured",
                      date);
    goto fail;
  }
  /* A run dated in the future would head the history (the site's newest
   * run) until the calendar caught up; a day's slack covers clocks and
   * time zones gone wrong by hours. */
  time_t now = time(NULL);
  if (now != (time_t)-1 && bs__utc_seconds(&t) > (long long)now + 86400) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" is more than a day in the future; "
                      "an archived run needs the UTC time it was measured",
                      date);
    goto fail;
  }

  /* The same validation as `benchsite check`, and verdicts that can be
   * computed: a run with findings would publish numbers the linter
   * distrusts. */
  if ((st = bs__check_admission(log, mf, manifest, &res->findings,
                                &res->nfindings, err)))
    goto fail;

  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1], h[BS__SHA256_HEXLEN + 1];
  bs__archive_id_date(&t, d);
  bs__archive_id_commit(commit, c);
  bs__sha256_hex(p->sums.data, p->sums.len, h);
  h[HASH_DIGITS] = '\0';
  snprintf(res->id, sizeof res->id, "%s-%s-%.12s", d, c, h);
  bs_manifest_free(mf);
  bs_log_free(log);
  return BS_OK;
fail:
  bs_manifest_free(mf);
  bs_log_free(log);
  prepared_release(p);
  res->id[0] = '\0';
  /* Never BS_OK from here: the caller would go on with the released p. */
  return st ? st : BS_EINTERNAL;
}

bs_status bs_archive_identify(const char *manifest, const char *const *logs,
                              size_t nlogs, bs_archive_add_result *res,
                              bs_error *err) {
  prepared p;
  bs_status st = prepare(NULL, manifest, logs, nlogs, &p, res, err);
  if (st == BS_OK)
    prepared_release(&p);
  res->refused = st != BS_OK;
  return st;
}

/* ---- Opening an archive for writing -------------------------------------- */

static int is_leftover(const char *name) {
  size_t n = strlen(name);
  return starts_with(name, TMP_PREFIX) ||
         (starts_with(name, FORMAT_NAME ".") && n > 11 &&
          !strcmp(name + n - 4, ".tmp")) ||
         (starts_with(name, ID_NAME ".") && n > 7 &&
          !strcmp(name + n - 4, ".tmp"));
}

/* Whether a directory without FORMAT may become an archive: it holds at
 * most an empty runs/, calibrations/, hidden entries and the leftovers of
 * an interrupted creation. */
static bs_status may_initialise(const char *dir, bs_error *err) {
  char **names;
  size_t n;
  bs_status st = bs__list_dir(dir, NULL, &names, &n, err);
  if (st)
    return st;
  for (size_t i = 0; i < n && st == BS_OK; i++) {
    const char *e = names[i];
    /* Hidden entries (.git, .gitignore, the .lock of earlier versions and
     * .tmp-*) are not content: an archive may live at the top of a git
     * checkout. */
    if (e[0] == '.' || is_leftover(e))
      continue;
    /* The runner's calibrations (benchsite calibrate) may come first. */
    if (!strcmp(e, "calibrations"))
      continue;
    if (!strcmp(e, RUNS_NAME)) {
      char *runs = bs__path_join(dir, RUNS_NAME);
      char **inner = NULL;
      size_t ninner = 0;
      if (!runs) {
        st = bs__oom(err);
        break;
      }
      st = bs__list_dir(runs, NULL, &inner, &ninner, err);
      free(runs);
      bs__strlist_free(inner, ninner);
      if (st == BS_OK && ninner == 0)
        continue;
      if (st)
        break;
    }
    st = bs_error_set(err, BS_EINPUT, dir, 0,
                      "exists and is not a benchsite archive (no %s file)",
                      FORMAT_NAME);
  }
  bs__strlist_free(names, n);
  return st;
}

/* Creates the file `name` of the archive (FORMAT, ID; under the lock)
 * complete or not at all: written and fsync'ed under a temporary name,
 * then linked into place (an existing one stays). */
static bs_status create_whole(const char *dir, const char *name,
                              const char *text, bs_error *err) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", name, (long)getpid());
  char *tpath = bs__path_join(dir, tmp);
  char *path = bs__path_join(dir, name);
  if (!tpath || !path) {
    free(tpath);
    free(path);
    return bs__oom(err);
  }
  unlink(tpath);
  bs_status st = BS_OK;
  if (write_new_file(tpath, text, strlen(text)) ||
      (link(tpath, path) != 0 && errno != EEXIST))
    st = bs_error_set(err, BS_EIO, path, 0, "cannot create: %s",
                      strerror(errno));
  free(path);
  unlink(tpath);
  free(tpath);
  if (st == BS_OK && fsync_dir(dir) != 0)
    st = bs_error_set(err, BS_EIO, dir, 0, "cannot sync directory: %s",
                      strerror(errno));
  return st;
}

static bs_status lock_fd(int fd, const char *path, bs_error *err) {
  int rc;
  do
    rc = flock(fd, LOCK_EX);
  while (rc != 0 && errno == EINTR);
  if (rc != 0)
    return bs_error_set(err, BS_EIO, path, 0, "cannot lock: %s",
                        strerror(errno));
  return BS_OK;
}

/* Locks the archive `dir` for writing, creating it (or making an empty
 * directory an archive) when needed, and removes what killed writers left.
 * Every change to an archive happens under this lock, so the lock holder
 * owns every temporary entry. The lock is flock(2) on the directory itself,
 * so the archive holds no lock file (an archive kept in git would commit
 * it). Returns the locked descriptor of DIR in *lockfd (closing it
 * unlocks). */
static bs_status open_for_writing(const char *dir, int *lockfd, bs_error *err) {
  bs_status st = BS_OK;
  char *format = bs__path_join(dir, FORMAT_NAME);
  char *runs = bs__path_join(dir, RUNS_NAME);
  char **names = NULL;
  size_t n = 0;
  int fd = -1, lfd = -1;
  *lockfd = -1;
  if (!format || !runs) {
    st = bs__oom(err);
    goto done;
  }
  struct stat sb;
  if (stat(dir, &sb) != 0) {
    if (errno != ENOENT || (mkdir(dir, 0755) != 0 && errno != EEXIST)) {
      st = bs_error_set(err, BS_EIO, dir, 0, "cannot create directory: %s",
                        strerror(errno));
      goto done;
    }
  } else if (!S_ISDIR(sb.st_mode)) {
    st = bs_error_set(err, BS_EINPUT, dir, 0, "not a directory");
    goto done;
  }
  /* Refuse a directory that is something else before locking it and
   * creating entries in it; checked again under the lock. Another add may make
   * the directory an archive while we look (a listing taken during changes can
   * miss its FORMAT and see its first run), so what we saw counts only if there
   * is still no FORMAT: FORMAT comes before any run and is never removed. */
  if (lstat(format, &sb) != 0) {
    bs_status seen = may_initialise(dir, err);
    if (seen != BS_OK && lstat(format, &sb) != 0) {
      st = seen;
      goto done;
    }
  }
  lfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lfd < 0) {
    st = bs_error_set(err, BS_EIO, dir, 0, "cannot open: %s", strerror(errno));
    goto done;
  }
  if ((st = lock_fd(lfd, dir, err)))
    goto done;

  if ((st = bs__list_dir(dir, NULL, &names, &n, err)))
    goto done;
  /* Temporary trees of killed writers: what cannot be removed stays (and
   * stays ignored). */
  for (size_t i = 0; i < n; i++) {
    if (is_leftover(names[i])) {
      char *p = bs__path_join(dir, names[i]);
      if (p)
        bs__remove_tree(p);
      free(p);
    }
  }
  bs_status fst = bs__open_regular(format, BS__OPEN_NOFOLLOW, &fd, err);
  if (fst && !(fst == BS_EIO && errno == ENOENT)) {
    st = fst;
    goto done;
  }
  if (fd < 0) {
    /* runs/ before FORMAT: an archive with FORMAT always has runs/. */
    if ((st = may_initialise(dir, err)))
      goto done;
    if ((mkdir(runs, 0755) != 0 && errno != EEXIST) || fsync_dir(dir) != 0) {
      st = bs_error_set(err, BS_EIO, runs, 0, "cannot create directory: %s",
                        strerror(errno));
      goto done;
    }
    if ((st = create_whole(dir, FORMAT_NAME, FORMAT_LINE, err)))
      goto done;
  } else {
    if ((st = bs__archive_check_format_fd(fd, format, err)))
      goto done;
    if (mkdir(runs, 0755) != 0 && errno != EEXIST) {
      st = bs_error_set(err, BS_EIO, runs, 0, "cannot create directory: %s",
                        strerror(errno));
      goto done;
    }
  }
  *lockfd = lfd;
  lfd = -1;
done:
  bs__strlist_free(names, n);
  if (fd >= 0)
    close(fd);
  if (lfd >= 0)
    close(lfd);
  free(format);
  free(runs);
  return st;
}

/* ---- Adding -------------------------------------------------------------- */

/* The run already stored under the id: the same (no-op), different
 * (refused) or damaged. */
static bs_status compare_existing(const char *rundir, const prepared *p,
                                  bs_error *err) {
  bs_status st = BS_OK;
  char *path = NULL, *data = NULL;
  size_t len = 0;
  char **names = NULL;
  size_t n = 0;
  bs_error ignore;
  if (!(path = bs__path_join(rundir, SUMS_NAME))) {
    st = bs__oom(err);
    goto done;
  }
  if (bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_MAX_FILE, &data,
                       &len, &ignore) == BS_OK &&
      (len != p->sums.len || memcmp(data, p->sums.data, len) != 0)) {
    st = bs_error_set(err, BS_EINPUT, rundir, 0,
                      "already holds a different run under this id; "
                      "archived runs never change");
    goto done;
  }
  int damaged = data == NULL;
  free(data);
  data = NULL;
  for (size_t i = 0; i < p->nfiles && !damaged; i++) {
    free(path);
    if (!(path = bs__path_join(rundir, p->files[i].name))) {
      st = bs__oom(err);
      goto done;
    }
    const run_file *f = &p->files[i];
    char hex[BS__SHA256_HEXLEN + 1];
    int missing;
    if (!f->data) /* staged: the same length and hash */
      damaged = bs__archive_hash_file(path, hex, &missing, NULL, &len) ||
                len != f->len || strcmp(hex, f->hex) != 0;
    else if (bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_MAX_FILE,
                              &data, &len, &ignore) ||
             len != f->len || memcmp(data, f->data, len) != 0)
      damaged = 1;
    free(data);
    data = NULL;
  }
  if (!damaged && bs__list_dir(rundir, NULL, &names, &n, &ignore) == BS_OK &&
      n != p->nfiles + 1)
    damaged = 1;
  if (damaged)
    st = bs_error_set(err, BS_EIO, rundir, 0,
                      "this archived run is damaged (its files no longer "
                      "match its SHA256SUMS); run 'benchsite archive verify'");
done:
  bs__strlist_free(names, n);
  free(path);
  free(data);
  return st;
}

static bs_status store(const char *dir, const prepared *p, const char *id,
                       bs_error *err) {
  bs_status st = BS_OK;
  char tmpname[BS_ARCHIVE_ID_MAX + 32];
  snprintf(tmpname, sizeof tmpname, "%s%ld-%s", TMP_PREFIX, (long)getpid(), id);
  char *tmp = bs__path_join(dir, tmpname);
  char *runs = bs__path_join(dir, RUNS_NAME);
  char *final = runs ? bs__path_join(runs, id) : NULL;
  char *path = NULL;
  int made = 0;
  if (!tmp || !runs || !final) {
    st = bs__oom(err);
    goto done;
  }
  if (mkdir(tmp, 0755) != 0) {
    st = bs_error_set(err, BS_EIO, tmp, 0, "cannot create directory: %s",
                      strerror(errno));
    goto done;
  }
  made = 1;
  for (size_t i = 0; i <= p->nfiles; i++) {
    const char *name = i < p->nfiles ? p->files[i].name : SUMS_NAME;
    const char *data = i < p->nfiles ? p->files[i].data : p->sums.data;
    size_t len = i < p->nfiles ? p->files[i].len : p->sums.len;
    int fd = i < p->nfiles ? p->files[i].fd : -1;
    free(path);
    if (!(path = bs__path_join(tmp, name))) {
      st = bs__oom(err);
      goto done;
    }
    if (fd >= 0 ? link_staged(fd, path)
                : write_new_file(path, data ? data : "", len)) {
      st = bs_error_set(err, BS_EIO, path, 0, "cannot write file: %s",
                        strerror(errno));
      goto done;
    }
  }
  if (fsync_dir(tmp) != 0) {
    st = bs_error_set(err, BS_EIO, tmp, 0, "cannot sync directory: %s",
                      strerror(errno));
    goto done;
  }
  /* The commit point: the run appears whole, or (killed before) not. */
  if (rename(tmp, final) != 0) {
    st = bs_error_set(err, BS_EIO, final, 0, "cannot rename into place: %s",
                      strerror(errno));
    goto done;
  }
  made = 0;
  if (fsync_dir(runs) != 0 || fsync_dir(dir) != 0) {
    st = bs_error_set(err, BS_EIO, runs, 0, "cannot sync directory: %s",
                      strerror(errno));
    goto done;
  }
done:
  if (made)
    bs__remove_tree(tmp);
  free(path);
  free(tmp);
  free(final);
  free(runs);
  return st;
}

/* Fixes the archive's identity (ID, bs_archive_identity) when it has
 * none, before the run `id` is stored: the id of its oldest run (what the
 * feed was named by until now), or `id` when it has no run yet. A run
 * dated earlier, added later, then changes nothing. An archive whose runs
 * cannot be read, or whose ID is damaged, is left as it is (the site
 * refuses it; verify names the damage). Under the lock. */
static bs_status pin_identity(const char *dir, const char *id, bs_error *err) {
  char have[BS_ARCHIVE_ID_MAX];
  bs_error e;
  bs_status st = bs__archive_read_identity(dir, have, &e);
  if (st == BS_ENOMEM)
    return bs__oom(err);
  if (st || have[0])
    return BS_OK;
  bs_archive *a = NULL;
  if ((st = bs_archive_open(dir, &a, &e)) == BS_ENOMEM)
    return bs__oom(err);
  if (st)
    return BS_OK;
  char line[BS_ARCHIVE_ID_MAX + 1];
  snprintf(line, sizeof line, "%s\n",
           bs_archive_count(a) ? bs_archive_run_at(a, 0)->id : id);
  bs_archive_free(a);
  return create_whole(dir, ID_NAME, line, err);
}

bs_status bs_archive_add(const char *dir, const char *manifest,
                         const char *const *logs, size_t nlogs,
                         bs_archive_add_result *res, bs_error *err) {
  prepared p;
  int lockfd = -1;
  char *runs = NULL, *rundir = NULL;
  bs_status st = prepare(dir, manifest, logs, nlogs, &p, res, err);
  if (st) {
    res->refused = 1;
    return st;
  }
  if ((st = open_for_writing(dir, &lockfd, err)))
    goto done;
  if (!(runs = bs__path_join(dir, RUNS_NAME)) ||
      !(rundir = bs__path_join(runs, res->id))) {
    st = bs__oom(err);
    goto done;
  }
  struct stat sb;
  if (lstat(rundir, &sb) == 0) {
    st = compare_existing(rundir, &p, err);
    res->refused = st == BS_EINPUT;
    goto done;
  }
  if ((st = pin_identity(dir, res->id, err)) ||
      (st = store(dir, &p, res->id, err)))
    goto done;
  res->added = 1;
done:
  if (lockfd >= 0)
    close(lockfd);
  free(rundir);
  free(runs);
  prepared_release(&p);
  return st;
}
