/* benchsite: `benchsite run`'s options, protocols, calibration rule and
 * results, which every mode of measuring shares (run_measure.c is the
 * entry). */
#include "benchsite/run.h"
#include "benchsite/protocol.h"

#include "lmath.h"
#include "run_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bs_run_options_init(bs_run_options *o) {
  memset(o, 0, sizeof *o);
  o->mode = BS_RUN_LIBRARY;
  o->target_us = 5000.0;
  o->n_max = BS_RUN_NMAX;
  o->blocks = 10;
  o->runs = 1;
  o->timeout_s = 600.0;
  o->fresh = BS_RUN_FRESH_RUN;
}

bs_status bs_run_protocol(const char *name, double *target_us, uint64_t *blocks,
                          uint64_t *runs, bs_error *err) {
  const bs_protocol *p = bs_protocol_find(name);
  if (!p) {
    char esc[128];
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "unknown protocol \"%s\" (%s)",
                        bs__run_text(esc, sizeof esc, name),
                        bs_protocol_names());
  }
  *target_us = p->target_us;
  *blocks = p->blocks;
  if (runs)
    *runs = p->runs;
  return BS_OK;
}

/* The rule of the measuring protocol, written as `benchsite check`
 * recomputes it: t is n times the per-call time read back from the log. */
uint64_t bs_run_next_batch(uint64_t n, double t_us, double target_us,
                           uint64_t n_max) {
  double want = bs__ceil((double)n * target_us / t_us);
  uint64_t next = n + 1;
  if (want >= (double)n_max)
    return n_max;
  if (want > (double)next)
    next = (uint64_t)want;
  return next < n_max ? next : n_max;
}

void bs_run_result_init(bs_run_result *r) { memset(r, 0, sizeof *r); }

void bs_run_result_release(bs_run_result *r) {
  if (!r)
    return;
  free(r->log);
  for (size_t i = 0; i < r->nwarnings; i++)
    free(r->warnings[i]);
  free(r->warnings);
  for (size_t i = 0; i < r->noutput; i++)
    free(r->output[i]);
  free(r->output);
  memset(r, 0, sizeof *r);
}
