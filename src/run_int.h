/* benchsite: what the runner's files share (run.c, run_exec.c,
 * run_gbench.c). Private. */
#ifndef BENCHSITE_RUN_INT_H
#define BENCHSITE_RUN_INT_H

#include "benchsite/run.h"

#include "buf.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Untrusted text for a message: control bytes as \xNN, cut after about 80
 * bytes with "...". Returns out (n bytes). */
const char *bs__run_esc(char *out, size_t n, const char *s);
/* "benchmark [dataset]" (or "benchmark"), escaped, into out. */
const char *bs__run_case_label(char *out, size_t n, const char *benchmark,
                               const char *dataset);
/* Appends a warning (printf-formatted) to r. */
bs_status bs__run_warn(bs_run_result *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The log's header line, and one row (block < 0: calibration). */
bs_status bs__run_log_header(bs__buf *b);
bs_status bs__run_log_row(bs__buf *b, const char *benchmark,
                          const char *dataset, double scale, const char *impl,
                          uint64_t run, long long block, uint64_t iterations,
                          double per_call_us);

/* "exited with status 3" / "was killed by signal 11 (Segmentation fault)"
 * for a wait status, into out. */
const char *bs__run_wait_text(char *out, size_t n, int st);

/* A word that ends `/`-separated path p (the basename). */
const char *bs__run_basename(const char *p);

/* Seconds on CLOCK_MONOTONIC. */
double bs__run_now(void);

/* Google Benchmark mode (run_gbench.c). */
bs_status bs__run_gbench(const bs_run_options *o, bs_run_result *r,
                         bs_error *err);

/* The measuring child of library and command mode (run_exec.c). */
typedef struct bs__exec_case {
  char *benchmark;
  char *dataset;
  double scale;
  int has_digest;
} bs__exec_case;

typedef struct bs__exec {
  pid_t pid;
  int fd;
  double timeout_s;
  size_t nimpls;
  bs__exec_case **cases; /* library mode: per impl, the case table */
  size_t *ncases;
} bs__exec;

enum { BS__OP_SETUP = 1, BS__OP_RUN, BS__OP_DIGEST, BS__OP_TEARDOWN };

/* Starts the child: library mode loads every impl (an error names the
 * impl); command mode gets argvs[i] per impl. */
bs_status bs__exec_start(bs__exec *e, const bs_run_options *o,
                         char **const *argvs, bs_error *err);
/* One request. `what` describes it for an error ("head: sum [n=8]: a
 * calibration batch of 10 calls, run 0"). *value: the batch time in ns
 * (RUN) or the digest (DIGEST; *has is 0 without one). */
bs_status bs__exec_call(bs__exec *e, int op, size_t impl, size_t kase,
                        uint64_t n, const char *what, uint64_t *value,
                        bs_error *err);
/* Ends the child (kills it when still running) and frees e. */
void bs__exec_stop(bs__exec *e);

#endif
