/* benchsite: the observation log (SPEC §1.1), read with libcsv. */
#ifndef BENCHSITE_LOG_H
#define BENCHSITE_LOG_H

#include "benchsite/error.h"
#include "benchsite/metric.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bs_phase {
  BS_PHASE_CONFIRM = 0,
  BS_PHASE_CALIBRATION = 1
} bs_phase;

/* One observation: a timed batch. Strings live in the log's arena and stay
 * valid until bs_log_free(); they are never NULL. The batch's value of
 * metric m (benchsite/metric.h) is values[m], present when bit m of
 * `metrics` is set; wall time (per_call_us, the same double as
 * values[BS_METRIC_WALL]) is on every row. */
typedef struct bs_row {
  const char *benchmark;
  const char *dataset; /* "" when the column is absent or empty */
  const char *impl;
  const char *file; /* the path the row was read from */
  long line;        /* 1-based line where the record starts */
  double scale;     /* meaningful only when has_scale */
  union {
    double values[BS_METRIC_COUNT];
    double per_call_us;
  };
  uint64_t run;        /* 0 when absent */
  uint64_t iterations; /* 0 when absent */
  int64_t block;       /* -1 when absent (allowed for calibration rows) */
  bs_phase phase;
  int has_scale;
  unsigned metrics; /* bit m: values[m] is present */
} bs_row;

/* A case is (benchmark, dataset). `rows` indexes bs_log_rows(), in the
 * order the rows were read (measurement order). */
typedef struct bs_case {
  const char *benchmark;
  const char *dataset;
  const size_t *rows;
  size_t nrows;
  int has_scale;
  double scale;
} bs_case;

/* A header column the reader did not know (reported by `check`). */
typedef struct bs_log_column {
  const char *file;
  const char *name;
  size_t index; /* 1-based column number */
} bs_log_column;

/* Caps that turn hostile input into an error (BS_ELIMIT, with file:line
 * where there is one) instead of unbounded allocation or run time. Zero
 * fields mean "use the default". Every default is a BS_LOG_DEFAULT_*
 * macro below:
 *
 *   max_field_bytes   4096        bytes of one field, quoted or not
 *                                 ("field longer than 4096 bytes")
 *   max_columns       256         header fields of one file
 *                                 ("more than 256 columns")
 *   max_rows          20 000 000  rows over all files of one log
 *                                 ("more than 20000000 rows")
 *   max_case_rows     100 000     rows of one case (benchmark, dataset);
 *                                 a bootstrap costs resamples x rows, so
 *                                 this bounds the time one case can take
 *                                 ("more than 100000 rows for benchmark
 *                                 "sort", dataset "n=8"")
 *   max_memory_bytes  2 GiB       everything the log holds: rows, names,
 *                                 the case and duplicate indexes (about
 *                                 120 bytes a row); a file is read in
 *                                 blocks, never whole ("the log needs more
 *                                 than 2147483648 bytes of memory")
 *
 * A record with more fields than its header is refused after counting
 * them, without storing them. max_rows is at most 2^32 - 2. */
#define BS_LOG_DEFAULT_MAX_FIELD_BYTES ((size_t)4096)
#define BS_LOG_DEFAULT_MAX_COLUMNS ((size_t)256)
#define BS_LOG_DEFAULT_MAX_ROWS ((size_t)20000000)
#define BS_LOG_DEFAULT_MAX_CASE_ROWS ((size_t)100000)
#define BS_LOG_DEFAULT_MAX_MEMORY_BYTES ((size_t)1 << 31)

typedef struct bs_log_limits {
  size_t max_field_bytes;
  size_t max_columns;
  size_t max_rows;
  size_t max_case_rows;
  size_t max_memory_bytes;
} bs_log_limits;

typedef struct bs_log bs_log;

/* Returns an empty log, or NULL when out of memory. */
bs_log *bs_log_new(void);
/* Frees the log and every string it handed out. NULL is a no-op. */
void bs_log_free(bs_log *log);
/* Replaces the limits (zero fields take the defaults; NULL: all defaults).
 * They apply to the reads that follow. */
void bs_log_set_limits(bs_log *log, const bs_log_limits *limits);

/* Appends the observations of one CSV file, read in blocks (the file is
 * never held whole). Several files concatenate into one log; validation
 * (SPEC §1.1) covers the whole log, so a duplicate or a scale conflict
 * across files is found too. On error nothing of this file is kept, `err`
 * names "file:line: column NAME: ..." and BS_EINPUT (bad content),
 * BS_ELIMIT (a cap was hit), BS_EIO (unreadable) or BS_ENOMEM is returned.
 * Accepted beyond RFC 4180: a UTF-8 BOM at the start, CRLF, LF or CR line
 * endings (mixed too), blank lines (tests/data/bad/README.md). In messages
 * the file name and quoted values have control characters and invalid
 * UTF-8 escaped, so a message is one printable line. */
bs_status bs_log_read_file(bs_log *log, const char *path, bs_error *err);
/* The same for bytes in memory; `name` is used in messages. */
bs_status bs_log_read_buffer(bs_log *log, const char *name, const char *data,
                             size_t len, bs_error *err);

size_t bs_log_count(const bs_log *log);
/* All rows in read order; valid until the next read or bs_log_free(). */
const bs_row *bs_log_rows(const bs_log *log);

/* Cases in case order (benchsite/order.h): benchmarks in natural order,
 * then by scale or natural dataset order. */
size_t bs_log_case_count(const bs_log *log);
const bs_case *bs_log_case(const bs_log *log, size_t i);

/* The first confirm row (in read order) without a value of metric m, or
 * NULL when every confirm row has one (always NULL for wall time). */
const bs_row *bs_log_lacking(const bs_log *log, bs_metric m);
/* BS_OK when every confirm row of the log carries metric m, so that an
 * analysis of m can use every row; otherwise BS_EINPUT naming the first
 * row that lacks it, as file:line (and whether its file has no such
 * column at all), or BS_EUSAGE for a value of m that is not a metric. */
bs_status bs_log_require_metric(const bs_log *log, bs_metric m, bs_error *err);

size_t bs_log_unknown_count(const bs_log *log);
const bs_log_column *bs_log_unknown(const bs_log *log, size_t i);

#ifdef __cplusplus
}
#endif
#endif
