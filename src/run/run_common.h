/* benchsite: what every file of the runner uses (run.c, run_exec.c,
 * run_child.c, run_gbench.c): escaped labels for messages, the log's
 * header and rows, wait statuses, the clock. It depends on none of them,
 * so the runner's files form no circle. Private. */
#ifndef BENCHSITE_RUN_COMMON_H
#define BENCHSITE_RUN_COMMON_H

#include "benchsite/run.h"

#include "buf.h"
#include "strset.h"

#include <stddef.h>
#include <stdint.h>

/* Untrusted text for a message or a warning, escaped for a terminal or CI
 * log by the program's one escaper (bs_text_escape: control characters,
 * U+2028/U+2029, invalid UTF-8 and "##[" as \xNN), cut with "..." to fit
 * out (n bytes). Returns out. */
const char *bs__run_text(char *out, size_t n, const char *s);
/* "benchmark [dataset]" (or "benchmark"), escaped, into out. */
const char *bs__run_case_label(char *out, size_t n, const char *benchmark,
                               const char *dataset);
/* Appends a warning (printf-formatted) to r. */
bs_status bs__run_warn(bs_run_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Whether s is valid UTF-8. */
int bs__run_valid_utf8(const char *s);

/* Cases by name: a hash map from (benchmark, dataset) to an index, so
 * that tens of thousands of cases cost no quadratic scan. */
typedef struct bs__run_cases {
  bs__strset set;
  char *key; /* scratch: "benchmark\0dataset" */
  size_t cap;
} bs__run_cases;

void bs__run_cases_init(bs__run_cases *c);
void bs__run_cases_release(bs__run_cases *c);
/* Adds the case (b[0..bl-1], d[0..dl-1]) with value v unless present.
 * Returns 1 when added, 0 when present (*old its value, when old is not
 * NULL), -1 when out of memory. */
int bs__run_cases_put(bs__run_cases *c, const char *b, size_t bl, const char *d,
                      size_t dl, size_t v, size_t *old);
/* 1 and *v when the case is present, 0 when not, -1 when out of memory. */
int bs__run_cases_get(bs__run_cases *c, const char *b, const char *d,
                      size_t *v);

/* --filter: TEXT, a case whose name ("benchmark/dataset", or "benchmark"
 * when the dataset is empty) contains it; a '^' first anchors it at the
 * name's start and a '$' last at its end (both: the whole name). Every
 * other character is itself. */
typedef struct bs__filter {
  const char *text; /* the literal part (points into the option) */
  size_t len;
  int start, end; /* anchored at the start, at the end */
} bs__filter;

/* f from s (NULL or "": every case matches). */
void bs__filter_parse(bs__filter *f, const char *s);
/* Whether the case (b[0..bl-1], d[0..dl-1]) matches f (NULL: yes). */
int bs__filter_match(const bs__filter *f, const char *b, size_t bl,
                     const char *d, size_t dl);

/* The columns of a log: cpu_per_call_us, max_rss_kib, look (adaptive
 * runs), tries (blocks measured again), and extra columns (a harness
 * adapter's, which the log's reader ignores). */
typedef struct bs__run_cols {
  int cpu, rss, look, tries;
  const char *const *extra; /* NULL-terminated, or NULL */
} bs__run_cols;

/* One row of the log. */
typedef struct bs__run_row {
  const char *benchmark, *dataset;
  double scale; /* 0: none */
  const char *impl;
  uint64_t run;
  long long block; /* < 0: a calibration row */
  uint64_t iterations;
  double per_call_us;
  double cpu_per_call_us; /* < 0: not measured (an empty cell) */
  int has_rss;
  uint64_t max_rss_kib; /* when has_rss */
  unsigned look;        /* with cols.look */
  unsigned tries;       /* with cols.tries: 0 empty (calibration rows) */
  const double *extra;  /* per extra column (NaN: empty), or NULL */
} bs__run_row;

/* The log's header line: benchmark, dataset, scale, impl, run, block,
 * phase, iterations, per_call_us, then as c says cpu_per_call_us,
 * max_rss_kib, look, tries and the extra columns. */
bs_status bs__run_log_header(bs__buf *b, const bs__run_cols *c);
/* One row, with the columns of the header. */
bs_status bs__run_log_row(bs__buf *b, const bs__run_row *row,
                          const bs__run_cols *c);

/* "exited with status 3" / "was killed by signal 11 (Segmentation fault)"
 * for a wait status, into out. */
const char *bs__run_wait_text(char *out, size_t n, int st);

/* A word that ends `/`-separated path p (the basename). */
const char *bs__run_basename(const char *p);

/* Seconds on CLOCK_MONOTONIC. */
double bs__run_now(void);

#endif
