/* benchsite: the measured quantities (SPEC §1.1 metrics). A log may carry
 * several metrics -- wall time always, CPU time and peak memory when the
 * runner recorded them -- and every analysis uses one at a time, the same
 * formulas on that metric's column. A metric is one row of a table: its
 * name, its log column, what it measures, its unit and how values are
 * displayed, whether zero is a valid value and which way is better. The log
 * reader, the analyses and every view take a bs_metric and look the rest
 * up here, so adding a metric is adding a row (and a test). */
#ifndef BENCHSITE_METRIC_H
#define BENCHSITE_METRIC_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The metrics, in the order of the table (and of bs_row.values). Zero is
 * wall time, so zeroed options measure wall time. */
typedef enum bs_metric {
  BS_METRIC_WALL = 0, /* per_call_us: wall time per call, µs (required) */
  BS_METRIC_CPU = 1,  /* cpu_per_call_us: CPU time per call, µs */
  BS_METRIC_RSS = 2   /* max_rss_kib: peak resident memory, KiB */
} bs_metric;
#define BS_METRIC_COUNT 3

/* One step of a metric's display ladder: a value whose largest magnitude
 * in a column is at least `from` (in the metric's unit) is shown as value
 * times `factor`, followed by `name`. */
typedef struct bs_metric_unit {
  const char *name; /* "ns", "µs", "KiB", "MiB" */
  double from;      /* 0 for the first step: any positive magnitude */
  double factor;
} bs_metric_unit;

typedef struct bs_metric_info {
  bs_metric id;
  const char *name;     /* for --metric and JSON "metric": "wall" */
  const char *column;   /* the log column (SPEC §1.1): "per_call_us" */
  const char *quantity; /* what a value is, for views: "wall time per call" */
  const char *unit;     /* the column's unit: "µs", "KiB" */
  const char *best;     /* the word for the best value: "fastest" */
  int required;         /* 1: every log has the column (wall time) */
  int zero_allowed;     /* 1: values are finite and >= 0; 0: > 0 */
  int lower_is_better;  /* 1 for every metric so far (see below) */
  /* Display: the ladder of units, ascending `from`; units[base] is the
   * column's unit, used for zero and values that are not finite. */
  const bs_metric_unit *units;
  size_t nunits;
  size_t base;
} bs_metric_info;

/* The table row of `m`, or NULL when m is not a metric. */
const bs_metric_info *bs_metric_get(bs_metric m);

/* The metric named `name` ("wall", "cpu", "rss"). BS_EUSAGE naming the
 * known metrics when there is none ("unknown metric "x" (wall, cpu or
 * rss)"); *out is then unchanged. `name` may not be NULL. */
bs_status bs_metric_parse(const char *name, bs_metric *out, bs_error *err);

/* The metric whose log column is `column`, or -1. */
int bs_metric_by_column(const char *column);

/* The unit in which values up to `maxabs` (largest magnitude, in the
 * metric's unit) read best, and the factor that converts into it: for wall
 * and CPU time ns, µs, ms or s; for memory B, KiB, MiB or GiB. Zero and
 * values that are not finite give the metric's own unit (factor 1). */
const char *bs_metric_display_unit(bs_metric m, double maxabs, double *factor);

/* The verdicts (slower/faster, regression/improvement) read a larger
 * value as worse: every metric of the table is lower-is-better, and the
 * analyses refuse one that is not (BS_EUSAGE) rather than invert its
 * verdicts silently. */
bs_status bs_metric_check_direction(bs_metric m, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
