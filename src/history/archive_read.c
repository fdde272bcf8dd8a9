/* Reading and verifying an archive: its runs' SHA256SUMS, bs_archive_verify,
 * bs_archive_open and the runs it lists; run ids and the FORMAT check,
 * which adding (archive.c) shares. */
#include "benchsite/archive.h"
#include "benchsite/date.h"

#include "benchsite/log.h"
#include "benchsite/manifest.h"

#include "archive_int.h"
#include "archived.h"
#include "buf.h"
#include "csvin.h"
#include "date_int.h"
#include "fsutil.h"
#include "grow.h"
#include "oom.h"
#include "sha256.h"
#include "strlist.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

static int starts_with(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* ---- Ids ------------------------------------------------------------------
 */

void bs__archive_id_date(const bs__utc_time *t, char out[DATE_CHARS + 1]) {
  /* Every field was read as that many digits; the remainders only tell
   * the compiler so (it warned of truncation at -O2). */
  snprintf(out, DATE_CHARS + 1, "%04u%02u%02uT%02u%02u%02uZ",
           (unsigned)t->year % 10000u, (unsigned)t->month % 100u,
           (unsigned)t->day % 100u, (unsigned)t->hour % 100u,
           (unsigned)t->minute % 100u, (unsigned)t->second % 100u);
}

void bs__archive_id_commit(const char *commit, char out[COMMIT_CHARS + 1]) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)commit;
       *p && n < COMMIT_CHARS; p++) {
    if (is_alnum(*p))
      out[n++] = (char)*p;
  }
  out[n] = '\0';
  if (n == 0)
    memcpy(out, "none", 5);
}

int bs__archive_id_parse(const char *id, char date[DATE_CHARS + 1],
                         char commit[COMMIT_CHARS + 1],
                         char hash[HASH_DIGITS + 1]) {
  size_t n = strlen(id);
  if (n < DATE_CHARS + 1 + 1 + 1 + HASH_DIGITS ||
      n > DATE_CHARS + 1 + COMMIT_CHARS + 1 + HASH_DIGITS)
    return 0;
  for (size_t i = 0; i < DATE_CHARS; i++) {
    int c = (unsigned char)id[i];
    if (i == 8 ? c != 'T' : i == 15 ? c != 'Z' : !is_digit(c))
      return 0;
  }
  if (id[DATE_CHARS] != '-' || id[n - HASH_DIGITS - 1] != '-')
    return 0;
  size_t clen = n - DATE_CHARS - 2 - HASH_DIGITS;
  for (size_t i = 0; i < clen; i++) {
    if (!is_alnum((unsigned char)id[DATE_CHARS + 1 + i]))
      return 0;
  }
  for (size_t i = n - HASH_DIGITS; i < n; i++) {
    if (!is_hex((unsigned char)id[i]))
      return 0;
  }
  memcpy(date, id, DATE_CHARS);
  date[DATE_CHARS] = '\0';
  memcpy(commit, id + DATE_CHARS + 1, clen);
  commit[clen] = '\0';
  memcpy(hash, id + n - HASH_DIGITS, HASH_DIGITS);
  hash[HASH_DIGITS] = '\0';
  return 1;
}

bs_status bs__archive_check_format_fd(int fd, const char *format,
                                      bs_error *err) {
  char buf[64];
  ssize_t r;
  do
    r = pread(fd, buf, sizeof buf, 0);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return bs_error_set(err, BS_EIO, format, 0, "cannot read: %s",
                        strerror(errno));
  if ((size_t)r != strlen(FORMAT_LINE) ||
      memcmp(buf, FORMAT_LINE, (size_t)r) != 0)
    return bs_error_set(err, BS_EINPUT, format, 0,
                        "not a benchsite archive of a known format (expected "
                        "\"benchsite.archive/1\")");
  return BS_OK;
}

/* ---- The identity -------------------------------------------------------- */

