/* The confirm rows of two impls of one case, keyed by (run, block) for
 * pairing: gathered by bs_compare_run (baseline, candidate) and
 * bs_noise_run (A, B). Private. */
#ifndef BENCHSITE_PAIRS_H
#define BENCHSITE_PAIRS_H

#include "benchsite/error.h"
#include "benchsite/log.h"

#include <stddef.h>
#include <stdint.h>

/* One confirm row of one impl, keyed for pairing. */
typedef struct bs__keyed {
  uint64_t run;
  int64_t block;
  const bs_row *row; /* points into the log */
} bs__keyed;

/* Row `row`'s value of metric m (bs_log_value, wall time without a
 * call). */
static inline double bs__row_value(const bs_log *log, const bs_row *row,
                                   bs_metric m) {
  return m == BS_METRIC_WALL ? row->per_call_us : bs_log_value(log, row, m);
}

/* qsort comparator of bs__keyed: by run, then block. */
int bs__keyed_cmp(const void *a, const void *b);

/* The rows of impls x and y of one case. Zero it before the first
 * gather; release it with bs__pairs_release. */
typedef struct bs__pairs {
  const bs_log *log; /* the log of the last gather */
  bs__keyed *x, *y;
  size_t nx, ny;
} bs__pairs;

/* Replaces p's rows with the confirm rows of case `lc` of `log` whose
 * impl is x (into p->x) or y (into p->y), in log order (sort them with
 * bs__keyed_cmp). Returns BS_OK, or BS_ENOMEM with err set (p stays
 * releasable). */
bs_status bs__pairs_gather(bs__pairs *p, const bs_log *log, const bs_case *lc,
                           const char *x, const char *y, bs_error *err);
void bs__pairs_release(bs__pairs *p);

/* Sorts p's rows by (run, block) and pairs them: every key must have one
 * row of x and one of y, else BS_EMISMATCH naming the case `label` and, as
 * file:line, each row without a partner. On success *d (malloc'd, *m
 * entries, m >= 1 when both have rows) holds y_j - x_j of `metric` in
 * (run, block) order. BS_ENOMEM. */
bs_status bs__pairs_deltas(bs__pairs *p, bs_metric metric, const char *label,
                           double **d, size_t *m, bs_error *err);

/* Appends "impl [run R ]block B (file:line)" for the unpaired row k to
 * msg (cap bytes, *used of them taken; the run only when with_run),
 * separated by ", ". *listed counts every unpaired row; the ones after
 * the eighth are counted but not described. */
void bs__keyed_describe(char *msg, size_t cap, size_t *used, const bs_log *log,
                        const bs__keyed *k, int with_run, size_t *listed);

#endif
