/* benchsite: the immutable run archive (`benchsite archive`).
 *
 * Layout of an archive directory DIR:
 *
 *   DIR/FORMAT          "benchsite.archive/1\n": marks DIR as an archive
 *   DIR/.lock           writers hold an fcntl lock on it while they change
 *                       the archive (empty; safe to delete when idle)
 *   DIR/runs/ID/        one run, complete and never changed again:
 *     manifest.csv        the manifest, byte for byte as given
 *     log-1.csv, ...      the logs, byte for byte, in the order given
 *     SHA256SUMS          "<sha256 hex>  <name>\n" for manifest.csv, then
 *                         the logs in order (`sha256sum -c` reads it)
 *   DIR/ID              the archive's identity: "RUN-ID\n", the id of
 *                       its first run, written once by `add` (an archive
 *                       made before it gets the id of its oldest run on
 *                       the next add); see bs_archive_identity()
 *   DIR/acks.csv        optional, written by people (read by the site)
 *   DIR/.tmp-*          a run being added, or left by a killed writer:
 *                       readers ignore it, the next `add` removes it
 *
 * A run appears only by renaming its finished, fsync'ed temporary
 * directory to runs/ID, so a reader (or a kill at any moment) sees a run
 * whole or not at all.
 *
 * Run ids are built from sanitized text and a hash, never from raw user
 * text, so an id is always a safe file name:
 *
 *   ID     = DATE "-" COMMIT "-" HASH          (at most 42 bytes)
 *   DATE   = the manifest's `date` as YYYYMMDDTHHMMSSZ (fraction dropped)
 *   COMMIT = the first 12 of the [0-9A-Za-z] bytes of the manifest's
 *            `commit` (every other byte dropped), or "none" when it has
 *            none
 *   HASH   = the first 12 hex digits of the SHA-256 of the run's
 *            SHA256SUMS text, which covers every byte of every file
 *
 * e.g. 20261130T105621Z-3f9a2c1d0b7e-5d41402abc4b. Ids of different
 * content differ (up to a 48-bit hash collision, which `add` detects and
 * refuses); the same content always gets the same id. */
#ifndef BENCHSITE_ARCHIVE_H
#define BENCHSITE_ARCHIVE_H

#include "benchsite/error.h"
#include "benchsite/log.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Room for an id and its NUL. */
#define BS_ARCHIVE_ID_MAX 48
/* The most logs one run may have. */
#define BS_ARCHIVE_MAX_LOGS 999
/* The largest file (log or manifest) a run may hold. */
#define BS_ARCHIVE_MAX_FILE ((size_t)1 << 30)

/* ---- Adding a run ------------------------------------------------------ */

typedef struct bs_archive_add_result {
  char id[BS_ARCHIVE_ID_MAX]; /* the run's id ("" when not computed) */
  int added; /* 1: stored by this call; 0: already archived (a no-op) */
  /* On failure: 1 when the run itself was refused (unreadable or invalid
   * input, check findings, a different run under its id), 0 when the
   * archive failed (not an archive, damaged, cannot be written). */
  int refused;
  /* When the run is refused because `benchsite check` has findings, one
   * "file:line: kind: message" string for each; otherwise empty. */
  char **findings;
  size_t nfindings;
} bs_archive_add_result;

/* Empties a result. */
void bs_archive_add_result_init(bs_archive_add_result *r);
/* Frees the findings and empties the result. NULL is a no-op. */
void bs_archive_add_result_release(bs_archive_add_result *r);

/* Validates a run without touching any archive and computes its id into
 * res->id: every log must read cleanly as one log (SPEC §1.1, across files
 * too), the manifest must read cleanly and hold a non-empty `commit` and an
 * ISO 8601 UTC time `date` (YYYY-MM-DDTHH:MM:SS[.frac] followed by Z or
 * +00:00; a date alone, which earlier versions archived, is refused), its
 * `protocol` must be known, and the logs must have no
 * `benchsite check` findings (with T from the protocol). `logs` holds 1 to
 * BS_ARCHIVE_MAX_LOGS paths.
 *
 * Returns BS_OK; BS_EINPUT (bad content, with file:line where known; check
 * findings are listed in res->findings), BS_EUSAGE (no logs or too many),
 * BS_ELIMIT, BS_EIO (unreadable input) or BS_ENOMEM. `res` must be
 * initialised; release it in every case. */
