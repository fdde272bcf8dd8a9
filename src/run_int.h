/* benchsite: the measuring processes of library and command mode, and
 * the wire between them and benchsite (run.c, run_exec.c, run_child.c);
 * Google Benchmark mode (run_gbench.c). Private. */
#ifndef BENCHSITE_RUN_INT_H
#define BENCHSITE_RUN_INT_H

#include "benchsite/run.h"

#include "spawn_proc.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Google Benchmark mode (run_gbench.c). */
bs_status bs__run_gbench(const bs_run_options *o, bs_run_result *r,
                         bs_error *err);

/* ---- the wire ------------------------------------------------------------
 * A measuring process is this program's own executable started again
 * (/proc/self/exe) with BS__CHILD_ENV = "FD:PPID" in its environment: a
 * constructor in run_exec.c sees it before main and serves requests on
 * the socket FD until benchsite closes it. It first reads a bs__hello and
 * one (load, length, text) triple per impl, answers with ok = 1 and, in
 * library mode, the case tables of the impls it loaded, or with ok = 0, a
 * length and a message; then one bs__rep per bs__req. */
#define BS__CHILD_ENV "BENCHSITE_MEASURING_CHILD"
#define BS__CHILD_FD 3   /* the socket, in the measuring process */
#define BS__BARRIER_FD 4 /* duet: the shared barrier page */
#define BS__HELLO_MAGIC 0x62736d31u

typedef struct bs__hello {
  uint32_t magic, mode, nimpls, show_output, barrier;
} bs__hello;

typedef struct bs__req {
  uint32_t op, impl, kase;
  int32_t cpu;  /* RUN: the CPU to run on (sched_setaffinity), -1: any */
  uint64_t n;   /* RUN: the batch size */
  uint64_t seq; /* RUN in a duet: the barrier's round (1, 2, ...), 0: none */
} bs__req;

typedef struct bs__rep {
  uint32_t status, code; /* BS__REP_*; an errno or a wait status */
  uint64_t value;        /* RUN: wall ns (or, failed, the execution);
                            DIGEST: the digest */
  uint64_t cpu_ns;       /* RUN: CPU time of the batch */
  uint64_t maxrss_kib;   /* RUN, command mode: the largest ru_maxrss */
} bs__rep;

enum { BS__OP_SETUP = 1, BS__OP_RUN, BS__OP_DIGEST, BS__OP_TEARDOWN };
enum {
  BS__REP_OK = 0,
  BS__REP_FAILED,  /* a command failed: code its wait status */
  BS__REP_NOSTART, /* a command could not start: code errno */
  BS__REP_NOCLOCK, /* the CPU clock could not be read: code errno */
  BS__REP_NOPIN    /* sched_setaffinity failed: code errno */
};

/* The measuring process's side (run_child.c): serves the socket fd until
 * it closes, then exits. Never returns. */
void bs__run_child_main(int fd)
#if defined(__GNUC__)
    __attribute__((noreturn))
#endif
    ;

/* ---- benchsite's side (run_exec.c) -------------------------------------- */

typedef struct bs__exec_case {
  char *benchmark;
  char *dataset;
  double scale;
  int has_digest;
} bs__exec_case;

/* The measuring processes of one generation (a run, or a block) and the
 * case tables, which the first generation reads and later ones must
 * repeat. */
typedef struct bs__exec {
  const bs_run_options *o;
  char **const *argvs;
  bs__child ch[2]; /* one, or two in a duet (impl i in ch[i]); the
                      socket is ch[i].fd[BS__CHILD_FD] */
  size_t nch;
  int barrier_fd;        /* duet: the barrier page (a memory file), else -1 */
  uint64_t seq;          /* duet: barrier rounds so far in this generation */
  bs__exec_case **cases; /* library mode: per impl, the case table */
  size_t *ncases;
} bs__exec;

/* Before anything: e is empty, nothing runs. */
void bs__exec_init(bs__exec *e, const bs_run_options *o, char **const *argvs);
/* Starts a generation: one measuring process (two in a duet), loading
 * every impl (in a duet, each its own). The first time it reads the case
 * tables; later a table that differs is an error. Errors name the impl. */
bs_status bs__exec_start(bs__exec *e, bs_error *err);
/* Whether a generation is running. */
int bs__exec_running(const bs__exec *e);

/* One request for impl `impl` to the process that holds it. `what`
 * describes it for an error ("head: sum [n=8]: a calibration batch of 10
 * calls, run 0"). */
bs_status bs__exec_call(bs__exec *e, const bs__req *q, const char *what,
                        bs__rep *a, bs_error *err);
/* A duet batch: q[0] to impl 0's process and q[1] to impl 1's, released
 * together by the barrier; answers in a[0], a[1]. */
bs_status bs__exec_duet(bs__exec *e, bs__req q[2], const char *const what[2],
                        bs__rep a[2], bs_error *err);
/* Ends the generation: kills whatever still runs and reaps it. */
void bs__exec_stop(bs__exec *e);
/* bs__exec_stop and frees the tables. */
void bs__exec_release(bs__exec *e);

#endif
