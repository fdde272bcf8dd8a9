/* benchsite: the history model -- what an archive of runs says about each
 * case across runs, computed once, for every view of it to render (the
 * site's index, run and case pages, its charts and history data).
 *
 * Layers: input -> pairs -> statistics -> analysis (one run) -> history
 * (this: all runs) -> views -> site. The model needs nothing of the site.
 *
 * Per run: its facts, given once (id, commit, baseline commit, date,
 * manifest), and its results, one per case it measured, made from the
 * run's analysis (bs_history_results) or kept by the caller from an
 * earlier build. bs_history_finish then computes, over all runs in date
 * order: comparability groups, acknowledgements and verdict counts per
 * run, and per case the runs that measured it with their chains, the
 * chained index, creep and drift.
 *
 * Chains. Each archived run compares its candidate (built from commit
 * c_k) with its baseline (built from b_k, the manifest's
 * `baseline_commit`). For one case, the runs that compared it are
 * *links*, taken in date order. Within one comparability group, link k
 * continues the chain of the group's previous link when b_k equals that
 * link's c (commit ids compared byte for byte, case-sensitive); a link
 * without a baseline commit, or whose baseline is another commit, starts
 * a new chain. Along a chain the chained index is the product of
 * (1 + Δ%/100) over its links, so it states where the code stands against
 * the chain's first baseline even when no single run moved by more than
 * the gate's δ. An acknowledged link (acks.csv) restarts the product
 * after it: the next link's index is again 1 + its own Δ%/100.
 *
 * Creep. A case is creeping when, over its newest chain,
 * |I_last − 1|·100 ≥ δ (δ = 3, the gate's) while no link of the stretch
 * that I_last multiplies was a significant regression (for a creep
 * upwards) or a significant improvement (downwards): many small changes
 * that no single gate caught.
 *
 * Drift. Per case, Spearman's test (bs_noise_drift) over the medians of
 * the last BS_HISTORY_DRIFT_RUNS runs of the newest comparability group
 * that measured it, in date order. */
#ifndef BENCHSITE_HISTORY_H
#define BENCHSITE_HISTORY_H

#include "benchsite/analysis.h"
#include "benchsite/archive.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* δ of the creep test, in percent (the confirmatory gate's). */
#define BS_HISTORY_CREEP_PCT 3.0
/* Resamples and level of a run's interval of its median. */
#define BS_HISTORY_RESAMPLES 2000
#define BS_HISTORY_LEVEL_PCT 95.0
/* Runs the drift test looks at, newest first. */
#define BS_HISTORY_DRIFT_RUNS 30

/* ---- Chains of links --------------------------------------------------- */

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
  /* The scan of the trailing stretches of the newest chain (filled by
   * bs_history_finish; zero until a stretch of two links exists):
   * has_scan, the stretch w* of largest |z_w| (scan_links links, its
   * first link at entry `since` of the case), z_w*, its size
   * 100·(e^{ℓ_w*} − 1) and that size's interval in percent. */
  int has_scan;
  size_t scan_links;
  size_t since; /* index into bs_history_case.entries */
  double z;
  double scan_pct, scan_lo_pct, scan_hi_pct;
} bs_history_creep;

/* Chains the n links (in date order) of one case: fills points[0..n-1]
 * (caller-allocated; may be NULL when n is 0) and, when `creep` is not
 * NULL, the creep of the newest chain. Returns BS_EINPUT (with `err`)
 * when a Δ% is not finite; the outputs are then undefined. Allocates
 * nothing. bs_history_finish calls it for every case. */
bs_status bs_history_chain(const bs_history_link *links, size_t n,
                           bs_history_point *points, bs_history_creep *creep,
                           bs_error *err);

/* ---- One run's results ------------------------------------------------- */

/* One case of one run: the candidate's median with its interval, and the
 * run's paired verdict when it compared the case. */
typedef struct bs_history_result {
  char *benchmark; /* malloc'd, owned by the result */
  char *dataset;   /* malloc'd, owned by the result ("" for none) */
  int has_scale;
  double scale; /* 0 when !has_scale */
  /* The confirm samples of the impl the history shows (the manifest's
   * candidate when the case has it, else the case's only impl): their
   * median per call (µs) and its single-sample percentile bootstrap
   * interval (BS_HISTORY_RESAMPLES, BS_HISTORY_LEVEL_PCT, the analysis's
   * seed). has_median 0: no such samples; n, median, lo, hi are 0. */
  int has_median;
  size_t n;
  double median, lo, hi;
  /* The run's confirmatory comparison of the case (bs_analysis.compare).
   * has_cmp 0: not compared; the fields below are then 0 (verdict -1). */
  int has_cmp;
  int verdict; /* a bs_verdict */
  int significant_regression;
  int significant_improvement;
  double delta_pct;
  /* The paired interval of med(d) in percent of med(b): 100·L/med(b)
   * and 100·U/med(b) (0 when !has_cmp). */
  double delta_lo_pct, delta_hi_pct;
  /* The comparison's resolution (bs_case_compare.inconclusive): not a
   * significant regression, yet the interval reaches the threshold (0
   * when !has_cmp). */
  int inconclusive;
  size_t blocks;
  /* Set by bs_history_finish (the caller leaves them 0 / NULL). */
  size_t case_idx;   /* its case: index into bs_history.cases */
  const bs_ack *ack; /* the acks.csv row acknowledging it, or NULL */
} bs_history_result;

