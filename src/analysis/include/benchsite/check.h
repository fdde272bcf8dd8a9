/* benchsite: the log linter behind `benchsite check` (SPEC §1.1, §2.6). */
#ifndef BENCHSITE_CHECK_H
#define BENCHSITE_CHECK_H

#include "benchsite/error.h"
#include "benchsite/log.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Target batch times T of the protocol presets, in microseconds. */
#define BS_CHECK_T_DEVELOPMENT_US 5000.0
#define BS_CHECK_T_REGRESSION_GATE_US 10000.0
/* The largest batch calibration may reach (n_max of SPEC §2.6); the
 * runner's default. */
#define BS_CHECK_DEFAULT_NMAX UINT64_C(1000000000)

typedef enum bs_check_kind {
  BS_CHECK_UNKNOWN_COLUMN = 0, /* a header column the reader ignores */
  BS_CHECK_CALIBRATION,        /* a calibration step breaks the rule */
  BS_CHECK_BATCH_SIZE,         /* confirm batch != the last calibration step */
  BS_CHECK_MISSING_IMPL,       /* a block (or a whole run) lacks an impl */
  BS_CHECK_ROTATION            /* an impl runs first more often than others */
} bs_check_kind;

/* "unknown-column", "calibration", "batch-size", "missing-impl",
 * "rotation". */
const char *bs_check_kind_name(bs_check_kind k);

/* Which confirm batch sizes a log is held to. */
typedef enum bs_check_batch_rule {
  /* The earlier rule: each impl's confirm batches equal its own last
   * calibration step (logs whose manifest lacks batch_rule,per-case). */
  BS_CHECK_BATCH_PER_IMPL = 0,
  /* batch_rule,per-case: every impl of a (case, run) uses the largest last
   * calibration step, unless the impls' calibrated per-call times differ
   * by more than 4x, when each keeps its own last step. An impl's calibrated
   * per-call time is the per_call_us of its fastest calibration step (a batch
   * slowed by other work never looks faster), as `benchsite run` decided
   * until batch_rule least-of-three. */
  BS_CHECK_BATCH_PER_CASE,
  /* batch_rule,least-of-three: as per-case, but the impls keep their own
   * last steps only when their least per-call times over the last three
   * calibration steps differ by more than 4x both in wall time and in CPU
   * time (cpu_per_call_us of the calibration rows, where every impl has
   * it): bs_protocol_batch_apart. */
  BS_CHECK_BATCH_LEAST_OF_THREE
} bs_check_batch_rule;

typedef struct bs_check_options {
  double target_us; /* T of the calibration rule */
  uint64_t n_max;   /* largest batch size calibration may choose */
  bs_check_batch_rule batch_rule;
} bs_check_options;

/* T for the Development preset, n_max BS_CHECK_DEFAULT_NMAX, the earlier
 * batch rule. */
void bs_check_options_init(bs_check_options *o);

/* The T of a manifest's `protocol` value: Shared (also for NULL: run's
 * default, BS_PROTOCOL_DEFAULT) 0.5 ms, Development 5 ms,
 * RegressionGate 10 ms. BS_EINPUT for any other value. */
bs_status bs_check_protocol_target(const char *protocol, double *target_us,
                                   bs_error *err);

/* The rule a manifest's `batch_rule` value names: NULL (the key is
 * absent) the earlier BS_CHECK_BATCH_PER_IMPL, "per-case"
 * BS_CHECK_BATCH_PER_CASE, "least-of-three" BS_CHECK_BATCH_LEAST_OF_THREE
 * (what `benchsite run` writes now). BS_EINPUT for any other value. */
bs_status bs_check_batch_rule_named(const char *value,
                                    bs_check_batch_rule *rule, bs_error *err);

typedef struct bs_finding {
  bs_check_kind kind;
  const char *file; /* points into the log */
  long line;        /* 1-based */
  char *message;    /* without the "file:line: " prefix */
} bs_finding;

typedef struct bs_check_result {
  bs_finding *findings; /* by file (byte order), line, then discovery */
  size_t nfindings;
  size_t rows;  /* rows examined */
  size_t cases; /* cases examined */
} bs_check_result;

/* Lints a log that the reader has accepted (so everything of SPEC §1.1
 * already holds): unknown columns; calibration steps that break
 * n_{k+1} = min(n_max, max(n_k + 1, ceil(n_k T / t_k))) while t_k < T and
 * n_k < n_max, with t_k = n_k per_call_us, per (case, run, impl) in
 * measurement order — a step that does not follow, a step after the rule
 * stopped, a sequence that stops early, a step without iterations;
 * confirm batch sizes that break o->batch_rule; blocks
 * missing an impl of the case (a run without any row of an impl is
 * reported once); and, per (case, run) over the whole cycles of K blocks
 * in ascending block order, an impl that runs first (earliest row of a
 * block) more often than another.
 *
 * Findings are not errors: the call returns BS_OK with *out owned by the
 * caller (bs_check_result_free), BS_EUSAGE for bad options, BS_ENOMEM. */
bs_status bs_check_run(const bs_log *log, const bs_check_options *opt,
                       bs_check_result **out, bs_error *err);

/* NULL is a no-op. */
void bs_check_result_free(bs_check_result *r);

#ifdef __cplusplus
}
#endif
#endif
