/* benchsite: which commit made a case slower -- a bisection of a git
 * repository's first-parent history between a good and a bad commit in
 * which every probe is a paired, interleaved measurement (`benchsite
 * bisect`). A probe is slower, not slower or undecided; an undecided probe
 * gets more runs and, if still undecided, the search reports the range it
 * could not split instead of guessing a commit. */
#ifndef BENCHSITE_BISECT_H
#define BENCHSITE_BISECT_H

#include "benchsite/error.h"
#include "benchsite/metric.h"
#include "benchsite/run.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How a bisection ended. */
typedef enum bs_bisect_outcome {
  BS_BISECT_FOUND = 0, /* "found": a culprit, confirmed against its parent */
  BS_BISECT_NO_STEP,   /* "no-step": good against bad rules out a step */
  BS_BISECT_UNDECIDED  /* "undecided-range": a range it could not split */
} bs_bisect_outcome;

/* "found", "no-step", "undecided-range". */
const char *bs_bisect_outcome_name(bs_bisect_outcome o);

/* The verdict of one probe, or of one case in it. */
typedef enum bs_bisect_verdict {
  BS_BISECT_SLOWER = 0,   /* a significant regression of at least the
                             threshold against the reference */
  BS_BISECT_NOT_SLOWER,   /* the interval's upper end lies below the
                             threshold: a step of that size is ruled out */
  BS_BISECT_UNDECIDED_AT, /* neither */
  BS_BISECT_SKIPPED       /* not measured: the commit does not build, or its
                             benchmark fails (a probe only) */
} bs_bisect_verdict;

/* "slower", "not slower", "undecided", "skipped". */
const char *bs_bisect_verdict_name(bs_bisect_verdict v);

/* What a probe measured: the bad commit against the good one at the
 * start, a commit against the good one while searching, the culprit
 * against its parent at the end. */
typedef enum bs_bisect_role {
  BS_BISECT_START = 0, /* "start" */
  BS_BISECT_PROBE,     /* "probe" */
  BS_BISECT_CONFIRM    /* "confirm" */
} bs_bisect_role;

/* "start", "probe", "confirm". */
const char *bs_bisect_role_name(bs_bisect_role r);

/* One case of a probe. Percentages are of the reference's median. */
typedef struct bs_bisect_case {
  char *benchmark;
  char *dataset;        /* "" when none */
  double threshold_pct; /* the threshold it was judged at */
  double delta_pct;     /* paired delta % (median of the differences) */
  double ci_low_pct;    /* its 95 % bootstrap interval */
  double ci_high_pct;
  size_t blocks; /* pairs */
  bs_bisect_verdict verdict;
} bs_bisect_case;

typedef struct bs_bisect_probe {
  bs_bisect_role role;
  char *commit;  /* the commit measured (full id) */
  char *against; /* the reference (full id) */
  size_t index;  /* the commit's place: 1..commits on the first-parent
                    path from good (0) to bad (commits) */
  bs_bisect_verdict verdict;
  /* The cases judged: at the start every case measured, later the cases
   * the start found slower. NULL for a skipped probe. */
  bs_bisect_case *cases;
  size_t ncases;
  size_t shown;   /* the case a one-line view shows: the one nearest to
                     its threshold's verdict (ncases > 0) */
  uint64_t runs;  /* runs measured, each in fresh processes */
  uint64_t looks; /* measurements: 1, more when undecided */
  int duet;       /* measured side by side */
  double seconds; /* measuring (builds not included) */
  int built;      /* 1: its commit was built by this bisection; 0: its build
                     was reused from the cache */
  char *reason;   /* a skipped probe: why; else NULL */
} bs_bisect_probe;

/* A commit the search could not measure. */
typedef struct bs_bisect_skip {
  char *commit;  /* full id */
  char *subject; /* its subject line (untrusted text) */
  char *reason;  /* "does not build (exit status 2; ...)" and the like */
} bs_bisect_skip;

typedef struct bs_bisect_result {
  bs_bisect_outcome outcome;
  char *good, *bad;     /* full ids */
  size_t commits;       /* first-parent commits after good, up to bad */
  double threshold_pct; /* the step the start had to show */
  int threshold_given;  /* probes were judged at it too (else at half the
                           start's delta % of each case) */
  char *protocol;       /* of the measurements */
  bs_metric metric;     /* compared */
  int duet;             /* measured side by side */
  /* BS_BISECT_FOUND: the culprit, its subject line and its parent; else
   * NULL. Its delta against the parent is the last probe's. */
  char *culprit, *culprit_subject, *parent;
  /* BS_BISECT_UNDECIDED: the first and last commit the step may be at
   * (the first commit after the last not-slower probe, the first slower
   * one; when the culprit against its parent did not confirm, the two
   * contested verdicts left out); else NULL. */
  char *range_first, *range_last;
  bs_bisect_probe *probes; /* in the order measured */
  size_t nprobes;
  bs_bisect_skip *skipped;
  size_t nskipped;
  size_t builds_made;   /* commits built by this bisection */
  size_t builds_reused; /* commits whose build an earlier one left */
  double seconds;       /* the whole bisection */
  char *cache;          /* where builds are kept */
  char **notes;         /* sentences for every view (plain text) */
  size_t nnotes;
} bs_bisect_result;

/* Where a bisection stands, for a progress display. */
typedef enum bs_bisect_stage {
  BS_BISECT_PREPARING = 0, /* reading the history, opening the cache */
  BS_BISECT_BUILDING,      /* builds running (called about 10 times a s) */
  BS_BISECT_MEASURING      /* a probe's measurement (before each block) */
} bs_bisect_stage;