bs_status bs__archive_read_identity(const char *dir, char *id, bs_error *err) {
  id[0] = '\0';
  char *path = bs__path_join(dir, ID_NAME);
  if (!path)
    return bs__oom(err);
  char *data = NULL;
  size_t len = 0;
  bs_error e;
  bs_error_clear(&e);
  bs_status st = bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_ID_MAX,
                                  &data, &len, &e);
  const char *why = "not one run id on one line";
  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1], h[HASH_DIGITS + 1];
  if (st == BS_EIO && errno == ENOENT) {
    st = BS_OK; /* an archive made before ID, or an empty one */
  } else if (st == BS_ENOMEM) {
    st = bs__oom(err);
  } else if (st == BS_EIO) {
    st = bs_error_set(err, BS_EIO, path, 0, "%s", e.message);
  } else if (st == BS_EINPUT) { /* a link, a FIFO, ... */
    why = e.message;
  } else if (!st && len > 1 && len < BS_ARCHIVE_ID_MAX &&
             data[len - 1] == '\n' && !memchr(data, '\0', len)) {
    data[len - 1] = '\0';
    if (bs__archive_id_parse(data, d, c, h))
      memcpy(id, data, len);
    else
      st = BS_EINPUT;
  } else {
    st = BS_EINPUT; /* too long, empty, no newline */
  }
  if (st == BS_EINPUT)
    st = bs_error_set(err, BS_EINPUT, path, 0,
                      "the archive's identity is damaged (%s)", why);
  free(data);
  free(path);
  return st;
}

/* ---- Reading SHA256SUMS -------------------------------------------------- */

typedef struct sums_entry {
  char hex[BS__SHA256_HEXLEN + 1];
  char name[32];
} sums_entry;

/* Parses the SHA256SUMS this module writes: manifest.csv, then log-1.csv
 * ... log-N.csv, each "<64 hex>  <name>\n". Returns 0 and the 1-based bad
 * line in *badline when malformed. */
static int parse_sums(const char *text, size_t len, sums_entry **out, size_t *n,
                      long *badline) {
  *out = NULL;
  *n = 0;
  *badline = 0;
  size_t cap = 0;
  const char *p = text, *end = text + len;
  long line = 0;
  while (p < end) {
    line++;
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      goto bad;
    size_t ll = (size_t)(nl - p);
    if (ll < BS__SHA256_HEXLEN + 3 || p[64] != ' ' || p[65] != ' ')
      goto bad;
    for (size_t i = 0; i < BS__SHA256_HEXLEN; i++) {
      if (!is_hex((unsigned char)p[i]))
        goto bad;
    }
    char want[32];
    if (*n == 0)
      snprintf(want, sizeof want, "%s", MANIFEST_NAME);
    else
      snprintf(want, sizeof want, "log-%zu.csv", *n);
    if (ll - 66 != strlen(want) || memcmp(p + 66, want, ll - 66) != 0)
      goto bad;
    if (*n == cap) {
      sums_entry *g = BS__GROW(*out, cap, *n + 1, 8);
      if (!g)
        goto nomem;
      *out = g;
    }
    memcpy((*out)[*n].hex, p, BS__SHA256_HEXLEN);
    (*out)[*n].hex[BS__SHA256_HEXLEN] = '\0';
    snprintf((*out)[*n].name, sizeof(*out)[*n].name, "%s", want);
    (*n)++;
    p = nl + 1;
    if (*n > BS_ARCHIVE_MAX_LOGS + 1)
      goto bad;
  }
  if (*n < 2) {
    line++;
    goto bad;
  }
  return 1;
bad:
  *badline = line;
nomem:
  free(*out);
  *out = NULL;
  *n = 0;
  return 0;
}

/* ---- Verifying ----------------------------------------------------------- */

