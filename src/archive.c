#include "benchsite/archive.h"

#include "benchsite/check.h"
#include "benchsite/compare.h"
#include "benchsite/log.h"
#include "benchsite/manifest.h"
#include "benchsite/output.h"

#include "archived.h"
#include "buf.h"
#include "csvin.h"
#include "fsutil.h"
#include "grow.h"
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FORMAT_NAME "FORMAT"
#define FORMAT_LINE "benchsite.archive/1\n"
#define RUNS_NAME "runs"
#define SUMS_NAME "SHA256SUMS"
#define MANIFEST_NAME "manifest.csv"
#define TMP_PREFIX ".tmp-"
#define LOCK_NAME ".lock"
#define ACKS_NAME "acks.csv"
#define HASH_DIGITS 12
#define COMMIT_CHARS 12
#define DATE_CHARS 16 /* YYYYMMDDTHHMMSSZ */

/* ---- Small helpers ------------------------------------------------------- */

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alnum(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

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

/* ---- Dates --------------------------------------------------------------- */

typedef struct utc_time {
  int year, month, day, hour, minute, second;
  char frac[32]; /* fraction digits, trailing zeros removed ("" for none) */
} utc_time;

static int read_digits(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!is_digit((unsigned char)(*p)[i]))
      return 0;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  *out = v;
  return 1;
}

static int days_in_month(int y, int m) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
    return 29;
  return days[m - 1];
}

/* YYYY-MM-DD, or YYYY-MM-DDTHH:MM:SS[.frac](Z|+00:00); a UTC time is the
 * only kind that orders runs measured on different machines correctly. */
static int parse_utc(const char *s, utc_time *t) {
  memset(t, 0, sizeof *t);
  const char *p = s;
  if (!read_digits(&p, 4, &t->year) || *p++ != '-' ||
      !read_digits(&p, 2, &t->month) || *p++ != '-' ||
      !read_digits(&p, 2, &t->day))
    return 0;
  if (t->month < 1 || t->month > 12 || t->day < 1 ||
      t->day > days_in_month(t->year, t->month))
    return 0;
  if (*p == '\0')
    return 1;
  if (*p++ != 'T' || !read_digits(&p, 2, &t->hour) || *p++ != ':' ||
      !read_digits(&p, 2, &t->minute) || *p++ != ':' ||
      !read_digits(&p, 2, &t->second))
    return 0;
  /* 60 allows a leap second. */
  if (t->hour > 23 || t->minute > 59 || t->second > 60)
    return 0;
  if (*p == '.') {
    p++;
    size_t n = 0;
    if (!is_digit((unsigned char)*p))
      return 0;
    for (; is_digit((unsigned char)*p); p++) {
      if (n + 1 < sizeof t->frac)
        t->frac[n++] = *p;
    }
    while (n > 0 && t->frac[n - 1] == '0')
      n--;
    t->frac[n] = '\0';
  }
  if (!strcmp(p, "Z") || !strcmp(p, "+00:00"))
    return 1;
  return 0;
}

static int cmp_int(int a, int b) { return (a > b) - (a < b); }

/* Seconds since 1970-01-01T00:00:00Z (fraction dropped), by the days of
 * the proleptic Gregorian calendar (Hinnant's days_from_civil). */
static long long utc_seconds(const utc_time *t) {
  long long y = t->year - (t->month <= 2);
  long long era = (y >= 0 ? y : y - 399) / 400;
  long long yoe = y - era * 400;
  long long mp = (t->month + 9) % 12;
  long long doy = (153 * mp + 2) / 5 + t->day - 1;
  long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  long long days = era * 146097 + doe - 719468;
  return days * 86400 + t->hour * 3600LL + t->minute * 60LL + t->second;
}

static int utc_cmp(const utc_time *a, const utc_time *b) {
  int c;
  if ((c = cmp_int(a->year, b->year)) || (c = cmp_int(a->month, b->month)) ||
      (c = cmp_int(a->day, b->day)) || (c = cmp_int(a->hour, b->hour)) ||
      (c = cmp_int(a->minute, b->minute)) ||
      (c = cmp_int(a->second, b->second)))
    return c;
  /* Fraction digits without trailing zeros compare as decimals when
   * compared as strings: ".5" > ".25", ".5" == ".50". */
  c = strcmp(a->frac, b->frac);
  return (c > 0) - (c < 0);
}

int bs_archive_date_valid(const char *text) {
  utc_time t;
  return text && parse_utc(text, &t);
}

int bs_archive_date_in_future(const char *text) {
  utc_time t;
  time_t now = time(NULL);
  return text && parse_utc(text, &t) && now != (time_t)-1 &&
         utc_seconds(&t) > (long long)now + 86400;
}

