/* benchsite: what the gate can see, on this machine. `benchsite
 * calibrate` measures the user's own benchmark against itself (A/A) and
 * against planted slowdowns of known size, many times, and judges every
 * measurement with the unchanged gate (the confirmatory compare, delta 3
 * %): how often identical code is flagged, how often a planted p % is
 * found, each with exact one-sided 95 % Clopper-Pearson bounds. */
#ifndef BENCHSITE_CALIBRATE_H
#define BENCHSITE_CALIBRATE_H

#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/run.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The most plants one calibration measures. */
#define BS_CALIBRATE_MAX_PLANTS 8
/* The confidence of every bound (one-sided). */
#define BS_CALIBRATE_CONFIDENCE 0.95

/* How a plant is made. */
typedef enum bs_calibrate_method {
  /* Library mode: the planted impl's batch of n calls makes ceil(n p /
   * 100) more calls, timed with the n. Sequential (run.duet 0): one run
   * measures the base twice and once per plant, interleaved in the same
   * blocks, so each run gives an A/A judgement and one per plant. Duet
   * (run.duet 1, as `run` measures two impls by default): each rep is 1
   * + plants two-impl runs side by side, the base beside a copy of itself
   * (the A/A judgement) and beside each planted copy (one per plant). */
  BS_CALIBRATE_REAL_WORK = 0,
  /* Command and harness modes: each run measures the base twice (an A/A
   * pair, as `run` measures two impls); a plant is the candidate's
   * observations of that run multiplied by (1 + p / 100). */
  BS_CALIBRATE_SCALED
} bs_calibrate_method;

/* "real work", "scaled observations". */
const char *bs_calibrate_method_name(bs_calibrate_method m);

/* Where a calibration stands, for a progress display. */
typedef struct bs_calibrate_progress {
  uint64_t rep, reps; /* the rep being measured (0-based) of reps */
  size_t pair, pairs; /* duet: the rep's two-impl run (0-based: 0 the A/A
                         pair, 1 + p plant p) of 1 + plants; else 0 of 1 */
  double elapsed_s;   /* since the calibration started */
  const bs_run_progress *run; /* within that run; NULL while judging */
} bs_calibrate_progress;

typedef struct bs_calibrate_options {
  /* How each run measures, as `benchsite run` takes it: mode, the one
   * impl to calibrate (impls[0], nimpls 1: its name labels the outputs),
   * protocol settings (target_us, blocks, runs), seed, filter, timeout,
   * fresh, layout_fixed, duet (library mode: each rep as 1 + plants
   * two-impl duet runs instead of one interleaved run), benchmark and
   * dataset. Its impls, plants, seed per run and progress are
   * calibrate's: rep r is measured with seed + r (each of a duet rep's
   * runs too), so each draws its own layouts and rotation;
   * the gate's bootstrap uses `seed` for every judgement, as `compare`. */
  bs_run_options run;
  const char *protocol; /* the protocol's name, recorded (may be NULL) */
  const double *plants; /* 1..BS_CALIBRATE_MAX_PLANTS sizes in %, each in
                           (0, 100], strictly ascending */
  size_t nplants;
  uint64_t reps;   /* reps measured (one run each, or 1 + plants duet
                      runs): A/A judgements, and per plant */
  double budget_s; /* > 0: no new run starts once this many seconds have
                      passed (at least 2 runs are measured); 0: none */
  /* The manifest of this machine and setup, copied into the result (its
   * comparability keys are what `compare --calibration` checks); NULL:
   * none. */
  const bs_manifest *environment;
  /* Called (when not NULL) before each run and from within it; a non-zero
   * return cancels (BS_EIO, "cancelled"). */
  int (*progress)(void *ctx, const bs_calibrate_progress *p);
  void *progress_ctx;
} bs_calibrate_options;

/* Library mode's defaults: run options as bs_run_options_init leaves them,
 * plants 3, 5 and 10 %, reps BS_CALIBRATE_DEFAULT_REPS, no budget. */
void bs_calibrate_options_init(bs_calibrate_options *o);
#define BS_CALIBRATE_DEFAULT_REPS 40

/* k of n judgements, the share and its exact one-sided 95 % bounds:
 * `low` the Clopper-Pearson lower bound (0 when k = 0), `high` the upper
 * (1 when k = n). Shares and bounds are fractions. */
