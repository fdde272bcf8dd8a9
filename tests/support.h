/* Shared helpers for the Criterion tests: run the CLI, temp dirs, files. */
#ifndef BENCHSITE_TEST_SUPPORT_H
#define BENCHSITE_TEST_SUPPORT_H

#include <stddef.h>

typedef struct ts_run {
  int status; /* exit status, or 128 + signal */
  char *out;  /* captured stdout (malloc'd, NUL-terminated) */
  char *err;  /* captured stderr */
} ts_run;

/* Runs BENCHSITE_BIN with argv (NULL-terminated, without argv[0]) in
 * directory `cwd` (NULL = current). Never uses a shell. */
ts_run ts_cli(const char *cwd, const char *const *args);
void ts_run_free(ts_run *r);

/* A fresh empty directory under BENCHSITE_TEST_TMP; returns a malloc'd
 * path. `tag` names it for debugging. */
char *ts_tmpdir(const char *tag);
/* Path join into a malloc'd string. */
char *ts_path(const char *dir, const char *name);
/* Writes a file (whole). Returns 0 on success. */
int ts_write(const char *path, const char *text);
/* Reads a whole file (malloc'd) or NULL. */
char *ts_read(const char *path, size_t *len);
int ts_exists(const char *path);
/* Number of entries in a directory (excluding . and ..), -1 on error. */
int ts_count_entries(const char *dir);
/* Path of a fixture in tests/data (malloc'd). */
char *ts_data(const char *name);

/* Keeps p (asserted non-NULL) until ts_free_owned(), so a test can
 * allocate freely and the sanitizer run still sees no leaks; returns p. */
void *ts_own(void *p);
/* Frees what ts_own kept: a suite's .fini. */
void ts_free_owned(void);
/* printf into a string kept by ts_own. */
char *ts_pathf(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Plants a run in the archive `archive` (created when it has no FORMAT)
 * as an earlier benchsite stored it, without `archive add`'s checks: a
 * run `archive add` now refuses (a date without a time) or one it would
 * store otherwise. runs/ID holds manifest.csv, log-1.csv and SHA256SUMS,
 * ID = `prefix` "-" the first 12 hex digits of SHA256SUMS's hash; `prefix`
 * is DATE-COMMIT as the manifest's date and commit give them (e.g.
 * "20260301T000000Z-dateonly"). Returns the id (kept by ts_own). */
char *ts_plant_run(const char *archive, const char *prefix,
                   const char *manifest, const char *log);

/* Runs argv (argv[0] found in PATH, never a shell) with stdout and stderr
 * to /dev/null: its exit status, -1 if it did not run or was killed. */
int ts_run_quiet(char *const argv[]);

#endif