/* Checks that `dir` is an archive (FORMAT holds the format line). */
static bs_status require_archive(const char *dir, bs_error *err) {
  char *format = bs__path_join(dir, FORMAT_NAME);
  if (!format)
    return bs__oom(err);
  bs_status st = BS_OK;
  int fd;
  bs_error e;
  if ((st = bs__open_regular(format, BS__OPEN_NOFOLLOW, &fd, &e)) ==
      BS_EINPUT) {
    st = bs_error_set(err, BS_EINPUT, format, 0, "not a benchsite archive (%s)",
                      e.message);
  } else if (st) {
    struct stat sb;
    if (stat(dir, &sb) != 0)
      st = bs_error_set(err, BS_EINPUT, dir, 0, "no such archive: %s",
                        strerror(errno));
    else
      st = bs_error_set(err, BS_EINPUT, dir, 0,
                        "not a benchsite archive (no %s file)", FORMAT_NAME);
  } else {
    st = bs__archive_check_format_fd(fd, format, err);
    close(fd);
  }
  free(format);
  return st;
}

typedef struct verifier {
  bs_archive_verify_result *res;
  int damaged; /* the current run has a problem */
  bs_status st;
  /* When keep: the bytes of each file listed in SHA256SUMS, in its order
   * (manifest, log-1.csv, ...), as hashed; NULL where unread. */
  int keep;
  char **data;
  size_t *lens, ndata;
} verifier;

static void problem(verifier *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void problem(verifier *v, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  v->damaged = 1;
  if (v->st == BS_OK &&
      bs__strlist_addf(&v->res->problems, &v->res->nproblems, "%s", msg))
    v->st = BS_ENOMEM;
}

/* Checks the manifest's date and commit against the id's parts. */
static void verify_manifest(verifier *v, const char *id, const char *path,
                            const char *date_part, const char *commit_part) {
  bs_manifest *m = bs_manifest_new();
  bs_error e;
  char eid[BS__PATH_BUF];
  bs__csvin_path(eid, id); /* a directory name: any bytes but '/' */
  if (!m) {
    v->st = BS_ENOMEM;
    return;
  }
  if (bs__manifest_read_archived(m, path, &e)) {
    problem(v, "runs/%s/%s: not a readable manifest: %s", eid, MANIFEST_NAME,
            e.message);
    bs_manifest_free(m);
    return;
  }
  const char *date = bs_manifest_get(m, "date");
  const char *commit = bs_manifest_get(m, "commit");
  bs__utc_time t;
  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1];
  if (!date || !bs__utc_parse(date, &t)) {
    problem(v, "runs/%s/%s: no valid date", eid, MANIFEST_NAME);
  } else {
    bs__archive_id_date(&t, d);
    if (strcmp(d, date_part))
      problem(v,
              "runs/%s: the id's date does not match the manifest's date "
              "\"%s\"",
              eid, date);
  }
  if (!commit || !commit[0]) {
    problem(v, "runs/%s/%s: no commit", eid, MANIFEST_NAME);
  } else {
    bs__archive_id_commit(commit, c);
    if (strcmp(c, commit_part))
      problem(v,
              "runs/%s: the id's commit does not match the manifest's "
              "commit",
              eid);
  }
  bs_manifest_free(m);
}

