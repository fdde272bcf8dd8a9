/* benchsite: measuring. The runner behind `benchsite run` (calibrated,
 * rotated, interleaved batches of benchmark libraries, commands or Google
 * Benchmark programs, written as an observation log) and the machine facts
 * behind `benchsite manifest`. */
#ifndef BENCHSITE_RUN_H
#define BENCHSITE_RUN_H

#include "benchsite/error.h"
#include "benchsite/metric.h"
#include "benchsite/protocol.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bs_run_mode {
  BS_RUN_LIBRARY = 0,      /* shared objects with benchsite/harness.h */
  BS_RUN_COMMAND,          /* a command line, run n times per batch */
  BS_RUN_GOOGLE_BENCHMARK, /* a Google Benchmark program, once per block */
  BS_RUN_PYTEST_BENCHMARK, /* a pytest command (pytest-benchmark), once per
                              block */
  BS_RUN_GO_BENCH          /* go test -bench or a test binary, once per
                              block */
} bs_run_mode;

/* The name of a harness mode -- "google-benchmark", "pytest-benchmark",
 * "go-bench": its option and the manifest's `harness` -- or NULL for
 * library and command mode. */
const char *bs_run_harness_name(bs_run_mode mode);

/* A harness mode: a row of the runner's table of harness adapters, which
 * is the one place that names them (the program's options, usage lines
 * and --help read it). */
typedef struct bs_run_harness {
  bs_run_mode mode;
  const char *name;  /* "google-benchmark": the option --NAME IMPL=COMMAND
                        and the manifest's `harness` */
  const char *title; /* what messages call it: "Google Benchmark" */
  const char *help;  /* what it runs and how, one line without a newline:
                        "a Google Benchmark program (split as --cmd, ..." */
} bs_run_harness;

/* Harness mode i (0, 1, ... in the table's order) into *out: 1, or 0 past
 * the last one (*out untouched). The strings are static. */
int bs_run_harness_get(size_t i, bs_run_harness *out);

typedef struct bs_run_impl {
  const char *name;   /* the impl id of the log, non-empty, unique */
  const char *target; /* a library path, or a command line (split with
                         bs_run_split_command) */
  const char *dir;    /* NULL, or the directory the impl's commands run in
                         (not for libraries) */
} bs_run_impl;

/* The largest batch calibration chooses. */
#define BS_RUN_NMAX UINT64_C(1000000000)

/* How often library and command mode start a new measuring process (a
 * new process image, so a new address layout): once per run of `runs`
 * (the default), or once per block of each case (setup then runs once per
 * block; calibration gets a process of its own). */
typedef enum bs_run_fresh {
  BS_RUN_FRESH_RUN = 0,
  BS_RUN_FRESH_BLOCK
} bs_run_fresh;

/* Where a measurement stands, for a progress display. */
typedef struct bs_run_progress {
  const char *benchmark; /* the case being measured: untrusted text */
  const char *dataset;   /* "" when none */
  size_t kase, ncases;   /* its index (0-based) among the cases measured;
                            ncases 0 in Google Benchmark mode, where each
                            program runs all its cases at once */
  uint64_t run, runs;    /* run (0-based) of runs */
  uint64_t block;        /* the block about to be measured (0-based) */
  uint64_t blocks;
  int calibrating; /* calibration of the case, before its blocks */
  double done;     /* work done and in all, in batches of one impl (a */
  double total;    /* calibration counts as two): done / total is the share */
} bs_run_progress;

