/* benchsite: history chains and creep across archived runs.
 *
 * Each archived run compares its candidate (built from commit c_k) with
 * its baseline (built from b_k, the manifest's `baseline_commit`). For one
 * case, the runs that compared it are *links*, taken in date order. Within
 * one comparability group, link k continues the chain of the group's
 * previous link when b_k equals that link's c (commit ids compared byte
 * for byte, case-sensitive); a link without a baseline commit, or whose
 * baseline is another commit, starts a new chain. Along a chain the
 * chained index is the product of (1 + Δ%/100) over its links, so it
 * states where the code stands against the chain's first baseline even
 * when no single run moved by more than the gate's δ. An acknowledged
 * link (acks.csv) restarts the product after it: the next link's index
 * is again 1 + its own Δ%/100.
 *
 * A case is creeping when, over its newest chain, |I_last − 1|·100 ≥ δ
 * (δ = 3, the gate's) while no link of the stretch that I_last multiplies
 * was a significant regression (for a creep upwards) or a significant
 * improvement (downwards): many small changes that no single gate caught.
 *
 * The module needs nothing of the site: the caller gives the links. */
#ifndef BENCHSITE_HISTORY_H
#define BENCHSITE_HISTORY_H

#include "benchsite/error.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* δ of the creep test, in percent (the confirmatory gate's). */
#define BS_HISTORY_CREEP_PCT 3.0

/* One link: one run's paired comparison of one case. */
typedef struct bs_history_link {
  const char *commit;          /* c_k; NULL or "" when unknown */
  const char *baseline_commit; /* b_k; NULL or "" starts a new chain */
  size_t group;                /* comparability group of the run */
  double delta_pct;            /* Δ% of the run (finite) */
  int significant_regression;
  int significant_improvement;
  int acknowledged; /* an acks.csv entry covers this link */
} bs_history_link;

/* Where a link stands. */
typedef struct bs_history_point {
  size_t chain;         /* chains numbered from 0 in order of first link */
  double chained_index; /* I_k */
} bs_history_point;

typedef struct bs_history_creep {
  int has_chain;    /* at least one link */
  size_t chain;     /* the newest chain: the one of the newest link */
  size_t links;     /* links in the stretch I_last multiplies */
  double index;     /* I_last */
  double creep_pct; /* 100·(I_last − 1) */
  int creeping;
} bs_history_creep;

/* Chains the n links (in date order) of one case: fills points[0..n-1]
 * (caller-allocated; may be NULL when n is 0) and, when `creep` is not
 * NULL, the creep of the newest chain. Returns BS_EINPUT (with `err`)
 * when a Δ% is not finite; the outputs are then undefined. Allocates
 * nothing. */
bs_status bs_history_chain(const bs_history_link *links, size_t n,
                           bs_history_point *points, bs_history_creep *creep,
                           bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
