/* A probe of `benchsite bisect` (bisect_probe.c): the benchmark in a
 * built tree, measured against another tree in fresh processes until it
 * is decided, and judged slower, not slower or undecided; and the state
 * of the search (bisect.c) that asks for the probes. Private. */
#ifndef BENCHSITE_BISECT_PROBE_H
#define BENCHSITE_BISECT_PROBE_H

#include "benchsite/bisect.h"

#include "bisect_int.h"

#include <stddef.h>
#include <stdint.h>

/* A case the start found slower: followed by every probe. */
typedef struct bs__tracked {
  char *benchmark, *dataset;
  double threshold_pct; /* delta_b */
  double start_low_pct; /* the start's interval, low end */
  double start_delta_pct;
} bs__tracked;

/* The search (bisect.c): the path, what is known of its commits, the
 * cases followed and the progress shown. */
typedef struct bs__bisect_state {
  const bs_bisect_options *o;
  bs__env env;
  bs__repo repo;
  bs__poll poll;
  bs__cache cache;
  int cache_open;
  char **ids; /* ids[0] good .. ids[n] bad; one block each */
  size_t n;
  int *known;    /* per index */
  int *built;    /* per index: 1 built in this bisection or found ready */
  int *reused;   /* per index: found ready in the cache */
  size_t lo, hi; /* lo not slower (good), hi slower (bad) */
  bs_bisect_result *r;
  bs__tracked *cases;
  size_t ncases;
  double start_pct; /* the start's threshold */
  double target_us;
  uint64_t blocks, runs0, max_runs;
  const char *protocol;
  bs_bisect_progress prog;
  double t0;
} bs__bisect_state;

/* Seconds on the monotonic clock. */
double bs__bisect_now(void);
/* Where the search stands before probe number `probe` (1-based), into
 * s->prog. */
void bs__bisect_expect(bs__bisect_state *s, size_t probe, bs_bisect_role role);
/* Whether the progress callback asks to stop (outside builds and runs). */
int bs__bisect_cancelled(bs__bisect_state *s);

/* Harness modes whose command runs inside its tree as it is (its first
 * word not taken as a path in the tree). */
int bs__bisect_runs_as_is(bs_run_mode m);
/* Whether s holds "{tree}", where the tree's path goes. */
int bs__bisect_has_tree_mark(const char *s);
/* A bs__cache_build check (ctx: the state): 1 when the build in `tree`
 * left the file the benchmark needs, else 0 with why. */
int bs__bisect_check_build(void *ctx, const char *tree, char *why, size_t cap);

/* The case followed by that name, or NULL. */
const bs__tracked *bs__bisect_find_tracked(const bs__bisect_state *s,
                                           const char *benchmark,
                                           const char *dataset);
/* A new probe of commit idx against ref at the end of s->r's probes;
 * NULL (err set) when out of memory. */
bs_bisect_probe *bs__bisect_new_probe(bs__bisect_state *s, bs_bisect_role role,
                                      size_t idx, size_t ref, bs_error *err);
/* Measures commit idx against commit ref (both built) into a new probe
 * *out: runs in fresh processes until the verdict is decided or the runs
 * reach max_runs. A benchmark that fails at idx makes a skipped probe. */
bs_status bs__bisect_measure(bs__bisect_state *s, bs_bisect_role role,
                             size_t idx, size_t ref, bs_bisect_probe **out,
                             bs_error *err);

#endif