typedef struct bs_run_options {
  bs_run_mode mode;
  const bs_run_impl *impls;
  size_t nimpls;         /* K >= 1 */
  double target_us;      /* T, the batch time calibration aims at */
  uint64_t n_max;        /* the largest batch calibration chooses */
  uint64_t blocks;       /* m >= 1 */
  uint64_t runs;         /* whole repetitions, >= 1 (run = 0..runs-1) */
  uint64_t seed;         /* block j runs impls (j + seed mod K) mod K first */
  const char *filter;    /* NULL or a substring of "benchmark/dataset" */
  double timeout_s;      /* bound of every batch, > 0 */
  int show_output;       /* command modes: keep stdout/stderr */
  const char *benchmark; /* command mode: the case (NULL: the basename of */
  const char *dataset;   /* the first command's program; NULL: "") */
  bs_run_fresh fresh;    /* library and command mode */
  /* Layout randomisation (library and command mode): each measuring
   * process moves its stack and its environment, and in library mode pads
   * the heap before each impl's setup and the address space before each
   * library, by amounts drawn from the seed and the run (and block), so a
   * memory layout that favours one build is a fresh draw per process. 1
   * turns it off (every process laid out as the system lays it out). */
  int layout_fixed;
  /* The seed of those draws when layout_seed_set is 1; otherwise `seed`.
   * `benchsite run` draws one per invocation unless --seed is given (and
   * records it), so two runs of one pair of builds are not laid out
   * alike. */
  uint64_t layout_seed;
  int layout_seed_set;
  /* Adaptive runs (library and command mode, two impls: baseline then
   * candidate): after the `runs` planned runs, the cases the gate cannot
   * decide yet (neither a significant change, and the interval's upper
   * end at or above 3 % or the interval wider than 3 %, judged on wall
   * time at the level of the look, benchsite/compare.h) are measured in
   * more runs, fresh processes each, those cases only: up to three
   * rounds of ceil((max_runs - runs) / 3) runs (looks 1-3), until
   * max_runs runs or budget_s seconds of extra runs have passed. Rows
   * carry their look (a `look` column) whenever max_runs > runs, so an
   * analysis knows each case's looks. 0 or runs (0 is the default): no
   * extra runs, no look column; more than 4 runs is refused (the looks'
   * spending rule holds up to four times the planned runs). */
  uint64_t max_runs;
  double budget_s; /* 0: no bound but max_runs */
  /* A planted slowdown (library mode; `benchsite calibrate`): every batch
   * of n calls of impl plant_impl makes ceil(n plant_pct / 100) more
   * calls, timed with the n, so its per-call time is plant_pct % more of
   * real work. 0: none. */
  double plant_pct;
  size_t plant_impl;
  /* Or a planted slowdown for every impl (NULL: none but plant_pct's):
   * plant_pcts[i] (nimpls entries, each 0 to 1000) for impl i, so that
   * one run measures several plants beside an unplanted pair; it replaces
   * plant_pct and plant_impl. */
  const double *plant_pcts;
  /* Duet (exactly two impls): each block runs the two impls' batches at
   * the same time, each in its own measuring process pinned to its own
   * CPU (the first two CPUs this process may use), released together by
   * a barrier; the CPUs swap every block, and within a block each impl
   * runs half its batch on each CPU (the halves released together), so
   * both impls spend as long on each. Calibration runs one impl at a
   * time, each on its block-0 CPU. Harness modes: each block starts the
   * two programs together, each pinned to its CPU. */
  int duet;
  /* Called (when not NULL) before each case's calibration and before
   * each block, from the calling thread; a non-zero return cancels the
   * run (BS_EIO, "cancelled"). */
  int (*progress)(void *ctx, const bs_run_progress *p);
  void *progress_ctx;
} bs_run_options;

/* Development protocol (T = 5 ms, 10 blocks), one run, seed 0, a 600 s
 * timeout, n_max BS_RUN_NMAX, library mode, no impls, a fresh measuring
 * process per run, no duet, no progress. */
void bs_run_options_init(bs_run_options *o);

/* T, m (blocks per run) and the number of runs of a protocol preset:
 * "Development" 5 ms, 10 blocks, 1 run; "RegressionGate" 10 ms, 20, 1;
 * "Shared" (for machines shared with other work) 0.5 ms, 10 blocks, 5 runs.
 * runs may be NULL. BS_EUSAGE for any other name. */
bs_status bs_run_protocol(const char *name, double *target_us, uint64_t *blocks,
                          uint64_t *runs, bs_error *err);

/* The next calibration batch size after a batch of n calls took t_us:
 * min(n_max, max(n + 1, ceil(n T / t))). */