/* The results of one run from its analysis `an`, one per case of an->log
 * in the log's case order, for the impl `candidate` (NULL: each case's
 * only impl; a case measuring several impls and not the candidate then
 * has no median). Pure and thread-safe: runs of an archive may be done
 * on several threads at once. On success *out is a malloc'd array of *n
 * results (NULL when *n is 0), freed with bs_history_results_free or
 * handed to a bs_history run. Errors: BS_ENOMEM and the errors of
 * bs_bootstrap_median_ci (with err); *out is then NULL and *n 0. */
bs_status bs_history_results(const bs_analysis *an, const char *candidate,
                             bs_history_result **out, size_t *n, bs_error *err);

/* Frees res[0..n-1]'s strings and the array. NULL is a no-op. */
void bs_history_results_free(bs_history_result *res, size_t n);

/* ---- The model ---------------------------------------------------------- */

/* One run. The caller fills the fields marked "given" of each run
 * bs_history_new allocated, then calls bs_history_finish, which fills
 * the rest. */
typedef struct bs_history_run {
  /* Given; borrowed: they must outlive the model. */
  const char *id;              /* the archive's run id */
  const char *commit;          /* the manifest's commit */
  const char *baseline_commit; /* the manifest's baseline_commit, or NULL */
  const char *date;            /* the manifest's date */
  const bs_manifest *manifest;
  /* Given; owned by the model once set (bs_history_free frees them):
   * malloc'd, as bs_history_results makes them. */
  char *impl; /* the impl the history shows ("" when none; NULL: "") */
  bs_history_result *results;
  size_t nresults;
  /* Computed. The results are then in case order (benchsite/order.h). */
  size_t group; /* comparability group, numbered from 0 by first run */
  int native;   /* its manifest's target is native (performance claims) */
  /* Over the compared cases: acknowledged ones; else significant
   * regressions of a native run (open); else by verdict. */
  size_t compared, open, acked, slower, equivalent, faster;
} bs_history_run;

/* A comparability group: runs whose manifests agree on every
 * comparability key (a run missing a key groups only with runs having
 * exactly the same values and gaps). */
typedef struct bs_history_group {
  const bs_manifest *first; /* the manifest of its first run */
  size_t nruns;
} bs_history_group;

/* One run of a case's history. */
typedef struct bs_history_entry {
  size_t run;                      /* index into bs_history.runs */
  const bs_history_result *result; /* that run's result for the case */
  int link;     /* a paired comparison with a finite Δ%: part of a chain */
  size_t chain; /* when link: its chain, numbered from 0 per case */
  double chained_index; /* when link: I after this link */
} bs_history_entry;

/* A change point: a step in a case's medians (newest comparability
 * group, date order) found by the model's change-point method. */
typedef struct bs_history_step {
  size_t entry;         /* the first entry after the step */
  double before, after; /* the level of the medians before and after */
  double size_pct;      /* 100·(after/before − 1) */
  double p_value;       /* the method's significance */
  int significant;      /* p_value below the method's level */
  int acknowledged;     /* an acks.csv row covers the run at `entry` */
} bs_history_step;

typedef struct bs_history_case {
  const char *benchmark, *dataset; /* its first result's strings */
  bs_history_entry *entries;       /* the runs that measured it, date order */
  size_t nentries;
  /* Drift: has_drift 0 when fewer than BS_NOISE_DRIFT_MIN medians were
   * there to test (drift_n says how many). drift_group is the group
   * tested, (size_t)-1 when no run has a median. */
  int has_drift;
  bs_drift drift;
  size_t drift_n, drift_group;
  bs_history_creep creep; /* of its newest chain */
  bs_history_step *steps; /* change points, oldest first (owned) */
  size_t nsteps;
  /* Its medians over all entries: how many, their range, the newest. */
  size_t measured;
  double min_median, max_median;   /* when measured > 0 */
  const bs_history_result *newest; /* the newest with a median, or NULL */
} bs_history_case;

/* The model. A plain struct the views read; only bs_history_* change
 * it. */
typedef struct bs_history {
  bs_history_run *runs; /* date order (the archive's history order) */
  size_t nruns;
  /* Filled by bs_history_finish: */
  bs_history_case *cases; /* case order (benchsite/order.h), each by the
                             scale of its newest result */
  size_t ncases;
  bs_history_group *groups;
  size_t ngroups;
  size_t acknowledged; /* acknowledged compared cases over all runs */
  size_t drifting;     /* cases whose drift test is significant */
  size_t creeping;     /* cases creeping along their newest chain */
} bs_history;

/* A model of `nruns` runs, all fields zero, for the caller to fill; NULL
 * when out of memory. Free with bs_history_free. */
bs_history *bs_history_new(size_t nruns);

/* Computes everything marked "computed" or "filled by bs_history_finish"
 * from the given fields of every run and `acks` (the archive's acks.csv;
 * NULL: none). Call once, after every run is given. Errors: BS_ENOMEM,
 * BS_EINTERNAL (with err); the model may then only be freed. */
bs_status bs_history_finish(bs_history *h, const bs_acks *acks, bs_error *err);

/* The newest run by date that is not dated more than a day ahead (a
 * forged date would head the history for ever; the oldest run when all
 * are); 0 when there are none. */
size_t bs_history_newest(const bs_history *h);

/* Frees the model, every run's impl and results included (not what the
 * given fields borrow). NULL is a no-op. */
void bs_history_free(bs_history *h);

#ifdef __cplusplus
}
#endif
#endif