bs_status bs_archive_identify(const char *manifest, const char *const *logs,
                              size_t nlogs, bs_archive_add_result *res,
                              bs_error *err);

/* Validates the run as bs_archive_identify() does, then stores it in the
 * archive `dir`, creating the archive when `dir` does not exist or holds
 * nothing but hidden entries (such as .git). The bytes stored are the bytes
 * validated (each file is read once).
 *
 * Immutable: when runs/ID already holds exactly this content the call is a
 * no-op (BS_OK, res->added = 0); when runs/ID holds different content the
 * run is refused with BS_EINPUT; when it holds this SHA256SUMS but a file
 * no longer matches it, BS_EIO (the archive is damaged; see
 * bs_archive_verify()). Atomic: the files are written into DIR/.tmp-PID,
 * fsync'ed with their directory and renamed to runs/ID, and the archive
 * directories are fsync'ed; on failure nothing is visible. Concurrent adds
 * are serialised by a lock on DIR/.lock; the lock holder removes the
 * temporary directories of killed writers.
 *
 * Errors as bs_archive_identify(), plus BS_EINPUT when `dir` exists and is
 * not an archive, and BS_EIO when the archive cannot be written. */
bs_status bs_archive_add(const char *dir, const char *manifest,
                         const char *const *logs, size_t nlogs,
                         bs_archive_add_result *res, bs_error *err);

/* ---- Verifying ------------------------------------------------------- */

typedef struct bs_archive_verify_result {
  size_t runs;    /* run directories examined */
  size_t damaged; /* runs with at least one problem */
  /* One "runs/ID/NAME: what is wrong" string per problem, runs in byte
   * order of their directory names. */
  char **problems;
  size_t nproblems;
  size_t stale; /* temporary directories of killed writers (not damage) */
  /* acks.csv is present but cannot be read as acknowledgements (not a
   * regular file, a link, malformed, duplicate rows): its problem is in
   * `problems` as "acks.csv: ...". */
  int acks_damaged;
  /* ID is present but not one run id (see bs_archive_identity): its
   * problem is in `problems` as "ID: ...". */
  int id_damaged;
  /* calibrations/ (benchsite calibrate's files): *.json files examined,
   * and those damaged: not a calibration, or named DATE-HASH.json (as the
   * action stores them) with another content's hash or another date.
   * Their problems are in `problems` as "calibrations/NAME: ...". */
  size_t calibrations;
  size_t calibrations_damaged;
} bs_archive_verify_result;

void bs_archive_verify_result_init(bs_archive_verify_result *r);
/* NULL is a no-op. */
void bs_archive_verify_result_release(bs_archive_verify_result *r);

/* Re-checks every run of the archive `dir`: the directory name is a
 * well-formed id; SHA256SUMS exists, is well-formed and lists manifest.csv
 * and log-1.csv ... log-N.csv; every listed file is a regular file whose
 * SHA-256 matches; no other file is present; the id's HASH is the hash of
 * SHA256SUMS and its DATE and COMMIT match the manifest; acks.csv,
 * when present, reads as every later site reads it; and calibrations/
 * holds calibrations, each named by its own date and hash when its name
 * has that form. Damage is a
 * finding, not an error: the call returns BS_OK with the problems in
 * `res`. BS_EINPUT when `dir` is not an archive, BS_EIO when it cannot be
 * read, BS_ENOMEM. `res` must be initialised; release it in every case. */
bs_status bs_archive_verify(const char *dir, bs_archive_verify_result *res,
                            bs_error *err);

/* Verifies the run `id` of the archive `dir` as bs_archive_verify() does,
 * adding to `res` (res->runs counts it, res->damaged when it has
 * problems). Same errors. */
bs_status bs_archive_verify_run(const char *dir, const char *id,
                                bs_archive_verify_result *res, bs_error *err);

/* Verifies the run `id` as bs_archive_verify_run() does and, when it is
 * sound, reads its logs (log-1.csv, log-2.csv, ... in order) into `log`
 * from the very bytes whose checksums were just checked: each file is
 * read once. A damaged run (res->damaged counts it) leaves `log` as it
 * was. Errors: those of bs_archive_verify_run, then those of
 * bs_log_read_buffer for a log. */
