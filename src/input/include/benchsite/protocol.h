/* benchsite: the measuring protocol presets and the one-batch-size rule,
 * shared by the runner (`benchsite run`) and the log linter (`benchsite
 * check`), so that what `run` does and what `check` holds a log to are one
 * table. */
#ifndef BENCHSITE_PROTOCOL_H
#define BENCHSITE_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The protocol of a run that names none (chosen by the verdict lab,
 * bench/README.md), and what `check` holds a log without a manifest to. */
#define BS_PROTOCOL_DEFAULT "Shared"

typedef struct bs_protocol {
  const char *name; /* as the manifest's `protocol` spells it */
  double target_us; /* T, the batch time calibration aims at */
  uint64_t blocks;  /* m, per run */
  uint64_t runs;    /* runs (each a fresh measuring process) by default */
} bs_protocol;

/* The preset called `name`, or NULL. */
const bs_protocol *bs_protocol_find(const char *name);
/* "Development, RegressionGate or Shared", for messages. */
const char *bs_protocol_names(void);

/* The confirm batch sizes of one case share the largest calibrated n
 * unless the impls' calibrated per-call times differ by more than this
 * factor (tuning very different code), when each keeps its own. */
#define BS_PROTOCOL_BATCH_RATIO 4.0

/* Whether calibrated per-call times pmin <= pmax are too far apart for one
 * batch size: pmax > BS_PROTOCOL_BATCH_RATIO pmin. */
int bs_protocol_sizes_apart(double pmin, double pmax);

/* The 4x exception as `benchsite run` (batch_rule least-of-three) takes
 * it: wall[i] and cpu[i] are impl i's least per-call times over its last
 * three calibration steps, in wall time and in CPU time. The impls keep
 * their own batch sizes only when both spread by more than the ratio: a
 * step that lost its CPU to other work looks slower in wall time only.
 * cpu NULL, or any cpu[i] <= 0 (not measured: a command that only
 * sleeps), leaves wall time alone to decide. k >= 1. */
int bs_protocol_batch_apart(const double *wall, const double *cpu, size_t k);

#ifdef __cplusplus
}
#endif
#endif