int bs_archive_date_cmp(const char *a, const char *b) {
  utc_time ta, tb;
  int va = parse_utc(a, &ta), vb = parse_utc(b, &tb);
  if (va && vb) {
    int c = utc_cmp(&ta, &tb);
    if (c)
      return c;
  } else if (va != vb) {
    return va ? 1 : -1;
  }
  int c = strcmp(a, b);
  return (c > 0) - (c < 0);
}

/* ---- Ids ----------------------------------------------------------------- */

static void id_date(const utc_time *t, char out[DATE_CHARS + 1]) {
  /* Every field was read as that many digits; the remainders only tell
   * the compiler so (it warned of truncation at -O2). */
  snprintf(out, DATE_CHARS + 1, "%04u%02u%02uT%02u%02u%02uZ",
           (unsigned)t->year % 10000u, (unsigned)t->month % 100u,
           (unsigned)t->day % 100u, (unsigned)t->hour % 100u,
           (unsigned)t->minute % 100u, (unsigned)t->second % 100u);
}

static void id_commit(const char *commit, char out[COMMIT_CHARS + 1]) {
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

/* Splits a well-formed id into its parts; returns 0 when malformed. */
static int id_parse(const char *id, char date[DATE_CHARS + 1],
                    char commit[COMMIT_CHARS + 1], char hash[HASH_DIGITS + 1]) {
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

typedef struct run_file {
  char name[32]; /* manifest.csv, log-N.csv */
  char *data;
  size_t len;
  char hex[BS__SHA256_HEXLEN + 1];
} run_file;

typedef struct prepared {
  run_file *files; /* manifest first, then the logs */
  size_t nfiles;
  bs__buf sums; /* the SHA256SUMS text */
} prepared;

static void prepared_release(prepared *p) {
  for (size_t i = 0; i < p->nfiles; i++)
    free(p->files[i].data);
  free(p->files);
  bs__buf_release(&p->sums);
  memset(p, 0, sizeof *p);
}

/* Lists the check findings in res and refuses the run. */
static bs_status refuse_findings(const bs_check_result *cr,
                                 bs_archive_add_result *res, bs_error *err) {
  for (size_t i = 0; i < cr->nfindings; i++) {
    const bs_finding *f = &cr->findings[i];
    if (bs__strlist_addf(&res->findings, &res->nfindings, "%s:%ld: %s: %s",
                         f->file, f->line, bs_check_kind_name(f->kind),
                         f->message))
      return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  return bs_error_set(err, BS_EINPUT, NULL, 0,
                      "the logs have %zu check finding%s (see 'benchsite "
                      "check'); the run is not archived",
                      cr->nfindings, cr->nfindings == 1 ? "" : "s");
}

/* Reads every file once, validates the run and computes SHA256SUMS and the
 * id. The bytes kept are the bytes validated. */
/* A run is archived for ever and the site analyses it on every build: its
 * comparison (the manifest's baseline against its candidate, as the site
 * computes it) must give a finite delta and speedup for every case. Values
 * the reader accepts (any finite per-call time) can still make them
 * overflow; such a run is refused here rather than poisoning every later
 * report and site. Runs without both keys, or whose impls do not pair
 * (the site then shows no verdicts), are not this check's business. */
/* Whether every per-call time of the log lies in [lo, hi] with
 * DBL_MIN <= lo, hi <= 2^40 lo and hi <= 2^1000: then no pairing of its
 * rows can give a non-finite delta or speedup, and finite_verdicts need
 * not pair anything (nearly every real log: 2^40 is a factor of 10^12).
 *
 * Why, in exact arithmetic first. For paired b_j, c_j >= lo and
 * d_j = c_j - b_j, med(b) + med(d) >= lo. Odd m, k = (m+1)/2: at least k
 * of the d_j are <= d_(k), and for each of those b_j = c_j - d_j >=
 * lo - d_(k), so b_(k) >= lo - d_(k). Even m, k = m/2: at least k+1 of the
 * d_j are <= d_(k+1), so b_(k) >= lo - d_(k+1); at least k are <= d_(k),
 * so b_(k+1) >= lo - d_(k); the two medians are the averages of those.
 * In doubles (u = 2^-53, every |d_j| < hi): each d_j is off by at most
 * u hi, so are its order statistics; the type-7 median adds at most
 * 2 u hi (a difference of at most 2 hi halved, then a sum), and med(b)
 * is off by at most 2 u hi. So the computed med(b) + med(d) is at least
 * lo - 6 u hi >= lo (1 - 6 * 2^-13) > lo / 2, the speedup is at most
 * 2 hi (1 + 2u) / lo < 2^42, and |delta| at most 100 * 2^42: all finite,
 * with no overflow on the way (hi <= 2^1000; lo normal, so no subnormal
 * rounding). */
static int times_close(const bs_log *log) {
  const bs_row *rows = bs_log_rows(log);
  size_t n = bs_log_count(log);
  double lo = INFINITY, hi = 0.0;
  for (size_t i = 0; i < n; i++) {
    double t = rows[i].per_call_us;
    lo = t < lo ? t : lo;
    hi = t > hi ? t : hi;
  }
  return n > 0 && lo >= DBL_MIN && hi <= ldexp(1.0, 1000) &&
         hi <= ldexp(lo, 40);
}

static bs_status finite_verdicts(const bs_log *log, const bs_manifest *mf,
                                 const char *manifest, bs_error *err) {
  const char *baseline = bs_manifest_get(mf, "baseline");
  const char *candidate = bs_manifest_get(mf, "candidate");
  if (!baseline || !candidate || times_close(log))
    return BS_OK;
  /* Only the point estimates matter here, and bs_compare_run computes a
   * case's delta and speedup from its three medians (and refuses a
   * non-finite one, BS_EINPUT) before it bootstraps anything; the pairing
   * before that does not depend on the options either. So one resample in
   * hotspot mode (the gate's threshold and level, which that mode accepts)
   * reaches the same verdict with the same message as the confirmatory
   * 10 000, without their cost: the bootstrap of a single resample fails
   * only where the full one would (out of memory aside). */
  bs_compare_options co;
  bs_compare_options_init(&co, BS_MODE_HOTSPOT);
  co.threshold_pct = BS_GATE_THRESHOLD_PCT;
  co.level_pct = BS_GATE_LEVEL_PCT;
  co.resamples = 1;
  bs_compare_result *cmp = NULL;
  bs_error e;
  bs_status st = bs_compare_run(log, baseline, candidate, &co, &cmp, &e);
  if (st == BS_EINPUT) {
    if (err)
      *err = e;
    return st;
  }
  if (st == BS_ENOMEM)
    return bs_error_set(err, st, NULL, 0, "out of memory");
  st = BS_OK;
  for (size_t i = 0; cmp && i < cmp->ncases && !st; i++) {
    const bs_case_compare *c = &cmp->cases[i];
    if (isfinite(c->delta_pct) && isfinite(c->speedup))
      continue;
    char label[256], q[BS__QUOTE_BUF];
    bs__case_label(label, sizeof label, c->benchmark, c->dataset);
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "case %s: the delta of \"%s\" against \"%s\" is not a "
                      "finite number (per-call times too far apart); such a "
                      "run cannot be compared and is not archived",
                      bs__csvin_quote(q, label, strlen(label), 0), candidate,
                      baseline);
  }
  bs_compare_result_free(cmp);
  return st;
}

static bs_status prepare(const char *manifest, const char *const *logs,
                         size_t nlogs, prepared *p, bs_archive_add_result *res,
                         bs_error *err) {
  bs_status st = BS_OK;
  bs_log *log = NULL;
  bs_manifest *mf = NULL;
  bs_check_result *cr = NULL;
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
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto fail;
  }
  for (size_t i = 0; i <= nlogs; i++) {
    run_file *f = &p->files[i];
    const char *path = i == 0 ? manifest : logs[i - 1];
    if (i == 0)
      snprintf(f->name, sizeof f->name, "%s", MANIFEST_NAME);
    else
      snprintf(f->name, sizeof f->name, "log-%zu.csv", i);
    p->nfiles = i + 1;
    if ((st = bs__read_regular(path, 0, BS_ARCHIVE_MAX_FILE, &f->data, &f->len,
                               err)))
      goto fail;
    size_t rows = bs_log_count(log);
    if (i == 0)
      st = bs_manifest_read_buffer(mf, path, f->data, f->len, err);
    else if (!(st = bs_log_read_buffer(log, path, f->data, f->len, err)) &&
             bs_log_count(log) == rows)
      st = bs_error_set(err, BS_EINPUT, path, 0,
                        "no observation rows (only a header); the run is "
                        "not archived");
    if (st)
      goto fail;
    bs__sha256_hex(f->data, f->len, f->hex);
    if ((st = bs__buf_printf(&p->sums, "%s  %s\n", f->hex, f->name))) {
      st = bs_error_set(err, st, NULL, 0, "out of memory");
      goto fail;
    }
  }

  const char *commit = bs_manifest_get(mf, "commit");
  const char *date = bs_manifest_get(mf, "date");
  utc_time t;
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
  if (!parse_utc(date, &t)) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" is not an ISO 8601 UTC time such as "
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
  if (now != (time_t)-1 && utc_seconds(&t) > (long long)now + 86400) {
    st = bs_error_set(err, BS_EINPUT, manifest, 0,
                      "key date: \"%s\" is more than a day in the future; "
                      "an archived run needs the UTC time it was measured",
                      date);
    goto fail;
  }

  /* The same validation as `benchsite check`: a run with findings would
   * publish numbers the linter distrusts. */
  bs_check_options co;
  bs_check_options_init(&co);
  if ((st = bs_check_protocol_target(bs_manifest_get(mf, "protocol"),
                                     &co.target_us, err)) ||
      (st = bs_check_batch_rule_named(bs_manifest_get(mf, "batch_rule"),
                                      &co.batch_rule, err))) {
    if (err)
      snprintf(err->path, sizeof err->path, "%s", manifest);
    goto fail;
  }
  if ((st = bs_check_run(log, &co, &cr, err)))
    goto fail;
  if (cr->nfindings) {
    st = refuse_findings(cr, res, err);
    goto fail;
  }
  if ((st = finite_verdicts(log, mf, manifest, err)))
    goto fail;

  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1], h[BS__SHA256_HEXLEN + 1];
  id_date(&t, d);
  id_commit(commit, c);
  bs__sha256_hex(p->sums.data, p->sums.len, h);
  h[HASH_DIGITS] = '\0';
  snprintf(res->id, sizeof res->id, "%s-%s-%.12s", d, c, h);
  bs_check_result_free(cr);
  bs_manifest_free(mf);
  bs_log_free(log);
  return BS_OK;
fail:
  bs_check_result_free(cr);
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
  bs_status st = prepare(manifest, logs, nlogs, &p, res, err);
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
          !strcmp(name + n - 4, ".tmp"));
}

