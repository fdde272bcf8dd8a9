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

/* One observation: a timed batch, kept compact (40 bytes: a log of 100 MB
 * holds one to two million of them). Names are interned in the log's
 * arena: equal names are one pointer, valid until bs_log_free(), never
 * NULL. What a row shares with its case or file lives there, reached
 * through the log: bs_log_row_case() (benchmark, dataset, scale),
 * bs_log_row_file() (the path it was read from). Wall time (per_call_us,
 * metric BS_METRIC_WALL) is on every row; the batch's value of any metric
 * m (benchsite/metric.h) is bs_log_value(), present when bit m of
 * `metrics` is set. The run and block are bs_row_run() and bs_row_block():
 * the row holds them in 32 bits, and the log the rare values that need
 * more. */
typedef struct bs_row {
  double per_call_us;  /* wall time per call, µs: finite, > 0 */
  uint64_t iterations; /* 0 when absent */
  const char *impl;
  uint32_t line;        /* 1-based line where the record starts */
  uint32_t run32;       /* the run unless `wide` (use bs_row_run) */
  int32_t block32;      /* the block unless `wide` (use bs_row_block) */
  unsigned phase : 1;   /* a bs_phase */
  unsigned metrics : 3; /* bit m: metric m has a value on this row */
  unsigned wide : 1;    /* run or block past 32 bits: kept by the log */
  unsigned look : 3;    /* 0: no `look`; else the look + 1 (bs_row_look) */
  unsigned cid : 24;    /* the log's own number of the row's case */
} bs_row;

/* The looks of an adaptive run (`benchsite run` measuring undecided cases
 * again): look 0 is the planned runs, look k the k-th round of extra runs.
 * A log without the `look` column comes from a single look. */
#define BS_LOG_MAX_LOOK 3

/* A case is (benchmark, dataset). `rows` indexes bs_log_rows(), in the
 * order the rows were read (measurement order). */
typedef struct bs_case {
  const char *benchmark;
  const char *dataset; /* "" when the column is absent or empty */
  const uint32_t *rows;
  size_t nrows;
  int has_scale;
  double scale; /* every row of the case has it; meaningful if has_scale */
  /* 0 when no row of the case has a `look`; else 1 + the largest look of
   * its rows: how many times an adaptive run looked at it. */
  unsigned looks;
} bs_case;

/* A header column the reader did not know (reported by `check`). The
 * extra columns benchsite's harness adapters write and no analysis reads
 * (bs_log_column_extra) are known, not listed. */
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
 *                                 the case index (about 52 bytes a row,
 *                                 8 more for each of cpu_per_call_us and
 *                                 max_rss_kib when a file has it); a file
 *                                 is read in blocks, never whole ("the log
 *                                 needs more than 2147483648 bytes of
 *                                 memory")
 *
 * A record with more fields than its header is refused after counting
 * them, without storing them. max_rows is at most 2^32 - 2; a log holds at
 * most 2^24 - 1 cases ("more than 16777215 cases") and rows on lines up
 * to 2^32 - 1 ("line number past 4294967295"). */
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

/* For a row of bs_log_rows(log) (no other pointer is allowed): */
/* the path it was read from, as given to the read; never NULL; */
const char *bs_log_row_file(const bs_log *log, const bs_row *row);
/* its case (benchmark, dataset, scale), never NULL; */
const bs_case *bs_log_row_case(const bs_log *log, const bs_row *row);
/* its value of metric m: per_call_us for wall time, the value read where
 * bit m of row->metrics is set, else 0; */
double bs_log_value(const bs_log *log, const bs_row *row, bs_metric m);
/* its run (0 when absent) and block (-1 when absent) when they need more
 * than 32 bits (row->wide): bs_row_run() and bs_row_block() ask. */
uint64_t bs_log_wide_run(const bs_log *log, const bs_row *row);
int64_t bs_log_wide_block(const bs_log *log, const bs_row *row);

/* The run of a row of bs_log_rows(log): 0 when absent. */
static inline uint64_t bs_row_run(const bs_log *log, const bs_row *row) {
  return row->wide ? bs_log_wide_run(log, row) : row->run32;
}
/* The block of a row of bs_log_rows(log): -1 when absent. */
static inline int64_t bs_row_block(const bs_log *log, const bs_row *row) {
  return row->wide ? bs_log_wide_block(log, row) : row->block32;
}
/* The look of a row (0 to BS_LOG_MAX_LOOK), or -1 when it has none. */
static inline int bs_row_look(const bs_row *row) { return (int)row->look - 1; }

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

/* 1 when `name` is an extra column that `benchsite run` writes beside the
 * metrics and no analysis reads (go-bench: procs, bytes_per_op,
 * allocs_per_op), else 0. */
int bs_log_column_extra(const char *name);

size_t bs_log_unknown_count(const bs_log *log);
const bs_log_column *bs_log_unknown(const bs_log *log, size_t i);

#ifdef __cplusplus
}
#endif
#endif
