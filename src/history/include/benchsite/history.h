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
 * chained index, creep, drift, change points and what is open, and over
 * all cases the lists the views name them from.
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
 * Runs that are not paired comparisons are no links: an A/A run (its
 * manifest names aa_a and aa_b and its candidate, if any, is one of them),
 * a run without the case's candidate, a run whose comparison has no
 * finite Δ%. They have no chain, no chained index and no Δ%.
 *
 * Creep (SPEC §2.12). Each link j has its paired interval [L_j%, U_j%]
 * and s_j = (ln(1 + U_j%/100) − ln(1 + L_j%/100)) / (2·1.96). Over the
 * newest chain since its last restart, every trailing stretch of w links
 * ending at the newest link, 2 ≤ w ≤ min(links, BS_HISTORY_CREEP_MAX_LINKS),
 * gives ℓ_w = Σ ln(1 + Δ%_j/100), s_w = √(Σ s_j²) and z_w = ℓ_w/s_w; w*
 * maximises |z_w|. The case is creeping when |z_w*| ≥ BS_HISTORY_CREEP_Z,
 * |e^ℓ_w* − 1|·100 ≥ δ (BS_HISTORY_CREEP_PCT) and no link of that stretch
 * was a significant change in the creep's direction (a significant
 * regression for a creep upwards, a significant improvement downwards),
 * and the newest link is not acknowledged (an acknowledgement closes the
 * stretch: the creep it ends is known). The z threshold is a
 * Bonferroni-like bound for the up to 49 correlated stretches: on
 * unchanged chains of 40 to 300 links whose intervals state their noise
 * it flags about 1–2 % of them (tests/data/history/creep_sim.py derives
 * it, tests/test_history_signals.c measures it on the model); ten +0.8 %
 * links whose noise is 0.45 % each are found in about 98 % of chains. A
 * negative creep is an improvement. It tests paired links, so a noise
 * that moves both sides of a run alike (a busy day) does not enter it.
 *
 * Drift across runs (SPEC §2.13). Per case, over the medians of the last
 * BS_HISTORY_DRIFT_RUNS runs of the newest comparability group that
 * measured it, in date order: Spearman's test against position
 * (bs_noise_drift), a rank test whose noise is the spread of the medians
 * themselves -- how much runs of the same code differ -- and never the
 * runs' own intervals. Flagged (drift_flagged) when p <
 * BS_HISTORY_DRIFT_ALPHA and the later half's median differs from the
 * earlier half's by at least BS_HISTORY_DRIFT_MIN_PCT: on exchangeable
 * medians (unchanged code, whatever their distribution or between-run
 * spread) the rank test alone fires on at most 1 % of cases, and the
 * size keeps a real but tiny drift (−0.11 % on steady medians) unflagged.
 * A step inside the window is a drift too; the change points say where.
 *
 * Change points (SPEC §2.13). Per case, over the medians of the newest
 * comparability group in date order (the newest BS_HISTORY_STEP_RUNS of
 * them): E-divisive (Matteson & James, JASA 109(505), 2014; the method
 * of Apache Otava, formerly Hunter, Fleming et al., ICPE 2023) by binary
 * segmentation. A segment's candidate is the split τ maximising the
 * energy statistic Q̂(τ) = τ(n−τ)/n · (2/(τ(n−τ)) Σ|x_i − y_j| −
 * C(τ,2)⁻¹ Σ|x_i − x_k| − C(n−τ,2)⁻¹ Σ|y_j − y_k|) (α = 1, each side at
 * least BS_HISTORY_STEP_MIN_RUNS long, the segment's end as κ); its
 * significance is a permutation test: the segment shuffled
 * BS_HISTORY_STEP_PERMUTATIONS times (xorshift64* seeded from the case's
 * name and the segment's bounds, so the same history gives the same
 * steps), p = (1 + b)/(P + 1) with b the shuffles whose largest Q̂ reaches
 * the candidate's, stopped early after BS_HISTORY_STEP_EXCEED of them
 * (Besag & Clifford, Biometrika 78(2), 1991: p = h/L after L shuffles).
 * A split with p ≤ BS_HISTORY_STEP_ALPHA is a step and both sides are
 * searched again. Being a permutation test, its false-alarm rate on
 * exchangeable medians is at most α per case whatever their
 * distribution; tests/test_history_signals.c measures it (and finds a
 * +10 % step among 60 runs of 2 % noise at the right run ±1 in ≥ 95 %).
 * Unlike Otava, each segment is tested on its own and κ is not searched
 * (the cost of a permutation test per candidate stays O(P·n log n)).
 *
 * What is open (bs_history_open): per case, what the index names as
 * "regressed, since when" without computing: an unacknowledged
 * significant regression of a native run in the newest chain whose
 * change still stands, an unacknowledged change point upwards of at
 * least δ whose level still stands, and an upward creep. */
#ifndef BENCHSITE_HISTORY_H
#define BENCHSITE_HISTORY_H

#include "benchsite/analysis.h"
#include "benchsite/archive.h"
#include "benchsite/error.h"
#include "benchsite/manifest.h"
#include "benchsite/noise.h"

#include <stddef.h>
#include <stdint.h>

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
/* The drift flag: Spearman's p below this and a shift of at least this
 * many percent. */
#define BS_HISTORY_DRIFT_ALPHA 0.01
#define BS_HISTORY_DRIFT_MIN_PCT 3.0
/* The creep scan: the |z| a stretch must reach, and its longest stretch. */
#define BS_HISTORY_CREEP_Z 3.3
#define BS_HISTORY_CREEP_MAX_LINKS 50
/* Change points: the permutation test's shuffles, the early stop after
 * this many shuffles reach the candidate, the level, the shortest side of
 * a split and the newest medians searched. */
#define BS_HISTORY_STEP_PERMUTATIONS 99
#define BS_HISTORY_STEP_EXCEED 1
#define BS_HISTORY_STEP_ALPHA 0.01
#define BS_HISTORY_STEP_MIN_RUNS 2
#define BS_HISTORY_STEP_RUNS 1000
/* At most this many steps per case (the coarsest splits first). */
#define BS_HISTORY_STEPS_MAX 64

/* ---- Chains of links --------------------------------------------------- */

/* One link: one run's paired comparison of one case. */
typedef struct bs_history_link {
  const char *commit;          /* c_k; NULL or "" when unknown */
  const char *baseline_commit; /* b_k; NULL or "" starts a new chain */
  size_t group;                /* comparability group of the run */
  double delta_pct;            /* Δ% of the run (finite) */
  /* Its paired interval in percent of med(b), L% ≤ U%. A link whose
   * interval is not finite, or has 1 + L%/100 ≤ 0 or L% > U%, ends the
   * creep scan's stretches (none reaches past it). */
  double lo_pct, hi_pct;
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
  int has_chain; /* at least one link */
  size_t chain;  /* the newest chain: the one of the newest link */
  /* Links of the newest chain since its last restart: the stretch I_last
   * multiplies, the newest link included. */
  size_t links;
  double index; /* I_last, the chained index of the newest link */
  /* The creep's size in percent: scan_pct when has_scan, else (a single
   * link since the restart, or no usable interval) 100·(I_last − 1). */
  double creep_pct;
  int creeping; /* SPEC §2.12's test (see above) */
  /* The scan of the trailing stretches of the newest chain (zero until a
   * stretch of two links with usable intervals and s_w > 0 exists):
   * has_scan, the stretch w* of largest |z_w| (scan_links links; its
   * first link is `since`), z_w*, its size 100·(e^{ℓ_w*} − 1) and that
   * size's interval [e^{ℓ_w* ∓ 1.96·s_w*} − 1]·100. A negative size is
   * an improvement. */
  int has_scan;
  size_t scan_links;
  /* The stretch's first link: bs_history_chain gives its index among the
   * links; in a model (bs_history_case.creep) the index into
   * bs_history_case.entries. */
  size_t since;
  double z;
  double scan_pct, scan_lo_pct, scan_hi_pct;
  int acknowledged; /* the newest link is acknowledged: nothing creeps */
} bs_history_creep;

/* Chains the n links (in date order) of one case: fills points[0..n-1]
 * (caller-allocated; may be NULL when n is 0) and, when `creep` is not
 * NULL, the creep of the newest chain (every field set). Returns
 * BS_EINPUT (with `err`) when a Δ% is not finite; the outputs are then
 * undefined. Allocates nothing. bs_history_finish calls it for every
 * case. */
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
   * candidate when the case has it, else the case's only impl), in the
   * analysis's metric (its unit): their median and its single-sample
   * percentile bootstrap interval (BS_HISTORY_RESAMPLES,
   * BS_HISTORY_LEVEL_PCT, the analysis's seed). has_median 0: no such
   * samples, or a run without the metric on every confirm row; n,
   * median, lo, hi are 0. */
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
  /* Given: 1 when the run did not record the analysed metric on every
   * confirm row (a --lib run has no peak memory, a pytest or go run no
   * CPU time): its results have no median and no verdict, and its pages
   * say why. */
  int no_metric;
  /* Computed. The results are then in case order (benchsite/order.h). */
  size_t group; /* comparability group, numbered from 0 by first run */
  int native;   /* its manifest's target is native (performance claims) */
  /* An A/A run: its manifest names aa_a and aa_b and its candidate is
   * none or one of them. Its results are no links and count for none of
   * the tallies below. */
  int aa;
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
 * group, date order) found by the model's change-point method (see
 * above). In a model `entry` and `entry_before` index
 * bs_history_case.entries; from bs_history_detect_steps they index the
 * series. */