static void verify_run(verifier *v, const char *runs, const char *id) {
  char date[DATE_CHARS + 1], commit[COMMIT_CHARS + 1], hash[HASH_DIGITS + 1];
  char *rundir = bs__path_join(runs, id), *path = NULL, *text = NULL;
  char **names = NULL;
  size_t nnames = 0, len = 0, nentries = 0;
  sums_entry *entries = NULL;
  bs_error e;
  struct stat sb;
  char eid[BS__PATH_BUF], ename[BS__PATH_BUF];
  bs__csvin_path(eid, id); /* a directory name: any bytes but '/' */
  v->damaged = 0;
  if (!rundir) {
    v->st = BS_ENOMEM;
    return;
  }
  if (lstat(rundir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    problem(v, "runs/%s: not a run directory", eid);
    goto done;
  }
  if (!bs__archive_id_parse(id, date, commit, hash)) {
    problem(v, "runs/%s: not a well-formed run id", eid);
    goto done;
  }
  if (!(path = bs__path_join(rundir, SUMS_NAME))) {
    v->st = BS_ENOMEM;
    goto done;
  }
  if (bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_MAX_FILE, &text,
                       &len, &e)) {
    problem(v, "runs/%s/%s: %s", eid, SUMS_NAME,
            e.status == BS_EIO ? "missing or unreadable" : e.message);
    goto done;
  }
  long badline;
  if (!parse_sums(text, len, &entries, &nentries, &badline)) {
    if (badline)
      problem(v, "runs/%s/%s:%ld: malformed line", eid, SUMS_NAME, badline);
    else
      v->st = BS_ENOMEM;
    goto done;
  }
  char h[BS__SHA256_HEXLEN + 1];
  bs__sha256_hex(text, len, h);
  if (strncmp(h, hash, HASH_DIGITS))
    problem(v, "runs/%s: the id's hash %s does not match %s (%.12s)", eid, hash,
            SUMS_NAME, h);
  for (size_t i = 0; i < nentries; i++) {
    free(path);
    if (!(path = bs__path_join(rundir, entries[i].name))) {
      v->st = BS_ENOMEM;
      goto done;
    }
    int missing;
    if (v->keep && i == 0) {
      v->data = calloc(nentries, sizeof *v->data);
      v->lens = calloc(nentries, sizeof *v->lens);
      if (!v->data || !v->lens) {
        v->st = BS_ENOMEM;
        goto done;
      }
      v->ndata = nentries;
    }
    if (bs__archive_hash_file(path, h, &missing, v->keep ? &v->data[i] : NULL,
                              v->keep ? &v->lens[i] : NULL))
      problem(v, "runs/%s/%s: %s", eid, entries[i].name,
              missing ? "missing" : "unreadable or not a regular file");
    else if (strcmp(h, entries[i].hex))
      problem(v,
              "runs/%s/%s: checksum mismatch (SHA256SUMS has %.12s..., the "
              "file %.12s...)",
              eid, entries[i].name, entries[i].hex, h);
  }
  if (bs__list_dir(rundir, NULL, &names, &nnames, &e)) {
    problem(v, "runs/%s: cannot list: %s", eid, e.message);
    goto done;
  }
  for (size_t i = 0; i < nnames; i++) {
    int listed = !strcmp(names[i], SUMS_NAME);
    for (size_t j = 0; j < nentries && !listed; j++)
      listed = !strcmp(names[i], entries[j].name);
    if (!listed)
      problem(v, "runs/%s/%s: not listed in %s", eid,
              bs__csvin_path(ename, names[i]), SUMS_NAME);
  }
  free(path);
  if (!(path = bs__path_join(rundir, MANIFEST_NAME))) {
    v->st = BS_ENOMEM;
    goto done;
  }
  verify_manifest(v, id, path, date, commit);
done:
  if (v->damaged)
    v->res->damaged++;
  bs__strlist_free(names, nnames);
  free(entries);
  free(text);
  free(path);
  free(rundir);
}

/* runs/ must be the archive's own directory, never a link elsewhere. */
static bs_status runs_is_dir(const char *runs, bs_error *err) {
  struct stat sb;
  if (lstat(runs, &sb) == 0 && !S_ISDIR(sb.st_mode))
    return bs_error_set(err, BS_EINPUT, runs, 0,
                        "not a directory (a link or a file): the archive is "
                        "damaged");
  return BS_OK;
}

/* acks.csv as the site reads it: any error but memory is damage. */
static bs_status verify_acks(const char *dir, bs_archive_verify_result *res,
                             bs_error *err) {
  bs_acks *acks = NULL;
  bs_error e;
  bs_error_clear(&e);
  bs_status st = bs_acks_read(dir, &acks, &e);
  bs_acks_free(acks);
  if (st == BS_ENOMEM)
    return bs_error_set(err, st, dir, 0, BS__OOM_TEXT);
  if (st == BS_OK)
    return BS_OK;
  res->acks_damaged = 1;
  bs_status bad =
      e.line > 0 ? bs__strlist_addf(&res->problems, &res->nproblems,
                                    ACKS_NAME ":%ld: %s", e.line, e.message)
                 : bs__strlist_addf(&res->problems, &res->nproblems,
                                    ACKS_NAME ": %s", e.message);
  return bad ? bs_error_set(err, BS_ENOMEM, dir, 0, BS__OOM_TEXT) : BS_OK;
}

