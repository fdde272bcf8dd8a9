/* benchsite: fastest implementation per case and crossovers across scales
 * (SPEC §2.7). */
#ifndef BENCHSITE_TUNE_H
#define BENCHSITE_TUNE_H

#include "benchsite/error.h"
#include "benchsite/log.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bs_tune_median {
  const char *impl;
  double median_us; /* median of all its confirm samples in the case */
  size_t samples;
} bs_tune_median;

typedef struct bs_tune_case {
  const char *benchmark;
  const char *dataset;
  int has_scale;
  double scale;
  const char *best;        /* smallest median; exact ties by impl byte order */
  bs_tune_median *medians; /* sorted by impl, byte order */
  size_t nmedians;
} bs_tune_case;

typedef struct bs_crossover {
  const char *benchmark;
  const char *a; /* a < b in byte order */
  const char *b;
  double scale;                 /* s*, log-log interpolated */
  double scale_low, scale_high; /* the adjacent scales that bracket it */
} bs_crossover;

typedef struct bs_tune_result {
  bs_tune_case *cases; /* by benchmark, then dataset */
  size_t ncases;
  bs_crossover *crossovers; /* by benchmark, a, b, scale */
  size_t ncrossovers;
} bs_tune_result;

/* Scores every case of `log` that has confirm rows. BS_EUSAGE when there
 * is none; BS_ENOMEM. *out borrows strings from `log`. */
bs_status bs_tune_run(const bs_log *log, bs_tune_result **out, bs_error *err);

/* NULL is a no-op. */
void bs_tune_result_free(bs_tune_result *r);

#ifdef __cplusplus
}
#endif
#endif