typedef struct bs_history_step {
  size_t entry; /* the first entry after the step */
  /* The entry just before the step in the same series: its run's commit
   * is the commit before, `entry`'s the commit after. */
  size_t entry_before;
  /* The level before and after: the median of the medians from the
   * previous step (or the series' start) to this one, and from this one
   * to the next (or the series' end). */
  double before, after;
  double size_pct; /* 100·(after/before − 1); > 0 is slower */
  double p_value;  /* the permutation test's p of the split */
  int significant; /* p_value ≤ BS_HISTORY_STEP_ALPHA (every step found) */
  /* An acks.csv row covers the run at `entry`, or the series' run just
   * before or after it (the split is found to ±1 run). */
  int acknowledged;
} bs_history_step;

/* What is open for a case: what the index names as "regressed, since
 * when". Each part is set or all-zero. */
typedef struct bs_history_open {
  /* An open significant regression: along the newest chain since its
   * last restart, the oldest link that is an unacknowledged significant
   * regression of a native run and whose change still stands (the links
   * from it to the newest multiply to at least 1 + δ/100). */
  int regression;
  size_t regression_entry; /* where it began: an index into entries */
  double regression_pct;   /* 100·(that product − 1) */
  /* An open change point: the oldest unacknowledged step upwards of at
   * least δ (size_pct ≥ BS_HISTORY_CREEP_PCT) whose `before` the newest
   * level still exceeds by at least δ. */
  int step;
  size_t step_index; /* index into bs_history_case.steps */
  double step_pct;   /* 100·(newest level / that step's before − 1) */
  int creep;         /* creeping upwards (creep.creeping, creep_pct > 0) */
  /* Any of the three, and the earliest entry where one began. */
  int any;
  size_t since;
} bs_history_open;