/* ID as bs_archive_open reads it: damage when it is not one run id. */
static bs_status verify_identity(const char *dir, bs_archive_verify_result *res,
                                 bs_error *err) {
  char id[BS_ARCHIVE_ID_MAX];
  bs_error e;
  bs_error_clear(&e);
  bs_status st = bs__archive_read_identity(dir, id, &e);
  if (st == BS_ENOMEM)
    return bs_error_set(err, st, dir, 0, BS__OOM_TEXT);
  if (st == BS_OK)
    return BS_OK;
  res->id_damaged = 1;
  return bs__strlist_addf(&res->problems, &res->nproblems, ID_NAME ": %s",
                          e.message)
             ? bs_error_set(err, BS_ENOMEM, dir, 0, BS__OOM_TEXT)
             : BS_OK;
}

bs_status bs_archive_verify(const char *dir, bs_archive_verify_result *res,
                            bs_error *err) {
  bs_status st;
  char **top = NULL, **ids = NULL;
  size_t ntop = 0, nids = 0;
  char *runs = NULL;
  if ((st = require_archive(dir, err)))
    return st;
  if (!(runs = bs__path_join(dir, RUNS_NAME)))
    return bs__oom(err);
  if ((st = bs__list_dir(dir, NULL, &top, &ntop, err)))
    goto done;
  for (size_t i = 0; i < ntop; i++) {
    if (starts_with(top[i], TMP_PREFIX))
      res->stale++;
  }
  struct stat sb;
  if (lstat(runs, &sb) != 0 && errno == ENOENT)
    goto done; /* no run was ever added */
  if ((st = runs_is_dir(runs, err)) ||
      (st = bs__list_dir(runs, NULL, &ids, &nids, err)))
    goto done;
  verifier v = {res, 0, BS_OK, 0, NULL, NULL, 0};
  for (size_t i = 0; i < nids && v.st == BS_OK; i++) {
    if (ids[i][0] == '.')
      continue; /* hidden entries are not runs (readers skip them too) */
    res->runs++;
    verify_run(&v, runs, ids[i]);
  }
  if (v.st) {
    st = bs_error_set(err, v.st, dir, 0, BS__OOM_TEXT);
    goto done;
  }
  if (!(st = verify_acks(dir, res, err)))
    st = verify_identity(dir, res, err);
  if (!st)
    st = bs__archive_verify_calibrations(dir, res, err);
done:
  bs__strlist_free(top, ntop);
  bs__strlist_free(ids, nids);
  free(runs);
  return st;
}

bs_status bs_archive_verify_run(const char *dir, const char *id,
                                bs_archive_verify_result *res, bs_error *err) {
  bs_status st;
  if ((st = require_archive(dir, err)))
    return st;
  char *runs = bs__path_join(dir, RUNS_NAME);
  if (!runs)
    return bs__oom(err);
  verifier v = {res, 0, BS_OK, 0, NULL, NULL, 0};
  res->runs++;
  verify_run(&v, runs, id);
  free(runs);
  if (v.st)
    return bs_error_set(err, v.st, dir, 0, BS__OOM_TEXT);
  return BS_OK;
}

bs_status bs_archive_read_run(const char *dir, const char *id, bs_log *log,
                              bs_archive_verify_result *res, bs_error *err) {
  bs_status st;
  if ((st = require_archive(dir, err)))
    return st;
  char *runs = bs__path_join(dir, RUNS_NAME);
  char *rundir = runs ? bs__path_join(runs, id) : NULL;
  if (!rundir) {
    free(runs);
    return bs__oom(err);
  }
  verifier v = {res, 0, BS_OK, 1, NULL, NULL, 0};
  res->runs++;
  verify_run(&v, runs, id);
  if (v.st)
    st = bs_error_set(err, v.st, dir, 0, BS__OOM_TEXT);
  /* Entry 0 is the manifest; 1.. are the logs, in order. */
  for (size_t i = 1; !st && !v.damaged && i < v.ndata; i++) {
    char name[32];
    snprintf(name, sizeof name, "log-%zu.csv", i);
    char *path = bs__path_join(rundir, name);
    if (!path)
      st = bs__oom(err);
    else
      st = bs_log_read_buffer(log, path, v.data[i] ? v.data[i] : "", v.lens[i],
                              err);
    free(path);
  }
  for (size_t i = 0; i < v.ndata; i++)
    free(v.data[i]);
  free(v.data);
  free(v.lens);
  free(rundir);
  free(runs);
  return st;
}