uint64_t bs_run_next_batch(uint64_t n, double t_us, double target_us,
                           uint64_t n_max);

typedef struct bs_run_result {
  char *log; /* the observation log (CSV), malloc'd; NULL on failure */
  size_t log_len;
  char **warnings; /* cases skipped, ... (plain text, control bytes escaped) */
  size_t nwarnings;
  /* When a harness program failed: the last lines (at most 20, oldest
   * first) of what it printed on standard output and error, each escaped
   * as warnings are, for the message to quote; else NULL and 0. */
  char **output;
  size_t noutput;
  size_t ncases;    /* cases measured */
  size_t nrows;     /* rows of the log */
  int wrong_result; /* the run failed because digests differ */
  /* Adaptive runs: the cases measured again, the runs added (each a run
   * of those cases only), the last look taken (0: none), the seconds the
   * extra runs took, and whether the budget stopped them. */
  size_t adaptive_cases;
  uint64_t extra_runs;
  unsigned last_look;
  double extra_seconds;
  int budget_hit;
  /* Blocks measured more than once because a batch of theirs lost its CPU
   * to other work (the log's `tries` column counts every block's). */
  uint64_t remeasured_blocks;
} bs_run_result;

void bs_run_result_init(bs_run_result *r);
/* Frees what r holds; r is then as after init. NULL is a no-op. */
void bs_run_result_release(bs_run_result *r);

/* Measures every impl of `o` and fills r->log with the observation log,
 * rows in measurement order (calibration rows, then the m rotated blocks
 * of confirm rows, per run and case). Each impl is calibrated on its own;
 * the confirm batches of a case then share the largest calibrated n,
 * unless the calibrated per-call times differ by more than 4x, when each
 * impl keeps its own. Library and command batches run in measuring
 * processes that re-execute this program's own executable
 * (/proc/self/exe: a new address layout), one per run or per block
 * (o->fresh), so a crash or a hang of a benchmark (past timeout_s) ends
 * that process only. Confirm rows carry cpu_per_call_us (library mode:
 * the measuring thread's CPU clock; command mode: user + system time of
 * the commands, with max_rss_kib, their largest peak resident set;
 * Google Benchmark mode: its cpu_time); calibration rows carry
 * cpu_per_call_us too (library and command mode). A block whose batch
 * lost its CPU to other work while it ran (an involuntary context switch
 * of the measuring thread, or of a command) is measured again, all its
 * batches, up to four times in all; its rows are the last try's and say
 * how many tries it took (`tries`). The 4x exception compares each impl's
 * least per-call time over its last three calibration steps, in wall time
 * and in CPU time (where measured): both must differ by more than 4x, so a
 * calibration step that lost its CPU cannot split the batch sizes.
 *
 * Errors (err names the impl and, where known, the case and the batch;
 * benchmark names are escaped): BS_EUSAGE for bad options, and for a duet
 * with other than two impls or with fewer than two CPUs to use; BS_EINPUT for a
 * benchmark at fault -- a library that cannot be loaded, lacks
 * benchsite_cases, refuses the ABI version or has a bad case table, a
 * crash, a hang, a command that cannot start or exits non-zero or dies of a
 * signal, unreadable Google Benchmark output, no case left to measure, a CPU
 * clock that cannot be read, a library whose cases change between
 * measuring processes --
 * and also for impls whose digests differ, with r->wrong_result set;
 * BS_EIO or BS_EINTERNAL when a process or pipe cannot be made (or
 * this program's executable cannot be started again), BS_EIO when the
 * progress callback cancels. On error
 * r->log is NULL (warnings may be set). */
bs_status bs_run_measure(const bs_run_options *o, bs_run_result *r,
                         bs_error *err);

/* Whether `run` measures o's impls side by side (o->duet) here unless
 * told otherwise: two impls and two CPUs this process may run on, in
 * library or command mode, or a harness that reports CPU time (Google
 * Benchmark); go test and pytest-benchmark run one after the other unless
 * a duet is asked for (what the verdict lab showed: run_harness.c). */
