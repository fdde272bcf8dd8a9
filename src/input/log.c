/* benchsite: an observation log as read -- its rows, cases, files and
 * unknown columns -- and the caps a reader holds it to. Reading is
 * log_read.c. */
#include "benchsite/log.h"

#include "hash.h"
#include "log_int.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

bs_log *bs_log_new(void) {
  bs_log *log = calloc(1, sizeof *log);
  if (!log)
    return NULL;
  bs__arena_init(&log->arena);
  bs_log_set_limits(log, NULL);
  for (int m = 0; m < BS_METRIC_COUNT; m++)
    log->lacking[m] = EMPTY;
  int local = 0;
  log->seed = bs__mix64((uint64_t)(uintptr_t)log ^
                        bs__mix64((uint64_t)(uintptr_t)&local) ^
                        (uint64_t)(uintptr_t)&bs_log_new);
  return log;
}

void bs_log_free(bs_log *log) {
  if (!log)
    return;
  bs__arena_release(&log->arena);
  bs__big_release(&log->rows_mem);
  for (int m = 0; m < BS_METRIC_COUNT; m++)
    bs__big_release(&log->values[m]);
  free(log->files);
  free(log->wide);
  bs__big_release(&log->istr_mem);
  for (size_t i = 0; i < log->ncases; i++)
    free(log->cases[i].dup);
  bs__big_release(&log->cases_mem);
  bs__big_release(&log->cslot_mem);
  bs__big_release(&log->index_cases);
  free(log->case_pos);
  bs__big_release(&log->index_mem);
  free(log->unknown);
  free(log);
}

void bs_log_set_limits(bs_log *log, const bs_log_limits *limits) {
  bs_log_limits l;
  memset(&l, 0, sizeof l);
  if (limits)
    l = *limits;
  bs_log_limits *o = &log->limits;
  o->max_field_bytes =
      l.max_field_bytes ? l.max_field_bytes : BS_LOG_DEFAULT_MAX_FIELD_BYTES;
  o->max_columns = l.max_columns ? l.max_columns : BS_LOG_DEFAULT_MAX_COLUMNS;
  o->max_rows = l.max_rows ? l.max_rows : BS_LOG_DEFAULT_MAX_ROWS;
  if (o->max_rows > ROWS_HARD_MAX)
    o->max_rows = ROWS_HARD_MAX;
  o->max_case_rows =
      l.max_case_rows ? l.max_case_rows : BS_LOG_DEFAULT_MAX_CASE_ROWS;
  o->max_memory_bytes =
      l.max_memory_bytes ? l.max_memory_bytes : BS_LOG_DEFAULT_MAX_MEMORY_BYTES;
}

size_t bs_log_count(const bs_log *log) { return log->nrows; }

const bs_row *bs_log_rows(const bs_log *log) { return log->rows; }

const char *bs_log_row_file(const bs_log *log, const bs_row *row) {
  size_t id = (size_t)(row - log->rows);
  /* The last file whose rows start at or before id. */
  size_t lo = 0, hi = log->nfiles;
  while (hi - lo > 1) {
    size_t mid = lo + (hi - lo) / 2;
    if (log->files[mid].first_row <= id)
      lo = mid;
    else
      hi = mid;
  }
  return log->nfiles ? log->files[lo].name : "";
}

const bs_case *bs_log_row_case(const bs_log *log, const bs_row *row) {
  return &log->index[log->case_pos[row->cid]];
}

double bs_log_value(const bs_log *log, const bs_row *row, bs_metric m) {
  if (m == BS_METRIC_WALL)
    return row->per_call_us;
  if ((unsigned)m >= BS_METRIC_COUNT || !(row->metrics & (1u << m)) ||
      !log->values[m].p)
    return 0.0;
  return ((const double *)log->values[m].p)[row - log->rows];
}

size_t bs_log_case_count(const bs_log *log) { return log->nindex; }

const bs_case *bs_log_case(const bs_log *log, size_t i) {
  return i < log->nindex ? &log->index[i] : NULL;
}

const bs_row *bs_log_lacking(const bs_log *log, bs_metric m) {
  if ((unsigned)m >= BS_METRIC_COUNT || log->lacking[m] == EMPTY)
    return NULL;
  return &log->rows[log->lacking[m]];
}

bs_status bs_log_require_metric(const bs_log *log, bs_metric m, bs_error *err) {
  const bs_metric_info *mi = bs_metric_get(m);
  if (!mi)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown metric %d", (int)m);
  const bs_row *row = bs_log_lacking(log, m);
  if (!row)
    return BS_OK;
  char path[BS__PATH_BUF];
  if (log->lacking_column[m])
    return bs_error_set(err, BS_EINPUT,
                        bs__csvin_path(path, bs_log_row_file(log, row)),
                        (long)row->line,
                        "confirm row has no %s: the file has no column %s, "
                        "and metric %s (%s) needs it on every confirm row",
                        mi->column, mi->column, mi->name, mi->quantity);
  return bs_error_set(err, BS_EINPUT,
                      bs__csvin_path(path, bs_log_row_file(log, row)),
                      (long)row->line,
                      "column %s: empty, and metric %s (%s) needs it on "
                      "every confirm row",
                      mi->column, mi->name, mi->quantity);
}

/* The go-bench adapter's columns (run_gobench.c): the GOMAXPROCS suffix
 * of a name, and B/op and allocs/op; and how many tries a block of library
 * and command mode took (run_blocks.c). test_run checks that every adapter's
 * extra column is listed here. */
static const char *const runner_extras[] = {"procs", "bytes_per_op", "tries",
                                            "allocs_per_op"};

int bs_log_column_extra(const char *name) {
  for (size_t i = 0; i < sizeof runner_extras / sizeof runner_extras[0]; i++)
    if (!strcmp(name, runner_extras[i]))
      return 1;
  return 0;
}

size_t bs_log_unknown_count(const bs_log *log) { return log->nunknown; }

const bs_log_column *bs_log_unknown(const bs_log *log, size_t i) {
  return i < log->nunknown ? &log->unknown[i] : NULL;
}