/* ---- Reading ------------------------------------------------------------- */

typedef struct run_rec {
  bs_archive_run pub;
  char *id, *dir, *manifest, *commit, *date;
  char **logs;
  size_t nlogs;
  bs_manifest *mf; /* as read when opening */
} run_rec;

struct bs_archive {
  char *dir;
  run_rec *runs; /* history order */
  size_t nruns;
  char identity[BS_ARCHIVE_ID_MAX]; /* DIR/ID, "" when none */
};

static void run_rec_release(run_rec *r) {
  free(r->id);
  free(r->dir);
  free(r->manifest);
  free(r->commit);
  free(r->date);
  bs__strlist_free(r->logs, r->nlogs);
  bs_manifest_free(r->mf);
}

void bs_archive_free(bs_archive *a) {
  if (!a)
    return;
  for (size_t i = 0; i < a->nruns; i++)
    run_rec_release(&a->runs[i]);
  free(a->runs);
  free(a->dir);
  free(a);
}

static int cmp_run(const void *pa, const void *pb) {
  const run_rec *a = pa, *b = pb;
  int c = bs_date_cmp(a->date, b->date);
  return c ? c : strcmp(a->id, b->id);
}

static bs_status malformed(const char *dir, const char *id, const char *what,
                           bs_error *err) {
  char eid[BS__PATH_BUF], edir[BS__PATH_BUF];
  id = bs__csvin_path(eid, id);
  bs__csvin_path(edir, dir);
  return bs_error_set(err, BS_EINPUT, edir, 0,
                      "run %s: %s; run 'benchsite archive verify --archive "
                      "%s'",
                      id, what, edir);
}

static bs_status load_run(const char *dir, const char *runs, const char *id,
                          run_rec *r, bs_error *err) {
  bs_status st = BS_OK;
  char *path = NULL, *text = NULL;
  size_t len = 0, n = 0;
  sums_entry *entries = NULL;
  bs_manifest *m = NULL;
  bs_error e;
  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1], h[HASH_DIGITS + 1];
  memset(r, 0, sizeof *r);
  if (!bs__archive_id_parse(id, d, c, h))
    return malformed(dir, id, "not a well-formed run id", err);
  {
    /* A run is a directory of the archive, never a link to one elsewhere
     * (its files would be read from outside the archive). */
    char *rd = bs__path_join(runs, id);
    struct stat sb;
    int isdir = rd && lstat(rd, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(rd);
    if (!isdir)
      return malformed(dir, id, "not a run directory (a link or a file)", err);
  }
  if (!(r->id = bs__strdup(id)) || !(r->dir = bs__path_join(runs, id)) ||
      !(r->manifest = bs__path_join(r->dir, MANIFEST_NAME)) ||
      !(path = bs__path_join(r->dir, SUMS_NAME)))
    goto nomem;
  if (bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_MAX_FILE, &text,
                       &len, &e)) {
    st =
        malformed(dir, id,
                  e.status == BS_EINPUT ? "SHA256SUMS is not a regular file"
                                        : "SHA256SUMS is missing or unreadable",
                  err);
    goto done;
  }
  long badline;
  if (!parse_sums(text, len, &entries, &n, &badline)) {
    if (!badline)
      goto nomem;
    st = malformed(dir, id, "SHA256SUMS is malformed", err);
    goto done;
  }
  for (size_t i = 1; i < n; i++) {
    char *p = bs__path_join(r->dir, entries[i].name);
    if (!p || bs__strlist_addf(&r->logs, &r->nlogs, "%s", p)) {
      free(p);
      goto nomem;
    }
    free(p);
  }
  if (!(m = bs_manifest_new()))
    goto nomem;
  if (bs__manifest_read_archived(m, r->manifest, &e)) {
    st = malformed(dir, id, "the manifest is unreadable", err);
    goto done;
  }
  const char *date = bs_manifest_get(m, "date");
  const char *commit = bs_manifest_get(m, "commit");
  bs__utc_time t;
  if (!date || !bs__utc_parse(date, &t) || !commit) {
    st = malformed(dir, id, "the manifest has no valid date or commit", err);
    goto done;
  }
  char norm[BS_DATE_MAX];
  bs_date_normalise(date, norm, sizeof norm); /* parsed above */
  if (!(r->date = bs__strdup(norm)) || !(r->commit = bs__strdup(commit)))
    goto nomem;
  r->pub.id = r->id;
  r->pub.dir = r->dir;
  r->pub.manifest = r->manifest;
  r->pub.logs = (const char *const *)r->logs;
  r->pub.nlogs = r->nlogs;
  r->pub.commit = r->commit;
  r->pub.date = r->date;
  r->mf = m; /* the site reads it again otherwise */
  m = NULL;
  goto done;