/* Whether a directory without FORMAT may become an archive: it holds at
 * most an empty runs/, hidden entries and the leftovers of an interrupted
 * creation. */
static bs_status may_initialise(const char *dir, bs_error *err) {
  char **names;
  size_t n;
  bs_status st = bs__list_dir(dir, NULL, &names, &n, err);
  if (st)
    return st;
  for (size_t i = 0; i < n && st == BS_OK; i++) {
    const char *e = names[i];
    /* Hidden entries (.git, .gitignore, our .lock and .tmp-*) are not
     * content: an archive may live at the top of a git checkout. */
    if (e[0] == '.' || is_leftover(e))
      continue;
    if (!strcmp(e, RUNS_NAME)) {
      char *runs = bs__path_join(dir, RUNS_NAME);
      char **inner = NULL;
      size_t ninner = 0;
      if (!runs) {
        st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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

/* Creates FORMAT (under the lock) complete or not at all: written and
 * fsync'ed under a temporary name, then linked into place. */
static bs_status create_format(const char *dir, const char *format,
                               bs_error *err) {
  char tmp[64];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", FORMAT_NAME, (long)getpid());
  char *tpath = bs__path_join(dir, tmp);
  if (!tpath)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  unlink(tpath);
  bs_status st = BS_OK;
  if (write_new_file(tpath, FORMAT_LINE, strlen(FORMAT_LINE)) ||
      (link(tpath, format) != 0 && errno != EEXIST))
    st = bs_error_set(err, BS_EIO, format, 0, "cannot create: %s",
                      strerror(errno));
  unlink(tpath);
  free(tpath);
  if (st == BS_OK && fsync_dir(dir) != 0)
    st = bs_error_set(err, BS_EIO, dir, 0, "cannot sync directory: %s",
                      strerror(errno));
  return st;
}

/* Checks that an open FORMAT holds the format line. */
static bs_status check_format_fd(int fd, const char *format, bs_error *err) {
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

static bs_status lock_fd(int fd, const char *path, bs_error *err) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  int rc;
  do
    rc = fcntl(fd, F_SETLKW, &fl);
  while (rc != 0 && errno == EINTR);
  if (rc != 0)
    return bs_error_set(err, BS_EIO, path, 0, "cannot lock: %s",
                        strerror(errno));
  return BS_OK;
}

/* Locks the archive `dir` for writing, creating it (or making an empty
 * directory an archive) when needed, and removes what killed writers left.
 * Every change to an archive happens under this lock, so the lock holder
 * owns every temporary entry. Returns the locked descriptor of DIR/.lock
 * in *lockfd (closing it unlocks). */
static bs_status open_for_writing(const char *dir, int *lockfd, bs_error *err) {
  bs_status st = BS_OK;
  char *format = bs__path_join(dir, FORMAT_NAME);
  char *runs = bs__path_join(dir, RUNS_NAME);
  char *lock = bs__path_join(dir, LOCK_NAME);
  char **names = NULL;
  size_t n = 0;
  int fd = -1, lfd = -1;
  *lockfd = -1;
  if (!format || !runs || !lock) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
  /* Refuse a directory that is something else before leaving a lock file
   * in it; checked again under the lock. Another add may make the
   * directory an archive while we look (a listing taken during changes
   * can miss its FORMAT and see its first run), so what we saw counts
   * only if there is still no FORMAT: FORMAT comes before any run and is
   * never removed. */
  if (lstat(format, &sb) != 0) {
    bs_status seen = may_initialise(dir, err);
    if (seen != BS_OK && lstat(format, &sb) != 0) {
      st = seen;
      goto done;
    }
  }
  lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (lfd < 0) {
    st = bs_error_set(err, BS_EIO, lock, 0, "cannot open: %s", strerror(errno));
    goto done;
  }
  if ((st = lock_fd(lfd, lock, err)))
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
    if ((st = create_format(dir, format, err)))
      goto done;
  } else {
    if ((st = check_format_fd(fd, format, err)))
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
  free(lock);
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
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    if (bs__read_regular(path, BS__OPEN_NOFOLLOW, BS_ARCHIVE_MAX_FILE, &data,
                         &len, &ignore) ||
        len != p->files[i].len || memcmp(data, p->files[i].data, len) != 0)
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
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
    free(path);
    if (!(path = bs__path_join(tmp, name))) {
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
      goto done;
    }
    if (write_new_file(path, data ? data : "", len)) {
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

bs_status bs_archive_add(const char *dir, const char *manifest,
                         const char *const *logs, size_t nlogs,
                         bs_archive_add_result *res, bs_error *err) {
  prepared p;
  int lockfd = -1;
  char *runs = NULL, *rundir = NULL;
  bs_status st = prepare(manifest, logs, nlogs, &p, res, err);
  if (st) {
    res->refused = 1;
    return st;
  }
  if ((st = open_for_writing(dir, &lockfd, err)))
    goto done;
  if (!(runs = bs__path_join(dir, RUNS_NAME)) ||
      !(rundir = bs__path_join(runs, res->id))) {
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto done;
  }
  struct stat sb;
  if (lstat(rundir, &sb) == 0) {
    st = compare_existing(rundir, &p, err);
    res->refused = st == BS_EINPUT;
    goto done;
  }
  if ((st = store(dir, &p, res->id, err)))
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

/* The SHA-256 of the regular file `path` (a symbolic link is refused).
 * With `keep`, the bytes hashed are also handed over (*keep, malloc'd,
 * *keep_len bytes; at most BS_ARCHIVE_MAX_FILE), so that what is parsed
 * is exactly what was checked. */
static bs_status hash_file(const char *path, char hex[BS__SHA256_HEXLEN + 1],
                           int *missing, char **keep, size_t *keep_len) {
  *missing = 0;
  int fd;
  bs_error e;
  if (bs__open_regular(path, BS__OPEN_NOFOLLOW, &fd, &e)) {
    *missing = e.status == BS_EIO && errno == ENOENT;
    return BS_EIO;
  }
  struct stat sb;
  if (fstat(fd, &sb) != 0) {
    close(fd);
    return BS_EIO;
  }
  bs__sha256 s;
  bs__sha256_init(&s);
  char buf[65536];
  char *data = NULL;
  size_t len = 0, cap = 0;
  if (keep && sb.st_size > 0 && (uint64_t)sb.st_size < BS_ARCHIVE_MAX_FILE) {
    cap = (size_t)sb.st_size + 1; /* one more: the end shows at once */
    if (!(data = malloc(cap)))
      goto fail;
  }
  for (;;) {
    char *to = buf;
    size_t room = sizeof buf;
    if (keep) {
      if (len == cap) {
        if (len >= BS_ARCHIVE_MAX_FILE)
          goto fail;
        char *g = BS__GROW(data, cap, len + sizeof buf, sizeof buf);
        if (!g)
          goto fail;
        data = g;
      }
      to = data + len;
      room = cap - len;
    }
    ssize_t r = read(fd, to, room);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      goto fail;
    if (r == 0)
      break;
    bs__sha256_update(&s, to, (size_t)r);
    len += (size_t)r;
  }
  close(fd);
  unsigned char d[BS__SHA256_LEN];
  bs__sha256_final(&s, d);
  bs__sha256_tohex(d, hex);
  if (keep) {
    *keep = data;
    *keep_len = len;
  }
  return BS_OK;
fail:
  close(fd);
  free(data);
  return BS_EIO;
}

/* ---- Verifying ----------------------------------------------------------- */

/* Checks that `dir` is an archive (FORMAT holds the format line). */
static bs_status require_archive(const char *dir, bs_error *err) {
  char *format = bs__path_join(dir, FORMAT_NAME);
  if (!format)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
    st = check_format_fd(fd, format, err);
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
  utc_time t;
  char d[DATE_CHARS + 1], c[COMMIT_CHARS + 1];
  if (!date || !parse_utc(date, &t)) {
    problem(v, "runs/%s/%s: no valid date", eid, MANIFEST_NAME);
  } else {
    id_date(&t, d);
    if (strcmp(d, date_part))
      problem(v,
              "runs/%s: the id's date does not match the manifest's date "
              "\"%s\"",
              eid, date);
  }
  if (!commit || !commit[0]) {
    problem(v, "runs/%s/%s: no commit", eid, MANIFEST_NAME);
  } else {
    id_commit(commit, c);
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
  if (!id_parse(id, date, commit, hash)) {
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
    if (hash_file(path, h, &missing, v->keep ? &v->data[i] : NULL,
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
    return bs_error_set(err, st, dir, 0, "out of memory");
  if (st == BS_OK)
    return BS_OK;
  res->acks_damaged = 1;
  bs_status bad =
      e.line > 0 ? bs__strlist_addf(&res->problems, &res->nproblems,
                                    ACKS_NAME ":%ld: %s", e.line, e.message)
                 : bs__strlist_addf(&res->problems, &res->nproblems,
                                    ACKS_NAME ": %s", e.message);
  return bad ? bs_error_set(err, BS_ENOMEM, dir, 0, "out of memory") : BS_OK;
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
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
    st = bs_error_set(err, v.st, dir, 0, "out of memory");
    goto done;
  }
  st = verify_acks(dir, res, err);
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
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  verifier v = {res, 0, BS_OK, 0, NULL, NULL, 0};
  res->runs++;
  verify_run(&v, runs, id);
  free(runs);
  if (v.st)
    return bs_error_set(err, v.st, dir, 0, "out of memory");
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
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  verifier v = {res, 0, BS_OK, 1, NULL, NULL, 0};
  res->runs++;
  verify_run(&v, runs, id);
  if (v.st)
    st = bs_error_set(err, v.st, dir, 0, "out of memory");
  /* Entry 0 is the manifest; 1.. are the logs, in order. */
  for (size_t i = 1; !st && !v.damaged && i < v.ndata; i++) {
    char name[32];
    snprintf(name, sizeof name, "log-%zu.csv", i);
    char *path = bs__path_join(rundir, name);
    if (!path)
      st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
  int c = bs_archive_date_cmp(a->date, b->date);
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
  if (!id_parse(id, d, c, h))
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
  utc_time t;
  if (!date || !parse_utc(date, &t) || !commit) {
    st = malformed(dir, id, "the manifest has no valid date or commit", err);
    goto done;
  }
  if (!(r->date = bs__strdup(date)) || !(r->commit = bs__strdup(commit)))
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
  st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
    goto fail;
  }
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
    st = bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
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

/* ---- Acknowledgements ---------------------------------------------------- */

#define ACKS_MAX_FILE ((size_t)16 << 20)
#define ACK_MIN_COMMIT 7

struct bs_acks {
  bs_ack *rows;
  size_t nrows, rows_cap;
  char **strings; /* every string the rows point to */
  size_t nstrings;
  /* Hash sets, so neither reading nor looking up scans every row:
   * `exact` holds each row's (commit, benchmark, dataset), for the
   * duplicate check; `bucket` maps (commit key, benchmark, dataset) to the
   * row index + 1 of the last row with that key, and prev[i] chains row i
   * to the row before it with the same key (0: none). A commit's key is
   * its first ACK_MIN_COMMIT characters, or all of it when shorter: the
   * key of every row that may match a commit is the commit's own key. */
  bs__strset exact, bucket;
  size_t *prev;
};

typedef struct acks_reader {
  bs__csvin in;
  bs_acks *acks;
  int col[4];       /* field index of commit, benchmark, dataset, reason */
  char *fields[16]; /* the current record's fields */
  size_t nfields;
  int header_done;
} acks_reader;

static const char *const ack_columns[4] = {"commit", "benchmark", "dataset",
                                           "reason"};

static void acks_field(void *ctx, const char *s, size_t len) {
  acks_reader *r = ctx;
  if (r->nfields >= sizeof r->fields / sizeof r->fields[0]) {
    bs__csvin_fail(&r->in, BS_EINPUT, r->in.rec_line, 0,
                   "too many fields (acks.csv has 4 columns)");
    return;
  }
  char *f = malloc(len + 1);
  if (!f) {
    bs__csvin_fail(&r->in, BS_ENOMEM, 0, 0, "out of memory");
    return;
  }
  if (len)
    memcpy(f, s, len);
  f[len] = '\0';
  r->fields[r->nfields++] = f;
}

static void acks_clear_fields(acks_reader *r) {
  for (size_t i = 0; i < r->nfields; i++)
    free(r->fields[i]);
  r->nfields = 0;
}

static void acks_header(acks_reader *r) {
  long line = r->in.rec_line;
  for (int k = 0; k < 4; k++)
    r->col[k] = -1;
  for (size_t i = 0; i < r->nfields; i++) {
    int k = 0;
    while (k < 4 && strcmp(r->fields[i], ack_columns[k]))
      k++;
    size_t flen = strlen(r->fields[i]);
    if (k == 4 && bs__utf8_invalid_at((const unsigned char *)r->fields[i],
                                      flen) != flen) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                     "header field %zu is not UTF-8 (the columns are commit, "
                     "benchmark, dataset, reason)",
                     i + 1);
      return;
    }
    if (k == 4) {
      char q[BS__QUOTE_BUF];
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                     "unknown column %s (the columns are commit, benchmark, "
                     "dataset, reason)",
                     bs__csvin_quote(q, r->fields[i], strlen(r->fields[i]), 1));
      return;
    }
    if (r->col[k] >= 0) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s given twice",
                     ack_columns[k]);
      return;
    }
    r->col[k] = (int)i;
  }
  for (int k = 0; k < 4; k++) {
    if (r->col[k] < 0) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "missing column %s",
                     ack_columns[k]);
      return;
    }
  }
  r->header_done = 1;
}

/* The length of the part of `commit` that keys its bucket. */
static size_t ack_commit_key(const char *commit) {
  size_t n = strlen(commit);
  return n < ACK_MIN_COMMIT ? n : ACK_MIN_COMMIT;
}

/* commit[0..clen-1], benchmark and dataset into one key, NUL-separated:
 * the parts are C strings, so no part holds the separator. */
static bs_status ack_key(bs__buf *b, const char *commit, size_t clen,
                         const char *benchmark, const char *dataset) {
  bs_status st = bs__buf_append(b, commit, clen);
  if (!st)
    st = bs__buf_append(b, "", 1);
  if (!st)
    st = bs__buf_append(b, benchmark, strlen(benchmark));
  if (!st)
    st = bs__buf_append(b, "", 1);
  if (!st)
    st = bs__buf_append(b, dataset, strlen(dataset));
  return st;
}

static int grow_rows(bs_acks *a) {
  if (a->nrows < a->rows_cap)
    return 0;
  size_t nc = a->rows_cap ? a->rows_cap * 2 : 64;
  bs_ack *rows = realloc(a->rows, nc * sizeof *rows);
  if (rows)
    a->rows = rows;
  size_t *prev = rows ? realloc(a->prev, nc * sizeof *prev) : NULL;
  if (prev)
    a->prev = prev;
  char **strs = prev ? realloc(a->strings, 4 * nc * sizeof *strs) : NULL;
  if (strs)
    a->strings = strs;
  if (!strs)
    return -1;
  a->rows_cap = nc;
  return 0;
}

static void acks_record(void *ctx) {
  acks_reader *r = ctx;
  long line = r->in.rec_line;
  bs_acks *a = r->acks;
  if (!r->header_done) {
    acks_header(r);
    acks_clear_fields(r);
    return;
  }
  if (r->nfields != 4) {
    bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "%zu fields, expected 4",
                   r->nfields);
    acks_clear_fields(r);
    return;
  }
  const char *v[4];
  for (int k = 0; k < 4; k++)
    v[k] = r->fields[r->col[k]];
  for (int k = 0; k < 4; k++) {
    if (k != 2 && !v[k][0]) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s: empty",
                     ack_columns[k]);
      acks_clear_fields(r);
      return;
    }
    if (bs__utf8_invalid_at((const unsigned char *)v[k], strlen(v[k])) !=
        strlen(v[k])) {
      bs__csvin_fail(&r->in, BS_EINPUT, line, 0, "column %s: not UTF-8",
                     ack_columns[k]);
      acks_clear_fields(r);
      return;
    }
  }
  bs__buf key;
  bs__buf_init(&key, 0);
  size_t old = 0, *lastp = NULL;
  int added = -1;
  if (!ack_key(&key, v[0], strlen(v[0]), v[1], v[2]))
    added = bs__strset_put(&a->exact, key.data, key.len, a->nrows, &old);
  if (added == 0) {
    bs__buf_release(&key);
    bs__csvin_fail(&r->in, BS_EINPUT, line, 0,
                   "the same commit and case as line %ld", a->rows[old].line);
    acks_clear_fields(r);
    return;
  }
  if (added == 1) {
    bs__buf_reset(&key);
    if (!ack_key(&key, v[0], ack_commit_key(v[0]), v[1], v[2]))
      lastp = bs__strset_ref(&a->bucket, key.data, key.len, NULL);
  }
  bs__buf_release(&key);
  if (!lastp || grow_rows(a)) {
    bs__csvin_fail(&r->in, BS_ENOMEM, 0, 0, "out of memory");
    acks_clear_fields(r);
    return;
  }
  a->prev[a->nrows] = *lastp;
  *lastp = a->nrows + 1;
  /* The row takes the field strings over. */
  bs_ack *row = &a->rows[a->nrows++];
  row->commit = v[0];
  row->benchmark = v[1];
  row->dataset = v[2];
  row->reason = v[3];
  row->line = line;
  for (size_t i = 0; i < 4; i++)
    a->strings[a->nstrings++] = r->fields[i];
  r->nfields = 0;
}

void bs_acks_free(bs_acks *a) {
  if (!a)
    return;
  bs__strlist_free(a->strings, a->nstrings);
  free(a->rows);
  free(a->prev);
  bs__strset_release(&a->exact);
  bs__strset_release(&a->bucket);
  free(a);
}

static bs_acks *acks_new(void) {
  bs_acks *a = calloc(1, sizeof *a);
  if (a) {
    bs__strset_init(&a->exact);
    bs__strset_init(&a->bucket);
  }
  return a;
}

bs_status bs__acks_parse(const char *name, const char *data, size_t len,
                         bs_acks **out, bs_error *err) {
  *out = NULL;
  bs_acks *a = acks_new();
  if (!a)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  acks_reader r;
  memset(&r, 0, sizeof r);
  r.acks = a;
  bs_status st;
  if ((st = bs__csvin_init(&r.in, name, err, 65536, acks_field, acks_record,
                           &r)) == BS_OK) {
    if (bs__csvin_feed(&r.in, data, len) == BS_OK)
      bs__csvin_finish(&r.in);
    st = r.in.status;
    if (st == BS_OK && !r.header_done)
      st = bs_error_set(err, BS_EINPUT, r.in.name, 1,
                        "empty file; the header is commit,benchmark,dataset,"
                        "reason");
  }
  acks_clear_fields(&r);
  bs__csvin_release(&r.in);
  if (st) {
    bs_acks_free(a);
    return st;
  }
  *out = a;
  return BS_OK;
}

bs_status bs_acks_read(const char *dir, bs_acks **out, bs_error *err) {
  *out = NULL;
  char *path = bs__path_join(dir, ACKS_NAME);
  char *data = NULL;
  size_t len = 0;
  bs_status st;
  if (!path)
    return bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  struct stat sb;
  if (lstat(path, &sb) != 0 && errno == ENOENT) {
    free(path);
    return (*out = acks_new())
               ? BS_OK
               : bs_error_set(err, BS_ENOMEM, NULL, 0, "out of memory");
  }
  /* Never through a link: its target's first line would be quoted in an
   * error message (a CI log), and it is outside the archive anyway. */
  if ((st = bs__read_regular(path, BS__OPEN_NOFOLLOW, ACKS_MAX_FILE, &data,
                             &len, err)) == BS_OK)
    st = bs__acks_parse(path, data, len, out, err);
  free(data);
  free(path);
  return st;
}

size_t bs_acks_count(const bs_acks *a) { return a ? a->nrows : 0; }

const bs_ack *bs_acks_at(const bs_acks *a, size_t i) {
  return a && i < a->nrows ? &a->rows[i] : NULL;
}

static int commit_matches(const char *ack, const char *commit) {
  size_t n = strlen(ack);
  if (!strcmp(ack, commit))
    return 1;
  return n >= ACK_MIN_COMMIT && strncmp(ack, commit, n) == 0;
}

const bs_ack *bs_acks_find(const bs_acks *a, const char *commit,
                           const char *benchmark, const char *dataset) {
  if (!a || !commit || !a->nrows)
    return NULL;
  if (!dataset)
    dataset = "";
  bs__buf key;
  bs__buf_init(&key, 0);
  size_t last = 0;
  const bs_ack *found = NULL;
  if (!ack_key(&key, commit, ack_commit_key(commit), benchmark, dataset) &&
      bs__strset_get(&a->bucket, key.data, key.len, &last)) {
    /* The chain runs from the last row back: the first match in file
     * order is the last one met. */
    for (size_t i = last; i; i = a->prev[i - 1]) {
      const bs_ack *r = &a->rows[i - 1];
      if (!strcmp(r->benchmark, benchmark) && !strcmp(r->dataset, dataset) &&
          commit_matches(r->commit, commit))
        found = r;
    }
  }
  bs__buf_release(&key);
  return found;
}
