/* benchsite: the measuring protocol presets and the one-batch-size rule,
 * shared by the runner (run.c) and the log linter (check.c), so that what
 * `run` does and what `check` holds a log to are one table. Private. */
#ifndef BENCHSITE_PROTOCOL_H
#define BENCHSITE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

typedef struct bs__protocol {
  const char *name; /* as the manifest's `protocol` spells it */
  double target_us; /* T, the batch time calibration aims at */
  uint64_t blocks;  /* m, per run */
  uint64_t runs;    /* runs (each a fresh measuring process) by default */
} bs__protocol;

/* The preset called `name`, or NULL. */
const bs__protocol *bs__protocol_find(const char *name);
/* "Development, RegressionGate or Shared", for messages. */
const char *bs__protocol_names(void);

/* The confirm batch sizes of one case share the largest calibrated n
 * unless the impls' calibrated per-call times differ by more than this
 * factor (tuning very different code), when each keeps its own. */
#define BS__BATCH_RATIO 4.0

/* Whether calibrated per-call times pmin <= pmax are too far apart for one
 * batch size: pmax > BS__BATCH_RATIO pmin. */
int bs__batch_sizes_apart(double pmin, double pmax);

#endif