nomem:
  st = bs__oom(err);
done:
  if (st)
    run_rec_release(r);
  bs_manifest_free(m);
  free(entries);
  free(text);
  free(path);
  return st;
}

bs_status bs_archive_open(const char *dir, bs_archive **out, bs_error *err) {
  bs_status st;
  char *runs = NULL;
  char **ids = NULL;
  size_t nids = 0;
  *out = NULL;
  if ((st = require_archive(dir, err)))
    return st;
  bs_archive *a = calloc(1, sizeof *a);
  if (!a || !(a->dir = bs__strdup(dir)) ||
      !(runs = bs__path_join(dir, RUNS_NAME))) {
    st = bs__oom(err);
    goto fail;
  }
  if ((st = bs__archive_read_identity(dir, a->identity, err)))
    goto fail;
  struct stat sb;
  if (lstat(runs, &sb) != 0 && errno == ENOENT) {
    free(runs);
    *out = a;
    return BS_OK;
  }
  if ((st = runs_is_dir(runs, err)) ||
      (st = bs__list_dir(runs, NULL, &ids, &nids, err)))
    goto fail;
  if (nids && !(a->runs = calloc(nids, sizeof *a->runs))) {
    st = bs__oom(err);
    goto fail;
  }
  for (size_t i = 0; i < nids; i++) {
    if (ids[i][0] == '.')
      continue;
    if ((st = load_run(dir, runs, ids[i], &a->runs[a->nruns], err)))
      goto fail;
    a->nruns++;
  }
  if (a->nruns)
    qsort(a->runs, a->nruns, sizeof *a->runs, cmp_run);
  /* qsort moved the records: their public views point into themselves
   * only through owned strings, so nothing to fix up. */
  bs__strlist_free(ids, nids);
  free(runs);
  *out = a;
  return BS_OK;
fail:
  bs__strlist_free(ids, nids);
  free(runs);
  bs_archive_free(a);
  return st;
}

const char *bs_archive_dir(const bs_archive *a) { return a->dir; }

const char *bs_archive_identity(const bs_archive *a) {
  if (a->identity[0])
    return a->identity;
  return a->nruns ? a->runs[0].id : NULL;
}

size_t bs_archive_count(const bs_archive *a) { return a->nruns; }

const bs_archive_run *bs_archive_run_at(const bs_archive *a, size_t i) {
  return i < a->nruns ? &a->runs[i].pub : NULL;
}

const bs_manifest *bs__archive_manifest(const bs_archive *a, size_t i) {
  return i < a->nruns ? a->runs[i].mf : NULL;
}

const bs_archive_run *bs_archive_find(const bs_archive *a, const char *id) {
  for (size_t i = 0; i < a->nruns; i++) {
    if (!strcmp(a->runs[i].id, id))
      return &a->runs[i].pub;
  }
  return NULL;
}