typedef struct bs_bisect_progress {
  bs_bisect_stage stage;
  bs_bisect_role role;
  size_t probe;               /* 1-based number of the probe under way */
  size_t expected;            /* about how many probes in all (start and
                                 confirmation included) */
  size_t left;                /* commits the step may still be at */
  const char *commit;         /* the commit built or measured (full id) */
  size_t building;            /* BS_BISECT_BUILDING: builds running at once */
  uint64_t runs;              /* BS_BISECT_MEASURING: runs measured before this
                                 look (0 on the first) */
  const bs_run_progress *run; /* BS_BISECT_MEASURING: the run's own */
} bs_bisect_progress;

typedef struct bs_bisect_options {
  const char *repo;  /* a directory of the repository; NULL: "." */
  const char *good;  /* a commit where the cases are fast (a ref, an id) */
  const char *bad;   /* a later commit on its first-parent history */
  const char *build; /* the build command, split as bs_run_split_command
                        (no shell) and run in each commit's tree; every
                        "{tree}" in a word stands for that tree */
  bs_run_mode mode;
  /* Library mode: the library's path, relative to each tree (or with
   * "{tree}"). Command and Google Benchmark mode: a command whose first
   * word is a program in each tree (or that writes "{tree}" where the
   * tree goes). pytest-benchmark and go-bench: a command run inside each
   * tree as it is. Commands run in their tree. */
  const char *bench;
  const char *filter;   /* NULL, or a substring of "benchmark/dataset" */
  bs_metric metric;     /* what probes compare: wall time (the default),
                           or the CPU time (or, for commands, the peak
                           memory) run records beside it */
  const char *protocol; /* NULL: BS_PROTOCOL_DEFAULT */
  uint64_t blocks;      /* 0: the protocol's blocks per run */
  double threshold_pct; /* 0: the start must show a significant regression
                           of BS_GATE_THRESHOLD_PCT, and probes are judged
                           at half of each case's start delta %; else both
                           at this (>= BS_MIN_THRESHOLD_PCT) */
  uint64_t max_runs;    /* runs a probe may take when undecided; 0: four
                           times the protocol's runs */
  size_t jobs;          /* builds at once (>= 1): the probe's, and those
                           the next probes may need */
  const char *cache;    /* NULL: benchsite-bisect in the repository's
                           (common) git directory */
  double timeout_s;     /* bound of every batch (0: 600 s) */
  /* Side by side (run's duet): 0 where it applies -- two impls of
   * library or command mode, two CPUs this process may use, and both of
   * them idle when the probe starts (a duet's halves are pinned to one
   * CPU each, and a CPU that another process keeps busy slows one half
   * of every pair); 1 wherever it can be (--duet); -1 never
   * (--sequential). */
  int duet;
  uint64_t seed; /* rotation and bootstrap seed */
  /* Called with the state (when not NULL); a non-zero return cancels the
   * bisection, which removes what it had started and returns BS_EIO
   * ("cancelled"). */
  int (*progress)(void *ctx, const bs_bisect_progress *p);
  void *progress_ctx;
} bs_bisect_options;

/* Every field zero or NULL: library mode, one build at a time, the
 * default protocol, duet where it applies. */
void bs_bisect_options_init(bs_bisect_options *o);

/* Runs the bisection and fills *out (free with bs_bisect_result_free).
 *
 * Git is started without a shell, with the repository given by `repo`
 * (the environment's GIT_DIR, GIT_WORK_TREE and the like are dropped);
 * good and bad are resolved with `git rev-parse --verify
 * --end-of-options REF^{commit}`. Each commit is built in a clean `git
 * worktree` of its own in the cache, never in the user's checkout; once
 * built, the tree leaves git's list of worktrees and stays in the cache,
 * marked complete by a file written atomically, for later probes and
 * later bisections with the same build command. One bisection at a time
 * may use a cache.
 *
 * Errors: BS_EUSAGE for bad options (an empty or option-like ref, a bad
 * protocol or threshold); BS_EINPUT for a repository or refs that are not
 * there, good not an ancestor of bad on its first-parent history, the
 * good or bad commit not building or not measuring, a cache another
 * bisection holds; BS_EIO when git, the cache or a measurement fails, or
 * when the progress callback cancels (trees being built are removed, the
 * cache stays consistent); BS_ENOMEM. *out is NULL on error. */
bs_status bs_bisect_run(const bs_bisect_options *o, bs_bisect_result **out,
                        bs_error *err);

/* NULL is a no-op. */
void bs_bisect_result_free(bs_bisect_result *r);

/* The exit status of a finished bisection: 1 found, 0 no step, 4 an
 * undecided range. */
int bs_bisect_exit_status(const bs_bisect_result *r);

/* Renderings, each malloc'd into *out (*len its length; len may be NULL).
 * Untrusted text (subjects, case names) is escaped for its destination.
 *   text      the report for a terminal or a CI log
 *   summary   its first line, for stdout beside --json/--markdown files
 *   json      "benchsite.bisect/1"
 *   markdown  a pull-request or issue comment (first line
 *             "<!-- benchsite:bisect -->") */
bs_status bs_bisect_text(const bs_bisect_result *r, char **out, size_t *len,
                         bs_error *err);
bs_status bs_bisect_summary(const bs_bisect_result *r, char **out, size_t *len,
                            bs_error *err);
bs_status bs_bisect_json(const bs_bisect_result *r, char **out, size_t *len,
                         bs_error *err);
bs_status bs_bisect_markdown(const bs_bisect_result *r, char **out, size_t *len,
                             bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