int bs_run_duet_possible(const bs_run_options *o);

/* The metric the gate reads for runs of `mode` when compare is not told
 * (run's manifest key gate_metric when it is not wall time): CPU time for
 * command pairs and for harnesses that report it, wall time for the
 * others. */
bs_metric bs_run_gate_metric(bs_run_mode mode);

/* Splits a command line into an argv: words separated by blanks (space,
 * tab, newline), single quotes group literally, double quotes group with
 * backslash escaping only `"` and `\`, a backslash outside quotes takes the
 * next byte literally. Nothing else is interpreted: no `$`, backquotes,
 * globs, `~`, `;` or redirections. *argv (NULL-terminated) and its strings
 * are one malloc'd block: free(*argv). BS_EUSAGE for an empty command, an
 * unterminated quote or a trailing backslash. */
bs_status bs_run_split_command(const char *cmd, char ***argv, size_t *argc,
                               bs_error *err);

/* Whether writing the file `path` would overwrite a file that impl i of
 * o reads when it is measured: its library (library mode); the program of
 * its command as starting it finds it (a name without '/' searched in
 * PATH as posix_spawnp searches, relative names from the impl's
 * directory); any other word of the command, split as
 * bs_run_split_command splits it (and the VALUE of a word -OPT=VALUE),
 * that names an existing file. Files are compared by device and inode, so
 * links and other spellings of one file are the same. Returns 1 with *i
 * the first such impl, else 0 (also when path does not exist). */
int bs_run_overwrites_input(const bs_run_options *o, const char *path,
                            size_t *i);

/* ---- The machine a run measures on --------------------------------------- */

typedef struct bs_machine_facts {
  char machine[512];         /* "<arch> <CPU model> ×<logical CPUs>" */
  char frequency_policy[64]; /* cpufreq's scaling governor, or "unknown" */
  char kernel[256];          /* uname -r */
  char date[32];             /* ISO 8601 UTC, YYYY-MM-DDTHH:MM:SSZ */
  char commit[128];          /* git rev-parse HEAD, "" when not known */
  uint64_t cpus;             /* logical CPUs */
  uint64_t memory_mib;       /* physical memory */
} bs_machine_facts;

/* Fills f from uname, /proc/cpuinfo, /proc/meminfo and cpufreq. The date
 * is `source_date_epoch` (decimal seconds since 1970, as the environment
 * variable SOURCE_DATE_EPOCH) when non-NULL, else now. With `git` set,
 * the commit comes from `git rev-parse HEAD` in the current directory,
 * started without a shell ("" outside a git work tree). BS_EUSAGE for a
 * bad source_date_epoch; facts that cannot be read get "unknown" or 0.
 * What would not be one line of text in them (invalid UTF-8, control
 * characters, U+2028/U+2029) becomes '?', one per byte. */
bs_status bs_machine_probe(bs_machine_facts *f, const char *source_date_epoch,
                           int git, bs_error *err);

/* A manifest being written: key/value pairs in order. */
typedef struct bs_manifest_draft {
  char **keys;
  char **values;
  size_t n, cap;
} bs_manifest_draft;

void bs_manifest_draft_init(bs_manifest_draft *d);
void bs_manifest_draft_release(bs_manifest_draft *d);
/* Sets key to value: replaces the value of a key already present (in its
 * place), else appends. BS_EUSAGE for an empty key, or a key or value that
 * is not one line of text: invalid UTF-8, a C0 control (tab and line ends
 * included), DEL, a C1 control, U+2028 or U+2029 (the message names the
 * key); BS_ENOMEM. */
bs_status bs_manifest_draft_set(bs_manifest_draft *d, const char *key,
                                const char *value, bs_error *err);
/* The manifest as RFC 4180 CSV (header `key,value`, every value quoted),
 * malloc'd into *out. */
bs_status bs_manifest_draft_render(const bs_manifest_draft *d, char **out,
                                   size_t *len, bs_error *err);

#ifdef __cplusplus
}
#endif
#endif