bs_status bs_archive_read_run(const char *dir, const char *id, bs_log *log,
                              bs_archive_verify_result *res, bs_error *err);

/* ---- Reading --------------------------------------------------------- */

/* One archived run. Strings are owned by the bs_archive. */
typedef struct bs_archive_run {
  const char *id;
  const char *dir;         /* DIR/runs/ID */
  const char *manifest;    /* DIR/runs/ID/manifest.csv */
  const char *const *logs; /* DIR/runs/ID/log-1.csv ... in order */
  size_t nlogs;
  const char *commit; /* the manifest's value */
  const char *date;   /* the manifest's, as bs_date_normalise writes it */
} bs_archive_run;

typedef struct bs_archive bs_archive;

/* Lists the runs of the archive `dir` in history order: by `date` (as a
 * time, fractions included), then by id in byte order. Reads each run's
 * SHA256SUMS and manifest but does not hash the files (that is
 * bs_archive_verify()). Temporary directories are ignored. Errors:
 * BS_EINPUT when `dir` is not an archive or a run is malformed (the
 * message names it and suggests `benchsite archive verify`), BS_EIO,
 * BS_ENOMEM. On success *out is freed with bs_archive_free(). */
bs_status bs_archive_open(const char *dir, bs_archive **out, bs_error *err);
/* NULL is a no-op. */
void bs_archive_free(bs_archive *a);

/* The archive directory as given to bs_archive_open(). */
const char *bs_archive_dir(const bs_archive *a);
/* The archive's identity, which never changes once it has a run (the
 * site's feed is named by it): the id in DIR/ID, which `add` writes when
 * the archive has none (the id of its oldest run then, or of the run that
 * makes the archive); for an archive made before ID existed, the id of its
 * oldest run (what the next add fixes); NULL for an archive without runs.
 * Owned by the bs_archive. */
const char *bs_archive_identity(const bs_archive *a);
size_t bs_archive_count(const bs_archive *a);
/* The i-th run in history order (oldest first), or NULL past the end. */
const bs_archive_run *bs_archive_run_at(const bs_archive *a, size_t i);
/* The run with this id, or NULL. */
const bs_archive_run *bs_archive_find(const bs_archive *a, const char *id);

/* ---- Acknowledgements --------------------------------------------------
 *
 * DIR/acks.csv (optional, written by people) marks known, accepted
 * changes: a CSV with the header columns commit, benchmark, dataset and
 * reason (in any order, no others). A row acknowledges what the run of
 * `commit` found for the case (benchmark, dataset); the site shows the
 * reason and does not count the case as an open regression. */

typedef struct bs_ack {
  const char *commit; /* the run's commit, or a prefix of 7+ characters */
  const char *benchmark;
  const char *dataset; /* "" for a case without a dataset */
  const char *reason;
  long line; /* 1-based line of the row in acks.csv */
} bs_ack;

typedef struct bs_acks bs_acks;

/* Reads DIR/acks.csv. A missing file gives an empty set (BS_OK). Errors
 * (BS_EINPUT with acks.csv:line): a header that is not exactly the four
 * columns, a row with another number of fields, an empty commit, benchmark
 * or reason, text that is not UTF-8, the same (commit, benchmark, dataset)
 * twice. BS_EIO when unreadable, BS_ELIMIT past 16 MiB,
 * BS_ENOMEM. On success *out is freed with bs_acks_free(). */
bs_status bs_acks_read(const char *dir, bs_acks **out, bs_error *err);
/* NULL is a no-op. */
void bs_acks_free(bs_acks *a);
/* Rows in file order. `a` may be NULL (no rows). */
size_t bs_acks_count(const bs_acks *a);
const bs_ack *bs_acks_at(const bs_acks *a, size_t i);
/* The acknowledgement of case (benchmark, dataset) in the run of `commit`:
 * the row whose commit equals `commit` or, when 7 characters or longer,
 * starts it. NULL when none; `a` may be NULL. */
const bs_ack *bs_acks_find(const bs_acks *a, const char *commit,
                           const char *benchmark, const char *dataset);

#ifdef __cplusplus
}
#endif
#endif
