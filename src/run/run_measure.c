/* benchsite: bs_run_measure, the one entry of `benchsite run`: it checks
 * the options and hands them to the mode that measures, library and
 * command mode (run_blocks.c) or a harness adapter (run_harness.c). */
#include "benchsite/run.h"

#include "run_common.h"
#include "run_harness.h"
#include "run_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

int bs_run_duet_possible(const bs_run_options *o) {
  int cpu[2];
  const bs__adapter *a = bs__adapter_for(o->mode);
  return o->nimpls == 2 && (!a || bs__harness_duet_default(a)) &&
         bs__run_first_two_cpus(cpu) == 2;
}

static bs_status check_options(const bs_run_options *o, bs_error *err) {
  if (o->nimpls < 1)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "no impl to measure");
  if (o->nimpls > 1000)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "more than 1000 impls");
  if (!(isfinite(o->target_us) && o->target_us > 0) || o->n_max < 1 ||
      o->blocks < 1 || o->runs < 1 || o->blocks > 1000000 ||
      o->runs > 1000000 || !(o->timeout_s > 0 && o->timeout_s <= 1e9))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "bad run options (T, n_max, blocks, runs and the "
                        "timeout must be positive)");
  if (o->fresh != BS_RUN_FRESH_RUN && o->fresh != BS_RUN_FRESH_BLOCK)
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "bad run options (fresh)");
  if (o->duet && o->nimpls != 2)
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "--duet measures exactly two impls side by side, not "
                        "%zu",
                        o->nimpls);
  for (size_t i = 0; i < o->nimpls; i++) {
    char esc[128];
    const char *name = o->impls[i].name;
    if (!name || !name[0])
      return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty impl name");
    if (!bs__run_valid_utf8(name))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "impl name \"%s\" is not valid UTF-8",
                          bs__run_text(esc, sizeof esc, name));
    if (!o->impls[i].target || !o->impls[i].target[0])
      return bs_error_set(err, BS_EUSAGE, NULL, 0, "impl %s: nothing to run",
                          bs__run_text(esc, sizeof esc, name));
    const char *dir = o->impls[i].dir;
    if (strlen(name) > BS__NAME_MAX ||
        strlen(o->impls[i].target) > BS__TARGET_MAX ||
        (dir && strlen(dir) > BS__NAME_MAX))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "impl %s: its name or directory is over %d bytes, "
                          "or its target over %d",
                          bs__run_text(esc, sizeof esc, name), BS__NAME_MAX,
                          BS__TARGET_MAX);
    if (dir && o->mode == BS_RUN_LIBRARY)
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "impl %s: a library has no directory to run in",
                          bs__run_text(esc, sizeof esc, name));
    for (size_t j = 0; j < i; j++)
      if (!strcmp(o->impls[j].name, name))
        return bs_error_set(err, BS_EUSAGE, NULL, 0,
                            "impl %s is given twice (the same code under two "
                            "ids needs two names, e.g. A and B)",
                            bs__run_text(esc, sizeof esc, name));
  }
  if (o->plant_pct != 0 &&
      (!(o->plant_pct > 0 && o->plant_pct <= 1000) ||
       o->mode != BS_RUN_LIBRARY || o->plant_impl >= o->nimpls))
    return bs_error_set(err, BS_EUSAGE, NULL, 0,
                        "a planted slowdown is 0 to 1000 %% of a library "
                        "impl's work");
  for (size_t i = 0; o->plant_pcts && i < o->nimpls; i++)
    if (!(o->plant_pcts[i] >= 0 && o->plant_pcts[i] <= 1000) ||
        (o->plant_pcts[i] > 0 && o->mode != BS_RUN_LIBRARY))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "a planted slowdown is 0 to 1000 %% of a library "
                          "impl's work");
  const char *labels[] = {o->benchmark, o->dataset, o->filter};
  for (size_t i = 0; i < 3; i++)
    if (labels[i] && !bs__run_valid_utf8(labels[i]))
      return bs_error_set(err, BS_EUSAGE, NULL, 0,
                          "--benchmark, --dataset and --filter must be valid "
                          "UTF-8");
  if (o->benchmark && !o->benchmark[0])
    return bs_error_set(err, BS_EUSAGE, NULL, 0, "empty --benchmark");
  return BS_OK;
}

bs_status bs_run_measure(const bs_run_options *o, bs_run_result *r,
                         bs_error *err) {
  bs_status st = check_options(o, err);
  if (st)
    return st;
  return bs__adapter_for(o->mode) ? bs__run_harness(o, r, err)
                                  : bs__run_blocks(o, r, err);
}