typedef struct bs_history_case {
  const char *benchmark, *dataset; /* its first result's strings */
  bs_history_entry *entries;       /* the runs that measured it, date order */
  size_t nentries;
  /* Drift: has_drift 0 when fewer than BS_NOISE_DRIFT_MIN medians were
   * there to test (drift_n says how many). drift_group is the group
   * tested, (size_t)-1 when no run has a median. drift is Spearman's test
   * as bs_noise_drift states it (its `drifted` is p < 0.05 alone);
   * drift_flagged is the calibrated flag the views raise: has_drift,
   * drift.p < BS_HISTORY_DRIFT_ALPHA and 100·|drift.relative_shift| ≥
   * BS_HISTORY_DRIFT_MIN_PCT. */
  int has_drift;
  bs_drift drift;
  size_t drift_n, drift_group;
  int drift_flagged;
  bs_history_creep creep; /* of its newest chain */
  /* Change points over the medians of group drift_group (steps_n of them
   * searched, the newest BS_HISTORY_STEP_RUNS), oldest first (owned; NULL
   * when none). */
  bs_history_step *steps;
  size_t nsteps, steps_n;
  bs_history_open open;
  /* Its medians over all entries: how many, their range, the newest. */
  size_t measured;
  double min_median, max_median;   /* when measured > 0 */
  const bs_history_result *newest; /* the newest with a median, or NULL */
} bs_history_case;

/* A change point of the model: case `case_idx`, its step `step`. */
typedef struct bs_history_stepref {
  size_t case_idx, step;
} bs_history_stepref;

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
  size_t drifting;     /* cases with drift_flagged */
  size_t creeping;     /* cases creeping along their newest chain */
  /* Every change point of every case, newest first: by the date order of
   * its entry's run, then case order (the regressions page, the feed).
   * Owned; NULL when there are none. */
  bs_history_stepref *step_refs;
  size_t nstep_refs;
  /* The cases with something open (open.any), the newest `since` first
   * (by its run's date order, then case order). Owned; NULL when none. */
  size_t *open_cases;
  size_t nopen_cases;
  /* Cases with an open regression, an open change point, an open creep. */
  size_t open_regressions, open_steps, open_creeps;
} bs_history;

/* A model of `nruns` runs, all fields zero, for the caller to fill; NULL
 * when out of memory. Free with bs_history_free. */
bs_history *bs_history_new(size_t nruns);

/* Computes everything marked "computed" or "filled by bs_history_finish"
 * from the given fields of every run and `acks` (the archive's acks.csv;
 * NULL: none). Call once, after every run is given. Errors: BS_ENOMEM,
 * BS_EINTERNAL (with err); the model may then only be freed. */
bs_status bs_history_finish(bs_history *h, const bs_acks *acks, bs_error *err);

/* The change points of the series x[0..n-1] (date order) by the method
 * above, seeded with `seed` (bs_history_finish uses a hash of the case's
 * name): *steps is a malloc'd array of *nsteps steps, oldest first (NULL
 * when none), their `entry` and `entry_before` indices into x and
 * `acknowledged` 0. x must be finite. Errors: BS_ENOMEM (with err);
 * *steps is then NULL and *nsteps 0. */
bs_status bs_history_detect_steps(const double *x, size_t n, uint64_t seed,
                                  bs_history_step **steps, size_t *nsteps,
                                  bs_error *err);

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
