/* benchsite: the measuring protocol presets (T, m) and the one-batch-size
 * rule. */
#include "protocol.h"

#include <string.h>

/* Development and RegressionGate are the original presets. Shared is the
 * candidate for machines shared with other work: short batches leave less
 * room for a burst of someone else's load inside one batch, and more
 * blocks give the paired median more pairs in about the same time. Its
 * T and m are a starting point for the verdict lab to settle; changing
 * them is changing this row. */
static const bs__protocol presets[] = {
    {"Development", 5000.0, 10},
    {"RegressionGate", 10000.0, 20},
    {"Shared", 500.0, 50},
};

const bs__protocol *bs__protocol_find(const char *name) {
  for (size_t i = 0; name && i < sizeof presets / sizeof presets[0]; i++)
    if (!strcmp(presets[i].name, name))
      return &presets[i];
  return NULL;
}

const char *bs__protocol_names(void) {
  return "Development, RegressionGate or Shared";
}

int bs__batch_sizes_apart(double pmin, double pmax) {
  return pmax > BS__BATCH_RATIO * pmin;
}
