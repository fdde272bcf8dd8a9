/* The one allocation-failure path (see oom.h). */
#include "oom.h"

bs_status bs__oom_as(bs_error *err, bs_status st) {
  return bs_error_set(err, st, NULL, 0, BS__OOM_TEXT);
}

bs_status bs__oom(bs_error *err) { return bs__oom_as(err, BS_ENOMEM); }