typedef struct bs_calibration_rate {
  uint64_t k, n;
  double rate, low, high;
} bs_calibration_rate;

/* Fills r from k of n (n 0: rate NaN, bounds 0 and 1). */
void bs_calibration_rate_set(bs_calibration_rate *r, uint64_t k, uint64_t n);

typedef struct bs_calibration_case {
  char *benchmark, *dataset;        /* untrusted text */
  bs_calibration_rate false_alarms; /* A/A judgements the gate flagged */
  double aa_median_delta_pct;       /* median of the A/A paired changes */
  bs_calibration_rate *found;       /* per plant: judgements flagged */
  double *median_delta_pct;         /* per plant: the median paired change
                                       measured, the planted size as the gate sees
                                       it */
} bs_calibration_case;

typedef struct bs_calibration {
  char *impl; /* the calibrated impl's name */
  bs_run_mode mode;
  bs_calibrate_method method;
  double *plants;
  size_t nplants;
  char *protocol; /* "" when not given */
  double target_us;
  uint64_t blocks, runs_per_rep; /* what each run measured */
  int duet;
  uint64_t seed;
  uint64_t reps_planned, reps; /* reps asked for and measured */
  int budget_hit;              /* the budget ended it before reps_planned */
  double seconds;              /* wall time of the whole calibration */
  char date[32];               /* when it finished (UTC, ISO 8601) */
  bs_manifest *environment;    /* never NULL (empty without one) */
  bs_calibration_case *cases;  /* in case order (benchsite/order.h) */
  size_t ncases;
  /* Per suite: runs in which the gate flagged at least one case of
   * identical code (what a CI job would have failed on), and per plant
   * the case-runs in which the plant was found, pooled over the cases
   * (their bounds treat case-runs as independent, which cases of one run
   * need not be), and the smallest per-case share. */
  bs_calibration_rate suite_false_alarms;
  bs_calibration_rate *suite_found;
  double *suite_min_found;
} bs_calibration;

/* Measures o->reps runs (or fewer, when the budget ends it) and judges
 * each: *out is malloc'd (bs_calibration_free). Errors: BS_EUSAGE for bad
 * options (naming the option), a run's own errors (bs_run_measure: the
 * benchmark at fault, BS_EINPUT; the same code computing different
 * results, BS_EINPUT), the gate's (bs_compare_run), BS_EIO when the
 * progress callback cancels, BS_ENOMEM. *out is NULL on error. */
bs_status bs_calibrate_run(const bs_calibrate_options *o, bs_calibration **out,
                           bs_error *err);

/* A calibration judged from logs already measured (tests and command
 * mode): rep r's log is logs[r] (CSV text, impls "A" and "B" and, with
 * BS_CALIBRATE_REAL_WORK, "P1".."Pn" for the plants in order), judged as
 * bs_calibrate_run judges its runs. With BS_CALIBRATE_REAL_WORK and
 * o->run.duet, a rep is 1 + nplants logs instead: rep r's run j is
 * logs[r (1 + nplants) + j], impls "A" and "B" (j 0) or "A" and "Pj". The run
 * settings and environment come from o; seconds and date are left 0 and "". */
bs_status bs_calibrate_judge_logs(const bs_calibrate_options *o,
                                  bs_calibrate_method method,
                                  const char *const *logs, const size_t *lens,
                                  size_t nlogs, bs_calibration **out,
                                  bs_error *err);

/* NULL is a no-op. */
void bs_calibration_free(bs_calibration *c);

/* The calibration as JSON (benchsite.calibration/1; README describes
 * every field), as a text report for a terminal (benchmark names escaped
 * for it), and as an HTML page with a chart of the share found against
 * the plant size per case: `dir` (which must exist) receives index.html
 * and calibration.svg (gnuplot; `gnuplot` NULL: found in PATH). The
 * texts are malloc'd into *out. BS_ENOMEM, and for the page BS_EPLOT and
 * BS_EIO. */
bs_status bs_calibration_json(const bs_calibration *c, char **out, size_t *len,
                              bs_error *err);
bs_status bs_calibration_text(const bs_calibration *c, char **out, size_t *len,
                              bs_error *err);
bs_status bs_calibration_html(const bs_calibration *c, const char *dir,
                              const char *gnuplot, bs_error *err);

#ifdef __cplusplus
}
#endif

#endif
