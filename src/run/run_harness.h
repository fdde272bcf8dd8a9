/* benchsite: harness adapters, one row each in one table (as curl's TLS
 * backends are rows of struct Curl_ssl, vtls_int.h). An adapter says how
 * one block of a harness runs for one impl (the words it adds to the
 * impl's command -- the report format, one repetition, a superset of
 * --filter unless the user's own selection is there -- and where they go)
 * and how its report becomes rows; run_harness.c does the rest for every
 * adapter alike: starting the command in the impl's directory with a
 * timeout (or both impls' at once, pinned, in a duet), capturing the
 * report (standard output, or a file benchsite names) and the last lines
 * of the program's output for a message, checking each name (the filter,
 * UTF-8, no control characters, 4096 bytes), the rotation, and the log
 * (the adapters' command lines are built with run_harness_argv.c, the
 * program's last lines kept by run_harness_tail.c).
 * Adding a harness is adding a row (an adapter file and its line in the
 * table) and a test. Private. */
#ifndef BENCHSITE_RUN_HARNESS_H
#define BENCHSITE_RUN_HARNESS_H

#include "benchsite/run.h"

#include "run_common.h"

#include <stddef.h>
#include <stdint.h>

/* The most extra log columns an adapter has. */
#define BS__EXTRA_MAX 4

/* One benchmark of a report, as a parser sees it. Names point into the
 * report (not NUL-terminated); run_harness.c checks them. */
typedef struct bs__hrow {
  const char *benchmark, *dataset;
  size_t blen, dlen;
  uint64_t iterations;         /* >= 1: the calls the time is the mean of */
  double per_call_us;          /* finite, > 0 */
  double cpu_per_call_us;      /* finite, >= 0; < 0: not reported */
  double extra[BS__EXTRA_MAX]; /* per extra column; NaN: not reported */
} bs__hrow;

/* Where a parser puts rows. add() checks the names, applies the filter
 * and keeps the row; an error names ctx and the entry (0-based, in report
 * order). ctx ("IMPL: block J of run R") is for the parser's own errors
 * too. */
typedef struct bs__hsink bs__hsink;
struct bs__hsink {
  bs_status (*add)(bs__hsink *s, size_t entry, const bs__hrow *row,
                   bs_error *err);
  const char *ctx;
  void *self;
};

/* An argv being built (run_harness_argv.c): every word is a copy it owns. */
typedef struct bs__argv {
  char **v; /* NULL-terminated */
  size_t n, cap;
} bs__argv;

void bs__argv_init(bs__argv *a);
void bs__argv_release(bs__argv *a);
/* Appends a copy of word (BS_ENOMEM). */
bs_status bs__argv_add(bs__argv *a, const char *word);
/* Appends a printf-formatted word. */
bs_status bs__argv_addf(bs__argv *a, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Appends words[from..to-1]. */
bs_status bs__argv_add_words(bs__argv *a, char *const *words, size_t from,
                             size_t to);

/* The user's own value of a flag in words (NULL-terminated): the last
 * word that is one of names ("-k", "--benchmark_filter") followed by
 * "=VALUE" or, with `next`, by VALUE as the next word, or with `glued`
 * by VALUE right after it ("-kEXPR"). Words from index `stop` on are not
 * looked at. 1 with *value (pointing into words) when found, else 0. */
int bs__words_flag(char *const *words, size_t stop, const char *const *names,
                   int next, int glued, const char **value);
/* The index of the first word in words equal to one of ends (a word
 * after which a harness takes no more of its flags: "--", go test's
 * "-args"), or the number of words. */
size_t bs__words_end(char *const *words, const char *const *ends);

/* What one block's command is made of. */
typedef struct bs__hblock {
  char *const *words;       /* the impl's command, split; NULL-terminated */
  const bs__filter *filter; /* NULL: every benchmark */
  const char *report;  /* report_file adapters: the file to write, else NULL */
  const char *scratch; /* report_file adapters: a directory benchsite owns
                          (and removes) for what else the harness keeps */
} bs__hblock;

typedef struct bs__adapter {
  bs_run_mode mode;
  const char *name;  /* the option --NAME and the manifest's harness */
  const char *title; /* for messages: "Google Benchmark" (its report,
                        its programs) */
  int report_file;   /* 1: a file (bs__hblock.report), 0: standard output */
  int has_cpu;       /* its rows carry cpu_per_call_us */
  /* Extra log columns (the log reader ignores them), NULL-terminated;
   * at most BS__EXTRA_MAX. */
  const char *const *extra;
  /* Builds av: the impl's words (b->words) and what a block adds, placed
   * where the harness reads them and after the user's own flags (each of
   * these harnesses keeps the last of a flag given twice). A selection
   * the user gave (-bench, -k, --benchmark_filter) is kept as written,
   * with nothing of the adapter's after it: --filter then picks among
   * what the harness reports. */
  bs_status (*args)(bs__argv *av, const bs__hblock *b);
  /* Turns one report (text[0..len-1], not empty) into rows, calling
   * sink->add for each benchmark in report order. BS_EINPUT, naming
   * sink->ctx, for a report it cannot read. */
  bs_status (*parse)(const char *text, size_t len, bs__hsink *sink,
                     bs_error *err);
  /* What it runs and how, one line for `benchsite run --help`
   * (bs_run_harness_get): "a Google Benchmark program (split as --cmd,
   * ...". */
  const char *help;
} bs__adapter;

extern const bs__adapter bs__adapter_gbench;  /* run_gbench.c */
extern const bs__adapter bs__adapter_pytest;  /* run_pytest.c */
extern const bs__adapter bs__adapter_gobench; /* run_gobench.c */

/* The adapter of a harness mode, or NULL (library and command mode). */
const bs__adapter *bs__adapter_for(bs_run_mode mode);

/* Whether a's programs are measured side by side (duet) by default where
 * two CPUs can be had: those that report CPU time, which the gate then
 * reads (bs_run_gate_metric); the others one after the other unless
 * --duet. Set by what the verdict lab measures (run_harness.c). */
int bs__harness_duet_default(const bs__adapter *a);

/* The most lines of a failing program's output a message quotes. */
#define BS__TAIL_LINES 20

/* The last BS__TAIL_LINES lines of a program's standard output and error
 * that hold more than blanks (run_harness_tail.c). */
typedef struct bs__tail bs__tail;
/* An empty tail (free() it); NULL when out of memory. */
bs__tail *bs__tail_new(void);
/* What stream s (0 standard output, 1 standard error) printed next. */
void bs__tail_put(bs__tail *t, int s, const char *p, size_t n);
/* Hands the kept lines, escaped, oldest first, to r->output (BS_ENOMEM). */
bs_status bs__tail_give(bs__tail *t, bs_run_result *r);

/* Harness mode (run_harness.c): runs o's impls block by block and fills
 * r, as bs_run_measure describes. */
bs_status bs__run_harness(const bs_run_options *o, bs_run_result *r,
                          bs_error *err);

/* For the fuzz targets: parses one report of the adapter of `mode` with
 * every check a run makes (names, filter). Returns the parser's status;
 * *rows the rows kept. */
bs_status bs__harness_parse(bs_run_mode mode, const char *text, size_t len,
                            const char *filter, size_t *rows, bs_error *err);

#endif
