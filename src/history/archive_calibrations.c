/* Verifying an archive's calibrations/: the files `benchsite calibrate`
 * left there (the action stores each as DATE-HASH.json and never changes
 * it), which compare and the site read beside the runs. */
#include "benchsite/archive.h"
#include "benchsite/calibration.h"

#include "archive_int.h"
#include "fsutil.h"
#include "oom.h"
#include "sha256.h"
#include "strlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* "YYYYMMDDTHHMMSSZ-" and 12 hex digits, then ".json": the action's
 * name, its date and the start of the file's SHA-256. */
#define STAMP_LEN 16
#define HASH_LEN 12

/* Whether name is DATE-HASH.json; *stamp and *hash point into it. */
static int stored_name(const char *name, const char **stamp,
                       const char **hash) {
  if (strlen(name) != STAMP_LEN + 1 + HASH_LEN + 5)
    return 0;
  for (size_t i = 0; i < STAMP_LEN; i++) {
    int want_digit = i != 8 && i != STAMP_LEN - 1;
    if (want_digit ? !isdigit((unsigned char)name[i])
                   : name[i] != (i == 8 ? 'T' : 'Z'))
      return 0;
  }
  if (name[STAMP_LEN] != '-')
    return 0;
  for (size_t i = 0; i < HASH_LEN; i++) {
    char c = name[STAMP_LEN + 1 + i];
    if (!isdigit((unsigned char)c) && !(c >= 'a' && c <= 'f'))
      return 0;
  }
  *stamp = name;
  *hash = name + STAMP_LEN + 1;
  return 1;
}

/* The calibration's date as the action writes it into a name: the first
 * nineteen characters' digits with T and Z ("2026-12-04T10:20:30..." is
 * "20261204T102030Z"). */
static void compact(const char *date, char out[STAMP_LEN + 1]) {
  size_t k = 0;
  for (size_t i = 0; i < 19 && date[i] && k < STAMP_LEN - 1; i++)
    if (isdigit((unsigned char)date[i]) || date[i] == 'T')
      out[k++] = date[i];
  out[k++] = 'Z';
  out[k] = '\0';
}

/* Records `what` as the problem of calibrations/NAME. */
static bs_status problem(bs_archive_verify_result *res, const char *name,
                         const char *what) {
  if (bs__strlist_addf(&res->problems, &res->nproblems,
                       BS_CALIBRATIONS_DIR "/%s: %s", name, what))
    return BS_ENOMEM;
  res->calibrations_damaged++;
  return BS_OK;
}

static bs_status verify_one(bs_archive_verify_result *res, const char *dir,
                            const char *name) {
  char *path = bs__path_join(dir, name);
  if (!path)
    return BS_ENOMEM;
  char hex[BS__SHA256_HEXLEN + 1];
  char *text = NULL;
  size_t len = 0;
  int missing = 0;
  bs_status st = BS_OK;
  res->calibrations++;
  if (bs__archive_hash_file(path, hex, &missing, &text, &len)) {
    st = problem(res, name,
                 missing ? "vanished while it was read"
                         : "unreadable, too large, or not a regular file");
    goto done;
  }
  bs_error e;
  bs_error_clear(&e);
  bs_calibration_summary *s = NULL;
  bs_status pst = bs_calibration_summary_parse(name, text, len, &s, &e);
  if (pst == BS_ENOMEM) {
    st = BS_ENOMEM;
    goto done;
  }
  const char *stamp, *hash;
  char what[1024]; /* a bs_error message and a little more */
  if (pst) {
    if (e.line > 0)
      snprintf(what, sizeof what, "line %ld: %s", e.line, e.message);
    else
      snprintf(what, sizeof what, "%s", e.message);
    st = problem(res, name, what);
  } else if (stored_name(name, &stamp, &hash)) {
    char want[STAMP_LEN + 1];
    compact(s->date, want);
    if (strncmp(hash, hex, HASH_LEN) != 0) {
      snprintf(what, sizeof what,
               "checksum mismatch (the name has %.12s, the file %.12s...): "
               "it changed after it was stored",
               hash, hex);
      st = problem(res, name, what);
    } else if (strncmp(stamp, want, STAMP_LEN) != 0) {
      snprintf(what, sizeof what, "the name's date %.16s is not the file's %s",
               stamp, s->date);
      st = problem(res, name, what);
    }
  }
  bs_calibration_summary_free(s);
done:
  free(text);
  free(path);
  return st;
}

bs_status bs__archive_verify_calibrations(const char *archive,
                                          bs_archive_verify_result *res,
                                          bs_error *err) {
  char *dir = bs__path_join(archive, BS_CALIBRATIONS_DIR);
  if (!dir)
    return bs__oom(err);
  bs_status st = BS_OK;
  char **names = NULL;
  size_t n = 0;
  struct stat sb;
  if (lstat(dir, &sb) != 0) {
    if (errno != ENOENT)
      st = bs_error_set(err, BS_EIO, dir, 0, "%s", strerror(errno));
    goto done; /* no calibration was ever stored */
  }
  if (!S_ISDIR(sb.st_mode)) {
    if (bs__strlist_addf(&res->problems, &res->nproblems,
                         BS_CALIBRATIONS_DIR ": not a directory (a link or a "
                                             "file)"))
      st = bs__oom(err);
    else
      res->calibrations_damaged++;
    goto done;
  }
  if ((st = bs__list_dir(dir, bs_calibration_file_name, &names, &n, err)))
    goto done;
  for (size_t i = 0; i < n && !st; i++)
    if (verify_one(res, dir, names[i]))
      st = bs__oom(err);
done:
  bs__strlist_free(names, n);
  free(dir);
  return st;
}
